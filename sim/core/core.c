/* core.c - setting up a core, its outcome (done, fault, deadlock), and the
 * statistics every instruction adds to. */
#include "core_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *dv_stop_name(dv_stop s)
{
    static const char *const names[] = {"running",  "done",        "guest fault",
                                        "deadlock", "cycle limit", "interrupted"};
    return (unsigned)s <= DV_STOP_INTERRUPTED ? names[s] : "?";
}

void core_schedule(dv_core *c, dv_event *ev, uint64_t cycle, dv_evprio prio)
{
    dv_error err;
    if (dv_evq_schedule(c->q, ev, cycle, prio, &err) != DV_OK) {
        c->stop = DV_STOP_FAULT;
        core_stop_changed(c);
        snprintf(c->stop_msg, sizeof c->stop_msg, "internal: %s", err.msg);
    }
}

void core_wake_scalar(dv_core *c)
{
    if (c->stop == DV_STOP_NONE && !c->ended && !dv_event_queued(&c->scalar_ev))
        core_schedule(c, &c->scalar_ev, c->q->now, DV_PRIO_SCALAR);
}

const char *core_source_of(const dv_core *c, uint64_t pc, char *buf, size_t size)
{
    const dv_obj_line *ln =
        (pc % DV_INSN_BYTES == 0 && pc / DV_INSN_BYTES < c->ninsns) ? dv_obj_line_at(c->obj, pc) : NULL;
    if (ln && ln->file < c->obj->nfiles)
        snprintf(buf, size, "%s:%u", c->obj->files[ln->file], ln->line);
    else
        snprintf(buf, size, "no source line");
    return buf;
}

void core_fault(dv_core *c, dv_pipe pipe, uint64_t pc, const char *fmt, ...)
{
    if (c->stop != DV_STOP_NONE)
        return;
    char what[600], src[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    c->stop = DV_STOP_FAULT;
    core_stop_changed(c);
    c->end_cycle = c->q->now;
    snprintf(c->stop_msg, sizeof c->stop_msg, "core %llu, pipe %s, pc 0x%llx (%s), cycle %llu: %s",
             (unsigned long long)c->core_id, dv_pipe_trace_name(pipe), (unsigned long long)pc,
             core_source_of(c, pc, src, sizeof src), (unsigned long long)c->q->now, what);
}

/* Element width of a vector instruction, for the per-width op counts. */
static unsigned vec_width(const dv_insn *in)
{
    const dv_format *fmt = dv_isa_format(dv_isa_info(in->op)->fmt);
    unsigned w = 0;
    for (unsigned i = 0; i < fmt->nops; i++) {
        dv_field f = fmt->ops[i].field;
        if (f == DV_F_DTYPE || f == DV_F_FROM || f == DV_F_TO) {
            unsigned b = 8 * dv_dtype_size((dv_dtype)in->f[f]);
            w = b > w ? b : w;
        }
    }
    return w ? w : 16;
}

/* Operands read from UB per repeat (vector.repeat_bytes each). */
static unsigned vec_sources(dv_fmt fmt)
{
    switch (fmt) {
    case DV_FMT_VBIN:
    case DV_FMT_VCMP: return 2;
    case DV_FMT_VSEL: return 2; /* plus the selection bits */
    case DV_FMT_VDUP:
    case DV_FMT_SETMASK:
    case DV_FMT_MASKMODE: return 0;
    default: return 1;
    }
}

void core_account(dv_core *c, const dv_op *op, const dv_op_stats *st, uint64_t cycles)
{
    dv_core_stats *s = &c->stats;
    const dv_insn *in = &op->insn;
    if (st->path != DV_PATH_NONE && st->path < DV_PATH_COUNT) {
        s->path_bytes[st->path] += st->bytes;
        s->path_cycles[st->path] += cycles;
        switch (st->path) {
        case DV_PATH_L1_L0A: s->l0a_write += st->bytes; break;
        case DV_PATH_L1_L0B: s->l0b_write += st->bytes; break;
        case DV_PATH_L0C_UB: s->l0c_read += st->bytes, s->ub_write += st->bytes; break;
        case DV_PATH_L0C_GM:
        case DV_PATH_L0C_L1: s->l0c_read += st->bytes; break;
        case DV_PATH_GM_UB:
        case DV_PATH_L1_UB: s->ub_write += st->bytes; break;
        case DV_PATH_UB_GM:
        case DV_PATH_UB_L1: s->ub_read += st->bytes; break;
        default: break;
        }
    }
    if (in->op == DV_OP_MMAD && st->macs) {
        const dv_layout *l = dv_layout_get(DV_LAYOUT_MMAD);
        uint64_t p = op->r[3], m = dv_layout_extract(l, p, "m"), k = dv_layout_extract(l, p, "k");
        uint64_t n = dv_layout_extract(l, p, "n");
        dv_dtype dt = (dv_dtype)in->f[DV_F_DTYPE];
        uint64_t es = dv_dtype_size(dt);
        if (dt == DV_DT_BF16)
            s->cube_macs_bf16 += st->macs;
        else if (es == 1)
            s->cube_macs_int8 += st->macs;
        else
            s->cube_macs_f16 += st->macs;
        s->l0a_read += m * k * es;
        s->l0b_read += k * n * es;
        s->l0c_write += m * n * 4;
        if (!in->f[DV_F_INIT])
            s->l0c_read += m * n * 4;
    }
    if (st->repeats) {
        unsigned w = vec_width(in);
        if (w >= 32)
            s->vec_ops_32 += st->elem_ops;
        else if (w == 8)
            s->vec_ops_8 += st->elem_ops;
        else
            s->vec_ops_16 += st->elem_ops;
        s->ub_read += st->repeats * c->cfg->vec_repeat_bytes * vec_sources(dv_isa_info(in->op)->fmt);
        s->ub_write += st->repeats * c->cfg->vec_repeat_bytes;
    }
    s->cube_macs += st->macs;
    s->cube_fractals += st->fractals;
    s->vec_elem_ops += st->elem_ops;
    s->vec_repeats += st->repeats;
    s->ub_group_conflict_cycles += st->ub_group_conflict_cycles;
    s->ub_bank_conflict_cycles += st->ub_bank_conflict_cycles;
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
    memset(&c->pmu, 0, sizeof c->pmu); /* each block programs its own counters */
    for (int i = 0; i < DV_PIPE_COUNT; i++)
        c->pipes[i].has_run = false;
    if (c->trace && c->trace->block)
        c->trace->block(c->trace->user, c->net_index, block_idx, cycle);
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
        if (op->insn.op == DV_OP_CC_WAIT_FLAG) {
            unsigned at = c->net_index * DV_MAX_EVENT_IDS + (unsigned)op->insn.f[DV_F_ID];
            n += (size_t)snprintf(
                c->stop_msg + n, sizeof c->stop_msg - n,
                " %s waits for cross-core flag %lld (%u of %u sets; cc_wait_flag at pc 0x%llx, %s);",
                dv_pipe_trace_name(p->id), (long long)op->insn.f[DV_F_ID], c->cc ? c->cc->count[at] : 0,
                c->cc && c->cc->need[at] ? c->cc->need[at] : 1, (unsigned long long)op->pc,
                core_source_of(c, op->pc, src, sizeof src));
            continue;
        }
        n += (size_t)snprintf(c->stop_msg + n, sizeof c->stop_msg - n,
                              " %s waits for flag %s->%s id %lld (wait_flag at pc 0x%llx, %s), never set;",
                              dv_pipe_trace_name(p->id), dv_pipe_name((dv_pipe)op->insn.f[DV_F_SRC]),
                              dv_pipe_name((dv_pipe)op->insn.f[DV_F_DST]), (long long)op->insn.f[DV_F_ID],
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

dv_status dv_core_init(dv_core *c, const dv_chip_config *cfg, dv_evq *q, dv_gm *gm, const dv_obj *obj,
                       const dv_obj_kernel *k, dv_core_kind kind, bool data, dv_error *err)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->q = q;
    c->gm = gm;
    c->obj = obj;
    c->kernel = k;
    c->gmsys = &c->gmsys_own;
    c->stalled_on = -1;
    c->scalar_flag_wait = -1;
    c->pc = k->entry;
    c->block_dim = 1;
    c->ninsns = obj->text_size / DV_INSN_BYTES;
    c->text = calloc(c->ninsns ? c->ninsns : 1, sizeof *c->text);
    c->text_ok = calloc(c->ninsns ? c->ninsns : 1, sizeof *c->text_ok);
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
        p->queue = calloc(p->depth, sizeof *p->queue);
        if (!p->queue)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        dv_event_init(&p->ev, core_pipe_event);
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
    for (int i = 0; i < DV_PIPE_COUNT; i++) {
        dv_evq_cancel(c->q, &c->pipes[i].ev);
        free(c->pipes[i].queue);
    }
    dv_evq_cancel(c->q, &c->scalar_ev);
    for (int i = 0; i < DV_MEM_KIND_COUNT; i++)
        dv_mem_free(&c->mem[i]);
    dv_mem_free(&c->sdata);
    free(c->text);
    free(c->text_ok);
    free(c->ctx.scratch);
}

void *dv_unit_scratch(dv_unit_ctx *c, size_t size)
{
    if (size <= c->scratch_size)
        return c->scratch;
    size_t want = size > 2 * c->scratch_size ? size : 2 * c->scratch_size;
    void *p = NULL;
    if (posix_memalign(&p, 64, want) != 0)
        return NULL;
    free(c->scratch);
    c->scratch = p;
    c->scratch_size = want;
    return p;
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
