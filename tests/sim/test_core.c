/* test_core.c - the core's timing against arithmetic, synchronisation,
 * stop reasons and determinism, on small kernels assembled in the test. */
#include "dv_asm.h"
#include "dv_fp.h"
#include "dv_sim.h"
#include "dv_stats.h"
#include "dv_test_main.h"
#include "dv_test_sim.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run {
    dv_sim *sim;
    dv_obj *obj;
    dv_run_result res;
    uint64_t gm[4];
} run;

/* Assembles src, allocates four 64 KiB GM buffers (a0..a3), fills a0 and a1
 * with f16 values i*0.25 and 1.0, runs on chip. */
static void run_kernel_cfg(run *r, const dv_chip_config *cfg, const char *src, bool data);

static void run_kernel(run *r, const char *chip, const char *src, bool data)
{
    dv_chip_config cfg;
    ck_assert_int_eq(dv_config_builtin(chip, &cfg, NULL), DV_OK);
    run_kernel_cfg(r, &cfg, src, data);
}

static void run_kernel_cfg(run *r, const dv_chip_config *cfg, const char *src, bool data)
{
    dv_error err = {DV_OK, ""};
    memset(r, 0, sizeof *r);
    r->sim = tc_sim_of(cfg, src, data, &r->obj);
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_int_eq(dv_gm_alloc(dv_sim_gm(r->sim), 65536, &r->gm[i], NULL), DV_OK);
        dv_sim_set_arg(r->sim, i, r->gm[i], NULL);
    }
    dv_access_fault f;
    uint16_t *a = (uint16_t *)dv_gm_span(dv_sim_gm(r->sim), r->gm[0], 65536, &f);
    uint16_t *b = (uint16_t *)dv_gm_span(dv_sim_gm(r->sim), r->gm[1], 65536, &f);
    for (int i = 0; i < 32768; i++) {
        a[i] = dv_f32_to_fp16((float)(i % 1000) * 0.25f);
        b[i] = dv_f32_to_fp16(1.0f);
    }
    ck_assert_int_eq(dv_sim_run(r->sim, 10000000, &r->res, &err), DV_OK);
}

static void free_run(run *r)
{
    dv_sim_destroy(r->sim);
    dv_obj_destroy(r->obj);
}

static uint16_t *gm16(run *r, int i)
{
    dv_access_fault f;
    return (uint16_t *)dv_gm_span(dv_sim_gm(r->sim), r->gm[i], 65536, &f);
}

#define HEADER ".kernel k\n.arg a\n.arg b\n.arg c\n.arg d\n"

/* z = a + b over one 16 KiB tile (8192 f16): copy in, add, copy out. */
static const char *vadd_src(bool with_wait)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             HEADER
             "  li x5, 0\n  li x6, 0x4000\n  li x7, 0x8100\n"
             "  pack.burst x8, nburst=1, len=512\n"
             "  pack.vrep x9, repeat=64, dstblk=1, src0blk=1, src1blk=1, dstrep=8, src0rep=8, src1rep=8\n"
             "  copy_gm_ub x5, a, x8\n  copy_gm_ub x6, b, x8\n"
             "  set_flag src=mte2, dst=v, id=0\n%s"
             "  vadd x7, x5, x6, x9, dtype=f16\n"
             "  set_flag src=v, dst=mte3, id=0\n  wait_flag src=v, dst=mte3, id=0\n"
             "  copy_ub_gm c, x7, x8\n  end\n",
             with_wait ? "  wait_flag src=mte2, dst=v, id=0\n" : "");
    return buf;
}

START_TEST(test_missing_wait_reads_stale_data)
{
    run good, bad;
    run_kernel(&good, "ascend910", vadd_src(true), true);
    ck_assert_int_eq(good.res.stop, DV_STOP_DONE);
    uint16_t *a = gm16(&good, 0), *c = gm16(&good, 2);
    int wrong = 0;
    for (int i = 0; i < 8192; i++)
        wrong += c[i] != dv_f32_to_fp16(dv_fp16_to_f32(a[i]) + 1.0f);
    ck_assert_int_eq(wrong, 0);
    /* Without the wait, the Vector unit adds UB before MTE2 has filled it. */
    run_kernel(&bad, "ascend910", vadd_src(false), true);
    ck_assert_int_eq(bad.res.stop, DV_STOP_DONE); /* it ends normally, with a wrong answer */
    c = gm16(&bad, 2);
    wrong = 0;
    for (int i = 0; i < 8192; i++)
        wrong += c[i] != dv_f32_to_fp16(dv_fp16_to_f32(a[i]) + 1.0f);
    ck_assert_int_gt(wrong, 8000);
    free_run(&good);
    free_run(&bad);
}
END_TEST

START_TEST(test_wait_flag_delays_exactly)
{
    run r;
    run_kernel(&r, "ascend910", vadd_src(true), true);
    const dv_core_stats *s = r.res.stats;
    /* ascend910: each 16 KiB GM->UB copy = head 20 + 16384/64 = 276 cycles,
     * at the full-bandwidth size, so no GM latency; MTE2 keeps requests in
     * flight (path.mte2_requests = 4), so the second copy's head runs under
     * the first one's bytes: MTE2 is busy 20 + 2 * 256 = 532. */
    ck_assert_uint_eq(s->pipe[DV_PIPE_MTE2].busy_cycles, 20 + 2 * (16384 / 64));
    /* The vadd waits from its dispatch until MTE2's set_flag, i.e. until the
     * second copy completes.  Dispatch: the Scalar unit issues one
     * instruction per cycle: li x5/x6/x7 at 0-2, pack.burst (one li) at 3,
     * pack.vrep (li + lih) at 4-5, the copies at 6 and 7, set_flag at 8 and
     * the wait at 9.  MTE2 starts the first copy at 6, so its set_flag
     * fires at 6 + 532 = 538: the wait lasts 538 - 9 cycles. */
    ck_assert_uint_eq(s->pipe[DV_PIPE_V].wait_cycles, 6 + 532 - 9);
    free_run(&r);
}
END_TEST

START_TEST(test_back_to_back_mmad)
{
    /* N = 32 fractals: m = 16, k = 16, n = 512 -> head 6 + 32 cycles; a
     * second, back-to-back mmad pays no head: 32 more. */
    run r;
    run_kernel(&r, "ascend910",
               HEADER
               "  pack.mmad x5, m=16, k=16, n=512\n  li x6, 0\n"
               "  mmad x6, x6, x6, x5, dtype=f16, init=1\n  mmad x6, x6, x6, x5, dtype=f16, init=0\n  end\n",
               true);
    ck_assert_int_eq(r.res.stop, DV_STOP_DONE);
    ck_assert_uint_eq(r.res.stats->cube_fractals, 64);
    ck_assert_uint_eq(r.res.stats->pipe[DV_PIPE_M].busy_cycles, 6 + 32 + 32);
    ck_assert_uint_eq(r.res.stats->cube_macs, 2ull * 16 * 16 * 512);
    free_run(&r);
}
END_TEST

START_TEST(test_mte_and_cube_overlap)
{
    /* A 64 KiB GM->L1 copy (20 + 1024 cycles) and 1024 mmad fractals
     * (m = 128, k = 128, n = 256: 8 x 8 x 16; 6 + 1024 cycles) with no
     * dependency run side by side: the kernel takes about the longer one,
     * far less than the sum. */
    run r;
    run_kernel(&r, "ascend910",
               HEADER "  pack.burst x5, nburst=1, len=2048\n  pack.mmad x6, m=128, k=128, n=256\n  li x7, 0\n"
                      "  copy_gm_l1 x7, a, x5\n  mmad x7, x7, x7, x6, dtype=f16, init=1\n  end\n",
               true);
    ck_assert_int_eq(r.res.stop, DV_STOP_DONE);
    uint64_t mte = r.res.stats->pipe[DV_PIPE_MTE2].busy_cycles,
             cube = r.res.stats->pipe[DV_PIPE_M].busy_cycles;
    ck_assert_uint_eq(mte, 20 + 65536 / 64);
    ck_assert_uint_eq(cube, 6 + 8 * 8 * 16);
    ck_assert_uint_lt(r.res.cycles, (mte > cube ? mte : cube) + 20);
    free_run(&r);
}
END_TEST

START_TEST(test_gm_bandwidth_server)
{
    /* With HBM slower than the core's path (16 B/cycle < 64), two 16 KiB
     * copies in flight at once (MTE2 in, MTE3 out) share the server: the
     * bytes of both pass at 16 B/cycle, 2 x 16384 / 16 = 2048 cycles. */
    dv_chip_config cfg;
    dv_config_builtin("ascend910", &cfg, NULL);
    cfg.hbm_bytes_per_cycle = 16;
    cfg.l2_bytes = 0; /* no L2: every GM byte goes to HBM */
    run r;
    run_kernel_cfg(&r, &cfg,
                   HEADER "  pack.burst x5, nburst=1, len=512\n  li x6, 0\n  li x7, 0x4000\n"
                          "  copy_gm_ub x6, a, x5\n  copy_ub_gm b, x7, x5\n  end\n",
                   true);
    ck_assert_int_eq(r.res.stop, DV_STOP_DONE);
    /* Dispatch: pack.burst (one li) at 0, the two li at 1-2, copy_gm_ub at
     * 3, copy_ub_gm at 4.  MTE2 holds the server from 3 to 3 + 1024; MTE3
     * queues behind it, its bytes pass until 3 + 2048, so it is busy from
     * 4 to 3 + 2048. */
    ck_assert_uint_eq(r.res.stats->pipe[DV_PIPE_MTE2].busy_cycles, 1024);
    ck_assert_uint_eq(r.res.stats->pipe[DV_PIPE_MTE3].busy_cycles, 3 + 2048 - 4);
    free_run(&r);
}
END_TEST

START_TEST(test_scalar_wait_and_open_intervals)
{
    /* pack.burst at 0, the 2 KiB copy dispatched at 1: it takes 20 + 2048/64
     * + 200 * (16384 - 2048) / 16384 = 20 + 32 + 175 = 227 cycles, so
     * MTE2's set_flag (dispatched at 2) fires at 228; the Scalar unit's
     * wait_flag, reached at 3, waits 225 cycles. */
    const char *src = HEADER "  pack.burst x5, nburst=1, len=64\n  copy_gm_ub x0, a, x5\n"
                             "  set_flag src=mte2, dst=s, id=0\n  wait_flag src=mte2, dst=s, id=0\n  end\n";
    run r;
    run_kernel(&r, "ascend910", src, true);
    ck_assert_int_eq(r.res.stop, DV_STOP_DONE);
    ck_assert_uint_eq(r.res.stats->pipe[DV_PIPE_MTE2].busy_cycles, 227);
    ck_assert_uint_eq(r.res.stats->pipe[DV_PIPE_S].wait_cycles, 225);
    free_run(&r);
}
END_TEST

/* Every scalar instruction class against values worked out by hand:
 * RISC-V's division corner cases, the high product, shifts, signed and
 * unsigned compares, lih, the loads' sign extension, x0, and jalr whose
 * base is its own link register (the target is read before the link is
 * written). */
START_TEST(test_scalar_semantics)
{
    const char *src =
        HEADER "  li x5, 7\n  li x6, -3\n  li x8, 1\n  slli x8, x8, 63\n  li x9, -1\n  li x11, 2\n"
               "  div x7, x5, x6\n  sd x7, 0(d)\n"    /* 7 / -3 = -2 */
               "  rem x7, x5, x6\n  sd x7, 8(d)\n"    /* 1 */
               "  divu x7, x5, x0\n  sd x7, 16(d)\n"  /* / 0: all ones */
               "  rem x7, x5, x0\n  sd x7, 24(d)\n"   /* % 0: the dividend */
               "  div x7, x8, x9\n  sd x7, 32(d)\n"   /* INT64_MIN / -1 = INT64_MIN */
               "  rem x7, x8, x9\n  sd x7, 40(d)\n"   /* 0 */
               "  mulh x7, x8, x11\n  sd x7, 48(d)\n" /* high of -2^64: -1 */
               "  srai x7, x8, 63\n  sd x7, 56(d)\n"  /* -1 */
               "  srli x7, x8, 63\n  sd x7, 64(d)\n"  /* 1 */
               "  sltiu x7, x6, 5\n  sd x7, 72(d)\n"  /* 0: -3 is huge unsigned */
               "  slti x7, x6, 5\n  sd x7, 80(d)\n"   /* 1 */
               "  minu x7, x5, x6\n  sd x7, 88(d)\n"  /* 7 */
               "  min x7, x5, x6\n  sd x7, 96(d)\n"   /* -3 */
               "  li x7, 0x1234\n  lih x7, 0xdeadbeef\n  sd x7, 104(d)\n"
               "  addi x0, x5, 5\n  sd x0, 112(d)\n" /* x0 stays 0 */
               "  li x7, -2\n  sd x7, 256(d)\n"
               "  lb x7, 256(d)\n  sd x7, 120(d)\n  lbu x7, 256(d)\n  sd x7, 128(d)\n"
               "  lh x7, 256(d)\n  sd x7, 136(d)\n  lhu x7, 256(d)\n  sd x7, 144(d)\n"
               "  lw x7, 256(d)\n  sd x7, 152(d)\n  lwu x7, 256(d)\n  sd x7, 160(d)\n"
               "  jal x12, out\n"
               "back:\n  li x7, 111\n  sd x7, 168(d)\n  j done\n"
               "out:\n  jalr x12, x12, 0\n" /* to back, x12 = here + 8 */
               "done:\n  end\n";
    static const uint64_t want[] = {(uint64_t)-2,
                                    1,
                                    ~0ull,
                                    7,
                                    1ull << 63,
                                    0,
                                    ~0ull,
                                    ~0ull,
                                    1,
                                    0,
                                    1,
                                    7,
                                    (uint64_t)-3,
                                    0xdeadbeef00001234ull,
                                    0,
                                    (uint64_t)-2,
                                    0xfe,
                                    (uint64_t)-2,
                                    0xfffe,
                                    (uint64_t)-2,
                                    0xfffffffeull,
                                    111};
    run r;
    run_kernel(&r, "ascend910", src, true);
    ck_assert_msg(r.res.stop == DV_STOP_DONE, "%s", r.res.message);
    dv_access_fault f;
    const uint8_t *d = dv_gm_span(dv_sim_gm(r.sim), r.gm[3], 256, &f);
    for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) {
        uint64_t got;
        memcpy(&got, d + 8 * i, 8);
        ck_assert_msg(got == want[i], "result %u: 0x%llx, want 0x%llx", i, (unsigned long long)got,
                      (unsigned long long)want[i]);
    }
    free_run(&r);
}
END_TEST

START_TEST(test_stop_reasons)
{
    run r;
    run_kernel(&r, "ascend910", HEADER "  wait_flag src=mte2, dst=v, id=1\n  end\n", true);
    ck_assert_int_eq(r.res.stop, DV_STOP_DEADLOCK);
    ck_assert_ptr_nonnull(strstr(r.res.message, "VECTOR waits for flag mte2->v id 1"));
    ck_assert_ptr_nonnull(strstr(r.res.message, "t.dvs:6"));
    free_run(&r);
    run_kernel(&r, "ascend910",
               HEADER
               "  li x5, 0x100000\n  pack.vrep x6, repeat=1\n  vadd x5, x5, x5, x6, dtype=f16\n  end\n",
               true);
    ck_assert_int_eq(r.res.stop, DV_STOP_FAULT);
    ck_assert_ptr_nonnull(strstr(r.res.message, "pipe VECTOR"));
    ck_assert_ptr_nonnull(strstr(r.res.message, "past the end of UB"));
    free_run(&r);
    run_kernel(&r, "ascend910", HEADER "loop: j loop\n", true);
    ck_assert_int_eq(r.res.stop, DV_STOP_LIMIT);
    /* the limit closes the Scalar unit's open intervals too: it was busy throughout */
    ck_assert_uint_ge(r.res.stats->pipe[DV_PIPE_S].busy_cycles, 10000000 - 2);
    free_run(&r);
    run_kernel(&r, "ascend910", HEADER "  .dword 0xfe\n  end\n", true); /* opcode 0xfe is not assigned */
    ck_assert_int_eq(r.res.stop, DV_STOP_FAULT);
    ck_assert_ptr_nonnull(strstr(r.res.message, "illegal instruction 0x00000000000000fe: opcode 0xfe"));
    free_run(&r);
    run_kernel(&r, "ascend910", HEADER "  li x5, 0\n  lw x6, 0(x5)\n  end\n", true);
    ck_assert_int_eq(r.res.stop, DV_STOP_FAULT);
    ck_assert_ptr_nonnull(strstr(r.res.message, "GM access"));
    free_run(&r);
}
END_TEST

START_TEST(test_deterministic_and_timing_only)
{
    char *first = NULL;
    uint64_t cycles = 0;
    for (int i = 0; i < 10; i++) {
        run r;
        run_kernel(&r, "ascend910", vadd_src(true), i != 9 /* the last run is timing only */);
        dv_stat_list l;
        dv_chip_config cfg;
        dv_config_builtin("ascend910", &cfg, NULL);
        ck_assert_int_eq(dv_stats_collect(r.sim, &r.res, &l, NULL), DV_OK);
        dv_buf js = DV_BUF_INIT;
        dv_stats_json(&l, &js);
        if (!first) {
            first = dv_buf_take(&js, NULL);
            cycles = r.res.cycles;
        } else {
            ck_assert_str_eq(js.data, first);
            dv_buf_free(&js);
        }
        ck_assert_uint_eq(r.res.cycles, cycles);
        dv_stats_free(&l);
        free_run(&r);
    }
    free(first);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_missing_wait_reads_stale_data);
    tcase_add_test(tc, test_wait_flag_delays_exactly);
    tcase_add_test(tc, test_back_to_back_mmad);
    tcase_add_test(tc, test_mte_and_cube_overlap);
    tcase_add_test(tc, test_gm_bandwidth_server);
    tcase_add_test(tc, test_scalar_wait_and_open_intervals);
    tcase_add_test(tc, test_scalar_semantics);
    tcase_add_test(tc, test_stop_reasons);
    tcase_add_test(tc, test_deterministic_and_timing_only);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
