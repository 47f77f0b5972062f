/* test_pool.c - base/dv_pool: every job runs exactly once and is complete
 * when its join returns, on any number of threads (0: jobs run only when
 * joined); jobs joined out of order, resubmitted, never submitted; and
 * lanes, whose jobs run one at a time in submission order, more of them
 * than the queue holds. */
#include "dv_pool.h"

#include <check.h>
#include <stdint.h>

enum { JOBS = 200, WORDS = 4096 };

typedef struct sum_job {
    dv_pool_job job; /* first: the pool hands it back */
    uint32_t seed, runs;
    uint64_t out[WORDS];
} sum_job;

static void run_sum(dv_pool_job *job)
{
    sum_job *s = (sum_job *)job;
    s->runs++;
    uint64_t x = s->seed;
    for (unsigned i = 0; i < WORDS; i++)
        s->out[i] = x = x * 6364136223846793005ull + 1442695040888963407ull;
}

static uint64_t expect_last(uint32_t seed)
{
    uint64_t x = seed;
    for (unsigned i = 0; i < WORDS; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

static sum_job jobs[JOBS];

static void round_trip(unsigned threads)
{
    dv_pool *p = dv_pool_create(threads);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(dv_pool_threads(p), threads);
    for (unsigned round = 0; round < 3; round++) {
        for (unsigned i = 0; i < JOBS; i++) {
            jobs[i] = (sum_job){.job.run = run_sum, .seed = i * 7 + round};
            ck_assert(!dv_pool_pending(&jobs[i].job));
            dv_pool_submit(p, &jobs[i].job);
            ck_assert(dv_pool_pending(&jobs[i].job));
        }
        /* joined in an order unlike the queue's: odd ones backwards, then even */
        for (unsigned i = JOBS; i-- > 0;)
            if (i % 2)
                dv_pool_join(p, &jobs[i].job);
        for (unsigned i = 0; i < JOBS; i += 2)
            dv_pool_join(p, &jobs[i].job);
        for (unsigned i = 0; i < JOBS; i++) {
            ck_assert(!dv_pool_pending(&jobs[i].job));
            ck_assert_uint_eq(jobs[i].runs, 1);
            ck_assert_uint_eq(jobs[i].out[WORDS - 1], expect_last(i * 7 + round));
            dv_pool_join(p, &jobs[i].job); /* a second join returns at once */
            ck_assert_uint_eq(jobs[i].runs, 1);
        }
    }
    sum_job never = {.job.run = run_sum};
    dv_pool_join(p, &never.job); /* never submitted: nothing runs */
    ck_assert_uint_eq(never.runs, 0);
    dv_pool_destroy(p);
}

START_TEST(test_pool_threads)
{
    round_trip((unsigned)_i);
}
END_TEST

/* With no thread a job runs only when joined: late, on purpose. */
START_TEST(test_pool_deferred)
{
    dv_pool *p = dv_pool_create(0);
    ck_assert_ptr_nonnull(p);
    sum_job j = {.job.run = run_sum, .seed = 3};
    dv_pool_submit(p, &j.job);
    ck_assert_uint_eq(j.runs, 0);
    dv_pool_join(p, &j.job);
    ck_assert_uint_eq(j.runs, 1);
    ck_assert_uint_eq(j.out[WORDS - 1], expect_last(3));
    dv_pool_destroy(p);
    dv_pool_destroy(NULL);
}
END_TEST

enum { LANES = 8, PER_LANE = 300 }; /* 2400 jobs: more than the ring (2048) holds */

typedef struct lane_log {
    dv_pool_lane lane;
    unsigned next;   /* the index of the job that must run next */
    bool overlapped; /* a job started while another of the lane ran */
    bool running;
    bool out_of_order;
} lane_log;

typedef struct lane_job {
    dv_pool_job job; /* first: the pool hands it back */
    lane_log *log;
    unsigned index, runs;
    uint64_t out;
} lane_job;

static void run_lane(dv_pool_job *job)
{
    lane_job *j = (lane_job *)job;
    lane_log *l = j->log;
    if (l->running)
        l->overlapped = true;
    l->running = true;
    if (l->next != j->index)
        l->out_of_order = true;
    uint64_t x = j->index;
    for (unsigned i = 0; i < 4000; i++) /* long enough for threads to race */
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    j->out = x;
    j->runs++;
    l->next = j->index + 1;
    l->running = false;
}

static lane_log logs[LANES];
static lane_job ljobs[LANES][PER_LANE];

START_TEST(test_pool_lanes)
{
    dv_pool *p = dv_pool_create((unsigned)_i);
    ck_assert_ptr_nonnull(p);
    for (unsigned l = 0; l < LANES; l++)
        logs[l] = (lane_log){{false}, 0, false, false, false};
    for (unsigned i = 0; i < PER_LANE; i++) /* the lanes' jobs interleaved in the queue */
        for (unsigned l = 0; l < LANES; l++) {
            ljobs[l][i] =
                (lane_job){.job = {.run = run_lane, .lane = &logs[l].lane}, .log = &logs[l], .index = i};
            dv_pool_submit(p, &ljobs[l][i].job);
        }
    for (unsigned l = LANES; l-- > 0;) /* each lane oldest first, the lanes backwards */
        for (unsigned i = 0; i < PER_LANE; i++) {
            dv_pool_join(p, &ljobs[l][i].job);
            ck_assert_uint_eq(ljobs[l][i].runs, 1);
            ck_assert_uint_ge(logs[l].next, i + 1); /* it and every job before it ran */
        }
    for (unsigned l = 0; l < LANES; l++) {
        ck_assert_uint_eq(logs[l].next, PER_LANE);
        ck_assert(!logs[l].overlapped);
        ck_assert(!logs[l].out_of_order);
    }
    dv_pool_destroy(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pool");
    TCase *tc = tcase_create("pool");
    tcase_add_loop_test(tc, test_pool_threads, 0, 5);
    tcase_add_test(tc, test_pool_deferred);
    tcase_add_loop_test(tc, test_pool_lanes, 0, 5);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
