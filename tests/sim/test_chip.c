/* test_chip.c - launches over many cores: waves, shared HBM, roll-ups. */
#include "dv_asm.h"
#include "dv_sim.h"
#include "dv_stats.h"
#include "dv_test_main.h"
#include "dv_test_sim.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PER_BLOCK = 262144 };

typedef struct launch {
    dv_sim *sim;
    dv_obj *obj;
    dv_run_result res;
    dv_stat_list stats;
    uint64_t src, dst;
} launch;

static double stat_value(const launch *l, const char *name)
{
    const dv_stat *s = dv_stats_find(&l->stats, name);
    ck_assert_msg(s != NULL, "no statistic %s", name);
    return s->value;
}

/* Runs kernels/samples/copy_blocks.dvs with `blocks` blocks on ascend910,
 * with its HBM at hbm bytes/cycle (0: as configured, 1200). */
static void run_copy_hbm(launch *l, unsigned blocks, uint64_t hbm);

static void run_copy(launch *l, unsigned blocks)
{
    run_copy_hbm(l, blocks, 0);
}

static void run_copy_hbm(launch *l, unsigned blocks, uint64_t hbm)
{
    char path[512];
    snprintf(path, sizeof path, "%s/kernels/samples/copy_blocks.dvs", getenv("DV_SOURCE_ROOT"));
    dv_error err = {DV_OK, ""};
    memset(l, 0, sizeof *l);
    ck_assert_msg(dv_asm_file(path, NULL, &l->obj, NULL, &err) == DV_OK, "%s", err.msg);
    dv_chip_config cfg;
    dv_config_builtin("ascend910", &cfg, NULL);
    if (hbm)
        cfg.hbm_bytes_per_cycle = hbm;
    l->sim = dv_sim_create(&cfg, true, &err);
    ck_assert_int_eq(dv_sim_load(l->sim, l->obj, NULL, &err), DV_OK);
    uint64_t bytes = (uint64_t)blocks * PER_BLOCK;
    ck_assert_int_eq(dv_gm_alloc(dv_sim_gm(l->sim), bytes, &l->src, NULL), DV_OK);
    ck_assert_int_eq(dv_gm_alloc(dv_sim_gm(l->sim), bytes, &l->dst, NULL), DV_OK);
    dv_access_fault f;
    uint8_t *src = dv_gm_span(dv_sim_gm(l->sim), l->src, bytes, &f);
    for (uint64_t i = 0; i < bytes; i++)
        src[i] = (uint8_t)(i * 7 + i / 4096);
    dv_sim_set_arg(l->sim, 0, l->src, NULL);
    dv_sim_set_arg(l->sim, 1, l->dst, NULL);
    dv_sim_set_arg(l->sim, 2, PER_BLOCK, NULL);
    ck_assert_int_eq(dv_sim_set_blocks(l->sim, blocks, NULL), DV_OK);
    ck_assert_int_eq(dv_sim_run(l->sim, 0, &l->res, &err), DV_OK);
    ck_assert_int_eq(l->res.stop, DV_STOP_DONE);
    ck_assert_int_eq(memcmp(dv_gm_span(dv_sim_gm(l->sim), l->dst, bytes, &f), src, bytes), 0);
    ck_assert_int_eq(dv_stats_collect(l->sim, &l->res, &l->stats, NULL), DV_OK);
}

static void free_launch(launch *l)
{
    dv_stats_free(&l->stats);
    dv_sim_destroy(l->sim);
    dv_obj_destroy(l->obj);
}

START_TEST(test_copy_scaling)
{
    /* One block: 8 tiles of 32 KiB, each read (20 + 32768/64 = 532 cycles)
     * then written (532): 8 x 1064 = 8512 cycles plus the scalar prologue,
     * 2 x 256 KiB / 8512 cycles = 61.6 B/cycle. */
    launch one;
    run_copy(&one, 1);
    double c1 = stat_value(&one, "chip.cycles"), g1 = stat_value(&one, "chip.gm.gbps");
    ck_assert_double_ge(c1, 8512);
    ck_assert_double_lt(c1, 8512 + 30);
    /* Up to 16 cores (16 x 64 = 1024 B/cycle < 1200 B/cycle of HBM) the
     * cores do not slow each other: the same cycles, n times the bandwidth. */
    for (unsigned n = 2; n <= 16; n *= 2) {
        launch l;
        run_copy(&l, n);
        ck_assert_double_eq(stat_value(&l, "chip.cycles"), c1);
        ck_assert_double_eq_tol(stat_value(&l, "chip.gm.gbps"), n * g1, 0.01 * n * g1);
        ck_assert_uint_eq(l.res.ncores, n);
        free_launch(&l);
    }
    /* 32 cores: the source lines miss in L2 and are filled from HBM (the
     * written lines stay in the write-back L2), so HBM carries half the GM
     * bytes and never more than its 1200 B/cycle. */
    launch all;
    run_copy(&all, 32);
    ck_assert_double_le(stat_value(&all, "chip.hbm.gbps"), 1200.0);
    ck_assert_double_eq_tol(stat_value(&all, "chip.hbm.gbps"), stat_value(&all, "chip.gm.gbps") / 2,
                            0.01 * stat_value(&all, "chip.gm.gbps"));
    ck_assert_double_eq(stat_value(&all, "chip.l2.read_hit_pct"), 0);
    /* 64 blocks on 32 cores: two waves, about twice the time (cores that finish
     * early start their second block early), every core two blocks */
    launch waves;
    run_copy(&waves, 64);
    ck_assert_uint_eq(waves.res.ncores, 32);
    ck_assert_double_eq_tol(stat_value(&waves, "chip.cycles"), 2 * stat_value(&all, "chip.cycles"),
                            0.05 * stat_value(&all, "chip.cycles"));
    for (unsigned i = 0; i < 32; i++) {
        char name[32];
        snprintf(name, sizeof name, "core%u.blocks", i);
        ck_assert_double_eq(stat_value(&waves, name), 2);
    }
    ck_assert_double_lt(stat_value(&waves, "chip.load_imbalance"), 1.1);
    free_launch(&one);
    free_launch(&all);
    free_launch(&waves);
}
END_TEST

START_TEST(test_hbm_saturates)
{
    /* With HBM at 256 B/cycle, 8 cores reading 32 B/cycle each on average
     * (a 64 B/cycle read half the time) fill it; 32 cores cannot go faster:
     * HBM runs at >= 95% of 256 B/cycle and the run takes ~4x as long. */
    launch eight, all;
    run_copy_hbm(&eight, 8, 256);
    run_copy_hbm(&all, 32, 256);
    ck_assert_double_le(stat_value(&all, "chip.hbm.gbps"), 256.0);
    ck_assert_double_ge(stat_value(&all, "chip.hbm.gbps"), 0.95 * 256.0);
    ck_assert_double_gt(stat_value(&all, "chip.cycles"), 3.5 * stat_value(&eight, "chip.cycles"));
    free_launch(&eight);
    free_launch(&all);
}
END_TEST

START_TEST(test_uneven_waves)
{
    /* 33 blocks on 32 cores: core 0 runs two, the others one.  The first
     * wave is HBM-bound (A ~ 14.3k cycles, see above), core 0's second block
     * runs alone (B ~ 8.5k), so the busiest core is active A + B against a
     * mean of about (A + B + 31 A) / 32: a ratio near 1.6. */
    launch l;
    run_copy(&l, 33);
    ck_assert_double_eq(stat_value(&l, "core0.blocks"), 2);
    ck_assert_double_eq(stat_value(&l, "core1.blocks"), 1);
    double a = stat_value(&l, "core1.active_cycles"), b = stat_value(&l, "core0.active_cycles") - a;
    ck_assert_double_gt(b, 8000);
    /* the first-wave times differ a little between cores (HBM serves them in
     * arrival order), so the ratio is checked in a band */
    ck_assert_double_gt(stat_value(&l, "chip.load_imbalance"), 1.5);
    ck_assert_double_lt(stat_value(&l, "chip.load_imbalance"), 2.1);
    free_launch(&l);
}
END_TEST

/* Runs a sample kernel whose first argument is a GM buffer of `src_bytes`
 * (and, if dst_bytes, whose second is another), followed by scalars. */
static void run_sample(launch *l, const char *file, unsigned blocks, uint64_t src_bytes, uint64_t dst_bytes,
                       const uint64_t *scalars, unsigned nscalars)
{
    char path[512];
    snprintf(path, sizeof path, "%s/kernels/samples/%s", getenv("DV_SOURCE_ROOT"), file);
    dv_error err = {DV_OK, ""};
    memset(l, 0, sizeof *l);
    ck_assert_msg(dv_asm_file(path, NULL, &l->obj, NULL, &err) == DV_OK, "%s", err.msg);
    dv_chip_config cfg;
    dv_config_builtin("ascend910", &cfg, NULL);
    l->sim = dv_sim_create(&cfg, true, &err);
    ck_assert_int_eq(dv_sim_load(l->sim, l->obj, NULL, &err), DV_OK);
    unsigned a = 0;
    if (src_bytes) {
        ck_assert_int_eq(dv_gm_alloc(dv_sim_gm(l->sim), src_bytes, &l->src, NULL), DV_OK);
        dv_sim_set_arg(l->sim, a++, l->src, NULL);
    }
    if (dst_bytes) {
        ck_assert_int_eq(dv_gm_alloc(dv_sim_gm(l->sim), dst_bytes, &l->dst, NULL), DV_OK);
        dv_sim_set_arg(l->sim, a++, l->dst, NULL);
    }
    for (unsigned i = 0; i < nscalars; i++)
        dv_sim_set_arg(l->sim, a++, scalars[i], NULL);
    ck_assert_int_eq(dv_sim_set_blocks(l->sim, blocks, NULL), DV_OK);
    ck_assert_int_eq(dv_sim_run(l->sim, 0, &l->res, &err), DV_OK);
    ck_assert_msg(l->res.stop == DV_STOP_DONE, "%s", l->res.message);
    ck_assert_int_eq(dv_stats_collect(l->sim, &l->res, &l->stats, NULL), DV_OK);
}

START_TEST(test_hbm_flattens)
{
    /* copy_db keeps both GM paths of a core busy (2 x 64 B/cycle).  Each
     * block copies 2 MiB; the source misses in L2, so HBM carries the reads,
     * and once the written lines exceed the 32 MiB L2 also the write-backs.
     * HBM traffic grows with the cores and flattens at the config's
     * 1200 B/cycle (1.2 TB/s at 1 GHz), within a few per cent. */
    double prev = 0;
    for (unsigned n = 1; n <= 32; n *= 2) {
        launch l;
        uint64_t per = 2 << 20;
        run_sample(&l, "copy_db.dvs", n, n * per, n * per, &per, 1);
        double hbm = stat_value(&l, "chip.hbm.gbps");
        if (n <= 16)
            /* the reads alone: 2 MiB in 34592 cycles = 60.6 B/cycle a core */
            ck_assert_double_eq_tol(hbm, n * 60.6, 0.03 * n * 60.6);
        else
            ck_assert_double_ge(hbm, 0.95 * 1200);
        ck_assert_double_le(hbm, 1200);
        ck_assert_double_gt(hbm, prev);
        prev = hbm;
        free_launch(&l);
    }
}
END_TEST

START_TEST(test_compute_scales)
{
    /* mmad_loop: 200 back-to-back mmads of 1024 fractals per block after
     * its fill of L0A/L0B (l0_fill.inc: ~800 cycles), no other memory
     * traffic: every core adds the same work in the same time, the Cube busy
     * 204800 cycles of at most 204800 + 1000 (>= 99.5%). */
    uint64_t n_iter = 200;
    launch one, all;
    run_sample(&one, "mmad_loop.dvs", 1, 0, 0, &n_iter, 1);
    run_sample(&all, "mmad_loop.dvs", 32, 0, 0, &n_iter, 1);
    ck_assert_double_eq(stat_value(&all, "chip.cycles"), stat_value(&one, "chip.cycles"));
    /* 200 x 1024 fractals at one a cycle, and the first mmad's 6-cycle
     * head (cube.head_cycles of ascend910); the later heads overlap */
    ck_assert_double_eq(stat_value(&one, "core0.cube.busy_cycles"), 200 * 1024 + 6);
    ck_assert_double_ge(stat_value(&all, "chip.cube.utilisation_avg_pct"), 99.5);
    ck_assert_double_eq(stat_value(&all, "core31.cube.macs"), stat_value(&one, "core0.cube.macs"));
    free_launch(&one);
    free_launch(&all);
}
END_TEST

START_TEST(test_l2_reread)
{
    /* 32 blocks re-read their slices.  16 MiB in all fits in the 32 MiB L2:
     * the first pass is HBM-bound (32 x 64 B/cycle wanted, 1200 served), the
     * second hits and runs at the cores' path speed, above HBM's peak.
     * 64 MiB does not fit: the second pass misses and is as slow. */
    for (int big = 0; big < 2; big++) {
        uint64_t per = big ? 2 << 20 : 512 << 10;
        uint64_t one_pass[2] = {per, 1}, two_pass[2] = {per, 2};
        launch a, b;
        run_sample(&a, "reread.dvs", 32, 32 * per, 0, one_pass, 2);
        run_sample(&b, "reread.dvs", 32, 32 * per, 0, two_pass, 2);
        double c1 = stat_value(&a, "chip.cycles"), c2 = stat_value(&b, "chip.cycles") - c1;
        double bw1 = 32.0 * per / c1, bw2 = 32.0 * per / c2;
        ck_assert_double_le(bw1, 1200);
        if (big) {
            ck_assert_double_eq_tol(bw2, bw1, 0.02 * bw1);
            ck_assert_double_eq(stat_value(&b, "chip.l2.read_hit_pct"), 0);
        } else {
            ck_assert_double_gt(bw2, 1.5 * 1200 * 0.9); /* well above HBM: served by L2 */
            ck_assert_double_eq(stat_value(&b, "chip.l2.read_hit_pct"), 50);
        }
        free_launch(&a);
        free_launch(&b);
    }
}
END_TEST

START_TEST(test_multicore_deterministic)
{
    char *first = NULL;
    for (int i = 0; i < 2; i++) {
        launch l;
        uint64_t per = 1 << 20;
        run_sample(&l, "copy_db.dvs", 40, 40 * per, 40 * per, &per, 1);
        dv_buf js = DV_BUF_INIT;
        dv_stats_json(&l.stats, &js);
        if (!first)
            first = dv_buf_take(&js, NULL);
        else {
            ck_assert_str_eq(js.data, first);
            dv_buf_free(&js);
        }
        free_launch(&l);
    }
    free(first);
}
END_TEST

START_TEST(test_same_address_serialised)
{
    /* Two blocks copy 32 KiB from GM into UB: from the same address, the
     * second core's copy trails the first line by line (facts #38: the
     * accesses to one line are serialised), so it starts one line's time
     * late; from different addresses they run side by side. */
#define SAME_ADDR_SRC                                                                                        \
    ".kernel k\n.arg buf\n  csrr x5, blockidx\n  muli x5, x5, %d\n  add x6, buf, x5\n"                       \
    "  pack.burst x7, nburst=1, len=1024\n  copy_gm_ub x0, x6, x7\n  end\n"
    double cycles[2], waited[2];
    for (int apart = 0; apart < 2; apart++) {
        char text[512];
        snprintf(text, sizeof text, SAME_ADDR_SRC, apart ? 65536 : 0);
        dv_obj *obj;
        dv_error err = {DV_OK, ""};
        ck_assert_int_eq(dv_asm_string("t.dvs", text, strlen(text), NULL, &obj, NULL, &err), DV_OK);
        dv_chip_config cfg;
        dv_config_builtin("ascend910", &cfg, NULL);
        dv_sim *sim = dv_sim_create(&cfg, true, &err);
        ck_assert_int_eq(dv_sim_load(sim, obj, NULL, &err), DV_OK);
        uint64_t buf;
        ck_assert_int_eq(dv_gm_alloc(dv_sim_gm(sim), 1 << 20, &buf, NULL), DV_OK);
        dv_sim_set_arg(sim, 0, buf, NULL);
        dv_sim_set_blocks(sim, 2, NULL);
        dv_run_result res;
        ck_assert_int_eq(dv_sim_run(sim, 0, &res, &err), DV_OK);
        ck_assert_int_eq(res.stop, DV_STOP_DONE);
        cycles[apart] = (double)res.cycles;
        waited[apart] = (double)tc_core(sim, 1).stats->gm_serialised_cycles;
        dv_sim_destroy(sim);
        dv_obj_destroy(obj);
    }
    /* one copy: 20 + 32768/64 = 532 cycles, the bytes flowing at 64 per
     * cycle after the 20-cycle head; the second may not reach the first
     * 512-byte line before the first core is through it, 512/64 = 8 cycles
     * later (and the copy that arrived second is held back, not sped up). */
    ck_assert_double_eq(waited[1], 0);
    ck_assert_double_ge(waited[0], 8);
    ck_assert_double_le(waited[0], 12);
    ck_assert_double_ge(cycles[0], cycles[1] + 8);
    ck_assert_double_lt(cycles[0], cycles[1] + 40);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("chip");
    TCase *tc = tcase_create("launch");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_copy_scaling);
    tcase_add_test(tc, test_hbm_saturates);
    tcase_add_test(tc, test_uneven_waves);
    tcase_add_test(tc, test_hbm_flattens);
    tcase_add_test(tc, test_compute_scales);
    tcase_add_test(tc, test_l2_reread);
    tcase_add_test(tc, test_multicore_deterministic);
    tcase_add_test(tc, test_same_address_serialised);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
