/* cmd_viz.c - dvsim viz: dvsim run with the window of viz/ taking over the
 * run (or headless frames to PNG).  The run options are dvsim run's; the
 * viz options below are read by dvsim run's parser with them
 * (cli_run_hooks), in any order. */
#include "cli.h"
#include "run_opts.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef DVSIM_HAVE_VIZ
#include "dv_viz.h"
#endif

void cmd_viz_help(FILE *out)
{
    fputs("usage: dvsim viz OPERATOR|KERNEL.elf|KERNEL.dvs [viz options] [dvsim run options]\n"
          "\n"
          "Runs like dvsim run while a window shows the selected core's pipes as a scrolling timeline\n"
          "(instructions as blocks coloured by class, flag waits, set->wait flows), every core's pipes,\n"
          "the buffers' bytes in flight, busy and bandwidth graphs, and the source line under the\n"
          "pointer.  The report of dvsim run follows when the window closes (closing it stops the run).\n"
          "\n"
          "viz options:\n"
          "  --headless             no window: draw frames with SDL's software renderer (no display)\n"
          "  --frames N             headless: stop after N frames (default: at the end of the run)\n"
          "  --png FILE             headless: write the last frame as a PNG\n"
          "  --size WxH             window or frame size (default 1280x720)\n"
          "  --cycles-per-frame N   simulated cycles per frame (default 1000; keys , and . change it)\n"
          "  --budget MS            host time for simulating per frame (window default 8, headless none)\n"
          "  --core I               the core shown first (default 0)\n"
          "  --span N               cycles across the timeline (default 4000)\n"
          "  --period N             cycles per counter window of the graphs (default 200)\n"
          "  --hover X,Y            headless: a pointer at X,Y (shows that block's source line)\n"
          "  --paused               start paused\n"
          "  --frame-stats          print frame-time percentiles (p50, p95, max) at the end\n"
          "  --keys K,...           headless: press these keys, one per frame (space, n, c, +, tab, q, ...)\n"
          "  --frame-log            print a line per frame: cycle, state, the core's instructions\n"
          "\n"
          "keys: space pause/run, n step one instruction, c step N cycles ([ ] halve/double N),\n"
          "+/- or wheel zoom, arrows or drag pan, f follow, up/down/Tab/click pick a core, , . speed,\n"
          "l the per-line cost panel (dvsim profile's classes, live), p pick a pipe, s jump to its next\n"
          "stall, q or Esc quit.  docs/trace-and-viz.md describes the view.\n",
          out);
}

#ifdef DVSIM_HAVE_VIZ

typedef struct viz_run {
    dv_viz_options o;
    dv_viz *viz;
} viz_run;

static int before(void *user, dv_sim *sim, const char *title)
{
    viz_run *vr = user;
    dv_error err = {DV_OK, ""};
    if (!(vr->viz = dv_viz_create(&vr->o, &err)))
        return cli_fail(&err);
    if (dv_viz_attach(vr->viz, sim, title, &err) != DV_OK)
        return cli_fail(&err);
    return 0;
}

static int after(void *user, dv_sim *sim, const dv_run_result *res)
{
    viz_run *vr = user;
    dv_error err = {DV_OK, ""};
    (void)sim;
    fflush(stdout);
    return dv_viz_end(vr->viz, res, &err) == DV_OK ? 0 : cli_fail(&err);
}

enum {
    OPT_HEADLESS = CLI_OPT_HOOK,
    OPT_FRAME_STATS,
    OPT_PAUSED,
    OPT_FRAME_LOG,
    OPT_FRAMES,
    OPT_PNG,
    OPT_SIZE,
    OPT_CYCLES_PER_FRAME,
    OPT_BUDGET,
    OPT_CORE,
    OPT_SPAN,
    OPT_PERIOD,
    OPT_HOVER,
    OPT_KEYS,
};

/* dvsim viz's options; dvsim run's parser reads them with its own. */
static const struct option viz_options[] = {
    {"headless", no_argument, NULL, OPT_HEADLESS},
    {"frame-stats", no_argument, NULL, OPT_FRAME_STATS},
    {"paused", no_argument, NULL, OPT_PAUSED},
    {"frame-log", no_argument, NULL, OPT_FRAME_LOG},
    {"frames", required_argument, NULL, OPT_FRAMES},
    {"png", required_argument, NULL, OPT_PNG},
    {"size", required_argument, NULL, OPT_SIZE},
    {"cycles-per-frame", required_argument, NULL, OPT_CYCLES_PER_FRAME},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"core", required_argument, NULL, OPT_CORE},
    {"span", required_argument, NULL, OPT_SPAN},
    {"period", required_argument, NULL, OPT_PERIOD},
    {"hover", required_argument, NULL, OPT_HOVER},
    {"keys", required_argument, NULL, OPT_KEYS},
    {NULL, 0, NULL, 0},
};

/* The options with a count: --core may be 0, the others not.  Each is
 * bounded by its field: --frames and --core are unsigned, the cycle counts
 * 64-bit (2^40 leaves the view's arithmetic room). */
static int count_option(viz_run *vr, int code, const char *v)
{
    uint64_t n;
    const char *name = code == OPT_FRAMES             ? "--frames"
                       : code == OPT_CYCLES_PER_FRAME ? "--cycles-per-frame"
                       : code == OPT_CORE             ? "--core"
                       : code == OPT_SPAN             ? "--span"
                                                      : "--period";
    uint64_t max = code == OPT_FRAMES || code == OPT_CORE ? UINT_MAX : 1ull << 40;
    if (!cli_parse_u64(v, &n) || (n == 0 && code != OPT_CORE) || n > max)
        return cli_usage_error("viz", "%s needs a %snumber, not '%s'", name,
                               code == OPT_CORE ? "" : "positive ", v);
    if (code == OPT_FRAMES)
        vr->o.frames = (unsigned)n;
    else if (code == OPT_CYCLES_PER_FRAME)
        vr->o.cycles_per_frame = n;
    else if (code == OPT_CORE)
        vr->o.core = (unsigned)n;
    else if (code == OPT_SPAN)
        vr->o.span = n;
    else
        vr->o.period = n;
    return 0;
}

static int option(void *user, int code, const char *v)
{
    viz_run *vr = user;
    switch (code) {
    case OPT_HEADLESS: vr->o.headless = true; return 0;
    case OPT_FRAME_STATS: vr->o.frame_stats = true; return 0;
    case OPT_PAUSED: vr->o.paused = true; return 0;
    case OPT_FRAME_LOG: vr->o.frame_log = true; return 0;
    case OPT_PNG: vr->o.png = v; return 0;
    case OPT_KEYS: vr->o.keys = v; return 0;
    case OPT_SIZE: {
        unsigned w, h;
        char x;
        int used = 0;
        if (sscanf(v, "%u%c%u%n", &w, &x, &h, &used) != 3 || v[used] || x != 'x' || w < 320 || h < 200 ||
            w > 8192 || h > 8192)
            return cli_usage_error("viz", "--size needs WxH from 320x200 to 8192x8192, not '%s'", v);
        vr->o.width = w, vr->o.height = h;
        return 0;
    }
    case OPT_BUDGET: {
        char *end;
        double ms = strtod(v, &end);
        if (end == v || *end || !(ms >= 0 && ms <= 10000))
            return cli_usage_error("viz", "--budget needs milliseconds, not '%s'", v);
        vr->o.budget_ms = ms;
        return 0;
    }
    case OPT_HOVER: {
        int used = 0;
        if (sscanf(v, "%d,%d%n", &vr->o.hover_x, &vr->o.hover_y, &used) != 2 || v[used])
            return cli_usage_error("viz", "--hover needs X,Y in pixels, not '%s'", v);
        return 0;
    }
    default: return count_option(vr, code, v);
    }
}

static int parsed(void *user, const run_opts *o)
{
    const viz_run *vr = user;
    if (!vr->o.headless && (vr->o.png || vr->o.frames || vr->o.hover_x >= 0 || vr->o.keys))
        return cli_usage_error("viz", "--png, --frames, --hover and --keys are for --headless");
    if (o->trace.path || o->trace_out)
        return cli_usage_error("viz", "the window replaces the trace: use dvsim run --trace");
    return 0;
}

int cmd_viz(int argc, char **argv)
{
    viz_run vr;
    memset(&vr, 0, sizeof vr);
    dv_viz_defaults(&vr.o);
    cli_run_hooks hooks = {.cmd = "viz",
                           .options = viz_options,
                           .option = option,
                           .parsed = parsed,
                           .help = cmd_viz_help,
                           .before = before,
                           .after = after,
                           .user = &vr};
    int rc = cmd_run_with(argc, argv, &hooks);
    dv_viz_destroy(vr.viz);
    return rc;
}

#else

int cmd_viz(int argc, char **argv)
{
    /* without its options' table, --help alone is recognised */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (cli_is_help(argv[i])) {
            cmd_viz_help(stdout);
            return 0;
        }
    }
    fprintf(stderr, "dvsim viz: this dvsim was built without SDL2 or libpng (install libsdl2-dev and "
                    "libpng-dev and configure with -Dviz=enabled)\n");
    return 70;
}

#endif
