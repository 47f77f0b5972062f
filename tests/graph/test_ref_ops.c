/* test_ref_ops.c - the reference of the ops PyTorch's exporter writes
 * (issue 18d): Erf, Neg, Sqrt, Pow, Equal, Where, ReduceMean, Dropout,
 * ConstantOfShape, each on one node built here, against values worked out by
 * hand (erf's from its table: erf(0.5) = 0.5204998778, erf(1) =
 * 0.8427007929, erf(3) = 0.9999779095), with broadcasting, rank-0 operands,
 * empty shapes and the errors of bad attributes. */
#include "dv_graph.h"
#include "dv_graph_ref.h"

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tensor of the given shape; with vals, a constant holding them. */
static int tensor(dv_graph *g, const char *name, int dtype, int rank, const int64_t *dims, const double *vals)
{
    int k = dv_graph_add_tensor(g, name);
    ck_assert_int_ge(k, 0);
    dv_gtensor *t = &g->t[k];
    t->dtype = dtype;
    t->rank = rank;
    for (int i = 0; i < rank; i++)
        t->dims[i] = dims[i];
    if (vals) {
        int64_t n = dv_gtensor_count(t);
        t->data = malloc((size_t)(n ? n : 1) * sizeof *t->data);
        ck_assert_ptr_nonnull(t->data);
        memcpy(t->data, vals, (size_t)n * sizeof *vals);
    }
    return k;
}

/* One node of op over inputs (-1: left out) with nout fresh outputs and room for nattr attributes. */
static dv_gnode *node(dv_graph *g, dv_gop op, const int *in, unsigned nin, unsigned nout, unsigned nattr)
{
    dv_gnode *n = dv_graph_add_node(g, "n", op, nin, nout, nattr);
    ck_assert_ptr_nonnull(n);
    memcpy(n->in, in, nin * sizeof *in);
    for (unsigned k = 0; k < nout; k++) {
        char name[16];
        snprintf(name, sizeof name, "out%u", k);
        int t = dv_graph_add_tensor(g, name);
        ck_assert_int_ge(t, 0);
        g->n[g->nnodes - 1].out[k] = t;
    }
    return &g->n[g->nnodes - 1];
}

static void attr_int(dv_gnode *n, unsigned a, const char *name, int64_t v)
{
    n->attr[a].name = strdup(name);
    n->attr[a].type = DV_GATTR_INT;
    n->attr[a].i = v;
}

static void attr_ints(dv_gnode *n, unsigned a, const char *name, size_t count, ...)
{
    n->attr[a].name = strdup(name);
    n->attr[a].type = DV_GATTR_INTS;
    n->attr[a].n = count;
    n->attr[a].ints = malloc((count ? count : 1) * sizeof(int64_t));
    va_list ap;
    va_start(ap, count);
    for (size_t i = 0; i < count; i++)
        n->attr[a].ints[i] = va_arg(ap, int);
    va_end(ap);
}

/* Runs the graph's last node with compute; its status. */
static dv_status run_last(dv_graph *g)
{
    dv_error err = {0};
    dv_status st = dv_ref_node(g, g->nnodes - 1, true, &err);
    if (st != DV_OK)
        ck_assert_msg(strchr(err.msg, '\n') == NULL && err.msg[0], "one line: %s", err.msg);
    return st;
}

/* Output k of the last node: its dtype, shape and values. */
static void expect(const dv_graph *g, unsigned k, int dtype, int rank, const int64_t *dims,
                   const double *want, double tol)
{
    const dv_gtensor *t = &g->t[g->n[g->nnodes - 1].out[k]];
    ck_assert_int_eq(t->dtype, dtype);
    ck_assert_int_eq(t->rank, rank);
    for (int i = 0; i < rank; i++)
        ck_assert_int_eq(t->dims[i], dims[i]);
    int64_t n = dv_gtensor_count(t);
    ck_assert_ptr_nonnull(t->data);
    for (int64_t e = 0; e < n; e++) {
        if (isnan(want[e]))
            ck_assert_msg(isnan(t->data[e]), "element %lld: %g, want NaN", (long long)e, t->data[e]);
        else
            ck_assert_msg(t->data[e] == want[e] || fabs(t->data[e] - want[e]) <= tol,
                          /* == for infinities */ "element %lld: %.10g, want %.10g", (long long)e, t->data[e],
                          want[e]);
    }
}

START_TEST(unary_erf_neg_sqrt)
{
    dv_graph *g = dv_graph_new("t.onnx");
    int64_t d4[1] = {4}, d22[2] = {2, 2}, d2[1] = {2};
    int x = tensor(g, "x", DV_GDT_FLOAT, 1, d4, (double[]){0, 0.5, -1, 3});
    node(g, DV_GOP_ERF, &x, 1, 1, 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 1, d4, (double[]){0, 0.5204998778, -0.8427007929, 0.9999779095}, 1e-9);
    int s = tensor(g, "s", DV_GDT_FLOAT, 2, d22, (double[]){4, 0.25, 0, -1});
    node(g, DV_GOP_SQRT, &s, 1, 1, 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 2, d22, (double[]){2, 0.5, 0, NAN}, 0); /* below 0: NaN, as numpy */
    int i = tensor(g, "i", DV_GDT_INT64, 1, d2, (double[]){3, -2});
    node(g, DV_GOP_NEG, &i, 1, 1, 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_INT64, 1, d2, (double[]){-3, 2}, 0); /* the dtype stays int64 */
    dv_graph_destroy(g);
}
END_TEST

START_TEST(pow_broadcast_and_types)
{
    dv_graph *g = dv_graph_new("t.onnx");
    int64_t d23[2] = {2, 3}, d3[1] = {3};
    /* [2,3] ^ [3]: the exponent row broadcast over both rows */
    int in[2] = {tensor(g, "a", DV_GDT_FLOAT, 2, d23, (double[]){1, 2, 3, 4, 5, 6}),
                 tensor(g, "b", DV_GDT_FLOAT, 1, d3, (double[]){2, 0, 0.5})};
    node(g, DV_GOP_POW, in, 2, 1, 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 2, d23, (double[]){1, 1, 1.7320508076, 16, 1, 2.4494897428}, 1e-9);
    /* an int64 base and a rank-0 float exponent: int64 out (ONNX's test_pow_types_int64_float32) */
    int in2[2] = {tensor(g, "c", DV_GDT_INT64, 1, d3, (double[]){2, 3, -4}),
                  tensor(g, "e", DV_GDT_FLOAT, 0, NULL, (double[]){3})};
    node(g, DV_GOP_POW, in2, 2, 1, 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_INT64, 1, d3, (double[]){8, 27, -64}, 0);
    /* shapes that do not broadcast: one line, DV_ERR_INPUT */
    int64_t d2[1] = {2};
    int in3[2] = {in[0], tensor(g, "f", DV_GDT_FLOAT, 1, d2, (double[]){1, 2})};
    node(g, DV_GOP_POW, in3, 2, 1, 0);
    ck_assert_int_eq(run_last(g), DV_ERR_INPUT);
    dv_graph_destroy(g);
}
END_TEST

START_TEST(equal_broadcast_bool)
{
    dv_graph *g = dv_graph_new("t.onnx");
    int64_t d21[2] = {2, 1}, d3[1] = {3}, d23[2] = {2, 3};
    int in[2] = {tensor(g, "a", DV_GDT_INT64, 2, d21, (double[]){1, 2}),
                 tensor(g, "b", DV_GDT_INT64, 1, d3, (double[]){1, 2, 3})};
    node(g, DV_GOP_EQUAL, in, 2, 1, 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    /* [2,1] against [3]: a column against a row, the answer bool */
    expect(g, 0, DV_GDT_BOOL, 2, d23, (double[]){1, 0, 0, 0, 1, 0}, 0);
    dv_graph_destroy(g);
}
END_TEST

START_TEST(where_three_way_broadcast)
{
    dv_graph *g = dv_graph_new("t.onnx");
    int64_t d213[3] = {2, 1, 3}, d23[2] = {2, 3}, d223[3] = {2, 2, 3};
    /* cond [2,1,3], X rank 0, Y [2,3]: out [2,2,3] */
    int in[3] = {tensor(g, "c", DV_GDT_BOOL, 3, d213, (double[]){1, 0, 1, 0, 0, 1}),
                 tensor(g, "x", DV_GDT_FLOAT, 0, NULL, (double[]){9}),
                 tensor(g, "y", DV_GDT_FLOAT, 2, d23, (double[]){1, 2, 3, 4, 5, 6})};
    node(g, DV_GOP_WHERE, in, 3, 1, 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 3, d223, (double[]){9, 2, 9, 9, 5, 9, 1, 2, 9, 4, 5, 9}, 0);
    /* -inf passes through (a masked score) */
    int in2[3] = {in[0], tensor(g, "ninf", DV_GDT_FLOAT, 0, NULL, (double[]){-INFINITY}), in[2]};
    node(g, DV_GOP_WHERE, in2, 3, 1, 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 3, d223,
           (double[]){-INFINITY, 2, -INFINITY, -INFINITY, 5, -INFINITY, 1, 2, -INFINITY, 4, 5, -INFINITY}, 0);
    int64_t d2[1] = {2}, d3[1] = {3};
    int in3[3] = {tensor(g, "c2", DV_GDT_BOOL, 1, d2, (double[]){1, 0}),
                  tensor(g, "x3", DV_GDT_FLOAT, 1, d3, (double[]){1, 2, 3}), in[1]};
    node(g, DV_GOP_WHERE, in3, 3, 1, 0);
    ck_assert_int_eq(run_last(g), DV_ERR_INPUT); /* [2] and [3] do not broadcast */
    dv_graph_destroy(g);
}
END_TEST

START_TEST(reduce_mean_axes_keepdims)
{
    dv_graph *g = dv_graph_new("t.onnx");
    int64_t d[3] = {2, 3, 2};
    double v[12];
    for (int i = 0; i < 12; i++)
        v[i] = i;
    int x = tensor(g, "x", DV_GDT_FLOAT, 3, d, v);
    /* axes [1], keepdims: [2,1,2]; x[b][j][k] = 6b + 2j + k, the mean over j is 6b + 2 + k */
    dv_gnode *n = node(g, DV_GOP_REDUCEMEAN, &x, 1, 1, 1);
    attr_ints(n, 0, "axes", 1, 1);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 3, (int64_t[]){2, 1, 2}, (double[]){2, 3, 8, 9}, 1e-12);
    /* axes [-1, 0], keepdims 0: [3], the mean over b and k is 3 + 2j + 0.5 */
    n = node(g, DV_GOP_REDUCEMEAN, &x, 1, 1, 2);
    attr_ints(n, 0, "axes", 2, -1, 0);
    attr_int(n, 1, "keepdims", 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 1, (int64_t[]){3}, (double[]){3.5, 5.5, 7.5}, 1e-12);
    /* no axes: every dim, kept as 1s */
    node(g, DV_GOP_REDUCEMEAN, &x, 1, 1, 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 3, (int64_t[]){1, 1, 1}, (double[]){5.5}, 1e-12);
    /* opset 18: axes as an input; empty with noop_with_empty_axes: the identity */
    int in[2] = {x, tensor(g, "ax", DV_GDT_INT64, 1, (int64_t[]){1}, (double[]){2})};
    node(g, DV_GOP_REDUCEMEAN, in, 2, 1, 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 3, (int64_t[]){2, 3, 1}, (double[]){0.5, 2.5, 4.5, 6.5, 8.5, 10.5}, 1e-12);
    int in0[2] = {x, tensor(g, "ax0", DV_GDT_INT64, 1, (int64_t[]){0}, (double[]){0})};
    n = node(g, DV_GOP_REDUCEMEAN, in0, 2, 1, 1);
    attr_int(n, 0, "noop_with_empty_axes", 1);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 3, d, v, 0);
    /* a repeated axis, an axis out of range */
    n = node(g, DV_GOP_REDUCEMEAN, &x, 1, 1, 1);
    attr_ints(n, 0, "axes", 2, 1, -2);
    ck_assert_int_eq(run_last(g), DV_ERR_INPUT);
    n = node(g, DV_GOP_REDUCEMEAN, &x, 1, 1, 1);
    attr_ints(n, 0, "axes", 1, 3);
    ck_assert_int_eq(run_last(g), DV_ERR_INPUT);
    dv_graph_destroy(g);
}
END_TEST

START_TEST(constant_of_shape)
{
    dv_graph *g = dv_graph_new("t.onnx");
    int sh = tensor(g, "shape", DV_GDT_INT64, 1, (int64_t[]){2}, (double[]){2, 3});
    int val = tensor(g, "v", DV_GDT_INT64, 1, (int64_t[]){1}, (double[]){7});
    dv_gnode *n = node(g, DV_GOP_CONSTANTOFSHAPE, &sh, 1, 1, 1);
    n->attr[0].name = strdup("value");
    n->attr[0].type = DV_GATTR_TENSOR;
    n->attr[0].tensor = val;
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_INT64, 2, (int64_t[]){2, 3}, (double[]){7, 7, 7, 7, 7, 7}, 0);
    /* no value: float 0; a zero dim: an empty tensor */
    int sh0 = tensor(g, "shape0", DV_GDT_INT64, 1, (int64_t[]){2}, (double[]){4, 0});
    node(g, DV_GOP_CONSTANTOFSHAPE, &sh0, 1, 1, 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 2, (int64_t[]){4, 0}, NULL, 0);
    /* its value follows from its input alone, so shape inference computes it too */
    int sh1 = tensor(g, "shape1", DV_GDT_INT64, 1, (int64_t[]){1}, (double[]){3});
    node(g, DV_GOP_CONSTANTOFSHAPE, &sh1, 1, 1, 0);
    dv_error err = {0};
    ck_assert_int_eq(dv_ref_node(g, g->nnodes - 1, false, &err), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 1, (int64_t[]){3}, (double[]){0, 0, 0}, 0);
    int neg = tensor(g, "neg", DV_GDT_INT64, 1, (int64_t[]){1}, (double[]){-1});
    node(g, DV_GOP_CONSTANTOFSHAPE, &neg, 1, 1, 0);
    ck_assert_int_eq(run_last(g), DV_ERR_INPUT);
    dv_graph_destroy(g);
}
END_TEST

START_TEST(dropout_inference)
{
    dv_graph *g = dv_graph_new("t.onnx");
    int64_t d[2] = {1, 3};
    int x = tensor(g, "x", DV_GDT_FLOAT, 2, d, (double[]){1, -2, 3});
    node(g, DV_GOP_DROPOUT, &x, 1, 2, 0);
    ck_assert_int_eq(run_last(g), DV_OK);
    expect(g, 0, DV_GDT_FLOAT, 2, d, (double[]){1, -2, 3}, 0);
    expect(g, 1, DV_GDT_BOOL, 2, d, (double[]){1, 1, 1}, 0); /* nothing dropped */
    int r = tensor(g, "ratio", DV_GDT_FLOAT, 0, NULL, (double[]){0.5});
    int r0 = tensor(g, "ratio0", DV_GDT_FLOAT, 0, NULL, (double[]){0});
    int on = tensor(g, "train", DV_GDT_BOOL, 0, NULL, (double[]){1});
    int train[3] = {x, r, on}, zero[3] = {x, r0, on};
    node(g, DV_GOP_DROPOUT, train, 3, 1, 0);
    ck_assert_int_eq(run_last(g), DV_ERR_INPUT); /* random: refused */
    node(g, DV_GOP_DROPOUT, zero, 3, 1, 0);
    ck_assert_int_eq(run_last(g), DV_OK); /* training with ratio 0 drops nothing */
    expect(g, 0, DV_GDT_FLOAT, 2, d, (double[]){1, -2, 3}, 0);
    dv_graph_destroy(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("graph-ref-ops");
    TCase *tc = tcase_create("ops");
    tcase_add_test(tc, unary_erf_neg_sqrt);
    tcase_add_test(tc, pow_broadcast_and_types);
    tcase_add_test(tc, equal_broadcast_bool);
    tcase_add_test(tc, where_three_way_broadcast);
    tcase_add_test(tc, reduce_mean_axes_keepdims);
    tcase_add_test(tc, constant_of_shape);
    tcase_add_test(tc, dropout_inference);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
