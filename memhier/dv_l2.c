#include "dv_l2.h"

#include <stdlib.h>

/* The tags of a set side by side (one or two host cache lines for 16
 * ways, where tag, stamp and dirty bit together took six): a lookup that
 * hits reads only them. */

struct dv_l2 {
    uint64_t line, sets;
    unsigned line_shift; /* log2(line) when line is a power of two, else 0 */
    uint64_t set_mask;   /* sets - 1 when sets is a power of two, else 0 */
    unsigned ways;
    uint64_t *tag;  /* sets x ways: line address + 1; 0 = empty */
    uint64_t *used; /* sets x ways: LRU stamp */
    bool *dirty;    /* sets x ways */
    uint64_t clock;
};

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
    if (l2->sets) {
        size_t n = (size_t)(l2->sets * l2->ways);
        l2->tag = calloc(n, sizeof *l2->tag);
        l2->used = calloc(n, sizeof *l2->used);
        l2->dirty = calloc(n, sizeof *l2->dirty);
        if (!l2->tag || !l2->used || !l2->dirty) {
            unsigned long long lines = (unsigned long long)(l2->sets * l2->ways);
            dv_l2_destroy(l2);
            dv_error_set(err, DV_ERR_NOMEM, "cannot allocate the L2 tags (%llu lines)", lines);
            return NULL;
        }
    }
    return l2;
}

void dv_l2_destroy(dv_l2 *l2)
{
    if (l2) {
        free(l2->tag);
        free(l2->used);
        free(l2->dirty);
        free(l2);
    }
}

uint64_t dv_l2_line_bytes(const dv_l2 *l2)
{
    return l2->line;
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
    for (uint64_t ln = first; ln <= last; ln++) {
        if (!l2->sets) { /* no cache: every line goes to HBM */
            if (write)
                counts->write_misses++;
            else
                counts->read_misses++;
            hbm += l2->line;
            continue;
        }
        size_t set = (size_t)(l2->set_mask || l2->sets == 1 ? ln & l2->set_mask : ln % l2->sets) * l2->ways;
        const uint64_t *tag = &l2->tag[set];
        unsigned hit = l2->ways;
        for (unsigned i = 0; i < l2->ways; i++)
            if (tag[i] == ln + 1) {
                hit = i;
                break;
            }
        if (hit < l2->ways) {
            if (write)
                counts->write_hits++;
            else
                counts->read_hits++;
        } else {
            /* the least recently used way, the first of them (empty ways
             * have stamp 0) */
            const uint64_t *used = &l2->used[set];
            unsigned victim = 0;
            for (unsigned i = 1; i < l2->ways; i++)
                if (used[i] < used[victim])
                    victim = i;
            if (tag[victim] && l2->dirty[set + victim]) {
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
            l2->tag[set + victim] = ln + 1;
            l2->dirty[set + victim] = false;
            hit = victim;
        }
        l2->used[set + hit] = ++l2->clock;
        l2->dirty[set + hit] = l2->dirty[set + hit] || write;
    }
    return hbm;
}
