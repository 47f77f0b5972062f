/* dv_pool.h - a small pool of host threads for work whose result the caller
 * waits for at a point of its choosing (the simulator's heavy functional
 * work: see sim/core/core_async.c).
 *
 * A job is submitted, runs on one of the pool's threads, and is joined by
 * its submitter before anything reads what it writes.  Joining a job that
 * no thread has taken yet runs it on the joining thread, so a join never
 * waits for the queue, and in a pool of 0 threads every job runs when it is
 * joined (late, on purpose: a test of the joins).
 * What a job computes must not depend on which thread runs it: then the
 * results are the same for every pool size.  Jobs without a lane are not
 * ordered among themselves.  The jobs of one lane run one at a time, in
 * the order they were submitted (a simulated core's instructions, each
 * reading what the one before wrote), and are joined in that order. */
#ifndef DV_POOL_H
#define DV_POOL_H

#include <stdbool.h>

typedef struct dv_pool dv_pool;
typedef struct dv_pool_job dv_pool_job;

/* A serial chain of jobs (the pool's, under its lock; zero-initialise). */
typedef struct dv_pool_lane {
    bool busy; /* one of its jobs is running */
} dv_pool_lane;

struct dv_pool_job {
    void (*run)(dv_pool_job *job); /* the work; set by the submitter */
    dv_pool_lane *lane;            /* NULL: unordered; set by the submitter */
    int state;                     /* the pool's: idle, queued, running, done (under its lock) */
    bool submitted;                /* submitted and not joined yet (the submitter's own) */
};

/* A pool of `threads` host threads (at most 64; 0: jobs wait for their
 * join); NULL if out of memory or the threads cannot be started. */
dv_pool *dv_pool_create(unsigned threads);
/* Joins nothing: every submitted job must have been joined. */
void dv_pool_destroy(dv_pool *p);
unsigned dv_pool_threads(const dv_pool *p);
/* Queues job (idle or joined) for a thread.  Never fails: when the queue
 * is full the caller's thread runs queued jobs (the oldest it may, lanes
 * kept in order) until there is room. */
void dv_pool_submit(dv_pool *p, dv_pool_job *job);
/* Returns once job has run (at once if it was never submitted or is
 * already joined); runs it here if no thread has taken it.  A lane's jobs
 * must be joined oldest first. */
void dv_pool_join(dv_pool *p, dv_pool_job *job);
/* Wall seconds the joiners have waited for jobs another thread was
 * running (the time the pool did not keep up). */
double dv_pool_waited(dv_pool *p);
/* Jobs the joiners and submitters ran themselves (found still queued). */
unsigned long dv_pool_ran_here(dv_pool *p);
/* True while job is submitted and not yet joined. */
bool dv_pool_pending(const dv_pool_job *job);

#endif
