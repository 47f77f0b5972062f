/* cmd_viz.c - dvsim viz: dvsim run with the window of viz/ taking over the
 * run (or headless frames to PNG).  The run options are dvsim run's. */
#include "cli.h"
#include "run_trace.h"

#include <errno.h>
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
          "q or Esc quit.  docs/trace-and-viz.md describes the view.\n",
          out);
}

#ifdef DVSIM_HAVE_VIZ

static bool num(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return false;
    *v = x;
    return true;
}

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

/* Takes the viz options out of argv; the rest goes to dvsim run. */
static int parse(int argc, char **argv, viz_run *vr, char **rest, int *nrest)
{
    dv_viz_defaults(&vr->o);
    *nrest = 0;
    rest[(*nrest)++] = "viz";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n;
        if (strcmp(a, "--headless") == 0) {
            vr->o.headless = true;
            continue;
        }
        if (strcmp(a, "--frame-stats") == 0) {
            vr->o.frame_stats = true;
            continue;
        }
        if (strcmp(a, "--paused") == 0) {
            vr->o.paused = true;
            continue;
        }
        if (strcmp(a, "--frame-log") == 0) {
            vr->o.frame_log = true;
            continue;
        }
        bool ours = strcmp(a, "--frames") == 0 || strcmp(a, "--png") == 0 || strcmp(a, "--size") == 0 ||
                    strcmp(a, "--cycles-per-frame") == 0 || strcmp(a, "--budget") == 0 ||
                    strcmp(a, "--core") == 0 || strcmp(a, "--span") == 0 || strcmp(a, "--period") == 0 ||
                    strcmp(a, "--hover") == 0 || strcmp(a, "--keys") == 0;
        if (!ours) {
            rest[(*nrest)++] = argv[i];
            continue;
        }
        if (!val)
            return cli_usage_error("viz", "%s needs a value", a);
        i++;
        if (strcmp(a, "--png") == 0) {
            vr->o.png = val;
        } else if (strcmp(a, "--keys") == 0) {
            vr->o.keys = val;
        } else if (strcmp(a, "--size") == 0) {
            unsigned w, h;
            char x;
            if (sscanf(val, "%u%c%u", &w, &x, &h) != 3 || x != 'x' || w < 320 || h < 200 || w > 8192 ||
                h > 8192)
                return cli_usage_error("viz", "--size needs WxH from 320x200 to 8192x8192, not '%s'", val);
            vr->o.width = w, vr->o.height = h;
        } else if (strcmp(a, "--budget") == 0) {
            char *end;
            double ms = strtod(val, &end);
            if (end == val || *end || ms < 0 || ms > 10000)
                return cli_usage_error("viz", "--budget needs milliseconds, not '%s'", val);
            vr->o.budget_ms = ms;
        } else if (strcmp(a, "--hover") == 0) {
            if (sscanf(val, "%d,%d", &vr->o.hover_x, &vr->o.hover_y) != 2)
                return cli_usage_error("viz", "--hover needs X,Y in pixels, not '%s'", val);
        } else if (!num(val, &n) || (n == 0 && strcmp(a, "--core") != 0) || n > (1ull << 40)) {
            return cli_usage_error("viz", "%s needs a %s number, not '%s'", a,
                                   strcmp(a, "--core") == 0 ? "" : "positive", val);
        } else if (strcmp(a, "--frames") == 0) {
            vr->o.frames = (unsigned)n;
        } else if (strcmp(a, "--cycles-per-frame") == 0) {
            vr->o.cycles_per_frame = n;
        } else if (strcmp(a, "--core") == 0) {
            vr->o.core = (unsigned)n;
        } else if (strcmp(a, "--span") == 0) {
            vr->o.span = n;
        } else {
            vr->o.period = n;
        }
    }
    if (!vr->o.headless && (vr->o.png || vr->o.frames || vr->o.hover_x >= 0 || vr->o.keys))
        return cli_usage_error("viz", "--png, --frames, --hover and --keys are for --headless");
    return 0;
}

int cmd_viz(int argc, char **argv)
{
    viz_run vr;
    memset(&vr, 0, sizeof vr);
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return 70;
    int nrest, rc = parse(argc, argv, &vr, rest, &nrest);
    if (!rc) {
        cli_run_hooks hooks = {"viz", before, after, &vr};
        rc = cmd_run_with(nrest, rest, &hooks);
    }
    dv_viz_destroy(vr.viz);
    free(rest);
    return rc;
}

#else

int cmd_viz(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "dvsim viz: this dvsim was built without SDL2 (install libsdl2-dev and configure with "
                    "-Dviz=enabled)\n");
    return 70;
}

#endif
