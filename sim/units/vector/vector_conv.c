/* vector_conv.c - vconv, vdeq and vquant, and the rounding they share.
 *
 * Every source value (f32, f16, bf16, s32, s16, s8, u8) is exact in a
 * double, so a conversion is one rounding of an exact value: to an integer
 * with the requested mode and saturation, or to a float format by finding
 * the two representable neighbours of the value and picking one by mode.
 * Semantics: see vector.c. */
#include "vec_priv.h"

#include <math.h>
#include <string.h>

double vec_round_int(double x, dv_round rnd)
{
    if (!isfinite(x))
        return x;
    double f = floor(x);
    if (f == x)
        return x;
    double diff = x - f; /* exact: |x| < 2^52 here, else x would be integral */
    switch (rnd) {
    case DV_RND_RZ: return trunc(x);
    case DV_RND_RD: return f;
    case DV_RND_RU: return f + 1;
    case DV_RND_RNA: return diff < 0.5 ? f : diff > 0.5 ? f + 1 : (x > 0 ? f + 1 : f);
    case DV_RND_ODD: return fmod(f, 2.0) != 0 ? f : f + 1;
    default: /* RNE */
        if (diff != 0.5)
            return diff < 0.5 ? f : f + 1;
        return fmod(f, 2.0) == 0 ? f : f + 1;
    }
}

/* ---- float targets: raw bits, ordered by magnitude within each sign ---- */

static unsigned fbits_width(dv_dtype dt)
{
    return dt == DV_DT_F32 ? 32 : 16;
}

static uint32_t fbits_inf(dv_dtype dt)
{
    return dt == DV_DT_F32 ? 0x7f800000u : dt == DV_DT_BF16 ? 0x7f80u : 0x7c00u;
}

static double fbits_value(uint32_t b, dv_dtype dt)
{
    return (double)vec_bits_to_f(b, dt);
}

static uint32_t fbits_rne(double x, dv_dtype dt)
{
    switch (dt) {
    case DV_DT_F16: return dv_f64_to_fp16(x);
    case DV_DT_BF16: return dv_f64_to_bf16(x);
    default: return dv_f32_bits((float)x); /* the host's default rounding is nearest even */
    }
}

/* The next representable value toward +infinity (not called on NaN). */
static uint32_t fbits_next_up(uint32_t b, dv_dtype dt)
{
    uint32_t sign = 1u << (fbits_width(dt) - 1);
    if ((b & ~sign) == 0)
        return 1; /* +-0 -> smallest positive subnormal */
    if (b & sign)
        return b - 1; /* negative: one step smaller magnitude (-inf -> -max) */
    return b == fbits_inf(dt) ? b : b + 1;
}

static uint32_t fbits_next_down(uint32_t b, dv_dtype dt)
{
    uint32_t sign = 1u << (fbits_width(dt) - 1);
    return fbits_next_up(b ^ sign, dt) ^ sign;
}

static uint32_t to_float(double x, dv_dtype to, dv_round rnd)
{
    uint32_t c = fbits_rne(x, to);
    double cv = fbits_value(c, to);
    if (rnd == DV_RND_RNE || isnan(x) || cv == x)
        return c;
    uint32_t lo, hi;
    if (cv < x) {
        lo = c;
        hi = fbits_next_up(c, to);
    } else {
        hi = c;
        lo = fbits_next_down(c, to);
    }
    double lv = fbits_value(lo, to), hv = fbits_value(hi, to);
    switch (rnd) {
    case DV_RND_RZ: return x > 0 ? lo : hi;
    case DV_RND_RD: return lo;
    case DV_RND_RU: return hi;
    case DV_RND_RNA:
        /* Differs from nearest-even only on an exact tie; otherwise trust
         * the RNE result, which already handles overflow to infinity. */
        if (x - lv != hv - x)
            return c;
        return x > 0 ? hi : lo;
    default: /* ODD: the neighbour whose last significand bit is 1 */ return (lo & 1) ? lo : hi;
    }
}

static void int_range(dv_dtype dt, double *lo, double *hi)
{
    switch (dt) {
    case DV_DT_S32:
        *lo = -2147483648.0;
        *hi = 2147483647.0;
        break;
    case DV_DT_S16:
        *lo = -32768.0;
        *hi = 32767.0;
        break;
    case DV_DT_S8:
        *lo = -128.0;
        *hi = 127.0;
        break;
    case DV_DT_U8:
        *lo = 0.0;
        *hi = 255.0;
        break;
    case DV_DT_U16:
        *lo = 0.0;
        *hi = 65535.0;
        break;
    default:
        *lo = 0.0;
        *hi = 4294967295.0;
        break;
    }
}

static uint32_t to_int_sat(double y, dv_dtype to)
{
    double lo, hi;
    int_range(to, &lo, &hi);
    if (isnan(y))
        y = 0;
    y = y < lo ? lo : y > hi ? hi : y;
    return (uint32_t)(uint64_t)(int64_t)y;
}

uint32_t vec_convert(double x, dv_dtype to, dv_round rnd)
{
    if (vec_is_float(to))
        return to_float(x, to, rnd);
    return to_int_sat(vec_round_int(x, rnd), to);
}

/* The fast path of vconv between f16/bf16 and f32 with every lane active:
 * widening is exact, narrowing with rne is dv_f32_to_fp16 / _bf16 (one
 * rounding of the exact value, as vec_convert does). */
static bool exec_fast_conv(dv_unit_ctx *c, const vec_desc *d)
{
    bool widen = (d->from == DV_DT_F16 || d->from == DV_DT_BF16) && d->to == DV_DT_F32;
    bool narrow =
        d->from == DV_DT_F32 && (d->to == DV_DT_F16 || d->to == DV_DT_BF16) && d->round == DV_RND_RNE;
    if (d->op != DV_OP_VCONV || (!widen && !narrow) || d->nactive != d->lanes)
        return false;
    const float *f16 = dv_fp16_table();
    float val[VEC_MAX_LANES];
    unsigned per_src = VEC_BLOCK / d->src0.esize, per_dst = VEC_BLOCK / d->dst.esize;
    for (unsigned r = 0; r < d->repeats; r++) {
        for (unsigned b = 0; b < d->lanes / per_src; b++) {
            const uint8_t *p =
                vec_ub(c, d->src0.base + ((uint64_t)r * d->src0.rep + (uint64_t)b * d->src0.blk) * VEC_BLOCK);
            float *f = val + b * per_src;
            if (narrow) {
                memcpy(f, p, VEC_BLOCK); /* little-endian host */
                continue;
            }
            for (unsigned e = 0; e < per_src; e++) {
                uint16_t h = (uint16_t)(p[2 * e] | p[2 * e + 1] << 8);
                f[e] = d->from == DV_DT_F16 ? f16[h] : dv_f32_from_bits((uint32_t)h << 16);
            }
        }
        for (unsigned b = 0; b < d->lanes / per_dst; b++) {
            uint8_t *p =
                vec_ub(c, d->dst.base + ((uint64_t)r * d->dst.rep + (uint64_t)b * d->dst.blk) * VEC_BLOCK);
            const float *f = val + b * per_dst;
            if (widen) {
                memcpy(p, f, VEC_BLOCK);
                continue;
            }
            for (unsigned e = 0; e < per_dst; e++) {
                uint16_t h = isnan(f[e])
                                 ? (uint16_t)vec_convert(f[e], d->to, DV_RND_RNE) /* NaN: as the slow path */
                             : d->to == DV_DT_F16 ? dv_f32_to_fp16(f[e])
                                                  : dv_f32_to_bf16(f[e]);
                p[2 * e] = (uint8_t)h;
                p[2 * e + 1] = (uint8_t)(h >> 8);
            }
        }
    }
    return true;
}

void vec_exec_conv(dv_unit_ctx *c, const dv_op *op, const vec_desc *d)
{
    if (exec_fast_conv(c, d))
        return;
    unsigned sf = dv_dtype_size(d->from), st = dv_dtype_size(d->to);
    float scale = dv_f32_from_bits((uint32_t)op->r[2]);
    int64_t offset = (int32_t)(uint32_t)(op->r[2] >> 32);
    double val[VEC_MAX_LANES];
    for (unsigned r = 0; r < d->repeats; r++) {
        /* Read the whole repeat first: an in-place narrowing conversion
         * would otherwise overwrite lanes it has not read yet. */
        for (unsigned i = 0; i < d->lanes; i++) {
            if (!d->active[i])
                continue;
            uint32_t b = vec_ld_bits(vec_ub(c, vec_lane_addr(&d->src0, r, i)), sf);
            val[i] =
                vec_is_float(d->from) ? (double)vec_bits_to_f(b, d->from) : (double)vec_bits_to_i(b, d->from);
        }
        for (unsigned i = 0; i < d->lanes; i++) {
            if (!d->active[i])
                continue;
            uint32_t out;
            if (d->op == DV_OP_VDEQ) {
                out = vec_convert((double)((float)val[i] * scale), d->to, d->round);
            } else if (d->op == DV_OP_VQUANT) {
                double y = (double)((float)val[i] * scale);
                y = isnan(y) ? 0 : vec_round_int(y, d->round) + (double)offset;
                out = to_int_sat(y, d->to);
            } else {
                out = vec_convert(val[i], d->to, d->round);
            }
            vec_st_bits(vec_ub(c, vec_lane_addr(&d->dst, r, i)), st, out);
        }
    }
}
