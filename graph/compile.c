/* compile.c - the graph compiler's driver: the passes in order, the plan's
 * lifetime, and the names of its enums. */
#include "compile_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *dv_tlayout_name(dv_tlayout l)
{
    static const char *const names[DV_TL_COUNT] = {"ND", "ND16", "NC1HWC0", "NZ", "FracZ"};
    return l < DV_TL_COUNT ? names[l] : "?";
}

const char *dv_step_kind_name(dv_step_kind k)
{
    return k == DV_STEP_DEVICE ? "device" : k == DV_STEP_HOST ? "host" : "layout";
}

void cc_log(cctx *c, const char *fmt, ...)
{
    size_t k = strlen(c->p->log);
    if (k + 2 >= sizeof c->p->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->p->log + k, sizeof c->p->log - k - 1, fmt, ap);
    va_end(ap);
    k = strlen(c->p->log);
    c->p->log[k] = '\n';
    c->p->log[k + 1] = '\0';
}

void dv_plan_destroy(dv_plan *p)
{
    if (!p)
        return;
    dv_graph_destroy(p->g);
    free(p->t);
    free(p->s);
    free(p->weights);
    free(p);
}

/* Symbolic input dims are planned as 1 (a batch of one), and said so. */
static void fix_symbolic(dv_plan *p)
{
    dv_graph *g = p->g;
    size_t k = 0;
    for (unsigned i = 0; i < g->ninputs; i++) {
        dv_gtensor *t = &g->t[g->inputs[i]];
        bool any = false;
        for (int d = 0; d < t->rank; d++)
            if (t->dims[d] < 0) {
                t->dims[d] = 1;
                any = true;
            }
        if (any && k + 1 < sizeof p->rep.symbolic)
            k += (size_t)snprintf(p->rep.symbolic + k, sizeof p->rep.symbolic - k, "%s%s", k ? ", " : "",
                                  t->name);
    }
}

dv_status dv_plan_compile(const dv_graph *g, int opt, const dv_chip_config *cfg, dv_plan **out, dv_error *err)
{
    return dv_plan_compile_streams(g, opt, cfg, 1, out, err);
}

dv_status dv_plan_compile_streams(const dv_graph *g, int opt, const dv_chip_config *cfg, unsigned streams,
                                  dv_plan **out, dv_error *err)
{
    *out = NULL;
    if (opt < 0 || opt > 2)
        return dv_error_set(err, DV_ERR_USAGE, "optimisation level %d (0, 1 or 2)", opt);
    dv_chip_config def;
    if (!cfg) {
        dv_status st = dv_config_builtin(dv_config_default_name(), &def, err);
        if (st != DV_OK)
            return st;
        cfg = &def;
    }
    dv_plan *p = calloc(1, sizeof *p);
    cctx c = {.p = p, .cfg = cfg, .err = err};
    if (!p || !(p->g = dv_graph_clone(g))) {
        free(p);
        return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", g->file);
    }
    p->opt = opt;
    p->streams = streams > 1 ? streams : 1;
    snprintf(p->chip, sizeof p->chip, "%s", cfg->name);
    p->hbm_bytes_per_cycle = cfg->hbm_bytes_per_cycle;
    p->rep.nodes_in = g->nnodes;
    fix_symbolic(p);
    for (unsigned i = 0; i < g->ninputs; i++)
        if (g->t[g->inputs[i]].rank < 0) {
            dv_plan_destroy(p);
            return dv_error_set(err, DV_ERR_INPUT, "%s: graph input '%s' has no shape", g->file,
                                g->t[g->inputs[i]].name);
        }
    dv_status st = cc_fold(&c);
    if (st == DV_OK)
        st = cc_count_consumers(&c);
    if (st == DV_OK)
        st = cc_fuse(&c);
    if (st == DV_OK)
        st = cc_lower(&c);
    if (st == DV_OK)
        st = cc_operator_sizes(&c);
    if (st == DV_OK)
        st = cc_memory(&c);
    if (st == DV_OK)
        st = cc_pack_weights(&c);
    free(c.memo);
    free(c.consumers);
    free(c.group_of);
    free(c.groups);
    if (st != DV_OK) {
        dv_graph_error_clean(err);
        dv_plan_destroy(p);
        return st;
    }
    *out = p;
    return DV_OK;
}
