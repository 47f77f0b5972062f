/* dv_timing.h - cost formulas of the memory system: transfers over a path
 * and UB bank conflicts.  Pure functions of their arguments (the chip config
 * supplies the numbers), so a test can check them against arithmetic. */
#ifndef DV_TIMING_H
#define DV_TIMING_H

#include <stdbool.h>
#include <stdint.h>

/* Cycles to move `bytes` over a path of `bytes_per_cycle`: head latency plus
 * bytes / bandwidth (rounded up).  A transfer that touches GM also pays the
 * GM latency, scaled down linearly until it vanishes at `gm_full_bw_bytes`
 * (facts #45: GM transfers reach full bandwidth only from ~16 KB), or in
 * full whatever the size when `gm_full_bw_bytes` is 0. */
uint64_t dv_xfer_cycles(uint64_t bytes, uint64_t bytes_per_cycle, uint64_t head, bool touches_gm,
                        uint64_t gm_latency, uint64_t gm_full_bw_bytes);

/* UB geometry (facts #26): consecutive row_bytes blocks go to consecutive
 * banks; bank b is in group b % groups.  Per cycle the Vector unit reads one
 * row from each group and writes one row to each group. */
typedef struct dv_ub_geom {
    uint32_t banks, groups, row_bytes;
} dv_ub_geom;

/* The cost of one repeat.  `reads` are the block addresses the repeat reads;
 * `writes` are those written in the same cycles, which in the Vector
 * pipeline are the previous repeat's results (so an in-place op over
 * contiguous data does not conflict with itself). */
typedef struct dv_ub_repeat_cost {
    uint32_t cycles;      /* port cycles the repeat needs: the busiest group, plus bank conflicts */
    uint32_t group_extra; /* cycles beyond 1 caused by two reads or two writes in one group */
    uint32_t bank_extra;  /* further cycles because one bank is read and written in the window */
} dv_ub_repeat_cost;

dv_ub_repeat_cost dv_ub_repeat(const dv_ub_geom *g, const uint64_t *reads, unsigned nreads,
                               const uint64_t *writes, unsigned nwrites);

#endif
