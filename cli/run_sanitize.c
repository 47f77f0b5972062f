/* run_sanitize.c - --sanitize: the sanitizer on a run, and its report. */
#include "run_sanitize.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

int run_san_create(run_san *rs, unsigned checks)
{
    memset(rs, 0, sizeof *rs);
    if (!checks)
        return 0;
    dv_error err = {DV_OK, ""};
    rs->san = dv_san_create(checks, &err);
    if (!rs->san) {
        fprintf(stderr, "dvsim: %s\n", err.msg);
        return 70;
    }
    return 0;
}

void run_san_free(run_san *rs)
{
    dv_san_destroy(rs->san);
    rs->san = NULL;
}

dv_status run_san_launch_begin(void *user, dv_opr_run *r, dv_error *err)
{
    run_san *rs = user;
    if (!rs->san)
        return DV_OK;
    if (!rs->tensors_added) {
        for (unsigned i = 0; i < r->ntensors; i++) {
            dv_status st = dv_san_add_tensor(rs->san, r->t[i].name, r->t[i].addr, r->t[i].bytes, false, err);
            if (st != DV_OK)
                return st;
        }
        rs->tensors_added = true;
    }
    return dv_san_attach(rs->san, dv_opr_sim(r), err);
}

void run_san_launch_end(void *user, dv_opr_run *r, const dv_run_result *res)
{
    run_san *rs = user;
    if (!rs->san)
        return;
    dv_san_finish(rs->san, dv_opr_sim(r), res);
}

void run_san_job(run_san *rs, dv_opjob *job)
{
    if (!rs->san)
        return;
    job->launch_begin = run_san_launch_begin;
    job->launch_end = run_san_launch_end;
    job->launch_user = rs;
}

int run_san_report(const run_san *rs, const char *cmd, bool json, FILE *out)
{
    if (!rs->san)
        return 0;
    if (!json) {
        dv_buf b = DV_BUF_INIT;
        dv_san_report_text(rs->san, &b);
        if (b.data)
            fputs(b.data, out);
        dv_buf_free(&b);
    }
    size_t n = dv_san_findings(rs->san);
    if (!n)
        return 0;
    fprintf(
        stderr,
        "dvsim %s: the sanitizer found %zu problem%s (above%s); the run's results are otherwise complete\n",
        cmd, n, n == 1 ? "" : "s", json ? ", in \"sanitizer\"" : "");
    return 1;
}

char *run_san_json(const run_san *rs, const char *js)
{
    dv_buf b = DV_BUF_INIT;
    if (dv_san_report_json(rs->san, &b) != DV_OK) {
        dv_buf_free(&b);
        return NULL;
    }
    cJSON *root = cJSON_Parse(js), *san = cJSON_Parse(b.data);
    dv_buf_free(&b);
    char *txt = NULL;
    if (root && san && cJSON_AddItemToObject(root, "sanitizer", san)) {
        san = NULL;
        txt = cJSON_Print(root);
    }
    cJSON_Delete(san);
    cJSON_Delete(root);
    return txt;
}
