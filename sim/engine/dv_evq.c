#include "dv_evq.h"

#include <stdlib.h>

void dv_evq_init(dv_evq *q, void *ctx)
{
    q->heap = NULL;
    q->count = q->cap = 0;
    q->now = 0;
    q->limit = UINT64_MAX;
    q->next_seq = 0;
    q->ctx = ctx;
}

void dv_evq_destroy(dv_evq *q)
{
    for (size_t i = 0; i < q->count; i++)
        q->heap[i]->heap_index = 0;
    free(q->heap);
    q->heap = NULL;
    q->count = q->cap = 0;
}

dv_status dv_evq_reserve(dv_evq *q, size_t n, dv_error *err)
{
    if (n <= q->cap)
        return DV_OK;
    dv_event **p = realloc(q->heap, n * sizeof *p);
    if (!p)
        return dv_error_set(err, DV_ERR_NOMEM, "event queue: out of memory for %zu events", n);
    q->heap = p;
    q->cap = n;
    return DV_OK;
}

static bool before(const dv_event *a, const dv_event *b)
{
    if (a->cycle != b->cycle)
        return a->cycle < b->cycle;
    if (a->prio != b->prio)
        return a->prio < b->prio;
    return a->seq < b->seq;
}

static void place(dv_evq *q, size_t i, dv_event *ev)
{
    q->heap[i] = ev;
    ev->heap_index = (uint32_t)(i + 1);
}

static void sift_up(dv_evq *q, size_t i)
{
    dv_event *ev = q->heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(ev, q->heap[parent]))
            break;
        place(q, i, q->heap[parent]);
        i = parent;
    }
    place(q, i, ev);
}

static void sift_down(dv_evq *q, size_t i)
{
    dv_event *ev = q->heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= q->count)
            break;
        if (child + 1 < q->count && before(q->heap[child + 1], q->heap[child]))
            child++;
        if (!before(q->heap[child], ev))
            break;
        place(q, i, q->heap[child]);
        i = child;
    }
    place(q, i, ev);
}

static void remove_at(dv_evq *q, size_t i)
{
    dv_event *ev = q->heap[i];
    ev->heap_index = 0;
    q->count--;
    if (i == q->count)
        return;
    place(q, i, q->heap[q->count]);
    sift_down(q, i);
    sift_up(q, (size_t)q->heap[i]->heap_index - 1);
}

dv_status dv_evq_schedule(dv_evq *q, dv_event *ev, uint64_t cycle, dv_evprio prio, dv_error *err)
{
    if (ev->heap_index)
        remove_at(q, ev->heap_index - 1);
    if (q->count == q->cap) {
        dv_status st = dv_evq_reserve(q, q->cap ? q->cap * 2 : 64, err);
        if (st != DV_OK)
            return st;
    }
    ev->cycle = cycle < q->now ? q->now : cycle;
    ev->prio = (uint8_t)prio;
    ev->seq = q->next_seq++;
    place(q, q->count, ev);
    q->count++;
    sift_up(q, q->count - 1);
    return DV_OK;
}

void dv_evq_cancel(dv_evq *q, dv_event *ev)
{
    if (ev->heap_index)
        remove_at(q, ev->heap_index - 1);
}

uint64_t dv_evq_next_cycle(const dv_evq *q)
{
    return q->count ? q->heap[0]->cycle : UINT64_MAX;
}

bool dv_evq_step(dv_evq *q)
{
    if (!q->count)
        return false;
    dv_event *ev = q->heap[0];
    remove_at(q, 0);
    q->now = ev->cycle;
    ev->fire(ev, q->ctx);
    return true;
}

uint64_t dv_evq_run_until(dv_evq *q, uint64_t limit)
{
    uint64_t fired = 0;
    while (q->count && q->heap[0]->cycle <= limit) {
        dv_evq_step(q);
        fired++;
    }
    return fired;
}
