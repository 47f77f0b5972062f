/* rowtile.h - the tiling shared by the row-wise vector operators (softmax,
 * layernorm): rows split over the vector cores, tiles of rows through two
 * UB buffers, and the schedule (by 64-lane column over a tile's rows, or by
 * row).  Each operator lays out its own UB; this chooses the sizes. */
#ifndef DV_ROWTILE_H
#define DV_ROWTILE_H

#include "dv_operator.h"

enum {
    ROW_MAX_ROWS = 255, /* a tile's rows are one op's repeats (mode 0) */
    ROW_COL_MAX_K = 31, /* mode 0 strides rows by 8k blocks, at most 255 */
};

/* The tiling: rows per block and tile, schedule and UB offsets (bytes). */
typedef struct row_tiling {
    uint64_t k;   /* 64-lane repeats per row */
    uint64_t p32; /* bytes of a row in f32, padded to k repeats */
    uint64_t pio; /* bytes of a row in the I/O type, padded to k repeats */
    uint64_t m;   /* rows come in multiples of m (unaligned rows: 32 bytes' worth) */
    uint64_t per_block, blocks, nr, mode;
    uint64_t buf0, buf1, work, t, pb, rb, end;
} row_tiling;

/* Lays out UB for tiles of nr rows in mode (0 by column, 1 by row); returns
 * the bytes used. */
typedef uint64_t (*row_layout_fn)(row_tiling *s, uint64_t nr, uint64_t mode, uint64_t es);

/* Fills s for rows x cols elements of es bytes: about four tiles per block,
 * by column when that gives ops of at least k repeats, else by row.  A row
 * too wide for UB is DV_ERR_INPUT, naming the widest that fits. */
dv_status row_tile(const dv_opr_run *r, uint64_t rows, uint64_t cols, uint64_t es, row_layout_fn layout,
                   row_tiling *s, dv_error *err);

#endif
