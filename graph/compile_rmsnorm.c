/* compile_rmsnorm.c - the RMSNorm fusion (-O2) and its lowering:
 *   Pow(x, 2) | Mul(x, x) -> ReduceMean(last axis, keepdims) -> Add eps ->
 *   Sqrt -> Div(x, .) | Div(1, .) -> Mul x | Reciprocal -> Mul x ->
 *   Mul gamma[C]
 * becomes one rmsnorm step (eps = 10^-EPS_E, the operator's parameter).
 * Every inner tensor's only reader is the group's next node.  The gamma is
 * required: without it the operator would need a weight of ones the graph
 * does not hold, so such a group stays on the host node by node.  A row too
 * wide for UB, or an eps not 10^-E for E in 1..12, runs the group as one
 * host step "RMSNorm" (its nodes in order). */
#include "compile_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ReduceMean n reduces only x's last axis and keeps it. */
static bool mean_last_axis(const dv_graph *g, const dv_gnode *n, const dv_gtensor *x)
{
    int64_t axes[DV_G_MAX_RANK];
    size_t na = 0;
    if (dv_gnode_attr_int(n, "keepdims", 1) == 0 || x->rank < 1)
        return false;
    if (n->nin >= 2 && n->in[1] >= 0) {
        if (!ref_input_ints(&g->t[n->in[1]], axes, DV_G_MAX_RANK, &na))
            return false;
    } else {
        const int64_t *a = ref_attr_ints(n, "axes", &na);
        if (!a || na != 1)
            return false;
        axes[0] = a[0];
    }
    return na == 1 && (axes[0] == -1 || axes[0] == x->rank - 1);
}

/* Node m (a Mul) computes x * v, v its other input; -1 if not. */
static int mul_of(const dv_graph *g, int m, int x)
{
    return m >= 0 && g->n[m].op == DV_GOP_MUL ? cc_other_input(&g->n[m], x) : -1;
}

/* The E of eps = 10^-E (1..12), or 0. */
static int eps_code(double eps)
{
    for (int e = 1; e <= 12; e++)
        if (fabs(eps - pow(10, -e)) <= 1e-6 * pow(10, -e))
            return e;
    return 0;
}

/* The group at ReduceMean node i. */
void cc_fuse_rmsnorm(cctx *c, unsigned i)
{
    const dv_graph *g = c->p->g;
    const dv_gnode *m = &g->n[i];
    int sq = m->in[0], p = cc_producer(g, sq);
    if (p < 0 || cc_sole_consumer(c, sq) != (int)i)
        return;
    const dv_gnode *pn = &g->n[p];
    int x = pn->in[0];
    if (!(pn->op == DV_GOP_POW && pn->nin == 2 && cc_scalar_operand(g, pn, x) == 2 && pn->in[1] != x) &&
        !(pn->op == DV_GOP_MUL && pn->nin == 2 && pn->in[1] == x))
        return;
    const dv_gtensor *xt = &g->t[x];
    if (!mean_last_axis(g, m, xt))
        return;
    int a = cc_sole_consumer(c, m->out[0]);
    double eps = a >= 0 && g->n[a].op == DV_GOP_ADD ? cc_scalar_operand(g, &g->n[a], m->out[0]) : NAN;
    if (!(eps > 0))
        return;
    int s = cc_sole_consumer(c, g->n[a].out[0]);
    if (s < 0 || g->n[s].op != DV_GOP_SQRT)
        return;
    int d = cc_sole_consumer(c, g->n[s].out[0]), xm = -1;
    if (d < 0)
        return;
    const dv_gnode *dn = &g->n[d];
    if (dn->op == DV_GOP_DIV && dn->nin == 2 && dn->in[0] == x && dn->in[1] == g->n[s].out[0])
        xm = d; /* x / sqrt */
    else if ((dn->op == DV_GOP_DIV && dn->nin == 2 && dn->in[1] == g->n[s].out[0] && g->t[dn->in[0]].data &&
              dv_gtensor_count(&g->t[dn->in[0]]) == 1 && g->t[dn->in[0]].data[0] == 1) ||
             dn->op == DV_GOP_RECIPROCAL) {
        xm = cc_sole_consumer(c, dn->out[0]); /* x * (1 / sqrt) */
        if (mul_of(g, xm, dn->out[0]) != x)
            return;
    } else
        return;
    int gm = cc_sole_consumer(c, g->n[xm].out[0]);
    int gamma = mul_of(g, gm, g->n[xm].out[0]);
    int64_t C = xt->dims[xt->rank - 1];
    if (gamma < 0 || !g->t[gamma].data || dv_gtensor_count(&g->t[gamma]) != C ||
        (g->t[gamma].rank >= 1 && g->t[gamma].dims[g->t[gamma].rank - 1] != C))
        return;
    cc_group gr = {.kind = CC_RMSNORM, .bias = gamma, .x = x, .out = g->n[gm].out[0], .eps = eps};
    int nodes[] = {p, (int)i, a, s, d, xm, gm};
    for (unsigned k = 0; k < sizeof nodes / sizeof *nodes; k++)
        if (k == 0 || nodes[k] != nodes[k - 1])
            gr.nodes[gr.n++] = nodes[k];
    qsort(gr.nodes, gr.n, sizeof *gr.nodes, cc_cmp_int);
    cc_add_group(c, &gr);
}

/* One rmsnorm step (x, gamma -> y), or one host step when the operator does not take it. */
dv_status cc_lower_rmsnorm(cctx *c, const cc_group *gr)
{
    const dv_gtensor *x = &c->p->g->t[gr->x];
    int64_t C = x->dims[x->rank - 1], R = dv_gtensor_count(x) / (C ? C : 1);
    int e = eps_code(gr->eps);
    char params[80], why[DV_ERROR_MSG_MAX] = "eps is not 10^-E for E in 1..12 (rmsnorm's EPS_E)";
    snprintf(params, sizeof params, "R=%lld,C=%lld,EPS_E=%d", (long long)R, (long long)C, e);
    bool dev = e && cc_device_fits(c, "rmsnorm", "db", params, why, sizeof why);
    int in[2] = {cc_use(c, gr->x, DV_TL_ND), cc_use(c, gr->bias, DV_TL_ND)};
    int out = cc_define(c, gr->out, DV_TL_ND);
    if (in[0] < 0 || in[1] < 0 || out < 0)
        return c->err->status;
    dv_plan_step *s = cc_make_step(c, dev ? DV_STEP_DEVICE : DV_STEP_HOST, dev ? "rmsnorm" : "RMSNorm", in, 2,
                                   &out, 1, gr->nodes, gr->n);
    if (!s)
        return c->err->status ? c->err->status : dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
    if (dev) {
        snprintf(s->params, sizeof s->params, "%s", params);
        snprintf(s->note, sizeof s->note, "fused %u nodes (RMSNorm, eps %g)", gr->n, gr->eps);
        c->p->rep.rmsnorms++;
    } else
        snprintf(s->note, sizeof s->note, "RMSNorm, %u nodes in one host step: %s", gr->n, why);
    return DV_OK;
}
