/* core_account.h - what an instruction adds to its core's statistics. */
#ifndef DV_CORE_ACCOUNT_H
#define DV_CORE_ACCOUNT_H

#include "core_state.h"

/* Records what a unit instruction did (st, from its cycles function) and
 * the cycles it occupies its pipe. */
void core_account(dv_core *c, const dv_op *op, const dv_op_stats *st, uint64_t cycles);

#endif
