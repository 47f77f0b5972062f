/* fuzz_onnx.c - fuzz harness for the ONNX importer (graph/onnx_import.c)
 * and the shape inference that follows it.
 *
 * Properties: arbitrary bytes either import (then shape inference runs and
 * either succeeds or rejects with one line, and a copy of the graph holds
 * the same tensors) or are rejected with a status of DV_ERR_INPUT (or
 * NOMEM) and one printable line naming the file; never a crash or a leak
 * (ASan).  The same bytes as a TensorProto go through the tensor reader. */
#include "dv_graph.h"
#include "dv_graph_ref.h"
#include "fuzz.h"

static void check_line(const dv_error *err)
{
    FUZZ_CHECK(err->msg[0] != '\0', "an error without a message");
    for (const char *p = err->msg; *p; p++)
        FUZZ_CHECK(*p != '\n', "a message of more than one line: %s", err->msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dv_graph *g;
    dv_error err = {0};
    dv_status st = dv_graph_import(data, size, "fuzz.onnx", &g, &err);
    if (st != DV_OK) {
        FUZZ_CHECK(st == DV_ERR_INPUT || st == DV_ERR_NOMEM, "status %d", (int)st);
        FUZZ_CHECK(strncmp(err.msg, "fuzz.onnx: ", 11) == 0, "message without the file: %s", err.msg);
        check_line(&err);
    } else {
        FUZZ_CHECK(g->noutputs > 0, "an imported graph without outputs");
        dv_graph *c = dv_graph_clone(g);
        if (c) {
            FUZZ_CHECK(c->ntensors == g->ntensors && c->nnodes == g->nnodes, "the copy differs");
            dv_graph_destroy(c);
        }
        dv_error e2 = {0};
        if (dv_graph_infer_shapes(g, &e2) != DV_OK)
            check_line(&e2);
        dv_graph_destroy(g);
    }
    dv_gtensor t;
    dv_error e3 = {0};
    if (dv_gtensor_read_pb(data, size, "fuzz.pb", &t, &e3) == DV_OK) {
        FUZZ_CHECK(t.rank >= 0 && t.data, "a tensor without shape or data");
        dv_gtensor_free(&t);
    } else
        check_line(&e3);
    return 0;
}
