/* rmsnorm.c - host part of the rmsnorm operator: y = x / sqrt(mean(x^2) +
 * eps) * gamma along the rows of an R x C matrix of f16 or f32 (computed in
 * f32 in UB), eps = 10^-EPS_E, rows split over the vector cores.  It is
 * layernorm without the mean and beta: the tiling and arguments are
 * layernorm.c's (ln_prepare), the kernel is rmsnorm.dvs on ln.inc. */
#include "dv_kernel_blob.h"
#include "dv_operator.h"
#include "ln.h"
#include "opcommon.h"
#include "rowtile.h"

#include <math.h>
#include <stdio.h>

DV_KERNEL_BLOB(layernorm_rmsnorm);

static const char *const variants[] = {"db", NULL};
static const char *const dtypes[] = {"f16", "f32", NULL};
/* eps is an integer code, as operator parameters are integers: the
 * exporters write 1e-5 and 1e-6 (LLaMA), 10^-1 .. 10^-12 covers the rest. */
static const dv_operator_param params[] = {
    {"R", 1024, 1, 1 << 24, "rows"},
    {"C", 1000, 1, 16320, "columns (normalised along them)"},
    {"EPS_E", 6, 1, 12, "eps = 10^-EPS_E"},
    {NULL, 0, 0, 0, NULL},
};

/* eps as the kernel adds it (an f32), widened back. */
static double rn_eps(const dv_opr_run *r)
{
    return (double)(float)pow(10, -(double)dv_opr_param(r, "EPS_E"));
}

static dv_status prepare(dv_opr_run *r, dv_error *err)
{
    return ln_prepare(r, &dvk_layernorm_rmsnorm, false, rn_eps(r), err);
}

/* The row cases, and eps large enough to matter against mean(x^2) (about
 * 2.3 for x in [-2, 3)): 10^-1 moves rstd by 2%, far outside the tolerance,
 * so a kernel adding the wrong eps (or none) fails. */
static const dv_operator_case cases[] = {
    ROW_CASE_LIST,
    {"R=400,C=100,EPS_E=1", 0, "eps 0.1, by column"},
    {"R=3,C=3000,EPS_E=1", 0, "eps 0.1, by row"},
    {NULL, 0, NULL},
};

/* The error bound (see .notes). */
static dv_status check(dv_opr_run *r, dv_error *err)
{
    (void)err;
    dv_dtype dt = r->dtype == 0 ? DV_DT_F16 : DV_DT_F32;
    uint64_t rows = dv_opr_param(r, "R"), cols = dv_opr_param(r, "C");
    const uint8_t *x = dv_opr_tensor_find(r, "x")->host, *y = dv_opr_gm(r, 2);
    const uint8_t *g = dv_opr_tensor_find(r, "gamma")->host;
    double u32 = ldexp(1, -24), u = dt == DV_DT_F16 ? dv_opr_unit_roundoff(dt) : 0, eps = rn_eps(r);
    double depth = (double)opc_ceil_div(cols, 64) + 80, rel = u32 * (depth / 2 + 8);
    snprintf(r->check.tolerance, sizeof r->check.tolerance, "|y - ref| <= 2^-24 * %.0f |ref|%s",
             depth / 2 + 8, u ? " + 2^-11 |ref| + 2^-25" : "");
    for (uint64_t i = 0; i < rows; i++) {
        uint64_t base = i * cols;
        double sq = 0;
        for (uint64_t j = 0; j < cols; j++) {
            double v = dv_opr_load(x, dt, base + j);
            sq += v * v;
        }
        double rstd = 1 / sqrt(sq / (double)cols + eps);
        for (uint64_t j = 0; j < cols; j++) {
            double want = dv_opr_load(x, dt, base + j) * rstd * dv_opr_load(g, dt, j);
            double tol = rel * fabs(want) + u * fabs(want) + (u ? opc_tiny(dt) : 0);
            dv_opr_compare(r, "y", i, j, dv_opr_load(y, dt, base + j), want, tol);
        }
    }
    return DV_OK;
}

const dv_operator dv_op_rmsnorm = {
    .name = "rmsnorm",
    .summary = "row-wise RMS norm, y = x / sqrt(mean(x^2) + eps) * gamma (CopyIn / Compute / CopyOut, double "
               "buffered)",
    .variants = variants,
    .dtypes = dtypes,
    .params = params,
    .tensors =
        "x[R,C] gamma[C] -> y[R,C] (rows dense, C elements apart; each tensor padded to 32 bytes plus 32 "
        "in GM)",
    .notes =
        "eps = 10^-EPS_E rounded to f32, one pass (the sum of squares). layernorm's kernel without the mean "
        "pass "
        "and beta (ln.inc, the row template rows.inc): block i takes per_block rows from i * per_block, in "
        "tiles of nr rows through two UB buffers; compute in f32 (f16 converted in UB), rows zero-padded to "
        "k = "
        "ceil(C/64) repeats; gamma loaded once per block; by column for many short rows, by row for long "
        "ones; unaligned rows one DMA per row. UB holds x, gamma and the squares as f32 rows. Inputs: x in "
        "[-2, 3), gamma in [0.5, 1.5). Tolerance, first order in u = 2^-24, D = k + 80 f32 additions per "
        "sum: every term of the sum of squares is positive, so nothing cancels: the sum is off by (D + 1) u "
        "relative, times 1/C (2u), plus eps (u), vsqrt halves that and adds u/2, vdiv u, so rstd by (D/2 + "
        "3) "
        "u; then times rstd and times gamma, two roundings, and 3 u spare: |y - ref| <= (D/2 + 8) u |ref|; "
        "f16 adds its output rounding, 2^-11 |ref| + 2^-25.",
    .prepare = prepare,
    .cases = cases,
    .check = check,
};
