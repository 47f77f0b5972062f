/* core_dma.h - a transfer engine's requests in flight (path.mteN_requests):
 * the start-up of a transfer overlaps the bytes of the ones before it on the
 * same engine, so ping-pong copies on one queue hide it. */
#ifndef DV_CORE_DMA_H
#define DV_CORE_DMA_H

#include "core_state.h"

/* How long a DMA-class instruction at the head of pipe p occupies the pipe
 * from now (the GM side booked through core_gm_access_at); fills st, and
 * *own with how long it would with the memory system all its own (the rest
 * is waiting for HBM, L2 or lines other cores move: the profile's memory
 * class). */
uint64_t core_dma_cycles(dv_core *c, dv_pipe_state *p, const dv_op *op, dv_op_stats *st, uint64_t *own);
/* The pipe's order point moved to now (a wait_flag passed, a barrier or a
 * non-transfer instruction finished): later transfers start after it. */
void core_dma_order(dv_core *c, dv_pipe_state *p);

#endif
