/* run_trace.h - what dvsim run adds around the simulation: --trace (a
 * Chrome trace written as the run goes) and Ctrl-C (stop at the next event,
 * finish the outputs, exit 130).  docs/trace-and-viz.md describes the
 * options. */
#ifndef DV_RUN_TRACE_H
#define DV_RUN_TRACE_H

#include "cli.h"
#include "dv_sim.h"
#include "dv_tjson.h"

#include <getopt.h> /* RUN_TRACE_OPTIONS */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct run_trace_opts {
    const char *path; /* --trace FILE.json.gz */
    uint64_t w0, w1;  /* --trace-window START:END (w1 = 0: to the end) */
    uint64_t period;  /* --trace-period N: cycles per counter sample */
} run_trace_opts;

/* The trace options, for dvsim run's getopt_long table (cli.h: their
 * values start at CLI_OPT_TRACE). */
enum { RUN_TRACE_OPT = CLI_OPT_TRACE, RUN_TRACE_OPT_WINDOW, RUN_TRACE_OPT_PERIOD };
#define RUN_TRACE_OPTIONS                                                                                    \
    {"trace", required_argument, NULL, RUN_TRACE_OPT},                                                       \
        {"trace-window", required_argument, NULL, RUN_TRACE_OPT_WINDOW},                                     \
    {                                                                                                        \
        "trace-period", required_argument, NULL, RUN_TRACE_OPT_PERIOD                                        \
    }
/* Takes the value of trace option `code` (a RUN_TRACE_OPT*): returns -1 if
 * code is not one, 0 if it was taken, 64 after a usage error (cmd names
 * the command in the message). */
int run_trace_option(const char *cmd, int code, const char *value, run_trace_opts *o);
void run_trace_help(FILE *out);

typedef struct run_trace {
    dv_tjson *tj;
    const char *path;
    bool sigint_installed;
    double started; /* host seconds, for the report line */
} run_trace;

/* Before the run: opens the trace (if asked) and attaches it to sim, and
 * arranges for Ctrl-C to interrupt sim.  title says what runs.  Returns an
 * exit code (0 ok).  The options' own checks (a window or a period without
 * a trace) are run_opts_parse's. */
int run_trace_begin(run_trace *rt, const run_trace_opts *o, dv_sim *sim, const char *title);
/* True if Ctrl-C interrupted the last run. */
bool run_trace_sigint(void);
/* After the run: restores Ctrl-C and completes the trace (res NULL if the
 * run failed to start; the file is then removed).  Prints one line about
 * the trace on stderr unless quiet.  Returns an exit code (0 ok, 74). */
int run_trace_end(run_trace *rt, const dv_run_result *res, bool quiet);

#endif
