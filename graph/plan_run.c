/* plan_run.c - a compiled plan on the simulated chip (dv_graph_run.h): the
 * device and its two GM regions, the steps enqueued on their streams with
 * the events of the schedule (plan_sched.c), host steps and layout
 * conversions as host callbacks, and the figures read back from the
 * runtime's records. */
#include "dv_graph_ref.h"
#include "dv_graph_run.h"
#include "plan_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct grun grun;
typedef struct host_job {
    grun *g;
    unsigned step;
} host_job;

struct grun {
    const dv_plan *p;
    dv_rt_device *d;
    uint64_t wbase, abase;
    bool data;
    dv_graph *v; /* host steps' values: a copy of the plan's graph */
    dv_graph_run_result *res;
    host_job *jobs;
    dv_error herr; /* the first error of a host callback */
};

static uint64_t addr_of(const grun *g, int t)
{
    return (g->p->t[t].weight ? g->wbase : g->abase) + g->p->t[t].offset;
}

/* Plan tensor t's logical values read from GM (*out malloc'd). */
static dv_status read_tensor(grun *g, int t, double **out, dv_error *err)
{
    const dv_plan_tensor *pt = &g->p->t[t];
    int64_t n = playout_count(pt);
    uint8_t *buf = malloc(pt->bytes ? pt->bytes : 1);
    *out = malloc((size_t)(n > 0 ? n : 1) * sizeof **out);
    dv_status st = !buf || !*out ? dv_error_set(err, DV_ERR_NOMEM, "out of memory")
                                 : dv_rt_memcpy_d2h(g->d, buf, addr_of(g, t), pt->bytes, err);
    if (st == DV_OK)
        st = playout_to_logical(pt, buf, *out, err);
    free(buf);
    if (st != DV_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

static dv_status write_tensor(grun *g, int t, const double *v, dv_error *err)
{
    const dv_plan_tensor *pt = &g->p->t[t];
    uint8_t *buf = malloc(pt->bytes ? pt->bytes : 1);
    dv_status st =
        buf ? playout_from_logical(pt, v, buf, err) : dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    if (st == DV_OK)
        st = dv_rt_memcpy_h2d(g->d, addr_of(g, t), buf, pt->bytes, err);
    free(buf);
    return st;
}

/* A layout step: the bytes in the other layout (through their logical values). */
static dv_status run_layout(grun *g, const dv_plan_step *s, dv_error *err)
{
    double *v;
    dv_status st = read_tensor(g, s->in[0], &v, err);
    if (st == DV_OK)
        st = write_tensor(g, s->out[0], v, err);
    free(v);
    return st;
}

/* conv2d's bias on the host, per channel, the tensor logically NCHW (plan_exec.c's exec_bias_add). */
static dv_status run_bias_add(grun *g, const dv_plan_step *s, dv_error *err)
{
    double *x = NULL, *b = NULL;
    dv_status st = read_tensor(g, s->in[0], &x, err);
    if (st == DV_OK)
        st = read_tensor(g, s->in[1], &b, err);
    if (st == DV_OK) {
        const dv_plan_tensor *t = &g->p->t[s->out[0]];
        int64_t n = playout_count(t), C = t->dims[1], hw = n / (t->dims[0] * C > 0 ? t->dims[0] * C : 1);
        for (int64_t e = 0; e < n; e++)
            x[e] += b[(e / hw) % C];
        st = write_tensor(g, s->out[0], x, err);
    }
    free(x);
    free(b);
    return st;
}

/* A host step: its graph inputs from GM into the values, its nodes by the reference, its outputs to GM. */
static dv_status run_host(grun *g, const dv_plan_step *s, dv_error *err)
{
    if (s->nnodes == 0)
        return run_bias_add(g, s, err);
    dv_status st = DV_OK;
    for (unsigned k = 0; k < s->nin && st == DV_OK; k++) {
        const dv_plan_tensor *t = &g->p->t[s->in[k]];
        if (t->weight || t->gt < 0)
            continue; /* constants: the graph's own values, as the reference has them */
        double *v;
        if ((st = read_tensor(g, s->in[k], &v, err)) == DV_OK) {
            free(g->v->t[t->gt].data);
            g->v->t[t->gt].data = v;
        }
    }
    for (unsigned k = 0; k < s->nnodes && st == DV_OK; k++)
        st = dv_ref_node(g->v, (unsigned)s->nodes[k], true, err);
    for (unsigned k = 0; k < s->nout && st == DV_OK; k++) {
        const dv_plan_tensor *t = &g->p->t[s->out[k]];
        if (t->gt >= 0)
            st = write_tensor(g, s->out[k], g->v->t[t->gt].data, err);
    }
    return st;
}

static void host_fn(void *user, dv_rt_device *d, dv_rt_stream *stream)
{
    (void)stream;
    host_job *j = user;
    grun *g = j->g;
    const dv_plan_step *s = &g->p->s[j->step];
    dv_graph_step_run *r = &g->res->step[j->step];
    r->start = r->end = dv_rt_device_now(d);
    if (!g->data || g->herr.status != DV_OK)
        return;
    dv_error e = {0};
    if ((s->kind == DV_STEP_LAYOUT ? run_layout(g, s, &e) : run_host(g, s, &e)) != DV_OK) {
        dv_graph_error_clean(&e);
        dv_error_set(&g->herr, e.status, "step %u (%s %s): %s", j->step, dv_step_kind_name(s->kind), s->op,
                     e.msg);
    }
}

static dv_status launch_device(grun *g, dv_rt_stream *st, unsigned i, dv_error *err)
{
    const dv_plan_step *s = &g->p->s[i];
    if (s->nout != 1 || !dv_plan_op_tensor(s->op, true, 0))
        return dv_error_set(err, DV_ERR_INTERNAL, "step %u: the runner does not know operator %s's tensors",
                            i, s->op);
    dv_rt_op_launch op = {.op = s->op, .req = {.variant = s->variant, .dtype = s->dtype, .shape = s->params}};
    for (unsigned j = 0; j < s->nin; j++) {
        if (!(op.name[op.nbound] = dv_plan_op_tensor(s->op, false, j)))
            return dv_error_set(err, DV_ERR_INTERNAL, "step %u: %s has no input %u", i, s->op, j);
        op.addr[op.nbound++] = addr_of(g, s->in[j]);
    }
    op.name[op.nbound] = dv_plan_op_tensor(s->op, true, 0);
    op.addr[op.nbound++] = addr_of(g, s->out[0]);
    dv_graph_step_run *r = &g->res->step[i];
    r->first_record = dv_rt_record_count(g->d);
    dv_status rc = dv_rt_launch_op(st, &op, NULL, err);
    if (rc != DV_OK) {
        dv_error e = *err;
        return dv_error_set(err, rc, "step %u (%s %s): %s", i, s->op, s->params, e.msg);
    }
    r->nrecords = dv_rt_record_count(g->d) - r->first_record;
    return DV_OK;
}

int *dv_plan_inputs(const dv_plan *p, unsigned *n)
{
    int *v = malloc((p->ntensors + 1) * sizeof *v);
    *n = 0;
    for (unsigned i = 0; v && i < p->ntensors; i++)
        if (p->t[i].input && !p->t[i].weight)
            v[(*n)++] = (int)i;
    return v;
}

int *dv_plan_outputs(const dv_plan *p, unsigned *n)
{
    int *v = malloc((p->ntensors + 1) * sizeof *v);
    *n = 0;
    if (p->g) /* the graph's order */
        for (unsigned k = 0; v && k < p->g->noutputs; k++)
            for (unsigned i = 0; i < p->ntensors; i++)
                if (p->t[i].output && p->t[i].gt == p->g->outputs[k]) {
                    v[(*n)++] = (int)i;
                    break;
                }
    for (unsigned i = 0; v && !p->g && i < p->ntensors; i++)
        if (p->t[i].output)
            v[(*n)++] = (int)i;
    return v;
}

/* The inputs at their offsets (f16, ND) and the weights region at its base. */
static dv_status load(grun *g, const dv_gtensor *inputs, unsigned ninputs, dv_error *err)
{
    const dv_plan *p = g->p;
    uint64_t wbytes = p->rep.weights_bytes;
    /* each region as the plan sizes it, and two lines more: an operator may size a tensor past its plan
     * bytes (softmax and layernorm pad theirs by 32 bytes, attention's slack), which a buffer's own
     * 512-byte alignment holds except at a region's end */
    dv_status st = dv_rt_malloc(g->d, wbytes + 2 * DV_PLAN_ALIGN, &g->wbase, err);
    if (st == DV_OK)
        st = dv_rt_malloc(g->d, p->rep.peak + 2 * DV_PLAN_ALIGN, &g->abase, err);
    if (st == DV_OK && wbytes)
        st = dv_rt_memcpy_h2d(g->d, g->wbase, p->weights, wbytes, err);
    unsigned n;
    int *in = dv_plan_inputs(p, &n);
    if (st == DV_OK && !in)
        st = dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    if (st == DV_OK && n != ninputs)
        st = dv_error_set(err, DV_ERR_INPUT, "the plan has %u inputs, %u given", n, ninputs);
    for (unsigned k = 0; st == DV_OK && k < n; k++) {
        const dv_plan_tensor *t = &p->t[in[k]];
        if (dv_gtensor_count(&inputs[k]) != playout_count(t))
            st = dv_error_set(err, DV_ERR_INPUT, "input '%s' has %lld elements, the plan was made for %lld",
                              t->name, (long long)dv_gtensor_count(&inputs[k]), (long long)playout_count(t));
        else if (g->data)
            st = write_tensor(g, in[k], inputs[k].data, err);
    }
    free(in);
    return st;
}

/* The steps on their streams, with an event for every edge between two streams. */
static dv_status enqueue(grun *g, const psched *sc, dv_rt_stream **streams, dv_rt_event **ev, dv_error *err)
{
    const dv_plan *p = g->p;
    dv_status st = DV_OK;
    for (unsigned i = 0; i < p->nsteps && st == DV_OK; i++) {
        dv_rt_stream *s = streams[sc->stream[i]];
        g->res->step[i].stream = sc->stream[i];
        for (unsigned e = 0; e < sc->nedges && st == DV_OK; e++) {
            const psched_edge *x = &sc->edge[e];
            if (x->to != i || sc->stream[x->from] == sc->stream[i])
                continue;
            st = dv_rt_stream_wait_event(s, ev[x->from], err);
            g->res->events++;
        }
        if (st != DV_OK)
            break;
        if (p->s[i].kind == DV_STEP_DEVICE)
            st = launch_device(g, s, i, err);
        else {
            g->jobs[i] = (host_job){.g = g, .step = i};
            st = dv_rt_launch_host_func(s, host_fn, &g->jobs[i], err);
        }
        if (st == DV_OK)
            st = dv_rt_event_record(ev[i], s, err);
    }
    return st;
}

/* The figures of each step from its launches' records. */
static dv_status collect(grun *g, dv_error *err)
{
    dv_graph_run_result *res = g->res;
    res->launches = dv_rt_record_count(g->d);
    for (unsigned i = 0; i < res->launches; i++) {
        const dv_rt_record *r = dv_rt_record_at(g->d, i);
        res->gm_bytes += r->gm_read + r->gm_write;
    }
    for (unsigned i = 0; i < g->p->nsteps; i++) {
        dv_graph_step_run *s = &res->step[i];
        if (g->p->s[i].kind == DV_STEP_LAYOUT)
            res->layout_cycles += g->p->s[i].cost_cycles;
        if (g->p->s[i].kind != DV_STEP_DEVICE) { /* the host's reads and writes: its tensors' layout bytes */
            s->gm_bytes = g->data ? g->p->s[i].gm_bytes : 0;
            res->gm_bytes += s->gm_bytes;
            continue;
        }
        for (unsigned k = 0; k < s->nrecords; k++) {
            const dv_rt_record *r = dv_rt_record_at(g->d, s->first_record + k);
            if (r->stop != DV_STOP_DONE)
                return dv_error_set(err, DV_ERR_INPUT, "step %u (%s %s): launch %s did not finish: %s", i,
                                    g->p->s[i].op, g->p->s[i].params, r->label, r->message);
            if (k == 0)
                s->start = r->start_cycle;
            s->end = r->end_cycle;
            s->gm_bytes += r->gm_read + r->gm_write;
            for (unsigned w = 0; w < DV_CORESET_WORDS; w++)
                s->cores.w[w] |= r->cores_used.w[w];
            if (r->has_roofline) {
                s->has_roofline = true;
                s->roofline = r->roofline;
            }
        }
    }
    res->cycles = dv_rt_device_now(g->d);
    dv_rt_race *races = NULL;
    dv_status st = dv_rt_races(g->d, &races, &res->nraces, err);
    if (st == DV_OK && res->nraces)
        res->first_race = races[0];
    free(races);
    return st;
}

static dv_status read_outputs(grun *g, dv_error *err)
{
    unsigned n;
    int *out = dv_plan_outputs(g->p, &n);
    g->res->outputs = calloc(n + 1, sizeof *g->res->outputs);
    if (!out || !g->res->outputs) {
        free(out);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    }
    g->res->noutputs = n;
    dv_status st = DV_OK;
    for (unsigned k = 0; k < n && st == DV_OK; k++) {
        const dv_plan_tensor *t = &g->p->t[out[k]];
        dv_gtensor *o = &g->res->outputs[k];
        o->name = (char *)t->name;
        o->rank = t->rank;
        memcpy(o->dims, t->dims, sizeof o->dims);
        o->dtype = 1; /* FLOAT */
        if (g->data)
            st = read_tensor(g, out[k], &o->data, err);
    }
    free(out);
    return st;
}

dv_status dv_graph_run(const dv_plan *p, const dv_gtensor *inputs, unsigned ninputs,
                       const dv_graph_run_opts *opt, dv_graph_run_result **out, dv_error *err)
{
    *out = NULL;
    unsigned nstreams = opt && opt->streams ? opt->streams : 1;
    if (nstreams > DV_RT_MAX_STREAMS)
        return dv_error_set(err, DV_ERR_USAGE, "at most %d streams, not %u", DV_RT_MAX_STREAMS, nstreams);
    if (!p->g && p->rep.steps_host)
        return dv_error_set(err, DV_ERR_INPUT,
                            "the plan has %u host steps and no graph to compute them (a .dvm): run the ONNX "
                            "model",
                            p->rep.steps_host);
    dv_chip_config cfg;
    dv_status st = dv_config_builtin(p->chip, &cfg, err);
    if (st != DV_OK)
        return st;
    grun g = {.p = p, .data = !(opt && opt->timing_only)};
    psched sc = {0};
    dv_rt_stream *streams[DV_RT_MAX_STREAMS] = {NULL};
    dv_rt_event **ev = calloc(p->nsteps + 1, sizeof *ev);
    g.res = calloc(1, sizeof *g.res);
    g.jobs = calloc(p->nsteps + 1, sizeof *g.jobs);
    if (g.res)
        g.res->step = calloc(p->nsteps + 1, sizeof *g.res->step);
    if (!ev || !g.res || !g.jobs || !g.res->step || (p->g && !(g.v = dv_graph_clone(p->g))))
        st = dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    if (st == DV_OK)
        g.res->nsteps = p->nsteps;
    if (st == DV_OK)
        st = psched_build(p, nstreams, opt && opt->no_reuse_edges, &sc, err);
    dv_rt_options ro = {.data = g.data, .race_check = true, .threads = 1};
    if (st == DV_OK)
        st = dv_rt_device_open(&cfg, &ro, &g.d, err);
    if (st == DV_OK && opt && opt->on_open)
        st = opt->on_open(opt->user, g.d, err);
    for (unsigned k = 0; k < nstreams && st == DV_OK; k++) {
        char name[32];
        snprintf(name, sizeof name, "stream%u", k);
        st = dv_rt_stream_create(g.d, name, &streams[k], err);
    }
    for (unsigned i = 0; i < p->nsteps && st == DV_OK; i++)
        st = dv_rt_event_create(g.d, p->s[i].op, &ev[i], err);
    if (st == DV_OK) {
        g.res->edges_data = sc.data;
        g.res->edges_reuse = sc.reuse;
        st = load(&g, inputs, ninputs, err);
    }
    if (st == DV_OK)
        st = enqueue(&g, &sc, streams, ev, err);
    if (st == DV_OK)
        st = dv_rt_device_synchronize(g.d, err);
    if (st == DV_OK && g.herr.status != DV_OK)
        st = dv_error_set(err, g.herr.status, "%s", g.herr.msg);
    if (st == DV_OK)
        st = collect(&g, err);
    if (st == DV_OK)
        st = read_outputs(&g, err);
    if (st == DV_OK && opt && opt->on_done)
        st = opt->on_done(opt->user, g.d, g.res, err);
    for (unsigned i = 0; ev && i < p->nsteps; i++)
        if (ev[i])
            dv_rt_event_destroy(ev[i]);
    free(ev);
    if (g.d)
        dv_rt_device_close(g.d);
    psched_free(&sc);
    dv_graph_destroy(g.v);
    free(g.jobs);
    if (st != DV_OK) {
        dv_graph_run_free(g.res);
        return st;
    }
    *out = g.res;
    return DV_OK;
}

void dv_graph_run_free(dv_graph_run_result *r)
{
    if (!r)
        return;
    for (unsigned k = 0; r->outputs && k < r->noutputs; k++)
        free(r->outputs[k].data);
    free(r->outputs);
    free(r->step);
    free(r);
}
