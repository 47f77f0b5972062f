/* test_perf.c - host-side counters: groups, enable windows, reads,
 * sampling into bounded rings, and the sample file. */
#include "dv_asm.h"
#include "dv_sim_perf.h"
#include "dv_stats.h"
#include "dv_test_main.h"
#include "dv_test_sim.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *mmads =
    ".kernel k\n.arg n, type=u64\n  pack.mmad x6, m=128, k=128, n=256\n"
    "loop:\n  beqz n, done\n  mmad x0, x0, x0, x6, dtype=f16, init=1\n  addi n, n, -1\n"
    "  j loop\ndone:\n  end\n";

typedef struct fixture {
    dv_obj *obj;
    dv_sim *sim;
} fixture;

static void setup(fixture *f, unsigned blocks, uint64_t n)
{
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_asm_string("t.dvs", mmads, strlen(mmads), NULL, &f->obj, NULL, &err), DV_OK);
    dv_chip_config cfg;
    dv_config_builtin("ascend910", &cfg, NULL);
    f->sim = dv_sim_create(&cfg, true, &err);
    ck_assert_int_eq(dv_sim_load(f->sim, f->obj, NULL, &err), DV_OK);
    dv_sim_set_arg(f->sim, 0, n, NULL);
    dv_sim_set_blocks(f->sim, blocks, NULL);
}

static void teardown(fixture *f)
{
    dv_sim_destroy(f->sim);
    dv_obj_destroy(f->obj);
}

START_TEST(test_counts_agree_and_disabled_stays_zero)
{
    fixture f;
    setup(&f, 4, 5);
    const char *ev[] = {"cube.busy_cycles", "cube.fractals", "cycles"};
    dv_error err;
    dv_perf *on = dv_sim_perf_open(f.sim, ev, 3, -1, &err);
    ck_assert_ptr_nonnull(on);
    dv_perf_enable(on);
    dv_run_result res;
    ck_assert_int_eq(dv_sim_run(f.sim, 0, &res, &err), DV_OK);
    for (unsigned c = 0; c < 4; c++) {
        dv_perf_value v;
        ck_assert_int_eq(dv_perf_read(on, c, 0, &v, NULL), DV_OK);
        ck_assert_uint_eq(v.value, tc_core(f.sim, c).stats->pipe[DV_PIPE_M].busy_cycles);
        ck_assert_uint_eq(v.value, 6 + 5 * 1024);
        ck_assert_int_eq(dv_perf_read(on, c, 1, &v, NULL), DV_OK);
        ck_assert_uint_eq(v.value, 5 * 1024);
        ck_assert_uint_ge(v.time_enabled, v.time_running);
        ck_assert_uint_eq(v.time_enabled, res.cycles);
    }
    dv_perf_value v;
    ck_assert_int_eq(dv_perf_read(on, 4, 0, &v, &err), DV_ERR_USAGE); /* no such core */
    dv_perf_reset(on);
    ck_assert_int_eq(dv_perf_read(on, 0, 0, &v, NULL), DV_OK);
    ck_assert_uint_eq(v.value, 0);
    dv_sim_perf_close(f.sim, on);
    teardown(&f);
    /* a group never enabled does not move */
    setup(&f, 1, 3);
    dv_perf *off = dv_sim_perf_open(f.sim, ev, 3, -1, &err);
    ck_assert_int_eq(dv_sim_run(f.sim, 0, &res, &err), DV_OK);
    ck_assert_int_eq(dv_perf_read(off, 0, 1, &v, NULL), DV_OK);
    ck_assert_uint_eq(v.value, 0);
    ck_assert_uint_eq(v.time_enabled, 0);
    dv_sim_perf_close(f.sim, off);
    teardown(&f);
    const char *bad[] = {"cube.nope"};
    setup(&f, 1, 1);
    ck_assert_ptr_null(dv_sim_perf_open(f.sim, bad, 1, -1, &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "unknown event 'cube.nope'"));
    teardown(&f);
}
END_TEST

typedef struct seen {
    uint64_t last[8];
    unsigned rounds;
    bool monotonic;
} seen;

static void drain_check(dv_perf *p, void *user)
{
    seen *s = user;
    s->rounds++;
    for (unsigned c = 0; c < 2; c++) {
        dv_sample r;
        while (dv_ring_pop(dv_perf_ring(p, c), &r)) {
            if (r.values[0] < s->last[c])
                s->monotonic = false; /* a read went back */
            s->last[c] = r.values[0];
        }
    }
}

START_TEST(test_sampling_counts_and_lost)
{
    /* 2 blocks of 5 mmads: 5126 cycles plus a few; period 100: exactly
     * floor(C / 100) samples per core. */
    fixture f;
    setup(&f, 2, 5);
    const char *ev[] = {"cube.fractals"};
    dv_error err;
    dv_perf *p = dv_sim_perf_open(f.sim, ev, 1, -1, &err);
    seen s = {{0}, 0, true};
    ck_assert_int_eq(dv_perf_sample(p, 100, 16, drain_check, &s, &err), DV_OK);
    dv_perf_enable(p);
    dv_run_result res;
    ck_assert_int_eq(dv_sim_run(f.sim, 0, &res, &err), DV_OK);
    ck_assert_uint_eq(s.rounds, res.cycles / 100);
    ck_assert(s.monotonic);
    ck_assert_uint_eq(s.last[0], 5 * 1024);
    ck_assert_uint_eq(dv_perf_ring(p, 0)->lost, 0);
    dv_sim_perf_close(f.sim, p);
    teardown(&f);
    /* a period that divides the run's cycles: the sample point at the last
     * cycle comes after the cores' last events there (the simulator's end
     * tick), so C / P samples, the last one with the final counts */
    uint64_t cycles = res.cycles, fac = 2;
    while (cycles % fac) /* the smallest factor of the run's cycles */
        fac++;
    uint64_t divs[2] = {1, fac};
    for (unsigned i = 0; i < 2; i++) {
        uint64_t div = divs[i];
        setup(&f, 2, 5);
        p = dv_sim_perf_open(f.sim, ev, 1, -1, &err);
        s = (seen){{0}, 0, true};
        ck_assert_int_eq(dv_perf_sample(p, cycles / div, 16, drain_check, &s, &err), DV_OK);
        dv_perf_enable(p);
        ck_assert_int_eq(dv_sim_run(f.sim, 0, &res, &err), DV_OK);
        ck_assert_uint_eq(res.cycles, cycles);
        ck_assert_uint_eq(s.rounds, div);
        ck_assert_uint_eq(s.last[0], 5 * 1024);
        dv_sim_perf_close(f.sim, p);
        teardown(&f);
    }
    /* nobody drains a 4-record ring: 4 kept, the rest counted as lost */
    setup(&f, 1, 5);
    p = dv_sim_perf_open(f.sim, ev, 1, -1, &err);
    ck_assert_int_eq(dv_perf_sample(p, 100, 4, NULL, NULL, &err), DV_OK);
    dv_perf_enable(p);
    ck_assert_int_eq(dv_sim_run(f.sim, 0, &res, &err), DV_OK);
    dv_sample_ring *r = dv_perf_ring(p, 0);
    ck_assert_uint_eq(r->count, 4);
    ck_assert_uint_eq(r->lost, res.cycles / 100 - 4);
    dv_sample rec;
    for (uint64_t cyc = 100; dv_ring_pop(r, &rec); cyc += 100)
        ck_assert_uint_eq(rec.cycle, cyc); /* the oldest kept, intact */
    ck_assert_int_eq(dv_perf_sample(p, 0, 4, NULL, NULL, &err), DV_ERR_USAGE);
    dv_sim_perf_close(f.sim, p);
    teardown(&f);
}
END_TEST

static void count_rec(void *user, const dv_sample *s)
{
    (void)s;
    ++*(uint64_t *)user;
}

START_TEST(test_sample_file_survives_truncation)
{
    char path[] = "/tmp/dvpmuXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    const char *names[] = {"cycles", "cube.fractals"};
    dv_error err;
    dv_sample_writer *w = dv_samples_create(path, names, 2, &err);
    ck_assert_ptr_nonnull(w);
    for (uint64_t i = 0; i < 1000; i++) {
        dv_sample s = {i * 10, 0, 2, {i * 10, i}};
        ck_assert_int_eq(dv_samples_write(w, &s, &err), DV_OK);
        if (i % 100 == 99)
            ck_assert_int_eq(dv_samples_flush(w, &err), DV_OK);
    }
    ck_assert_int_eq(dv_samples_close(w, &err), DV_OK);
    uint64_t n = 0, records = 0;
    dv_sample_reader_cb cb = {NULL, count_rec, &n};
    ck_assert_int_eq(dv_samples_read(path, &cb, &records, &err), DV_OK);
    ck_assert_uint_eq(records, 1000);
    /* cut the file in the middle, as a killed run would leave it */
    FILE *f = fopen(path, "rb");
    char buf[65536];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    f = fopen(path, "wb");
    fwrite(buf, 1, len / 2, f);
    fclose(f);
    n = 0;
    ck_assert_int_eq(dv_samples_read(path, &cb, &records, &err), DV_OK);
    ck_assert_uint_gt(records, 100);
    ck_assert_uint_lt(records, 1000);
    unlink(path);
}
END_TEST

START_TEST(test_metric_groups_agree_with_report)
{
    /* PipeUtilization's cube ratio and Memory's byte volumes are the same
     * numbers as the report's, per core and for the chip. */
    fixture f;
    setup(&f, 3, 4);
    dv_run_result res;
    dv_error err;
    ck_assert_int_eq(dv_sim_run(f.sim, 0, &res, &err), DV_OK);
    dv_stat_list l;
    ck_assert_int_eq(dv_stats_collect(f.sim, &res, &l, NULL), DV_OK);
    dv_metric_row row;
    dv_sim_metrics(f.sim, &res, (unsigned)dv_metric_group_find("pipeutilization"), 1, &row);
    ck_assert_str_eq(row.name[2], "cube_ratio");
    ck_assert_double_eq_tol(100 * row.value[2], dv_stats_find(&l, "core1.cube.busy_pct")->value, 1e-9);
    dv_sim_metrics(f.sim, &res, (unsigned)dv_metric_group_find("PipeUtilization"), UINT32_MAX, &row);
    ck_assert_double_eq_tol(100 * row.value[2], dv_stats_find(&l, "chip.cube.utilisation_avg_pct")->value,
                            0.5);
    dv_sim_metrics(f.sim, &res, (unsigned)dv_metric_group_find("ArithmeticUtilization"), 0, &row);
    ck_assert_double_eq_tol(100 * row.value[0], dv_stats_find(&l, "core0.cube.utilisation_pct")->value, 1e-9);
    for (unsigned g = 0; g < dv_metric_group_count(); g++) {
        dv_sim_metrics(f.sim, &res, g, 0, &row);
        ck_assert_uint_gt(row.n, 0);
    }
    ck_assert_int_eq(dv_metric_group_find("Nope"), -1);
    dv_stats_free(&l);
    teardown(&f);

    /* Memory's data volumes are the report's path bytes */
    const char *copy = ".kernel k\n.arg buf\n  pack.burst x5, nburst=3, len=64\n  copy_gm_ub x0, buf, x5\n"
                       "  set_flag src=mte2, dst=mte3, id=0\n  wait_flag src=mte2, dst=mte3, id=0\n"
                       "  copy_ub_gm buf, x0, x5\n  end\n";
    dv_obj *obj;
    ck_assert_int_eq(dv_asm_string("c.dvs", copy, strlen(copy), NULL, &obj, NULL, &err), DV_OK);
    dv_chip_config cfg;
    dv_config_builtin("ascend910", &cfg, NULL);
    dv_sim *sim = dv_sim_create(&cfg, true, &err);
    ck_assert_int_eq(dv_sim_load(sim, obj, NULL, &err), DV_OK);
    uint64_t buf;
    dv_gm_alloc(dv_sim_gm(sim), 8192, &buf, NULL);
    dv_sim_set_arg(sim, 0, buf, NULL);
    ck_assert_int_eq(dv_sim_run(sim, 0, &res, &err), DV_OK);
    ck_assert_int_eq(dv_stats_collect(sim, &res, &l, NULL), DV_OK);
    dv_sim_metrics(sim, &res, (unsigned)dv_metric_group_find("Memory"), 0, &row);
    ck_assert_str_eq(row.name[5], "gm_to_ub_datas");
    ck_assert_double_eq(row.value[5] * 1024, dv_stats_find(&l, "core0.path.gm_to_ub.bytes")->value);
    ck_assert_double_eq(row.value[6] * 1024, dv_stats_find(&l, "core0.path.ub_to_gm.bytes")->value);
    ck_assert_double_eq(row.value[5] * 1024, 3 * 64 * 32);
    dv_stats_free(&l);
    dv_sim_destroy(sim);
    dv_obj_destroy(obj);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("perf");
    TCase *tc = tcase_create("perf");
    tcase_add_test(tc, test_counts_agree_and_disabled_stays_zero);
    tcase_add_test(tc, test_sampling_counts_and_lost);
    tcase_add_test(tc, test_sample_file_survives_truncation);
    tcase_add_test(tc, test_metric_groups_agree_with_report);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
