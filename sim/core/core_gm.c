/* core_gm.c - transfers that touch GM go through the chip's L2 and HBM.
 *
 * The GM bytes of a transfer are looked up line by line in L2 (hits and
 * misses counted for the core), then queued on two bandwidth servers shared
 * by all cores, in arrival order: the L2 server (memory.l2_bw_ratio x HBM
 * bytes per cycle) carries every GM byte, the HBM server
 * (memory.hbm_bytes_per_cycle) the line fills and write-backs.  A transfer
 * lasts at least until its bytes are through both.  Lines that another core
 * is still transferring hold this transfer back until they are free. */
#include "core_internal.h"

/* The GM ranges of a transfer: bursts for the copies; for nd2nz reads and
 * FixPipe writes one range from the GM operand (an approximation for their
 * strided layouts).  Calls fn for each range. */
typedef void (*range_fn)(dv_core *c, uint64_t addr, uint64_t len, bool write, void *user);

static void for_each_range(dv_core *c, const dv_op *op, const dv_op_stats *st, range_fn fn, void *user)
{
    const dv_insn *in = &op->insn;
    switch (in->op) {
    case DV_OP_COPY_GM_L1:
    case DV_OP_COPY_GM_UB:
    case DV_OP_COPY_UB_GM: {
        /* the burst layout of isa_params.def, in 32-byte blocks */
        const dv_layout *l = dv_layout_get(DV_LAYOUT_BURST);
        bool write = in->op == DV_OP_COPY_UB_GM;
        uint64_t p = op->r[2], nb = dv_layout_extract(l, p, "nburst"),
                 len = dv_layout_extract(l, p, "len") * 32;
        uint64_t gap = dv_layout_extract(l, p, write ? "dstgap" : "srcgap") * 32;
        uint64_t base = write ? op->r[0] : op->r[1];
        for (uint64_t i = 0; i < nb; i++)
            fn(c, base + i * (len + gap), len, write, user);
        return;
    }
    default: {
        bool write = st->path == DV_PATH_L0C_GM;
        fn(c, write ? op->r[0] : op->r[1], st->bytes, write, user);
        return;
    }
    }
}

static void l2_range(dv_core *c, uint64_t addr, uint64_t len, bool write, void *user)
{
    uint64_t *hbm = user;
    if (c->gmsys->l2) {
        *hbm += dv_l2_access(c->gmsys->l2, addr, len, write, &c->stats.l2);
    } else {
        *hbm += len;
        if (write)
            c->stats.l2.write_misses++;
        else
            c->stats.l2.read_misses++;
    }
}

/* Same-address serialisation (facts #38): a line another core is still
 * transferring delays this transfer until that transfer is done. */
typedef struct owner_scan {
    uint64_t ready;  /* the cycle every touched line is free */
    uint64_t finish; /* set before the marking pass */
} owner_scan;

static dv_gm_line *owner_slot(dv_core *c, uint64_t line)
{
    return &c->gmsys->owners[line % DV_GM_OWNER_SLOTS];
}

static void scan_range(dv_core *c, uint64_t addr, uint64_t len, bool write, void *user)
{
    (void)write;
    owner_scan *o = user;
    uint64_t lb = c->cfg->l2_line_bytes;
    for (uint64_t ln = addr / lb; len && ln <= (addr + len - 1) / lb; ln++) {
        dv_gm_line *e = owner_slot(c, ln);
        if (e->line == ln + 1 && e->core != c->core_id && e->busy_until > o->ready)
            o->ready = e->busy_until;
    }
}

static void mark_range(dv_core *c, uint64_t addr, uint64_t len, bool write, void *user)
{
    (void)write;
    owner_scan *o = user;
    uint64_t lb = c->cfg->l2_line_bytes;
    for (uint64_t ln = addr / lb; len && ln <= (addr + len - 1) / lb; ln++) {
        dv_gm_line *e = owner_slot(c, ln);
        e->line = ln + 1;
        e->core = c->core_id;
        e->busy_until = o->finish;
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
    uint64_t now = c->q->now, cycles = path_cycles, hbm_bytes = 0;
    owner_scan o = {now, 0};
    if (c->gmsys->owners)
        for_each_range(c, op, st, scan_range, &o);
    if (o.ready > now) {
        c->stats.gm_serialised_cycles += o.ready - now;
        now = o.ready; /* the transfer's bytes start once the lines are free */
    }
    for_each_range(c, op, st, l2_range, &hbm_bytes);
    if (c->gmsys->l2) {
        uint64_t t = serve(&c->gmsys->l2_free, now, st->bytes, cfg->hbm_bytes_per_cycle * cfg->l2_bw_ratio);
        cycles = t > cycles ? t : cycles;
    }
    if (hbm_bytes) {
        uint64_t t = serve(&c->gmsys->hbm_free, now, hbm_bytes, cfg->hbm_bytes_per_cycle);
        cycles = t > cycles ? t : cycles;
    }
    cycles += now - c->q->now; /* the wait for lines held by other cores */
    if (c->gmsys->owners) {
        o.finish = c->q->now + cycles;
        for_each_range(c, op, st, mark_range, &o);
    }
    return cycles;
}
