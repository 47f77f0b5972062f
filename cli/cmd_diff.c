/* cmd_diff.c - dvsim diff A B: what moved between two runs.  A and B are
 * --out folders (stats.json, and profile.json from dvsim profile) or the
 * JSON files themselves (a stats.json or a profile.json, told apart by
 * their content).  Per metric: old, new, change, %; per source line (when
 * both have profiles): the cost of each line before and after. */
#include "cli.h"
#include "dv_file.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void cmd_diff_help(FILE *out)
{
    fputs("usage: dvsim diff A B [--all] [--top N] [--macro-lines] [--fail-on PCT] [--json | --csv]\n"
          "\n"
          "Compares two runs: A and B are --out folders of dvsim run or dvsim profile (their stats.json,\n"
          "and profile.json if there is one) or such JSON files.  Prints every metric that moved (old,\n"
          "new, change, %) in stats.json's order, then the source lines whose cost (cycles on every pipe\n"
          "but starved and idle, from the profiles) moved most.  Exit 0, or with --fail-on PCT exit 1 when\n"
          "a metric moved by more than PCT percent (a metric that appears, disappears or leaves zero\n"
          "counts as moved by more than any PCT).\n"
          "\n"
          "  --all          every metric, also those that did not move\n"
          "  --top N        the N lines that moved most (default 20; 0: all)\n"
          "  --macro-lines  match lines by their macro line (the part after <-): two kernels expanded\n"
          "                 from the same macros, as matmul's variants from mm.inc\n"
          "  --fail-on PCT  exit 1 if a metric moved by more than PCT %\n"
          "  --json, --csv  the same content as JSON or CSV\n",
          out);
}

typedef struct side {
    cJSON *stats, *profile; /* either may be NULL, not both */
    char path[4096];
} side;

static cJSON *load_json(const char *path, int *rc)
{
    char *text = NULL;
    size_t len = 0;
    dv_error err = {DV_OK, ""};
    if (dv_read_file(path, &text, &len, &err) != DV_OK) {
        *rc = cli_fail(&err);
        return NULL;
    }
    cJSON *j = cJSON_ParseWithLength(text, len);
    free(text);
    if (!j || !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        fprintf(stderr, "dvsim diff: %s: not a JSON object\n", path);
        *rc = 65;
    }
    return j;
}

static bool is_profile(const cJSON *j)
{
    return cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "rows")) &&
           cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "per_core"));
}

/* A stats.json: every member an object with a numeric "value". */
static bool is_stats(const cJSON *j)
{
    const cJSON *m;
    bool any = false;
    cJSON_ArrayForEach(m, j)
    {
        if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(m, "value")))
            return false;
        any = true;
    }
    return any;
}

static int load_side(const char *path, side *s)
{
    struct stat sb;
    int rc = 0;
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "dvsim diff: %s: cannot open: %s\n", path, strerror(errno));
        return 66;
    }
    if (S_ISDIR(sb.st_mode)) {
        char p[4200];
        snprintf(p, sizeof p, "%s/stats.json", path);
        if (!(s->stats = load_json(p, &rc)))
            return rc;
        snprintf(p, sizeof p, "%s/profile.json", path);
        if (stat(p, &sb) == 0 && !(s->profile = load_json(p, &rc)))
            return rc;
    } else {
        cJSON *j = load_json(path, &rc);
        if (!j)
            return rc;
        if (is_profile(j))
            s->profile = j;
        else
            s->stats = j;
    }
    if (s->stats && !is_stats(s->stats)) {
        fprintf(stderr, "dvsim diff: %s: neither a stats.json nor a profile.json\n", path);
        return 65;
    }
    if (s->profile && !is_profile(s->profile)) {
        fprintf(stderr, "dvsim diff: %s: profile.json without rows\n", path);
        return 65;
    }
    return 0;
}

typedef struct moved {
    const char *name;
    double old_v, new_v;
    bool has_old, has_new;
} moved;

static double pct_of(const moved *m)
{
    if (!m->has_old || !m->has_new)
        return INFINITY;
    if (m->old_v == 0)
        return m->new_v == 0 ? 0 : INFINITY;
    return 100.0 * (m->new_v - m->old_v) / fabs(m->old_v);
}

static bool changed(const moved *m)
{
    return !m->has_old || !m->has_new || m->old_v != m->new_v;
}

static double value_of(const cJSON *m)
{
    return cJSON_GetObjectItemCaseSensitive(m, "value")->valuedouble;
}

/* Metrics: A's order, then those only B has. */
static size_t metrics(const side *a, const side *b, moved **out)
{
    size_t n = 0, cap = (size_t)cJSON_GetArraySize(a->stats) + (size_t)cJSON_GetArraySize(b->stats);
    moved *m = calloc(cap ? cap : 1, sizeof *m);
    if (!m)
        return 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a->stats)
    {
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(b->stats, x->string);
        m[n++] = (moved){x->string, value_of(x), y ? value_of(y) : 0, true, y != NULL};
    }
    cJSON_ArrayForEach(x, b->stats)
    {
        if (!cJSON_GetObjectItemCaseSensitive(a->stats, x->string))
            m[n++] = (moved){x->string, 0, value_of(x), false, true};
    }
    *out = m;
    return n;
}

static int by_change(const void *p, const void *q)
{
    const moved *x = p, *y = q;
    double dx = fabs(x->new_v - x->old_v), dy = fabs(y->new_v - y->old_v);
    if (dx != dy)
        return dx < dy ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The line a row is matched by: its "where", or with macro_lines the
 * macro's line after " <- " (two kernels expanded from the same macros). */
static const char *line_key(const char *where, bool macro_lines)
{
    const char *m = macro_lines ? strstr(where, " <- ") : NULL;
    return m ? m + 4 : where;
}

/* Lines: the cost of every row of either profile ("where"). */
static size_t lines(const side *a, const side *b, bool macro_lines, moved **out)
{
    const cJSON *ra = cJSON_GetObjectItemCaseSensitive(a->profile, "rows");
    const cJSON *rb = cJSON_GetObjectItemCaseSensitive(b->profile, "rows");
    size_t cap = (size_t)cJSON_GetArraySize(ra) + (size_t)cJSON_GetArraySize(rb), n = 0;
    moved *m = calloc(cap ? cap : 1, sizeof *m);
    if (!m)
        return 0;
    const cJSON *rows[2] = {ra, rb};
    for (int s = 0; s < 2; s++) {
        const cJSON *r;
        cJSON_ArrayForEach(r, rows[s])
        {
            const cJSON *w = cJSON_GetObjectItemCaseSensitive(r, "where");
            const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "cycles");
            if (!cJSON_IsString(w) || !cJSON_IsNumber(c))
                continue;
            const char *key = line_key(w->valuestring, macro_lines);
            size_t i = 0;
            while (i < n && strcmp(m[i].name, key) != 0)
                i++;
            if (i == n)
                m[n++] = (moved){key, 0, 0, true, true};
            if (s == 0)
                m[i].old_v += c->valuedouble;
            else
                m[i].new_v += c->valuedouble;
        }
    }
    qsort(m, n, sizeof *m, by_change);
    *out = m;
    return n;
}

static void pct_text(const moved *m, char *buf, size_t size)
{
    double p = pct_of(m);
    if (!m->has_old)
        snprintf(buf, size, "new");
    else if (!m->has_new)
        snprintf(buf, size, "gone");
    else if (isinf(p))
        snprintf(buf, size, "from 0");
    else
        snprintf(buf, size, "%+.2f%%", p);
}

static void num(FILE *out, double v, int width)
{
    if (v == floor(v) && fabs(v) < 1e15)
        fprintf(out, " %*.0f", width, v);
    else
        fprintf(out, " %*.6g", width, v);
}

static cJSON *moved_json(const moved *m)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, m->name[0] && strchr(m->name, ':') ? "where" : "name", m->name);
    if (m->has_old)
        cJSON_AddNumberToObject(e, "old", m->old_v);
    if (m->has_new)
        cJSON_AddNumberToObject(e, "new", m->new_v);
    cJSON_AddNumberToObject(e, "change", m->new_v - m->old_v);
    double p = pct_of(m);
    if (isinf(p))
        cJSON_AddNullToObject(e, "pct");
    else
        cJSON_AddNumberToObject(e, "pct", p);
    return e;
}

/* A CSV field in quotes, a quote doubled. */
static void csv_quoted(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

enum { OPT_ALL = CLI_OPT_FIRST, OPT_TOP, OPT_FAIL_ON, OPT_JSON, OPT_CSV, OPT_MACRO_LINES };

int cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"all", no_argument, NULL, OPT_ALL},
                                         {"top", required_argument, NULL, OPT_TOP},
                                         {"fail-on", required_argument, NULL, OPT_FAIL_ON},
                                         {"json", no_argument, NULL, OPT_JSON},
                                         {"csv", no_argument, NULL, OPT_CSV},
                                         {"macro-lines", no_argument, NULL, OPT_MACRO_LINES},
                                         {NULL, 0, NULL, 0}};
    cli_getopt g;
    cli_getopt_init(&g, "diff", argc, argv, "h", opts, false);
    const char *paths[2] = {NULL, NULL};
    int npaths = 0;
    bool all = false, json = false, csv = false, macro_lines = false;
    uint64_t top = 20;
    double fail_on = -1;
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_diff_help(stdout); return 0;
        case OPT_ALL: all = true; break;
        case OPT_JSON: json = true; break;
        case OPT_CSV: csv = true; break;
        case OPT_MACRO_LINES: macro_lines = true; break;
        case OPT_TOP:
            if (!cli_parse_u64(g.arg, &top))
                return cli_usage_error("diff", "--top needs a number, not '%s'", g.arg);
            break;
        case OPT_FAIL_ON: {
            char *end;
            fail_on = strtod(g.arg, &end);
            if (end == g.arg || *end || !(fail_on >= 0))
                return cli_usage_error("diff", "--fail-on needs a percentage, not '%s'", g.arg);
            break;
        }
        case CLI_ARG:
            if (npaths == 2)
                return cli_usage_error("diff", "takes two runs, not more ('%s')", g.arg);
            paths[npaths++] = g.arg;
            break;
        default: return EXIT_USAGE;
        }
    }
    if (npaths != 2)
        return cli_usage_error("diff", "needs two runs: dvsim diff A B");
    if (json && csv)
        return cli_usage_error("diff", "--json and --csv: choose one");
    side a, b;
    int rc = load_side(paths[0], &a);
    if (!rc)
        rc = load_side(paths[1], &b);
    else
        memset(&b, 0, sizeof b);
    if (!rc && (!a.stats) != (!b.stats))
        rc = cli_usage_error("diff", "one side has statistics and the other not");
    if (!rc && !a.stats && !(a.profile && b.profile))
        rc = cli_usage_error("diff", "nothing to compare");
    moved *mm = NULL, *ml = NULL;
    size_t nm = 0, nl = 0;
    if (!rc && a.stats)
        nm = metrics(&a, &b, &mm);
    if (!rc && a.profile && b.profile)
        nl = lines(&a, &b, macro_lines, &ml);
    bool over = false;
    for (size_t i = 0; i < nm; i++)
        if (changed(&mm[i]) && fail_on >= 0 && fabs(pct_of(&mm[i])) > fail_on)
            over = true;
    size_t nl_shown = top && top < nl ? (size_t)top : nl;
    if (rc) {
        /* reported */
    } else if (json) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "a", paths[0]);
        cJSON_AddStringToObject(root, "b", paths[1]);
        cJSON *ms = cJSON_AddArrayToObject(root, "metrics");
        for (size_t i = 0; i < nm; i++)
            if (all || changed(&mm[i]))
                cJSON_AddItemToArray(ms, moved_json(&mm[i]));
        cJSON *ls = cJSON_AddArrayToObject(root, "lines");
        for (size_t i = 0; i < nl_shown; i++)
            if (all || changed(&ml[i]))
                cJSON_AddItemToArray(ls, moved_json(&ml[i]));
        cJSON_AddBoolToObject(root, "over_fail_on", over);
        rc = cli_print_json(root, true);
    } else if (csv) {
        printf("section,name,old,new,change,pct\n");
        for (int s = 0; s < 2; s++) {
            const moved *m = s ? ml : mm;
            size_t n = s ? nl_shown : nm;
            for (size_t i = 0; i < n; i++) {
                if (!all && !changed(&m[i]))
                    continue;
                char pt[32];
                pct_text(&m[i], pt, sizeof pt);
                printf("%s,", s ? "line" : "metric");
                csv_quoted(m[i].name);
                printf(",%.17g,%.17g,%.17g,%s\n", m[i].old_v, m[i].new_v, m[i].new_v - m[i].old_v,
                       pt[0] == '+' || pt[0] == '-' ? pt : "");
            }
        }
    } else {
        printf("dvsim diff %s -> %s\n", paths[0], paths[1]);
        if (a.stats) {
            printf("\n%-44s %16s %16s %16s %10s\n", "metric", "old", "new", "change", "%");
            size_t shown = 0;
            for (size_t i = 0; i < nm; i++) {
                if (!all && !changed(&mm[i]))
                    continue;
                char pt[32];
                pct_text(&mm[i], pt, sizeof pt);
                printf("%-44s", mm[i].name);
                num(stdout, mm[i].old_v, 16);
                num(stdout, mm[i].new_v, 16);
                num(stdout, mm[i].new_v - mm[i].old_v, 16);
                printf(" %10s\n", pt);
                shown++;
            }
            if (!shown)
                printf("(no metric moved)\n");
        }
        if (nl) {
            printf(
                "\nsource lines by how much their cost moved (cycles on every pipe but starved and idle)\n");
            printf("%16s %16s %16s %10s  %s\n", "old", "new", "change", "%", "where");
            size_t moved_lines = 0;
            for (size_t i = 0; i < nl_shown; i++) {
                if (!all && !changed(&ml[i]))
                    continue;
                moved_lines++;
                char pt[32];
                pct_text(&ml[i], pt, sizeof pt);
                num(stdout, ml[i].old_v, 15);
                num(stdout, ml[i].new_v, 16);
                num(stdout, ml[i].new_v - ml[i].old_v, 16);
                printf(" %10s  %s\n", pt, ml[i].name);
            }
            if (!moved_lines)
                printf("(no line moved)\n");
        }
        rc = cli_stdout_done();
    }
    free(mm);
    free(ml);
    cJSON_Delete(a.stats);
    cJSON_Delete(a.profile);
    cJSON_Delete(b.stats);
    cJSON_Delete(b.profile);
    if (!rc && over) {
        fprintf(stderr, "dvsim diff: a metric moved by more than %g%%\n", fail_on);
        rc = 1;
    }
    return rc;
}
