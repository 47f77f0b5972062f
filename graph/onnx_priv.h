/* onnx_priv.h - what the importer's files share: the generated protobuf-c
 * types (onnx.pb-c.h, made at build time from libonnx-dev's onnx.proto). */
#ifndef DV_ONNX_PRIV_H
#define DV_ONNX_PRIV_H

#include "dv_graph.h"
#include "onnx.pb-c.h"

/* Fills t's dtype, shape and data from tp; what names the kind of tensor
 * for messages ("initializer"). */
dv_status onnx_tensor_fill(const Onnx__TensorProto *tp, const char *file, const char *what, dv_gtensor *t,
                           dv_error *err);

#endif
