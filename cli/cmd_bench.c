/* cmd_bench.c - dvsim bench: how fast the simulator itself is, on a fixed
 * set of workloads, next to the host's own fp32 GEMM rate measured in the
 * same run, so that the functional Cube's speed reads as a ratio; and what
 * a user waits for: whole `dvsim run` jobs (fill, simulation, reference
 * check), in wall and CPU seconds (the machines are shared).
 *
 * The simulator's workloads are timed over dv_sim_run alone, on one host
 * thread; the whole jobs over each phase of the operator driver. */
#include "cli.h"
#include "host_gemm.h"
#include "op_exec.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

void cmd_bench_help(FILE *out)
{
    fprintf(out,
            "usage: dvsim bench [--quick] [--large] [--json] [--out FILE]\n\n"
            "Times the simulator on fixed workloads (a cube-bound matmul on one core, a vector-bound\n"
            "operator, a multi-core matmul, attention when it exists), each with data and timing-only\n"
            "(--no-data), and reports host seconds (wall and the thread's CPU clock), simulated cycles,\n"
            "instructions and MACs per CPU second of the simulation; then whole jobs as dvsim run does\n"
            "them (matmul 1024^3 and 2048^3: fill, simulation, reference check); the host's single-thread\n"
            "fp32 GEMM rate (C with vector types, and OpenBLAS if installed) and the goals of\n"
            "docs/performance.md.\n\n"
            "  --quick     small shapes (for tests: the figures are not representative)\n"
            "  --large     also the whole 4096^3 jobs, on one core and on 32 (about a minute)\n"
            "  --json      print JSON instead of the table\n"
            "  --out FILE  also write the JSON to FILE\n");
}

typedef struct workload {
    const char *name;
    op_spec spec;
    op_outcome out;
} workload;

static const char *machine(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return buf;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                snprintf(buf, size, "%s", colon + 2);
                buf[strcspn(buf, "\n")] = '\0';
            }
            break;
        }
    }
    fclose(f);
    return buf;
}

/* -1: --help was printed; else an exit code. */
static int parse_opts(int argc, char **argv, bool *quick, bool *large, bool *json, const char **outfile)
{
    enum { QUICK = CLI_OPT_FIRST, LARGE, JSON, OUT };
    static const struct option longopts[] = {
        {"quick", no_argument, NULL, QUICK}, {"large", no_argument, NULL, LARGE},
        {"json", no_argument, NULL, JSON},   {"out", required_argument, NULL, OUT},
        {"help", no_argument, NULL, 'h'},    {NULL, 0, NULL, 0}};
    cli_getopt g;
    cli_getopt_init(&g, "bench", argc, argv, "h", longopts, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_bench_help(stdout); return -1;
        case QUICK: *quick = true; break;
        case LARGE: *large = true; break;
        case JSON: *json = true; break;
        case OUT: *outfile = g.arg; break;
        case CLI_ARG: return cli_usage_error("bench", "unknown argument '%s'", g.arg);
        default: return EXIT_USAGE;
        }
    }
    return 0;
}

/* The fixed workloads, each with data and timing only; returns how many. */
static unsigned plan(workload *w, bool quick)
{
    const char *mm1 = quick ? "M=256,N=256,K=256" : "M=1024,N=1024,K=1024";
    const char *mmN = quick ? "M=512,N=512,K=512" : "M=2048,N=2048,K=2048";
    const char *vec_op = dv_operator_find("softmax") ? "softmax" : "add";
    const char *vec_shape = strcmp(vec_op, "softmax") == 0 ? (quick ? "R=64,C=512" : "R=2048,C=1024")
                                                           : (quick ? "N=65536" : "N=16777216");
    bool attn = dv_operator_find("attention") != NULL;
    const char *attn_shape = quick ? "B=1,H=1,SQ=128,SK=256,D=64" : "B=1,H=2,SQ=512,SK=1024,D=128";
    unsigned n = 0;
    for (int data = 1; data >= 0; data--) {
        w[n++] =
            (workload){"matmul db f16, 1 core", {"matmul", "db", "f16", mm1, "ascend910", 1, data, true}};
        w[n++] =
            (workload){"vector op, 1 core", {vec_op, NULL, "f16", vec_shape, "ascend910", 1, data, true}};
        w[n++] =
            (workload){"matmul db f16, 32 cores", {"matmul", "db", "f16", mmN, "ascend910", 0, data, true}};
        w[n++] = (workload){"matmul db f16, same, 1 core",
                            {"matmul", "db", "f16", mmN, "ascend910", 1, data, true}};
        if (attn)
            w[n++] = (workload){"attention, ascend910b",
                                {"attention", NULL, NULL, attn_shape, "ascend910b", 0, data, true}};
    }
    return n;
}

/* Whole jobs, as `dvsim run matmul --variant db [--blocks 1]` does them. */
static unsigned plan_whole(workload *w, bool quick, bool large)
{
    unsigned n = 0;
    w[n++] = (workload){"matmul db f16 1024^3, 1 core",
                        {"matmul", "db", "f16", quick ? "M=128,N=128,K=128" : "M=1024,N=1024,K=1024",
                         "ascend910", 1, true, false}};
    w[n++] = (workload){"matmul db f16 2048^3, 1 core",
                        {"matmul", "db", "f16", quick ? "M=256,N=256,K=256" : "M=2048,N=2048,K=2048",
                         "ascend910", 1, true, false}};
    w[n++] = (workload){"matmul db f16 2048^3, 32 cores",
                        {"matmul", "db", "f16", quick ? "M=256,N=256,K=256" : "M=2048,N=2048,K=2048",
                         "ascend910", 0, true, false}};
    if (large && !quick) {
        w[n++] = (workload){"matmul db f16 4096^3, 1 core",
                            {"matmul", "db", "f16", "M=4096,N=4096,K=4096", "ascend910", 1, true, false}};
        w[n++] = (workload){"matmul db f16 4096^3, 32 cores",
                            {"matmul", "db", "f16", "M=4096,N=4096,K=4096", "ascend910", 0, true, false}};
    }
    return n;
}

static double whole_cpu(const op_outcome *o)
{
    return o->fill_cpu + o->sim_cpu + o->check_cpu;
}

static double whole_wall(const op_outcome *o)
{
    return o->fill_seconds + o->host_seconds + o->check_seconds;
}

static const op_outcome *find_whole(const workload *w, unsigned n, const char *name)
{
    for (unsigned i = 0; i < n; i++)
        if (strcmp(w[i].name, name) == 0)
            return &w[i].out;
    return NULL;
}

/* The host's GEMM rate and the goals of docs/performance.md, from the
 * 1-core matmul and the pair of 2048^3 runs. */
typedef struct results {
    unsigned gn; /* the host GEMM's size */
    double gemm_c, gemm_blas;
    char what_c[128], what_blas[128];
    double mac_rate, ratio, nd_ips, nd_cps, ns_multi, ns_single;
    unsigned pair_runs; /* of each of ns_multi and ns_single's medians */
} results;

static const workload *find_workload(const workload *w, unsigned n, const char *name, bool data)
{
    for (unsigned i = 0; i < n; i++)
        if (w[i].spec.data == data && strcmp(w[i].name, name) == 0)
            return &w[i];
    return NULL;
}

static const op_outcome *find_run(const workload *w, unsigned n, const char *name, bool data)
{
    const workload *x = find_workload(w, n, name, data);
    return x ? &x->out : NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The 32-vs-1-core goal is a ratio of two short runs (tens of ms on a
 * shared, noisy host): the timing-only pair again, alternating, and each
 * one's median CPU time per instruction. */
enum { PAIR_RUNS = 7 };

static void pair_medians(const workload *multi, const workload *single, bool quick, results *r)
{
    double m[PAIR_RUNS], s1[PAIR_RUNS];
    unsigned runs = quick ? 1 : PAIR_RUNS, k = 0;
    m[k] = 1e9 * multi->out.sim_cpu / (double)multi->out.insns;
    s1[k++] = 1e9 * single->out.sim_cpu / (double)single->out.insns;
    for (; k < runs; k++) {
        op_outcome om, os;
        op_exec(&multi->spec, &om);
        op_exec(&single->spec, &os);
        if (om.rc || os.rc || !om.insns || !os.insns)
            break;
        m[k] = 1e9 * om.sim_cpu / (double)om.insns;
        s1[k] = 1e9 * os.sim_cpu / (double)os.insns;
    }
    qsort(m, k, sizeof *m, cmp_double);
    qsort(s1, k, sizeof *s1, cmp_double);
    r->ns_multi = m[k / 2];
    r->ns_single = s1[k / 2];
    r->pair_runs = k;
}

static void measure(const workload *w, unsigned n, bool quick, results *r)
{
    r->gn = quick ? 256 : 1024;
    r->gemm_c = host_gemm_flops(r->gn, false, r->what_c, sizeof r->what_c);
    r->gemm_blas = host_gemm_flops(r->gn, true, r->what_blas, sizeof r->what_blas);
    double gemm_best = r->gemm_blas > r->gemm_c ? r->gemm_blas : r->gemm_c;
    const op_outcome *full1 = &w[0].out, *nodata1 = find_run(w, n, "matmul db f16, 1 core", false);
    /* the goals in CPU seconds of the simulation (one thread): the machines
     * are shared, wall time says how busy they were */
    r->mac_rate = (double)full1->macs / full1->sim_cpu;
    r->ratio = 2 * r->mac_rate / gemm_best;
    r->nd_ips = (double)nodata1->insns / nodata1->sim_cpu;
    r->nd_cps = (double)nodata1->cycles / nodata1->sim_cpu;
    pair_medians(find_workload(w, n, "matmul db f16, 32 cores", false),
                 find_workload(w, n, "matmul db f16, same, 1 core", false), quick, r);
}

/* A workload's object, named: "workload" and "run" (its request). */
static cJSON *workload_object(const workload *w)
{
    char name[256];
    op_spec_name(&w->spec, name, sizeof name);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "workload", w->name);
    cJSON_AddStringToObject(j, "run", name);
    return j;
}

static cJSON *workload_json(const workload *w)
{
    const op_outcome *o = &w->out;
    cJSON *j = workload_object(w);
    cJSON_AddBoolToObject(j, "data", w->spec.data);
    cJSON_AddNumberToObject(j, "host_seconds", o->host_seconds);
    cJSON_AddNumberToObject(j, "cpu_seconds", o->sim_cpu);
    cJSON_AddNumberToObject(j, "instructions_per_cpu_second",
                            o->sim_cpu > 0 ? (double)o->insns / o->sim_cpu : 0);
    cJSON_AddNumberToObject(j, "ns_per_instruction_cpu", 1e9 * o->sim_cpu / (double)o->insns);
    cJSON_AddNumberToObject(j, "cycles", (double)o->cycles);
    cJSON_AddNumberToObject(j, "instructions", (double)o->insns);
    cJSON_AddNumberToObject(j, "macs", (double)o->macs);
    cJSON_AddNumberToObject(j, "cycles_per_second", (double)o->cycles / o->host_seconds);
    cJSON_AddNumberToObject(j, "instructions_per_second", (double)o->insns / o->host_seconds);
    cJSON_AddNumberToObject(j, "macs_per_second", (double)o->macs / o->host_seconds);
    cJSON_AddNumberToObject(j, "ns_per_instruction", 1e9 * o->host_seconds / (double)o->insns);
    return j;
}

static cJSON *whole_json(const workload *w)
{
    const op_outcome *o = &w->out;
    cJSON *j = workload_object(w);
    cJSON_AddNumberToObject(j, "fill_seconds", o->fill_seconds);
    cJSON_AddNumberToObject(j, "fill_cpu_seconds", o->fill_cpu);
    cJSON_AddNumberToObject(j, "sim_seconds", o->host_seconds);
    cJSON_AddNumberToObject(j, "sim_cpu_seconds", o->sim_cpu);
    cJSON_AddNumberToObject(j, "check_seconds", o->check_seconds);
    cJSON_AddNumberToObject(j, "check_cpu_seconds", o->check_cpu);
    cJSON_AddNumberToObject(j, "total_seconds", whole_wall(o));
    cJSON_AddNumberToObject(j, "total_cpu_seconds", whole_cpu(o));
    cJSON_AddStringToObject(j, "reference", o->reference);
    cJSON_AddNumberToObject(j, "cycles", (double)o->cycles);
    return j;
}

static cJSON *to_json(const workload *w, unsigned n, const workload *wh, unsigned nw, bool quick,
                      const results *r, const char *cpu)
{
    cJSON *root = cJSON_CreateObject();
    struct utsname u;
    uname(&u);
    cJSON_AddStringToObject(root, "cpu", cpu);
    cJSON_AddStringToObject(root, "kernel", u.release);
    cJSON_AddBoolToObject(root, "quick", quick);
    cJSON *ws = cJSON_AddArrayToObject(root, "workloads");
    for (unsigned i = 0; i < n; i++)
        cJSON_AddItemToArray(ws, workload_json(&w[i]));
    cJSON *whole = cJSON_AddArrayToObject(root, "whole");
    for (unsigned i = 0; i < nw; i++)
        cJSON_AddItemToArray(whole, whole_json(&wh[i]));
    cJSON *g = cJSON_AddObjectToObject(root, "host_gemm");
    cJSON_AddNumberToObject(g, "n", r->gn);
    cJSON_AddNumberToObject(g, "c_flops", r->gemm_c);
    cJSON_AddStringToObject(g, "c_kernel", r->what_c);
    cJSON_AddNumberToObject(g, "openblas_flops", r->gemm_blas);
    cJSON_AddStringToObject(g, "openblas", r->what_blas);
    cJSON *goals = cJSON_AddObjectToObject(root, "goals");
    cJSON_AddNumberToObject(goals, "functional_flops_ratio", r->ratio);
    cJSON_AddBoolToObject(goals, "functional_ratio_met", r->ratio >= 0.30);
    cJSON_AddNumberToObject(goals, "nodata_instructions_per_second", r->nd_ips);
    cJSON_AddNumberToObject(goals, "nodata_cycles_per_second", r->nd_cps);
    cJSON_AddBoolToObject(goals, "nodata_met", r->nd_ips >= 5e6 && r->nd_cps >= 1e8);
    cJSON_AddNumberToObject(goals, "ns_per_instruction_32_cores", r->ns_multi);
    cJSON_AddNumberToObject(goals, "ns_per_instruction_1_core", r->ns_single);
    cJSON_AddNumberToObject(goals, "ns_per_instruction_runs", r->pair_runs);
    cJSON_AddBoolToObject(goals, "multicore_met", r->ns_multi <= r->ns_single);
    cJSON_AddNumberToObject(goals, "ns_per_instruction_ratio_32_to_1", r->ns_multi / r->ns_single);
    cJSON_AddBoolToObject(goals, "multicore_1_5x_met", r->ns_multi <= 1.5 * r->ns_single);
    const op_outcome *o = find_whole(wh, nw, "matmul db f16 1024^3, 1 core");
    if (o && !quick) {
        cJSON_AddNumberToObject(goals, "whole_1024_cpu_seconds", whole_cpu(o));
        cJSON_AddBoolToObject(goals, "whole_1024_met", whole_cpu(o) <= 0.15);
    }
    if ((o = find_whole(wh, nw, "matmul db f16 4096^3, 1 core"))) {
        cJSON_AddNumberToObject(goals, "whole_4096_cpu_seconds", whole_cpu(o));
        cJSON_AddBoolToObject(goals, "whole_4096_met", whole_cpu(o) <= 6);
    }
    if ((o = find_whole(wh, nw, "matmul db f16 4096^3, 32 cores"))) {
        cJSON_AddNumberToObject(goals, "whole_4096_32_cpu_seconds", whole_cpu(o));
        cJSON_AddBoolToObject(goals, "whole_4096_32_met", whole_cpu(o) <= 8);
    }
    return root;
}

static void print_whole(const workload *w, unsigned n)
{
    printf("\nwhole jobs (dvsim run), seconds wall / CPU of every thread:\n");
    printf("%-32s %15s %15s %15s %15s\n", "job", "fill", "simulation", "check", "total");
    for (unsigned i = 0; i < n; i++) {
        const op_outcome *o = &w[i].out;
        printf("%-32s %7.3f/%-7.3f %7.3f/%-7.3f %7.3f/%-7.3f %7.3f/%-7.3f\n", w[i].name, o->fill_seconds,
               o->fill_cpu, o->host_seconds, o->sim_cpu, o->check_seconds, o->check_cpu, whole_wall(o),
               whole_cpu(o));
    }
    if (n)
        printf("check: %s\n", w[0].out.reference);
}

static void print_table(const workload *w, unsigned n, const workload *wh, unsigned nw, bool quick,
                        const results *r, const char *cpu)
{
    printf("dvsim bench on %s%s\n\n", cpu, quick ? " (--quick: small shapes)" : "");
    printf("%-30s %-7s %8s %8s %12s %11s %11s %11s %8s\n", "workload", "mode", "wall s", "CPU s",
           "sim cycles", "cycles/s", "insns/s", "MACs/s", "ns/insn");
    for (unsigned i = 0; i < n; i++) {
        const op_outcome *o = &w[i].out;
        double t = o->sim_cpu > 0 ? o->sim_cpu : o->host_seconds;
        printf("%-30s %-7s %8.3f %8.3f %12llu %11.3g %11.3g %11.3g %8.1f\n", w[i].name,
               w[i].spec.data ? "full" : "no-data", o->host_seconds, o->sim_cpu,
               (unsigned long long)o->cycles, (double)o->cycles / t, (double)o->insns / t,
               (double)o->macs / t, 1e9 * t / (double)o->insns);
    }
    printf("(rates per CPU second of the simulation's thread)\n");
    printf("\nhost fp32 GEMM %ux%ux%u, one thread (its CPU clock): %.1f GFLOP/s (%s)", r->gn, r->gn, r->gn,
           r->gemm_c / 1e9, r->what_c);
    if (r->gemm_blas > 0)
        printf("; %.1f GFLOP/s (%s)", r->gemm_blas / 1e9, r->what_blas);
    else
        printf("; %s", r->what_blas);
    printf("\n\ngoals:\n");
    printf("  functional matmul: %.2f GMAC/s = %.1f GFLOP/s, %.0f%% of the host GEMM (goal 30%%): %s\n",
           r->mac_rate / 1e9, 2 * r->mac_rate / 1e9, 100 * r->ratio, r->ratio >= 0.30 ? "met" : "NOT met");
    printf("  timing only: %.2fM instructions/s, %.0fM cycles/s (goal 5M, 100M): %s\n", r->nd_ips / 1e6,
           r->nd_cps / 1e6, r->nd_ips >= 5e6 && r->nd_cps >= 1e8 ? "met" : "NOT met");
    printf("  32 cores: %.1f ns per instruction vs %.1f on one core (medians of %u alternating runs; %.2fx; "
           "goal 1.5x): %s\n",
           r->ns_multi, r->ns_single, r->pair_runs, r->ns_multi / r->ns_single,
           r->ns_multi <= 1.5 * r->ns_single ? "met" : "NOT met");
    static const struct {
        const char *job;
        double goal;
    } goals[] = {{"matmul db f16 1024^3, 1 core", 0.15},
                 {"matmul db f16 4096^3, 1 core", 6},
                 {"matmul db f16 4096^3, 32 cores", 8}};
    for (unsigned g = 0; g < sizeof goals / sizeof goals[0] && !quick; g++) {
        const op_outcome *o = find_whole(wh, nw, goals[g].job);
        if (o)
            printf("  whole %s: %.3f CPU s (goal %.2f): %s\n", goals[g].job, whole_cpu(o), goals[g].goal,
                   whole_cpu(o) <= goals[g].goal ? "met" : "NOT met");
    }
    print_whole(wh, nw);
}

int cmd_bench(int argc, char **argv)
{
    bool quick = false, large = false, json = false;
    const char *outfile = NULL;
    int rc = parse_opts(argc, argv, &quick, &large, &json, &outfile);
    if (rc)
        return rc < 0 ? 0 : rc;
    workload w[10];
    unsigned n = plan(w, quick);
    for (unsigned i = 0; i < n; i++) {
        if (!json)
            fprintf(stderr, "bench: %s%s...\n", w[i].name, w[i].spec.data ? "" : " --no-data");
        op_exec(&w[i].spec, &w[i].out);
        if (w[i].out.rc) {
            fprintf(stderr, "dvsim bench: %s: %s\n", w[i].name, w[i].out.msg);
            return w[i].out.rc;
        }
    }
    workload wh[8];
    unsigned nw = plan_whole(wh, quick, large);
    for (unsigned i = 0; i < nw; i++) {
        if (!json)
            fprintf(stderr, "bench: whole job %s...\n", wh[i].name);
        op_exec(&wh[i].spec, &wh[i].out);
        if (wh[i].out.rc) {
            fprintf(stderr, "dvsim bench: %s: %s\n", wh[i].name, wh[i].out.msg);
            return wh[i].out.rc;
        }
    }
    results r;
    measure(w, n, quick, &r);
    char cpu[256];
    machine(cpu, sizeof cpu);
    cJSON *root = to_json(w, n, wh, nw, quick, &r, cpu);
    /* cJSON's functions take NULL, so building cannot crash; printing is what fails */
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        fprintf(stderr, "dvsim bench: out of memory for the JSON output\n");
        return 71;
    }
    if (json)
        printf("%s\n", text);
    else
        print_table(w, n, wh, nw, quick, &r, cpu);
    if (outfile) {
        dv_error err = {DV_OK, ""};
        if (cli_write_file(outfile, text, strlen(text), &err) != DV_OK)
            rc = cli_fail(&err);
    }
    free(text);
    return rc;
}
