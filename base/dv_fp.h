/* dv_fp.h - IEEE binary16 (fp16) and bfloat16 conversions.
 *
 * Narrowing conversions round to nearest, ties to even (the hardware's default
 * rounding); NaN stays NaN (quiet), overflow goes to infinity.  Widening
 * conversions are exact.  Values are carried as their raw uint16_t bits. */
#ifndef DV_FP_H
#define DV_FP_H

#include <stddef.h>
#include <stdint.h>

float dv_fp16_to_f32(uint16_t h);
/* All 65536 fp16 values as floats: table[h] == dv_fp16_to_f32(h).  Built
 * on first use (thread-safe), read-only after: the fast paths of the Cube
 * and the Vector unit convert whole operands through it. */
const float *dv_fp16_table(void);
uint16_t dv_f32_to_fp16(float f);
float dv_bf16_to_f32(uint16_t b);
uint16_t dv_f32_to_bf16(float f);
/* From double with a single rounding (no double rounding through float). */
uint16_t dv_f64_to_fp16(double d);
/* out[i] = dv_f64_to_fp16(in[i]) for i < n, the same bits, with the host's
 * F16C conversion when it has one (the operators' input fills). */
void dv_f64_to_fp16_n(const double *in, uint16_t *out, size_t n);
uint16_t dv_f64_to_bf16(double d);

/* Bit-level views of a float. */
static inline uint32_t dv_f32_bits(float f)
{
    union {
        float f;
        uint32_t u;
    } v = {.f = f};
    return v.u;
}

static inline float dv_f32_from_bits(uint32_t u)
{
    union {
        uint32_t u;
        float f;
    } v = {.u = u};
    return v.f;
}

#endif
