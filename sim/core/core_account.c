/* core_account.c - bytes per path and buffer, Cube MACs by input type,
 * Vector operations by element width (the statistics the event catalogue
 * reads, core_events.c). */
#include "core_account.h"

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

/* Operands read from UB per repeat (DV_VEC_REPEAT_BYTES each). */
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

static void account_mmad(dv_core_stats *s, const dv_op *op, const dv_op_stats *st)
{
    const dv_insn *in = op->insn;
    const dv_layout *l = dv_layout_get(DV_LAYOUT_MMAD);
    /* the fields in their declared order (isa_params.def: m, k, n), as cube.c
     * reads them: looked up by name, they cost three string searches an mmad */
    uint64_t p = op->r[3], m = dv_lfield_get(&l->fields[0], p), k = dv_lfield_get(&l->fields[1], p);
    uint64_t n = dv_lfield_get(&l->fields[2], p);
    dv_dtype dt = (dv_dtype)in->f[DV_F_DTYPE];
    uint64_t es = dv_dtype_size(dt);
    if (dt == DV_DT_BF16)
        s->cube_macs_bf16 += st->macs;
    else if (es == 1)
        s->cube_macs_int8 += st->macs;
    else if (dt == DV_DT_F32)
        s->cube_macs_f32 += st->macs;
    else
        s->cube_macs_f16 += st->macs;
    s->buf_read[DV_MEM_L0A] += m * k * es;
    s->buf_read[DV_MEM_L0B] += k * n * es;
    s->buf_write[DV_MEM_L0C] += m * n * 4;
    if (!in->f[DV_F_INIT])
        s->buf_read[DV_MEM_L0C] += m * n * 4;
}

void core_account(dv_core *c, const dv_op *op, const dv_op_stats *st, uint64_t cycles)
{
    dv_core_stats *s = &c->stats;
    const dv_insn *in = op->insn;
    if (st->path != DV_PATH_NONE && st->path < DV_PATH_COUNT) {
        s->path_bytes[st->path] += st->bytes;
        s->path_cycles[st->path] += cycles;
        s->buf_read[dv_path_src(st->path)] += st->bytes;
        s->buf_write[dv_path_dst(st->path)] += st->bytes;
    }
    if (in->op == DV_OP_MMAD && st->macs)
        account_mmad(s, op, st);
    if (st->repeats) {
        unsigned w = vec_width(in);
        if (w >= 32)
            s->vec_ops_32 += st->elem_ops;
        else if (w == 8)
            s->vec_ops_8 += st->elem_ops;
        else
            s->vec_ops_16 += st->elem_ops;
        s->buf_read[DV_MEM_UB] += st->repeats * DV_VEC_REPEAT_BYTES * vec_sources(dv_isa_info(in->op)->fmt);
        s->buf_write[DV_MEM_UB] += st->repeats * DV_VEC_REPEAT_BYTES;
    }
    s->cube_macs += st->macs;
    s->cube_fractals += st->fractals;
    s->vec_elem_ops += st->elem_ops;
    s->vec_repeats += st->repeats;
    s->ub_group_conflict_cycles += st->ub_group_conflict_cycles;
    s->ub_bank_conflict_cycles += st->ub_bank_conflict_cycles;
}
