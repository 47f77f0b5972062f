/* core_dma.c - requests in flight on a transfer engine (see core_dma.h).
 *
 * A transfer is a start-up (DMA head and GM latency, st.lead: nothing moves)
 * then its bytes.  The engine moves one transfer's bytes at a time, in
 * order, but keeps up to n requests in flight (path.mteN_requests): the
 * start-up of transfer i may begin once it is in the queue, the pipe's last
 * order point (a wait_flag it passed, a barrier) is behind, and transfer
 * i - n has completed; its bytes then flow from the later of the end of its
 * start-up and the end of transfer i - 1.  With n = 1 every transfer starts
 * when the one before completes, as the pipes do for other instructions.
 * The pipe still holds one transfer at a time (from the end of the previous
 * to its own end), so flags and the statistics keep their meaning. */
#include "core_dma.h"

#include "core_gm.h"

#include <string.h>

static unsigned requests(const dv_chip_config *cfg, dv_pipe pipe)
{
    uint64_t n = pipe == DV_PIPE_MTE1   ? cfg->mte1_requests
                 : pipe == DV_PIPE_MTE2 ? cfg->mte2_requests
                 : pipe == DV_PIPE_MTE3 ? cfg->mte3_requests
                                        : 1;
    return n < 1 ? 1 : n > DV_MAX_REQUESTS ? DV_MAX_REQUESTS : (unsigned)n;
}

void core_dma_order(dv_core *c, dv_pipe_state *p)
{
    p->order_at = c->q->now;
}

uint64_t core_dma_cycles(dv_core *c, dv_pipe_state *p, const dv_op *op, dv_op_stats *st, uint64_t *own)
{
    uint64_t now = c->q->now;
    uint64_t unit = dv_unit_cycles(&c->ctx, op, p->has_run && p->last_end == now, st);
    uint64_t lead = st->lead < unit ? st->lead : unit;
    unsigned n = requests(c->cfg, p->id);
    uint64_t start = now;
    if (n > 1) {
        /* p->req_end holds the ends of the last DV_MAX_REQUESTS transfers,
         * the newest at req_next - 1: transfer i - n is n slots back */
        uint64_t older = p->req_end[(p->req_next + DV_MAX_REQUESTS - n) % DV_MAX_REQUESTS];
        start = op->dispatched;
        if (start < p->order_at)
            start = p->order_at;
        if (start < older)
            start = older;
        if (start > now)
            start = now;
    }
    /* the memory system may hold it longer (shared HBM, L2, lines other
     * cores move): it ends at start + dur at the earliest */
    uint64_t dur = core_gm_access_at(c, op, st, unit, start);
    /* and its bytes take their path time after the previous transfer's */
    uint64_t flow = unit - lead;
    uint64_t end = start + dur > now + flow ? start + dur : now + flow;
    uint64_t alone = start + unit > now + flow ? start + unit : now + flow;
    *own = (alone < end ? alone : end) - now;
    p->req_end[p->req_next] = end;
    p->req_next = (p->req_next + 1) % DV_MAX_REQUESTS;
    return end - now;
}
