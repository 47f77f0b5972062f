/* core_gm.c - transfers that touch GM go through the chip's L2 and HBM.
 *
 * The GM bytes of a transfer are looked up line by line in L2 (hits and
 * misses counted for the core), then queued on two bandwidth servers shared
 * by all cores, in arrival order: the L2 server (memory.l2_bw_ratio x HBM
 * bytes per cycle) carries every GM byte, the HBM server
 * (memory.hbm_bytes_per_cycle) the line fills and write-backs.  A transfer
 * lasts at least until its bytes are through both.
 * Same-address serialisation (facts #38) is per line: after its start-up
 * (the DMA head and the GM latency, which hold no line) a transfer moves its
 * lines in order at its own rate, and a line is busy while another core's
 * transfer moves it (from the cycle that transfer reaches it to the cycle it
 * is through); a transfer starts late enough that none of its lines is
 * moved while another core moves it.  Two cores
 * streaming the same data thus run one behind the other by the time a line
 * takes, not by a whole transfer. */
#include "core_internal.h"

/* Calls fn for each GM range of the transfer (dv_xfer_gm_ranges). */
typedef void (*range_fn)(dv_core *c, uint64_t addr, uint64_t len, bool write, void *user);

typedef struct range_visit {
    dv_core *c;
    range_fn fn;
    void *user;
} range_visit;

static void visit(void *user, uint64_t addr, uint64_t len, bool write)
{
    range_visit *v = user;
    v->fn(v->c, addr, len, write, v->user);
}

static void for_each_range(dv_core *c, const dv_op *op, const dv_op_stats *st, range_fn fn, void *user)
{
    range_visit v = {c, fn, user};
    dv_xfer_gm_ranges(op, st, visit, &v);
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

/* Same-address serialisation, line by line: offset is the transfer's bytes
 * before the current range, lead its start-up cycles, cpb its cycles per
 * byte once the bytes flow. */
typedef struct owner_scan {
    uint64_t now;    /* the transfer's earliest start */
    uint64_t ready;  /* the earliest start at which every line is free when it is reached */
    uint64_t start;  /* set before the marking pass */
    uint64_t offset; /* bytes of the transfer before this range */
    double lead;     /* cycles before the first byte moves */
    double cpb;      /* cycles per byte of this transfer */
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
        if (e->line != ln + 1 || e->core == c->core_id)
            continue;
        uint64_t at = o->offset + (ln * lb > addr ? ln * lb - addr : 0); /* where the line comes in */
        uint64_t end = (ln + 1) * lb < addr + len ? (ln + 1) * lb - addr : len;
        uint64_t lead = (uint64_t)(o->lead + (double)at * o->cpb);
        uint64_t done = (uint64_t)(o->lead + (double)(o->offset + end) * o->cpb + 0.999);
        /* our copy of the line would overlap the other core's: start late
         * enough that it begins when theirs is through */
        if (o->now + lead < e->busy_until && o->now + done > e->busy_from && e->busy_until - lead > o->ready)
            o->ready = e->busy_until - lead;
    }
    o->offset += len;
}

static void mark_range(dv_core *c, uint64_t addr, uint64_t len, bool write, void *user)
{
    (void)write;
    owner_scan *o = user;
    uint64_t lb = c->cfg->l2_line_bytes;
    for (uint64_t ln = addr / lb; len && ln <= (addr + len - 1) / lb; ln++) {
        dv_gm_line *e = owner_slot(c, ln);
        uint64_t end = (ln + 1) * lb < addr + len ? (ln + 1) * lb - addr : len; /* the line is through */
        uint64_t at = o->offset + (ln * lb > addr ? ln * lb - addr : 0);
        e->line = ln + 1;
        e->core = c->core_id;
        e->busy_from = o->start + (uint64_t)(o->lead + (double)at * o->cpb);
        e->busy_until = o->start + (uint64_t)(o->lead + (double)(o->offset + end) * o->cpb + 0.999);
    }
    o->offset += len;
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
    /* The bytes flow at the path's rate; the rest of the transfer's cycles
     * (DMA head, GM latency) come first and hold no line. */
    double bw = (double)dv_path_bw(cfg, st->path), flow = bw > 0 ? (double)st->bytes / bw : 0;
    double lead = (double)path_cycles > flow ? (double)path_cycles - flow : 0;
    owner_scan o = {now, now, 0, 0, lead, st->bytes && bw > 0 ? 1.0 / bw : 0};
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
        o.start = now;
        o.offset = 0;
        /* the actual duration may exceed the path's (shared L2 / HBM) */
        double dur = (double)(cycles - (now - c->q->now));
        o.cpb = st->bytes ? (dur > lead ? dur - lead : 0) / (double)st->bytes : 0;
        for_each_range(c, op, st, mark_range, &o);
    }
    return cycles;
}
