/* isa_text.c - one instruction in the assembler's syntax. */
#include "dv_isa.h"

#include <inttypes.h>
#include <stdio.h>

typedef struct out {
    char *buf;
    size_t size, len;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->len < o->size ? o->size - o->len : 0;
    int n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

static void put_number(out *o, int64_t v)
{
    if (v > -4096 && v < 4096)
        put(o, "%" PRId64, v);
    else if (v < 0)
        put(o, "-0x%" PRIx64, (uint64_t)0 - (uint64_t)v);
    else
        put(o, "0x%" PRIx64, (uint64_t)v);
}

size_t dv_isa_format_insn(const dv_insn *insn, uint64_t pc, dv_label_fn label_of, void *user, char *buf,
                          size_t size)
{
    out o = {buf, size, 0};
    if (size)
        buf[0] = '\0';
    const dv_insn_info *info = dv_isa_info(insn->op);
    if (!info) {
        put(&o, ".dword 0x%02x", (unsigned)insn->op);
        return o.len;
    }
    const dv_format *fmt = dv_isa_format(info->fmt);
    put(&o, "%s", info->mnemonic);
    for (unsigned i = 0; i < fmt->nops; i++) {
        const dv_opspec *spec = &fmt->ops[i];
        const dv_field_info *fi = dv_isa_field(spec->field);
        int64_t v = insn->f[spec->field];
        put(&o, i == 0 ? " " : ", ");
        if (spec->mem_base) {
            put_number(&o, v);
            put(&o, "(x%d)", (int)insn->f[DV_F_R1]);
            continue;
        }
        switch (fi->kind) {
        case DV_FK_REG: put(&o, "x%d", (int)v); break;
        case DV_FK_SIMM:
        case DV_FK_UIMM: put_number(&o, v); break;
        case DV_FK_TARGET: {
            uint64_t target = pc + (uint64_t)v;
            const char *label = label_of ? label_of(user, target) : NULL;
            if (label)
                put(&o, "%s", label);
            else
                put(&o, "0x%" PRIx64, target);
            break;
        }
        case DV_FK_CSR: {
            const dv_csr_info *csr = dv_csr_by_number((unsigned)v);
            if (csr)
                put(&o, "%s", csr->name);
            else
                put(&o, "0x%03x", (unsigned)v);
            break;
        }
        case DV_FK_ENUM: put(&o, "%s=%s", fi->key, fi->names[v]); break;
        case DV_FK_UINT: put(&o, "%s=%" PRId64, fi->key, v); break;
        }
    }
    return o.len;
}

size_t dv_isa_syntax(const dv_insn_info *info, char *buf, size_t size)
{
    out o = {buf, size, 0};
    if (size)
        buf[0] = '\0';
    const dv_format *fmt = dv_isa_format(info->fmt);
    put(&o, "%s", info->mnemonic);
    for (unsigned i = 0; i < fmt->nops; i++) {
        const dv_opspec *spec = &fmt->ops[i];
        const dv_field_info *fi = dv_isa_field(spec->field);
        put(&o, i == 0 ? " " : ", ");
        if (spec->mem_base) {
            put(&o, "offset(base)");
        } else if (fi->kind == DV_FK_ENUM) {
            put(&o, "%s%s=", spec->required ? "" : "[", fi->key);
            for (unsigned k = 0; k < fi->count; k++)
                put(&o, "%s%s", k ? "|" : "", fi->names[k]);
            if (!spec->required)
                put(&o, "]");
        } else if (fi->kind == DV_FK_UINT) {
            unsigned max = spec->width >= 31 ? 0xffffffffu : (1u << spec->width) - 1;
            if (spec->field == DV_F_CCMODE)
                max = 2;
            put(&o, "%s%s=0..%u%s", spec->required ? "" : "[", fi->key, max, spec->required ? "" : "]");
        } else {
            put(&o, "%s", spec->name);
        }
    }
    return o.len;
}
