/* cmd_bench.c - dvsim bench: how fast the simulator itself is, on a fixed
 * set of workloads, next to the host's own fp32 GEMM rate measured in the
 * same run, so that the functional Cube's speed reads as a ratio.
 *
 * Each workload is timed over dv_sim_run alone (the input fill and the
 * reference check are not the simulator's time), on one host thread. */
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
    fprintf(out, "usage: dvsim bench [--quick] [--json] [--out FILE]\n\n"
                 "Times the simulator on fixed workloads (a cube-bound matmul on one core, a vector-bound\n"
                 "operator, a multi-core matmul, attention when it exists), each with data and timing-only\n"
                 "(--no-data), and reports host seconds, simulated cycles, instructions and MACs per host\n"
                 "second; then the host's single-thread fp32 GEMM rate (C with vector types, and OpenBLAS\n"
                 "if installed) and the goals of docs/performance.md.\n\n"
                 "  --quick     small shapes (for tests: the figures are not representative)\n"
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
static int parse_opts(int argc, char **argv, bool *quick, bool *json, const char **outfile)
{
    enum { QUICK = CLI_OPT_FIRST, JSON, OUT };
    static const struct option longopts[] = {{"quick", no_argument, NULL, QUICK},
                                             {"json", no_argument, NULL, JSON},
                                             {"out", required_argument, NULL, OUT},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    cli_getopt g;
    cli_getopt_init(&g, "bench", argc, argv, "h", longopts, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_bench_help(stdout); return -1;
        case QUICK: *quick = true; break;
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

/* The host's GEMM rate and the goals of docs/performance.md, from the
 * 1-core matmul and the pair of 2048^3 runs. */
typedef struct results {
    unsigned gn; /* the host GEMM's size */
    double gemm_c, gemm_blas;
    char what_c[128], what_blas[128];
    double mac_rate, ratio, nd_ips, nd_cps, ns_multi, ns_single;
} results;

static const op_outcome *find_run(const workload *w, unsigned n, const char *name, bool data)
{
    for (unsigned i = 0; i < n; i++)
        if (w[i].spec.data == data && strcmp(w[i].name, name) == 0)
            return &w[i].out;
    return NULL;
}

static void measure(const workload *w, unsigned n, bool quick, results *r)
{
    r->gn = quick ? 256 : 1024;
    r->gemm_c = host_gemm_flops(r->gn, false, r->what_c, sizeof r->what_c);
    r->gemm_blas = host_gemm_flops(r->gn, true, r->what_blas, sizeof r->what_blas);
    double gemm_best = r->gemm_blas > r->gemm_c ? r->gemm_blas : r->gemm_c;
    const op_outcome *full1 = &w[0].out, *nodata1 = find_run(w, n, "matmul db f16, 1 core", false),
                     *multi = find_run(w, n, "matmul db f16, 32 cores", false),
                     *single = find_run(w, n, "matmul db f16, same, 1 core", false);
    r->mac_rate = (double)full1->macs / full1->host_seconds;
    r->ratio = 2 * r->mac_rate / gemm_best;
    r->nd_ips = (double)nodata1->insns / nodata1->host_seconds;
    r->nd_cps = (double)nodata1->cycles / nodata1->host_seconds;
    r->ns_multi = 1e9 * multi->host_seconds / (double)multi->insns;
    r->ns_single = 1e9 * single->host_seconds / (double)single->insns;
}

static cJSON *workload_json(const workload *w)
{
    const op_outcome *o = &w->out;
    char name[256];
    op_spec_name(&w->spec, name, sizeof name);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "workload", w->name);
    cJSON_AddStringToObject(j, "run", name);
    cJSON_AddBoolToObject(j, "data", w->spec.data);
    cJSON_AddNumberToObject(j, "host_seconds", o->host_seconds);
    cJSON_AddNumberToObject(j, "cycles", (double)o->cycles);
    cJSON_AddNumberToObject(j, "instructions", (double)o->insns);
    cJSON_AddNumberToObject(j, "macs", (double)o->macs);
    cJSON_AddNumberToObject(j, "cycles_per_second", (double)o->cycles / o->host_seconds);
    cJSON_AddNumberToObject(j, "instructions_per_second", (double)o->insns / o->host_seconds);
    cJSON_AddNumberToObject(j, "macs_per_second", (double)o->macs / o->host_seconds);
    cJSON_AddNumberToObject(j, "ns_per_instruction", 1e9 * o->host_seconds / (double)o->insns);
    return j;
}

static cJSON *to_json(const workload *w, unsigned n, bool quick, const results *r, const char *cpu)
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
    cJSON_AddBoolToObject(goals, "multicore_met", r->ns_multi <= r->ns_single);
    return root;
}

static void print_table(const workload *w, unsigned n, bool quick, const results *r, const char *cpu)
{
    printf("dvsim bench on %s%s\n\n", cpu, quick ? " (--quick: small shapes)" : "");
    printf("%-30s %-7s %8s %12s %11s %11s %11s %8s\n", "workload", "mode", "host s", "sim cycles", "cycles/s",
           "insns/s", "MACs/s", "ns/insn");
    for (unsigned i = 0; i < n; i++) {
        const op_outcome *o = &w[i].out;
        printf("%-30s %-7s %8.3f %12llu %11.3g %11.3g %11.3g %8.1f\n", w[i].name,
               w[i].spec.data ? "full" : "no-data", o->host_seconds, (unsigned long long)o->cycles,
               (double)o->cycles / o->host_seconds, (double)o->insns / o->host_seconds,
               (double)o->macs / o->host_seconds, 1e9 * o->host_seconds / (double)o->insns);
    }
    printf("\nhost fp32 GEMM %ux%ux%u, one thread: %.1f GFLOP/s (%s)", r->gn, r->gn, r->gn, r->gemm_c / 1e9,
           r->what_c);
    if (r->gemm_blas > 0)
        printf("; %.1f GFLOP/s (%s)", r->gemm_blas / 1e9, r->what_blas);
    else
        printf("; %s", r->what_blas);
    printf("\n\ngoals:\n");
    printf("  functional matmul: %.2f GMAC/s = %.1f GFLOP/s, %.0f%% of the host GEMM (goal 30%%): %s\n",
           r->mac_rate / 1e9, 2 * r->mac_rate / 1e9, 100 * r->ratio, r->ratio >= 0.30 ? "met" : "NOT met");
    printf("  timing only: %.2fM instructions/s, %.0fM cycles/s (goal 5M, 100M): %s\n", r->nd_ips / 1e6,
           r->nd_cps / 1e6, r->nd_ips >= 5e6 && r->nd_cps >= 1e8 ? "met" : "NOT met");
    printf("  32 cores: %.1f ns per instruction vs %.1f on one core: %s\n", r->ns_multi, r->ns_single,
           r->ns_multi <= r->ns_single ? "met" : "NOT met");
}

int cmd_bench(int argc, char **argv)
{
    bool quick = false, json = false;
    const char *outfile = NULL;
    int rc = parse_opts(argc, argv, &quick, &json, &outfile);
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
    results r;
    measure(w, n, quick, &r);
    char cpu[256];
    machine(cpu, sizeof cpu);
    cJSON *root = to_json(w, n, quick, &r, cpu);
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
        print_table(w, n, quick, &r, cpu);
    if (outfile) {
        dv_error err = {DV_OK, ""};
        if (cli_write_file(outfile, text, strlen(text), &err) != DV_OK)
            rc = cli_fail(&err);
    }
    free(text);
    return rc;
}
