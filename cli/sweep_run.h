/* sweep_run.h - running a sweep's jobs (cmd_sweep.c): the sweep folder,
 * one job in a child process of this one, a pool of them, the status a
 * job leaves, the merged results.
 *
 * DIR/sweep.json   the canonical spec (sweep_spec_json): workers and --merge expand it again
 * DIR/jobs/HASH/   one job: stats.json, config.ini (dvsim run --out), log.txt (its stderr,
 *                  when it said anything), status.json {"exit": N, "message": "..."}, .lock (held
 *                  by the process running it: two sweeps of one folder never run a job twice)
 * DIR/results.csv, DIR/results.json   one row per job, in the order of the expansion
 *
 * A job is finished when its status.json exists: written by the job itself
 * when dvsim run returned (0, or its exit code with the last line it printed
 * on stderr), or by the pool when the job's process died of a crash.  A
 * job stopped by a signal (Ctrl-C, SIGTERM, Slurm's end of time, a kill)
 * leaves none, and runs again. */
#ifndef DV_SWEEP_RUN_H
#define DV_SWEEP_RUN_H

#include "sweep_spec.h"

enum { SWEEP_DIR_MAX = 2048, SWEEP_JOB_DIR_MAX = SWEEP_DIR_MAX + 32 }; /* the sweep's, a job's folder */

typedef struct sweep_ctx {
    char dir[SWEEP_DIR_MAX];
    sweep_spec spec;
    sweep_jobs jobs;
    char exe[4096]; /* this dvsim, for the workers of --parallel and --slurm */
    bool retry_failed;
} sweep_ctx;

typedef struct sweep_tally {
    size_t total;       /* the jobs asked to run */
    size_t skipped;     /* finished before: not run again */
    size_t ran, failed; /* run now, and of those failed */
    size_t stopped;     /* stopped by a signal: not finished */
    double seconds;     /* wall time of the runs */
} sweep_tally;

/* Loads DIR/sweep.json and expands it (66 if missing, 65 if broken). */
int sweep_load(const char *dir, sweep_ctx *c);
void sweep_ctx_free(sweep_ctx *c);
/* Writes DIR/sweep.json and DIR/jobs/ for the spec in c; 0 or 74. */
int sweep_prepare(sweep_ctx *c);
/* The folder of job j. */
void sweep_job_dir(const sweep_ctx *c, const sweep_job *j, char *buf, size_t size);
/* The exit code in job j's status.json, or -1 if it has none (not finished). */
int sweep_job_exit(const sweep_ctx *c, const sweep_job *j);
/* True if job j has finished (with retry_failed: finished and passed). */
bool sweep_job_done(const sweep_ctx *c, const sweep_job *j);
/* Runs the jobs ids[0..n) that are not finished, `workers` at a time, each
 * in a child process (fork; the child runs dvsim run in-process).  Progress
 * on stderr when progress is set.  SIGINT/SIGTERM stop it: no new job
 * starts, the running ones get the signal.  Returns 0, or 128 + the signal. */
int sweep_run_jobs(sweep_ctx *c, const size_t *ids, size_t n, unsigned workers, bool progress,
                   sweep_tally *t);
/* Writes DIR/results.csv and DIR/results.json from the jobs' folders.
 * Returns 0 when every job finished and passed, 1 when some failed or did
 * not run (said on stderr), 74 when a file cannot be written. */
int sweep_merge(const sweep_ctx *c, bool quiet);

#endif
