/* add.c - host part of the add operator: z = x + y over N elements of f16
 * or f32 (the elementwise template: elementwise.h). */
#include "dv_kernel_blob.h"
#include "elementwise.h"

DV_KERNEL_BLOB(add_add);

static double sum(const double *x)
{
    return x[0] + x[1];
}

static const opc_ew_spec spec = {&dvk_add_add, "add", 2,
                                 sum,          1,     "|z - (x + y)| <= u |x + y| + tiny (one rounding)"};

const dv_operator dv_op_add = OPC_ELEMENTWISE(
    add, "z = x + y, elementwise (CopyIn / Compute / CopyOut, double buffered)",
    "x[N] y[N] -> z[N] (each padded to 32 bytes in GM)",
    "Block i takes per_block elements (whole L2 lines, so that no two cores share one) from i * "
    "per_block; tiles of up to 32 KiB per buffer, four UB buffers (x and y, ping and pong); the "
    "sum overwrites x in UB.",
    &spec);

DV_OPERATORS(add, &dv_op_add);
