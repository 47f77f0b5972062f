/* run_trace.c - --trace, --trace-window, --trace-period and Ctrl-C for
 * dvsim run (and dvsim viz, which goes through it). */
#include "run_trace.h"

#include "cli.h"
#include "dv_num.h"

#include <signal.h>
#include <string.h>

#ifndef DVSIM_VERSION
#define DVSIM_VERSION "unknown"
#endif

/* The one piece of process-wide state: a signal handler can only reach a
 * global.  It holds the signal that asked to stop (0: none); the simulation
 * polls it between events (dv_sim_set_interrupt_flag), the reference check
 * between rows (dv_opr_check_stop). */
static volatile sig_atomic_t interrupted;
/* SIGINT (Ctrl-C), SIGTERM (kill, a job scheduler, timeout(1)) and SIGHUP
 * (the terminal went away) all stop the run the same way: at its next
 * event, with the trace, stats.json and --dump files completed, and exit
 * 128 + the signal. */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { NSTOP = sizeof stop_signals / sizeof stop_signals[0] };
static struct sigaction old_actions[NSTOP];
static bool installed[NSTOP];

static void on_signal(int sig)
{
    interrupted = sig; /* SA_RESETHAND: a second one ends the process at once */
}

void run_signals_begin(void)
{
    interrupted = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NSTOP; i++) {
        struct sigaction cur;
        /* SIGHUP ignored by whoever started us (nohup) stays ignored; SIGINT
         * and SIGTERM are taken even so (a shell starts background jobs with
         * SIGINT ignored, and a test or a scheduler still sends it) */
        if (stop_signals[i] == SIGHUP && sigaction(SIGHUP, NULL, &cur) == 0 && cur.sa_handler == SIG_IGN)
            continue;
        installed[i] = sigaction(stop_signals[i], &sa, &old_actions[i]) == 0;
    }
}

void run_signals_end(void)
{
    for (int i = 0; i < NSTOP; i++)
        if (installed[i]) {
            sigaction(stop_signals[i], &old_actions[i], NULL);
            installed[i] = false;
        }
}

int run_signal(void)
{
    return (int)interrupted;
}

const volatile sig_atomic_t *run_signal_flag(void)
{
    return &interrupted;
}

void run_trace_help(FILE *out)
{
    fputs("  --trace FILE.json.gz   write a Chrome trace (Perfetto, chrome://tracing) as the run goes:\n"
          "                         a lane per pipe, a slice per instruction, set->wait flows, counters\n"
          "  --trace-out            the same into DIR/trace.json.gz of --out DIR\n"
          "  --trace-window S:E     only what overlaps cycles [S, E) (E empty: to the end)\n"
          "  --trace-period N       cycles per counter sample (bandwidth, buffer use; default 1000)\n",
          out);
}

int run_trace_option(const char *cmd, int code, const char *v, run_trace_opts *o)
{
    switch (code) {
    case RUN_TRACE_OPT:
        if (!*v)
            return cli_usage_error(cmd, "--trace needs a file name");
        o->path = v;
        return 0;
    case RUN_TRACE_OPT_WINDOW: {
        const char *colon = strchr(v, ':');
        o->w1 = 0;
        if (!colon || !dv_parse_u64n(v, (size_t)(colon - v), &o->w0) ||
            (colon[1] && !cli_parse_u64(colon + 1, &o->w1)) || (o->w1 && o->w1 <= o->w0))
            return cli_usage_error(cmd, "--trace-window needs START:END in cycles with END > START, not '%s'",
                                   v);
        return 0;
    }
    case RUN_TRACE_OPT_PERIOD:
        if (!cli_parse_u64(v, &o->period) || o->period == 0)
            return cli_usage_error(cmd, "--trace-period needs a positive number of cycles, not '%s'", v);
        return 0;
    default: return -1;
    }
}

_Static_assert((int)RUN_TRACE_OPT_PERIOD < (int)CLI_OPT_HOOK,
               "the trace options' codes run into the hooks' (cli.h)");

bool run_trace_sigint(void)
{
    return interrupted != 0;
}

int run_trace_begin(run_trace *rt, const run_trace_opts *o, dv_sim *sim, const char *title)
{
    memset(rt, 0, sizeof *rt);
    rt->started = cli_now();
    /* A stop signal (run_signals_begin) stops the run at its next event; the
     * handlers are in place before the trace file exists, so that a file
     * that exists is always completed. */
    dv_sim_set_interrupt_flag(sim, &interrupted);
    if (o->path) {
        dv_error err = {DV_OK, ""};
        dv_tjson_options topt = {.window_start = o->w0,
                                 .window_end = o->w1,
                                 .counter_period = o->period,
                                 .producer = "dvsim " DVSIM_VERSION,
                                 .title = title};
        rt->tj = dv_tjson_create(o->path, &topt, &err);
        if (!rt->tj) {
            run_trace_end(rt, NULL, true);
            return cli_fail(&err);
        }
        rt->path = o->path;
        if (dv_sim_add_hooks(sim, dv_tjson_hooks(rt->tj), &err) != DV_OK) {
            run_trace_end(rt, NULL, true);
            return cli_fail(&err);
        }
    }
    return 0;
}

int run_trace_end(run_trace *rt, const dv_run_result *res, bool quiet)
{
    if (!rt->tj)
        return 0;
    if (!res) { /* the run did not start */
        dv_tjson_discard(rt->tj);
        rt->tj = NULL;
        return 0;
    }
    dv_error err = {DV_OK, ""};
    dv_tjson_totals tot;
    dv_status st = dv_tjson_finish(rt->tj, res, &tot, &err);
    rt->tj = NULL;
    if (st != DV_OK)
        return cli_fail(&err);
    if (!quiet)
        fprintf(stderr,
                "trace: %s: %llu events (%llu slices, %llu flows), %.1f MB of JSON in %.1f MB gzip; "
                "%.2f s with the run\n",
                rt->path, (unsigned long long)tot.events, (unsigned long long)tot.slices,
                (unsigned long long)tot.flows, (double)tot.json_bytes / 1e6, (double)tot.gz_bytes / 1e6,
                cli_now() - rt->started);
    return 0;
}
