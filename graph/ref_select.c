/* ref_select.c - the reference of the selection and filling ops PyTorch's
 * exporter writes around masks: Where (three-way broadcasting), ConstantOfShape
 * (a shape op: folded when its shape is known) and Dropout (inference: the
 * identity, its mask all true). */
#include "ref_priv.h"

#include <string.h>

/* Y = cond ? X : Y, the three shapes broadcast together (numpy's rules). */
dv_status ref_where(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *c = ref_in(g, n, 0), *x = ref_in(g, n, 1), *y = ref_in(g, n, 2);
    if (!ref_known(c) || !ref_known(x) || !ref_known(y))
        return DV_OK;
    int r1, r;
    int64_t d1[DV_G_MAX_RANK], d[DV_G_MAX_RANK];
    if (!ref_broadcast(c, x, &r1, d1))
        return ref_error(err, g, n, "condition '%s' and X '%s' do not broadcast", c->name, x->name);
    dv_gtensor cx = {.rank = r1};
    memcpy(cx.dims, d1, sizeof d1);
    if (!ref_broadcast(&cx, y, &r, d))
        return ref_error(err, g, n, "Y '%s' does not broadcast with the condition and X", y->name);
    dv_status st = ref_set_out(g, n, 0, x->dtype, r, d, compute, err);
    if (st != DV_OK || !compute)
        return st;
    dv_gtensor *o = ref_out(g, n, 0);
    int64_t idx[DV_G_MAX_RANK] = {0}, count = dv_gtensor_count(o);
    for (int64_t e = 0; e < count; e++) {
        bool take_x = c->data[ref_bcast_index(c, r, d, idx)] != 0;
        o->data[e] = take_x ? x->data[ref_bcast_index(x, r, d, idx)] : y->data[ref_bcast_index(y, r, d, idx)];
        ref_next(idx, r, d);
    }
    return DV_OK;
}

/* A tensor of the shape its input holds, every element the value attribute's one element (float 0 if
 * none).  Like Shape, its value follows from a known input alone. */
dv_status ref_constant_of_shape(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *s = ref_in(g, n, 0);
    int64_t sh[DV_G_MAX_RANK];
    size_t ns;
    if (!ref_known(s))
        return DV_OK;
    if (s->rank != 1)
        return ref_error(err, g, n, "the shape input has rank %d, not 1", s->rank);
    if (!ref_input_ints(s, sh, DV_G_MAX_RANK, &ns))
        return s->data ? ref_error(err, g, n, "a shape of more than %d dims", DV_G_MAX_RANK) : DV_OK;
    for (size_t i = 0; i < ns; i++)
        if (sh[i] < 0 || sh[i] > DV_G_MAX_ELEMS)
            return ref_error(err, g, n, "shape entry %lld out of range", (long long)sh[i]);
    const dv_gattr *a = dv_gnode_attr(n, "value");
    int dtype = DV_GDT_FLOAT;
    double v = 0;
    if (a) {
        const dv_gtensor *t = a->type == DV_GATTR_TENSOR ? &g->t[a->tensor] : NULL;
        if (!t || dv_gtensor_count(t) != 1 || !t->data)
            return ref_error(err, g, n, "the value attribute is not a tensor of one element");
        dtype = t->dtype;
        v = t->data[0];
    }
    dv_status st = ref_set_out(g, n, 0, dtype, (int)ns, sh, true, err);
    if (st != DV_OK)
        return st;
    dv_gtensor *o = ref_out(g, n, 0);
    int64_t count = dv_gtensor_count(o);
    for (int64_t e = 0; o && e < count; e++)
        o->data[e] = v;
    (void)compute; /* its value is known whenever its shape is */
    return DV_OK;
}

/* Dropout at inference: output = data, mask all true.  Training mode (a true training_mode input, opset 12)
 * with a nonzero ratio drops at random, which a reference cannot reproduce: refused. */
dv_status ref_dropout(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0), *ratio = ref_in(g, n, 1), *train = ref_in(g, n, 2);
    if (!ref_known(x))
        return DV_OK;
    if (train && train->data && dv_gtensor_count(train) == 1 && train->data[0] != 0 &&
        !(ratio && ratio->data && dv_gtensor_count(ratio) == 1 && ratio->data[0] == 0))
        return ref_error(err, g, n, "training mode (random dropping) is not supported");
    dv_status st = ref_set_out(g, n, 0, x->dtype, x->rank, x->dims, compute, err);
    if (st == DV_OK)
        st = ref_set_out(g, n, 1, DV_GDT_BOOL, x->rank, x->dims, compute, err);
    if (st != DV_OK || !compute)
        return st;
    int64_t count = dv_gtensor_count(x);
    if (count > 0)
        memcpy(ref_out(g, n, 0)->data, x->data, (size_t)count * sizeof(double));
    dv_gtensor *mask = ref_out(g, n, 1);
    for (int64_t e = 0; mask && e < count; e++)
        mask->data[e] = 1;
    return DV_OK;
}
