/* core_gm.c - a transfer's GM ranges (the units' footprint,
 * dv_xfer_gm_ranges) booked on the chip's memory system (dv_gmsys). */
#include "core_gm.h"

typedef struct xfer_ref {
    const dv_op *op;
    const dv_op_stats *st;
} xfer_ref;

static void visit(const void *ctx, dv_gm_range_fn fn, void *user)
{
    const xfer_ref *x = ctx;
    dv_xfer_gm_ranges(x->op, x->st, fn, user);
}

/* The paths with GM at one end (isa/paths.def). */
static const bool touches_gm[DV_PATH_COUNT] = {
    false,
#define DV_PATH_ROW(id, ev, name, key, src, dst, min, v910, v910b, v310, doc)                                \
    DV_MEM_##src == DV_MEM_GM || DV_MEM_##dst == DV_MEM_GM,
#include "paths.def"
#undef DV_PATH_ROW
};

uint64_t core_gm_access(dv_core *c, const dv_op *op, const dv_op_stats *st, uint64_t path_cycles)
{
    if ((unsigned)st->path >= DV_PATH_COUNT || !touches_gm[st->path])
        return path_cycles;
    xfer_ref ref = {op, st};
    dv_gm_xfer x = {c->core_id, c->q->now, st->bytes, path_cycles, dv_path_bw(c->cfg, st->path), visit, &ref};
    return dv_gmsys_access(c->gmsys, &x, &c->stats.l2, &c->stats.gm_serialised_cycles);
}
