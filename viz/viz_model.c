/* viz_model.c - recording the run for the window. */
#include "viz_model.h"

#include <stdlib.h>
#include <string.h>

/* Slices kept per lane: a fixed budget over every lane of every core. */
static uint32_t ring_capacity(unsigned ncores)
{
    uint64_t cap = (1u << 20) / ((uint64_t)ncores * DV_LANES);
    return (uint32_t)(cap < 512 ? 512 : cap > 65536 ? 65536 : cap);
}

static void push_slice(viz_ring *r, const viz_slice *s)
{
    if (!r->cap)
        return;
    if (r->count == r->cap) {
        r->s[r->head] = *s;
        r->head = (r->head + 1) % r->cap;
    } else {
        r->s[(r->head + r->count) % r->cap] = *s;
        r->count++;
    }
}

uint32_t viz_ring_find(const viz_ring *r, uint64_t cycle)
{
    uint32_t lo = 0, hi = r->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const viz_slice *s = viz_ring_at(r, mid);
        if (s->end > cycle || (s->end == s->start && s->start >= cycle))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

const viz_sample *viz_hist_at(const viz_core *c, uint32_t back)
{
    if (back >= c->hist_count)
        return NULL;
    return &c->hist[(c->hist_head + c->hist_count - 1 - back) % VIZ_HISTORY];
}

static void push_sample(viz_core *c, const viz_sample *s)
{
    if (c->hist_count == VIZ_HISTORY) {
        c->hist[c->hist_head] = *s;
        c->hist_head = (c->hist_head + 1) % VIZ_HISTORY;
    } else {
        c->hist[(c->hist_head + c->hist_count) % VIZ_HISTORY] = *s;
        c->hist_count++;
    }
}

static void on_window(void *user, unsigned core, const dv_tcount_window *w)
{
    viz_model *m = user;
    if (core >= m->ncores)
        return;
    viz_core *c = &m->cores[core];
    viz_sample s;
    memset(&s, 0, sizeof s);
    s.cycles = m->period;
    /* an idle stretch of several periods becomes that many empty samples */
    uint64_t n = w->cycles / m->period, first = 0;
    if (n > VIZ_HISTORY)
        first = n - VIZ_HISTORY;
    if (n > 1) {
        for (uint64_t i = first; i < n; i++) {
            s.start = w->start + i * m->period;
            push_sample(c, &s);
        }
        return;
    }
    s.start = w->start;
    s.cycles = w->cycles;
    double cyc = (double)w->cycles;
    for (int l = 0; l < DV_PIPE_COUNT; l++)
        s.busy[l] = (float)(w->busy[l] / cyc);
    for (int p = 0; p < DV_PATH_COUNT; p++)
        s.bw[p] = (float)(w->path_bytes[p] / cyc);
    for (int k = 0; k < DV_MEM_KIND_COUNT; k++) {
        s.inflight[k] = (float)w->inflight[k];
        if ((uint64_t)w->inflight[k] > c->peak_inflight[k])
            c->peak_inflight[k] = (uint64_t)w->inflight[k];
    }
    push_sample(c, &s);
}

static dv_status on_launch(void *user, const dv_sim *sim, dv_error *err)
{
    (void)err; /* a model that cannot be built is m->failed: the window says so */
    viz_model *m = user;
    m->sim = sim;
    m->cfg = dv_sim_config(sim);
    m->ncores = dv_sim_ncores(sim);
    m->cores = calloc(m->ncores ? m->ncores : 1, sizeof *m->cores);
    m->counters = dv_tcount_create(m->ncores, m->period, on_window, m);
    uint32_t cap = ring_capacity(m->ncores);
    bool ok = m->cores && m->counters;
    for (unsigned i = 0; ok && i < m->ncores; i++) {
        for (int l = 0; l < DV_LANES; l++) {
            viz_ring *r = &m->cores[i].lanes[l];
            r->s = malloc((size_t)cap * sizeof *r->s);
            r->cap = r->s ? cap : 0;
            ok = ok && r->s;
        }
    }
    if (!ok) {
        m->failed = true;
        viz_model_free(m);
    }
    return DV_OK;
}

static void on_block(void *user, unsigned core, uint64_t block_idx, uint64_t cycle)
{
    viz_model *m = user;
    (void)cycle;
    if (core < m->ncores)
        m->cores[core].block = block_idx;
}

static void on_insn(void *user, const dv_trace_insn *ev)
{
    viz_model *m = user;
    if (ev->core >= m->ncores || (unsigned)ev->lane >= DV_PIPE_COUNT)
        return;
    dv_tcount_insn(m->counters, ev);
    viz_core *c = &m->cores[ev->core];
    viz_slice s = {ev->start, ev->end, (uint32_t)ev->pc, (uint16_t)ev->insn->op, VIZ_K_UNIT, 0};
    dv_opcode op = ev->insn->op;
    if (op == DV_OP_WAIT_FLAG || op == DV_OP_CC_WAIT_FLAG)
        s.kind = VIZ_K_WAIT;
    else if (op == DV_OP_SET_FLAG || op == DV_OP_CC_SET_FLAG)
        s.kind = VIZ_K_SET;
    else if (ev->lane == DV_PIPE_S)
        s.kind = dv_isa_info(op)->pipe == DV_PIPE_S ? VIZ_K_SCALAR : VIZ_K_DISPATCH;
    push_slice(&c->lanes[ev->lane], &s);
    c->insns++;
}

static void on_flag(void *user, const dv_trace_flag *ev)
{
    viz_model *m = user;
    if (ev->core >= m->ncores || (ev->kind != DV_TRACE_FLAG_SET && ev->kind != DV_TRACE_FLAG_WAIT) ||
        (unsigned)ev->src >= DV_PIPE_COUNT || (unsigned)ev->dst >= DV_PIPE_COUNT ||
        ev->id >= DV_MAX_EVENT_IDS)
        return;
    viz_core *c = &m->cores[ev->core];
    unsigned fi = ((unsigned)ev->src * DV_PIPE_COUNT + (unsigned)ev->dst) * DV_MAX_EVENT_IDS + ev->id;
    if (ev->kind == DV_TRACE_FLAG_SET) {
        c->pending_set[fi] = ev->cycle + 1;
        c->pending_lane[fi] = (uint8_t)ev->lane;
        return;
    }
    if (!c->pending_set[fi])
        return;
    viz_flow f = {c->pending_set[fi] - 1, ev->cycle, c->pending_lane[fi], (uint8_t)ev->lane};
    c->pending_set[fi] = 0;
    if (c->flow_count == VIZ_FLOWS) {
        c->flows[c->flow_head] = f;
        c->flow_head = (c->flow_head + 1) % VIZ_FLOWS;
    } else {
        c->flows[(c->flow_head + c->flow_count) % VIZ_FLOWS] = f;
        c->flow_count++;
    }
}

static void on_stall(void *user, const dv_trace_stall *ev)
{
    viz_model *m = user;
    if (ev->core >= m->ncores)
        return;
    viz_slice s = {ev->start, ev->end, (uint32_t)ev->pc, (uint16_t)ev->kind, VIZ_K_STALL, (uint8_t)ev->pipe};
    push_slice(&m->cores[ev->core].lanes[DV_LANE_FLOWCTRL], &s);
}

void viz_model_init(viz_model *m, uint64_t period)
{
    memset(m, 0, sizeof *m);
    m->period = period ? period : 256;
    m->hooks = (dv_sim_hooks){.user = m,
                              .launch = on_launch,
                              .block = on_block,
                              .insn = on_insn,
                              .flag = on_flag,
                              .stall = on_stall};
}

void viz_model_finish(viz_model *m, uint64_t end)
{
    if (m->counters)
        dv_tcount_finish(m->counters, end);
}

void viz_model_free(viz_model *m)
{
    for (unsigned i = 0; m->cores && i < m->ncores; i++)
        for (int l = 0; l < DV_LANES; l++)
            free(m->cores[i].lanes[l].s);
    free(m->cores);
    m->cores = NULL;
    m->ncores = 0;
    dv_tcount_destroy(m->counters);
    m->counters = NULL;
}
