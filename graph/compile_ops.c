/* compile_ops.c - lowering to the Cube operators: conv2d /
 * conv2d_bias_relu, matmul with its epilogue, attention.  Each maps the
 * node's attributes onto the operator's parameters (kernels/<op>/, `dvsim ops
 * NAME`); what the operator cannot take falls back to the nodes one by one
 * (a group) or a host step (a node), with the reason in the step's note. */
#include "compile_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dv_status nomem(cctx *c)
{
    return c->err->status ? c->err->status : dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
}

/* A group's nodes lowered one by one (the fused form did not fit). */
static dv_status unfuse(cctx *c, const cc_group *gr, const char *why)
{
    cc_log(c, "fuse: %s not fused: %s", c->p->g->n[gr->nodes[0]].name, why);
    for (unsigned k = 0; k < gr->n; k++) {
        dv_status st = cc_lower_single(c, (unsigned)gr->nodes[k]);
        if (st != DV_OK)
            return st;
    }
    return DV_OK;
}

dv_status cc_lower_conv(cctx *c, unsigned ni, int relu)
{
    dv_graph *g = c->p->g;
    const dv_gnode *n = &g->n[ni];
    const dv_gtensor *x = &g->t[n->in[0]], *w = &g->t[n->in[1]], *y = &g->t[n->out[0]];
    int b = n->nin > 2 ? n->in[2] : -1;
    size_t ns, np, nd;
    const int64_t *st = ref_attr_ints(n, "strides", &ns), *pd = ref_attr_ints(n, "pads", &np),
                  *dl = ref_attr_ints(n, "dilations", &nd);
    const dv_gattr *ap = dv_gnode_attr(n, "auto_pad");
    const char *why = NULL;
    if (x->rank != 4)
        why = "not a 2-D convolution";
    else if (!w->data)
        why = "weights not constant";
    else if (dv_gnode_attr_int(n, "group", 1) != 1)
        why = "grouped convolution";
    else if (ap && ap->s && strcmp(ap->s, "NOTSET") != 0 && strcmp(ap->s, "VALID") != 0)
        why = "auto_pad SAME (asymmetric padding)";
    else if (pd && (pd[0] != pd[2] || pd[1] != pd[3]))
        why = "asymmetric padding";
    int64_t SH = st ? st[0] : 1, SW = st && ns > 1 ? st[1] : 1, PH = pd ? pd[0] : 0,
            PW = pd && np > 1 ? pd[1] : 0;
    int64_t DH = dl ? dl[0] : 1, DW = dl && nd > 1 ? dl[1] : 1, KH = w->rank == 4 ? w->dims[2] : 0,
            KW = w->rank == 4 ? w->dims[3] : 0;
    if (!why && (PH > DH * (KH - 1) || PW > DW * (KW - 1)))
        why = "padding beyond the dilated kernel's reach (conv2d's limit)";
    if (!why && (x->dims[2] * x->dims[3] > 65535 || y->dims[2] * y->dims[3] > 65535))
        why = "H*W or OH*OW above 65535 (conv2d's limit)";
    char params[192], msg[DV_ERROR_MSG_MAX];
    snprintf(
        params, sizeof params,
        "N=%lld,C=%lld,H=%lld,W=%lld,Co=%lld,KH=%lld,KW=%lld,SH=%lld,SW=%lld,PH=%lld,PW=%lld,DH=%lld,DW=%lld",
        (long long)x->dims[0], (long long)x->dims[1], (long long)x->dims[2], (long long)x->dims[3],
        (long long)w->dims[0], (long long)KH, (long long)KW, (long long)SH, (long long)SW, (long long)PH,
        (long long)PW, (long long)DH, (long long)DW);
    const char *op = relu >= 0 ? "conv2d_bias_relu" : "conv2d", *variant = relu >= 0 ? "fused" : "db";
    if (!why && !cc_device_fits(c, op, variant, params, msg, sizeof msg))
        why = msg;
    if (why) {
        if (relu >= 0) {
            cc_group gr = {.kind = CC_CONV_RELU, .n = 2, .nodes = {(int)ni, relu}};
            return unfuse(c, &gr, why);
        }
        return cc_host_step(c, ni, why);
    }
    int in[3], out, nodes[2] = {(int)ni, relu};
    in[0] = cc_use(c, n->in[0], DV_TL_NC1HWC0);
    in[1] = cc_use(c, n->in[1], DV_TL_FRACZ);
    int64_t co16 = (w->dims[0] + 15) / 16 * 16;
    if (relu >= 0) {
        /* the bias, zero padded to whole blocks of 16 channels (zeros when the Conv has none) */
        char bname[120];
        snprintf(bname, sizeof bname, "%.100s/bias16", g->t[n->in[1]].name);
        in[2] = b >= 0 ? c->memo[b][DV_TL_ND] : -1;
        if (in[2] < 0 || c->p->t[in[2]].dims[0] != co16) {
            in[2] = cc_new_tensor(c, bname, b, DV_TL_ND, 1, &co16);
            if (in[2] < 0)
                return nomem(c);
            c->p->t[in[2]].weight = true;
        }
        out = cc_define(c, g->n[relu].out[0], DV_TL_NC1HWC0);
        dv_plan_step *s = cc_make_step(c, DV_STEP_DEVICE, op, in, 3, &out, 1, nodes, 2);
        if (!s)
            return nomem(c);
        snprintf(s->variant, sizeof s->variant, "%s", variant);
        snprintf(s->params, sizeof s->params, "%s", params);
        snprintf(s->note, sizeof s->note, "fused %s + %s", n->name, g->n[relu].name);
        c->p->rep.fused_conv++;
        return DV_OK;
    }
    if (b < 0) {
        out = cc_define(c, n->out[0], DV_TL_NC1HWC0);
        dv_plan_step *s = cc_make_step(c, DV_STEP_DEVICE, op, in, 2, &out, 1, nodes, 1);
        if (!s)
            return nomem(c);
        snprintf(s->params, sizeof s->params, "%s", params);
        return DV_OK;
    }
    /* conv2d has no bias: the product, then the per-channel bias on the host (in NC1HWC0) */
    char tname[120];
    snprintf(tname, sizeof tname, "%.100s/conv", y->name);
    int tmp = cc_new_tensor(c, tname, -1, DV_TL_NC1HWC0, y->rank, y->dims);
    if (tmp < 0)
        return nomem(c);
    dv_plan_step *s = cc_make_step(c, DV_STEP_DEVICE, op, in, 2, &tmp, 1, nodes, 1);
    if (!s)
        return nomem(c);
    snprintf(s->params, sizeof s->params, "%s", params);
    int bin[2] = {tmp, cc_use(c, b, DV_TL_ND)};
    out = cc_define(c, n->out[0], DV_TL_NC1HWC0);
    s = cc_make_step(c, DV_STEP_HOST, "bias_add", bin, 2, &out, 1, NULL, 0);
    if (!s)
        return nomem(c);
    snprintf(s->note, sizeof s->note,
             "the Conv's bias per channel, in NC1HWC0 (conv2d has none; conv2d_bias_relu only with ReLU)");
    return DV_OK;
}

dv_status cc_lower_matmul(cctx *c, const cc_group *gr)
{
    dv_graph *g = c->p->g;
    unsigned ni = (unsigned)gr->nodes[0];
    const dv_gnode *n = &g->n[ni];
    const dv_gtensor *a = &g->t[n->in[0]], *bt = &g->t[n->in[1]];
    bool gemm = n->op == DV_GOP_GEMM;
    int ta = gemm ? (int)dv_gnode_attr_int(n, "transA", 0) : 0,
        tb = gemm ? (int)dv_gnode_attr_int(n, "transB", 0) : 0;
    int64_t M = 0, K = 0, N = 0, batch = 1;
    const char *why = NULL;
    if (a->rank < 2 || bt->rank < 2)
        why = "a 1-D operand";
    else if (gemm) {
        M = a->dims[ta ? 1 : 0];
        K = a->dims[ta ? 0 : 1];
        N = bt->dims[tb ? 0 : 1];
        if (!cc_gemm_bias_ok(g, n, N))
            why = "alpha or beta not 1, or C not a bias of N elements";
    } else if (bt->rank == 2) {
        K = a->dims[a->rank - 1];
        N = bt->dims[1];
        M = dv_gtensor_count(a) / (K ? K : 1); /* the leading dims are rows of one product */
    } else {
        K = a->dims[a->rank - 1];
        N = bt->dims[bt->rank - 1];
        M = a->dims[a->rank - 2];
        if (a->rank != bt->rank || memcmp(a->dims, bt->dims, (size_t)(a->rank - 2) * sizeof *a->dims) != 0)
            why = "broadcast batch dims";
        for (int i = 0; i < a->rank - 2; i++)
            batch *= a->dims[i];
    }
    bool bnz = c->p->opt >= 2 && bt->data && bt->rank == 2 && !tb;
    char params[192], msg[DV_ERROR_MSG_MAX];
    snprintf(params, sizeof params, "M=%lld,N=%lld,K=%lld,B=%lld,TA=%d,TB=%d,BNZ=%d,BIAS=%d,RELU=%d,ACT=%d",
             (long long)M, (long long)N, (long long)K, (long long)batch, ta, tb, bnz, gr->bias >= 0, gr->relu,
             gr->act);
    if (!why && !cc_device_fits(c, "matmul", "db", params, msg, sizeof msg))
        why = msg;
    if (why && (gr->act || gr->relu) && gr->n > 1u + (gr->bias >= 0 && !gemm)) {
        /* the epilogue's activation did not fit (ACT on a split chip): the product and bias fused, the rest
         * alone */
        cc_group part = *gr;
        part.n = 1u + (gr->bias >= 0 && !gemm);
        part.act = part.relu = 0;
        part.out = g->n[part.nodes[part.n - 1]].out[0];
        cc_log(c, "fuse: %s: the activation stays apart: %s", n->name, why);
        dv_status st = cc_lower_matmul(c, &part);
        for (unsigned k = part.n; k < gr->n && st == DV_OK; k++)
            st = cc_lower_single(c, (unsigned)gr->nodes[k]);
        return st;
    }
    if (why)
        return gr->n > 1 ? unfuse(c, gr, why) : cc_host_step(c, ni, why);
    int in[3], out, nin = 2;
    in[0] = cc_use(c, n->in[0], DV_TL_ND);
    in[1] = cc_use(c, n->in[1], bnz ? DV_TL_NZ : DV_TL_ND);
    if (gr->bias >= 0)
        in[nin++] = cc_use(c, gr->bias, DV_TL_ND);
    out = cc_define(c, gr->out, N % 16 ? DV_TL_ND16 : DV_TL_ND);
    dv_plan_step *s = cc_make_step(c, DV_STEP_DEVICE, "matmul", in, (unsigned)nin, &out, 1, gr->nodes, gr->n);
    if (!s)
        return nomem(c);
    snprintf(s->params, sizeof s->params, "%s", params);
    if (gr->n > 1)
        c->p->rep.fused_matmul++;
    if (gr->n > 1)
        snprintf(s->note, sizeof s->note, "fused %s%s%s%s", n->name, gr->bias >= 0 && !gemm ? " + bias" : "",
                 gr->relu ? " + ReLU" : "",
                 gr->act == 1   ? " + SiLU"
                 : gr->act == 2 ? " + GELU(sigmoid)"
                                : "");
    return DV_OK;
}

dv_status cc_lower_attention(cctx *c, const cc_group *gr)
{
    dv_graph *g = c->p->g;
    const dv_gnode *tk = &g->n[gr->tk], *m1 = &g->n[gr->m1], *m2 = &g->n[gr->nodes[gr->n - 1]];
    const dv_gtensor *q = &g->t[gr->q], *k = &g->t[tk->in[0]];
    int r = q->rank;
    int64_t B = r == 4 ? q->dims[0] : 1, H = q->dims[r - 3], SQ = q->dims[r - 2], SK = k->dims[r - 2],
            D = q->dims[r - 1];
    char params[192], msg[DV_ERROR_MSG_MAX];
    snprintf(params, sizeof params, "B=%lld,H=%lld,SQ=%lld,SK=%lld,D=%lld,CAUSAL=%d", (long long)B,
             (long long)H, (long long)SQ, (long long)SK, (long long)D, gr->causal);
    if (memcmp(q->dims, k->dims, (size_t)(r - 2) * sizeof *q->dims) != 0)
        return unfuse(c, gr, "Q and K differ in batch or heads");
    if (!cc_device_fits(c, "attention", "overlap", params, msg, sizeof msg))
        return unfuse(c, gr, msg);
    int in[3] = {cc_use(c, gr->q, DV_TL_ND), cc_use(c, tk->in[0], DV_TL_ND), cc_use(c, m2->in[1], DV_TL_ND)};
    int out = cc_define(c, gr->out, DV_TL_ND);
    dv_plan_step *s = cc_make_step(c, DV_STEP_DEVICE, "attention", in, 3, &out, 1, gr->nodes, gr->n);
    if (!s)
        return nomem(c);
    snprintf(s->variant, sizeof s->variant, "overlap");
    snprintf(s->params, sizeof s->params, "%s", params);
    snprintf(s->note, sizeof s->note, "fused %s .. %s (%u nodes%s)", m1->name, m2->name, gr->n,
             gr->causal ? ", the causal mask as CAUSAL=1" : "");
    c->p->rep.fused_attention++;
    return DV_OK;
}

/* PyTorch's erf GELU (five nodes) as one host step: its inner tensors never reach GM. */
dv_status cc_lower_gelu(cctx *c, const cc_group *gr)
{
    int in = cc_use(c, gr->x, DV_TL_ND), out = cc_define(c, gr->out, DV_TL_ND);
    dv_plan_step *s = cc_make_step(c, DV_STEP_HOST, "Gelu", &in, 1, &out, 1, gr->nodes, gr->n);
    if (!s)
        return nomem(c);
    snprintf(s->note, sizeof s->note,
             "x*0.5*(1+erf(x/sqrt2)), %u nodes in one (no device erf: matmul's ACT=2 is sigmoid's GELU)",
             gr->n);
    c->p->rep.fused_gelu++;
    return DV_OK;
}
