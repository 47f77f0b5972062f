/* compile_fold.c - the first passes: shape inference with constant folding,
 * then BatchNormalization folded into the Conv before it.
 *
 * Folding runs the reference on a node whose inputs are all constants and
 * keeps its outputs as constants: at every level for the shape ops (a plan
 * needs every shape, and PyTorch's exports compute shapes with Shape,
 * Gather, Concat ... chains), from -O1 for every op (a Transpose of a
 * weight, arithmetic on constants). */
#include "compile_priv.h"
#include "dv_graph_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool all_inputs_constant(const dv_graph *g, const dv_gnode *n)
{
    for (unsigned k = 0; k < n->nin; k++)
        if (n->in[k] >= 0 && !g->t[n->in[k]].data)
            return false;
    return true;
}

/* Shape arithmetic (a Concat or Mul of int64 shapes): folded at every level like the shape ops. */
static bool integer_inputs(const dv_graph *g, const dv_gnode *n)
{
    for (unsigned k = 0; k < n->nin; k++)
        if (n->in[k] >= 0 && g->t[n->in[k]].dtype != DV_GDT_INT64 && g->t[n->in[k]].dtype != DV_GDT_INT32)
            return false;
    return n->nin > 0;
}

static bool all_outputs_constant(const dv_graph *g, const dv_gnode *n)
{
    for (unsigned k = 0; k < n->nout; k++)
        if (n->out[k] >= 0 && !g->t[n->out[k]].data)
            return false;
    return true;
}

static void node_free(dv_gnode *n)
{
    free(n->name);
    free(n->in);
    free(n->out);
    for (unsigned a = 0; a < n->nattr; a++) {
        free(n->attr[a].name);
        free(n->attr[a].s);
        free(n->attr[a].floats);
        free(n->attr[a].ints);
    }
    free(n->attr);
}

/* Drops the nodes marked dead, keeping the order of the rest. */
static void compact(dv_graph *g, const bool *dead)
{
    unsigned k = 0;
    for (unsigned i = 0; i < g->nnodes; i++) {
        if (dead[i])
            node_free(&g->n[i]);
        else
            g->n[k++] = g->n[i];
    }
    g->nnodes = k;
}

static dv_status fold_pass(cctx *c, bool *dead)
{
    dv_graph *g = c->p->g;
    for (unsigned i = 0; i < g->nnodes; i++) {
        dv_gnode *n = &g->n[i];
        bool fold = all_inputs_constant(g, n) &&
                    (c->p->opt >= 1 || dv_gop_is_shape_op(n->op) || integer_inputs(g, n));
        dv_status st = dv_ref_node(g, i, fold, c->err);
        if (st != DV_OK)
            return st;
        if (fold || all_outputs_constant(g, n)) { /* Shape's value follows from a known shape alone */
            dead[i] = true;
            if (dv_gop_is_shape_op(n->op) || integer_inputs(g, n))
                c->p->rep.shape_folded++;
            else
                c->p->rep.const_folded++;
            continue;
        }
        for (unsigned k = 0; k < n->nout; k++) {
            const dv_gtensor *t = n->out[k] >= 0 ? &g->t[n->out[k]] : NULL;
            if (t && dv_gtensor_count(t) < 0)
                return dv_error_set(
                    c->err, DV_ERR_INPUT,
                    "%s: node '%s' (op type '%s'): the shape of output '%s' cannot be inferred "
                    "(it depends on a value known only at run time)",
                    g->file, n->name, dv_gop_name(n->op), t->name);
        }
    }
    return DV_OK;
}

dv_status cc_count_consumers(cctx *c)
{
    dv_graph *g = c->p->g;
    free(c->consumers);
    c->consumers = calloc(g->ntensors + 1, sizeof *c->consumers);
    if (!c->consumers)
        return dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
    for (unsigned i = 0; i < g->nnodes; i++)
        for (unsigned k = 0; k < g->n[i].nin; k++)
            if (g->n[i].in[k] >= 0)
                c->consumers[g->n[i].in[k]]++;
    return DV_OK;
}

int cc_sole_consumer(const cctx *c, int t)
{
    const dv_graph *g = c->p->g;
    if (t < 0 || c->consumers[t] != 1 || g->t[t].is_output)
        return -1;
    for (unsigned i = 0; i < g->nnodes; i++)
        for (unsigned k = 0; k < g->n[i].nin; k++)
            if (g->n[i].in[k] == t)
                return (int)i;
    return -1;
}

/* A new constant tensor of x's shape holding v (taken over). */
static int new_constant(dv_graph *g, const char *name, const dv_gtensor *like, double *v)
{
    int k = dv_graph_add_tensor(g, name);
    if (k < 0) {
        free(v);
        return -1;
    }
    dv_gtensor *t = &g->t[k];
    t->dtype = like->dtype;
    t->rank = like->rank;
    memcpy(t->dims, like->dims, sizeof t->dims);
    t->data = v;
    return k;
}

/* BatchNormalization after a Conv whose only reader it is: W' = W k, B' = (B - mean) k + beta, k = scale /
 * sqrt(var + eps). */
static dv_status bn_pass(cctx *c, bool *dead)
{
    dv_graph *g = c->p->g;
    for (unsigned i = 0; i < g->nnodes; i++) {
        dv_gnode *bn = &g->n[i];
        if (dead[i] || bn->op != DV_GOP_BATCHNORM)
            continue;
        bool params = true;
        for (unsigned k = 1; k < 5; k++)
            params &= bn->in[k] >= 0 && g->t[bn->in[k]].data != NULL;
        int x = bn->in[0], conv = -1;
        for (unsigned j = 0; j < i; j++)
            if (!dead[j] && g->n[j].op == DV_GOP_CONV && g->n[j].out[0] == x)
                conv = (int)j;
        if (!params || conv < 0 || c->consumers[x] != 1 || g->t[x].is_output)
            continue;
        dv_gnode *cv = &g->n[conv];
        int w = cv->in[1], b = cv->nin > 2 ? cv->in[2] : -1;
        if (!g->t[w].data || (b >= 0 && !g->t[b].data))
            continue;
        int64_t co = g->t[w].dims[0], per = dv_gtensor_count(&g->t[w]) / (co ? co : 1);
        double *nw = malloc((size_t)(co * per > 0 ? co * per : 1) * sizeof *nw);
        double *nb = malloc((size_t)(co ? co : 1) * sizeof *nb);
        if (!nw || !nb) {
            free(nw);
            free(nb);
            return dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
        }
        double eps = dv_gnode_attr_float(bn, "epsilon", 1e-5);
        const double *sc = g->t[bn->in[1]].data, *be = g->t[bn->in[2]].data, *mu = g->t[bn->in[3]].data,
                     *var = g->t[bn->in[4]].data;
        for (int64_t m = 0; m < co; m++) {
            double k = sc[m] / sqrt(var[m] + eps);
            for (int64_t e = 0; e < per; e++)
                nw[m * per + e] = g->t[w].data[m * per + e] * k;
            nb[m] = ((b >= 0 ? g->t[b].data[m] : 0) - mu[m]) * k + be[m];
        }
        char name[200];
        snprintf(name, sizeof name, "%.150s/bn_folded", g->t[w].name);
        int nwi = new_constant(g, name, &g->t[w], nw);
        snprintf(name, sizeof name, "%.150s/bn_bias", g->t[w].name);
        dv_gtensor bshape = {.dtype = g->t[w].dtype, .rank = 1, .dims = {co}};
        int nbi = nwi >= 0 ? new_constant(g, name, &bshape, nb) : (free(nb), -1);
        if (nwi < 0 || nbi < 0)
            return dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
        cv = &g->n[conv]; /* g->t may have moved, g->n has not */
        if (cv->nin < 3) {
            int *in = realloc(cv->in, 3 * sizeof *in);
            if (!in)
                return dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
            cv->in = in;
            cv->nin = 3;
        }
        cv->in[1] = nwi;
        cv->in[2] = nbi;
        cv->out[0] = bn->out[0];
        dead[i] = true;
        c->p->rep.bn_folded++;
        cc_log(c, "bn-fold: %s folded into %s (weights and bias rescaled)", bn->name, cv->name);
    }
    return DV_OK;
}

dv_status cc_fold(cctx *c)
{
    dv_graph *g = c->p->g;
    bool *dead = calloc(g->nnodes + 1, sizeof *dead);
    if (!dead)
        return dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
    dv_status st = fold_pass(c, dead);
    if (st == DV_OK)
        cc_log(c, "fold: %u shape ops and %u other nodes with constant inputs folded into constants%s",
               c->p->rep.shape_folded, c->p->rep.const_folded,
               c->p->opt ? "" : " (-O0: shape ops and int64 shape arithmetic only)");
    if (st == DV_OK && c->p->opt >= 1) {
        compact(g, dead);
        memset(dead, 0, (g->nnodes + 1) * sizeof *dead);
        st = cc_count_consumers(c);
        if (st == DV_OK)
            st = bn_pass(c, dead);
    }
    if (st == DV_OK)
        compact(g, dead);
    free(dead);
    return st;
}
