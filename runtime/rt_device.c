/* rt_device.c - devices, device memory, streams and events, and the loop
 * that moves streams on: each stream's head command runs when it can (a
 * launch is issued, a host function called, an event recorded, a wait
 * passed), and the synchronise calls drive the chip's run loop until what
 * they wait for has happened. */
#include "rt_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rt_vc_join(rt_vc *to, const rt_vc *from)
{
    for (unsigned i = 0; i < DV_RT_MAX_STREAMS; i++)
        if (from->c[i] > to->c[i])
            to->c[i] = from->c[i];
}

void rt_defer_error(dv_rt_device *d, const dv_error *err)
{
    if (d->deferred.status == DV_OK)
        d->deferred = *err;
}

dv_status dv_rt_device_open(const dv_chip_config *cfg, const dv_rt_options *opt, dv_rt_device **out,
                            dv_error *err)
{
    *out = NULL;
    dv_rt_device *d = calloc(1, sizeof *d);
    if (!d)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    d->cfg = *cfg;
    d->opt = opt ? *opt : (dv_rt_options){.data = true};
    d->cb_stream = -1;
    d->deferred.status = DV_OK;
    d->sim = dv_sim_create(&d->cfg, d->opt.data, err);
    if (!d->sim) {
        free(d);
        return err->status;
    }
    dv_sim_set_threads(d->sim, d->opt.threads);
    if (d->opt.race_check) {
        dv_status st = rt_race_attach(d, err);
        if (st != DV_OK) {
            dv_rt_device_close(d);
            return st;
        }
    }
    *out = d;
    return DV_OK;
}

static void drop_queue(dv_rt_stream *s)
{
    while (s->head) {
        rt_cmd *c = s->head;
        s->head = c->next;
        rt_cmd_free(c);
    }
    s->tail = NULL;
}

void dv_rt_device_close(dv_rt_device *d)
{
    if (!d)
        return;
    for (unsigned i = 0; i < d->nstreams; i++)
        if (d->streams[i]) {
            drop_queue(d->streams[i]);
            free(d->streams[i]);
        }
    /* the queues first: an operator's run frees its workspaces in the
     * device's GM; a launch still running keeps nothing of its object */
    dv_sim_destroy(d->sim);
    rt_race_free(d);
    free(d->rec);
    free(d->rec_of_launch);
    free(d);
}

dv_sim *dv_rt_device_sim(dv_rt_device *d)
{
    return d->sim;
}

const dv_chip_config *dv_rt_device_config(const dv_rt_device *d)
{
    return &d->cfg;
}

uint64_t dv_rt_device_now(const dv_rt_device *d)
{
    return dv_sim_now(d->sim);
}

dv_status rt_ensure_open(dv_rt_device *d, dv_error *err)
{
    if (d->opened)
        return DV_OK;
    dv_status st = dv_sim_open(d->sim, d->opt.max_cycles, err);
    if (st == DV_OK)
        d->opened = true;
    return st;
}

/* ---- memory ---- */

dv_status dv_rt_malloc(dv_rt_device *d, uint64_t bytes, uint64_t *addr, dv_error *err)
{
    if (bytes == 0)
        return dv_error_set(err, DV_ERR_INPUT, "dv_rt_malloc: 0 bytes");
    return dv_gm_alloc(dv_sim_gm(d->sim), bytes, addr, err);
}

dv_status dv_rt_free(dv_rt_device *d, uint64_t addr, dv_error *err)
{
    if (!dv_gm_free(dv_sim_gm(d->sim), addr))
        return dv_error_set(err, DV_ERR_INPUT, "dv_rt_free: no device buffer starts at 0x%llx",
                            (unsigned long long)addr);
    return DV_OK;
}

static uint8_t *span(dv_rt_device *d, uint64_t addr, uint64_t bytes, const char *what, dv_error *err)
{
    dv_access_fault f;
    uint8_t *p = dv_gm_span(dv_sim_gm(d->sim), addr, bytes, &f);
    if (!p)
        dv_error_set(err, DV_ERR_INPUT, "%s: [0x%llx, +%llu) is not inside one device buffer", what,
                     (unsigned long long)addr, (unsigned long long)bytes);
    return p;
}

dv_status dv_rt_memcpy_h2d(dv_rt_device *d, uint64_t dst, const void *src, uint64_t bytes, dv_error *err)
{
    uint8_t *p = span(d, dst, bytes, "dv_rt_memcpy_h2d", err);
    if (!p)
        return DV_ERR_INPUT;
    memcpy(p, src, (size_t)bytes);
    return DV_OK;
}

dv_status dv_rt_memcpy_d2h(dv_rt_device *d, void *dst, uint64_t src, uint64_t bytes, dv_error *err)
{
    uint8_t *p = span(d, src, bytes, "dv_rt_memcpy_d2h", err);
    if (!p)
        return DV_ERR_INPUT;
    memcpy(dst, p, (size_t)bytes);
    return DV_OK;
}

dv_status dv_rt_memset(dv_rt_device *d, uint64_t addr, int value, uint64_t bytes, dv_error *err)
{
    uint8_t *p = span(d, addr, bytes, "dv_rt_memset", err);
    if (!p)
        return DV_ERR_INPUT;
    memset(p, value, (size_t)bytes);
    return DV_OK;
}

/* ---- streams and events ---- */

dv_status dv_rt_stream_create(dv_rt_device *d, const char *name, dv_rt_stream **out, dv_error *err)
{
    *out = NULL;
    if (d->nstreams == DV_RT_MAX_STREAMS)
        return dv_error_set(err, DV_ERR_INPUT, "at most %d streams on a device", DV_RT_MAX_STREAMS);
    dv_rt_stream *s = calloc(1, sizeof *s);
    if (!s)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    s->d = d;
    s->index = d->nstreams;
    snprintf(s->name, sizeof s->name, "%s", name ? name : "");
    if (!name)
        snprintf(s->name, sizeof s->name, "s%u", s->index);
    s->vc = d->host_vc; /* what the host knows when it makes the stream */
    d->streams[d->nstreams++] = s;
    *out = s;
    return DV_OK;
}

dv_status dv_rt_stream_destroy(dv_rt_stream *s, dv_error *err)
{
    if (!s)
        return DV_OK;
    if (s->head || s->busy)
        return dv_error_set(err, DV_ERR_USAGE, "stream %s still has work queued; synchronise it first",
                            s->name);
    s->d->streams[s->index] = NULL;
    free(s);
    return DV_OK;
}

unsigned dv_rt_stream_index(const dv_rt_stream *s)
{
    return s->index;
}

const char *dv_rt_stream_name(const dv_rt_stream *s)
{
    return s->name;
}

dv_status dv_rt_event_create(dv_rt_device *d, const char *name, dv_rt_event **out, dv_error *err)
{
    dv_rt_event *e = calloc(1, sizeof *e);
    *out = e;
    if (!e)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    e->d = d;
    snprintf(e->name, sizeof e->name, "%s", name ? name : "event");
    return DV_OK;
}

void dv_rt_event_destroy(dv_rt_event *e)
{
    free(e);
}

void rt_enqueue(dv_rt_stream *s, rt_cmd *c)
{
    dv_rt_device *d = s->d;
    c->after = d->cb_stream >= 0 && d->streams[d->cb_stream] ? d->streams[d->cb_stream]->vc : d->host_vc;
    c->next = NULL;
    if (s->tail)
        s->tail->next = c;
    else
        s->head = c;
    s->tail = c;
}

static rt_cmd *new_cmd(rt_cmd_kind kind, dv_error *err)
{
    rt_cmd *c = calloc(1, sizeof *c);
    if (!c)
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    else
        c->kind = kind;
    return c;
}

dv_status dv_rt_event_record(dv_rt_event *e, dv_rt_stream *s, dv_error *err)
{
    rt_cmd *c = new_cmd(CMD_RECORD, err);
    if (!c)
        return DV_ERR_NOMEM;
    c->ev = e;
    c->gen = ++e->gen_enqueued;
    rt_enqueue(s, c);
    return DV_OK;
}

dv_status dv_rt_stream_wait_event(dv_rt_stream *s, dv_rt_event *e, dv_error *err)
{
    if (e->gen_enqueued == 0) /* never recorded: nothing to wait for */
        return DV_OK;
    rt_cmd *c = new_cmd(CMD_WAIT, err);
    if (!c)
        return DV_ERR_NOMEM;
    c->ev = e;
    c->gen = e->gen_enqueued;
    rt_enqueue(s, c);
    return DV_OK;
}

bool dv_rt_event_query(const dv_rt_event *e)
{
    return e->gen_done >= e->gen_enqueued;
}

uint64_t dv_rt_event_cycle(const dv_rt_event *e)
{
    return e->cycle;
}

dv_status dv_rt_launch_host_func(dv_rt_stream *s, dv_rt_host_fn fn, void *user, dv_error *err)
{
    rt_cmd *c = new_cmd(CMD_HOST, err);
    if (!c)
        return DV_ERR_NOMEM;
    c->fn = fn;
    c->user = user;
    rt_enqueue(s, c);
    return DV_OK;
}

/* ---- moving the streams on ---- */

static void pop(dv_rt_stream *s)
{
    rt_cmd *c = s->head;
    s->head = c->next;
    if (!s->head)
        s->tail = NULL;
    rt_cmd_free(c);
}

/* Runs s's head command if it can; true if s moved on. */
static bool step(dv_rt_stream *s)
{
    dv_rt_device *d = s->d;
    rt_cmd *c = s->head;
    if (!c || s->busy || d->halted)
        return false;
    switch (c->kind) {
    case CMD_WAIT:
        if (c->ev->gen_done < c->gen)
            return false;
        rt_vc_join(&s->vc, &c->after);
        rt_vc_join(&s->vc, &c->ev->vc);
        pop(s);
        return true;
    case CMD_RECORD:
        rt_vc_join(&s->vc, &c->after);
        if (c->gen > c->ev->gen_done) {
            c->ev->gen_done = c->gen;
            c->ev->cycle = dv_sim_now(d->sim);
            c->ev->vc = s->vc;
        }
        pop(s);
        return true;
    case CMD_HOST: {
        rt_vc_join(&s->vc, &c->after);
        dv_rt_host_fn fn = c->fn;
        void *user = c->user;
        pop(s); /* before the call: what it enqueues on s comes after it */
        int was = d->cb_stream;
        d->cb_stream = (int)s->index;
        fn(user, d, s);
        d->cb_stream = was;
        return true;
    }
    case CMD_KERNEL:
    case CMD_OP: {
        rt_vc_join(&s->vc, &c->after);
        dv_error err = {DV_OK, ""};
        if (rt_issue(s, c, &err) != DV_OK) {
            rt_defer_error(d, &err);
            pop(s);
            return true;
        }
        s->busy = true;
        return true;
    }
    }
    return false;
}

void rt_pump(dv_rt_device *d)
{
    if (d->pumping)
        return;
    d->pumping = true;
    dv_error err = {DV_OK, ""};
    if (rt_ensure_open(d, &err) != DV_OK) {
        rt_defer_error(d, &err);
        d->halted = true;
    }
    for (bool moved = true; moved;) {
        moved = false;
        for (unsigned i = 0; i < d->nstreams; i++)
            while (d->streams[i] && step(d->streams[i]))
                moved = true;
    }
    d->pumping = false;
}

static bool stream_idle(const dv_rt_stream *s)
{
    return !s->head && !s->busy;
}

/* The streams cannot go on: the first blocked wait, named. */
static dv_status stuck(dv_rt_device *d, dv_error *err)
{
    for (unsigned i = 0; i < d->nstreams; i++) {
        const dv_rt_stream *s = d->streams[i];
        if (s && s->head && s->head->kind == CMD_WAIT)
            return dv_error_set(err, DV_ERR_INPUT,
                                "stream %s waits for event %s, whose record can never complete (it is queued "
                                "behind a wait that cannot be met)",
                                s->name, s->head->ev->name);
    }
    return dv_error_set(err, DV_ERR_INTERNAL, "the streams stopped with work queued");
}

static dv_status take_deferred(dv_rt_device *d, dv_error *err)
{
    if (d->deferred.status == DV_OK)
        return DV_OK;
    if (err)
        *err = d->deferred;
    dv_status st = d->deferred.status;
    d->deferred.status = DV_OK;
    return st;
}

/* Runs the chip until done(d, what) holds, the chip is idle, or it halted. */
static dv_status run_until(dv_rt_device *d, bool (*done)(const dv_rt_device *, const void *),
                           const void *what, dv_error *err)
{
    /* a host function runs inside the chip's run loop: it may enqueue, not wait */
    if (d->pumping || d->cb_stream >= 0)
        return dv_error_set(err, DV_ERR_USAGE,
                            "a host function cannot synchronise (it runs inside the run loop)");
    dv_status st = rt_ensure_open(d, err);
    if (st != DV_OK)
        return st;
    rt_pump(d);
    while (!done(d, what) && !d->halted && d->deferred.status == DV_OK) {
        /* one cycle's events at a time, so that a synchronise returns at
         * the cycle its work ends (the others' work stays in flight) */
        uint64_t next = dv_sim_next_cycle(d->sim);
        dv_error e = {DV_OK, ""};
        bool more = dv_sim_advance(d->sim, next, &e);
        if (e.status != DV_OK)
            return take_deferred(d, err) != DV_OK ? err->status : (*err = e, e.status);
        rt_pump(d);
        if (!more && !done(d, what) && !d->halted) {
            /* idle: nothing on the chip; the streams may still move */
            bool any = false;
            for (unsigned i = 0; i < d->nstreams; i++)
                any |= d->streams[i] && d->streams[i]->busy;
            if (!any && dv_sim_next_cycle(d->sim) == UINT64_MAX && d->deferred.status == DV_OK)
                return stuck(d, err);
        }
    }
    return take_deferred(d, err);
}

static bool stream_done(const dv_rt_device *d, const void *what)
{
    (void)d;
    return stream_idle(what);
}

static bool all_done(const dv_rt_device *d, const void *what)
{
    (void)what;
    for (unsigned i = 0; i < d->nstreams; i++)
        if (d->streams[i] && !stream_idle(d->streams[i]))
            return false;
    return true;
}

static bool event_done(const dv_rt_device *d, const void *what)
{
    (void)d;
    return dv_rt_event_query(what);
}

dv_status dv_rt_stream_synchronize(dv_rt_stream *s, dv_error *err)
{
    dv_status st = run_until(s->d, stream_done, s, err);
    if (st == DV_OK)
        rt_vc_join(&s->d->host_vc, &s->vc);
    return st;
}

dv_status dv_rt_device_synchronize(dv_rt_device *d, dv_error *err)
{
    dv_status st = run_until(d, all_done, NULL, err);
    for (unsigned i = 0; st == DV_OK && i < d->nstreams; i++)
        if (d->streams[i])
            rt_vc_join(&d->host_vc, &d->streams[i]->vc);
    return st;
}

dv_status dv_rt_event_synchronize(dv_rt_event *e, dv_error *err)
{
    dv_status st = run_until(e->d, event_done, e, err);
    if (st == DV_OK)
        rt_vc_join(&e->d->host_vc, &e->vc);
    return st;
}
