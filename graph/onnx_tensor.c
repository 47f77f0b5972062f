/* onnx_tensor.c - ONNX TensorProto values into dv_gtensor (dims, dtype and
 * the data as doubles), with every count and size checked against the shape:
 * a file says what it holds, and the reader believes none of it unchecked. */
#include "dv_file.h"
#include "dv_fp.h"
#include "onnx_priv.h"

#include <stdlib.h>
#include <string.h>

static unsigned dtype_bytes(int dt)
{
    switch (dt) {
    case DV_GDT_FLOAT: return 4;
    case DV_GDT_UINT8:
    case DV_GDT_INT8:
    case DV_GDT_BOOL: return 1;
    case DV_GDT_INT32: return 4;
    case DV_GDT_INT64: return 8;
    case DV_GDT_FLOAT16: return 2;
    case DV_GDT_DOUBLE: return 8;
    default: return 0;
    }
}

/* Little-endian loads from raw_data (ONNX stores raw data little-endian). */
static uint64_t load_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static double raw_elem(const uint8_t *p, int dt)
{
    switch (dt) {
    case DV_GDT_FLOAT: {
        uint32_t u = (uint32_t)load_le(p, 4);
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case DV_GDT_DOUBLE: {
        uint64_t u = load_le(p, 8);
        double d;
        memcpy(&d, &u, 8);
        return d;
    }
    case DV_GDT_FLOAT16: return dv_fp16_to_f32((uint16_t)load_le(p, 2));
    case DV_GDT_UINT8: return p[0];
    case DV_GDT_BOOL: return p[0] != 0;
    case DV_GDT_INT8: return (int8_t)p[0];
    case DV_GDT_INT32: return (int32_t)(uint32_t)load_le(p, 4);
    case DV_GDT_INT64: return (double)(int64_t)load_le(p, 8);
    default: return 0;
    }
}

dv_status onnx_tensor_fill(const Onnx__TensorProto *tp, const char *file, const char *what, dv_gtensor *t,
                           dv_error *err)
{
    const char *name = tp->name ? tp->name : "";
    int dt = tp->has_data_type ? tp->data_type : 0;
    if (!dtype_bytes(dt))
        return dv_error_set(err, DV_ERR_INPUT, "%s: %s '%s': data type %d is not supported", file, what, name,
                            dt);
    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return dv_error_set(err, DV_ERR_INPUT, "%s: %s '%s': external data is not supported", file, what,
                            name);
    if (tp->n_dims > DV_G_MAX_RANK)
        return dv_error_set(err, DV_ERR_INPUT, "%s: %s '%s': rank %zu exceeds %d", file, what, name,
                            tp->n_dims, DV_G_MAX_RANK);
    t->dtype = dt;
    t->rank = (int)tp->n_dims;
    for (size_t i = 0; i < tp->n_dims; i++) {
        if (tp->dims[i] < 0)
            return dv_error_set(err, DV_ERR_INPUT, "%s: %s '%s': negative dimension %lld", file, what, name,
                                (long long)tp->dims[i]);
        t->dims[i] = tp->dims[i];
    }
    int64_t count = dv_gtensor_count(t);
    if (count < 0)
        return dv_error_set(err, DV_ERR_INPUT, "%s: %s '%s': more than %d elements", file, what, name,
                            DV_G_MAX_ELEMS);
    size_t n = (size_t)count, have;
    unsigned eb = dtype_bytes(dt);
    /* the count the file holds, checked before anything of the shape's size is allocated */
    if (tp->has_raw_data)
        have = tp->raw_data.len == n * eb ? n : tp->raw_data.len / eb == n ? n + 1 : tp->raw_data.len / eb;
    else if (dt == DV_GDT_FLOAT)
        have = tp->n_float_data;
    else if (dt == DV_GDT_DOUBLE)
        have = tp->n_double_data;
    else if (dt == DV_GDT_INT64)
        have = tp->n_int64_data;
    else /* int32, int8, uint8, bool, fp16 (as its bits) live in int32_data */
        have = tp->n_int32_data;
    if (have != n)
        return dv_error_set(err, DV_ERR_INPUT, "%s: %s '%s': %zu elements of data for a shape of %zu", file,
                            what, name, have, n);
    double *d = malloc((n ? n : 1) * sizeof *d);
    if (!d)
        return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory for %s '%s'", file, what, name);
    for (size_t i = 0; i < n; i++) {
        if (tp->has_raw_data)
            d[i] = raw_elem(tp->raw_data.data + i * eb, dt);
        else if (dt == DV_GDT_FLOAT)
            d[i] = tp->float_data[i];
        else if (dt == DV_GDT_DOUBLE)
            d[i] = tp->double_data[i];
        else if (dt == DV_GDT_INT64)
            d[i] = (double)tp->int64_data[i];
        else
            d[i] = dt == DV_GDT_FLOAT16 ? dv_fp16_to_f32((uint16_t)tp->int32_data[i]) : tp->int32_data[i];
    }
    free(t->data);
    t->data = d;
    return DV_OK;
}

dv_status dv_gtensor_read_pb(const uint8_t *bytes, size_t len, const char *file, dv_gtensor *t, dv_error *err)
{
    memset(t, 0, sizeof *t);
    t->rank = -1;
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, bytes);
    if (!tp)
        return dv_error_set(err, DV_ERR_INPUT, "%s: not a valid ONNX TensorProto (malformed or truncated)",
                            file);
    t->name = strdup(tp->name ? tp->name : "");
    dv_status st = t->name ? onnx_tensor_fill(tp, file, "tensor", t, err)
                           : dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", file);
    onnx__tensor_proto__free_unpacked(tp, NULL);
    dv_graph_error_clean(err);
    if (st != DV_OK)
        dv_gtensor_free(t);
    return st;
}

dv_status dv_gtensor_read_pb_file(const char *path, dv_gtensor *t, dv_error *err)
{
    char *data;
    size_t len;
    dv_status st = dv_read_file(path, &data, &len, err);
    if (st != DV_OK)
        return st;
    st = dv_gtensor_read_pb((const uint8_t *)data, len, path, t, err);
    free(data);
    return st;
}
