/* dv_pool.c - see dv_pool.h.  One lock and a ring of queued jobs in
 * submission order: the jobs are long (a matrix product or a transfer of a
 * simulated core), so the lock is cheap next to them.  A thread takes the
 * oldest queued job whose lane is not busy, which is its lane's oldest; a
 * joiner that finds its job still queued takes it back out and runs it
 * itself. */
#include "dv_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

enum { JOB_IDLE, JOB_QUEUED, JOB_RUNNING, JOB_DONE };
enum { MAX_THREADS = 64, RING = 2048 }; /* 32 cores x 32 slots (core_async), twice */

struct dv_pool {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a job was queued, a lane became free, or the pool stops */
    pthread_cond_t done; /* a job finished */
    dv_pool_job *ring[RING];
    unsigned head, count;
    bool stopping;
    double waited;          /* wall seconds joiners waited for running jobs */
    unsigned long ran_here; /* jobs run by joiners and submitters */
    unsigned nthreads;
    pthread_t threads[MAX_THREADS];
};

/* Removes the i-th queued job (the lock held). */
static void remove_at(dv_pool *p, unsigned i)
{
    for (unsigned j = i; j + 1 < p->count; j++)
        p->ring[(p->head + j) % RING] = p->ring[(p->head + j + 1) % RING];
    p->count--;
}

/* The oldest queued job that may run now, taken out and marked running;
 * NULL if every queued job waits for its lane (the lock held). */
static dv_pool_job *take(dv_pool *p)
{
    for (unsigned i = 0; i < p->count; i++) {
        dv_pool_job *job = p->ring[(p->head + i) % RING];
        if (job->lane && job->lane->busy)
            continue;
        if (i == 0) {
            p->head = (p->head + 1) % RING;
            p->count--;
        } else {
            remove_at(p, i);
        }
        job->state = JOB_RUNNING;
        if (job->lane)
            job->lane->busy = true;
        return job;
    }
    return NULL;
}

/* Runs a job taken with the lock held; returns with the lock held. */
static void run_taken(dv_pool *p, dv_pool_job *job)
{
    pthread_mutex_unlock(&p->lock);
    job->run(job);
    pthread_mutex_lock(&p->lock);
    job->state = JOB_DONE;
    if (job->lane) {
        job->lane->busy = false;
        if (p->count)
            pthread_cond_broadcast(&p->work); /* the lane's next job may run */
    }
    pthread_cond_broadcast(&p->done);
}

static void *worker(void *arg)
{
    dv_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        dv_pool_job *job = take(p);
        if (job) {
            run_taken(p, job);
            continue;
        }
        if (p->stopping && !p->count)
            break;
        pthread_cond_wait(&p->work, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

dv_pool *dv_pool_create(unsigned threads)
{
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    dv_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    for (unsigned i = 0; i < threads; i++) {
        if (pthread_create(&p->threads[i], NULL, worker, p) != 0)
            break;
        p->nthreads++;
    }
    if (p->nthreads < threads) {
        dv_pool_destroy(p);
        return NULL;
    }
    return p;
}

void dv_pool_destroy(dv_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

unsigned dv_pool_threads(const dv_pool *p)
{
    return p ? p->nthreads : 0;
}

void dv_pool_submit(dv_pool *p, dv_pool_job *job)
{
    job->submitted = true;
    pthread_mutex_lock(&p->lock);
    while (p->count == RING) { /* full: run the oldest that may run here */
        dv_pool_job *old = take(p);
        if (old) {
            p->ran_here++;
            run_taken(p, old);
        } else {
            pthread_cond_wait(&p->done, &p->lock);
        }
    }
    job->state = JOB_QUEUED;
    p->ring[(p->head + p->count) % RING] = job;
    p->count++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
}

/* Takes a queued job back out of the ring (the lock held). */
static void unqueue(dv_pool *p, dv_pool_job *job)
{
    for (unsigned i = 0; i < p->count; i++)
        if (p->ring[(p->head + i) % RING] == job) {
            if (i == 0) {
                p->head = (p->head + 1) % RING;
                p->count--;
            } else {
                remove_at(p, i);
            }
            return;
        }
}

void dv_pool_join(dv_pool *p, dv_pool_job *job)
{
    if (!job->submitted)
        return;
    job->submitted = false;
    pthread_mutex_lock(&p->lock);
    /* Its lane's earlier jobs are joined, so a busy lane is this job's run
     * starting (taken between the two tests); wait for it like any other. */
    if (job->state == JOB_QUEUED && !(job->lane && job->lane->busy)) {
        unqueue(p, job);
        job->state = JOB_RUNNING;
        if (job->lane)
            job->lane->busy = true;
        p->ran_here++;
        run_taken(p, job);
    } else if (job->state != JOB_DONE) {
        /* Another thread runs it: run other queued jobs meanwhile (the
         * oldest first, lanes kept in order), and wait only when none is
         * left, so that neither thread idles while work is queued. */
        while (job->state != JOB_DONE) {
            dv_pool_job *other = take(p);
            if (other) {
                p->ran_here++;
                run_taken(p, other);
                continue;
            }
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            pthread_cond_wait(&p->done, &p->lock);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            p->waited += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        }
    }
    job->state = JOB_IDLE;
    pthread_mutex_unlock(&p->lock);
}

double dv_pool_waited(dv_pool *p)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->lock);
    double w = p->waited;
    pthread_mutex_unlock(&p->lock);
    return w;
}

unsigned long dv_pool_ran_here(dv_pool *p)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->lock);
    unsigned long n = p->ran_here;
    pthread_mutex_unlock(&p->lock);
    return n;
}

bool dv_pool_pending(const dv_pool_job *job)
{
    return job->submitted;
}
