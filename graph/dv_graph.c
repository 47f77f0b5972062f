/* dv_graph.c - the graph IR: tensors, nodes, attributes, copies. */
#include "dv_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    bool shape_op;
} gops[] = {
#define DV_GOP(id, name, min_in, max_in, nout, shape_op) {name, shape_op},
#include "graph_ops.def"
#undef DV_GOP
};

const char *dv_gop_name(dv_gop op)
{
    return op < DV_GOP_COUNT ? gops[op].name : "?";
}

bool dv_gop_is_shape_op(dv_gop op)
{
    return op < DV_GOP_COUNT && gops[op].shape_op;
}

dv_gop dv_gop_find(const char *name)
{
    for (unsigned i = 0; i < DV_GOP_COUNT; i++)
        if (strcmp(gops[i].name, name) == 0)
            return (dv_gop)i;
    return DV_GOP_COUNT;
}

const char *dv_gdtype_name(int dtype)
{
    switch (dtype) {
    case DV_GDT_FLOAT: return "float32";
    case DV_GDT_UINT8: return "uint8";
    case DV_GDT_INT8: return "int8";
    case DV_GDT_INT32: return "int32";
    case DV_GDT_INT64: return "int64";
    case DV_GDT_BOOL: return "bool";
    case DV_GDT_FLOAT16: return "float16";
    case DV_GDT_DOUBLE: return "float64";
    default: return "unsupported dtype";
    }
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s ? s : "");
    char *d = malloc(n + 1);
    if (d)
        memcpy(d, s ? s : "", n + 1);
    return d;
}

dv_graph *dv_graph_new(const char *file)
{
    dv_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->file = dup_str(file);
    g->name = dup_str("");
    if (!g->file || !g->name) {
        dv_graph_destroy(g);
        return NULL;
    }
    return g;
}

void dv_gtensor_free(dv_gtensor *t)
{
    free(t->name);
    free(t->data);
    t->name = NULL;
    t->data = NULL;
}

static void attr_free(dv_gattr *a)
{
    free(a->name);
    free(a->s);
    free(a->floats);
    free(a->ints);
}

void dv_graph_destroy(dv_graph *g)
{
    if (!g)
        return;
    for (unsigned i = 0; i < g->ntensors; i++)
        dv_gtensor_free(&g->t[i]);
    for (unsigned i = 0; i < g->nnodes; i++) {
        dv_gnode *n = &g->n[i];
        free(n->name);
        free(n->in);
        free(n->out);
        for (unsigned a = 0; a < n->nattr; a++)
            attr_free(&n->attr[a]);
        free(n->attr);
    }
    free(g->t);
    free(g->n);
    free(g->inputs);
    free(g->outputs);
    free(g->file);
    free(g->name);
    free(g);
}

int dv_graph_add_tensor(dv_graph *g, const char *name)
{
    if (g->ntensors == g->tcap) {
        unsigned cap = g->tcap ? 2 * g->tcap : 64;
        dv_gtensor *t = realloc(g->t, cap * sizeof *t);
        if (!t)
            return -1;
        g->t = t;
        g->tcap = cap;
    }
    dv_gtensor *t = &g->t[g->ntensors];
    memset(t, 0, sizeof *t);
    t->rank = -1;
    t->name = dup_str(name);
    if (!t->name)
        return -1;
    return (int)g->ntensors++;
}

int dv_graph_find_tensor(const dv_graph *g, const char *name)
{
    for (unsigned i = g->ntensors; i-- > 0;)
        if (strcmp(g->t[i].name, name) == 0)
            return (int)i;
    return -1;
}

dv_gnode *dv_graph_add_node(dv_graph *g, const char *name, dv_gop op, unsigned nin, unsigned nout,
                            unsigned nattr)
{
    if (g->nnodes == g->ncap) {
        unsigned cap = g->ncap ? 2 * g->ncap : 32;
        dv_gnode *n = realloc(g->n, cap * sizeof *n);
        if (!n)
            return NULL;
        g->n = n;
        g->ncap = cap;
    }
    dv_gnode *n = &g->n[g->nnodes];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->name = dup_str(name);
    n->in = malloc((nin ? nin : 1) * sizeof *n->in);
    n->out = malloc((nout ? nout : 1) * sizeof *n->out);
    n->attr = calloc(nattr ? nattr : 1, sizeof *n->attr);
    if (!n->name || !n->in || !n->out || !n->attr) {
        free(n->name);
        free(n->in);
        free(n->out);
        free(n->attr);
        return NULL;
    }
    for (unsigned i = 0; i < nin; i++)
        n->in[i] = -1;
    for (unsigned i = 0; i < nout; i++)
        n->out[i] = -1;
    n->nin = nin;
    n->nout = nout;
    n->nattr = nattr;
    g->nnodes++;
    return n;
}

int64_t dv_gtensor_count(const dv_gtensor *t)
{
    if (!t || t->rank < 0)
        return -1;
    int64_t c = 1;
    for (int i = 0; i < t->rank; i++) {
        if (t->dims[i] < 0)
            return -1;
        if (t->dims[i] && c > DV_G_MAX_ELEMS / t->dims[i])
            return -1;
        c *= t->dims[i];
    }
    return c;
}

const char *dv_gtensor_shape_str(const dv_gtensor *t, char *buf, size_t len)
{
    if (t->rank < 0) {
        snprintf(buf, len, "[?]");
        return buf;
    }
    size_t k = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < t->rank && k < len; i++) {
        if (t->dims[i] < 0)
            k += (size_t)snprintf(buf + k, len - k, "%s?", i ? "," : "");
        else
            k += (size_t)snprintf(buf + k, len - k, "%s%lld", i ? "," : "", (long long)t->dims[i]);
    }
    if (k < len)
        snprintf(buf + k, len - k, "]");
    return buf;
}

const dv_gattr *dv_gnode_attr(const dv_gnode *n, const char *name)
{
    for (unsigned i = 0; i < n->nattr; i++)
        if (n->attr[i].name && strcmp(n->attr[i].name, name) == 0)
            return &n->attr[i];
    return NULL;
}

int64_t dv_gnode_attr_int(const dv_gnode *n, const char *name, int64_t def)
{
    const dv_gattr *a = dv_gnode_attr(n, name);
    return a && a->type == DV_GATTR_INT ? a->i : def;
}

double dv_gnode_attr_float(const dv_gnode *n, const char *name, double def)
{
    const dv_gattr *a = dv_gnode_attr(n, name);
    return a && a->type == DV_GATTR_FLOAT ? a->f : def;
}

static void *dup_mem(const void *p, size_t bytes, bool *ok)
{
    if (!p)
        return NULL;
    void *d = malloc(bytes ? bytes : 1);
    if (!d) {
        *ok = false;
        return NULL;
    }
    memcpy(d, p, bytes);
    return d;
}

dv_graph *dv_graph_clone(const dv_graph *g)
{
    dv_graph *c = dv_graph_new(g->file);
    if (!c)
        return NULL;
    bool ok = true;
    free(c->name);
    c->name = dup_str(g->name);
    ok = c->name != NULL;
    c->opset = g->opset;
    for (unsigned i = 0; ok && i < g->ntensors; i++) {
        int k = dv_graph_add_tensor(c, g->t[i].name);
        if (k < 0) {
            ok = false;
            break;
        }
        char *name = c->t[k].name;
        c->t[k] = g->t[i];
        c->t[k].name = name;
        int64_t cnt = dv_gtensor_count(&g->t[i]);
        c->t[k].data = dup_mem(g->t[i].data, (size_t)(cnt > 0 ? cnt : 0) * sizeof(double), &ok);
    }
    for (unsigned i = 0; ok && i < g->nnodes; i++) {
        const dv_gnode *s = &g->n[i];
        dv_gnode *d = dv_graph_add_node(c, s->name, s->op, s->nin, s->nout, s->nattr);
        if (!d) {
            ok = false;
            break;
        }
        memcpy(d->in, s->in, s->nin * sizeof *s->in);
        memcpy(d->out, s->out, s->nout * sizeof *s->out);
        for (unsigned a = 0; a < s->nattr; a++) {
            d->attr[a] = s->attr[a];
            d->attr[a].name = dup_str(s->attr[a].name);
            d->attr[a].s = s->attr[a].s ? dup_str(s->attr[a].s) : NULL;
            d->attr[a].floats = dup_mem(s->attr[a].floats, s->attr[a].n * sizeof(double), &ok);
            d->attr[a].ints = dup_mem(s->attr[a].ints, s->attr[a].n * sizeof(int64_t), &ok);
            if (!d->attr[a].name || (s->attr[a].s && !d->attr[a].s))
                ok = false;
        }
    }
    if (ok) {
        c->inputs = dup_mem(g->inputs, g->ninputs * sizeof(int), &ok);
        c->outputs = dup_mem(g->outputs, g->noutputs * sizeof(int), &ok);
        c->ninputs = g->ninputs;
        c->noutputs = g->noutputs;
    }
    if (!ok) {
        dv_graph_destroy(c);
        return NULL;
    }
    return c;
}

void dv_graph_error_clean(dv_error *err)
{
    if (!err)
        return;
    for (char *p = err->msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

dv_status dv_graph_bind_input(dv_graph *g, unsigned k, const dv_gtensor *value, dv_error *err)
{
    if (k >= g->ninputs)
        return dv_error_set(err, DV_ERR_USAGE, "%s: no input %u", g->file, k);
    dv_gtensor *t = &g->t[g->inputs[k]];
    int64_t count = dv_gtensor_count(value);
    if (count < 0 || !value->data)
        return dv_error_set(err, DV_ERR_INPUT, "%s: a value for input '%s' without data", g->file, t->name);
    double *d = malloc((size_t)(count ? count : 1) * sizeof *d);
    if (!d)
        return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", g->file);
    memcpy(d, value->data, (size_t)count * sizeof *d);
    free(t->data);
    t->data = d;
    t->rank = value->rank;
    memcpy(t->dims, value->dims, sizeof t->dims);
    t->dtype = value->dtype ? value->dtype : t->dtype;
    t->is_input = false;
    memmove(g->inputs + k, g->inputs + k + 1, (g->ninputs - k - 1) * sizeof *g->inputs);
    g->ninputs--;
    return DV_OK;
}
