/* run_progress.c - the progress line of long runs (run_progress.h). */
#include "run_progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { TICK_CYCLES = 4096 };
static const double EVERY = 0.5; /* seconds between lines */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void run_progress_init(run_progress *p, const char *cmd)
{
    memset(p, 0, sizeof *p);
    /* DVSIM_PROGRESS=SECONDS: the line even without a terminal, after so
     * long (tests); else on a terminal, after a second */
    const char *force = getenv("DVSIM_PROGRESS");
    p->on = force ? true : isatty(STDERR_FILENO) == 1;
    p->after = force ? atof(force) : 1.0;
    p->cmd = cmd;
    p->t0 = now();
}

static void show(run_progress *p, double t, const char *text)
{
    fprintf(stderr, "\rdvsim %s: %s (%.1f s)\033[K", p->cmd, text, t - p->t0);
    fflush(stderr);
    p->shown = true;
    p->last = t;
}

void run_progress_say(run_progress *p, const char *fmt, ...)
{
    if (!p->on)
        return;
    double t = now();
    if (t - p->t0 < p->after || (p->shown && t - p->last < EVERY))
        return;
    char text[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    show(p, t, text);
}

static uint64_t period(void *user)
{
    (void)user;
    return TICK_CYCLES;
}

static void tick(void *user, uint64_t cycle)
{
    run_progress *p = user;
    double t = now();
    if (t - p->t0 < p->after || (p->shown && t - p->last < EVERY))
        return;
    char text[160];
    snprintf(text, sizeof text, "simulating, cycle %llu, %.3g M cycles/s", (unsigned long long)cycle,
             t > p->tsim ? (double)cycle / (t - p->tsim) / 1e6 : 0.0);
    show(p, t, text);
}

dv_status run_progress_attach(run_progress *p, dv_sim *sim, dv_error *err)
{
    if (!p->on)
        return DV_OK;
    p->tsim = now();
    p->hooks = (dv_sim_hooks){.user = p, .period = period, .tick = tick};
    return dv_sim_add_hooks(sim, &p->hooks, err);
}

void run_progress_end(run_progress *p)
{
    if (p->shown)
        fputs("\r\033[K", stderr);
    p->shown = false;
}
