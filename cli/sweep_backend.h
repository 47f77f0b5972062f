/* sweep_backend.h - where a sweep's jobs run: a pool of child processes on
 * this machine, GNU parallel, or a Slurm job array (cmd_sweep.c). */
#ifndef DV_SWEEP_BACKEND_H
#define DV_SWEEP_BACKEND_H

#include "sweep_run.h"

typedef enum sweep_backend { SWEEP_LOCAL_DEFAULT, SWEEP_LOCAL, SWEEP_PARALLEL, SWEEP_SLURM } sweep_backend;

enum { SWEEP_SLURM_MAX_OPTS = 16 };

typedef struct sweep_slurm {
    bool dry_run;                           /* write DIR/slurm/sweep.sbatch only */
    bool wait;                              /* sbatch --wait: return when the array has ended */
    const char *opts[SWEEP_SLURM_MAX_OPTS]; /* more #SBATCH lines */
    int nopts;
} sweep_slurm;

/* Runs the sweep's unfinished jobs with the backend: workers at a time
 * (local, parallel), in `tasks` array tasks (slurm; 0: up to 64).  t says
 * what ran (for slurm without wait: nothing yet).  Returns 0, 128 + a
 * signal that stopped it, 69 when GNU parallel or sbatch is missing or
 * fails, 74. */
int sweep_backend_run(sweep_ctx *c, sweep_backend b, unsigned workers, unsigned tasks,
                      const sweep_slurm *slurm, bool progress, sweep_tally *t);

#endif
