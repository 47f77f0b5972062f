/* dv_perf.c - host-side counters over the cores of a counter source. */
#include "dv_perf.h"

#include <stdlib.h>
#include <string.h>

typedef struct core_counts {
    uint64_t acc[DV_SAMPLE_MAX_EVENTS], base[DV_SAMPLE_MAX_EVENTS];
    uint64_t enabled_acc, enabled_since;
    dv_sample_ring ring;
} core_counts;

struct dv_perf {
    const dv_counter_source *src;
    unsigned n;
    dv_event_id ev[DV_SAMPLE_MAX_EVENTS];
    int only_core; /* -1: all */
    bool enabled;
    core_counts *cores; /* per core of the run, once it started */
    unsigned ncores;
    uint64_t period;
    size_t ring_records;
    void (*on_sample)(dv_perf *, void *);
    void *user;
};

dv_perf *dv_perf_open(const dv_counter_source *src, const char *const *events, unsigned n, int core,
                      dv_error *err)
{
    if (n == 0 || n > DV_SAMPLE_MAX_EVENTS) {
        dv_error_set(err, DV_ERR_USAGE, "a counter group holds 1 to %d events, not %u", DV_SAMPLE_MAX_EVENTS,
                     n);
        return NULL;
    }
    dv_perf *p = calloc(1, sizeof *p);
    if (!p) {
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (unsigned i = 0; i < n; i++) {
        const dv_event_info *e = dv_event_find(events[i]);
        if (!e) {
            dv_error_set(err, DV_ERR_USAGE, "unknown event '%s' (see `dvsim counters`)", events[i]);
            free(p);
            return NULL;
        }
        p->ev[i] = e->id;
    }
    p->src = src;
    p->n = n;
    p->only_core = core;
    return p;
}

void dv_perf_close(dv_perf *p)
{
    if (!p)
        return;
    for (unsigned c = 0; c < p->ncores; c++)
        dv_ring_free(&p->cores[c].ring);
    free(p->cores);
    free(p);
}

unsigned dv_perf_count(const dv_perf *p)
{
    return p->n;
}

dv_event_id dv_perf_event(const dv_perf *p, unsigned i)
{
    return p->ev[i];
}

static bool counted(const dv_perf *p, unsigned c)
{
    return c < p->ncores && (p->only_core < 0 || (unsigned)p->only_core == c);
}

static uint64_t now(const dv_perf *p)
{
    return p->ncores ? p->src->now(p->src->user) : 0;
}

/* The event's value on a core, as a count from the start of the run. */
static uint64_t event_now(const dv_perf *p, unsigned c, unsigned i)
{
    if (c >= p->ncores)
        return 0;
    if (p->ev[i] == DV_EV_CYCLES)
        return p->src->now(p->src->user); /* the run's clock, not the block's */
    return p->src->read(p->src->user, c, p->ev[i]);
}

static uint64_t value(const dv_perf *p, unsigned c, unsigned i)
{
    const core_counts *k = &p->cores[c];
    return k->acc[i] + (p->enabled ? event_now(p, c, i) - k->base[i] : 0);
}

void dv_perf_enable(dv_perf *p)
{
    if (p->enabled)
        return;
    p->enabled = true;
    for (unsigned c = 0; c < p->ncores; c++) {
        for (unsigned i = 0; i < p->n; i++)
            p->cores[c].base[i] = event_now(p, c, i);
        p->cores[c].enabled_since = now(p);
    }
}

void dv_perf_disable(dv_perf *p)
{
    if (!p->enabled)
        return;
    for (unsigned c = 0; c < p->ncores; c++) {
        for (unsigned i = 0; i < p->n; i++)
            p->cores[c].acc[i] = value(p, c, i);
        p->cores[c].enabled_acc += now(p) - p->cores[c].enabled_since;
    }
    p->enabled = false;
}

void dv_perf_reset(dv_perf *p)
{
    for (unsigned c = 0; c < p->ncores; c++) {
        for (unsigned i = 0; i < p->n; i++) {
            p->cores[c].acc[i] = 0;
            p->cores[c].base[i] = event_now(p, c, i);
        }
    }
}

dv_status dv_perf_read(const dv_perf *p, unsigned core, unsigned i, dv_perf_value *v, dv_error *err)
{
    if (!counted(p, core) || i >= p->n)
        return dv_error_set(err, DV_ERR_USAGE, "core %u, counter %u is not in this group", core, i);
    v->value = value(p, core, i);
    v->time_enabled = p->cores[core].enabled_acc + (p->enabled ? now(p) - p->cores[core].enabled_since : 0);
    v->time_running = v->time_enabled;
    return DV_OK;
}

dv_status dv_perf_sample(dv_perf *p, uint64_t period, size_t ring_records,
                         void (*on_sample)(dv_perf *, void *), void *user, dv_error *err)
{
    if (period == 0)
        return dv_error_set(err, DV_ERR_USAGE, "the sampling period must be at least 1 cycle");
    p->period = period;
    p->ring_records = ring_records ? ring_records : 256;
    p->on_sample = on_sample;
    p->user = user;
    return DV_OK;
}

dv_sample_ring *dv_perf_ring(dv_perf *p, unsigned core)
{
    return counted(p, core) && p->period ? &p->cores[core].ring : NULL;
}

uint64_t dv_perf_period(const dv_perf *p)
{
    return p->period;
}

dv_status dv_perf_start(dv_perf *p, dv_error *err)
{
    unsigned n = p->src->ncores(p->src->user);
    p->cores = calloc(n ? n : 1, sizeof *p->cores);
    if (!p->cores)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    p->ncores = n;
    for (unsigned c = 0; p->period && c < n; c++) {
        if (!counted(p, c))
            continue;
        dv_status st = dv_ring_init(&p->cores[c].ring, p->ring_records, err);
        if (st != DV_OK)
            return st;
    }
    bool was = p->enabled;
    p->enabled = false;
    if (was)
        dv_perf_enable(p);
    return DV_OK;
}

void dv_perf_take_samples(dv_perf *p, uint64_t cycle)
{
    for (unsigned c = 0; c < p->ncores; c++) {
        if (!counted(p, c))
            continue;
        dv_sample s;
        s.cycle = cycle;
        s.core = c;
        s.n = p->n;
        for (unsigned i = 0; i < p->n; i++)
            s.values[i] = value(p, c, i);
        dv_ring_push(&p->cores[c].ring, &s);
    }
    if (p->on_sample)
        p->on_sample(p, p->user);
}
