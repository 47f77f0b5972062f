/* run_opts.h - the command line of dvsim run: what to run and how, read
 * with getopt_long before anything is simulated; and the hooks through
 * which dvsim viz adds its options and takes over the run (cli_run_hooks). */
#ifndef DV_RUN_OPTS_H
#define DV_RUN_OPTS_H

#include "cli_asm.h"
#include "dv_log.h"
#include "dv_sim.h"
#include "run_trace.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { RUN_MAX_BINDINGS = 32 };

/* NAME=VALUE of --arg, --gm, --dump, --input (both point into argv). */
typedef struct run_binding {
    const char *name;
    const char *spec;
} run_binding;

typedef struct run_opts {
    const char *cmd;  /* the command, for messages: "run", or the hooks' ("viz") */
    const char *path; /* the operator or the kernel file */
    const char *chip, *config, *kernel, *outdir, *pmu, *metrics;
    const char *sets[RUN_MAX_BINDINGS];
    int nsets;
    run_binding args[RUN_MAX_BINDINGS], gms[RUN_MAX_BINDINGS], dumps[RUN_MAX_BINDINGS],
        inputs[RUN_MAX_BINDINGS];
    int nargs, ngms, ndumps, ninputs;
    uint64_t max_cycles, blocks, pmu_period, pmu_ring, seed;
    uint64_t threads; /* --threads: host threads of the check (0: the host's CPUs) */
    const char *variant, *dtype, *shape;
    cli_asm_path incs; /* -I: .include folders of a .dvs kernel */
    bool json, data;
    bool trace_out; /* --trace-out: the trace goes to DIR/trace.json.gz of --out DIR */
    char trace_path[4096];
    run_trace_opts trace;                     /* --trace, --trace-window, --trace-period */
    bool log;                                 /* --log: the simulator's log to stderr */
    unsigned sanitize;                        /* --sanitize: dv_san_check mask, 0: off */
    dv_log_level log_level[DV_LOG_CAT_COUNT]; /* its most verbose level per category */
} run_opts;

/* dvsim viz: its own options, read by dvsim run's parser with dvsim run's
 * (so that getopt knows every option of the command line and which take a
 * value, wherever they stand); called with the prepared simulation before
 * the run (it adds its observers with dv_sim_add_hooks, one of them pacing
 * the run: the pace member of dv_sim_hooks) and after it (the window stays
 * until closed). */
typedef struct cli_run_hooks {
    const char *cmd;              /* "viz": for messages */
    const struct option *options; /* its long options ({NULL} ends them), values from CLI_OPT_HOOK */
    int (*option)(void *user, int code, const char *value); /* one of them: 0 or an exit code */
    /* after the command line, before anything is created: 0 or an exit code */
    int (*parsed)(void *user, const struct run_opts *o);
    void (*help)(FILE *out); /* -h, --help */
    int (*before)(void *user, dv_sim *sim, const char *title);
    int (*after)(void *user, dv_sim *sim, const dv_run_result *res);
    void *user;
    bool own_output; /* after() prints the results: not dvsim run's report or JSON (dvsim profile) */
} cli_run_hooks;

/* Reads argv (argv[0] is the command: "run", or hooks->cmd) into o; with
 * hooks, their options too.  Every check that needs only the command line
 * is made here, before anything is created.  Returns 0, -1 after printing
 * the help, or an exit code after printing one line (64 usage, 74 when
 * --trace-out cannot create its directory). */
int run_opts_parse(int argc, char **argv, const cli_run_hooks *hooks, run_opts *o);

#endif
