/* core_async.h - a core's heavy functional work on the launch's host
 * threads, joined before anything can observe its result.
 *
 * The event engine stays on one thread and decides everything in simulated
 * order: every instruction's checks and faults, its cycles, its statistics.
 * Only the data movement of some instructions goes to the pool: mmad's
 * arithmetic (dv_cube_prepare / dv_cube_compute), nd2nz_gm_l1's reads of GM
 * into L1 (dv_nd2nz_prepare / dv_nd2nz_compute; only when the run's GM is
 * not shared with a host in between, core_async_net), and the core-private
 * copies load2d_l0a/l0b, copy_ub_l1, copy_l1_ub, copy_l0c_ub and fixp to L1
 * (exec run once without data for the checks, then with data on the pool).
 * A core's work runs in its order (one pool lane per core), so its
 * instructions see each other's results as before; each piece keeps the
 * hull of what it reads and writes (dv_unit_footprint), and the work in
 * flight up to the newest piece an access overlaps is joined
 *   - before any of the core's instructions that stay on this thread
 *     (Vector, GM writes, other transfers) touches it: a read of what the
 *     work writes, a write of anything it reads or writes;
 *   - before a Scalar load or store of the core touches it, and before any
 *     core's GM write (a transfer or a Scalar store) overlaps another core's
 *     GM read in flight (GM writes never go to the pool);
 *   - when the work in flight would exceed CORE_ASYNC_SLOTS, or a product
 *     needs the working memory of the one before last;
 *   - at the end of a slice of the run, at its end and before the core is
 *     freed.
 * The work is the same functions on every thread: outputs, statistics and
 * traces are byte-identical for every number of threads. */
#ifndef CORE_ASYNC_H
#define CORE_ASYNC_H

#include "core_state.h"

#include <stdbool.h>

/* The core's functional effect of op (dv_unit_exec), with its data movement
 * on the pool when there is one; false on a guest fault (c->ctx). */
bool core_exec(dv_core *c, const dv_op *op);
/* Before an access of the Scalar unit: joins the work it overlaps. */
void core_async_touch(dv_core *c, dv_mem_kind mem, uint64_t addr, uint64_t len, bool write);
/* Waits for all the core's work in flight. */
void core_async_join(dv_core *c);
/* Joins, then frees the working memory. */
void core_async_free(dv_core *c);

#endif
