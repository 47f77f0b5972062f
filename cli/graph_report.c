/* graph_report.c - dvsim graph's report: a row per plan step (what ran,
 * its stream and cores, when, how long, what bounds it), then the run's
 * totals and the check against the CPU reference.  Every figure is the
 * runtime's (dv_rt_record: cycles, cores, GM bytes; the operator's roofline,
 * dv_opr_roofline_of, the one dvsim run reports) or the plan's (the GM peak,
 * the layout steps' cost). */
#include "graph_report.h"

#include <stdio.h>
#include <string.h>

static double latency_us(const graph_report *r)
{
    return (double)r->res->cycles / (double)r->cfg->clock_mhz;
}

static double throughput(const graph_report *r)
{
    double us = latency_us(r);
    return us > 0 ? (double)r->batch * 1e6 / us : 0;
}

/* The step's shape parameters without the flags that are off (TA=0, BIAS=0 ...): what the table has room
 * for (--json has them all). */
static void short_params(const char *params, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (const char *q = params; *q && k + 1 < len;) {
        const char *e = strchr(q, ',');
        size_t n = e ? (size_t)(e - q) : strlen(q);
        bool off = n > 2 && q[n - 2] == '=' && q[n - 1] == '0';
        if (!off)
            k += (size_t)snprintf(buf + k, len - k, "%s%.*s", k ? "," : "", (int)n, q);
        q += n + (e != NULL);
    }
}

static void step_op(const dv_plan_step *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s",
             s->kind == DV_STEP_HOST     ? "host:"
             : s->kind == DV_STEP_LAYOUT ? "layout:"
                                         : "",
             s->op);
}

void graph_report_print(const graph_report *r)
{
    const dv_plan *p = r->p;
    const dv_graph_run_result *res = r->res;
    printf("%s on %s, -O%d, %u stream%s, batch %lld; inputs %s\n", r->model, p->chip, p->opt, r->streams,
           r->streams == 1 ? "" : "s", (long long)r->batch, r->inputs);
    printf("%4s %-22s %-44s %3s %-10s %10s %9s %-10s %6s\n", "step", "operator", "shape", "str", "cores",
           "start", "cycles", "bound", "%peak");
    for (unsigned i = 0; i < p->nsteps; i++) {
        const dv_plan_step *s = &p->s[i];
        const dv_graph_step_run *sr = &res->step[i];
        char op[64], cores[64] = "-", cyc[32], shape[192] = "-";
        step_op(s, op, sizeof op);
        if (s->kind == DV_STEP_DEVICE)
            short_params(s->params, shape, sizeof shape);
        if (s->kind == DV_STEP_DEVICE)
            dv_coreset_format(&sr->cores, cores, sizeof cores);
        if (s->kind == DV_STEP_LAYOUT)
            snprintf(cyc, sizeof cyc, "(%.0f)", s->cost_cycles);
        else
            snprintf(cyc, sizeof cyc, "%llu", (unsigned long long)(sr->end - sr->start));
        printf("%4u %-22s %-44s %3u %-10.10s %10llu %9s", i, op, shape, sr->stream, cores,
               (unsigned long long)sr->start, cyc);
        if (sr->has_roofline)
            printf(" %-10s %5.1f%%\n", sr->roofline.bound_by, 100.0 * sr->roofline.achieved);
        else
            printf(" %-10s %6s\n", s->kind == DV_STEP_LAYOUT ? "HBM" : "host", "-");
    }
    printf("(start: the step's first launch began on the chip, cycles after the run began; cycles: its "
           "launches' "
           "first start to last end;\n host and layout steps run as host callbacks in 0 simulated cycles, a "
           "layout's (cost) is the compiler's GM bytes / HBM rate)\n");
    printf("latency: %llu cycles, %.2f us at %u MHz; throughput %.1f inferences/s (batch %lld)\n",
           (unsigned long long)res->cycles, latency_us(r), (unsigned)r->cfg->clock_mhz, throughput(r),
           (long long)r->batch);
    printf("layout conversions: %u steps, %.0f cycles costed by the compiler (not in the latency)\n",
           p->rep.steps_layout, res->layout_cycles);
    printf(
        "GM: peak %llu bytes of activations (the plan's), weights %llu bytes; %llu bytes moved (between GM "
        "and the cores, and by host steps)\n",
        (unsigned long long)p->rep.peak, (unsigned long long)p->rep.weights_bytes,
        (unsigned long long)res->gm_bytes);
    printf("launches: %u kernel launches for %u device steps, %u host, %u layout\n", res->launches,
           p->rep.steps_device, p->rep.steps_host, p->rep.steps_layout);
    printf("schedule: %u data edges, %u buffer-reuse edges, %u event waits; races: %u\n", res->edges_data,
           res->edges_reuse, res->events, res->nraces);
    const graph_check *c = &r->check;
    if (!c->done)
        printf("check: not done (%s)\n", c->why_not);
    else if (!c->mismatches)
        printf(
            "check: PASS, %llu elements vs the CPU reference; max abs error %.3g, max rel error %.3g (%s)\n",
            (unsigned long long)c->compared, c->max_abs, c->max_rel, c->rule);
    else
        printf("check: FAIL, %llu of %llu elements outside %s; first: %s; max abs error %.3g\n",
               (unsigned long long)c->mismatches, (unsigned long long)c->compared, c->rule, c->first_bad,
               c->max_abs);
}

static cJSON *step_json(const graph_report *r, unsigned i, bool *ok)
{
    const dv_plan_step *s = &r->p->s[i];
    const dv_graph_step_run *sr = &r->res->step[i];
    cJSON *o = cJSON_CreateObject();
    char cores[256] = "";
    if (!o) {
        *ok = false;
        return NULL;
    }
    dv_coreset_format(&sr->cores, cores, sizeof cores);
    cJSON_AddNumberToObject(o, "step", i);
    cJSON_AddStringToObject(o, "kind", dv_step_kind_name(s->kind));
    cJSON_AddStringToObject(o, "op", s->op);
    cJSON_AddStringToObject(o, "variant", s->variant);
    cJSON_AddStringToObject(o, "shape", s->params);
    cJSON_AddStringToObject(o, "note", s->note);
    cJSON_AddNumberToObject(o, "stream", sr->stream);
    cJSON_AddStringToObject(o, "cores", cores);
    cJSON_AddNumberToObject(o, "launches", sr->nrecords);
    *ok &= cli_json_add_u64(o, "start", sr->start) && cli_json_add_u64(o, "end", sr->end) &&
           cli_json_add_u64(o, "cycles", sr->end - sr->start) &&
           cli_json_add_u64(o, "gm_bytes", sr->gm_bytes);
    cJSON_AddNumberToObject(o, "cost_cycles", s->cost_cycles);
    if (sr->has_roofline) {
        cJSON_AddStringToObject(o, "bound", sr->roofline.bound_by);
        cJSON_AddNumberToObject(o, "bound_cycles", sr->roofline.bound_cycles);
        cJSON_AddNumberToObject(o, "peak_pct", 100.0 * sr->roofline.achieved);
    }
    return o;
}

int graph_report_json(const graph_report *r)
{
    const dv_graph_run_result *res = r->res;
    const dv_plan *p = r->p;
    cJSON *root = cJSON_CreateObject(), *steps = cJSON_AddArrayToObject(root, "steps"),
          *chk = cJSON_AddObjectToObject(root, "check");
    bool ok = root && steps && chk;
    if (!ok)
        return cli_print_json(root, false);
    cJSON_AddStringToObject(root, "model", r->model);
    cJSON_AddStringToObject(root, "chip", p->chip);
    cJSON_AddNumberToObject(root, "opt", p->opt);
    cJSON_AddNumberToObject(root, "streams", r->streams);
    cJSON_AddNumberToObject(root, "batch", (double)r->batch);
    cJSON_AddStringToObject(root, "inputs", r->inputs);
    for (unsigned i = 0; i < p->nsteps; i++)
        cJSON_AddItemToArray(steps, step_json(r, i, &ok));
    ok &= cli_json_add_u64(root, "latency_cycles", res->cycles) &&
          cli_json_add_u64(root, "peak_gm_bytes", p->rep.peak) &&
          cli_json_add_u64(root, "weights_bytes", p->rep.weights_bytes) &&
          cli_json_add_u64(root, "gm_bytes", res->gm_bytes);
    cJSON_AddNumberToObject(root, "latency_us", latency_us(r));
    cJSON_AddNumberToObject(root, "inferences_per_s", throughput(r));
    cJSON_AddNumberToObject(root, "clock_mhz", (double)r->cfg->clock_mhz);
    cJSON_AddNumberToObject(root, "launches", res->launches);
    cJSON_AddNumberToObject(root, "steps_device", p->rep.steps_device);
    cJSON_AddNumberToObject(root, "steps_host", p->rep.steps_host);
    cJSON_AddNumberToObject(root, "steps_layout", p->rep.steps_layout);
    cJSON_AddNumberToObject(root, "layout_cycles", res->layout_cycles);
    cJSON_AddNumberToObject(root, "edges_data", res->edges_data);
    cJSON_AddNumberToObject(root, "edges_reuse", res->edges_reuse);
    cJSON_AddNumberToObject(root, "event_waits", res->events);
    cJSON_AddNumberToObject(root, "races", res->nraces);
    /* the outputs' sums, so two runs (-O0 and -O2) can be compared without the values */
    cJSON *outs = cJSON_AddArrayToObject(root, "outputs");
    for (unsigned k = 0; outs && k < res->noutputs; k++) {
        const dv_gtensor *t = &res->outputs[k];
        cJSON *o = cJSON_CreateObject(), *dims = cJSON_AddArrayToObject(o, "dims");
        double sum = 0, sum_abs = 0;
        for (int64_t e = 0; t->data && e < dv_gtensor_count(t); e++) {
            sum += t->data[e];
            sum_abs += t->data[e] < 0 ? -t->data[e] : t->data[e];
        }
        cJSON_AddItemToArray(outs, o);
        cJSON_AddStringToObject(o, "name", t->name);
        for (int d = 0; dims && d < t->rank; d++)
            cJSON_AddItemToArray(dims, cJSON_CreateNumber((double)t->dims[d]));
        cJSON_AddNumberToObject(o, "sum", sum);
        cJSON_AddNumberToObject(o, "sum_abs", sum_abs);
    }
    const graph_check *c = &r->check;
    cJSON_AddBoolToObject(chk, "done", c->done);
    cJSON_AddBoolToObject(chk, "passed", c->done && c->compared && !c->mismatches);
    if (!c->done)
        cJSON_AddStringToObject(chk, "why_not", c->why_not);
    ok &=
        cli_json_add_u64(chk, "compared", c->compared) && cli_json_add_u64(chk, "mismatches", c->mismatches);
    cJSON_AddNumberToObject(chk, "max_abs", c->max_abs);
    cJSON_AddNumberToObject(chk, "max_rel", c->max_rel);
    cJSON_AddStringToObject(chk, "rule", c->rule);
    cJSON_AddStringToObject(chk, "first_bad", c->first_bad);
    return cli_print_json(root, ok);
}
