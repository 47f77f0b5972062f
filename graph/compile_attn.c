/* compile_attn.c - the attention pattern of the fusion pass (-O2,
 * compile_fuse.c): Transpose(K) -> MatMul(Q, .) -> the 1/sqrt(D) scale (on
 * the product, or on Q as torch's MultiheadAttention writes it) -> [a causal
 * mask] -> Softmax(-1) -> MatMul(., V) into the attention operator (B, H,
 * SQ, SK, D, CAUSAL).  The operator reads K as [.., SK, D]: a Transpose(K)
 * that does more than swap K's last two dims is split first into a host
 * Transpose to [.., SK, D] and that swap. */
#include "compile_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    } else if (m->op == DV_GOP_ADD && cc_other_input(m, s) >= 0)
        mask = &g->t[cc_other_input(m, s)];
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

/* n scales by 1/sqrt(D): Div(x, sqrt D) or Mul(x, 1/sqrt D) with a constant scalar; *x its other input. */
static bool is_scale(const dv_graph *g, const dv_gnode *n, int64_t D, int *x)
{
    if (n->nin != 2 || (n->op != DV_GOP_DIV && n->op != DV_GOP_MUL))
        return false;
    *x = n->op == DV_GOP_DIV || g->t[n->in[1]].data ? n->in[0] : n->in[1];
    double v = cc_scalar_operand(g, n, *x),
           want = n->op == DV_GOP_DIV ? sqrt((double)D) : 1 / sqrt((double)D);
    return (n->op == DV_GOP_MUL || n->in[0] == *x) && fabs(v - want) <= 1e-3 * want;
}

/* The attention group at MatMul i (Q K^T): Transpose(K) whose perm, its last two entries swapped, gives
 * q, with K' = Transpose(K, q) the keys as [.., SK, D] (*split: q is not the identity, so K' must be
 * made first); the 1/sqrt(D) scale on the product or on Q (torch's MultiheadAttention scales Q); a causal
 * mask; Softmax on the last axis; MatMul by V. */
bool cc_match_attention(cctx *c, unsigned i, cc_group *gr, bool *split)
{
    const dv_graph *g = c->p->g;
    const dv_gnode *m1 = &g->n[i];
    int tk = cc_producer(g, m1->in[1]);
    if (tk < 0 || g->n[tk].op != DV_GOP_TRANSPOSE || cc_sole_consumer(c, m1->in[1]) != (int)i)
        return false;
    const dv_gtensor *q = &g->t[m1->in[0]], *k = &g->t[g->n[tk].in[0]];
    int r = q->rank;
    size_t np;
    const int64_t *p = ref_attr_ints(&g->n[tk], "perm", &np);
    if ((r != 4 && r != 3) || k->rank != r || !p || np != (size_t)r)
        return false;
    int64_t kd[DV_G_MAX_RANK];
    bool ident = true;
    for (int d = 0; d < r; d++) {
        int64_t qd = p[d == r - 2 ? r - 1 : d == r - 1 ? r - 2 : d];
        if (qd < 0 || qd >= r)
            return false;
        kd[d] = k->dims[qd];
        ident &= qd == d;
    }
    *split = !ident;
    int64_t D = q->dims[r - 1], SK = kd[r - 2];
    if ((D != 64 && D != 128) || kd[r - 1] != D)
        return false;
    *gr = (cc_group){.kind = CC_ATTENTION, .bias = -1, .tk = tk, .m1 = (int)i, .q = m1->in[0]};
    gr->nodes[gr->n++] = tk;
    gr->nodes[gr->n++] = (int)i;
    int next = cc_sole_consumer(c, m1->out[0]), scores = m1->out[0], qs = cc_producer(g, m1->in[0]), x;
    if (next >= 0 && is_scale(g, &g->n[next], D, &x) && x == scores) {
        gr->nodes[gr->n++] = next;
        scores = g->n[next].out[0];
        next = cc_sole_consumer(c, scores);
    } else if (qs >= 0 && is_scale(g, &g->n[qs], D, &x) && cc_sole_consumer(c, m1->in[0]) == (int)i) {
        gr->nodes[gr->n++] = qs;
        gr->q = x;
    } else
        return false; /* the operator scales by 1/sqrt(D): an unscaled product is not its computation */
    if (next >= 0 && (g->n[next].op == DV_GOP_WHERE || g->n[next].op == DV_GOP_ADD)) {
        if (!causal_mask(g, &g->n[next], scores, q->dims[r - 2], SK))
            return false;
        gr->causal = 1;
        gr->nodes[gr->n++] = next;
        next = cc_sole_consumer(c, g->n[next].out[0]);
    }
    if (next < 0 || g->n[next].op != DV_GOP_SOFTMAX || !cc_softmax_on_last(g, &g->n[next]))
        return false;
    gr->nodes[gr->n++] = next;
    int m2 = cc_sole_consumer(c, g->n[next].out[0]);
    if (m2 < 0 || g->n[m2].op != DV_GOP_MATMUL || g->n[m2].in[0] != g->n[next].out[0])
        return false;
    const dv_gtensor *v = &g->t[g->n[m2].in[1]];
    if (v->rank != r || v->dims[r - 1] != D || v->dims[r - 2] != SK)
        return false;
    gr->nodes[gr->n++] = m2;
    gr->out = g->n[m2].out[0];
    qsort(gr->nodes, gr->n, sizeof *gr->nodes, cc_cmp_int);
    return true;
}

/* Transpose(K, p) of an attention whose keys the operator needs as [.., SK, D] but p does not just swap
 * the last two dims (torch's MultiheadAttention: Transpose(K [S, B*H, D], [1, 2, 0])): p becomes q (p with
 * its last two entries swapped), a host step making K' = Transpose(K, q), and a new Transpose swapping
 * K''s last two dims follows it, which the attention group takes in. */
static dv_status split_transpose(cctx *c, int tk)
{
    dv_graph *g = c->p->g;
    int kt = g->n[tk].out[0], r = g->t[kt].rank;
    char name[200];
    snprintf(name, sizeof name, "%.150s/keys", g->t[kt].name);
    int kq = dv_graph_add_tensor(g, name);
    dv_gnode *sw = kq >= 0 ? dv_graph_add_node(g, name, DV_GOP_TRANSPOSE, 1, 1, 1) : NULL;
    int64_t *perm = sw ? malloc((size_t)r * sizeof *perm) : NULL;
    char *aname = perm ? malloc(5) : NULL;
    if (!aname) {
        free(perm);
        return dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
    }
    memcpy(aname, "perm", 5);
    dv_gtensor *k = &g->t[g->n[tk].in[0]], *t = &g->t[kq];
    const dv_gattr *pa = dv_gnode_attr(&g->n[tk], "perm"); /* the one cc_match_attention read */
    if (!pa || pa->type != DV_GATTR_INTS || pa->n != (size_t)r) {
        free(perm);
        free(aname);
        return dv_error_set(c->err, DV_ERR_INTERNAL, "%s: Transpose '%s' lost its perm", g->file,
                            g->n[tk].name);
    }
    int64_t *p = pa->ints; /* rewritten in place */
    int64_t last = p[r - 1];
    p[r - 1] = p[r - 2];
    p[r - 2] = last;
    t->dtype = k->dtype;
    t->rank = r;
    for (int d = 0; d < r; d++) {
        t->dims[d] = k->dims[p[d]];
        perm[d] = d == r - 2 ? r - 1 : d == r - 1 ? r - 2 : d;
    }
    sw->in[0] = kq;
    sw->out[0] = kt;
    sw->attr[0] = (dv_gattr){.name = aname, .type = DV_GATTR_INTS, .n = (size_t)r, .ints = perm};
    g->n[tk].out[0] = kq;
    dv_gnode moved = *sw; /* into place after the Transpose it follows (the order stays topological) */
    memmove(&g->n[tk + 2], &g->n[tk + 1], (g->nnodes - 1 - (unsigned)tk - 1) * sizeof *g->n);
    g->n[tk + 1] = moved;
    cc_log(c,
           "fuse: %s split into a Transpose to [.., SK, D] and a swap of the last two dims (attention's K)",
           g->n[tk].name);
    return cc_count_consumers(c);
}

dv_status cc_attention_split_keys(cctx *c)
{
    dv_graph *g = c->p->g;
    for (unsigned i = 0; i < g->nnodes; i++) {
        cc_group gr;
        bool split;
        if (g->n[i].op == DV_GOP_MATMUL && cc_match_attention(c, i, &gr, &split) && split) {
            dv_status st = split_transpose(c, gr.tk);
            if (st != DV_OK)
                return st;
            i++; /* the MatMul moved one on */
        }
    }
    return DV_OK;
}
