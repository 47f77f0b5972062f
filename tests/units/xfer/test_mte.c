/* test_mte.c - copy_* bursts, nd2nz, load2d, set_fmatrix and load3d
 * against direct references, their cycles and their faults. */
#include "xt.h"

#include <string.h>

static uint64_t burst(uint64_t nburst, uint64_t len, uint64_t srcgap, uint64_t dstgap)
{
    uint64_t v[] = {nburst, len, srcgap, dstgap};
    return xt_pack(DV_LAYOUT_BURST, v, 4);
}

START_TEST(copy_gaps_roundtrip)
{
    xt_env e;
    xt_open(&e, "ascend910");
    uint64_t g = xt_gm_alloc(&e, 4096), g2 = xt_gm_alloc(&e, 4096);
    uint8_t *gp = xt_ptr(&e, DV_MEM_GM, g, 4096);
    for (int i = 0; i < 4096; i++)
        gp[i] = (uint8_t)(i * 7 + 3);
    /* GM -> UB: 3 bursts of 2 blocks, skipping 1 block in GM, 2 in UB. */
    dv_op op = xt_op(DV_OP_COPY_GM_UB, 0x100, g + 5, burst(3, 2, 1, 2), 0);
    ck_assert_msg(dv_mte_exec(&e.ctx, &op), "%s", e.ctx.fault_msg);
    const uint8_t *ub = e.mem[DV_MEM_UB].bytes;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 64; j++)
            ck_assert_uint_eq(ub[0x100 + i * 4 * 32 + j], gp[5 + i * 3 * 32 + j]);
    ck_assert_uint_eq(ub[0x100 + 64], 0); /* the dst gap is untouched */
    /* UB -> GM with the gaps reversed: GM gets the original bursts back. */
    op = xt_op(DV_OP_COPY_UB_GM, g2 + 5, 0x100, burst(3, 2, 2, 1), 0);
    ck_assert(dv_mte_exec(&e.ctx, &op));
    const uint8_t *g2p = xt_ptr(&e, DV_MEM_GM, g2, 4096);
    for (int i = 0; i < 3; i++)
        ck_assert_mem_eq(g2p + 5 + i * 96, gp + 5 + i * 96, 64);
    ck_assert_uint_eq(g2p[5 + 64], 0);
    /* UB -> L1 -> UB (coupled-chip paths). */
    op = xt_op(DV_OP_COPY_UB_L1, 0x2000, 0x100, burst(1, 12, 0, 0), 0);
    ck_assert(dv_mte_exec(&e.ctx, &op));
    op = xt_op(DV_OP_COPY_L1_UB, 0x8000, 0x2000, burst(1, 12, 0, 0), 0);
    ck_assert(dv_mte_exec(&e.ctx, &op));
    ck_assert_mem_eq(ub + 0x8000, ub + 0x100, 384);
    /* GM -> L1. */
    op = xt_op(DV_OP_COPY_GM_L1, 0x40, g, burst(2, 1, 3, 0), 0);
    ck_assert(dv_mte_exec(&e.ctx, &op));
    ck_assert_mem_eq(e.mem[DV_MEM_L1].bytes + 0x40, gp, 32);
    ck_assert_mem_eq(e.mem[DV_MEM_L1].bytes + 0x60, gp + 128, 32);
    xt_close(&e);
}
END_TEST

START_TEST(copy_faults)
{
    xt_env e;
    xt_open(&e, "ascend910b");
    uint64_t g = xt_gm_alloc(&e, 1024);
    /* 910B has no UB -> L1 path. */
    dv_op op = xt_op(DV_OP_COPY_UB_L1, 0, 0, burst(1, 1, 0, 0), 0);
    ck_assert(!dv_mte_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_NONE);
    ck_assert_ptr_nonnull(strstr(e.ctx.fault_msg, "has no UB->L1 path"));
    /* Misaligned L1 destination (32-byte alignment). */
    op = xt_op(DV_OP_COPY_GM_L1, 16, g, burst(1, 1, 0, 0), 0);
    ck_assert(!dv_mte_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_ALIGN);
    ck_assert_int_eq(e.ctx.fault.mem, DV_MEM_L1);
    /* GM: unaligned is fine, but the 2nd burst runs past the region. */
    op = xt_op(DV_OP_COPY_GM_UB, 0, g + 3, burst(2, 16, 0, 0), 0);
    ck_assert(!dv_mte_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_RANGE);
    ck_assert_int_eq(e.ctx.fault.mem, DV_MEM_GM);
    ck_assert_uint_eq(e.mem[DV_MEM_UB].bytes[0], 0); /* checked before moving */
    /* GM outside any region, in a timing-only run. */
    e.ctx.data = false;
    op = xt_op(DV_OP_COPY_UB_GM, 0x7000000, 0, burst(1, 1, 0, 0), 0);
    ck_assert(!dv_mte_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_RANGE);
    xt_close(&e);
}
END_TEST

START_TEST(copy_cycles)
{
    xt_env e;
    xt_open(&e, "ascend910");
    dv_op_stats st = {0};
    /* GM -> UB, 4 x 8 blocks = 1024 B on 910 (bw 64, head 20, latency 200,
     * full 16384): 20 + 1024/64 + 200*(16384-1024)/16384 = 20 + 16 + 187. */
    dv_op op = xt_op(DV_OP_COPY_GM_UB, 0, 0, burst(4, 8, 1, 1), 0);
    ck_assert_uint_eq(dv_mte_cycles(&e.ctx, &op, false, &st), 20 + 16 + 187);
    ck_assert_int_eq(st.path, DV_PATH_GM_UB);
    ck_assert_uint_eq(st.bytes, 1024);
    /* 16384 B reach full bandwidth: 20 + 256, no latency. */
    op.r[2] = burst(1, 512, 0, 0);
    ck_assert_uint_eq(dv_mte_cycles(&e.ctx, &op, false, &st), 20 + 256);
    /* L1 -> UB (bw 128) does not touch GM: 20 + 1024/128. */
    op = xt_op(DV_OP_COPY_L1_UB, 0, 0, burst(4, 8, 0, 0), 0);
    ck_assert_uint_eq(dv_mte_cycles(&e.ctx, &op, false, &st), 20 + 8);
    /* A timing-only run checks but moves nothing. */
    uint64_t g = xt_gm_alloc(&e, 1024);
    memset(xt_ptr(&e, DV_MEM_GM, g, 1024), 0x5a, 1024);
    e.ctx.data = false;
    op = xt_op(DV_OP_COPY_GM_UB, 0, g, burst(4, 8, 0, 0), 0);
    ck_assert(dv_mte_exec(&e.ctx, &op));
    ck_assert_uint_eq(e.mem[DV_MEM_UB].bytes[0], 0);
    e.ctx.data = true;
    /* set_fmatrix: 1 cycle, no bytes. */
    op = xt_op(DV_OP_SET_FMATRIX, 0x1234, 0, 0, 0);
    ck_assert_uint_eq(dv_mte_cycles(&e.ctx, &op, false, &st), 1);
    ck_assert_uint_eq(st.bytes, 0);
    ck_assert(dv_mte_exec(&e.ctx, &op));
    ck_assert_uint_eq(e.fmatrix, 0x1234);
    xt_close(&e);
}
END_TEST

START_TEST(nd2nz_partial_blocks)
{
    xt_env e;
    xt_open(&e, "ascend910b");
    /* Two f16 3 x 20 matrices (C0 = 16: blocks of 16 + 4 columns). */
    enum { N = 3, D = 20, SRCD = 24, SRCMAT = 77, DSTC0 = 4, DSTN = 1, DSTMAT = 10, NDNUM = 2 };
    uint64_t g = xt_gm_alloc(&e, 1024);
    uint8_t *gp = xt_ptr(&e, DV_MEM_GM, g, 1024);
    for (int i = 0; i < 512; i++)
        xt_put(gp + 2 * i, 2, 0x1000u + (unsigned)i);
    uint8_t *l1 = e.mem[DV_MEM_L1].bytes;
    memset(l1, 0xAA, 4096);
    uint64_t v0[] = {N, D, SRCD, NDNUM}, v1[] = {DSTC0, DSTN, SRCMAT, DSTMAT};
    dv_op op = xt_op(DV_OP_ND2NZ_GM_L1, 0x200, g + 2, xt_pack(DV_LAYOUT_ND2NZ0, v0, 4),
                     xt_pack(DV_LAYOUT_ND2NZ1, v1, 4));
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F16;
    ck_assert_msg(dv_mte_exec(&e.ctx, &op), "%s", e.ctx.fault_msg);
    for (int t = 0; t < NDNUM; t++)
        for (int r = 0; r < N; r++)
            for (int c = 0; c < 32; c++) {
                const uint8_t *p =
                    l1 + 0x200 + t * DSTMAT * 32 + ((c / 16) * DSTC0 + r * DSTN) * 32 + (c % 16) * 2;
                uint32_t want = c < D ? xt_get(gp + 2 + (t * SRCMAT + r * SRCD + c) * 2, 2) : 0;
                ck_assert_uint_eq(xt_get(p, 2), want);
            }
    ck_assert_uint_eq(l1[0x200 + 3 * 32], 0xAA); /* row 3 of block column 0 is not ours */
    dv_op_stats st = {0};
    dv_mte_cycles(&e.ctx, &op, false, &st);
    ck_assert_uint_eq(st.bytes, NDNUM * N * 2 * 32);
    ck_assert_int_eq(st.path, DV_PATH_GM_L1);
    xt_close(&e);
}
END_TEST

static uint64_t l2d(uint64_t start, uint64_t repeat, uint64_t srcstride, uint64_t dstgap)
{
    uint64_t v[] = {start, repeat, srcstride, dstgap};
    return xt_pack(DV_LAYOUT_LOAD2D, v, 4);
}

START_TEST(load2d_plain_and_transposed)
{
    xt_env e;
    xt_open(&e, "ascend910");
    uint8_t *l1 = e.mem[DV_MEM_L1].bytes;
    for (int i = 0; i < 8 * 256; i++)
        xt_put(l1 + 2 * i, 2, (uint32_t)i);
    /* fractals 1, 3, 5 -> L0A 0, 2, 4 */
    dv_op op = xt_op(DV_OP_LOAD2D_L0A, 0, 0, l2d(1, 3, 2, 1), 0);
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F16;
    ck_assert(dv_mte_exec(&e.ctx, &op));
    for (int i = 0; i < 3; i++)
        ck_assert_mem_eq(e.mem[DV_MEM_L0A].bytes + i * 1024, l1 + (1 + 2 * i) * 512, 512);
    /* transposed into L0B at 512: (r, c) = fractal 2's (c, r) */
    op = xt_op(DV_OP_LOAD2D_L0B, 512, 0, l2d(2, 1, 0, 0), 0);
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_BF16;
    op_insn(&op)->f[DV_F_TRANSPOSE] = 1;
    ck_assert(dv_mte_exec(&e.ctx, &op));
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 16; c++)
            ck_assert_uint_eq(xt_get(e.mem[DV_MEM_L0B].bytes + 512 + (r * 16 + c) * 2, 2),
                              (uint32_t)(2 * 256 + c * 16 + r));
    dv_op_stats st = {0};
    /* 512 B over L1 -> L0B (256 B/cycle): 20 + 2. */
    ck_assert_uint_eq(dv_mte_cycles(&e.ctx, &op, false, &st), 22);
    ck_assert_int_eq(st.path, DV_PATH_L1_L0B);
    /* transpose of 8-bit data is refused; so is a misaligned L0 target */
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_S8;
    ck_assert(!dv_mte_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_NONE);
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F16;
    op.r[0] = 256;
    ck_assert(!dv_mte_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_ALIGN);
    xt_close(&e);
}
END_TEST

/* The merging transpose of 4-byte elements (layout load2dt, facts #41):
 * two squares of fractals (srcpair 3 apart) from L1 fractals 1|4 and
 * 6|9 (srcstride 5) into L0B 0|2 and 1|3 (dstgap 0, dstpair 2); element
 * (r, c) of square i's transpose is (c, r) of the square. */
START_TEST(load2d_transposed_f32_squares)
{
    xt_env e;
    xt_open(&e, "ascend910b");
    uint8_t *l1 = e.mem[DV_MEM_L1].bytes;
    for (int i = 0; i < 12 * 128; i++)
        xt_put(l1 + 4 * i, 4, 0x10000u + (uint32_t)i);
    uint64_t v[] = {1, 2, 5, 0, 3, 2};
    dv_op op = xt_op(DV_OP_LOAD2D_L0B, 0, 0, xt_pack(DV_LAYOUT_LOAD2DT, v, 6), 0);
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F32;
    op_insn(&op)->f[DV_F_TRANSPOSE] = 1;
    ck_assert_msg(dv_mte_exec(&e.ctx, &op), "%s", e.ctx.fault_msg);
    const uint8_t *l0b = e.mem[DV_MEM_L0B].bytes;
    for (unsigned sq = 0; sq < 2; sq++) {
        unsigned s0 = 1 + 5 * sq; /* the square's first fractal; its second is s0 + 3 */
        for (unsigned r = 0; r < 16; r++)
            for (unsigned c = 0; c < 16; c++) {
                /* the square's (c, r): row c, column r, in fractal s0 + 3 (r / 8) */
                uint32_t want = 0x10000u + (s0 + 3 * (r / 8)) * 128 + c * 8 + r % 8;
                unsigned dfr = sq + 2 * (c / 8); /* square sq's fractals: sq, sq + dstpair */
                ck_assert_uint_eq(xt_get(l0b + dfr * 512 + (r * 8 + c % 8) * 4, 4), want);
            }
    }
    dv_op_stats st = {0};
    dv_mte_cycles(&e.ctx, &op, false, &st);
    ck_assert_uint_eq(st.bytes, 2 * 1024); /* two fractals a square */
    /* a second fractal out of L0B faults before anything moves */
    uint64_t w[] = {0, 1, 0, 0, 1, 255};
    op = xt_op(DV_OP_LOAD2D_L0B, e.cfg.l0b_bytes - 512, 0, xt_pack(DV_LAYOUT_LOAD2DT, w, 6), 0);
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F32;
    op_insn(&op)->f[DV_F_TRANSPOSE] = 1;
    ck_assert(!dv_mte_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_RANGE);
    xt_close(&e);
}
END_TEST

/* ---- load3d ---- */

typedef struct geo {
    unsigned W, H, padl, padr, padt, padb, c1, kw, kh, sw, sh, dw, dh, kstart, kext, mstart, mext;
} geo;

/* Direct img2col: the value of output row mm, K column (kk, c0), or 0. */
static uint16_t ref_img2col(const geo *g, const uint8_t *map, unsigned mm, unsigned kk, unsigned c0)
{
    unsigned ow = (g->W + g->padl + g->padr - g->dw * (g->kw - 1) - 1) / g->sw + 1;
    unsigned oh = (g->H + g->padt + g->padb - g->dh * (g->kh - 1) - 1) / g->sh + 1;
    unsigned m = g->mstart + mm, kb = g->kstart + kk;
    if (mm >= g->mext || m >= ow * oh)
        return 0;
    unsigned ci = kb / (g->kh * g->kw), ki = kb / g->kw % g->kh, kj = kb % g->kw;
    int ih = (int)((m / ow) * g->sh + ki * g->dh) - (int)g->padt;
    int iw = (int)((m % ow) * g->sw + kj * g->dw) - (int)g->padl;
    if (ih < 0 || iw < 0 || ih >= (int)g->H || iw >= (int)g->W)
        return 0;
    return (uint16_t)xt_get(map + (((ci * g->H + (unsigned)ih) * g->W + (unsigned)iw) * 16 + c0) * 2, 2);
}

static void check_load3d(const geo *g, bool l0a)
{
    xt_env e;
    xt_open(&e, "ascend910");
    uint8_t *l1 = e.mem[DV_MEM_L1].bytes;
    for (unsigned i = 0; i < g->c1 * g->H * g->W * 16; i++)
        xt_put(l1 + 0x400 + 2 * i, 2, i + 1);
    uint64_t fm[] = {g->W, g->H, g->padl, g->padr, g->padt, g->padb};
    uint64_t ic[] = {g->c1, g->kw, g->kh, g->sw, g->sh, g->dw, g->dh};
    uint64_t ip[] = {g->kstart, g->kext, g->mstart, g->mext};
    dv_op op = xt_op(DV_OP_SET_FMATRIX, xt_pack(DV_LAYOUT_FMATRIX, fm, 6), 0, 0, 0);
    ck_assert(dv_mte_exec(&e.ctx, &op));
    uint8_t *dst = (l0a ? e.mem[DV_MEM_L0A] : e.mem[DV_MEM_L0B]).bytes;
    memset(dst, 0x55, 65536);
    op = xt_op(l0a ? DV_OP_LOAD3D_L0A : DV_OP_LOAD3D_L0B, 0x800, 0x400, xt_pack(DV_LAYOUT_IMG2COL, ic, 7),
               xt_pack(DV_LAYOUT_IMG2COLPOS, ip, 4));
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F16;
    ck_assert_msg(dv_mte_exec(&e.ctx, &op), "%s", e.ctx.fault_msg);
    unsigned m1 = (g->mext + 15) / 16;
    for (unsigned mm = 0; mm < m1 * 16; mm++)
        for (unsigned kk = 0; kk < g->kext; kk++)
            for (unsigned c0 = 0; c0 < 16; c0++) {
                unsigned frac = l0a ? (mm / 16) * g->kext + kk : kk * m1 + mm / 16;
                uint32_t got = xt_get(dst + 0x800 + frac * 512 + (mm % 16) * 32 + c0 * 2, 2);
                ck_assert_msg(got == ref_img2col(g, l1 + 0x400, mm, kk, c0), "mm=%u kk=%u c0=%u: %u != %u",
                              mm, kk, c0, got, ref_img2col(g, l1 + 0x400, mm, kk, c0));
            }
    dv_op_stats st = {0};
    dv_mte_cycles(&e.ctx, &op, false, &st);
    ck_assert_uint_eq(st.bytes, m1 * 512 * g->kext);
    xt_close(&e);
}

START_TEST(load3d_3x3_s1_p1)
{
    /* 5x5 map, 2 channel blocks, 3x3 kernel, stride 1, pad 1: 25 output
     * positions (rows 25..31 are zero), all 18 K blocks. */
    geo g = {5, 5, 1, 1, 1, 1, 2, 3, 3, 1, 1, 1, 1, 0, 18, 0, 32};
    check_load3d(&g, true);
    check_load3d(&g, false);
}
END_TEST

START_TEST(load3d_s2_d2_window)
{
    /* 9x8 map, pad left/top 1, 3x3 kernel, stride 2, dilation 2:
     * OW = (10-5)/2+1 = 3, OH = (9-5)/2+1 = 3; a window of K blocks 3..12 and
     * output positions 2..17 (only 2..8 exist). */
    geo g = {9, 8, 1, 0, 1, 0, 2, 3, 3, 2, 2, 2, 2, 3, 10, 2, 16};
    check_load3d(&g, true);
    check_load3d(&g, false);
}
END_TEST

START_TEST(load3d_faults)
{
    xt_env e;
    xt_open(&e, "ascend910");
    uint64_t fm[] = {4, 4, 0, 0, 0, 0};
    e.fmatrix = xt_pack(DV_LAYOUT_FMATRIX, fm, 6);
    uint64_t ic[] = {1, 3, 3, 0, 1, 1, 1}, ip[] = {0, 9, 0, 16};
    dv_op op = xt_op(DV_OP_LOAD3D_L0A, 0, 0, xt_pack(DV_LAYOUT_IMG2COL, ic, 7),
                     xt_pack(DV_LAYOUT_IMG2COLPOS, ip, 4));
    ck_assert(!dv_mte_exec(&e.ctx, &op)); /* stride 0 */
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_NONE);
    ic[3] = 1;
    ic[1] = 5; /* 5-wide kernel over a 4-wide map */
    op.r[2] = xt_pack(DV_LAYOUT_IMG2COL, ic, 7);
    ck_assert(!dv_mte_exec(&e.ctx, &op));
    ic[1] = 3;
    op.r[2] = xt_pack(DV_LAYOUT_IMG2COL, ic, 7);
    op.r[1] = 48; /* misaligned feature map */
    ck_assert(!dv_mte_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_ALIGN);
    op.r[1] = 0;
    ck_assert(dv_mte_exec(&e.ctx, &op));
    xt_close(&e);
}
END_TEST

Suite *xt_suite_mte(void)
{
    Suite *s = suite_create("mte");
    TCase *tc = tcase_create("mte");
    tcase_add_test(tc, copy_gaps_roundtrip);
    tcase_add_test(tc, copy_faults);
    tcase_add_test(tc, copy_cycles);
    tcase_add_test(tc, nd2nz_partial_blocks);
    tcase_add_test(tc, load2d_plain_and_transposed);
    tcase_add_test(tc, load2d_transposed_f32_squares);
    tcase_add_test(tc, load3d_3x3_s1_p1);
    tcase_add_test(tc, load3d_s2_d2_window);
    tcase_add_test(tc, load3d_faults);
    suite_add_tcase(s, tc);
    return s;
}
