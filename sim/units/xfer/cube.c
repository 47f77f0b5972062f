/* cube.c - the Cube unit (pipe M): mmad.
 *
 * Spec.  C (m x n) (init=1: =, init=0: +=) A (m x k) * B (k x n).
 * A fractal is 16 rows x 32 bytes = 512 B; k0 = cfg->cube_k_fp16 (f16,
 * bf16), cfg->cube_k_int8 (s8, u8) or half of cube_k_fp16 (f32: the same
 * 32-byte row of 4-byte elements, C0 = 8, facts #5) elements of K per
 * fractal row; other dtypes fault, and so does f32 on a chip whose Cube has
 * no fp32 (cube.fp32_fractal_cycles = 0: ascend910, ascend310).  M1 = ceil(m/16), K1 = ceil(k/k0), N1 =
 * ceil(n/16). A in L0A, "ZZ": fractal (i, kk) at a + (i*K1 + kk)*512, inside row-major 16 rows x k0: element
 * (r, c) at r*k0 + c. B in L0B, "ZN": fractal (kk, j) at b + (kk*N1 + j)*512, inside column-major: element
 * (kr, nc) at nc*k0 + kr (one stored row per column of B). C in L0C, "NZ": fractal (i, j) at c + (j*M1 +
 * i)*16*16*4, inside row-major 16 x 16 of 4-byte f32 (f16/bf16) or s32 (s8/u8). The hardware computes whole
 * fractals, so rows, columns and K beyond m, n, k up to the fractal edge take part with whatever the buffers
 * hold there: every padded C element is written, and padded A/B contents enter the sums (a kernel zeroes the
 * pad to get exact results). Arithmetic: f16/bf16 products are exact in float (11 x 11 bits) and are
 * accumulated in float in increasing K order, starting from 0 (init=1) or
 * the old C value (init=0); f32 inputs are taken whole (no hf32/tf32
 * rounding of the mantissas is modelled), each product rounded to float,
 * then accumulated the same way; s8/u8 products accumulate in s32, wrapping.
 * m, k or n of 0 is a no-op.
 * Cycles: cube_head_cycles (skipped back to back, the pipeline is full) +
 * M1*K1*N1 fractal steps x cube.fractal_cycles (1 on a full cube, facts
 * #1-#4; 2 on the half-rate 310 cube), for f32 x cube.fp32_fractal_cycles
 * (2 on the 910B family: 16x8x16 per 2 cycles = 1024 MAC/cycle, facts #6's
 * 6 + mT*kT*nT*cpr with cpr = 2); fractals = M1*K1*N1,
 * macs = m*k*n. */
#include "dv_fp.h"
#include "dv_simd.h"
#include "xfer.h"

#include <stdlib.h>
#include <string.h>
#ifdef DV_X86_PATHS
#include <immintrin.h>
#endif

enum { MM_M, MM_K, MM_N };

typedef dv_mm_shape mm_shape;

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* False for a dtype the Cube does not multiply. */
static bool mm_shape_of(const dv_chip_config *cfg, const dv_op *op, mm_shape *s)
{
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_MMAD, op->r[3], f);
    dv_dtype dt = (dv_dtype)op->insn->f[DV_F_DTYPE];
    bool ok = true;
    *s = (mm_shape){.m = f[MM_M], .k = f[MM_K], .n = f[MM_N]};
    switch (dt) {
    case DV_DT_F16:
    case DV_DT_BF16: s->k0 = cfg->cube_k_fp16, s->esize = 2; break;
    case DV_DT_S8:
    case DV_DT_U8: s->k0 = cfg->cube_k_int8, s->esize = 1; break;
    case DV_DT_F32: s->k0 = cfg->cube_k_fp16 / 2, s->esize = 4; break;
    default: s->k0 = cfg->cube_k_fp16, s->esize = 2, ok = false; break;
    }
    s->m1 = ceil_div(s->m, cfg->cube_m);
    s->k1 = ceil_div(s->k, s->k0);
    s->n1 = ceil_div(s->n, cfg->cube_n);
    s->fa = cfg->cube_m * s->k0 * s->esize;
    s->fb = cfg->cube_n * s->k0 * s->esize;
    s->fc = cfg->cube_m * cfg->cube_n * 4;
    return ok;
}

bool xf_mmad_extents(const dv_chip_config *cfg, const dv_op *op, uint64_t *a, uint64_t *b, uint64_t *c)
{
    mm_shape s;
    if (!mm_shape_of(cfg, op, &s) || !s.m || !s.k || !s.n)
        return false;
    *a = s.m1 * s.k1 * s.fa;
    *b = s.k1 * s.n1 * s.fb;
    *c = s.m1 * s.n1 * s.fc;
    return true;
}

uint64_t dv_cube_cycles(const dv_unit_ctx *c, const dv_op *op, bool back_to_back, dv_op_stats *st)
{
    mm_shape s;
    mm_shape_of(c->cfg, op, &s);
    uint64_t steps = s.m1 * s.k1 * s.n1;
    st->path = DV_PATH_NONE;
    st->fractals = steps;
    st->macs = s.m * s.k * s.n;
    uint64_t per = (dv_dtype)op->insn->f[DV_F_DTYPE] == DV_DT_F32 ? c->cfg->cube_fp32_fractal_cycles
                                                                  : c->cfg->cube_fractal_cycles;
    uint64_t cycles = (back_to_back ? 0 : c->cfg->cube_head_cycles) + steps * per;
    return cycles ? cycles : 1;
}

/* One stored element as the kernels take it: a float for f16 (through the
 * shared table), bf16 (the top half of an f32) and f32 (its bits), the
 * integer in 4 bytes for s8/u8. */
static inline uint32_t elem_bits(const uint8_t *p, dv_dtype dt, const float *f16)
{
    switch (dt) {
    case DV_DT_F16: return dv_f32_bits(f16[xf_ld16(p)]);
    case DV_DT_BF16: return (uint32_t)xf_ld16(p) << 16;
    case DV_DT_F32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case DV_DT_S8: return (uint32_t)(int32_t)(int8_t)p[0];
    default: return p[0];
    }
}

/* n f16 elements as f32 bits; true when all are finite (no exponent of
 * all ones), which for f16 makes every product exact (mm_products_exact).
 * With F16C, eight at a time: the same bits as the table
 * (dv_fp16_to_f32) for all 65536 inputs, NaNs included (both quiet them
 * and keep the payload; compared exhaustively). */
enum { F16_EXP = 0x7c00 };
#ifdef DV_X86_PATHS
__attribute__((target("avx2,f16c"))) static bool f16_run_f16c(const uint8_t *src, uint32_t *dst, uint64_t n,
                                                              const float *f16)
{
    const __m128i e = _mm_set1_epi16((short)F16_EXP);
    __m128i special = _mm_setzero_si128();
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(src + 2 * i));
        special = _mm_or_si128(special, _mm_cmpeq_epi16(_mm_and_si128(h, e), e));
        _mm256_storeu_ps((float *)(void *)(dst + i), _mm256_cvtph_ps(h));
    }
    bool finite = _mm_movemask_epi8(special) == 0;
    for (; i < n; i++) {
        uint16_t h = xf_ld16(src + 2 * i);
        finite &= (h & F16_EXP) != F16_EXP;
        dst[i] = dv_f32_bits(f16[h]);
    }
    return finite;
}
#else
#define f16_run_f16c f16_run_table
#endif

static bool f16_run_table(const uint8_t *src, uint32_t *dst, uint64_t n, const float *f16)
{
    bool finite = true;
    for (uint64_t i = 0; i < n; i++) {
        uint16_t h = xf_ld16(src + 2 * i);
        finite &= (h & F16_EXP) != F16_EXP;
        dst[i] = dv_f32_bits(f16[h]);
    }
    return finite;
}

static bool f16_run(const uint8_t *src, uint32_t *dst, uint64_t n, const float *f16)
{
    return (DV_CPU_F16C() ? f16_run_f16c : f16_run_table)(src, dst, n, f16);
}

/* Every product of these operands is exact in float: each is 0 or normal
 * with |x| in [2^-62, 2^63) (biased exponent 65 .. 189), and has at most 12
 * significant bits (f16: 11, bf16: 8; the caller's dtype says so).  A
 * product then has at most 24 bits and a magnitude in [2^-124, 2^126):
 * a normal float, no rounding, no overflow; NaNs and infinities are out.
 * (f16's finite values are all inside: f16_run's flag says the same.) */
static bool mm_products_exact(const uint32_t *x, uint64_t n)
{
    uint32_t bad = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t m = x[i] & 0x7fffffff;
        bad |= (uint32_t)(m != 0) & (uint32_t)((m >> 23) - 65 > 124);
    }
    return !bad;
}

/* One f16 B fractal (column-major: column nc's k0 elements together) as
 * k0 rows of 16 floats, one after the other at dst (mm_load_b's strip):
 * transposed as 16 x 16 f16 and converted as one run when k0 is 16 (every
 * built-in chip), column by column otherwise.  True when all are finite. */
enum { F16_TILE_K = 64 };
static bool f16_fractal_by_k(const uint8_t *f, uint32_t *dst, uint64_t k0, const float *f16)
{
    if (k0 == XF_ROWS) {
        uint8_t t[XF_FRACTAL];
        xf_transpose16_u16(f, XF_BLOCK, t, XF_BLOCK);
        return f16_run(t, dst, XF_ROWS * XF_ROWS, f16);
    }
    uint32_t t[XF_ROWS * F16_TILE_K];
    bool finite = true;
    for (uint64_t nc = 0; nc < XF_ROWS; nc++)
        finite &= f16_run(f + nc * k0 * 2, t + nc * k0, k0, f16);
    for (uint64_t kr = 0; kr < k0; kr++)
        for (uint64_t nc = 0; nc < XF_ROWS; nc++)
            dst[kr * XF_ROWS + nc] = t[nc * k0 + kr];
    return finite;
}

/* Whether every product of a converted operand is exact in float (the
 * fused kernels' condition): f16 finite, bf16 of bounded magnitude
 * (mm_products_exact); f32 products round, integers do not take it. */
static bool mm_operand_exact(dv_dtype dt, const uint32_t *x, uint64_t n)
{
    return (dt == DV_DT_F16 || dt == DV_DT_BF16) && mm_products_exact(x, n);
}

/* A as rows: a[R * kp + K] for the padded R < M1*16, K < K1*k0 (floats, or
 * s8/u8 as 32-bit integers in the same 4 bytes); fractal by fractal, each
 * row of a fractal k0 consecutive elements of the output.  True when its
 * products are exact (mm_operand_exact). */
static bool mm_load_a(const mm_shape *s, const uint8_t *a, dv_dtype dt, void *out)
{
    const float *f16 = dv_fp16_table();
    uint64_t kp = s->k1 * s->k0;
    uint32_t *o = out;
    bool finite = true;
    for (uint64_t i = 0; i < s->m1; i++)
        for (uint64_t kk = 0; kk < s->k1; kk++) {
            const uint8_t *f = a + (i * s->k1 + kk) * s->fa;
            for (uint64_t r = 0; r < XF_ROWS; r++) {
                uint32_t *row = o + (i * XF_ROWS + r) * kp + kk * s->k0;
                const uint8_t *src = f + r * s->k0 * s->esize;
                if (dt == DV_DT_F16) /* the hot case, without the switch */
                    finite &= f16_run(src, row, s->k0, f16);
                else
                    for (uint64_t c = 0; c < s->k0; c++)
                        row[c] = elem_bits(src + c * s->esize, dt, f16);
            }
        }
    return dt == DV_DT_F16 ? finite : mm_operand_exact(dt, o, s->m1 * XF_ROWS * kp);
}

/* B by fractal column, then K: b[(J * kp + K) * 16 + N % 16] for J = N / 16,
 * so that a fractal column's 16 elements are one contiguous vector for
 * each K and a column of fractals is one contiguous strip: the kernels walk
 * it sequentially (a row stride of n1 * 64 bytes, a power of two on most
 * tiles, put all of a strip in 4 of the host L1's 64 sets, and it was read
 * from L2 at every K).  Fractal by fractal (a fractal stores each column's
 * k0 elements together). */
static bool mm_load_b(const mm_shape *s, const uint8_t *b, dv_dtype dt, void *out)
{
    const float *f16 = dv_fp16_table();
    uint64_t kp = s->k1 * s->k0;
    uint32_t *o = out;
    bool hot = dt == DV_DT_F16 && s->k0 <= F16_TILE_K, finite = true;
    for (uint64_t kk = 0; kk < s->k1; kk++)
        for (uint64_t j = 0; j < s->n1; j++) {
            const uint8_t *f = b + (kk * s->n1 + j) * s->fb;
            uint32_t *blk = o + (j * kp + kk * s->k0) * XF_ROWS;
            if (hot) {
                finite &= f16_fractal_by_k(f, blk, s->k0, f16);
                continue;
            }
            for (uint64_t nc = 0; nc < XF_ROWS; nc++) {
                const uint8_t *src = f + nc * s->k0 * s->esize;
                for (uint64_t kr = 0; kr < s->k0; kr++)
                    blk[kr * XF_ROWS + nc] = elem_bits(src + kr * s->esize, dt, f16);
            }
        }
    return hot ? finite : mm_operand_exact(dt, o, s->n1 * XF_ROWS * kp);
}

/* The inner kernels: C's NZ fractal columns in place, one fractal row of
 * 16 elements as one 64-byte vector (AVX-512) or two 32-byte halves
 * (AVX2 and the rest), four rows at a time (four consecutive rows of one
 * fractal: r % 16 is a multiple of 4) so each B vector is used four
 * times.  Every element is accumulated in increasing K order with a
 * separate multiply and add, starting from 0 (init) or its old value:
 * bit-identical to the scalar definition above whatever the vector width
 * (dv_simd.h: why two).  When every product is exact (mm_products_exact)
 * the same body is built to fuse them (the _fma kernels): a fused
 * multiply-add of an exact product rounds once, as the add alone does,
 * so the bits are the same and the host does half the instructions (the
 * mmad of a 4096^3 matmul: about 45 -> 85 GFLOP/s on an AVX2 host).
 * The accumulators are loaded and stored a vector at a time, straight
 * from C: copied through an array on the stack, a 32-byte load met the
 * two 16-byte stores before it (a store-forwarding stall), and with
 * mmads of K = 16 that was a third of the kernel. */
typedef float vf16 __attribute__((vector_size(64)));
typedef uint32_t vu16 __attribute__((vector_size(64)));
typedef float vf8 __attribute__((vector_size(32)));
typedef uint32_t vu8 __attribute__((vector_size(32)));

/* One kernel body for both element kinds, float (f16/bf16 products) and
 * uint32 (s8/u8: products and sums modulo 2^32, as the hardware's s32
 * wraps), and both widths: H vectors of VL elements make a fractal row. */
#define MM_KERNEL(name, vec, elem, target)                                                                   \
    target static void name(uint8_t *cc, const elem *a, const elem *b, uint64_t m1, uint64_t n1,             \
                            uint64_t kp, bool init)                                                          \
    {                                                                                                        \
        enum { VL = sizeof(vec) / sizeof(elem), H = XF_ROWS / VL };                                          \
        for (uint64_t j = 0; j < n1; j++)                                                                    \
            for (uint64_t r = 0; r < m1 * XF_ROWS; r += 4) {                                                 \
                uint8_t *row = cc + ((j * m1 + r / XF_ROWS) * 256 + (r % XF_ROWS) * 16) * 4;                 \
                vec acc[4][H];                                                                               \
                DV_UNROLL                                                                                    \
                for (unsigned q = 0; q < 4; q++) {                                                           \
                    DV_UNROLL                                                                                \
                    for (unsigned h = 0; h < H; h++) {                                                       \
                        if (init)                                                                            \
                            acc[q][h] = (vec){0};                                                            \
                        else                                                                                 \
                            memcpy(&acc[q][h], row + (q * XF_ROWS + h * VL) * 4, sizeof(vec));               \
                    }                                                                                        \
                }                                                                                            \
                const elem *a0 = a + r * kp, *a1 = a0 + kp, *a2 = a1 + kp, *a3 = a2 + kp;                    \
                const elem *bj = b + j * kp * XF_ROWS; /* mm_load_b's strip */                               \
                for (uint64_t k = 0; k < kp; k++) {                                                          \
                    vec bv[H];                                                                               \
                    DV_UNROLL                                                                                \
                    for (unsigned h = 0; h < H; h++)                                                         \
                        memcpy(&bv[h], bj + k * XF_ROWS + h * VL, sizeof(vec));                              \
                    DV_UNROLL                                                                                \
                    for (unsigned h = 0; h < H; h++) {                                                       \
                        acc[0][h] += a0[k] * bv[h];                                                          \
                        acc[1][h] += a1[k] * bv[h];                                                          \
                        acc[2][h] += a2[k] * bv[h];                                                          \
                        acc[3][h] += a3[k] * bv[h];                                                          \
                    }                                                                                        \
                }                                                                                            \
                DV_UNROLL                                                                                    \
                for (unsigned q = 0; q < 4; q++) {                                                           \
                    DV_UNROLL                                                                                \
                    for (unsigned h = 0; h < H; h++)                                                         \
                        memcpy(row + (q * XF_ROWS + h * VL) * 4, &acc[q][h], sizeof(vec));                   \
                }                                                                                            \
            }                                                                                                \
    }

MM_KERNEL(mm_f32_wide, vf16, float, DV_TARGET_WIDE)
MM_KERNEL(mm_s32_wide, vu16, uint32_t, DV_TARGET_WIDE)
MM_KERNEL(mm_f32_narrow, vf8, float, DV_TARGET_NARROW)
MM_KERNEL(mm_s32_narrow, vu8, uint32_t, DV_TARGET_NARROW)
/* exact products only (mm_products_exact): contracted into multiply-adds */
MM_KERNEL(mm_f32_wide_fma, vf16, float, DV_TARGET_WIDE_FMA)
MM_KERNEL(mm_f32_narrow_fma, vf8, float, DV_TARGET_NARROW_FMA)

static void mm_kernel_f32(uint8_t *cc, const float *a, const float *b, uint64_t m1, uint64_t n1, uint64_t kp,
                          bool init, bool exact)
{
    if (exact && DV_CPU_FMA())
        (DV_CPU_WIDE() ? mm_f32_wide_fma : mm_f32_narrow_fma)(cc, a, b, m1, n1, kp, init);
    else
        (DV_CPU_WIDE() ? mm_f32_wide : mm_f32_narrow)(cc, a, b, m1, n1, kp, init);
}

static void mm_kernel_s32(uint8_t *cc, const uint32_t *a, const uint32_t *b, uint64_t m1, uint64_t n1,
                          uint64_t kp, bool init)
{
    (DV_CPU_WIDE() ? mm_s32_wide : mm_s32_narrow)(cc, a, b, m1, n1, kp, init);
}

bool dv_cube_prepare(dv_unit_ctx *c, const dv_op *op, dv_unit_ctx *work_owner, dv_cube_work *w)
{
    const dv_chip_config *cfg = c->cfg;
    dv_dtype dt = (dv_dtype)op->insn->f[DV_F_DTYPE];
    mm_shape s;
    char why[160];
    w->has_work = false;
    if (!mm_shape_of(cfg, op, &s)) /* the words of mmad's type rule (isa_types.def) */
        return xf_fail(c, "mmad: %s",
                       dv_isa_types_ok(op->insn, why, sizeof why) ? "not a Cube input type" : why);
    if (dt == DV_DT_F32 && !cfg->cube_fp32_fractal_cycles)
        return xf_fail(
            c,
            "illegal instruction: mmad dtype=f32: the Cube of %s has no fp32 (cube.fp32_fractal_cycles = "
            "0; facts #7: its mmad takes s8/u8/f16 inputs)",
            cfg->name);
    if (cfg->cube_m != XF_ROWS || cfg->cube_n != XF_ROWS)
        return xf_fail(c, "mmad: only 16 x 16 Cube fractals are modelled (config has %llu x %llu)",
                       (unsigned long long)cfg->cube_m, (unsigned long long)cfg->cube_n);
    if (!s.m || !s.k || !s.n)
        return true;
    uint64_t alen = s.m1 * s.k1 * s.fa, blen = s.k1 * s.n1 * s.fb, clen = s.m1 * s.n1 * s.fc;
    uint8_t *a = xf_span(c, DV_MEM_L0A, op->r[1], alen, cfg->align_l0ab);
    uint8_t *b = a ? xf_span(c, DV_MEM_L0B, op->r[2], blen, cfg->align_l0ab) : NULL;
    uint8_t *cc = b ? xf_span(c, DV_MEM_L0C, op->r[0], clen, cfg->align_l0c) : NULL;
    if (!cc)
        return false;
    if (!c->data)
        return true;
    uint64_t rows = s.m1 * XF_ROWS, cols = s.n1 * XF_ROWS, kp = s.k1 * s.k0;
    /* Both operands converted once into 4-byte elements in the owner's
     * scratch memory (no allocation per instruction once it has grown). */
    size_t abytes = (size_t)(rows * kp) * 4, bbytes = (size_t)(cols * kp) * 4;
    uint8_t *work = dv_unit_scratch(work_owner, abytes + bbytes);
    if (!work)
        return xf_fail(c, "mmad: out of host memory for a %llu x %llu x %llu product",
                       (unsigned long long)s.m, (unsigned long long)s.k, (unsigned long long)s.n);
    *w = (dv_cube_work){.s = s,
                        .a = a,
                        .b = b,
                        .c = cc,
                        .a_addr = op->r[1],
                        .b_addr = op->r[2],
                        .c_addr = op->r[0],
                        .a_len = alen,
                        .b_len = blen,
                        .c_len = clen,
                        .dtype = dt,
                        .init = op->insn->f[DV_F_INIT] != 0,
                        .work = work,
                        .has_work = true};
    return true;
}

void dv_cube_compute(const dv_cube_work *w)
{
    const mm_shape *s = &w->s;
    dv_dtype dt = (dv_dtype)w->dtype;
    uint64_t rows = s->m1 * XF_ROWS, kp = s->k1 * s->k0;
    size_t abytes = (size_t)(rows * kp) * 4;
    bool exact = mm_load_a(s, w->a, dt, w->work);
    exact &= mm_load_b(s, w->b, dt, w->work + abytes);
    if (dt == DV_DT_F16 || dt == DV_DT_BF16 || dt == DV_DT_F32) {
        mm_kernel_f32(w->c, (const float *)(void *)w->work, (const float *)(void *)(w->work + abytes), s->m1,
                      s->n1, kp, w->init, exact);
    } else
        mm_kernel_s32(w->c, (const uint32_t *)(void *)w->work, (const uint32_t *)(void *)(w->work + abytes),
                      s->m1, s->n1, kp, w->init);
}

bool dv_cube_exec(dv_unit_ctx *c, const dv_op *op)
{
    dv_cube_work w;
    if (!dv_cube_prepare(c, op, c, &w))
        return false;
    if (w.has_work)
        dv_cube_compute(&w);
    return true;
}
