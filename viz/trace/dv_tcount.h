/* dv_tcount.h - counters over fixed windows of simulated time, built from
 * the instruction events of dv_hooks.h.  The trace writer turns them into
 * Chrome counter tracks; the viz window draws them as graphs.
 *
 * Time is cut into windows of `period` cycles, [k*period, (k+1)*period).
 * For each core and window:
 *   path_bytes[p]  bytes moved on path p in the window: an instruction that
 *                  moves B bytes over [start, end) counts B / (end - start)
 *                  per cycle (the rate is uniform over its duration);
 *   inflight[m]    bytes of buffer m touched by instructions in flight,
 *                  averaged over the window: each unit instruction counts
 *                  the bytes it reads plus writes in m (dv_trace_insn
 *                  .touched) for every cycle it executes.  This is how much
 *                  of the buffer the pipes are working on, not how much of
 *                  it holds live data (the simulator does not track that);
 *   busy[l]        cycles lane l executed an instruction (waits excluded).
 * A window is complete once simulated time has passed its end: instructions
 * are reported when they start, so nothing later can add to it.  Each
 * complete window is handed to `emit` in time order, for every core; a run
 * of windows where every core is idle may come as one window of several
 * periods.  The state is a fixed amount per core (one record per lane). */
#ifndef DV_TCOUNT_H
#define DV_TCOUNT_H

#include "dv_hooks.h"

#include <stdint.h>

typedef struct dv_tcount_window {
    uint64_t start, cycles; /* [start, start + cycles) */
    double path_bytes[DV_PATH_COUNT];
    double inflight[DV_MEM_KIND_COUNT]; /* bytes, time-averaged */
    double busy[DV_PIPE_COUNT];         /* cycles */
} dv_tcount_window;

typedef void (*dv_tcount_emit_fn)(void *user, unsigned core, const dv_tcount_window *w);

typedef struct dv_tcount dv_tcount;

/* period > 0 cycles; NULL when out of memory. */
dv_tcount *dv_tcount_create(unsigned ncores, uint64_t period, dv_tcount_emit_fn emit, void *user);
void dv_tcount_destroy(dv_tcount *t);
/* Completes the windows that end at or before `now` (call before feeding an
 * event at `now`). */
void dv_tcount_advance(dv_tcount *t, uint64_t now);
/* Counts an instruction (advance to ev->start first). */
void dv_tcount_insn(dv_tcount *t, const dv_trace_insn *ev);
/* Completes every window up to `end`; the last one may be shorter. */
void dv_tcount_finish(dv_tcount *t, uint64_t end);

#endif
