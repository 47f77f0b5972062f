/* ref_shape_ops.c - the reference of the data-movement and shape ops:
 * Transpose, Reshape, Flatten, Concat, Constant, Identity, Shape, Gather,
 * Slice, Squeeze / Unsqueeze, Cast, Expand.  Axes and shapes given as inputs
 * (opset 13's form) or as attributes (the older one) both work. */
#include "dv_fp.h"
#include "ref_priv.h"

#include <math.h>
#include <string.h>

/* Copies x's values into output 0 (same count): the ops that only rename a shape. */
static void copy_values(dv_graph *g, const dv_gnode *n, const dv_gtensor *x)
{
    int64_t c = dv_gtensor_count(x);
    if (c > 0)
        memcpy(ref_out(g, n, 0)->data, x->data, (size_t)c * sizeof(double));
}

dv_status ref_transpose(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    if (!ref_known(x))
        return DV_OK;
    size_t np;
    const int64_t *pa = ref_attr_ints(n, "perm", &np);
    int perm[DV_G_MAX_RANK];
    bool seen[DV_G_MAX_RANK] = {false};
    if (pa && np != (size_t)x->rank)
        return ref_error(err, g, n, "perm has %zu entries for rank %d", np, x->rank);
    for (int i = 0; i < x->rank; i++) {
        int p = pa ? ref_axis(pa[i], x->rank) : x->rank - 1 - i;
        if (p < 0 || seen[p])
            return ref_error(err, g, n, "perm is not a permutation of 0..%d", x->rank - 1);
        seen[p] = true;
        perm[i] = p;
    }
    int64_t od[DV_G_MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        od[i] = x->dims[perm[i]];
    dv_status st = ref_set_out(g, n, 0, x->dtype, x->rank, od, compute, err);
    if (st != DV_OK || !compute)
        return st;
    int64_t stride[DV_G_MAX_RANK], s = 1, idx[DV_G_MAX_RANK] = {0}, count = dv_gtensor_count(x);
    for (int i = x->rank - 1; i >= 0; i--) {
        stride[i] = s;
        s *= x->dims[i];
    }
    double *y = ref_out(g, n, 0)->data;
    for (int64_t e = 0; e < count; e++) {
        int64_t off = 0;
        for (int i = 0; i < x->rank; i++)
            off += idx[i] * stride[perm[i]];
        y[e] = x->data[off];
        ref_next(idx, x->rank, od);
    }
    return DV_OK;
}

dv_status ref_reshape(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    int64_t sh[DV_G_MAX_RANK];
    size_t ns;
    if (!ref_known(x) || !ref_input_ints(ref_in(g, n, 1), sh, DV_G_MAX_RANK, &ns))
        return DV_OK;
    bool allowzero = dv_gnode_attr_int(n, "allowzero", 0) != 0;
    int64_t known = 1, count = dv_gtensor_count(x);
    int infer = -1;
    for (size_t i = 0; i < ns; i++) {
        if (sh[i] == 0 && !allowzero) {
            if ((int)i >= x->rank)
                return ref_error(err, g, n, "shape entry %zu is 0 beyond the input's rank", i);
            sh[i] = x->dims[i];
        }
        if (sh[i] == -1) {
            if (infer >= 0)
                return ref_error(err, g, n, "more than one -1 in the shape");
            infer = (int)i;
        } else if (sh[i] < 0 || (sh[i] && known > DV_G_MAX_ELEMS / sh[i]))
            return ref_error(err, g, n, "shape entry %lld out of range", (long long)sh[i]);
        else
            known *= sh[i];
    }
    if (infer >= 0)
        sh[infer] = known ? count / known : 0;
    if ((infer >= 0 ? sh[infer] * known : known) != count)
        return ref_error(err, g, n, "cannot reshape %lld elements to that shape", (long long)count);
    dv_status st = ref_set_out(g, n, 0, x->dtype, (int)ns, sh, compute, err);
    if (st == DV_OK && compute)
        copy_values(g, n, x);
    return st;
}

dv_status ref_flatten(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    if (!ref_known(x))
        return DV_OK;
    int64_t a = dv_gnode_attr_int(n, "axis", 1);
    int axis = a == x->rank ? x->rank : ref_axis(a, x->rank);
    if (axis < 0)
        return ref_error(err, g, n, "axis out of range for rank %d", x->rank);
    int64_t od[2] = {1, 1};
    for (int i = 0; i < x->rank; i++)
        od[i >= axis] *= x->dims[i];
    dv_status st = ref_set_out(g, n, 0, x->dtype, 2, od, compute, err);
    if (st == DV_OK && compute)
        copy_values(g, n, x);
    return st;
}

dv_status ref_concat(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x0 = ref_in(g, n, 0);
    for (unsigned i = 0; i < n->nin; i++)
        if (!ref_known(ref_in(g, n, i)))
            return DV_OK;
    int axis = ref_axis(dv_gnode_attr_int(n, "axis", 0), x0->rank);
    if (axis < 0)
        return ref_error(err, g, n, "axis out of range for rank %d", x0->rank);
    int64_t od[DV_G_MAX_RANK];
    memcpy(od, x0->dims, sizeof od);
    od[axis] = 0;
    for (unsigned i = 0; i < n->nin; i++) {
        dv_gtensor *x = ref_in(g, n, i);
        for (int d = 0; d < x0->rank; d++)
            if (x->rank != x0->rank || (d != axis && x->dims[d] != x0->dims[d]))
                return ref_error(err, g, n, "input '%s' does not match the others off the axis", x->name);
        od[axis] += x->dims[axis];
    }
    dv_status st = ref_set_out(g, n, 0, x0->dtype, x0->rank, od, compute, err);
    if (st != DV_OK || !compute)
        return st;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < x0->rank; d++)
        *(d < axis ? &outer : d > axis ? &inner : &(int64_t){0}) *= x0->dims[d];
    double *y = ref_out(g, n, 0)->data;
    int64_t col = 0;
    for (unsigned i = 0; i < n->nin; i++) {
        dv_gtensor *x = ref_in(g, n, i);
        int64_t len = x->dims[axis] * inner;
        for (int64_t o = 0; o < outer; o++)
            memcpy(y + o * od[axis] * inner + col, x->data + o * len, (size_t)len * sizeof *y);
        col += len;
    }
    return DV_OK;
}

dv_status ref_constant(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    const dv_gattr *a = n->nattr ? &n->attr[0] : NULL;
    if (!a || n->nattr != 1)
        return ref_error(err, g, n, "needs exactly one value attribute");
    int64_t d[1] = {0};
    dv_status st;
    if (a->type == DV_GATTR_TENSOR) {
        const dv_gtensor *t = &g->t[a->tensor];
        st = ref_set_out(g, n, 0, t->dtype, t->rank, t->dims, true, err);
        if (st == DV_OK)
            copy_values(g, n, t);
    } else if (a->type == DV_GATTR_FLOAT || a->type == DV_GATTR_INT) {
        st = ref_set_out(g, n, 0, a->type == DV_GATTR_FLOAT ? DV_GDT_FLOAT : DV_GDT_INT64, 0, d, true, err);
        if (st == DV_OK)
            ref_out(g, n, 0)->data[0] = a->type == DV_GATTR_FLOAT ? a->f : (double)a->i;
    } else if (a->type == DV_GATTR_FLOATS || a->type == DV_GATTR_INTS) {
        d[0] = (int64_t)a->n;
        st = ref_set_out(g, n, 0, a->type == DV_GATTR_FLOATS ? DV_GDT_FLOAT : DV_GDT_INT64, 1, d, true, err);
        for (size_t i = 0; st == DV_OK && i < a->n; i++)
            ref_out(g, n, 0)->data[i] = a->type == DV_GATTR_FLOATS ? a->floats[i] : (double)a->ints[i];
    } else
        return ref_error(err, g, n, "value attribute '%s' of a kind not supported", a->name);
    (void)compute; /* a Constant always has its value */
    return st;
}

dv_status ref_identity(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    if (!ref_known(x))
        return DV_OK;
    dv_status st = ref_set_out(g, n, 0, x->dtype, x->rank, x->dims, compute, err);
    if (st == DV_OK && compute)
        copy_values(g, n, x);
    return st;
}

/* Shape: the input's dims (start/end of opset 15 clamp like Slice); its value is known from the shape alone.
 */
dv_status ref_shape(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    if (!ref_known(x))
        return DV_OK;
    int64_t r = x->rank, s = dv_gnode_attr_int(n, "start", 0), e = dv_gnode_attr_int(n, "end", r);
    s = s < 0 ? s + r : s;
    e = e < 0 ? e + r : e;
    s = s < 0 ? 0 : s > r ? r : s;
    e = e < 0 ? 0 : e > r ? r : e;
    int64_t d[1] = {e > s ? e - s : 0};
    dv_status st = ref_set_out(g, n, 0, DV_GDT_INT64, 1, d, true, err);
    for (int64_t i = 0; st == DV_OK && i < d[0]; i++)
        ref_out(g, n, 0)->data[i] = (double)x->dims[s + i];
    (void)compute;
    return st;
}

dv_status ref_gather(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0), *ix = ref_in(g, n, 1);
    if (!ref_known(x) || !ref_known(ix))
        return DV_OK;
    int axis = ref_axis(dv_gnode_attr_int(n, "axis", 0), x->rank);
    if (axis < 0 || x->rank + ix->rank - 1 > DV_G_MAX_RANK)
        return ref_error(err, g, n, "axis or output rank out of range");
    int64_t od[DV_G_MAX_RANK];
    int r = 0;
    for (int i = 0; i < axis; i++)
        od[r++] = x->dims[i];
    for (int i = 0; i < ix->rank; i++)
        od[r++] = ix->dims[i];
    for (int i = axis + 1; i < x->rank; i++)
        od[r++] = x->dims[i];
    dv_status st = ref_set_out(g, n, 0, x->dtype, r, od, compute, err);
    if (st != DV_OK || !compute)
        return st;
    int64_t outer = 1, inner = 1, len = x->dims[axis], ni = dv_gtensor_count(ix);
    for (int i = 0; i < x->rank; i++)
        if (i != axis)
            *(i < axis ? &outer : &inner) *= x->dims[i];
    double *y = ref_out(g, n, 0)->data;
    for (int64_t j = 0; j < ni; j++) {
        double v = ix->data[j];
        int64_t k = (int64_t)v;
        k = k < 0 ? k + len : k;
        if (v != floor(v) || k < 0 || k >= len)
            return ref_error(err, g, n, "index %g out of range [-%lld, %lld)", v, (long long)len,
                             (long long)len);
        for (int64_t o = 0; o < outer; o++)
            memcpy(y + (o * ni + j) * inner, x->data + (o * len + k) * inner, (size_t)inner * sizeof *y);
    }
    return DV_OK;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

dv_status ref_slice(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    if (!ref_known(x))
        return DV_OK;
    int64_t st_[DV_G_MAX_RANK], en[DV_G_MAX_RANK], ax[DV_G_MAX_RANK], sp[DV_G_MAX_RANK];
    size_t ns = 0, ne = 0, na = 0, nsp = 0;
    if (n->nin == 1) { /* opset < 10: attributes */
        size_t k;
        const int64_t *a = ref_attr_ints(n, "starts", &ns), *b = ref_attr_ints(n, "ends", &ne),
                      *c = ref_attr_ints(n, "axes", &na);
        if (!a || !b || ns > DV_G_MAX_RANK || ne != ns || (c && na != ns))
            return ref_error(err, g, n, "starts and ends missing or of different lengths");
        for (k = 0; k < ns; k++) {
            st_[k] = a[k];
            en[k] = b[k];
            ax[k] = c ? c[k] : (int64_t)k;
        }
        na = ns;
    } else {
        if (!ref_input_ints(ref_in(g, n, 1), st_, DV_G_MAX_RANK, &ns) ||
            !ref_input_ints(ref_in(g, n, 2), en, DV_G_MAX_RANK, &ne))
            return DV_OK;
        if (ref_in(g, n, 3) && !ref_input_ints(ref_in(g, n, 3), ax, DV_G_MAX_RANK, &na))
            return DV_OK;
        if (ref_in(g, n, 4) && !ref_input_ints(ref_in(g, n, 4), sp, DV_G_MAX_RANK, &nsp))
            return DV_OK;
        if (ne != ns || (ref_in(g, n, 3) && na != ns) || (ref_in(g, n, 4) && nsp != ns))
            return ref_error(err, g, n, "starts, ends, axes and steps differ in length");
        if (!ref_in(g, n, 3))
            for (na = 0; na < ns; na++)
                ax[na] = (int64_t)na;
    }
    int64_t lo[DV_G_MAX_RANK], step[DV_G_MAX_RANK], od[DV_G_MAX_RANK];
    bool seen[DV_G_MAX_RANK] = {false};
    for (int i = 0; i < x->rank; i++) {
        lo[i] = 0;
        step[i] = 1;
        od[i] = x->dims[i];
    }
    for (size_t k = 0; k < ns; k++) {
        int a = ref_axis(ax[k], x->rank);
        int64_t s = nsp ? sp[k] : 1, dim = x->dims[a >= 0 ? a : 0];
        if (a < 0 || seen[a] || s == 0)
            return ref_error(err, g, n, "axis repeated or out of range, or a zero step");
        seen[a] = true;
        int64_t b = st_[k] < 0 ? (st_[k] < -dim ? 0 : st_[k] + dim) : st_[k];
        int64_t e = en[k] < 0 ? (en[k] < -dim ? -1 : en[k] + dim) : en[k];
        if (s > 0) {
            b = clamp64(b, 0, dim);
            e = clamp64(e, 0, dim);
            od[a] = e > b ? (e - b + s - 1) / s : 0;
        } else {
            b = clamp64(b, 0, dim - 1);
            e = clamp64(e, -1, dim - 1);
            od[a] = b > e ? (b - e + (-s) - 1) / (-s) : 0;
        }
        lo[a] = b;
        step[a] = s;
    }
    dv_status st = ref_set_out(g, n, 0, x->dtype, x->rank, od, compute, err);
    if (st != DV_OK || !compute)
        return st;
    int64_t idx[DV_G_MAX_RANK] = {0}, count = 1, stride[DV_G_MAX_RANK], s = 1;
    for (int i = x->rank - 1; i >= 0; i--) {
        stride[i] = s;
        s *= x->dims[i];
        count *= od[i];
    }
    double *y = ref_out(g, n, 0)->data;
    for (int64_t e = 0; e < count; e++) {
        int64_t off = 0;
        for (int i = 0; i < x->rank; i++)
            off += (lo[i] + idx[i] * step[i]) * stride[i];
        y[e] = x->data[off];
        ref_next(idx, x->rank, od);
    }
    return DV_OK;
}

/* Squeeze and Unsqueeze: axes as input (opset 13) or attribute. */
dv_status ref_squeeze(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    if (!ref_known(x))
        return DV_OK;
    int64_t axes[DV_G_MAX_RANK];
    size_t na = 0;
    bool have = false;
    if (ref_in(g, n, 1)) {
        if (!ref_input_ints(ref_in(g, n, 1), axes, DV_G_MAX_RANK, &na))
            return ref_in(g, n, 1)->data ? ref_error(err, g, n, "more than %d axes", DV_G_MAX_RANK) : DV_OK;
        have = true;
    } else {
        const int64_t *a = ref_attr_ints(n, "axes", &na);
        if (a && na <= DV_G_MAX_RANK) {
            memcpy(axes, a, na * sizeof *a);
            have = true;
        } else if (a)
            return ref_error(err, g, n, "more than %d axes", DV_G_MAX_RANK);
    }
    bool unsq = n->op == DV_GOP_UNSQUEEZE, mark[DV_G_MAX_RANK] = {false};
    int orank = unsq ? x->rank + (int)na : x->rank;
    if (unsq && (!have || orank > DV_G_MAX_RANK))
        return ref_error(err, g, n, "axes missing or output rank above %d", DV_G_MAX_RANK);
    for (size_t k = 0; k < na; k++) {
        int a = ref_axis(axes[k], unsq ? orank : x->rank);
        if (a < 0 || mark[a])
            return ref_error(err, g, n, "axis %lld repeated or out of range", (long long)axes[k]);
        if (!unsq && x->dims[a] != 1)
            return ref_error(err, g, n, "axis %d has size %lld, not 1", a, (long long)x->dims[a]);
        mark[a] = true;
    }
    int64_t od[DV_G_MAX_RANK];
    int r = 0;
    if (unsq)
        for (int i = 0, j = 0; i < orank; i++)
            od[r++] = mark[i] ? 1 : x->dims[j++];
    else
        for (int i = 0; i < x->rank; i++)
            if (!(have ? mark[i] : x->dims[i] == 1))
                od[r++] = x->dims[i];
    dv_status st = ref_set_out(g, n, 0, x->dtype, r, od, compute, err);
    if (st == DV_OK && compute)
        copy_values(g, n, x);
    return st;
}

dv_status ref_cast(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    if (!ref_known(x))
        return DV_OK;
    int to = (int)dv_gnode_attr_int(n, "to", 0);
    if (strcmp(dv_gdtype_name(to), "unsupported dtype") == 0)
        return ref_error(err, g, n, "cast to data type %d is not supported", to);
    dv_status st = ref_set_out(g, n, 0, to, x->rank, x->dims, compute, err);
    if (st != DV_OK || !compute)
        return st;
    double *y = ref_out(g, n, 0)->data;
    int64_t c = dv_gtensor_count(x);
    for (int64_t e = 0; e < c; e++) {
        double v = x->data[e];
        switch (to) {
        case DV_GDT_FLOAT: y[e] = (float)v; break;
        case DV_GDT_FLOAT16: y[e] = dv_fp16_to_f32(dv_f64_to_fp16(v)); break;
        case DV_GDT_BOOL: y[e] = v != 0; break;
        case DV_GDT_DOUBLE: y[e] = v; break;
        default: y[e] = isfinite(v) ? trunc(v) : 0; break;
        }
    }
    return DV_OK;
}

dv_status ref_expand(dv_graph *g, const dv_gnode *n, bool compute, dv_error *err)
{
    dv_gtensor *x = ref_in(g, n, 0);
    int64_t sh[DV_G_MAX_RANK];
    size_t ns;
    if (!ref_known(x) || !ref_input_ints(ref_in(g, n, 1), sh, DV_G_MAX_RANK, &ns))
        return DV_OK;
    dv_gtensor want = {.rank = (int)ns};
    for (size_t i = 0; i < ns; i++) {
        if (sh[i] < 0 || sh[i] > DV_G_MAX_ELEMS)
            return ref_error(err, g, n, "shape entry %lld out of range", (long long)sh[i]);
        want.dims[i] = sh[i];
    }
    int r;
    int64_t d[DV_G_MAX_RANK];
    if (!ref_broadcast(x, &want, &r, d))
        return ref_error(err, g, n, "input does not broadcast to the shape");
    dv_status st = ref_set_out(g, n, 0, x->dtype, r, d, compute, err);
    if (st != DV_OK || !compute)
        return st;
    dv_gtensor *y = ref_out(g, n, 0);
    int64_t idx[DV_G_MAX_RANK] = {0}, c = dv_gtensor_count(y);
    for (int64_t e = 0; e < c; e++) {
        y->data[e] = x->data[ref_bcast_index(x, r, d, idx)];
        ref_next(idx, r, d);
    }
    return DV_OK;
}
