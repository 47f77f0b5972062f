/* core_trace.c - building the events of dv_hooks.h for the core's observers. */
#include "core_trace.h"

#include <string.h>

void core_trace_insn(dv_core *c, dv_pipe lane, const dv_insn *in, const dv_op *op, uint64_t pc,
                     uint64_t start, uint64_t end)
{
    if (!c->hooks->insn)
        return;
    /* an initialiser, not memset: the compiler zeroes the rest with vector
     * stores, where memset's rep stos cost a profiled run ~6% (once per
     * Scalar instruction) */
    dv_trace_insn ev = {
        .core = c->net_index, .lane = lane, .start = start, .end = end, .pc = pc, .insn = in, .op = op};
    c->hooks->insn(c->hooks->user, &ev);
}

void core_trace_buffers(const dv_core *c, core_buf_snap *snap)
{
    for (int k = 0; k < DV_MEM_KIND_COUNT; k++)
        snap->bytes[k] = c->stats.buf_read[k] + c->stats.buf_write[k];
}

void core_trace_unit(dv_core *c, dv_pipe lane, const dv_op *op, const dv_op_stats *st, uint64_t cycles,
                     uint64_t mem_cycles, const core_buf_snap *before)
{
    if (!c->hooks->insn)
        return;
    dv_trace_insn ev;
    memset(&ev, 0, sizeof ev);
    ev.core = c->net_index;
    ev.lane = lane;
    ev.start = c->q->now;
    ev.end = c->q->now + cycles;
    ev.pc = op->pc;
    ev.insn = op->insn;
    ev.op = op;
    ev.st = st;
    ev.mem_cycles = mem_cycles;
    /* every buffer as core_account counted it: a path's ends, the Cube's
     * operands, the Vector unit's UB traffic */
    core_buf_snap after;
    core_trace_buffers(c, &after);
    for (int k = 0; k < DV_MEM_KIND_COUNT; k++)
        ev.touched[k] = after.bytes[k] - before->bytes[k];
    c->hooks->insn(c->hooks->user, &ev);
}

typedef struct access_ctx {
    dv_core *c;
    dv_trace_access ev;
} access_ctx;

static void access_one(void *user, dv_mem_kind mem, uint64_t addr, uint64_t len, bool write)
{
    access_ctx *a = user;
    a->ev.mem = mem;
    a->ev.addr = addr;
    a->ev.len = len;
    a->ev.write = write;
    a->c->hooks->access(a->c->hooks->user, &a->ev);
}

void core_trace_access(dv_core *c, dv_pipe lane, const dv_op *op)
{
    access_ctx a = {c, {.core = c->net_index, .lane = lane, .pc = op->pc, .cycle = c->q->now}};
    dv_unit_footprint(&c->ctx, op, access_one, &a);
}

void core_trace_scalar_access(dv_core *c, dv_mem_kind mem, uint64_t addr, uint64_t len, bool write)
{
    dv_trace_access ev = {c->net_index, DV_PIPE_S, mem, write, addr, len, c->pc, c->q->now};
    c->hooks->access(c->hooks->user, &ev);
}

void core_trace_flag(dv_core *c, dv_trace_flag_kind kind, dv_pipe lane, const dv_insn *in, uint64_t pc)
{
    if (!c->hooks->flag)
        return;
    dv_trace_flag ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.core = c->net_index;
    ev.lane = lane;
    if (kind == DV_TRACE_CC_SET || kind == DV_TRACE_CC_WAIT) {
        ev.src = ev.dst = (dv_pipe)in->f[DV_F_PIPE];
    } else {
        ev.src = (dv_pipe)in->f[DV_F_SRC];
        ev.dst = (dv_pipe)in->f[DV_F_DST];
    }
    ev.id = (unsigned)in->f[DV_F_ID];
    ev.cycle = c->q->now;
    ev.pc = pc;
    c->hooks->flag(c->hooks->user, &ev);
}

void core_trace_stall(dv_core *c, dv_trace_stall_kind kind, dv_pipe pipe, unsigned id, uint64_t start)
{
    if (!c->hooks->stall)
        return;
    dv_trace_stall ev = {kind, c->net_index, pipe, id, start, c->q->now, c->pc};
    c->hooks->stall(c->hooks->user, &ev);
}
