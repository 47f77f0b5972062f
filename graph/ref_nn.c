/* ref_nn.c - the reference of the CNN ops: Conv (pads, strides, dilations,
 * group, auto_pad), MaxPool / AveragePool, GlobalAveragePool and
 * BatchNormalization (inference form), over 1 to 3 spatial dims. */
#include "ref_priv.h"

#include <math.h>
#include <string.h>

enum { SP_MAX = 3 };

/* The window geometry of a Conv or pool node over x's spatial dims. */
typedef struct window {
    int sp;                                              /* spatial dims */
    int64_t in[SP_MAX], k[SP_MAX], s[SP_MAX], d[SP_MAX]; /* input, kernel, stride, dilation */
    int64_t pb[SP_MAX], pe[SP_MAX], out[SP_MAX];         /* pads before and after, output */
} window;

static dv_status window_of(dv_graph *g, const dv_gnode *n, const dv_gtensor *x, const int64_t *kernel,
                           bool ceil_mode, window *w, dv_error *err)
{
    w->sp = x->rank - 2;
    if (w->sp < 1 || w->sp > SP_MAX)
        return ref_error(err, g, n, "input rank %d (1 to %d spatial dims supported)", x->rank, SP_MAX);
    size_t ns, nd, np;
    const int64_t *s = ref_attr_ints(n, "strides", &ns), *d = ref_attr_ints(n, "dilations", &nd);
    const int64_t *p = ref_attr_ints(n, "pads", &np);
    if ((s && ns != (size_t)w->sp) || (d && nd != (size_t)w->sp) || (p && np != 2 * (size_t)w->sp))
        return ref_error(err, g, n, "strides, dilations or pads do not match %d spatial dims", w->sp);
    const dv_gattr *ap = dv_gnode_attr(n, "auto_pad");
    const char *autopad = ap && ap->s ? ap->s : "NOTSET";
    for (int i = 0; i < w->sp; i++) {
        w->in[i] = x->dims[2 + i];
        w->k[i] = kernel[i];
        w->s[i] = s ? s[i] : 1;
        w->d[i] = d ? d[i] : 1;
        w->pb[i] = p ? p[i] : 0;
        w->pe[i] = p ? p[w->sp + i] : 0;
        if (w->k[i] < 1 || w->s[i] < 1 || w->d[i] < 1 || w->pb[i] < 0 || w->pe[i] < 0 || w->k[i] > 1 << 20 ||
            w->s[i] > 1 << 20 || w->d[i] > 1 << 20 || w->pb[i] > 1 << 20 || w->pe[i] > 1 << 20)
            return ref_error(err, g, n, "kernel, stride, dilation or pad out of range");
        int64_t reach = (w->k[i] - 1) * w->d[i] + 1;
        if (strcmp(autopad, "SAME_UPPER") == 0 || strcmp(autopad, "SAME_LOWER") == 0) {
            w->out[i] = (w->in[i] + w->s[i] - 1) / w->s[i];
            int64_t total = (w->out[i] - 1) * w->s[i] + reach - w->in[i];
            total = total > 0 ? total : 0;
            w->pb[i] = autopad[5] == 'U' ? total / 2 : total - total / 2;
            w->pe[i] = total - w->pb[i];
            continue;
        }
        if (strcmp(autopad, "VALID") == 0)
            w->pb[i] = w->pe[i] = 0;
        else if (strcmp(autopad, "NOTSET") != 0)
            return ref_error(err, g, n, "auto_pad '%s' unknown", autopad);
        int64_t span = w->in[i] + w->pb[i] + w->pe[i] - reach;
        if (span < 0)
            return ref_error(err, g, n, "the kernel is larger than the padded input");
        w->out[i] = (ceil_mode ? (span + w->s[i] - 1) / w->s[i] : span / w->s[i]) + 1;
        if (ceil_mode && (w->out[i] - 1) * w->s[i] >= w->in[i] + w->pb[i])
            w->out[i]--; /* the last window must start inside the input or its leading pad */
    }
    return DV_OK;
}

/* Visits the input positions of output position o (flat over w->out): fn(off, inside). */
static int64_t spatial_size(const int64_t *d, int sp)
{
    int64_t s = 1;
    for (int i = 0; i < sp; i++)
        s *= d[i];
    return s;
}

dv_status ref_conv(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0), *wt = ref_in(g, n, 1), *b = ref_in(g, n, 2);
    if (!ref_known(x) || !ref_known(wt) || (b && !ref_known(b)))
        return DV_OK;
    int64_t group = dv_gnode_attr_int(n, "group", 1);
    if (wt->rank != x->rank || x->rank < 3 || group < 1 || x->dims[1] % group || wt->dims[0] % group ||
        wt->dims[1] * group != x->dims[1])
        return ref_error(err, g, n, "weights [%lld,%lld,...] do not fit input channels %lld in %lld groups",
                         (long long)wt->dims[0], (long long)(wt->rank > 1 ? wt->dims[1] : 0),
                         (long long)(x->rank > 1 ? x->dims[1] : 0), (long long)group);
    if (b && (b->rank != 1 || b->dims[0] != wt->dims[0]))
        return ref_error(err, g, n, "bias is not [%lld]", (long long)wt->dims[0]);
    window w;
    dv_status st = window_of(g, n, x, wt->dims + 2, false, &w, err);
    if (st != DV_OK)
        return st;
    int64_t od[DV_G_MAX_RANK] = {x->dims[0], wt->dims[0]};
    memcpy(od + 2, w.out, (size_t)w.sp * sizeof *od);
    st = ref_set_out(g, n, 0, x->dtype, x->rank, od, compute, err);
    if (st != DV_OK || !compute)
        return st;
    double *y = ref_out(g, n, 0)->data;
    int64_t N = x->dims[0], C = x->dims[1], M = wt->dims[0], cg = C / group, mg = M / group;
    int64_t isz = spatial_size(w.in, w.sp), osz = spatial_size(w.out, w.sp), ksz = spatial_size(w.k, w.sp);
    for (int64_t bn = 0; bn < N; bn++)
        for (int64_t m = 0; m < M; m++) {
            int64_t gi = m / mg;
            for (int64_t o = 0; o < osz; o++) {
                int64_t op[SP_MAX], rest = o;
                for (int i = w.sp - 1; i >= 0; i--) {
                    op[i] = rest % w.out[i];
                    rest /= w.out[i];
                }
                double s = b ? b->data[m] : 0;
                for (int64_t kk = 0; kk < ksz; kk++) {
                    int64_t kp[SP_MAX], kr = kk, off = 0;
                    bool inside = true;
                    for (int i = w.sp - 1; i >= 0; i--) {
                        kp[i] = kr % w.k[i];
                        kr /= w.k[i];
                    }
                    for (int i = 0; i < w.sp; i++) {
                        int64_t pos = op[i] * w.s[i] - w.pb[i] + kp[i] * w.d[i];
                        inside &= pos >= 0 && pos < w.in[i];
                        off = off * w.in[i] + pos;
                    }
                    if (!inside)
                        continue;
                    for (int64_t c = 0; c < cg; c++)
                        s += x->data[(bn * C + gi * cg + c) * isz + off] * wt->data[(m * cg + c) * ksz + kk];
                }
                y[(bn * M + m) * osz + o] = s;
            }
        }
    return DV_OK;
}

dv_status ref_pool(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    if (!ref_known(x))
        return DV_OK;
    size_t nk;
    const int64_t *kernel = ref_attr_ints(n, "kernel_shape", &nk);
    if (!kernel || (int)nk != x->rank - 2)
        return ref_error(err, g, n, "kernel_shape missing or not of %d dims", x->rank - 2);
    if (n->nout > 1 && n->out[1] >= 0)
        return ref_error(err, g, n, "the Indices output is not supported");
    window w;
    dv_status st = window_of(g, n, x, kernel, dv_gnode_attr_int(n, "ceil_mode", 0) != 0, &w, err);
    if (st != DV_OK)
        return st;
    int64_t od[DV_G_MAX_RANK] = {x->dims[0], x->dims[1]};
    memcpy(od + 2, w.out, (size_t)w.sp * sizeof *od);
    st = ref_set_out(g, n, 0, x->dtype, x->rank, od, compute, err);
    if (st != DV_OK || !compute)
        return st;
    bool is_max = n->op == DV_GOP_MAXPOOL, include_pad = dv_gnode_attr_int(n, "count_include_pad", 0) != 0;
    double *y = ref_out(g, n, 0)->data;
    int64_t planes = x->dims[0] * x->dims[1];
    int64_t isz = spatial_size(w.in, w.sp), osz = spatial_size(w.out, w.sp), ksz = spatial_size(w.k, w.sp);
    for (int64_t p = 0; p < planes; p++)
        for (int64_t o = 0; o < osz; o++) {
            int64_t op[SP_MAX], rest = o;
            for (int i = w.sp - 1; i >= 0; i--) {
                op[i] = rest % w.out[i];
                rest /= w.out[i];
            }
            double acc = is_max ? -INFINITY : 0;
            int64_t cnt = 0;
            for (int64_t kk = 0; kk < ksz; kk++) {
                int64_t kr = kk, off = 0, kp[SP_MAX];
                bool inside = true, in_pad = true; /* in_pad: inside the padded input (count_include_pad) */
                for (int i = w.sp - 1; i >= 0; i--) {
                    kp[i] = kr % w.k[i];
                    kr /= w.k[i];
                }
                for (int i = 0; i < w.sp; i++) {
                    int64_t pos = op[i] * w.s[i] - w.pb[i] + kp[i] * w.d[i];
                    inside &= pos >= 0 && pos < w.in[i];
                    in_pad &= pos >= -w.pb[i] && pos < w.in[i] + w.pe[i];
                    off = off * w.in[i] + pos;
                }
                if (inside) {
                    double v = x->data[p * isz + off];
                    acc = is_max ? (v > acc ? v : acc) : acc + v;
                }
                cnt += include_pad ? in_pad : inside;
            }
            y[p * osz + o] = is_max ? acc : (cnt ? acc / (double)cnt : 0);
        }
    return DV_OK;
}

dv_status ref_gap(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    if (!ref_known(x))
        return DV_OK;
    if (x->rank < 3)
        return ref_error(err, g, n, "input rank %d (needs N, C and spatial dims)", x->rank);
    int64_t od[DV_G_MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        od[i] = i < 2 ? x->dims[i] : 1;
    dv_status st = ref_set_out(g, n, 0, x->dtype, x->rank, od, compute, err);
    if (st != DV_OK || !compute)
        return st;
    int64_t planes = x->dims[0] * x->dims[1], sz = dv_gtensor_count(x) / (planes ? planes : 1);
    double *y = ref_out(g, n, 0)->data;
    for (int64_t p = 0; p < planes; p++) {
        double s = 0;
        for (int64_t k = 0; k < sz; k++)
            s += x->data[p * sz + k];
        y[p] = sz ? s / (double)sz : 0;
    }
    return DV_OK;
}

/* Inference form: y = (x - mean) / sqrt(var + eps) * scale + B per channel. */
dv_status ref_batchnorm(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    if (!ref_known(x))
        return DV_OK;
    if (x->rank < 2)
        return ref_error(err, g, n, "input rank %d (needs N and C)", x->rank);
    for (unsigned i = 1; i < 5; i++) {
        dv_gtensor *p = ref_in(g, n, i);
        if (!ref_known(p))
            return DV_OK;
        if (p->rank != 1 || p->dims[0] != x->dims[1])
            return ref_error(err, g, n, "parameter '%s' is not [%lld]", p->name, (long long)x->dims[1]);
    }
    if (n->nout > 1)
        return ref_error(err, g, n, "training outputs (running mean, var) are not supported");
    dv_status st = ref_set_out(g, n, 0, x->dtype, x->rank, x->dims, compute, err);
    if (st != DV_OK || !compute)
        return st;
    double eps = dv_gnode_attr_float(n, "epsilon", 1e-5);
    const double *sc = ref_in(g, n, 1)->data, *bb = ref_in(g, n, 2)->data, *mu = ref_in(g, n, 3)->data,
                 *var = ref_in(g, n, 4)->data;
    int64_t C = x->dims[1], sz = 1;
    for (int i = 2; i < x->rank; i++)
        sz *= x->dims[i];
    double *y = ref_out(g, n, 0)->data;
    for (int64_t p = 0; p < x->dims[0] * C; p++) {
        int64_t c = p % C;
        double k = sc[c] / sqrt(var[c] + eps);
        for (int64_t e = 0; e < sz; e++)
            y[p * sz + e] = (x->data[p * sz + e] - mu[c]) * k + bb[c];
    }
    return DV_OK;
}
