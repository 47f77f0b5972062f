/* common.c - helpers of the xfer units: parameter unpacking, checked buffer
 * access and parameter faults (see xfer.h). */
#include "dv_simd.h"
#include "xfer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

void xf_unpack(dv_layout_id id, uint64_t word, uint64_t out[DV_LAYOUT_MAX_FIELDS])
{
    const dv_layout *l = dv_layout_get(id);
    for (unsigned i = 0; i < DV_LAYOUT_MAX_FIELDS; i++)
        out[i] = i < l->nfields ? dv_lfield_get(&l->fields[i], word) : 0;
}

bool xf_fail(dv_unit_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->fault_msg, sizeof c->fault_msg, fmt, ap);
    va_end(ap);
    c->fault.kind = DV_FAULT_NONE;
    return false;
}

uint64_t xf_align(const dv_chip_config *cfg, dv_mem_kind kind)
{
    switch (kind) {
    case DV_MEM_UB: return cfg->align_ub;
    case DV_MEM_L1: return cfg->align_l1;
    case DV_MEM_L0A:
    case DV_MEM_L0B: return cfg->align_l0ab;
    case DV_MEM_L0C: return cfg->align_l0c;
    default: return 0;
    }
}

uint8_t *xf_span(dv_unit_ctx *c, dv_mem_kind kind, uint64_t addr, uint64_t len, uint64_t align)
{
    if (kind == DV_MEM_GM)
        return dv_gm_span(c->gm, addr, len, &c->fault);
    return dv_mem_span(&c->mem[kind], addr, len, align, &c->fault);
}

#if defined(__x86_64__) && defined(__SSE2__)
/* 8 x 8 by three rounds of interleaving (16-, 32-, 64-bit pairs). */
static void transpose8_u16(const uint8_t *s, uint64_t ss, uint8_t *d, uint64_t ds)
{
    __m128i a[8], b[8], c[8];
    DV_UNROLL
    for (unsigned i = 0; i < 8; i++)
        a[i] = _mm_loadu_si128((const __m128i *)(const void *)(s + i * ss));
    DV_UNROLL
    for (unsigned i = 0; i < 8; i += 2) {
        b[i / 2] = _mm_unpacklo_epi16(a[i], a[i + 1]);     /* columns 0-3 of rows i, i+1 */
        b[4 + i / 2] = _mm_unpackhi_epi16(a[i], a[i + 1]); /* columns 4-7 */
    }
    DV_UNROLL
    for (unsigned h = 0; h < 8; h += 4) {              /* h = 0: columns 0-3, 4: columns 4-7 */
        c[h] = _mm_unpacklo_epi32(b[h], b[h + 1]);     /* rows 0-3, two columns */
        c[h + 1] = _mm_unpackhi_epi32(b[h], b[h + 1]); /* rows 0-3, the next two */
        c[h + 2] = _mm_unpacklo_epi32(b[h + 2], b[h + 3]);
        c[h + 3] = _mm_unpackhi_epi32(b[h + 2], b[h + 3]);
    }
    DV_UNROLL
    for (unsigned h = 0; h < 8; h += 4) {
        DV_UNROLL
        for (unsigned q = 0; q < 2; q++) {
            __m128i lo = c[h + q], hi = c[h + 2 + q]; /* rows 0-3 and 4-7 of columns h + 2q, h + 2q + 1 */
            _mm_storeu_si128((__m128i *)(void *)(d + (h + 2 * q) * ds), _mm_unpacklo_epi64(lo, hi));
            _mm_storeu_si128((__m128i *)(void *)(d + (h + 2 * q + 1) * ds), _mm_unpackhi_epi64(lo, hi));
        }
    }
}
#else
static void transpose8_u16(const uint8_t *s, uint64_t ss, uint8_t *d, uint64_t ds)
{
    for (unsigned r = 0; r < 8; r++)
        for (unsigned col = 0; col < 8; col++)
            memcpy(d + r * ds + col * 2, s + col * ss + r * 2, 2);
}
#endif

void xf_transpose16_u16(const uint8_t *src, uint64_t src_stride, uint8_t *dst, uint64_t dst_stride)
{
    for (unsigned br = 0; br < 16; br += 8)
        for (unsigned bc = 0; bc < 16; bc += 8)
            transpose8_u16(src + br * src_stride + bc * 2, src_stride, dst + bc * dst_stride + br * 2,
                           dst_stride);
}
