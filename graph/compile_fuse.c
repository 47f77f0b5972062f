/* compile_fuse.c - the fusion pass (-O2): finds the node groups that one
 * operator computes, so that lowering makes one step of each.
 *   Conv -> Relu                              conv2d_bias_relu (bias: the Conv's, or zeros)
 *   MatMul|Gemm -> [Add bias[N]] -> [Relu | x*Sigmoid(x) | x*Sigmoid(1.702x)]
 *                                             matmul BIAS=1, RELU=1, ACT=1 (SiLU) / ACT=2 (GELU)
 *   Transpose(K) -> MatMul(Q, .) -> Div sqrt(D) | Mul 1/sqrt(D) -> Softmax(-1) -> MatMul(., V)
 *                                             attention B, H, SQ, SK, D
 * Every inner tensor of a group must have the group's next node as its only
 * reader (and not be a graph output): the fused step never writes it.
 * ONNX's Gelu (erf) is not fused: matmul's ACT=2 is x sigmoid(1.702 x),
 * which differs from it by up to 0.02, beyond fp16's tolerance. */
#include "compile_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The constant scalar (one element) among n's inputs other than x, or NAN. */
static double scalar_operand(const dv_graph *g, const dv_gnode *n, int x)
{
    if (n->nin != 2 || (n->in[0] != x && n->in[1] != x))
        return NAN;
    const dv_gtensor *o = &g->t[n->in[0] == x ? n->in[1] : n->in[0]];
    return o->data && dv_gtensor_count(o) == 1 ? o->data[0] : NAN;
}

static bool add_group(cctx *c, const cc_group *gr)
{
    for (unsigned k = 0; k < gr->n; k++)
        if (c->group_of[gr->nodes[k]] >= 0)
            return false; /* a node belongs to one group */
    for (unsigned k = 0; k < gr->n; k++)
        c->group_of[gr->nodes[k]] = (int)c->ngroups;
    c->groups[c->ngroups++] = *gr;
    return true;
}

/* x -> Relu, x * Sigmoid(x), or x * Sigmoid(1.702 x) after node i's output x; appends the nodes. */
static void match_activation(cctx *c, cc_group *gr, int x)
{
    const dv_graph *g = c->p->g;
    int a = cc_sole_consumer(c, x);
    if (a < 0 && c->consumers[x] == 2 && !g->t[x].is_output) {
        /* x * Sigmoid(x): x has two readers, the Sigmoid and the Mul */
        for (unsigned i = 0; i < g->nnodes; i++) {
            const dv_gnode *s = &g->n[i];
            if (s->op != DV_GOP_SIGMOID || s->in[0] != x)
                continue;
            int m = cc_sole_consumer(c, s->out[0]);
            if (m < 0 || g->n[m].op != DV_GOP_MUL ||
                !((g->n[m].in[0] == x && g->n[m].in[1] == s->out[0]) ||
                  (g->n[m].in[1] == x && g->n[m].in[0] == s->out[0])))
                continue;
            gr->nodes[gr->n++] = (int)i;
            gr->nodes[gr->n++] = m;
            gr->act = 1;
            gr->out = g->n[m].out[0];
            return;
        }
        /* x * Sigmoid(1.702 x): readers Mul(x, 1.702) and the final Mul */
        for (unsigned i = 0; i < g->nnodes; i++) {
            const dv_gnode *k = &g->n[i];
            if (k->op != DV_GOP_MUL || fabs(scalar_operand(g, k, x) - 1.702) > 1e-6)
                continue;
            int s = cc_sole_consumer(c, k->out[0]);
            if (s < 0 || g->n[s].op != DV_GOP_SIGMOID)
                continue;
            int m = cc_sole_consumer(c, g->n[s].out[0]);
            int so = g->n[s].out[0];
            if (m < 0 || g->n[m].op != DV_GOP_MUL ||
                !((g->n[m].in[0] == x && g->n[m].in[1] == so) || (g->n[m].in[1] == x && g->n[m].in[0] == so)))
                continue;
            gr->nodes[gr->n++] = (int)i;
            gr->nodes[gr->n++] = s;
            gr->nodes[gr->n++] = m;
            gr->act = 2;
            gr->out = g->n[m].out[0];
            return;
        }
        return;
    }
    if (a >= 0 && g->n[a].op == DV_GOP_RELU) {
        gr->nodes[gr->n++] = a;
        gr->relu = 1;
        gr->out = g->n[a].out[0];
    }
}

/* The bias of an Add after a matmul of N columns: a constant of N elements along the last dim. */
static int match_bias(cctx *c, int x, int64_t ncols, int *add)
{
    const dv_graph *g = c->p->g;
    int a = cc_sole_consumer(c, x);
    if (a < 0 || g->n[a].op != DV_GOP_ADD)
        return -1;
    int other = g->n[a].in[0] == x ? g->n[a].in[1] : g->n[a].in[0];
    const dv_gtensor *b = &g->t[other];
    if (!b->data || dv_gtensor_count(b) != ncols || b->rank < 1 || b->dims[b->rank - 1] != ncols ||
        b->rank > g->t[x].rank)
        return -1;
    *add = a;
    return other;
}

static void fuse_matmul(cctx *c, unsigned i)
{
    const dv_graph *g = c->p->g;
    const dv_gnode *n = &g->n[i];
    cc_group gr = {.kind = CC_MATMUL, .n = 1, .nodes = {(int)i}, .bias = -1, .out = n->out[0]};
    const dv_gtensor *b = &g->t[n->in[1]];
    int64_t ncols =
        n->op == DV_GOP_GEMM ? b->dims[dv_gnode_attr_int(n, "transB", 0) ? 0 : 1] : b->dims[b->rank - 1];
    int add = -1, bias = -1;
    if (n->op == DV_GOP_GEMM && n->nin > 2 && n->in[2] >= 0) {
        if (!cc_gemm_bias_ok(g, n, ncols))
            return;         /* lowered alone, as a host step */
        gr.bias = n->in[2]; /* the Gemm's own C is its bias */
    } else if ((bias = match_bias(c, n->out[0], ncols, &add)) >= 0) {
        gr.nodes[gr.n++] = add;
        gr.bias = bias;
        gr.out = g->n[add].out[0];
    }
    match_activation(c, &gr, gr.out);
    if (gr.n > 1)
        add_group(c, &gr);
}

static void fuse_attention(cctx *c, unsigned i)
{
    const dv_graph *g = c->p->g;
    const dv_gnode *m1 = &g->n[i];
    const dv_gtensor *q = &g->t[m1->in[0]];
    int tk = -1;
    for (unsigned j = 0; j < i; j++)
        if (g->n[j].op == DV_GOP_TRANSPOSE && g->n[j].out[0] == m1->in[1])
            tk = (int)j;
    if (tk < 0 || cc_sole_consumer(c, m1->in[1]) != (int)i || (q->rank != 4 && q->rank != 3))
        return;
    size_t np;
    const dv_gattr *perm = dv_gnode_attr(&g->n[tk], "perm");
    np = perm && perm->type == DV_GATTR_INTS ? perm->n : 0;
    bool swap = np == (size_t)q->rank;
    for (size_t k = 0; swap && k < np; k++)
        swap = perm->ints[k] == (int64_t)(k + 2 == np ? np - 1 : k + 1 == np ? np - 2 : k);
    const dv_gtensor *kt = &g->t[g->n[tk].in[0]];
    int64_t D = q->dims[q->rank - 1];
    if (!swap || kt->rank != q->rank || (D != 64 && D != 128))
        return;
    int s1 = cc_sole_consumer(c, m1->out[0]);
    if (s1 < 0)
        return;
    cc_group gr = {.kind = CC_ATTENTION, .n = 3, .nodes = {tk, (int)i, s1}, .bias = -1};
    int sm = s1;
    if (g->n[s1].op == DV_GOP_DIV || g->n[s1].op == DV_GOP_MUL) {
        double v = scalar_operand(g, &g->n[s1], m1->out[0]);
        double want = g->n[s1].op == DV_GOP_DIV ? sqrt((double)D) : 1 / sqrt((double)D);
        if (g->n[s1].op == DV_GOP_DIV && g->n[s1].in[0] != m1->out[0])
            return;
        if (!(fabs(v - want) <= 1e-3 * want))
            return;
        sm = cc_sole_consumer(c, g->n[s1].out[0]);
        if (sm < 0)
            return;
        gr.nodes[gr.n++] = sm;
    }
    const dv_gnode *s = &g->n[sm];
    if (s->op != DV_GOP_SOFTMAX || !cc_softmax_on_last(g, s))
        return;
    int m2 = cc_sole_consumer(c, s->out[0]);
    if (m2 < 0 || g->n[m2].op != DV_GOP_MATMUL || g->n[m2].in[0] != s->out[0])
        return;
    const dv_gtensor *v = &g->t[g->n[m2].in[1]];
    if (v->rank != q->rank || v->dims[v->rank - 1] != D || v->dims[v->rank - 2] != kt->dims[kt->rank - 2])
        return;
    gr.nodes[gr.n++] = m2;
    gr.out = g->n[m2].out[0];
    add_group(c, &gr);
}

dv_status cc_fuse(cctx *c)
{
    dv_graph *g = c->p->g;
    c->group_of = malloc((g->nnodes + 1) * sizeof *c->group_of);
    c->groups = calloc(g->nnodes + 1, sizeof *c->groups);
    if (!c->group_of || !c->groups)
        return dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
    for (unsigned i = 0; i < g->nnodes; i++)
        c->group_of[i] = -1;
    if (c->p->opt < 2) {
        cc_log(c, "fuse: off (-O%d)", c->p->opt);
        return DV_OK;
    }
    for (unsigned i = 0; i < g->nnodes; i++)
        if (g->n[i].op == DV_GOP_MATMUL)
            fuse_attention(c, i);
    for (unsigned i = 0; i < g->nnodes; i++) {
        const dv_gnode *n = &g->n[i];
        if (c->group_of[i] >= 0)
            continue;
        if (n->op == DV_GOP_CONV) {
            int r = cc_sole_consumer(c, n->out[0]);
            cc_group gr = {.kind = CC_CONV_RELU, .n = 2, .nodes = {(int)i, r}, .bias = -1};
            if (r >= 0 && g->n[r].op == DV_GOP_RELU) {
                gr.out = g->n[r].out[0];
                add_group(c, &gr);
            }
        } else if ((n->op == DV_GOP_MATMUL || n->op == DV_GOP_GEMM) && g->t[n->in[1]].rank >= 2)
            fuse_matmul(c, i);
    }
    unsigned kinds[4] = {0};
    for (unsigned i = 0; i < c->ngroups; i++)
        kinds[c->groups[i].kind]++;
    cc_log(c,
           "fuse: found %u Conv+Bias+ReLU (conv2d_bias_relu), %u MatMul/Gemm epilogues (bias, ReLU, SiLU, "
           "GELU: matmul), %u MatMul-Softmax-MatMul (attention)",
           kinds[CC_CONV_RELU], kinds[CC_MATMUL], kinds[CC_ATTENTION]);
    return DV_OK;
}
