/* core_cc.c - cross-core flags between the cores of a split-chip launch
 * (facts #58).  Each core has a counter per flag id.  cc_set_flag, when it
 * reaches the head of its pipe, adds one to the counters of its targets:
 *   mode 0: every core of the setter's kind in the launch (a barrier: a wait
 *           then needs one set from each of them);
 *   mode 1: the AIVs of the setter's group (AIVs only; a wait needs one set
 *           from each AIV of the group);
 *   mode 2: an AIC sets each of its AIVs (a wait needs that one set); an AIV
 *           sets its AIC (the AIC's wait needs a set from every AIV).
 * cc_wait_flag blocks its pipe until its own counter reaches what one wait
 * consumes, then subtracts it.  A counter may not exceed
 * sync.cross_core_max; ids run below sync.cross_core_ids. */
#include "core_cc.h"

#include "core_base.h"

#include <stdio.h>

bool core_has_pipe(const dv_core *c, dv_pipe pipe)
{
    switch ((dv_core_kind)c->core_type) {
    case DV_KIND_AIC:
        return pipe == DV_PIPE_M || pipe == DV_PIPE_MTE1 || pipe == DV_PIPE_MTE2 || pipe == DV_PIPE_FIX;
    case DV_KIND_AIV: return pipe == DV_PIPE_V || pipe == DV_PIPE_MTE2 || pipe == DV_PIPE_MTE3;
    default: return pipe != DV_PIPE_FIX || dv_path_bw(c->cfg, DV_PATH_L0C_GM) > 0;
    }
}

bool core_cc_check(dv_core *c, const dv_insn *in)
{
    const char *mn = dv_isa_info(in->op)->mnemonic;
    dv_pipe pipe = (dv_pipe)in->f[DV_F_PIPE];
    if (!c->cc) {
        core_fault(c, DV_PIPE_S, c->pc, "%s: cross-core flags need a split chip (this is %s)", mn,
                   c->cfg->name);
        return false;
    }
    if (pipe == DV_PIPE_S || pipe == DV_PIPE_ALL) {
        core_fault(c, DV_PIPE_S, c->pc, "%s: pipe=%s is not allowed for cross-core flags", mn,
                   dv_pipe_name(pipe));
        return false;
    }
    if ((uint64_t)in->f[DV_F_ID] >= c->cfg->cc_flag_ids) {
        core_fault(c, DV_PIPE_S, c->pc, "%s: id %lld does not exist (cross-core ids 0..%llu)", mn,
                   (long long)in->f[DV_F_ID], (unsigned long long)c->cfg->cc_flag_ids - 1);
        return false;
    }
    if (in->op == DV_OP_CC_SET_FLAG && in->f[DV_F_CCMODE] == 1 && c->core_type != DV_KIND_AIV) {
        core_fault(c, DV_PIPE_S, c->pc, "%s: mode 1 synchronises the AIVs of a group; this is an AIC", mn);
        return false;
    }
    return true;
}

static void wake_cc_waiters(dv_core *t)
{
    for (int i = DV_PIPE_V; i < DV_PIPE_COUNT; i++) {
        dv_pipe_state *p = &t->pipes[i];
        if (p->waiting && p->count && p->queue[p->head].insn->op == DV_OP_CC_WAIT_FLAG)
            core_schedule_pipe(t, p, t->q->now, DV_PRIO_FLAG);
    }
}

static void bump(dv_core *c, const dv_op *op, dv_core *t, unsigned need)
{
    dv_cc_net *cc = c->cc;
    unsigned id = (unsigned)op->insn->f[DV_F_ID], at = t->net_index * DV_MAX_EVENT_IDS + id;
    if (cc->count[at] >= c->cfg->cc_counter_max) {
        core_fault(c, dv_insn_pipe(op->insn), op->pc,
                   "cc_set_flag: cross-core flag %u of core %llu would exceed its limit of %llu sets", id,
                   (unsigned long long)t->core_id, (unsigned long long)c->cfg->cc_counter_max);
        return;
    }
    cc->count[at]++;
    cc->need[at] = (uint8_t)need;
    wake_cc_waiters(t);
}

void core_cc_set(dv_core *c, const dv_op *op)
{
    dv_cc_net *cc = c->cc;
    unsigned mode = (unsigned)op->insn->f[DV_F_CCMODE];
    unsigned same_kind = 0, group_aivs = 0;
    for (unsigned i = 0; i < cc->ncores; i++) {
        same_kind += cc->cores[i]->core_type == c->core_type;
        group_aivs += cc->cores[i]->group == c->group && cc->cores[i]->core_type == DV_KIND_AIV;
    }
    for (unsigned i = 0; i < cc->ncores && c->stop == DV_STOP_NONE; i++) {
        dv_core *t = cc->cores[i];
        bool same_group = t->group == c->group;
        if (mode == 0 && t->core_type == c->core_type)
            bump(c, op, t, same_kind);
        else if (mode == 1 && same_group && t->core_type == DV_KIND_AIV)
            bump(c, op, t, group_aivs);
        else if (mode == 2 && same_group && c->core_type == DV_KIND_AIC && t->core_type == DV_KIND_AIV)
            bump(c, op, t, 1);
        else if (mode == 2 && same_group && c->core_type == DV_KIND_AIV && t->core_type == DV_KIND_AIC)
            bump(c, op, t, group_aivs);
    }
}

bool core_cc_try_wait(dv_core *c, const dv_insn *in)
{
    unsigned at = c->net_index * DV_MAX_EVENT_IDS + (unsigned)in->f[DV_F_ID];
    uint8_t need = c->cc->need[at] ? c->cc->need[at] : 1;
    if (c->cc->count[at] < need)
        return false;
    c->cc->count[at] -= need;
    return true;
}
