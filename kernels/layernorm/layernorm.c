/* layernorm.c - host part of the layernorm operator: y = (x - mean) /
 * sqrt(var + eps) * gamma + beta along the rows of an R x C matrix of f16
 * or f32 (computed in f32 in UB), biased variance, eps = 1e-5, rows split
 * over the vector cores.  The kernel and its UB layout are described in
 * layernorm.dvs. */
#include "dv_fp.h"
#include "dv_kernel_blob.h"
#include "dv_operator.h"
#include "ln.h"
#include "opcommon.h"
#include "rowtile.h"

#include <math.h>
#include <stdio.h>

DV_KERNEL_BLOB(layernorm_layernorm);

static const char *const variants[] = {"db", NULL};
static const char *const dtypes[] = {"f16", "f32", NULL};
static const dv_operator_param params[] = {
    {"R", 1024, 1, 1 << 24, "rows"},
    {"C", 1000, 1, 16320, "columns (normalised along them)"},
    {NULL, 0, 0, 0, NULL},
};

#define LN_EPS 1e-5

enum {
#define KERNEL_CONST(sym, value, doc) sym = value,
#include "consts.def" /* LN_G */
#undef KERNEL_CONST
};

/* buf0 follows G, B (a row of f32 each; rmsnorm: G only) and U (mode 0: a
 * column of the tile, mode 1: a row). */
static uint64_t ln_base(const row_tiling *s, uint64_t nr, uint64_t mode)
{
    uint64_t u = mode == 0 ? nr * 256 : s->p32;
    return LN_G + 2 * s->p32 + u + UB_SKEW;
}
static uint64_t rn_base(const row_tiling *s, uint64_t nr, uint64_t mode)
{
    return ln_base(s, nr, mode) - s->p32;
}

dv_status ln_prepare(dv_opr_run *r, const struct dv_kernel_blob *blob, bool beta, double eps, dv_error *err)
{
    dv_dtype dt = r->dtype == 0 ? DV_DT_F16 : DV_DT_F32;
    uint64_t es = dv_dtype_size(dt), rows = dv_opr_param(r, "R"), cols = dv_opr_param(r, "C");
    row_tiling s;
    dv_status st = row_tile(r, rows, cols, es, beta ? ln_base : rn_base, &s, err);
    if (st != DV_OK)
        return st;
    /* 32 bytes of slack: unaligned rows are read rounded up to whole blocks. */
    uint64_t bytes = opc_round_up(rows * cols * es, 32) + 32, pbytes = opc_round_up(cols * es, 32) + 32;
    unsigned x, g, b = 0, y;
    if ((st = opc_use_vector_kernel(r, blob, r->op->name, es, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "x", false, bytes, &x, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "gamma", false, pbytes, &g, err)) != DV_OK ||
        (beta && (st = dv_opr_tensor_add(r, "beta", false, pbytes, &b, err)) != DV_OK) ||
        (st = dv_opr_tensor_add(r, "y", true, bytes, &y, err)) != DV_OK)
        return st;
    /* x off centre, so that the mean matters. */
    dv_opr_fill(r, x, dt, rows * cols, -2, 3, 0);
    dv_opr_fill(r, g, dt, cols, 0.5, 1.5, 1);
    if (beta)
        dv_opr_fill(r, b, dt, cols, -0.5, 0.5, 2);
    uint64_t consts = dv_f32_bits((float)(1.0 / (double)cols)) | (uint64_t)dv_f32_bits((float)eps) << 32;
    uint64_t args[ROW_NARGS + 4];
    row_args(&s, r->t[x].addr, r->t[y].addr, rows, cols, args);
    args[ROW_NARGS] = s.pb | s.rb << 32; /* lay */
    args[ROW_NARGS + 1] = r->t[g].addr;
    args[ROW_NARGS + 2] = beta ? r->t[b].addr : 0;
    args[ROW_NARGS + 3] = consts;
    if ((st = opc_args(r, args, sizeof args / sizeof args[0], err)) != DV_OK ||
        (st = dv_opr_set_blocks(r, s.blocks, err)) != DV_OK)
        return st;
    /* Per element at least: layernorm: sum, subtract, square, sum of
     * squares, times rstd, times gamma, plus beta; rmsnorm: square, sum of
     * squares, times rstd, times gamma (f32), and the two conversions of
     * f16; x read once, y written once (gamma and beta are C elements). */
    double ops = (beta ? 7 : 4) + (es == 2 ? 2 : 0);
    opc_vec_work(r, rows * cols, 4, ops, (double)((rows + (beta ? 2 : 1)) * cols * es),
                 (double)(rows * cols * es));
    row_describe(r, &s, cols, es);
    return DV_OK;
}

static dv_status prepare(dv_opr_run *r, dv_error *err)
{
    return ln_prepare(r, &dvk_layernorm_layernorm, true, LN_EPS, err);
}

/* The error bound (see .notes). */
static dv_status check(dv_opr_run *r, dv_error *err)
{
    (void)err;
    dv_dtype dt = r->dtype == 0 ? DV_DT_F16 : DV_DT_F32;
    uint64_t rows = dv_opr_param(r, "R"), cols = dv_opr_param(r, "C");
    const uint8_t *x = dv_opr_tensor_find(r, "x")->host, *y = dv_opr_gm(r, 3);
    const uint8_t *g = dv_opr_tensor_find(r, "gamma")->host, *b = dv_opr_tensor_find(r, "beta")->host;
    double u32 = ldexp(1, -24), u = dt == DV_DT_F16 ? dv_opr_unit_roundoff(dt) : 0;
    double depth = (double)opc_ceil_div(cols, 64) + 80;
    snprintf(r->check.tolerance, sizeof r->check.tolerance,
             "|y - ref| <= 2^-24 (%.0f |z g| + %.0f A rstd |g| + |ref|)%s, z = (x - mean) rstd, A = mean |x|",
             depth / 2 + 9, depth + 2, u ? " + 2^-11 |ref| + 2^-25" : "");
    for (uint64_t i = 0; i < rows; i++) {
        uint64_t base = i * cols;
        double sum = 0, abs = 0, sq = 0;
        for (uint64_t j = 0; j < cols; j++) {
            double v = dv_opr_load(x, dt, base + j);
            sum += v;
            abs += fabs(v);
        }
        double mean = sum / (double)cols;
        for (uint64_t j = 0; j < cols; j++) {
            double d = dv_opr_load(x, dt, base + j) - mean;
            sq += d * d;
        }
        double rstd = 1 / sqrt(sq / (double)cols + (double)(float)LN_EPS), a = abs / (double)cols;
        for (uint64_t j = 0; j < cols; j++) {
            double gj = dv_opr_load(g, dt, j), z = (dv_opr_load(x, dt, base + j) - mean) * rstd;
            double want = z * gj + dv_opr_load(b, dt, j);
            double tol =
                u32 * ((depth / 2 + 9) * fabs(z * gj) + (depth + 2) * a * rstd * fabs(gj) + fabs(want)) +
                u * fabs(want) + (u ? opc_tiny(dt) : 0);
            dv_opr_compare(r, "y", i, j, dv_opr_load(y, dt, base + j), want, tol);
        }
    }
    return DV_OK;
}

const dv_operator dv_op_layernorm = {
    .name = "layernorm",
    .summary =
        "row-wise layer norm, y = (x - mean) / sqrt(var + eps) * gamma + beta (CopyIn / Compute / CopyOut, "
        "double buffered)",
    .variants = variants,
    .dtypes = dtypes,
    .params = params,
    .tensors =
        "x[R,C] gamma[C] beta[C] -> y[R,C] (rows dense, C elements apart; each tensor padded to 32 bytes "
        "plus 32 in GM)",
    .notes =
        "Biased variance, eps = 1e-5, two passes (mean, then the mean of squared deviations). Block i takes "
        "per_block rows from i * per_block, in tiles of nr rows through two UB buffers; compute in f32 (f16 "
        "converted in UB), rows zero-padded to k = ceil(C/64) repeats; gamma and beta loaded once per block. "
        "Tiles of many short rows run by column, long rows by row. Rows of a multiple of 32 bytes move in "
        "one DMA per tile, others one DMA per row (a block's last 32 bytes gathered by the Scalar unit); "
        "blocks start on an L2 line when R allows. UB holds x, gamma, beta and the squares as f32 rows: C <= "
        "9664 on ascend910b, 12992 on ascend910. Inputs: x in [-2, 3), gamma in [0.5, 1.5), beta in [-0.5, "
        "0.5). Tolerance, first order in u = 2^-24, D = k + 80 f32 additions per sum: the mean is off by (D "
        "+ 2) u A (A = mean |x|), var by (D + 5) u relative, rstd (vsqrt, vdiv: IEEE) by (D/2 + 6) u, then "
        "three roundings: |y - ref| <= u ((D/2 + 9) |z g| + (D + 2) A rstd |g| + |ref|), z = (x - mean) "
        "rstd; f16 adds its output rounding, 2^-11 |ref| + 2^-25.",
    .prepare = prepare,
    .cases = row_cases,
    .check = check,
};

DV_OPERATORS(layernorm, &dv_op_layernorm, &dv_op_rmsnorm);
