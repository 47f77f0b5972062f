/* test_split.c - split chips: AIC and AIV cores, mix launches and
 * cross-core flags (facts #58). */
#include "dv_asm.h"
#include "dv_sim.h"
#include "dv_test_main.h"
#include "dv_test_sim.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct launch {
    dv_sim *sim;
    dv_obj *obj;
    dv_run_result res;
    uint64_t buf;
} launch;

static void run(launch *l, const char *src, uint64_t blocks)
{
    dv_error err = {DV_OK, ""};
    dv_diags d = {NULL, 0};
    memset(l, 0, sizeof *l);
    ck_assert_msg(dv_asm_string("t.dvs", src, strlen(src), NULL, &l->obj, &d, &err) == DV_OK, "%s",
                  d.count ? d.lines[0] : err.msg);
    dv_diags_free(&d);
    dv_chip_config cfg;
    dv_config_builtin("ascend910b", &cfg, NULL);
    l->sim = dv_sim_create(&cfg, true, &err);
    ck_assert_msg(dv_sim_load(l->sim, l->obj, NULL, &err) == DV_OK, "%s", err.msg);
    ck_assert_int_eq(dv_gm_alloc(dv_sim_gm(l->sim), 1 << 20, &l->buf, NULL), DV_OK);
    dv_sim_set_arg(l->sim, 0, l->buf, NULL);
    ck_assert_int_eq(dv_sim_set_blocks(l->sim, blocks, NULL), DV_OK);
    ck_assert_int_eq(dv_sim_run(l->sim, 1000000, &l->res, &err), DV_OK);
}

static void done(launch *l)
{
    dv_sim_destroy(l->sim);
    dv_obj_destroy(l->obj);
}

/* One mix block on ascend910b: core 0 is the AIC, cores 1 and 2 its AIVs.
 * The AIC copies 64 KiB GM->L1 (20 + 65536/78 = 861 cycles) and then sets
 * flag 0 in mode 2 from MTE2: both AIVs wait for it in MTE2.  Each AIV then
 * copies 4 KiB GM->UB, writes its core id to GM with a scalar store, and
 * sets flag 1 in mode 2 from MTE2; the AIC waits for both before it ends. */
static const char *mix_src =
    ".kernel k, type=mix\n.arg buf\n"
    "  csrr x5, coretype\n  li x6, 1\n  bne x5, x6, aiv\n"
    "  pack.burst x7, nburst=1, len=2048\n  li x8, 0\n"
    "  copy_gm_l1 x8, buf, x7\n"
    "  cc_set_flag pipe=mte2, mode=2, id=0\n"
    "  cc_wait_flag pipe=mte2, id=1\n"
    "  end\n"
    "aiv:\n"
    "  cc_wait_flag pipe=mte2, id=0\n"
    "  pack.burst x7, nburst=1, len=128\n  li x8, 0\n"
    "  copy_gm_ub x8, buf, x7\n"
    "  csrr x9, subblockidx\n  slli x12, x9, 3\n  add x12, x12, buf\n  csrr x11, coreid\n"
    "  sd x11, 0x80000(x12)\n"
    "  cc_set_flag pipe=mte2, mode=2, id=1\n"
    "  end\n";

START_TEST(test_mix_handshake)
{
    launch l;
    run(&l, mix_src, 1);
    ck_assert_msg(l.res.stop == DV_STOP_DONE, "%s", l.res.message);
    ck_assert_uint_eq(l.res.ncores, 3);
    dv_core_info aic = tc_core(l.sim, 0), v0 = tc_core(l.sim, 1), v1 = tc_core(l.sim, 2);
    ck_assert_uint_eq(aic.kind, DV_KIND_AIC);
    ck_assert_uint_eq(v0.kind, DV_KIND_AIV);
    ck_assert_uint_eq(v1.sub_idx, 1);
    /* the AIVs' MTE2 waited for the AIC's 861-cycle copy */
    uint64_t copy = 20 + (65536 + 77) / 78;
    ck_assert_uint_ge(v0.stats->pipe[DV_PIPE_MTE2].wait_cycles, copy - 10);
    ck_assert_uint_ge(v1.stats->pipe[DV_PIPE_MTE2].wait_cycles, copy - 10);
    /* the AIC ended only after both AIVs had set flag 1 */
    ck_assert_uint_ge(aic.end_cycle, v0.end_cycle);
    ck_assert_uint_ge(aic.end_cycle, v1.end_cycle);
    /* each AIV wrote its own core id at its own slot */
    dv_access_fault f;
    uint64_t *ids = (uint64_t *)dv_gm_span(dv_sim_gm(l.sim), l.buf + 0x80000, 16, &f);
    ck_assert_uint_eq(ids[0], 1);
    ck_assert_uint_eq(ids[1], 2);
    done(&l);
}
END_TEST

START_TEST(test_mix_waves)
{
    /* 30 mix blocks on 24 AIC groups: 6 groups run a second block */
    launch l;
    run(&l, mix_src, 30);
    ck_assert_msg(l.res.stop == DV_STOP_DONE, "%s", l.res.message);
    ck_assert_uint_eq(l.res.ncores, 24 * 3);
    ck_assert_uint_eq(tc_core(l.sim, 0).blocks_run, 2);
    ck_assert_uint_eq(tc_core(l.sim, 2).blocks_run, 2);
    ck_assert_uint_eq(tc_core(l.sim, 23 * 3).blocks_run, 1);
    done(&l);
}
END_TEST

START_TEST(test_mode0_barrier_among_aivs)
{
    /* 4 AIV blocks: core 0 works 600 cycles before the barrier; the others
     * wait at cc_wait_flag until all four have set flag 2 in mode 0. */
    launch l;
    run(&l,
        ".kernel k, type=aiv\n.arg buf\n"
        "  csrr x5, coreid\n  bnez x5, go\n"
        "  pack.burst x7, nburst=1, len=1024\n  li x8, 0\n  copy_gm_ub x8, buf, x7\n"
        "go:\n  cc_set_flag pipe=mte2, mode=0, id=2\n  cc_wait_flag pipe=mte2, id=2\n  end\n",
        4);
    ck_assert_msg(l.res.stop == DV_STOP_DONE, "%s", l.res.message);
    for (unsigned i = 1; i < 4; i++)
        ck_assert_uint_ge(tc_core(l.sim, i).stats->pipe[DV_PIPE_MTE2].wait_cycles, 500);
    done(&l);
}
END_TEST

START_TEST(test_mode1_between_aivs)
{
    /* mode 1 pairs the AIVs of one group: AIV 0 copies 16 KiB (20 + 16384/59
     * = 298 cycles) and then sets flag 5; AIV 1's wait needs a set from both
     * AIVs of its group, so it waits for AIV 0's copy. */
    launch l;
    run(&l,
        ".kernel k, type=aiv\n.arg buf\n"
        "  csrr x5, subblockidx\n  bnez x5, go\n"
        "  pack.burst x7, nburst=1, len=512\n  li x8, 0\n  copy_gm_ub x8, buf, x7\n"
        "go:\n  cc_set_flag pipe=mte2, mode=1, id=5\n  cc_wait_flag pipe=mte2, id=5\n  end\n",
        2);
    ck_assert_msg(l.res.stop == DV_STOP_DONE, "%s", l.res.message);
    ck_assert_uint_ge(tc_core(l.sim, 1).stats->pipe[DV_PIPE_MTE2].wait_cycles, 298 - 10);
    done(&l);
}
END_TEST

START_TEST(test_split_faults)
{
    launch l;
    /* an AIC has no Vector unit */
    run(&l, ".kernel k, type=aic\n.arg buf\n  pack.vrep x6, repeat=1\n  vadd x0, x0, x0, x6\n  end\n", 1);
    ck_assert_int_eq(l.res.stop, DV_STOP_FAULT);
    ck_assert_ptr_nonnull(strstr(l.res.message, "an AIC core has no VECTOR pipe"));
    done(&l);
    /* an AIV has no L1: a copy into it is out of range */
    run(&l,
        ".kernel k, type=aiv\n.arg buf\n  pack.burst x7, nburst=1, len=1\n  copy_gm_ub x0, buf, x7\n"
        "  mmad x0, x0, x0, x7\n  end\n",
        1);
    ck_assert_int_eq(l.res.stop, DV_STOP_FAULT);
    ck_assert_ptr_nonnull(strstr(l.res.message, "AIV core has no CUBE pipe"));
    done(&l);
    /* mode 1 is for AIVs */
    run(&l, ".kernel k, type=aic\n.arg buf\n  cc_set_flag pipe=mte2, mode=1, id=0\n  end\n", 1);
    ck_assert_int_eq(l.res.stop, DV_STOP_FAULT);
    ck_assert_ptr_nonnull(strstr(l.res.message, "mode 1"));
    done(&l);
    /* ids beyond sync.cross_core_ids (11) */
    run(&l, ".kernel k, type=aiv\n.arg buf\n  cc_set_flag pipe=mte2, mode=0, id=11\n  end\n", 1);
    ck_assert_int_eq(l.res.stop, DV_STOP_FAULT);
    ck_assert_ptr_nonnull(strstr(l.res.message, "cross-core ids 0..10"));
    done(&l);
    /* a counter may be set at most 16 times */
    char src[1024] = ".kernel k, type=aiv\n.arg buf\n";
    for (int i = 0; i < 17; i++)
        strcat(src, "  cc_set_flag pipe=mte3, mode=0, id=3\n");
    strcat(src, "  end\n");
    run(&l, src, 1);
    ck_assert_int_eq(l.res.stop, DV_STOP_FAULT);
    ck_assert_ptr_nonnull(strstr(l.res.message, "limit of 16"));
    done(&l);
    /* a wait nobody answers is a deadlock */
    run(&l, ".kernel k, type=aiv\n.arg buf\n  cc_wait_flag pipe=mte2, id=4\n  end\n", 1);
    ck_assert_int_eq(l.res.stop, DV_STOP_DEADLOCK);
    ck_assert_ptr_nonnull(strstr(l.res.message, "MTE2 waits for cross-core flag 4 (0 of 1 sets"));
    done(&l);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("split");
    TCase *tc = tcase_create("split");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_mix_handshake);
    tcase_add_test(tc, test_mix_waves);
    tcase_add_test(tc, test_mode0_barrier_among_aivs);
    tcase_add_test(tc, test_mode1_between_aivs);
    tcase_add_test(tc, test_split_faults);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
