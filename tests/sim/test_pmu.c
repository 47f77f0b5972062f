/* test_pmu.c - the device PMU seen from a kernel: enable windows, reset,
 * the cycle counter against the cycle CSR, overflow, bad event numbers. */
#include "dv_asm.h"
#include "dv_events.h"
#include "dv_sim.h"
#include "dv_test_main.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run {
    dv_sim *sim;
    dv_obj *obj;
    dv_run_result res;
    uint64_t out;
} run;

static const uint64_t *go(run *r, const char *src)
{
    dv_error err = {DV_OK, ""};
    dv_diags d = {NULL, 0};
    memset(r, 0, sizeof *r);
    ck_assert_msg(dv_asm_string("t.dvs", src, strlen(src), NULL, &r->obj, &d, &err) == DV_OK, "%s",
                  d.count ? d.lines[0] : err.msg);
    dv_chip_config cfg;
    dv_config_builtin("ascend910", &cfg, NULL);
    r->sim = dv_sim_create(&cfg, true, &err);
    ck_assert_int_eq(dv_sim_load(r->sim, r->obj, NULL, &err), DV_OK);
    ck_assert_int_eq(dv_gm_alloc(dv_sim_gm(r->sim), 4096, &r->out, NULL), DV_OK);
    dv_sim_set_arg(r->sim, 0, r->out, NULL);
    ck_assert_int_eq(dv_sim_run(r->sim, 1000000, &r->res, &err), DV_OK);
    dv_access_fault f;
    return (const uint64_t *)dv_gm_span(dv_sim_gm(r->sim), r->out, 4096, &f);
}

static void done(run *r)
{
    dv_sim_destroy(r->sim);
    dv_obj_destroy(r->obj);
}

/* 32, 64 and 16 Cube fractals between the enables and disables. */
#define MMAD(n)                                                                                              \
    "  pack.mmad x6, m=16, k=16, n=" #n                                                                      \
    "\n  mmad x0, x0, x0, x6, dtype=f16, init=1\n  pipe_barrier pipe=all\n"

START_TEST(test_windows_and_reset)
{
    char src[2048];
    snprintf(
        src, sizeof src,
        ".kernel k\n.arg out\n  li x5, %d\n  csrw pmevtyper0, x5\n  li x5, 1\n  csrw pmcntenset, x5\n"
        "  csrw pmcr, x5\n" MMAD(512) "  csrw pmcr, x0\n" /* stop: 32 counted */
                                      "  csrr x7, pmevcntr0\n  sd x7, 0(out)\n" MMAD(1024) /* not counted */
        "  csrr x7, pmevcntr0\n  sd x7, 8(out)\n  li x5, 1\n  csrw pmcr, x5\n" MMAD(256)   /* 16 more */
        "  csrr x7, pmevcntr0\n  sd x7, 16(out)\n  li x5, 3\n  csrw pmcr, x5\n" /* reset, keep counting */
        "  csrr x7, pmevcntr0\n  sd x7, 24(out)\n"
        "  li x5, 1\n  csrw pmcntenclr, x5\n" MMAD(512) "  csrr x7, pmevcntr0\n  sd x7, 32(out)\n  end\n",
        DV_EV_CUBE_FRACTALS);
    run r;
    const uint64_t *v = go(&r, src);
    ck_assert_msg(r.res.stop == DV_STOP_DONE, "%s", r.res.message);
    ck_assert_uint_eq(v[0], 32);
    ck_assert_uint_eq(v[1], 32); /* disabled: did not move */
    ck_assert_uint_eq(v[2], 48);
    ck_assert_uint_eq(v[3], 0); /* reset */
    ck_assert_uint_eq(v[4], 0); /* counter disabled with pmcntenclr */
    done(&r);
}
END_TEST

START_TEST(test_cycle_counter_matches_cycle_csr)
{
    /* csrr cycle at t, the reset+enable at t+1, a loop, csrr cycle at t2,
     * csrr pmccntr at t2+1: the counter saw t2 - t cycles. */
    run r;
    const uint64_t *v = go(&r, ".kernel k\n.arg out\n  li x5, 1 << 31\n  csrw pmcntenset, x5\n  li x5, 5\n"
                               "  li x9, 100\n  csrr x7, cycle\n  csrw pmcr, x5\n"
                               "loop:\n  addi x9, x9, -1\n  bnez x9, loop\n"
                               "  csrr x8, cycle\n  csrr x12, pmccntr\n"
                               "  sub x11, x8, x7\n  sd x11, 0(out)\n  sd x12, 8(out)\n  end\n");
    ck_assert_msg(r.res.stop == DV_STOP_DONE, "%s", r.res.message);
    ck_assert_uint_gt(v[0], 200); /* 100 iterations of addi (1) + taken branch (2) */
    ck_assert_uint_eq(v[1], v[0]);
    done(&r);
}
END_TEST

START_TEST(test_overflow_and_bad_event)
{
    char src[1024];
    snprintf(
        src, sizeof src,
        ".kernel k\n.arg out\n  li x5, %d\n  csrw pmevtyper0, x5\n  li x5, 100\n  csrw pmevthr0, x5\n"
        "  li x5, 1\n  csrw pmcntenset, x5\n  csrw pmcr, x5\n" MMAD(
            2048) "  csrr x7, pmovsr\n  sd x7, 0(out)\n  li x5, 1\n  csrw pmovsr, x5\n  csrw pmcntenclr, x5\n"
                  "  csrr x7, pmovsr\n  sd x7, 8(out)\n  end\n",
        DV_EV_CUBE_FRACTALS);
    run r;
    const uint64_t *v = go(&r, src);
    ck_assert_msg(r.res.stop == DV_STOP_DONE, "%s", r.res.message);
    ck_assert_uint_eq(v[0], 1); /* 128 fractals passed the threshold of 100 */
    ck_assert_uint_eq(v[1], 0); /* written 1 to clear */
    done(&r);
    snprintf(src, sizeof src, ".kernel k\n.arg out\n  li x5, %d\n  csrw pmevtyper0, x5\n  end\n",
             DV_EV_COUNT);
    go(&r, src);
    ck_assert_int_eq(r.res.stop, DV_STOP_FAULT);
    ck_assert_ptr_nonnull(strstr(r.res.message, "does not exist"));
    done(&r);
    go(&r, ".kernel k\n.arg out\n  csrw coreid, x0\n  end\n");
    ck_assert_int_eq(r.res.stop, DV_STOP_FAULT);
    ck_assert_ptr_nonnull(strstr(r.res.message, "coreid: not writable"));
    done(&r);
}
END_TEST

START_TEST(test_sample_kernel_agrees_with_stats)
{
    char path[512];
    snprintf(path, sizeof path, "%s/kernels/samples/pmu_loop.dvs", getenv("DV_SOURCE_ROOT"));
    dv_obj *obj;
    dv_error err = {DV_OK, ""};
    dv_asm_options opt = {0};
    opt.symbols = dv_event_asm_symbols(&opt.nsymbols); /* ev.cube.fractals, ... */
    ck_assert_int_eq(dv_asm_file(path, &opt, &obj, NULL, &err), DV_OK);
    dv_chip_config cfg;
    dv_config_builtin("ascend910", &cfg, NULL);
    dv_sim *sim = dv_sim_create(&cfg, true, &err);
    ck_assert_int_eq(dv_sim_load(sim, obj, NULL, &err), DV_OK);
    uint64_t out;
    dv_gm_alloc(dv_sim_gm(sim), 64, &out, NULL);
    dv_sim_set_arg(sim, 0, out, NULL);
    dv_sim_set_arg(sim, 1, 10, NULL);
    dv_run_result res;
    ck_assert_int_eq(dv_sim_run(sim, 0, &res, &err), DV_OK);
    dv_access_fault f;
    const uint64_t *v = (const uint64_t *)dv_gm_span(dv_sim_gm(sim), out, 64, &f);
    /* the kernel's own readings equal the simulator's statistics */
    ck_assert_uint_eq(v[1], res.stats->cube_macs);
    ck_assert_uint_eq(v[2], res.stats->pipe[DV_PIPE_M].busy_cycles);
    ck_assert_uint_eq(v[3], res.stats->cube_fractals);
    ck_assert_uint_eq(v[2], 6 + 10 * 1024); /* head once, then 1024 fractals per back-to-back mmad */
    ck_assert_uint_ge(v[0], v[2]);
    ck_assert_uint_le(v[0], res.cycles);
    dv_sim_destroy(sim);
    dv_obj_destroy(obj);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pmu");
    TCase *tc = tcase_create("pmu");
    tcase_add_test(tc, test_windows_and_reset);
    tcase_add_test(tc, test_cycle_counter_matches_cycle_csr);
    tcase_add_test(tc, test_overflow_and_bad_event);
    tcase_add_test(tc, test_sample_kernel_agrees_with_stats);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
