/* core_internal.h - shared by the core's source files.  Not installed. */
#ifndef DV_CORE_INTERNAL_H
#define DV_CORE_INTERNAL_H

#include "dv_core.h"

void core_schedule(dv_core *c, dv_event *ev, uint64_t cycle, dv_evprio prio);
void core_wake_scalar(dv_core *c);
void core_fault(dv_core *c, dv_pipe pipe, uint64_t pc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void core_set_flag(dv_core *c, const dv_insn *in);
bool core_dispatch(dv_core *c, dv_pipe pipe, const dv_op *op);
bool core_pipes_idle(const dv_core *c);
void core_pipe_event(dv_event *ev, void *ctx);
void core_scalar_event(dv_event *ev, void *ctx);
/* The GM side of a transfer: looks its lines up in L2, queues its bytes on
 * the L2 and HBM servers, and returns how long the transfer takes at least
 * (path_cycles, or longer when the servers are the bottleneck). */
uint64_t core_gm_access(dv_core *c, const dv_op *op, const dv_op_stats *st, uint64_t path_cycles);
/* Pipes a core of its kind has. */
bool core_has_pipe(const dv_core *c, dv_pipe pipe);
/* Cross-core flags (core_cc.c): dispatch-time checks (faults and returns
 * false), the effect of a set at the head of its pipe, and whether a wait at
 * the head of its pipe may go on (consuming the count). */
bool core_cc_check(dv_core *c, const dv_insn *in);
void core_cc_set(dv_core *c, const dv_op *op);
bool core_cc_try_wait(dv_core *c, const dv_insn *in);
/* Records what an instruction did in the core's statistics. */
void core_account(dv_core *c, const dv_op *op, const dv_op_stats *st, uint64_t cycles);
/* The current value of event e on this core (perfcounters/events.def). */
uint64_t core_event_value(const dv_core *c, unsigned e);
/* The PMU CSRs (core_pmu.c): false if csr is not a PMU register (read) or
 * the write is refused (why says so). */
bool core_pmu_read(dv_core *c, unsigned csr, uint64_t *v);
bool core_pmu_write(dv_core *c, unsigned csr, uint64_t v, char *why, size_t size);
/* Finishes the core or releases a pipe_barrier once every pipe is empty. */
void core_check_drained(dv_core *c);
/* Tracing hooks (core_trace.c, dv_trace.h); call only when c->trace is set.
 * core_trace_buffers snapshots the L0A/L0B/L0C/UB byte counters before
 * core_account so that core_trace_unit can report what the instruction
 * touched. */
void core_trace_insn(dv_core *c, dv_pipe lane, const dv_insn *in, const dv_op *op, uint64_t pc,
                     uint64_t start, uint64_t end);
void core_trace_buffers(const dv_core *c, uint64_t snap[4]);
void core_trace_unit(dv_core *c, dv_pipe lane, const dv_op *op, const dv_op_stats *st, uint64_t cycles,
                     const uint64_t before[4]);
void core_trace_flag(dv_core *c, dv_trace_flag_kind kind, dv_pipe lane, const dv_insn *in, uint64_t pc);
void core_trace_stall(dv_core *c, dv_trace_stall_kind kind, dv_pipe pipe, unsigned id, uint64_t start);
/* "file.dvs:12" for pc, or "" */
const char *core_source_of(const dv_core *c, uint64_t pc, char *buf, size_t size);

/* Tells the launch that c->stop changed (it rescans its cores then). */
static inline void core_stop_changed(dv_core *c)
{
    if (c->stop_seq)
        ++*c->stop_seq;
}

#endif
