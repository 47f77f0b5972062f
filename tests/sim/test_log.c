/* test_log.c - the log (base/dv_log.h) and the simulator's messages through
 * it (dv_sim_set_log): off by default, gated by category and level, the
 * launch, the blocks, the outcome; and a run logged at the most verbose
 * level has the cycles and statistics of one without a log. */
#include "dv_asm.h"
#include "dv_log.h"
#include "dv_sim.h"
#include "dv_stats.h"
#include "dv_test_main.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* The messages a sink received, one "cat level: msg" line each. */
typedef struct capture {
    dv_buf text;
    unsigned count;
} capture;

static void sink(void *user, dv_log_cat cat, dv_log_level level, const char *msg)
{
    capture *c = user;
    dv_buf_printf(&c->text, "%s %s: %s\n", dv_log_cat_name(cat), dv_log_level_name(level), msg);
    c->count++;
}

static unsigned occurrences(const char *text, const char *what)
{
    unsigned n = 0;
    for (const char *p = text ? strstr(text, what) : NULL; p; p = strstr(p + 1, what))
        n++;
    return n;
}

START_TEST(test_gates)
{
    dv_log log;
    capture c = {DV_BUF_INIT, 0};
    dv_log_init(&log);
    ck_assert(!dv_log_enabled(&log, DV_LOG_CAT_SIM, DV_LOG_ERROR)); /* off without a sink */
    dv_log_set_level(&log, DV_LOG_CAT_SIM, DV_LOG_TRACE);
    ck_assert(!dv_log_enabled(&log, DV_LOG_CAT_SIM, DV_LOG_ERROR));
    DV_LOG(&log, DV_LOG_CAT_SIM, DV_LOG_ERROR, "dropped %d", 1);
    dv_log_set_sink(&log, sink, &c);
    ck_assert(dv_log_enabled(&log, DV_LOG_CAT_SIM, DV_LOG_TRACE)); /* the level set before the sink holds */
    ck_assert(dv_log_enabled(&log, DV_LOG_CAT_MEM, DV_LOG_WARN));  /* the others: warn */
    ck_assert(!dv_log_enabled(&log, DV_LOG_CAT_MEM, DV_LOG_INFO));
    dv_log_set_level(&log, DV_LOG_CAT_MEM, DV_LOG_ERROR);
    ck_assert(!dv_log_enabled(&log, DV_LOG_CAT_MEM, DV_LOG_WARN));
    dv_log_set_level(&log, DV_LOG_CAT_COUNT, DV_LOG_TRACE); /* out of range: ignored */
    dv_log_set_level(&log, DV_LOG_CAT_ASM, (dv_log_level)9);
    ck_assert(!dv_log_enabled(&log, DV_LOG_CAT_ASM, DV_LOG_INFO));
    DV_LOG(&log, DV_LOG_CAT_SIM, DV_LOG_DEBUG, "kept %d", 2);
    DV_LOG(&log, DV_LOG_CAT_MEM, DV_LOG_INFO, "dropped %d", 3);
    ck_assert_uint_eq(c.count, 1);
    ck_assert_str_eq(c.text.data, "sim debug: kept 2\n");
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    DV_LOG(&log, DV_LOG_CAT_SIM, DV_LOG_INFO, "%s", big); /* cut, not overrun */
    ck_assert_uint_eq(c.count, 2);
    dv_log_set_sink(&log, NULL, NULL);
    ck_assert(!dv_log_enabled(&log, DV_LOG_CAT_SIM, DV_LOG_ERROR));
    dv_buf_free(&c.text);
}
END_TEST

typedef struct outcome {
    dv_run_result res;
    char *stats; /* stats.json */
} outcome;

/* Runs src (one kernel, no arguments) in `blocks` blocks on ascend910; with
 * c, logging everything of every category into it. */
static void run(const char *src, uint64_t blocks, uint64_t max_cycles, capture *c, outcome *out)
{
    dv_error err = {DV_OK, ""};
    dv_diags diags = {NULL, 0};
    dv_obj *obj = NULL;
    ck_assert_int_eq(dv_asm_string("t.dvs", src, strlen(src), NULL, &obj, &diags, &err), DV_OK);
    dv_chip_config cfg;
    ck_assert_int_eq(dv_config_builtin("ascend910", &cfg, &err), DV_OK);
    dv_sim *s = dv_sim_create(&cfg, true, &err);
    ck_assert_ptr_nonnull(s);
    if (c) {
        dv_sim_set_log(s, sink, c);
        for (int cat = 0; cat < DV_LOG_CAT_COUNT; cat++)
            dv_sim_set_log_level(s, (dv_log_cat)cat, DV_LOG_TRACE);
    }
    ck_assert_int_eq(dv_sim_load(s, obj, NULL, &err), DV_OK);
    ck_assert_int_eq(dv_sim_set_blocks(s, blocks, &err), DV_OK);
    ck_assert_int_eq(dv_sim_run(s, max_cycles, &out->res, &err), DV_OK);
    dv_stat_list l;
    ck_assert_int_eq(dv_stats_collect(s, &out->res, &l, &err), DV_OK);
    dv_buf js = DV_BUF_INIT;
    ck_assert_int_eq(dv_stats_json(&l, &js), DV_OK);
    out->stats = dv_buf_take(&js, NULL);
    dv_stats_free(&l);
    dv_sim_destroy(s);
    dv_obj_destroy(obj);
}

/* A block is a loop of scalar work, longer on odd blocks: 40 blocks over 32
 * cores run in two waves, and the cores finish out of order. */
#define LOOP_SRC                                                                                             \
    ".kernel k\n  csrr x6, blockidx\n  andi x6, x6, 1\n  li x5, 50\n  beqz x6, loop\n  li x5, 80\n"          \
    "loop:\n  addi x5, x5, -1\n  bne x5, x0, loop\n  end\n"

START_TEST(test_sim_messages)
{
    capture c = {DV_BUF_INIT, 0};
    outcome logged, quiet;
    run(LOOP_SRC, 40, 0, &c, &logged);
    run(LOOP_SRC, 40, 0, NULL, &quiet);
    const char *t = c.text.data;
    ck_assert_msg(occurrences(t,
                              "sim info: launch: kernel k (coupled) on ascend910: 40 blocks on 32 cores (in "
                              "waves)\n") == 1,
                  "%s", t);
    ck_assert_uint_eq(occurrences(t, "sim debug: core "), 80);
    ck_assert_uint_eq(occurrences(t, " starts at cycle "), 40);
    ck_assert_uint_eq(occurrences(t, " done at cycle "), 40);
    ck_assert_uint_eq(occurrences(t, "core 6: block 35 starts"), 1); /* the even blocks end first */
    ck_assert_uint_eq(occurrences(t, "sim info: end: done after "), 1);
    ck_assert_uint_eq(occurrences(t, "warn"), 0);
    /* the log reads the run, never changes it */
    ck_assert_uint_eq(logged.res.cycles, quiet.res.cycles);
    ck_assert_str_eq(logged.stats, quiet.stats);
    free(logged.stats);
    free(quiet.stats);
    dv_buf_free(&c.text);
}
END_TEST

START_TEST(test_sim_outcomes)
{
    static const struct {
        const char *src;
        const char *want;
    } cases[] = {
        {".kernel k\n  li x5, 0\n  lw x6, 0(x5)\n  end\n", "sim warn: guest fault: core 0, pipe SCALAR"},
        {".kernel k\n  wait_flag src=mte2, dst=v, id=1\n  end\n",
         "sim warn: deadlock: core 0 deadlocked at cycle"},
        /* the cycle limit names the core, the unit and the source line */
        {".kernel k\nloop: j loop\n",
         "sim warn: stopped at the cycle limit 5000: core 0: SCALAR at pc 0x0 (t.dvs:2)"},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        capture c = {DV_BUF_INIT, 0};
        outcome o;
        run(cases[i].src, 1, 5000, &c, &o);
        ck_assert_msg(occurrences(c.text.data, cases[i].want) == 1, "case %u: %s", i, c.text.data);
        ck_assert_uint_eq(occurrences(c.text.data, "sim info: end: "), 1);
        free(o.stats);
        dv_buf_free(&c.text);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("log");
    TCase *tc = tcase_create("log");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_gates);
    tcase_add_test(tc, test_sim_messages);
    tcase_add_test(tc, test_sim_outcomes);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
