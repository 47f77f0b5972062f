/* core_gm.h - the GM side of a core's transfers (memhier/dv_gmsys.h). */
#ifndef DV_CORE_GM_H
#define DV_CORE_GM_H

#include "core_state.h"

/* For a transfer that touches GM: books its lines on the chip's L2 and HBM
 * and returns how long it takes at least (path_cycles, or longer when the
 * shared memory system holds it back); other instructions: path_cycles. */
uint64_t core_gm_access(dv_core *c, const dv_op *op, const dv_op_stats *st, uint64_t path_cycles);
/* As core_gm_access for a transfer that starts at cycle `start` (not before
 * the current cycle's history: a DMA whose start-up began earlier); the
 * result counts from start. */
uint64_t core_gm_access_at(dv_core *c, const dv_op *op, const dv_op_stats *st, uint64_t path_cycles,
                           uint64_t start);

#endif
