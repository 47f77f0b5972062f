/* sweep_merge.c - a sweep's results: one row per job, in the order of the
 * expansion, with the job's axes and the spec's metrics picked from its
 * stats.json, as DIR/results.csv and DIR/results.json (sweep_run.h).  The
 * rows hold nothing of the host (no times, no paths), so every backend
 * writes the same bytes for the same jobs. */
#include "cli.h"
#include "dv_buf.h"
#include "dv_file.h"
#include "sweep_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A CSV field: quoted when it has a comma, a quote or a line break. */
static void csv_field(dv_buf *b, const char *s, bool last)
{
    if (strpbrk(s, ",\"\r\n")) {
        dv_buf_puts(b, "\"");
        for (const char *p = s; *p; p++)
            dv_buf_append(b, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1);
        dv_buf_puts(b, "\"");
    } else {
        dv_buf_puts(b, s);
    }
    dv_buf_puts(b, last ? "\n" : ",");
}

/* The shortest decimal that reads back as v; a whole number (a count) with all its digits. */
static void number_text(double v, char *buf, size_t size)
{
    if (!isfinite(v)) {
        snprintf(buf, size, "nan");
        return;
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(buf, size, "%.0f", v);
        return;
    }
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* The job's stats.json, parsed (NULL if it has none or it is broken). */
static cJSON *job_stats(const char *dir)
{
    char p[4096], *text;
    size_t len;
    snprintf(p, sizeof p, "%s/stats.json", dir);
    if (dv_read_file(p, &text, &len, NULL) != DV_OK)
        return NULL;
    cJSON *o = cJSON_ParseWithLength(text, len);
    free(text);
    return o;
}

static char *job_message(const char *dir)
{
    char p[4096], *text, *msg = NULL;
    size_t len;
    snprintf(p, sizeof p, "%s/status.json", dir);
    if (dv_read_file(p, &text, &len, NULL) != DV_OK)
        return NULL;
    cJSON *o = cJSON_ParseWithLength(text, len);
    free(text);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "message");
    if (cJSON_IsString(m))
        msg = strdup(m->valuestring);
    cJSON_Delete(o);
    return msg;
}

int sweep_merge(const sweep_ctx *c, bool quiet)
{
    const sweep_spec *s = &c->spec;
    dv_buf csv = DV_BUF_INIT;
    cJSON *root = cJSON_CreateObject(), *rows = NULL;
    if (root) {
        cJSON_AddStringToObject(root, "name", s->name ? s->name : "sweep");
        cJSON *ax = cJSON_AddArrayToObject(root, "axes"), *mx = cJSON_AddArrayToObject(root, "metrics");
        for (size_t a = 0; ax && a < s->naxes; a++)
            cJSON_AddItemToArray(ax, cJSON_CreateString(s->axes[a].name));
        for (size_t m = 0; mx && m < s->metrics.count; m++)
            cJSON_AddItemToArray(mx, cJSON_CreateString(s->metrics.items[m]));
        rows = cJSON_AddArrayToObject(root, "jobs");
    }
    csv_field(&csv, "id", false);
    csv_field(&csv, "hash", false);
    csv_field(&csv, "workload", false);
    csv_field(&csv, "chip", false);
    for (size_t a = 0; a < s->naxes; a++)
        csv_field(&csv, s->axes[a].name, false);
    csv_field(&csv, "status", false);
    csv_field(&csv, "exit", false);
    for (size_t m = 0; m < s->metrics.count; m++)
        csv_field(&csv, s->metrics.items[m], false);
    csv_field(&csv, "message", true);
    size_t failed = 0, pending = 0, *found = calloc(s->metrics.count + 1, sizeof *found);
    bool oom = !root || !rows || !found;
    for (size_t i = 0; i < c->jobs.count && !oom; i++) {
        const sweep_job *j = &c->jobs.jobs[i];
        char dir[SWEEP_JOB_DIR_MAX], num[64];
        sweep_job_dir(c, j, dir, sizeof dir);
        int rc = sweep_job_exit(c, j);
        const char *status = rc < 0 ? "pending" : rc ? "failed" : "ok";
        failed += rc > 0, pending += rc < 0;
        cJSON *row = cJSON_CreateObject(), *axes = NULL, *mets = NULL;
        oom = !row || !cJSON_AddItemToArray(rows, row);
        snprintf(num, sizeof num, "%zu", j->id);
        csv_field(&csv, num, false);
        csv_field(&csv, j->hash, false);
        csv_field(&csv, s->workloads[j->workload].name, false);
        csv_field(&csv, s->chips.items[j->chip], false);
        if (!oom) {
            cJSON_AddNumberToObject(row, "id", (double)j->id);
            cJSON_AddStringToObject(row, "hash", j->hash);
            cJSON_AddStringToObject(row, "workload", s->workloads[j->workload].name);
            cJSON_AddStringToObject(row, "chip", s->chips.items[j->chip]);
            axes = cJSON_AddObjectToObject(row, "axes");
        }
        for (size_t a = 0; a < s->naxes; a++) {
            const char *v = s->axes[a].values.items[j->value[a]];
            csv_field(&csv, v, false);
            if (axes)
                cJSON_AddStringToObject(axes, s->axes[a].name, v);
        }
        csv_field(&csv, status, false);
        snprintf(num, sizeof num, "%d", rc < 0 ? 0 : rc);
        csv_field(&csv, rc < 0 ? "" : num, false);
        if (!oom) {
            cJSON_AddStringToObject(row, "status", status);
            if (rc >= 0)
                cJSON_AddNumberToObject(row, "exit", rc);
            else
                cJSON_AddNullToObject(row, "exit");
            mets = cJSON_AddObjectToObject(row, "metrics");
        }
        cJSON *stats = rc == 0 ? job_stats(dir) : NULL;
        for (size_t m = 0; m < s->metrics.count; m++) {
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(stats, s->metrics.items[m]);
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(st, "value");
            if (cJSON_IsNumber(v)) {
                number_text(v->valuedouble, num, sizeof num);
                found[m]++;
                if (mets)
                    cJSON_AddRawToObject(mets, s->metrics.items[m], num);
            } else {
                num[0] = '\0';
                if (mets)
                    cJSON_AddNullToObject(mets, s->metrics.items[m]);
            }
            csv_field(&csv, num, false);
        }
        cJSON_Delete(stats);
        char *msg = rc > 0 ? job_message(dir) : NULL;
        csv_field(&csv, msg ? msg : "", true);
        if (!oom)
            cJSON_AddStringToObject(row, "message", msg ? msg : "");
        free(msg);
    }
    char *json = oom ? NULL : cJSON_Print(root);
    cJSON_Delete(root);
    int rc = 0;
    dv_error err = {DV_OK, ""};
    char p[4096];
    if (!json || !csv.data) {
        rc = cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory for the results"});
    } else {
        snprintf(p, sizeof p, "%s/results.csv", c->dir);
        if (cli_write_file(p, csv.data, csv.len, &err) != DV_OK)
            rc = cli_fail(&err);
        snprintf(p, sizeof p, "%s/results.json", c->dir);
        if (!rc && cli_write_file(p, json, strlen(json), &err) != DV_OK)
            rc = cli_fail(&err);
    }
    for (size_t m = 0; !rc && m < s->metrics.count; m++)
        if (!found[m] && c->jobs.count > failed + pending)
            fprintf(stderr,
                    "dvsim sweep: warning: metric '%s' is in no job's stats.json (see one of "
                    "%s/jobs/*/stats.json)\n",
                    s->metrics.items[m], c->dir);
    free(found);
    free(json);
    dv_buf_free(&csv);
    if (!rc && (failed || pending)) {
        if (!quiet)
            fprintf(stderr, "dvsim sweep: %zu of %zu jobs failed, %zu not finished (%s/results.csv)\n",
                    failed, c->jobs.count, pending, c->dir);
        rc = 1;
    }
    return rc;
}
