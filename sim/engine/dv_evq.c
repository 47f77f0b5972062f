#include "dv_evq.h"

#include <stdlib.h>
#include <string.h>

void dv_evq_init(dv_evq *q, void *ctx)
{
    memset(q, 0, sizeof *q);
    q->limit = UINT64_MAX;
    q->ctx = ctx;
}

void dv_evq_destroy(dv_evq *q)
{
    for (size_t i = 0; i < q->hcount; i++) {
        q->heap[i]->heap_index = 0;
        q->heap[i]->where = DV_EVQ_NONE;
    }
    for (unsigned s = 0; s < DV_EVQ_SLOTS; s++)
        for (unsigned p = 0; p < DV_EVQ_PRIOS; p++)
            for (dv_event *e = q->cal[s][p].head; e; e = e->next)
                e->where = DV_EVQ_NONE;
    free(q->heap);
    void *ctx = q->ctx;
    dv_evq_init(q, ctx);
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
    if (a->rank != b->rank)
        return a->rank < b->rank;
    return a->seq < b->seq;
}

/* ---- the heap of the far events ---- */

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
        if (child >= q->hcount)
            break;
        if (child + 1 < q->hcount && before(q->heap[child + 1], q->heap[child]))
            child++;
        if (!before(q->heap[child], ev))
            break;
        place(q, i, q->heap[child]);
        i = child;
    }
    place(q, i, ev);
}

static void heap_remove(dv_evq *q, dv_event *ev)
{
    size_t i = (size_t)ev->heap_index - 1;
    ev->heap_index = 0;
    q->hcount--;
    if (i == q->hcount)
        return;
    place(q, i, q->heap[q->hcount]);
    sift_down(q, i);
    sift_up(q, (size_t)q->heap[i]->heap_index - 1);
}

/* ---- the calendar of the near events ---- */

/* ev has the highest seq yet: it goes after the last event of its rank or
 * lower (at the tail, unless it is ranked below events already there). */
static void cal_insert(dv_evq *q, dv_event *ev)
{
    unsigned s = (unsigned)(ev->cycle % DV_EVQ_SLOTS);
    dv_evq_list *l = &q->cal[s][ev->prio];
    dv_event *after = l->tail;
    while (after && after->rank > ev->rank)
        after = after->prev;
    ev->prev = after;
    ev->next = after ? after->next : l->head;
    if (ev->next)
        ev->next->prev = ev;
    else
        l->tail = ev;
    if (after)
        after->next = ev;
    else
        l->head = ev;
    q->prios[s] |= (uint8_t)(1u << ev->prio);
    q->slots |= 1ull << s;
}

static void cal_remove(dv_evq *q, dv_event *ev)
{
    unsigned s = (unsigned)(ev->cycle % DV_EVQ_SLOTS);
    dv_evq_list *l = &q->cal[s][ev->prio];
    if (ev->prev)
        ev->prev->next = ev->next;
    else
        l->head = ev->next;
    if (ev->next)
        ev->next->prev = ev->prev;
    else
        l->tail = ev->prev;
    ev->next = ev->prev = NULL;
    if (!l->head) {
        q->prios[s] &= (uint8_t) ~(1u << ev->prio);
        if (!q->prios[s])
            q->slots &= ~(1ull << s);
    }
}

/* The calendar's earliest event: every one of its events is in [now, now +
 * DV_EVQ_SLOTS), so the first slot at or after now's, going round, holds
 * the earliest cycle, and its lowest priority list the earliest event. */
static dv_event *cal_first(const dv_evq *q)
{
    if (!q->slots)
        return NULL;
    unsigned base = (unsigned)(q->now % DV_EVQ_SLOTS);
    uint64_t rot = base ? (q->slots >> base) | (q->slots << (DV_EVQ_SLOTS - base)) : q->slots;
    unsigned s = (base + (unsigned)__builtin_ctzll(rot)) % DV_EVQ_SLOTS;
    return q->cal[s][__builtin_ctz(q->prios[s])].head;
}

static dv_event *first(const dv_evq *q)
{
    if (q->head_known)
        return q->head;
    dv_event *c = cal_first(q), *h = q->hcount ? q->heap[0] : NULL;
    if (!c)
        return h;
    return h && before(h, c) ? h : c;
}

dv_event *dv_evq_first(dv_evq *q)
{
    q->head = first(q);
    q->head_known = true;
    return q->head;
}

static void unqueue(dv_evq *q, dv_event *ev)
{
    if (ev->where == DV_EVQ_HEAP)
        heap_remove(q, ev);
    else
        cal_remove(q, ev);
    ev->where = DV_EVQ_NONE;
    q->count--;
    if (q->head == ev)
        q->head_known = false;
}

/* ev was just queued: it is the new head if it comes before the old one. */
static void queued(dv_evq *q, dv_event *ev)
{
    q->count++;
    if (q->head_known && q->head && before(q->head, ev))
        return;
    if (q->head_known || q->count == 1) {
        q->head = ev;
        q->head_known = true;
    }
}

dv_status dv_evq_schedule(dv_evq *q, dv_event *ev, uint64_t cycle, dv_evprio prio, dv_error *err)
{
    if (ev->where != DV_EVQ_NONE)
        unqueue(q, ev);
    ev->cycle = cycle < q->now ? q->now : cycle;
    ev->prio = (uint8_t)prio;
    if (ev->cycle - q->now < DV_EVQ_SLOTS) {
        ev->seq = q->next_seq++;
        ev->where = DV_EVQ_CALENDAR;
        cal_insert(q, ev);
        queued(q, ev);
        return DV_OK;
    }
    if (q->hcount == q->cap) {
        dv_status st = dv_evq_reserve(q, q->cap ? q->cap * 2 : 64, err);
        if (st != DV_OK)
            return st;
    }
    ev->seq = q->next_seq++;
    ev->where = DV_EVQ_HEAP;
    place(q, q->hcount, ev);
    q->hcount++;
    sift_up(q, q->hcount - 1);
    queued(q, ev);
    return DV_OK;
}

void dv_evq_cancel(dv_evq *q, dv_event *ev)
{
    if (ev->where != DV_EVQ_NONE)
        unqueue(q, ev);
}

uint64_t dv_evq_next_cycle(const dv_evq *q)
{
    const dv_event *ev = first(q);
    return ev ? ev->cycle : UINT64_MAX;
}

/* Removes the earliest event ev.  When it came from a calendar list that
 * holds more, the next of that list is the new earliest of the calendar:
 * it has the same cycle and priority, and nothing else in the calendar
 * comes between.  Only a heap event of that cycle and priority, ranked
 * between the two, can: a heap event is compared. */
static void pop_first(dv_evq *q, dv_event *ev)
{
    dv_event *next = ev->where == DV_EVQ_CALENDAR ? ev->next : NULL;
    unqueue(q, ev);
    if (next) {
        q->head = q->hcount && before(q->heap[0], next) ? q->heap[0] : next;
        q->head_known = true;
    }
}

bool dv_evq_step(dv_evq *q)
{
    dv_event *ev = dv_evq_first(q);
    if (!ev)
        return false;
    pop_first(q, ev);
    q->now = ev->cycle;
    q->last_rank = ev->rank;
    q->last_prio = ev->prio;
    ev->fire(ev, q->ctx);
    return true;
}

uint64_t dv_evq_run_until(dv_evq *q, uint64_t limit)
{
    uint64_t fired = 0;
    for (dv_event *ev; (ev = dv_evq_first(q)) && ev->cycle <= limit; fired++) {
        pop_first(q, ev);
        q->now = ev->cycle;
        q->last_rank = ev->rank;
        q->last_prio = ev->prio;
        ev->fire(ev, q->ctx);
    }
    return fired;
}
