/* san_shadow.c - the sanitizer's shadow of every buffer: for each byte
 * range, the last write and the reads since it that are not ordered after
 * one another (FastTrack's read set), kept as sorted, non-overlapping
 * segments in 4 KiB pages of addresses (a hash of pages per space: a
 * core's L1, L0A, ..., or GM).  An access walks the segments it covers,
 * splitting at its ends: a conflict with one not ordered before it is a
 * race, a read of bytes never written an init finding; a write leaves one
 * segment. */
#include "san_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GM_SPACE = 0, KEY_SHIFT = 40 };

static uint64_t hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static san_page *page_get(dv_san *s, uint64_t key)
{
    if (s->last_page && s->last_page->key == key) /* the rows of one transfer share pages */
        return s->last_page;
    if (2 * (s->npages + 1) > s->pcap) {
        size_t cap = s->pcap ? 2 * s->pcap : 1024;
        san_page *n = calloc(cap, sizeof *n);
        if (!n) {
            s->oom = true;
            return NULL;
        }
        for (size_t i = 0; i < s->pcap; i++) {
            if (!s->pages[i].key)
                continue;
            size_t j = hash64(s->pages[i].key) & (cap - 1);
            while (n[j].key)
                j = (j + 1) & (cap - 1);
            n[j] = s->pages[i];
        }
        free(s->pages);
        s->pages = n;
        s->pcap = cap;
        s->last_page = NULL;
    }
    size_t j = hash64(key) & (s->pcap - 1);
    while (s->pages[j].key && s->pages[j].key != key)
        j = (j + 1) & (s->pcap - 1);
    if (!s->pages[j].key) {
        s->pages[j].key = key;
        s->npages++;
    }
    return s->last_page = &s->pages[j];
}

static bool seg_insert(dv_san *s, san_page *pg, size_t at, const san_seg *g)
{
    if (pg->n == pg->cap) {
        uint32_t cap = pg->cap ? 2 * pg->cap : 8;
        san_seg *n = realloc(pg->segs, cap * sizeof *n);
        if (!n) {
            s->oom = true;
            return false;
        }
        pg->segs = n;
        pg->cap = cap;
    }
    memmove(pg->segs + at + 1, pg->segs + at, (pg->n - at) * sizeof *pg->segs);
    pg->segs[at] = *g;
    pg->n++;
    return true;
}

static bool reads_copy(dv_san *s, san_seg *g)
{
    if (!g->cap)
        return true; /* none or one, in place */
    san_acc *r = malloc(g->cap * sizeof *r);
    if (!r) {
        s->oom = true;
        g->nr = g->cap = 0;
        g->r = NULL;
        return false;
    }
    memcpy(r, g->r, g->nr * sizeof *r);
    g->r = r;
    return true;
}

/* Splits segment i at `at` (lo < at < hi): i keeps [lo, at), i + 1 gets the rest. */
static bool seg_split(dv_san *s, san_page *pg, size_t i, uint64_t at)
{
    san_seg right = pg->segs[i];
    right.lo = at;
    if (!reads_copy(s, &right) || !seg_insert(s, pg, i + 1, &right)) {
        free(right.r);
        return false;
    }
    pg->segs[i].hi = at;
    return true;
}

static bool same_acc(const san_acc *a, const san_acc *b)
{
    return a->tid == b->tid && a->clk == b->clk && a->pc == b->pc && a->cycle == b->cycle &&
           a->write == b->write;
}

/* Adjacent segments with the same history (an access that covered both
 * left them alike) are one. */
static bool same_state(const san_seg *a, const san_seg *b)
{
    if (a->hi != b->lo || a->has_w != b->has_w || a->nr != b->nr || (a->has_w && !same_acc(&a->w, &b->w)))
        return false;
    const san_acc *ra = a->cap ? a->r : &a->r0, *rb = b->cap ? b->r : &b->r0;
    for (uint32_t k = 0; k < a->nr; k++)
        if (!same_acc(&ra[k], &rb[k]))
            return false;
    return true;
}

/* Joins the segments an access left alike, from index i to j. */
static void merge(san_page *pg, size_t i, size_t j)
{
    if (i > 0)
        i--;
    if (j + 1 < pg->n)
        j++;
    size_t out = i;
    for (size_t k = i + 1; k <= j; k++) {
        if (same_state(&pg->segs[out], &pg->segs[k])) {
            pg->segs[out].hi = pg->segs[k].hi;
            free(pg->segs[k].r);
        } else {
            pg->segs[++out] = pg->segs[k];
        }
    }
    size_t removed = j - out;
    if (removed) {
        memmove(pg->segs + out + 1, pg->segs + j + 1, (pg->n - j - 1) * sizeof *pg->segs);
        pg->n -= (uint32_t)removed;
    }
}

const san_tensor *san_tensor_at(const dv_san *s, uint64_t addr, uint64_t len)
{
    for (size_t i = 0; i < s->ntensors; i++) {
        const san_tensor *t = &s->tensors[i];
        if (addr >= t->addr && addr - t->addr < t->len && len <= t->len - (addr - t->addr))
            return t;
    }
    return NULL;
}

/* The access being walked. */
typedef struct walk {
    const dv_trace_access *ev;
    san_acc acc;
    unsigned space;
    /* The Vector unit, the Cube and MTE1 (L1 -> L0A/L0B) work in whole
     * repeats and fractals: a range they read that is partly written holds
     * the data and its pad (a tile's last repeat, a fractal's rows past m),
     * so only a range with no written byte at all is reported, once the
     * walk is over. */
    bool whole_range;
    bool saw_uninit, saw_written;
} walk;

/* Reports (or extends the finding of the same lines just reported) a
 * conflict or an uninitialised read over [lo, hi). */
static void access_finding(dv_san *s, const walk *w, dv_san_check check, const san_acc *prior, uint64_t lo,
                           uint64_t hi)
{
    if (s->cur_open) {
        san_finding *f = &s->f[s->cur_f];
        if (f->check == check && f->hi == lo && f->b.pc == w->acc.pc && (!prior || f->a.pc == prior->pc)) {
            f->hi = hi;
            return;
        }
    }
    bool race = check == DV_SAN_RACE;
    if (!san_seen_add(s, san_pc_key(s, race ? 'r' : 'i', race ? prior->pc : 0, w->acc.pc)))
        return;
    uint64_t key = race ? san_line_key(s, 'r', prior->pc, w->acc.pc) : san_line_key(s, 'i', w->acc.pc, 0);
    san_finding *f = san_new_finding(s, key, check, false);
    if (!f)
        return;
    f->access = true;
    f->mem = w->ev->mem;
    f->core = w->ev->core;
    f->lo = lo;
    f->hi = hi;
    f->b = w->acc;
    san_source(s, w->acc.pc, f->src_b, sizeof f->src_b);
    if (prior) {
        f->a = *prior;
        san_source(s, prior->pc, f->src_a, sizeof f->src_a);
    }
    s->cur_f = (size_t)(f - s->f);
    s->cur_open = true;
}

/* Whether bytes [lo, hi), never written, are worth an init finding. */
static bool uninit_matters(const dv_san *s, const walk *w, uint64_t lo, uint64_t hi)
{
    if (!(s->checks & DV_SAN_INIT) || w->acc.write)
        return false;
    if (w->ev->mem != DV_MEM_GM)
        return true;
    for (size_t i = 0; i < s->ntensors; i++) {
        const san_tensor *t = &s->tensors[i];
        if (t->uninit && lo < t->addr + t->len && t->addr < hi)
            return true;
    }
    return false;
}

static void uninit_read(dv_san *s, walk *w, uint64_t lo, uint64_t hi)
{
    if (w->whole_range)
        w->saw_uninit = true;
    else
        access_finding(s, w, DV_SAN_INIT, NULL, lo, hi);
}

static void check_seg(dv_san *s, walk *w, san_seg *g)
{
    unsigned tid = w->acc.tid;
    if (s->checks & DV_SAN_RACE) {
        if (g->has_w && !san_hb(s, &g->w, tid))
            access_finding(s, w, DV_SAN_RACE, &g->w, g->lo, g->hi);
        else if (w->acc.write)
            for (uint32_t k = 0; k < g->nr; k++)
                if (!san_hb(s, &san_reads(g)[k], tid)) {
                    access_finding(s, w, DV_SAN_RACE, &san_reads(g)[k], g->lo, g->hi);
                    break;
                }
    }
    if (g->has_w)
        w->saw_written = true;
    else if (uninit_matters(s, w, g->lo, g->hi))
        uninit_read(s, w, g->lo, g->hi);
    if (w->acc.write) {
        g->has_w = true;
        g->w = w->acc;
        g->nr = 0;
        return;
    }
    uint32_t out = 0; /* reads ordered before this one are subsumed by it */
    san_acc *r = san_reads(g);
    for (uint32_t k = 0; k < g->nr; k++)
        if (!san_hb(s, &r[k], tid))
            r[out++] = r[k];
    g->nr = out;
    if (!g->cap && !g->nr) {
        g->r0 = w->acc;
        g->nr = 1;
        return;
    }
    if (!g->cap || g->nr == g->cap) {
        if (g->cap >= UINT16_MAX / 2) { /* as many readers as threads at most: never */
            s->oom = true;
            return;
        }
        uint16_t cap = (uint16_t)(g->cap ? 2 * g->cap : 4);
        san_acc *n = g->cap ? realloc(g->r, cap * sizeof *n) : malloc(cap * sizeof *n);
        if (!n) {
            s->oom = true;
            return;
        }
        if (!g->cap)
            n[0] = g->r0; /* the one read in place moves out */
        g->r = n;
        g->cap = cap;
    }
    g->r[g->nr++] = w->acc;
}

static void new_seg(dv_san *s, walk *w, san_page *pg, size_t at, uint64_t lo, uint64_t hi)
{
    if (uninit_matters(s, w, lo, hi))
        uninit_read(s, w, lo, hi);
    san_seg g = {.lo = lo, .hi = hi, .has_w = w->acc.write};
    if (w->acc.write) {
        g.w = w->acc;
    } else {
        g.r0 = w->acc;
        g.nr = 1;
    }
    seg_insert(s, pg, at, &g);
}

/* [lo, hi) inside one page. */
static void walk_page(dv_san *s, walk *w, uint64_t lo, uint64_t hi)
{
    san_page *pg = page_get(s, ((uint64_t)(w->space + 1) << KEY_SHIFT) | (lo >> SAN_PAGE_SHIFT));
    if (!pg)
        return;
    size_t a = 0, b = pg->n; /* the first segment ending after lo */
    while (a < b) {
        size_t m = (a + b) / 2;
        if (pg->segs[m].hi <= lo)
            a = m + 1;
        else
            b = m;
    }
    size_t i = a, first = a;
    uint64_t cur = lo;
    while (cur < hi && !s->oom) {
        if (i == pg->n || pg->segs[i].lo >= hi) {
            new_seg(s, w, pg, i, cur, hi);
            i++;
            break;
        }
        if (pg->segs[i].lo > cur) {
            uint64_t end = pg->segs[i].lo;
            new_seg(s, w, pg, i, cur, end);
            i++;
            cur = end;
            continue;
        }
        if (pg->segs[i].lo < cur) {
            if (!seg_split(s, pg, i, cur))
                return;
            i++;
        }
        if (pg->segs[i].hi > hi && !seg_split(s, pg, i, hi))
            return;
        check_seg(s, w, &pg->segs[i]);
        cur = pg->segs[i].hi;
        i++;
    }
    if (i > first && pg->n)
        merge(pg, first, i - 1 < pg->n ? i - 1 : pg->n - 1);
}

static void mem_finding(dv_san *s, const dv_trace_access *ev, const san_acc *acc)
{
    if (!san_seen_add(s, san_pc_key(s, 'm', 0, ev->pc)))
        return;
    san_finding *f = san_new_finding(s, san_line_key(s, 'm', ev->pc, 0), DV_SAN_MEM, false);
    if (!f)
        return;
    f->access = true;
    f->mem = DV_MEM_GM;
    f->core = ev->core;
    f->lo = ev->addr;
    f->hi = ev->addr + ev->len;
    f->b = *acc;
    san_source(s, ev->pc, f->src_b, sizeof f->src_b);
    /* the nearest tensor, to say where it strayed */
    const san_tensor *near = NULL;
    uint64_t best = UINT64_MAX;
    for (size_t i = 0; i < s->ntensors; i++) {
        const san_tensor *t = &s->tensors[i];
        uint64_t d = ev->addr >= t->addr + t->len ? ev->addr - (t->addr + t->len) + 1
                     : ev->addr < t->addr         ? t->addr - ev->addr
                                                  : 0;
        if (d < best)
            best = d, near = t;
    }
    if (!near)
        return;
    if (ev->addr >= near->addr && ev->addr < near->addr + near->len)
        snprintf(f->what, sizeof f->what, "runs %llu bytes past the end of %s [0x%llx,+%llu)",
                 (unsigned long long)(ev->addr + ev->len - near->addr - near->len), near->name,
                 (unsigned long long)near->addr, (unsigned long long)near->len);
    else if (ev->addr == near->addr + near->len)
        snprintf(f->what, sizeof f->what,
                 "is outside every tensor: it starts at the end of %s [0x%llx,+%llu)", near->name,
                 (unsigned long long)near->addr, (unsigned long long)near->len);
    else if (ev->addr >= near->addr)
        snprintf(f->what, sizeof f->what,
                 "is outside every tensor: %llu bytes past the end of %s [0x%llx,+%llu)",
                 (unsigned long long)(ev->addr - near->addr - near->len), near->name,
                 (unsigned long long)near->addr, (unsigned long long)near->len);
    else
        snprintf(f->what, sizeof f->what, "is outside every tensor: %llu bytes before %s [0x%llx,+%llu)",
                 (unsigned long long)(near->addr - ev->addr), near->name, (unsigned long long)near->addr,
                 (unsigned long long)near->len);
}

void san_on_access(dv_san *s, const dv_trace_access *ev)
{
    if (!s->cores || ev->core >= s->ncores || !ev->len || (unsigned)ev->lane >= SAN_NP)
        return;
    unsigned tid = ev->core * SAN_NP + (unsigned)ev->lane;
    walk w = {.ev = ev,
              .acc = {.cycle = ev->cycle,
                      .clk = san_vc_of(s, tid)[tid],
                      .pc = (uint32_t)ev->pc,
                      .tid = (uint16_t)tid,
                      .write = ev->write},
              .space = GM_SPACE,
              .whole_range = ev->lane == DV_PIPE_V || ev->lane == DV_PIPE_M || ev->lane == DV_PIPE_MTE1};
    if (ev->mem == DV_MEM_GM) {
        if (ev->addr + ev->len < ev->addr || ev->addr + ev->len > (1ull << (KEY_SHIFT + SAN_PAGE_SHIFT)))
            return; /* faults */
        if ((s->checks & DV_SAN_MEM) && s->ntensors && !san_tensor_at(s, ev->addr, ev->len))
            mem_finding(s, ev, &w.acc);
    } else {
        uint64_t size = s->cores[ev->core].buf_bytes[ev->mem];
        if ((unsigned)ev->mem >= DV_MEM_SDATA || ev->addr >= size || ev->len > size - ev->addr)
            return; /* faults: the run says so */
        w.space = 1 + ev->core * DV_MEM_KIND_COUNT + (unsigned)ev->mem;
    }
    if (!(s->checks & (DV_SAN_RACE | DV_SAN_INIT)))
        return;
    s->cur_open = false;
    uint64_t lo = ev->addr, hi = ev->addr + ev->len;
    while (lo < hi && !s->oom) {
        uint64_t end = ((lo >> SAN_PAGE_SHIFT) + 1) << SAN_PAGE_SHIFT;
        if (end > hi)
            end = hi;
        walk_page(s, &w, lo, end);
        lo = end;
    }
    s->cur_open = false;
    if (w.saw_uninit && !w.saw_written) {
        w.whole_range = false;
        access_finding(s, &w, DV_SAN_INIT, NULL, ev->addr, ev->addr + ev->len);
        s->cur_open = false;
    }
}

void san_shadow_free(dv_san *s)
{
    for (size_t i = 0; i < s->pcap; i++) {
        san_page *pg = &s->pages[i];
        for (uint32_t k = 0; k < pg->n; k++)
            free(pg->segs[k].r);
        free(pg->segs);
    }
    free(s->pages);
    s->pages = NULL;
    s->last_page = NULL;
    s->npages = s->pcap = 0;
}
