/* core_pipes.h - the pipe queues of a core: dispatch, in-order issue,
 * flags and barriers, completion, and the end of a block. */
#ifndef DV_CORE_PIPES_H
#define DV_CORE_PIPES_H

#include "core_state.h"

/* set_flag's effect (in its source pipe, or on the Scalar unit for src=s):
 * sets the flag and wakes whoever waits for it. */
void core_set_flag(dv_core *c, const dv_insn *in);
/* Queues the Scalar unit's instruction `in` (at its pc, with its registers'
 * values now) in pipe's queue at cycle `at`: now, or later for a Scalar
 * unit that runs ahead (core_scalar.c); false if the queue is full. */
bool core_dispatch(dv_core *c, dv_pipe pipe, const dv_insn *in, uint64_t at);
/* No pipe holds or executes an instruction. */
bool core_pipes_idle(const dv_core *c);
/* The pipes' event (dv_event_fn): completes the instruction in flight and
 * issues the next ones. */
void core_pipe_event(dv_event *ev, void *ctx);
/* Finishes the block, or releases a pipe_barrier, once every pipe is empty. */
void core_check_drained(dv_core *c);

#endif
