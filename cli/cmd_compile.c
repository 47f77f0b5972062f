/* cmd_compile.c - dvsim compile: an ONNX model through the graph compiler
 * (graph/) into a compiled-model file (.dvm), with what each pass did, the
 * plan's steps and its GM peak; --ref runs the plan on the CPU reference and
 * checks it against the expected outputs and against the unfused (-O0)
 * plan.  Given a .dvm, it reads it back and prints the plan it holds. */
#include "cli.h"
#include "dv_config.h"
#include "dv_graph.h"
#include "dv_plan.h"
#include "model_data.h"

#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void cmd_compile_help(FILE *out)
{
    fprintf(
        out,
        "usage: dvsim compile MODEL.onnx [-o MODEL.dvm] [-O0|-O1|-O2] [--chip C] [--streams N] [--json]\n"
        "                     [--ref [--data DIR] [--seed S]]\n"
        "       dvsim compile MODEL.dvm [--json]\n\n"
        "Compiles an ONNX model for the chip: shape inference and folding, BatchNorm folding (-O1),\n"
        "fusion into conv2d_bias_relu, the matmul epilogue and attention (-O2), layouts (NC1HWC0,\n"
        "FracZ, NZ) with costed conversions, and a GM plan with buffer reuse (-O1).  Prints what each\n"
        "pass did, every step (a dvsim operator run, a host step, or a layout conversion, with its\n"
        "tensors' GM offsets), the GM peak before and after reuse, and the compile time (CPU).\n\n"
        "  -o FILE      write the compiled model (.dvm, docs/graphs.md)\n"
        "  -O LEVEL     0 (no fusion, no reuse), 1, 2 (default)\n"
        "  --chip NAME  ascend910 (default), ascend910b, ... (dvsim chips)\n"
        "  --streams N  plan GM for dvsim graph --streams N: reuse only along the data's dependencies (1)\n"
        "  --ref        run the plan on the CPU, each device step from its operator parameters: compare\n"
        "               with the expected outputs of\n"
        "               --data DIR (input_N.pb / output_N.pb; default MODEL's test_data_set_0 if\n"
        "               there) and with the -O0 plan's outputs (fp16 tolerance); exit 1 if off\n"
        "  --seed S     inputs drawn uniform in [-1, 1) with seed S when there is no data (1)\n"
        "  --json       the report as JSON\n"
        "Given a .dvm, prints the plan it holds.  Exit codes: 65 a malformed or unsupported model\n"
        "or .dvm, 66 no such file, 1 a --ref mismatch.\n");
}

enum { OPT_CHIP = CLI_OPT_FIRST, OPT_JSON, OPT_REF, OPT_DATA, OPT_SEED, OPT_STREAMS };

typedef struct compile_opts {
    const char *model, *out, *chip, *data;
    int opt;
    bool json, ref;
    uint64_t seed, streams;
} compile_opts;

static double cpu_seconds(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

static void print_tensor_ref(const dv_plan *p, int i)
{
    const dv_plan_tensor *t = &p->t[i];
    printf("%s[%s%s@%llu]", t->name, dv_tlayout_name(t->layout), t->weight ? " weight " : " ",
           (unsigned long long)t->offset);
}

static void print_plan(const dv_plan *p, const char *what)
{
    const dv_plan_report *r = &p->rep;
    printf("%s: -O%d for %s, %u steps (%u device, %u host, %u layout)\n", what, p->opt, p->chip, p->nsteps,
           r->steps_device, r->steps_host, r->steps_layout);
    if (p->log[0])
        printf("passes:\n%s", p->log);
    printf("steps:\n");
    for (unsigned i = 0; i < p->nsteps; i++) {
        const dv_plan_step *s = &p->s[i];
        printf("  %3u %-6s %-16s", i, dv_step_kind_name(s->kind), s->op);
        if (s->kind == DV_STEP_DEVICE)
            printf(" %s %s %s", s->variant, s->dtype, s->params);
        printf("  ");
        for (unsigned k = 0; k < s->nin; k++) {
            printf("%s", k ? " " : "");
            print_tensor_ref(p, s->in[k]);
        }
        printf(" -> ");
        for (unsigned k = 0; k < s->nout; k++) {
            printf("%s", k ? " " : "");
            print_tensor_ref(p, s->out[k]);
        }
        if (s->kind == DV_STEP_LAYOUT)
            printf("  %.0f cycles", s->cost_cycles);
        if (s->note[0])
            printf("  (%s)", s->note);
        printf("\n");
    }
    printf("folded: %u shape ops, %u constant nodes, %u BatchNorms; fused: %u conv2d_bias_relu, %u matmul "
           "epilogues, %u attention, %u erf GELUs\n",
           r->shape_folded, r->const_folded, r->bn_folded, r->fused_conv, r->fused_matmul, r->fused_attention,
           r->fused_gelu);
    printf("layouts: %u NZ and %u FracZ weights, %u conversions (%.0f cycles at %llu B/cycle)\n",
           r->nz_weights, r->fracz_weights, r->conversions, r->conversion_cycles,
           (unsigned long long)p->hbm_bytes_per_cycle);
    printf(
        "GM: peak %llu bytes as planned (%s), %llu if no buffer were shared (%.1f%%); weights %llu bytes\n",
        (unsigned long long)r->peak, p->opt ? "liveness-based reuse" : "-O0: no reuse",
        (unsigned long long)r->peak_no_reuse,
        r->peak_no_reuse ? 100.0 * (double)r->peak / (double)r->peak_no_reuse : 100.0,
        (unsigned long long)r->weights_bytes);
    if (r->symbolic[0])
        printf("note: symbolic dims of %s planned as 1\n", r->symbolic);
}

static cJSON *plan_json(const dv_plan *p, bool *ok)
{
    cJSON *root = cJSON_CreateObject(), *rep = cJSON_AddObjectToObject(root, "report");
    const dv_plan_report *r = &p->rep;
    *ok = root && rep;
    if (!*ok)
        return root;
    cJSON_AddStringToObject(root, "chip", p->chip);
    cJSON_AddNumberToObject(root, "opt", p->opt);
    cJSON *passes = cJSON_AddArrayToObject(root, "passes");
    char line[512];
    for (const char *s = p->log; *s;) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        snprintf(line, sizeof line, "%.*s", (int)(n < 511 ? n : 511), s);
        cJSON_AddItemToArray(passes, cJSON_CreateString(line));
        s += n + (e != NULL);
    }
    const struct {
        const char *k;
        double v;
    } f[] = {{"nodes_in", r->nodes_in},
             {"shape_folded", r->shape_folded},
             {"const_folded", r->const_folded},
             {"bn_folded", r->bn_folded},
             {"aliases", r->aliases},
             {"fused_conv", r->fused_conv},
             {"fused_matmul", r->fused_matmul},
             {"fused_attention", r->fused_attention},
             {"fused_gelu", r->fused_gelu},
             {"layernorms", r->layernorms},
             {"rmsnorms", r->rmsnorms},
             {"nz_weights", r->nz_weights},
             {"fracz_weights", r->fracz_weights},
             {"conversions", r->conversions},
             {"conversion_cycles", r->conversion_cycles},
             {"steps", p->nsteps},
             {"steps_device", r->steps_device},
             {"steps_host", r->steps_host},
             {"steps_layout", r->steps_layout}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        cJSON_AddNumberToObject(rep, f[i].k, f[i].v);
    *ok &= cli_json_add_u64(rep, "weights_bytes", r->weights_bytes) &&
           cli_json_add_u64(rep, "peak_no_reuse_bytes", r->peak_no_reuse) &&
           cli_json_add_u64(rep, "peak_bytes", r->peak);
    cJSON *ts = cJSON_AddArrayToObject(root, "tensors"), *ss = cJSON_AddArrayToObject(root, "steps");
    for (unsigned i = 0; i < p->ntensors && ts; i++) {
        const dv_plan_tensor *t = &p->t[i];
        cJSON *o = cJSON_CreateObject(), *dims = cJSON_AddArrayToObject(o, "dims");
        cJSON_AddItemToArray(ts, o);
        cJSON_AddStringToObject(o, "name", t->name);
        cJSON_AddStringToObject(o, "layout", dv_tlayout_name(t->layout));
        for (int d = 0; d < t->rank; d++)
            cJSON_AddItemToArray(dims, cJSON_CreateNumber((double)t->dims[d]));
        *ok &= cli_json_add_u64(o, "bytes", t->bytes) && cli_json_add_u64(o, "offset", t->offset);
        cJSON_AddStringToObject(o, "region", t->weight ? "weights" : "activations");
        cJSON_AddBoolToObject(o, "input", t->input);
        cJSON_AddBoolToObject(o, "output", t->output);
        cJSON_AddNumberToObject(o, "alias", t->alias);
        cJSON_AddNumberToObject(o, "first_step", t->first);
        cJSON_AddNumberToObject(o, "last_step", t->last);
    }
    for (unsigned i = 0; i < p->nsteps && ss; i++) {
        const dv_plan_step *s = &p->s[i];
        cJSON *o = cJSON_CreateObject(), *in = cJSON_AddArrayToObject(o, "inputs"),
              *out = cJSON_AddArrayToObject(o, "outputs");
        cJSON_AddItemToArray(ss, o);
        cJSON_AddStringToObject(o, "kind", dv_step_kind_name(s->kind));
        cJSON_AddStringToObject(o, "op", s->op);
        if (s->kind == DV_STEP_DEVICE) {
            cJSON_AddStringToObject(o, "variant", s->variant);
            cJSON_AddStringToObject(o, "dtype", s->dtype);
            cJSON_AddStringToObject(o, "shape", s->params);
        }
        for (unsigned k = 0; k < s->nin; k++)
            cJSON_AddItemToArray(in, cJSON_CreateNumber(s->in[k]));
        for (unsigned k = 0; k < s->nout; k++)
            cJSON_AddItemToArray(out, cJSON_CreateNumber(s->out[k]));
        cJSON_AddStringToObject(o, "note", s->note);
        cJSON_AddNumberToObject(o, "cost_cycles", s->cost_cycles);
        *ok &= cli_json_add_u64(o, "gm_bytes", s->gm_bytes);
    }
    *ok &= ts && ss && passes;
    return root;
}

/* The two outputs agree within fp16's tolerance; *max_abs the largest difference. */
static bool close_enough(const dv_gtensor *a, const dv_gtensor *b, double *max_abs)
{
    int64_t n = dv_gtensor_count(a);
    if (n != dv_gtensor_count(b) || !a->data || !b->data)
        return false;
    bool ok = true;
    for (int64_t e = 0; e < n; e++) {
        double d = fabs(a->data[e] - b->data[e]);
        *max_abs = d > *max_abs ? d : *max_abs;
        ok &= d <= ldexp(fabs(b->data[e]), -10) + ldexp(1, -14) || (isnan(a->data[e]) && isnan(b->data[e]));
    }
    return ok;
}

static int run_ref(const compile_opts *o, dv_graph *g, const dv_plan *plan, const dv_chip_config *cfg)
{
    char dir[2048], path[2200];
    bool have_data = model_data_dir(o->model, o->data, dir, sizeof dir);
    dv_error err = {0};
    unsigned nin = g->ninputs, nout = g->noutputs;
    dv_gtensor *in = calloc(nin + 1, sizeof *in), *want = calloc(nout + 1, sizeof *want);
    dv_graph *vals = NULL, *vals0 = NULL;
    dv_plan *p0 = NULL;
    int rc = 0;
    uint64_t seed = o->seed;
    if (!in || !want) {
        rc = 71;
        goto out;
    }
    for (unsigned k = 0; k < nin; k++) {
        if (have_data) {
            snprintf(path, sizeof path, "%s/input_%u.pb", dir, k);
            if (dv_gtensor_read_pb_file(path, &in[k], &err) != DV_OK) {
                rc = cli_fail(&err);
                goto out;
            }
            continue;
        }
        const dv_gtensor *t = &plan->g->t[plan->g->inputs[k]];
        int64_t n = dv_gtensor_count(t);
        in[k] = *t;
        in[k].name = NULL;
        in[k].data = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
        if (!in[k].data) {
            rc = 71;
            goto out;
        }
        model_fill_uniform(in[k].data, n, &seed);
    }
    if (dv_plan_exec_run(plan, in, nin, &vals, &err) != DV_OK ||
        dv_plan_compile(g, 0, cfg, &p0, &err) != DV_OK ||
        dv_plan_ref_run(p0, in, nin, &vals0, &err) != DV_OK) {
        rc = cli_fail(&err);
        goto out;
    }
    for (unsigned k = 0; k < nout; k++) {
        const dv_gtensor *got = dv_plan_ref_output(plan, vals, k), *got0 = dv_plan_ref_output(p0, vals0, k);
        double d0 = 0, dw = 0;
        bool same = close_enough(got, got0, &d0), match = true;
        if (have_data) {
            snprintf(path, sizeof path, "%s/output_%u.pb", dir, k);
            if (dv_gtensor_read_pb_file(path, &want[k], &err) != DV_OK) {
                rc = cli_fail(&err);
                goto out;
            }
            match = close_enough(got, &want[k], &dw);
        }
        if (!o->json) {
            printf("ref: output '%s': -O%d plan (operators' parameters) vs -O0 (node reference) max |diff| "
                   "%.3g %s",
                   got->name, plan->opt, d0, same ? "ok" : "MISMATCH");
            if (have_data)
                printf(", vs expected max |diff| %.3g %s", dw, match ? "ok" : "MISMATCH");
            printf("\n");
        }
        if (!same || !match)
            rc = 1;
    }
    if (!o->json)
        printf("ref: %s (inputs %s; fp16 tolerance 2^-10 |want| + 2^-14)\n", rc ? "FAILED" : "passed",
               have_data ? dir : "seeded uniform [-1, 1)");
out:
    for (unsigned k = 0; in && k < nin; k++)
        dv_gtensor_free(&in[k]);
    for (unsigned k = 0; want && k < nout; k++)
        dv_gtensor_free(&want[k]);
    free(in);
    free(want);
    dv_graph_destroy(vals);
    dv_graph_destroy(vals0);
    dv_plan_destroy(p0);
    return rc;
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

static int show_dvm(const compile_opts *o)
{
    dv_plan *p;
    dv_error err = {0};
    if (dv_dvm_read_file(o->model, &p, &err) != DV_OK)
        return cli_fail(&err);
    int rc;
    if (o->json) {
        bool ok;
        cJSON *root = plan_json(p, &ok);
        cJSON_AddStringToObject(root, "file", o->model);
        rc = cli_print_json(root, ok);
    } else {
        print_plan(p, o->model);
        rc = 0;
    }
    dv_plan_destroy(p);
    return rc;
}

static int parse(int argc, char **argv, compile_opts *o)
{
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'},
                                             {"chip", required_argument, NULL, OPT_CHIP},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"ref", no_argument, NULL, OPT_REF},
                                             {"data", required_argument, NULL, OPT_DATA},
                                             {"seed", required_argument, NULL, OPT_SEED},
                                             {"streams", required_argument, NULL, OPT_STREAMS},
                                             {NULL, 0, NULL, 0}};
    cli_getopt g;
    cli_getopt_init(&g, "compile", argc, argv, "ho:O:", longopts, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        char *end;
        switch (c) {
        case 'h': cmd_compile_help(stdout); return -1;
        case 'o': o->out = g.arg; break;
        case 'O':
            if (strlen(g.arg) != 1 || g.arg[0] < '0' || g.arg[0] > '2')
                return cli_usage_error("compile", "-O takes 0, 1 or 2, not '%s'", g.arg);
            o->opt = g.arg[0] - '0';
            break;
        case OPT_CHIP: o->chip = g.arg; break;
        case OPT_JSON: o->json = true; break;
        case OPT_REF: o->ref = true; break;
        case OPT_DATA: o->data = g.arg; break;
        case OPT_SEED:
            o->seed = strtoull(g.arg, &end, 0);
            if (!g.arg[0] || *end)
                return cli_usage_error("compile", "--seed takes a number, not '%s'", g.arg);
            break;
        case OPT_STREAMS:
            o->streams = strtoull(g.arg, &end, 0);
            if (!g.arg[0] || *end || g.arg[0] == '-' || o->streams < 1 || o->streams > 64)
                return cli_usage_error("compile", "--streams takes a number from 1 to 64, not '%s'", g.arg);
            break;
        case CLI_ARG:
            if (o->model)
                return cli_usage_error("compile", "one model at a time");
            o->model = g.arg;
            break;
        default: return EXIT_USAGE;
        }
    }
    if (!o->model)
        return cli_usage_error("compile", "no model given");
    return 0;
}

int cmd_compile(int argc, char **argv)
{
    compile_opts o = {.opt = 2, .seed = 1, .streams = 1};
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (is_dvm(o.model)) {
        if (o.out || o.ref)
            return cli_usage_error("compile",
                                   "a .dvm is shown, not compiled: -o and --ref take an ONNX model");
        return show_dvm(&o);
    }
    dv_chip_config cfg;
    dv_error err = {0};
    if (dv_config_builtin(o.chip ? o.chip : dv_config_default_name(), &cfg, &err) != DV_OK)
        return cli_fail(&err);
    double t0 = cpu_seconds();
    dv_graph *g;
    if (dv_graph_import_file(o.model, &g, &err) != DV_OK)
        return cli_fail(&err);
    double t1 = cpu_seconds();
    dv_plan *p;
    if (dv_plan_compile_streams(g, o.opt, &cfg, (unsigned)o.streams, &p, &err) != DV_OK) {
        dv_graph_destroy(g);
        return cli_fail(&err);
    }
    double t2 = cpu_seconds();
    if (o.out && dv_dvm_write(p, o.out, &err) != DV_OK)
        rc = cli_fail(&err);
    if (!rc && o.json) {
        bool ok;
        cJSON *root = plan_json(p, &ok);
        cJSON_AddStringToObject(root, "model", o.model);
        cJSON_AddNumberToObject(root, "nodes", g->nnodes);
        cJSON_AddNumberToObject(root, "import_cpu_seconds", t1 - t0);
        cJSON_AddNumberToObject(root, "compile_cpu_seconds", t2 - t1);
        if (o.out)
            cJSON_AddStringToObject(root, "output", o.out);
        if (o.ref) {
            int r = run_ref(&o, g, p, &cfg);
            cJSON_AddStringToObject(root, "ref", r == 0 ? "passed" : "failed");
            rc = r;
        }
        int jr = cli_print_json(root, ok);
        rc = rc ? rc : jr;
    } else if (!rc) {
        print_plan(p, o.model);
        printf("compile: %u nodes, import %.3f ms, compile %.3f ms CPU%s%s\n", g->nnodes, 1e3 * (t1 - t0),
               1e3 * (t2 - t1), o.out ? "; wrote " : "", o.out ? o.out : "");
        if (o.ref)
            rc = run_ref(&o, g, p, &cfg);
    }
    dv_plan_destroy(p);
    dv_graph_destroy(g);
    return rc;
}
