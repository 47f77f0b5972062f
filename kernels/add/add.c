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
    dv_dtype dt = r->dtype == 0 ? DV_DT_F16 : DV_DT_F32;
    uint64_t es = dv_dtype_size(dt), n = dv_opr_param(r, "N");
    opc_vec_split s;
    dv_status st = opc_split_vector(r, n, es, 4, &s, err);
    if (st != DV_OK)
        return st;
    const char *kernel =
        r->cfg->split ? (es == 2 ? "add_f16_aiv" : "add_f32_aiv") : (es == 2 ? "add_f16" : "add_f32");
    unsigned x, y, z;
    uint64_t bytes = opc_round_up(n * es, 32);
    if ((st = dv_opr_use_kernel(r, &dvk_add_add, kernel, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "x", false, bytes, &x, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "y", false, bytes, &y, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "z", true, bytes, &z, err)) != DV_OK)
        return st;
    dv_opr_fill(r, x, dt, n, -1, 1, 0);
    dv_opr_fill(r, y, dt, n, -1, 1, 1);
    uint64_t args[] = {r->t[x].addr, r->t[y].addr, r->t[z].addr, n, s.tile, s.per_block};
    if ((st = opc_args(r, args, sizeof args / sizeof args[0], err)) != DV_OK ||
        (st = dv_opr_set_blocks(r, s.blocks, err)) != DV_OK)
        return st;
    opc_vec_work(r, n, es, 1, 2 * n * es, n * es);
    opc_describe_split(r, &s);
    return DV_OK;
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
    .check = check,
};
