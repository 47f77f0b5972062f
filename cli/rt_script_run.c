/* rt_script_run.c - running a parsed dvsim rt script on a device: each
 * line in order (declarations make streams, events and buffers; launches,
 * records and waits enqueue; sync and dump wait), callbacks as host
 * functions of the runtime. */
#include "dv_file.h"
#include "rt_script_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dv_status run_line(rt_script *s, const rt_line *l, dv_error *err);

static void on_callback(void *user, dv_rt_device *d, dv_rt_stream *st)
{
    (void)d;
    rt_cb *cb = user;
    rt_script *s = cb->s;
    dv_error e = {DV_OK, ""};
    if (s->cb_err.status != DV_OK)
        return;
    if (run_line(s, cb->line->sub, &e) == DV_OK && --cb->left > 0)
        dv_rt_launch_host_func(st, on_callback, cb, &e); /* the next of the chain, behind what it enqueued */
    if (e.status != DV_OK) {
        s->cb_err = e;
        s->cb_line = cb->line->lineno;
    }
}

static dv_status run_line(rt_script *s, const rt_line *l, dv_error *err)
{
    dv_rt_device *d = s->d;
    dv_status st = DV_OK;
    switch (l->kind) {
    case L_STREAM: {
        unsigned i = s->nstreams++;
        return dv_rt_stream_create(d, s->streams[i], &s->st[i], err);
    }
    case L_EVENT: {
        unsigned i = s->nevents++;
        return dv_rt_event_create(d, s->events[i], &s->ev[i], err);
    }
    case L_BUF: {
        rt_buf *b = &s->bufs[l->buf];
        if ((st = dv_rt_malloc(d, b->bytes, &b->addr, err)) != DV_OK)
            return st;
        uint8_t *h = malloc((size_t)b->bytes);
        if (!h)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        memset(h, 0, (size_t)b->bytes);
        if (b->fill == FILL_RANDOM) {
            uint64_t x = b->seed * 0x9e3779b97f4a7c15ull + 1;
            for (uint64_t i = 0; i < b->bytes; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                h[i] = (uint8_t)(x >> 24);
            }
        } else if (b->fill == FILL_FILE) {
            FILE *f = fopen(b->path, "rb");
            size_t got = f ? fread(h, 1, (size_t)b->bytes, f) : 0;
            if (f)
                fclose(f);
            if (got != b->bytes) {
                free(h);
                return dv_error_set(err, DV_ERR_IO, "cannot read %s", b->path);
            }
        }
        st = dv_rt_memcpy_h2d(d, b->addr, h, b->bytes, err);
        free(h);
        return st;
    }
    case L_OP: {
        dv_rt_op_launch op = {.op = l->op,
                              .req = {.shape = l->shape,
                                      .variant = l->variant[0] ? l->variant : NULL,
                                      .dtype = l->dtype[0] ? l->dtype : NULL,
                                      .seed = l->seed,
                                      .blocks = l->blocks},
                              .cores = l->has_cores ? &l->cores : NULL,
                              .check = l->check,
                              .nbound = l->nbind};
        for (unsigned i = 0; i < l->nbind; i++) {
            op.name[i] = l->bind_name[i];
            op.addr[i] = s->bufs[l->bind_buf[i]].addr;
        }
        return dv_rt_launch_op(s->st[l->stream], &op, NULL, err);
    }
    case L_KERNEL: {
        dv_rt_kernel_launch k = {.obj = s->objs[l->obj].obj,
                                 .kernel = l->entry,
                                 .blocks = l->blocks,
                                 .cores = l->has_cores ? &l->cores : NULL};
        for (unsigned i = 0; i < l->nargs; i++)
            k.args[i] = l->args[i].buf >= 0 ? s->bufs[l->args[i].buf].addr + l->args[i].v : l->args[i].v;
        return dv_rt_launch_kernel(s->st[l->stream], &k, NULL, err);
    }
    case L_RECORD: return dv_rt_event_record(s->ev[l->event], s->st[l->stream], err);
    case L_WAIT: return dv_rt_stream_wait_event(s->st[l->stream], s->ev[l->event], err);
    case L_CALLBACK: {
        if (s->ncbs == s->capcbs) {
            unsigned cap = s->capcbs ? 2 * s->capcbs : 16;
            rt_cb **p = realloc(s->cbs, cap * sizeof *p);
            if (!p)
                return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
            s->cbs = p;
            s->capcbs = cap;
        }
        rt_cb *cb = calloc(1, sizeof *cb);
        if (!cb)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        *cb = (rt_cb){.s = s, .line = l, .left = l->repeat};
        s->cbs[s->ncbs++] = cb;
        return dv_rt_launch_host_func(s->st[l->stream], on_callback, cb, err);
    }
    case L_SYNC:
        if (l->stream >= 0)
            return dv_rt_stream_synchronize(s->st[l->stream], err);
        if (l->event >= 0)
            return dv_rt_event_synchronize(s->ev[l->event], err);
        return dv_rt_device_synchronize(d, err);
    case L_DUMP: {
        if ((st = dv_rt_device_synchronize(d, err)) != DV_OK)
            return st;
        const rt_buf *b = &s->bufs[l->buf];
        uint8_t *h = malloc((size_t)b->bytes);
        if (!h)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        st = dv_rt_memcpy_d2h(d, h, b->addr, b->bytes, err);
        if (st == DV_OK)
            st = dv_write_file_atomic(l->path, h, (size_t)b->bytes, err);
        free(h);
        return st;
    }
    }
    return DV_OK;
}

dv_status rt_script_run(rt_script *s, dv_rt_device *d, dv_error *err)
{
    s->d = d;
    s->nstreams = s->nevents = 0; /* counted again as the declarations run */
    s->cb_err.status = DV_OK;
    dv_status st = DV_OK;
    unsigned at = 0;
    for (unsigned i = 0; st == DV_OK && i < s->n; i++) {
        at = s->lines[i].lineno;
        st = run_line(s, &s->lines[i], err);
        if (st == DV_OK && s->cb_err.status != DV_OK)
            break;
    }
    if (st == DV_OK && s->cb_err.status == DV_OK)
        st = dv_rt_device_synchronize(d, err);
    if (st == DV_OK && s->cb_err.status != DV_OK) {
        *err = s->cb_err;
        st = err->status;
        at = s->cb_line;
    }
    if (st != DV_OK) {
        char msg[DV_ERROR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        dv_error_set(err, st, "%s:%u: %s", s->path, at, msg);
    }
    return st;
}
