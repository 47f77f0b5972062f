/* isa_table.c - the instruction, CSR and layout tables, and the encoder and
 * decoder that every other part of dvsim goes through. */
#include "dv_isa.h"

#include <stdio.h>
#include <string.h>

const dv_insn_info dv_isa_rows[] = {
#define DV_INSN(id, opc, mn, fmt, pipe, cls, types, doc)                                                     \
    {DV_OP_##id, mn, DV_FMT_##fmt, DV_PIPE_##pipe, DV_TC_##cls, DV_TYPES_##types, doc},
#include "isa.def"
#undef DV_INSN
};
enum { NUM_INSNS = sizeof dv_isa_rows / sizeof dv_isa_rows[0] };

/* Row numbers of the table, so the opcode -> row map below is a constant. */
enum {
#define DV_INSN(id, opc, mn, fmt, pipe, cls, types, doc) DV_ROW_##id,
#include "isa.def"
#undef DV_INSN
};

/* opcode -> row + 1 (0 = unassigned). */
const unsigned char dv_isa_opcode_rows[256] = {
#define DV_INSN(id, opc, mn, fmt, pipe, cls, types, doc) [opc] = DV_ROW_##id + 1,
#include "isa.def"
#undef DV_INSN
};

const dv_insn_info *dv_isa_lookup(const char *mnemonic)
{
    for (size_t i = 0; i < NUM_INSNS; i++)
        if (strcmp(dv_isa_rows[i].mnemonic, mnemonic) == 0)
            return &dv_isa_rows[i];
    return NULL;
}

const dv_insn_info *dv_isa_lookup_n(const char *mnemonic, size_t len)
{
    for (size_t i = 0; i < NUM_INSNS; i++)
        if (strlen(dv_isa_rows[i].mnemonic) == len && memcmp(dv_isa_rows[i].mnemonic, mnemonic, len) == 0)
            return &dv_isa_rows[i];
    return NULL;
}

size_t dv_isa_count(void)
{
    return NUM_INSNS;
}

const dv_insn_info *dv_isa_at(size_t index)
{
    return index < NUM_INSNS ? &dv_isa_rows[index] : NULL;
}

/* ---- type rules (isa_types.def) ---- */

static const struct {
    unsigned dtype, from, to;
    bool distinct;
} type_rules[DV_TYPES_COUNT] = {
#define DV_TYPES(id, dtype, from, to, distinct) {dtype, from, to, distinct},
#include "isa_types.def"
#undef DV_TYPES
};

/* Appends the names of the types in set (dv_dtype order), joined by sep,
 * to the string in buf (cut at size). */
static void put_types(char *buf, size_t size, unsigned set, const char *sep)
{
    bool first = true;
    for (int d = 0; d < DV_DT_COUNT; d++) {
        if (!(set >> d & 1))
            continue;
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s", first ? "" : sep, dv_dtype_name((dv_dtype)d));
        first = false;
    }
}

static void put_text(char *buf, size_t size, const char *text)
{
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s", text);
}

const char *dv_types_doc(dv_types t, char *buf, size_t size)
{
    if (!size)
        return buf;
    buf[0] = '\0';
    if ((unsigned)t >= DV_TYPES_COUNT) {
        put_text(buf, size, "?");
        return buf;
    }
    unsigned dtype = type_rules[t].dtype, from = type_rules[t].from, to = type_rules[t].to;
    if (!dtype && !from && !to)
        put_text(buf, size, "any");
    put_types(buf, size, dtype, ", ");
    if (dtype && (from || to))
        put_text(buf, size, "; ");
    if (type_rules[t].distinct && from == to) {
        put_text(buf, size, "two different types of ");
        put_types(buf, size, from, ", ");
        put_text(buf, size, ", not both 8-bit");
        return buf;
    }
    if (from && to) {
        put_types(buf, size, from, " or ");
        put_text(buf, size, " to ");
        put_types(buf, size, to, " or ");
    } else if (from || to) {
        put_text(buf, size, from ? "from " : "to ");
        put_types(buf, size, from | to, " or ");
    }
    if (type_rules[t].distinct)
        put_text(buf, size, ", different and not both 8-bit");
    return buf;
}

/* Whether the instruction has field f (its format names it). */
static bool has_field(const dv_insn_info *info, dv_field f)
{
    const dv_format *fmt = dv_isa_format(info->fmt);
    for (unsigned i = 0; i < fmt->nops; i++)
        if (fmt->ops[i].field == f)
            return true;
    return false;
}

static bool type_in(const dv_insn_info *info, const dv_insn *in, dv_field f, unsigned set, char *why,
                    size_t size)
{
    if (!set || !has_field(info, f))
        return true;
    int64_t v = in->f[f];
    if (v >= 0 && v < DV_DT_COUNT && (set >> v & 1))
        return true;
    char names[128] = "";
    put_types(names, sizeof names, set, ", ");
    snprintf(why, size, "%s=%s is not one of %s", dv_isa_field(f)->key,
             v >= 0 && v < DV_DT_COUNT ? dv_dtype_name((dv_dtype)v) : "?", names);
    return false;
}

bool dv_isa_types_ok(const dv_insn *in, char *why, size_t size)
{
    const dv_insn_info *info = dv_isa_info(in->op);
    if (!info)
        return true;
    unsigned t = info->types;
    char doc[160];
    if (!type_in(info, in, DV_F_DTYPE, type_rules[t].dtype, why, size) ||
        !type_in(info, in, DV_F_FROM, type_rules[t].from, why, size) ||
        !type_in(info, in, DV_F_TO, type_rules[t].to, why, size))
        return false;
    if (type_rules[t].distinct && in->f[DV_F_FROM] == in->f[DV_F_TO]) {
        snprintf(why, size, "from and to are both %s (%s)", dv_dtype_name((dv_dtype)in->f[DV_F_FROM]),
                 dv_types_doc((dv_types)t, doc, sizeof doc));
        return false;
    }
    if (type_rules[t].distinct && dv_dtype_size((dv_dtype)in->f[DV_F_FROM]) == 1 &&
        dv_dtype_size((dv_dtype)in->f[DV_F_TO]) == 1) {
        snprintf(why, size, "from and to are both 8-bit (%s)", dv_types_doc((dv_types)t, doc, sizeof doc));
        return false;
    }
    return true;
}

/* ---- encode / decode ---- */

static uint64_t mask_of(unsigned width)
{
    return width >= 64 ? ~0ull : (1ull << width) - 1;
}

/* Checks that v is representable in spec's field; for signed kinds v is
 * taken as a signed value, else as unsigned. */
static dv_status check_value(const dv_insn_info *info, const dv_opspec *spec, int64_t v, dv_error *err)
{
    const dv_field_info *fi = dv_isa_field(spec->field);
    switch (fi->kind) {
    case DV_FK_SIMM:
    case DV_FK_TARGET:
        if (v < -(int64_t)(1ll << (spec->width - 1)) || v > (int64_t)((1ll << (spec->width - 1)) - 1))
            return dv_error_set(err, DV_ERR_INPUT, "%s: %s value %lld does not fit in %u signed bits",
                                info->mnemonic, fi->key, (long long)v, spec->width);
        if (fi->kind == DV_FK_TARGET && (v & (DV_INSN_BYTES - 1)))
            return dv_error_set(err, DV_ERR_INPUT, "%s: target offset %lld is not a multiple of %d bytes",
                                info->mnemonic, (long long)v, DV_INSN_BYTES);
        return DV_OK;
    case DV_FK_UINT:
        if (spec->field == DV_F_CCMODE && (v < 0 || v > 2))
            return dv_error_set(err, DV_ERR_INPUT, "%s: mode %lld is not 0, 1 or 2", info->mnemonic,
                                (long long)v);
        break;
    case DV_FK_ENUM:
        if (v < 0 || (uint64_t)v >= fi->count)
            return dv_error_set(err, DV_ERR_INPUT, "%s: %s value %lld is not one of its %u names",
                                info->mnemonic, fi->key, (long long)v, fi->count);
        return DV_OK;
    default: break;
    }
    if (v < 0 || (uint64_t)v > mask_of(spec->width))
        return dv_error_set(err, DV_ERR_INPUT, "%s: %s value %lld does not fit in %u bits", info->mnemonic,
                            fi->key, (long long)v, spec->width);
    return DV_OK;
}

/* The register slot a memory operand uses for its base. */
static const dv_opspec mem_base_spec = {DV_F_R1, 13, 5, "base", true, false};

dv_status dv_isa_encode(const dv_insn *insn, uint64_t *word, dv_error *err)
{
    const dv_insn_info *info = dv_isa_info(insn->op);
    if (!info)
        return dv_error_set(err, DV_ERR_INPUT, "opcode 0x%02x is not assigned", (unsigned)insn->op);
    const dv_format *fmt = dv_isa_format(info->fmt);
    uint64_t w = (uint64_t)insn->op;
    for (unsigned i = 0; i < fmt->nops; i++) {
        const dv_opspec *spec = &fmt->ops[i];
        for (int pass = 0; pass < (spec->mem_base ? 2 : 1); pass++) {
            const dv_opspec *s = pass ? &mem_base_spec : spec;
            int64_t v = insn->f[s->field];
            dv_status st = check_value(info, s, v, err);
            if (st != DV_OK)
                return st;
            w |= ((uint64_t)v & mask_of(s->width)) << s->lo;
        }
    }
    char why[160];
    if (!dv_isa_types_ok(insn, why, sizeof why))
        return dv_error_set(err, DV_ERR_INPUT, "%s: %s", info->mnemonic, why);
    *word = w;
    return DV_OK;
}

dv_status dv_isa_decode(uint64_t word, dv_insn *insn, dv_error *err)
{
    const dv_insn_info *info = dv_isa_info((unsigned)(word & 0xff));
    if (!info)
        return dv_error_set(err, DV_ERR_INPUT, "illegal instruction 0x%016llx: opcode 0x%02x is not assigned",
                            (unsigned long long)word, (unsigned)(word & 0xff));
    const dv_format *fmt = dv_isa_format(info->fmt);
    memset(insn, 0, sizeof *insn);
    insn->op = info->opcode;
    uint64_t used = 0xff;
    for (unsigned i = 0; i < fmt->nops; i++) {
        const dv_opspec *spec = &fmt->ops[i];
        for (int pass = 0; pass < (spec->mem_base ? 2 : 1); pass++) {
            const dv_opspec *s = pass ? &mem_base_spec : spec;
            uint64_t raw = (word >> s->lo) & mask_of(s->width);
            used |= mask_of(s->width) << s->lo;
            const dv_field_info *fi = dv_isa_field(s->field);
            int64_t v = (int64_t)raw;
            if ((fi->kind == DV_FK_SIMM || fi->kind == DV_FK_TARGET) && s->width < 64 &&
                (raw >> (s->width - 1)) & 1)
                v = (int64_t)(raw | ~mask_of(s->width));
            if (fi->kind == DV_FK_ENUM && raw >= fi->count)
                return dv_error_set(
                    err, DV_ERR_INPUT, "illegal instruction 0x%016llx: %s %s value %llu is undefined",
                    (unsigned long long)word, info->mnemonic, fi->key, (unsigned long long)raw);
            insn->f[s->field] = v;
            /* Values the field's width can hold but the ISA does not define. */
            dv_error verr;
            if (check_value(info, s, v, &verr) != DV_OK)
                return dv_error_set(err, DV_ERR_INPUT, "illegal instruction 0x%016llx: %s",
                                    (unsigned long long)word, verr.msg);
        }
    }
    if (word & ~used)
        return dv_error_set(err, DV_ERR_INPUT,
                            "illegal instruction 0x%016llx: %s has reserved bits set (0x%016llx)",
                            (unsigned long long)word, info->mnemonic, (unsigned long long)(word & ~used));
    char why[160];
    if (!dv_isa_types_ok(insn, why, sizeof why)) /* a type its unit does not take */
        return dv_error_set(err, DV_ERR_INPUT, "illegal instruction 0x%016llx: %s: %s",
                            (unsigned long long)word, info->mnemonic, why);
    return DV_OK;
}

/* ---- CSRs ---- */

static const dv_csr_info csrs[] = {
#define DV_CSR(id, num, name, wr, doc) {num, name, wr, doc},
#include "isa_csr.def"
#undef DV_CSR
};
enum { NUM_CSRS = sizeof csrs / sizeof csrs[0] };

const dv_csr_info *dv_csr_by_number(unsigned number)
{
    for (size_t i = 0; i < NUM_CSRS; i++)
        if (csrs[i].number == number)
            return &csrs[i];
    return NULL;
}

const dv_csr_info *dv_csr_by_name(const char *name)
{
    for (size_t i = 0; i < NUM_CSRS; i++)
        if (strcmp(csrs[i].name, name) == 0)
            return &csrs[i];
    return NULL;
}

size_t dv_csr_count(void)
{
    return NUM_CSRS;
}

const dv_csr_info *dv_csr_at(size_t index)
{
    return index < NUM_CSRS ? &csrs[index] : NULL;
}

/* ---- parameter layouts ---- */

/* Field counts per layout: each DV_LAYOUT row opens "= 0" and each of its
 * DV_LFIELD rows that follow adds one. */
enum {
    DV_LFN_NONE_
#define DV_LAYOUT(id, name, doc) , DV_LFN_##id = 0
#define DV_LFIELD(l, key, lo, w, doc) +1
#include "isa_params.def"
#undef DV_LAYOUT
#undef DV_LFIELD
};

/* The layouts, built by the same trick: each DV_LAYOUT row closes the
 * previous entry and opens its own; entry 0 is a placeholder. */
static const dv_layout layout_table[DV_LAYOUT_COUNT + 1] = {{NULL,
                                                             NULL,
                                                             0,
                                                             {
#define DV_LAYOUT(id, name, doc)                                                                             \
    }                                                                                                        \
    }                                                                                                        \
    ,                                                                                                        \
    {                                                                                                        \
        name, doc, DV_LFN_##id,                                                                              \
        {
#define DV_LFIELD(l, key, lo, w, doc) {key, lo, w, doc},
#include "isa_params.def"
#undef DV_LAYOUT
#undef DV_LFIELD
                                                             }}};

/* The fields of every layout are in ascending bit order and do not overlap
 * (the assembler's pack walks them down by index, and isa.md lists them in
 * this order): one constant expression, in which each field row closes the
 * previous field's "end <=" with its lo and opens its own, and each layout
 * row closes the last one with 64. */
/* clang-format off */
_Static_assert((0 <=
#define DV_LAYOUT(id, name, doc) 64) && (0 <=
#define DV_LFIELD(l, key, lo, w, doc) (lo)) && ((lo) + (w) <=
#include "isa_params.def"
#undef DV_LAYOUT
#undef DV_LFIELD
               64), "isa_params.def: a layout's fields must be in ascending bit order and must not overlap");
/* clang-format on */

const dv_layout *dv_layout_get(dv_layout_id id)
{
    return (unsigned)id < DV_LAYOUT_COUNT ? &layout_table[id + 1] : NULL;
}

const dv_layout *dv_layout_find(const char *name)
{
    for (int i = 1; i <= DV_LAYOUT_COUNT; i++)
        if (strcmp(layout_table[i].name, name) == 0)
            return &layout_table[i];
    return NULL;
}

uint64_t dv_layout_extract(const dv_layout *layout, uint64_t word, const char *key)
{
    for (unsigned i = 0; i < layout->nfields; i++)
        if (strcmp(layout->fields[i].key, key) == 0)
            return dv_lfield_get(&layout->fields[i], word);
    return 0;
}
