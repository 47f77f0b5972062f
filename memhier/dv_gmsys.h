/* dv_gmsys.h - the chip's memory system behind GM, shared by its cores: the
 * L2 cache and two bandwidth servers, each served in arrival order (the L2
 * server carries every GM byte at l2_bw_ratio x the HBM rate, the HBM
 * server the line fills and write-backs), and same-address serialisation
 * between cores (facts #38).
 *
 * A transfer's GM bytes are looked up line by line in L2 (hits and misses
 * counted for the requester), then queued on the servers: the L2 server
 * moves the whole lines the transfer touches, the HBM server the fills and
 * write-backs (without an L2, the lines touched); it lasts at least until
 * its bytes are through both.  Serialisation is per line: after its
 * start-up (the DMA head and the GM latency, which hold no line) a transfer
 * moves its lines in order at its own rate, and a line is busy while another
 * core's transfer moves it (from the cycle that transfer reaches it to the
 * cycle it is through); a transfer starts late enough that none of its
 * lines is moved while another core moves it.  Two cores streaming the same
 * data thus run one behind the other by the time a line takes, not by a
 * whole transfer. */
#ifndef DV_GMSYS_H
#define DV_GMSYS_H

#include "dv_l2.h"
#include "dv_status.h"

#include <stdbool.h>
#include <stdint.h>

/* Which core last transferred a GM line, and until when; a direct-mapped
 * table, a collision forgets. */
typedef struct dv_gm_line {
    uint64_t line; /* line number + 1; 0 = empty */
    uint64_t core;
    uint64_t busy_from, busy_until; /* the cycles the line is being transferred */
} dv_gm_line;
enum { DV_GM_OWNER_SLOTS = 65536 };

typedef struct dv_gmsys {
    dv_l2 *l2;          /* NULL: no L2, every byte goes to HBM */
    dv_gm_line *owners; /* DV_GM_OWNER_SLOTS entries; NULL: one requester, nothing to serialise */
    /* When each server is next free, in units of 1/rate cycles (bytes at its
     * rate): a transfer books its exact bytes, so a fraction of a cycle left
     * by one transfer is carried into the next and the long-run rate is the
     * configured one (a whole cycle per transfer would cost 2.5% of HBM's
     * rate on 32 KiB transfers and 15% on 4 KiB ones). */
    uint64_t l2_free;  /* L2 server: cycles * hbm_bytes_per_cycle * l2_bw_ratio */
    uint64_t hbm_free; /* HBM server: cycles * hbm_bytes_per_cycle */
    uint64_t line_bytes, hbm_bytes_per_cycle, l2_bw_ratio;
    bool line_pow2;      /* line_bytes is a power of two: */
    unsigned line_shift; /* its log2 */
    /* The lines the current transfer's scan met, in visit order, for its
     * marking: one visit of the ranges instead of two. */
    struct dv_gm_mark *marks;
    size_t nmarks, marks_cap;
} dv_gmsys;

/* l2_bytes 0: no L2. */
dv_status dv_gmsys_init(dv_gmsys *g, uint64_t l2_bytes, uint64_t line_bytes, unsigned ways,
                        uint64_t hbm_bytes_per_cycle, uint64_t l2_bw_ratio, dv_error *err);
/* More than one requester from now on: keep the line owners. */
dv_status dv_gmsys_track_owners(dv_gmsys *g, dv_error *err);
void dv_gmsys_free(dv_gmsys *g);

/* The GM ranges of one transfer, in transfer order: visit(ctx, fn, user)
 * calls fn once per range. */
typedef void (*dv_gm_range_fn)(void *user, uint64_t addr, uint64_t len, bool write);
typedef void (*dv_gm_visit_fn)(const void *ctx, dv_gm_range_fn fn, void *user);

typedef struct dv_gm_xfer {
    uint64_t requester;   /* the core */
    uint64_t now;         /* the cycle the transfer issues */
    uint64_t bytes;       /* its GM bytes */
    uint64_t path_cycles; /* its cycles on its own path (head and latency included) */
    uint64_t path_bw;     /* the path's bytes per cycle */
    dv_gm_visit_fn visit; /* its ranges */
    const void *visit_ctx;
} dv_gm_xfer;

/* Books the transfer on the memory system: returns how long it takes from
 * `now` (path_cycles, or longer when the servers or another core's lines
 * hold it back), adds its L2 hits and misses to *counts and the cycles it
 * waited for other cores' lines to *serialised. */
uint64_t dv_gmsys_access(dv_gmsys *g, const dv_gm_xfer *x, dv_l2_counts *counts, uint64_t *serialised);

#endif
