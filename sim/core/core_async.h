/* core_async.h - a core's heavy functional work (mmad's arithmetic) on the
 * launch's host threads, joined before anything can observe its result.
 *
 * The event engine stays on one thread and decides everything in simulated
 * order: the instruction's checks and faults (dv_cube_prepare), its cycles,
 * its statistics.  Only the arithmetic moves to a pool thread, and a core
 * has at most one such product in flight.  It is joined
 *   - before the core's next mmad (the core's working memory, and L0C's
 *     accumulation order);
 *   - before any of the core's instructions executes that touches the
 *     product's L0C range or writes its L0A or L0B range (by the
 *     instruction's exact footprint, dv_unit_footprint);
 *   - at the end of the run and before the core is freed.
 * L0A, L0B and L0C belong to the core alone (no other core, no Scalar
 * load, no observer reads their bytes), so nothing else can see the product
 * early.  The arithmetic is the same function on every thread: outputs,
 * statistics and traces are byte-identical for every number of threads. */
#ifndef CORE_ASYNC_H
#define CORE_ASYNC_H

#include "core_state.h"

#include <stdbool.h>

/* The core's functional effect of op (dv_unit_exec), with mmad's arithmetic
 * on the pool when there is one; false on a guest fault (c->ctx). */
bool core_exec(dv_core *c, const dv_op *op);
/* Waits for the product in flight, if any. */
void core_async_join(dv_core *c);
/* Joins, then frees the working memory. */
void core_async_free(dv_core *c);

#endif
