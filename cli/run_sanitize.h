/* run_sanitize.h - --sanitize of dvsim run and regress: the sanitizer
 * (sim/sanitize/dv_sanitize.h) on a kernel's run or on every launch of an
 * operator, and its report. */
#ifndef DV_RUN_SANITIZE_H
#define DV_RUN_SANITIZE_H

#include "dv_opjob.h"
#include "dv_sanitize.h"

#include <stdbool.h>
#include <stdio.h>

typedef struct run_san {
    dv_san *san; /* NULL: --sanitize not given */
    bool tensors_added;
} run_san;

/* checks: a dv_san_check mask (0: nothing to do, rs->san stays NULL). */
int run_san_create(run_san *rs, unsigned checks);
void run_san_free(run_san *rs);
/* Sets a job up so that every launch of the operator is watched. */
void run_san_job(run_san *rs, dv_opjob *job);
/* The two observers run_san_job sets (user: the run_san), for a caller
 * that has other observers of each launch too; nothing without --sanitize. */
dv_status run_san_launch_begin(void *user, dv_opr_run *r, dv_error *err);
void run_san_launch_end(void *user, dv_opr_run *r, const dv_run_result *res);
/* The findings, one line each, then the summary (text) on out, or nothing
 * with json (run_san_json gives the object).  Returns 1 when something was
 * found (a line on stderr says so and that the results are otherwise
 * complete, naming cmd), else 0. */
int run_san_report(const run_san *rs, const char *cmd, bool json, FILE *out);
/* The stats JSON text js with a "sanitizer" member added; a new string
 * (free it), or NULL when out of memory. */
char *run_san_json(const run_san *rs, const char *js);

#endif
