/* conformance.c - the ONNX backend node tests (Debian's libonnx-testdata)
 * through the importer, the graph compiler and the reference interpreter,
 * and then on the simulated chip (dv_graph_run, what dvsim graph runs).
 *
 * usage: graph_conformance [DATA_DIR] [-v]
 * For every test_* folder whose model uses only supported ops: import
 * model.onnx, compile it (-O2: folding, fusion, layouts, memory plan) and run
 * the compiled plan's reference on test_data_set_0's inputs, then compare
 * each output with the expected one within fp16 tolerance (|got - want| <=
 * 2^-10 |want| + 2^-14).  A test that passes there runs on the chip too
 * (ascend910, one stream, f16 in GM): its outputs read back must be within
 * dvsim graph's f16 rule, |got - want| <= 2^-6 (|want| + rms(want)), with no
 * race; and again with every input but the first bound as a constant, as a
 * deployment holds its weights (Conv's W, Gemm's B and C then reach the
 * device operators).  Prints passed / run by op type for both.  Exit 1 if any test of the
 * op types that must pass (REQUIRED) fails either way or none of them ran,
 * 77 when the package is absent. */
#include "dv_fp.h"
#include "dv_graph.h"
#include "dv_graph_ref.h"
#include "dv_graph_run.h"
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
    unsigned chip_passed[DV_GOP_COUNT], chip_f16[DV_GOP_COUNT]; /* of those that passed on the reference */
    unsigned
        chip_launched[DV_GOP_COUNT]; /* tests whose plan launched a kernel (others are host steps only) */
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

/* Output k within dvsim graph's f16 rule of the expected one. */
static bool f16_close(const dv_gtensor *got, const dv_gtensor *want, unsigned k, const char *where, char *why,
                      size_t len)
{
    int64_t n = dv_gtensor_count(want);
    if (!got || dv_gtensor_count(got) != n || !got->data) {
        snprintf(why, len, "%s: output %u has %lld elements", where, k,
                 (long long)(got ? dv_gtensor_count(got) : -1));
        return false;
    }
    double ss = 0;
    for (int64_t e = 0; e < n; e++)
        ss += want->data[e] * want->data[e];
    double rms = n ? sqrt(ss / (double)n) : 0;
    for (int64_t e = 0; e < n; e++) {
        double w = want->data[e], v = got->data[e];
        if (!(fabs(v - w) <= ldexp(fabs(w) + rms, -6))) {
            snprintf(why, len, "%s: output %u[%lld] = %g, expected %g", where, k, (long long)e, v, w);
            return false;
        }
    }
    return true;
}

typedef enum chip_result { CHIP_FAIL, CHIP_PASS, CHIP_F16 } chip_result;

/* The plan on the chip: every output within dvsim graph's f16 rule of the expected one, no race.  A test
 * whose expected outputs the reference itself misses once the inputs are rounded to f16 (the chip holds
 * every tensor in f16: softmax_large_number's 10001 is 10000 there) is CHIP_F16, counted apart. */
static chip_result run_on_chip(const dv_plan *plan, const dv_gtensor *in, unsigned nin,
                               const dv_gtensor *want, unsigned nout, unsigned *launches, char *why,
                               size_t len)
{
    dv_gtensor in16[16] = {{0}};
    dv_graph *vals = NULL;
    dv_error err = {0};
    bool fits = true;
    for (unsigned k = 0; k < nin; k++) {
        in16[k] = in[k];
        int64_t n = dv_gtensor_count(&in[k]);
        in16[k].data = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
        for (int64_t e = 0; in16[k].data && e < n; e++)
            in16[k].data[e] = dv_fp16_to_f32(dv_f64_to_fp16(in[k].data[e]));
    }
    if (dv_plan_ref_run(plan, in16, nin, &vals, &err) == DV_OK)
        for (unsigned k = 0; k < nout && fits; k++)
            fits = f16_close(dv_plan_ref_output(plan, vals, k), &want[k], k, "the reference on f16 inputs",
                             why, len);
    for (unsigned k = 0; k < nin; k++)
        free(in16[k].data);
    dv_graph_destroy(vals);
    if (!fits)
        return CHIP_F16;
    dv_graph_run_result *res = NULL;
    if (dv_graph_run(plan, in, nin, NULL, &res, &err) != DV_OK) {
        snprintf(why, len, "on the chip: %s", err.msg);
        return CHIP_FAIL;
    }
    *launches = res->launches;
    bool ok = res->nraces == 0 && res->noutputs == nout;
    if (!ok)
        snprintf(why, len, "on the chip: %u races, %u outputs", res->nraces, res->noutputs);
    for (unsigned k = 0; k < nout && ok; k++)
        ok = f16_close(&res->outputs[k], &want[k], k, "on the chip", why, len);
    dv_graph_run_free(res);
    return ok ? CHIP_PASS : CHIP_FAIL;
}

/* The test on the chip twice: its plan as the test feeds it (every input in GM), and with every input
 * but the first bound as a constant, as a deployment has its weights (so Gemm's B, Conv's W and
 * LayerNormalization's scale reach the device operators' weight layouts and the fused forms).  Both
 * must pass; *launches counts the second run's kernel launches. */
static chip_result chip_test(const dv_graph *g, const dv_plan *plan, const dv_gtensor *in, unsigned nin,
                             const dv_gtensor *want, unsigned nout, unsigned *launches, char *why, size_t len)
{
    unsigned first = 0;
    chip_result r = run_on_chip(plan, in, nin, want, nout, &first, why, len);
    if (r != CHIP_PASS || nin < 2)
        return *launches = first, r;
    dv_graph *g2 = dv_graph_clone(g);
    dv_plan *p2 = NULL;
    dv_error err = {0};
    dv_status st = g2 ? DV_OK : dv_error_set(&err, DV_ERR_NOMEM, "out of memory");
    for (unsigned k = nin - 1; k >= 1 && st == DV_OK; k--)
        st = dv_graph_bind_input(g2, k, &in[k], &err);
    if (st == DV_OK)
        st = dv_plan_compile(g2, 2, NULL, &p2, &err);
    if (st != DV_OK) {
        snprintf(why, len, "weights bound: %s", err.msg);
        r = CHIP_FAIL;
    } else
        r = run_on_chip(p2, in, 1, want, nout, launches, why, len);
    dv_plan_destroy(p2);
    dv_graph_destroy(g2);
    return r;
}

/* Returns true if the test passed; *why says what failed (*rejected: a dtype or form dvsim does not take). */
static bool run_test(const char *dir, dv_graph *g, char *why, size_t len, bool *rejected, chip_result *chip,
                     unsigned *launches)
{
    char path[4400];
    dv_error err = {0};
    dv_gtensor in[16], want[16];
    unsigned nin = 0, nwant = 0;
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
    for (unsigned k = 0; k < g->noutputs && k < 16 && ok; k++) {
        snprintf(path, sizeof path, "%s/test_data_set_0/output_%u.pb", dir, k);
        if (dv_gtensor_read_pb_file(path, &want[nwant], &err) != DV_OK) {
            snprintf(why, len, "%s", err.msg);
            ok = false;
            break;
        }
        const dv_gtensor *got = dv_plan_ref_output(plan, vals, k);
        int64_t n = dv_gtensor_count(&want[nwant]);
        if (!got || dv_gtensor_count(got) != n || !got->data) {
            snprintf(why, len, "output %u: %lld elements, %lld expected", k,
                     (long long)(got ? dv_gtensor_count(got) : -1), (long long)n);
            ok = false;
        }
        for (int64_t e = 0; ok && e < n; e++) {
            double w = want[nwant].data[e], v = got->data[e];
            if (!(fabs(v - w) <= ldexp(fabs(w), -10) + ldexp(1, -14)) && !(isnan(v) && isnan(w)) &&
                !(isinf(v) && v == w)) {
                snprintf(why, len, "output %u[%lld] = %g, expected %g", k, (long long)e, v, w);
                ok = false;
            }
        }
        nwant++;
    }
    ok &= nwant == g->noutputs;
    *chip = ok ? chip_test(g, plan, in, nin, want, nwant, launches, why, len) : CHIP_FAIL;
out:
    for (unsigned i = 0; i < nin; i++)
        dv_gtensor_free(&in[i]);
    for (unsigned i = 0; i < nwant; i++)
        dv_gtensor_free(&want[i]);
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
        chip_result chip = CHIP_FAIL;
        unsigned launches = 0;
        bool ok = run_test(dir, g, why, sizeof why, &rejected, &chip, &launches);
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
        t.chip_passed[op] += chip == CHIP_PASS;
        t.chip_f16[op] += chip == CHIP_F16;
        t.chip_launched[op] += chip == CHIP_PASS && launches > 0;
        static const char *const word[] = {"FAIL-on-chip", "pass", "beyond-f16"};
        if (!ok || chip != CHIP_PASS || verbose)
            printf("%s %s (%s)%s%s\n", ok ? word[chip] : "FAIL", names[i], dv_gop_name(op),
                   ok && chip == CHIP_PASS ? "" : ": ", why);
        dv_graph_destroy(g);
        free(names[i]);
    }
    free(names);
    printf("\nONNX node tests by op type (passed / run: the plan's reference, fp16 tolerance; on the chip, "
           "dvsim graph's f16 rule, of those whose inputs f16 holds):\n");
    unsigned all = 0, pass = 0, on_chip = 0, f16 = 0;
    for (unsigned o = 0; o < DV_GOP_COUNT; o++)
        if (t.run[o]) {
            printf("  %-20s %3u / %3u   chip %3u / %3u (%u with device steps)\n", dv_gop_name((dv_gop)o),
                   t.passed[o], t.run[o], t.chip_passed[o], t.run[o] - t.chip_f16[o], t.chip_launched[o]);
            all += t.run[o];
            pass += t.passed[o];
            on_chip += t.chip_passed[o];
            f16 += t.chip_f16[o];
        }
    printf(
        "  %-20s %3u / %3u   chip %3u / %3u\n  (%u tests use ops outside the set; %u use a dtype, output or "
        "input form dvsim rejects; %u have inputs f16 cannot hold: the reference misses on them rounded)\n",
        "total", pass, all, on_chip, all - f16, t.unsupported, t.bad, f16);
    int rc = 0;
    for (unsigned r = 0; r < NREQ; r++) {
        dv_gop o = dv_gop_find(REQUIRED[r]);
        if (!t.run[o] || t.passed[o] != t.run[o] || t.chip_passed[o] + t.chip_f16[o] != t.run[o] ||
            !t.chip_passed[o]) {
            printf("required op %s: %u / %u passed, %u on the chip (%u beyond f16)\n", REQUIRED[r],
                   t.passed[o], t.run[o], t.chip_passed[o], t.chip_f16[o]);
            rc = 1;
        }
    }
    return rc;
}
