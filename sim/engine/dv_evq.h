/* dv_evq.h - the discrete-event queue at the heart of the timing model.
 *
 * Events are ordered by (cycle, priority, rank, insertion order), so the
 * same input always fires the same events in the same order.  The rank is
 * 0 unless the owner sets one (dv_event_set_rank): an event whose rank no
 * other event of its priority shares has a place among equal cycles that
 * does not depend on when it was scheduled (a core's Scalar unit, which
 * can then run ahead of the queue: core_scalar.c).  Events live inside
 * their owners (a pipe, a DMA engine, a sampler): scheduling one allocates
 * nothing.  Time jumps from one event to the next, so idle cycles cost
 * nothing.
 *
 * Two structures hold the events, and the earliest of their two heads fires:
 *   - a calendar of the next DV_EVQ_SLOTS cycles, one list per (cycle,
 *     priority) kept in insertion order by appending (insertion order only
 *     grows), found through a bitmap: the near events (a Scalar step, a pipe
 *     issue), which a launch of many cores has one or more of per simulated
 *     instruction, cost O(1);
 *   - a binary heap for the events further ahead (long completions).
 * The order is exactly that of one heap over every event. */
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
    dv_event *next;      /* in its calendar list */
    dv_event *prev;      /* in its calendar list */
    uint32_t heap_index; /* position in the heap + 1; 0 = not in the heap */
    uint32_t rank;       /* at equal cycle and priority, lower fires first (then seq) */
    uint8_t prio;
    uint8_t where; /* DV_EVQ_NONE, _HEAP or _CALENDAR */
};

enum { DV_EVQ_NONE, DV_EVQ_HEAP, DV_EVQ_CALENDAR };
enum { DV_EVQ_SLOTS = 64, DV_EVQ_PRIOS = 5 }; /* slots: a power of two, one bit each in a uint64_t */

/* One calendar list: events of one (cycle, priority) by (rank, seq). */
typedef struct dv_evq_list {
    dv_event *head, *tail;
} dv_evq_list;

typedef struct dv_evq {
    dv_event **heap; /* the events DV_EVQ_SLOTS cycles or more ahead when scheduled */
    size_t hcount, cap;
    size_t count;                                /* queued events, both structures */
    dv_evq_list cal[DV_EVQ_SLOTS][DV_EVQ_PRIOS]; /* cycle c in slot c % DV_EVQ_SLOTS */
    uint64_t slots;                              /* bit s: slot s holds an event */
    uint8_t prios[DV_EVQ_SLOTS];                 /* bit p: list (s, p) holds an event */
    dv_event *head;                              /* the earliest event, while head_known (NULL: none) */
    bool head_known;
    uint64_t now;       /* cycle of the event being fired or last fired */
    uint32_t last_rank; /* and its rank and priority */
    uint8_t last_prio;
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
    ev->next = ev->prev = NULL;
    ev->heap_index = 0;
    ev->rank = 0;
    ev->prio = 0;
    ev->where = DV_EVQ_NONE;
}

static inline bool dv_event_queued(const dv_event *ev)
{
    return ev->where != DV_EVQ_NONE;
}

/* The rank takes effect at the next dv_evq_schedule (a queued event keeps
 * its place until then). */
static inline void dv_event_set_rank(dv_event *ev, uint32_t rank)
{
    if (!dv_event_queued(ev))
        ev->rank = rank;
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
/* Cycle of the earliest event, or UINT64_MAX if none. */
uint64_t dv_evq_next_cycle(const dv_evq *q);
/* The earliest event (NULL: none), remembered until the queue changes. */
dv_event *dv_evq_first(dv_evq *q);

static inline bool dv_evq_run_ahead(dv_evq *q, uint64_t cycle)
{
    if (cycle > q->limit)
        return false;
    const dv_event *ev = q->head_known ? q->head : dv_evq_first(q);
    if (ev && ev->cycle <= cycle)
        return false;
    q->now = cycle;
    return true;
}

#endif
