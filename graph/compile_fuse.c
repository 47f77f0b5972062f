/* compile_fuse.c - the fusion pass (-O2): finds the node groups that one
 * operator computes, so that lowering makes one step of each.
 *   Conv -> Relu                              conv2d_bias_relu (bias: the Conv's, or zeros)
 *   MatMul|Gemm -> [Add bias[N]] -> [Relu | x*Sigmoid(x) | x*Sigmoid(1.702x)]
 *                                             matmul BIAS=1, RELU=1, ACT=1 (SiLU) / ACT=2 (GELU)
 *   Transpose(K) -> MatMul(Q, .) -> Div sqrt(D) | Mul 1/sqrt(D) -> [causal mask] -> Softmax(-1)
 *   -> MatMul(., V)                           attention B, H, SQ, SK, D, CAUSAL (the mask: Where(j > i,
 *                                             -inf, s), Where(j <= i, s, -inf) or Add of 0 / -inf)
 *   Div(x, sqrt 2) | Mul(x, 1/sqrt 2) -> Erf -> Add 1 -> Mul x -> Mul 0.5 (either Mul first)
 *                                             one host step "Gelu" (PyTorch's exact GELU, 5 nodes)
 * Every inner tensor of a group must have the group's next node as its only
 * reader (and not be a graph output): the fused step never writes it.
 * ONNX's Gelu (erf) is not fused into matmul: its ACT=2 is x sigmoid(1.702 x),
 * which differs from it by up to 0.02, beyond fp16's tolerance; PyTorch's
 * five-node form of it becomes one host step instead of five. */
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

/* The node writing tensor t (-1: none, a constant or a graph input). */
static int producer(const dv_graph *g, int t)
{
    for (unsigned i = 0; i < g->nnodes; i++)
        for (unsigned k = 0; k < g->n[i].nout; k++)
            if (g->n[i].out[k] == t)
                return (int)i;
    return -1;
}

/* The other input of binary node n than x (-1 if x is not one of them). */
static int other_input(const dv_gnode *n, int x)
{
    return n->nin != 2 ? -1 : n->in[0] == x ? n->in[1] : n->in[1] == x ? n->in[0] : -1;
}

static bool near(double v, double want)
{
    return fabs(v - want) <= 1e-6 * fabs(want);
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* x * 0.5 * (1 + Erf(x / sqrt 2)) from its Erf node e: PyTorch's F.gelu (approximate='none') as exported
 * (Mul(Mul(x, 1 + erf), 0.5)), or with the 0.5 taken first (Mul(Mul(x, 0.5), 1 + erf)). */
static void fuse_gelu(cctx *c, unsigned e)
{
    const dv_graph *g = c->p->g;
    int u = g->n[e].in[0], d = producer(g, u);
    if (d < 0 || cc_sole_consumer(c, u) != (int)e)
        return;
    const dv_gnode *dn = &g->n[d];
    int x = dn->in[0];
    if (!((dn->op == DV_GOP_DIV && near(scalar_operand(g, dn, x), sqrt(2.0))) ||
          (dn->op == DV_GOP_MUL && ((near(scalar_operand(g, dn, x), sqrt(0.5))) ||
                                    near(scalar_operand(g, dn, x = dn->in[1]), sqrt(0.5))))))
        return;
    int a = cc_sole_consumer(c, g->n[e].out[0]);
    if (a < 0 || g->n[a].op != DV_GOP_ADD || !near(scalar_operand(g, &g->n[a], g->n[e].out[0]), 1))
        return;
    int m1 = cc_sole_consumer(c, g->n[a].out[0]);
    if (m1 < 0 || g->n[m1].op != DV_GOP_MUL)
        return;
    int other = other_input(&g->n[m1], g->n[a].out[0]), m2, half;
    if (other == x) { /* Mul(x, 1 + erf), then the 0.5 */
        m2 = cc_sole_consumer(c, g->n[m1].out[0]);
        if (m2 < 0 || g->n[m2].op != DV_GOP_MUL || !near(scalar_operand(g, &g->n[m2], g->n[m1].out[0]), 0.5))
            return;
        half = m2;
    } else { /* Mul(x, 0.5) first */
        half = producer(g, other);
        if (half < 0 || g->n[half].op != DV_GOP_MUL || !near(scalar_operand(g, &g->n[half], x), 0.5) ||
            cc_sole_consumer(c, other) != m1)
            return;
        m2 = m1;
    }
    cc_group gr = {.kind = CC_GELU,
                   .n = 5,
                   .nodes = {d, (int)e, a, m1, half},
                   .bias = -1,
                   .x = x,
                   .out = g->n[m2].out[0]};
    qsort(gr.nodes, gr.n, sizeof *gr.nodes, cmp_int);
    add_group(c, &gr);
}

/* Node m masks scores s causally for SQ x SK (query i sees keys 0..i), as the attention operator's CAUSAL:
 * Where(j > i, -inf, s), Where(j <= i, s, -inf), or Add(s, 0 / -inf), the mask constant of shape [.., SQ,
 * SK] with leading dims 1 (a masked score below -1e30 counts as -inf: exp underflows to 0 either way). */
static bool causal_mask(const dv_graph *g, const dv_gnode *m, int s, int64_t SQ, int64_t SK)
{
    const dv_gtensor *st = &g->t[s], *out = &g->t[m->out[0]];
    if (out->rank != st->rank || memcmp(out->dims, st->dims, (size_t)st->rank * sizeof *st->dims) != 0)
        return false;
    const dv_gtensor *mask, *fill = NULL;
    bool pick_s_when_true = false;
    if (m->op == DV_GOP_WHERE && m->nin == 3 && (m->in[1] == s) != (m->in[2] == s)) {
        mask = &g->t[m->in[0]];
        pick_s_when_true = m->in[1] == s;
        fill = &g->t[m->in[pick_s_when_true ? 2 : 1]];
        if (!fill->data || dv_gtensor_count(fill) != 1 || !(fill->data[0] < -1e30))
            return false;
    } else if (m->op == DV_GOP_ADD && other_input(m, s) >= 0)
        mask = &g->t[other_input(m, s)];
    else
        return false;
    if (!mask->data || mask->rank < 2 || mask->dims[mask->rank - 2] != SQ ||
        mask->dims[mask->rank - 1] != SK || dv_gtensor_count(mask) != SQ * SK)
        return false;
    for (int64_t i = 0; i < SQ; i++)
        for (int64_t j = 0; j < SK; j++) {
            double v = mask->data[i * SK + j];
            bool masked = fill ? (v != 0) != pick_s_when_true : v < -1e30;
            if (masked != (j > i) || (!fill && !masked && v != 0))
                return false;
        }
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
    if (g->n[s1].op != DV_GOP_DIV && g->n[s1].op != DV_GOP_MUL)
        return; /* the operator scales by 1/sqrt(D): an unscaled product is not its computation */
    {
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
    if (g->n[sm].op == DV_GOP_WHERE || g->n[sm].op == DV_GOP_ADD) { /* a mask on the scaled scores */
        if (!causal_mask(g, &g->n[sm], g->n[s1].out[0], q->dims[q->rank - 2], kt->dims[kt->rank - 2]))
            return;
        gr.causal = 1;
        sm = cc_sole_consumer(c, g->n[sm].out[0]);
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
    for (unsigned i = 0; i < g->nnodes; i++)
        if (g->n[i].op == DV_GOP_ERF)
            fuse_gelu(c, i);
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
    unsigned kinds[CC_GELU + 1] = {0};
    for (unsigned i = 0; i < c->ngroups; i++)
        kinds[c->groups[i].kind]++;
    cc_log(c,
           "fuse: found %u Conv+Bias+ReLU (conv2d_bias_relu), %u MatMul/Gemm epilogues (bias, ReLU, SiLU, "
           "GELU: matmul), %u MatMul-Softmax-MatMul (attention), %u erf GELUs (one host step each)",
           kinds[CC_CONV_RELU], kinds[CC_MATMUL], kinds[CC_ATTENTION], kinds[CC_GELU]);
    return DV_OK;
}
