/* ref_run.c - the reference interpreter's driver: the op dispatch, shape
 * inference over a graph, a whole run, and the helpers the ops share. */
#include "ref_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ref_op_fn ops[DV_GOP_COUNT] = {
    [DV_GOP_MATMUL] = ref_matmul,       [DV_GOP_GEMM] = ref_gemm,
    [DV_GOP_CONV] = ref_conv,           [DV_GOP_ADD] = ref_binary,
    [DV_GOP_SUB] = ref_binary,          [DV_GOP_MUL] = ref_binary,
    [DV_GOP_DIV] = ref_binary,          [DV_GOP_RELU] = ref_unary,
    [DV_GOP_GELU] = ref_unary,          [DV_GOP_SIGMOID] = ref_unary,
    [DV_GOP_SOFTMAX] = ref_softmax,     [DV_GOP_LAYERNORM] = ref_layernorm,
    [DV_GOP_TRANSPOSE] = ref_transpose, [DV_GOP_RESHAPE] = ref_reshape,
    [DV_GOP_FLATTEN] = ref_flatten,     [DV_GOP_MAXPOOL] = ref_pool,
    [DV_GOP_AVGPOOL] = ref_pool,        [DV_GOP_GAP] = ref_gap,
    [DV_GOP_BATCHNORM] = ref_batchnorm, [DV_GOP_CONCAT] = ref_concat,
    [DV_GOP_CONSTANT] = ref_constant,   [DV_GOP_IDENTITY] = ref_identity,
    [DV_GOP_SHAPE] = ref_shape,         [DV_GOP_GATHER] = ref_gather,
    [DV_GOP_SLICE] = ref_slice,         [DV_GOP_SQUEEZE] = ref_squeeze,
    [DV_GOP_UNSQUEEZE] = ref_squeeze,   [DV_GOP_CAST] = ref_cast,
    [DV_GOP_EXPAND] = ref_expand,       [DV_GOP_ERF] = ref_unary,
    [DV_GOP_NEG] = ref_unary,           [DV_GOP_SQRT] = ref_unary,
    [DV_GOP_RECIPROCAL] = ref_unary,
    [DV_GOP_POW] = ref_binary,          [DV_GOP_EQUAL] = ref_binary,
    [DV_GOP_WHERE] = ref_where,         [DV_GOP_REDUCEMEAN] = ref_reduce_mean,
    [DV_GOP_DROPOUT] = ref_dropout,     [DV_GOP_CONSTANTOFSHAPE] = ref_constant_of_shape,
};

dv_gtensor *ref_in(dv_graph *g, const dv_gnode *n, unsigned i)
{
    return i < n->nin && n->in[i] >= 0 ? &g->t[n->in[i]] : NULL;
}

dv_gtensor *ref_out(dv_graph *g, const dv_gnode *n, unsigned i)
{
    return i < n->nout && n->out[i] >= 0 ? &g->t[n->out[i]] : NULL;
}

bool ref_known(const dv_gtensor *t)
{
    return t && dv_gtensor_count(t) >= 0;
}

dv_status ref_error(dv_error *err, const dv_graph *g, const dv_gnode *n, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return dv_error_set(err, DV_ERR_INPUT, "%s: node '%s' (op type '%s'): %s", g->file, n->name,
                        dv_gop_name(n->op), msg);
}

dv_status ref_set_out(dv_graph *g, const dv_gnode *n, unsigned i, int dtype, int rank, const int64_t *dims,
                      bool compute, dv_error *err)
{
    dv_gtensor *t = ref_out(g, n, i);
    if (!t)
        return DV_OK;
    if (rank < 0 || rank > DV_G_MAX_RANK)
        return ref_error(err, g, n, "output rank %d out of range", rank);
    t->dtype = dtype;
    t->rank = rank;
    for (int d = 0; d < rank; d++)
        t->dims[d] = dims[d];
    int64_t count = dv_gtensor_count(t);
    bool unknown = false;
    for (int d = 0; d < rank; d++)
        unknown |= dims[d] < 0;
    if (count < 0 && !unknown)
        return ref_error(err, g, n, "output '%s' would hold more than %d elements", t->name, DV_G_MAX_ELEMS);
    if (compute) {
        free(t->data);
        t->data = calloc((size_t)(count > 0 ? count : 1), sizeof *t->data);
        if (!t->data)
            return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory for '%s'", g->file, t->name);
    }
    return DV_OK;
}

int ref_axis(int64_t axis, int rank)
{
    if (axis < -rank || axis >= rank)
        return -1;
    return (int)(axis < 0 ? axis + rank : axis);
}

bool ref_broadcast(const dv_gtensor *a, const dv_gtensor *b, int *rank, int64_t *dims)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return false;
        dims[i] = da == 1 ? db : da;
    }
    *rank = r;
    return true;
}

size_t ref_bcast_index(const dv_gtensor *t, int rank, const int64_t *dims, const int64_t *idx)
{
    (void)dims;
    size_t off = 0;
    for (int i = 0; i < t->rank; i++) {
        int j = i + rank - t->rank;
        off = off * (size_t)t->dims[i] + (size_t)(t->dims[i] == 1 ? 0 : idx[j]);
    }
    return off;
}

bool ref_next(int64_t *idx, int rank, const int64_t *dims)
{
    for (int i = rank - 1; i >= 0; i--) {
        if (++idx[i] < dims[i])
            return true;
        idx[i] = 0;
    }
    return false;
}

bool ref_input_ints(const dv_gtensor *t, int64_t *out, size_t max, size_t *count)
{
    int64_t c = t ? dv_gtensor_count(t) : -1;
    if (!t || !t->data || c < 0 || (size_t)c > max)
        return false;
    for (int64_t i = 0; i < c; i++) {
        double v = t->data[i];
        out[i] = v > 9.2e18 ? INT64_MAX : v < -9.2e18 ? INT64_MIN : (int64_t)v;
    }
    *count = (size_t)c;
    return true;
}

const int64_t *ref_attr_ints(const dv_gnode *n, const char *name, size_t *count)
{
    const dv_gattr *a = dv_gnode_attr(n, name);
    if (!a || a->type != DV_GATTR_INTS) {
        *count = 0;
        return NULL;
    }
    *count = a->n;
    return a->ints;
}

dv_status dv_ref_node(dv_graph *g, unsigned i, bool compute, dv_error *err)
{
    const dv_gnode *n = &g->n[i];
    if (compute)
        for (unsigned k = 0; k < n->nin; k++) {
            const dv_gtensor *t = ref_in(g, n, k);
            if (t && (!t->data || !ref_known(t)))
                return ref_error(err, g, n, "input '%s' has no value", t->name);
        }
    dv_status st = ops[n->op](g, n, compute, err);
    if (st != DV_OK)
        dv_graph_error_clean(err);
    return st;
}

dv_status dv_graph_infer_shapes(dv_graph *g, dv_error *err)
{
    for (unsigned i = 0; i < g->nnodes; i++) {
        dv_status st = dv_ref_node(g, i, false, err);
        if (st != DV_OK)
            return st;
    }
    return DV_OK;
}

dv_status dv_ref_run(const dv_graph *g, const dv_gtensor *inputs, unsigned ninputs, dv_graph **values,
                     dv_error *err)
{
    *values = NULL;
    if (ninputs != g->ninputs)
        return dv_error_set(err, DV_ERR_INPUT, "%s: the graph has %u inputs, %u given", g->file, g->ninputs,
                            ninputs);
    dv_graph *v = dv_graph_clone(g);
    if (!v)
        return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", g->file);
    for (unsigned k = 0; k < ninputs; k++) {
        dv_gtensor *t = &v->t[v->inputs[k]];
        int64_t count = dv_gtensor_count(&inputs[k]);
        if (count < 0 || !inputs[k].data) {
            dv_graph_destroy(v);
            return dv_error_set(err, DV_ERR_INPUT, "%s: input '%s' has no value", g->file, t->name);
        }
        t->rank = inputs[k].rank;
        memcpy(t->dims, inputs[k].dims, sizeof t->dims);
        t->dtype = inputs[k].dtype ? inputs[k].dtype : t->dtype;
        free(t->data);
        t->data = malloc((size_t)(count ? count : 1) * sizeof *t->data);
        if (!t->data) {
            dv_graph_destroy(v);
            return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", g->file);
        }
        memcpy(t->data, inputs[k].data, (size_t)count * sizeof *t->data);
    }
    for (unsigned i = 0; i < v->nnodes; i++) {
        dv_status st = dv_ref_node(v, i, true, err);
        if (st != DV_OK) {
            dv_graph_destroy(v);
            return st;
        }
    }
    *values = v;
    return DV_OK;
}
