/* core_trace.c - building the events of dv_trace.h.  The core calls these
 * only when a sink is attached (c->trace != NULL), so a run without a
 * tracer pays one NULL test per hook. */
#include "core_internal.h"

#include <string.h>

void core_trace_insn(dv_core *c, dv_pipe lane, const dv_insn *in, const dv_op *op, uint64_t pc,
                     uint64_t start, uint64_t end)
{
    if (!c->trace->insn)
        return;
    dv_trace_insn ev;
    memset(&ev, 0, sizeof ev);
    ev.core = c->net_index;
    ev.lane = lane;
    ev.start = start;
    ev.end = end;
    ev.pc = pc;
    ev.insn = in;
    ev.op = op;
    c->trace->insn(c->trace->user, &ev);
}

void core_trace_buffers(const dv_core *c, uint64_t snap[4])
{
    const dv_core_stats *s = &c->stats;
    snap[0] = s->l0a_read + s->l0a_write;
    snap[1] = s->l0b_read + s->l0b_write;
    snap[2] = s->l0c_read + s->l0c_write;
    snap[3] = s->ub_read + s->ub_write;
}

void core_trace_unit(dv_core *c, dv_pipe lane, const dv_op *op, const dv_op_stats *st, uint64_t cycles,
                     const uint64_t before[4])
{
    if (!c->trace->insn)
        return;
    dv_trace_insn ev;
    memset(&ev, 0, sizeof ev);
    ev.core = c->net_index;
    ev.lane = lane;
    ev.start = c->q->now;
    ev.end = c->q->now + cycles;
    ev.pc = op->pc;
    ev.insn = &op->insn;
    ev.op = op;
    ev.st = st;
    /* L0A/L0B/L0C/UB as core_account counted them; L1 and GM by the path. */
    uint64_t after[4];
    core_trace_buffers(c, after);
    ev.touched[DV_MEM_L0A] = after[0] - before[0];
    ev.touched[DV_MEM_L0B] = after[1] - before[1];
    ev.touched[DV_MEM_L0C] = after[2] - before[2];
    ev.touched[DV_MEM_UB] = after[3] - before[3];
    switch (st->path) {
    case DV_PATH_GM_L1: ev.touched[DV_MEM_GM] = ev.touched[DV_MEM_L1] = st->bytes; break;
    case DV_PATH_GM_UB:
    case DV_PATH_UB_GM:
    case DV_PATH_L0C_GM: ev.touched[DV_MEM_GM] = st->bytes; break;
    case DV_PATH_UB_L1:
    case DV_PATH_L1_UB:
    case DV_PATH_L1_L0A:
    case DV_PATH_L1_L0B:
    case DV_PATH_L0C_L1: ev.touched[DV_MEM_L1] = st->bytes; break;
    default: break;
    }
    c->trace->insn(c->trace->user, &ev);
}

void core_trace_flag(dv_core *c, dv_trace_flag_kind kind, dv_pipe lane, const dv_insn *in, uint64_t pc)
{
    if (!c->trace->flag)
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
    c->trace->flag(c->trace->user, &ev);
}

void core_trace_stall(dv_core *c, dv_trace_stall_kind kind, dv_pipe pipe, unsigned id, uint64_t start)
{
    if (!c->trace->stall)
        return;
    dv_trace_stall ev = {kind, c->net_index, pipe, id, start, c->q->now, c->pc};
    c->trace->stall(c->trace->user, &ev);
}
