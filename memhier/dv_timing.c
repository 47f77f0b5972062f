#include "dv_timing.h"

#include <string.h>

uint64_t dv_xfer_cycles(uint64_t bytes, uint64_t bytes_per_cycle, uint64_t head, bool touches_gm,
                        uint64_t gm_latency, uint64_t gm_full_bw_bytes)
{
    if (bytes_per_cycle == 0)
        bytes_per_cycle = 1;
    uint64_t cycles = head + (bytes + bytes_per_cycle - 1) / bytes_per_cycle;
    if (touches_gm && gm_full_bw_bytes && bytes < gm_full_bw_bytes)
        cycles += gm_latency * (gm_full_bw_bytes - bytes) / gm_full_bw_bytes;
    return cycles;
}

enum { MAX_GROUPS = 64, MAX_BANKS = 256, MAX_ACCESSES = 64 };

/* Distinct rows per group (the same row twice is one access: a broadcast). */
static uint32_t busiest_group(const dv_ub_geom *g, const uint64_t *rows, unsigned n)
{
    uint32_t per_group[MAX_GROUPS] = {0};
    uint32_t worst = 0;
    for (unsigned i = 0; i < n; i++) {
        bool seen = false;
        for (unsigned k = 0; k < i && !seen; k++)
            seen = rows[k] == rows[i];
        if (seen)
            continue;
        uint32_t grp = (uint32_t)((rows[i] % g->banks) % g->groups);
        if (++per_group[grp] > worst)
            worst = per_group[grp];
    }
    return worst;
}

dv_ub_repeat_cost dv_ub_repeat(const dv_ub_geom *g, const uint64_t *reads, unsigned nreads,
                               const uint64_t *writes, unsigned nwrites)
{
    dv_ub_repeat_cost c = {0, 0, 0};
    if (!g->banks || !g->groups || !g->row_bytes || g->groups > MAX_GROUPS || g->banks > MAX_BANKS)
        return c;
    uint64_t rrows[MAX_ACCESSES] = {0}, wrows[MAX_ACCESSES] = {0};
    if (nreads > MAX_ACCESSES)
        nreads = MAX_ACCESSES;
    if (nwrites > MAX_ACCESSES)
        nwrites = MAX_ACCESSES;
    for (unsigned i = 0; i < nreads; i++)
        rrows[i] = reads[i] / g->row_bytes;
    for (unsigned i = 0; i < nwrites; i++)
        wrows[i] = writes[i] / g->row_bytes;
    uint32_t r = busiest_group(g, rrows, nreads), w = busiest_group(g, wrows, nwrites);
    uint32_t port = r > w ? r : w;
    /* Each bank serves one row per cycle, read or write: a bank that is read
     * and written in the same window needs more cycles than the group port
     * alone (banks work in parallel, so only the busiest one counts). */
    uint32_t per_bank[MAX_BANKS] = {0}, busiest_bank = 0;
    for (unsigned i = 0; i < nreads + nwrites; i++) {
        uint64_t row = i < nreads ? rrows[i] : wrows[i - nreads];
        bool seen = false;
        for (unsigned k = 0; k < i && !seen; k++) {
            bool same_side = (k < nreads) == (i < nreads);
            seen = same_side && (k < nreads ? rrows[k] : wrows[k - nreads]) == row;
        }
        if (seen)
            continue;
        uint32_t b = (uint32_t)(row % g->banks);
        if (++per_bank[b] > busiest_bank)
            busiest_bank = per_bank[b];
    }
    c.bank_extra = busiest_bank > port ? busiest_bank - port : 0;
    c.group_extra = port > 1 ? port - 1 : 0;
    c.cycles = port + c.bank_extra;
    return c;
}
