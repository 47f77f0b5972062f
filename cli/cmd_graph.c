/* cmd_graph.c - dvsim graph: a model compiled (or a .dvm read) and run on
 * the simulated chip through the host runtime (graph/dv_graph_run.h), its
 * outputs checked against the CPU reference of the same plan, with a
 * per-step table, the end-to-end figures and a trace. */
#include "cli.h"
#include "dv_config.h"
#include "dv_graph.h"
#include "dv_graph_run.h"
#include "graph_report.h"
#include "model_data.h"
#include "rt_trace.h"
#include "run_progress.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cmd_graph_help(FILE *out)
{
    fprintf(out,
            "usage: dvsim graph MODEL.onnx|MODEL.dvm [--chip C] [-O0|-O1|-O2] [--streams N] [--batch B]\n"
            "                   [--json] [--trace FILE] [--timing-only] [--seed S]\n\n"
            "Runs a model on the simulated chip: compiled as dvsim compile does (or read from a .dvm),\n"
            "weights and inputs copied into GM, every step enqueued through the host runtime (device\n"
            "steps as operator launches, host steps and layout conversions as host callbacks) on N\n"
            "streams with events for every dependency, and the outputs read back and compared with the\n"
            "CPU reference run of the same plan.  Prints a row per step (operator, shape, stream, cores,\n"
            "start cycle, cycles, what bounds it and the %% of that bound achieved), the latency and\n"
            "throughput, the GM peak, launches, GM bytes and the check (docs/graphs.md).\n\n"
            "  --chip NAME     ascend910 (default), ascend910b, ... (dvsim chips); a .dvm has its own\n"
            "  -O LEVEL        0, 1, 2 (default) as dvsim compile\n"
            "  --streams N     list-schedule the steps on N streams (1 .. %d; default 1)\n"
            "  --batch B       the inputs' leading dim set to B before compiling (a .dvm: must match)\n"
            "  --json          the report as JSON\n"
            "  --trace FILE    a Chrome trace (.json[.gz]): a lane per stream and the cores' pipes\n"
            "  --timing-only   no arithmetic: cycles only, nothing checked\n"
            "  --seed S        inputs uniform in [-1, 1) with seed S when MODEL has no test_data_set_0 (1)\n"
            "Exit codes: 64 usage, 65 a malformed or unsupported model, 66 no such file, 1 outputs\n"
            "outside the tolerance or a race between launches.\n",
            DV_RT_MAX_STREAMS);
}

enum {
    OPT_CHIP = CLI_OPT_FIRST,
    OPT_JSON,
    OPT_STREAMS,
    OPT_BATCH,
    OPT_TRACE,
    OPT_TIMING,
    OPT_SEED,
    OPT_NOREUSE
};

typedef struct graph_opts {
    const char *model, *chip, *trace;
    int opt;
    unsigned streams;
    int64_t batch; /* 0: as the model says */
    bool json, timing_only, no_reuse_edges;
    uint64_t seed;
} graph_opts;

static int number(const char *s, uint64_t lo, uint64_t hi, const char *what, uint64_t *v)
{
    char *end;
    *v = strtoull(s, &end, 0);
    if (!s[0] || *end || s[0] == '-' || *v < lo || *v > hi)
        return cli_usage_error("graph", "%s takes a number from %llu to %llu, not '%s'", what,
                               (unsigned long long)lo, (unsigned long long)hi, s);
    return 0;
}

static int parse(int argc, char **argv, graph_opts *o)
{
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'},
                                             {"chip", required_argument, NULL, OPT_CHIP},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"streams", required_argument, NULL, OPT_STREAMS},
                                             {"batch", required_argument, NULL, OPT_BATCH},
                                             {"trace", required_argument, NULL, OPT_TRACE},
                                             {"timing-only", no_argument, NULL, OPT_TIMING},
                                             {"seed", required_argument, NULL, OPT_SEED},
                                             /* tests only: drop the reuse edges (the race check sees it) */
                                             {"test-no-reuse-edges", no_argument, NULL, OPT_NOREUSE},
                                             {NULL, 0, NULL, 0}};
    cli_getopt g;
    cli_getopt_init(&g, "graph", argc, argv, "hO:", longopts, false);
    uint64_t v;
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        int rc = 0;
        switch (c) {
        case 'h': cmd_graph_help(stdout); return -1;
        case 'O':
            if (strlen(g.arg) != 1 || g.arg[0] < '0' || g.arg[0] > '2')
                return cli_usage_error("graph", "-O takes 0, 1 or 2, not '%s'", g.arg);
            o->opt = g.arg[0] - '0';
            break;
        case OPT_CHIP: o->chip = g.arg; break;
        case OPT_JSON: o->json = true; break;
        case OPT_STREAMS:
            rc = number(g.arg, 1, DV_RT_MAX_STREAMS, "--streams", &v);
            o->streams = (unsigned)v;
            break;
        case OPT_BATCH:
            rc = number(g.arg, 1, 1 << 20, "--batch", &v);
            o->batch = (int64_t)v;
            break;
        case OPT_TRACE: o->trace = g.arg; break;
        case OPT_TIMING: o->timing_only = true; break;
        case OPT_SEED: rc = number(g.arg, 0, UINT64_MAX, "--seed", &o->seed); break;
        case OPT_NOREUSE: o->no_reuse_edges = true; break;
        case CLI_ARG:
            if (o->model)
                return cli_usage_error("graph", "one model at a time");
            o->model = g.arg;
            break;
        default: return EXIT_USAGE;
        }
        if (rc)
            return rc;
    }
    if (!o->model)
        return cli_usage_error("graph", "no model given");
    return 0;
}

static bool is_dvm(const char *path)
{
    FILE *f = fopen(path, "rb");
    char magic[8] = {0};
    bool yes = f && fread(magic, 1, 8, f) == 8 && memcmp(magic, "DVMODEL", 8) == 0;
    if (f)
        fclose(f);
    return yes;
}

/* The plan: a .dvm read back (its batch must be B), or the model imported, its inputs' leading dim set to
 * B, and compiled. */
static int load_plan(const graph_opts *o, dv_plan **p)
{
    dv_error err = {0};
    if (is_dvm(o->model)) {
        if (o->chip)
            return cli_usage_error("graph", "a .dvm was compiled for its chip: --chip takes an ONNX model");
        if (dv_dvm_read_file(o->model, p, &err) != DV_OK)
            return cli_fail(&err);
        for (unsigned i = 0; o->batch && i < (*p)->ntensors; i++) {
            const dv_plan_tensor *t = &(*p)->t[i];
            if (t->input && !t->weight && t->rank >= 1 && t->dims[0] != o->batch) {
                int rc =
                    cli_usage_error("graph",
                                    "%s was compiled for input '%s' of leading dim %lld, not --batch %lld: "
                                    "compile the ONNX model with that batch",
                                    o->model, t->name, (long long)t->dims[0], (long long)o->batch);
                dv_plan_destroy(*p);
                return rc;
            }
        }
        return 0;
    }
    dv_chip_config cfg;
    if (dv_config_builtin(o->chip ? o->chip : dv_config_default_name(), &cfg, &err) != DV_OK)
        return cli_fail(&err);
    dv_graph *g;
    if (dv_graph_import_file(o->model, &g, &err) != DV_OK)
        return cli_fail(&err);
    for (unsigned i = 0; o->batch && i < g->ninputs; i++)
        if (g->t[g->inputs[i]].rank >= 1)
            g->t[g->inputs[i]].dims[0] = o->batch;
    int rc = dv_plan_compile_streams(g, o->opt, &cfg, o->streams, p, &err) != DV_OK ? cli_fail(&err) : 0;
    dv_graph_destroy(g);
    return rc;
}

/* The inputs: MODEL's sibling test_data_set_0/input_K.pb when there (and the shapes match: not with
 * another --batch), else seeded. */
static int make_inputs(const graph_opts *o, const dv_plan *p, dv_gtensor **in, unsigned *n, char *from,
                       size_t len)
{
    int *idx = dv_plan_inputs(p, n);
    *in = calloc(*n + 1, sizeof **in);
    if (!idx || !*in) {
        free(idx);
        return 71;
    }
    char dir[2048], path[2200];
    bool data = model_data_dir(o->model, NULL, dir, sizeof dir);
    for (unsigned k = 0; data && k < *n; k++) {
        dv_error err = {0};
        snprintf(path, sizeof path, "%s/input_%u.pb", dir, k);
        if (dv_gtensor_read_pb_file(path, &(*in)[k], &err) != DV_OK) {
            free(idx);
            return cli_fail(&err);
        }
        const dv_plan_tensor *t = &p->t[idx[k]];
        int64_t want = 1;
        for (int d = 0; d < t->rank; d++)
            want *= t->dims[d];
        data &= dv_gtensor_count(&(*in)[k]) == want;
    }
    uint64_t seed = o->seed;
    for (unsigned k = 0; !data && k < *n; k++) {
        const dv_plan_tensor *t = &p->t[idx[k]];
        int64_t c = 1;
        dv_gtensor_free(&(*in)[k]);
        (*in)[k] = (dv_gtensor){.dtype = 1, .rank = t->rank};
        memcpy((*in)[k].dims, t->dims, sizeof t->dims);
        for (int d = 0; d < t->rank; d++)
            c *= t->dims[d];
        if (!((*in)[k].data = malloc((size_t)(c > 0 ? c : 1) * sizeof(double)))) {
            free(idx);
            return 71;
        }
        model_fill_uniform((*in)[k].data, c, &seed);
    }
    if (data)
        snprintf(from, len, "%s", dir);
    else
        snprintf(from, len, "seeded uniform [-1, 1), seed %llu", (unsigned long long)o->seed);
    free(idx);
    return 0;
}

/* The device's f16 outputs against the reference's (double) ones.  The device rounds every step's
 * output to f16 (unit roundoff u = 2^-11) and accumulates in f32; errors of a few u per step add up
 * along the graph, and elements that cancel to near zero keep the error of the tensor's scale, not
 * their own.  So an element passes when |got - want| <= 2^-6 (|want| + rms(want)): 32 u, about a
 * dozen steps' roundings on top of the inputs' and weights' own f16 rounding. */
static void check_outputs(const dv_plan *p, const dv_graph_run_result *res, const dv_gtensor *in,
                          unsigned nin, graph_check *c, int *rc)
{
    dv_graph *vals = NULL;
    dv_error err = {0};
    snprintf(c->rule, sizeof c->rule, "|got - want| <= 2^-6 (|want| + rms(want)), want the CPU reference");
    if (dv_plan_ref_run(p, in, nin, &vals, &err) != DV_OK) {
        *rc = cli_fail(&err);
        return;
    }
    c->done = true;
    for (unsigned k = 0; k < res->noutputs; k++) {
        const dv_gtensor *want = dv_plan_ref_output(p, vals, k), *got = &res->outputs[k];
        int64_t n = dv_gtensor_count(want);
        if (n != dv_gtensor_count(got) || !want->data || !got->data) {
            c->mismatches++;
            snprintf(c->first_bad, sizeof c->first_bad, "output %u: %lld elements, the reference has %lld", k,
                     (long long)dv_gtensor_count(got), (long long)n);
            continue;
        }
        double ss = 0;
        for (int64_t e = 0; e < n; e++)
            ss += want->data[e] * want->data[e];
        double rms = n ? sqrt(ss / (double)n) : 0;
        for (int64_t e = 0; e < n; e++) {
            double w = want->data[e], d = fabs(got->data[e] - w);
            bool bad = !(d <= ldexp(fabs(w) + rms, -6));
            c->compared++;
            c->max_abs = d > c->max_abs ? d : c->max_abs;
            if (fabs(w) > rms * 1e-3 && d / fabs(w) > c->max_rel)
                c->max_rel = d / fabs(w);
            if (bad && !c->mismatches++)
                snprintf(c->first_bad, sizeof c->first_bad, "%s[%lld] = %.6g, the reference %.6g", got->name,
                         (long long)e, got->data[e], w);
        }
    }
    dv_graph_destroy(vals);
    if (c->mismatches && !*rc)
        *rc = 1;
}

typedef struct trace_ctx {
    const char *path;
    const dv_plan *p;
    rt_trace *t;
    unsigned streams;
} trace_ctx;

static dv_status trace_open(void *user, dv_rt_device *d, dv_error *err)
{
    trace_ctx *tc = user;
    tc->t = rt_trace_create(tc->path, d, err);
    return tc->t ? DV_OK : err->status;
}

static const char *stream_name(const void *user, unsigned i)
{
    static char names[DV_RT_MAX_STREAMS][16];
    (void)user;
    snprintf(names[i % DV_RT_MAX_STREAMS], sizeof names[0], "stream%u", i);
    return names[i % DV_RT_MAX_STREAMS];
}

static dv_status trace_done(void *user, dv_rt_device *d, const dv_graph_run_result *res, dv_error *err)
{
    trace_ctx *tc = user;
    for (unsigned i = 0; i < res->nsteps; i++) /* host and layout steps: a mark where their callback ran */
        if (tc->p->s[i].kind != DV_STEP_DEVICE) {
            char name[64];
            snprintf(name, sizeof name, "%s:%s", dv_step_kind_name(tc->p->s[i].kind), tc->p->s[i].op);
            rt_trace_mark(tc->t, res->step[i].stream, res->step[i].start, name);
        }
    dv_status st = rt_trace_finish(tc->t, d, stream_name, NULL, tc->streams, err);
    tc->t = NULL;
    return st;
}

/* What a run has attached to the device: the trace (--trace) and the
 * progress line of a long run on a terminal. */
typedef struct graph_watch {
    trace_ctx tc;
    run_progress prog;
} graph_watch;

static dv_status watch_open(void *user, dv_rt_device *d, dv_error *err)
{
    graph_watch *w = user;
    if (w->tc.path && trace_open(&w->tc, d, err) != DV_OK)
        return err->status;
    run_progress_say(&w->prog, "running %u steps on %s", w->tc.p->nsteps, w->tc.p->chip);
    return run_progress_attach(&w->prog, dv_rt_device_sim(d), err);
}

static dv_status watch_done(void *user, dv_rt_device *d, const dv_graph_run_result *res, dv_error *err)
{
    graph_watch *w = user;
    return w->tc.path ? trace_done(&w->tc, d, res, err) : DV_OK;
}

int cmd_graph(int argc, char **argv)
{
    graph_opts o = {.opt = 2, .streams = 1, .seed = 1};
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    dv_plan *p = NULL;
    if ((rc = load_plan(&o, &p)) != 0)
        return rc;
    dv_chip_config cfg;
    dv_error err = {0};
    dv_gtensor *in = NULL;
    unsigned nin = 0;
    char from[2100];
    dv_graph_run_result *res = NULL;
    graph_watch w = {.tc = {.path = o.trace, .p = p, .streams = o.streams}};
    run_progress_init(&w.prog, "graph");
    dv_graph_run_opts ro = {.streams = o.streams,
                            .timing_only = o.timing_only,
                            .no_reuse_edges = o.no_reuse_edges,
                            .on_open = watch_open,
                            .on_done = watch_done,
                            .user = &w};
    if (dv_config_builtin(p->chip, &cfg, &err) != DV_OK)
        rc = cli_fail(&err);
    if (!rc)
        rc = make_inputs(&o, p, &in, &nin, from, sizeof from);
    if (!rc && dv_graph_run(p, in, nin, &ro, &res, &err) != DV_OK)
        rc = cli_fail(&err);
    if (w.tc.t)
        rt_trace_discard(w.tc.t);
    if (!rc) {
        unsigned n;
        int *idx = dv_plan_inputs(p, &n);
        graph_report r = {.model = o.model,
                          .p = p,
                          .cfg = &cfg,
                          .res = res,
                          .streams = o.streams,
                          .batch = idx && n && p->t[idx[0]].rank ? p->t[idx[0]].dims[0] : 1,
                          .inputs = from};
        free(idx);
        r.check.why_not = o.timing_only ? "--timing-only" : "a .dvm holds no graph to run the reference on";
        if (!o.timing_only && p->g) {
            w.prog.last = 0; /* a new phase shows at once */
            run_progress_say(&w.prog, "checking the outputs against the CPU reference");
            check_outputs(p, res, in, nin, &r.check, &rc);
        }
        run_progress_end(&w.prog);
        int out = o.json ? graph_report_json(&r) : (graph_report_print(&r), 0);
        if (res->nraces && !rc) {
            fprintf(stderr, "dvsim graph: %u races between launches (first: records %u and %u at 0x%llx)\n",
                    res->nraces, res->first_race.first, res->first_race.second,
                    (unsigned long long)res->first_race.addr);
            rc = 1;
        }
        rc = rc ? rc : out;
    }
    run_progress_end(&w.prog);
    for (unsigned k = 0; in && k < nin; k++)
        dv_gtensor_free(&in[k]);
    free(in);
    dv_graph_run_free(res);
    dv_plan_destroy(p);
    return rc;
}
