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

int cmd_bench(int argc, char **argv)
{
    bool quick = false, json = false;
    const char *outfile = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            outfile = argv[++i];
        else
            return cli_usage_error("bench", "unknown option '%s' (or it lacks its value)", argv[i]);
    }
    const char *mm1 = quick ? "M=256,N=256,K=256" : "M=1024,N=1024,K=1024";
    const char *mmN = quick ? "M=512,N=512,K=512" : "M=2048,N=2048,K=2048";
    const char *vec_op = dv_operator_find("softmax") ? "softmax" : "add";
    const char *vec_shape = strcmp(vec_op, "softmax") == 0 ? (quick ? "R=64,C=512" : "R=2048,C=1024")
                                                           : (quick ? "N=65536" : "N=16777216");
    bool attn = dv_operator_find("attention") != NULL;
    const char *attn_shape = quick ? "B=1,H=1,SQ=128,SK=256,D=64" : "B=1,H=2,SQ=512,SK=1024,D=128";
    workload w[10];
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
    for (unsigned i = 0; i < n; i++) {
        if (!json)
            fprintf(stderr, "bench: %s%s...\n", w[i].name, w[i].spec.data ? "" : " --no-data");
        op_exec(&w[i].spec, &w[i].out);
        if (w[i].out.rc) {
            fprintf(stderr, "dvsim bench: %s: %s\n", w[i].name, w[i].out.msg);
            return w[i].out.rc;
        }
    }
    char what_c[128], what_blas[128];
    unsigned gn = quick ? 256 : 1024;
    double gemm_c = host_gemm_flops(gn, false, what_c, sizeof what_c);
    double gemm_blas = host_gemm_flops(gn, true, what_blas, sizeof what_blas);
    double gemm_best = gemm_blas > gemm_c ? gemm_blas : gemm_c;

    /* The goals (docs/performance.md), from the 1-core matmul and the pair
     * of 2048^3 runs. */
    const op_outcome *full1 = &w[0].out, *nodata1 = NULL, *multi = NULL, *single = NULL;
    for (unsigned i = 0; i < n; i++) {
        if (!w[i].spec.data && strcmp(w[i].name, "matmul db f16, 1 core") == 0)
            nodata1 = &w[i].out;
        if (!w[i].spec.data && strcmp(w[i].name, "matmul db f16, 32 cores") == 0)
            multi = &w[i].out;
        if (!w[i].spec.data && strcmp(w[i].name, "matmul db f16, same, 1 core") == 0)
            single = &w[i].out;
    }
    double mac_rate = (double)full1->macs / full1->host_seconds;
    double ratio = 2 * mac_rate / gemm_best;
    double nd_ips = (double)nodata1->insns / nodata1->host_seconds;
    double nd_cps = (double)nodata1->cycles / nodata1->host_seconds;
    double ns_multi = 1e9 * multi->host_seconds / (double)multi->insns;
    double ns_single = 1e9 * single->host_seconds / (double)single->insns;

    cJSON *root = cJSON_CreateObject();
    char cpu[256];
    struct utsname u;
    uname(&u);
    cJSON_AddStringToObject(root, "cpu", machine(cpu, sizeof cpu));
    cJSON_AddStringToObject(root, "kernel", u.release);
    cJSON_AddBoolToObject(root, "quick", quick);
    cJSON *ws = cJSON_AddArrayToObject(root, "workloads");
    for (unsigned i = 0; i < n; i++) {
        const op_outcome *o = &w[i].out;
        char name[256];
        op_spec_name(&w[i].spec, name, sizeof name);
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "workload", w[i].name);
        cJSON_AddStringToObject(j, "run", name);
        cJSON_AddBoolToObject(j, "data", w[i].spec.data);
        cJSON_AddNumberToObject(j, "host_seconds", o->host_seconds);
        cJSON_AddNumberToObject(j, "cycles", (double)o->cycles);
        cJSON_AddNumberToObject(j, "instructions", (double)o->insns);
        cJSON_AddNumberToObject(j, "macs", (double)o->macs);
        cJSON_AddNumberToObject(j, "cycles_per_second", (double)o->cycles / o->host_seconds);
        cJSON_AddNumberToObject(j, "instructions_per_second", (double)o->insns / o->host_seconds);
        cJSON_AddNumberToObject(j, "macs_per_second", (double)o->macs / o->host_seconds);
        cJSON_AddNumberToObject(j, "ns_per_instruction", 1e9 * o->host_seconds / (double)o->insns);
        cJSON_AddItemToArray(ws, j);
    }
    cJSON *g = cJSON_AddObjectToObject(root, "host_gemm");
    cJSON_AddNumberToObject(g, "n", gn);
    cJSON_AddNumberToObject(g, "c_flops", gemm_c);
    cJSON_AddStringToObject(g, "c_kernel", what_c);
    cJSON_AddNumberToObject(g, "openblas_flops", gemm_blas);
    cJSON_AddStringToObject(g, "openblas", what_blas);
    cJSON *goals = cJSON_AddObjectToObject(root, "goals");
    cJSON_AddNumberToObject(goals, "functional_flops_ratio", ratio);
    cJSON_AddBoolToObject(goals, "functional_ratio_met", ratio >= 0.30);
    cJSON_AddNumberToObject(goals, "nodata_instructions_per_second", nd_ips);
    cJSON_AddNumberToObject(goals, "nodata_cycles_per_second", nd_cps);
    cJSON_AddBoolToObject(goals, "nodata_met", nd_ips >= 5e6 && nd_cps >= 1e8);
    cJSON_AddNumberToObject(goals, "ns_per_instruction_32_cores", ns_multi);
    cJSON_AddNumberToObject(goals, "ns_per_instruction_1_core", ns_single);
    cJSON_AddBoolToObject(goals, "multicore_met", ns_multi <= ns_single);
    char *text = cJSON_Print(root);
    if (json)
        printf("%s\n", text);
    else {
        printf("dvsim bench on %s%s\n\n", cpu, quick ? " (--quick: small shapes)" : "");
        printf("%-30s %-7s %8s %12s %11s %11s %11s %8s\n", "workload", "mode", "host s", "sim cycles",
               "cycles/s", "insns/s", "MACs/s", "ns/insn");
        for (unsigned i = 0; i < n; i++) {
            const op_outcome *o = &w[i].out;
            printf("%-30s %-7s %8.3f %12llu %11.3g %11.3g %11.3g %8.1f\n", w[i].name,
                   w[i].spec.data ? "full" : "no-data", o->host_seconds, (unsigned long long)o->cycles,
                   (double)o->cycles / o->host_seconds, (double)o->insns / o->host_seconds,
                   (double)o->macs / o->host_seconds, 1e9 * o->host_seconds / (double)o->insns);
        }
        printf("\nhost fp32 GEMM %ux%ux%u, one thread: %.1f GFLOP/s (%s)", gn, gn, gn, gemm_c / 1e9, what_c);
        if (gemm_blas > 0)
            printf("; %.1f GFLOP/s (%s)", gemm_blas / 1e9, what_blas);
        else
            printf("; %s", what_blas);
        printf("\n\ngoals:\n");
        printf("  functional matmul: %.2f GMAC/s = %.1f GFLOP/s, %.0f%% of the host GEMM (goal 30%%): %s\n",
               mac_rate / 1e9, 2 * mac_rate / 1e9, 100 * ratio, ratio >= 0.30 ? "met" : "NOT met");
        printf("  timing only: %.2fM instructions/s, %.0fM cycles/s (goal 5M, 100M): %s\n", nd_ips / 1e6,
               nd_cps / 1e6, nd_ips >= 5e6 && nd_cps >= 1e8 ? "met" : "NOT met");
        printf("  32 cores: %.1f ns per instruction vs %.1f on one core: %s\n", ns_multi, ns_single,
               ns_multi <= ns_single ? "met" : "NOT met");
    }
    int rc = 0;
    if (outfile) {
        dv_error err = {DV_OK, ""};
        if (cli_write_file(outfile, text, strlen(text), &err) != DV_OK)
            rc = cli_fail(&err);
    }
    free(text);
    cJSON_Delete(root);
    return rc;
}
