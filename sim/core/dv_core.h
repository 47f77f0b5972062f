/* dv_core.h - one simulated AI core: the Scalar unit, the in-order pipe
 * queues (V, M, MTE1, MTE2, MTE3, FIX), flags and barriers, the core's
 * buffers, and the statistics of a run.
 *
 * The Scalar unit fetches every instruction, runs scalar ones itself and
 * dispatches the rest, with their register values, into the queue of the
 * pipe that owns them; it stalls while that queue is full.  Each pipe runs
 * its queue in order, one instruction at a time: set_flag fires when it
 * reaches the head (the work before it is done), wait_flag blocks the pipe
 * until its flag is set.  An instruction's functional effect happens when it
 * completes, at the simulated time its pipe finishes it. */
#ifndef DV_CORE_H
#define DV_CORE_H

#include "dv_config.h"
#include "dv_evq.h"
#include "dv_l2.h"
#include "dv_obj.h"
#include "dv_trace.h"
#include "dv_unit.h"

#include <stdbool.h>
#include <stdint.h>

enum { DV_MAX_EVENT_IDS = 16, DV_SDATA_BYTES = 65536 };

typedef enum dv_stop {
    DV_STOP_NONE,     /* still running */
    DV_STOP_DONE,     /* end reached and every pipe drained */
    DV_STOP_FAULT,    /* guest fault: out of range, misaligned, illegal, bad parameter */
    DV_STOP_DEADLOCK, /* every pipe waits and nothing is in flight */
    DV_STOP_LIMIT,    /* the cycle limit was reached */
    DV_STOP_INTERRUPTED, /* the host asked the run to stop (dv_sim_interrupt, Ctrl-C) */
} dv_stop;

const char *dv_stop_name(dv_stop s);

/* Per-pipe statistics (cycles and counts). */
typedef struct dv_pipe_stats {
    uint64_t busy_cycles; /* executing an instruction (Scalar: executing, dispatching, barrier) */
    uint64_t insns;       /* instructions executed (sync included); for the Scalar unit every
                             instruction it fetched and ran or dispatched */
    uint64_t wait_cycles; /* blocked on wait_flag */
    uint64_t full_cycles; /* Scalar stalled because this queue was full */
} dv_pipe_stats;

typedef struct dv_core_stats {
    dv_pipe_stats pipe[DV_PIPE_COUNT]; /* index dv_pipe; S counts scalar work */
    uint64_t path_bytes[DV_PATH_COUNT];
    uint64_t path_cycles[DV_PATH_COUNT]; /* busy cycles of transfers on each path */
    uint64_t cube_macs, cube_fractals;
    uint64_t cube_macs_f16, cube_macs_bf16, cube_macs_int8;
    uint64_t vec_ops_16, vec_ops_32, vec_ops_8;
    uint64_t l0a_read, l0a_write, l0b_read, l0b_write, l0c_read, l0c_write, ub_read, ub_write; /* bytes */
    uint64_t vec_elem_ops, vec_repeats;
    uint64_t ub_group_conflict_cycles, ub_bank_conflict_cycles;
    uint64_t scalar_insns;
    dv_l2_counts l2;               /* this core's L2 hits and misses, HBM fill/write-back bytes */
    uint64_t gm_serialised_cycles; /* waits for GM lines another core was transferring */
} dv_core_stats;

/* The chip's memory system behind GM, shared by its cores: the L2 cache
 * and two bandwidth servers (L2 for every GM byte, HBM for the bytes the
 * cache misses or writes back), each served in arrival order. */
/* Which core last transferred a GM line, and until when (same-address
 * serialisation, facts #38); a direct-mapped table, a collision forgets. */
typedef struct dv_gm_line {
    uint64_t line; /* line number + 1; 0 = empty */
    uint64_t core;
    uint64_t busy_from, busy_until; /* the cycles the line is being transferred */
} dv_gm_line;
enum { DV_GM_OWNER_SLOTS = 65536 };

typedef struct dv_gm_system {
    dv_l2 *l2;          /* NULL: no L2, every byte goes to HBM */
    dv_gm_line *owners; /* DV_GM_OWNER_SLOTS entries; NULL with one core */
    uint64_t l2_free;   /* next free cycle of the L2 server */
    uint64_t hbm_free;  /* next free cycle of the HBM server */
} dv_gm_system;

/* The device PMU of a core, modelled on the Arm PMU (isa_csr.def): a cycle
 * counter and DV_PMU_COUNTERS programmable counters.  A counter counts
 * while pmcr.E and its enable bit are set; its value is acc plus the
 * event's growth since base. */
enum { DV_PMU_COUNTERS = 8, DV_PMU_CYCLE_BIT = 31 };
typedef struct dv_pmu {
    uint64_t pmcr;     /* bit 0 E (enable all) */
    uint32_t enabled;  /* bits 0..7 event counters, bit 31 the cycle counter */
    uint32_t overflow; /* sticky: a counter reached its threshold */
    uint32_t fired;    /* counters at or above their threshold (edge detection) */
    uint64_t evtype[DV_PMU_COUNTERS], threshold[DV_PMU_COUNTERS];
    uint64_t acc[DV_PMU_COUNTERS + 1], base[DV_PMU_COUNTERS + 1]; /* [8] = cycle counter */
} dv_pmu;

typedef struct dv_pipe_state {
    dv_op *queue; /* ring of `depth` entries */
    unsigned head, count, depth;
    dv_event ev; /* issue and completion of this pipe */
    bool busy;
    dv_op cur; /* the instruction in flight */
    uint64_t busy_since;
    uint64_t last_end; /* when the previous unit instruction finished (back-to-back issue) */
    bool has_run;      /* a unit instruction has completed, so last_end is meaningful */
    bool waiting;      /* head is a wait_flag whose flag is not set */
    uint64_t wait_since;
    struct dv_core *core;
    dv_pipe id;
} dv_pipe_state;

typedef struct dv_core {
    const dv_chip_config *cfg;
    dv_evq *q;
    const dv_obj *obj;
    dv_insn *text;     /* .text, decoded on first fetch */
    uint8_t *text_ok;  /* per word: 0 not decoded yet, 1 decoded, 2 does not decode */
    uint64_t *stop_seq; /* bumped whenever stop changes (the launch watches it); may be NULL */
    size_t ninsns;
    uint64_t regs[DV_NUM_REGS];
    uint64_t pc;
    /* identity, readable through CSRs */
    uint64_t core_id, block_idx, block_dim, core_type;
    uint64_t sub_idx, sub_dim; /* an AIV's index in its AIC group, and the group's AIV count */
    unsigned group;            /* mix launches: the AIC group this core belongs to */
    unsigned net_index;        /* index in cc->cores */
    struct dv_cc_net *cc;      /* NULL outside split-chip launches */
    /* Scalar unit */
    dv_event scalar_ev;
    bool ended;     /* `end` fetched */
    int stalled_on; /* pipe whose full queue stalls the Scalar unit, or -1 */
    uint64_t stall_since;
    bool barrier_wait;          /* pipe_barrier pipe=all: waiting for every pipe to drain */
    int scalar_flag_wait;       /* waiting for a flag with dst = S: src * 256 + id, or -1 */
    uint64_t scalar_wait_since; /* start of the current flag or barrier wait */
    uint64_t instret;
    dv_pipe_state pipes[DV_PIPE_COUNT];
    uint8_t flags[DV_PIPE_COUNT][DV_PIPE_COUNT][DV_MAX_EVENT_IDS];
    /* buffers and unit state */
    dv_mem mem[DV_MEM_KIND_COUNT];
    dv_mem sdata; /* the Scalar unit's own data memory (space=sdata) */
    dv_gm *gm;
    dv_gm_system *gmsys;    /* shared with the chip's other cores */
    dv_gm_system gmsys_own; /* a core set up on its own: no L2 */
    const dv_obj_kernel *kernel;
    /* Called when a block finishes (stop == DONE); it may start the next
     * block with dv_core_start_block, which clears stop again. */
    void (*on_done)(struct dv_core *c, void *user);
    void *on_done_user;
    uint64_t blocks_run;
    uint64_t active_cycles; /* sum over the blocks of (end - start) */
    uint64_t block_start;
    dv_vec_state vec;
    uint64_t fmatrix;
    dv_unit_ctx ctx;
    dv_pmu pmu;
    const dv_trace_sink *trace; /* NULL: no tracer (dv_trace.h); set by dv_sim */
    /* outcome */
    dv_stop stop;
    uint64_t end_cycle;
    char stop_msg[1024];
    dv_core_stats stats;
} dv_core;

/* What a core is: its buffers and pipes follow (facts #25, #39):
 * coupled cores have everything but FixPipe's BT/FB, an AIC has L1, L0A/B/C,
 * BT, FB and the CUBE, MTE1, MTE2, FIXP pipes, an AIV has UB and the VECTOR,
 * MTE2, MTE3 pipes. */
typedef enum dv_core_kind { DV_KIND_COUPLED = 0, DV_KIND_AIC = 1, DV_KIND_AIV = 2 } dv_core_kind;

/* Cross-core flags of a launch (split chips, facts #58): one counter per
 * core and flag id, and how many sets a wait on it consumes. */
typedef struct dv_cc_net {
    struct dv_core **cores; /* every core of the launch */
    unsigned ncores;
    uint8_t *count; /* [core][id] */
    uint8_t *need;  /* [core][id]: sets one wait consumes (from the last set's mode) */
} dv_cc_net;

/* Sets up a core of kind `kind` for `cfg` running kernel `k` of `obj` (both
 * must outlive the core) with GM `gm`, scheduling on `q`.  data = false:
 * timing only. */
dv_status dv_core_init(dv_core *c, const dv_chip_config *cfg, dv_evq *q, dv_gm *gm, const dv_obj *obj,
                       const dv_obj_kernel *k, dv_core_kind kind, bool data, dv_error *err);
void dv_core_destroy(dv_core *c);
/* Starts block `block_idx` of `block_dim` at `cycle` with the kernel's
 * arguments: resets the Scalar unit, registers, flags and vector state (the
 * buffers keep their bytes, as on hardware); statistics accumulate. */
dv_status dv_core_start_block(dv_core *c, uint64_t block_idx, uint64_t block_dim, const uint64_t *args,
                              uint64_t cycle, dv_error *err);
/* Called when the event queue ran dry while the core had not finished:
 * records the deadlock with who waits for what. */
void dv_core_diagnose_deadlock(dv_core *c);
/* Adds the still-open busy, wait and queue-full intervals up to the stop
 * cycle (for runs that end by fault, deadlock or cycle limit). */
void dv_core_close_stats(dv_core *c);
/* Adds the still-open busy, wait and queue-full intervals up to the stop
 * cycle (for runs that end by fault, deadlock or cycle limit). */
void dv_core_close_stats(dv_core *c);

#endif
