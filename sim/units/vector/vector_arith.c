/* vector_arith.c - element-wise Vector ops: binary, with a scalar, unary,
 * vdup, vcmp and vsel.  One lane loop for every dtype: elements are loaded
 * as raw bits and viewed as float or 64-bit integer by type, so no op is
 * written once per dtype.  Semantics: see vector.c. */
#include "vec_priv.h"

#include <math.h>
#include <string.h>

static float float_op(dv_opcode op, float a, float b)
{
    switch (op) {
    case DV_OP_VADD:
    case DV_OP_VADDS: return a + b;
    case DV_OP_VSUB: return a - b;
    case DV_OP_VMUL:
    case DV_OP_VMULS: return a * b;
    case DV_OP_VDIV: return a / b;
    case DV_OP_VMAX:
    case DV_OP_VMAXS: return fmaxf(a, b);
    case DV_OP_VMIN:
    case DV_OP_VMINS: return fminf(a, b);
    case DV_OP_VEXP: return expf(a);
    case DV_OP_VLN: return logf(a);
    case DV_OP_VABS: return fabsf(a);
    case DV_OP_VSQRT: return sqrtf(a);
    case DV_OP_VRSQRT: return 1.0f / sqrtf(a);
    case DV_OP_VREC: return 1.0f / a;
    case DV_OP_VRELU:
        /* max(src, 0): NaN stays NaN, -0 becomes +0 like fmaxf(x, 0) */
        return fmaxf(a, 0.0f);
    default: return a;
    }
}

/* Operands are s16/s32 values; the caller truncates the result (wraparound). */
static int64_t int_op(dv_opcode op, int64_t a, int64_t b)
{
    switch (op) {
    case DV_OP_VADD:
    case DV_OP_VADDS: return a + b;
    case DV_OP_VSUB: return a - b;
    case DV_OP_VMUL:
    case DV_OP_VMULS: return a * b;
    case DV_OP_VDIV: return b == 0 ? 0 : a / b; /* no trap: integer division by zero gives 0 */
    case DV_OP_VMAX:
    case DV_OP_VMAXS: return a > b ? a : b;
    case DV_OP_VMIN:
    case DV_OP_VMINS: return a < b ? a : b;
    case DV_OP_VABS: return a < 0 ? -a : a;
    case DV_OP_VRELU: return a > 0 ? a : 0;
    default: return a;
    }
}

/* Result bits of one lane of an element-wise op. */
static uint32_t lane_op(dv_opcode op, dv_dtype dt, uint32_t a, uint32_t b)
{
    switch (op) {
    case DV_OP_VAND: return a & b;
    case DV_OP_VOR: return a | b;
    case DV_OP_VNOT: return ~a;
    case DV_OP_VCOPY:
    case DV_OP_VDUP: return a;
    default: break;
    }
    if (vec_is_float(dt))
        return vec_f_to_bits(float_op(op, vec_bits_to_f(a, dt), vec_bits_to_f(b, dt)), dt);
    return (uint32_t)(uint64_t)int_op(op, vec_bits_to_i(a, dt), vec_bits_to_i(b, dt));
}

static bool compare(dv_cmp cmp, dv_dtype dt, uint32_t a, uint32_t b)
{
    if (vec_is_float(dt)) {
        float x = vec_bits_to_f(a, dt), y = vec_bits_to_f(b, dt);
        switch (cmp) {
        case DV_CMP_LT: return x < y;
        case DV_CMP_GT: return x > y;
        case DV_CMP_LE: return x <= y;
        case DV_CMP_GE: return x >= y;
        case DV_CMP_EQ: return x == y;
        default: return x != y;
        }
    }
    int64_t x = vec_bits_to_i(a, dt), y = vec_bits_to_i(b, dt);
    switch (cmp) {
    case DV_CMP_LT: return x < y;
    case DV_CMP_GT: return x > y;
    case DV_CMP_LE: return x <= y;
    case DV_CMP_GE: return x >= y;
    case DV_CMP_EQ: return x == y;
    default: return x != y;
    }
}

static void exec_cmp(dv_unit_ctx *c, const dv_op *op, const vec_desc *d)
{
    unsigned size = d->esize;
    dv_cmp cmp = (dv_cmp)op->insn->f[DV_F_CMP];
    for (unsigned r = 0; r < d->repeats; r++) {
        uint8_t bits[VEC_MAX_LANES / 8] = {0};
        for (unsigned i = 0; i < d->lanes; i++) {
            if (!d->active[i])
                continue;
            uint32_t a = vec_ld_bits(vec_ub(c, vec_lane_addr(&d->src0, r, i)), size);
            uint32_t b = vec_ld_bits(vec_ub(c, vec_lane_addr(&d->src1, r, i)), size);
            if (compare(cmp, d->dt, a, b))
                bits[i / 8] |= (uint8_t)(1u << (i % 8));
        }
        memcpy(vec_ub(c, d->xdst.base + d->xdst.step * r), bits, d->xdst.step);
    }
}

/* ---- the fast path: float ops with every lane active ----
 * A repeat's blocks are converted to floats once (fp16 through the shared
 * table), the op runs as one loop over the lanes with the switch outside it,
 * and the results are rounded back: the same float operations and roundings
 * as lane_op, without per-lane dispatch or address arithmetic. */
static bool fast_op(dv_opcode op)
{
    switch (op) {
    case DV_OP_VADD:
    case DV_OP_VSUB:
    case DV_OP_VMUL:
    case DV_OP_VDIV:
    case DV_OP_VMAX:
    case DV_OP_VMIN:
    case DV_OP_VADDS:
    case DV_OP_VMULS:
    case DV_OP_VMAXS:
    case DV_OP_VMINS:
    case DV_OP_VEXP:
    case DV_OP_VLN:
    case DV_OP_VABS:
    case DV_OP_VSQRT:
    case DV_OP_VRSQRT:
    case DV_OP_VREC:
    case DV_OP_VRELU: return true;
    default: return false;
    }
}

static void load_floats(dv_unit_ctx *c, const vec_opnd *o, unsigned r, unsigned nblk, dv_dtype dt, float *out)
{
    const float *f16 = dv_fp16_table();
    for (unsigned b = 0; b < nblk; b++) {
        const uint8_t *p = vec_ub(c, o->base + ((uint64_t)r * o->rep + (uint64_t)b * o->blk) * VEC_BLOCK);
        float *f = out + b * (VEC_BLOCK / o->esize);
        if (dt == DV_DT_F32) {
            memcpy(f, p, VEC_BLOCK); /* little-endian host */
            continue;
        }
        for (unsigned e = 0; e < VEC_BLOCK / 2; e++) {
            uint16_t h = (uint16_t)(p[2 * e] | p[2 * e + 1] << 8);
            f[e] = dt == DV_DT_F16 ? f16[h] : dv_f32_from_bits((uint32_t)h << 16);
        }
    }
}

static void store_floats(dv_unit_ctx *c, const vec_opnd *o, unsigned r, unsigned nblk, dv_dtype dt,
                         const float *in)
{
    for (unsigned b = 0; b < nblk; b++) {
        uint8_t *p = vec_ub(c, o->base + ((uint64_t)r * o->rep + (uint64_t)b * o->blk) * VEC_BLOCK);
        const float *f = in + b * (VEC_BLOCK / o->esize);
        if (dt == DV_DT_F32) {
            memcpy(p, f, VEC_BLOCK);
            continue;
        }
        for (unsigned e = 0; e < VEC_BLOCK / 2; e++) {
            uint16_t h = (uint16_t)vec_f_to_bits(f[e], dt); /* what lane_op stores */
            p[2 * e] = (uint8_t)h;
            p[2 * e + 1] = (uint8_t)(h >> 8);
        }
    }
}

static bool exec_fast_float(dv_unit_ctx *c, const vec_desc *d, uint32_t scalar)
{
    if ((d->dt != DV_DT_F16 && d->dt != DV_DT_BF16 && d->dt != DV_DT_F32) || d->nactive != d->lanes ||
        d->xsrc.used || !fast_op(d->op) || !d->src0.used || !d->dst.used)
        return false;
    unsigned nblk = d->lanes / (VEC_BLOCK / d->esize), n = d->lanes;
    float a[VEC_MAX_LANES], b[VEC_MAX_LANES], o[VEC_MAX_LANES];
    float sv = vec_bits_to_f(scalar, d->dt);
    for (unsigned i = 0; i < n; i++)
        b[i] = sv;
    for (unsigned r = 0; r < d->repeats; r++) {
        load_floats(c, &d->src0, r, nblk, d->dt, a);
        if (d->src1.used)
            load_floats(c, &d->src1, r, nblk, d->dt, b);
        switch (d->op) {
        case DV_OP_VADD:
        case DV_OP_VADDS:
            for (unsigned i = 0; i < n; i++)
                o[i] = a[i] + b[i];
            break;
        case DV_OP_VSUB:
            for (unsigned i = 0; i < n; i++)
                o[i] = a[i] - b[i];
            break;
        case DV_OP_VMUL:
        case DV_OP_VMULS:
            for (unsigned i = 0; i < n; i++)
                o[i] = a[i] * b[i];
            break;
        case DV_OP_VDIV:
            for (unsigned i = 0; i < n; i++)
                o[i] = a[i] / b[i];
            break;
        case DV_OP_VMAX:
        case DV_OP_VMAXS:
            for (unsigned i = 0; i < n; i++)
                o[i] = fmaxf(a[i], b[i]);
            break;
        case DV_OP_VMIN:
        case DV_OP_VMINS:
            for (unsigned i = 0; i < n; i++)
                o[i] = fminf(a[i], b[i]);
            break;
        case DV_OP_VEXP:
            for (unsigned i = 0; i < n; i++)
                o[i] = expf(a[i]);
            break;
        default: /* the rarer ones (ln, abs, sqrt, rsqrt, rec, relu) through float_op */
            for (unsigned i = 0; i < n; i++)
                o[i] = float_op(d->op, a[i], b[i]);
            break;
        }
        store_floats(c, &d->dst, r, nblk, d->dt, o);
    }
    return true;
}

void vec_exec_arith(dv_unit_ctx *c, const dv_op *op, const vec_desc *d)
{
    if (d->op == DV_OP_VCMP) {
        exec_cmp(c, op, d);
        return;
    }
    unsigned size = d->esize;
    uint32_t smask = size == 4 ? 0xffffffffu : 0xffffu;
    bool has_scalar =
        d->op == DV_OP_VADDS || d->op == DV_OP_VMULS || d->op == DV_OP_VMAXS || d->op == DV_OP_VMINS;
    uint32_t scalar = 0;
    if (has_scalar)
        scalar = (uint32_t)op->r[2] & smask;
    else if (d->op == DV_OP_VDUP)
        scalar = (uint32_t)op->r[1] & smask;
    if (exec_fast_float(c, d, scalar))
        return;

    /* A repeat reads all its lanes before it writes any, as the hardware's
     * pipeline does, so an in-place op with different strides is still
     * defined. */
    uint32_t va[VEC_MAX_LANES], vb[VEC_MAX_LANES];
    for (unsigned r = 0; r < d->repeats; r++) {
        const uint8_t *sel = d->xsrc.used ? vec_ub(c, d->xsrc.base + d->xsrc.step * r) : NULL;
        for (unsigned i = 0; i < d->lanes; i++) {
            va[i] = vb[i] = scalar;
            if (!d->active[i])
                continue;
            if (d->src0.used)
                va[i] = vec_ld_bits(vec_ub(c, vec_lane_addr(&d->src0, r, i)), size);
            if (d->src1.used)
                vb[i] = vec_ld_bits(vec_ub(c, vec_lane_addr(&d->src1, r, i)), size);
        }
        for (unsigned i = 0; i < d->lanes; i++) {
            if (!d->active[i])
                continue;
            uint32_t v;
            if (sel)
                v = (sel[i / 8] >> (i % 8)) & 1 ? va[i] : vb[i];
            else
                v = lane_op(d->op, d->dt, va[i], vb[i]);
            vec_st_bits(vec_ub(c, vec_lane_addr(&d->dst, r, i)), size, v);
        }
    }
}
