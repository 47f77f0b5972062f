#include "dv_fp.h"

#include "dv_simd.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#ifdef DV_X86_PATHS
#include <immintrin.h>
#endif

float dv_fp16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13) | (man ? 0x00400000u : 0);
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man == 0) {
        bits = sign;
    } else {
        /* Subnormal fp16: normalise into an fp32 normal. */
        int shift = 0;
        while (!(man & 0x400u)) {
            man <<= 1;
            shift++;
        }
        man &= 0x3ffu;
        bits = sign | ((uint32_t)(113 - shift) << 23) | (man << 13);
    }
    return dv_f32_from_bits(bits);
}

uint16_t dv_f32_to_fp16(float f)
{
    uint32_t x = dv_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t man = x & 0x7fffffu;
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 0x1f)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        /* Result is subnormal or zero: shift the full significand right. */
        if (e < -10)
            return sign;
        uint32_t m = man | 0x800000u;
        int shift = 14 - e;
        uint32_t half = 1u << (shift - 1);
        uint32_t rest = m & ((1u << shift) - 1);
        uint32_t r = m >> shift;
        if (rest > half || (rest == half && (r & 1u)))
            r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (r & 1u)))
        r++; /* a carry into the exponent is correct, up to infinity */
    return (uint16_t)(sign | r);
}

float dv_bf16_to_f32(uint16_t b)
{
    return dv_f32_from_bits((uint32_t)b << 16);
}

uint16_t dv_f32_to_bf16(float f)
{
    uint32_t x = dv_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    uint32_t lsb = (x >> 16) & 1u;
    x += 0x7fffu + lsb;
    return (uint16_t)(x >> 16);
}

/* double -> float rounding to odd: truncate, then make the last bit 1 if
 * anything was lost.  A float rounded to odd keeps enough information
 * (13+ spare bits) for a correct nearest-even rounding to fp16 or bf16. */
static float f64_to_f32_odd(double d)
{
    if (isnan(d))
        return (float)d;
    float f = (float)d;
    if ((double)f == d)
        return f;
    /* toward zero (truncation): f is not 0 here, so one step down in
     * magnitude is its bits minus one (infinity becomes FLT_MAX) */
    uint32_t b = dv_f32_bits(f);
    if (isinf(f) || fabs((double)f) > fabs(d))
        b--;
    return dv_f32_from_bits(b | 1u);
}

uint16_t dv_f64_to_fp16(double d)
{
    return dv_f32_to_fp16(f64_to_f32_odd(d));
}

/* F16C: vcvtps2ph rounds to nearest even with subnormals, overflow to
 * infinity and NaNs (quieted, top mantissa bits kept) exactly as
 * dv_f32_to_fp16 does; the float is rounded to odd first, as above. */
#ifdef DV_X86_PATHS
typedef double v4d __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef int64_t v4l __attribute__((vector_size(32)));
typedef int32_t v4i __attribute__((vector_size(16)));

/* f64_to_f32_odd on four lanes: the float nearest each double; where it is
 * not the double itself (and the double is not a NaN), one step toward
 * zero if it rounded away (infinity becomes FLT_MAX), then the last bit
 * set. */
__attribute__((target("avx2,f16c"))) static inline v4f odd4(v4d d)
{
    v4f f = __builtin_convertvector(d, v4f);
    v4d back = __builtin_convertvector(f, v4d);
    const v4l mag = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    v4l inexact = (back != d) & (d == d);
    v4l away = inexact & (((v4l)back & mag) > ((v4l)d & mag)); /* magnitudes compare as integers */
    v4i b = (v4i)f + __builtin_convertvector(away, v4i);       /* -1 where it rounded away */
    b |= __builtin_convertvector(inexact, v4i) & 1;
    return (v4f)b;
}

__attribute__((target("avx2,f16c"))) static void f64_to_fp16_f16c(const double *in, uint16_t *out, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        v4d lo, hi;
        memcpy(&lo, in + i, sizeof lo);
        memcpy(&hi, in + i + 4, sizeof hi);
        __m128 flo = (__m128)odd4(lo), fhi = (__m128)odd4(hi);
        __m128i h = _mm256_cvtps_ph(_mm256_set_m128(fhi, flo), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128((__m128i *)(void *)(out + i), h);
    }
    for (; i < n; i++)
        out[i] = dv_f64_to_fp16(in[i]);
}
#endif

void dv_f64_to_fp16_n(const double *in, uint16_t *out, size_t n)
{
#ifdef DV_X86_PATHS
    if (DV_CPU_F16C()) {
        f64_to_fp16_f16c(in, out, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        out[i] = dv_f64_to_fp16(in[i]);
}

uint16_t dv_f64_to_bf16(double d)
{
    return dv_f32_to_bf16(f64_to_f32_odd(d));
}

static float fp16_table[65536];
static pthread_once_t fp16_once = PTHREAD_ONCE_INIT;

static void build_fp16_table(void)
{
    for (uint32_t h = 0; h < 65536; h++)
        fp16_table[h] = dv_fp16_to_f32((uint16_t)h);
}

const float *dv_fp16_table(void)
{
    pthread_once(&fp16_once, build_fp16_table);
    return fp16_table;
}
