/* unit.c - which unit executes an instruction, and the units' scratch
 * memory (see dv_unit.h). */
#include "dv_unit.h"

#include <stdlib.h>

uint64_t dv_unit_cycles(const dv_unit_ctx *c, const dv_op *op, bool b2b, dv_op_stats *st)
{
    switch (dv_isa_info(op->insn->op)->tclass) {
    case DV_TC_DMA: return dv_mte_cycles(c, op, b2b, st);
    case DV_TC_CUBE: return dv_cube_cycles(c, op, b2b, st);
    case DV_TC_FIX: return dv_fixp_cycles(c, op, b2b, st);
    case DV_TC_SYNC: return op->insn->op == DV_OP_SET_FMATRIX ? dv_mte_cycles(c, op, b2b, st) : 1;
    default: return dv_vector_cycles(c, op, b2b, st);
    }
}

bool dv_unit_exec(dv_unit_ctx *c, const dv_op *op)
{
    switch (dv_isa_info(op->insn->op)->tclass) {
    case DV_TC_DMA: return dv_mte_exec(c, op);
    case DV_TC_CUBE: return dv_cube_exec(c, op);
    case DV_TC_FIX: return dv_fixp_exec(c, op);
    case DV_TC_SYNC: return op->insn->op == DV_OP_SET_FMATRIX ? dv_mte_exec(c, op) : true;
    default: return dv_vector_exec(c, op);
    }
}

void dv_unit_footprint(const dv_unit_ctx *c, const dv_op *op, dv_unit_access_fn fn, void *user)
{
    switch (dv_isa_info(op->insn->op)->tclass) {
    case DV_TC_DMA:
    case DV_TC_CUBE:
    case DV_TC_FIX: dv_xfer_footprint(c, op, fn, user); return;
    case DV_TC_SYNC: return;
    default: dv_vector_footprint(c, op, fn, user); return;
    }
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

void dv_unit_ctx_free(dv_unit_ctx *c)
{
    free(c->scratch);
    c->scratch = NULL;
    c->scratch_size = 0;
}
