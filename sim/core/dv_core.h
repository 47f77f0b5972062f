/* dv_core.h - setting one core up for a launch, starting its blocks, and
 * closing its outcome.  The core's state is core_state.h; its parts are the
 * core_*.h modules (Scalar unit, pipes, cross-core flags, GM, accounting,
 * events, observer hooks). */
#ifndef DV_CORE_H
#define DV_CORE_H

#include "core_state.h"

/* Sets up a core, which must be zeroed memory (dv_zalloc), of kind `kind`
 * for `cfg` running kernel `k` of `obj` (both must outlive the core) with
 * GM `gm` and the chip's memory system `gmsys`,
 * scheduling on `q`.  data = false: timing only.  text_of: NULL, or the
 * launch's first core, whose decoded .text this core uses (the same words
 * decode the same on every core; it must outlive this core). */
dv_status dv_core_init(dv_core *c, const dv_chip_config *cfg, dv_evq *q, dv_gm *gm, dv_gmsys *gmsys,
                       const dv_obj *obj, const dv_obj_kernel *k, dv_core_kind kind, bool data,
                       const dv_core *text_of, dv_error *err);
void dv_core_destroy(dv_core *c);
/* Starts block `block_idx` of `block_dim` at `cycle` with the kernel's
 * arguments: resets the Scalar unit, registers, flags, vector state and the
 * PMU (the buffers keep their bytes, as on hardware); statistics accumulate. */
dv_status dv_core_start_block(dv_core *c, uint64_t block_idx, uint64_t block_dim, const uint64_t *args,
                              uint64_t cycle, dv_error *err);
/* Called when the event queue ran dry while the core had not finished:
 * records the deadlock with who waits for what. */
void dv_core_diagnose_deadlock(dv_core *c);
/* Adds the still-open busy, wait and queue-full intervals up to the stop
 * cycle (for runs that end by fault, deadlock or cycle limit). */
void dv_core_close_stats(dv_core *c);
/* The snapshot front ends see (dv_sim_core_info). */
void dv_core_info_of(const dv_core *c, dv_core_info *out);

#endif
