/* plan_ref.c - the CPU reference of a compiled plan: the steps in plan
 * order, each computing the graph nodes it covers on the compiled graph
 * (folded constants, BatchNorm folded into the Conv's weights).  A tensor
 * whose producer has no step (a reshape that shares its input's buffer) is
 * computed when first read; a step reading a tensor that no earlier step
 * made is an error, so the step order itself is checked.  Layout steps move
 * no values: the reference is logical. */
#include "plan_priv.h"

#include <stdlib.h>
#include <string.h>

dv_status pref_ensure(pref *r, int t, unsigned depth)
{
    dv_gtensor *x = &r->v->t[t];
    if (x->data)
        return DV_OK;
    int n = r->producer[t];
    if (n < 0 || r->has_step[n] || depth > r->v->nnodes)
        return dv_error_set(r->err, DV_ERR_INTERNAL, "%s: plan order: '%s' is read before a step computes it",
                            r->v->file, x->name);
    const dv_gnode *nd = &r->v->n[n];
    for (unsigned k = 0; k < nd->nin; k++)
        if (nd->in[k] >= 0) {
            dv_status st = pref_ensure(r, nd->in[k], depth + 1);
            if (st != DV_OK)
                return st;
        }
    return dv_ref_node(r->v, (unsigned)n, true, r->err);
}

dv_status pref_nodes(pref *r, const dv_plan_step *step)
{
    dv_status st = DV_OK;
    for (unsigned k = 0; st == DV_OK && k < step->nnodes; k++) {
        const dv_gnode *nd = &r->v->n[step->nodes[k]];
        for (unsigned j = 0; st == DV_OK && j < nd->nin; j++) {
            int t = nd->in[j];
            if (t >= 0 && !r->v->t[t].data) /* made by an earlier node of this step, or it must be there */
                st = pref_ensure(r, t, 0);
        }
        if (st == DV_OK)
            st = dv_ref_node(r->v, (unsigned)step->nodes[k], true, r->err);
    }
    return st;
}

dv_status pref_run(const dv_plan *p, const dv_gtensor *inputs, unsigned ninputs, dv_graph **values,
                   dv_error *err, pref_step_fn step_fn)
{
    *values = NULL;
    const dv_graph *g = p->g;
    if (!g)
        return dv_error_set(err, DV_ERR_USAGE,
                            "the plan has no graph (read from a .dvm): nothing to run the reference on");
    if (ninputs != g->ninputs)
        return dv_error_set(err, DV_ERR_INPUT, "%s: the graph has %u inputs, %u given", g->file, g->ninputs,
                            ninputs);
    pref r = {.p = p, .v = dv_graph_clone(g), .err = err};
    r.pv = calloc(p->ntensors + 1, sizeof *r.pv);
    r.producer = malloc((g->ntensors + 1) * sizeof *r.producer);
    r.has_step = calloc(g->nnodes + 1, sizeof *r.has_step);
    dv_status st = DV_OK;
    if (!r.v || !r.producer || !r.has_step || !r.pv)
        st = dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    for (unsigned k = 0; st == DV_OK && k < ninputs; k++) {
        dv_gtensor *t = &r.v->t[r.v->inputs[k]];
        int64_t want = dv_gtensor_count(t), have = dv_gtensor_count(&inputs[k]);
        if (have != want || !inputs[k].data)
            st = dv_error_set(err, DV_ERR_INPUT,
                              "%s: input '%s' has %lld elements, the plan was made for %lld", g->file,
                              t->name, (long long)have, (long long)want);
        else if (!(t->data = malloc((size_t)(want ? want : 1) * sizeof *t->data)))
            st = dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        else
            memcpy(t->data, inputs[k].data, (size_t)want * sizeof *t->data);
    }
    if (st == DV_OK) {
        for (unsigned i = 0; i < g->ntensors; i++)
            r.producer[i] = -1;
        for (unsigned i = 0; i < g->nnodes; i++)
            for (unsigned k = 0; k < g->n[i].nout; k++)
                if (g->n[i].out[k] >= 0)
                    r.producer[g->n[i].out[k]] = (int)i;
        for (unsigned s = 0; s < p->nsteps; s++)
            for (unsigned k = 0; k < p->s[s].nnodes; k++)
                r.has_step[p->s[s].nodes[k]] = true;
    }
    for (unsigned s = 0; st == DV_OK && s < p->nsteps; s++)
        st = step_fn ? step_fn(&r, &p->s[s]) : pref_nodes(&r, &p->s[s]);
    for (unsigned k = 0; st == DV_OK && k < g->noutputs; k++)
        st = pref_ensure(&r, g->outputs[k], 0);
    free(r.producer);
    free(r.has_step);
    for (unsigned i = 0; r.pv && i < p->ntensors; i++)
        free(r.pv[i]);
    free(r.pv);
    if (st != DV_OK) {
        dv_graph_error_clean(err);
        dv_graph_destroy(r.v);
        return st;
    }
    *values = r.v;
    return DV_OK;
}

dv_status dv_plan_ref_run(const dv_plan *p, const dv_gtensor *inputs, unsigned ninputs, dv_graph **values,
                          dv_error *err)
{
    return pref_run(p, inputs, ninputs, values, err, NULL);
}

const dv_gtensor *dv_plan_ref_output(const dv_plan *p, const dv_graph *values, unsigned k)
{
    return p->g && k < p->g->noutputs ? &values->t[p->g->outputs[k]] : NULL;
}
