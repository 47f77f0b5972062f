/* dv_evq.h - the discrete-event queue at the heart of the timing model.
 *
 * Events are ordered by (cycle, priority, insertion order), so the same
 * input always fires the same events in the same order.  Events live inside
 * their owners (a pipe, a DMA engine, a sampler): scheduling one allocates
 * nothing; the queue only keeps pointers in a binary heap.  Time jumps from
 * one event to the next, so idle cycles cost nothing. */
#ifndef DV_EVQ_H
#define DV_EVQ_H

#include "dv_status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Named priorities: at equal cycles, lower fires first.  Completions come
 * before the flag updates they cause, and those before new issues, so work
 * that finishes at cycle t is visible to work that starts at cycle t. */
typedef enum dv_evprio {
    DV_PRIO_COMPLETE = 0, /* a unit or transfer finishes */
    DV_PRIO_FLAG = 1,     /* a flag is set or a cross-core counter changes */
    DV_PRIO_ISSUE = 2,    /* a pipe looks at the head of its queue */
    DV_PRIO_SCALAR = 3,   /* the Scalar unit fetches and dispatches */
    DV_PRIO_SAMPLE = 4,   /* counter sampling and tracing see the settled state */
} dv_evprio;

typedef struct dv_event dv_event;
typedef void (*dv_event_fn)(dv_event *ev, void *ctx);

struct dv_event {
    dv_event_fn fire;    /* called with the queue's context when the event fires */
    uint64_t cycle;      /* when it fires (valid while queued) */
    uint64_t seq;        /* insertion order, assigned by dv_evq_schedule */
    uint32_t heap_index; /* position in the heap + 1; 0 = not queued */
    uint8_t prio;
};

typedef struct dv_evq {
    dv_event **heap;
    size_t count, cap;
    uint64_t now;   /* cycle of the event being fired or last fired */
    uint64_t limit; /* the run's horizon: an event may run ahead (dv_evq_run_ahead) up to here */
    uint64_t next_seq;
    void *ctx; /* passed to every fire function */
} dv_evq;

void dv_evq_init(dv_evq *q, void *ctx);
void dv_evq_destroy(dv_evq *q);
/* Reserves room for n queued events, so later scheduling never allocates. */
dv_status dv_evq_reserve(dv_evq *q, size_t n, dv_error *err);

static inline void dv_event_init(dv_event *ev, dv_event_fn fire)
{
    ev->fire = fire;
    ev->cycle = 0;
    ev->seq = 0;
    ev->heap_index = 0;
    ev->prio = 0;
}

static inline bool dv_event_queued(const dv_event *ev)
{
    return ev->heap_index != 0;
}

/* Queues ev to fire at `cycle` (>= now).  An event already queued is moved
 * (and counts as inserted now).  Fails only if the heap cannot grow. */
dv_status dv_evq_schedule(dv_evq *q, dv_event *ev, uint64_t cycle, dv_evprio prio, dv_error *err);
/* Removes ev if queued. */
void dv_evq_cancel(dv_evq *q, dv_event *ev);
/* Fires the earliest event; false if the queue is empty. */
bool dv_evq_step(dv_evq *q);
/* Fires events while the earliest is at or before `limit`; returns how many. */
uint64_t dv_evq_run_until(dv_evq *q, uint64_t limit);
/* While an event fires: true if its owner may go on to `cycle` in the same
 * firing instead of rescheduling itself, because no other event can fire
 * before then (the earliest is later, not equal: equal cycles fire in
 * priority and insertion order) and the run's horizon allows it; then moves
 * now to `cycle`.  The result is the same as firing again at `cycle`. */
static inline bool dv_evq_run_ahead(dv_evq *q, uint64_t cycle)
{
    if (cycle > q->limit || (q->count && q->heap[0]->cycle <= cycle))
        return false;
    q->now = cycle;
    return true;
}

/* Cycle of the earliest event, or UINT64_MAX if none. */
uint64_t dv_evq_next_cycle(const dv_evq *q);

#endif
