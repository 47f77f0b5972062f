#include "dv_timing.h"

#include <string.h>

uint64_t dv_xfer_cycles(uint64_t bytes, uint64_t bytes_per_cycle, uint64_t head, bool touches_gm,
                        uint64_t gm_latency, uint64_t gm_full_bw_bytes)
{
    if (bytes_per_cycle == 0)
        bytes_per_cycle = 1;
    uint64_t cycles = head + (bytes + bytes_per_cycle - 1) / bytes_per_cycle;
    if (touches_gm && !gm_full_bw_bytes)
        cycles += gm_latency;
    else if (touches_gm && bytes < gm_full_bw_bytes)
        cycles += gm_latency * (gm_full_bw_bytes - bytes) / gm_full_bw_bytes;
    return cycles;
}

enum { MAX_GROUPS = 64, MAX_BANKS = 256, MAX_ACCESSES = 64 };

/* Distinct rows (the same row twice is one access: a broadcast) of a list,
 * in place; returns how many remain.  Lists are a few dozen entries. */
static unsigned distinct(uint64_t *rows, unsigned n)
{
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++) {
        bool seen = false;
        for (unsigned k = 0; k < m && !seen; k++)
            seen = rows[k] == rows[i];
        if (!seen)
            rows[m++] = rows[i];
    }
    return m;
}

/* row % m, by a mask when m is a power of two (the chips' banks and groups
 * are): a 64-bit division per row was most of a timing-only vector run. */
static inline uint32_t slot_of(uint64_t row, uint32_t m)
{
    return (uint32_t)(m & (m - 1) ? row % m : row & (m - 1));
}

/* The largest count of rows falling on one slot (slot = row % banks, then %
 * groups when groups != 0); counts live in `count`, which is all zero on
 * entry and on return (only the touched slots are reset). */
static uint32_t busiest(const dv_ub_geom *g, const uint64_t *rows, unsigned n, bool by_group, uint8_t *count)
{
    uint32_t worst = 0;
    uint32_t slots[2 * MAX_ACCESSES];
    for (unsigned i = 0; i < n; i++) {
        uint32_t slot = slot_of(rows[i], g->banks);
        if (by_group)
            slot = slot_of(slot, g->groups);
        slots[i] = slot;
        if (++count[slot] > worst)
            worst = count[slot];
    }
    for (unsigned i = 0; i < n; i++)
        count[slots[i]] = 0;
    return worst;
}

dv_ub_repeat_cost dv_ub_repeat(const dv_ub_geom *g, const uint64_t *reads, unsigned nreads,
                               const uint64_t *writes, unsigned nwrites)
{
    dv_ub_repeat_cost c = {0, 0, 0};
    if (!g->banks || !g->groups || !g->row_bytes || g->groups > MAX_GROUPS || g->banks > MAX_BANKS)
        return c;
    uint64_t rows[2 * MAX_ACCESSES];
    if (nreads > MAX_ACCESSES)
        nreads = MAX_ACCESSES;
    if (nwrites > MAX_ACCESSES)
        nwrites = MAX_ACCESSES;
    for (unsigned i = 0; i < nreads; i++)
        rows[i] = reads[i] / g->row_bytes;
    for (unsigned i = 0; i < nwrites; i++)
        rows[MAX_ACCESSES + i] = writes[i] / g->row_bytes;
    unsigned nr = distinct(rows, nreads), nw = distinct(rows + MAX_ACCESSES, nwrites);
    uint8_t count[MAX_BANKS] = {0}; /* at most 2 * MAX_ACCESSES per slot: fits */
    uint32_t r = busiest(g, rows, nr, true, count), w = busiest(g, rows + MAX_ACCESSES, nw, true, count);
    uint32_t port = r > w ? r : w;
    /* Each bank serves one row per cycle, read or write: a bank that is read
     * and written in the same window needs more cycles than the group port
     * alone (banks work in parallel, so only the busiest one counts).  A row
     * both read and written counts twice. */
    memmove(rows + nr, rows + MAX_ACCESSES, nw * sizeof *rows);
    uint32_t busiest_bank = busiest(g, rows, nr + nw, false, count);
    c.bank_extra = busiest_bank > port ? busiest_bank - port : 0;
    c.group_extra = port > 1 ? port - 1 : 0;
    c.cycles = port + c.bank_extra;
    return c;
}
