/* fuzz_onnx.c - fuzz harness for the ONNX importer (graph/onnx_import.c)
 * and the shape inference that follows it.
 *
 * Properties: arbitrary bytes either import (then shape inference runs and
 * either succeeds or rejects with one line, and a copy of the graph holds
 * the same tensors) or are rejected with a status of DV_ERR_INPUT (or
 * NOMEM) and one printable line naming the file; never a crash or a leak
 * (ASan).  The same bytes as a TensorProto go through the tensor reader,
 * and through the .dvm reader twice: as they are, and with the CRCs of a
 * plausible .dvm recomputed, so that mutations reach the section parsing
 * behind the checksums. */
#include "dv_graph.h"
#include "dv_graph_ref.h"
#include "dv_plan.h"
#include "fuzz.h"

#include <zlib.h>

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A copy of data with the sections' and the table's CRC32s made right (the layout of docs/graphs.md). */
static uint8_t *fix_crcs(const uint8_t *data, size_t size)
{
    if (size < 32 || memcmp(data, "DVMODEL", 8) != 0)
        return NULL;
    uint8_t *b = malloc(size);
    if (!b)
        return NULL;
    memcpy(b, data, size);
    uint32_t n = le32(b + 12);
    if (n > 16 || 32 + (uint64_t)n * 24 > size) {
        free(b);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *e = b + 32 + 24 * i;
        uint64_t off = le64(e + 8), len = le64(e + 16);
        if (off <= size && len <= size - off)
            put32(e + 4, (uint32_t)crc32_z(0, b + off, (size_t)len));
    }
    put32(b + 24, (uint32_t)crc32_z(0, b + 32, (size_t)n * 24));
    return b;
}

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
    uint8_t *fixed = fix_crcs(data, size);
    for (int pass = 0; pass < (fixed ? 2 : 1); pass++) {
        dv_plan *p;
        dv_error e4 = {0};
        if (dv_dvm_read(pass ? fixed : data, size, "fuzz.dvm", &p, &e4) == DV_OK) {
            for (unsigned i = 0; i < p->nsteps; i++)
                for (unsigned k = 0; k < p->s[i].nin; k++)
                    FUZZ_CHECK((unsigned)p->s[i].in[k] < p->ntensors, "a step input out of range");
            dv_plan_destroy(p);
        } else
            check_line(&e4);
    }
    free(fixed);
    return 0;
}
