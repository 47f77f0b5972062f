/* plan_exec.c - a plan run as the device would be asked to run it: every
 * device step computed from its operator's parameters alone (matmul's M, N,
 * K, B, TA, TB, BIAS, RELU, ACT; conv2d's N .. DW; attention's B, H, SQ, SK,
 * D, CAUSAL; the row and element counts of the vector operators) on the
 * logical values of its tensors, host steps by the reference of their nodes.
 * Compared with the node-by-node reference of the unfused plan, this checks
 * that lowering and fusion mapped each node group onto the right operator
 * parameters (a wrong K, a lost bias or a mis-wired epilogue shows up as a
 * different output).  Values are logical (row-major); layout steps move none. */
#include "compile_priv.h" /* cc_layout_bytes: the bytes of a layout */
#include "plan_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameter key of a "K=V,..." string (0 if absent). */
static int64_t param(const dv_plan_step *s, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = s->params; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, key, n) == 0 && p[n] == '=')
            return strtoll(p + n + 1, NULL, 10);
    return 0;
}

static int64_t logical_count(const dv_plan_tensor *t)
{
    int64_t c = 1;
    for (int d = 0; d < t->rank; d++)
        c *= t->dims[d];
    return c;
}

/* Plan tensor pt's values, at least need of them (zeros past what it holds: a padded bias). */
static dv_status values_of(pref *r, int pt, int64_t need, double **buf, dv_error *err)
{
    const dv_plan_tensor *t = &r->p->t[pt];
    const double *src = r->pv[pt];
    int64_t have = src ? logical_count(t) : 0;
    if (!src && t->gt >= 0) {
        dv_status st = pref_ensure(r, t->gt, 0);
        if (st != DV_OK)
            return st;
        src = r->v->t[t->gt].data;
        have = dv_gtensor_count(&r->v->t[t->gt]);
    }
    *buf = calloc((size_t)(need > 0 ? need : 1), sizeof **buf);
    if (!*buf)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    if (src)
        memcpy(*buf, src, (size_t)(have < need ? have : need) * sizeof **buf);
    return DV_OK;
}

/* Stores a step's result: into its graph tensor (checking the count the parameters gave), or as an
 * intermediate. */
static dv_status store(pref *r, const dv_plan_step *s, double *y, int64_t n)
{
    const dv_plan_tensor *t = &r->p->t[s->out[0]];
    if (n != logical_count(t)) {
        free(y);
        return dv_error_set(r->err, DV_ERR_INTERNAL,
                            "plan step %s (%s): its parameters make %lld elements, '%s' has %lld", s->op,
                            s->params, (long long)n, t->name, (long long)logical_count(t));
    }
    if (t->gt < 0) {
        free(r->pv[s->out[0]]);
        r->pv[s->out[0]] = y;
        return DV_OK;
    }
    dv_gtensor *g = &r->v->t[t->gt];
    free(g->data);
    g->data = y;
    return DV_OK;
}

static double act(double x, int64_t a)
{
    return a == 1 ? x / (1 + exp(-x)) : a == 2 ? x / (1 + exp(-1.702 * x)) : x;
}

static dv_status exec_matmul(pref *r, const dv_plan_step *s, double **in)
{
    int64_t M = param(s, "M"), N = param(s, "N"), K = param(s, "K"), B = param(s, "B"), ta = param(s, "TA"),
            tb = param(s, "TB"), bias = param(s, "BIAS"), relu = param(s, "RELU"), a = param(s, "ACT");
    double *y = calloc((size_t)(B * M * N > 0 ? B * M * N : 1), sizeof *y);
    if (!y)
        return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory");
    int64_t nb = r->p->t[s->in[1]].rank > 2 ? B : 1; /* a 2-D B is shared by the batch */
    for (int64_t b = 0; b < B; b++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double acc = bias ? in[2][j] : 0;
                const double *A = in[0] + b * M * K, *W = in[1] + (nb > 1 ? b : 0) * K * N;
                for (int64_t k = 0; k < K; k++)
                    acc += (ta ? A[k * M + i] : A[i * K + k]) * (tb ? W[j * K + k] : W[k * N + j]);
                acc = relu && acc < 0 ? 0 : acc;
                y[(b * M + i) * N + j] = act(acc, a);
            }
    return store(r, s, y, B * M * N);
}

static dv_status exec_conv(pref *r, const dv_plan_step *s, double **in, bool bias_relu)
{
    int64_t N = param(s, "N"), C = param(s, "C"), H = param(s, "H"), W = param(s, "W"), Co = param(s, "Co"),
            KH = param(s, "KH"), KW = param(s, "KW"), SH = param(s, "SH"), SW = param(s, "SW"),
            PH = param(s, "PH"), PW = param(s, "PW"), DH = param(s, "DH"), DW = param(s, "DW");
    int64_t OH = (H + 2 * PH - DH * (KH - 1) - 1) / SH + 1, OW = (W + 2 * PW - DW * (KW - 1) - 1) / SW + 1;
    int64_t n = N * Co * OH * OW;
    double *y = calloc((size_t)(n ? n : 1), sizeof *y);
    if (!y)
        return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory");
    for (int64_t b = 0; b < N; b++)
        for (int64_t m = 0; m < Co; m++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    double acc = bias_relu ? in[2][m] : 0;
                    for (int64_t c = 0; c < C; c++)
                        for (int64_t kh = 0; kh < KH; kh++)
                            for (int64_t kw = 0; kw < KW; kw++) {
                                int64_t ih = oh * SH - PH + kh * DH, iw = ow * SW - PW + kw * DW;
                                if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                                    acc += in[0][((b * C + c) * H + ih) * W + iw] *
                                           in[1][((m * C + c) * KH + kh) * KW + kw];
                            }
                    y[((b * Co + m) * OH + oh) * OW + ow] = bias_relu && acc < 0 ? 0 : acc;
                }
    return store(r, s, y, n);
}

static dv_status exec_attention(pref *r, const dv_plan_step *s, double **in)
{
    int64_t B = param(s, "B"), H = param(s, "H"), SQ = param(s, "SQ"), SK = param(s, "SK"), D = param(s, "D"),
            causal = param(s, "CAUSAL"), n = B * H * SQ * D;
    double *y = calloc((size_t)(n ? n : 1), sizeof *y), *p = calloc((size_t)(SK ? SK : 1), sizeof *p);
    if (!y || !p) {
        free(y);
        free(p);
        return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory");
    }
    for (int64_t bh = 0; bh < B * H; bh++)
        for (int64_t i = 0; i < SQ; i++) {
            const double *q = in[0] + (bh * SQ + i) * D;
            double mx = -INFINITY, sum = 0;
            int64_t keys = causal ? (i + 1 < SK ? i + 1 : SK) : SK;
            for (int64_t j = 0; j < keys; j++) {
                double dot = 0;
                for (int64_t d = 0; d < D; d++)
                    dot += q[d] * in[1][(bh * SK + j) * D + d];
                p[j] = dot / sqrt((double)D);
                mx = p[j] > mx ? p[j] : mx;
            }
            for (int64_t j = 0; j < keys; j++)
                sum += p[j] = exp(p[j] - mx);
            for (int64_t j = 0; j < keys; j++)
                for (int64_t d = 0; d < D; d++)
                    y[(bh * SQ + i) * D + d] += p[j] / sum * in[2][(bh * SK + j) * D + d];
        }
    free(p);
    return store(r, s, y, n);
}

/* add, relu, softmax, layernorm (eps 1e-5: the operator's), rmsnorm (eps 10^-EPS_E, as f32). */
static dv_status exec_vector(pref *r, const dv_plan_step *s, double **in)
{
    bool rms = strcmp(s->op, "rmsnorm") == 0;
    bool rows = rms || strcmp(s->op, "softmax") == 0 || strcmp(s->op, "layernorm") == 0;
    int64_t R = rows ? param(s, "R") : 1, C = rows ? param(s, "C") : 0;
    int64_t n = rows ? R * C : logical_count(&r->p->t[s->out[0]]);
    const dv_plan_tensor *ot = &r->p->t[s->out[0]];
    if (!rows && (uint64_t)param(s, "N") * 2 != cc_layout_bytes(ot->layout, ot->rank, ot->dims))
        return dv_error_set(r->err, DV_ERR_INTERNAL, "plan step %s: N=%lld for a tensor of %llu bytes", s->op,
                            (long long)param(s, "N"),
                            (unsigned long long)cc_layout_bytes(ot->layout, ot->rank, ot->dims));
    double *y = malloc((size_t)(n ? n : 1) * sizeof *y);
    if (!y)
        return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory");
    if (strcmp(s->op, "add") == 0 || strcmp(s->op, "relu") == 0) {
        bool add = s->op[0] == 'a';
        for (int64_t e = 0; e < n; e++)
            y[e] = add ? in[0][e] + in[1][e] : (in[0][e] > 0 ? in[0][e] : 0);
    } else
        for (int64_t i = 0; i < R; i++) {
            const double *x = in[0] + i * C;
            double *o = y + i * C, a = 0, b = 0;
            if (rms) {
                for (int64_t j = 0; j < C; j++)
                    b += x[j] * x[j];
                double inv = 1 / sqrt(b / (double)C + (double)(float)pow(10, -(double)param(s, "EPS_E")));
                for (int64_t j = 0; j < C; j++)
                    o[j] = x[j] * inv * in[1][j];
            } else if (s->op[0] == 's') {
                a = -INFINITY;
                for (int64_t j = 0; j < C; j++)
                    a = x[j] > a ? x[j] : a;
                for (int64_t j = 0; j < C; j++)
                    b += o[j] = exp(x[j] - a);
                for (int64_t j = 0; j < C; j++)
                    o[j] /= b;
            } else {
                for (int64_t j = 0; j < C; j++)
                    a += x[j];
                a /= (double)C;
                for (int64_t j = 0; j < C; j++)
                    b += (x[j] - a) * (x[j] - a);
                double inv = 1 / sqrt(b / (double)C + 1e-5);
                for (int64_t j = 0; j < C; j++)
                    o[j] = (x[j] - a) * inv * in[1][j] + in[2][j];
            }
        }
    return store(r, s, y, n);
}

/* The host's per-channel bias after a conv2d (NC1HWC0 logically NCHW). */
static dv_status exec_bias_add(pref *r, const dv_plan_step *s, double **in)
{
    const dv_plan_tensor *t = &r->p->t[s->out[0]];
    int64_t n = logical_count(t), C = t->dims[1], hw = n / (t->dims[0] * C > 0 ? t->dims[0] * C : 1);
    double *y = malloc((size_t)(n ? n : 1) * sizeof *y);
    if (!y)
        return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory");
    for (int64_t e = 0; e < n; e++)
        y[e] = in[0][e] + in[1][(e / hw) % C];
    return store(r, s, y, n);
}

static dv_status exec_step(pref *r, const dv_plan_step *s)
{
    bool bias_add = s->kind == DV_STEP_HOST && strcmp(s->op, "bias_add") == 0;
    if (s->kind == DV_STEP_LAYOUT || (s->kind == DV_STEP_HOST && !bias_add))
        return s->kind == DV_STEP_LAYOUT ? DV_OK : pref_nodes(r, s);
    double *in[DV_STEP_MAX_IO] = {NULL};
    dv_status st = DV_OK;
    for (unsigned k = 0; k < s->nin && st == DV_OK; k++) {
        const dv_plan_tensor *t = &r->p->t[s->in[k]];
        int64_t need = logical_count(t);
        if (t->weight && t->rank == 1) /* a padded bias: as many as its (padded) dim */
            need = t->dims[0];
        st = values_of(r, s->in[k], need, &in[k], r->err);
    }
    if (st == DV_OK) {
        if (bias_add)
            st = exec_bias_add(r, s, in);
        else if (strcmp(s->op, "matmul") == 0)
            st = exec_matmul(r, s, in);
        else if (strncmp(s->op, "conv2d", 6) == 0)
            st = exec_conv(r, s, in, strcmp(s->op, "conv2d_bias_relu") == 0);
        else if (strcmp(s->op, "attention") == 0)
            st = exec_attention(r, s, in);
        else if (strcmp(s->op, "permute") == 0)
            st = plan_exec_permute(r, s, in);
        else
            st = exec_vector(r, s, in);
    }
    for (unsigned k = 0; k < s->nin; k++)
        free(in[k]);
    return st;
}

dv_status dv_plan_exec_run(const dv_plan *p, const dv_gtensor *inputs, unsigned ninputs, dv_graph **values,
                           dv_error *err)
{
    return pref_run(p, inputs, ninputs, values, err, exec_step);
}
