/* test_cube.c - mmad against a plain C reference at awkward shapes, its
 * cycle formula and its faults. */
#include "dv_fp.h"
#include "xt.h"

#include <stdlib.h>
#include <string.h>

/* Deterministic generator (the state is the caller's, so no globals). */
static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* A (m x k row-major raw elements) -> L0A ZZ fractals, pad zeroed. */
static void put_a(uint8_t *l0a, const uint32_t *a, unsigned m, unsigned k, unsigned k0, unsigned es)
{
    unsigned m1 = (m + 15) / 16, k1 = (k + k0 - 1) / k0;
    memset(l0a, 0, (size_t)m1 * k1 * 16 * k0 * es);
    for (unsigned r = 0; r < m; r++)
        for (unsigned c = 0; c < k; c++)
            xt_put(l0a + ((size_t)(r / 16) * k1 + c / k0) * 16 * k0 * es + ((r % 16) * k0 + c % k0) * es, es,
                   a[r * k + c]);
}

/* B (k x n row-major) -> L0B ZN fractals, pad zeroed. */
static void put_b(uint8_t *l0b, const uint32_t *b, unsigned k, unsigned n, unsigned k0, unsigned es)
{
    unsigned n1 = (n + 15) / 16, k1 = (k + k0 - 1) / k0;
    memset(l0b, 0, (size_t)n1 * k1 * 16 * k0 * es);
    for (unsigned r = 0; r < k; r++)
        for (unsigned c = 0; c < n; c++)
            xt_put(l0b + ((size_t)(r / k0) * n1 + c / 16) * 16 * k0 * es + ((c % 16) * k0 + r % k0) * es, es,
                   b[r * n + c]);
}

/* C element (r, col) of an NZ tile with M1 row fractals. */
static uint32_t get_c(const uint8_t *l0c, unsigned m, unsigned r, unsigned col)
{
    unsigned m1 = (m + 15) / 16;
    return xt_get(l0c + ((size_t)(col / 16) * m1 + r / 16) * 1024 + ((r % 16) * 16 + col % 16) * 4, 4);
}

static uint64_t mm_params(unsigned m, unsigned k, unsigned n)
{
    uint64_t v[] = {m, k, n};
    return xt_pack(DV_LAYOUT_MMAD, v, 3);
}

static float to_f(dv_dtype dt, uint32_t raw)
{
    return dt == DV_DT_F32   ? dv_f32_from_bits(raw)
           : dt == DV_DT_F16 ? dv_fp16_to_f32((uint16_t)raw)
                             : dv_bf16_to_f32((uint16_t)raw);
}

/* Random inputs of dtype; f16/bf16 from [-2, 2), s8 over its full range. */
static void fill(uint32_t *x, unsigned count, dv_dtype dt, uint32_t *seed)
{
    for (unsigned i = 0; i < count; i++) {
        float f = (float)(int32_t)(rnd(seed) % 4096) / 1024.0f - 2.0f;
        /* f32: full 24-bit mantissas, so the products are not exact */
        float g = (float)(rnd(seed) % 16777216u) / 4194304.0f - 2.0f;
        x[i] = dt == DV_DT_F32    ? dv_f32_bits(g)
               : dt == DV_DT_F16  ? dv_f32_to_fp16(f)
               : dt == DV_DT_BF16 ? dv_f32_to_bf16(f)
                                  : (uint8_t)rnd(seed);
    }
}

/* Inputs where a fused multiply-add would differ from the unit's separate
 * multiply and add: bf16 magnitudes down to 2^-80 (products below float's
 * normal range round when multiplied, not when fused) and up to 2^70
 * (products overflow), and infinities in both (inf - inf makes the
 * default NaN; no NaN inputs, whose surviving payload C leaves open). */
static void fill_extreme(uint32_t *x, unsigned count, dv_dtype dt, uint32_t *seed)
{
    for (unsigned i = 0; i < count; i++) {
        uint32_t r = rnd(seed), sign = (r & 1) << 15, mant = (r >> 1) & 0x7f;
        unsigned pick = (r >> 8) % 64;
        if (dt == DV_DT_BF16) {
            /* 2^-80 .. 2^-55, 2^50 .. 2^70, or 2^-3 .. 2^2 */
            uint32_t exp = pick == 0   ? 0xff
                           : pick < 24 ? 127 - 80 + (r >> 14) % 26
                           : pick < 28 ? 127 + 50 + (r >> 14) % 21
                                       : 127 - 3 + (r >> 14) % 6;
            x[i] = sign | exp << 7 | (exp == 0xff ? 0 : mant);
        } else { /* f16: an infinity now and then among [-2, 2) */
            x[i] = pick == 0 ? (sign | 0x7c00) : dv_f32_to_fp16((float)(int32_t)(r % 4096) / 1024.0f - 2.0f);
        }
    }
}

typedef void fill_fn(uint32_t *x, unsigned count, dv_dtype dt, uint32_t *seed);

/* Runs C (init) A*B twice (init=1 then init=0 with new inputs) and checks
 * every element exactly against the reference accumulation in k order
 * (f32: each product rounded to float, then added: the unit's rule). */
static void check_shape_with(fill_fn *fill_inputs, dv_dtype dt, unsigned m, unsigned k, unsigned n,
                             uint32_t seed)
{
    xt_env e;
    xt_open(&e, dt == DV_DT_F32 ? "ascend910b" : "ascend910"); /* 910 has no fp32 Cube */
    unsigned es = dt == DV_DT_S8    ? 1
                  : dt == DV_DT_F32 ? 4
                                    : 2,
             k0 = dt == DV_DT_S8    ? 32
                  : dt == DV_DT_F32 ? 8
                                    : 16;
    uint32_t *a = malloc(sizeof *a * m * k), *b = malloc(sizeof *b * k * n);
    uint32_t *ref = calloc((size_t)m * n, sizeof *ref);
    ck_assert(a && b && ref);
    dv_op op = xt_op(DV_OP_MMAD, 0x1000, 0, 0, mm_params(m, k, n));
    op_insn(&op)->f[DV_F_DTYPE] = dt;
    for (int round = 0; round < 2; round++) {
        fill_inputs(a, m * k, dt, &seed);
        fill_inputs(b, k * n, dt, &seed);
        put_a(e.mem[DV_MEM_L0A].bytes, a, m, k, k0, es);
        put_b(e.mem[DV_MEM_L0B].bytes, b, k, n, k0, es);
        op_insn(&op)->f[DV_F_INIT] = round == 0;
        for (unsigned r = 0; r < m; r++)
            for (unsigned c = 0; c < n; c++) {
                if (dt == DV_DT_S8) {
                    uint32_t acc = round ? ref[r * n + c] : 0;
                    for (unsigned i = 0; i < k; i++)
                        acc += (uint32_t)((int8_t)a[r * k + i] * (int8_t)b[i * n + c]);
                    ref[r * n + c] = acc;
                } else {
                    float acc = round ? dv_f32_from_bits(ref[r * n + c]) : 0.0f;
                    for (unsigned i = 0; i < k; i++)
                        acc += to_f(dt, a[r * k + i]) * to_f(dt, b[i * n + c]);
                    ref[r * n + c] = dv_f32_bits(acc);
                }
            }
        ck_assert_msg(dv_cube_exec(&e.ctx, &op), "%s", e.ctx.fault_msg);
        const uint8_t *l0c = e.mem[DV_MEM_L0C].bytes + 0x1000;
        for (unsigned r = 0; r < m; r++)
            for (unsigned c = 0; c < n; c++)
                ck_assert_msg(get_c(l0c, m, r, c) == ref[r * n + c],
                              "%s m=%u k=%u n=%u round %d: C(%u,%u) = %08x, want %08x", dv_dtype_name(dt), m,
                              k, n, round, r, c, get_c(l0c, m, r, c), ref[r * n + c]);
    }
    free(a);
    free(b);
    free(ref);
    xt_close(&e);
}

static void check_shape(dv_dtype dt, unsigned m, unsigned k, unsigned n, uint32_t seed)
{
    check_shape_with(fill, dt, m, k, n, seed);
}

static const unsigned dims[] = {1, 15, 16, 17, 33, 64};
enum { NDIMS = sizeof dims / sizeof dims[0] };

/* _i runs over all m x k x n combinations of dims. */
START_TEST(mmad_f16_shapes)
{
    check_shape(DV_DT_F16, dims[_i / (NDIMS * NDIMS)], dims[_i / NDIMS % NDIMS], dims[_i % NDIMS],
                17u + (unsigned)_i);
}
END_TEST

START_TEST(mmad_bf16_shapes)
{
    check_shape(DV_DT_BF16, dims[_i / (NDIMS * NDIMS)], dims[_i / NDIMS % NDIMS], dims[_i % NDIMS],
                99u + (unsigned)_i);
}
END_TEST

START_TEST(mmad_f32_shapes)
{
    check_shape(DV_DT_F32, dims[_i / (NDIMS * NDIMS)], dims[_i / NDIMS % NDIMS], dims[_i % NDIMS],
                31u + (unsigned)_i);
}
END_TEST

START_TEST(mmad_s8_shapes)
{
    check_shape(DV_DT_S8, dims[_i / (NDIMS * NDIMS)], dims[_i / NDIMS % NDIMS], dims[_i % NDIMS],
                5u + (unsigned)_i);
}
END_TEST

/* Operands whose products are not all exact in float (bf16 of extreme
 * magnitudes, infinities): the unit's rule still holds bit for bit (the
 * host's fused kernel, for exact products only, must not be taken). */
START_TEST(mmad_inexact_products)
{
    static const unsigned shapes[][3] = {{16, 16, 16}, {33, 64, 17}, {64, 33, 64}, {1, 17, 15}};
    for (unsigned i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        check_shape_with(fill_extreme, DV_DT_BF16, shapes[i][0], shapes[i][1], shapes[i][2], 7u + i);
        check_shape_with(fill_extreme, DV_DT_F16, shapes[i][0], shapes[i][1], shapes[i][2], 11u + i);
    }
}
END_TEST

/* A hand-checked 2x2 case: [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]. */
START_TEST(mmad_small_by_hand)
{
    xt_env e;
    xt_open(&e, "ascend910b");
    uint32_t a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
    for (int i = 0; i < 4; i++) {
        a[i] = dv_f32_to_fp16((float)a[i]);
        b[i] = dv_f32_to_fp16((float)b[i]);
    }
    put_a(e.mem[DV_MEM_L0A].bytes, a, 2, 2, 16, 2);
    put_b(e.mem[DV_MEM_L0B].bytes, b, 2, 2, 16, 2);
    dv_op op = xt_op(DV_OP_MMAD, 0, 0, 0, mm_params(2, 2, 2));
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F16;
    op_insn(&op)->f[DV_F_INIT] = 1;
    ck_assert(dv_cube_exec(&e.ctx, &op));
    const uint8_t *c = e.mem[DV_MEM_L0C].bytes;
    ck_assert_float_eq(dv_f32_from_bits(get_c(c, 2, 0, 0)), 19.0f);
    ck_assert_float_eq(dv_f32_from_bits(get_c(c, 2, 0, 1)), 22.0f);
    ck_assert_float_eq(dv_f32_from_bits(get_c(c, 2, 1, 0)), 43.0f);
    ck_assert_float_eq(dv_f32_from_bits(get_c(c, 2, 1, 1)), 50.0f);
    xt_close(&e);
}
END_TEST

START_TEST(mmad_cycles)
{
    xt_env e;
    xt_open(&e, "ascend910");
    dv_op_stats st = {0};
    /* f16 32x32x32: M1 = K1 = N1 = 2, 8 fractal steps; head 6 -> 14. */
    dv_op op = xt_op(DV_OP_MMAD, 0, 0, 0, mm_params(32, 32, 32));
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F16;
    ck_assert_uint_eq(dv_cube_cycles(&e.ctx, &op, false, &st), 6 + 8);
    ck_assert_uint_eq(st.fractals, 8);
    ck_assert_uint_eq(st.macs, 32 * 32 * 32);
    /* Back to back the head is hidden: 8. */
    ck_assert_uint_eq(dv_cube_cycles(&e.ctx, &op, true, &st), 8);
    /* s8 17x64x16: M1 = 2, K1 = 64/32 = 2, N1 = 1 -> 4 steps, 6 + 4. */
    op = xt_op(DV_OP_MMAD, 0, 0, 0, mm_params(17, 64, 16));
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_S8;
    ck_assert_uint_eq(dv_cube_cycles(&e.ctx, &op, false, &st), 6 + 4);
    ck_assert_uint_eq(st.macs, 17 * 64 * 16);
    xt_close(&e);
}
END_TEST

/* fp32 on the 910B: facts #6, pto-isa's 6 + mT*kT*nT*cpr with kT in
 * 8-element steps and cpr = 2.  One fractal 16x8x16: 6 + 1*1*1*2 = 8;
 * 32x32x32: M1 = 2, K1 = 32/8 = 4, N1 = 2, 16 steps -> 6 + 32 = 38 (the
 * same shape in f16 is 6 + 8: four times the cycles per MAC, 1024 vs 4096
 * MAC/cycle). */
START_TEST(mmad_f32_cycles)
{
    xt_env e;
    xt_open(&e, "ascend910b");
    dv_op_stats st = {0};
    dv_op op = xt_op(DV_OP_MMAD, 0, 0, 0, mm_params(16, 8, 16));
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F32;
    ck_assert_uint_eq(e.cfg.cube_fp32_fractal_cycles, 2);
    ck_assert_uint_eq(dv_cube_cycles(&e.ctx, &op, false, &st), 6 + 1 * 1 * 1 * 2);
    ck_assert_uint_eq(st.fractals, 1);
    ck_assert_uint_eq(st.macs, 16 * 8 * 16);
    ck_assert_uint_eq(dv_cube_cycles(&e.ctx, &op, true, &st), 2);
    op.r[3] = mm_params(32, 32, 32);
    ck_assert_uint_eq(dv_cube_cycles(&e.ctx, &op, false, &st), 6 + 2 * 4 * 2 * 2);
    ck_assert_uint_eq(st.fractals, 16);
    /* k = 9 needs a second K fractal: 6 + 2 * 2 */
    op.r[3] = mm_params(16, 9, 16);
    ck_assert_uint_eq(dv_cube_cycles(&e.ctx, &op, false, &st), 6 + 4);
    ck_assert_double_eq_tol(dv_config_core_macs_fp32(&e.cfg), 1024.0, 1e-9);
    xt_close(&e);
}
END_TEST

START_TEST(mmad_faults)
{
    xt_env e;
    xt_open(&e, "ascend910");
    dv_op op = xt_op(DV_OP_MMAD, 0, 0, 0, mm_params(16, 16, 16));
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_S32;
    ck_assert(!dv_cube_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_NONE);
    ck_assert_msg(strstr(e.ctx.fault_msg, "dtype=s32 is not one of f16, bf16, f32, s8, u8"), "%s",
                  e.ctx.fault_msg);
    /* f32 is a Cube type, but ascend910's Cube has none: an illegal
     * instruction that names the chip key */
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F32;
    ck_assert(!dv_cube_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_NONE);
    ck_assert_msg(strstr(e.ctx.fault_msg, "illegal instruction: mmad dtype=f32") &&
                      strstr(e.ctx.fault_msg, "cube.fp32_fractal_cycles = 0"),
                  "%s", e.ctx.fault_msg);
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F16;
    /* L0A not fractal aligned. */
    op.r[1] = 32;
    ck_assert(!dv_cube_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_ALIGN);
    ck_assert_int_eq(e.ctx.fault.mem, DV_MEM_L0A);
    /* C tile of 64x64 (16 KiB) starting 8 KiB before the end of L0C. */
    op = xt_op(DV_OP_MMAD, e.cfg.l0c_bytes - 8192, 0, 0, mm_params(64, 16, 64));
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F16;
    ck_assert(!dv_cube_exec(&e.ctx, &op));
    ck_assert_int_eq(e.ctx.fault.kind, DV_FAULT_RANGE);
    ck_assert_int_eq(e.ctx.fault.mem, DV_MEM_L0C);
    /* Timing-only runs check too, and a zero shape is a no-op. */
    e.ctx.data = false;
    ck_assert(!dv_cube_exec(&e.ctx, &op));
    op.r[3] = mm_params(0, 16, 16);
    ck_assert(dv_cube_exec(&e.ctx, &op));
    xt_close(&e);
}
END_TEST

Suite *xt_suite_cube(void)
{
    Suite *s = suite_create("cube");
    TCase *tc = tcase_create("mmad");
    tcase_set_timeout(tc, 100);
    tcase_add_loop_test(tc, mmad_f16_shapes, 0, NDIMS * NDIMS * NDIMS);
    tcase_add_loop_test(tc, mmad_bf16_shapes, 0, NDIMS * NDIMS * NDIMS);
    tcase_add_loop_test(tc, mmad_s8_shapes, 0, NDIMS * NDIMS * NDIMS);
    tcase_add_loop_test(tc, mmad_f32_shapes, 0, NDIMS * NDIMS * NDIMS);
    tcase_add_test(tc, mmad_inexact_products);
    tcase_add_test(tc, mmad_small_by_hand);
    tcase_add_test(tc, mmad_cycles);
    tcase_add_test(tc, mmad_f32_cycles);
    tcase_add_test(tc, mmad_faults);
    suite_add_tcase(s, tc);
    return s;
}
