/* rowtile.c - the tiling of the row-wise vector operators. */
#include "rowtile.h"

#include "opcommon.h"

#include <stdio.h>

/* Lays out UB for tiles of nr rows in the given mode; returns the bytes used. */
static uint64_t layout(row_tiling *s, row_base_fn base, uint64_t nr, uint64_t mode, uint64_t es)
{
    uint64_t io = nr * s->pio;
    s->nr = nr;
    s->mode = mode;
    s->buf0 = base(s, nr, mode);
    s->buf1 = s->buf0 + io + UB_SKEW;
    s->work = s->buf1 + io + UB_SKEW;
    s->t = s->work + (es == 2 ? nr * s->p32 : 0);
    s->pb = s->t + (mode == 0 ? nr * 256 : 0);
    s->rb = s->pb + (mode == 0 ? nr * 32 : 0);
    s->end = s->rb + opc_round_up(nr, 8) * 32;
    return s->end;
}

/* The most rows (a multiple of s->m, at most want) whose tile fits UB in
 * the mode; 0 if not even s->m rows fit. */
static uint64_t fit(row_tiling *s, row_base_fn base, uint64_t mode, uint64_t es, uint64_t ub, uint64_t want)
{
    uint64_t nr = want < ROW_MAX_ROWS ? want : ROW_MAX_ROWS;
    for (nr -= nr % s->m; nr >= s->m; nr -= s->m)
        if (layout(s, base, nr, mode, es) <= ub)
            return nr;
    return 0;
}

dv_status row_tile(const dv_opr_run *r, uint64_t rows, uint64_t cols, uint64_t es, row_base_fn base,
                   row_tiling *s, dv_error *err)
{
    if (rows * cols > (1ull << 28))
        return dv_error_set(err, DV_ERR_INPUT, "%s: R*C = %llu elements is more than 2^28", r->op->name,
                            (unsigned long long)(rows * cols));
    uint64_t ub = r->cfg->ub_bytes, rowb = cols * es;
    s->k = opc_ceil_div(cols, 64);
    s->p32 = s->k * 256;
    s->pio = s->k * 64 * es;
    /* Unaligned rows: a non-final block and a block's last tile span at
     * least 32 bytes (the kernels write a block's last 32 bytes whole). */
    s->m = rowb % 32 == 0 ? 1 : opc_ceil_div(32, rowb);
    opc_split_rows(r, rows, rowb, s->m, &s->blocks, &s->per_block);
    /* About four tiles per block, so that loads and stores overlap compute,
     * unless UB holds fewer rows. */
    uint64_t want = opc_round_up(opc_ceil_div(s->per_block, 4), s->m);
    uint64_t ncol = s->k <= ROW_COL_MAX_K ? fit(s, base, 0, es, ub, want) : 0;
    uint64_t nrow = fit(s, base, 1, es, ub, want);
    if (!nrow) {
        /* The widest row that fits, for the message. */
        row_tiling w = *s;
        uint64_t need = layout(s, base, s->m, 1, es), fits = 0;
        w.m = 1;
        for (w.k = s->k - 1; w.k && !fits; w.k--) {
            w.p32 = w.k * 256;
            w.pio = w.k * 64 * es;
            fits = layout(&w, base, 1, 1, es) <= ub ? w.k * 64 : 0;
        }
        return dv_error_set(
            err, DV_ERR_INPUT,
            "%s: C=%llu needs %llu bytes of UB for one row, the chip has %llu (C <= %llu fits)", r->op->name,
            (unsigned long long)cols, (unsigned long long)need, (unsigned long long)ub,
            (unsigned long long)fits);
    }
    /* By column when that gives ops of at least k repeats, else by row. */
    if (ncol >= s->k)
        layout(s, base, ncol, 0, es);
    else
        layout(s, base, nrow, 1, es);
    return DV_OK;
}

void row_args(const row_tiling *s, uint64_t x, uint64_t y, uint64_t rows, uint64_t cols, uint64_t *args)
{
    const uint64_t a[ROW_NARGS] = {x,    y,       rows,    s->per_block, s->nr,   cols,
                                   s->k, s->mode, s->buf0, s->buf1,      s->work, s->t};
    for (unsigned i = 0; i < ROW_NARGS; i++)
        args[i] = a[i];
}

void row_describe(dv_opr_run *r, const row_tiling *s, uint64_t cols, uint64_t es)
{
    snprintf(
        r->tiling, sizeof r->tiling,
        "%llu blocks of %llu rows, tiles of %llu rows by %s, %llu repeats per row, %s DMA, UB %llu of %llu",
        (unsigned long long)s->blocks, (unsigned long long)s->per_block, (unsigned long long)s->nr,
        s->mode ? "row" : "column", (unsigned long long)s->k, cols * es % 32 ? "per-row" : "one",
        (unsigned long long)s->end, (unsigned long long)r->cfg->ub_bytes);
}

/* The row operators' test cases: what the row machinery must get right. */
const dv_operator_case row_cases[] = {ROW_CASE_LIST, {NULL, 0, NULL}};
