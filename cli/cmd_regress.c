/* cmd_regress.c - dvsim regress: run the operator entries of a baseline
 * file and compare their figures with the recorded ones.
 *
 * The model is deterministic, so cycles and bytes per path must match
 * exactly; utilisation percentages (derived, printed with rounding) within
 * the file's tolerance_pct (absolute percentage points); the result check
 * must pass.  --bless writes the new figures back, so a change to a kernel,
 * a tiling function or the model lands with its effect on the numbers in
 * the same reviewed commit. */
#include "baseline.h"
#include "cli.h"
#include "dv_file.h"
#include "dv_num.h"
#include "dv_text.h"
#include "op_exec.h"
#include "run_progress.h"
#include "run_sanitize.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_BASELINE "tests/perf/baseline.json"

enum { MAX_JOBS = 256 }; /* threads at most, whatever the host's CPUs (run_all's array) */

void cmd_regress_help(FILE *out)
{
    fprintf(out,
            "usage: dvsim regress [--baseline FILE] [--filter PATTERN] [--bless] [--json] [--jobs N]\n"
            "                     [--sanitize[=CHECKS]]\n\n"
            "Runs every entry of the baseline (default " DEFAULT_BASELINE
            ": operator, variant, dtype, shape,\n"
            "chip, blocks, data) and compares cycles and bytes per path exactly, Cube and Vector\n"
            "utilisation within the file's tolerance_pct, and the result check.  Prints what moved\n"
            "(old, new, change).\n\n"
            "  --filter PATTERN   only entries whose name matches the shell pattern (or contains it)\n"
            "  --bless            write the new figures into the baseline (review the diff, commit it)\n"
            "  --json             print the results as JSON\n"
            "  --jobs N           run N entries at a time (default: the host's CPUs)\n"
            "  --sanitize[=CHECKS]  run every entry under the sanitizer (race,sync,init,mem; default\n"
            "                     all; an entry's \"sanitize\": \"CHECKS\" or true does it for that one):\n"
            "                     a finding fails the entry\n\n"
            "Exit: 0 nothing moved; 1 a figure drifted, an entry failed or has no figures yet.\n");
}

typedef struct entry {
    cJSON *node;
    op_spec spec;
    char name[256];
    bool selected;
    op_outcome out;
} entry;

typedef struct pool {
    entry *e;
    size_t n, next;
    pthread_mutex_t lock;
    size_t done, selected;
    run_progress prog; /* "12 of 40 entries" on a terminal */
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (p->next < p->n && !p->e[p->next].selected)
            p->next++;
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->lock);
        if (i == p->n)
            return NULL;
        op_exec(&p->e[i].spec, &p->e[i].out);
        pthread_mutex_lock(&p->lock);
        p->done++;
        run_progress_say(&p->prog, "%zu of %zu entries", p->done, p->selected);
        pthread_mutex_unlock(&p->lock);
    }
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The figures one entry records. */
typedef struct figure {
    const char *key;
    double value;
    bool exact;
} figure;

static unsigned figures_of(const op_outcome *o, figure *f)
{
    unsigned n = 0;
    f[n++] = (figure){"cycles", (double)o->cycles, true};
    f[n++] = (figure){"cube_pct", o->cube_pct, false};
    f[n++] = (figure){"vector_pct", o->vector_pct, false};
    for (int p = 1; p < DV_PATH_COUNT; p++)
        if (o->path_bytes[p])
            f[n++] = (figure){dv_path_name((dv_path)p), (double)o->path_bytes[p], true};
    return n;
}

static double recorded(const cJSON *node, const char *key, bool *have)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(node, key);
    if (!cJSON_IsNumber(v)) {
        const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(node, "bytes");
        v = cJSON_GetObjectItemCaseSensitive(bytes, key);
    }
    *have = cJSON_IsNumber(v);
    return *have ? v->valuedouble : 0;
}

static void record(cJSON *node, const op_outcome *o)
{
    const char *keys[] = {"cycles", "cube_pct", "vector_pct", "bytes", "check"};
    for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(node, keys[i]);
    cJSON_AddNumberToObject(node, "cycles", (double)o->cycles);
    cJSON_AddNumberToObject(node, "cube_pct", round(o->cube_pct * 100) / 100);
    cJSON_AddNumberToObject(node, "vector_pct", round(o->vector_pct * 100) / 100);
    cJSON *bytes = cJSON_AddObjectToObject(node, "bytes");
    for (int p = 1; p < DV_PATH_COUNT; p++)
        if (o->path_bytes[p])
            cJSON_AddNumberToObject(bytes, dv_path_name((dv_path)p), (double)o->path_bytes[p]);
    cJSON_AddStringToObject(node, "check", !o->checked ? "not checked" : o->passed ? "pass" : "FAIL");
}

/* Compares one entry; prints its moved figures (text mode); returns the
 * number of drifts (a failed run or a missing baseline counts as one). */
static unsigned compare(const entry *e, double tol, bool json, cJSON *jrows)
{
    unsigned drift = 0;
    if (e->out.rc) {
        if (!json)
            printf("%-58s %-12s %s\n", e->name, "FAILED", e->out.msg);
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "entry", e->name);
        cJSON_AddStringToObject(row, "failed", e->out.msg);
        cJSON_AddItemToArray(jrows, row);
        return 1;
    }
    figure f[DV_PATH_COUNT + 3];
    unsigned n = figures_of(&e->out, f);
    bool have_any;
    recorded(e->node, "cycles", &have_any);
    if (!have_any) {
        if (!json)
            printf("%-58s %-12s no recorded figures (run --bless)\n", e->name, "NEW");
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "entry", e->name);
        cJSON_AddStringToObject(row, "new", "no recorded figures");
        cJSON_AddItemToArray(jrows, row);
        return 1;
    }
    for (unsigned i = 0; i < n; i++) {
        bool have;
        double old = recorded(e->node, f[i].key, &have);
        bool moved = !have || (f[i].exact ? old != f[i].value : fabs(old - f[i].value) > tol);
        if (!moved)
            continue;
        drift++;
        if (!json)
            printf("%-58s %-12s %14.6g %14.6g %+9.2f%%\n", e->name, f[i].key, old, f[i].value,
                   old ? 100.0 * (f[i].value - old) / fabs(old) : 100.0);
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "entry", e->name);
        cJSON_AddStringToObject(row, "metric", f[i].key);
        cJSON_AddNumberToObject(row, "old", old);
        cJSON_AddNumberToObject(row, "new", f[i].value);
        cJSON_AddItemToArray(jrows, row);
    }
    /* bytes recorded for a path the run no longer uses */
    const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(e->node, "bytes"), *b;
    cJSON_ArrayForEach(b, bytes)
    {
        bool used = false;
        for (unsigned i = 0; i < n; i++)
            used |= strcmp(f[i].key, b->string) == 0;
        if (!used) {
            drift++;
            if (!json)
                printf("%-58s %-12s %14.6g %14d %+9.2f%%\n", e->name, b->string, b->valuedouble, 0, -100.0);
        }
    }
    const char *chk = str_of(e->node, "check");
    const char *now = !e->out.checked ? "not checked" : e->out.passed ? "pass" : "FAIL";
    if (!chk || strcmp(chk, now) != 0) {
        drift++;
        if (!json)
            printf("%-58s %-12s %14s %14s\n", e->name, "check", chk ? chk : "-", now);
    }
    return drift;
}

static bool matches(const char *pattern, const char *name)
{
    return !pattern || fnmatch(pattern, name, 0) == 0 || strstr(name, pattern);
}

typedef struct regress_opts {
    const char *path, *filter;
    bool bless, json;
    long jobs;
    unsigned sanitize;
} regress_opts;

static int parse_opts(int argc, char **argv, regress_opts *o)
{
    enum { BASELINE = CLI_OPT_FIRST, FILTER, BLESS, JSON, JOBS, SANITIZE };
    static const struct option longopts[] = {{"baseline", required_argument, NULL, BASELINE},
                                             {"filter", required_argument, NULL, FILTER},
                                             {"bless", no_argument, NULL, BLESS},
                                             {"json", no_argument, NULL, JSON},
                                             {"jobs", required_argument, NULL, JOBS},
                                             {"sanitize", optional_argument, NULL, SANITIZE},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    *o = (regress_opts){.path = DEFAULT_BASELINE, .jobs = sysconf(_SC_NPROCESSORS_ONLN)};
    cli_getopt g;
    cli_getopt_init(&g, "regress", argc, argv, "h", longopts, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_regress_help(stdout); return -1;
        case BASELINE: o->path = g.arg; break;
        case FILTER: o->filter = g.arg; break;
        case BLESS: o->bless = true; break;
        case JSON: o->json = true; break;
        case JOBS: {
            uint64_t j;
            if (!dv_parse_u64(g.arg, &j) || j < 1 || j > MAX_JOBS)
                return cli_usage_error("regress", "--jobs needs 1 to %d, not '%s'", MAX_JOBS, DV_ESC(g.arg));
            o->jobs = (long)j;
            break;
        }
        case SANITIZE: {
            dv_error err = {DV_OK, ""};
            if (dv_san_parse_checks(g.arg, &o->sanitize, &err) != DV_OK)
                return cli_usage_error("regress", "%s", err.msg);
            break;
        }
        case CLI_ARG: return cli_usage_error("regress", "unknown argument '%s'", g.arg);
        default: return EXIT_USAGE;
        }
    }
    if (o->jobs < 1) /* sysconf failed */
        o->jobs = 1;
    return 0;
}

/* Reads the baseline (baseline.h): its root (the caller deletes it) and an
 * entry per element of "entries", selected by the filter.  Returns an exit
 * code. */
static int load(const regress_opts *o, cJSON **root, entry **list, size_t *n, size_t *selected, double *tol)
{
    dv_error err = {DV_OK, ""};
    char *text;
    size_t len;
    if (dv_read_file(o->path, &text, &len, &err) != DV_OK)
        return cli_fail(&err);
    baseline b;
    char why[256];
    int rc = baseline_parse(text, &b, why, sizeof why);
    free(text);
    *root = b.root;
    *tol = b.tolerance_pct;
    *n = b.n;
    entry *e = *list = rc ? NULL : calloc(b.n ? b.n : 1, sizeof *e);
    if (!rc && !e) {
        rc = 71;
        snprintf(why, sizeof why, "out of memory");
    }
    if (rc) {
        fprintf(stderr, "dvsim regress: %s: %s\n", o->path, why);
        free(b.e);
        return rc;
    }
    for (size_t i = 0; i < b.n; i++) {
        entry *x = &e[i];
        x->node = b.e[i].node;
        x->spec = b.e[i].spec;
        x->spec.sanitize = o->sanitize;
        /* an entry's own "sanitize": true (every check) or "CHECKS" */
        const cJSON *san = cJSON_GetObjectItemCaseSensitive(x->node, "sanitize");
        if (cJSON_IsTrue(san) || cJSON_IsString(san)) {
            unsigned checks;
            if (dv_san_parse_checks(cJSON_IsString(san) ? san->valuestring : NULL, &checks, &err) != DV_OK) {
                fprintf(stderr, "dvsim regress: %s: entry %zu: %s\n", DV_ESC(o->path), i + 1,
                        DV_ESC(err.msg));
                free(b.e);
                return 65;
            }
            x->spec.sanitize |= checks;
        }
        op_spec_name(&x->spec, x->name, sizeof x->name);
        x->selected = matches(o->filter, x->name);
        *selected += x->selected;
    }
    free(b.e); /* the tree stays, in *root */
    return 0;
}

/* Runs the selected entries on up to `jobs` threads; returns the threads used. */
static long run_all(entry *e, size_t n, size_t selected, long jobs)
{
    pool p = {e, n, 0, PTHREAD_MUTEX_INITIALIZER, 0, selected, {0}};
    run_progress_init(&p.prog, "regress");
    long nthreads = jobs < (long)selected ? jobs : (long)selected;
    pthread_t th[MAX_JOBS];
    if (nthreads > MAX_JOBS) /* the default, the host's CPUs, may be more */
        nthreads = MAX_JOBS;
    long started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&th[started], NULL, worker, &p) != 0)
            break;
    if (!started && selected)
        worker(&p); /* no thread could start: run them here */
    for (long t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    run_progress_end(&p.prog);
    return started ? started : 1;
}

/* --bless: the new figures into the baseline file. */
static int bless(const regress_opts *o, cJSON *root, entry *e, size_t n, size_t selected, double secs)
{
    unsigned failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (!e[i].selected)
            continue;
        if (e[i].out.rc) {
            failed++;
            fprintf(stderr, "dvsim regress: %s: %s\n", e[i].name, e[i].out.msg);
        } else {
            record(e[i].node, &e[i].out);
        }
    }
    int rc = 0;
    dv_error err = {DV_OK, ""};
    char *out = cJSON_Print(root);
    dv_buf b = DV_BUF_INIT;
    if (out) {
        dv_buf_append(&b, out, strlen(out));
        dv_buf_append(&b, "\n", 1);
        free(out);
    }
    if (!out || b.oom)
        rc = cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory"});
    else if (cli_write_file(o->path, b.data, b.len, &err) != DV_OK)
        rc = cli_fail(&err);
    dv_buf_free(&b);
    if (rc) /* nothing was blessed: the baseline is as it was */
        return rc;
    printf("blessed %zu entries of %s in %.1f s%s\n", selected - failed, o->path, secs,
           failed ? "; some failed (not recorded)" : "");
    return failed ? 1 : 0;
}

/* Compares the selected entries with their recorded figures. */
static int report(const regress_opts *o, const entry *e, size_t n, size_t selected, double secs, long threads,
                  double tol)
{
    cJSON *rows = cJSON_CreateArray();
    if (!o->json)
        printf("%-58s %-12s %14s %14s %10s\n", "entry", "metric", "old", "new", "change");
    unsigned drifted = 0;
    for (size_t i = 0; i < n; i++)
        if (e[i].selected)
            drifted += compare(&e[i], tol, o->json, rows) != 0;
    if (!o->json) {
        cJSON_Delete(rows);
        printf("%zu entries in %.1f s on %ld threads: %u drifted%s\n", selected, secs, threads, drifted,
               drifted ? " (if intended: dvsim regress --bless, and commit the baseline)"
                       : ", nothing moved");
        return drifted ? 1 : 0;
    }
    cJSON *out = cJSON_CreateObject();
    bool ok = out && cJSON_AddNumberToObject(out, "entries", (double)selected) &&
              cJSON_AddNumberToObject(out, "drifted", drifted) &&
              cJSON_AddNumberToObject(out, "seconds", secs);
    ok = ok && rows && cJSON_AddItemToObject(out, "moved", rows);
    if (!ok) /* rows is out's only once added */
        cJSON_Delete(rows);
    int rc = cli_print_json(out, ok);
    return rc ? rc : drifted ? 1 : 0;
}

int cmd_regress(int argc, char **argv)
{
    regress_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    cJSON *root = NULL;
    entry *e = NULL;
    size_t n = 0, selected = 0;
    double tol = 0.01;
    rc = load(&o, &root, &e, &n, &selected, &tol);
    if (!rc) {
        double t0 = cli_now();
        long threads = run_all(e, n, selected, o.jobs);
        double secs = cli_now() - t0;
        rc = o.bless ? bless(&o, root, e, n, selected, secs) : report(&o, e, n, selected, secs, threads, tol);
    }
    cJSON_Delete(root);
    free(e);
    return rc;
}
