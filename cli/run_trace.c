/* run_trace.c - --trace, --trace-window, --trace-period and Ctrl-C for
 * dvsim run (and dvsim viz, which goes through it). */
#include "run_trace.h"

#include "cli.h"

#include <signal.h>
#include <string.h>

#ifndef DVSIM_VERSION
#define DVSIM_VERSION "unknown"
#endif

/* The one piece of process-wide state: a signal handler can only reach a
 * global.  The simulation polls it between events (dv_sim_set_interrupt_flag). */
static volatile sig_atomic_t interrupted;
static struct sigaction old_sigint;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1; /* SA_RESETHAND: a second Ctrl-C ends the process at once */
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

/* The n characters at s as a number (cli_parse_u64): START of START:END. */
static bool parse_part(const char *s, size_t n, uint64_t *v)
{
    char tmp[32];
    if (n >= sizeof tmp)
        return false;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    return cli_parse_u64(tmp, v);
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
        if (!colon || !parse_part(v, (size_t)(colon - v), &o->w0) ||
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
    /* Ctrl-C from here on stops the run at its next event (before the trace
     * file exists, so that a file that exists is always completed). */
    interrupted = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, &old_sigint) == 0)
        rt->sigint_installed = true;
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
    if (rt->sigint_installed) {
        sigaction(SIGINT, &old_sigint, NULL);
        rt->sigint_installed = false;
    }
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
