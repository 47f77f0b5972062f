/* test_vector.c - Vector unit: element-wise ops, scalars, unary, vdup,
 * reductions, vcmp/vsel, vtranspose, masks, strides and faults, each checked
 * bit for bit against a plain C reference (f16 results: computed in float,
 * rounded with dv_f32_to_fp16). */
#include "vt_env.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SRC0 = 0, SRC1 = 0x8000, DST = 0x10000, SENT = 0xa5 };

static bool is_f(dv_dtype dt)
{
    return dt == DV_DT_F16 || dt == DV_DT_BF16 || dt == DV_DT_F32;
}

static float to_f(uint32_t b, dv_dtype dt)
{
    return dt == DV_DT_F16    ? dv_fp16_to_f32((uint16_t)b)
           : dt == DV_DT_BF16 ? dv_bf16_to_f32((uint16_t)b)
                              : dv_f32_from_bits(b);
}

static uint32_t from_f(float f, dv_dtype dt)
{
    return dt == DV_DT_F16 ? dv_f32_to_fp16(f) : dt == DV_DT_BF16 ? dv_f32_to_bf16(f) : dv_f32_bits(f);
}

static int64_t to_i(uint32_t b, dv_dtype dt)
{
    return dt == DV_DT_S16 ? (int64_t)(int16_t)b : (int64_t)(int32_t)b;
}

static uint32_t rand_val(vt_env *e, dv_dtype dt)
{
    switch (dt) {
    case DV_DT_F16: return vt_rand_f16(e);
    case DV_DT_BF16: return dv_f32_to_bf16(((float)(vt_rand(e) % 65536) - 32768.0f) / 512.0f);
    case DV_DT_F32: return dv_f32_bits(((float)(vt_rand(e) % 1048576) - 524288.0f) / 1024.0f);
    default: {
        uint32_t v = vt_rand(e) ^ (vt_rand(e) << 20);
        if (vt_rand(e) % 16 == 0)
            v = 0; /* exercise integer division by zero */
        return dt == DV_DT_S16 ? (v & 0xffff) : v;
    }
    }
}

static bool lane_active(const vt_env *e, unsigned i)
{
    if (e->vec.mode == DV_MASK_COUNT_MODE)
        return i < e->vec.mask_lo;
    return (i < 64 ? e->vec.mask_lo >> i : e->vec.mask_hi >> (i - 64)) & 1;
}

/* The reference: plain C per the spec comment of vector.c. */
static uint32_t ref_op(dv_opcode opc, dv_dtype dt, uint32_t a, uint32_t b)
{
    uint32_t m = dv_dtype_size(dt) == 4 ? 0xffffffffu : 0xffffu;
    if (opc == DV_OP_VAND)
        return a & b;
    if (opc == DV_OP_VOR)
        return a | b;
    if (opc == DV_OP_VNOT)
        return ~a & m;
    if (opc == DV_OP_VCOPY)
        return a;
    if (is_f(dt)) {
        float x = to_f(a, dt), y = to_f(b, dt), r;
        switch (opc) {
        case DV_OP_VADD:
        case DV_OP_VADDS: r = x + y; break;
        case DV_OP_VSUB: r = x - y; break;
        case DV_OP_VMUL:
        case DV_OP_VMULS: r = x * y; break;
        case DV_OP_VDIV: r = x / y; break;
        case DV_OP_VMAX:
        case DV_OP_VMAXS: r = x > y ? x : y; break;
        case DV_OP_VMIN:
        case DV_OP_VMINS: r = x < y ? x : y; break;
        case DV_OP_VEXP: r = expf(x); break;
        case DV_OP_VLN: r = logf(x); break;
        case DV_OP_VABS: r = fabsf(x); break;
        case DV_OP_VSQRT: r = sqrtf(x); break;
        case DV_OP_VRSQRT: r = 1.0f / sqrtf(x); break;
        case DV_OP_VREC: r = 1.0f / x; break;
        case DV_OP_VRELU: r = x > 0 ? x : 0.0f; break;
        default: r = NAN; break;
        }
        return from_f(r, dt);
    }
    int64_t x = to_i(a, dt), y = to_i(b, dt), r;
    switch (opc) {
    case DV_OP_VADD:
    case DV_OP_VADDS: r = x + y; break;
    case DV_OP_VSUB: r = x - y; break;
    case DV_OP_VMUL:
    case DV_OP_VMULS: r = x * y; break;
    case DV_OP_VDIV: r = y ? x / y : 0; break;
    case DV_OP_VMAX:
    case DV_OP_VMAXS: r = x > y ? x : y; break;
    case DV_OP_VMIN:
    case DV_OP_VMINS: r = x < y ? x : y; break;
    case DV_OP_VABS: r = x < 0 ? -x : x; break;
    case DV_OP_VRELU: r = x > 0 ? x : 0; break;
    default: r = 0; break;
    }
    return (uint32_t)(uint64_t)r & m;
}

typedef struct strides {
    unsigned dblk, s0blk, s1blk, drep, s0rep, s1rep;
} strides;

static const strides DENSE = {1, 1, 1, 8, 8, 8};

/* Runs one element-wise op (binary, scalar or unary by its format) and checks
 * every lane of every repeat, active or not. */
static void run_elem(vt_env *e, dv_opcode opc, dv_dtype dt, unsigned repeats, strides s, uint64_t b0,
                     uint64_t b1, uint64_t bd)
{
    unsigned size = dv_dtype_size(dt), lanes = 256 / size;
    const dv_insn_info *info = dv_isa_info(opc);
    bool bin = info->fmt == DV_FMT_VBIN, scal = info->fmt == DV_FMT_VSCAL;
    /* Sources first (they may overlap when a stride is 0), then the dst sentinel. */
    for (unsigned r = 0; r < repeats; r++)
        for (unsigned i = 0; i < lanes; i++) {
            uint32_t a = rand_val(e, dt);
            if (opc == DV_OP_VLN || opc == DV_OP_VSQRT || opc == DV_OP_VRSQRT)
                a &= ~(1u << (8 * size - 1)); /* keep libm in its domain */
            vt_st(e, vt_lane(b0, s.s0blk, s.s0rep, size, r, i), size, a);
            if (bin)
                vt_st(e, vt_lane(b1, s.s1blk, s.s1rep, size, r, i), size, rand_val(e, dt));
        }
    for (unsigned r = 0; r < repeats; r++)
        for (unsigned i = 0; i < lanes; i++)
            vt_st(e, vt_lane(bd, s.dblk, s.drep, size, r, i), size, 0xa5a5a5a5u);
    uint32_t scalar = rand_val(e, dt);
    uint64_t vr = vt_vrep(repeats, s.dblk, s.s0blk, s.s1blk, s.drep, s.s0rep, s.s1rep);
    dv_op op = bin    ? vt_op(opc, dt, bd, b0, b1, vr, 0)
               : scal ? vt_op(opc, dt, bd, b0, scalar | 0xdead000000000000ull, vr, 0)
                      : vt_op(opc, dt, bd, b0, vr, 0, 0);
    ck_assert_msg(dv_vector_exec(&e->c, &op), "%s %s: %s", info->mnemonic, dv_dtype_name(dt), e->c.fault_msg);
    for (unsigned r = 0; r < repeats; r++)
        for (unsigned i = 0; i < lanes; i++) {
            uint32_t a = vt_ld(e, vt_lane(b0, s.s0blk, s.s0rep, size, r, i), size);
            uint32_t b = bin ? vt_ld(e, vt_lane(b1, s.s1blk, s.s1rep, size, r, i), size) : scalar;
            uint32_t want =
                lane_active(e, i) ? ref_op(opc, dt, a, b) : (0xa5a5a5a5u & (size == 4 ? ~0u : 0xffffu));
            uint32_t got = vt_ld(e, vt_lane(bd, s.dblk, s.drep, size, r, i), size);
            ck_assert_msg(got == want, "%s %s r%u lane %u: got %#x want %#x (a %#x b %#x)", info->mnemonic,
                          dv_dtype_name(dt), r, i, got, want, a, b);
        }
}

START_TEST(binary_all_types)
{
    static const dv_opcode ops[] = {DV_OP_VADD, DV_OP_VSUB, DV_OP_VMUL, DV_OP_VDIV,
                                    DV_OP_VMAX, DV_OP_VMIN, DV_OP_VAND, DV_OP_VOR};
    static const dv_dtype dts[] = {DV_DT_F16, DV_DT_BF16, DV_DT_F32, DV_DT_S32, DV_DT_S16};
    vt_env e;
    vt_init(&e);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
            run_elem(&e, ops[o], dts[t], 3, DENSE, SRC0, SRC1, DST);
    vt_free(&e);
}
END_TEST

START_TEST(scalar_and_unary)
{
    static const dv_opcode sops[] = {DV_OP_VADDS, DV_OP_VMULS, DV_OP_VMAXS, DV_OP_VMINS,
                                     DV_OP_VABS,  DV_OP_VRELU, DV_OP_VNOT,  DV_OP_VCOPY};
    static const dv_dtype dts[] = {DV_DT_F16, DV_DT_F32, DV_DT_S32, DV_DT_S16};
    static const dv_opcode fops[] = {DV_OP_VEXP, DV_OP_VLN, DV_OP_VSQRT, DV_OP_VRSQRT, DV_OP_VREC};
    vt_env e;
    vt_init(&e);
    for (size_t o = 0; o < sizeof sops / sizeof sops[0]; o++)
        for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
            run_elem(&e, sops[o], dts[t], 2, DENSE, SRC0, SRC1, DST);
    for (size_t o = 0; o < sizeof fops / sizeof fops[0]; o++) {
        run_elem(&e, fops[o], DV_DT_F16, 2, DENSE, SRC0, SRC1, DST);
        run_elem(&e, fops[o], DV_DT_F32, 2, DENSE, SRC0, SRC1, DST);
        run_elem(&e, fops[o], DV_DT_BF16, 1, DENSE, SRC0, SRC1, DST);
    }
    vt_free(&e);
}
END_TEST

START_TEST(masks)
{
    vt_env e;
    vt_init(&e);
    e.vec.mask_lo = 0x5555aaaa0000ffffull;
    e.vec.mask_hi = 0x8000000000000001ull;
    run_elem(&e, DV_OP_VADD, DV_DT_F16, 3, DENSE, SRC0, SRC1, DST);
    run_elem(&e, DV_OP_VMUL, DV_DT_F32, 3, DENSE, SRC0, SRC1, DST); /* mask_hi unused for 32-bit lanes */
    e.vec.mode = DV_MASK_COUNT_MODE;
    e.vec.mask_lo = 37;
    run_elem(&e, DV_OP_VADD, DV_DT_F16, 3, DENSE, SRC0, SRC1, DST);
    run_elem(&e, DV_OP_VSUB, DV_DT_S32, 2, DENSE, SRC0, SRC1, DST);
    e.vec.mask_lo = 1000; /* more than a repeat: every lane */
    run_elem(&e, DV_OP_VMAX, DV_DT_F32, 2, DENSE, SRC0, SRC1, DST);
    e.vec.mask_lo = 0; /* nothing */
    run_elem(&e, DV_OP_VMAX, DV_DT_F16, 2, DENSE, SRC0, SRC1, DST);
    vt_free(&e);
}
END_TEST

START_TEST(strides_and_long_repeat)
{
    vt_env e;
    vt_init(&e);
    /* Block stride 0 (all 8 blocks are one block: the last lane of a block
     * wins in dst) is not checkable lane by lane for dst, so only sources
     * use 0; dst uses a stride above 8. */
    strides s = {9, 0, 10, 80, 8, 90};
    run_elem(&e, DV_OP_VADD, DV_DT_F16, 3, s, SRC0, SRC1, DST);
    strides s2 = {1, 3, 1, 8, 0, 20}; /* src0 repeat stride 0: every repeat re-reads the same blocks */
    run_elem(&e, DV_OP_VMUL, DV_DT_F32, 4, s2, SRC0, SRC1, DST);
    /* 255 contiguous f16 repeats: 65280 bytes per operand, all three in 192 KiB. */
    run_elem(&e, DV_OP_VADD, DV_DT_F16, 255, DENSE, 0, 65536, 131072);
    vt_free(&e);
}
END_TEST

START_TEST(vdup_bits)
{
    vt_env e;
    vt_init(&e);
    memset(vt_ub(&e, DST), SENT, 1024);
    e.vec.mask_lo = 0xffff0000ffff0000ull;
    dv_op op = vt_op(DV_OP_VDUP, DV_DT_F16, DST, 0xffff3c00ull, vt_vrep_dense(2), 0, 0);
    ck_assert(dv_vector_exec(&e.c, &op));
    for (unsigned r = 0; r < 2; r++)
        for (unsigned i = 0; i < 128; i++)
            ck_assert_uint_eq(vt_ld(&e, DST + r * 256 + i * 2, 2), lane_active(&e, i) ? 0x3c00u : 0xa5a5u);
    op = vt_op(DV_OP_VDUP, DV_DT_S32, DST, 0x12345678deadbeefull, vt_vrep_dense(1), 0, 0);
    ck_assert(dv_vector_exec(&e.c, &op));
    ck_assert_uint_eq(vt_ld(&e, DST + 16 * 4, 4), 0xdeadbeefu);
    vt_free(&e);
}
END_TEST

START_TEST(reductions)
{
    vt_env e;
    vt_init(&e);
    e.vec.mask_lo = 0xfff0ffffffffffffull;
    e.vec.mask_hi = 0x00000000ffff00ffull; /* 16-bit: block 4 (lanes 64-79) has 8 lanes, block 7 none */
    for (unsigned i = 0; i < 3 * 128; i++)
        vt_st(&e, SRC0 + i * 2, 2, vt_rand_f16(&e));
    static const dv_opcode ops[] = {DV_OP_VCADD,  DV_OP_VCMAX,  DV_OP_VCMIN,
                                    DV_OP_VCGADD, DV_OP_VCGMAX, DV_OP_VCGMIN};
    for (size_t o = 0; o < 6; o++) {
        bool group = o >= 3;
        memset(vt_ub(&e, DST), SENT, 256);
        dv_op op = vt_op(ops[o], DV_DT_F16, DST, SRC0, vt_vrep_dense(3), 0, 0);
        ck_assert(dv_vector_exec(&e.c, &op));
        for (unsigned r = 0; r < 3; r++)
            for (unsigned g = 0; g < (group ? 8u : 1u); g++) {
                float acc = 0;
                bool any = false;
                for (unsigned i = group ? g * 16 : 0; i < (group ? g * 16 + 16 : 128); i++) {
                    if (!lane_active(&e, i))
                        continue;
                    float v = dv_fp16_to_f32((uint16_t)vt_ld(&e, SRC0 + r * 256 + i * 2, 2));
                    if (!any)
                        acc = v;
                    else if (ops[o] == DV_OP_VCADD || ops[o] == DV_OP_VCGADD)
                        acc += v;
                    else if (ops[o] == DV_OP_VCMAX || ops[o] == DV_OP_VCGMAX)
                        acc = v > acc ? v : acc;
                    else
                        acc = v < acc ? v : acc;
                    any = true;
                }
                unsigned idx = group ? r * 8 + g : r;
                uint32_t want = any ? dv_f32_to_fp16(acc) : 0xa5a5u;
                ck_assert_msg(vt_ld(&e, DST + idx * 2, 2) == want, "op %zu r %u g %u", o, r, g);
            }
    }
    /* s32 sum and max over 64 lanes, counter mode. */
    e.vec.mode = DV_MASK_COUNT_MODE;
    e.vec.mask_lo = 10;
    for (unsigned i = 0; i < 64; i++)
        vt_st(&e, SRC0 + i * 4, 4, (uint32_t)(int32_t)(i * 100000000u % 7 - 3) * 0x30000000u);
    dv_op op = vt_op(DV_OP_VCADD, DV_DT_S32, DST, SRC0, vt_vrep_dense(1), 0, 0);
    ck_assert(dv_vector_exec(&e.c, &op));
    uint32_t sum = 0;
    int32_t mx = INT32_MIN;
    for (unsigned i = 0; i < 10; i++) {
        uint32_t v = vt_ld(&e, SRC0 + i * 4, 4);
        sum += v;
        mx = (int32_t)v > mx ? (int32_t)v : mx;
    }
    ck_assert_uint_eq(vt_ld(&e, DST, 4), sum);
    op_insn(&op)->op = DV_OP_VCMAX;
    ck_assert(dv_vector_exec(&e.c, &op));
    ck_assert_int_eq((int32_t)vt_ld(&e, DST, 4), mx);
    vt_free(&e);
}
END_TEST

START_TEST(compare_and_select)
{
    vt_env e;
    vt_init(&e);
    e.vec.mask_lo = 0xffffffff0000ffffull;
    e.vec.mask_hi = 0x0f0f0f0f0f0f0f0full;
    for (unsigned i = 0; i < 2 * 128; i++) {
        vt_st(&e, SRC0 + i * 2, 2, vt_rand_f16(&e));
        /* every 5th lane equal, so eq/le/ge see ties */
        vt_st(&e, SRC1 + i * 2, 2, i % 5 ? vt_rand_f16(&e) : vt_ld(&e, SRC0 + i * 2, 2));
    }
    for (unsigned cmp = 0; cmp < DV_CMP_COUNT; cmp++) {
        memset(vt_ub(&e, DST), SENT, 64);
        dv_op op = vt_op(DV_OP_VCMP, DV_DT_F16, DST, SRC0, SRC1, vt_vrep_dense(2), 0);
        op_insn(&op)->f[DV_F_CMP] = cmp;
        ck_assert(dv_vector_exec(&e.c, &op));
        for (unsigned r = 0; r < 2; r++)
            for (unsigned i = 0; i < 128; i++) {
                float a = dv_fp16_to_f32((uint16_t)vt_ld(&e, SRC0 + (r * 128 + i) * 2, 2));
                float b = dv_fp16_to_f32((uint16_t)vt_ld(&e, SRC1 + (r * 128 + i) * 2, 2));
                bool want = cmp == DV_CMP_LT   ? a < b
                            : cmp == DV_CMP_GT ? a > b
                            : cmp == DV_CMP_LE ? a <= b
                            : cmp == DV_CMP_GE ? a >= b
                            : cmp == DV_CMP_EQ ? a == b
                                               : a != b;
                want = want && lane_active(&e, i);
                bool got = (*vt_ub(&e, DST + r * 16 + i / 8) >> (i % 8)) & 1;
                ck_assert_msg(got == want, "cmp %u r %u lane %u", cmp, r, i);
            }
        ck_assert_uint_eq(*vt_ub(&e, DST + 32), SENT); /* nothing past 2 repeats x 16 bytes */
    }
    /* vsel with the lt bits: dst = a < b ? a : b = min where active. */
    dv_op op = vt_op(DV_OP_VCMP, DV_DT_F16, 0x18000, SRC0, SRC1, vt_vrep_dense(2), 0);
    op_insn(&op)->f[DV_F_CMP] = DV_CMP_LT;
    ck_assert(dv_vector_exec(&e.c, &op));
    memset(vt_ub(&e, DST), SENT, 512);
    op = vt_op(DV_OP_VSEL, DV_DT_F16, DST, SRC0, SRC1, vt_vrep_dense(2), 0x18000);
    ck_assert(dv_vector_exec(&e.c, &op));
    for (unsigned i = 0; i < 256; i++) {
        uint32_t a = vt_ld(&e, SRC0 + i * 2, 2), b = vt_ld(&e, SRC1 + i * 2, 2);
        uint32_t want = !lane_active(&e, i % 128)                                   ? 0xa5a5u
                        : dv_fp16_to_f32((uint16_t)a) < dv_fp16_to_f32((uint16_t)b) ? a
                                                                                    : b;
        ck_assert_uint_eq(vt_ld(&e, DST + i * 2, 2), want);
    }
    /* s32 compare: 8 bytes per repeat. */
    e.vec.mask_lo = ~0ull;
    for (unsigned i = 0; i < 64; i++) {
        vt_st(&e, SRC0 + i * 4, 4, (uint32_t)((int)i - 32));
        vt_st(&e, SRC1 + i * 4, 4, 0);
    }
    op = vt_op(DV_OP_VCMP, DV_DT_S32, DST, SRC0, SRC1, vt_vrep_dense(1), 0);
    op_insn(&op)->f[DV_F_CMP] = DV_CMP_LT;
    ck_assert(dv_vector_exec(&e.c, &op));
    ck_assert_uint_eq(vt_ld(&e, DST, 4), 0xffffffffu);
    ck_assert_uint_eq(vt_ld(&e, DST + 4, 4), 0u);
    vt_free(&e);
}
END_TEST

START_TEST(transpose)
{
    vt_env e;
    vt_init(&e);
    for (unsigned i = 0; i < 256; i++)
        vt_st(&e, SRC0 + i * 2, 2, i * 3 + 1);
    dv_op op = vt_op(DV_OP_VTRANS, DV_DT_F16, DST, SRC0, 0, 0, 0);
    e.vec.mask_lo = 0; /* the mask does not apply */
    ck_assert(dv_vector_exec(&e.c, &op));
    for (unsigned r = 0; r < 16; r++)
        for (unsigned c = 0; c < 16; c++)
            ck_assert_uint_eq(vt_ld(&e, DST + (c * 16 + r) * 2, 2), (r * 16 + c) * 3 + 1);
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F32;
    ck_assert(!dv_vector_exec(&e.c, &op));
    ck_assert(e.c.fault_msg[0] != '\0');
    ck_assert_int_eq(e.c.fault.kind, DV_FAULT_NONE);
    vt_free(&e);
}
END_TEST

START_TEST(faults)
{
    vt_env e;
    vt_init(&e);
    dv_op op = vt_op(DV_OP_VADD, DV_DT_F16, DST, 16, SRC1, vt_vrep_dense(1), 0);
    ck_assert(!dv_vector_exec(&e.c, &op));
    ck_assert_int_eq(e.c.fault.kind, DV_FAULT_ALIGN);
    /* dst's last repeat runs past the end of UB (192 KiB). */
    op = vt_op(DV_OP_VADD, DV_DT_F16, 196608 - 512, SRC0, SRC1, vt_vrep_dense(3), 0);
    ck_assert(!dv_vector_exec(&e.c, &op));
    ck_assert_int_eq(e.c.fault.kind, DV_FAULT_RANGE);
    /* ...but not when the mask leaves the blocks past the end untouched. */
    e.vec.mode = DV_MASK_COUNT_MODE;
    e.vec.mask_lo = 16;
    op = vt_op(DV_OP_VADD, DV_DT_F16, 196608 - 32, SRC0, SRC1, vt_vrep_dense(1), 0);
    ck_assert(dv_vector_exec(&e.c, &op));
    e.vec.mode = DV_MASK_NORM;
    /* A huge base address must not wrap around into UB. */
    op = vt_op(DV_OP_VADD, DV_DT_F16, DST, ~0ull - 31, SRC1, vt_vrep(2, 1, 1, 1, 8, 8, 8), 0);
    ck_assert(!dv_vector_exec(&e.c, &op));
    ck_assert_int_eq(e.c.fault.kind, DV_FAULT_RANGE);
    /* Repeat above the configured maximum. */
    e.cfg.vec_max_repeat = 100;
    op = vt_op(DV_OP_VADD, DV_DT_F16, DST, SRC0, SRC1, vt_vrep_dense(101), 0);
    ck_assert(!dv_vector_exec(&e.c, &op));
    ck_assert_int_eq(e.c.fault.kind, DV_FAULT_NONE);
    ck_assert_ptr_nonnull(strstr(e.c.fault_msg, "repeat"));
    /* Unsupported dtypes. */
    op = vt_op(DV_OP_VEXP, DV_DT_S32, DST, SRC0, vt_vrep_dense(1), 0, 0);
    ck_assert(!dv_vector_exec(&e.c, &op));
    ck_assert(e.c.fault_msg[0] != '\0');
    op = vt_op(DV_OP_VADD, DV_DT_U8, DST, SRC0, SRC1, vt_vrep_dense(1), 0);
    ck_assert(!dv_vector_exec(&e.c, &op));
    op = vt_op(DV_OP_VCMP, DV_DT_F16, DST, SRC0, SRC1, vt_vrep_dense(1), 0);
    op_insn(&op)->f[DV_F_CMP] = DV_CMP_COUNT;
    ck_assert(!dv_vector_exec(&e.c, &op));
    ck_assert_int_eq(e.c.fault.kind, DV_FAULT_NONE);
    vt_free(&e);
}
END_TEST

START_TEST(timing_only_and_mask_ops)
{
    vt_env e;
    vt_init(&e);
    e.c.data = false;
    memset(vt_ub(&e, DST), SENT, 256);
    dv_op op = vt_op(DV_OP_VADD, DV_DT_F16, DST, SRC0, SRC1, vt_vrep_dense(1), 0);
    ck_assert(dv_vector_exec(&e.c, &op));
    ck_assert_uint_eq(*vt_ub(&e, DST), SENT);
    op.r[1] = 8; /* still checked */
    ck_assert(!dv_vector_exec(&e.c, &op));
    ck_assert_int_eq(e.c.fault.kind, DV_FAULT_ALIGN);
    op = vt_op(DV_OP_SET_MASK, DV_DT_F16, 0x1234, 0x5678, 0, 0, 0);
    ck_assert(dv_vector_exec(&e.c, &op));
    ck_assert_uint_eq(e.vec.mask_hi, 0x1234);
    ck_assert_uint_eq(e.vec.mask_lo, 0x5678);
    op = vt_op(DV_OP_SET_MASK_MODE, DV_DT_F16, 0, 0, 0, 0, 0);
    op_insn(&op)->f[DV_F_MASKMODE] = DV_MASK_COUNT_MODE;
    ck_assert(dv_vector_exec(&e.c, &op));
    ck_assert_int_eq(e.vec.mode, DV_MASK_COUNT_MODE);
    vt_free(&e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("vector");
    TCase *tc = tcase_create("exec");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, binary_all_types);
    tcase_add_test(tc, scalar_and_unary);
    tcase_add_test(tc, masks);
    tcase_add_test(tc, strides_and_long_repeat);
    tcase_add_test(tc, vdup_bits);
    tcase_add_test(tc, reductions);
    tcase_add_test(tc, compare_and_select);
    tcase_add_test(tc, transpose);
    tcase_add_test(tc, faults);
    tcase_add_test(tc, timing_only_and_mask_ops);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, vt_conv_tcase());
    suite_add_tcase(s, vt_timing_tcase());
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
