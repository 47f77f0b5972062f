/* compile_copy.c - lowering of the data-movement nodes onto the permute
 * operator (kernels/permute, `dvsim ops permute`): a strided GM -> GM copy of
 * rank <= 4 with the outer dims permuted, a box of the source and a window
 * of the destination.
 *   Transpose whose perm keeps the last dim last: PERM, the box the whole input;
 *   Slice with steps of 1: the box O/E per axis;
 *   Concat: one step per input, each writing its window (CA, CN, CO) of the
 *     one output (the steps share it; none reads it before the last).
 * Tensors are ND f16; a lower rank is padded with leading dims of 1.  What
 * does not fit (rank above 4, a Transpose moving the last dim, a step other
 * than 1, the operator's own limits) stays a host step with the reason. */
#include "compile_priv.h"

#include <stdio.h>
#include <string.h>

enum { CONCAT_MAX = 8 }; /* inputs of a Concat lowered as one step each */

/* The tensor holds floats (f16 on the device); integer shape chains stay on the host. */
static bool is_float(const dv_gtensor *t)
{
    return t->dtype == DV_GDT_FLOAT || t->dtype == DV_GDT_FLOAT16;
}

/* "N0=..,N1=..,N2=..,N3=.." of x padded to rank 4 (pad = 4 - rank). */
static int dims_params(char *buf, size_t len, const dv_gtensor *x)
{
    int pad = 4 - x->rank;
    int64_t d[4];
    for (int k = 0; k < 4; k++)
        d[k] = k < pad ? 1 : x->dims[k - pad];
    return snprintf(buf, len, "N0=%lld,N1=%lld,N2=%lld,N3=%lld", (long long)d[0], (long long)d[1],
                    (long long)d[2], (long long)d[3]);
}

/* A device step of permute reading graph tensor x, writing plan tensor out. */
static dv_status copy_step(cctx *c, unsigned ni, int x, int out, const char *params, const char *note)
{
    char why[DV_ERROR_MSG_MAX];
    if (!cc_device_fits(c, "permute", "db", params, why, sizeof why))
        return cc_host_step(c, ni, why);
    int in = cc_use(c, x, DV_TL_ND), node = (int)ni;
    dv_plan_step *s = cc_make_step(c, DV_STEP_DEVICE, "permute", &in, 1, &out, 1, &node, 1);
    if (!s)
        return c->err->status ? c->err->status : dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
    snprintf(s->params, sizeof s->params, "%s", params);
    snprintf(s->note, sizeof s->note, "%s", note);
    return DV_OK;
}

static dv_status lower_transpose(cctx *c, unsigned ni)
{
    const dv_graph *g = c->p->g;
    const dv_gnode *n = &g->n[ni];
    const dv_gtensor *x = &g->t[n->in[0]];
    size_t np = 0;
    const int64_t *perm = ref_attr_ints(n, "perm", &np);
    int r = x->rank, pad = 4 - r;
    if (r < 1 || r > 4)
        return cc_host_step(c, ni, "a Transpose of rank above 4 (permute takes rank <= 4)");
    int64_t pk[4];
    for (int k = 0; k < r; k++)
        pk[k] = perm && np == (size_t)r ? perm[k] : r - 1 - k; /* no perm: the dims reversed */
    if (pk[r - 1] != r - 1)
        return cc_host_step(
            c, ni, "a Transpose that moves the last dim (needs a real transpose, not a strided copy)");
    int code = 0;
    for (int k = 0; k < 4; k++)
        code = code * 10 + (k < pad ? k : pad + (int)pk[k - pad]);
    char params[160];
    int o = dims_params(params, sizeof params, x);
    snprintf(params + o, sizeof params - (size_t)o, ",PERM=%d", code);
    int out = cc_define(c, n->out[0], DV_TL_ND);
    return out < 0 ? c->err->status : copy_step(c, ni, n->in[0], out, params, "");
}

/* Slice's box: lo and len per axis of x, from constant starts/ends/axes/steps (steps 1 only). */
static const char *slice_box(const dv_graph *g, const dv_gnode *n, int64_t *lo, int64_t *len)
{
    const dv_gtensor *x = &g->t[n->in[0]];
    int64_t st[DV_G_MAX_RANK], en[DV_G_MAX_RANK], ax[DV_G_MAX_RANK], sp[DV_G_MAX_RANK];
    size_t ns = 0, ne = 0, na = 0, nsp = 0;
    for (int d = 0; d < x->rank; d++)
        lo[d] = 0, len[d] = x->dims[d];
    if (n->nin == 1) { /* opset < 10: attributes */
        const int64_t *a = ref_attr_ints(n, "starts", &ns), *b = ref_attr_ints(n, "ends", &ne),
                      *c = ref_attr_ints(n, "axes", &na);
        if (!a || !b || ns != ne || ns > DV_G_MAX_RANK || (c && na != ns))
            return "starts and ends not given";
        for (size_t k = 0; k < ns; k++)
            st[k] = a[k], en[k] = b[k], ax[k] = c ? c[k] : (int64_t)k;
    } else {
        if (!ref_input_ints(&g->t[n->in[1]], st, DV_G_MAX_RANK, &ns) ||
            !ref_input_ints(&g->t[n->in[2]], en, DV_G_MAX_RANK, &ne) || ns != ne)
            return "starts or ends not constant";
        if (n->nin > 3 && n->in[3] >= 0) {
            if (!ref_input_ints(&g->t[n->in[3]], ax, DV_G_MAX_RANK, &na) || na != ns)
                return "axes not constant";
        } else
            for (size_t k = 0; k < ns; k++)
                ax[k] = (int64_t)k;
        if (n->nin > 4 && n->in[4] >= 0 &&
            (!ref_input_ints(&g->t[n->in[4]], sp, DV_G_MAX_RANK, &nsp) || nsp != ns))
            return "steps not constant";
    }
    for (size_t k = 0; k < ns; k++) {
        if (nsp && sp[k] != 1)
            return "a Slice with a step other than 1 (permute copies unit-stride boxes)";
        int a = (int)(ax[k] < 0 ? ax[k] + x->rank : ax[k]);
        if (a < 0 || a >= x->rank)
            return "axis out of range";
        int64_t dim = x->dims[a], b = st[k] < 0 ? st[k] + dim : st[k], e = en[k] < 0 ? en[k] + dim : en[k];
        b = b < 0 ? 0 : b > dim ? dim : b;
        e = e < 0 ? 0 : e > dim ? dim : e;
        lo[a] = b;
        len[a] = e > b ? e - b : 0;
    }
    return NULL;
}

static dv_status lower_slice(cctx *c, unsigned ni)
{
    const dv_graph *g = c->p->g;
    const dv_gnode *n = &g->n[ni];
    const dv_gtensor *x = &g->t[n->in[0]];
    int r = x->rank, pad = 4 - r;
    if (r < 1 || r > 4)
        return cc_host_step(c, ni, "a Slice of rank above 4 (permute takes rank <= 4)");
    int64_t lo[DV_G_MAX_RANK], len[DV_G_MAX_RANK];
    const char *why = slice_box(g, n, lo, len);
    for (int d = 0; d < r && !why; d++)
        if (len[d] == 0)
            why = "an empty Slice";
    if (why)
        return cc_host_step(c, ni, why);
    char params[256];
    int o = dims_params(params, sizeof params, x);
    for (int d = 0; d < r; d++)
        o += snprintf(params + o, sizeof params - (size_t)o, ",O%d=%lld,E%d=%lld", d + pad, (long long)lo[d],
                      d + pad, (long long)len[d]);
    int out = cc_define(c, n->out[0], DV_TL_ND);
    return out < 0 ? c->err->status : copy_step(c, ni, n->in[0], out, params, "");
}

static dv_status lower_concat(cctx *c, unsigned ni)
{
    const dv_graph *g = c->p->g;
    const dv_gnode *n = &g->n[ni];
    const dv_gtensor *y = &g->t[n->out[0]];
    int r = y->rank, pad = 4 - r;
    int64_t axis = dv_gnode_attr_int(n, "axis", 0);
    axis = axis < 0 ? axis + r : axis;
    if (r < 1 || r > 4 || axis < 0 || axis >= r)
        return cc_host_step(c, ni, "a Concat of rank above 4 (permute takes rank <= 4)");
    char params[CONCAT_MAX][192];
    if (n->nin > CONCAT_MAX)
        return cc_host_step(c, ni, "a Concat of more inputs than the plan takes steps for one node");
    int64_t at = 0;
    for (unsigned k = 0; k < n->nin; k++) { /* every launch fits, or none is made */
        const dv_gtensor *x = &g->t[n->in[k]];
        int o = dims_params(params[k], sizeof params[k], x);
        snprintf(params[k] + o, sizeof params[k] - (size_t)o, ",CA=%d,CN=%lld,CO=%lld", (int)axis + pad,
                 (long long)y->dims[axis], (long long)at);
        at += x->dims[axis];
        char why[DV_ERROR_MSG_MAX];
        if (x->data || !cc_device_fits(c, "permute", "db", params[k], why, sizeof why))
            return cc_host_step(c, ni, x->data ? "a Concat of a constant input" : why);
    }
    int out = cc_define(c, n->out[0], DV_TL_ND);
    if (out < 0)
        return c->err->status;
    for (unsigned k = 0; k < n->nin; k++) {
        char note[64];
        snprintf(note, sizeof note, "input %u of %u into its window", k + 1, n->nin);
        dv_status st = copy_step(c, ni, n->in[k], out, params[k], note);
        if (st != DV_OK)
            return st;
    }
    return DV_OK;
}

dv_status cc_lower_copy(cctx *c, unsigned ni)
{
    const dv_gnode *n = &c->p->g->n[ni];
    for (unsigned k = 0; k < (n->op == DV_GOP_CONCAT ? n->nin : 1u); k++)
        if (!is_float(&c->p->g->t[n->in[k]]))
            return cc_host_step(c, ni, "a copy of integers or booleans (permute moves f16)");
    switch (c->p->g->n[ni].op) {
    case DV_GOP_TRANSPOSE: return lower_transpose(c, ni);
    case DV_GOP_SLICE: return lower_slice(c, ni);
    default: return lower_concat(c, ni);
    }
}
