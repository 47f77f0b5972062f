/* compile_lower.c - lowering: every node (or fusion group) becomes a step.
 *
 * Device steps are checked against the operator's own declaration
 * (dv_opr_parse_request: its name, variant, dtype and parameter ranges, as
 * `dvsim ops` lists them); a node that does not fit becomes a host step
 * with the reason in its note, so the report shows what runs where.  Steps
 * read their inputs in the layout they need (cc_use inserts conversions)
 * and write their outputs in the layout the operator writes. */
#include "compile_priv.h"
#include "dv_operator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The operator takes these parameters on this chip: its declaration
 * (dv_opr_parse_request: name, variant, dtype, ranges) and then its own
 * prepare() without data (dv_opr_create: the chip-specific checks and the
 * tiling, e.g. matmul's ACT only on coupled cores); why: its message if not. */
bool cc_device_fits(const cctx *c, const char *op, const char *variant, const char *params, char *why,
                    size_t len)
{
    const dv_operator *o = dv_operator_find(op);
    if (!o) {
        snprintf(why, len, "no operator %s", op);
        return false;
    }
    dv_opr_request req = {.variant = variant, .dtype = "f16", .shape = params};
    unsigned v, d;
    uint64_t pv[DV_OPR_MAX_PARAMS];
    dv_error e = {0};
    dv_opr_run *run = NULL;
    if (dv_opr_parse_request(o, &req, &v, &d, pv, &e) != DV_OK ||
        dv_opr_create(o, &req, c->cfg, false, &run, &e) != DV_OK) {
        snprintf(why, len, "%s", e.msg);
        return false;
    }
    dv_opr_destroy(run);
    return true;
}

bool cc_softmax_on_last(const dv_graph *g, const dv_gnode *s)
{
    const dv_gtensor *x = &g->t[s->in[0]];
    int64_t a = dv_gnode_attr_int(s, "axis", g->opset && g->opset < 13 ? 1 : -1);
    return a == -1 || a == x->rank - 1;
}

bool cc_gemm_bias_ok(const dv_graph *g, const dv_gnode *n, int64_t ncols)
{
    if (dv_gnode_attr_float(n, "alpha", 1) != 1)
        return false;
    if (n->nin < 3 || n->in[2] < 0)
        return true;
    const dv_gtensor *b = &g->t[n->in[2]];
    return dv_gnode_attr_float(n, "beta", 1) == 1 && b->data && dv_gtensor_count(b) == ncols &&
           b->rank >= 1 && b->dims[b->rank - 1] == ncols;
}

static int64_t count_of(const dv_graph *g, int t)
{
    return dv_gtensor_count(&g->t[t]);
}

/* A step over the given plan tensors (made after its inputs, whose conversions come first). */
dv_plan_step *cc_make_step(cctx *c, dv_step_kind k, const char *op, const int *in, unsigned nin,
                           const int *out, unsigned nout, const int *nodes, unsigned nnodes)
{
    for (unsigned i = 0; i < nin; i++)
        if (in[i] < 0)
            return NULL;
    for (unsigned i = 0; i < nout; i++)
        if (out[i] < 0)
            return NULL;
    dv_plan_step *s = cc_step(c, k, op);
    if (!s)
        return NULL;
    s->nin = nin;
    s->nout = nout;
    s->nnodes = nnodes;
    memcpy(s->in, in, nin * sizeof *in);
    memcpy(s->out, out, nout * sizeof *out);
    if (nnodes) /* a host bias_add covers no node (nodes NULL) */
        memcpy(s->nodes, nodes, nnodes * sizeof *nodes);
    for (unsigned i = 0; i < nin; i++)
        s->gm_bytes += c->p->t[in[i]].bytes;
    for (unsigned i = 0; i < nout; i++)
        s->gm_bytes += c->p->t[out[i]].bytes;
    if (k == DV_STEP_DEVICE) {
        snprintf(s->variant, sizeof s->variant, "db");
        snprintf(s->dtype, sizeof s->dtype, "f16");
    }
    return s;
}

static const char *host_reason(dv_gop op)
{
    switch (op) {
    case DV_GOP_SUB:
    case DV_GOP_MUL:
    case DV_GOP_DIV:
        return "no device operator for it (dvsim's vector operators: add, relu, softmax, layernorm)";
    case DV_GOP_POW:
    case DV_GOP_SQRT:
    case DV_GOP_RECIPROCAL:
    case DV_GOP_NEG:
    case DV_GOP_ERF:
    case DV_GOP_EQUAL:
    case DV_GOP_WHERE: return "no device operator for it (elementwise; dvsim's vector operators: add, relu)";
    case DV_GOP_REDUCEMEAN:
        return "no reduction operator (softmax and layernorm reduce only inside themselves)";
    case DV_GOP_DROPOUT: return "a copy that also writes its mask (the mask output is read)";
    case DV_GOP_SIGMOID: return "no device operator (fused only as matmul's SiLU / GELU epilogue)";
    case DV_GOP_GELU: return "no device operator; matmul's ACT=2 is x*sigmoid(1.702x), not erf's GELU";
    case DV_GOP_MAXPOOL:
    case DV_GOP_AVGPOOL:
    case DV_GOP_GAP: return "no pooling operator";
    case DV_GOP_CONCAT: return "a copy (no device operator)";
    case DV_GOP_SLICE:
    case DV_GOP_GATHER:
    case DV_GOP_EXPAND: return "a copy (no device operator; not foldable: its input is not constant)";
    case DV_GOP_TRANSPOSE: return "no transpose operator (not foldable: its input is not constant)";
    case DV_GOP_BATCHNORM: return "not folded (-O0, or not after a Conv)";
    default: return "its inputs are known only at run time";
    }
}

dv_status cc_host_step(cctx *c, unsigned ni, const char *why)
{
    const dv_graph *g = c->p->g;
    const dv_gnode *n = &g->n[ni];
    int in[DV_STEP_MAX_IO], out[DV_STEP_MAX_IO], node = (int)ni;
    unsigned nin = 0, nout = 0;
    if (n->nin > DV_STEP_MAX_IO || n->nout > DV_STEP_MAX_IO)
        return dv_error_set(c->err, DV_ERR_INPUT, "%s: node '%s' (op type '%s'): more than %d inputs",
                            g->file, n->name, dv_gop_name(n->op), DV_STEP_MAX_IO);
    for (unsigned k = 0; k < n->nin; k++)
        if (n->in[k] >= 0)
            in[nin++] = cc_use(c, n->in[k], DV_TL_ND);
    for (unsigned k = 0; k < n->nout; k++)
        if (n->out[k] >= 0)
            out[nout++] = cc_define(c, n->out[k], DV_TL_ND);
    dv_plan_step *s = cc_make_step(c, DV_STEP_HOST, dv_gop_name(n->op), in, nin, out, nout, &node, 1);
    if (!s)
        return c->err->status ? c->err->status : dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
    snprintf(s->note, sizeof s->note, "%s", why);
    return DV_OK;
}

/* A device step of one node over its inputs in layout l (output in l too). */
static dv_status device_simple(cctx *c, unsigned ni, const char *op, const char *params, dv_tlayout l,
                               const char *note)
{
    const dv_gnode *n = &c->p->g->n[ni];
    int in[2], out, node = (int)ni;
    for (unsigned k = 0; k < n->nin; k++)
        in[k] = cc_use(c, n->in[k], l);
    out = cc_define(c, n->out[0], l);
    dv_plan_step *s = cc_make_step(c, DV_STEP_DEVICE, op, in, n->nin, &out, 1, &node, 1);
    if (!s)
        return c->err->status ? c->err->status : dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
    snprintf(s->params, sizeof s->params, "%s", params);
    snprintf(s->note, sizeof s->note, "%s", note);
    return DV_OK;
}

/* Add and Relu are elementwise: they run in the layout their inputs have
 * (padding lanes stay zero through both). */
static dv_status lower_elementwise(cctx *c, unsigned ni)
{
    const dv_graph *g = c->p->g;
    const dv_gnode *n = &g->n[ni];
    dv_tlayout l = cc_layout_of(c, n->in[0]);
    if (n->op == DV_GOP_ADD) {
        const dv_gtensor *a = &g->t[n->in[0]], *b = &g->t[n->in[1]];
        bool same = a->rank == b->rank && !memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims);
        if (!same)
            return cc_host_step(c, ni, "broadcasting Add (dvsim's add takes two tensors of one size)");
        dv_tlayout l1 = cc_layout_of(c, n->in[1]);
        if (g->t[n->in[1]].data || g->t[n->in[0]].data)
            l = DV_TL_ND;
        else if (l1 != l && c->memo[n->in[1]][l] < 0) /* a residual: use a copy one input already has */
            l = c->memo[n->in[0]][l1] >= 0 ? l1 : DV_TL_ND;
    }
    if (l == DV_TL_NC1HWC0 && g->t[n->in[0]].rank != 4)
        l = DV_TL_ND;
    const dv_gtensor *x = &g->t[n->in[0]];
    char params[64], why[DV_ERROR_MSG_MAX];
    snprintf(params, sizeof params, "N=%llu", (unsigned long long)(cc_layout_bytes(l, x->rank, x->dims) / 2));
    const char *op = n->op == DV_GOP_ADD ? "add" : "relu";
    if (!cc_device_fits(c, op, "db", params, why, sizeof why))
        return cc_host_step(c, ni, why);
    return device_simple(c, ni, op, params, l, l == DV_TL_ND ? "" : "in its input's layout");
}

/* Rows and columns of a row-wise op along the last dim. */
static void rows_cols(const dv_gtensor *x, int64_t *R, int64_t *C)
{
    *C = x->rank ? x->dims[x->rank - 1] : 1;
    *R = dv_gtensor_count(x) / (*C ? *C : 1);
}

static dv_status lower_rowwise(cctx *c, unsigned ni)
{
    const dv_graph *g = c->p->g;
    const dv_gnode *n = &g->n[ni];
    const dv_gtensor *x = &g->t[n->in[0]];
    int64_t R, C;
    rows_cols(x, &R, &C);
    char params[64], why[DV_ERROR_MSG_MAX];
    snprintf(params, sizeof params, "R=%lld,C=%lld", (long long)R, (long long)C);
    if (n->op == DV_GOP_SOFTMAX) {
        if (!cc_softmax_on_last(g, n))
            return cc_host_step(c, ni, "Softmax along an axis other than the last");
        if (!cc_device_fits(c, "softmax", "db", params, why, sizeof why))
            return cc_host_step(c, ni, why);
        return device_simple(c, ni, "softmax", params, DV_TL_ND, "");
    }
    /* LayerNormalization: the layernorm operator normalises the last dim with eps 1e-5, scale and bias given
     */
    int64_t axis = dv_gnode_attr_int(n, "axis", -1);
    double eps = dv_gnode_attr_float(n, "epsilon", 1e-5);
    bool fits = (axis == -1 || axis == x->rank - 1) && eps > 0.999999e-5 && eps < 1.000001e-5 &&
                n->nin == 3 && n->in[2] >= 0 && count_of(g, n->in[1]) == C && count_of(g, n->in[2]) == C &&
                (n->nout < 2 || n->out[1] < 0) && (n->nout < 3 || n->out[2] < 0);
    if (!fits)
        return cc_host_step(
            c, ni,
            "LayerNormalization not on the last axis, eps not 1e-5, no bias, or Mean/InvStdDev wanted");
    if (!cc_device_fits(c, "layernorm", "db", params, why, sizeof why))
        return cc_host_step(c, ni, why);
    c->p->rep.layernorms++;
    int in[3], out, node = (int)ni;
    for (unsigned k = 0; k < 3; k++)
        in[k] = cc_use(c, n->in[k], DV_TL_ND);
    out = cc_define(c, n->out[0], DV_TL_ND);
    dv_plan_step *s = cc_make_step(c, DV_STEP_DEVICE, "layernorm", in, 3, &out, 1, &node, 1);
    if (!s)
        return c->err->status ? c->err->status : dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
    snprintf(s->params, sizeof s->params, "%s", params);
    return DV_OK;
}

/* Reshape-like ops at -O1 and up: the output shares the input's buffer. */
static dv_status lower_alias(cctx *c, unsigned ni)
{
    const dv_gnode *n = &c->p->g->n[ni];
    if (c->p->opt == 0)
        return cc_host_step(c, ni, "a copy at -O0 (from -O1 it shares its input's buffer)");
    int src = cc_use(c, n->in[0], DV_TL_ND);
    int dst = cc_define(c, n->out[0], DV_TL_ND);
    if (src < 0 || dst < 0)
        return c->err->status;
    c->p->t[dst].alias = c->p->t[src].alias >= 0 ? c->p->t[src].alias : src;
    c->p->rep.aliases++;
    return DV_OK;
}

static dv_status lower_single(cctx *c, unsigned ni)
{
    const dv_gnode *n = &c->p->g->n[ni];
    switch (n->op) {
    case DV_GOP_CONV: return cc_lower_conv(c, ni, -1);
    case DV_GOP_MATMUL:
    case DV_GOP_GEMM: {
        cc_group one = {.kind = CC_SINGLE, .n = 1, .nodes = {(int)ni}, .bias = -1, .out = n->out[0]};
        if (n->op == DV_GOP_GEMM && n->nin > 2 && n->in[2] >= 0)
            one.bias = n->in[2];
        return cc_lower_matmul(c, &one);
    }
    case DV_GOP_ADD:
    case DV_GOP_RELU: return lower_elementwise(c, ni);
    case DV_GOP_SOFTMAX:
    case DV_GOP_LAYERNORM: return lower_rowwise(c, ni);
    case DV_GOP_RESHAPE:
    case DV_GOP_FLATTEN:
    case DV_GOP_SQUEEZE:
    case DV_GOP_UNSQUEEZE:
    case DV_GOP_IDENTITY: return lower_alias(c, ni);
    case DV_GOP_TRANSPOSE:
    case DV_GOP_SLICE:
    case DV_GOP_CONCAT: return cc_lower_copy(c, ni);
    case DV_GOP_DROPOUT: /* inference: the identity, unless its mask is read */
        if (n->nout < 2 || n->out[1] < 0)
            return lower_alias(c, ni);
        return cc_host_step(c, ni, host_reason(n->op));
    default: return cc_host_step(c, ni, host_reason(n->op));
    }
}

dv_status cc_lower_single(cctx *c, unsigned ni)
{
    return lower_single(c, ni);
}

static dv_status lower_outputs(cctx *c)
{
    dv_graph *g = c->p->g;
    for (unsigned k = 0; k < g->noutputs; k++) {
        int gt = g->outputs[k];
        for (unsigned l = 0; l < DV_TL_COUNT; l++)
            if (c->memo[gt][l] >= 0)
                c->p->t[c->memo[gt][l]].output = false;
        int t = cc_use(c, gt, DV_TL_ND); /* outputs are handed over ND */
        if (t < 0)
            return c->err->status;
        c->p->t[t].output = true;
    }
    return DV_OK;
}

dv_status cc_lower(cctx *c)
{
    dv_graph *g = c->p->g;
    c->memo = malloc((g->ntensors + 1) * sizeof *c->memo);
    c->produced = malloc((g->ntensors + 1) * sizeof *c->produced);
    if (!c->memo || !c->produced)
        return dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
    for (unsigned i = 0; i <= g->ntensors; i++) {
        c->produced[i] = -1;
        for (unsigned l = 0; l < DV_TL_COUNT; l++)
            c->memo[i][l] = -1;
    }
    for (unsigned i = 0; i < g->ninputs; i++)
        if (cc_define(c, g->inputs[i], DV_TL_ND) < 0)
            return c->err->status;
    dv_status st = DV_OK;
    for (unsigned i = 0; i < g->nnodes && st == DV_OK; i++) {
        int gi = c->group_of[i];
        if (gi < 0)
            st = lower_single(c, i);
        else if (c->groups[gi].nodes[c->groups[gi].n - 1] ==
                 (int)i) { /* the group's step comes at its last node */
            const cc_group *gr = &c->groups[gi];
            st = gr->kind == CC_CONV_RELU ? cc_lower_conv(c, (unsigned)gr->nodes[0], gr->nodes[1])
                 : gr->kind == CC_MATMUL  ? cc_lower_matmul(c, gr)
                 : gr->kind == CC_GELU    ? cc_lower_gelu(c, gr)
                 : gr->kind == CC_RMSNORM ? cc_lower_rmsnorm(c, gr)
                                          : cc_lower_attention(c, gr);
        }
    }
    if (st == DV_OK)
        st = lower_outputs(c);
    free(c->produced);
    c->produced = NULL;
    if (st != DV_OK)
        return st;
    dv_plan *p = c->p;
    for (unsigned i = 0; i < p->nsteps; i++)
        *(p->s[i].kind == DV_STEP_DEVICE ? &p->rep.steps_device
          : p->s[i].kind == DV_STEP_HOST ? &p->rep.steps_host
                                         : &p->rep.steps_layout) += 1;
    cc_log(c,
           "lower: %u steps: %u device operator runs, %u host steps, %u layout conversions; %u reshapes "
           "share their input's buffer",
           p->nsteps, p->rep.steps_device, p->rep.steps_host, p->rep.steps_layout, p->rep.aliases);
    return DV_OK;
}
