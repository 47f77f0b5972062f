/* add.c - host part of the add operator: z = x + y over N elements of f16
 * or f32, split into contiguous ranges over the vector cores (coupled cores,
 * or the AIVs of a split chip). */
#include "dv_kernel_blob.h"
#include "dv_operator.h"
#include "opcommon.h"

#include <math.h>
#include <stdio.h>

DV_KERNEL_BLOB(add_add);

static const char *const variants[] = {"db", NULL};
static const char *const dtypes[] = {"f16", "f32", NULL};
static const dv_operator_param params[] = {
    {"N", 1 << 20, 1, 1ull << 30, "elements"},
    {NULL, 0, 0, 0, NULL},
};

static dv_status prepare(dv_opr_run *r, dv_error *err)
{
    static const char *const inputs[] = {"x", "y"};
    return opc_prepare_elementwise(r, &dvk_add_add, "add", inputs, 2, "z", 4, err);
}

static dv_status check(dv_opr_run *r, dv_error *err)
{
    (void)err;
    dv_dtype dt = r->dtype == 0 ? DV_DT_F16 : DV_DT_F32;
    uint64_t n = dv_opr_param(r, "N");
    const uint8_t *x = dv_opr_tensor_find(r, "x")->host, *y = dv_opr_tensor_find(r, "y")->host;
    const uint8_t *z = dv_opr_gm(r, 2);
    double u = dv_opr_unit_roundoff(dt);
    snprintf(r->check.tolerance, sizeof r->check.tolerance,
             "|z - (x + y)| <= u |x + y| + tiny (one rounding, u = 2^%d)", (int)log2(u));
    for (uint64_t i = 0; i < n; i++) {
        double want = dv_opr_load(x, dt, i) + dv_opr_load(y, dt, i);
        dv_opr_compare(r, "z", 0, i, dv_opr_load(z, dt, i), want, u * fabs(want) + opc_tiny(dt));
    }
    return DV_OK;
}

static const dv_operator_case cases[] = {
    {"N=17", 0, "less than a block, not a multiple of 16"},
    {"N=1", 0, "one element"},
    {"N=1000", 0, "one partial tile"},
    {"N=16384", 1, "whole tiles on one core"},
    {"N=1000003", 0, "every core, a partial last tile"},
    {"N=5000", 100, "more blocks than cores, most of them idle"},
    {NULL, 0, NULL},
};

const dv_operator dv_op_add = {
    .name = "add",
    .summary = "z = x + y, elementwise (CopyIn / Compute / CopyOut, double buffered)",
    .variants = variants,
    .dtypes = dtypes,
    .params = params,
    .tensors = "x[N] y[N] -> z[N] (each padded to 32 bytes in GM)",
    .notes = "Block i takes per_block elements (whole L2 lines) from i * per_block; tiles of up to 32 KiB "
             "per buffer, four UB "
             "buffers.",
    .prepare = prepare,
    .cases = cases,
    .check = check,
};

DV_OPERATORS(add, &dv_op_add);
