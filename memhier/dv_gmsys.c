/* dv_gmsys.c - L2, HBM and same-address serialisation (see dv_gmsys.h). */
#include "dv_gmsys.h"

#include <stdlib.h>
#include <string.h>

dv_status dv_gmsys_init(dv_gmsys *g, uint64_t l2_bytes, uint64_t line_bytes, unsigned ways,
                        uint64_t hbm_bytes_per_cycle, uint64_t l2_bw_ratio, dv_error *err)
{
    memset(g, 0, sizeof *g);
    g->line_bytes = line_bytes;
    g->hbm_bytes_per_cycle = hbm_bytes_per_cycle;
    g->l2_bw_ratio = l2_bw_ratio;
    g->line_pow2 = (line_bytes & (line_bytes - 1)) == 0; /* 0 counts as 1 (l2_range) */
    while (g->line_pow2 && (1ull << g->line_shift) < line_bytes)
        g->line_shift++;
    if (l2_bytes) {
        g->l2 = dv_l2_create(l2_bytes, line_bytes, ways, err);
        if (!g->l2)
            return err ? err->status : DV_ERR_NOMEM;
    }
    return DV_OK;
}

dv_status dv_gmsys_track_owners(dv_gmsys *g, dv_error *err)
{
    if (!g->owners)
        g->owners = calloc(DV_GM_OWNER_SLOTS, sizeof *g->owners);
    return g->owners ? DV_OK : dv_error_set(err, DV_ERR_NOMEM, "out of memory");
}

/* A line the scan met: its slot and where in the transfer it comes in
 * (at) and is through (end), in bytes from the transfer's start. */
typedef struct dv_gm_mark {
    dv_gm_line *slot;
    uint64_t line, at, end;
} dv_gm_mark;

void dv_gmsys_free(dv_gmsys *g)
{
    dv_l2_destroy(g->l2);
    free(g->owners);
    free(g->marks);
    memset(g, 0, sizeof *g);
}

/* gm line number of addr: by shift when the line is a power of two (every
 * built-in chip), a 64-bit division per range otherwise */
static inline uint64_t line_of(const dv_gmsys *g, uint64_t addr)
{
    return g->line_pow2 ? addr >> g->line_shift : addr / g->line_bytes;
}

typedef struct l2_visit {
    dv_gmsys *g;
    dv_l2_counts *counts;
    uint64_t hbm;       /* bytes the access causes on HBM */
    uint64_t l2;        /* bytes of the whole lines it touches: what the L2 moves */
    uint64_t last_line; /* line number + 1 of the previous range's last line (0: none) */
} l2_visit;

static void l2_range(void *user, uint64_t addr, uint64_t len, bool write)
{
    l2_visit *v = user;
    if (len) {
        /* the L2 serves whole lines: 32 B bursts 512 B apart take a line
         * each; a line the previous range ended in is not counted again */
        uint64_t lb = v->g->line_bytes ? v->g->line_bytes : 1, first = line_of(v->g, addr),
                 last = line_of(v->g, addr + len - 1);
        uint64_t lines = last - first + 1 - (v->last_line == first + 1 ? 1 : 0);
        v->l2 += lines * lb;
        v->last_line = last + 1;
    }
    if (v->g->l2) {
        v->hbm += dv_l2_access(v->g->l2, addr, len, write, v->counts);
    } else {
        /* no L2: HBM still moves whole lines, so a burst pays for the lines it touches */
        uint64_t lb = v->g->line_bytes ? v->g->line_bytes : 1;
        v->hbm += len ? (line_of(v->g, addr + len - 1) - line_of(v->g, addr) + 1) * lb : 0;
        if (write)
            v->counts->write_misses++;
        else
            v->counts->read_misses++;
    }
}

/* Same-address serialisation, line by line: offset is the transfer's bytes
 * before the current range, lead its start-up cycles, cpb its cycles per
 * byte once the bytes flow. */
typedef struct owner_scan {
    dv_gmsys *g;
    uint64_t requester;
    uint64_t now;    /* the transfer's earliest start */
    uint64_t ready;  /* the earliest start at which every line is free when it is reached */
    uint64_t start;  /* set before the marking pass */
    uint64_t offset; /* bytes of the transfer before this range */
    double lead;     /* cycles before the first byte moves */
    double cpb;      /* cycles per byte of this transfer */
    bool unnoted;    /* a range's lines are not in g->marks: mark by a second visit */
} owner_scan;

/* Line `line`'s entry: the table is direct-mapped on line % DV_GM_OWNER_SLOTS
 * (which lines share an entry is the model's), stored in a shuffled order
 * for the host's caches.  A transfer's rows are often a power of two of
 * lines apart; in index order their entries would sit a power of two of
 * bytes apart and fall in a few sets of the host's cache, evicted before
 * the marking pass comes back to them.  The order keeps an even line and
 * the next in one host cache line (contiguous transfers) and scatters the
 * pairs (a bijection on the pair index: an odd multiplier, then the high
 * bits folded into the low). */
static dv_gm_line *owner_slot(dv_gmsys *g, uint64_t line)
{
    enum { PAIR_BITS = 15 };
    _Static_assert(DV_GM_OWNER_SLOTS == 2u << PAIR_BITS, "slots: pairs of a 15-bit index");
    uint32_t pair = (uint32_t)((line >> 1) * 40503u) & ((1u << PAIR_BITS) - 1);
    pair ^= pair >> 8;
    return &g->owners[(pair << 1) | (line & 1)];
}

/* Fetch the entry into the host's cache while the scan goes on: its lines'
 * entries are read after the visit (check_marks), by then in cache. */
static inline void owner_prefetch(const dv_gm_line *e)
{
#if defined(__GNUC__)
    __builtin_prefetch(e, 1);
#else
    (void)e;
#endif
}

static bool marks_reserve(dv_gmsys *g, size_t more)
{
    if (g->nmarks + more <= g->marks_cap)
        return true;
    size_t cap = g->marks_cap ? g->marks_cap : 256;
    while (cap < g->nmarks + more)
        cap *= 2;
    dv_gm_mark *m = realloc(g->marks, cap * sizeof *m);
    if (!m)
        return false;
    g->marks = m;
    g->marks_cap = cap;
    return true;
}

/* A line another core holds delays the transfer: our copy of it, from `at`
 * to `end` bytes into the transfer, would overlap the other core's, so the
 * transfer starts late enough that it begins when theirs is through. */
static void check_line(owner_scan *o, const dv_gm_line *e, uint64_t line, uint64_t at, uint64_t end)
{
    if (e->line != line + 1 || e->core == o->requester)
        return;
    uint64_t lead = (uint64_t)(o->lead + (double)at * o->cpb);
    uint64_t done = (uint64_t)(o->lead + (double)end * o->cpb + 0.999);
    if (o->now + lead < e->busy_until && o->now + done > e->busy_from && e->busy_until - lead > o->ready)
        o->ready = e->busy_until - lead;
}

/* The owners' lookup of a range: notes every line for the check and the
 * marking after the visit (check_marks, mark_lines), the entries fetched
 * meanwhile; without memory for the notes, o->unnoted checks the lines at
 * once and asks for a second visit to mark them (mark_range). */
static void scan_range(void *user, uint64_t addr, uint64_t len, bool write)
{
    (void)write;
    owner_scan *o = user;
    dv_gmsys *g = o->g;
    uint64_t lb = g->line_bytes, first = line_of(g, addr), last = len ? line_of(g, addr + len - 1) : 0;
    bool note = len && !o->unnoted && marks_reserve(g, last - first + 1);
    o->unnoted |= len && !note;
    for (uint64_t ln = first; len && ln <= last; ln++) {
        dv_gm_line *e = owner_slot(g, ln);
        /* where the line comes in and is through (a range in one line: its own bytes) */
        uint64_t at = o->offset, end = o->offset + len;
        if (first != last) {
            at += ln * lb > addr ? ln * lb - addr : 0;
            end = o->offset + ((ln + 1) * lb < addr + len ? (ln + 1) * lb - addr : len);
        }
        if (note) {
            g->marks[g->nmarks++] = (dv_gm_mark){e, ln, at, end};
            owner_prefetch(e);
        } else {
            check_line(o, e, ln, at, end);
        }
    }
    o->offset += len;
}

/* The noted lines' check, in the order the ranges met them; all before any
 * is marked, as a line can come twice. */
static void check_marks(owner_scan *o, const dv_gm_mark *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check_line(o, m[i].slot, m[i].line, m[i].at, m[i].end);
}

/* Both lookups of a range in one visit, when the owners are kept: the L2's
 * (which does not depend on the owners) and the owners' (which does not
 * depend on the L2).  The L2 sees the same lines in the same order as on its
 * own; the owner entries fetched stay in the host's cache for the check and
 * the marking right after. */
typedef struct both_visit {
    l2_visit l2;
    owner_scan scan;
} both_visit;

static void both_range(void *user, uint64_t addr, uint64_t len, bool write)
{
    both_visit *b = user;
    l2_range(&b->l2, addr, len, write);
    scan_range(&b->scan, addr, len, write);
}

/* The transfer's lines now held by the requester, from start, in the order
 * the ranges met them (a line met twice keeps the later times). */
static void mark_one(const owner_scan *o, dv_gm_line *e, uint64_t line, uint64_t at, uint64_t end)
{
    e->line = line + 1;
    e->core = o->requester;
    e->busy_from = o->start + (uint64_t)(o->lead + (double)at * o->cpb);
    e->busy_until = o->start + (uint64_t)(o->lead + (double)end * o->cpb + 0.999);
}

static void mark_lines(const owner_scan *o, const dv_gm_mark *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mark_one(o, m[i].slot, m[i].line, m[i].at, m[i].end);
}

/* The same by a second visit of the ranges. */
static void mark_range(void *user, uint64_t addr, uint64_t len, bool write)
{
    (void)write;
    owner_scan *o = user;
    uint64_t lb = o->g->line_bytes, last = len ? line_of(o->g, addr + len - 1) : 0;
    for (uint64_t ln = line_of(o->g, addr); len && ln <= last; ln++) {
        uint64_t end = (ln + 1) * lb < addr + len ? (ln + 1) * lb - addr : len; /* the line is through */
        uint64_t at = o->offset + (ln * lb > addr ? ln * lb - addr : 0);
        mark_one(o, owner_slot(o->g, ln), ln, at, o->offset + end);
    }
    o->offset += len;
}

/* A server in arrival order at per_cycle bytes per cycle; *free_at counts
 * in 1/per_cycle cycles (dv_gmsys).  Returns the cycles from now until the
 * bytes are through (a partial last cycle counts as one for this transfer,
 * but only its fraction stays booked). */
static uint64_t serve(uint64_t *free_at, uint64_t now, uint64_t bytes, uint64_t per_cycle)
{
    uint64_t at = now * per_cycle;
    uint64_t start = *free_at > at ? *free_at : at;
    *free_at = start + bytes;
    return (*free_at + per_cycle - 1) / per_cycle - now;
}

uint64_t dv_gmsys_access(dv_gmsys *g, const dv_gm_xfer *x, dv_l2_counts *counts, uint64_t *serialised)
{
    uint64_t now = x->now, cycles = x->path_cycles;
    /* The bytes flow at the path's rate; the rest of the transfer's cycles
     * (DMA head, GM latency) come first and hold no line. */
    double bw = (double)x->path_bw, flow = bw > 0 ? (double)x->bytes / bw : 0;
    double lead = (double)x->path_cycles > flow ? (double)x->path_cycles - flow : 0;
    both_visit b = {{g, counts, 0, 0, 0},
                    {g, x->requester, now, now, 0, 0, lead, x->bytes && bw > 0 ? 1.0 / bw : 0, false}};
    if (g->owners) {
        x->visit(x->visit_ctx, both_range, &b);
        check_marks(&b.scan, g->marks, g->nmarks);
    } else
        x->visit(x->visit_ctx, l2_range, &b.l2);
    owner_scan o = b.scan;
    l2_visit lv = b.l2;
    if (o.ready > now) {
        *serialised += o.ready - now;
        now = o.ready; /* the transfer's bytes start once the lines are free */
    }
    if (g->l2) {
        uint64_t t = serve(&g->l2_free, now, lv.l2, g->hbm_bytes_per_cycle * g->l2_bw_ratio);
        cycles = t > cycles ? t : cycles;
    }
    if (lv.hbm) {
        uint64_t t = serve(&g->hbm_free, now, lv.hbm, g->hbm_bytes_per_cycle);
        cycles = t > cycles ? t : cycles;
    }
    cycles += now - x->now; /* the wait for lines held by other cores */
    if (g->owners) {
        o.start = now;
        o.offset = 0;
        /* the actual duration may exceed the path's (shared L2 / HBM) */
        double dur = (double)(cycles - (now - x->now));
        o.cpb = x->bytes ? (dur > lead ? dur - lead : 0) / (double)x->bytes : 0;
        if (o.unnoted)
            x->visit(x->visit_ctx, mark_range, &o);
        else
            mark_lines(&o, g->marks, g->nmarks);
        g->nmarks = 0;
    }
    return cycles;
}
