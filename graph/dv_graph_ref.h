/* dv_graph_ref.h - shape inference and the CPU reference interpreter of the
 * graph IR (ref_*.c).
 *
 * One function per op does both: given its inputs' shapes (and the values of
 * those inputs a shape depends on: Reshape's shape, Slice's starts, ...) it
 * sets its outputs' shapes and dtypes; asked to compute, it also fills their
 * values, in double.  So the shapes the compiler plans with and the shapes
 * the reference produces cannot disagree. */
#ifndef DV_GRAPH_REF_H
#define DV_GRAPH_REF_H

#include "dv_graph.h"

/* Node i's output shapes from its inputs'; with compute, its outputs'
 * values too (every input must then hold its value).  Without compute, an
 * output whose shape depends on something unknown stays at rank -1.  An
 * inconsistent node (shapes that do not broadcast, an axis out of range) is
 * DV_ERR_INPUT naming the node and the file. */
dv_status dv_ref_node(dv_graph *g, unsigned i, bool compute, dv_error *err);
/* Every node's output shapes, in order. */
dv_status dv_graph_infer_shapes(dv_graph *g, dv_error *err);
/* Runs g on the given input values (inputs[k] for g->inputs[k]: shape, dtype
 * and data; their count must match) and returns a copy of g whose every
 * tensor holds its value (*values; destroy it). */
dv_status dv_ref_run(const dv_graph *g, const dv_gtensor *inputs, unsigned ninputs, dv_graph **values,
                     dv_error *err);

#endif
