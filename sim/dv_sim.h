/* dv_sim.h - one simulation: a chip config, its GM, a kernel object, and
 * the chip's cores running the kernel's blocks.  No globals: two dv_sim
 * objects are independent, also when they run interleaved.
 *
 * A launch of block_dim blocks puts block i on core i; when there are more
 * blocks than cores they run in waves: a core that finishes a block takes
 * the next one.  The cores share the event queue, GM and its bandwidth
 * server, so they contend for HBM.
 *
 * Several kernels on the chip at once (a chip that takes launches while
 * it runs, for the host runtime): dv_launch.h.
 *
 * Observers (tracers, the visualiser, host counters) see a run through
 * dv_hooks.h; front ends read the cores through snapshots
 * (dv_sim_core_info), never through the cores' own state. */
#ifndef DV_SIM_H
#define DV_SIM_H

#include "dv_config.h"
#include "dv_hooks.h"
#include "dv_l2.h"
#include "dv_log.h"
#include "dv_mem.h"
#include "dv_obj.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct dv_sim dv_sim;

typedef enum dv_stop {
    DV_STOP_NONE,        /* still running */
    DV_STOP_DONE,        /* end reached and every pipe drained */
    DV_STOP_FAULT,       /* guest fault: out of range, misaligned, illegal, bad parameter */
    DV_STOP_DEADLOCK,    /* every pipe waits and nothing is in flight */
    DV_STOP_LIMIT,       /* the cycle limit was reached */
    DV_STOP_INTERRUPTED, /* the host asked the run to stop (dv_sim_interrupt, Ctrl-C) */
} dv_stop;

const char *dv_stop_name(dv_stop s);

/* What a core is: its buffers and pipes follow (facts #25, #39):
 * coupled cores have everything but FixPipe's BT/FB, an AIC has L1, L0A/B/C,
 * BT, FB and the CUBE, MTE1, MTE2, FIXP pipes, an AIV has UB and the VECTOR,
 * MTE2, MTE3 pipes.  The values are those of the coretype CSR. */
typedef enum dv_core_kind { DV_KIND_COUPLED = 0, DV_KIND_AIC = 1, DV_KIND_AIV = 2 } dv_core_kind;

/* Per-pipe statistics (cycles and counts). */
typedef struct dv_pipe_stats {
    uint64_t busy_cycles; /* executing an instruction (Scalar: executing, dispatching, barrier) */
    uint64_t insns;       /* instructions executed (sync included); for the Scalar unit every
                             instruction it fetched and ran or dispatched */
    uint64_t wait_cycles; /* blocked on wait_flag */
    uint64_t full_cycles; /* Scalar stalled because this queue was full */
} dv_pipe_stats;

/* What a core did over a run; the event catalogue (perfcounters/events.def)
 * reads these. */
typedef struct dv_core_stats {
    uint64_t scalar_insns;             /* first, with pipe[S]: the Scalar unit's counters in one host line */
    dv_pipe_stats pipe[DV_PIPE_COUNT]; /* index dv_pipe; S counts scalar work */
    uint64_t path_bytes[DV_PATH_COUNT];
    uint64_t path_cycles[DV_PATH_COUNT]; /* busy cycles of transfers on each path */
    /* bytes read from and written to each buffer: by transfers (a path's
     * source and destination), the Cube's operands and the Vector unit's */
    uint64_t buf_read[DV_MEM_KIND_COUNT], buf_write[DV_MEM_KIND_COUNT];
    uint64_t cube_macs, cube_fractals;
    uint64_t cube_macs_f16, cube_macs_bf16, cube_macs_int8, cube_macs_f32;
    uint64_t vec_ops_16, vec_ops_32, vec_ops_8;
    uint64_t vec_elem_ops, vec_repeats;
    uint64_t ub_group_conflict_cycles, ub_bank_conflict_cycles;
    dv_l2_counts l2;               /* this core's L2 hits and misses, HBM fill/write-back bytes */
    uint64_t gm_serialised_cycles; /* waits for GM lines another core was transferring */
} dv_core_stats;

/* A core of the launch as front ends see it (dv_sim_core_info); valid until
 * the simulation is destroyed, the statistics move while it runs. */
typedef struct dv_core_info {
    unsigned index; /* in the launch */
    dv_core_kind kind;
    unsigned group;   /* mix launches: the AIC group; else the core's index */
    uint64_t sub_idx; /* an AIV's index in its group */
    uint64_t sub_dim; /* AIVs per group (1 elsewhere) */
    uint64_t blocks_run, active_cycles;
    dv_stop stop;
    uint64_t end_cycle; /* when it stopped (valid once stop != NONE) */
    uint64_t pc;        /* the Scalar unit's program counter */
    const dv_core_stats *stats;
    uint64_t buffer_bytes[DV_MEM_KIND_COUNT]; /* capacity (0: this kind of core lacks it) */
    bool has_pipe[DV_PIPE_COUNT];
    const dv_obj *obj; /* the kernel object (code and line table) */
    /* what is open at the current cycle and not yet reported by a hook: a
     * pipe blocked on a flag since when, the Scalar unit held since when
     * (held: a dv_trace_stall_kind, or -1) */
    bool pipe_waiting[DV_PIPE_COUNT];
    uint64_t pipe_wait_since[DV_PIPE_COUNT];
    uint64_t pipe_wait_pc[DV_PIPE_COUNT]; /* the waiting wait_flag / cc_wait_flag */
    int scalar_held;
    uint64_t scalar_held_since;
} dv_core_info;

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
/* Adds an observer (dv_hooks.h) before the run starts.  The simulation keeps
 * a copy of *h; h->user must outlive the run.  At most DV_SIM_MAX_HOOKS, and one of them
 * may pace. */
enum { DV_SIM_MAX_HOOKS = 4 };
dv_status dv_sim_add_hooks(dv_sim *s, const dv_sim_hooks *h, dv_error *err);
/* Removes every observer whose user is `user`; during a run it is no longer
 * called from the next event on. */
void dv_sim_remove_hooks(dv_sim *s, const void *user);

/* Host threads for the functional work of the instructions (mmad's
 * arithmetic; sim/core/core_async.h), set before the run: 1 does it all on
 * the simulation's thread, 0 (the default) uses the host's CPUs, at most
 * DV_SIM_MAX_THREADS.  The event engine stays on the calling thread and
 * every result is joined before anything can observe it, so outputs,
 * statistics and traces are the same for every number.  dv_sim_threads:
 * the threads the run used (1 for a timing-only run or a launch on one
 * core, whose products follow one another). */
enum { DV_SIM_MAX_THREADS = 64 };
void dv_sim_set_threads(dv_sim *s, unsigned threads);
unsigned dv_sim_threads(const dv_sim *s);
/* Wall seconds the simulation's thread waited for its pool's threads (0
 * without a pool). */
double dv_sim_join_wait(const dv_sim *s);

/* Runs until every block ends, a core faults or deadlocks, or max_cycles
 * (0: no limit).  The same as dv_sim_start, dv_sim_advance(s, UINT64_MAX),
 * dv_sim_finish; with a pacing observer, the slices it asks for. */
dv_status dv_sim_run(dv_sim *s, uint64_t max_cycles, dv_run_result *res, dv_error *err);

/* Incremental runs, for a front end that does other work between slices of
 * simulated time (the viz window draws a frame).  The events fired and
 * their order are exactly those of dv_sim_run: a run cut into slices gives
 * the same cycles, statistics and trace.
 *   dv_sim_start   sets the launch up (cores, first blocks, observers' clocks);
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
/* True once the host asked s to stop (the flag or dv_sim_interrupt): what
 * runs on the host after the simulation, such as an operator's reference
 * check, stops too. */
bool dv_sim_interrupted(const dv_sim *s);
/* The flag given to dv_sim_set_interrupt_flag (NULL if none), for the next
 * launch's simulation. */
const volatile sig_atomic_t *dv_sim_interrupt_flag(const dv_sim *s);

/* The simulation's log (dv_log.h), off until a sink is set; the levels are
 * warn until set.  Category DV_LOG_CAT_SIM says: the launch (info: kernel,
 * blocks, cores), each block's start and end on its core (debug), each
 * core's fault or deadlock and the cycle limit (warn), an interruption and
 * the end (info).  The sink gets one message at a time without a newline,
 * on the thread that runs the simulation.  Logging reads the run, never
 * changes it: same cycles, statistics and traces with it on. */
void dv_sim_set_log(dv_sim *s, dv_log_sink_fn sink, void *user);
void dv_sim_set_log_level(dv_sim *s, dv_log_cat cat, dv_log_level level);

/* Core i of the launch (false if there is none: before dv_sim_start, or i
 * is out of range). */
bool dv_sim_core_info(const dv_sim *s, unsigned i, dv_core_info *out);

#endif
