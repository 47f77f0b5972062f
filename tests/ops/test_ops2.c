/* test_ops2.c - conv2d, conv2d_bias_relu and attention against their CPU
 * references on both chip kinds, and their performance claims:
 *  - conv2d on 1x1, 3x3 stride 1 and 2, padding, dilation, channels that
 *    are not multiples of 16, batch > 1, several L1 chunks, more blocks
 *    than cores;
 *  - the fused conv + bias + ReLU takes fewer cycles and moves fewer GM
 *    bytes than the unfused conv2d -> bias add -> ReLU (three launches);
 *  - attention on shapes with and without the causal mask, D = 64 and 128,
 *    key lengths that are not multiples of the tile;
 *  - the overlapped attention beats its serial variant by 1.5x on a long
 *    key length, with Cube and Vector busy in the same cycles. */
#include "dv_test_main.h"
#include "dv_test_sim.h"
#include "ops_run.h"

static const char *const chips[] = {"ascend910", "ascend910b"};

typedef struct shape_case {
    const char *shape;
    uint64_t blocks;
} shape_case;

static void check_shapes(const char *op, const char *variant, const shape_case *shapes, unsigned n)
{
    for (unsigned c = 0; c < 2; c++)
        for (unsigned s = 0; s < n; s++) {
            op_result o = op_run(op, chips[c], variant, "f16", shapes[s].shape, shapes[s].blocks, true);
            ck_assert_msg(o.status == DV_OK, "%s %s %s: create failed", op, chips[c], shapes[s].shape);
            ck_assert_msg(o.check.compared > 0 && o.check.mismatches == 0,
                          "%s %s %s %s: %llu of %llu mismatches; %s", op, chips[c], variant, shapes[s].shape,
                          (unsigned long long)o.check.mismatches, (unsigned long long)o.check.compared,
                          o.check.first_bad);
        }
}

/* An operator run through every launch (dv_opr_run_launches), as dvsim
 * run does it; ops_run.h's op_run covers single-launch runs only. */
typedef struct multi_result {
    dv_opr_check check;
    dv_opr_launch total;
    unsigned launches;
} multi_result;

static multi_result multi_run(const char *op, const char *chip, const char *variant, const char *shape,
                              bool data)
{
    multi_result m;
    memset(&m, 0, sizeof m);
    dv_chip_config cfg;
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_config_builtin(chip, &cfg, &err), DV_OK);
    dv_opr_request req = {.variant = variant, .shape = shape, .seed = 7};
    dv_opr_run *r;
    ck_assert_msg(dv_opr_create(dv_operator_find(op), &req, &cfg, data, &r, &err) == DV_OK, "%s", err.msg);
    ck_assert_int_eq(dv_opr_before_run(r, &err), DV_OK);
    dv_run_result res;
    ck_assert_int_eq(dv_opr_run_launches(r, 2000000000ull, &res, &err), DV_OK);
    ck_assert_msg(res.stop == DV_STOP_DONE, "%s %s %s %s: %s", op, chip, variant, shape, res.message);
    ck_assert_int_eq(dv_opr_check_outputs(r, &err), DV_OK);
    m.check = r->check;
    m.launches = r->nlaunched;
    dv_opr_totals(r, &m.total);
    dv_opr_destroy(r);
    return m;
}

static const shape_case conv_shapes[] = {
    {"N=1,C=16,H=8,W=8,Co=16,KH=1,KW=1,PH=0,PW=0", 0},            /* 1x1 */
    {"N=1,C=32,H=12,W=12,Co=32", 0},                              /* 3x3, stride 1, padding 1 */
    {"N=1,C=32,H=15,W=13,Co=48,SH=2,SW=2", 0},                    /* 3x3, stride 2 */
    {"N=1,C=35,H=17,W=19,Co=50,DH=2,DW=2,PH=2,PW=1", 0},          /* dilation, odd channels */
    {"N=3,C=3,H=20,W=20,Co=24,KH=7,KW=7,SH=2,SW=2,PH=3,PW=3", 0}, /* batch 3, a 7x7 stem */
    {"N=2,C=20,H=9,W=11,Co=37,PH=0,PW=0", 0},                     /* no padding */
    {"N=1,C=64,H=14,W=14,Co=70,KH=1,KW=3,PH=0,PW=1,SW=2", 0},     /* asymmetric kernel and stride */
    {"N=1,C=512,H=7,W=7,Co=64", 1},                               /* one block: several L1 chunks */
    {"N=2,C=24,H=30,W=30,Co=32", 40},                             /* more blocks than cores */
};

START_TEST(test_conv2d)
{
    check_shapes("conv2d", "db", conv_shapes, sizeof conv_shapes / sizeof conv_shapes[0]);
}
END_TEST

START_TEST(test_conv2d_bias_relu)
{
    static const char *const shapes[] = {"N=2,C=20,H=13,W=11,Co=37", "N=1,C=64,H=16,W=16,Co=64,SH=2,SW=2",
                                         "N=1,C=16,H=9,W=9,Co=16,KH=1,KW=1,PH=0,PW=0"};
    static const char *const variants[] = {"fused", "unfused"};
    for (unsigned c = 0; c < 2; c++)
        for (unsigned v = 0; v < 2; v++)
            for (unsigned s = 0; s < 3; s++) {
                multi_result m = multi_run("conv2d_bias_relu", chips[c], variants[v], shapes[s], true);
                ck_assert_uint_eq(m.launches, v ? 3 : 1);
                ck_assert_msg(m.check.compared > 0 && m.check.mismatches == 0,
                              "%s %s %s: %llu mismatches; %s", chips[c], variants[v], shapes[s],
                              (unsigned long long)m.check.mismatches, m.check.first_bad);
            }
}
END_TEST

/* A ResNet layer, timing only: the fused kernel saves the two vector
 * launches' cycles and their GM round trips. */
START_TEST(test_fusion_wins)
{
    static const char *const shapes[] = {"N=1,C=64,H=56,W=56,Co=64", "N=4,C=128,H=28,W=28,Co=128"};
    for (unsigned c = 0; c < 2; c++)
        for (unsigned s = 0; s < 2; s++) {
            multi_result f = multi_run("conv2d_bias_relu", chips[c], "fused", shapes[s], false);
            multi_result u = multi_run("conv2d_bias_relu", chips[c], "unfused", shapes[s], false);
            uint64_t fb = f.total.gm_read + f.total.gm_write, ub = u.total.gm_read + u.total.gm_write;
            ck_assert_msg(f.total.cycles < u.total.cycles, "%s %s: fused %llu cycles, unfused %llu", chips[c],
                          shapes[s], (unsigned long long)f.total.cycles, (unsigned long long)u.total.cycles);
            ck_assert_msg(fb < ub, "%s %s: fused moves %llu GM bytes, unfused %llu", chips[c], shapes[s],
                          (unsigned long long)fb, (unsigned long long)ub);
            ck_assert_uint_lt(f.total.launch_cycles, u.total.launch_cycles);
            printf("%s %s: fused %llu cycles, %llu GM bytes; unfused %llu cycles, %llu GM bytes\n", chips[c],
                   shapes[s], (unsigned long long)f.total.cycles, (unsigned long long)fb,
                   (unsigned long long)u.total.cycles, (unsigned long long)ub);
        }
}
END_TEST

static const shape_case attention_shapes[] = {
    {"B=1,H=1,SQ=128,SK=256,D=64", 0},
    {"B=1,H=2,SQ=100,SK=300,D=128", 0}, /* SK not a multiple of the tile */
    {"B=2,H=1,SQ=200,SK=200,D=64,CAUSAL=1", 0},
    {"B=1,H=1,SQ=256,SK=1000,D=128,CAUSAL=1", 0}, /* causal, SQ < SK */
    {"B=1,H=3,SQ=300,SK=77,D=128,CAUSAL=1", 0},   /* causal, SQ > SK: later rows see every key */
    {"B=1,H=1,SQ=20,SK=1000,D=64", 0},            /* one short query block, many tiles */
    {"B=2,H=2,SQ=64,SK=520,D=64,CAUSAL=1", 3},    /* fewer blocks than items */
};

START_TEST(test_attention)
{
    unsigned n = sizeof attention_shapes / sizeof attention_shapes[0];
    check_shapes("attention", "overlap", attention_shapes, n);
    check_shapes("attention", "serial", attention_shapes, 3);
}
END_TEST

/* Cube busy of the core that has the Cube and Vector busy of a core of
 * the same group (core 0 on coupled chips; the AIC 0 and its AIV 1 on
 * split ones): their sum above the run's cycles means cycles in which
 * both were busy. */
static void busy_pair(const char *chip, const char *variant, const char *shape, uint64_t *cycles,
                      uint64_t *cube, uint64_t *vec)
{
    dv_chip_config cfg;
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_config_builtin(chip, &cfg, &err), DV_OK);
    dv_opr_request req = {.variant = variant, .shape = shape, .seed = 7};
    dv_opr_run *r;
    ck_assert_int_eq(dv_opr_create(dv_operator_find("attention"), &req, &cfg, false, &r, &err), DV_OK);
    dv_run_result res;
    ck_assert_int_eq(dv_sim_run(dv_opr_sim(r), 0, &res, &err), DV_OK);
    ck_assert_int_eq(res.stop, DV_STOP_DONE);
    dv_core_info c0 = tc_core(dv_opr_sim(r), 0), cv = tc_core(dv_opr_sim(r), cfg.split ? 1 : 0);
    *cycles = res.cycles;
    *cube = c0.stats->pipe[DV_PIPE_M].busy_cycles;
    *vec = cv.stats->pipe[DV_PIPE_V].busy_cycles;
    dv_opr_destroy(r);
}

START_TEST(test_attention_overlap)
{
    for (unsigned c = 0; c < 2; c++) {
        const char *shape = "B=1,H=1,SQ=128,SK=4096,D=128";
        uint64_t oc, ocube, ovec, sc, scube, svec;
        busy_pair(chips[c], "overlap", shape, &oc, &ocube, &ovec);
        busy_pair(chips[c], "serial", shape, &sc, &scube, &svec);
        double speedup = (double)sc / (double)oc;
        printf("%s attention %s: overlap %llu cycles (cube %llu + vector %llu busy = %.0f%%), serial %llu "
               "(%.0f%%), "
               "speedup %.2f\n",
               chips[c], shape, (unsigned long long)oc, (unsigned long long)ocube, (unsigned long long)ovec,
               100.0 * (double)(ocube + ovec) / (double)oc, (unsigned long long)sc,
               100.0 * (double)(scube + svec) / (double)sc, speedup);
        ck_assert_msg(speedup >= 1.5, "%s: overlap only %.2fx faster than serial", chips[c], speedup);
        ck_assert_msg(ocube + ovec > oc, "%s: cube %llu + vector %llu busy cycles within %llu: no overlap",
                      chips[c], (unsigned long long)ocube, (unsigned long long)ovec, (unsigned long long)oc);
        ck_assert_msg(scube + svec <= sc, "%s: the serial variant overlaps (%llu + %llu > %llu)", chips[c],
                      (unsigned long long)scube, (unsigned long long)svec, (unsigned long long)sc);
    }
}
END_TEST

START_TEST(test_bad_shapes)
{
    static const struct {
        const char *op, *variant, *shape;
    } bad[] = {
        {"conv2d", "db", "H=4,W=4,KH=7,KW=7,PH=1,PW=1"}, /* kernel larger than the padded input */
        {"conv2d", "db", "KH=3,KW=3,PH=3,PW=0"},         /* a window of padding only */
        {"conv2d", "db", "H=300,W=300"},                 /* H*W past the DMA fields */
        {"attention", "overlap", "D=96"},                /* D must be 64 or 128 */
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (unsigned c = 0; c < 2; c++) {
            op_result o = op_run(bad[i].op, chips[c], bad[i].variant, "f16", bad[i].shape, 0, false);
            ck_assert_msg(o.status == DV_ERR_INPUT, "%s %s %s: status %d", bad[i].op, chips[c], bad[i].shape,
                          (int)o.status);
        }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ops2");
    TCase *tc = tcase_create("ops2");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_conv2d);
    tcase_add_test(tc, test_conv2d_bias_relu);
    tcase_add_test(tc, test_fusion_wins);
    tcase_add_test(tc, test_attention);
    tcase_add_test(tc, test_attention_overlap);
    tcase_add_test(tc, test_bad_shapes);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
