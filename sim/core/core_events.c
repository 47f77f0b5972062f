/* core_events.c - the value of every catalogued event on a core, read from
 * the core's statistics (perfcounters/events.def gives the order). */
#include "core_internal.h"
#include "dv_events.h"

uint64_t core_event_value(const dv_core *c, unsigned e)
{
    const dv_core_stats *s = &c->stats;
    if (e >= DV_EV_SCALAR_BUSY && e < DV_EV_SCALAR_BUSY + 4 * DV_PIPE_COUNT) {
        /* four events per pipe, in dv_pipe order */
        const dv_pipe_stats *p = &s->pipe[(e - DV_EV_SCALAR_BUSY) / 4];
        switch ((e - DV_EV_SCALAR_BUSY) % 4) {
        case 0: return p->busy_cycles;
        case 1: return p->insns;
        case 2: return p->wait_cycles;
        default: return p->full_cycles;
        }
    }
    if (e >= DV_EV_PATH_GM_TO_L1 && e <= DV_EV_PATH_L0C_TO_L1)
        return s->path_bytes[DV_PATH_GM_L1 + (e - DV_EV_PATH_GM_TO_L1)];
    switch ((dv_event_id)e) {
    case DV_EV_CYCLES: return c->q->now - c->block_start;
    case DV_EV_CUBE_MACS_F16: return s->cube_macs_f16;
    case DV_EV_CUBE_MACS_BF16: return s->cube_macs_bf16;
    case DV_EV_CUBE_MACS_INT8: return s->cube_macs_int8;
    case DV_EV_CUBE_FRACTALS: return s->cube_fractals;
    case DV_EV_VEC_OPS_16: return s->vec_ops_16;
    case DV_EV_VEC_OPS_32: return s->vec_ops_32;
    case DV_EV_VEC_OPS_8: return s->vec_ops_8;
    case DV_EV_VEC_REPEATS: return s->vec_repeats;
    case DV_EV_L0A_READ: return s->l0a_read;
    case DV_EV_L0A_WRITE: return s->l0a_write;
    case DV_EV_L0B_READ: return s->l0b_read;
    case DV_EV_L0B_WRITE: return s->l0b_write;
    case DV_EV_L0C_READ: return s->l0c_read;
    case DV_EV_L0C_WRITE: return s->l0c_write;
    case DV_EV_UB_READ: return s->ub_read;
    case DV_EV_UB_WRITE: return s->ub_write;
    case DV_EV_UB_BANK_CONFLICT: return s->ub_bank_conflict_cycles;
    case DV_EV_UB_BANKGROUP_CONFLICT: return s->ub_group_conflict_cycles;
    case DV_EV_L2_READ_HIT: return s->l2.read_hits;
    case DV_EV_L2_READ_MISS: return s->l2.read_misses;
    case DV_EV_L2_WRITE_HIT: return s->l2.write_hits;
    case DV_EV_L2_WRITE_MISS: return s->l2.write_misses;
    case DV_EV_GM_SERIALISED: return s->gm_serialised_cycles;
    case DV_EV_SCALAR_EXECUTED: return s->scalar_insns;
    case DV_EV_SCALAR_STALL: {
        uint64_t full = 0;
        for (int i = 0; i < DV_PIPE_COUNT; i++)
            full += s->pipe[i].full_cycles;
        return full + s->pipe[DV_PIPE_S].wait_cycles;
    }
    default: return 0;
    }
}
