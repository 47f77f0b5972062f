/* dv_sim.h - one simulation: a chip config, its GM, a kernel object, and
 * the chip's cores running the kernel's blocks.  No globals: two dv_sim
 * objects are independent.
 *
 * A launch of block_dim blocks puts block i on core i; when there are more
 * blocks than cores they run in waves: a core that finishes a block takes
 * the next one.  The cores share the event queue, GM and its bandwidth
 * server, so they contend for HBM. */
#ifndef DV_SIM_H
#define DV_SIM_H

#include "dv_core.h"
#include "dv_trace.h"

#include <signal.h>

typedef struct dv_sim dv_sim;

typedef struct dv_run_result {
    dv_stop stop;               /* DONE only if every block finished */
    uint64_t cycles;            /* from the first fetch to the end of the last block */
    uint64_t launch_cycles;     /* chip.launch_cycles, before the first fetch */
    const char *message;        /* fault / deadlock description of the first core that stopped */
    const dv_core_stats *stats; /* core 0 */
    unsigned ncores;            /* cores used: min(block_dim, cores of the kernel's type) */
    uint64_t block_dim;
} dv_run_result;

/* data = false: timing only (no arithmetic; same cycles for kernels whose
 * control flow does not depend on data). */
dv_sim *dv_sim_create(const dv_chip_config *cfg, bool data, dv_error *err);
void dv_sim_destroy(dv_sim *s);
const dv_chip_config *dv_sim_config(const dv_sim *s);
dv_gm *dv_sim_gm(dv_sim *s);

/* Chooses the kernel to run (NULL: the object's only kernel). */
dv_status dv_sim_load(dv_sim *s, const dv_obj *obj, const char *kernel, dv_error *err);
const dv_obj_kernel *dv_sim_kernel(const dv_sim *s);
/* Sets argument i (register a_i) before the run. */
dv_status dv_sim_set_arg(dv_sim *s, unsigned index, uint64_t value, dv_error *err);
/* Number of blocks to launch (default 1). */
dv_status dv_sim_set_blocks(dv_sim *s, uint64_t block_dim, dv_error *err);
/* Runs until every block ends, a core faults or deadlocks, or max_cycles
 * (0: no limit).  The same as dv_sim_start, dv_sim_advance(s, UINT64_MAX),
 * dv_sim_finish. */
dv_status dv_sim_run(dv_sim *s, uint64_t max_cycles, dv_run_result *res, dv_error *err);

/* Incremental runs, for a front end that does other work between slices of
 * simulated time (the viz window draws a frame).  The events fired and
 * their order are exactly those of dv_sim_run: a run cut into slices gives
 * the same cycles, statistics and trace.
 *   dv_sim_start   sets the launch up (cores, first blocks, samplers);
 *   dv_sim_advance fires every event at or before cycle `until` and returns
 *                  true while the run goes on (false: it has ended, see
 *                  dv_sim_finish); DV_ERR_NOMEM in *err when it fails;
 *   dv_sim_finish  closes the statistics and fills res (also after an
 *                  interrupted or unfinished run: the cores still running
 *                  stop as DV_STOP_INTERRUPTED at the current cycle).
 * dv_sim_now is the cycle of the last event fired, dv_sim_next_cycle that of
 * the next one (UINT64_MAX if none); dv_sim_ncores the cores of the launch
 * (0 before dv_sim_start). */
dv_status dv_sim_start(dv_sim *s, uint64_t max_cycles, dv_error *err);
bool dv_sim_advance(dv_sim *s, uint64_t until, dv_error *err);
dv_status dv_sim_finish(dv_sim *s, dv_run_result *res, dv_error *err);
uint64_t dv_sim_now(const dv_sim *s);
uint64_t dv_sim_next_cycle(const dv_sim *s);
unsigned dv_sim_ncores(const dv_sim *s);
/* Stops the run at the next event boundary with DV_STOP_INTERRUPTED (at the
 * cycle of the last event, or the end of the last slice advanced through if
 * that is later).
 * `flag` (may be NULL) is polled between events: a signal handler may set
 * it (the library installs no handler); dv_sim_interrupt asks directly. */
void dv_sim_set_interrupt_flag(dv_sim *s, const volatile sig_atomic_t *flag);
void dv_sim_interrupt(dv_sim *s);
/* A tracer or visualiser (dv_trace.h), attached before dv_sim_start; the
 * sink must outlive the run.  NULL detaches. */
void dv_sim_attach_trace(dv_sim *s, const dv_trace_sink *sink);
/* For a front end that needs control while someone else calls dv_sim_run
 * (an operator's launches): with a pacer, dv_sim_run fires the events up to
 * the cycle pace() returns, calls it again, and so on until the run ends.
 * pace() may draw, wait for input (pausing the run), call dv_sim_interrupt,
 * or return UINT64_MAX to let the run go to its end; it should return a
 * later cycle each time (dv_sim_now does not move over a slice that holds no
 * event).  The slices change nothing in the simulation.  Without a pacer dv_sim_run runs straight
 * through. */
typedef uint64_t (*dv_sim_pace_fn)(void *user, dv_sim *s);
void dv_sim_set_pacer(dv_sim *s, dv_sim_pace_fn pace, void *user);
/* Host-side counters (dv_perf.h) attach themselves here; one at a time. */
struct dv_perf;
void dv_sim_attach_perf(dv_sim *s, struct dv_perf *p);

/* Core i after a run (NULL if it was not used). */
const dv_core *dv_sim_core(const dv_sim *s, unsigned i);

#endif
