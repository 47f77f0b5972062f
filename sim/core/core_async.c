/* core_async.c - see core_async.h. */
#include "core_async.h"

#include "core_state.h"

#include <stddef.h>

static void run_product(dv_pool_job *job)
{
    core_async *a = (core_async *)((char *)job - offsetof(core_async, job));
    dv_cube_compute(&a->work);
}

typedef struct overlap {
    const dv_cube_work *w;
    bool hit;
} overlap;

static bool meets(uint64_t addr, uint64_t len, uint64_t lo, uint64_t n)
{
    return len && n && addr < lo + n && lo < addr + len;
}

/* An access the product in flight must precede: any of its L0C range (it
 * writes there), or a write into what it reads of L0A or L0B. */
static void check_access(void *user, dv_mem_kind mem, uint64_t addr, uint64_t len, bool write)
{
    overlap *o = user;
    const dv_cube_work *w = o->w;
    if (mem == DV_MEM_L0C)
        o->hit |= meets(addr, len, w->c_addr, w->c_len);
    else if (write && mem == DV_MEM_L0A)
        o->hit |= meets(addr, len, w->a_addr, w->a_len);
    else if (write && mem == DV_MEM_L0B)
        o->hit |= meets(addr, len, w->b_addr, w->b_len);
}

/* True if op may touch what the product in flight reads or writes.  Vector
 * instructions reach only UB; synchronisation nothing. */
static bool conflicts(dv_core *c, const dv_op *op)
{
    dv_tclass tc = dv_isa_info(op->insn.op)->tclass;
    if (tc == DV_TC_CUBE)
        return true;
    if (tc != DV_TC_DMA && tc != DV_TC_FIX)
        return false;
    overlap o = {&c->async.work, false};
    dv_unit_footprint(&c->ctx, op, check_access, &o);
    return o.hit;
}

void core_async_join(dv_core *c)
{
    if (c->async.pool && c->async.job.submitted)
        dv_pool_join(c->async.pool, &c->async.job);
}

bool core_exec(dv_core *c, const dv_op *op)
{
    core_async *a = &c->async;
    if (!a->pool || !c->ctx.data)
        return dv_unit_exec(&c->ctx, op);
    if (a->job.submitted && conflicts(c, op))
        core_async_join(c);
    if (dv_isa_info(op->insn.op)->tclass != DV_TC_CUBE)
        return dv_unit_exec(&c->ctx, op);
    a->owner.cfg = c->cfg;
    if (!dv_cube_prepare(&c->ctx, op, &a->owner, &a->work))
        return false;
    if (a->work.todo) {
        a->job.run = run_product;
        dv_pool_submit(a->pool, &a->job);
    }
    return true;
}

void core_async_free(dv_core *c)
{
    core_async_join(c);
    dv_unit_ctx_free(&c->async.owner);
}
