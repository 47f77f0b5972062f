/* san_hb.c - happens-before for the sanitizer: a vector clock per (core,
 * pipe) thread, FastTrack style (a thread's own component goes up after it
 * releases: a set_flag, a dispatch, a cc_set_flag, or being read by a
 * barrier or a block start), and the synchronisation checks.
 *
 * Edges: program order in a pipe; the Scalar unit's dispatch (a pipe's
 * instruction is ordered after everything the Scalar unit knew when it
 * dispatched it: its clock is snapshot once per change and shared by the
 * dispatches); set_flag -> the wait_flag that consumes it (a set on a flag
 * already set is lost, and orders nothing); pipe_barrier pipe=all (the
 * Scalar unit after every pipe of its core); cross-core flags (a wait after
 * the sets it consumes, oldest first, as many as the counter's mode asks);
 * a block after the previous block of its core (mix: of its AIC group). */
#include "san_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static san_vc *vc_new(dv_san *s, const uint32_t *src)
{
    san_vc *v = malloc(sizeof *v + (size_t)s->nthreads * sizeof v->c[0]);
    if (!v) {
        s->oom = true;
        return NULL;
    }
    v->refs = 1;
    v->seq = ++s->snap_seq;
    memcpy(v->c, src, (size_t)s->nthreads * sizeof v->c[0]);
    return v;
}

void san_vc_release(san_vc *v)
{
    if (v && --v->refs == 0)
        free(v);
}

static void join(const dv_san *s, uint32_t *dst, const uint32_t *src)
{
    for (unsigned i = 0; i < s->nthreads; i++)
        if (src[i] > dst[i])
            dst[i] = src[i];
}

static unsigned tid_of(unsigned core, dv_pipe p)
{
    return core * SAN_NP + (unsigned)p;
}

/* The Scalar unit learnt something: later dispatches need a new snapshot. */
static void scalar_acquired(san_core *c)
{
    san_vc_release(c->snap);
    c->snap = NULL;
}

/* ---- findings of synchronisation ---- */

static void sync_finding(dv_san *s, bool note, uint64_t key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void sync_finding(dv_san *s, bool note, uint64_t key, const char *fmt, ...)
{
    if (!(s->checks & DV_SAN_SYNC))
        return;
    san_finding *f = san_new_finding(s, key, DV_SAN_SYNC, note);
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->what, sizeof f->what, fmt, ap);
    va_end(ap);
}

static const char *flag_words(dv_pipe src, dv_pipe dst, unsigned id, char *buf, size_t size)
{
    snprintf(buf, size, "%s->%s id %u", san_pipe_name(src), san_pipe_name(dst), id);
    return buf;
}

/* ---- flags ---- */

static void flag_set(dv_san *s, unsigned core, dv_pipe src, dv_pipe dst, unsigned id, uint64_t pc,
                     uint64_t cycle)
{
    san_core *c = &s->cores[core];
    san_flag *f = &c->flags[src][dst][id];
    unsigned tid = tid_of(core, src);
    /* the previous set must have been consumed by a wait ordered before this set */
    bool lost = f->set,
         may = !f->set && f->ever_set &&
               (!f->waited || (f->wait_tid != tid && f->wait_clk > san_vc_of(s, tid)[f->wait_tid]));
    if (lost || may) {
        char w[64], a[SAN_SRC], b[SAN_SRC];
        san_source(s, pc, a, sizeof a);
        san_source(s, f->set ? f->set_pc : f->last_set_pc, b, sizeof b);
        if (lost)
            sync_finding(
                s, false, san_line_key(s, 'l', pc, 0),
                "set_flag %s at %s on core %u (cycle %llu) is lost: the flag is still set by %s (cycle "
                "%llu) and not yet waited for",
                flag_words(src, dst, id, w, sizeof w), a, core, (unsigned long long)cycle, b,
                (unsigned long long)f->set_cycle);
        else
            sync_finding(
                s, false, san_line_key(s, 'l', pc, 0),
                "set_flag %s at %s on core %u (cycle %llu) can be lost: nothing orders it after the "
                "wait_flag (cycle %llu) that consumed the set at %s, so the flag may still be set (this "
                "run's timing let it through)",
                flag_words(src, dst, id, w, sizeof w), a, core, (unsigned long long)cycle,
                (unsigned long long)f->wait_cycle, b);
    }
    if (!f->set) {
        f->set = true;
        san_vc_release(f->vc);
        f->vc = vc_new(s, san_vc_of(s, tid));
        f->set_pc = pc;
        f->set_cycle = cycle;
        f->lost_reported = lost || may;
    }
    f->ever_set = true;
    f->last_set_pc = pc;
    san_vc_of(s, tid)[tid]++;
}

static void flag_wait(dv_san *s, unsigned core, dv_pipe src, dv_pipe dst, unsigned id, uint64_t pc,
                      uint64_t cycle)
{
    san_flag *f = &s->cores[core].flags[src][dst][id];
    unsigned tid = tid_of(core, dst);
    f->waited = true;
    f->wait_tid = tid;
    f->wait_clk = san_vc_of(s, tid)[tid];
    f->wait_cycle = cycle;
    f->lost_reported = false;
    if (f->set && f->vc)
        join(s, san_vc_of(s, tid), f->vc->c);
    san_vc_release(f->vc);
    f->vc = NULL;
    f->set = false;
    f->consumed = true;
    f->last_wait_pc = pc;
    if (dst == DV_PIPE_S)
        scalar_acquired(&s->cores[core]);
}

/* Flags set and never waited for, on one core, as a block ends. */
static void unpaired(dv_san *s, unsigned core, const char *when)
{
    san_core *c = &s->cores[core];
    for (unsigned a = 0; a < SAN_NP; a++)
        for (unsigned b = 0; b < SAN_NP; b++)
            for (unsigned id = 0; id < DV_MAX_EVENT_IDS; id++) {
                san_flag *f = &c->flags[a][b][id];
                if (f->set && !f->lost_reported) {
                    char w[64], src[SAN_SRC];
                    san_source(s, f->set_pc, src, sizeof src);
                    sync_finding(s, false, san_line_key(s, 'u', f->set_pc, 0),
                                 "set_flag %s at %s on core %u (cycle %llu) is never waited for: the flag is "
                                 "still set when %s",
                                 flag_words((dv_pipe)a, (dv_pipe)b, id, w, sizeof w), src, core,
                                 (unsigned long long)f->set_cycle, when);
                }
                san_vc_release(f->vc);
                *f = (san_flag){0};
            }
}

/* ---- cross-core flags (the rule of core_cc.c) ---- */

static void ccq_push(dv_san *s, san_ccq *q, san_vc *v, uint32_t need, uint64_t pc)
{
    if (q->n == q->cap) {
        uint32_t cap = q->cap ? 2 * q->cap : 8;
        san_vc **n = malloc(cap * sizeof *n);
        if (!n) {
            s->oom = true;
            return;
        }
        for (uint32_t i = 0; i < q->n; i++)
            n[i] = q->q[(q->head + i) % q->cap];
        free(q->q);
        q->q = n, q->head = 0, q->cap = cap;
    }
    v->refs++;
    q->q[(q->head + q->n++) % q->cap] = v;
    q->need = need;
    q->last_set_pc = pc;
}

static void cc_set(dv_san *s, unsigned core, dv_pipe p, const dv_insn *in, uint64_t pc)
{
    san_core *c = &s->cores[core];
    unsigned mode = (unsigned)in->f[DV_F_CCMODE], id = (unsigned)in->f[DV_F_ID] % DV_MAX_EVENT_IDS;
    unsigned same_kind = 0, group_aivs = 0;
    for (unsigned i = 0; i < s->ncores; i++) {
        same_kind += s->cores[i].kind == c->kind;
        group_aivs += s->cores[i].group == c->group && s->cores[i].kind == DV_KIND_AIV;
    }
    unsigned tid = tid_of(core, p);
    san_vc *v = vc_new(s, san_vc_of(s, tid));
    for (unsigned i = 0; v && i < s->ncores; i++) {
        san_core *t = &s->cores[i];
        bool same_group = t->group == c->group;
        if (mode == 0 && t->kind == c->kind)
            ccq_push(s, &t->cc[id], v, same_kind, pc);
        else if (mode == 1 && same_group && t->kind == DV_KIND_AIV)
            ccq_push(s, &t->cc[id], v, group_aivs, pc);
        else if (mode == 2 && same_group && c->kind == DV_KIND_AIC && t->kind == DV_KIND_AIV)
            ccq_push(s, &t->cc[id], v, 1, pc);
        else if (mode == 2 && same_group && c->kind == DV_KIND_AIV && t->kind == DV_KIND_AIC)
            ccq_push(s, &t->cc[id], v, group_aivs, pc);
    }
    san_vc_release(v);
    san_vc_of(s, tid)[tid]++;
}

static void cc_wait(dv_san *s, unsigned core, dv_pipe p, const dv_insn *in)
{
    san_ccq *q = &s->cores[core].cc[(unsigned)in->f[DV_F_ID] % DV_MAX_EVENT_IDS];
    uint32_t need = q->need ? q->need : 1;
    uint32_t *me = san_vc_of(s, tid_of(core, p));
    for (uint32_t k = 0; k < need && q->n; k++) {
        san_vc *v = q->q[q->head];
        q->head = (q->head + 1) % q->cap;
        q->n--;
        join(s, me, v->c);
        san_vc_release(v);
    }
}

static void ccq_clear(san_ccq *q)
{
    for (uint32_t k = 0; k < q->n; k++)
        san_vc_release(q->q[(q->head + k) % q->cap]);
    q->head = q->n = 0;
    q->need = 0;
}

/* ---- dispatch ---- */

static void fifo_push(dv_san *s, san_fifo *f, const san_disp *d)
{
    if (f->n == f->cap) {
        uint32_t cap = f->cap ? 2 * f->cap : 16;
        san_disp *n = malloc(cap * sizeof *n);
        if (!n) {
            s->oom = true;
            return;
        }
        for (uint32_t i = 0; i < f->n; i++)
            n[i] = f->q[(f->head + i) % f->cap];
        free(f->q);
        f->q = n, f->head = 0, f->cap = cap;
    }
    f->q[(f->head + f->n++) % f->cap] = *d;
}

static void dispatch(dv_san *s, unsigned core, dv_pipe p, const dv_trace_insn *ev)
{
    san_core *c = &s->cores[core];
    unsigned st = tid_of(core, DV_PIPE_S);
    uint32_t *svc = san_vc_of(s, st);
    if (!c->snap && !(c->snap = vc_new(s, svc)))
        return;
    san_disp d = {c->snap, svc[st], ev->pc, ev->start, *ev->insn};
    c->snap->refs++;
    fifo_push(s, &c->fifo[p], &d);
    svc[st]++;
    c->dispatched++;
}

/* A pipe starts the instruction at the head of its queue. */
static bool pipe_takes(dv_san *s, unsigned core, dv_pipe p)
{
    san_core *c = &s->cores[core];
    san_fifo *f = &c->fifo[p];
    if (!f->n)
        return false;
    san_disp d = f->q[f->head];
    f->head = (f->head + 1) % f->cap;
    f->n--;
    uint32_t *me = san_vc_of(s, tid_of(core, p));
    if (d.snap->seq != c->pipe_snap_seq[p]) {
        join(s, me, d.snap->c);
        c->pipe_snap_seq[p] = d.snap->seq;
    }
    unsigned st = tid_of(core, DV_PIPE_S);
    if (me[st] < d.s_clk)
        me[st] = d.s_clk;
    san_vc_release(d.snap);
    return true;
}

/* The Scalar unit after every pipe of its core (they have drained). */
static void barrier_all(dv_san *s, unsigned core, uint64_t pc)
{
    san_core *c = &s->cores[core];
    if (!c->dispatched) {
        char src[SAN_SRC];
        san_source(s, pc, src, sizeof src);
        sync_finding(
            s, true, san_line_key(s, 'b', pc, 0),
            "pipe_barrier pipe=all at %s on core %u orders nothing: no instruction went to a pipe since "
            "the last barrier or the start of the block",
            src, core);
    }
    uint32_t *svc = san_vc_of(s, tid_of(core, DV_PIPE_S));
    for (unsigned p = DV_PIPE_V; p < SAN_NP; p++) {
        unsigned t = tid_of(core, (dv_pipe)p);
        join(s, svc, san_vc_of(s, t));
        san_vc_of(s, t)[t]++;
    }
    scalar_acquired(c);
    c->dispatched = 0;
}

void san_on_insn(dv_san *s, const dv_trace_insn *ev)
{
    if (ev->core >= s->ncores || !ev->insn)
        return;
    const dv_insn *in = ev->insn;
    unsigned core = ev->core;
    dv_pipe pipe = dv_insn_pipe(in);
    if (ev->lane == DV_PIPE_S) {
        if (pipe == DV_PIPE_S) {
            if (in->op == DV_OP_SET_FLAG)
                flag_set(s, core, DV_PIPE_S, (dv_pipe)in->f[DV_F_DST], (unsigned)in->f[DV_F_ID], ev->pc,
                         ev->start);
            else if (in->op == DV_OP_WAIT_FLAG)
                flag_wait(s, core, (dv_pipe)in->f[DV_F_SRC], DV_PIPE_S, (unsigned)in->f[DV_F_ID], ev->pc,
                          ev->end);
        } else if (pipe == DV_PIPE_ALL) {
            barrier_all(s, core, ev->pc);
        } else if ((unsigned)pipe < SAN_NP) {
            dispatch(s, core, pipe, ev);
        }
        return;
    }
    if ((unsigned)ev->lane >= SAN_NP || !pipe_takes(s, core, ev->lane))
        return;
    switch (in->op) {
    case DV_OP_SET_FLAG:
        flag_set(s, core, ev->lane, (dv_pipe)in->f[DV_F_DST], (unsigned)in->f[DV_F_ID], ev->pc, ev->start);
        break;
    case DV_OP_WAIT_FLAG:
        flag_wait(s, core, (dv_pipe)in->f[DV_F_SRC], ev->lane, (unsigned)in->f[DV_F_ID], ev->pc, ev->end);
        break;
    case DV_OP_CC_SET_FLAG: cc_set(s, core, ev->lane, in, ev->pc); break;
    case DV_OP_CC_WAIT_FLAG: cc_wait(s, core, ev->lane, in); break;
    case DV_OP_PIPE_BARRIER: {
        char src[SAN_SRC];
        san_source(s, ev->pc, src, sizeof src);
        sync_finding(s, true, san_line_key(s, 'B', ev->pc, 0),
                     "pipe_barrier pipe=%s at %s orders nothing: a pipe runs its instructions in order",
                     dv_pipe_name(ev->lane), src);
        break;
    }
    default: break;
    }
}

/* The cores that start a block together with `core`: its AIC group in a
 * mix launch, else itself. */
static bool starts_with(const dv_san *s, unsigned core, unsigned other)
{
    if (core == other)
        return true;
    const dv_obj_kernel *k = dv_sim_kernel(s->sim);
    return k && k->core == DV_CORE_MIX && s->cores[other].group == s->cores[core].group;
}

void san_on_block(dv_san *s, unsigned core, uint64_t block)
{
    if (core >= s->ncores)
        return;
    san_core *c = &s->cores[core];
    if (c->started && c->block == block)
        return; /* its group's start did it */
    char when[96];
    uint32_t *j = calloc(s->nthreads, sizeof *j);
    if (!j) {
        s->oom = true;
        return;
    }
    for (unsigned m = 0; m < s->ncores; m++) {
        if (!starts_with(s, core, m))
            continue;
        san_core *mc = &s->cores[m];
        if (mc->started) {
            snprintf(when, sizeof when, "block %llu of core %u ends", (unsigned long long)mc->block, m);
            unpaired(s, m, when);
        }
        for (unsigned id = 0; id < DV_MAX_EVENT_IDS; id++)
            ccq_clear(&mc->cc[id]);
        for (unsigned p = 0; p < SAN_NP; p++)
            join(s, j, san_vc_of(s, tid_of(m, (dv_pipe)p)));
    }
    for (unsigned m = 0; m < s->ncores; m++) {
        if (!starts_with(s, core, m))
            continue;
        san_core *mc = &s->cores[m];
        for (unsigned p = 0; p < SAN_NP; p++) {
            unsigned t = tid_of(m, (dv_pipe)p);
            uint32_t *v = san_vc_of(s, t);
            memcpy(v, j, s->nthreads * sizeof *v);
            v[t]++;
        }
        scalar_acquired(mc);
        mc->started = true;
        mc->block = block;
        mc->dispatched = 1; /* a barrier first in a block is not worth a note */
    }
    free(j);
}

/* ---- the end of a launch ---- */

static const char *wait_name(const dv_insn *in)
{
    return dv_isa_info(in->op)->mnemonic;
}

/* What keeps a wait_flag src->dst id of core waiting. */
static void explain_wait(dv_san *s, unsigned core, const dv_insn *in, uint64_t pc, uint64_t since)
{
    san_core *c = &s->cores[core];
    char w[64], here[SAN_SRC], why[900] = "";
    san_source(s, pc, here, sizeof here);
    if (in->op == DV_OP_CC_WAIT_FLAG) {
        const san_ccq *q = &c->cc[(unsigned)in->f[DV_F_ID] % DV_MAX_EVENT_IDS];
        snprintf(why, sizeof why, "it needs %u cross-core set%s of id %lld and %u came",
                 q->need ? q->need : 1, q->need > 1 ? "s" : "", (long long)in->f[DV_F_ID], q->n);
        sync_finding(
            s, false, san_line_key(s, 'w', pc, 0),
            "%s pipe=%s id %lld at %s on core %u (blocked since cycle %llu) can never be satisfied: %s",
            wait_name(in), dv_pipe_name((dv_pipe)in->f[DV_F_PIPE]), (long long)in->f[DV_F_ID], here, core,
            (unsigned long long)since, why);
        return;
    }
    dv_pipe src = (dv_pipe)in->f[DV_F_SRC], dst = (dv_pipe)in->f[DV_F_DST];
    unsigned id = (unsigned)in->f[DV_F_ID] % DV_MAX_EVENT_IDS;
    const san_flag *f = &c->flags[src][dst][id];
    flag_words(src, dst, id, w, sizeof w);
    if (!f->ever_set) {
        snprintf(why, sizeof why, "no set_flag %s ran on core %u in this block", w, core);
    } else {
        char a[SAN_SRC], b[SAN_SRC];
        san_source(s, f->last_set_pc, a, sizeof a);
        san_source(s, f->last_wait_pc, b, sizeof b);
        snprintf(why, sizeof why,
                 "no set_flag %s is pending: the last one, at %s, was consumed by the wait at %s", w, a, b);
    }
    /* the pipe that should set it may itself be stuck */
    if ((unsigned)src < SAN_NP && src != DV_PIPE_S && c->fifo[src].n) {
        const san_disp *h = &c->fifo[src].q[c->fifo[src].head];
        if (h->insn.op == DV_OP_WAIT_FLAG || h->insn.op == DV_OP_CC_WAIT_FLAG) {
            char at[SAN_SRC];
            size_t n = strlen(why);
            san_source(s, h->pc, at, sizeof at);
            snprintf(why + n, sizeof why - n, "; pipe %s, which would set it, is itself waiting at %s",
                     san_pipe_name(src), at);
        }
    }
    sync_finding(s, false, san_line_key(s, 'w', pc, 0),
                 "wait_flag %s at %s on core %u (blocked since cycle %llu) can never be satisfied: %s", w,
                 here, core, (unsigned long long)since, why);
}

static void pending_waits(dv_san *s, unsigned core)
{
    dv_core_info info;
    if (!dv_sim_core_info(s->sim, core, &info))
        return;
    san_core *c = &s->cores[core];
    for (unsigned p = DV_PIPE_V; p < SAN_NP; p++) {
        if (!c->fifo[p].n || !info.pipe_waiting[p])
            continue;
        const san_disp *h = &c->fifo[p].q[c->fifo[p].head];
        if (h->insn.op == DV_OP_WAIT_FLAG || h->insn.op == DV_OP_CC_WAIT_FLAG)
            explain_wait(s, core, &h->insn, h->pc, info.pipe_wait_since[p]);
    }
    if (info.scalar_held == DV_TRACE_STALL_FLAG && info.obj) {
        size_t idx = (size_t)(info.pc / DV_INSN_BYTES);
        if (idx * DV_INSN_BYTES + DV_INSN_BYTES <= info.obj->text_size) {
            uint64_t word = 0;
            for (int b = 0; b < 8; b++)
                word |= (uint64_t)info.obj->text[idx * 8 + (size_t)b] << (8 * b);
            dv_insn in;
            if (dv_isa_decode(word, &in, NULL) == DV_OK && in.op == DV_OP_WAIT_FLAG)
                explain_wait(s, core, &in, info.pc, info.scalar_held_since);
        }
    }
}

void san_launch_end(dv_san *s, const dv_run_result *res)
{
    /* a run cut short (a fault, the cycle limit, Ctrl-C) says nothing of
     * waits still to come or flags still to be waited for */
    bool whole = res->stop == DV_STOP_DONE || res->stop == DV_STOP_DEADLOCK;
    for (unsigned i = 0; whole && i < s->ncores; i++) {
        if (res->stop == DV_STOP_DEADLOCK)
            pending_waits(s, i);
        if (s->cores[i].started) {
            char when[96];
            snprintf(when, sizeof when, "the launch ends (core %u, block %llu)", i,
                     (unsigned long long)s->cores[i].block);
            unpaired(s, i, when);
        }
    }
    if (res->stop == DV_STOP_FAULT && res->message) {
        bool cc = strstr(res->message, "would exceed its limit") != NULL;
        bool mem = strstr(res->message, " access ") != NULL;
        /* a GM access outside the tensors was reported when it issued */
        for (size_t i = 0; mem && i < s->nf; i++)
            if (s->f[i].access && s->f[i].check == DV_SAN_MEM && s->f[i].launch == s->launch &&
                strstr(res->message, "GM access"))
                mem = false;
        dv_san_check k = cc ? DV_SAN_SYNC : DV_SAN_MEM;
        if ((cc || mem) && (s->checks & k)) {
            san_finding *f = san_new_finding(s, san_line_key(s, 'f', 0, 0) ^ s->launch, k, false);
            if (f)
                snprintf(f->what, sizeof f->what, "%s%s",
                         cc ? "cross-core flag overflow: " : "fault: ", res->message);
        }
    }
}

void san_free_launch_sync(dv_san *s)
{
    for (unsigned i = 0; s->cores && i < s->ncores; i++) {
        san_core *c = &s->cores[i];
        san_vc_release(c->snap);
        for (unsigned p = 0; p < SAN_NP; p++) {
            for (uint32_t k = 0; k < c->fifo[p].n; k++)
                san_vc_release(c->fifo[p].q[(c->fifo[p].head + k) % c->fifo[p].cap].snap);
            free(c->fifo[p].q);
        }
        for (unsigned a = 0; a < SAN_NP; a++)
            for (unsigned b = 0; b < SAN_NP; b++)
                for (unsigned id = 0; id < DV_MAX_EVENT_IDS; id++)
                    san_vc_release(c->flags[a][b][id].vc);
        for (unsigned id = 0; id < DV_MAX_EVENT_IDS; id++) {
            ccq_clear(&c->cc[id]);
            free(c->cc[id].q);
        }
    }
    free(s->cores);
    s->cores = NULL;
    free(s->vc);
    s->vc = NULL;
}
