/* compile_fuse.c - the fusion pass (-O2): finds the node groups that one
 * operator computes, so that lowering makes one step of each.
 *   Conv -> Relu                              conv2d_bias_relu (bias: the Conv's, or zeros)
 *   MatMul|Gemm -> [Add bias[N]] -> [Relu | x*Sigmoid(x) | x*Sigmoid(1.702x)]
 *                                             matmul BIAS=1, RELU=1, ACT=1 (SiLU) / ACT=2 (GELU)
 *   Transpose(K) -> MatMul(Q, .) -> scale -> [causal mask] -> Softmax(-1) -> MatMul(., V)
 *                                             attention B, H, SQ, SK, D, CAUSAL (compile_attn.c)
 *   Div(x, sqrt 2) | Mul(x, 1/sqrt 2) -> Erf -> Add 1 -> Mul x -> Mul 0.5 (or the 0.5 first)
 *                                             one host step "Gelu" (PyTorch's exact GELU)
 *   Pow(x, 2) -> ReduceMean -> Add eps -> Sqrt -> Div | Reciprocal -> Mul x -> Mul gamma
 *                                             rmsnorm EPS_E (compile_rmsnorm.c)
 * Every inner tensor of a group must have the group's next node as its only
 * reader (and not be a graph output): the fused step never writes it.
 * ONNX's Gelu (erf) is not fused into matmul: its ACT=2 is x sigmoid(1.702 x),
 * which differs from it by up to 0.02, beyond fp16's tolerance; PyTorch's
 * five-node form of it becomes one host step instead of five. */
#include "compile_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double cc_scalar_operand(const dv_graph *g, const dv_gnode *n, int x)
{
    if (n->nin != 2 || (n->in[0] != x && n->in[1] != x))
        return NAN;
    const dv_gtensor *o = &g->t[n->in[0] == x ? n->in[1] : n->in[0]];
    return o->data && dv_gtensor_count(o) == 1 ? o->data[0] : NAN;
}

bool cc_add_group(cctx *c, const cc_group *gr)
{
    for (unsigned k = 0; k < gr->n; k++)
        if (c->group_of[gr->nodes[k]] >= 0)
            return false; /* a node belongs to one group */
    for (unsigned k = 0; k < gr->n; k++)
        c->group_of[gr->nodes[k]] = (int)c->ngroups;
    c->groups[c->ngroups++] = *gr;
    return true;
}

int cc_producer(const dv_graph *g, int t)
{
    for (unsigned i = 0; i < g->nnodes; i++)
        for (unsigned k = 0; k < g->n[i].nout; k++)
            if (g->n[i].out[k] == t)
                return (int)i;
    return -1;
}

int cc_other_input(const dv_gnode *n, int x)
{
    return n->nin != 2 ? -1 : n->in[0] == x ? n->in[1] : n->in[1] == x ? n->in[0] : -1;
}

static bool near(double v, double want)
{
    return fabs(v - want) <= 1e-6 * fabs(want);
}

int cc_cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* x * 0.5 * (1 + Erf(x / sqrt 2)) from its Erf node e: PyTorch's F.gelu (approximate='none') as exported
 * (Mul(Mul(x, 1 + erf), 0.5)), or with the 0.5 taken first (Mul(Mul(x, 0.5), 1 + erf)). */
static void fuse_gelu(cctx *c, unsigned e)
{
    const dv_graph *g = c->p->g;
    int u = g->n[e].in[0], d = cc_producer(g, u);
    if (d < 0 || cc_sole_consumer(c, u) != (int)e)
        return;
    const dv_gnode *dn = &g->n[d];
    int x = dn->in[0];
    if (!((dn->op == DV_GOP_DIV && near(cc_scalar_operand(g, dn, x), sqrt(2.0))) ||
          (dn->op == DV_GOP_MUL && ((near(cc_scalar_operand(g, dn, x), sqrt(0.5))) ||
                                    near(cc_scalar_operand(g, dn, x = dn->in[1]), sqrt(0.5))))))
        return;
    int a = cc_sole_consumer(c, g->n[e].out[0]);
    if (a < 0 || g->n[a].op != DV_GOP_ADD || !near(cc_scalar_operand(g, &g->n[a], g->n[e].out[0]), 1))
        return;
    int m1 = cc_sole_consumer(c, g->n[a].out[0]);
    if (m1 < 0 || g->n[m1].op != DV_GOP_MUL)
        return;
    int other = cc_other_input(&g->n[m1], g->n[a].out[0]), m2, half;
    if (other == x) { /* Mul(x, 1 + erf), then the 0.5 */
        m2 = cc_sole_consumer(c, g->n[m1].out[0]);
        if (m2 < 0 || g->n[m2].op != DV_GOP_MUL ||
            !near(cc_scalar_operand(g, &g->n[m2], g->n[m1].out[0]), 0.5))
            return;
        half = m2;
    } else { /* Mul(x, 0.5) first */
        half = cc_producer(g, other);
        if (half < 0 || g->n[half].op != DV_GOP_MUL || !near(cc_scalar_operand(g, &g->n[half], x), 0.5) ||
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
    qsort(gr.nodes, gr.n, sizeof *gr.nodes, cc_cmp_int);
    cc_add_group(c, &gr);
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
            if (k->op != DV_GOP_MUL || fabs(cc_scalar_operand(g, k, x) - 1.702) > 1e-6)
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
        cc_add_group(c, &gr);
}

dv_status cc_fuse(cctx *c)
{
    dv_graph *g = c->p->g;
    if (c->p->opt >= 2) {
        dv_status st = cc_attention_split_keys(c);
        if (st != DV_OK)
            return st;
    }
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
    for (unsigned i = 0; i < g->nnodes; i++) {
        cc_group gr;
        bool split;
        if (g->n[i].op == DV_GOP_MATMUL && cc_match_attention(c, i, &gr, &split) && !split)
            cc_add_group(c, &gr);
    }
    for (unsigned i = 0; i < g->nnodes; i++)
        if (g->n[i].op == DV_GOP_ERF)
            fuse_gelu(c, i);
        else if (g->n[i].op == DV_GOP_REDUCEMEAN)
            cc_fuse_rmsnorm(c, i);
    for (unsigned i = 0; i < g->nnodes; i++) {
        const dv_gnode *n = &g->n[i];
        if (c->group_of[i] >= 0)
            continue;
        if (n->op == DV_GOP_CONV) {
            int r = cc_sole_consumer(c, n->out[0]);
            cc_group gr = {.kind = CC_CONV_RELU, .n = 2, .nodes = {(int)i, r}, .bias = -1};
            if (r >= 0 && g->n[r].op == DV_GOP_RELU) {
                gr.out = g->n[r].out[0];
                cc_add_group(c, &gr);
            }
        } else if ((n->op == DV_GOP_MATMUL || n->op == DV_GOP_GEMM) && g->t[n->in[1]].rank >= 2)
            fuse_matmul(c, i);
    }
    unsigned kinds[CC_RMSNORM + 1] = {0};
    for (unsigned i = 0; i < c->ngroups; i++)
        kinds[c->groups[i].kind]++;
    cc_log(
        c,
        "fuse: found %u Conv+Bias+ReLU (conv2d_bias_relu), %u MatMul/Gemm epilogues (bias, ReLU, SiLU, "
        "GELU: matmul), %u MatMul-Softmax-MatMul (attention), %u erf GELUs (one host step each), %u RMSNorms "
        "(rmsnorm)",
        kinds[CC_CONV_RELU], kinds[CC_MATMUL], kinds[CC_ATTENTION], kinds[CC_GELU], kinds[CC_RMSNORM]);
    return DV_OK;
}
