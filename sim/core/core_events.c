/* core_events.c - the value of every catalogued event on a core, read from
 * the core's statistics; the per-pipe and per-path cases come from the pipe
 * and path tables, as the events themselves do. */
#include "core_events.h"

static uint64_t scalar_stall(const dv_core_stats *s)
{
    uint64_t full = 0;
    for (int i = 0; i < DV_PIPE_COUNT; i++)
        full += s->pipe[i].full_cycles;
    return full + s->pipe[DV_PIPE_S].wait_cycles;
}

uint64_t core_event_value(const dv_core *c, dv_event_id e)
{
    const dv_core_stats *s = &c->stats;
    switch (e) {
    case DV_EV_CYCLES: return c->q->now - c->block_start;
#define DV_PIPE_ROW(id, ev, asm_name, lane, key, busy)                                                       \
    case DV_EV_##ev##_BUSY: return s->pipe[DV_PIPE_##id].busy_cycles;                                        \
    case DV_EV_##ev##_INSTRUCTIONS: return s->pipe[DV_PIPE_##id].insns;                                      \
    case DV_EV_##ev##_WAIT: return s->pipe[DV_PIPE_##id].wait_cycles;                                        \
    case DV_EV_##ev##_QUEUE_FULL:                                                                            \
        return s->pipe[DV_PIPE_##id].full_cycles;
#include "pipes.def"
#undef DV_PIPE_ROW
#define DV_PATH_ROW(id, ev, name, key, src, dst, min, v910, v910b, v310, v910b1, v910b3, doc)                \
    case DV_EV_PATH_##ev:                                                                                    \
        return s->path_bytes[DV_PATH_##id];
#include "paths.def"
#undef DV_PATH_ROW
    case DV_EV_CUBE_MACS_F16: return s->cube_macs_f16;
    case DV_EV_CUBE_MACS_BF16: return s->cube_macs_bf16;
    case DV_EV_CUBE_MACS_INT8: return s->cube_macs_int8;
    case DV_EV_CUBE_MACS_F32: return s->cube_macs_f32;
    case DV_EV_CUBE_FRACTALS: return s->cube_fractals;
    case DV_EV_CUBE_MACS: return s->cube_macs;
    case DV_EV_VEC_OPS_16: return s->vec_ops_16;
    case DV_EV_VEC_OPS_32: return s->vec_ops_32;
    case DV_EV_VEC_OPS_8: return s->vec_ops_8;
    case DV_EV_VEC_REPEATS: return s->vec_repeats;
    case DV_EV_VEC_ELEM_OPS: return s->vec_elem_ops;
    case DV_EV_L0A_READ: return s->buf_read[DV_MEM_L0A];
    case DV_EV_L0A_WRITE: return s->buf_write[DV_MEM_L0A];
    case DV_EV_L0B_READ: return s->buf_read[DV_MEM_L0B];
    case DV_EV_L0B_WRITE: return s->buf_write[DV_MEM_L0B];
    case DV_EV_L0C_READ: return s->buf_read[DV_MEM_L0C];
    case DV_EV_L0C_WRITE: return s->buf_write[DV_MEM_L0C];
    case DV_EV_UB_READ: return s->buf_read[DV_MEM_UB];
    case DV_EV_UB_WRITE: return s->buf_write[DV_MEM_UB];
    case DV_EV_UB_BANK_CONFLICT: return s->ub_bank_conflict_cycles;
    case DV_EV_UB_BANKGROUP_CONFLICT: return s->ub_group_conflict_cycles;
    case DV_EV_L2_READ_HIT: return s->l2.read_hits;
    case DV_EV_L2_READ_MISS: return s->l2.read_misses;
    case DV_EV_L2_WRITE_HIT: return s->l2.write_hits;
    case DV_EV_L2_WRITE_MISS: return s->l2.write_misses;
    case DV_EV_GM_SERIALISED: return s->gm_serialised_cycles;
    case DV_EV_SCALAR_EXECUTED: return s->scalar_insns;
    case DV_EV_SCALAR_STALL: return scalar_stall(s);
    case DV_EV_COUNT: break;
    }
    return 0;
}
