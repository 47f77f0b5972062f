/* conv2d_tiling.h - the conv2d tiling function: how a chip's buffers cut
 * the output of a convolution into tiles of positions x channels, the
 * input channels into L1 chunks and K into L0 steps, and the record the
 * kernel reads (its fields are the rows of tiling.def). */
#ifndef DV_CONV2D_TILING_H
#define DV_CONV2D_TILING_H

#include "dv_config.h"
#include "dv_status.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct cv_problem {
    uint64_t n, c, h, w, co, kh, kw, sh, sw, ph, pw, dh, dw;
    bool bias, relu; /* fused on the output path */
    uint64_t blocks; /* 0: the tiling chooses */
} cv_problem;

/* The tiling: first the record's fields, one u64 per row of tiling.def
 * (the kernel reads the same rows as byte offsets), then what the host
 * keeps for itself. */
typedef struct cv_tiling {
#define TILING_FIELD(member, sym, doc) uint64_t member;
#include "tiling.def"
#undef TILING_FIELD
    uint64_t blocks;             /* block_dim (not in the record) */
    uint64_t rows;               /* largest strip, input rows (not in the record) */
    double est_cycles;           /* the model's estimate of the busiest core */
    double strip_loads, w_loads; /* per block, for the description */
} cv_tiling;

/* Output size of one axis; false if the dilated kernel is wider than the
 * padded input. */
bool cv_out_dim(uint64_t in, uint64_t pad, uint64_t k, uint64_t dil, uint64_t stride, uint64_t *out);
/* DV_ERR_INPUT with one line for a shape the kernel cannot take (padding of
 * a whole window, a feature map or output larger than the DMA fields, no
 * tiling that fits the chip's buffers). */
dv_status cv_tile(const dv_chip_config *cfg, const cv_problem *p, cv_tiling *t, dv_error *err);

#endif
