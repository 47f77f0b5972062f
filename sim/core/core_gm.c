/* core_gm.c - transfers that touch GM go through the chip's L2 and HBM.
 *
 * The GM bytes of a transfer are looked up line by line in L2 (hits and
 * misses counted for the core), then queued on two bandwidth servers shared
 * by all cores, in arrival order: the L2 server (memory.l2_bw_ratio x HBM
 * bytes per cycle) carries every GM byte, the HBM server
 * (memory.hbm_bytes_per_cycle) the line fills and write-backs.  A transfer
 * lasts at least until its bytes are through both. */
#include "core_internal.h"

static uint64_t lf(uint64_t word, unsigned lo, unsigned width)
{
    return (word >> lo) & ((1ull << width) - 1);
}

/* Feeds each GM range of the transfer to the L2; returns the HBM bytes. */
static uint64_t touch_l2(dv_core *c, const dv_op *op, const dv_op_stats *st)
{
    dv_l2 *l2 = c->gmsys->l2;
    dv_l2_counts *n = &c->stats.l2;
    const dv_insn *in = &op->insn;
    if (!l2) {
        bool write = st->path == DV_PATH_UB_GM || st->path == DV_PATH_L0C_GM;
        if (write)
            n->write_misses++;
        else
            n->read_misses++;
        return st->bytes;
    }
    uint64_t hbm = 0;
    switch (in->op) {
    case DV_OP_COPY_GM_L1:
    case DV_OP_COPY_GM_UB:
    case DV_OP_COPY_UB_GM: {
        /* burst layout: nburst [11:0], len [27:12], srcgap [43:28], dstgap [59:44], in 32-byte blocks */
        bool write = in->op == DV_OP_COPY_UB_GM;
        uint64_t p = op->r[2], nb = lf(p, 0, 12), len = lf(p, 12, 16) * 32;
        uint64_t gap = (write ? lf(p, 44, 16) : lf(p, 28, 16)) * 32;
        uint64_t base = write ? op->r[0] : op->r[1];
        for (uint64_t i = 0; i < nb; i++)
            hbm += dv_l2_access(l2, base + i * (len + gap), len, write, n);
        return hbm;
    }
    default: {
        /* nd2nz reads, FixPipe writes: their GM footprint as one range from
         * the GM operand (an approximation for strided layouts) */
        bool write = st->path == DV_PATH_L0C_GM;
        uint64_t base = write ? op->r[0] : op->r[1];
        return dv_l2_access(l2, base, st->bytes, write, n);
    }
    }
}

static uint64_t serve(uint64_t *free_at, uint64_t now, uint64_t bytes, uint64_t per_cycle)
{
    uint64_t start = *free_at > now ? *free_at : now;
    *free_at = start + (bytes + per_cycle - 1) / per_cycle;
    return *free_at - now;
}

uint64_t core_gm_access(dv_core *c, const dv_op *op, const dv_op_stats *st, uint64_t path_cycles)
{
    switch (st->path) {
    case DV_PATH_GM_L1:
    case DV_PATH_GM_UB:
    case DV_PATH_UB_GM:
    case DV_PATH_L0C_GM: break;
    default: return path_cycles;
    }
    const dv_chip_config *cfg = c->cfg;
    uint64_t now = c->q->now, cycles = path_cycles;
    uint64_t hbm_bytes = touch_l2(c, op, st);
    if (c->gmsys->l2) {
        uint64_t t = serve(&c->gmsys->l2_free, now, st->bytes, cfg->hbm_bytes_per_cycle * cfg->l2_bw_ratio);
        cycles = t > cycles ? t : cycles;
    }
    if (hbm_bytes) {
        uint64_t t = serve(&c->gmsys->hbm_free, now, hbm_bytes, cfg->hbm_bytes_per_cycle);
        cycles = t > cycles ? t : cycles;
    }
    return cycles;
}
