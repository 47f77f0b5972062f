/* dvm.c - writes a compiled plan as a .dvm file: a header, a section table
 * and the sections META (key = value lines: what was compiled, for which
 * chip, the report's figures), TENSORS (fixed records), STEPS (fixed
 * records) and WEIGHTS (the weights region, packed), each with its CRC32.
 * Written whole to a temporary name and renamed (dv_file.h). */
#include "dv_buf.h"
#include "dv_file.h"
#include "dvm_priv.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void put_u8(dv_buf *b, unsigned v)
{
    uint8_t c = (uint8_t)v;
    dv_buf_append(b, &c, 1);
}

static void put_u32(dv_buf *b, uint32_t v)
{
    uint8_t c[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    dv_buf_append(b, c, 4);
}

static void put_u64(dv_buf *b, uint64_t v)
{
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}

static void put_f64(dv_buf *b, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    put_u64(b, u);
}

static void put_str(dv_buf *b, const char *s, size_t field)
{
    char tmp[256] = {0};
    size_t n = strlen(s);
    memcpy(tmp, s, n < field - 1 ? n : field - 1);
    dv_buf_append(b, tmp, field);
}

static void put_tensor(dv_buf *b, const dv_plan_tensor *t)
{
    size_t start = b->len;
    put_str(b, t->name, 96);
    put_u8(b, t->layout);
    put_u8(b, (t->weight ? 1u : 0u) | (t->input ? 2u : 0u) | (t->output ? 4u : 0u));
    put_u8(b, (unsigned)t->rank);
    put_u8(b, 0);
    put_u32(b, (uint32_t)t->alias);
    put_u32(b, (uint32_t)t->first);
    put_u32(b, (uint32_t)t->last);
    put_u64(b, t->bytes);
    put_u64(b, t->offset);
    for (int d = 0; d < DV_G_MAX_RANK; d++)
        put_u64(b, d < t->rank ? (uint64_t)t->dims[d] : 0);
    while (b->len - start < DVM_TENSOR && !b->oom)
        put_u8(b, 0);
}

static void put_step(dv_buf *b, const dv_plan_step *s)
{
    size_t start = b->len;
    put_u8(b, s->kind);
    put_u8(b, 0);
    put_u8(b, 0);
    put_u8(b, 0);
    put_str(b, s->op, sizeof s->op);
    put_str(b, s->variant, sizeof s->variant);
    put_str(b, s->dtype, sizeof s->dtype);
    put_str(b, s->params, sizeof s->params);
    put_str(b, s->note, sizeof s->note);
    put_u32(b, s->nin);
    put_u32(b, s->nout);
    for (unsigned k = 0; k < DV_STEP_MAX_IO; k++)
        put_u32(b, (uint32_t)(k < s->nin ? s->in[k] : -1));
    for (unsigned k = 0; k < DV_STEP_MAX_IO; k++)
        put_u32(b, (uint32_t)(k < s->nout ? s->out[k] : -1));
    put_f64(b, s->cost_cycles);
    put_u64(b, s->gm_bytes);
    while (b->len - start < DVM_STEP && !b->oom)
        put_u8(b, 0);
}

static void put_meta(dv_buf *b, const dv_plan *p)
{
    const dv_plan_report *r = &p->rep;
    dv_buf_printf(b, "format = dvm %d\nsource = %s\nchip = %s\nopt = %d\nhbm_bytes_per_cycle = %llu\n",
                  DVM_VERSION, p->g ? p->g->file : "", p->chip, p->opt,
                  (unsigned long long)p->hbm_bytes_per_cycle);
    dv_buf_printf(b, "nodes_in = %u\nshape_folded = %u\nconst_folded = %u\nbn_folded = %u\naliases = %u\n",
                  r->nodes_in, r->shape_folded, r->const_folded, r->bn_folded, r->aliases);
    dv_buf_printf(b,
                  "fused_conv = %u\nfused_matmul = %u\nfused_attention = %u\nfused_gelu = %u\nlayernorms = "
                  "%u\nrmsnorms = %u\n",
                  r->fused_conv, r->fused_matmul, r->fused_attention, r->fused_gelu, r->layernorms,
                  r->rmsnorms);
    dv_buf_printf(b, "nz_weights = %u\nfracz_weights = %u\nconversions = %u\nconversion_cycles = %.17g\n",
                  r->nz_weights, r->fracz_weights, r->conversions, r->conversion_cycles);
    dv_buf_printf(b, "steps_device = %u\nsteps_host = %u\nsteps_layout = %u\n", r->steps_device,
                  r->steps_host, r->steps_layout);
    dv_buf_printf(b, "weights_bytes = %llu\npeak_no_reuse = %llu\npeak = %llu\n",
                  (unsigned long long)r->weights_bytes, (unsigned long long)r->peak_no_reuse,
                  (unsigned long long)r->peak);
}

dv_status dv_dvm_write(const dv_plan *p, const char *path, dv_error *err)
{
    dv_buf sec[4] = {DV_BUF_INIT, DV_BUF_INIT, DV_BUF_INIT, DV_BUF_INIT};
    put_meta(&sec[0], p);
    put_u32(&sec[1], p->ntensors);
    for (unsigned i = 0; i < p->ntensors; i++)
        put_tensor(&sec[1], &p->t[i]);
    put_u32(&sec[2], p->nsteps);
    for (unsigned i = 0; i < p->nsteps; i++)
        put_step(&sec[2], &p->s[i]);
    dv_buf_append(&sec[3], p->weights, p->rep.weights_bytes);
    dv_buf out = DV_BUF_INIT, table = DV_BUF_INIT;
    uint64_t off = DVM_HEADER + 4 * DVM_SECTION;
    static const uint32_t ids[4] = {DVM_META, DVM_TENSORS, DVM_STEPS, DVM_WEIGHTS};
    for (unsigned i = 0; i < 4; i++) {
        put_u32(&table, ids[i]);
        put_u32(&table, (uint32_t)crc32_z(0, (const Bytef *)(sec[i].data ? sec[i].data : ""), sec[i].len));
        put_u64(&table, off);
        put_u64(&table, sec[i].len);
        off += sec[i].len;
    }
    dv_buf_append(&out, DVM_MAGIC "\0", 8);
    put_u32(&out, DVM_VERSION);
    put_u32(&out, 4);
    put_u64(&out, off);
    put_u32(&out, (uint32_t)crc32_z(0, (const Bytef *)table.data, table.len));
    put_u32(&out, 0);
    dv_buf_append(&out, table.data, table.len);
    for (unsigned i = 0; i < 4; i++)
        if (sec[i].len)
            dv_buf_append(&out, sec[i].data, sec[i].len);
    bool oom = out.oom || table.oom;
    for (unsigned i = 0; i < 4; i++) {
        oom |= sec[i].oom;
        dv_buf_free(&sec[i]);
    }
    dv_buf_free(&table);
    dv_status st = oom ? dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", path)
                       : dv_write_file_atomic(path, out.data, out.len, err);
    dv_buf_free(&out);
    return st;
}
