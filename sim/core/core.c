/* core.c - setting up a core, starting its blocks, and its outcome
 * (deadlock diagnosis, open intervals at a stop, the snapshot). */
#include "core_async.h"
#include "core_base.h"
#include "core_cc.h"
#include "core_pipes.h"
#include "core_scalar.h"
#include "dv_core.h"
#include "dv_zalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dv_status dv_core_start_block(dv_core *c, uint64_t block_idx, uint64_t block_dim, const uint64_t *args,
                              uint64_t cycle, dv_error *err)
{
    memset(c->regs, 0, sizeof c->regs);
    for (unsigned i = 0; i < DV_MAX_KERNEL_ARGS; i++)
        c->regs[DV_ARG_REG_BASE + i] = args[i];
    memset(c->flags, 0, sizeof c->flags);
    c->pc = c->kernel->entry;
    c->block_idx = block_idx;
    c->block_dim = block_dim;
    c->ended = false;
    c->barrier_wait = false;
    c->stalled_on = -1;
    c->scalar_flag_wait = -1;
    c->vec.mask_lo = c->vec.mask_hi = ~0ull;
    c->vec.mode = DV_MASK_NORM;
    c->stop = DV_STOP_NONE;
    c->block_start = cycle;
    dv_pmu_init(&c->pmu, c->pmu.src, c->pmu.core); /* each block programs its own counters */
    for (int i = 0; i < DV_PIPE_COUNT; i++) {
        c->pipes[i].has_run = false;
        /* no transfer of this block starts before it */
        for (unsigned k = 0; k < DV_MAX_REQUESTS; k++)
            c->pipes[i].req_end[k] = cycle;
        c->pipes[i].order_at = cycle;
    }
    if (c->hooks && c->hooks->block)
        c->hooks->block(c->hooks->user, c->net_index, block_idx, cycle);
    /* At equal cycles the Scalar units go in the order of the AI cores they
     * run on (after a launch's start, rank 0), whenever each was scheduled:
     * that lets one run ahead of the queue (core_scalar.c). */
    dv_event_set_rank(&c->scalar_ev, (uint32_t)c->core_id + 1);
    return dv_evq_schedule(c->q, &c->scalar_ev, cycle, DV_PRIO_SCALAR, err);
}

void dv_core_diagnose_deadlock(dv_core *c)
{
    if (c->stop != DV_STOP_NONE)
        return;
    c->stop = DV_STOP_DEADLOCK;
    core_stop_changed(c);
    c->end_cycle = c->q->now;
    size_t n = (size_t)snprintf(c->stop_msg, sizeof c->stop_msg,
                                "core %llu deadlocked at cycle %llu:", (unsigned long long)c->core_id,
                                (unsigned long long)c->q->now);
    char src[300];
    for (int i = DV_PIPE_V; i < DV_PIPE_COUNT && n < sizeof c->stop_msg; i++) {
        dv_pipe_state *p = &c->pipes[i];
        if (!p->waiting || !p->count)
            continue;
        const dv_op *op = &p->queue[p->head];
        if (op->insn->op == DV_OP_CC_WAIT_FLAG) {
            unsigned at = c->net_index * DV_MAX_EVENT_IDS + (unsigned)op->insn->f[DV_F_ID];
            n += (size_t)snprintf(
                c->stop_msg + n, sizeof c->stop_msg - n,
                " %s waits for cross-core flag %lld (%u of %u sets; cc_wait_flag at pc 0x%llx, %s);",
                dv_pipe_trace_name(p->id), (long long)op->insn->f[DV_F_ID], c->cc ? c->cc->count[at] : 0,
                c->cc && c->cc->need[at] ? c->cc->need[at] : 1, (unsigned long long)op->pc,
                core_source_of(c, op->pc, src, sizeof src));
            continue;
        }
        n += (size_t)snprintf(c->stop_msg + n, sizeof c->stop_msg - n,
                              " %s waits for flag %s->%s id %lld (wait_flag at pc 0x%llx, %s), never set;",
                              dv_pipe_trace_name(p->id), dv_pipe_name((dv_pipe)op->insn->f[DV_F_SRC]),
                              dv_pipe_name((dv_pipe)op->insn->f[DV_F_DST]), (long long)op->insn->f[DV_F_ID],
                              (unsigned long long)op->pc, core_source_of(c, op->pc, src, sizeof src));
    }
    if (n < sizeof c->stop_msg && c->scalar_flag_wait >= 0)
        n += (size_t)snprintf(c->stop_msg + n, sizeof c->stop_msg - n,
                              " SCALAR waits for flag %s->s id %d (pc 0x%llx, %s);",
                              dv_pipe_name((dv_pipe)(c->scalar_flag_wait / 256)), c->scalar_flag_wait % 256,
                              (unsigned long long)c->pc, core_source_of(c, c->pc, src, sizeof src));
    if (n < sizeof c->stop_msg && !c->ended && c->scalar_flag_wait < 0)
        snprintf(c->stop_msg + n, sizeof c->stop_msg - n, " SCALAR stopped at pc 0x%llx (%s)",
                 (unsigned long long)c->pc, core_source_of(c, c->pc, src, sizeof src));
}

static dv_status init_buffers(dv_core *c, const dv_chip_config *cfg, dv_core_kind kind, dv_error *err)
{
    static const struct {
        dv_mem_kind kind;
        size_t size_off, align_off;
    } bufs[] = {
        {DV_MEM_L1, offsetof(dv_chip_config, l1_bytes), offsetof(dv_chip_config, align_l1)},
        {DV_MEM_L0A, offsetof(dv_chip_config, l0a_bytes), offsetof(dv_chip_config, align_l0ab)},
        {DV_MEM_L0B, offsetof(dv_chip_config, l0b_bytes), offsetof(dv_chip_config, align_l0ab)},
        {DV_MEM_L0C, offsetof(dv_chip_config, l0c_bytes), offsetof(dv_chip_config, align_l0c)},
        {DV_MEM_UB, offsetof(dv_chip_config, ub_bytes), offsetof(dv_chip_config, align_ub)},
        {DV_MEM_BT, offsetof(dv_chip_config, bt_bytes), 0},
        {DV_MEM_FB, offsetof(dv_chip_config, fb_bytes), 0},
    };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        uint64_t size, align = 32;
        memcpy(&size, (const char *)cfg + bufs[i].size_off, sizeof size);
        /* an AIV has only UB; an AIC everything but UB */
        if ((kind == DV_KIND_AIV && bufs[i].kind != DV_MEM_UB) ||
            (kind == DV_KIND_AIC && bufs[i].kind == DV_MEM_UB))
            size = 0;
        if (bufs[i].align_off)
            memcpy(&align, (const char *)cfg + bufs[i].align_off, sizeof align);
        dv_status st = dv_mem_init(&c->mem[bufs[i].kind], bufs[i].kind, size, align, err);
        if (st != DV_OK)
            return st;
    }
    return dv_mem_init(&c->sdata, DV_MEM_SDATA, DV_SDATA_BYTES, 1, err);
}

dv_status dv_core_init(dv_core *c, const dv_chip_config *cfg, dv_evq *q, dv_gm *gm, dv_gmsys *gmsys,
                       const dv_obj *obj, const dv_obj_kernel *k, dv_core_kind kind, bool data,
                       const dv_core *text_of, dv_error *err)
{
    /* c is zeroed memory (dv_zalloc): of a core's 190 KB, most is the
     * pool's slots (core_async), which a run on one thread or without data
     * never touches, and clearing them cost 32 cores 1,500 page faults */
    c->cfg = cfg;
    c->q = q;
    c->gm = gm;
    c->obj = obj;
    c->kernel = k;
    c->gmsys = gmsys;
    c->stalled_on = -1;
    c->scalar_flag_wait = -1;
    c->pc = k->entry;
    c->block_dim = 1;
    c->ninsns = obj->text_size / DV_INSN_BYTES;
    /* the undo log's entries hold a word index and the cycles of a private
     * instruction or a dispatch in 32 bits each (core_scalar.c) */
    uint64_t lat_max = cfg->s_alu_cycles;
    const uint64_t lats[] = {cfg->s_mul_cycles, cfg->s_div_cycles, cfg->s_branch_cycles,
                             cfg->s_dispatch_cycles};
    for (size_t i = 0; i < sizeof lats / sizeof lats[0]; i++)
        lat_max = lats[i] > lat_max ? lats[i] : lat_max;
    c->ahead_cap = lat_max <= UINT32_MAX && c->ninsns <= UINT32_MAX ? CORE_AHEAD_MAX : 0;
    if (text_of) { /* not even allocated: 32 cores' copies were 470 MB to clear at 2048^3 */
        c->text = text_of->text;
        c->text_ok = text_of->text_ok;
        c->text_shared = true;
    } else {
        c->text_bytes = (c->ninsns ? c->ninsns : 1) * sizeof *c->text;
        c->text = dv_zalloc(c->text_bytes); /* decoded on first fetch: most pages never touched */
        c->text_ok = calloc(c->ninsns ? c->ninsns : 1, sizeof *c->text_ok);
    }
    if (!c->text || !c->text_ok)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    /* Words are decoded on first fetch (core_scalar.c): a launch of many
     * cores would otherwise decode every kernel of the object once per core. */
    c->core_type = kind;
    c->sub_dim = 1;
    dv_status st = init_buffers(c, cfg, kind, err);
    if (st != DV_OK)
        return st;
    for (int i = 0; i < DV_PIPE_COUNT; i++) {
        dv_pipe_state *p = &c->pipes[i];
        p->core = c;
        p->id = (dv_pipe)i;
        p->depth = (unsigned)cfg->queue_depth;
        p->queue = malloc(p->depth * sizeof *p->queue); /* each entry is written before it is read */
        if (!p->queue)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        dv_event_init(&p->ev, core_pipe_event);
        c->pipe_due[i] = UINT64_MAX;
    }
    dv_event_init(&c->scalar_ev, core_scalar_event);
    c->ctx.cfg = cfg;
    c->ctx.mem = c->mem;
    c->ctx.gm = gm;
    c->ctx.vec = &c->vec;
    c->ctx.fmatrix = &c->fmatrix;
    c->ctx.data = data;
    c->vec.mask_lo = c->vec.mask_hi = ~0ull;
    c->vec.mode = DV_MASK_NORM;
    return DV_OK;
}

void dv_core_destroy(dv_core *c)
{
    core_async_free(c); /* the product in flight writes into the buffers freed below */
    for (int i = 0; i < DV_PIPE_COUNT; i++) {
        dv_evq_cancel(c->q, &c->pipes[i].ev);
        free(c->pipes[i].queue);
    }
    dv_evq_cancel(c->q, &c->scalar_ev);
    for (int i = 0; i < DV_MEM_KIND_COUNT; i++)
        dv_mem_free(&c->mem[i]);
    dv_mem_free(&c->sdata);
    if (!c->text_shared) {
        dv_zfree(c->text, c->text_bytes);
        free(c->text_ok);
    }
    dv_unit_ctx_free(&c->ctx);
}

void dv_core_close_stats(dv_core *c)
{
    uint64_t end = c->end_cycle;
    for (int i = DV_PIPE_V; i < DV_PIPE_COUNT; i++) {
        dv_pipe_state *p = &c->pipes[i];
        if (p->busy && end > p->busy_since)
            c->stats.pipe[i].busy_cycles += end - p->busy_since;
        if (p->waiting && end > p->wait_since)
            c->stats.pipe[i].wait_cycles += end - p->wait_since;
    }
    if (c->stalled_on >= 0 && end > c->stall_since)
        c->stats.pipe[c->stalled_on].full_cycles += end - c->stall_since;
    if ((c->scalar_flag_wait >= 0 || c->barrier_wait) && end > c->scalar_wait_since)
        c->stats.pipe[DV_PIPE_S].wait_cycles += end - c->scalar_wait_since;
}

void dv_core_info_of(const dv_core *c, dv_core_info *out)
{
    memset(out, 0, sizeof *out);
    out->index = c->net_index;
    out->kind = (dv_core_kind)c->core_type;
    out->group = c->group;
    out->sub_idx = c->sub_idx;
    out->sub_dim = c->sub_dim;
    out->blocks_run = c->blocks_run;
    out->active_cycles = c->active_cycles;
    out->stop = c->stop;
    out->end_cycle = c->end_cycle;
    out->pc = c->pc;
    out->stats = &c->stats;
    for (int k = 0; k < DV_MEM_KIND_COUNT; k++)
        out->buffer_bytes[k] = c->mem[k].size;
    for (int p = 0; p < DV_PIPE_COUNT; p++)
        out->has_pipe[p] = p == DV_PIPE_S || core_has_pipe(c, (dv_pipe)p);
    out->obj = c->obj;
    for (int p = DV_PIPE_V; p < DV_PIPE_COUNT; p++) {
        out->pipe_waiting[p] = c->pipes[p].waiting;
        out->pipe_wait_since[p] = c->pipes[p].wait_since;
        if (c->pipes[p].waiting && c->pipes[p].count)
            out->pipe_wait_pc[p] = c->pipes[p].queue[c->pipes[p].head].pc;
    }
    out->scalar_held = -1;
    if (c->stalled_on >= 0)
        out->scalar_held = DV_TRACE_STALL_QUEUE_FULL, out->scalar_held_since = c->stall_since;
    else if (c->scalar_flag_wait >= 0)
        out->scalar_held = DV_TRACE_STALL_FLAG, out->scalar_held_since = c->scalar_wait_since;
    else if (c->barrier_wait)
        out->scalar_held = DV_TRACE_STALL_BARRIER, out->scalar_held_since = c->scalar_wait_since;
}
