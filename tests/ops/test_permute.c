/* test_permute.c - the permute operator beyond its declared cases (which
 * ops-check runs on every chip against the reference): its timing follows
 * from the MTE model by arithmetic, an unaligned row moves only its whole
 * 32-byte blocks by DMA, and a wrong stride in the tiling record fails the
 * check (the reference is independent of the kernel's strides). */
#include "dv_test_main.h"
#include "dv_test_sim.h"
#include "ops_run.h"

/* One core, one tile of 256 rows of 128 bytes (32 KiB, at least
 * path.gm_full_bw_bytes, so no GM latency): each engine is busy for one DMA,
 * path.head_cycles + 32768 B / its path's B/cycle (ascend910: 20 + 32768 / 64
 * = 532), and the two cannot overlap (one tile). */
START_TEST(test_timing_arithmetic)
{
    dv_chip_config cfg;
    dv_opjob_result r;
    ck_assert_int_eq(op_run_kept(&r, &cfg, "permute", "ascend910", NULL, NULL, "N2=256,N3=64", 1, true),
                     DV_OK);
    ck_assert(dv_opr_check_passed(&r.run->check));
    dv_core_info c0 = tc_core(dv_opr_sim(r.run), 0);
    uint64_t bytes = 256 * 64 * 2, want2 = cfg.dma_head_cycles + bytes / dv_path_bw(&cfg, DV_PATH_GM_UB),
             want3 = cfg.dma_head_cycles + bytes / dv_path_bw(&cfg, DV_PATH_UB_GM);
    ck_assert_uint_ge(bytes, cfg.gm_full_bw_bytes);
    printf(
        "permute 256x64 on one core: MTE2 %llu busy (model %llu), MTE3 %llu (model %llu), run %llu cycles\n",
        (unsigned long long)c0.stats->pipe[DV_PIPE_MTE2].busy_cycles, (unsigned long long)want2,
        (unsigned long long)c0.stats->pipe[DV_PIPE_MTE3].busy_cycles, (unsigned long long)want3,
        (unsigned long long)r.res.cycles);
    ck_assert_uint_eq(c0.stats->pipe[DV_PIPE_MTE2].busy_cycles, want2);
    ck_assert_uint_eq(c0.stats->pipe[DV_PIPE_MTE3].busy_cycles, want3);
    ck_assert_uint_ge(r.res.cycles, want2 + want3);
    ck_assert_uint_eq(r.total.path_bytes[DV_PATH_GM_UB], bytes);
    ck_assert_uint_eq(r.total.path_bytes[DV_PATH_UB_GM], bytes);
    dv_opjob_free(&r);
}
END_TEST

/* Rows of 17 elements (34 bytes): the DMAs move one whole block per row (32
 * bytes), the Scalar unit the last element, so the paths carry rows * 32. */
START_TEST(test_unaligned_bytes)
{
    dv_chip_config cfg;
    dv_opjob_result r;
    ck_assert_int_eq(
        op_run_kept(&r, &cfg, "permute", "ascend910", NULL, NULL, "N0=2,N1=3,N2=5,N3=17,PERM=2013", 0, true),
        DV_OK);
    ck_assert(dv_opr_check_passed(&r.run->check));
    ck_assert_uint_eq(r.total.path_bytes[DV_PATH_GM_UB], 30 * 32);
    ck_assert_uint_eq(r.total.path_bytes[DV_PATH_UB_GM], 30 * 32);
    dv_opjob_free(&r);
}
END_TEST

/* The mutation: the source stride of the run (tiling field 6, ss2) one row
 * off in GM before the run; the check must find the output wrong. */
static void run_with_ss2_delta(const char *shape, int64_t delta, dv_opr_check *out)
{
    dv_chip_config cfg;
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_config_builtin("ascend910", &cfg, &err), DV_OK);
    dv_opr_request req = {.shape = shape, .seed = 3};
    dv_opr_run *run = NULL;
    ck_assert_int_eq(dv_opr_create(dv_operator_find("permute"), &req, &cfg, true, &run, &err), DV_OK);
    const dv_opr_tensor *t = dv_opr_tensor_find(run, "tiling");
    ck_assert_ptr_nonnull(t);
    uint8_t *rec = dv_opr_gm(run, (unsigned)(t - run->t)) + 6 * 8;
    uint64_t v = 0;
    for (unsigned b = 0; b < 8; b++)
        v |= (uint64_t)rec[b] << (8 * b);
    v = (uint64_t)((int64_t)v + delta);
    for (unsigned b = 0; b < 8; b++)
        rec[b] = (uint8_t)(v >> (8 * b));
    dv_run_result res;
    ck_assert_int_eq(dv_opr_before_run(run, &err), DV_OK);
    ck_assert_int_eq(dv_sim_run(dv_opr_sim(run), 0, &res, &err), DV_OK);
    ck_assert_int_eq(dv_opr_check_outputs(run, &err), DV_OK);
    *out = run->check;
    dv_opr_destroy(run);
}

START_TEST(test_wrong_stride_fails)
{
    static const char *const shapes[] = {"N0=2,N1=8,N2=4,N3=64,PERM=213", "N0=2,N1=3,N2=5,N3=17,PERM=2013"};
    for (unsigned i = 0; i < 2; i++) {
        dv_opr_check ok, bad;
        run_with_ss2_delta(shapes[i], 0, &ok);
        ck_assert_msg(dv_opr_check_passed(&ok), "%s unmutated: %s", shapes[i], ok.first_bad);
        run_with_ss2_delta(shapes[i], i ? -34 : 128, &bad);
        ck_assert_msg(bad.done && bad.mismatches > 0, "%s: a wrong ss2 passed the check", shapes[i]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("permute");
    TCase *tc = tcase_create("permute");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_timing_arithmetic);
    tcase_add_test(tc, test_unaligned_bytes);
    tcase_add_test(tc, test_wrong_stride_fails);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
