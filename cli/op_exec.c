/* op_exec.c - one operator run of a regress entry or a bench workload,
 * through the operator driver (dv_opjob.h), reduced to its figures. */
#include "op_exec.h"

#include "dv_opjob.h"
#include "dv_text.h"
#include "run_sanitize.h"

#include <stdio.h>
#include <string.h>

void op_spec_name(const op_spec *s, char *buf, size_t size)
{
    /* the strings come from a baseline file: escaped, one printable line */
    int n = snprintf(buf, size, "%s/%s/%s/%s/%s", DV_ESC(s->op), s->variant ? DV_ESC(s->variant) : "-",
                     s->dtype ? DV_ESC(s->dtype) : "-", s->shape && *s->shape ? DV_ESC(s->shape) : "-",
                     DV_ESC(s->chip));
    if (s->blocks && n > 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, "/b%llu", (unsigned long long)s->blocks);
    if (!s->data && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "/nodata");
}

static void fail(op_outcome *o, int rc, const char *msg)
{
    o->rc = rc;
    snprintf(o->msg, sizeof o->msg, "%s", msg);
}

void op_exec(const op_spec *s, op_outcome *o)
{
    memset(o, 0, sizeof *o);
    dv_error err = {DV_OK, ""};
    dv_chip_config cfg;
    const dv_operator *op = dv_operator_find(s->op);
    if (!op) {
        fail(o, 65, "no such operator");
        return;
    }
    if (dv_config_builtin(s->chip, &cfg, &err) != DV_OK) {
        fail(o, dv_status_exit_code(err.status), err.msg);
        return;
    }
    dv_opjob job = {
        .op = op,
        .req = {.variant = s->variant, .dtype = s->dtype, .shape = s->shape, .seed = 1, .blocks = s->blocks},
        .cfg = &cfg,
        .data = s->data,
        .no_check = s->no_check,
        .max_cycles = 2000000000ull};
    run_san san;
    if (run_san_create(&san, s->sanitize) != 0) {
        fail(o, 70, "out of memory for the sanitizer");
        return;
    }
    run_san_job(&san, &job);
    dv_opjob_result r;
    if (dv_opjob_run(&job, &r, &err) != DV_OK) {
        fail(o, dv_status_exit_code(err.status), err.msg);
    } else if (r.res.stop != DV_STOP_DONE) {
        fail(o, 1, r.res.message ? r.res.message : dv_stop_name(r.res.stop));
    } else {
        /* A run of several launches (an unfused graph) counts all their
         * cycles; its utilisation and bytes are the last launch's. */
        o->cycles = r.cycles;
        o->cube_pct = r.cube_pct;
        o->vector_pct = r.vector_pct;
        memcpy(o->path_bytes, r.path_bytes, sizeof o->path_bytes);
        o->insns = r.insns;
        o->macs = r.macs;
        o->checked = r.checked;
        o->passed = r.passed;
        o->host_seconds = r.sim_seconds;
        o->fill_seconds = r.fill_seconds;
        o->fill_cpu = r.fill_cpu;
        o->sim_cpu = r.sim_cpu;
        o->check_seconds = r.check_seconds;
        o->check_cpu = r.check_cpu;
        snprintf(o->reference, sizeof o->reference, "%s", r.run->check.reference);
        if (o->checked && !o->passed)
            fail(o, 1, r.run->check.first_bad[0] ? r.run->check.first_bad : "no output compared");
        if (san.san && (o->san_findings = dv_san_findings(san.san)) != 0 && !o->rc) {
            dv_buf b = DV_BUF_INIT;
            dv_san_report_text(san.san, &b);
            char first[200] = "";
            if (b.data)
                sscanf(b.data, "%199[^\n]", first);
            dv_buf_free(&b);
            char msg[256];
            snprintf(msg, sizeof msg, "sanitizer: %zu finding%s, first: %.180s", o->san_findings,
                     o->san_findings == 1 ? "" : "s", first);
            fail(o, 1, msg);
        }
    }
    dv_opjob_free(&r);
    run_san_free(&san);
}
