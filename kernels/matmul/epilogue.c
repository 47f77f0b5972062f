/* epilogue.c - the host part of the matmul activation epilogue on split
 * chips (epilogue.h): the mix kernel's ring, the AIVs' pieces in UB, the
 * record. */
#include "epilogue.h"

#include "opcommon.h"

#include <stdio.h>
#include <string.h>

bool mm_ep_mix(const dv_chip_config *cfg, const mm_problem *p)
{
    return cfg->split && p->act != 0;
}

dv_status mm_ep_prepare(dv_opr_run *r, const mm_problem *p, const mm_tiling *t, mm_ep *ep, uint64_t *q,
                        dv_error *err)
{
    memset(ep, 0, sizeof *ep);
    const dv_chip_config *cfg = r->cfg;
    uint64_t oes = t->oes, row = t->nt * oes;
    /* Each AIV's UB: two buffers (MTE2 fills one while the Vector unit and
     * MTE3 work on the other), each a piece and the activation's scratch
     * piece: a piece is at most a quarter of UB, rounded up to whole
     * 256-byte repeats (the Vector unit's last repeat runs past the rows). */
    ep->aivs = cfg->aiv_per_aic;
    if (!ep->aivs)
        return dv_error_set(err, DV_ERR_INPUT,
                            "matmul: ACT on a split chip needs its AIVs (chip.aiv_per_aic is 0)");
    uint64_t quarter = cfg->ub_bytes / 4 / 256 * 256, rows = opc_ceil_div(t->mt, ep->aivs);
    if (row > quarter)
        return dv_error_set(
            err, DV_ERR_INPUT,
            "matmul: ACT on this split chip needs a tile row of %llu bytes in a quarter of UB (%llu "
            "bytes)",
            (unsigned long long)row, (unsigned long long)quarter);
    ep->pr = quarter / row < rows ? quarter / row : rows;
    ep->ubscr = opc_round_up(ep->pr * row, 256);
    ep->ubstep = 2 * ep->ubscr;
    ep->ns = MM_EP_SLOTS;
    ep->slot = t->mt * t->nt * oes;
    ep->wsblk = ep->ns * ep->slot;
    ep->act = p->act;
    ep->q = *q;
    dv_status st = dv_opr_tensor_add(r, "ws_epilogue", true, t->blocks * ep->wsblk, &ep->ring, err);
    if (st != DV_OK)
        return st;
    ep->ws = r->t[ep->ring].addr;
    const uint64_t fields[] = {
#define EPILOGUE_FIELD(member, sym, doc) ep->member,
#include "epilogue.def"
#undef EPILOGUE_FIELD
    };
    if ((st = opc_record_tensor(r, fields, sizeof fields / sizeof fields[0], &ep->rec, err)) != DV_OK)
        return st;
    *q = r->t[ep->rec].addr;
    return DV_OK;
}

double mm_ep_vec_cycles(const dv_chip_config *cfg, const mm_problem *p, const mm_tiling *t)
{
    if (!p->act)
        return 0;
    /* vmuls, vexp, vadds, vdiv over C in UB's type (the output type on
     * split chips; copy_l0c_ub's on coupled ones) */
    uint64_t es = cfg->split ? t->oes : t->uboes, bytes = t->batch * p->m * t->ldc * es;
    uint64_t slope = es == 4 ? cfg->vec_slope_b32 : cfg->vec_slope_b16;
    return 4.0 * (double)opc_ceil_div(bytes, 256) * (double)slope;
}

void mm_ep_describe(dv_opr_run *r, const mm_ep *ep)
{
    dv_opr_plan(r, "mix", "1: a mix kernel, the AIC's tiles activated by its AIVs through a GM ring", 1);
    dv_opr_plan(r, "ws_slots", "GM ring slots per block (the Cube's next tile while the AIVs read one)",
                (double)ep->ns);
    dv_opr_plan(r, "ws_slot_bytes", "bytes of a ring slot (a tile in the output type)", (double)ep->slot);
    dv_opr_plan(r, "aivs_per_tile", "AIVs sharing a tile's rows", (double)ep->aivs);
    dv_opr_plan(r, "aiv_piece_rows", "rows an AIV takes into UB at once (double buffered)", (double)ep->pr);
    size_t len = strlen(r->tiling);
    snprintf(r->tiling + len, sizeof r->tiling - len,
             "; mix kernel: FixPipe -> a GM ring of %llu slots of %llu bytes per block, %llu AIVs per tile "
             "(a share of its rows each, pieces of up to %llu rows in UB) apply %s",
             (unsigned long long)ep->ns, (unsigned long long)ep->slot, (unsigned long long)ep->aivs,
             (unsigned long long)ep->pr, ep->act == 1 ? "SiLU" : "GELU");
}
