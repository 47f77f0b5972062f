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

uint64_t core_gm_access(dv_core *c, const dv_op *op, const dv_op_stats *st, uint64_t path_cycles)
{
    return core_gm_access_at(c, op, st, path_cycles, c->q->now);
}

uint64_t core_gm_access_at(dv_core *c, const dv_op *op, const dv_op_stats *st, uint64_t path_cycles,
                           uint64_t start)
{
    if ((unsigned)st->path >= DV_PATH_COUNT || st->path == DV_PATH_NONE ||
        (dv_path_src(st->path) != DV_MEM_GM && dv_path_dst(st->path) != DV_MEM_GM))
        return path_cycles;
    xfer_ref ref = {op, st};
    dv_gm_xfer x = {c->core_id, start, st->bytes, path_cycles, dv_path_bw(c->cfg, st->path), visit, &ref};
    return dv_gmsys_access(c->gmsys, &x, &c->stats.l2, &c->stats.gm_serialised_cycles);
}
