/* rowtile.c - the tiling of the row-wise vector operators. */
#include "rowtile.h"

#include "opcommon.h"

/* The most rows (a multiple of s->m, at most want) whose tile fits UB in
 * the mode; 0 if not even s->m rows fit. */
static uint64_t fit(row_tiling *s, row_layout_fn layout, uint64_t mode, uint64_t es, uint64_t ub,
                    uint64_t want)
{
    uint64_t nr = want < ROW_MAX_ROWS ? want : ROW_MAX_ROWS;
    for (nr -= nr % s->m; nr >= s->m; nr -= s->m)
        if (layout(s, nr, mode, es) <= ub)
            return nr;
    return 0;
}

dv_status row_tile(const dv_opr_run *r, uint64_t rows, uint64_t cols, uint64_t es, row_layout_fn layout,
                   row_tiling *s, dv_error *err)
{
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
    uint64_t ncol = s->k <= ROW_COL_MAX_K ? fit(s, layout, 0, es, ub, want) : 0;
    uint64_t nrow = fit(s, layout, 1, es, ub, want);
    if (!nrow) {
        /* The widest row that fits, for the message. */
        row_tiling w = *s;
        uint64_t need = layout(s, s->m, 1, es), fits = 0;
        w.m = 1;
        for (w.k = s->k - 1; w.k && !fits; w.k--) {
            w.p32 = w.k * 256;
            w.pio = w.k * 64 * es;
            fits = layout(&w, 1, 1, es) <= ub ? w.k * 64 : 0;
        }
        return dv_error_set(
            err, DV_ERR_INPUT,
            "%s: C=%llu needs %llu bytes of UB for one row, the chip has %llu (C <= %llu fits)", r->op->name,
            (unsigned long long)cols, (unsigned long long)need, (unsigned long long)ub,
            (unsigned long long)fits);
    }
    /* By column when that gives ops of at least k repeats, else by row. */
    if (ncol >= s->k)
        layout(s, ncol, 0, es);
    else
        layout(s, nrow, 1, es);
    return DV_OK;
}
