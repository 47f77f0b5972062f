/* ln.h - what layernorm.c and rmsnorm.c share: the host part of the two
 * row-wise normalisations on ln.inc (rmsnorm is layernorm without the mean
 * and beta). */
#ifndef DV_LN_H
#define DV_LN_H

#include "dv_operator.h"

#include <stdbool.h>

struct dv_kernel_blob;

/* Tiles the R x C run of r, adds x, gamma (, beta if BETA), y, fills the
 * inputs and passes the kernel BLOB its arguments with eps (as f32). */
dv_status ln_prepare(dv_opr_run *r, const struct dv_kernel_blob *blob, bool beta, double eps, dv_error *err);

extern const dv_operator dv_op_rmsnorm;

#endif
