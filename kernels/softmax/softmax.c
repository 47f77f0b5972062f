/* softmax.c - host part of the softmax operator: row-wise, numerically
 * stable softmax of an R x C matrix of f16 or f32 (computed in f32 in UB),
 * rows split over the vector cores (coupled cores, or the AIVs of a split
 * chip).  The kernel and its UB layout are described in softmax.dvs. */
#include "dv_kernel_blob.h"
#include "dv_operator.h"
#include "opcommon.h"
#include "rowtile.h"

#include <math.h>
#include <stdio.h>

DV_KERNEL_BLOB(softmax_softmax);

static const char *const variants[] = {"db", NULL};
static const char *const dtypes[] = {"f16", "f32", NULL};
static const dv_operator_param params[] = {
    {"R", 1024, 1, 1 << 24, "rows"},
    {"C", 1000, 1, 16320, "columns (the softmax runs along them)"},
    {NULL, 0, 0, 0, NULL},
};

enum {
#define KERNEL_CONST(sym, value, doc) sym = value,
#include "consts.def" /* SM_FIX */
#undef KERNEL_CONST
};

static uint64_t sm_base(const row_tiling *s, uint64_t nr, uint64_t mode)
{
    (void)s, (void)nr, (void)mode;
    return SM_FIX;
}

static dv_status prepare(dv_opr_run *r, dv_error *err)
{
    dv_dtype dt = r->dtype == 0 ? DV_DT_F16 : DV_DT_F32;
    uint64_t es = dv_dtype_size(dt), rows = dv_opr_param(r, "R"), cols = dv_opr_param(r, "C");
    row_tiling s;
    dv_status st = row_tile(r, rows, cols, es, sm_base, &s, err);
    if (st != DV_OK)
        return st;
    /* 32 bytes of slack: an unaligned row is read rounded up to whole blocks. */
    uint64_t bytes = opc_round_up(rows * cols * es, 32) + 32;
    unsigned x, y;
    if ((st = opc_use_vector_kernel(r, &dvk_softmax_softmax, "softmax", es, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "x", false, bytes, &x, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "y", true, bytes, &y, err)) != DV_OK)
        return st;
    dv_opr_fill(r, x, dt, rows * cols, -4, 4, 0);
    uint64_t args[ROW_NARGS + 2];
    row_args(&s, r->t[x].addr, r->t[y].addr, rows, cols, args);
    args[ROW_NARGS] = s.pb;
    args[ROW_NARGS + 1] = s.rb;
    if ((st = opc_args(r, args, sizeof args / sizeof args[0], err)) != DV_OK ||
        (st = dv_opr_set_blocks(r, s.blocks, err)) != DV_OK)
        return st;
    /* Per element at least: max, subtract, exp, sum, scale (f32), plus the
     * two conversions of f16; x read once, y written once. */
    opc_vec_work(r, rows * cols, 4, es == 2 ? 7 : 5, (double)(rows * cols * es), (double)(rows * cols * es));
    row_describe(r, &s, cols, es);
    return DV_OK;
}

/* The error bound (see .notes): per element (|x - max| + k + 84) u32 |y|,
 * plus the f16 output rounding. */
static dv_status check(dv_opr_run *r, dv_error *err)
{
    (void)err;
    dv_dtype dt = r->dtype == 0 ? DV_DT_F16 : DV_DT_F32;
    uint64_t rows = dv_opr_param(r, "R"), cols = dv_opr_param(r, "C");
    const uint8_t *x = dv_opr_tensor_find(r, "x")->host, *y = dv_opr_gm(r, 1);
    double u32 = ldexp(1, -24), u = dt == DV_DT_F16 ? dv_opr_unit_roundoff(dt) : 0;
    double depth = (double)opc_ceil_div(cols, 64) + 80;
    snprintf(r->check.tolerance, sizeof r->check.tolerance,
             "|y - ref| <= ((|x - max| + %.0f) 2^-24%s) |ref|%s", depth + 4, u ? " + 2^-11" : "",
             u ? " + 2^-25" : "");
    for (uint64_t i = 0; i < rows; i++) {
        uint64_t base = i * cols;
        double mx = -INFINITY, sum = 0;
        for (uint64_t j = 0; j < cols; j++)
            mx = fmax(mx, dv_opr_load(x, dt, base + j));
        for (uint64_t j = 0; j < cols; j++)
            sum += exp(dv_opr_load(x, dt, base + j) - mx);
        for (uint64_t j = 0; j < cols; j++) {
            double d = dv_opr_load(x, dt, base + j) - mx, want = exp(d) / sum;
            double tol = ((fabs(d) + depth + 4) * u32 + u) * want + (u ? opc_tiny(dt) : 0);
            dv_opr_compare(r, "y", i, j, dv_opr_load(y, dt, base + j), want, tol);
        }
    }
    return DV_OK;
}

const dv_operator dv_op_softmax = {
    .name = "softmax",
    .summary =
        "row-wise softmax, y = exp(x - max) / sum exp(x - max) (CopyIn / Compute / CopyOut, double buffered)",
    .variants = variants,
    .dtypes = dtypes,
    .params = params,
    .tensors =
        "x[R,C] -> y[R,C] (rows dense, C elements apart; each tensor padded to 32 bytes plus 32 in GM)",
    .notes =
        "Block i takes per_block rows from i * per_block, in tiles of nr rows through two UB buffers; "
        "compute in f32 (f16 converted in UB), each row padded to k = ceil(C/64) repeats with -inf. Tiles of "
        "many short rows run by column (one op per 64-lane column over all rows), long rows by row. Rows of "
        "a multiple of 32 bytes move in one DMA per tile, others one DMA per row (a block's last 32 bytes "
        "gathered by the Scalar unit); blocks start on an L2 line when R allows. A row of C = 16320 fits "
        "every chip's UB. Inputs uniform in [-4, 4). Tolerance: in f32, x - max, exp (libm, < 1 ulp), the "
        "sum of at most k + 80 f32 additions (the column fold or vcadd's 64 lanes, then the block "
        "reductions), 1 / sum by vdiv and the product each round, so |y - ref| <= (|x - max| + k + 84) 2^-24 "
        "|ref|; f16 adds its output rounding, 2^-11 |ref| + 2^-25 (half an f16 subnormal step).",
    .prepare = prepare,
    .cases = row_cases,
    .check = check,
};

DV_OPERATORS(softmax, &dv_op_softmax);
