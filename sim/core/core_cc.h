/* core_cc.h - cross-core flags between the cores of a split-chip launch
 * (facts #58), and which pipes a core of its kind has. */
#ifndef DV_CORE_CC_H
#define DV_CORE_CC_H

#include "core_state.h"

/* Pipes a core of its kind has. */
bool core_has_pipe(const dv_core *c, dv_pipe pipe);
/* Dispatch-time checks of cc_set_flag / cc_wait_flag: faults and returns
 * false when the instruction cannot run on this core. */
bool core_cc_check(dv_core *c, const dv_insn *in);
/* The effect of a set at the head of its pipe. */
void core_cc_set(dv_core *c, const dv_op *op);
/* Whether a wait at the head of its pipe may go on (consuming the count). */
bool core_cc_try_wait(dv_core *c, const dv_insn *in);

#endif
