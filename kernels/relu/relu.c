/* relu.c - host part of the relu operator: y = max(x, 0) over N elements of
 * f16 or f32 (the elementwise template: elementwise.h). */
#include "dv_kernel_blob.h"
#include "elementwise.h"

DV_KERNEL_BLOB(relu_relu);

static double relu(const double *x)
{
    return x[0] > 0 ? x[0] : 0;
}

static const opc_ew_spec spec = {&dvk_relu_relu, "relu", 1,
                                 relu,           0,      "exact: max(x, 0) is representable, no rounding"};

const dv_operator dv_op_relu = OPC_ELEMENTWISE(
    relu, "y = max(x, 0), elementwise (CopyIn / Compute / CopyOut, double buffered)",
    "x[N] -> y[N] (each padded to 32 bytes in GM)",
    "Block i takes per_block elements (whole L2 lines, so that no two cores share one) from i * "
    "per_block; tiles of up to 32 KiB per buffer, four UB buffers (input and output queues, ping "
    "and pong), so MTE2 and MTE3 both stream. Inputs uniform in [-1, 1); the check is exact.",
    &spec);

DV_OPERATORS(relu, &dv_op_relu);
