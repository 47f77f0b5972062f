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
 * results are the same for every pool size.  Jobs are not ordered among
 * themselves; a job that must follow another is submitted after joining it. */
#ifndef DV_POOL_H
#define DV_POOL_H

#include <stdbool.h>

typedef struct dv_pool dv_pool;
typedef struct dv_pool_job dv_pool_job;

struct dv_pool_job {
    void (*run)(dv_pool_job *job); /* the work; set by the submitter */
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
 * is full the job runs now, on the caller's thread. */
void dv_pool_submit(dv_pool *p, dv_pool_job *job);
/* Returns once job has run (at once if it was never submitted or is
 * already joined); runs it here if no thread has taken it. */
void dv_pool_join(dv_pool *p, dv_pool_job *job);
/* Wall seconds the joiners have waited for jobs another thread was
 * running (the time the pool did not keep up). */
double dv_pool_waited(dv_pool *p);
/* True while job is submitted and not yet joined. */
bool dv_pool_pending(const dv_pool_job *job);

#endif
