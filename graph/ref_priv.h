/* ref_priv.h - what the per-op files of the reference share (ref_run.c). */
#ifndef DV_REF_PRIV_H
#define DV_REF_PRIV_H

#include "dv_graph_ref.h"

#include <stdbool.h>

/* An op: its outputs' shapes, and with compute their values. */
typedef dv_status (*ref_op_fn)(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);

/* Input i of n, or NULL when left out (or beyond nin). */
dv_gtensor *ref_in(dv_graph *g, const dv_gnode *n, unsigned i);
/* Output i of n, or NULL when not wanted. */
dv_gtensor *ref_out(dv_graph *g, const dv_gnode *n, unsigned i);
/* True if t is present with a known shape. */
bool ref_known(const dv_gtensor *t);
/* Sets output i's dtype and shape; with compute, allocates its values
 * (zeroed).  DV_ERR_INPUT if the shape holds more than DV_G_MAX_ELEMS. */
dv_status ref_set_out(dv_graph *g, const dv_gnode *n, unsigned i, int dtype, int rank, const int64_t *dims,
                      bool compute, dv_error *err);
/* DV_ERR_INPUT with one line: "FILE: node 'NAME' (op type 'OP'): message". */
dv_status ref_error(dv_error *err, const dv_graph *g, const dv_gnode *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* An axis in [-rank, rank) as [0, rank); -1 if out of range. */
int ref_axis(int64_t axis, int rank);
/* numpy broadcasting of a's and b's shapes into out; false if they do not broadcast. */
bool ref_broadcast(const dv_gtensor *a, const dv_gtensor *b, int *rank, int64_t *dims);
/* The element of t that the broadcast index idx (of rank, dims) reads. */
size_t ref_bcast_index(const dv_gtensor *t, int rank, const int64_t *dims, const int64_t *idx);
/* Advances a multi-index over dims (row-major); false after the last. */
bool ref_next(int64_t *idx, int rank, const int64_t *dims);
/* The values of a constant input as ints (at most max; saturated); false when t is absent, has no value or
 * holds more than max. */
bool ref_input_ints(const dv_gtensor *t, int64_t *out, size_t max, size_t *count);
/* Ints of an attribute (n set; NULL if absent or not INTS). */
const int64_t *ref_attr_ints(const dv_gnode *n, const char *name, size_t *count);

/* The ops (ref_math.c, ref_nn.c, ref_shape_ops.c, ref_select.c, ref_reduce.c). */
dv_status ref_matmul(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_gemm(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_binary(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_unary(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_softmax(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_layernorm(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_conv(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_pool(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_gap(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_batchnorm(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_transpose(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_reshape(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_flatten(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_concat(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_constant(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_identity(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_shape(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_gather(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_slice(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_squeeze(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_cast(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_expand(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
/* ref_select.c, ref_reduce.c */
dv_status ref_where(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_constant_of_shape(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_dropout(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);
dv_status ref_reduce_mean(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err);

#endif
