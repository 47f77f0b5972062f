/* dv_tcount.c - windowed counters from instruction events. */
#include "dv_tcount.h"

#include <stdlib.h>
#include <string.h>

/* The last instruction of a lane: it may still be running, or have ended
 * inside the current (open) window. */
typedef struct lane_rec {
    uint64_t start, end;
    dv_path path;
    uint64_t bytes;
    uint64_t touched[DV_MEM_KIND_COUNT];
} lane_rec;

typedef struct core_acc {
    lane_rec rec[DV_PIPE_COUNT];
    dv_tcount_window acc; /* contributions of retired records to the open window */
} core_acc;

struct dv_tcount {
    unsigned ncores;
    uint64_t period;
    uint64_t open; /* start of the open window */
    dv_tcount_emit_fn emit;
    void *user;
    core_acc *cores;
};

dv_tcount *dv_tcount_create(unsigned ncores, uint64_t period, dv_tcount_emit_fn emit, void *user)
{
    if (!period)
        return NULL;
    dv_tcount *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->cores = calloc(ncores ? ncores : 1, sizeof *t->cores);
    if (!t->cores) {
        free(t);
        return NULL;
    }
    t->ncores = ncores;
    t->period = period;
    t->emit = emit;
    t->user = user;
    return t;
}

void dv_tcount_destroy(dv_tcount *t)
{
    if (!t)
        return;
    free(t->cores);
    free(t);
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
    uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

/* Adds the part of record r inside [w0, w1) to window w. */
static void add_rec(dv_tcount_window *w, dv_pipe lane, const lane_rec *r, uint64_t w0, uint64_t w1)
{
    uint64_t ov = overlap(r->start, r->end, w0, w1);
    if (!ov)
        return;
    w->busy[lane] += (double)ov;
    if (r->bytes && r->path != DV_PATH_NONE)
        w->path_bytes[r->path] += (double)r->bytes * (double)ov / (double)(r->end - r->start);
    for (int m = 0; m < DV_MEM_KIND_COUNT; m++)
        w->inflight[m] += (double)r->touched[m] * (double)ov;
}

/* True if nothing of any core falls in [from, to). */
static bool all_idle(const dv_tcount *t, uint64_t from, uint64_t to)
{
    for (unsigned c = 0; c < t->ncores; c++) {
        const core_acc *a = &t->cores[c];
        for (int l = 0; l < DV_PIPE_COUNT; l++)
            if (overlap(a->rec[l].start, a->rec[l].end, from, to))
                return false;
    }
    return true;
}

static bool acc_empty(const dv_tcount *t)
{
    static const dv_tcount_window zero;
    for (unsigned c = 0; c < t->ncores; c++) {
        const dv_tcount_window *w = &t->cores[c].acc;
        if (memcmp(w->busy, zero.busy, sizeof zero.busy) ||
            memcmp(w->path_bytes, zero.path_bytes, sizeof zero.path_bytes))
            return false;
    }
    return true;
}

/* Completes the window [w0, w1) for every core. */
static void complete(dv_tcount *t, uint64_t w0, uint64_t w1)
{
    for (unsigned c = 0; c < t->ncores; c++) {
        core_acc *a = &t->cores[c];
        dv_tcount_window w = a->acc;
        w.start = w0;
        w.cycles = w1 - w0;
        for (int l = 0; l < DV_PIPE_COUNT; l++)
            add_rec(&w, (dv_pipe)l, &a->rec[l], w0, w1);
        for (int m = 0; m < DV_MEM_KIND_COUNT; m++)
            w.inflight[m] /= (double)w.cycles;
        if (t->emit)
            t->emit(t->user, c, &w);
        memset(&a->acc, 0, sizeof a->acc);
    }
}

void dv_tcount_advance(dv_tcount *t, uint64_t now)
{
    while (t->open + t->period <= now) {
        uint64_t last = now / t->period * t->period; /* start of the window holding now */
        if (last > t->open && acc_empty(t) && all_idle(t, t->open, last)) {
            complete(t, t->open, last); /* one idle stretch of several periods */
            t->open = last;
            continue;
        }
        complete(t, t->open, t->open + t->period);
        t->open += t->period;
    }
}

void dv_tcount_insn(dv_tcount *t, const dv_trace_insn *ev)
{
    if (ev->core >= t->ncores || (unsigned)ev->lane >= DV_PIPE_COUNT || ev->end <= ev->start)
        return;
    if (ev->lane != DV_PIPE_S && (ev->insn->op == DV_OP_WAIT_FLAG || ev->insn->op == DV_OP_CC_WAIT_FLAG))
        return; /* a pipe blocked, not busy (the Scalar unit's wait_flag is its dispatch) */
    dv_tcount_advance(t, ev->start);
    core_acc *a = &t->cores[ev->core];
    lane_rec *r = &a->rec[ev->lane];
    /* The lane's previous instruction has ended (lanes run one at a time);
     * the windows before the open one already counted it. */
    add_rec(&a->acc, ev->lane, r, t->open, t->open + t->period);
    r->start = ev->start;
    r->end = ev->end;
    r->path = ev->st ? ev->st->path : DV_PATH_NONE;
    r->bytes = ev->st ? ev->st->bytes : 0;
    memcpy(r->touched, ev->touched, sizeof r->touched);
}

void dv_tcount_finish(dv_tcount *t, uint64_t end)
{
    dv_tcount_advance(t, end);
    if (end > t->open) {
        complete(t, t->open, end);
        /* the records' remainder past `end` (a run cut short) is dropped */
        for (unsigned c = 0; c < t->ncores; c++)
            memset(t->cores[c].rec, 0, sizeof t->cores[c].rec);
        t->open = end;
    }
}
