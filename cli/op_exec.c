/* op_exec.c - one operator run reduced to its figures (regress, bench). */
#include "op_exec.h"
#include "cli.h"

#include "dv_stats.h"

#include <stdio.h>
#include <string.h>

void op_spec_name(const op_spec *s, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s/%s/%s/%s/%s", s->op, s->variant ? s->variant : "-",
                     s->dtype ? s->dtype : "-", s->shape && *s->shape ? s->shape : "-", s->chip);
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
    dv_opr_request req = {
        .variant = s->variant, .dtype = s->dtype, .shape = s->shape, .seed = 1, .blocks = s->blocks};
    dv_opr_run *r;
    if (dv_opr_create(op, &req, &cfg, s->data, &r, &err) != DV_OK) {
        fail(o, dv_status_exit_code(err.status), err.msg);
        return;
    }
    dv_run_result res;
    dv_stat_list l = {NULL, 0, 0};
    double t0 = cli_now();
    if (dv_opr_before_run(r, &err) != DV_OK || dv_opr_run_launches(r, 2000000000ull, &res, &err) != DV_OK) {
        fail(o, dv_status_exit_code(err.status), err.msg);
        goto done;
    }
    o->host_seconds = cli_now() - t0;
    if (res.stop != DV_STOP_DONE) {
        fail(o, 1, res.message ? res.message : dv_stop_name(res.stop));
        goto done;
    }
    if ((!s->no_check && dv_opr_check_outputs(r, &err) != DV_OK) ||
        dv_stats_collect(dv_opr_sim(r), &res, &l, &err) != DV_OK) {
        fail(o, dv_status_exit_code(err.status), err.msg);
        goto done;
    }
    /* A run of several launches (an unfused graph) counts all their cycles;
     * its utilisation and bytes are the last launch's. */
    dv_opr_launch sum;
    dv_opr_totals(r, &sum);
    o->cycles = r->nlaunched > 1 ? sum.cycles : res.cycles;
    o->cube_pct = dv_stats_find(&l, "chip.cube.utilisation_avg_pct")->value;
    o->vector_pct = dv_stats_find(&l, "chip.vector.utilisation_avg_pct")->value;
    for (unsigned i = 0;; i++) {
        dv_core_info c;
        if (!dv_sim_core_info(dv_opr_sim(r), i, &c))
            break;
        for (int p = 0; p < DV_PATH_COUNT; p++)
            o->path_bytes[p] += c.stats->path_bytes[p];
        for (int p = 0; p < DV_PIPE_COUNT; p++)
            o->insns += c.stats->pipe[p].insns;
        o->macs += c.stats->cube_macs;
    }
    o->checked = r->check.done;
    o->passed = r->check.done && r->check.compared && !r->check.mismatches;
    o->max_abs = r->check.max_abs;
    o->max_rel = r->check.max_rel;
    if (o->checked && !o->passed)
        fail(o, 1, r->check.first_bad[0] ? r->check.first_bad : "no output compared");
done:
    dv_stats_free(&l);
    dv_opr_destroy(r);
}
