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
#include <signal.h>
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
    double started; /* host seconds, for the report line */
} run_trace;

/* Before the run: opens the trace (if asked) and attaches it to sim, and
 * lets a stop signal (run_signals_begin) interrupt sim.  title says what runs.  Returns an
 * exit code (0 ok).  The options' own checks (a window or a period without
 * a trace) are run_opts_parse's. */
int run_trace_begin(run_trace *rt, const run_trace_opts *o, dv_sim *sim, const char *title);
/* True if a stop signal interrupted the last run. */
bool run_trace_sigint(void);
/* Stop signals (SIGINT, SIGTERM, SIGHUP) for the whole of dvsim run, from
 * before the simulation to after its files are written: the first one
 * stops the run at its next event (and the reference check), the outputs
 * are completed, and the command exits 128 + the signal; a second one
 * ends the process at once.  run_signal: the signal that came, or 0. */
void run_signals_begin(void);
void run_signals_end(void);
int run_signal(void);
const volatile sig_atomic_t *run_signal_flag(void);
/* After the run: completes the trace (res NULL if the
 * run failed to start; the file is then removed).  Prints one line about
 * the trace on stderr unless quiet.  Returns an exit code (0 ok, 74). */
int run_trace_end(run_trace *rt, const dv_run_result *res, bool quiet);

#endif
