/* profile.c - the stall-attribution observer of dv_profile.h: it follows
 * each lane (pipe) of each core through the hooks, fills the gaps between
 * the intervals the hooks report (starved before an instruction, idle after
 * the last one) and closes what is still open when the run stops. */
#include "dv_profile.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *stat, *doc;
} class_rows[] = {
#define DV_PROF_CLASS(id, name, stat, doc) {name, stat, doc},
#include "dv_prof_classes.def"
#undef DV_PROF_CLASS
};

const char *dv_prof_class_name(dv_prof_class k)
{
    return (unsigned)k < DV_PROF_CLASS_COUNT ? class_rows[k].name : "?";
}

const char *dv_prof_class_doc(dv_prof_class k)
{
    return (unsigned)k < DV_PROF_CLASS_COUNT ? class_rows[k].doc : "?";
}

const char *dv_prof_class_stat(dv_prof_class k)
{
    return (unsigned)k < DV_PROF_CLASS_COUNT ? class_rows[k].stat : "?";
}

/* Where a lane is: the end of the last interval reported on it, and that
 * interval (to cut it back if the run stopped inside it). */
typedef struct lane_state {
    uint64_t free;
    uint64_t last_pc;
    uint64_t last_start;
    bool used;
    uint64_t last_parts[3]; /* busy, bank, memory of the last unit instruction */
} lane_state;

/* What nearly every Scalar instruction adds to, apart from the public
 * per-pc records (a quarter of their size, so it stays in cache): folded
 * into them by dv_profile_result. */
typedef struct pc_hot {
    uint64_t count, busy;
} pc_hot;

/* A core as the observer follows it.  The first cache line holds all that
 * a Scalar instruction touches here (the Scalar's busy cycles and its bin
 * are batched, folded in by fold_hot and pend_flush). */
typedef struct core_track {
    _Alignas(64) pc_hot *hot; /* [npcs]: the Scalar lane's executions and busy cycles */
    uint64_t s_busy;          /* the Scalar's busy cycles not yet in pipe[S] */
    /* its busy cycles not yet in the timeline, all in bin pend_bin */
    uint64_t pend_bin, pend_busy;
    lane_state lane[DV_PIPE_COUNT];
    uint64_t last_set[DV_PIPE_COUNT][DV_PIPE_COUNT][DV_MAX_EVENT_IDS]; /* pc + 1 of the last set_flag */
} core_track;

struct dv_profile {
    dv_prof_result r;
    core_track *track;
    const dv_sim *sim;
    uint64_t cc_last_pc[DV_MAX_EVENT_IDS];
    unsigned cc_last_core[DV_MAX_EVENT_IDS]; /* + 1; 0: never set */
    size_t release_cap;
    uint32_t *release_hint; /* per wait pc: index + 1 of its last release entry */
    unsigned bin_shift;     /* bin_width = 1 << bin_shift */
    dv_status status;
};

static void fold_hot(dv_profile *p)
{
    for (unsigned ci = 0; p->track && ci < p->r.ncores; ci++) {
        p->r.cores[ci].pipe[DV_PIPE_S][DV_PROF_BUSY] += p->track[ci].s_busy;
        p->track[ci].s_busy = 0;
        pc_hot *h = p->track[ci].hot;
        dv_prof_pc *pcs = p->r.cores[ci].pcs;
        for (size_t i = 0; h && pcs && i < p->r.npcs; i++) {
            pcs[i].count[DV_PROF_LANE_S] += h[i].count;
            pcs[i].cycles[DV_PROF_BUSY][DV_PROF_LANE_S] += h[i].busy;
            h[i].count = h[i].busy = 0;
        }
    }
}

static void free_result(dv_profile *p)
{
    for (unsigned i = 0; p->track && i < p->r.ncores; i++)
        free(p->track[i].hot);
    for (unsigned i = 0; i < p->r.ncores; i++)
        free(p->r.cores[i].pcs);
    free(p->r.cores);
    free(p->r.releases);
    for (int k = 0; k < 3; k++)
        free(p->r.bins[k]);
    free(p->track);
    free(p->release_hint);
    memset(&p->r, 0, sizeof p->r);
    p->track = NULL;
    p->release_hint = NULL;
    p->release_cap = 0;
}

/* ---- the timeline ---- */

static void top_add(dv_prof_top *t, uint64_t pc, int cls, uint64_t n)
{
    int empty = -1, least = 0;
    for (int i = 0; i < DV_PROF_TOP; i++) {
        if (t[i].cls == cls && t[i].pc == pc) {
            t[i].cycles += n;
            return;
        }
        if (t[i].cls < 0 && empty < 0)
            empty = i;
        if (t[i].cycles < t[least].cycles)
            least = i;
    }
    if (empty >= 0) {
        t[empty] = (dv_prof_top){pc, n, cls};
        return;
    }
    /* space-saving: the newcomer inherits the smallest count it replaces */
    if (n > 0)
        t[least] = (dv_prof_top){pc, t[least].cycles + n, cls};
}

static void pend_flush(dv_profile *p, unsigned ci)
{
    core_track *t = &p->track[ci];
    dv_prof_bin *bins = p->r.bins[p->r.cores[ci].kind];
    if (t->pend_busy && bins)
        bins[t->pend_bin].cycles[DV_PIPE_S][DV_PROF_BUSY] += t->pend_busy;
    t->pend_busy = 0;
}

static void bins_coarsen(dv_profile *p)
{
    for (unsigned ci = 0; ci < p->r.ncores; ci++)
        pend_flush(p, ci);
    for (int k = 0; k < 3; k++) {
        dv_prof_bin *b = p->r.bins[k];
        if (!b)
            continue;
        for (int i = 0; i < DV_PROF_BINS / 2; i++) {
            dv_prof_bin m = b[2 * i];
            const dv_prof_bin *o = &b[2 * i + 1];
            for (int pi = 0; pi < DV_PIPE_COUNT; pi++) {
                for (int c = 0; c < DV_PROF_CLASS_COUNT; c++)
                    m.cycles[pi][c] += o->cycles[pi][c];
                for (int t = 0; t < DV_PROF_TOP; t++)
                    if (o->top[pi][t].cls >= 0)
                        top_add(m.top[pi], o->top[pi][t].pc, o->top[pi][t].cls, o->top[pi][t].cycles);
            }
            b[i] = m;
        }
        for (int i = DV_PROF_BINS / 2; i < DV_PROF_BINS; i++) {
            memset(&b[i], 0, sizeof b[i]);
            for (int pi = 0; pi < DV_PIPE_COUNT; pi++)
                for (int t = 0; t < DV_PROF_TOP; t++)
                    b[i].top[pi][t].cls = -1;
        }
    }
    p->r.bin_width *= 2;
    p->bin_shift++;
}

static bool is_stall(dv_prof_class k)
{
    return k == DV_PROF_FLAG || k == DV_PROF_CC_FLAG || k == DV_PROF_BARRIER || k == DV_PROF_QUEUE_FULL;
}

static void bins_add(dv_profile *p, dv_core_kind kind, dv_pipe lane, uint64_t pc, dv_prof_class k, uint64_t a,
                     uint64_t b)
{
    dv_prof_bin *bins = p->r.bins[kind];
    if (!bins || b <= a)
        return;
    while (b > (uint64_t)DV_PROF_BINS << p->bin_shift)
        bins_coarsen(p);
    unsigned sh = p->bin_shift;
    uint64_t i = a >> sh, last = (b - 1) >> sh;
    if (i == last) { /* nearly always: the interval lies in one bin */
        bins[i].cycles[lane][k] += b - a;
        if (is_stall(k))
            top_add(bins[i].top[lane], pc, (int)k, b - a);
        return;
    }
    for (; i <= last; i++) {
        uint64_t lo = i << sh > a ? i << sh : a, hi = (i + 1) << sh < b ? (i + 1) << sh : b;
        bins[i].cycles[lane][k] += hi - lo;
        if (is_stall(k))
            top_add(bins[i].top[lane], pc, (int)k, hi - lo);
    }
}

/* ---- intervals ---- */

static void add(dv_profile *p, unsigned ci, dv_pipe lane, uint64_t pc, dv_prof_class k, uint64_t a,
                uint64_t b)
{
    if (b <= a)
        return;
    dv_prof_core *c = &p->r.cores[ci];
    c->pipe[lane][k] += b - a;
    size_t idx = (size_t)(pc / DV_INSN_BYTES);
    if (idx < p->r.npcs)
        c->pcs[idx].cycles[k][lane == DV_PIPE_S ? DV_PROF_LANE_S : DV_PROF_LANE_PIPE] += b - a;
    bins_add(p, c->kind, lane, pc, k, a, b);
}

/* The lane gets something at `start`: the gap before it is the Scalar
 * unit's idle time (its block had ended), or a pipe starved of pc. */
static void touch(dv_profile *p, unsigned ci, dv_pipe lane, uint64_t pc, uint64_t start, uint64_t end)
{
    lane_state *l = &p->track[ci].lane[lane];
    if (start > l->free) {
        if (lane == DV_PIPE_S)
            add(p, ci, lane, l->used ? l->last_pc : pc, DV_PROF_IDLE, l->free, start);
        else
            add(p, ci, lane, pc, DV_PROF_STARVED, l->free, start);
    }
    if (end > l->free)
        l->free = end;
    l->used = true;
    l->last_pc = pc;
    l->last_start = start;
    memset(l->last_parts, 0, sizeof l->last_parts);
}

static void count(dv_profile *p, unsigned ci, dv_pipe lane, uint64_t pc)
{
    size_t idx = (size_t)(pc / DV_INSN_BYTES);
    if (idx < p->r.npcs)
        p->r.cores[ci].pcs[idx].count[lane == DV_PIPE_S ? DV_PROF_LANE_S : DV_PROF_LANE_PIPE]++;
}

static void release_add(dv_profile *p, uint64_t wait_pc, dv_prof_release_kind kind, unsigned set_core,
                        uint64_t set_pc, uint64_t cycles)
{
    dv_prof_result *r = &p->r;
    if (kind != DV_PROF_REL_CC)
        set_core = 0; /* a set_flag of the waiting core itself: one entry for every core */
    size_t idx = (size_t)(wait_pc / DV_INSN_BYTES);
    uint32_t *hint = idx < r->npcs ? &p->release_hint[idx] : NULL;
    if (hint && *hint) {
        dv_prof_release *x = &r->releases[*hint - 1];
        if (x->kind == kind && x->set_pc == set_pc && x->set_core == set_core) {
            x->cycles += cycles;
            x->waits++;
            return;
        }
    }
    for (size_t h = 0; h < r->nreleases; h++) {
        dv_prof_release *x = &r->releases[h];
        if (x->wait_pc == wait_pc && x->kind == kind && x->set_pc == set_pc && x->set_core == set_core) {
            x->cycles += cycles;
            x->waits++;
            if (hint)
                *hint = (uint32_t)h + 1;
            return;
        }
    }
    if (r->nreleases == p->release_cap) {
        size_t cap = p->release_cap ? p->release_cap * 2 : 32;
        dv_prof_release *a = realloc(r->releases, cap * sizeof *a);
        if (!a) {
            p->status = DV_ERR_NOMEM;
            return;
        }
        r->releases = a;
        p->release_cap = cap;
    }
    r->releases[r->nreleases] = (dv_prof_release){wait_pc, kind, set_core, set_pc, cycles, 1};
    r->nreleases++;
    if (hint)
        *hint = (uint32_t)r->nreleases;
}

static void release_of_flag(dv_profile *p, unsigned ci, const dv_insn *in, uint64_t wait_pc, uint64_t cycles)
{
    unsigned src = (unsigned)in->f[DV_F_SRC], dst = (unsigned)in->f[DV_F_DST], id = (unsigned)in->f[DV_F_ID];
    uint64_t set = src < DV_PIPE_COUNT && dst < DV_PIPE_COUNT && id < DV_MAX_EVENT_IDS
                       ? p->track[ci].last_set[src][dst][id]
                       : 0;
    release_add(p, wait_pc, set ? DV_PROF_REL_SET : DV_PROF_REL_UNKNOWN, ci, set ? set - 1 : 0, cycles);
}

static void release_of_cc(dv_profile *p, const dv_insn *in, uint64_t wait_pc, uint64_t cycles)
{
    unsigned id = (unsigned)in->f[DV_F_ID];
    unsigned who = id < DV_MAX_EVENT_IDS ? p->cc_last_core[id] : 0;
    release_add(p, wait_pc, who ? DV_PROF_REL_CC : DV_PROF_REL_UNKNOWN, who ? who - 1 : 0,
                who ? p->cc_last_pc[id] : 0, cycles);
}

/* ---- the hooks ---- */

static dv_status on_launch(void *user, const dv_sim *sim, dv_error *err)
{
    dv_profile *p = user;
    free_result(p);
    p->sim = sim;
    p->status = DV_OK;
    memset(p->cc_last_core, 0, sizeof p->cc_last_core);
    dv_prof_result *r = &p->r;
    r->ncores = dv_sim_ncores(sim);
    r->bin_width = 16;
    p->bin_shift = 4;
    r->cores = calloc(r->ncores ? r->ncores : 1, sizeof *r->cores);
    size_t tsize = (r->ncores ? r->ncores : 1) * sizeof *p->track;
    p->track = aligned_alloc(64, tsize);
    if (p->track)
        memset(p->track, 0, tsize);
    if (!r->cores || !p->track)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for the profile");
    for (unsigned i = 0; i < r->ncores; i++) {
        dv_core_info info;
        dv_sim_core_info(sim, i, &info);
        r->obj = info.obj;
        r->npcs = info.obj->text_size / DV_INSN_BYTES;
        if (!p->release_hint && !(p->release_hint = calloc(r->npcs ? r->npcs : 1, sizeof *p->release_hint)))
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory for the profile");
        dv_prof_core *c = &r->cores[i];
        c->kind = info.kind;
        memcpy(c->has_pipe, info.has_pipe, sizeof c->has_pipe);
        c->pcs = calloc(r->npcs ? r->npcs : 1, sizeof *c->pcs);
        p->track[i].hot = calloc(r->npcs ? r->npcs : 1, sizeof *p->track[i].hot);
        if (!c->pcs || !p->track[i].hot)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory for the profile");
        unsigned k = (unsigned)info.kind < 3 ? (unsigned)info.kind : 0;
        r->kind_cores[k]++;
        if (!r->bins[k]) {
            r->bins[k] = calloc(DV_PROF_BINS, sizeof *r->bins[k]);
            if (!r->bins[k])
                return dv_error_set(err, DV_ERR_NOMEM, "out of memory for the profile");
            for (int b = 0; b < DV_PROF_BINS; b++)
                for (int pi = 0; pi < DV_PIPE_COUNT; pi++)
                    for (int t = 0; t < DV_PROF_TOP; t++)
                        r->bins[k][b].top[pi][t].cls = -1;
        }
    }
    return DV_OK;
}

/* A Scalar unit instruction (the hooks' narrow `scalar` call, once per
 * instruction the Scalar unit runs or dispatches): the common case, kept
 * short. */
static void on_scalar(void *user, unsigned ci, const dv_insn *in, uint64_t pc, uint64_t a, uint64_t b)
{
    (void)in;
    dv_profile *p = user;
    if (ci >= p->r.ncores)
        return;
    size_t idx = (size_t)(pc / DV_INSN_BYTES);
    core_track *t = &p->track[ci];
    lane_state *l = &t->lane[DV_PIPE_S];
    if (a > l->free || idx >= p->r.npcs) {
        count(p, ci, DV_PIPE_S, pc);
        touch(p, ci, DV_PIPE_S, pc, a, b);
        add(p, ci, DV_PIPE_S, pc, DV_PROF_BUSY, a, b);
        return;
    }
    l->free = b > l->free ? b : l->free;
    l->used = true;
    l->last_pc = pc;
    l->last_start = a;
    if (b <= a)
        return;
    pc_hot *h = &t->hot[idx];
    h->count++;
    h->busy += b - a;
    t->s_busy += b - a;
    unsigned sh = p->bin_shift;
    if (b <= (uint64_t)DV_PROF_BINS << sh && a >> sh == (b - 1) >> sh) {
        if (t->pend_busy && t->pend_bin != a >> sh)
            pend_flush(p, ci);
        t->pend_bin = a >> sh;
        t->pend_busy += b - a;
    } else {
        bins_add(p, p->r.cores[ci].kind, DV_PIPE_S, pc, DV_PROF_BUSY, a, b);
    }
}

static void on_insn(void *user, const dv_trace_insn *ev)
{
    dv_profile *p = user;
    unsigned ci = ev->core;
    dv_pipe lane = ev->lane;
    if (ci >= p->r.ncores || (unsigned)lane >= DV_PIPE_COUNT)
        return;
    if (lane == DV_PIPE_S) { /* the hooks report these through on_scalar; kept for completeness */
        on_scalar(user, ci, ev->insn, ev->pc, ev->start, ev->end);
        return;
    }
    count(p, ci, lane, ev->pc);
    touch(p, ci, lane, ev->pc, ev->start, ev->end);
    dv_opcode op = ev->insn->op;
    if (op == DV_OP_WAIT_FLAG || op == DV_OP_CC_WAIT_FLAG) {
        if (ev->end > ev->start) {
            bool cc = op == DV_OP_CC_WAIT_FLAG;
            add(p, ci, lane, ev->pc, cc ? DV_PROF_CC_FLAG : DV_PROF_FLAG, ev->start, ev->end);
            if (cc)
                release_of_cc(p, ev->insn, ev->pc, ev->end - ev->start);
            else
                release_of_flag(p, ci, ev->insn, ev->pc, ev->end - ev->start);
        }
        return;
    }
    uint64_t total = ev->end - ev->start;
    uint64_t mem = ev->mem_cycles < total ? ev->mem_cycles : total;
    uint64_t bank = ev->st ? ev->st->ub_bank_conflict_cycles + ev->st->ub_group_conflict_cycles : 0;
    if (bank > total - mem)
        bank = total - mem;
    uint64_t busy = total - mem - bank, t = ev->start;
    add(p, ci, lane, ev->pc, DV_PROF_BUSY, t, t + busy);
    add(p, ci, lane, ev->pc, DV_PROF_BANK, t + busy, t + busy + bank);
    add(p, ci, lane, ev->pc, DV_PROF_MEMORY, t + busy + bank, ev->end);
    lane_state *l = &p->track[ci].lane[lane];
    l->last_parts[0] = busy, l->last_parts[1] = bank, l->last_parts[2] = mem;
}

static void on_flag(void *user, const dv_trace_flag *ev)
{
    dv_profile *p = user;
    if (ev->core >= p->r.ncores || ev->id >= DV_MAX_EVENT_IDS)
        return;
    if (ev->kind == DV_TRACE_FLAG_SET && (unsigned)ev->src < DV_PIPE_COUNT &&
        (unsigned)ev->dst < DV_PIPE_COUNT)
        p->track[ev->core].last_set[ev->src][ev->dst][ev->id] = ev->pc + 1;
    else if (ev->kind == DV_TRACE_CC_SET) {
        p->cc_last_core[ev->id] = ev->core + 1;
        p->cc_last_pc[ev->id] = ev->pc;
    }
}

static void scalar_held(dv_profile *p, unsigned ci, dv_trace_stall_kind kind, dv_pipe pipe, unsigned id,
                        uint64_t pc, uint64_t start, uint64_t end, bool open)
{
    touch(p, ci, DV_PIPE_S, pc, start, end);
    dv_prof_core *c = &p->r.cores[ci];
    switch (kind) {
    case DV_TRACE_STALL_QUEUE_FULL:
        add(p, ci, DV_PIPE_S, pc, DV_PROF_QUEUE_FULL, start, end);
        if ((unsigned)pipe < DV_PIPE_COUNT)
            c->full_by_pipe[pipe] += end > start ? end - start : 0;
        break;
    case DV_TRACE_STALL_FLAG: {
        add(p, ci, DV_PIPE_S, pc, DV_PROF_FLAG, start, end);
        uint64_t set = (unsigned)pipe < DV_PIPE_COUNT && id < DV_MAX_EVENT_IDS
                           ? p->track[ci].last_set[pipe][DV_PIPE_S][id]
                           : 0;
        if (end > start)
            release_add(p, pc,
                        open  ? DV_PROF_REL_NEVER
                        : set ? DV_PROF_REL_SET
                              : DV_PROF_REL_UNKNOWN,
                        ci, !open && set ? set - 1 : 0, end - start);
        break;
    }
    case DV_TRACE_STALL_BARRIER: add(p, ci, DV_PIPE_S, pc, DV_PROF_BARRIER, start, end); break;
    }
}

static void on_stall(void *user, const dv_trace_stall *ev)
{
    dv_profile *p = user;
    if (ev->core < p->r.ncores)
        scalar_held(p, ev->core, ev->kind, ev->pipe, ev->id, ev->pc, ev->start, ev->end, false);
}

/* The instruction at pc (the object's word; the core decoded it). */
static dv_insn insn_at(const dv_obj *obj, uint64_t pc)
{
    dv_insn in;
    memset(&in, 0, sizeof in);
    in.op = DV_OP_NOP;
    if (pc % DV_INSN_BYTES || pc + DV_INSN_BYTES > obj->text_size)
        return in;
    uint64_t w = 0;
    for (int b = 0; b < 8; b++)
        w |= (uint64_t)obj->text[pc + (uint64_t)b] << (8 * b);
    if (dv_isa_decode(w, &in, NULL) != DV_OK)
        in.op = DV_OP_NOP;
    return in;
}

/* A run that stopped inside a lane's last interval: cut it back to the
 * stop, memory first, then bank, then busy. */
static void cut_back(dv_profile *p, unsigned ci, dv_pipe lane, uint64_t stop)
{
    lane_state *l = &p->track[ci].lane[lane];
    uint64_t over = l->free - stop;
    static const dv_prof_class order[3] = {DV_PROF_MEMORY, DV_PROF_BANK, DV_PROF_BUSY};
    static const int part[3] = {2, 1, 0};
    dv_prof_core *c = &p->r.cores[ci];
    size_t idx = (size_t)(l->last_pc / DV_INSN_BYTES);
    int ln = lane == DV_PIPE_S ? DV_PROF_LANE_S : DV_PROF_LANE_PIPE;
    if (lane == DV_PIPE_S)
        l->last_parts[0] = l->free - l->last_start;
    for (int i = 0; i < 3 && over; i++) {
        uint64_t n = l->last_parts[part[i]] < over ? l->last_parts[part[i]] : over;
        c->pipe[lane][order[i]] -= n;
        if (idx < p->r.npcs)
            c->pcs[idx].cycles[order[i]][ln] -= n;
        over -= n;
    }
    l->free = stop;
}

static void on_end(void *user, uint64_t cycles, bool done)
{
    dv_profile *p = user;
    p->r.ended = true;
    p->r.done = done;
    p->r.cycles = cycles;
    for (unsigned ci = 0; ci < p->r.ncores; ci++)
        pend_flush(p, ci);
    fold_hot(p);
    for (unsigned ci = 0; ci < p->r.ncores; ci++) {
        dv_core_info info;
        dv_sim_core_info(p->sim, ci, &info);
        dv_prof_core *c = &p->r.cores[ci];
        uint64_t stop = info.end_cycle;
        c->end_cycle = stop;
        for (int pi = 0; pi < DV_PIPE_COUNT; pi++) {
            dv_pipe lane = (dv_pipe)pi;
            if (!c->has_pipe[pi])
                continue;
            lane_state *l = &p->track[ci].lane[pi];
            /* a wait still open at the stop is a wait that never came, even
             * when the run stopped (a deadlock found) the cycle it began */
            if (lane != DV_PIPE_S && info.pipe_waiting[pi] && stop >= info.pipe_wait_since[pi]) {
                uint64_t pc = info.pipe_wait_pc[pi];
                bool cc = insn_at(p->r.obj, pc).op == DV_OP_CC_WAIT_FLAG;
                if (stop > info.pipe_wait_since[pi]) {
                    touch(p, ci, lane, pc, info.pipe_wait_since[pi], stop);
                    add(p, ci, lane, pc, cc ? DV_PROF_CC_FLAG : DV_PROF_FLAG, info.pipe_wait_since[pi], stop);
                }
                release_add(p, pc, DV_PROF_REL_NEVER, ci, 0, stop - info.pipe_wait_since[pi]);
            }
            if (lane == DV_PIPE_S && info.scalar_held >= 0 && stop > info.scalar_held_since) {
                dv_trace_stall_kind k = (dv_trace_stall_kind)info.scalar_held;
                dv_insn held = insn_at(p->r.obj, info.pc);
                dv_pipe full = k == DV_TRACE_STALL_QUEUE_FULL ? dv_insn_pipe(&held) : DV_PIPE_ALL;
                scalar_held(p, ci, k, full, 0, info.pc, info.scalar_held_since, stop, true);
            }
            if (l->free > stop)
                cut_back(p, ci, lane, stop);
            if (l->free < cycles) {
                if (l->used)
                    add(p, ci, lane, l->last_pc, DV_PROF_IDLE, l->free, cycles);
                else {
                    c->pipe[pi][DV_PROF_IDLE] += cycles - l->free;
                    c->idle_unattributed[pi] += cycles - l->free;
                    bins_add(p, c->kind, lane, 0, DV_PROF_IDLE, l->free, cycles);
                }
                l->free = cycles;
            }
        }
    }
}

dv_profile *dv_profile_create(dv_error *err)
{
    dv_profile *p = calloc(1, sizeof *p);
    if (!p)
        dv_error_set(err, DV_ERR_NOMEM, "out of memory for the profile");
    return p;
}

void dv_profile_destroy(dv_profile *p)
{
    if (!p)
        return;
    free_result(p);
    free(p);
}

dv_status dv_profile_attach(dv_profile *p, dv_sim *sim, dv_error *err)
{
    dv_sim_hooks h = {.user = p,
                      .launch = on_launch,
                      .insn = on_insn,
                      .scalar = on_scalar,
                      .flag = on_flag,
                      .stall = on_stall,
                      .end = on_end};
    return dv_sim_add_hooks(sim, &h, err);
}

const dv_prof_result *dv_profile_result(dv_profile *p)
{
    fold_hot(p);
    return p->r.cores ? &p->r : NULL;
}

dv_status dv_profile_status(const dv_profile *p)
{
    return p->status;
}
