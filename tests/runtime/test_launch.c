/* test_launch.c - several kernels on the chip at once (sim/dv_launch.h):
 * one launch over every core is the one-kernel run, cycle for cycle;
 * launches on disjoint core sets overlap, on the same cores they queue
 * (oldest first); a launch added from a completion callback starts at the
 * cycle the other ended; a fault ends its launch alone; same inputs, same
 * cycles. */
#include "dv_asm.h"
#include "dv_launch.h"
#include "dv_test_main.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PER_BLOCK = 65536 };

static dv_obj *copy_obj(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/kernels/samples/copy_blocks.dvs", getenv("DV_SOURCE_ROOT"));
    dv_error err = {DV_OK, ""};
    dv_obj *obj = NULL;
    ck_assert_msg(dv_asm_file(path, NULL, &obj, NULL, &err) == DV_OK, "%s", err.msg);
    return obj;
}

typedef struct chip {
    dv_sim *sim;
    uint64_t src, dst;
    uint8_t *srcp, *dstp;
} chip;

static void open_chip(chip *c, uint64_t bytes, bool open)
{
    dv_chip_config cfg;
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_config_builtin("ascend910", &cfg, NULL), DV_OK);
    c->sim = dv_sim_create(&cfg, true, &err);
    ck_assert_ptr_nonnull(c->sim);
    ck_assert_int_eq(dv_gm_alloc(dv_sim_gm(c->sim), bytes, &c->src, NULL), DV_OK);
    ck_assert_int_eq(dv_gm_alloc(dv_sim_gm(c->sim), bytes, &c->dst, NULL), DV_OK);
    dv_access_fault f;
    c->srcp = dv_gm_span(dv_sim_gm(c->sim), c->src, bytes, &f);
    c->dstp = dv_gm_span(dv_sim_gm(c->sim), c->dst, bytes, &f);
    for (uint64_t i = 0; i < bytes; i++)
        c->srcp[i] = (uint8_t)(i * 7 + i / 4096);
    if (open)
        ck_assert_int_eq(dv_sim_open(c->sim, 0, &err), DV_OK);
}

/* A copy of `blocks` blocks starting at block offset `first` of the tensors. */
static unsigned add_copy(chip *c, const dv_obj *obj, uint64_t first, uint64_t blocks, const char *cores,
                         dv_launch_done_fn done, void *user)
{
    dv_launch_desc d = {.obj = obj, .block_dim = blocks, .done = done, .user = user};
    d.args[0] = c->src + first * PER_BLOCK;
    d.args[1] = c->dst + first * PER_BLOCK;
    d.args[2] = PER_BLOCK;
    dv_error err = {DV_OK, ""};
    if (cores)
        ck_assert_int_eq(dv_coreset_parse(cores, 32, &d.cores, &err), DV_OK);
    unsigned id;
    ck_assert_msg(dv_sim_launch(c->sim, &d, &id, &err) == DV_OK, "%s", err.msg);
    return id;
}

static void run_all(chip *c, dv_run_result *res)
{
    dv_error err = {DV_OK, ""};
    while (dv_sim_advance(c->sim, UINT64_MAX, &err))
        ;
    ck_assert_int_eq(err.status, DV_OK);
    ck_assert_int_eq(dv_sim_finish(c->sim, res, &err), DV_OK);
}

static dv_launch_info info(const chip *c, unsigned id)
{
    dv_launch_info in;
    ck_assert(dv_sim_launch_info(c->sim, id, &in));
    return in;
}

/* The one-kernel run of `blocks` blocks: its cycles. */
static uint64_t single_run(const dv_obj *obj, unsigned blocks)
{
    chip c;
    open_chip(&c, (uint64_t)blocks * PER_BLOCK, false);
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_sim_load(c.sim, obj, NULL, &err), DV_OK);
    dv_sim_set_arg(c.sim, 0, c.src, NULL);
    dv_sim_set_arg(c.sim, 1, c.dst, NULL);
    dv_sim_set_arg(c.sim, 2, PER_BLOCK, NULL);
    dv_sim_set_blocks(c.sim, blocks, NULL);
    dv_run_result res;
    ck_assert_int_eq(dv_sim_run(c.sim, 0, &res, &err), DV_OK);
    ck_assert_int_eq(res.stop, DV_STOP_DONE);
    dv_sim_destroy(c.sim);
    return res.cycles;
}

START_TEST(test_one_launch_is_the_one_kernel_run)
{
    /* 40 blocks on 32 cores: one wave of 32 then 8 (waves and HBM contention). */
    dv_obj *obj = copy_obj();
    uint64_t want = single_run(obj, 40);
    chip c;
    open_chip(&c, 40ull * PER_BLOCK, true);
    unsigned id = add_copy(&c, obj, 0, 40, NULL, NULL, NULL);
    dv_run_result res;
    run_all(&c, &res);
    dv_launch_info in = info(&c, id);
    ck_assert_int_eq(in.stop, DV_STOP_DONE);
    ck_assert_uint_eq(in.start_cycle, 0);
    ck_assert_uint_eq(in.end_cycle, want);
    ck_assert_uint_eq(res.cycles, want);
    ck_assert_uint_eq(in.units, 32);
    ck_assert_uint_eq(in.path_bytes[DV_PATH_GM_UB], 40ull * PER_BLOCK);
    ck_assert_int_eq(memcmp(c.srcp, c.dstp, 40ull * PER_BLOCK), 0);
    dv_sim_destroy(c.sim);
    dv_obj_destroy(obj);
}
END_TEST

START_TEST(test_disjoint_sets_overlap)
{
    /* Two copies of 16 blocks on cores 0-15 and 16-31 run side by side: each
     * alone on 16 cores takes T16; together they share HBM, so they take at
     * least T16 and at most 2 x T16 (what one stream after the other would
     * take); and a single launch of 32 blocks on all 32 cores moves the same
     * bytes with the same contention. */
    dv_obj *obj = copy_obj();
    uint64_t t16 = single_run(obj, 16), t32 = single_run(obj, 32);
    chip c;
    open_chip(&c, 32ull * PER_BLOCK, true);
    unsigned a = add_copy(&c, obj, 0, 16, "0-15", NULL, NULL);
    unsigned b = add_copy(&c, obj, 16, 16, "16-31", NULL, NULL);
    dv_run_result res;
    run_all(&c, &res);
    dv_launch_info ia = info(&c, a), ib = info(&c, b);
    ck_assert_uint_eq(ia.start_cycle, 0);
    ck_assert_uint_eq(ib.start_cycle, 0);
    ck_assert_uint_ge(res.cycles, t16);
    ck_assert_uint_lt(res.cycles, 2 * t16);
    /* the same 32 blocks on the same 32 cores: within a few cycles of the
     * one launch (the two launches' cores interleave their requests in a
     * different order) */
    ck_assert_uint_le(res.cycles > t32 ? res.cycles - t32 : t32 - res.cycles, t32 / 50);
    char used[64];
    dv_coreset_format(&ib.cores_used, used, sizeof used);
    ck_assert_str_eq(used, "16-31");
    ck_assert_int_eq(memcmp(c.srcp, c.dstp, 32ull * PER_BLOCK), 0);
    dv_sim_destroy(c.sim);
    dv_obj_destroy(obj);
}
END_TEST

START_TEST(test_same_cores_queue)
{
    /* Two launches of 4 blocks on cores 0-3: the second's blocks wait for the
     * first's cores, so it starts at the cycle the first ends and takes as
     * long as it alone would (nothing else runs). */
    dv_obj *obj = copy_obj();
    uint64_t t4 = single_run(obj, 4);
    chip c;
    open_chip(&c, 8ull * PER_BLOCK, true);
    unsigned a = add_copy(&c, obj, 0, 4, "0-3", NULL, NULL);
    unsigned b = add_copy(&c, obj, 4, 4, "0-3", NULL, NULL);
    dv_run_result res;
    run_all(&c, &res);
    dv_launch_info ia = info(&c, a), ib = info(&c, b);
    ck_assert_uint_eq(ia.end_cycle, t4);
    ck_assert_uint_eq(ib.start_cycle, t4);
    ck_assert_uint_eq(ib.end_cycle, 2 * t4);
    ck_assert_int_eq(memcmp(c.srcp, c.dstp, 8ull * PER_BLOCK), 0);
    dv_sim_destroy(c.sim);
    dv_obj_destroy(obj);
}
END_TEST

typedef struct chain {
    chip *c;
    const dv_obj *obj;
    unsigned left, ids[16], n;
} chain;

static void next_link(void *user, dv_sim *sim, unsigned id)
{
    (void)sim;
    chain *ch = user;
    ch->ids[ch->n++] = id;
    if (ch->left-- > 0)
        add_copy(ch->c, ch->obj, ch->n, 1, "5", next_link, ch);
}

START_TEST(test_callback_launches_next)
{
    /* Each launch's callback adds the next: five one-block copies on core 5,
     * each starting at the cycle the last ended, each as long as the first. */
    dv_obj *obj = copy_obj();
    uint64_t t1 = single_run(obj, 1);
    chip c;
    open_chip(&c, 6ull * PER_BLOCK, true);
    chain ch = {.c = &c, .obj = obj, .left = 4};
    add_copy(&c, obj, 0, 1, "5", next_link, &ch);
    dv_run_result res;
    run_all(&c, &res);
    ck_assert_uint_eq(ch.n, 5);
    for (unsigned i = 0; i < 5; i++) {
        dv_launch_info in = info(&c, ch.ids[i]);
        ck_assert_uint_eq(ch.ids[i], i);
        ck_assert_uint_eq(in.start_cycle, i * t1);
        ck_assert_uint_eq(in.end_cycle, (i + 1) * t1);
    }
    ck_assert_uint_eq(res.cycles, 5 * t1);
    ck_assert_int_eq(memcmp(c.srcp, c.dstp, 5ull * PER_BLOCK), 0);
    dv_sim_destroy(c.sim);
    dv_obj_destroy(obj);
}
END_TEST

START_TEST(test_added_between_advances)
{
    /* A launch added while another runs (between slices) with a start
     * condition: it starts at that cycle on its free cores. */
    dv_obj *obj = copy_obj();
    chip c;
    open_chip(&c, 8ull * PER_BLOCK, true);
    add_copy(&c, obj, 0, 4, "0-3", NULL, NULL);
    dv_error err = {DV_OK, ""};
    ck_assert(dv_sim_advance(c.sim, 1000, &err));
    dv_launch_desc d = {.obj = obj, .block_dim = 4, .not_before = 1500};
    d.args[0] = c.src + 4 * PER_BLOCK, d.args[1] = c.dst + 4 * PER_BLOCK, d.args[2] = PER_BLOCK;
    dv_coreset_parse("8-11", 32, &d.cores, &err);
    unsigned b;
    ck_assert_int_eq(dv_sim_launch(c.sim, &d, &b, &err), DV_OK);
    dv_run_result res;
    run_all(&c, &res);
    dv_launch_info ib = info(&c, b);
    ck_assert_uint_eq(ib.submit_cycle, dv_sim_now(c.sim) >= 1000 ? ib.submit_cycle : 0);
    ck_assert_uint_eq(ib.ready_cycle, 1500);
    ck_assert_uint_eq(ib.start_cycle, 1500);
    ck_assert_int_eq(memcmp(c.srcp, c.dstp, 8ull * PER_BLOCK), 0);
    dv_sim_destroy(c.sim);
    dv_obj_destroy(obj);
}
END_TEST

START_TEST(test_bad_launches)
{
    dv_obj *obj = copy_obj();
    chip c;
    open_chip(&c, PER_BLOCK, true);
    dv_error err = {DV_OK, ""};
    dv_launch_desc d = {.obj = obj, .block_dim = 1, .kernel = "nope"};
    unsigned id;
    ck_assert_int_eq(dv_sim_launch(c.sim, &d, &id, &err), DV_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "no kernel 'nope'"));
    d.kernel = NULL;
    dv_coreset_add(&d.cores, 40);
    ck_assert_int_eq(dv_sim_launch(c.sim, &d, &id, &err), DV_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "core 40 is not on"));
    dv_coreset cs;
    ck_assert_int_eq(dv_coreset_parse("3-1", 32, &cs, &err), DV_ERR_INPUT);
    ck_assert_int_eq(dv_coreset_parse("0-40", 32, &cs, &err), DV_ERR_INPUT);
    ck_assert_int_eq(dv_coreset_parse("1,x", 32, &cs, &err), DV_ERR_INPUT);
    ck_assert_int_eq(dv_coreset_parse("0-3,7,9-10", 32, &cs, &err), DV_OK);
    ck_assert_uint_eq(dv_coreset_count(&cs), 7);
    dv_run_result res;
    run_all(&c, &res); /* nothing ran: idle at once */
    ck_assert_uint_eq(res.cycles, 0);
    dv_sim_destroy(c.sim);
    dv_obj_destroy(obj);
}
END_TEST

static Suite *launch_suite(void)
{
    Suite *s = suite_create("launch");
    TCase *tc = tcase_create("launch");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_one_launch_is_the_one_kernel_run);
    tcase_add_test(tc, test_disjoint_sets_overlap);
    tcase_add_test(tc, test_same_cores_queue);
    tcase_add_test(tc, test_callback_launches_next);
    tcase_add_test(tc, test_added_between_advances);
    tcase_add_test(tc, test_bad_launches);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return dv_test_run(launch_suite());
}
