/* dv_graph.h - the graph IR of graph/: an ONNX model as tensors and nodes.
 *
 * A dv_graph owns everything it points to.  Tensors carry an ONNX dtype
 * (TensorProto.DataType numbering), a shape (rank -1: unknown; a dim -1:
 * unknown, e.g. a symbolic batch) and, for constants (initializers, Constant
 * nodes, folded results), their values as doubles, row-major: every dtype
 * the supported operators use (float, fp16, int64 shapes below 2^53) is
 * exact in a double, and one element type keeps the reference and the
 * folding passes one code path.  Nodes list their inputs and outputs as
 * tensor indices (-1: an optional input left out) in file order, which
 * ONNX requires to be topological and the importer checks. */
#ifndef DV_GRAPH_H
#define DV_GRAPH_H

#include "dv_status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    DV_G_MAX_RANK = 8,
    /* The most elements one tensor may hold (2^28 doubles = 2 GiB): a
     * limit on what a file can make the importer or a folding pass allocate. */
    DV_G_MAX_ELEMS = 1 << 28,
};

/* ONNX TensorProto.DataType values the graph handles. */
enum {
    DV_GDT_FLOAT = 1,
    DV_GDT_UINT8 = 2,
    DV_GDT_INT8 = 3,
    DV_GDT_INT32 = 6,
    DV_GDT_INT64 = 7,
    DV_GDT_BOOL = 9,
    DV_GDT_FLOAT16 = 10,
    DV_GDT_DOUBLE = 11,
};

typedef enum dv_gop {
#define DV_GOP(id, name, min_in, max_in, nout, shape_op) DV_GOP_##id,
#include "graph_ops.def"
#undef DV_GOP
    DV_GOP_COUNT
} dv_gop;

typedef struct dv_gtensor {
    char *name;
    int dtype; /* DV_GDT_*; 0 unknown */
    int rank;  /* -1: unknown */
    int64_t dims[DV_G_MAX_RANK];
    double *data; /* the value of a constant, dv_gtensor_count() elements; NULL otherwise */
    bool is_input, is_output;
} dv_gtensor;

typedef enum dv_gattr_type {
    DV_GATTR_FLOAT,
    DV_GATTR_INT,
    DV_GATTR_STRING,
    DV_GATTR_FLOATS,
    DV_GATTR_INTS,
    DV_GATTR_TENSOR,
} dv_gattr_type;

typedef struct dv_gattr {
    char *name;
    dv_gattr_type type;
    double f;
    int64_t i;
    char *s;
    size_t n; /* FLOATS, INTS */
    double *floats;
    int64_t *ints;
    int tensor; /* TENSOR: the index of a constant tensor holding the value */
} dv_gattr;

typedef struct dv_gnode {
    char *name;
    dv_gop op;
    unsigned nin, nout, nattr;
    int *in, *out;
    dv_gattr *attr;
} dv_gnode;

typedef struct dv_graph {
    char *file; /* where it came from, for messages */
    char *name;
    int64_t opset;
    unsigned ntensors, tcap, nnodes, ncap;
    dv_gtensor *t;
    dv_gnode *n;
    unsigned ninputs, noutputs;
    int *inputs, *outputs; /* graph inputs (not the initializers) and outputs */
} dv_graph;

/* The ONNX name of an op ("MatMul") and whether it is a shape op. */
const char *dv_gop_name(dv_gop op);
bool dv_gop_is_shape_op(dv_gop op);
/* DV_GOP_COUNT if name is not a supported op type. */
dv_gop dv_gop_find(const char *name);
/* "float32", "int64", ... ("dtype N" for others, in a static buffer of the caller's). */
const char *dv_gdtype_name(int dtype);

dv_graph *dv_graph_new(const char *file);
void dv_graph_destroy(dv_graph *g);
/* Adds a tensor (name copied); its index or -1 when memory ran out. */
int dv_graph_add_tensor(dv_graph *g, const char *name);
int dv_graph_find_tensor(const dv_graph *g, const char *name);
/* Appends a node with nin inputs and nout outputs (all -1) and nattr
 * attributes (zeroed); NULL when memory ran out. */
dv_gnode *dv_graph_add_node(dv_graph *g, const char *name, dv_gop op, unsigned nin, unsigned nout,
                            unsigned nattr);
/* Elements of a tensor of known shape (1 for rank 0); -1 if t is NULL, a dim is unknown or the count exceeds
 * DV_G_MAX_ELEMS. */
int64_t dv_gtensor_count(const dv_gtensor *t);
/* "[2,3,?]" into buf. */
const char *dv_gtensor_shape_str(const dv_gtensor *t, char *buf, size_t len);

/* Attributes of a node, by name (NULL if absent), and with defaults. */
const dv_gattr *dv_gnode_attr(const dv_gnode *n, const char *name);
int64_t dv_gnode_attr_int(const dv_gnode *n, const char *name, int64_t def);
double dv_gnode_attr_float(const dv_gnode *n, const char *name, double def);

/* Names come from the file: a message that quotes one may hold control
 * bytes.  Every public entry point of graph/ passes its error through this,
 * which turns them into '?' (UTF-8 stays), so a message stays one line. */
void dv_graph_error_clean(dv_error *err);

/* A deep copy (the compiler rewrites its own copy); NULL when memory ran out. */
dv_graph *dv_graph_clone(const dv_graph *g);

/* Makes graph input k a constant of the given value (its shape and data
 * copied) and drops it from the inputs: a shape given as an input (the node
 * tests' Reshape, Slice, Expand) is known at compile time. */
dv_status dv_graph_bind_input(dv_graph *g, unsigned k, const dv_gtensor *value, dv_error *err);

/* Reads an ONNX model (onnx_import.c).  Errors are DV_ERR_INPUT (exit 65)
 * with one line naming the file and, for a node, its name and op type: a
 * malformed or truncated protobuf, an unsupported op, a tensor whose data
 * does not match its shape, an input used before it is defined.  A missing
 * file is DV_ERR_MISSING. */
dv_status dv_graph_import(const uint8_t *bytes, size_t len, const char *file, dv_graph **out, dv_error *err);
dv_status dv_graph_import_file(const char *path, dv_graph **out, dv_error *err);
/* Reads one serialised TensorProto (the node tests' input_N.pb) into t
 * (name, dtype, shape and data malloc'd; free with dv_gtensor_free). */
dv_status dv_gtensor_read_pb(const uint8_t *bytes, size_t len, const char *file, dv_gtensor *t,
                             dv_error *err);
dv_status dv_gtensor_read_pb_file(const char *path, dv_gtensor *t, dv_error *err);
void dv_gtensor_free(dv_gtensor *t);

#endif
