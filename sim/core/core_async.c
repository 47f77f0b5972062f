/* core_async.c - see core_async.h. */
#include "core_async.h"

#include "core_state.h"

#include <stddef.h>
#include <string.h>

enum { K_NONE, K_CUBE, K_ND2NZ, K_EXEC };

static void run_slot(dv_pool_job *job)
{
    core_async_slot *s = (core_async_slot *)((char *)job - offsetof(core_async_slot, job));
    switch (s->kind) {
    case K_CUBE: dv_cube_compute(&s->cube); break;
    case K_ND2NZ: dv_nd2nz_compute(&s->nd); break;
    default: /* checked on the core's thread: cannot fault */
        for (unsigned i = 0; i < s->nops; i++)
            dv_unit_exec(&s->ctx, &s->op[i]);
        break;
    }
}

/* ---- hulls ---- */

static void grow(uint64_t *lo, uint64_t *hi, uint64_t addr, uint64_t len)
{
    if (!len)
        return;
    if (!*hi || addr < *lo)
        *lo = addr;
    if (addr + len > *hi)
        *hi = addr + len;
}

static void add_access(void *user, dv_mem_kind mem, uint64_t addr, uint64_t len, bool write)
{
    core_async_hull *h = user;
    if ((unsigned)mem >= DV_MEM_KIND_COUNT)
        return;
    if (write)
        grow(&h->wlo[mem], &h->whi[mem], addr, len);
    else
        grow(&h->rlo[mem], &h->rhi[mem], addr, len);
}

static void merge(core_async_hull *to, const core_async_hull *from)
{
    for (unsigned k = 0; k < DV_MEM_KIND_COUNT; k++) {
        if (from->rhi[k])
            grow(&to->rlo[k], &to->rhi[k], from->rlo[k], from->rhi[k] - from->rlo[k]);
        if (from->whi[k])
            grow(&to->wlo[k], &to->whi[k], from->wlo[k], from->whi[k] - from->wlo[k]);
    }
}

static bool meets(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi)
{
    return ahi && bhi && alo < bhi && blo < ahi;
}

/* True if the access hull `op` must follow the work of hull `w`: it reads
 * what w writes, or writes what w reads or writes. */
static bool conflict(const core_async_hull *op, const core_async_hull *w, unsigned k)
{
    return meets(op->rlo[k], op->rhi[k], w->wlo[k], w->whi[k]) ||
           meets(op->wlo[k], op->whi[k], w->wlo[k], w->whi[k]) ||
           meets(op->wlo[k], op->whi[k], w->rlo[k], w->rhi[k]);
}

/* ---- the chain ---- */

static bool in_flight(const core_async *a)
{
    return a->issued > a->joined;
}

/* Joins the core's work up to slot seq, oldest first (the lane's order). */
static void join_upto(dv_core *c, uint64_t seq)
{
    core_async *a = &c->async;
    while (a->joined < seq && a->joined < a->issued) {
        core_async_slot *s = &a->slot[(a->joined + 1) % CORE_ASYNC_SLOTS];
        if (a->open && s->seq == a->issued) { /* never submitted: everything before it is done */
            a->open = false;
            run_slot(&s->job);
        } else {
            dv_pool_join(a->pool, &s->job);
        }
        if (s->hull.rhi[DV_MEM_GM] && a->net)
            a->net->gm_reads--;
        a->joined++;
    }
    if (!in_flight(a))
        memset(&a->all, 0, sizeof a->all);
}

/* The buffers hull h touches, a bit each. */
static unsigned kinds_of(const core_async_hull *h)
{
    unsigned m = 0;
    for (unsigned k = 0; k < DV_MEM_KIND_COUNT; k++)
        if (h->rhi[k] || h->whi[k])
            m |= 1u << k;
    return m;
}

/* Joins the core's work that an access of hull op (on the buffers `kinds`)
 * must follow. */
static void join_conflicts(dv_core *c, const core_async_hull *op, unsigned kinds)
{
    core_async *a = &c->async;
    if (!in_flight(a))
        return;
    unsigned hit = 0;
    for (unsigned k = 0; k < DV_MEM_KIND_COUNT; k++)
        if (kinds >> k & 1 && conflict(op, &a->all, k))
            hit |= 1u << k;
    if (!hit)
        return;
    for (uint64_t seq = a->issued; seq > a->joined; seq--) { /* the newest it meets */
        const core_async_slot *s = &a->slot[seq % CORE_ASYNC_SLOTS];
        for (unsigned k = 0; k < DV_MEM_KIND_COUNT; k++)
            if (hit >> k & 1 && conflict(op, &s->hull, k)) {
                join_upto(c, seq);
                return;
            }
    }
}

/* Joins what an access of hull op must follow: the core's own work, and
 * for a GM write the other cores' GM reads it overlaps. */
static void join_for(dv_core *c, const core_async_hull *op)
{
    join_conflicts(c, op, kinds_of(op));
    core_async_net *net = c->async.net;
    if (!net || !net->gm_reads || !op->whi[DV_MEM_GM])
        return;
    for (unsigned i = 0; i < net->ncores && net->gm_reads; i++) {
        dv_core *o = net->cores[i];
        if (o != c && o && in_flight(&o->async) &&
            meets(op->wlo[DV_MEM_GM], op->whi[DV_MEM_GM], o->async.all.rlo[DV_MEM_GM],
                  o->async.all.rhi[DV_MEM_GM]))
            join_conflicts(o, op, 1u << DV_MEM_GM);
    }
}

/* Submits the open batch, if any (before anything issued after it). */
static void flush(dv_core *c)
{
    core_async *a = &c->async;
    if (!a->open)
        return;
    a->open = false;
    dv_pool_submit(a->pool, &a->slot[a->issued % CORE_ASYNC_SLOTS].job);
}

/* A free slot (the oldest joined when all are in flight), not yet issued;
 * the open batch submitted. */
static core_async_slot *reserve(dv_core *c)
{
    core_async *a = &c->async;
    flush(c);
    if (a->issued - a->joined >= CORE_ASYNC_SLOTS)
        join_upto(c, a->joined + 1);
    core_async_slot *s = &a->slot[(a->issued + 1) % CORE_ASYNC_SLOTS];
    s->seq = a->issued + 1;
    memset(&s->hull, 0, sizeof s->hull);
    return s;
}

/* Issues slot s (reserved) for op; an open batch waits for more. */
static void issue(dv_core *c, core_async_slot *s, int kind, const dv_op *op, bool open)
{
    core_async *a = &c->async;
    s->kind = kind;
    dv_unit_footprint(&c->ctx, op, add_access, &s->hull);
    merge(&a->all, &s->hull);
    if (s->hull.rhi[DV_MEM_GM] && a->net)
        a->net->gm_reads++;
    a->issued = s->seq;
    s->job.run = run_slot;
    s->job.lane = &a->lane;
    a->open = open;
    if (!open)
        dv_pool_submit(a->pool, &s->job);
}

/* What of op may go to the pool. */
static int offload_kind(const core_async *a, const dv_op *op)
{
    switch (op->insn->op) {
    case DV_OP_ND2NZ_GM_L1: return a->net ? K_ND2NZ : K_NONE;
    case DV_OP_LOAD2D_L0A:
    case DV_OP_LOAD2D_L0B:
    case DV_OP_COPY_UB_L1:
    case DV_OP_COPY_L1_UB:
    case DV_OP_COPY_L0C_UB: return K_EXEC;
    case DV_OP_FIXP: return op->insn->f[DV_F_OUT] == DV_OUT_L1 ? K_EXEC : K_NONE;
    default: return dv_isa_info(op->insn->op)->tclass == DV_TC_CUBE ? K_CUBE : K_NONE;
    }
}

static bool exec_cube(dv_core *c, const dv_op *op)
{
    core_async *a = &c->async;
    core_async_slot *s = reserve(c);
    unsigned j = (unsigned)(a->products % CORE_ASYNC_OWNERS); /* the working memories in turn */
    if (a->owner_seq[j] > a->joined)
        join_upto(c, a->owner_seq[j]);
    a->owner[j].cfg = c->cfg;
    if (!dv_cube_prepare(&c->ctx, op, &a->owner[j], &s->cube))
        return false;
    if (s->cube.has_work) {
        a->products++;
        a->owner_seq[j] = s->seq;
        issue(c, s, K_CUBE, op, false);
    }
    return true;
}

static void join_before(dv_core *c, const dv_op *op);

/* Checked without data first: rows in one GM region go to the pool, others
 * (checked and moved row by row) are moved here after what they follow. */
static bool exec_nd2nz(dv_core *c, const dv_op *op)
{
    core_async_slot *s = reserve(c);
    c->ctx.data = false;
    bool ok = dv_nd2nz_prepare(&c->ctx, op, &s->nd);
    c->ctx.data = true;
    if (!ok)
        return false;
    if (s->nd.gm) {
        s->nd.has_work = true;
        issue(c, s, K_ND2NZ, op, false);
        return true;
    }
    join_before(c, op);
    return dv_unit_exec(&c->ctx, op);
}

/* A core-private copy: checked here without data (a fault moves nothing),
 * moved on the pool with a context that reaches the core's buffers only. */
static bool exec_private(dv_core *c, const dv_op *op)
{
    c->ctx.data = false;
    bool ok = dv_unit_exec(&c->ctx, op);
    c->ctx.data = true;
    if (!ok)
        return false;
    bool load = op->insn->op == DV_OP_LOAD2D_L0A || op->insn->op == DV_OP_LOAD2D_L0B;
    core_async *a = &c->async;
    if (load && a->open) { /* joins the open batch of loads */
        core_async_slot *s = &a->slot[a->issued % CORE_ASYNC_SLOTS];
        s->op[s->nops++] = *op;
        core_async_hull h;
        memset(&h, 0, sizeof h);
        dv_unit_footprint(&c->ctx, op, add_access, &h);
        merge(&s->hull, &h);
        merge(&a->all, &h);
        if (s->nops == CORE_ASYNC_BATCH)
            flush(c);
        return true;
    }
    core_async_slot *s = reserve(c);
    s->op[0] = *op;
    s->nops = 1;
    s->ctx = (dv_unit_ctx){.cfg = c->ctx.cfg, .mem = c->ctx.mem, .data = true};
    issue(c, s, K_EXEC, op, load);
    return true;
}

/* Joins what op, staying on this thread, must follow. */
static void join_before(dv_core *c, const dv_op *op)
{
    core_async *a = &c->async;
    dv_tclass tc = dv_isa_info(op->insn->op)->tclass;
    if (tc == DV_TC_SYNC || tc == DV_TC_MASK)
        return;
    bool gm_write = a->net && a->net->gm_reads && (tc == DV_TC_DMA || tc == DV_TC_FIX);
    bool mine = in_flight(a);
    /* Vector instructions reach only UB */
    if (mine && tc != DV_TC_DMA && tc != DV_TC_FIX && tc != DV_TC_CUBE && !a->all.rhi[DV_MEM_UB] &&
        !a->all.whi[DV_MEM_UB])
        mine = false;
    if (!mine && !gm_write)
        return;
    core_async_hull h;
    memset(&h, 0, sizeof h);
    dv_unit_footprint(&c->ctx, op, add_access, &h);
    join_for(c, &h);
}

void core_async_touch(dv_core *c, dv_mem_kind mem, uint64_t addr, uint64_t len, bool write)
{
    core_async *a = &c->async;
    if (!a->pool || (!in_flight(a) && !(write && mem == DV_MEM_GM && a->net && a->net->gm_reads)))
        return;
    core_async_hull h;
    memset(&h, 0, sizeof h);
    add_access(&h, mem, addr, len, write);
    join_for(c, &h);
}

void core_async_join(dv_core *c)
{
    if (c->async.pool)
        join_upto(c, c->async.issued);
}

bool core_exec(dv_core *c, const dv_op *op)
{
    core_async *a = &c->async;
    if (!c->ctx.data || !a->pool) /* timing only: the pool's line is not even read */
        return dv_unit_exec(&c->ctx, op);
    switch (offload_kind(a, op)) {
    case K_CUBE: return exec_cube(c, op);
    case K_ND2NZ: return exec_nd2nz(c, op);
    case K_EXEC: return exec_private(c, op);
    default: join_before(c, op); return dv_unit_exec(&c->ctx, op);
    }
}

void core_async_free(dv_core *c)
{
    core_async_join(c);
    for (unsigned j = 0; j < CORE_ASYNC_OWNERS; j++)
        dv_unit_ctx_free(&c->async.owner[j]);
}
