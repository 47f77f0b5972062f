/* test_evq.c - the event queue fires by (cycle, priority, rank, insertion order). */
#include "dv_evq.h"
#include "dv_test_main.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

enum { N = 2000 };

typedef struct rec {
    dv_event ev;
    int id;
    uint64_t cycle;
    int prio;
    unsigned rank;
    int order; /* insertion order */
} rec;

typedef struct log_ctx {
    int fired[N];
    int n;
    uint64_t when[N];
    dv_evq *q;
} log_ctx;

static void on_fire(dv_event *ev, void *ctx)
{
    log_ctx *lc = ctx;
    rec *r = (rec *)ev;
    lc->when[lc->n] = lc->q->now;
    lc->fired[lc->n++] = r->id;
}

static int cmp_expected(const void *x, const void *y)
{
    const rec *a = x, *b = y;
    if (a->cycle != b->cycle)
        return a->cycle < b->cycle ? -1 : 1;
    if (a->prio != b->prio)
        return a->prio - b->prio;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->order - b->order;
}

START_TEST(test_shuffled_order)
{
    static rec recs[N], expect[N];
    static log_ctx lc;
    dv_evq q;
    lc.n = 0;
    lc.q = &q;
    dv_evq_init(&q, &lc);
    uint32_t s = 12345;
    for (int i = 0; i < N; i++) {
        s = s * 1103515245u + 12345u;
        recs[i].id = i;
        recs[i].cycle = (s >> 16) % 97; /* many ties on cycle */
        s = s * 1103515245u + 12345u;
        recs[i].prio = (int)((s >> 16) % 5);
        s = s * 1103515245u + 12345u;
        recs[i].rank = i % 3 ? 0 : (s >> 16) % 7; /* most unranked, as in a simulation */
        dv_event_init(&recs[i].ev, on_fire);
        dv_event_set_rank(&recs[i].ev, recs[i].rank);
    }
    /* schedule in a shuffled order; insertion order = position in that order */
    int perm[N];
    for (int i = 0; i < N; i++)
        perm[i] = i;
    for (int i = N - 1; i > 0; i--) {
        s = s * 1103515245u + 12345u;
        int j = (int)((s >> 16) % (uint32_t)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int k = 0; k < N; k++) {
        rec *r = &recs[perm[k]];
        r->order = k;
        ck_assert_int_eq(dv_evq_schedule(&q, &r->ev, r->cycle, (dv_evprio)r->prio, NULL), DV_OK);
    }
    for (int i = 0; i < N; i++)
        expect[i] = recs[i];
    qsort(expect, N, sizeof *expect, cmp_expected);
    while (dv_evq_step(&q))
        ;
    ck_assert_int_eq(lc.n, N);
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(lc.fired[i], expect[i].id);
        ck_assert_uint_eq(lc.when[i], expect[i].cycle);
    }
    dv_evq_destroy(&q);
}
END_TEST

/* A queue logging into lc, and four events r[0..3] with ids 0..3. */
static void four_events(dv_evq *q, log_ctx *lc, rec *r)
{
    lc->n = 0;
    lc->q = q;
    dv_evq_init(q, lc);
    for (int i = 0; i < 4; i++) {
        r[i].id = i;
        dv_event_init(&r[i].ev, on_fire);
    }
}

START_TEST(test_reschedule_cancel_run_until)
{
    static rec r[4];
    static log_ctx lc;
    dv_evq q;
    four_events(&q, &lc, r);
    ck_assert_int_eq(dv_evq_reserve(&q, 4, NULL), DV_OK);
    dv_evq_schedule(&q, &r[0].ev, 10, DV_PRIO_ISSUE, NULL);
    dv_evq_schedule(&q, &r[1].ev, 10, DV_PRIO_COMPLETE, NULL);
    dv_evq_schedule(&q, &r[2].ev, 5, DV_PRIO_ISSUE, NULL);
    dv_evq_schedule(&q, &r[3].ev, 7, DV_PRIO_ISSUE, NULL);
    /* moving an event counts as a new insertion: r2 now fires after r0 */
    dv_evq_schedule(&q, &r[2].ev, 10, DV_PRIO_ISSUE, NULL);
    dv_evq_cancel(&q, &r[3].ev);
    ck_assert(!dv_event_queued(&r[3].ev));
    ck_assert_uint_eq(dv_evq_next_cycle(&q), 10);
    ck_assert_uint_eq(dv_evq_run_until(&q, 9), 0);
    ck_assert_uint_eq(dv_evq_run_until(&q, 10), 3);
    ck_assert_int_eq(lc.n, 3);
    ck_assert_int_eq(lc.fired[0], 1); /* COMPLETE before ISSUE at the same cycle */
    ck_assert_int_eq(lc.fired[1], 0);
    ck_assert_int_eq(lc.fired[2], 2);
    ck_assert_uint_eq(dv_evq_next_cycle(&q), UINT64_MAX);
    /* scheduling in the past clamps to now: time never runs backwards */
    dv_evq_schedule(&q, &r[3].ev, 3, DV_PRIO_ISSUE, NULL);
    ck_assert(dv_evq_step(&q));
    ck_assert_uint_eq(lc.when[3], 10);
    dv_evq_destroy(&q);
}
END_TEST

/* The calendar and the heap together, against a reference that searches
 * every event for the least (cycle, priority, rank, insertion): events that, as
 * they fire, reschedule themselves or others near (the calendar) and far
 * (the heap), move queued events, cancel them and run ahead. */
enum { LIVE = 300, FIRINGS = 60000 };

typedef struct mix_ev {
    dv_event ev;
    bool queued;
    uint64_t cycle, order;
    int prio;
    unsigned rank; /* some events ranked, a few sharing a rank */
} mix_ev;

typedef struct mix_ctx {
    dv_evq *q;
    mix_ev ev[LIVE];
    uint64_t order; /* the reference's insertion counter */
    mix_ev *expect; /* the reference's choice of the next event */
    uint32_t rnd;
    long fired;
    bool bad;
} mix_ctx;

static uint32_t mix_rand(mix_ctx *m)
{
    m->rnd = m->rnd * 1103515245u + 12345u;
    return m->rnd >> 8;
}

static void mix_schedule(mix_ctx *m, mix_ev *e, uint64_t cycle, int prio)
{
    dv_evq_schedule(m->q, &e->ev, cycle, (dv_evprio)prio, NULL);
    e->queued = true;
    e->cycle = cycle < m->q->now ? m->q->now : cycle;
    e->prio = prio;
    e->order = m->order++;
}

static mix_ev *mix_expected(mix_ctx *m)
{
    mix_ev *best = NULL;
    for (int i = 0; i < LIVE; i++) {
        mix_ev *e = &m->ev[i];
        if (!e->queued)
            continue;
        if (!best || e->cycle != best->cycle ? !best || e->cycle < best->cycle
            : e->prio != best->prio          ? e->prio < best->prio
            : e->rank != best->rank          ? e->rank < best->rank
                                             : e->order < best->order)
            best = e;
    }
    return best;
}

static uint64_t mix_delta(mix_ctx *m)
{
    uint32_t k = mix_rand(m) % 10;
    return k < 5 ? mix_rand(m) % 4 : k < 8 ? mix_rand(m) % 70 : 50 + mix_rand(m) % 2000;
}

static void on_mix(dv_event *ev, void *ctx)
{
    mix_ctx *m = ctx;
    mix_ev *self = (mix_ev *)ev;
    if (self != m->expect || m->q->now != self->cycle)
        m->bad = true; /* not the least (cycle, priority, rank, insertion), or at the wrong time */
    self->queued = false;
    m->fired++;
    if (m->fired > FIRINGS)
        return;
    uint32_t what = mix_rand(m) % 8;
    mix_ev *other = &m->ev[mix_rand(m) % LIVE];
    if (what < 5)
        mix_schedule(m, self, m->q->now + mix_delta(m), (int)(mix_rand(m) % 5));
    else if (what == 5)
        mix_schedule(m, other, m->q->now + mix_delta(m), (int)(mix_rand(m) % 5)); /* queued or not */
    else if (what == 6 && other != self) {
        dv_evq_cancel(m->q, &other->ev);
        other->queued = false;
        mix_schedule(m, self, m->q->now + mix_delta(m), (int)(mix_rand(m) % 5));
    } else {
        /* run ahead as the Scalar unit does: only while nothing else is due */
        uint64_t to = m->q->now + 1 + mix_rand(m) % 3;
        mix_ev *next = mix_expected(m);
        bool may = !next || next->cycle > to;
        if (dv_evq_run_ahead(m->q, to) != may)
            m->bad = true;
        mix_schedule(m, self, m->q->now + mix_delta(m), (int)(mix_rand(m) % 5));
    }
}

START_TEST(test_calendar_and_heap)
{
    static mix_ctx m;
    dv_evq q;
    memset(&m, 0, sizeof m);
    m.q = &q;
    m.rnd = 777;
    dv_evq_init(&q, &m);
    for (int i = 0; i < LIVE; i++) {
        dv_event_init(&m.ev[i].ev, on_mix);
        m.ev[i].rank = i % 4 ? 0 : (unsigned)(i % 7);
        dv_event_set_rank(&m.ev[i].ev, m.ev[i].rank);
        if (i % 3 == 0)
            mix_schedule(&m, &m.ev[i], mix_delta(&m), (int)(mix_rand(&m) % 5));
    }
    for (;;) {
        mix_ev *want = mix_expected(&m);
        ck_assert_uint_eq(dv_evq_next_cycle(&q), want ? want->cycle : UINT64_MAX);
        if (!want)
            break;
        long before = m.fired;
        m.expect = want;
        ck_assert(dv_evq_step(&q));
        ck_assert_int_eq(m.fired, before + 1);
        ck_assert(!m.bad);
    }
    ck_assert_int_gt(m.fired, FIRINGS);
    ck_assert_uint_eq(q.count, 0);
    dv_evq_destroy(&q);
}
END_TEST

/* A far event (in the heap) ranked between two near ones (in the
 * calendar) of its cycle and priority fires between them. */
START_TEST(test_rank_across_heap_and_calendar)
{
    static rec r[4];
    static log_ctx lc;
    dv_evq q;
    four_events(&q, &lc, r);
    dv_event_set_rank(&r[0].ev, 2);
    dv_event_set_rank(&r[1].ev, 1);
    dv_event_set_rank(&r[2].ev, 3);
    ck_assert_int_eq(dv_evq_schedule(&q, &r[0].ev, 1000, DV_PRIO_SCALAR, NULL), DV_OK); /* the heap */
    ck_assert_int_eq(dv_evq_schedule(&q, &r[3].ev, 990, DV_PRIO_SCALAR, NULL), DV_OK);
    ck_assert(dv_evq_step(&q));                                                         /* now 990 */
    ck_assert_int_eq(dv_evq_schedule(&q, &r[2].ev, 1000, DV_PRIO_SCALAR, NULL), DV_OK); /* the calendar */
    ck_assert_int_eq(dv_evq_schedule(&q, &r[1].ev, 1000, DV_PRIO_SCALAR, NULL), DV_OK);
    while (dv_evq_step(&q))
        ;
    ck_assert_int_eq(lc.n, 4);
    ck_assert_int_eq(lc.fired[0], 3);
    ck_assert_int_eq(lc.fired[1], 1);
    ck_assert_int_eq(lc.fired[2], 0);
    ck_assert_int_eq(lc.fired[3], 2);
    dv_evq_destroy(&q);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("evq");
    TCase *tc = tcase_create("order");
    tcase_add_test(tc, test_shuffled_order);
    tcase_add_test(tc, test_reschedule_cancel_run_until);
    tcase_add_test(tc, test_calendar_and_heap);
    tcase_add_test(tc, test_rank_across_heap_and_calendar);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
