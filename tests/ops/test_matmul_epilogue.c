/* test_matmul_epilogue.c - the activation epilogue (ACT=1 SiLU, ACT=2 GELU)
 * on split chips, as a mix kernel (kernels/matmul/epilogue.inc):
 *  - the reference check (matmul.c's one rule, the coupled kernels' too)
 *    passes on ascend910b and ascend910b3 at awkward shapes: primes,
 *    1 x N x K, M x 1 x K, K = 1, B = 3, with and without BIAS, TA/TB, BNZ,
 *    more tiles than cores, one tile, more blocks than AIC groups, every
 *    float input and output type; each ran the _mix kernel with the plan's
 *    ring (op.plan.mix 1, ws_slots 2, aivs_per_tile 2);
 *  - a timing-only run takes the functional run's cycles;
 *  - the sanitizer finds no race, sync, init or mem problem, also with one
 *    AIV per AIC (chip.aiv_per_aic = 1);
 *  - the epilogue hides behind the Cube: 2048^3 with SiLU within 3% of
 *    the same kernel family without it (RELU=1, free on FixPipe), the
 *    roofline's Cube and GM->L1 bounds over the AICs, its Vector and
 *    UB->GM bounds over the AIVs. */
#include "dv_sanitize.h"
#include "dv_test_main.h"
#include "ops_run.h"
#include "ops_san.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

static const char *const chips[] = {"ascend910b", "ascend910b3"};

static const struct {
    const char *dtype, *shape;
} shapes[] = {
    {"f16", "M=131,N=257,K=1021,ACT=1"},                   /* primes */
    {"bf16-f32", "M=131,N=257,K=1021,ACT=2,BIAS=1"},       /* primes, bias, f32 activation */
    {"f16", "M=1,N=2003,K=517,ACT=2"},                     /* 1 x N x K: AIV 1 has no rows */
    {"f16-f32", "M=1999,N=1,K=263,ACT=1,BIAS=1"},          /* M x 1 x K */
    {"bf16-f16", "M=97,N=89,K=1,ACT=2"},                   /* K = 1 */
    {"f16", "M=37,N=45,K=77,B=3,ACT=1,BIAS=1"},            /* a batch */
    {"f16", "M=257,N=33,K=999,TA=1,TB=1,ACT=2"},           /* A^T, B^T */
    {"bf16-f32", "M=130,N=300,K=5003,BNZ=1,ACT=1,BIAS=1"}, /* B in NZ, deep K */
    {"f16", "M=1031,N=1033,K=67,ACT=2"},                   /* more tiles than cores: several per block */
    {"f16", "M=16,N=16,K=16,ACT=1"},                       /* one tile */
    {"f16-f32", "M=3,N=5,K=20000,ACT=2"},                  /* A in chunks (_ak) */
};

static double stat_of(const dv_opjob_result *r, const char *key)
{
    const dv_stat *s = dv_stats_find(&r->stats, key);
    ck_assert_msg(s != NULL, "no statistic %s", key);
    return s->value;
}

START_TEST(test_mix_shapes)
{
    unsigned i = (unsigned)_i / 2;
    const char *chip = chips[_i % 2];
    dv_chip_config cfg;
    dv_opjob_result r;
    ck_assert_int_eq(op_run_kept(&r, &cfg, "matmul", chip, "db", shapes[i].dtype, shapes[i].shape, 0, true),
                     DV_OK);
    ck_assert_msg(r.passed && r.run->check.compared > 0, "%s %s on %s: %llu of %llu wrong", shapes[i].dtype,
                  shapes[i].shape, chip, (unsigned long long)r.run->check.mismatches,
                  (unsigned long long)r.run->check.compared);
    const char *kernel = r.run->launch[0].kernel;
    size_t len = strlen(kernel);
    ck_assert_msg(len > 4 && strcmp(kernel + len - 4, "_mix") == 0, "kernel %s", kernel);
    ck_assert_double_eq(stat_of(&r, "op.plan.mix"), 1);
    ck_assert_double_eq(stat_of(&r, "op.plan.ws_slots"), 2);
    ck_assert_double_eq(stat_of(&r, "op.plan.aivs_per_tile"), 2);
    /* one tile in the output type a slot */
    double oes = strstr(shapes[i].dtype, "f32") ? 4 : 2;
    ck_assert_double_eq(stat_of(&r, "op.plan.ws_slot_bytes"),
                        stat_of(&r, "op.plan.tile_m") * stat_of(&r, "op.plan.tile_n") * oes);
    /* AIC groups: an AIC and its two AIVs per block */
    ck_assert_double_eq(r.run->launch[0].cube_cores * 3, r.run->launch[0].ncores);
    dv_opjob_free(&r);
}
END_TEST

/* More blocks than AIC groups (40 on 24 or 20): a group runs a second
 * block, whose ring flags must start from zero (the AIC takes its last
 * FREEs back). */
START_TEST(test_mix_waves)
{
    for (unsigned c = 0; c < 2; c++) {
        op_result o = op_run("matmul", chips[c], "db", "f16", "M=200,N=200,K=64,ACT=1", 40, true);
        ck_assert_msg(o.status == DV_OK && dv_opr_check_passed(&o.check) && o.check.compared == 40000,
                      "%s: status %d, %llu wrong", chips[c], o.status,
                      (unsigned long long)o.check.mismatches);
    }
}
END_TEST

START_TEST(test_mix_timing_only)
{
    static const char *const sh[] = {"M=1031,N=1033,K=67,ACT=2", "M=37,N=45,K=77,B=3,ACT=1,BIAS=1",
                                     "M=257,N=33,K=999,TA=1,TB=1,ACT=2"};
    for (unsigned c = 0; c < 2; c++)
        for (unsigned i = 0; i < 3; i++) {
            op_result f = op_run("matmul", chips[c], "db", "f16", sh[i], 0, true);
            op_result t = op_run("matmul", chips[c], "db", "f16", sh[i], 0, false);
            ck_assert_int_eq(f.status, DV_OK);
            ck_assert_int_eq(t.status, DV_OK);
            ck_assert_msg(f.res.cycles == t.res.cycles && f.res.cycles > 0, "%s %s: %llu vs %llu cycles",
                          chips[c], sh[i], (unsigned long long)f.res.cycles,
                          (unsigned long long)t.res.cycles);
        }
}
END_TEST

/* One run of matmul db on cfg with data, under the sanitizer; returns its
 * findings, the check asserted passed. */
static size_t sanitized_run(const dv_chip_config *cfg, const char *dtype, const char *shape, uint64_t blocks)
{
    dv_error err = {DV_OK, ""};
    watch w = {dv_san_create(DV_SAN_ALL, &err), false};
    ck_assert_ptr_nonnull(w.san);
    dv_opjob job = {.op = dv_operator_find("matmul"),
                    .req = {.variant = "db", .dtype = dtype, .shape = shape, .seed = 3, .blocks = blocks},
                    .cfg = cfg,
                    .data = true,
                    .max_cycles = 200000000ull,
                    .launch_begin = watch_begin,
                    .launch_end = watch_end,
                    .launch_user = &w};
    dv_opjob_result r;
    ck_assert_int_eq(dv_opjob_run(&job, &r, &err), DV_OK);
    ck_assert_msg(r.res.stop == DV_STOP_DONE && r.passed, "%s %s: %llu of %llu wrong", dtype, shape,
                  (unsigned long long)r.run->check.mismatches, (unsigned long long)r.run->check.compared);
    size_t n = dv_san_findings(w.san);
    if (n) {
        dv_buf b = DV_BUF_INIT;
        dv_san_report_text(w.san, &b);
        fprintf(stderr, "%s:\n%s", shape, b.data ? b.data : "");
        dv_buf_free(&b);
    }
    dv_opjob_free(&r);
    dv_san_destroy(w.san);
    return n;
}

START_TEST(test_mix_sanitize)
{
    static const struct {
        const char *dtype, *shape;
        uint64_t blocks;
    } runs[] = {
        {"f16", "M=1031,N=1033,K=67,ACT=2", 0}, {"bf16-f32", "M=37,N=45,K=77,B=3,ACT=1,BIAS=1", 0},
        {"f16", "M=200,N=200,K=64,ACT=1", 40},  {"f16-f32", "M=257,N=33,K=999,TA=1,TB=1,ACT=2", 0},
        {"f16", "M=1,N=2003,K=517,ACT=1", 0},
    };
    for (unsigned c = 0; c < 2; c++)
        for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
            dv_chip_config cfg;
            dv_error err = {DV_OK, ""};
            ck_assert_int_eq(dv_config_builtin(chips[c], &cfg, &err), DV_OK);
            size_t n = sanitized_run(&cfg, runs[i].dtype, runs[i].shape, runs[i].blocks);
            ck_assert_msg(n == 0, "%s %s %s: %zu sanitizer findings", chips[c], runs[i].dtype, runs[i].shape,
                          n);
        }
}
END_TEST

/* One AIV per AIC (chip.aiv_per_aic = 1): it takes every row. */
START_TEST(test_mix_one_aiv)
{
    dv_chip_config cfg;
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_config_builtin("ascend910b", &cfg, &err), DV_OK);
    cfg.aiv_per_aic = 1;
    ck_assert_uint_eq(sanitized_run(&cfg, "f16", "M=131,N=257,K=1021,ACT=2,BIAS=1", 0), 0);
    ck_assert_uint_eq(sanitized_run(&cfg, "f16-f32", "M=1031,N=67,K=33,ACT=1", 0), 0);
}
END_TEST

/* The epilogue behind the Cube (measured 2026-12-01 on ascend910b:
 * 130,524 cycles with SiLU, 128,476 with RELU=1, 124,106 for the plain db
 * kernel, which is not the layouts family). */
START_TEST(test_mix_hides_behind_cube)
{
    op_result relu = op_run("matmul", "ascend910b", "db", "f16", "M=2048,N=2048,K=2048,RELU=1", 0, false);
    op_result act = op_run("matmul", "ascend910b", "db", "f16", "M=2048,N=2048,K=2048,ACT=1", 0, false);
    ck_assert_int_eq(relu.status, DV_OK);
    ck_assert_int_eq(act.status, DV_OK);
    double ratio = (double)act.res.cycles / (double)relu.res.cycles;
    fprintf(stderr, "2048^3 ascend910b: ACT=1 %llu, RELU=1 %llu cycles (%.3f)\n",
            (unsigned long long)act.res.cycles, (unsigned long long)relu.res.cycles, ratio);
    ck_assert_msg(ratio < 1.03 && ratio > 0.99, "ACT/RELU %.3f", ratio);
    /* the roofline: the Cube's bound over the 24 AICs, the activation's
     * four Vector passes over the 48 AIVs (below it), the report's cores
     * every core of the launch */
    ck_assert_str_eq(act.roof.bound_by, "cube");
    ck_assert_double_eq_tol(act.roof.cube_cycles, 2048.0 * 2048 * 2048 / (4096.0 * 24), 1);
    ck_assert(act.roof.vec_cycles > 0 && act.roof.vec_cycles < act.roof.cube_cycles / 4);
    /* A and B come GM -> L1 on the 24 AICs (78 B/cycle each), C leaves UB
     * -> GM on the 48 AIVs (109 B/cycle each): each path on its own cores */
    ck_assert_double_eq_tol(act.roof.read_cycles, 2 * 2048.0 * 2048 * 2 / (78.0 * 24), 1e-6);
    ck_assert_double_eq_tol(act.roof.write_cycles, 2048.0 * 2048 * 2 / (109.0 * 48), 1e-6);
    ck_assert_uint_eq(act.roof.cores, 72);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("matmul-epilogue");
    TCase *tc = tcase_create("mix");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, test_mix_shapes, 0, (int)(2 * sizeof shapes / sizeof shapes[0]));
    tcase_add_test(tc, test_mix_waves);
    tcase_add_test(tc, test_mix_timing_only);
    tcase_add_test(tc, test_mix_sanitize);
    tcase_add_test(tc, test_mix_one_aiv);
    tcase_add_test(tc, test_mix_hides_behind_cube);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
