/* ref_reduce.c - the reference of ReduceMean: axes as an attribute (opset
 * < 18) or as its second input (opset 18, with noop_with_empty_axes),
 * keepdims, negative axes; no axes reduces every dim. */
#include "ref_priv.h"

#include <math.h>
#include <string.h>

dv_status ref_reduce_mean(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0), *ax = ref_in(g, n, 1);
    if (!ref_known(x))
        return DV_OK;
    int64_t axes[DV_G_MAX_RANK];
    size_t na = 0;
    if (ax) {
        if (!ref_known(ax))
            return DV_OK;
        if (!ref_input_ints(ax, axes, DV_G_MAX_RANK, &na))
            return ax->data ? ref_error(err, g, n, "more than %d axes", DV_G_MAX_RANK) : DV_OK;
    } else {
        const int64_t *a = ref_attr_ints(n, "axes", &na);
        if (na > DV_G_MAX_RANK)
            return ref_error(err, g, n, "more than %d axes", DV_G_MAX_RANK);
        if (a)
            memcpy(axes, a, na * sizeof *a);
    }
    bool keep = dv_gnode_attr_int(n, "keepdims", 1) != 0;
    bool noop = na == 0 && dv_gnode_attr_int(n, "noop_with_empty_axes", 0) != 0;
    bool red[DV_G_MAX_RANK] = {false};
    for (size_t k = 0; k < na; k++) {
        int a = ref_axis(axes[k], x->rank);
        if (a < 0 || red[a])
            return ref_error(err, g, n, "axis %lld repeated or out of range for rank %d", (long long)axes[k],
                             x->rank);
        red[a] = true;
    }
    for (int i = 0; na == 0 && !noop && i < x->rank; i++)
        red[i] = true;                                     /* no axes: every dim */
    int64_t kd[DV_G_MAX_RANK], od[DV_G_MAX_RANK], per = 1; /* kd: the kept shape, reduced dims as 1 */
    int orank = 0;
    for (int i = 0; i < x->rank; i++) {
        kd[i] = red[i] ? 1 : x->dims[i];
        per *= red[i] ? x->dims[i] : 1;
        if (!red[i] || keep)
            od[orank++] = kd[i];
    }
    dv_status st = ref_set_out(g, n, 0, x->dtype, orank, od, compute, err);
    if (st != DV_OK || !compute)
        return st;
    /* dropping dims of size 1 keeps row-major offsets: accumulate in the kept shape's order */
    double *y = ref_out(g, n, 0)->data;
    dv_gtensor kept = {.rank = x->rank};
    memcpy(kept.dims, kd, sizeof kd);
    int64_t idx[DV_G_MAX_RANK] = {0}, count = dv_gtensor_count(x), ocount = dv_gtensor_count(&kept);
    for (int64_t e = 0; e < count; e++) {
        y[ref_bcast_index(&kept, x->rank, x->dims, idx)] += x->data[e];
        ref_next(idx, x->rank, x->dims);
    }
    for (int64_t o = 0; o < ocount; o++)
        y[o] = per ? y[o] / (double)per : NAN; /* the mean of nothing, as numpy's */
    return DV_OK;
}
