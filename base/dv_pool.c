/* dv_pool.c - see dv_pool.h.  One lock and a ring of queued jobs: the jobs
 * are long (a matrix product of a simulated core), so the lock is cheap next
 * to them; a joiner that finds its job still queued takes it back out and
 * runs it itself. */
#include "dv_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

enum { JOB_IDLE, JOB_QUEUED, JOB_RUNNING, JOB_DONE };
enum { MAX_THREADS = 64, RING = 256 };

struct dv_pool {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a job was queued, or the pool stops */
    pthread_cond_t done; /* a job finished */
    dv_pool_job *ring[RING];
    unsigned head, count;
    bool stopping;
    double waited; /* wall seconds joiners waited for running jobs */
    unsigned nthreads;
    pthread_t threads[MAX_THREADS];
};

static void *worker(void *arg)
{
    dv_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->count && !p->stopping)
            pthread_cond_wait(&p->work, &p->lock);
        if (!p->count)
            break; /* stopping, nothing left */
        dv_pool_job *job = p->ring[p->head];
        p->head = (p->head + 1) % RING;
        p->count--;
        job->state = JOB_RUNNING;
        pthread_mutex_unlock(&p->lock);
        job->run(job);
        pthread_mutex_lock(&p->lock);
        job->state = JOB_DONE;
        pthread_cond_broadcast(&p->done);
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
    if (p->count == RING) {
        job->state = JOB_RUNNING; /* full: the caller's thread runs it */
        pthread_mutex_unlock(&p->lock);
        job->run(job);
        pthread_mutex_lock(&p->lock);
        job->state = JOB_DONE;
        pthread_mutex_unlock(&p->lock);
        return;
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
    for (unsigned i = 0; i < p->count; i++) {
        unsigned at = (p->head + i) % RING;
        if (p->ring[at] != job)
            continue;
        for (unsigned j = i; j + 1 < p->count; j++)
            p->ring[(p->head + j) % RING] = p->ring[(p->head + j + 1) % RING];
        p->count--;
        return;
    }
}

void dv_pool_join(dv_pool *p, dv_pool_job *job)
{
    if (!job->submitted)
        return;
    job->submitted = false;
    pthread_mutex_lock(&p->lock);
    if (job->state == JOB_QUEUED) {
        unqueue(p, job);
        job->state = JOB_RUNNING;
        pthread_mutex_unlock(&p->lock);
        job->run(job);
        pthread_mutex_lock(&p->lock);
    } else if (job->state == JOB_RUNNING) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (job->state == JOB_RUNNING)
            pthread_cond_wait(&p->done, &p->lock);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        p->waited += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
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

bool dv_pool_pending(const dv_pool_job *job)
{
    return job->submitted;
}
