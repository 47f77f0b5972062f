/* run_progress.h - a progress line on stderr for long runs (dvsim run,
 * regress): the phase, the simulated cycles and their rate, shown once the
 * work has taken a second and only when stderr is a terminal, rewritten in
 * place at most twice a second and erased at the end. */
#ifndef DV_RUN_PROGRESS_H
#define DV_RUN_PROGRESS_H

#include "dv_hooks.h"
#include "dv_sim.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct run_progress {
    bool on;               /* stderr is a terminal (or DVSIM_PROGRESS=1) */
    bool shown;            /* a line is on the screen */
    double t0, last, tsim; /* the start, the last line, the simulation's start */
    double after;          /* seconds before the first line */
    const char *cmd;
    dv_sim_hooks hooks;
} run_progress;

/* Starts the clock; on = stderr is a terminal. */
void run_progress_init(run_progress *p, const char *cmd);
/* Follows sim's cycles (a tick every 4096 cycles: the run is unchanged,
 * ticks come after the cores' events). */
dv_status run_progress_attach(run_progress *p, dv_sim *sim, dv_error *err);
/* Shows "dvsim CMD: what" if it is time (what: a phase, "3 of 40 entries"). */
void run_progress_say(run_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Erases the line, if one is shown. */
void run_progress_end(run_progress *p);

#endif
