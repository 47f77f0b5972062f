/* ref_math.c - the reference of the arithmetic ops: MatMul, Gemm, the
 * broadcasting binaries (Add, Sub, Mul, Div, Pow, Equal), the elementwise
 * unaries (Relu, Gelu, Sigmoid, Erf, Neg, Sqrt), Softmax, LayerNormalization.
 * Everything in double (the tolerance the checks allow is fp16's). */
#include "ref_priv.h"

#include <math.h>
#include <string.h>

/* numpy matmul: A [..., M, K] x B [..., K, N] with the batch dims
 * broadcast; a 1-D A is [1, K] and a 1-D B [K, 1], their unit dim dropped. */
dv_status ref_matmul(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *a = ref_in(g, n, 0), *b = ref_in(g, n, 1);
    if (!ref_known(a) || !ref_known(b))
        return DV_OK;
    if (a->rank < 1 || b->rank < 1)
        return ref_error(err, g, n, "MatMul of a scalar");
    dv_gtensor A = *a, B = *b;
    if (A.rank == 1) {
        A.rank = 2;
        A.dims[1] = a->dims[0];
        A.dims[0] = 1;
    }
    if (B.rank == 1) {
        B.rank = 2;
        B.dims[0] = b->dims[0];
        B.dims[1] = 1;
    }
    int64_t M = A.dims[A.rank - 2], K = A.dims[A.rank - 1], N = B.dims[B.rank - 1];
    if (B.dims[B.rank - 2] != K)
        return ref_error(err, g, n, "inner dimensions %lld and %lld differ", (long long)K,
                         (long long)B.dims[B.rank - 2]);
    dv_gtensor ba = A, bb = B; /* the batch parts */
    ba.rank -= 2;
    bb.rank -= 2;
    int br;
    int64_t bd[DV_G_MAX_RANK + 2];
    if (!ref_broadcast(&ba, &bb, &br, bd))
        return ref_error(err, g, n, "batch dimensions do not broadcast");
    int64_t od[DV_G_MAX_RANK + 2];
    int orank = 0;
    memcpy(od, bd, (size_t)br * sizeof *od);
    orank = br;
    if (a->rank > 1)
        od[orank++] = M;
    if (b->rank > 1)
        od[orank++] = N;
    dv_status st = ref_set_out(g, n, 0, a->dtype, orank, od, compute, err);
    if (st != DV_OK || !compute)
        return st;
    double *c = ref_out(g, n, 0)->data;
    int64_t idx[DV_G_MAX_RANK] = {0}, batches = 1;
    for (int i = 0; i < br; i++)
        batches *= bd[i];
    for (int64_t bi = 0; bi < batches; bi++) {
        size_t oa = ref_bcast_index(&ba, br, bd, idx) * (size_t)(M * K);
        size_t ob = ref_bcast_index(&bb, br, bd, idx) * (size_t)(K * N);
        double *cb = c + bi * M * N;
        for (int64_t i = 0; i < M; i++)
            for (int64_t k = 0; k < K; k++) {
                double x = a->data[oa + (size_t)(i * K + k)];
                const double *brow = b->data + ob + (size_t)(k * N);
                for (int64_t j = 0; j < N; j++)
                    cb[i * N + j] += x * brow[j];
            }
        ref_next(idx, br, bd);
    }
    return DV_OK;
}

/* Y = alpha op(A) op(B) + beta C, C broadcast to [M, N]. */
dv_status ref_gemm(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *a = ref_in(g, n, 0), *b = ref_in(g, n, 1), *c = ref_in(g, n, 2);
    if (!ref_known(a) || !ref_known(b) || (c && !ref_known(c)))
        return DV_OK;
    if (a->rank != 2 || b->rank != 2)
        return ref_error(err, g, n, "Gemm needs 2-D A and B (ranks %d and %d)", a->rank, b->rank);
    bool ta = dv_gnode_attr_int(n, "transA", 0), tb = dv_gnode_attr_int(n, "transB", 0);
    double alpha = dv_gnode_attr_float(n, "alpha", 1.0), beta = dv_gnode_attr_float(n, "beta", 1.0);
    int64_t M = a->dims[ta ? 1 : 0], K = a->dims[ta ? 0 : 1], N = b->dims[tb ? 0 : 1];
    if (b->dims[tb ? 1 : 0] != K)
        return ref_error(err, g, n, "inner dimensions %lld and %lld differ", (long long)K,
                         (long long)b->dims[tb ? 1 : 0]);
    int64_t od[2] = {M, N};
    if (c) {
        dv_gtensor y = {.rank = 2, .dims = {M, N}};
        int r;
        int64_t d[DV_G_MAX_RANK];
        if (c->rank > 2 || !ref_broadcast(&y, c, &r, d) || d[0] != M || d[1] != N)
            return ref_error(err, g, n, "C does not broadcast to [%lld,%lld]", (long long)M, (long long)N);
    }
    dv_status st = ref_set_out(g, n, 0, a->dtype, 2, od, compute, err);
    if (st != DV_OK || !compute)
        return st;
    double *y = ref_out(g, n, 0)->data;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double s = 0;
            for (int64_t k = 0; k < K; k++)
                s += a->data[ta ? k * M + i : i * K + k] * b->data[tb ? j * K + k : k * N + j];
            double cv = 0;
            if (c) {
                int64_t idx[2] = {i, j};
                cv = c->data[ref_bcast_index(c, 2, od, idx)];
            }
            y[i * N + j] = alpha * s + beta * cv;
        }
    return DV_OK;
}

dv_status ref_binary(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *a = ref_in(g, n, 0), *b = ref_in(g, n, 1);
    if (!ref_known(a) || !ref_known(b))
        return DV_OK;
    int r;
    int64_t d[DV_G_MAX_RANK];
    if (!ref_broadcast(a, b, &r, d))
        return ref_error(err, g, n, "shapes of '%s' and '%s' do not broadcast", a->name, b->name);
    /* Equal answers bool; Pow has its base's type (opset 15: the exponent's may differ) */
    dv_status st = ref_set_out(g, n, 0, n->op == DV_GOP_EQUAL ? DV_GDT_BOOL : a->dtype, r, d, compute, err);
    if (st != DV_OK || !compute)
        return st;
    dv_gtensor *y = ref_out(g, n, 0);
    bool integer = a->dtype == DV_GDT_INT64 || a->dtype == DV_GDT_INT32 || a->dtype == DV_GDT_INT8 ||
                   a->dtype == DV_GDT_UINT8;
    int64_t idx[DV_G_MAX_RANK] = {0}, count = dv_gtensor_count(y);
    for (int64_t e = 0; e < count; e++) {
        double x = a->data[ref_bcast_index(a, r, d, idx)], z = b->data[ref_bcast_index(b, r, d, idx)], v;
        switch (n->op) {
        case DV_GOP_ADD: v = x + z; break;
        case DV_GOP_SUB: v = x - z; break;
        case DV_GOP_MUL: v = x * z; break;
        case DV_GOP_EQUAL: v = x == z; break;
        case DV_GOP_POW: /* an integer base gives an integer power (numpy's, ONNX's test_pow_types_int*) */
            v = integer ? (isfinite(pow(x, z)) ? trunc(pow(x, z)) : 0) : pow(x, z);
            break;
        default: v = integer ? (z != 0 ? trunc(x / z) : 0) : x / z; break; /* integer Div truncates */
        }
        y->data[e] = v;
        ref_next(idx, r, d);
    }
    return DV_OK;
}

dv_status ref_unary(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    if (!ref_known(x))
        return DV_OK;
    dv_status st = ref_set_out(g, n, 0, x->dtype, x->rank, x->dims, compute, err);
    if (st != DV_OK || !compute)
        return st;
    double *y = ref_out(g, n, 0)->data;
    int64_t count = dv_gtensor_count(x);
    const dv_gattr *approx = dv_gnode_attr(n, "approximate");
    bool tanh_gelu = approx && approx->s && strcmp(approx->s, "tanh") == 0;
    for (int64_t e = 0; e < count; e++) {
        double v = x->data[e];
        switch (n->op) {
        case DV_GOP_RELU: y[e] = v > 0 ? v : 0; break;
        case DV_GOP_SIGMOID: y[e] = 1 / (1 + exp(-v)); break;
        case DV_GOP_ERF: y[e] = erf(v); break;
        case DV_GOP_NEG: y[e] = -v; break;
        case DV_GOP_SQRT: y[e] = sqrt(v); break;     /* NaN below 0, as numpy */
        case DV_GOP_RECIPROCAL: y[e] = 1 / v; break; /* inf at 0, as numpy */
        default:                                     /* Gelu: erf, or the tanh approximation when asked */
            y[e] = tanh_gelu
                       ? 0.5 * v * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (v + 0.044715 * v * v * v)))
                       : 0.5 * v * (1 + erf(v / sqrt(2.0)));
        }
    }
    return DV_OK;
}

/* Softmax along one axis (opset >= 13; the default axis is -1). */
dv_status ref_softmax(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    if (!ref_known(x))
        return DV_OK;
    int axis = ref_axis(dv_gnode_attr_int(n, "axis", g->opset && g->opset < 13 ? 1 : -1), x->rank);
    if (axis < 0)
        return ref_error(err, g, n, "axis out of range for rank %d", x->rank);
    dv_status st = ref_set_out(g, n, 0, x->dtype, x->rank, x->dims, compute, err);
    if (st != DV_OK || !compute)
        return st;
    double *y = ref_out(g, n, 0)->data;
    bool old = g->opset && g->opset < 13; /* before 13: the dims from axis on are one flattened row */
    int64_t outer = 1, len = 1, inner = 1;
    for (int i = 0; i < x->rank; i++) {
        if (i < axis)
            outer *= x->dims[i];
        else if (i == axis || old)
            len *= x->dims[i];
        else
            inner *= x->dims[i];
    }
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            const double *xp = x->data + o * len * inner + in;
            double *yp = y + o * len * inner + in, mx = -INFINITY, sum = 0;
            for (int64_t k = 0; k < len; k++)
                mx = xp[k * inner] > mx ? xp[k * inner] : mx;
            for (int64_t k = 0; k < len; k++)
                sum += yp[k * inner] = exp(xp[k * inner] - mx);
            for (int64_t k = 0; k < len; k++)
                yp[k * inner] /= sum;
        }
    return DV_OK;
}

/* LayerNormalization over the dims from axis on; outputs Y, Mean, InvStdDev
 * (the last two with the normalised dims as 1). */
dv_status ref_layernorm(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0), *scale = ref_in(g, n, 1), *bias = ref_in(g, n, 2);
    if (!ref_known(x) || !ref_known(scale) || (bias && !ref_known(bias)))
        return DV_OK;
    int axis = ref_axis(dv_gnode_attr_int(n, "axis", -1), x->rank);
    if (axis < 0)
        return ref_error(err, g, n, "axis out of range for rank %d", x->rank);
    double eps = dv_gnode_attr_float(n, "epsilon", 1e-5);
    int64_t outer = 1, len = 1;
    for (int i = 0; i < x->rank; i++)
        *(i < axis ? &outer : &len) *= x->dims[i];
    dv_gtensor row = {.rank = x->rank - axis};
    memcpy(row.dims, x->dims + axis, (size_t)row.rank * sizeof *row.dims);
    int r;
    int64_t d[DV_G_MAX_RANK];
    if (!ref_broadcast(&row, scale, &r, d) || r != row.rank ||
        (bias && (!ref_broadcast(&row, bias, &r, d) || r != row.rank)))
        return ref_error(err, g, n, "scale or bias does not broadcast to the normalised dims");
    int64_t sd[DV_G_MAX_RANK];
    memcpy(sd, x->dims, sizeof sd);
    for (int i = axis; i < x->rank; i++)
        sd[i] = 1;
    dv_status st = ref_set_out(g, n, 0, x->dtype, x->rank, x->dims, compute, err);
    for (unsigned k = 1; k < 3 && st == DV_OK; k++)
        st = ref_set_out(g, n, k, DV_GDT_FLOAT, x->rank, sd, compute, err);
    if (st != DV_OK || !compute)
        return st;
    dv_gtensor *y = ref_out(g, n, 0), *mean_t = ref_out(g, n, 1), *inv_t = ref_out(g, n, 2);
    int64_t idx[DV_G_MAX_RANK] = {0};
    for (int64_t o = 0; o < outer; o++) {
        const double *xp = x->data + o * len;
        double mean = 0, var = 0;
        for (int64_t k = 0; k < len; k++)
            mean += xp[k];
        mean /= (double)len;
        for (int64_t k = 0; k < len; k++)
            var += (xp[k] - mean) * (xp[k] - mean);
        var /= (double)len;
        double inv = 1 / sqrt(var + eps);
        memset(idx, 0, sizeof idx);
        for (int64_t k = 0; k < len; k++) {
            double s = scale->data[ref_bcast_index(scale, row.rank, row.dims, idx)];
            double b = bias ? bias->data[ref_bcast_index(bias, row.rank, row.dims, idx)] : 0;
            y->data[o * len + k] = (xp[k] - mean) * inv * s + b;
            ref_next(idx, row.rank, row.dims);
        }
        if (mean_t)
            mean_t->data[o] = mean;
        if (inv_t)
            inv_t->data[o] = inv;
    }
    return DV_OK;
}
