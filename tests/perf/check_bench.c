/* check_bench.c DVSIM - runs `dvsim bench --quick --json` and checks that
 * the output is valid JSON whose figures are positive and consistent:
 * each rate equals its count over the host seconds. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v)) {
        printf("FAIL: %s is not a number\n", key);
        failures++;
        return NAN;
    }
    return v->valuedouble;
}

static void expect(int ok, const char *what, const char *workload)
{
    if (!ok) {
        printf("FAIL: %s (%s)\n", what, workload);
        failures++;
    }
}

static void rate(const cJSON *w, const char *count, const char *per_second, const char *name)
{
    double n = num(w, count), s = num(w, "host_seconds"), r = num(w, per_second);
    expect(r >= 0 && fabs(r - n / s) <= 1e-6 * (n / s) + 1e-9, per_second, name);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: check_bench DVSIM\n");
        return 2;
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' bench --quick --json", argv[1]);
    FILE *p = popen(cmd, "r");
    if (!p)
        return 2;
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + len, 1, cap - len - 1, p)) > 0)
        len += got;
    int rc = pclose(p);
    if (!text || rc != 0) {
        printf("FAIL: dvsim bench exited with %d\n", rc);
        return 1;
    }
    text[len] = '\0';
    cJSON *root = cJSON_Parse(text);
    if (!root) {
        printf("FAIL: not JSON:\n%s\n", text);
        return 1;
    }
    const cJSON *ws = cJSON_GetObjectItemCaseSensitive(root, "workloads"), *w;
    expect(cJSON_IsArray(ws) && cJSON_GetArraySize(ws) >= 6, "at least six workloads", "");
    cJSON_ArrayForEach(w, ws)
    {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(w, "run");
        const char *name = cJSON_IsString(nm) ? nm->valuestring : "?";
        expect(num(w, "host_seconds") > 0, "host_seconds > 0", name);
        expect(num(w, "cycles") > 0, "cycles > 0", name);
        expect(num(w, "instructions") > 0, "instructions > 0", name);
        rate(w, "cycles", "cycles_per_second", name);
        rate(w, "instructions", "instructions_per_second", name);
        rate(w, "macs", "macs_per_second", name);
        printf("ok: %s: %.4g s, %.4g cycles/s\n", name, num(w, "host_seconds"), num(w, "cycles_per_second"));
    }
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(root, "host_gemm");
    expect(num(g, "c_flops") > 0, "host GEMM rate > 0", "host_gemm");
    const cJSON *goals = cJSON_GetObjectItemCaseSensitive(root, "goals");
    expect(num(goals, "functional_flops_ratio") > 0, "functional ratio > 0", "goals");
    cJSON_Delete(root);
    free(text);
    printf("%s\n", failures ? "FAILED" : "bench JSON: ok");
    return failures ? 1 : 0;
}
