/* onnx_import.c - an ONNX ModelProto (protobuf-c, generated at build time
 * from libonnx-dev's onnx.proto) into the graph IR of dv_graph.h.
 *
 * Everything the file says is checked before it is used: a truncated or
 * malformed protobuf is one error (protobuf-c's unpack rejects it whole), an
 * op outside graph_ops.def is one error naming the node, its op type and the
 * file, a node input must be a graph input, an initializer or an earlier
 * node's output (ONNX's topological order), and names are unique. */
#include "dv_file.h"
#include "onnx_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str_or_empty(const char *s)
{
    return s ? s : "";
}

static void supported_list(char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < DV_GOP_COUNT && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? " " : "", dv_gop_name((dv_gop)i));
}

static dv_status nomem(const char *file, dv_error *err)
{
    return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", file);
}

/* A tensor defined by the file (initializer, input, node output): its name must be new. */
static dv_status define_tensor(dv_graph *g, const char *name, const char *what, int *index, dv_error *err)
{
    if (!name || !name[0])
        return dv_error_set(err, DV_ERR_INPUT, "%s: %s without a name", g->file, what);
    if (dv_graph_find_tensor(g, name) >= 0)
        return dv_error_set(err, DV_ERR_INPUT, "%s: %s '%s' is defined twice", g->file, what, name);
    *index = dv_graph_add_tensor(g, name);
    return *index < 0 ? nomem(g->file, err) : DV_OK;
}

static dv_status read_value_info(dv_graph *g, const Onnx__ValueInfoProto *vi, dv_gtensor *t, dv_error *err)
{
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return dv_error_set(err, DV_ERR_INPUT, "%s: graph input or output '%s' is not a tensor", g->file,
                            str_or_empty(vi->name));
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    t->dtype = tt->has_elem_type ? tt->elem_type : 0;
    if (!tt->shape)
        return DV_OK; /* rank unknown */
    if (tt->shape->n_dim > DV_G_MAX_RANK)
        return dv_error_set(err, DV_ERR_INPUT, "%s: '%s': rank %zu exceeds %d", g->file,
                            str_or_empty(vi->name), tt->shape->n_dim, DV_G_MAX_RANK);
    t->rank = (int)tt->shape->n_dim;
    for (size_t i = 0; i < tt->shape->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        bool fixed = d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        if (fixed && (d->dim_value < 0 || d->dim_value > DV_G_MAX_ELEMS))
            return dv_error_set(err, DV_ERR_INPUT, "%s: '%s': dimension %lld out of range", g->file,
                                str_or_empty(vi->name), (long long)d->dim_value);
        t->dims[i] = fixed ? d->dim_value : -1;
    }
    return DV_OK;
}

static dv_status read_attr(dv_graph *g, const Onnx__NodeProto *np, const Onnx__AttributeProto *ap,
                           dv_gattr *a, dv_error *err)
{
    const char *node = str_or_empty(np->name), *op = str_or_empty(np->op_type);
    if (!ap->name || !ap->name[0])
        return dv_error_set(err, DV_ERR_INPUT, "%s: node '%s' (op type '%s'): an attribute without a name",
                            g->file, node, op);
    a->name = strdup(ap->name);
    if (!a->name)
        return nomem(g->file, err);
    switch (ap->type) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
        a->type = DV_GATTR_FLOAT;
        a->f = ap->f;
        return DV_OK;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
        a->type = DV_GATTR_INT;
        a->i = ap->i;
        return DV_OK;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
        a->type = DV_GATTR_STRING;
        a->s = malloc(ap->s.len + 1);
        if (!a->s)
            return nomem(g->file, err);
        if (ap->s.len)
            memcpy(a->s, ap->s.data, ap->s.len);
        a->s[ap->s.len] = '\0';
        return DV_OK;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
        a->type = DV_GATTR_FLOATS;
        a->n = ap->n_floats;
        a->floats = malloc((a->n ? a->n : 1) * sizeof *a->floats);
        if (!a->floats)
            return nomem(g->file, err);
        for (size_t i = 0; i < a->n; i++)
            a->floats[i] = ap->floats[i];
        return DV_OK;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
        a->type = DV_GATTR_INTS;
        a->n = ap->n_ints;
        a->ints = malloc((a->n ? a->n : 1) * sizeof *a->ints);
        if (!a->ints)
            return nomem(g->file, err);
        if (a->n)
            memcpy(a->ints, ap->ints, a->n * sizeof *a->ints);
        return DV_OK;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: {
        if (!ap->t)
            return dv_error_set(err, DV_ERR_INPUT,
                                "%s: node '%s' (op type '%s'): attribute '%s' has no tensor", g->file, node,
                                op, ap->name);
        char tname[300];
        snprintf(tname, sizeof tname, "%s/%s#%u", node, ap->name, g->ntensors);
        int k = dv_graph_add_tensor(g, tname);
        if (k < 0)
            return nomem(g->file, err);
        a->type = DV_GATTR_TENSOR;
        a->tensor = k;
        return onnx_tensor_fill(ap->t, g->file, "attribute tensor", &g->t[k], err);
    }
    default:
        return dv_error_set(
            err, DV_ERR_INPUT,
            "%s: node '%s' (op type '%s'): attribute '%s' has a type (%d) dvsim does not support", g->file,
            node, op, ap->name, (int)ap->type);
    }
}

static dv_status read_node(dv_graph *g, const Onnx__NodeProto *np, dv_error *err)
{
    const char *node = str_or_empty(np->name), *opname = str_or_empty(np->op_type);
    const char *domain = str_or_empty(np->domain);
    dv_gop op = dv_gop_find(opname);
    if (op == DV_GOP_COUNT || (domain[0] && strcmp(domain, "ai.onnx") != 0)) {
        char list[600];
        supported_list(list, sizeof list);
        return dv_error_set(err, DV_ERR_INPUT,
                            "%s: node '%s' (op type '%s%s%s'): unsupported operator (supported: %s)", g->file,
                            node, domain, domain[0] ? "." : "", opname, list);
    }
    static const struct {
        int min_in, max_in, nout;
    } arity[] = {
#define DV_GOP(id, name, min_in, max_in, nout, shape_op) {min_in, max_in, nout},
#include "graph_ops.def"
#undef DV_GOP
    };
    /* trailing empty names are optional inputs left out */
    size_t nin = np->n_input;
    while (nin > 0 && (!np->input[nin - 1] || !np->input[nin - 1][0]))
        nin--;
    if ((int)nin < arity[op].min_in || (arity[op].max_in >= 0 && (int)nin > arity[op].max_in) ||
        np->n_output < 1 || (int)np->n_output > arity[op].nout)
        return dv_error_set(err, DV_ERR_INPUT,
                            "%s: node '%s' (op type '%s'): %zu inputs and %zu outputs (%s takes %d to %d "
                            "inputs, 1 to %d outputs)",
                            g->file, node, opname, nin, np->n_output, opname, arity[op].min_in,
                            arity[op].max_in, arity[op].nout);
    dv_gnode *n =
        dv_graph_add_node(g, node, op, (unsigned)nin, (unsigned)np->n_output, (unsigned)np->n_attribute);
    if (!n)
        return nomem(g->file, err);
    unsigned self = g->nnodes - 1;
    for (size_t i = 0; i < nin; i++) {
        const char *in = np->input[i];
        if (!in || !in[0])
            continue;
        int k = dv_graph_find_tensor(g, in);
        if (k < 0)
            return dv_error_set(err, DV_ERR_INPUT,
                                "%s: node '%s' (op type '%s'): input '%s' is not defined before it", g->file,
                                node, opname, in);
        g->n[self].in[i] = k;
    }
    for (size_t a = 0; a < np->n_attribute; a++) {
        if (!np->attribute[a])
            return dv_error_set(err, DV_ERR_INPUT, "%s: node '%s': an empty attribute", g->file, node);
        dv_status st = read_attr(g, np, np->attribute[a], &g->n[self].attr[a], err);
        if (st != DV_OK)
            return st;
    }
    for (size_t i = 0; i < np->n_output; i++) {
        const char *out = np->output[i];
        if (!out || !out[0]) {
            if (i == 0)
                return dv_error_set(err, DV_ERR_INPUT,
                                    "%s: node '%s' (op type '%s'): its first output has no name", g->file,
                                    node, opname);
            continue;
        }
        int k;
        dv_status st = define_tensor(g, out, "node output", &k, err);
        if (st != DV_OK)
            return st;
        g->n[self].out[i] = k;
    }
    return DV_OK;
}

static dv_status read_graph(dv_graph *g, const Onnx__ModelProto *m, dv_error *err)
{
    const Onnx__GraphProto *gp = m->graph;
    if (!gp)
        return dv_error_set(err, DV_ERR_INPUT, "%s: the model has no graph", g->file);
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->opset_import[i];
        if (o && (!o->domain || !o->domain[0] || strcmp(o->domain, "ai.onnx") == 0))
            g->opset = o->version;
    }
    if (gp->name) {
        free(g->name);
        g->name = strdup(gp->name);
        if (!g->name)
            return nomem(g->file, err);
    }
    for (size_t i = 0; i < gp->n_initializer; i++) {
        int k;
        const Onnx__TensorProto *tp = gp->initializer[i];
        dv_status st = define_tensor(g, tp ? tp->name : NULL, "initializer", &k, err);
        if (st == DV_OK)
            st = onnx_tensor_fill(tp, g->file, "initializer", &g->t[k], err);
        if (st != DV_OK)
            return st;
    }
    g->inputs = malloc((gp->n_input + 1) * sizeof *g->inputs);
    g->outputs = malloc((gp->n_output + 1) * sizeof *g->outputs);
    if (!g->inputs || !g->outputs)
        return nomem(g->file, err);
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        if (!vi || !vi->name)
            return dv_error_set(err, DV_ERR_INPUT, "%s: a graph input without a name", g->file);
        int k = dv_graph_find_tensor(g, vi->name);
        if (k >= 0 && g->t[k].data)
            continue; /* IR < 4 lists the initializers among the inputs */
        dv_status st = define_tensor(g, vi->name, "graph input", &k, err);
        if (st == DV_OK)
            st = read_value_info(g, vi, &g->t[k], err);
        if (st != DV_OK)
            return st;
        g->t[k].is_input = true;
        g->inputs[g->ninputs++] = k;
    }
    for (size_t i = 0; i < gp->n_node; i++) {
        if (!gp->node[i])
            return dv_error_set(err, DV_ERR_INPUT, "%s: an empty node", g->file);
        dv_status st = read_node(g, gp->node[i], err);
        if (st != DV_OK)
            return st;
    }
    for (size_t i = 0; i < gp->n_output; i++) {
        const Onnx__ValueInfoProto *vi = gp->output[i];
        int k = vi && vi->name ? dv_graph_find_tensor(g, vi->name) : -1;
        if (k < 0)
            return dv_error_set(err, DV_ERR_INPUT, "%s: graph output '%s' is not produced by the graph",
                                g->file, vi && vi->name ? vi->name : "");
        if (g->t[k].rank < 0 && !g->t[k].data) {
            dv_gtensor decl = {.rank = -1};
            dv_status st = read_value_info(g, vi, &decl, err);
            if (st != DV_OK)
                return st;
            g->t[k].dtype = g->t[k].dtype ? g->t[k].dtype : decl.dtype;
        }
        g->t[k].is_output = true;
        g->outputs[g->noutputs++] = k;
    }
    if (g->noutputs == 0)
        return dv_error_set(err, DV_ERR_INPUT, "%s: the graph has no outputs", g->file);
    return DV_OK;
}

dv_status dv_graph_import(const uint8_t *bytes, size_t len, const char *file, dv_graph **out, dv_error *err)
{
    *out = NULL;
    dv_graph *g = dv_graph_new(file);
    if (!g)
        return nomem(file, err);
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, bytes);
    if (!m) {
        dv_graph_destroy(g);
        return dv_error_set(err, DV_ERR_INPUT, "%s: not a valid ONNX model (malformed or truncated protobuf)",
                            file);
    }
    dv_status st = read_graph(g, m, err);
    dv_graph_error_clean(err);
    onnx__model_proto__free_unpacked(m, NULL);
    if (st != DV_OK) {
        dv_graph_destroy(g);
        return st;
    }
    *out = g;
    return DV_OK;
}

dv_status dv_graph_import_file(const char *path, dv_graph **out, dv_error *err)
{
    char *data;
    size_t len;
    *out = NULL;
    dv_status st = dv_read_file(path, &data, &len, err);
    if (st != DV_OK)
        return st;
    st = dv_graph_import((const uint8_t *)data, len, path, out, err);
    free(data);
    return st;
}
