/* dvm_read.c - reads a .dvm back into a plan (without its graph), checking
 * everything before it is used: magic, version, the section table's CRC and
 * bounds, each section's CRC, record counts against section sizes, strings
 * terminated within their fields, enums and indices in range, every
 * weight inside the weights section.  Anything else is one line and
 * DV_ERR_INPUT (exit 65). */
#include "dv_file.h"
#include "dvm_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct rd {
    const uint8_t *p;
    size_t len, pos;
} rd;

static uint32_t get_u32(rd *r)
{
    const uint8_t *b = r->p + r->pos;
    r->pos += 4;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t get_u64(rd *r)
{
    uint64_t lo = get_u32(r);
    return lo | (uint64_t)get_u32(r) << 32;
}

/* A fixed string field: false if it has no NUL. */
static bool get_str(rd *r, char *out, size_t field)
{
    const char *s = (const char *)r->p + r->pos;
    r->pos += field;
    if (!memchr(s, '\0', field))
        return false;
    memcpy(out, s, field);
    return true;
}

static dv_status bad(dv_error *err, const char *file, const char *what)
{
    return dv_error_set(err, DV_ERR_INPUT, "%s: not a valid .dvm file: %s", file, what);
}

static dv_status read_tensors(dv_plan *p, rd *r, const char *file, dv_error *err)
{
    if (r->len < 4)
        return bad(err, file, "TENSORS section too short");
    uint32_t n = get_u32(r);
    if ((uint64_t)n * DVM_TENSOR != r->len - 4)
        return bad(err, file, "TENSORS section size does not match its count");
    p->t = calloc(n ? n : 1, sizeof *p->t);
    if (!p->t)
        return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", file);
    p->ntensors = p->tcap = n;
    for (uint32_t i = 0; i < n; i++) {
        dv_plan_tensor *t = &p->t[i];
        size_t start = r->pos;
        if (!get_str(r, t->name, sizeof t->name))
            return bad(err, file, "a tensor name is not terminated");
        unsigned layout = r->p[r->pos], flags = r->p[r->pos + 1], rank = r->p[r->pos + 2];
        r->pos += 4;
        if (layout >= DV_TL_COUNT || rank > DV_G_MAX_RANK || flags > 7)
            return bad(err, file, "a tensor's layout, flags or rank out of range");
        t->layout = (dv_tlayout)layout;
        t->weight = flags & 1;
        t->input = flags & 2;
        t->output = flags & 4;
        t->rank = (int)rank;
        t->gt = -1;
        t->alias = (int32_t)get_u32(r);
        t->first = (int32_t)get_u32(r);
        t->last = (int32_t)get_u32(r);
        t->bytes = get_u64(r);
        t->offset = get_u64(r);
        for (int d = 0; d < DV_G_MAX_RANK; d++) {
            uint64_t v = get_u64(r);
            if (v > DV_G_MAX_ELEMS)
                return bad(err, file, "a tensor dimension out of range");
            t->dims[d] = d < t->rank ? (int64_t)v : 0;
        }
        if (t->alias < -1 || t->alias >= (int32_t)n || t->alias == (int32_t)i)
            return bad(err, file, "a tensor alias out of range");
        if (t->bytes > (uint64_t)1 << 40 || t->offset > (uint64_t)1 << 40)
            return bad(err, file, "a tensor size or offset out of range");
        r->pos = start + DVM_TENSOR;
    }
    return DV_OK;
}

static dv_status read_steps(dv_plan *p, rd *r, const char *file, dv_error *err)
{
    if (r->len < 4)
        return bad(err, file, "STEPS section too short");
    uint32_t n = get_u32(r);
    if ((uint64_t)n * DVM_STEP != r->len - 4)
        return bad(err, file, "STEPS section size does not match its count");
    p->s = calloc(n ? n : 1, sizeof *p->s);
    if (!p->s)
        return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", file);
    p->nsteps = p->scap = n;
    for (uint32_t i = 0; i < n; i++) {
        dv_plan_step *s = &p->s[i];
        size_t start = r->pos;
        unsigned kind = r->p[r->pos];
        r->pos += 4;
        if (kind > DV_STEP_LAYOUT)
            return bad(err, file, "a step kind out of range");
        s->kind = (dv_step_kind)kind;
        if (!get_str(r, s->op, sizeof s->op) || !get_str(r, s->variant, sizeof s->variant) ||
            !get_str(r, s->dtype, sizeof s->dtype) || !get_str(r, s->params, sizeof s->params) ||
            !get_str(r, s->note, sizeof s->note))
            return bad(err, file, "a step string is not terminated");
        s->nin = get_u32(r);
        s->nout = get_u32(r);
        if (s->nin > DV_STEP_MAX_IO || s->nout > DV_STEP_MAX_IO)
            return bad(err, file, "a step with too many tensors");
        for (unsigned k = 0; k < DV_STEP_MAX_IO; k++)
            s->in[k] = (int32_t)get_u32(r);
        for (unsigned k = 0; k < DV_STEP_MAX_IO; k++)
            s->out[k] = (int32_t)get_u32(r);
        for (unsigned k = 0; k < s->nin + s->nout; k++) {
            int t = k < s->nin ? s->in[k] : s->out[k - s->nin];
            if (t < 0 || (unsigned)t >= p->ntensors)
                return bad(err, file, "a step's tensor index out of range");
        }
        uint64_t cost = get_u64(r);
        memcpy(&s->cost_cycles, &cost, sizeof cost);
        s->gm_bytes = get_u64(r);
        r->pos = start + DVM_STEP;
    }
    return DV_OK;
}

/* One "key = value" of META into the report's figures; unknown keys are skipped (later versions add some). */
static void meta_line(dv_plan *p, const char *key, const char *val)
{
    dv_plan_report *r = &p->rep;
    struct {
        const char *key;
        unsigned *u;
        uint64_t *u64;
    } f[] = {{"nodes_in", &r->nodes_in, NULL},
             {"shape_folded", &r->shape_folded, NULL},
             {"const_folded", &r->const_folded, NULL},
             {"bn_folded", &r->bn_folded, NULL},
             {"aliases", &r->aliases, NULL},
             {"fused_conv", &r->fused_conv, NULL},
             {"fused_matmul", &r->fused_matmul, NULL},
             {"fused_attention", &r->fused_attention, NULL},
             {"fused_gelu", &r->fused_gelu, NULL},
             {"layernorms", &r->layernorms, NULL},
             {"rmsnorms", &r->rmsnorms, NULL},
             {"nz_weights", &r->nz_weights, NULL},
             {"fracz_weights", &r->fracz_weights, NULL},
             {"conversions", &r->conversions, NULL},
             {"steps_device", &r->steps_device, NULL},
             {"steps_host", &r->steps_host, NULL},
             {"steps_layout", &r->steps_layout, NULL},
             {"weights_bytes", NULL, &r->weights_bytes},
             {"peak_no_reuse", NULL, &r->peak_no_reuse},
             {"peak", NULL, &r->peak},
             {"hbm_bytes_per_cycle", NULL, &p->hbm_bytes_per_cycle}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (strcmp(key, f[i].key) == 0) {
            unsigned long long v = strtoull(val, NULL, 10);
            if (f[i].u)
                *f[i].u = (unsigned)v;
            else
                *f[i].u64 = v;
        }
    if (strcmp(key, "chip") == 0)
        snprintf(p->chip, sizeof p->chip, "%s", val);
    else if (strcmp(key, "opt") == 0)
        p->opt = atoi(val);
    else if (strcmp(key, "conversion_cycles") == 0)
        r->conversion_cycles = strtod(val, NULL);
}

static void read_meta(dv_plan *p, const uint8_t *data, size_t len)
{
    char line[512];
    size_t i = 0;
    while (i < len) {
        size_t k = 0;
        while (i < len && data[i] != '\n') {
            if (k + 1 < sizeof line)
                line[k++] = (char)data[i];
            i++;
        }
        i++;
        line[k] = '\0';
        char *eq = strstr(line, " = ");
        if (eq) {
            *eq = '\0';
            meta_line(p, line, eq + 3);
        }
    }
}

static dv_status read_all(dv_plan *p, const uint8_t *b, size_t len, const char *file, dv_error *err)
{
    if (len < DVM_HEADER || memcmp(b, DVM_MAGIC "\0", 8) != 0)
        return bad(err, file, len < 8 ? "truncated" : "no DVMODEL magic");
    rd r = {b, len, 8};
    uint32_t version = get_u32(&r), nsec = get_u32(&r);
    uint64_t size = get_u64(&r);
    uint32_t table_crc = get_u32(&r);
    if (version != DVM_VERSION)
        return dv_error_set(err, DV_ERR_INPUT, "%s: .dvm version %u; this dvsim reads version %d", file,
                            version, DVM_VERSION);
    if (size != len)
        return bad(err, file, size > len ? "truncated" : "trailing bytes after the last section");
    if (nsec == 0 || nsec > DVM_MAX_SECTIONS || DVM_HEADER + (uint64_t)nsec * DVM_SECTION > len)
        return bad(err, file, "section table out of range");
    if (crc32_z(0, b + DVM_HEADER, (size_t)nsec * DVM_SECTION) != table_crc)
        return bad(err, file, "section table CRC mismatch");
    r.pos = DVM_HEADER;
    const uint8_t *sec[5] = {NULL};
    size_t slen[5] = {0};
    for (uint32_t i = 0; i < nsec; i++) {
        uint32_t id = get_u32(&r), crc = get_u32(&r);
        uint64_t off = get_u64(&r), n = get_u64(&r);
        if (off > len || n > len - off)
            return bad(err, file, "a section beyond the end of the file");
        if (crc32_z(0, b + off, (size_t)n) != crc)
            return bad(err, file, "section CRC mismatch (corrupt)");
        if (id >= 1 && id <= 4) {
            if (sec[id])
                return bad(err, file, "a section given twice");
            sec[id] = b + off;
            slen[id] = (size_t)n;
        }
    }
    for (unsigned id = 1; id <= 4; id++)
        if (!sec[id])
            return bad(err, file, "a required section (META, TENSORS, STEPS, WEIGHTS) is missing");
    read_meta(p, sec[DVM_META], slen[DVM_META]);
    dv_status st = read_tensors(p, &(rd){sec[DVM_TENSORS], slen[DVM_TENSORS], 0}, file, err);
    if (st == DV_OK)
        st = read_steps(p, &(rd){sec[DVM_STEPS], slen[DVM_STEPS], 0}, file, err);
    if (st != DV_OK)
        return st;
    for (unsigned i = 0; i < p->ntensors; i++) {
        const dv_plan_tensor *t = &p->t[i];
        if (t->weight && (t->offset > slen[DVM_WEIGHTS] || t->bytes > slen[DVM_WEIGHTS] - t->offset))
            return bad(err, file, "a weight beyond the weights section");
    }
    p->rep.weights_bytes = slen[DVM_WEIGHTS];
    p->weights = malloc(slen[DVM_WEIGHTS] ? slen[DVM_WEIGHTS] : 1);
    if (!p->weights)
        return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", file);
    if (slen[DVM_WEIGHTS])
        memcpy(p->weights, sec[DVM_WEIGHTS], slen[DVM_WEIGHTS]);
    return DV_OK;
}

dv_status dv_dvm_read(const uint8_t *bytes, size_t len, const char *file, dv_plan **out, dv_error *err)
{
    *out = NULL;
    dv_plan *p = calloc(1, sizeof *p);
    if (!p)
        return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", file);
    p->streams = 1; /* dvsim compile plans the memory for one stream */
    dv_status st = read_all(p, bytes, len, file, err);
    if (st != DV_OK) {
        dv_graph_error_clean(err);
        dv_plan_destroy(p);
        return st;
    }
    *out = p;
    return DV_OK;
}

dv_status dv_dvm_read_file(const char *path, dv_plan **out, dv_error *err)
{
    char *data;
    size_t len;
    *out = NULL;
    dv_status st = dv_read_file(path, &data, &len, err);
    if (st != DV_OK)
        return st;
    st = dv_dvm_read((const uint8_t *)data, len, path, out, err);
    free(data);
    return st;
}
