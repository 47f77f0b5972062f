/* rowtile.h - the host side of the row-wise vector operators (softmax,
 * layernorm; their kernels are on kernels/lib/rows.inc): rows split over the
 * vector cores, tiles of rows through two UB buffers, the schedule (by 64-lane
 * column over a tile's rows, or by row), the UB layout above the operator's
 * fixed scratch and the kernel arguments they share. */
#ifndef DV_ROWTILE_H
#define DV_ROWTILE_H

#include "dv_operator.h"

enum {
    ROW_MAX_ROWS = 255, /* a tile's rows are one op's repeats (mode 0) */
    ROW_COL_MAX_K = 31, /* mode 0 strides rows by 8k blocks, at most 255 */
#define KERNEL_CONST(sym, value, doc) sym = value,
#include "lib/rows.def" /* ROW_NARGS: rows.inc checks its row_arg lines against it */
#undef KERNEL_CONST
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

/* The UB offset of buf0 for tiles of nr rows in mode (0 by column, 1 by
 * row): the operator's fixed scratch (and whatever it keeps per block) lies
 * below it.  s->k, p32 and pio are set. */
typedef uint64_t (*row_base_fn)(const row_tiling *s, uint64_t nr, uint64_t mode);

/* Fills s for rows x cols elements of es bytes: about four tiles per block,
 * by column when that gives ops of at least k repeats, else by row; UB from
 * base() up holds buf0, buf1 (nr rows of pio bytes, UB_SKEW apart), work
 * (f16: nr rows of f32), T (mode 0: nr repeats), PB (mode 0: nr blocks) and
 * RB (nr blocks rounded up to 8).  More than 2^28 elements, or a row too
 * wide for UB, is DV_ERR_INPUT (naming the widest that fits). */
dv_status row_tile(const dv_opr_run *r, uint64_t rows, uint64_t cols, uint64_t es, row_base_fn base,
                   row_tiling *s, dv_error *err);

/* args[0 .. ROW_NARGS-1] = x, y, rows, per_block, nr, cols, k, mode, buf0,
 * buf1, work, t (the operator appends its own). */
void row_args(const row_tiling *s, uint64_t x, uint64_t y, uint64_t rows, uint64_t cols, uint64_t *args);

/* r->tiling in words. */
void row_describe(dv_opr_run *r, const row_tiling *s, uint64_t cols, uint64_t es);

/* The test cases of every row operator (dv_operator.cases): what the row
 * machinery must get right; an operator with cases of its own lists these
 * first. */
#define ROW_CASE_LIST                                                                                        \
    {"R=64,C=1000", 0, "rows not a multiple of 16 elements, every core"}, {"R=1,C=1", 0, "one element"},     \
        {"R=8,C=64", 0, "one tile"}, {"R=7,C=17", 0, "C not a multiple of 16"},                              \
        {"R=100,C=17", 0, "row bytes not a multiple of 32"},                                                 \
        {"R=3,C=8192", 0, "long rows: several repeats, two-level reductions"},                               \
        {"R=200,C=1000", 0, "many rows per core"},                                                           \
    {                                                                                                        \
        "R=300,C=96", 100, "more blocks than cores"                                                          \
    }
extern const dv_operator_case row_cases[];

#endif
