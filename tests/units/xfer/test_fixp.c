/* test_fixp.c - fixp (every quant mode, relu, nz2nd, out=gm/l1) and
 * copy_l0c_ub against element-wise expectations; cycles and faults. */
#include "dv_fp.h"
#include "xt.h"

#include <math.h>
#include <string.h>

enum { M = 20, N = 20, SRCM = 32, TABLE = 0x1000 };

static uint64_t fx(uint64_t m, uint64_t n, uint64_t srcm, uint64_t dststride)
{
    uint64_t v[] = {m, n, srcm, dststride};
    return xt_pack(DV_LAYOUT_FIXP, v, 4);
}

static bool is_int_mode(dv_quant q)
{
    return q == DV_Q_DEQ || q == DV_Q_VDEQ || q == DV_Q_REQ || q == DV_Q_VREQ;
}

/* Source values chosen so every product below is exact in float: the
 * expectations then need only the final rounding. */
static uint32_t src_val(dv_quant q, unsigned r, unsigned c)
{
    if (is_int_mode(q))
        return (uint32_t)(((int)r - 10) * 7 + (int)c * 3);
    return dv_f32_bits(((float)r - 10.0f) * 0.25f + (float)c * 0.126f);
}

static float chan_scale(unsigned c)
{
    return 0.5f + (float)(c % 4) * 0.25f;
}

/* Round to nearest, ties to even, written out (not rint) for independence. */
static double rne(double v)
{
    double f = floor(v), d = v - f;
    if (d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0.0))
        f += 1.0;
    return f;
}

static uint32_t expect(dv_quant q, bool relu, uint32_t raw, float scale, int32_t offset)
{
    if (!is_int_mode(q)) {
        float f = dv_f32_from_bits(raw);
        if (relu && f < 0)
            f = 0;
        return q == DV_Q_NONE ? dv_f32_bits(f) : q == DV_Q_F16 ? dv_f32_to_fp16(f) : dv_f32_to_bf16(f);
    }
    float v = (float)(int32_t)raw * scale;
    if (relu && v < 0)
        v = 0;
    if (q == DV_Q_DEQ || q == DV_Q_VDEQ)
        return dv_f32_to_fp16(v);
    double r = rne(v) + offset;
    return (uint8_t)(int8_t)(r > 127 ? 127 : r < -128 ? -128 : r);
}

static void fill_l0c(xt_env *e, uint64_t base, dv_quant q)
{
    for (unsigned r = 0; r < M; r++)
        for (unsigned c = 0; c < N; c++)
            xt_put(e->mem[DV_MEM_L0C].bytes + base + ((c / 16) * SRCM + r) * 64 + (c % 16) * 4, 4,
                   src_val(q, r, c));
}

static void fill_table(xt_env *e, unsigned entries, int32_t offset)
{
    for (unsigned c = 0; c < entries; c++) {
        xt_put(e->mem[DV_MEM_L1].bytes + TABLE + c * 8, 4, dv_f32_bits(chan_scale(c)));
        xt_put(e->mem[DV_MEM_L1].bytes + TABLE + c * 8 + 4, 4, (uint32_t)offset);
    }
}

/* _i encodes quant (7) x relu (2) x nz2nd (2) x out (2). */
START_TEST(fixp_modes)
{
    dv_quant q = (dv_quant)(_i % DV_Q_COUNT);
    bool relu = _i / DV_Q_COUNT % 2, nd = _i / DV_Q_COUNT / 2 % 2, to_l1 = _i / DV_Q_COUNT / 4 % 2;
    xt_env e;
    xt_open(&e, "ascend910b");
    const float scale = 0.5f;
    const int32_t offset = -3;
    fill_l0c(&e, 0x400, q);
    fill_table(&e, N, offset);
    unsigned os = q == DV_Q_NONE ? 4 : (q == DV_Q_REQ || q == DV_Q_VREQ) ? 1 : 2;
    const uint64_t ds = 24; /* >= n (ND row pitch) and >= m (NZ column pitch) */
    uint64_t dst = to_l1 ? 0x4000 : xt_gm_alloc(&e, 8192);
    dv_op op = xt_op(DV_OP_FIXP, dst, 0x400, fx(M, N, SRCM, ds),
                     (uint64_t)dv_f32_bits(scale) | (uint64_t)(uint32_t)offset << 32);
    if (q == DV_Q_VDEQ || q == DV_Q_VREQ)
        op.r[3] = TABLE;
    op_insn(&op)->f[DV_F_QUANT] = q;
    op_insn(&op)->f[DV_F_RELU] = relu;
    op_insn(&op)->f[DV_F_NZ2ND] = nd;
    op_insn(&op)->f[DV_F_OUT] = to_l1 ? DV_OUT_L1 : DV_OUT_GM;
    ck_assert_msg(dv_fixp_exec(&e.ctx, &op), "%s", e.ctx.fault_msg);
    const uint8_t *out = xt_ptr(&e, to_l1 ? DV_MEM_L1 : DV_MEM_GM, dst, 4096);
    for (unsigned r = 0; r < M; r++)
        for (unsigned c = 0; c < N; c++) {
            bool per_chan = q == DV_Q_VDEQ || q == DV_Q_VREQ;
            uint32_t want = expect(q, relu, src_val(q, r, c), per_chan ? chan_scale(c) : scale, offset);
            uint64_t o = nd ? r * ds + c : ((c / 16) * ds + r) * 16 + c % 16;
            ck_assert_msg(xt_get(out + o * os, os) == want, "quant %d relu %d nd %d: (%u,%u) = %x, want %x",
                          q, relu, nd, r, c, xt_get(out + o * os, os), want);
        }
    dv_op_stats st = {0};
    dv_fixp_cycles(&e.ctx, &op, false, &st);
    ck_assert_uint_eq(st.bytes, M * N * os);
    ck_assert_int_eq(st.path, to_l1 ? DV_PATH_L0C_L1 : DV_PATH_L0C_GM);
    xt_close(&e);
}
END_TEST

START_TEST(fixp_cycles_and_faults)
{
    xt_env e;
    xt_open(&e, "ascend910b");
    dv_op_stats st = {0};
    /* 20 x 20 f16 = 800 B to GM on 910B (bw 41, head 20, latency 200, full
     * 16384): 20 + ceil(800/41) + 200*(16384-800)/16384 = 20 + 20 + 190. */
    dv_op op = xt_op(DV_OP_FIXP, 0, 0, fx(M, N, SRCM, N), 0);
    op_insn(&op)->f[DV_F_QUANT] = DV_Q_F16;
    op_insn(&op)->f[DV_F_NZ2ND] = 1;
    ck_assert_uint_eq(dv_fixp_cycles(&e.ctx, &op, false, &st), 230);
    /* Source tile beyond the end of L0C. */
    op.r[0] = xt_gm_alloc(&e, 4096);
    op.r[1] = e.cfg.l0c_bytes - 1024;
    ck_assert(!dv_fixp_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_RANGE);
    ck_assert_int_eq(e.ctx.fault.mem, DV_MEM_L0C);
    /* ND row pitch smaller than the row. */
    op.r[1] = 0;
    op.r[2] = fx(M, N, SRCM, N - 1);
    ck_assert(!dv_fixp_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_NONE);
    /* GM destination outside any region. */
    op.r[2] = fx(M, N, SRCM, N);
    op.r[0] = 0x100;
    ck_assert(!dv_fixp_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.mem, DV_MEM_GM);
    xt_close(&e);
    /* The coupled 910 has no FixPipe. */
    xt_open(&e, "ascend910");
    ck_assert(!dv_fixp_exec(&e.ctx, &op));
    ck_assert_ptr_nonnull(strstr(e.ctx.fault_msg, "L0C->GM"));
    xt_close(&e);
}
END_TEST

START_TEST(l0c_ub_bursts)
{
    xt_env e;
    xt_open(&e, "ascend910");
    uint8_t *l0c = e.mem[DV_MEM_L0C].bytes, *ub = e.mem[DV_MEM_UB].bytes;
    for (unsigned i = 0; i < 4 * 256; i++)
        xt_put(l0c + i * 4, 4, dv_f32_bits((float)i * 0.5f - 100.0f));
    /* 2 bursts of 1 fractal, source gap 1, destination gap 1: fractals 0
     * and 2 -> UB fractals 0 and 2 (512 B each as f16), relu on. */
    uint64_t v[] = {2, 1, 1, 1};
    dv_op op = xt_op(DV_OP_COPY_L0C_UB, 0, 0, xt_pack(DV_LAYOUT_BURST, v, 4), 0);
    op_insn(&op)->f[DV_F_QUANT] = DV_Q_F16;
    op_insn(&op)->f[DV_F_RELU] = 1;
    memset(ub, 0x77, 2048);
    ck_assert_msg(dv_mte_exec(&e.ctx, &op), "%s", e.ctx.fault_msg);
    for (unsigned b = 0; b < 2; b++)
        for (unsigned el = 0; el < 256; el++) {
            float f = (float)(b * 512 + el) * 0.5f - 100.0f;
            ck_assert_uint_eq(xt_get(ub + b * 1024 + el * 2, 2), dv_f32_to_fp16(f < 0 ? 0 : f));
        }
    ck_assert_uint_eq(ub[512], 0x77); /* destination gap untouched */
    dv_op_stats st = {0};
    /* 2048 source bytes over L0C->UB (256 B/cycle): 20 + 8. */
    ck_assert_uint_eq(dv_mte_cycles(&e.ctx, &op, false, &st), 28);
    ck_assert_uint_eq(st.bytes, 2048);
    ck_assert_int_eq(st.path, DV_PATH_L0C_UB);
    /* vreq: channel = column within the fractal, table of 16 in L1. */
    for (unsigned i = 0; i < 256; i++)
        xt_put(l0c + i * 4, 4, (uint32_t)((int)i - 128));
    fill_table(&e, 16, 1);
    uint64_t v1[] = {1, 1, 0, 0};
    op = xt_op(DV_OP_COPY_L0C_UB, 0x800, 0, xt_pack(DV_LAYOUT_BURST, v1, 4), TABLE);
    op_insn(&op)->f[DV_F_QUANT] = DV_Q_VREQ;
    ck_assert(dv_mte_exec(&e.ctx, &op));
    for (unsigned el = 0; el < 256; el++)
        ck_assert_uint_eq(ub[0x800 + el],
                          expect(DV_Q_VREQ, false, (uint32_t)((int)el - 128), chan_scale(el % 16), 1));
    xt_close(&e);
    /* 910B has no L0C -> UB path. */
    xt_open(&e, "ascend910b");
    ck_assert(!dv_mte_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_NONE);
    xt_close(&e);
}
END_TEST

Suite *xt_suite_fixp(void)
{
    Suite *s = suite_create("fixp");
    TCase *tc = tcase_create("fixp");
    tcase_add_loop_test(tc, fixp_modes, 0, DV_Q_COUNT * 8);
    tcase_add_test(tc, fixp_cycles_and_faults);
    tcase_add_test(tc, l0c_ub_bursts);
    suite_add_tcase(s, tc);
    return s;
}
