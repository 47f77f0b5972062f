/* test_vector_conv.c - vconv rounding modes on ties, saturation, the
 * per-repeat block counts of a narrowing conversion, vdeq and vquant. */
#include "vt_env.h"

#include <math.h>
#include <string.h>

enum { SRC = 0, DST = 0x10000 };

/* Converts n f32 lanes (one repeat, 64 lanes, the rest 0) and returns dst lane i. */
static void conv_f32(vt_env *e, dv_dtype to, dv_round rnd, const float *in, unsigned n, uint32_t *out)
{
    memset(vt_ub(e, SRC), 0, 256);
    memset(vt_ub(e, DST), 0, 256);
    for (unsigned i = 0; i < n; i++)
        vt_st(e, SRC + i * 4, 4, dv_f32_bits(in[i]));
    dv_op op = vt_op(DV_OP_VCONV, DV_DT_F16, DST, SRC, vt_vrep_dense(1), 0, 0);
    op_insn(&op)->f[DV_F_FROM] = DV_DT_F32;
    op_insn(&op)->f[DV_F_TO] = to;
    op_insn(&op)->f[DV_F_ROUND] = rnd;
    ck_assert_msg(dv_vector_exec(&e->c, &op), "%s", e->c.fault_msg);
    unsigned sz = dv_dtype_size(to);
    for (unsigned i = 0; i < n; i++)
        out[i] = vt_ld(e, DST + i * sz, sz);
}

START_TEST(f32_to_s32_ties)
{
    vt_env e;
    vt_init(&e);
    static const float in[] = {2.5f, -2.5f, 3.5f, 0.5f, -0.5f, 1.25f, -1.75f, 7.0f};
    /* Expected per mode: rne, rz, rd, ru, rna, odd. */
    static const int32_t want[DV_RND_COUNT][8] = {
        {2, -2, 4, 0, 0, 1, -2, 7},  /* rne */
        {2, -2, 3, 0, 0, 1, -1, 7},  /* rz */
        {2, -3, 3, 0, -1, 1, -2, 7}, /* rd */
        {3, -2, 4, 1, 0, 2, -1, 7},  /* ru */
        {3, -3, 4, 1, -1, 1, -2, 7}, /* rna */
        {3, -3, 3, 1, -1, 1, -1, 7}, /* odd */
    };
    for (unsigned m = 0; m < DV_RND_COUNT; m++) {
        uint32_t out[8];
        conv_f32(&e, DV_DT_S32, (dv_round)m, in, 8, out);
        for (unsigned i = 0; i < 8; i++)
            ck_assert_msg((int32_t)out[i] == want[m][i], "mode %u lane %u: %d", m, i, (int32_t)out[i]);
    }
    vt_free(&e);
}
END_TEST

START_TEST(f32_to_f16_ties)
{
    vt_env e;
    vt_init(&e);
    /* 1 + 2^-11 lies halfway between 0x3c00 (1.0) and 0x3c01; 1 + 3*2^-11
     * halfway between 0x3c01 and 0x3c02; 1 + 2^-12 is below the midpoint. */
    static const float in[] = {
        1.0f + 0x1p-11f, -(1.0f + 0x1p-11f), 1.0f + 3 * 0x1p-11f, 1.0f + 0x1p-12f, 1e6f, -1e6f, 1.0f};
    static const uint32_t want[DV_RND_COUNT][7] = {
        {0x3c00, 0xbc00, 0x3c02, 0x3c00, 0x7c00, 0xfc00, 0x3c00}, /* rne */
        {0x3c00, 0xbc00, 0x3c01, 0x3c00, 0x7bff, 0xfbff, 0x3c00}, /* rz */
        {0x3c00, 0xbc01, 0x3c01, 0x3c00, 0x7bff, 0xfc00, 0x3c00}, /* rd */
        {0x3c01, 0xbc00, 0x3c02, 0x3c01, 0x7c00, 0xfbff, 0x3c00}, /* ru */
        {0x3c01, 0xbc01, 0x3c02, 0x3c00, 0x7c00, 0xfc00, 0x3c00}, /* rna */
        {0x3c01, 0xbc01, 0x3c01, 0x3c01, 0x7bff, 0xfbff, 0x3c00}, /* odd */
    };
    for (unsigned m = 0; m < DV_RND_COUNT; m++) {
        uint32_t out[7];
        conv_f32(&e, DV_DT_F16, (dv_round)m, in, 7, out);
        for (unsigned i = 0; i < 7; i++)
            ck_assert_msg(out[i] == want[m][i], "mode %u lane %u: %#x", m, i, out[i]);
    }
    /* bf16: 1 + 2^-8 is halfway between 0x3f80 and 0x3f81. */
    float b[] = {1.0f + 0x1p-8f};
    uint32_t o;
    conv_f32(&e, DV_DT_BF16, DV_RND_RNE, b, 1, &o);
    ck_assert_uint_eq(o, 0x3f80);
    conv_f32(&e, DV_DT_BF16, DV_RND_RNA, b, 1, &o);
    ck_assert_uint_eq(o, 0x3f81);
    vt_free(&e);
}
END_TEST

START_TEST(saturation)
{
    vt_env e;
    vt_init(&e);
    float in[] = {1e10f, -1e10f, NAN, INFINITY, -INFINITY, 300.0f, -300.0f, 127.5f};
    uint32_t out[8];
    conv_f32(&e, DV_DT_S32, DV_RND_RNE, in, 8, out);
    ck_assert_uint_eq(out[0], 0x7fffffffu);
    ck_assert_uint_eq(out[1], 0x80000000u);
    ck_assert_uint_eq(out[2], 0);
    ck_assert_uint_eq(out[3], 0x7fffffffu);
    ck_assert_uint_eq(out[4], 0x80000000u);
    conv_f32(&e, DV_DT_U8, DV_RND_RNE, in, 8, out);
    ck_assert_uint_eq(out[5], 255);
    ck_assert_uint_eq(out[6], 0);
    ck_assert_uint_eq(out[7], 128); /* 127.5 ties to even */
    conv_f32(&e, DV_DT_S8, DV_RND_RZ, in, 8, out);
    ck_assert_uint_eq(out[5], 127);
    ck_assert_uint_eq(out[6], 0x80);
    ck_assert_uint_eq(out[7], 127);

    /* s32 -> s16 and s8 narrowing saturates; s16 -> s32 sign-extends. */
    static const int32_t iv[] = {1000, -1000, 40000, -40000, 5};
    memset(vt_ub(&e, SRC), 0, 256);
    for (unsigned i = 0; i < 5; i++)
        vt_st(&e, SRC + i * 4, 4, (uint32_t)iv[i]);
    dv_op op = vt_op(DV_OP_VCONV, DV_DT_F16, DST, SRC, vt_vrep_dense(1), 0, 0);
    op_insn(&op)->f[DV_F_FROM] = DV_DT_S32;
    op_insn(&op)->f[DV_F_TO] = DV_DT_S8;
    ck_assert(dv_vector_exec(&e.c, &op));
    static const int8_t w8[] = {127, -128, 127, -128, 5};
    for (unsigned i = 0; i < 5; i++)
        ck_assert_int_eq((int8_t)*vt_ub(&e, DST + i), w8[i]);
    op_insn(&op)->f[DV_F_TO] = DV_DT_S16;
    ck_assert(dv_vector_exec(&e.c, &op));
    static const int16_t w16[] = {1000, -1000, 32767, -32768, 5};
    for (unsigned i = 0; i < 5; i++)
        ck_assert_int_eq((int16_t)vt_ld(&e, DST + i * 2, 2), w16[i]);
    op_insn(&op)->f[DV_F_FROM] = DV_DT_S16;
    op_insn(&op)->f[DV_F_TO] = DV_DT_S32;
    op.r[1] = DST;
    op.r[0] = 0x18000;
    ck_assert(dv_vector_exec(&e.c, &op));
    ck_assert_int_eq((int32_t)vt_ld(&e, 0x18000 + 12, 4), -32768);
    /* Unsupported pairs. */
    op_insn(&op)->f[DV_F_FROM] = DV_DT_F32;
    op_insn(&op)->f[DV_F_TO] = DV_DT_F32;
    ck_assert(!dv_vector_exec(&e.c, &op));
    ck_assert_int_eq(e.c.fault.kind, DV_FAULT_NONE);
    op_insn(&op)->f[DV_F_TO] = DV_DT_U16;
    ck_assert(!dv_vector_exec(&e.c, &op));
    vt_free(&e);
}
END_TEST

/* f32 -> f16 over 2 repeats with dst repeat stride 4: each repeat reads 8
 * blocks and writes 4, so the output is dense; the block after it is not
 * written. */
START_TEST(narrowing_layout)
{
    vt_env e;
    vt_init(&e);
    for (unsigned i = 0; i < 128; i++)
        vt_st(&e, SRC + i * 4, 4, dv_f32_bits((float)i * 0.37f - 20.0f));
    memset(vt_ub(&e, DST), 0xa5, 512);
    e.vec.mask_lo = 0xfffffffffffffff0ull; /* lanes 0-3 of each repeat untouched */
    dv_op op = vt_op(DV_OP_VCONV, DV_DT_F16, DST, SRC, vt_vrep(2, 1, 1, 0, 4, 8, 0), 0, 0);
    op_insn(&op)->f[DV_F_FROM] = DV_DT_F32;
    op_insn(&op)->f[DV_F_TO] = DV_DT_F16;
    ck_assert(dv_vector_exec(&e.c, &op));
    for (unsigned i = 0; i < 128; i++) {
        uint32_t want = i % 64 < 4 ? 0xa5a5u : dv_f32_to_fp16((float)i * 0.37f - 20.0f);
        ck_assert_uint_eq(vt_ld(&e, DST + i * 2, 2), want);
    }
    ck_assert_uint_eq(vt_ld(&e, DST + 256, 2), 0xa5a5u);
    /* f16 -> f32 widening: 128 lanes would be 512 bytes, so a repeat is 64 lanes. */
    op = vt_op(DV_OP_VCONV, DV_DT_F16, 0x18000, DST, vt_vrep(1, 1, 1, 0, 8, 4, 0), 0, 0);
    op_insn(&op)->f[DV_F_FROM] = DV_DT_F16;
    op_insn(&op)->f[DV_F_TO] = DV_DT_F32;
    e.vec.mask_lo = ~0ull;
    ck_assert(dv_vector_exec(&e.c, &op));
    ck_assert_uint_eq(vt_ld(&e, 0x18000 + 10 * 4, 4),
                      dv_f32_bits(dv_fp16_to_f32(dv_f32_to_fp16(10 * 0.37f - 20.0f))));
    vt_free(&e);
}
END_TEST

START_TEST(deq_and_quant)
{
    vt_env e;
    vt_init(&e);
    for (unsigned i = 0; i < 64; i++)
        vt_st(&e, SRC + i * 4, 4, (uint32_t)((int32_t)i * 1001 - 30000));
    dv_op op = vt_op(DV_OP_VDEQ, DV_DT_F16, DST, SRC, dv_f32_bits(0.125f), vt_vrep_dense(1), 0);
    op_insn(&op)->f[DV_F_FROM] = DV_DT_S32;
    op_insn(&op)->f[DV_F_TO] = DV_DT_F16;
    ck_assert(dv_vector_exec(&e.c, &op));
    for (unsigned i = 0; i < 64; i++)
        ck_assert_uint_eq(vt_ld(&e, DST + i * 2, 2),
                          dv_f32_to_fp16((float)((int32_t)i * 1001 - 30000) * 0.125f));

    /* vquant f16 -> s8: round(x * 2) - 3, saturated. */
    for (unsigned i = 0; i < 128; i++)
        vt_st(&e, SRC + i * 2, 2, dv_f32_to_fp16((float)i - 64.0f + 0.25f));
    uint64_t q = dv_f32_bits(2.0f) | (uint64_t)(uint32_t)-3 << 32;
    op = vt_op(DV_OP_VQUANT, DV_DT_F16, DST, SRC, q, vt_vrep_dense(1), 0);
    op_insn(&op)->f[DV_F_FROM] = DV_DT_F16;
    op_insn(&op)->f[DV_F_TO] = DV_DT_S8;
    ck_assert(dv_vector_exec(&e.c, &op));
    for (unsigned i = 0; i < 128; i++) {
        /* x*2 = 2i - 127.5: a tie, rne rounds to the even neighbour. */
        double y = nearbyint(((double)i - 64.0 + 0.25) * 2.0) - 3;
        int want = y > 127 ? 127 : y < -128 ? -128 : (int)y;
        ck_assert_int_eq((int8_t)*vt_ub(&e, DST + i), want);
    }
    op_insn(&op)->f[DV_F_TO] = DV_DT_F16; /* not a quantised type */
    ck_assert(!dv_vector_exec(&e.c, &op));
    vt_free(&e);
}
END_TEST

TCase *vt_conv_tcase(void)
{
    TCase *tc = tcase_create("conv");
    tcase_add_test(tc, f32_to_s32_ties);
    tcase_add_test(tc, f32_to_f16_ties);
    tcase_add_test(tc, saturation);
    tcase_add_test(tc, narrowing_layout);
    tcase_add_test(tc, deq_and_quant);
    return tc;
}
