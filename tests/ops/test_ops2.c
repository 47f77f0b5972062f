/* test_ops2.c - the performance claims of conv2d_bias_relu and attention
 * (their results against the references are ops-check's):
 *  - the fused conv + bias + ReLU takes fewer cycles and moves fewer GM
 *    bytes than the unfused conv2d -> bias add -> ReLU (three launches);
 *  - the overlapped attention beats its serial variant by 1.5x on a long
 *    key length, with Cube and Vector busy in the same cycles;
 *  - shapes the kernels cannot run are refused. */
#include "dv_test_main.h"
#include "dv_test_sim.h"
#include "ops_run.h"

static const char *const chips[] = {"ascend910", "ascend910b"};

/* A ResNet layer, timing only: the fused kernel saves the two vector
 * launches' cycles and their GM round trips. */
START_TEST(test_fusion_wins)
{
    static const char *const shapes[] = {"N=1,C=64,H=56,W=56,Co=64", "N=4,C=128,H=28,W=28,Co=128"};
    for (unsigned c = 0; c < 2; c++)
        for (unsigned s = 0; s < 2; s++) {
            op_result f = op_run("conv2d_bias_relu", chips[c], "fused", "f16", shapes[s], 0, false);
            op_result u = op_run("conv2d_bias_relu", chips[c], "unfused", "f16", shapes[s], 0, false);
            ck_assert_uint_eq(f.launches, 1);
            ck_assert_uint_eq(u.launches, 3);
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

/* Cube busy of the core that has the Cube and Vector busy of a core of
 * the same group (core 0 on coupled chips; the AIC 0 and its AIV 1 on
 * split ones): their sum above the run's cycles means cycles in which
 * both were busy. */
static void busy_pair(const char *chip, const char *variant, const char *shape, uint64_t *cycles,
                      uint64_t *cube, uint64_t *vec)
{
    dv_chip_config cfg;
    dv_opjob_result r;
    ck_assert_int_eq(op_run_kept(&r, &cfg, "attention", chip, variant, NULL, shape, 0, false), DV_OK);
    dv_core_info c0 = tc_core(dv_opr_sim(r.run), 0), cv = tc_core(dv_opr_sim(r.run), cfg.split ? 1 : 0);
    *cycles = r.res.cycles;
    *cube = c0.stats->pipe[DV_PIPE_M].busy_cycles;
    *vec = cv.stats->pipe[DV_PIPE_V].busy_cycles;
    dv_opjob_free(&r);
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
    tcase_add_test(tc, test_fusion_wins);
    tcase_add_test(tc, test_attention_overlap);
    tcase_add_test(tc, test_bad_shapes);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
