/* test_matmul_shapes.c - matmul beyond cubes (issue 17):
 *  - the reference check passes for awkward M, N, K from 1 to 20,000
 *    (primes, 1 x N x K, M x 1 x K, K = 1, K deeper than any A panel), B = 3
 *    and every trans combination (TA, TB), B in NZ, bias and ReLU, on a
 *    coupled chip (ascend910) and a split one (ascend910b3), for every
 *    variant and input type; SiLU and GELU on the coupled one (on split
 *    chips: test_matmul_epilogue.c, the mix kernel);
 *  - decode GEMV M=20, N=6144, K=16384 on ascend910b3 streams B once: every
 *    core's MTE2 busy time within 15% of B's bytes at the chip's HBM rate;
 *  - M=1024, N=576, K=6144 on ascend910b3 (20 AIC): the GM -> L1 bytes are
 *    what the plan says (a_reads x A + b_reads x B), the HBM reads at most
 *    3x A and B, and no forced tile beats the tiling's choice by over 5%;
 *  - one core of every training chip (ascend910, ascend910b, ascend910b1,
 *    ascend910b3): db 512^3 >= 80% of the Cube, 1024^3 >= 90%;
 *  - two A panels (the _a2 kernels, op.plan.a_panels 2): the reference check
 *    passes over several tile rows of partial tiles, floats and s8;
 *  - split-K (KS=, the _xk kernels and the matmul_ksum reduction launch):
 *    the reference check passes with K not a multiple of the split (K =
 *    10007), f16 and bf16-f32, on both chip kinds; M=N=256, K=16384 is
 *    split by the model on both, and its two launches (overheads included)
 *    beat the unsplit plan (KS=1); KS with a layout or s8 is refused. */
#include "dv_test_main.h"
#include "ops_run.h"

#include <check.h>
#include <stdio.h>

static const char *const chips[] = {"ascend910", "ascend910b3"};

static const struct {
    const char *variant, *dtype, *shape;
} shapes[] = {
    {"db", "f16", "M=1,N=1,K=1"},
    {"db", "f16", "M=1,N=2003,K=517"},     /* 1 x N x K */
    {"db", "f16", "M=1999,N=1,K=263"},     /* M x 1 x K */
    {"db", "f16", "M=97,N=89,K=1"},        /* K = 1 */
    {"db", "f16", "M=3,N=5,K=20000"},      /* K deeper than any A panel of L1 */
    {"db", "bf16-f32", "M=20000,N=7,K=3"}, /* M = 20,000 */
    {"db", "f16-f32", "M=5,N=20000,K=11"}, /* N = 20,000 */
    {"db", "f16", "M=131,N=257,K=1021"},   /* primes */
    {"db", "s8-deq", "M=37,N=53,K=12007"},
    {"db", "s8-vdeq", "M=61,N=43,K=9001"},
    {"db", "s8-req", "M=29,N=67,K=8191"},
    {"pipelined", "f16", "M=41,N=23,K=17011"},
    {"tiled", "bf16-f16", "M=17,N=19,K=10007"},
    {"naive", "f16", "M=70,N=33,K=9973"},
    {"db", "f16", "M=33,N=1031,K=4099"}, /* several tiles per block, an odd number of chunks */
    /* batches and every trans combination (the layouts kernels) */
    {"db", "f16", "M=37,N=45,K=77,B=3"},
    {"db", "f16", "M=131,N=70,K=5001,TA=1"}, /* A^T, K past the last fractal's edge in chunks */
    {"db", "bf16-f32", "M=101,N=67,K=333,TB=1"},
    {"db", "f16-f32", "M=257,N=33,K=999,TA=1,TB=1,B=3"},
    {"db", "f16", "M=1,N=3001,K=1031,TB=1,B=3"}, /* decode with weights out x in */
    {"db", "s8-deq", "M=45,N=77,K=1111,B=3"},
    /* bias and the fused ReLU */
    {"db", "f16", "M=37,N=45,K=77,BIAS=1"},
    {"db", "bf16-f32", "M=131,N=300,K=5003,BIAS=1,RELU=1,B=3"},
    {"db", "f16", "M=257,N=33,K=999,TA=1,TB=1,BIAS=1,RELU=1"},
    {"db", "f16", "M=1,N=4099,K=2053,TB=1,BIAS=1"},
    /* B given in NZ (pre-laid-out weights) */
    {"db", "f16", "M=37,N=45,K=77,BNZ=1"},
    {"db", "bf16-f16", "M=130,N=300,K=5003,BNZ=1,B=3,BIAS=1"},
    {"db", "f16", "M=257,N=33,K=999,TA=1,BNZ=1,RELU=1"},
};

/* SiLU and GELU on the Vector unit of the coupled cores (ascend910). */
static const char *const act_shapes[] = {
    "M=37,N=45,K=77,ACT=1",
    "M=130,N=300,K=5003,ACT=2,BIAS=1,B=2",
    "M=257,N=33,K=999,TA=1,TB=1,ACT=1",
};

START_TEST(test_activations)
{
    static const char *const dts[] = {"f16", "f16-f32", "bf16-f16"};
    for (unsigned i = 0; i < sizeof act_shapes / sizeof act_shapes[0]; i++)
        for (unsigned d = 0; d < 3; d++) {
            op_result o = op_run("matmul", "ascend910", "db", dts[d], act_shapes[i], 0, true);
            ck_assert_msg(o.status == DV_OK && dv_opr_check_passed(&o.check) && o.check.compared > 0,
                          "%s %s: status %d, %llu wrong", dts[d], act_shapes[i], o.status,
                          (unsigned long long)o.check.mismatches);
        }
    /* with ReLU, or s8, ACT is refused */
    ck_assert_int_eq(
        op_run("matmul", "ascend910", "db", "f16", "M=16,N=16,K=16,ACT=1,RELU=1", 0, false).status,
        DV_ERR_INPUT);
    ck_assert_int_eq(op_run("matmul", "ascend910b3", "db", "s8-deq", "M=16,N=16,K=16,ACT=2", 0, false).status,
                     DV_ERR_INPUT);
}
END_TEST

START_TEST(test_shapes)
{
    unsigned i = (unsigned)_i / 2;
    const char *chip = chips[_i % 2];
    op_result o = op_run("matmul", chip, shapes[i].variant, shapes[i].dtype, shapes[i].shape, 0, true);
    ck_assert_msg(o.status == DV_OK, "%s %s %s on %s: status %d", shapes[i].variant, shapes[i].dtype,
                  shapes[i].shape, chip, o.status);
    ck_assert_msg(dv_opr_check_passed(&o.check) && o.check.compared > 0, "%s %s %s on %s: %llu of %llu wrong",
                  shapes[i].variant, shapes[i].dtype, shapes[i].shape, chip,
                  (unsigned long long)o.check.mismatches, (unsigned long long)o.check.compared);
}
END_TEST

static double stat_of(const dv_opjob_result *r, const char *key)
{
    const dv_stat *s = dv_stats_find(&r->stats, key);
    ck_assert_msg(s != NULL, "no statistic %s", key);
    return s->value;
}

START_TEST(test_gemv_streams_b_once)
{
    dv_opjob_result r;
    dv_chip_config cfg;
    ck_assert_int_eq(
        op_run_kept(&r, &cfg, "matmul", "ascend910b3", "db", "f16", "M=20,N=6144,K=16384", 0, false), DV_OK);
    double b_once = 16384.0 * 6144 * 2 / (double)cfg.hbm_bytes_per_cycle;
    ck_assert_double_eq(stat_of(&r, "op.plan.b_reads"), 1);
    for (unsigned c = 0; c < r.res.ncores; c++) {
        char key[64];
        snprintf(key, sizeof key, "core%u.mte2.busy_cycles", c);
        double mte2 = stat_of(&r, key);
        ck_assert_msg(mte2 <= 1.15 * b_once && mte2 >= 0.85 * b_once,
                      "core %u: MTE2 %.0f cycles, B once %.0f", c, mte2, b_once);
    }
    dv_opjob_free(&r);
}
END_TEST

START_TEST(test_skinny_reads_and_forced_tiles)
{
    const char *shape = "M=1024,N=576,K=6144";
    dv_opjob_result r;
    dv_chip_config cfg;
    ck_assert_int_eq(op_run_kept(&r, &cfg, "matmul", "ascend910b3", "db", "f16", shape, 0, false), DV_OK);
    double a = 1024.0 * 6144 * 2, b = 6144.0 * 576 * 2;
    double ar = stat_of(&r, "op.plan.a_reads"), br = stat_of(&r, "op.plan.b_reads");
    double gm_l1 = 0;
    for (unsigned c = 0; c < r.res.ncores; c++) {
        char key[64];
        snprintf(key, sizeof key, "core%u.path.gm_to_l1.bytes", c);
        gm_l1 += stat_of(&r, key);
    }
    /* MTE2 moves what the plan says, exactly (each tile reads its rows of A
     * and columns of B over all of K once) */
    ck_assert_msg(gm_l1 == ar * a + br * b, "GM->L1 %.0f bytes, the plan %.0f x A + %.0f x B = %.0f", gm_l1,
                  ar, br, ar * a + br * b);
    double hbm = stat_of(&r, "chip.hbm.bytes");
    ck_assert_msg(hbm <= 3 * (a + b), "HBM %.0f bytes for A + B = %.0f", hbm, a + b);
    uint64_t chosen = r.res.cycles;
    dv_opjob_free(&r);
    static const unsigned tiles[] = {32, 64, 96, 128, 192, 256};
    for (unsigned i = 0; i < 6; i++)
        for (unsigned j = 0; j < 6; j++) {
            char s[96];
            snprintf(s, sizeof s, "%s,TM=%u,TN=%u", shape, tiles[i], tiles[j]);
            op_result f = op_run("matmul", "ascend910b3", "db", "f16", s, 0, false);
            if (f.status != DV_OK) /* does not fit the buffers */
                continue;
            ck_assert_msg((double)f.res.cycles >= 0.95 * (double)chosen,
                          "TM=%u TN=%u: %llu cycles, the tiling's choice %llu", tiles[i], tiles[j],
                          (unsigned long long)f.res.cycles, (unsigned long long)chosen);
        }
}
END_TEST

START_TEST(test_one_core_cube)
{
    static const char *const b_chips[] = {"ascend910", "ascend910b", "ascend910b1", "ascend910b3"};
    for (unsigned c = 0; c < sizeof b_chips / sizeof b_chips[0]; c++) {
        op_result s = op_run("matmul", b_chips[c], "db", "f16", "M=512,N=512,K=512", 1, false);
        op_result l = op_run("matmul", b_chips[c], "db", "f16", "M=1024,N=1024,K=1024", 1, false);
        ck_assert_msg(s.cube_pct >= 80, "%s 512^3: %.1f%% of the Cube", b_chips[c], s.cube_pct);
        ck_assert_msg(l.cube_pct >= 90, "%s 1024^3: %.1f%% of the Cube", b_chips[c], l.cube_pct);
    }
}
END_TEST

START_TEST(test_two_panels)
{
    static const struct {
        const char *chip, *dtype;
    } runs[] = {{"ascend910", "f16"},
                {"ascend910", "s8-deq"},
                {"ascend910", "bf16-f32"},
                {"ascend910b3", "f16"},
                {"ascend910b3", "bf16-f32"}};
    for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        dv_opjob_result r;
        dv_chip_config cfg;
        /* 2 blocks of 3 x 4 tiles or so: each block crosses tile rows */
        ck_assert_int_eq(
            op_run_kept(&r, &cfg, "matmul", runs[i].chip, "db", runs[i].dtype, "M=700,N=500,K=600", 2, true),
            DV_OK);
        ck_assert_msg(stat_of(&r, "op.plan.a_panels") == 2, "%s %s: %.0f A panels", runs[i].chip,
                      runs[i].dtype, stat_of(&r, "op.plan.a_panels"));
        ck_assert_msg(dv_opr_check_passed(&r.run->check) && r.run->check.compared == 350000,
                      "%s %s: %llu of %llu wrong", runs[i].chip, runs[i].dtype,
                      (unsigned long long)r.run->check.mismatches, (unsigned long long)r.run->check.compared);
        dv_opjob_free(&r);
    }
}
END_TEST

static double wall_cycles(const dv_opjob_result *r)
{
    /* every launch pays the chip's launch overhead (chip.launch_cycles sums them) */
    return stat_of(r, "op.total_cycles") + stat_of(r, "chip.launch_cycles");
}

START_TEST(test_split_k)
{
    static const struct {
        const char *dtype, *shape;
        double ks;
    } runs[] = {{"f16", "M=64,N=96,K=10007,KS=4", 4},
                {"bf16-f32", "M=64,N=96,K=10007,KS=3", 3},
                {"f16", "M=33,N=17,K=4000,KS=7", 7}};
    for (unsigned c = 0; c < 2; c++)
        for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
            dv_opjob_result r;
            dv_chip_config cfg;
            ck_assert_int_eq(
                op_run_kept(&r, &cfg, "matmul", chips[c], "db", runs[i].dtype, runs[i].shape, 0, true),
                DV_OK);
            ck_assert_double_eq(stat_of(&r, "op.plan.k_split"), runs[i].ks);
            ck_assert_double_eq(stat_of(&r, "op.launches"), 2);
            ck_assert_msg(dv_opr_check_passed(&r.run->check), "%s %s on %s: %llu of %llu wrong",
                          runs[i].dtype, runs[i].shape, chips[c], (unsigned long long)r.run->check.mismatches,
                          (unsigned long long)r.run->check.compared);
            dv_opjob_free(&r);
        }
    /* the model's own choice, with data, against the same shape unsplit:
     * on ascend910b3 the unsplit plan has 16 tiles of 64 x 64 for 20
     * cores, on ascend910 32 tiles of 64 x 32 that read A and B over */
    for (unsigned c = 0; c < 2; c++) {
        dv_opjob_result sp, un;
        dv_chip_config cfg;
        ck_assert_int_eq(
            op_run_kept(&sp, &cfg, "matmul", chips[c], "db", "f16", "M=256,N=256,K=16384", 0, true), DV_OK);
        ck_assert_msg(stat_of(&sp, "op.plan.k_split") > 1, "%s: not split", chips[c]);
        ck_assert_msg(dv_opr_check_passed(&sp.run->check), "%s: split 256x256x16384: %llu wrong", chips[c],
                      (unsigned long long)sp.run->check.mismatches);
        ck_assert_int_eq(
            op_run_kept(&un, &cfg, "matmul", chips[c], "db", "f16", "M=256,N=256,K=16384,KS=1", 0, false),
            DV_OK);
        ck_assert_double_eq(stat_of(&un, "op.plan.k_split"), 1);
        ck_assert_msg(wall_cycles(&sp) < wall_cycles(&un), "%s: split %.0f cycles, unsplit %.0f", chips[c],
                      wall_cycles(&sp), wall_cycles(&un));
        dv_opjob_free(&sp);
        dv_opjob_free(&un);
    }
    /* what split-K does not take */
    static const char *const bad[][2] = {{"f16", "M=64,N=64,K=4096,KS=2,TA=1"},
                                         {"f16", "M=64,N=64,K=4096,KS=2,B=2"},
                                         {"s8-deq", "M=64,N=64,K=4096,KS=2"},
                                         {"f16", "M=64,N=64,K=100,KS=64"}};
    for (unsigned i = 0; i < 4; i++)
        ck_assert_int_eq(op_run("matmul", "ascend910b3", "db", bad[i][0], bad[i][1], 0, false).status,
                         DV_ERR_INPUT);
    ck_assert_int_eq(
        op_run("matmul", "ascend910b3", "pipelined", "f16", "M=64,N=64,K=4096,KS=2", 0, false).status,
        DV_ERR_INPUT);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("matmul-shapes");
    TCase *tc = tcase_create("shapes");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, test_shapes, 0, (int)(2 * sizeof shapes / sizeof shapes[0]));
    tcase_add_test(tc, test_activations);
    tcase_add_test(tc, test_gemv_streams_b_once);
    tcase_add_test(tc, test_skinny_reads_and_forced_tiles);
    tcase_add_test(tc, test_one_core_cube);
    tcase_add_test(tc, test_two_panels);
    tcase_add_test(tc, test_split_k);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
