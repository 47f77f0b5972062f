/* core_trace.h - the core's side of the observers' event hooks (dv_hooks.h).
 * Call only when c->hooks is set: a run without observers pays one NULL
 * test per hook. */
#ifndef DV_CORE_TRACE_H
#define DV_CORE_TRACE_H

#include "core_state.h"

/* An instruction of `lane` over [start, end): the Scalar unit's work, a
 * flag's wait or set. */
void core_trace_insn(dv_core *c, dv_pipe lane, const dv_insn *in, const dv_op *op, uint64_t pc,
                     uint64_t start, uint64_t end);
/* A unit instruction issuing for `cycles`, mem_cycles of them spent
 * waiting for the shared memory system: snapshot the buffer counters
 * before core_account (core_trace_buffers), report after it. */
typedef struct core_buf_snap {
    uint64_t bytes[DV_MEM_KIND_COUNT];
} core_buf_snap;
void core_trace_buffers(const dv_core *c, core_buf_snap *snap);
void core_trace_unit(dv_core *c, dv_pipe lane, const dv_op *op, const dv_op_stats *st, uint64_t cycles,
                     uint64_t mem_cycles, const core_buf_snap *before);
/* The footprint of a unit instruction issuing on `lane` (dv_unit_footprint);
 * call only when c->hooks->access is set. */
void core_trace_access(dv_core *c, dv_pipe lane, const dv_op *op);
/* A Scalar unit load or store; call only when c->hooks->access is set. */
void core_trace_scalar_access(dv_core *c, dv_mem_kind mem, uint64_t addr, uint64_t len, bool write);
void core_trace_flag(dv_core *c, dv_trace_flag_kind kind, dv_pipe lane, const dv_insn *in, uint64_t pc);
void core_trace_stall(dv_core *c, dv_trace_stall_kind kind, dv_pipe pipe, unsigned id, uint64_t start);

#endif
