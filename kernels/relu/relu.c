/* relu.c - host part of the relu operator: y = max(x, 0) over N elements of
 * f16 or f32, split into contiguous ranges over the vector cores (coupled
 * cores, or the AIVs of a split chip). */
#include "dv_kernel_blob.h"
#include "dv_operator.h"
#include "opcommon.h"

#include <math.h>
#include <stdio.h>

DV_KERNEL_BLOB(relu_relu);

static const char *const variants[] = {"db", NULL};
static const char *const dtypes[] = {"f16", "f32", NULL};
static const dv_operator_param params[] = {
    {"N", 1 << 20, 1, 1ull << 30, "elements"},
    {NULL, 0, 0, 0, NULL},
};

static dv_status prepare(dv_opr_run *r, dv_error *err)
{
    static const char *const inputs[] = {"x"};
    return opc_prepare_elementwise(r, &dvk_relu_relu, "relu", inputs, 1, "y", 4, err);
}

static dv_status check(dv_opr_run *r, dv_error *err)
{
    (void)err;
    dv_dtype dt = r->dtype == 0 ? DV_DT_F16 : DV_DT_F32;
    uint64_t n = dv_opr_param(r, "N");
    const uint8_t *x = dv_opr_tensor_find(r, "x")->host;
    const uint8_t *y = dv_opr_gm(r, 1);
    snprintf(r->check.tolerance, sizeof r->check.tolerance, "exact: max(x, 0) is representable, no rounding");
    for (uint64_t i = 0; i < n; i++) {
        double v = dv_opr_load(x, dt, i);
        dv_opr_compare(r, "y", 0, i, dv_opr_load(y, dt, i), v > 0 ? v : 0, 0);
    }
    return DV_OK;
}

static const dv_operator_case cases[] = {
    {"N=17", 0, "less than a block, not a multiple of 16"},
    {"N=1", 0, "one element"},
    {"N=1000", 0, "one partial tile"},
    {"N=65536", 1, "whole tiles on one core"},
    {"N=1000003", 0, "every core, a partial last tile"},
    {"N=5000", 100, "more blocks than cores, most of them idle"},
    {NULL, 0, NULL},
};

const dv_operator dv_op_relu = {
    .name = "relu",
    .summary = "y = max(x, 0), elementwise (CopyIn / Compute / CopyOut, double buffered)",
    .variants = variants,
    .dtypes = dtypes,
    .params = params,
    .tensors = "x[N] -> y[N] (each padded to 32 bytes in GM)",
    .notes =
        "Block i takes per_block elements (whole L2 lines, so that no two cores share one) from i * "
        "per_block; tiles of up to 32 KiB per buffer, four UB buffers (input and output queues, ping and "
        "pong), so MTE2 and MTE3 both stream. Inputs uniform in [-1, 1); the check is exact.",
    .prepare = prepare,
    .cases = cases,
    .check = check,
};

DV_OPERATORS(relu, &dv_op_relu);
