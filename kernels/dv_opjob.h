/* dv_opjob.h - THE operator driver: one operator run from the request to its
 * figures.  dvsim run, regress, bench and viz, and the test suites, all run
 * an operator through dv_opjob_run, so they see the same cycles, the same
 * check and the same statistics.
 *
 * A job: create the run (dv_opr_create: parse, validate, prepare), let the
 * caller attach observers (`before`: a trace, the viz window, counters),
 * snapshot the inputs, run every launch, compare the outputs with the
 * reference when the run finished with data, and collect the statistics
 * (the run's and the operator's op.* figures). */
#ifndef DV_OPJOB_H
#define DV_OPJOB_H

#include "dv_operator.h"
#include "dv_stats.h"

typedef struct dv_opjob {
    const dv_operator *op;
    dv_opr_request req;        /* variant, dtype, shape, seed, blocks, input files */
    const dv_chip_config *cfg; /* must outlive the result */
    bool data;                 /* false: timing only, nothing to check */
    bool no_check;             /* skip the reference check (bench times the simulator alone) */
    uint64_t max_cycles;       /* per launch; 0: no limit */
    /* Called after prepare, before the inputs are snapshot and the run
     * starts (may be NULL); an error stops the job with that status. */
    dv_status (*before)(void *user, dv_opr_run *r, dv_error *err);
    /* Called when the reference check starts (may be NULL): a progress line. */
    void (*checking)(void *user, dv_opr_run *r);
    void *user;
    /* Observers of every launch (may be NULL; see dv_opr_run's launch_begin
     * and launch_end), with launch_user. */
    dv_status (*launch_begin)(void *user, dv_opr_run *r, dv_error *err);
    void (*launch_end)(void *user, dv_opr_run *r, const dv_run_result *res);
    void *launch_user;
} dv_opjob;

typedef struct dv_opjob_result {
    dv_opr_run *run;     /* the run after the job (NULL if it could not be created) */
    dv_run_result res;   /* the last launch's */
    dv_stat_list stats;  /* chip.*: every launch's (op.launch<i>.*: each); core<i>.*: the last's; op.* */
    dv_opr_launch total; /* summed over the launches */
    dv_opr_roofline roof;
    /* the figures regress pins and bench reports */
    uint64_t cycles;                    /* core cycles of every launch */
    double cube_pct, vector_pct;        /* chip means over the cores with the unit (every launch) */
    uint64_t path_bytes[DV_PATH_COUNT]; /* sums over the cores and the launches */
    uint64_t insns;                     /* instructions executed, every pipe of every core */
    uint64_t macs;                      /* Cube MACs */
    bool checked, passed;               /* the check ran; dv_opr_check_passed */
    double sim_seconds, check_seconds;  /* host wall time of the launches and of the check */
    /* The whole job's phases on the host: create (parse, prepare, the input
     * fill), simulate (the launches), check (the reference), each as wall
     * time and as the process's CPU time (every thread: the check runs on
     * several), for dvsim bench and run's report. */
    double fill_seconds, fill_cpu, sim_cpu, check_cpu;
    unsigned sim_threads; /* host threads of the simulation's functional work (dv_sim_threads) */
    /* The simulation's own thread: its CPU time, and the wall time it waited
     * for the pool (on an idle host its wall time is about their sum). */
    double sim_thread_cpu, sim_join_wait;
} dv_opjob_result;

/* Runs the job into *out (always; free it with dv_opjob_free).  Returns the
 * first error: a bad request (DV_ERR_INPUT, DV_ERR_MISSING), an error of
 * `before`, out of memory.  A guest fault, a deadlock or the cycle limit is
 * no error: out->res.stop says so, and nothing is checked. */
dv_status dv_opjob_run(const dv_opjob *job, dv_opjob_result *out, dv_error *err);
void dv_opjob_free(dv_opjob_result *out);

#endif
