/* core_state.h - the state of one simulated AI core, shared by the core's
 * modules (core_*.c) and the launch (sim.c).  Not seen outside sim/: front
 * ends read a core through dv_sim_core_info.
 *
 * The Scalar unit fetches every instruction, runs scalar ones itself and
 * dispatches the rest, with their register values, into the queue of the
 * pipe that owns them; it stalls while that queue is full.  Each pipe runs
 * its queue in order, one instruction at a time: set_flag fires when it
 * reaches the head (the work before it is done), wait_flag blocks the pipe
 * until its flag is set.  An instruction's functional effect happens when it
 * completes, at the simulated time its pipe finishes it. */
#ifndef DV_CORE_STATE_H
#define DV_CORE_STATE_H

#include "core_async_state.h"
#include "dv_config.h"
#include "dv_evq.h"
#include "dv_gmsys.h"
#include "dv_hooks.h"
#include "dv_obj.h"
#include "dv_pmu.h"
#include "dv_sim.h"
#include "dv_unit.h"

#include <stdbool.h>
#include <stdint.h>

enum { DV_SDATA_BYTES = 65536, DV_MAX_REQUESTS = DV_MAX_DMA_REQUESTS /* requests in flight per engine */ };

/* What the fetch knows of a word of .text (core_scalar.c). */
typedef enum core_text_state {
    CORE_TEXT_UNDECODED = 0,
    CORE_TEXT_DECODED,
    CORE_TEXT_ILLEGAL,  /* does not decode */
    CORE_TEXT_PRIVATE,  /* decoded, and touches only the Scalar unit's registers and pc */
    CORE_TEXT_DISPATCH, /* decoded, and goes to a pipe's queue (not S, all, or a cross-core flag) */
} core_text_state;

typedef struct dv_pipe_state {
    dv_op *queue; /* ring of `depth` entries */
    unsigned head, count, depth;
    dv_event ev; /* issue and completion of this pipe */
    bool busy;
    dv_op cur; /* the instruction in flight */
    uint64_t busy_since;
    uint64_t last_end; /* when the previous unit instruction finished (back-to-back issue) */
    bool has_run;      /* the last instruction was unit work (not a barrier, set_mask or other
                          control op), so the next may stream behind it from last_end */
    bool waiting;      /* head is a wait_flag whose flag is not set */
    /* transfers (core_dma.c): the ends of the last DV_MAX_REQUESTS, the
     * next slot, and the last order point (a wait passed, a barrier done) */
    uint64_t req_end[DV_MAX_REQUESTS];
    unsigned req_next;
    uint64_t order_at;
    uint64_t wait_since;
    struct dv_core *core;
    dv_pipe id;
} dv_pipe_state;

/* Cross-core flags of a launch (split chips, facts #58): one counter per
 * core and flag id, and how many sets a wait on it consumes. */
typedef struct dv_cc_net {
    struct dv_core **cores; /* every core of the launch */
    unsigned ncores;
    uint8_t *count; /* [core][id] */
    uint8_t *need;  /* [core][id]: sets one wait consumes (from the last set's mode) */
} dv_cc_net;

/* An instruction a Scalar unit ran ahead of the event queue in its last
 * firing (core_scalar.c): what undoing it needs that its words do not say. */
enum { CORE_AHEAD_MAX = 256 }; /* instructions run ahead per firing */
typedef struct core_ahead_insn {
    uint64_t old_r0; /* its register R0 before it ran (a private one writes only R0) */
    uint32_t idx;    /* its word in .text */
    uint32_t lat;    /* its cycles: the next one ran that much later (the first at ahead_from) */
} core_ahead_insn;

typedef struct dv_core {
    /* What the Scalar unit reads on every instruction first, side by side:
     * a launch of many cores fires one core's Scalar event after another's,
     * and these few host cache lines are what each event brings in. */
    dv_event scalar_ev;
    dv_stop stop;
    bool ended;         /* `end` fetched */
    unsigned nahead;    /* of the last firing, in ahead[] */
    unsigned ahead_cap; /* CORE_AHEAD_MAX, or 0 if the unit's latencies or .text do not fit an entry */
    uint64_t pc;
    uint64_t instret;
    dv_evq *q;
    const dv_sim_hooks *hooks; /* the observers' event functions, or NULL (set by dv_sim) */
    const dv_obj_kernel *kernel;
    dv_insn *text;    /* .text, decoded on first fetch */
    uint8_t *text_ok; /* per word, a core_text_state */
    size_t ninsns;
    uint64_t regs[DV_NUM_REGS];
    /* when each pipe's event is due while it is queued, else UINT64_MAX
     * (core_schedule_pipe, core_pipe_event): what a dispatch run ahead asks
     * of every pipe, in one host cache line instead of seven */
    uint64_t pipe_due[DV_PIPE_COUNT];
    /* the counters, which every instruction bumps (the Scalar unit's first:
     * on x86-64 the fields above fill 7 host cache lines and these start the
     * next) */
    dv_core_stats stats;
    /* the rest of the Scalar unit */
    const dv_chip_config *cfg;
    const dv_obj *obj;   /* its .text is decoded into text on first fetch */
    uint64_t ahead_from; /* the cycle ahead[0] ran at */
    size_t text_bytes;   /* text's allocation (dv_zfree) */
    bool text_shared;    /* text and text_ok are another core's (the launch's first): not freed here */
    uint64_t *stop_seq;  /* bumped whenever stop changes (the launch watches it); may be NULL */
    /* identity, readable through CSRs */
    uint64_t core_id, block_idx, block_dim, core_type;
    uint64_t sub_idx, sub_dim; /* an AIV's index in its AIC group, and the group's AIV count */
    unsigned group;            /* mix launches: the AIC group this core belongs to */
    unsigned net_index;        /* index in the launch (and in cc->cores) */
    dv_cc_net *cc;             /* NULL outside split-chip launches */
    /* Scalar unit */
    int stalled_on; /* pipe whose full queue stalls the Scalar unit, or -1 */
    uint64_t stall_since;
    bool barrier_wait;          /* pipe_barrier pipe=all: waiting for every pipe to drain */
    int scalar_flag_wait;       /* waiting for a flag with dst = S: src * 256 + id, or -1 */
    uint64_t scalar_wait_since; /* start of the current flag or barrier wait */
    dv_pipe_state pipes[DV_PIPE_COUNT];
    uint8_t flags[DV_PIPE_COUNT][DV_PIPE_COUNT][DV_MAX_EVENT_IDS];
    /* buffers and unit state */
    dv_mem mem[DV_MEM_KIND_COUNT];
    dv_mem sdata; /* the Scalar unit's own data memory (space=sdata) */
    dv_gm *gm;
    dv_gmsys *gmsys; /* the chip's L2 and HBM, shared with its other cores */
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
    core_async async; /* mmad's arithmetic on the launch's host threads */
    dv_pmu pmu;
    /* outcome (stop is with the Scalar unit's fields above) */
    uint64_t end_cycle;
    core_ahead_insn ahead[CORE_AHEAD_MAX]; /* read only when a run stops early (core_scalar_rewind) */
    char stop_msg[1024];                   /* last: cold, and large */
} dv_core;

#endif
