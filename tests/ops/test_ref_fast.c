/* test_ref_fast.c - the fast reference checks (kernels/refgemm.h: blocked
 * products on host threads, OpenBLAS or C kernels) against the plain
 * triple loops they replace, on every dtype and declared case of the
 * operators whose check is a product, plus shapes that take several panels
 * of rows and of columns: the same elements compared, the same decisions
 * (also on outputs corrupted on purpose), the same first mismatch, errors
 * within the order of summation's bound; and the same outcome, to the bit,
 * for any number of threads. */
#include "dv_fp.h"
#include "dv_test_main.h"
#include "ops_run.h"
#include "refgemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const product_ops[] = {"matmul", "conv2d", "conv2d_bias_relu", "attention", NULL};

/* Shapes beyond the declared cases: several row panels (256 rows) and
 * column panels (2^21 doubles of B: 672 columns at K = 3000). */
static const char *extra_shape(const char *op)
{
    if (strcmp(op, "matmul") == 0)
        return "M=300,N=700,K=3000";
    if (strncmp(op, "conv2d", 6) == 0) /* K = 9216: panels of 256 output channels */
        return "N=1,C=1024,H=6,W=6,Co=300,KH=3,KW=3";
    return NULL;
}

static dv_opr_check recheck(dv_opjob_result *r, bool plain)
{
    dv_error err = {DV_OK, ""};
    r->run->plain_reference = plain;
    ck_assert_int_eq(dv_opr_check_outputs(r->run, &err), DV_OK);
    return r->run->check;
}

/* rel: how far the largest errors may be apart, relatively: the tight way's
 * double sums differ from the plain loops' by their order (K 2^-53 sum|a b|,
 * 1e-9 is far above it); the fast way's float sums by up to
 * gamma_kslice sum|a b| (refgemm.h), in practice 10^-6 of the error. */
static void same_decisions(const char *what, const dv_opr_check *fast, const dv_opr_check *plain, double rel)
{
    ck_assert_msg(fast->compared == plain->compared && fast->mismatches == plain->mismatches,
                  "%s: fast %llu/%llu mismatches, plain %llu/%llu", what,
                  (unsigned long long)fast->mismatches, (unsigned long long)fast->compared,
                  (unsigned long long)plain->mismatches, (unsigned long long)plain->compared);
    if (plain->mismatches)
        ck_assert_msg(fast->first_row == plain->first_row && fast->first_col == plain->first_col,
                      "%s: first mismatch fast %s, plain %s", what, fast->first_bad, plain->first_bad);
    double d = fabs(fast->max_abs - plain->max_abs);
    ck_assert_msg(d <= rel * (1 + plain->max_abs) || (isinf(fast->max_abs) && isinf(plain->max_abs)),
                  "%s: max abs error fast %.17g, plain %.17g", what, fast->max_abs, plain->max_abs);
}

/* Writes a large value over a few output elements. */
static void corrupt(dv_opr_run *r)
{
    for (unsigned i = 0; i < r->ntensors; i++) {
        if (!r->t[i].output)
            continue;
        uint8_t *p = dv_opr_gm(r, i);
        uint64_t n = r->t[i].bytes;
        for (uint64_t at = 0; at + 1 < n; at += n / 5 + 2) {
            p[at & ~(uint64_t)1] = 0;
            p[(at & ~(uint64_t)1) + 1] = 0x7b; /* f16 57344; s8 0 and 123 */
        }
    }
}

static void compare_on(const char *op, const char *variant, const char *dtype, const char *shape,
                       uint64_t blocks)
{
    char what[256];
    snprintf(what, sizeof what, "%s %s %s %s", op, variant, dtype, shape);
    dv_chip_config cfg;
    dv_opjob_result r;
    ck_assert_int_eq(op_run_kept(&r, &cfg, op, "ascend910b", variant, dtype, shape, blocks, true), DV_OK);
    dv_opr_check fast = r.run->check, plain = recheck(&r, true);
    ck_assert_msg(fast.compared > 0 && fast.mismatches == 0, "%s: %s", what, fast.first_bad);
    same_decisions(what, &fast, &plain, 1e-4);
    /* the tight way (C in double, S = |A| |B|) */
    ref_gemm_set_tight(true);
    dv_opr_check tight = recheck(&r, false);
    ref_gemm_set_tight(false);
    same_decisions(what, &tight, &plain, 1e-9);
    /* a float-input product with K >= 512 takes the fast way: its check says so */
    if (strcmp(op, "attention") != 0 && strcmp(dtype, "s8") != 0 && strncmp(dtype, "s8-", 3) != 0 &&
        strstr(shape, "K=3000"))
        ck_assert_msg(strstr(fast.reference, "C in float"), "%s: %s", what, fast.reference);
    /* the C kernels, and 1 or 3 threads: the same check to the bit */
    ref_gemm_use_blas(false);
    for (unsigned t = 1; t <= 3; t += 2) {
        ref_set_threads(t);
        dv_opr_check c = recheck(&r, false);
        ck_assert_msg(c.compared == fast.compared && c.mismatches == 0, "%s: C kernels, %u threads", what, t);
        if (t == 3) {
            ref_set_threads(1);
            dv_opr_check one = recheck(&r, false);
            memset(one.reference, 0, sizeof one.reference); /* it names the threads */
            memset(c.reference, 0, sizeof c.reference);
            ck_assert_msg(memcmp(&one, &c, sizeof c) == 0, "%s: 1 and 3 threads differ", what);
        }
    }
    ref_gemm_use_blas(true);
    ref_set_threads(0);
    corrupt(r.run);
    plain = recheck(&r, true);
    fast = recheck(&r, false);
    ref_gemm_set_tight(true);
    tight = recheck(&r, false);
    ref_gemm_set_tight(false);
    snprintf(what, sizeof what, "%s %s %s %s, corrupted", op, variant, dtype, shape);
    same_decisions(what, &fast, &plain, 1e-4);
    same_decisions(what, &tight, &plain, 1e-9);
    if (strcmp(op, "attention") != 0)
        ck_assert_msg(plain.mismatches > 0, "%s: the corruption was not seen", what);
    dv_opjob_free(&r);
}

START_TEST(test_fast_equals_plain)
{
    const char *op = product_ops[_i];
    const dv_operator *o = dv_operator_find(op);
    if (!o)
        return;
    unsigned runs = 0;
    /* the variants differ in their kernels, not their check, but for the unfused conv2d_bias_relu */
    for (unsigned v = 0; o->variants[v] && (v == 0 || strcmp(op, "matmul") != 0); v++)
        for (unsigned d = 0; o->dtypes[d]; d++) {
            for (const dv_operator_case *k = o->cases; k->shape; k++, runs++)
                compare_on(op, o->variants[v], o->dtypes[d], k->shape, k->blocks);
            if (extra_shape(op))
                compare_on(op, o->variants[v], o->dtypes[d], extra_shape(op), 0), runs++;
        }
    printf("%s: fast and plain references agree on %u runs (%s)\n", op, runs, ref_gemm_backend());
}
END_TEST

/* After the launch, every input's bytes overwritten, as a kernel that
 * writes its own inputs would leave them. */
static void overwrite_inputs(void *user, dv_opr_run *r, const dv_run_result *res)
{
    (void)user, (void)res;
    for (unsigned i = 0; i < r->ntensors; i++)
        if (!r->t[i].output)
            memset(dv_opr_gm(r, i), 0x3c, (size_t)r->t[i].bytes); /* f16 1.0 everywhere */
}

/* The reference reads the inputs as they were before the run: in place in
 * GM when the run left them alone, else made again from the request (the
 * operators keep a hash of each input instead of a copy): the same check
 * either way. */
START_TEST(test_inputs_as_before)
{
    static const char *const ops[] = {"matmul", "conv2d", "attention"};
    static const char *const chips[] = {"ascend910", "ascend910", "ascend910b"};
    const char *op = ops[_i], *chip = chips[_i];
    dv_chip_config cfg;
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_config_builtin(chip, &cfg, &err), DV_OK);
    dv_opr_check checks[2];
    for (int written = 0; written < 2; written++) {
        dv_opjob job = {.op = dv_operator_find(op),
                        .req = {.seed = 7},
                        .cfg = &cfg,
                        .data = true,
                        .max_cycles = 2000000000ull,
                        .launch_end = written ? overwrite_inputs : NULL};
        dv_opjob_result r;
        ck_assert_int_eq(dv_opjob_run(&job, &r, &err), DV_OK);
        checks[written] = r.run->check;
        for (unsigned i = 0; i < r.run->ntensors; i++)
            if (!r.run->t[i].output) /* read in place only when untouched */
                ck_assert(written ? r.run->t[i].host != dv_opr_gm(r.run, i)
                                  : r.run->t[i].host == dv_opr_gm(r.run, i));
        dv_opjob_free(&r);
    }
    ck_assert_msg(checks[0].compared > 0 && checks[0].mismatches == 0, "%s: %llu mismatches", op,
                  (unsigned long long)checks[0].mismatches);
    ck_assert_uint_eq(checks[1].compared, checks[0].compared);
    ck_assert_uint_eq(checks[1].mismatches, 0);
    ck_assert(checks[1].max_abs == checks[0].max_abs);
}
END_TEST

/* ref_unsure() asks for the double sum exactly when the float C's bound
 * could move the decision: |got - want| within 3 err s of tol; ref_exact()
 * sums the block's row and column over increasing k. */
START_TEST(test_refine_band)
{
    double a[2 * 3] = {1, 2, 3, 0.5, -1, 0.25};             /* rows of A, lda 3 */
    double b[3 * 4] = {1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0}; /* B panel, ld 4 */
    float sb[2 * 4] = {128, 128, 128, 128, 128, 128, 128, 128};
    ref_refine rf = {.a = a, .b = b, .s = sb, .k = 3, .ld = 4, .err = 0x1p-10}; /* margin 3/8 */
    ck_assert(ref_exact(&rf, 0, 0) == 6);                                       /* 1 + 2 + 3 */
    ck_assert(ref_exact(&rf, 1, 2) == 0.5);                                     /* 0.25 * 2 */
    ck_assert(!ref_unsure(&rf, 0, 0, 10.5, 9.0, 2.0));    /* 1.5 <= 2 - 3/8: passes whatever c is */
    ck_assert(ref_unsure(&rf, 0, 0, 10.75, 9.0, 2.0));    /* 1.75: within 3/8 of 2 */
    ck_assert(ref_unsure(&rf, 0, 0, 7.0, 9.0, 2.0));      /* 2 exactly */
    ck_assert(ref_unsure(&rf, 0, 0, 11.375, 9.0, 2.0));   /* 2 + 3/8: not surely outside */
    ck_assert(!ref_unsure(&rf, 0, 0, 11.5, 9.0, 2.0));    /* fails whatever c is */
    ck_assert(!ref_unsure(&rf, 0, 0, NAN, 9.0, 2.0));     /* a NaN fails */
    ck_assert(ref_unsure(&rf, 0, 0, 1.0, INFINITY, 2.0)); /* a float overflow: the double decides */
    rf.err = 0;                                           /* c summed in double: nothing to refine */
    ck_assert(!ref_unsure(&rf, 0, 0, 10.75, 9.0, 2.0));
    ck_assert(!ref_unsure(NULL, 0, 0, 10.75, 9.0, 2.0));
}
END_TEST

/* A wrong result of the size a missed K slice gives (a missing flag or
 * wait in a kernel: the last 256 of K = 3000 terms left out of one
 * element) is found by the fast way, which the Cauchy-Schwarz S makes
 * looser than the plain loops' exact sum|a b|, as by the plain loops. */
START_TEST(test_missed_slice)
{
    dv_chip_config cfg;
    dv_opjob_result r;
    const char *shape = "M=300,N=700,K=3000";
    const dv_operator *o = dv_operator_find("matmul");
    ck_assert_int_eq(op_run_kept(&r, &cfg, "matmul", "ascend910b", o->variants[0], "f16", shape, 0, true),
                     DV_OK);
    ck_assert(strstr(r.run->check.reference, "C in float") && r.run->check.mismatches == 0);
    const uint8_t *a = dv_opr_tensor_find(r.run, "a")->host, *b = dv_opr_tensor_find(r.run, "b")->host;
    const float *tab = dv_fp16_table();
    uint16_t h;
    uint64_t i = 123, j = 456, n = 700, k = 3000;
    double part = 0; /* the last slice of c[i][j]: A [M, K], B [K, N] row-major */
    for (uint64_t kk = k - 256; kk < k; kk++) {
        uint16_t x, y;
        memcpy(&x, a + 2 * (i * k + kk), 2);
        memcpy(&y, b + 2 * (kk * n + j), 2);
        part += (double)tab[x] * tab[y];
    }
    const dv_opr_tensor *c = dv_opr_tensor_find(r.run, "c");
    uint8_t *cg = dv_opr_gm(r.run, (unsigned)(c - r.run->t));
    uint64_t ldc = c->bytes / 2 / 300; /* C's rows are padded */
    ck_assert_uint_ge(ldc, n);
    memcpy(&h, cg + 2 * (i * ldc + j), 2);
    h = dv_f32_to_fp16((float)(tab[h] - part));
    memcpy(cg + 2 * (i * ldc + j), &h, 2);
    dv_opr_check plain = recheck(&r, true), fast = recheck(&r, false);
    ck_assert_msg(plain.mismatches == 1 && plain.first_row == i && plain.first_col == j, "plain: %s",
                  plain.first_bad);
    ck_assert_msg(fast.mismatches == 1 && fast.first_row == i && fast.first_col == j, "fast: %s (part %g)",
                  fast.first_bad, part);
    dv_opjob_free(&r);
}
END_TEST

/* ref_gemm_check on its own: A [M, K] and B [K, N] of small integers over
 * 8 (exact in float: the fast way, c within err S of the double sum) or
 * the same times 0.1 (not exact in float: C in double); S never below the
 * exact sum|a b|. */
enum { GM = 40, GN = 70, GK = 600 };
static double gscale;
static _Atomic unsigned fast_blocks, double_blocks;

static double ga(uint64_t i, uint64_t k)
{
    return (double)((int)((i * 7 + k * 3) % 17) - 8) / 8 * gscale;
}

static double gb(uint64_t k, uint64_t j)
{
    return (double)((int)((k * 5 + j * 11) % 13) - 6) / 8;
}

static void g_load_a(const void *user, uint64_t i0, uint64_t rows, double *dst)
{
    (void)user;
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t k = 0; k < GK; k++)
            dst[r * GK + k] = ga(i0 + r, k);
}

static void g_load_b(const void *user, uint64_t j0, uint64_t cols, double *dst, uint64_t ld)
{
    (void)user;
    for (uint64_t k = 0; k < GK; k++)
        for (uint64_t c = 0; c < cols; c++)
            dst[k * ld + c] = gb(k, j0 + c);
}

static void g_visit(const void *user, dv_opr_check *chk, uint64_t i0, uint64_t rows, uint64_t j0,
                    uint64_t cols, const double *c, const float *s, uint64_t ld, const ref_refine *rf)
{
    (void)user;
    if (rf->err > 0)
        fast_blocks++;
    else
        double_blocks++;
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t cc = 0; cc < cols; cc++) {
            double sum = 0, sabs = 0;
            for (uint64_t k = 0; k < GK; k++) {
                double t = ga(i0 + r, k) * gb(k, j0 + cc);
                sum += t;
                sabs += fabs(t);
            }
            double e = fabs(c[r * ld + cc] - sum),
                   bound = rf->err > 0 ? rf->err * s[r * ld + cc] : 1e-12 * sabs;
            bool ok = e <= bound && ref_abs_bound(s[r * ld + cc], GK) >= sabs &&
                      fabs(ref_exact(rf, r, cc) - sum) <= 1e-12 * sabs;
            dv_opr_compare_to(chk, "c", i0 + r, j0 + cc, ok ? 0 : 1, 0, 0.5);
        }
}

START_TEST(test_gemm_ways)
{
    ref_gemm g = {
        .m = GM, .n = GN, .k = GK, .load_a = g_load_a, .load_b = g_load_b, .visit = g_visit, .abs = true};
    for (int inexact = 0; inexact < 2; inexact++) {
        gscale = inexact ? 0.1 : 1;
        fast_blocks = double_blocks = 0;
        dv_opr_run *r = calloc(1, sizeof *r);
        dv_error err = {DV_OK, ""};
        ck_assert_int_eq(ref_gemm_check(r, &g, &err), DV_OK);
        ck_assert_uint_eq(r->check.compared, GM * GN);
        ck_assert_msg(r->check.mismatches == 0, "%s", r->check.first_bad);
        unsigned other_way = inexact ? fast_blocks : double_blocks,
                 this_way = inexact ? double_blocks : fast_blocks;
        ck_assert_uint_eq(other_way, 0);
        ck_assert_uint_gt(this_way, 0);
        free(r);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref-fast");
    TCase *tc = tcase_create("fast-vs-plain");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_fast_equals_plain, 0, 4);
    tcase_add_loop_test(tc, test_inputs_as_before, 0, 3);
    tcase_add_test(tc, test_refine_band);
    tcase_add_test(tc, test_missed_slice);
    tcase_add_test(tc, test_gemm_ways);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
