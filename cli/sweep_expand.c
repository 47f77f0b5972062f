/* sweep_expand.c - a sweep spec expanded into jobs: the mixed-radix walk
 * over workloads, chips and axis groups, each job's dvsim run command line,
 * and its hash (sweep_spec.h). */
#include "dv_operator.h"
#include "sweep_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The values of group g (every axis of a group has as many). */
static size_t group_size(const sweep_spec *s, int g)
{
    for (size_t i = 0; i < s->naxes; i++)
        if (s->axes[i].group == g)
            return s->axes[i].values.count;
    return 1;
}

static int group_count(const sweep_spec *s)
{
    int n = 0;
    for (size_t i = 0; i < s->naxes; i++)
        if (s->axes[i].group + 1 > n)
            n = s->axes[i].group + 1;
    return n;
}

size_t sweep_spec_count(const sweep_spec *s)
{
    uint64_t n = (uint64_t)s->nworkloads * (s->chips.count ? s->chips.count : 1);
    for (int g = 0; g < group_count(s) && n <= SWEEP_MAX_JOBS; g++)
        n *= group_size(s, g);
    return n <= SWEEP_MAX_JOBS ? (size_t)n : 0;
}

void sweep_hash(char *const *argv, int argc, char out[17])
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < argc; i++) {
        for (const unsigned char *p = (const unsigned char *)argv[i]; *p; p++)
            h = (h ^ *p) * 0x100000001b3ull;
        h = (h ^ '\n') * 0x100000001b3ull;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* ---- a job's command line ---- */

typedef struct argv_buf {
    char **argv;
    int argc, cap;
    bool oom;
} argv_buf;

static void push(argv_buf *b, const char *s)
{
    if (b->oom)
        return;
    if (b->argc + 2 > b->cap) {
        int cap = b->cap ? 2 * b->cap : 32;
        char **a = realloc(b->argv, (size_t)cap * sizeof *a);
        if (!a) {
            b->oom = true;
            return;
        }
        b->argv = a, b->cap = cap;
    }
    if (!(b->argv[b->argc] = strdup(s))) {
        b->oom = true;
        return;
    }
    b->argv[++b->argc] = NULL;
}

static void push2(argv_buf *b, const char *opt, const char *v)
{
    push(b, opt);
    push(b, v);
}

/* NAME=VALUE items (a shape's, or a kernel's arguments) with the axes'
 * values put in: an axis replaces the item of its name or adds one. */
typedef struct kv_list {
    char name[SWEEP_MAX_LIST + SWEEP_MAX_AXES][SWEEP_MAX_STR + 1];
    const char *value[SWEEP_MAX_LIST + SWEEP_MAX_AXES];
    char valbuf[SWEEP_MAX_LIST + SWEEP_MAX_AXES][SWEEP_MAX_STR + 1];
    size_t n;
} kv_list;

static void kv_put(kv_list *l, const char *name, size_t nlen, const char *value)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        if (strlen(l->name[i]) == nlen && !strncmp(l->name[i], name, nlen))
            break;
    if (i == l->n) {
        if (l->n == sizeof l->value / sizeof l->value[0])
            return;
        snprintf(l->name[l->n++], sizeof l->name[0], "%.*s", (int)nlen, name);
    }
    snprintf(l->valbuf[i], sizeof l->valbuf[0], "%s", value);
    l->value[i] = l->valbuf[i];
}

/* An axis of shape parameter P is for the operators that have P (an
 * operator dvsim does not know gets it, and fails with its message). */
static bool has_param(const char *opname, const char *p)
{
    const dv_operator *op = dv_operator_find(opname);
    if (!op)
        return true;
    for (unsigned i = 0; op->params[i].name; i++)
        if (!strcmp(op->params[i].name, p))
            return true;
    return false;
}

/* One job's command line; false if memory ran out. */
static bool build_argv(const sweep_spec *s, size_t wi, size_t ci, const size_t *value, argv_buf *b)
{
    const sweep_workload *w = &s->workloads[wi];
    static kv_list items; /* large: not on the stack (one expansion at a time) */
    items.n = 0;
    push(b, "run");
    push(b, w->op ? w->op : w->kernel);
    const char *variant = w->variant, *dtype = w->dtype, *blocks = w->blocks, *seed = s->seed;
    for (size_t a = 0; a < s->naxes; a++) {
        const sweep_axis *x = &s->axes[a];
        if (x->kind != SWEEP_AXIS_OPTION)
            continue;
        const char *v = x->values.items[value[a]];
        if (!strcmp(x->target, "variant") && w->op)
            variant = v;
        else if (!strcmp(x->target, "dtype") && w->op)
            dtype = v;
        else if (!strcmp(x->target, "blocks"))
            blocks = v;
        else if (!strcmp(x->target, "seed"))
            seed = v;
    }
    if (w->op) {
        if (variant)
            push2(b, "--variant", variant);
        if (dtype)
            push2(b, "--dtype", dtype);
        for (const char *p = w->shape; p && *p;) { /* P=V,... */
            size_t n = strcspn(p, ","), eq = strcspn(p, "=");
            char v[SWEEP_MAX_STR + 1];
            snprintf(v, sizeof v, "%.*s", eq < n ? (int)(n - eq - 1) : 0, p + (eq < n ? eq + 1 : n));
            kv_put(&items, p, eq < n ? eq : n, v);
            p += n + (p[n] == ',');
        }
    } else {
        if (w->kernel_name)
            push2(b, "--kernel", w->kernel_name);
        for (size_t i = 0; i < w->args.count; i++) {
            const char *eq = strchr(w->args.items[i], '=');
            kv_put(&items, w->args.items[i], (size_t)(eq - w->args.items[i]), eq + 1);
        }
    }
    for (size_t a = 0; a < s->naxes; a++) {
        const sweep_axis *x = &s->axes[a];
        if ((x->kind == SWEEP_AXIS_SHAPE && w->op && has_param(w->op, x->target)) ||
            (x->kind == SWEEP_AXIS_ARG && w->kernel))
            kv_put(&items, x->target, strlen(x->target), x->values.items[value[a]]);
    }
    if (w->op && items.n) {
        char shape[8192];
        size_t n = 0;
        for (size_t i = 0; i < items.n && n < sizeof shape; i++)
            n += (size_t)snprintf(shape + n, sizeof shape - n, "%s%s=%s", i ? "," : "", items.name[i],
                                  items.value[i]);
        push2(b, "--shape", shape);
    }
    for (size_t i = 0; w->kernel && i < items.n; i++) {
        char kv[2 * SWEEP_MAX_STR + 2];
        snprintf(kv, sizeof kv, "%s=%s", items.name[i], items.value[i]);
        push2(b, "--arg", kv);
    }
    for (size_t i = 0; i < w->gms.count; i++)
        push2(b, "--gm", w->gms.items[i]);
    if (blocks)
        push2(b, "--blocks", blocks);
    const char *chip = s->chips.items[ci];
    size_t cl = strlen(chip);
    push2(b, strchr(chip, '/') || (cl > 4 && !strcmp(chip + cl - 4, ".ini")) ? "--config" : "--chip", chip);
    for (size_t i = 0; i < s->sets.count; i++)
        push2(b, "--set", s->sets.items[i]);
    for (size_t a = 0; a < s->naxes; a++) {
        const sweep_axis *x = &s->axes[a];
        if (x->kind == SWEEP_AXIS_KEY) {
            char kv[2 * SWEEP_MAX_STR + 2];
            snprintf(kv, sizeof kv, "%s=%s", x->target, x->values.items[value[a]]);
            push2(b, "--set", kv);
        }
    }
    push2(b, "--seed", seed ? seed : "1");
    if (!s->data)
        push(b, "--no-data");
    if (s->max_cycles)
        push2(b, "--max-cycles", s->max_cycles);
    if (s->groups.count) {
        char g[4096];
        size_t n = 0;
        for (size_t i = 0; i < s->groups.count && n < sizeof g; i++)
            n += (size_t)snprintf(g + n, sizeof g - n, "%s%s", i ? "," : "", s->groups.items[i]);
        push2(b, "--metrics", g);
    }
    return !b->oom;
}

void sweep_argv_free(char **argv)
{
    for (char **p = argv; p && *p; p++)
        free(*p);
    free(argv);
}

dv_status sweep_job_argv(const sweep_spec *s, const sweep_job *j, char ***argv, int *argc, dv_error *err)
{
    argv_buf b = {NULL, 0, 0, false};
    if (!build_argv(s, j->workload, j->chip, j->value, &b)) {
        sweep_argv_free(b.argv);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for a job's command line");
    }
    *argv = b.argv;
    *argc = b.argc;
    return DV_OK;
}

static const sweep_job *sort_base;

static int by_hash(const void *a, const void *b)
{
    const sweep_job *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];
    int c = strcmp(x->hash, y->hash);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* Every job's primary: the first of the jobs with its hash. */
static bool mark_repeats(sweep_jobs *js)
{
    size_t *order = malloc(js->count * sizeof *order);
    if (!order)
        return false;
    for (size_t i = 0; i < js->count; i++)
        order[i] = i;
    sort_base = js->jobs;
    qsort(order, js->count, sizeof *order, by_hash);
    for (size_t i = 0; i < js->count; i++)
        js->jobs[i].primary = i;
    for (size_t i = 1; i < js->count; i++)
        if (!strcmp(js->jobs[order[i]].hash, js->jobs[order[i - 1]].hash))
            js->jobs[order[i]].primary = js->jobs[order[i - 1]].primary;
    free(order);
    return true;
}

dv_status sweep_expand(const sweep_spec *s, sweep_jobs *out, dv_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = sweep_spec_count(s);
    if (!n)
        return dv_error_set(err, DV_ERR_INPUT, "the sweep expands to more than %d jobs", SWEEP_MAX_JOBS);
    size_t na = s->naxes ? s->naxes : 1;
    out->jobs = calloc(n, sizeof *out->jobs);
    out->values = calloc(n * na, sizeof *out->values);
    if (!out->jobs || !out->values) {
        sweep_jobs_free(out);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for %zu jobs", n);
    }
    int ng = group_count(s);
    size_t per_chip = n / s->nworkloads / s->chips.count;
    for (size_t id = 0; id < n; id++) {
        sweep_job *j = &out->jobs[id];
        j->id = id;
        j->workload = id / (s->chips.count * per_chip);
        j->chip = id / per_chip % s->chips.count;
        j->value = out->values + id * na;
        size_t rest = id % per_chip;
        for (int g = ng - 1; g >= 0; g--) { /* the last group fastest */
            size_t size = group_size(s, g), at = rest % size;
            rest /= size;
            for (size_t a = 0; a < s->naxes; a++)
                if (s->axes[a].group == g)
                    j->value[a] = at;
        }
        char **argv;
        int argc;
        if (sweep_job_argv(s, j, &argv, &argc, err) != DV_OK) {
            sweep_jobs_free(out);
            return DV_ERR_NOMEM;
        }
        sweep_hash(argv, argc, j->hash);
        sweep_argv_free(argv);
    }
    out->count = n;
    if (!mark_repeats(out)) {
        sweep_jobs_free(out);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for %zu jobs", n);
    }
    return DV_OK;
}

void sweep_jobs_free(sweep_jobs *j)
{
    free(j->jobs);
    free(j->values);
    memset(j, 0, sizeof *j);
}
