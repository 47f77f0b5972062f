/* core_pipes.c - the pipe queues: dispatch, in-order issue, flags, barriers,
 * completion and the end of a block. */
#include "core_pipes.h"

#include "core_account.h"
#include "core_async.h"
#include "core_base.h"
#include "core_cc.h"
#include "core_dma.h"
#include "core_gm.h"
#include "core_trace.h"

#include <stdio.h>
#include <string.h>

/* ---- flags ---- */

static uint8_t *flag_of(dv_core *c, const dv_insn *in)
{
    return &c->flags[in->f[DV_F_SRC]][in->f[DV_F_DST]][in->f[DV_F_ID]];
}

void core_set_flag(dv_core *c, const dv_insn *in)
{
    *flag_of(c, in) = 1;
    dv_pipe dst = (dv_pipe)in->f[DV_F_DST];
    if (dst == DV_PIPE_S) {
        if (c->scalar_flag_wait >= 0)
            core_wake_scalar(c);
        return;
    }
    dv_pipe_state *p = &c->pipes[dst];
    if (p->waiting)
        core_schedule_pipe(c, p, c->q->now, DV_PRIO_FLAG);
}

/* ---- dispatch from the Scalar unit ---- */

bool core_dispatch(dv_core *c, dv_pipe pipe, const dv_insn *in, uint64_t at)
{
    dv_pipe_state *p = &c->pipes[pipe];
    if (p->count == p->depth)
        return false;
    dv_op *op = &p->queue[(p->head + p->count) % p->depth]; /* built in place: 300 bytes */
    op->insn = in;
    op->pc = c->pc;
    for (int i = 0; i < 5; i++)
        op->r[i] = c->regs[in->f[DV_F_R0 + i]];
    op->dispatched = at;
    p->count++;
    if (!p->busy && !p->waiting && !dv_event_queued(&p->ev)) {
        if (at == c->q->now) {
            core_schedule_pipe(c, p, at, DV_PRIO_ISSUE); /* fires next, right after the Scalar unit */
        } else {
            /* The Scalar unit runs ahead (core_scalar.c): its event at `at`
             * is not queued, and the issue takes its place (its priority
             * and rank), which is where it would fire, right after it. */
            dv_event_set_rank(&p->ev, c->scalar_ev.rank);
            core_schedule_pipe(c, p, at, DV_PRIO_SCALAR);
        }
    }
    return true;
}

bool core_pipes_idle(const dv_core *c)
{
    for (int i = DV_PIPE_V; i < DV_PIPE_COUNT; i++)
        if (c->pipes[i].count || c->pipes[i].busy)
            return false;
    return true;
}

static void pop(dv_core *c, dv_pipe_state *p)
{
    p->head = (p->head + 1) % p->depth;
    p->count--;
    if (c->stalled_on == (int)p->id) {
        if (c->hooks)
            core_trace_stall(c, DV_TRACE_STALL_QUEUE_FULL, p->id, 0, c->stall_since);
        c->stats.pipe[p->id].full_cycles += c->q->now - c->stall_since;
        c->stalled_on = -1;
        core_wake_scalar(c);
    }
}

/* ---- issue and completion ---- */

static void complete(dv_core *c, dv_pipe_state *p)
{
    c->stats.pipe[p->id].busy_cycles += c->q->now - p->busy_since;
    p->busy = false;
    dv_tclass tc = dv_isa_info(p->cur.insn->op)->tclass;
    if (tc != DV_TC_DMA)
        core_dma_order(c, p); /* a later transfer starts after this */
    if (p->cur.insn->op == DV_OP_PIPE_BARRIER)
        return; /* a barrier breaks back-to-back issue */
    p->last_end = c->q->now;
    /* Only a unit's own work streams into the next instruction: after a
     * set_mask (or another 1-cycle control op) the next op is not back to
     * back and pays its head and tail. */
    p->has_run = tc != DV_TC_MASK && tc != DV_TC_SYNC;
    if (!core_exec(c, &p->cur)) {
        char what[300];
        if (c->ctx.fault.kind != DV_FAULT_NONE)
            dv_access_fault_describe(&c->ctx.fault, what, sizeof what);
        else
            snprintf(what, sizeof what, "%s", c->ctx.fault_msg);
        core_fault(c, p->id, p->cur.pc, "%s: %s", dv_isa_info(p->cur.insn->op)->mnemonic, what);
    }
}

/* The pipe's event: finish the instruction in flight, then start the next
 * ones until one takes time or the pipe has to wait. */
void core_pipe_event(dv_event *ev, void *ctx)
{
    (void)ctx;
    dv_pipe_state *p = (dv_pipe_state *)((char *)ev - offsetof(dv_pipe_state, ev));
    dv_core *c = p->core;
    dv_event_set_rank(ev, 0); /* a dispatch ahead gave it the Scalar unit's (core_dispatch) */
    c->pipe_due[p->id] = UINT64_MAX;
    if (c->stop != DV_STOP_NONE)
        return;
    if (p->busy) {
        complete(c, p);
        if (c->stop != DV_STOP_NONE)
            return;
    }
    while (p->count) {
        dv_op *op = &p->queue[p->head];
        const dv_insn *in = op->insn;
        if (in->op == DV_OP_WAIT_FLAG || in->op == DV_OP_CC_WAIT_FLAG) {
            bool ready;
            if (in->op == DV_OP_WAIT_FLAG) {
                uint8_t *f = flag_of(c, in);
                ready = *f != 0;
                if (ready)
                    *f = 0;
            } else {
                ready = core_cc_try_wait(c, in);
            }
            if (!ready) {
                if (!p->waiting) {
                    p->waiting = true;
                    p->wait_since = c->q->now;
                }
                return; /* the matching set reschedules this pipe */
            }
            core_dma_order(c, p); /* the transfers behind the wait start after it */
            uint64_t since = p->waiting ? p->wait_since : c->q->now;
            if (p->waiting) {
                c->stats.pipe[p->id].wait_cycles += c->q->now - p->wait_since;
                p->waiting = false;
            }
            c->stats.pipe[p->id].insns++;
            if (c->hooks) {
                core_trace_insn(c, p->id, in, op, op->pc, since, c->q->now);
                dv_trace_flag_kind k = in->op == DV_OP_WAIT_FLAG ? DV_TRACE_FLAG_WAIT : DV_TRACE_CC_WAIT;
                core_trace_flag(c, k, p->id, in, op->pc);
            }
            pop(c, p);
            continue;
        }
        if (in->op == DV_OP_SET_FLAG || in->op == DV_OP_CC_SET_FLAG) {
            if (in->op == DV_OP_SET_FLAG)
                core_set_flag(c, in);
            else
                core_cc_set(c, op);
            if (c->stop != DV_STOP_NONE)
                return;
            c->stats.pipe[p->id].insns++;
            if (c->hooks) {
                core_trace_insn(c, p->id, in, op, op->pc, c->q->now, c->q->now);
                dv_trace_flag_kind k = in->op == DV_OP_SET_FLAG ? DV_TRACE_FLAG_SET : DV_TRACE_CC_SET;
                core_trace_flag(c, k, p->id, in, op->pc);
            }
            pop(c, p);
            continue;
        }
        uint64_t cycles, unit_cycles;
        dv_op_stats st;
        memset(&st, 0, sizeof st);
        if (in->op == DV_OP_PIPE_BARRIER)
            cycles = unit_cycles = c->cfg->barrier_cycles;
        else if (dv_isa_info(in->op)->tclass == DV_TC_DMA)
            cycles = core_dma_cycles(c, p, op, &st, &unit_cycles);
        else
            cycles = core_gm_access(
                c, op, &st,
                unit_cycles = dv_unit_cycles(&c->ctx, op, p->has_run && p->last_end == c->q->now, &st));
        core_buf_snap before;
        if (c->hooks)
            core_trace_buffers(c, &before);
        core_account(c, op, &st, cycles);
        p->cur = *op;
        p->busy = true;
        p->busy_since = c->q->now;
        c->stats.pipe[p->id].insns++;
        if (c->hooks) {
            core_trace_unit(c, p->id, op, &st, cycles, cycles > unit_cycles ? cycles - unit_cycles : 0,
                            &before);
            if (c->hooks->access)
                core_trace_access(c, p->id, op);
        }
        pop(c, p);
        core_schedule_pipe(c, p, c->q->now + cycles, DV_PRIO_COMPLETE);
        return;
    }
    /* drained: the Scalar unit may be waiting for that */
    if (c->barrier_wait || c->ended)
        core_check_drained(c);
}

void core_check_drained(dv_core *c)
{
    if (c->stop != DV_STOP_NONE || !core_pipes_idle(c))
        return;
    if (c->barrier_wait) {
        core_wake_scalar(c);
        return;
    }
    if (c->ended) {
        c->stop = DV_STOP_DONE;
        core_stop_changed(c);
        c->end_cycle = c->q->now;
        c->active_cycles += c->q->now - c->block_start;
        c->blocks_run++;
        if (c->on_done)
            c->on_done(c, c->on_done_user);
    }
}
