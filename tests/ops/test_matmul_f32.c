/* test_matmul_f32.c - matmul with f32 inputs (dtype f32, issue 17) on the
 * split chips' fp32 Cube (cube.fp32_fractal_cycles, facts #6):
 *  - the reference check passes at awkward shapes on ascend910b and
 *    ascend910b3: primes, 1 x N x K, M x 1 x K, K = 1, K past one L1 chunk,
 *    B = 3, TA (A^T [K, M]), TB (B^T [N, K]), BIAS and RELU, with B [K, N]
 *    and A^T through load2d's merging transpose (layout load2dt) and B^T
 *    without it;
 *  - one core of the Cube at the fp32 rate: 1024^3 >= 95% of 1024
 *    MAC/cycle (cube.utilisation_pct counts f32 MACs at their own peak),
 *    and its cycles near 1024^3 / 1024: a quarter of fp16's rate;
 *  - the chips without an fp32 Cube (ascend910, ascend310) refuse f32, and
 *    so do BNZ, KS and the ladder variants with f32 (DV_ERR_INPUT: exit
 *    65), and the operator's available() says the same. */
#include "dv_test_main.h"
#include "ops_run.h"

#include <check.h>
#include <stdio.h>

static const char *const chips[] = {"ascend910b", "ascend910b3"};

static const char *const shapes[] = {
    "M=1,N=1,K=1",
    "M=131,N=257,K=1021",    /* primes */
    "M=1,N=2003,K=517",      /* 1 x N x K */
    "M=1999,N=1,K=263",      /* M x 1 x K */
    "M=97,N=89,K=1",         /* K = 1 */
    "M=3,N=5,K=5003",        /* K past every L1 chunk */
    "M=37,N=45,K=77,B=3",    /* a batch */
    "M=101,N=67,K=333,TB=1", /* B^T [N, K]: L0B's order, no transpose */
    "M=257,N=33,K=999,TB=1,B=3",
    "M=37,N=45,K=77,BIAS=1", /* ones x bias starts L0C */
    "M=131,N=300,K=503,BIAS=1,RELU=1,B=3",
    "M=1,N=3001,K=1031,TB=1,BIAS=1", /* decode with weights out x in */
    "M=20,N=6144,K=4099",            /* GEMV, odd K fractals */
    /* A^T [K, M] (A in chunks, load2dt squares into L0A): an odd last K
     * step (K = 113: 17 deep, 3 fractals), K = 8, K past several chunks */
    "M=97,N=61,K=113,TA=1",
    "M=300,N=1,K=8,TA=1,BIAS=1,RELU=1",
    "M=131,N=70,K=5001,TA=1",
    "M=257,N=33,K=999,TA=1,TB=1,B=3",
    "M=257,N=33,K=999,TA=1,TB=1,BIAS=1,RELU=1",
};

START_TEST(test_f32_shapes)
{
    unsigned i = (unsigned)_i / 2;
    const char *chip = chips[_i % 2];
    op_result o = op_run("matmul", chip, "db", "f32", shapes[i], 0, true);
    ck_assert_msg(o.status == DV_OK, "f32 %s on %s: status %d", shapes[i], chip, o.status);
    ck_assert_msg(dv_opr_check_passed(&o.check) && o.check.compared > 0, "f32 %s on %s: %llu of %llu wrong",
                  shapes[i], chip, (unsigned long long)o.check.mismatches,
                  (unsigned long long)o.check.compared);
}
END_TEST

/* One AIC: the fp32 Cube at 1024 MAC/cycle (16x8x16 per 2 cycles) takes
 * 1024^3 / 1024 = 1,048,576 cycles for 1024^3 at best; the run is within 5%
 * of that, and the utilisation (f32 MACs over the f32 peak) says the same. */
START_TEST(test_f32_one_core_rate)
{
    op_result l = op_run("matmul", "ascend910b3", "db", "f32", "M=1024,N=1024,K=1024", 1, false);
    ck_assert_int_eq(l.status, DV_OK);
    double best = 1024.0 * 1024 * 1024 / 1024;
    ck_assert_msg(l.cube_pct >= 95 && l.cube_pct <= 100, "1024^3 f32: %.1f%% of the Cube", l.cube_pct);
    ck_assert_msg((double)l.res.cycles >= best && (double)l.res.cycles <= best / 0.95,
                  "1024^3 f32: %llu cycles, the fp32 peak's %.0f", (unsigned long long)l.res.cycles, best);
    /* fp16 on the same core: four times the rate, so under a third of the
     * f32 cycles */
    op_result h = op_run("matmul", "ascend910b3", "db", "f16-f32", "M=1024,N=1024,K=1024", 1, false);
    ck_assert_int_eq(h.status, DV_OK);
    ck_assert_msg(3 * h.res.cycles < l.res.cycles, "f16 %llu cycles, f32 %llu",
                  (unsigned long long)h.res.cycles, (unsigned long long)l.res.cycles);
}
END_TEST

START_TEST(test_f32_refused)
{
    static const char *const no_fp32[] = {"ascend910", "ascend310"};
    for (unsigned c = 0; c < 2; c++)
        ck_assert_int_eq(op_run("matmul", no_fp32[c], "db", "f32", "M=16,N=16,K=16", 0, false).status,
                         DV_ERR_INPUT);
    static const char *const bad[] = {"M=16,N=16,K=16,BNZ=1", "M=64,N=64,K=4096,KS=2"};
    for (unsigned i = 0; i < 2; i++)
        ck_assert_int_eq(op_run("matmul", "ascend910b3", "db", "f32", bad[i], 0, false).status, DV_ERR_INPUT);
    ck_assert_int_eq(op_run("matmul", "ascend910b3", "pipelined", "f32", "M=16,N=16,K=16", 0, false).status,
                     DV_ERR_INPUT);
    /* available(): f32 (the last dtype) on db of the 910B chips only */
    const dv_operator *op = dv_operator_find("matmul");
    unsigned f32 = 0;
    while (op->dtypes[f32 + 1])
        f32++;
    ck_assert_str_eq(op->dtypes[f32], "f32");
    dv_chip_config cfg;
    dv_error err;
    static const struct {
        const char *chip;
        unsigned variant;
        bool ok;
    } av[] = {{"ascend910b", 0, true},
              {"ascend910b3", 0, true},
              {"ascend910b3", 1, false},
              {"ascend910", 0, false},
              {"ascend310", 0, false}};
    for (unsigned i = 0; i < sizeof av / sizeof av[0]; i++) {
        ck_assert_int_eq(dv_config_builtin(av[i].chip, &cfg, &err), DV_OK);
        ck_assert_msg(op->available(&cfg, av[i].variant, f32) == av[i].ok, "%s variant %u", av[i].chip,
                      av[i].variant);
        ck_assert(op->available(&cfg, av[i].variant, 0)); /* f16 runs everywhere */
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("matmul-f32");
    TCase *tc = tcase_create("f32");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_f32_shapes, 0, (int)(2 * sizeof shapes / sizeof shapes[0]));
    tcase_add_test(tc, test_f32_one_core_rate);
    tcase_add_test(tc, test_f32_refused);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
