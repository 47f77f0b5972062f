/* outconv.c - the conversions applied to L0C data on its way out, shared
 * by fixp (FixPipe, split chips) and copy_l0c_ub (coupled chips).
 *
 * Source element: 4 bytes of L0C, read as f32 for quant none/f16/bf16 and
 * as s32 for deq/vdeq/req/vreq (the accumulator type of the mmad that
 * produced it).
 *   none  -> f32 (4 B), unchanged (ReLU aside)
 *   f16   -> f16 (2 B), round to nearest even
 *   bf16  -> bf16 (2 B), round to nearest even
 *   deq   -> f16: s32 * scale, scale = f32 bits in the low 32 bits of q
 *   vdeq  -> f16: as deq with the scale of the channel's 8-byte table entry
 *            (f32 scale in its low 4 bytes, high 4 bytes ignored)
 *   req   -> s8: saturate(round_nearest_even(s32 * scale) + offset),
 *            q = f32 scale bits | (s32 offset << 32)
 *   vreq  -> s8: as req with the channel's table entry (same 8-byte form)
 * relu: negative values become 0 before the final rounding (for req, before
 * the offset is added).
 * The products s32 * scale are formed in double: exact while |s32| < 2^29
 * (31 + 24 bits would need 55), otherwise within 2^-53 relative, far below
 * the f16/s8 output's resolution; the result is then rounded once. */
#include "dv_fp.h"
#include "dv_simd.h"
#include "xfer.h"

#include <math.h>
#ifdef DV_X86_PATHS
#include <immintrin.h>
#endif

unsigned xf_out_size(dv_quant quant)
{
    switch (quant) {
    case DV_Q_NONE: return 4;
    case DV_Q_F16:
    case DV_Q_BF16:
    case DV_Q_DEQ:
    case DV_Q_VDEQ: return 2;
    case DV_Q_REQ:
    case DV_Q_VREQ: return 1;
    default: return 0;
    }
}

void xf_convert(const xf_conv *cv, const uint8_t *src, uint64_t channel, uint8_t *dst)
{
    uint32_t raw = xf_ld32(src);
    uint64_t q = cv->q;
    if (cv->quant == DV_Q_VDEQ || cv->quant == DV_Q_VREQ) {
        const uint8_t *e = cv->table + channel * 8;
        q = (uint64_t)xf_ld32(e) | (uint64_t)xf_ld32(e + 4) << 32;
    }
    switch (cv->quant) {
    case DV_Q_NONE:
    case DV_Q_F16:
    case DV_Q_BF16: {
        float f = dv_f32_from_bits(raw);
        if (cv->relu && f < 0.0f)
            f = 0.0f;
        if (cv->quant == DV_Q_NONE)
            xf_st32(dst, dv_f32_bits(f));
        else
            xf_st16(dst, cv->quant == DV_Q_F16 ? dv_f32_to_fp16(f) : dv_f32_to_bf16(f));
        break;
    }
    case DV_Q_DEQ:
    case DV_Q_VDEQ:
    case DV_Q_REQ:
    case DV_Q_VREQ: {
        double v = (double)(int32_t)raw * (double)dv_f32_from_bits((uint32_t)q);
        if (cv->relu && v < 0.0)
            v = 0.0;
        if (cv->quant == DV_Q_DEQ || cv->quant == DV_Q_VDEQ) {
            xf_st16(dst, dv_f64_to_fp16(v));
            break;
        }
        /* rint rounds to nearest even in the default rounding mode; NaN
         * (a NaN scale) saturates to 0 like an out-of-range conversion. */
        double r = isnan(v) ? 0.0 : rint(v) + (double)(int32_t)(uint32_t)(q >> 32);
        int8_t s = r >= 127.0 ? 127 : r <= -128.0 ? -128 : (int8_t)r;
        dst[0] = (uint8_t)s;
        break;
    }
    default: break;
    }
}

#ifdef DV_X86_PATHS
/* quant f16, eight at a time by F16C: vcvtps2ph rounding to nearest even
 * gives dv_f32_to_fp16's bits for every one of the 2^32 floats, and with
 * the ReLU below for every one too (compared exhaustively). */
__attribute__((target("avx2,f16c"))) static uint64_t f32_to_f16_run(const uint8_t *src, uint64_t n, bool relu,
                                                                    uint8_t *dst)
{
    uint64_t e = 0;
    for (; e + 8 <= n; e += 8) {
        __m256 v = _mm256_loadu_ps((const float *)(const void *)(src + e * 4));
        if (relu) /* f < 0 -> 0: -0 and NaN stay */
            v = _mm256_andnot_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ), v);
        _mm_storeu_si128((__m128i *)(void *)(dst + e * 2), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    }
    return e;
}
#else
#define f32_to_f16_run(src, n, relu, dst) 0
#endif

void xf_convert_n(const xf_conv *cv, const uint8_t *src, uint64_t n, uint8_t *dst)
{
    unsigned osize = xf_out_size(cv->quant);
    uint64_t e = cv->quant == DV_Q_F16 && DV_CPU_F16C() ? f32_to_f16_run(src, n, cv->relu, dst) : 0;
    for (; e < n; e++)
        xf_convert(cv, src + e * 4, e % 16, dst + e * osize);
}
