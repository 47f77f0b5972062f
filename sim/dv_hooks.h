/* dv_hooks.h - the one interface through which a simulation tells its
 * observers what happens, and lets a front end take over between slices of
 * simulated time.  Tracers (the Chrome-trace writer in viz/trace/), the
 * visualiser (viz/), host counters (dv_sim_perf.h) and tests fill a
 * dv_sim_hooks and add it to a simulation before the run starts
 * (dv_sim_add_hooks); the simulator includes none of them.
 *
 * The cores call the hooks at the simulated time things happen, so the
 * cycle of successive calls never goes back (`start` of a wait or a stall
 * lies in the past; the call comes when it ends).  The core does no I/O and
 * keeps no state for an observer; without one every hook is one NULL test.
 * Any function may be NULL.
 *
 * Lanes are the pipes of dv_isa.h: DV_PIPE_S is the Scalar unit, then
 * VECTOR, CUBE, MTE1, MTE2, MTE3, FIXP.  Every instruction a lane counts in
 * core<i>.<pipe>.instructions (stats.json) is reported exactly once, by
 * `insn` (or, for the Scalar unit's own to an observer that sets it, by the
 * narrow `scalar`), at the point where it is counted:
 *   - the Scalar unit: every instruction it runs or dispatches, for the
 *     cycles it spends on it ([start, start + latency));
 *   - a pipe's unit instruction when it issues, for its whole duration (the
 *     end is already known then; a run that stops early may stop inside it);
 *   - set_flag / cc_set_flag when it reaches the head of its pipe (no time);
 *   - wait_flag / cc_wait_flag when it is released, from the cycle it
 *     reached the head of its pipe (the blocked time) to the release (a
 *     wait_flag with dst=s is one of the Scalar unit's instructions: it
 *     comes when the flag is there, its wait as a stall).
 * The Scalar unit's blocked intervals (a full queue, a wait_flag with
 * dst=s, pipe_barrier pipe=all) are not instructions: `stall` reports each
 * one when it ends. */
#ifndef DV_HOOKS_H
#define DV_HOOKS_H

#include "dv_isa.h"
#include "dv_mem.h"
#include "dv_op.h"
#include "dv_status.h"

#include <stdbool.h>
#include <stdint.h>

struct dv_sim;

typedef struct dv_trace_insn {
    unsigned core;         /* index in the launch (dv_sim_core) */
    dv_pipe lane;          /* DV_PIPE_S .. DV_PIPE_FIX */
    uint64_t start, end;   /* cycles, [start, end); end == start for flags that did not wait */
    uint64_t pc;           /* byte offset in .text */
    const dv_insn *insn;   /* valid during the call only */
    const dv_op *op;       /* with its register values; NULL on the Scalar unit */
    const dv_op_stats *st; /* a unit instruction's path, bytes, MACs, repeats; else NULL */
    /* A unit instruction's bytes read plus written in each of the core's
     * buffers (GM: bytes moved to or from GM); zero otherwise. */
    uint64_t touched[DV_MEM_KIND_COUNT];
    /* A unit instruction's cycles of [start, end) beyond its path's own
     * time: waiting for the shared memory system (L2 or HBM bandwidth, GM
     * lines another core transfers); zero otherwise. */
    uint64_t mem_cycles;
} dv_trace_insn;

typedef enum dv_trace_flag_kind {
    DV_TRACE_FLAG_SET,  /* set_flag fired (lane: the pipe it sat in, or S) */
    DV_TRACE_FLAG_WAIT, /* wait_flag consumed the flag (lane: its pipe, or S) */
    DV_TRACE_CC_SET,    /* cc_set_flag fired: the targets' counters went up */
    DV_TRACE_CC_WAIT,   /* cc_wait_flag consumed its counter */
} dv_trace_flag_kind;

typedef struct dv_trace_flag {
    dv_trace_flag_kind kind;
    unsigned core;
    dv_pipe lane;
    dv_pipe src, dst; /* set/wait_flag: the flag's pipes; cc flags: both the pipe named */
    unsigned id;
    uint64_t cycle;
    uint64_t pc;
} dv_trace_flag;

/* One range of a buffer an instruction reads or writes (the sanitizer's
 * feed): a pipe's unit instruction reports its exact footprint when it
 * issues, right after its `insn` (strided operands range by range, a
 * read-modify-write as a read and a write); the Scalar unit's loads and
 * stores come before their `insn`.  SDATA is not reported. */
typedef struct dv_trace_access {
    unsigned core;
    dv_pipe lane;
    dv_mem_kind mem;
    bool write;
    uint64_t addr, len;
    uint64_t pc;
    uint64_t cycle;
} dv_trace_access;

typedef enum dv_trace_stall_kind {
    DV_TRACE_STALL_QUEUE_FULL, /* dispatch to `pipe` waited for room in its queue */
    DV_TRACE_STALL_FLAG,       /* wait_flag src=pipe, dst=s, id */
    DV_TRACE_STALL_BARRIER,    /* pipe_barrier pipe=all waited for the pipes to drain */
} dv_trace_stall_kind;

typedef struct dv_trace_stall {
    dv_trace_stall_kind kind;
    unsigned core;
    dv_pipe pipe;
    unsigned id;
    uint64_t start, end; /* cycles */
    uint64_t pc;         /* the instruction the Scalar unit is held at */
} dv_trace_stall;

typedef struct dv_sim_hooks {
    void *user; /* passed to every function */
    /* The launch has created its cores (dv_sim_ncores, dv_sim_core_info),
     * before the first block starts.  An error (the observer cannot set up,
     * say out of memory) fails dv_sim_start with it. */
    dv_status (*launch)(void *user, const struct dv_sim *sim, dv_error *err);
    /* A core starts block block_idx (its first, or the next of a wave). */
    void (*block)(void *user, unsigned core, uint64_t block_idx, uint64_t cycle);
    void (*insn)(void *user, const dv_trace_insn *ev);
    /* Optional, for observers that count every instruction (the profiler):
     * a Scalar unit instruction, [start, end) at pc, reported through this
     * narrow call instead of `insn` (no dv_trace_insn is built; with several
     * observers, those without it still get `insn`).  An observer that sets
     * it gets no `insn` for lane DV_PIPE_S. */
    void (*scalar)(void *user, unsigned core, const dv_insn *in, uint64_t pc, uint64_t start, uint64_t end);
    void (*flag)(void *user, const dv_trace_flag *ev);
    void (*stall)(void *user, const dv_trace_stall *ev);
    /* Buffer accesses (dv_trace_access); NULL costs the cores one test per
     * instruction when another hook is set, nothing otherwise. */
    void (*access)(void *user, const dv_trace_access *ev);
    /* A clock: after launch, period(user) gives the cycles between ticks (0:
     * none); tick(user, cycle) then comes every period cycles, after the
     * cores' events of that cycle, the last cycle of a finished run
     * included.  Ticks alone do not keep a run going. */
    uint64_t (*period)(void *user);
    void (*tick)(void *user, uint64_t cycle);
    /* The run has ended at `cycles` (done: every block finished), from
     * dv_sim_finish. */
    void (*end)(void *user, uint64_t cycles, bool done);
    /* Control between slices, for a front end that needs it while someone
     * else calls dv_sim_run (an operator's launches): dv_sim_run fires the
     * events up to the cycle pace() returns, calls it again, and so on until
     * the run ends.  pace() may draw, wait for input (pausing the run), call
     * dv_sim_interrupt, or return UINT64_MAX to let the run go to its end;
     * it should return a later cycle each time (dv_sim_now does not move over
     * a slice that holds no event).  The slices change nothing in the
     * simulation.  At most one observer of a run paces it. */
    uint64_t (*pace)(void *user, struct dv_sim *sim);
} dv_sim_hooks;

#endif
