/* vector_conflicts.c - the UB bank-conflict cost of a vector instruction's
 * repeats (dv_ub_repeat per repeat, memhier/dv_timing.h), with the two
 * shortcuts that keep timing-only vector kernels fast and give the same
 * cycles: one period of repeats stands for the rest when the strides make
 * the cost repeat, and a per-thread cache of the cost per (strides, repeats)
 * shape.  DVSIM_VECTOR_EXACT=1 turns both off (cli-vector-exact compares). */
#include "vec_priv.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Active block addresses of operand o in repeat r, appended to out. */
static unsigned opnd_blocks(const vec_opnd *o, unsigned r, uint64_t *out, unsigned n)
{
    if (!o->used)
        return n;
    for (unsigned b = 0; b < o->nblk; b++) {
        uint64_t a;
        if (o->blk_active[b] && vec_block_addr(o, r, b, &a))
            out[n++] = a;
    }
    return n;
}

static unsigned extent_block(const vec_extent *x, unsigned r, uint64_t *out, unsigned n)
{
    if (x->used)
        out[n++] = (x->base + x->step * r) / VEC_BLOCK * VEC_BLOCK;
    return n;
}

/* True when every operand advances by the same number of rows per repeat:
 * then repeat r's accesses (its reads, the previous repeat's writes) are
 * repeat 1's moved by (r - 1) * stride rows, every bank by the same amount
 * and, banks being a multiple of the groups, every group too; equal rows stay
 * equal.  Its bank-conflict cost is repeat 1's. */
static bool shift_invariant(const vec_desc *d, const dv_ub_geom *g)
{
    if (!g->groups || g->banks % g->groups || g->row_bytes != VEC_BLOCK)
        return false;
    const vec_opnd *ops[] = {&d->src0, &d->src1, &d->dst};
    int64_t stride = -1;
    for (unsigned i = 0; i < 3; i++) {
        if (!ops[i]->used)
            continue;
        if (stride >= 0 && ops[i]->rep != (uint64_t)stride)
            return false;
        stride = ops[i]->rep;
    }
    const vec_extent *xs[] = {&d->xsrc, &d->xdst};
    for (unsigned i = 0; i < 2; i++)
        if (xs[i]->used && (stride < 0 || xs[i]->step != (uint64_t)stride * VEC_BLOCK))
            return false;
    return stride >= 0;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The repeats after which a stream moving `shift` bytes a repeat is on the
 * same banks again (its rows move by a multiple of the banks). */
static uint64_t shift_period(uint64_t shift, const dv_ub_geom *g)
{
    uint64_t m = (uint64_t)g->banks * g->row_bytes;
    return m / gcd64(shift % m, m);
}

/* The UB rows an operand or extent touches over every repeat, [lo, hi]
 * (false when unused). */
static bool row_range(uint64_t lo, uint64_t hi, const dv_ub_geom *g, uint64_t *rlo, uint64_t *rhi)
{
    if (lo >= hi)
        return false;
    *rlo = lo / g->row_bytes;
    *rhi = (hi - 1) / g->row_bytes;
    return true;
}

enum { MAX_PERIOD = 64 };

/* A period P such that repeat r + P costs what repeat r does, for every r
 * >= 1 (repeat 0 has no writes); 0 when there is none within MAX_PERIOD.
 * Every operand's rows move by a fixed number of bytes a repeat, so after
 * P repeats each is on the banks (and groups) it was on; the rows of two
 * operands of one kind (the reads: src0, src1, xsrc; the writes: dst, xdst)
 * could meet, and a row read twice is one access, so their row ranges over
 * the whole instruction must not overlap.  Then every repeat's accesses
 * fall on the same banks as P repeats earlier with the same rows distinct,
 * which is all dv_ub_repeat looks at. */
static unsigned bank_period(const vec_desc *d, const dv_ub_geom *g)
{
    if (!g->banks || !g->row_bytes || d->repeats < 3)
        return 0;
    const vec_opnd *ops[3] = {&d->src0, &d->src1, &d->dst};
    const vec_extent *xs[2] = {&d->xsrc, &d->xdst};
    uint64_t period = 1, lo[5], hi[5];
    bool used[5];
    for (unsigned i = 0; i < 3; i++) {
        used[i] = ops[i]->used;
        if (!used[i])
            continue;
        if (ops[i]->base > (UINT64_MAX >> 2))
            return 0; /* an address that may wrap: no shortcut */
        uint64_t p = shift_period((uint64_t)ops[i]->rep * VEC_BLOCK, g);
        period = period / gcd64(period, p) * p;
        uint64_t a, b;
        vec_opnd_span(ops[i], d->repeats, &a, &b);
        used[i] = row_range(a, b, g, &lo[i], &hi[i]);
    }
    for (unsigned i = 0; i < 2; i++) {
        used[3 + i] = xs[i]->used;
        if (!used[3 + i])
            continue;
        if (xs[i]->base > (UINT64_MAX >> 2) || xs[i]->step > (UINT64_MAX >> 32))
            return 0;
        uint64_t p = shift_period(xs[i]->step, g);
        period = period / gcd64(period, p) * p;
        /* the blocks extent_block gives, the first and the last repeat's */
        uint64_t first = xs[i]->base / VEC_BLOCK * VEC_BLOCK;
        uint64_t last = (xs[i]->base + xs[i]->step * (d->repeats - 1)) / VEC_BLOCK * VEC_BLOCK;
        used[3 + i] = row_range(first, last + VEC_BLOCK, g, &lo[3 + i], &hi[3 + i]);
    }
    if (period > MAX_PERIOD)
        return 0;
    /* the reads (src0, src1, xsrc = 0, 1, 3) and the writes (dst, xdst = 2, 4) apart */
    static const unsigned pairs[][2] = {{0, 1}, {0, 3}, {1, 3}, {2, 4}};
    for (unsigned k = 0; k < 4; k++) {
        unsigned a = pairs[k][0], b = pairs[k][1];
        if (used[a] && used[b] && !(hi[a] < lo[b] || hi[b] < lo[a]))
            return 0;
    }
    return (unsigned)period;
}

/* A repeat's cost beyond the slope, `times` over. */
static void add_repeat(ub_conflicts *x, dv_ub_repeat_cost rc, uint64_t slope, uint64_t times)
{
    if (rc.cycles <= slope)
        return;
    uint64_t extra = rc.cycles - slope;
    uint64_t grp = rc.group_extra < extra ? rc.group_extra : extra;
    x->extra += extra * times;
    x->group += grp * times;
    x->bank += (extra - grp) * times;
}

static ub_conflicts ub_conflicts_direct(const vec_desc *d, const dv_ub_geom *g, uint64_t slope)
{
    ub_conflicts x = {0, 0, 0};
    /* the same cost as repeat 1 for every later repeat, or the costs of
     * repeats 1 .. period over and over */
    unsigned period = vec_no_shortcuts() ? 0 : shift_invariant(d, g) ? 1 : bank_period(d, g);
    dv_ub_repeat_cost cost[MAX_PERIOD + 1];
    for (unsigned r = 0; r < d->repeats; r++) {
        if (period && r > period) {
            uint64_t left = d->repeats - r;
            for (unsigned i = 0; i < period && i < left; i++) /* repeats r + i, r + i + period, ... */
                add_repeat(&x, cost[1 + (r - 1 + i) % period], slope, (left - i + period - 1) / period);
            break;
        }
        uint64_t reads[3 * VEC_MAX_BLOCKS], writes[VEC_MAX_BLOCKS + 1];
        unsigned nr = opnd_blocks(&d->src0, r, reads, 0);
        nr = opnd_blocks(&d->src1, r, reads, nr);
        nr = extent_block(&d->xsrc, r, reads, nr);
        unsigned nw = 0;
        if (r > 0) {
            nw = opnd_blocks(&d->dst, r - 1, writes, 0);
            nw = extent_block(&d->xdst, r - 1, writes, nw);
        }
        dv_ub_repeat_cost rc = dv_ub_repeat(g, reads, nr, writes, nw);
        if (r >= 1 && r <= period)
            cost[r] = rc;
        add_repeat(&x, rc, slope, 1);
    }
    return x;
}

/* The cost depends on the operands' strides, blocks, repeats and on where
 * their rows fall relative to one another and to the banks: on the first
 * operand's base modulo banks x row bytes x 32 and on every other base's
 * distance from it, not on the bases themselves (rows shifted by a multiple
 * of the banks hit the same banks and groups, equal rows stay equal).  A
 * kernel issues the same shapes over and over on other tiles: the cost of
 * each shape is kept, per host thread, in a small direct-mapped table, and
 * is exactly what ub_conflicts_direct computes. */
typedef struct conflict_key {
    uint64_t anchor_mod, slope;
    int64_t diff[5]; /* the bases of dst, src0, src1, xdst, xsrc minus the anchor */
    uint64_t step[2];
    uint32_t rep[3], blk[3], nblk[3], repeats, banks, groups, row;
    uint8_t used[5], active[3];
} conflict_key;

enum { CONFLICT_SLOTS = 256 };
typedef struct conflict_slot {
    bool valid;
    bool mru; /* in a set's first way: that way was used last */
    conflict_key key;
    ub_conflicts cost;
} conflict_slot;
static _Thread_local conflict_slot conflict_cache[CONFLICT_SLOTS];

/* DVSIM_VECTOR_EXACT=1 (for tests): no cache and no period, every repeat
 * computed; the results must be the same. */
bool vec_no_shortcuts(void)
{
    static atomic_int mode = -1;
    int m = atomic_load_explicit(&mode, memory_order_relaxed);
    if (m < 0) {
        const char *e = getenv("DVSIM_VECTOR_EXACT");
        m = e && strcmp(e, "1") == 0;
        atomic_store_explicit(&mode, m, memory_order_relaxed);
    }
    return m;
}

ub_conflicts vec_ub_conflicts(const vec_desc *d, const dv_ub_geom *g, uint64_t slope)
{
    if (vec_no_shortcuts())
        return ub_conflicts_direct(d, g, slope);
    const vec_opnd *ops[3] = {&d->dst, &d->src0, &d->src1};
    const vec_extent *xs[2] = {&d->xdst, &d->xsrc};
    conflict_key k;
    memset(&k, 0, sizeof k); /* the padding too: the key is compared as bytes */
    uint64_t base[5] = {ops[0]->base, ops[1]->base, ops[2]->base, xs[0]->base, xs[1]->base}, anchor = 0;
    bool have = false;
    for (unsigned i = 0; i < 5; i++) {
        k.used[i] = i < 3 ? ops[i]->used : xs[i - 3]->used;
        if (!k.used[i])
            continue;
        if (!have)
            anchor = base[i], have = true;
        /* a base near the top of the address space may wrap: no shortcut */
        if (base[i] > (UINT64_MAX >> 2) || anchor > (UINT64_MAX >> 2))
            return ub_conflicts_direct(d, g, slope);
        k.diff[i] = (int64_t)base[i] - (int64_t)anchor;
    }
    /* a multiple of the banks' rows and of the 32-byte blocks extents round to */
    uint64_t span = (uint64_t)g->banks * g->row_bytes * VEC_BLOCK;
    if (!have || !span)
        return ub_conflicts_direct(d, g, slope);
    k.anchor_mod = anchor % span;
    k.slope = slope;
    for (unsigned i = 0; i < 3; i++) {
        if (!ops[i]->used)
            continue;
        k.rep[i] = ops[i]->rep, k.blk[i] = ops[i]->blk, k.nblk[i] = ops[i]->nblk;
        for (unsigned b = 0; b < VEC_MAX_BLOCKS; b++)
            k.active[i] |= (uint8_t)(ops[i]->blk_active[b] << b);
    }
    k.step[0] = xs[0]->used ? xs[0]->step : 0, k.step[1] = xs[1]->used ? xs[1]->step : 0;
    k.repeats = d->repeats, k.banks = g->banks, k.groups = g->groups, k.row = g->row_bytes;
    uint64_t h = 1469598103934665603ull; /* FNV-1a, by 8-byte words */
    const unsigned char *p = (const unsigned char *)&k;
    for (size_t i = 0; i + 8 <= sizeof k; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 1099511628211ull;
    }
    for (size_t i = sizeof k / 8 * 8; i < sizeof k; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    /* a full avalanche (murmur3's finaliser): FNV's low bits follow only
     * the words' low bits, and keys of one kernel differ in their middle
     * bits, so they fell on two or three slots and evicted one another */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    /* two ways per set, the older one replaced: two shapes a kernel
     * alternates between that share a set no longer evict each other */
    conflict_slot *set = &conflict_cache[(h % (CONFLICT_SLOTS / 2)) * 2];
    for (unsigned w = 0; w < 2; w++)
        if (set[w].valid && memcmp(&set[w].key, &k, sizeof k) == 0) {
            set[0].mru = w == 0;
            return set[w].cost;
        }
    conflict_slot *slot = &set[set[0].mru ? 1 : 0];
    set[0].mru = slot == &set[0];
    slot->valid = true;
    memcpy(&slot->key, &k, sizeof k);
    slot->cost = ub_conflicts_direct(d, g, slope);
    return slot->cost;
}
