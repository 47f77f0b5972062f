#include "dv_l2.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The layout is for a launch of many cores, whose lines do not stay in the
 * host's caches: a set's tags are 32-bit line numbers side by side (one host
 * cache line for 16 ways), and its LRU order and dirty flags sit together
 * (32 bytes for 16 ways), so an access reads two host cache lines where it
 * read four (64-bit tags, 64-bit stamps, dirty flags apart).
 *
 * The LRU order is kept as ranks (0 = least recently used, ways - 1 = most),
 * not as stamps of a clock: the same order, compared without a 64-bit stamp
 * per way.  The ranks start as the way numbers, so ways never used keep
 * their order below every used way, and the victim (rank 0) is the first
 * empty way, then the least recently used one: what the stamps chose (empty
 * ways had stamp 0, the first of the lowest stamps won).
 *
 * Tags hold the line number + 1 in 32 bits while every line seen fits; the
 * first that does not (a GM beyond 2 TiB of 512-byte lines) widens them to
 * 64 bits for the rest of the run. */

struct dv_l2 {
    uint64_t line, sets;
    unsigned line_shift; /* log2(line) when line is a power of two, else 0 */
    uint64_t set_mask;   /* sets - 1 when sets is a power of two, else 0 */
    uint64_t set_magic;  /* UINT64_MAX / sets + 1: ln % sets by multiplication for 32-bit ln */
    unsigned ways;
    bool wide;       /* tags are 64-bit (tag64), else 32-bit (tag32) */
    uint32_t *tag32; /* sets x ways: line number + 1; 0 = empty */
    uint64_t *tag64;
    uint8_t *meta; /* sets x 2 ways: a set's ways' LRU ranks, then their dirty flags */
};

/* n bytes aligned to a host cache line (a set's tags in one line), zeroed. */
static void *line_alloc(size_t n)
{
    n = (n + 63) / 64 * 64;
    void *p = aligned_alloc(64, n);
    if (p)
        memset(p, 0, n);
    return p;
}

dv_l2 *dv_l2_create(uint64_t size_bytes, uint64_t line_bytes, unsigned ways, dv_error *err)
{
    dv_l2 *l2 = calloc(1, sizeof *l2);
    if (!l2) {
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    l2->line = line_bytes ? line_bytes : 512;
    l2->ways = ways ? ways : 1;
    l2->sets = size_bytes / l2->line / l2->ways;
    /* Powers of two (every built-in chip) index by shift and mask instead
     * of dividing on every line. */
    if ((l2->line & (l2->line - 1)) == 0)
        while ((1ull << l2->line_shift) < l2->line)
            l2->line_shift++;
    if (l2->sets && (l2->sets & (l2->sets - 1)) == 0)
        l2->set_mask = l2->sets - 1;
    if (l2->sets && l2->sets <= UINT32_MAX)
        l2->set_magic = UINT64_MAX / l2->sets + 1;
    if (l2->ways > 256) {
        dv_error_set(err, DV_ERR_CONFIG, "L2 of %u ways: at most 256", l2->ways);
        free(l2);
        return NULL;
    }
    if (l2->sets) {
        size_t n = (size_t)(l2->sets * l2->ways);
        l2->tag32 = line_alloc(n * sizeof *l2->tag32);
        l2->meta = line_alloc(2 * n);
        if (!l2->tag32 || !l2->meta) {
            unsigned long long lines = (unsigned long long)(l2->sets * l2->ways);
            dv_l2_destroy(l2);
            dv_error_set(err, DV_ERR_NOMEM, "cannot allocate the L2 tags (%llu lines)", lines);
            return NULL;
        }
        for (size_t i = 0; i < 2 * n; i++)
            if (i / l2->ways % 2 == 0)
                l2->meta[i] = (uint8_t)(i % l2->ways); /* the ranks start as the way numbers */
    }
    return l2;
}

void dv_l2_destroy(dv_l2 *l2)
{
    if (l2) {
        free(l2->tag32);
        free(l2->tag64);
        free(l2->meta);
        free(l2);
    }
}

uint64_t dv_l2_line_bytes(const dv_l2 *l2)
{
    return l2->line;
}

/* The first line number that does not fit a 32-bit tag: every tag becomes
 * 64-bit (once; false when out of memory, the cache then misses). */
static bool widen(dv_l2 *l2)
{
    size_t n = (size_t)(l2->sets * l2->ways);
    uint64_t *t = line_alloc(n * sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < n; i++)
        t[i] = l2->tag32[i];
    free(l2->tag32);
    l2->tag32 = NULL;
    l2->tag64 = t;
    l2->wide = true;
    return true;
}

static size_t set_of(const dv_l2 *l2, uint64_t ln)
{
    if (l2->set_mask || l2->sets == 1)
        return (size_t)(ln & l2->set_mask);
    if (ln <= UINT32_MAX && l2->set_magic) /* Lemire's fastmod: exact for 32-bit ln and sets */
        return (size_t)(((unsigned __int128)(l2->set_magic * ln) * l2->sets) >> 64);
    return (size_t)(ln % l2->sets);
}

/* The way holding key in the set at base, or ways. */
static unsigned find_way(const dv_l2 *l2, size_t base, uint64_t key)
{
    unsigned ways = l2->ways;
    if (l2->wide) {
        const uint64_t *t = &l2->tag64[base];
        for (unsigned i = 0; i < ways; i++)
            if (t[i] == key)
                return i;
        return ways;
    }
    const uint32_t *t = &l2->tag32[base];
    uint32_t k = (uint32_t)key;
#ifdef __SSE2__
    if (ways == 16) { /* the built-in chips: the set's host cache line in four compares */
        __m128i kk = _mm_set1_epi32((int)k);
        __m128i a = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)t), kk);
        __m128i b = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(t + 4)), kk);
        __m128i c = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(t + 8)), kk);
        __m128i d = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(t + 12)), kk);
        unsigned m =
            (unsigned)_mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
        return m ? (unsigned)__builtin_ctz(m) : 16;
    }
#endif
    for (unsigned i = 0; i < ways; i++)
        if (t[i] == k)
            return i;
    return ways;
}

/* Way w becomes the most recently used of its set: the ranks above its
 * own move down by one. */
static void touch(uint8_t *rank, unsigned ways, unsigned w)
{
    uint8_t r = rank[w];
#ifdef __SSE2__
    if (ways == 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)rank);
        /* ranks are below 128: a signed compare is exact */
        v = _mm_add_epi8(v, _mm_cmpgt_epi8(v, _mm_set1_epi8((char)r)));
        _mm_storeu_si128((__m128i *)rank, v);
        rank[w] = 15;
        return;
    }
#endif
    for (unsigned i = 0; i < ways; i++)
        rank[i] = (uint8_t)(rank[i] - (rank[i] > r));
    rank[w] = (uint8_t)(ways - 1);
}

/* The way of rank 0: the first empty one, else the least recently used. */
static unsigned lru_way(const uint8_t *rank, unsigned ways)
{
#ifdef __SSE2__
    if (ways == 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)rank);
        return (unsigned)__builtin_ctz((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())));
    }
#endif
    unsigned v = 0;
    while (v + 1 < ways && rank[v]) /* one rank is 0 */
        v++;
    return v;
}

uint64_t dv_l2_access(dv_l2 *l2, uint64_t addr, uint64_t len, bool write, dv_l2_counts *counts)
{
    if (len == 0)
        return 0;
    uint64_t first, last, hbm = 0;
    if (l2->line_shift || l2->line == 1) {
        first = addr >> l2->line_shift;
        last = (addr + len - 1) >> l2->line_shift;
    } else {
        first = addr / l2->line;
        last = (addr + len - 1) / l2->line;
    }
    unsigned ways = l2->ways;
    for (uint64_t ln = first; ln <= last; ln++) {
        if (!l2->sets || (!l2->wide && ln >= UINT32_MAX && !widen(l2))) {
            /* no cache: every line goes to HBM */
            if (write)
                counts->write_misses++;
            else
                counts->read_misses++;
            hbm += l2->line;
            continue;
        }
        size_t set = set_of(l2, ln) * ways;
        unsigned hit = find_way(l2, set, ln + 1);
        uint8_t *rank = &l2->meta[2 * set], *dirty = rank + ways;
        if (hit < ways) {
            if (write)
                counts->write_hits++;
            else
                counts->read_hits++;
        } else {
            hit = lru_way(rank, ways);
            bool full = l2->wide ? l2->tag64[set + hit] != 0 : l2->tag32[set + hit] != 0;
            if (full && dirty[hit]) {
                counts->writeback_bytes += l2->line;
                hbm += l2->line;
            }
            if (write) {
                counts->write_misses++; /* write-allocate: the line is written whole or merged later */
            } else {
                counts->read_misses++;
                counts->fill_bytes += l2->line;
                hbm += l2->line;
            }
            if (l2->wide)
                l2->tag64[set + hit] = ln + 1;
            else
                l2->tag32[set + hit] = (uint32_t)(ln + 1);
            dirty[hit] = 0;
        }
        touch(rank, ways, hit);
        dirty[hit] |= write;
    }
    return hbm;
}
