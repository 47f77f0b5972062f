#include "dv_l2.h"

#include <stdlib.h>

typedef struct way {
    uint64_t tag;  /* line address + 1; 0 = empty */
    uint64_t used; /* LRU stamp */
    bool dirty;
} way;

struct dv_l2 {
    uint64_t line, sets;
    unsigned line_shift; /* log2(line) when line is a power of two, else 0 */
    uint64_t set_mask;   /* sets - 1 when sets is a power of two, else 0 */
    unsigned ways;
    way *w; /* sets x ways */
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
        l2->w = calloc(l2->sets * l2->ways, sizeof *l2->w);
        if (!l2->w) {
            unsigned long long lines = (unsigned long long)(l2->sets * l2->ways);
            free(l2);
            dv_error_set(err, DV_ERR_NOMEM, "cannot allocate the L2 tags (%llu lines)", lines);
            return NULL;
        }
    }
    return l2;
}

void dv_l2_destroy(dv_l2 *l2)
{
    if (l2) {
        free(l2->w);
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
        way *set = &l2->w[(l2->set_mask || l2->sets == 1 ? ln & l2->set_mask : ln % l2->sets) * l2->ways];
        way *hit = NULL, *victim = &set[0];
        for (unsigned i = 0; i < l2->ways; i++) {
            if (set[i].tag == ln + 1) {
                hit = &set[i];
                break;
            }
            if (set[i].used < victim->used)
                victim = &set[i];
        }
        if (hit) {
            if (write)
                counts->write_hits++;
            else
                counts->read_hits++;
        } else {
            if (victim->tag && victim->dirty) {
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
            victim->tag = ln + 1;
            victim->dirty = false;
            hit = victim;
        }
        hit->used = ++l2->clock;
        hit->dirty = hit->dirty || write;
    }
    return hbm;
}
