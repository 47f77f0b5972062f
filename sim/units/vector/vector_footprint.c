/* vector_footprint.c - the UB bytes a vector instruction reads and writes
 * (dv_vector_footprint), lane by lane as vector.c specifies: only active
 * lanes of a strided operand, runs of adjacent lanes and repeats joined. */
#include "footprint_run.h"
#include "vec_priv.h"

/* Runs of one repeat's active lanes of operand o: offsets from the
 * repeat's start, adjacent lanes joined.  Returns their count. */
static unsigned repeat_runs(const vec_desc *d, const vec_opnd *o, uint64_t off[], uint64_t len[])
{
    unsigned n = 0, per_block = VEC_BLOCK / o->esize;
    for (unsigned i = 0; i < d->lanes; i++) {
        if (!d->active[i])
            continue;
        uint64_t at = (uint64_t)(i / per_block) * o->blk * VEC_BLOCK + (uint64_t)(i % per_block) * o->esize;
        if (n && off[n - 1] + len[n - 1] == at)
            len[n - 1] += o->esize;
        else
            off[n] = at, len[n++] = o->esize;
    }
    return n;
}

static void opnd(fp_run *run, const vec_desc *d, const vec_opnd *o, bool write)
{
    if (!o->used)
        return;
    uint64_t off[VEC_MAX_LANES], len[VEC_MAX_LANES];
    unsigned n = repeat_runs(d, o, off, len);
    for (unsigned r = 0; r < d->repeats; r++)
        for (unsigned k = 0; k < n; k++)
            fp_add(run, DV_MEM_UB, o->base + (uint64_t)r * o->rep * VEC_BLOCK + off[k], len[k], write);
    fp_flush(run);
}

static void extent(fp_run *run, const vec_desc *d, const vec_extent *x, bool write)
{
    if (x->used)
        fp_add(run, DV_MEM_UB, x->base, x->step * d->repeats, write);
    fp_flush(run);
}

void dv_vector_footprint(const dv_unit_ctx *c, const dv_op *op, dv_unit_access_fn fn, void *user)
{
    if (op->insn->op == DV_OP_SET_MASK || op->insn->op == DV_OP_SET_MASK_MODE)
        return;
    vec_desc d;
    if (!vec_decode(c, op, &d, NULL, 0) || !d.repeats)
        return;
    fp_run run = {.fn = fn, .user = user};
    if (d.op == DV_OP_VTRANS) {
        fn(user, DV_MEM_UB, d.src0.base, 512, false);
        fn(user, DV_MEM_UB, d.dst.base, 512, true);
        return;
    }
    opnd(&run, &d, &d.src0, false);
    opnd(&run, &d, &d.src1, false);
    extent(&run, &d, &d.xsrc, false);
    opnd(&run, &d, &d.dst, true);
    extent(&run, &d, &d.xdst, true);
}
