/* layernorm.c - host part of the layernorm operator: y = (x - mean) /
 * sqrt(var + eps) * gamma + beta along the rows of an R x C matrix of f16
 * or f32 (computed in f32 in UB), biased variance, eps = 1e-5, rows split
 * over the vector cores.  The kernel and its UB layout are described in
 * layernorm.dvs. */
#include "dv_fp.h"
#include "dv_kernel_blob.h"
#include "dv_operator.h"
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
    LN_G = 1152,   /* gamma, beta and U follow the fixed scratch (layernorm.dvs) */
    LN_SKEW = 256, /* between the big buffers */
};

typedef row_tiling ln_tiling;

/* Lays out UB for tiles of nr rows in the given mode; returns the bytes used. */
static uint64_t ln_layout(ln_tiling *s, uint64_t nr, uint64_t mode, uint64_t es)
{
    uint64_t io = nr * s->pio, u = mode == 0 ? nr * 256 : s->p32;
    s->nr = nr;
    s->mode = mode;
    s->buf0 = LN_G + 2 * s->p32 + u + LN_SKEW;
    s->buf1 = s->buf0 + io + LN_SKEW;
    s->work = s->buf1 + io + LN_SKEW;
    s->t = s->work + (es == 2 ? nr * s->p32 : 0);
    s->pb = s->t + (mode == 0 ? nr * 256 : 0);
    s->rb = s->pb + (mode == 0 ? nr * 32 : 0);
    s->end = s->rb + opc_round_up(nr, 8) * 32;
    return s->end;
}

static dv_status prepare(dv_opr_run *r, dv_error *err)
{
    dv_dtype dt = r->dtype == 0 ? DV_DT_F16 : DV_DT_F32;
    uint64_t es = dv_dtype_size(dt), rows = dv_opr_param(r, "R"), cols = dv_opr_param(r, "C");
    if (rows * cols > (1ull << 28))
        return dv_error_set(err, DV_ERR_INPUT, "layernorm: R*C = %llu elements is more than 2^28",
                            (unsigned long long)(rows * cols));
    ln_tiling s;
    dv_status st = row_tile(r, rows, cols, es, ln_layout, &s, err);
    if (st != DV_OK)
        return st;
    const char *kernel = r->cfg->split ? (es == 2 ? "layernorm_f16_aiv" : "layernorm_f32_aiv")
                                       : (es == 2 ? "layernorm_f16" : "layernorm_f32");
    /* 32 bytes of slack: unaligned rows are read rounded up to whole blocks. */
    uint64_t bytes = opc_round_up(rows * cols * es, 32) + 32, pbytes = opc_round_up(cols * es, 32) + 32;
    unsigned x, g, b, y;
    if ((st = dv_opr_use_kernel(r, &dvk_layernorm_layernorm, kernel, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "x", false, bytes, &x, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "gamma", false, pbytes, &g, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "beta", false, pbytes, &b, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "y", true, bytes, &y, err)) != DV_OK)
        return st;
    /* x off centre, so that the mean matters. */
    dv_opr_fill(r, x, dt, rows * cols, -2, 3, 0);
    dv_opr_fill(r, g, dt, cols, 0.5, 1.5, 1);
    dv_opr_fill(r, b, dt, cols, -0.5, 0.5, 2);
    uint64_t consts = dv_f32_bits((float)(1.0 / (double)cols)) | (uint64_t)dv_f32_bits((float)LN_EPS) << 32;
    uint64_t args[] = {r->t[x].addr, r->t[y].addr, rows,   s.per_block,       s.nr,         cols,
                       s.k,          s.mode,       s.buf0, s.buf1,            s.work,       s.t,
                       s.pb | s.rb << 32, r->t[g].addr, r->t[b].addr, consts};
    if ((st = opc_args(r, args, sizeof args / sizeof args[0], err)) != DV_OK ||
        (st = dv_opr_set_blocks(r, s.blocks, err)) != DV_OK)
        return st;
    /* Per element at least: sum, subtract, square, sum of squares, times
     * rstd, times gamma, plus beta (f32), and the two conversions of f16;
     * x read once, y written once (gamma and beta are C elements). */
    opc_vec_work(r, rows * cols, 4, es == 2 ? 9 : 7, (double)((rows + 2) * cols * es),
                 (double)(rows * cols * es));
    snprintf(
        r->tiling, sizeof r->tiling,
        "%llu blocks of %llu rows, tiles of %llu rows by %s, %llu repeats per row, %s DMA, UB %llu of %llu",
        (unsigned long long)s.blocks, (unsigned long long)s.per_block, (unsigned long long)s.nr,
        s.mode ? "row" : "column", (unsigned long long)s.k, cols * es % 32 ? "per-row" : "one",
        (unsigned long long)s.end, (unsigned long long)r->cfg->ub_bytes);
    return DV_OK;
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

static const dv_operator_case cases[] = {
    {"R=64,C=1000", 0, "rows not a multiple of 16 elements, every core"},
    {"R=1,C=1", 0, "one element"},
    {"R=8,C=64", 0, "one tile"},
    {"R=7,C=17", 0, "C not a multiple of 16"},
    {"R=100,C=17", 0, "row bytes not a multiple of 32"},
    {"R=3,C=8192", 0, "long rows: several repeats, two-level reductions"},
    {"R=200,C=1000", 0, "many rows per core"},
    {"R=300,C=96", 100, "more blocks than cores"},
    {NULL, 0, NULL},
};

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
    .cases = cases,
    .check = check,
};

DV_OPERATORS(layernorm, &dv_op_layernorm);
