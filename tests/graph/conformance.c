/* conformance.c - the ONNX backend node tests (Debian's libonnx-testdata)
 * through the importer, the graph compiler and the reference interpreter.
 *
 * usage: graph_conformance [DATA_DIR] [-v]
 * For every test_* folder whose model uses only supported ops: import
 * model.onnx, compile it (-O2: folding, fusion, layouts, memory plan) and run
 * the compiled plan's reference on test_data_set_0's inputs, then compare
 * each output with the expected one within fp16 tolerance (|got - want| <=
 * 2^-10 |want| + 2^-14).  Prints passed / run by op type.  Exit 1 if any
 * test of the op types that must pass (REQUIRED) fails or none of them ran,
 * 77 when the package is absent. */
#include "dv_graph.h"
#include "dv_graph_ref.h"
#include "dv_plan.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const REQUIRED[] = {
    "Gemm", "MatMul", "Conv", "Relu", "Add", "Softmax", "LayerNormalization",
    /* what PyTorch's exporter writes for GELU, RMSNorm, masks (issue 18d) */
    "Erf", "Neg", "Sqrt", "Reciprocal", "Pow", "Equal", "Where", "ReduceMean", "Dropout", "ConstantOfShape"};
enum { NREQ = sizeof REQUIRED / sizeof REQUIRED[0] };

typedef struct tally {
    unsigned run[DV_GOP_COUNT], passed[DV_GOP_COUNT], unsupported, bad;
} tally;

static bool verbose;

/* The op a test is about: its first node that is not a shape op (or its first). */
static dv_gop main_op(const dv_graph *g)
{
    for (unsigned i = 0; i < g->nnodes; i++)
        if (!dv_gop_is_shape_op(g->n[i].op))
            return g->n[i].op;
    return g->nnodes ? g->n[0].op : DV_GOP_IDENTITY;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Returns true if the test passed; *why says what failed (*rejected: a dtype or form dvsim does not take). */
static bool run_test(const char *dir, dv_graph *g, char *why, size_t len, bool *rejected)
{
    char path[4400];
    dv_error err = {0};
    dv_gtensor in[16];
    unsigned nin = 0;
    bool ok = false;
    dv_graph *vals = NULL;
    dv_plan *plan = NULL;
    /* int64 inputs are shapes, axes, indices: bound as constants before compiling, as a deployment fixes them
     */
    for (unsigned k = 0, n = g->ninputs; k < n && nin < 16; k++) {
        snprintf(path, sizeof path, "%s/test_data_set_0/input_%u.pb", dir, k);
        if (dv_gtensor_read_pb_file(path, &in[nin], &err) != DV_OK) {
            snprintf(why, len, "%s", err.msg);
            *rejected = strstr(err.msg, "not supported") != NULL;
            goto out;
        }
        if (in[nin].dtype == DV_GDT_INT64) {
            dv_status st = dv_graph_bind_input(g, nin, &in[nin], &err);
            dv_gtensor_free(&in[nin]);
            if (st != DV_OK) {
                snprintf(why, len, "%s", err.msg);
                goto out;
            }
        } else
            nin++;
    }
    if (dv_plan_compile(g, 2, NULL, &plan, &err) != DV_OK ||
        dv_plan_exec_run(plan, in, nin, &vals, &err) != DV_OK) {
        snprintf(why, len, "%s", err.msg);
        *rejected = strstr(err.msg, "not supported") != NULL;
        goto out;
    }
    ok = true;
    for (unsigned k = 0; k < g->noutputs && ok; k++) {
        dv_gtensor want;
        snprintf(path, sizeof path, "%s/test_data_set_0/output_%u.pb", dir, k);
        if (dv_gtensor_read_pb_file(path, &want, &err) != DV_OK) {
            snprintf(why, len, "%s", err.msg);
            ok = false;
            break;
        }
        const dv_gtensor *got = dv_plan_ref_output(plan, vals, k);
        int64_t n = dv_gtensor_count(&want);
        if (!got || dv_gtensor_count(got) != n || !got->data) {
            snprintf(why, len, "output %u: %lld elements, %lld expected", k,
                     (long long)(got ? dv_gtensor_count(got) : -1), (long long)n);
            ok = false;
        }
        for (int64_t e = 0; ok && e < n; e++) {
            double w = want.data[e], v = got->data[e];
            if (!(fabs(v - w) <= ldexp(fabs(w), -10) + ldexp(1, -14)) && !(isnan(v) && isnan(w)) &&
                !(isinf(v) && v == w)) {
                snprintf(why, len, "output %u[%lld] = %g, expected %g", k, (long long)e, v, w);
                ok = false;
            }
        }
        dv_gtensor_free(&want);
    }
out:
    for (unsigned i = 0; i < nin; i++)
        dv_gtensor_free(&in[i]);
    dv_graph_destroy(vals);
    dv_plan_destroy(plan);
    return ok;
}

int main(int argc, char **argv)
{
    const char *root = "/usr/share/libonnx-testdata/data/node";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0)
            verbose = true;
        else
            root = argv[i];
    }
    DIR *d = opendir(root);
    if (!d) {
        printf("SKIP: %s not found (install libonnx-testdata, scripts/packages.txt)\n", root);
        return 77;
    }
    char **names = NULL;
    size_t nn = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, "test_", 5) != 0)
            continue;
        if (nn == cap) {
            cap = cap ? 2 * cap : 256;
            names = realloc(names, cap * sizeof *names);
        }
        names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, nn, sizeof *names, cmp_names);
    tally t = {0};
    for (size_t i = 0; i < nn; i++) {
        char dir[2048], model[2100], why[600] = "";
        snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
        snprintf(model, sizeof model, "%s/model.onnx", dir);
        dv_graph *g;
        dv_error err = {0};
        if (dv_graph_import_file(model, &g, &err) != DV_OK) {
            if (strstr(err.msg, "unsupported operator"))
                t.unsupported++;
            else {
                t.bad++; /* a supported op with an attribute or dtype we reject */
                if (verbose)
                    printf("reject %s: %s\n", names[i], err.msg);
            }
            free(names[i]);
            continue;
        }
        dv_gop op = main_op(g);
        bool rejected = false;
        bool ok = run_test(dir, g, why, sizeof why, &rejected);
        if (rejected) {
            t.bad++;
            if (verbose)
                printf("reject %s: %s\n", names[i], why);
            dv_graph_destroy(g);
            free(names[i]);
            continue;
        }
        t.run[op]++;
        t.passed[op] += ok;
        if (!ok || verbose)
            printf("%s %s (%s)%s%s\n", ok ? "pass" : "FAIL", names[i], dv_gop_name(op), ok ? "" : ": ", why);
        dv_graph_destroy(g);
        free(names[i]);
    }
    free(names);
    printf("\nONNX node tests by op type (passed / run, fp16 tolerance):\n");
    unsigned all = 0, pass = 0;
    for (unsigned o = 0; o < DV_GOP_COUNT; o++)
        if (t.run[o]) {
            printf("  %-20s %3u / %3u\n", dv_gop_name((dv_gop)o), t.passed[o], t.run[o]);
            all += t.run[o];
            pass += t.passed[o];
        }
    printf("  %-20s %3u / %3u\n  (%u tests use ops outside the set; %u use a dtype, output or input form "
           "dvsim rejects)\n",
           "total", pass, all, t.unsupported, t.bad);
    int rc = 0;
    for (unsigned r = 0; r < NREQ; r++) {
        dv_gop o = dv_gop_find(REQUIRED[r]);
        if (!t.run[o] || t.passed[o] != t.run[o]) {
            printf("required op %s: %u / %u passed\n", REQUIRED[r], t.passed[o], t.run[o]);
            rc = 1;
        }
    }
    return rc;
}
