/* test_isa.c - checks of the ISA tables themselves (isa.def, isa_formats.c,
 * isa_params.def, isa_csr.def) and of the encoder, decoder and formatter
 * against each other and the assembler:
 *   - operand fields of a format never overlap each other or the opcode;
 *   - opcodes and mnemonics are unique, so no two encodings overlap, and a
 *     word with any bit its format does not use is rejected;
 *   - random valid instructions round-trip encode -> decode -> text ->
 *     assemble to the same word, and every word the decoder accepts
 *     re-encodes to itself. */
#include "dv_asm.h"
#include "dv_isa.h"
#include "isa_ops.h"
#include "test_util.h"

#include <check.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_positional(const dv_opspec *spec)
{
    return dv_isa_field(spec->field)->kind <= DV_FK_CSR;
}

/* ---- (a) formats ---- */

typedef struct fmt_check {
    const dv_format *fmt;
    uint64_t used;
    bool seen[DV_F_COUNT];
} fmt_check;

static void check_op(const dv_opspec *spec, void *user)
{
    fmt_check *c = user;
    const char *fn = c->fmt->name;
    const dv_field_info *fi = dv_isa_field(spec->field);
    CHECK(fi != NULL, "format %s: operand with unknown field %d", fn, (int)spec->field);
    CHECK(spec->width > 0 && spec->lo + spec->width <= 64,
          "format %s: field %s at [%u +%u] is outside 64 bits", fn, fi->key, spec->lo, spec->width);
    uint64_t m = bits_of(spec->lo, spec->width);
    CHECK(!(c->used & m),
          "format %s: field %s at bits %u..%u overlaps the opcode or another field (0x%016" PRIx64 ")", fn,
          fi->key, spec->lo, spec->lo + spec->width - 1, c->used & m);
    c->used |= m;
    CHECK(!c->seen[spec->field], "format %s: field %s appears twice", fn, fi->key);
    c->seen[spec->field] = true;
    switch (fi->kind) {
    case DV_FK_REG:
        CHECK(spec->field >= DV_F_R0 && spec->field <= DV_F_R4, "format %s: register in a non-slot field",
              fn);
        CHECK(spec->width == 5 && spec->lo == 8 + 5 * (unsigned)(spec->field - DV_F_R0),
              "format %s: register slot %s is not at its documented bits", fn, fi->key);
        CHECK((1u << spec->width) == DV_NUM_REGS, "register field width");
        break;
    case DV_FK_SIMM:
    case DV_FK_UIMM:
    case DV_FK_TARGET:
        /* the assembler range-checks these as 32-bit values */
        CHECK(spec->width == 32, "format %s: %s is %u bits, the assembler assumes 32", fn, fi->key,
              spec->width);
        break;
    case DV_FK_CSR:
        CHECK(spec->width == 12, "format %s: CSR field is %u bits, the assembler assumes 12", fn,
              spec->width);
        break;
    case DV_FK_ENUM:
        CHECK(fi->names && fi->count > 0 && fi->count <= (1u << spec->width),
              "format %s: enum %s has %u names for %u bits", fn, fi->key, fi->count, spec->width);
        break;
    case DV_FK_UINT: CHECK(spec->width < 32, "format %s: keyed number %s too wide", fn, fi->key); break;
    }
    if (fi->kind <= DV_FK_CSR)
        CHECK(spec->required && spec->name && spec->name[0],
              "format %s: positional %s must be required and named", fn, fi->key);
}

START_TEST(test_formats)
{
    for (int f = 0; f < DV_FMT_COUNT; f++) {
        const dv_format *fmt = dv_isa_format((dv_fmt)f);
        CHECK(fmt && fmt->name && fmt->name[0], "format %d has no name", f);
        CHECK(fmt->nops <= DV_MAX_OPERANDS, "format %s: %u operands", fmt->name, fmt->nops);
        fmt_check c = {fmt, 0xff, {false}};
        for_each_op(fmt, check_op, &c);
        CHECK(c.used == used_bits(fmt), "used bits");
        for (unsigned i = 0; i < fmt->nops; i++) {
            const dv_opspec *s = &fmt->ops[i];
            if (s->mem_base)
                CHECK(s->field == DV_F_IMM, "format %s: mem_base on a non-IMM field", fmt->name);
            if (is_positional(s))
                continue;
            /* keys of keyed fields identify them: unique within a format */
            for (unsigned j = 0; j < i; j++)
                CHECK(is_positional(&fmt->ops[j]) ||
                          strcmp(dv_isa_field(fmt->ops[j].field)->key, dv_isa_field(s->field)->key) != 0,
                      "format %s: key %s used twice", fmt->name, dv_isa_field(s->field)->key);
        }
    }
    ck_assert_ptr_null(dv_isa_format(DV_FMT_COUNT));
}
END_TEST

START_TEST(test_fields)
{
    for (int f = 0; f < DV_F_COUNT; f++) {
        const dv_field_info *fi = dv_isa_field((dv_field)f);
        CHECK(fi && fi->key && fi->key[0] && fi->doc && fi->doc[0], "field %d lacks key or doc", f);
        CHECK((fi->kind == DV_FK_ENUM) == (fi->names != NULL), "field %s: names only for enums", fi->key);
        for (unsigned i = 0; i < fi->count; i++) {
            CHECK(fi->names[i] && isalpha((unsigned char)fi->names[i][0]), "field %s: value %u is not a name",
                  fi->key, i);
            for (unsigned j = 0; j < i; j++)
                CHECK(strcmp(fi->names[i], fi->names[j]) != 0, "field %s: value name %s twice", fi->key,
                      fi->names[i]);
        }
    }
    ck_assert_ptr_null(dv_isa_field(DV_F_COUNT));
}
END_TEST

/* ---- (b) the instruction table ---- */

START_TEST(test_table_unique)
{
    size_t n = dv_isa_count();
    ck_assert_uint_gt(n, 50);
    ck_assert_ptr_null(dv_isa_at(n));
    /* names the assembler treats as pseudo-instructions (asm_pseudo.inc);
     * a row with one of these names could never be assembled */
    static const char *const pseudos[] = {"mv",   "not",  "neg", "j",   "call", "ret",
                                          "beqz", "bnez", "bgt", "ble", "bgtu", "bleu"};
    for (size_t i = 0; i < n; i++) {
        const dv_insn_info *r = dv_isa_at(i);
        CHECK(r != NULL, "row %zu missing", i);
        CHECK((unsigned)r->opcode <= 0xff, "%s: opcode 0x%x is not 8 bits", r->mnemonic, (unsigned)r->opcode);
        CHECK((unsigned)r->fmt < DV_FMT_COUNT, "%s: bad format", r->mnemonic);
        CHECK((unsigned)r->pipe <= DV_PIPE_DYN && r->pipe != DV_PIPE_ALL, "%s: bad pipe", r->mnemonic);
        CHECK((unsigned)r->tclass < DV_TC_COUNT, "%s: bad timing class", r->mnemonic);
        CHECK(r->doc && r->doc[0], "%s: no doc", r->mnemonic);
        CHECK(r->mnemonic && islower((unsigned char)r->mnemonic[0]), "row %zu: bad mnemonic", i);
        for (const char *p = r->mnemonic; *p; p++)
            CHECK(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_', "%s: bad character",
                  r->mnemonic);
        CHECK(strncmp(r->mnemonic, "pack.", 5) != 0, "%s: collides with pack.LAYOUT", r->mnemonic);
        for (size_t k = 0; k < sizeof pseudos / sizeof pseudos[0]; k++)
            CHECK(strcmp(r->mnemonic, pseudos[k]) != 0, "%s: shadowed by a pseudo-instruction", r->mnemonic);
        for (size_t j = 0; j < i; j++) {
            const dv_insn_info *o = dv_isa_at(j);
            CHECK(o->opcode != r->opcode, "opcode 0x%02x used by %s and %s", (unsigned)r->opcode, o->mnemonic,
                  r->mnemonic);
            CHECK(strcmp(o->mnemonic, r->mnemonic) != 0, "mnemonic %s twice", r->mnemonic);
        }
        CHECK(dv_isa_info(r->opcode) == r, "dv_isa_info(0x%02x) is not %s", (unsigned)r->opcode, r->mnemonic);
        CHECK(dv_isa_lookup(r->mnemonic) == r, "dv_isa_lookup(%s)", r->mnemonic);
        CHECK(dv_isa_lookup_n(r->mnemonic, strlen(r->mnemonic)) == r, "dv_isa_lookup_n(%s)", r->mnemonic);
        /* a DYN row names its pipe in a field */
        if (r->pipe == DV_PIPE_DYN) {
            const dv_format *f = dv_isa_format(r->fmt);
            bool has = false;
            for (unsigned k = 0; k < f->nops; k++)
                has |= f->ops[k].field == DV_F_SRC || f->ops[k].field == DV_F_DST ||
                       f->ops[k].field == DV_F_PIPE;
            CHECK(has, "%s: pipe DYN without a pipe field", r->mnemonic);
        }
    }
    size_t assigned = 0;
    for (unsigned op = 0; op < 256; op++)
        assigned += dv_isa_info(op) != NULL;
    ck_assert_uint_eq(assigned, n);
    ck_assert_ptr_null(dv_isa_info(256));
    ck_assert_ptr_null(dv_isa_lookup("nosuch"));
    ck_assert_ptr_null(dv_isa_lookup_n("addi", 2));
    ck_assert_ptr_eq(dv_isa_lookup_n("addi", 3), dv_isa_lookup("add"));
    ck_assert_ptr_null(dv_isa_lookup("ADD"));
    ck_assert_ptr_nonnull(dv_isa_lookup("li")); /* the real li, shadowed by the li pseudo on purpose */
}
END_TEST

START_TEST(test_insn_pipe)
{
    dv_insn insn = {.op = DV_OP_SET_FLAG};
    insn.f[DV_F_SRC] = DV_PIPE_MTE2;
    insn.f[DV_F_DST] = DV_PIPE_V;
    ck_assert_int_eq(dv_insn_pipe(&insn), DV_PIPE_MTE2);
    insn.op = DV_OP_WAIT_FLAG;
    ck_assert_int_eq(dv_insn_pipe(&insn), DV_PIPE_V);
    dv_insn b = {.op = DV_OP_PIPE_BARRIER};
    b.f[DV_F_PIPE] = DV_PIPE_ALL;
    ck_assert_int_eq(dv_insn_pipe(&b), DV_PIPE_ALL);
    b.op = DV_OP_CC_WAIT_FLAG;
    b.f[DV_F_PIPE] = DV_PIPE_FIX;
    ck_assert_int_eq(dv_insn_pipe(&b), DV_PIPE_FIX);
    for (size_t i = 0; i < dv_isa_count(); i++) {
        const dv_insn_info *r = dv_isa_at(i);
        if (r->pipe == DV_PIPE_DYN)
            continue;
        dv_insn z = {.op = r->opcode};
        CHECK(dv_insn_pipe(&z) == r->pipe, "%s: dv_insn_pipe", r->mnemonic);
    }
    ck_assert_str_eq(dv_pipe_name(DV_PIPE_MTE3), "mte3");
    ck_assert_str_eq(dv_pipe_trace_name(DV_PIPE_FIX), "FIXP");
    ck_assert_uint_eq(dv_dtype_size(DV_DT_F32), 4);
    ck_assert_uint_eq(dv_dtype_size(DV_DT_S8), 1);
    ck_assert_str_eq(dv_dtype_name(DV_DT_BF16), "bf16");
    for (int t = 0; t < DV_TC_COUNT; t++)
        CHECK(strcmp(dv_tclass_name((dv_tclass)t), "?") != 0, "timing class %d has no name", t);
}
END_TEST

/* ---- (c) encodings never overlap ---- */

static bool is_target_low_bit(const dv_format *fmt, unsigned bit)
{
    for (unsigned k = 0; k < fmt->nops; k++)
        if (fmt->ops[k].field == DV_F_TARGET && bit >= fmt->ops[k].lo && bit < fmt->ops[k].lo + 3u)
            return true;
    return false;
}

START_TEST(test_encodings_disjoint)
{
    for (size_t i = 0; i < dv_isa_count(); i++) {
        const dv_insn_info *r = dv_isa_at(i);
        const dv_format *fmt = dv_isa_format(r->fmt);
        uint64_t used = used_bits(fmt);
        dv_insn z = {.op = r->opcode}, d;
        uint64_t w = ~0ull;
        dv_error err;
        char why[160];
        bool zero_ok = dv_isa_types_ok(&z, why, sizeof why);
        /* conversions have no legal all-zero form (from = to = f16): start
         * from the first legal pair of types */
        for (int f = 0; !zero_ok && f < DV_DT_COUNT * DV_DT_COUNT; f++) {
            z.f[DV_F_FROM] = f / DV_DT_COUNT, z.f[DV_F_TO] = f % DV_DT_COUNT;
            zero_ok = dv_isa_types_ok(&z, why, sizeof why);
        }
        CHECK(zero_ok, "%s: no operands of legal types", r->mnemonic);
        CHECK(dv_isa_encode(&z, &w, &err) == DV_OK, "%s: zero operands do not encode: %s", r->mnemonic,
              err.msg);
        CHECK(dv_isa_decode(w, &d, &err) == DV_OK && d.op == r->opcode, "%s: does not decode to itself",
              r->mnemonic);
        for (int f = 0; f < DV_F_COUNT; f++)
            CHECK(d.f[f] == z.f[f], "%s: field %d differs", r->mnemonic, f);
        if (z.f[DV_F_FROM] == 0 && z.f[DV_F_TO] == 0)
            CHECK(w == (uint64_t)r->opcode, "%s: zero operands encode as 0x%016" PRIx64, r->mnemonic, w);
        for (unsigned bit = 8; bit < 64; bit++) {
            uint64_t wb = w ^ (1ull << bit);
            dv_status st = dv_isa_decode(wb, &d, &err);
            if (used & (1ull << bit)) {
                /* a single changed bit of any field is a legal value, except
                 * in the low three bits of a branch offset (multiples of 8),
                 * an element type the instruction does not take, or a value
                 * past an enumeration's end */
                if (is_target_low_bit(fmt, bit)) {
                    CHECK(st == DV_ERR_INPUT, "%s: branch offset with bit %u set is accepted", r->mnemonic,
                          bit);
                    continue;
                }
                if (st != DV_OK) {
                    CHECK(strstr(err.msg, "is not one of") || strstr(err.msg, " are both ") ||
                              strstr(err.msg, "from and to") || strstr(err.msg, "is undefined"),
                          "%s: bit %u belongs to a field but is rejected: %s", r->mnemonic, bit, err.msg);
                    continue;
                }
                CHECK(d.op == r->opcode, "%s: bit %u belongs to a field but decodes to another opcode",
                      r->mnemonic, bit);
                uint64_t back;
                CHECK(dv_isa_encode(&d, &back, &err) == DV_OK && back == wb, "%s: bit %u does not re-encode",
                      r->mnemonic, bit);
            } else {
                CHECK(st == DV_ERR_INPUT, "%s: unused bit %u is accepted", r->mnemonic, bit);
                CHECK(strstr(err.msg, "reserved") != NULL, "%s: bit %u: message '%s'", r->mnemonic, bit,
                      err.msg);
            }
        }
    }
    /* every opcode byte decodes to its own row or is rejected */
    for (unsigned op = 0; op < 256; op++) {
        dv_insn d;
        dv_error err;
        dv_status st = dv_isa_decode(op, &d, &err);
        if (dv_isa_info(op)) {
            /* the bare opcode has every field 0: a conversion from f16 to f16 is no instruction */
            dv_insn z = {.op = (dv_opcode)op};
            char why[160];
            if (!dv_isa_types_ok(&z, why, sizeof why))
                CHECK(st == DV_ERR_INPUT && strstr(err.msg, why), "opcode 0x%02x: %s", op, err.msg);
            else
                CHECK(st == DV_OK && (unsigned)d.op == op, "opcode 0x%02x", op);
        } else {
            CHECK(st == DV_ERR_INPUT && strstr(err.msg, "not assigned"), "unassigned opcode 0x%02x accepted",
                  op);
            dv_insn e = {.op = (dv_opcode)op};
            uint64_t w;
            CHECK(dv_isa_encode(&e, &w, &err) == DV_ERR_INPUT, "unassigned opcode 0x%02x encodes", op);
        }
    }
}
END_TEST

/* Out-of-range values are refused by the encoder. */
START_TEST(test_encode_range)
{
    dv_error err;
    uint64_t w;
    dv_insn a = {.op = DV_OP_ADD};
    a.f[DV_F_R2] = 32;
    ck_assert_int_eq(dv_isa_encode(&a, &w, &err), DV_ERR_INPUT);
    a.f[DV_F_R2] = -1;
    ck_assert_int_eq(dv_isa_encode(&a, &w, &err), DV_ERR_INPUT);
    dv_insn i = {.op = DV_OP_ADDI};
    i.f[DV_F_IMM] = INT32_MIN;
    ck_assert_int_eq(dv_isa_encode(&i, &w, &err), DV_OK);
    i.f[DV_F_IMM] = (int64_t)INT32_MIN - 1;
    ck_assert_int_eq(dv_isa_encode(&i, &w, &err), DV_ERR_INPUT);
    i.f[DV_F_IMM] = (int64_t)INT32_MAX + 1;
    ck_assert_int_eq(dv_isa_encode(&i, &w, &err), DV_ERR_INPUT);
    dv_insn h = {.op = DV_OP_LIH};
    h.f[DV_F_UIMM] = UINT32_MAX;
    ck_assert_int_eq(dv_isa_encode(&h, &w, &err), DV_OK);
    h.f[DV_F_UIMM] = (int64_t)UINT32_MAX + 1;
    ck_assert_int_eq(dv_isa_encode(&h, &w, &err), DV_ERR_INPUT);
    h.f[DV_F_UIMM] = -1;
    ck_assert_int_eq(dv_isa_encode(&h, &w, &err), DV_ERR_INPUT);
    dv_insn v = {.op = DV_OP_VADD};
    v.f[DV_F_DTYPE] = DV_DT_COUNT;
    ck_assert_int_eq(dv_isa_encode(&v, &w, &err), DV_ERR_INPUT);
    dv_insn c = {.op = DV_OP_CSRR};
    c.f[DV_F_CSR] = 0x1000;
    ck_assert_int_eq(dv_isa_encode(&c, &w, &err), DV_ERR_INPUT);
    /* branch offsets are multiples of 8; ccmode is 0, 1 or 2 */
    dv_insn br = {.op = DV_OP_BEQ};
    br.f[DV_F_TARGET] = -8;
    ck_assert_int_eq(dv_isa_encode(&br, &w, &err), DV_OK);
    br.f[DV_F_TARGET] = 4;
    ck_assert_int_eq(dv_isa_encode(&br, &w, &err), DV_ERR_INPUT);
    dv_insn cc = {.op = DV_OP_CC_SET_FLAG};
    cc.f[DV_F_CCMODE] = 2;
    ck_assert_int_eq(dv_isa_encode(&cc, &w, &err), DV_OK);
    cc.f[DV_F_CCMODE] = 3;
    ck_assert_int_eq(dv_isa_encode(&cc, &w, &err), DV_ERR_INPUT);
    dv_insn m = {.op = DV_OP_LW};
    m.f[DV_F_R1] = 32; /* the memory operand's base */
    ck_assert_int_eq(dv_isa_encode(&m, &w, &err), DV_ERR_INPUT);
    /* an enum value past the names is rejected by the decoder too */
    uint64_t bad = DV_OP_VADD | ((uint64_t)0xf << 33);
    dv_insn d;
    ck_assert_int_eq(dv_isa_decode(bad, &d, &err), DV_ERR_INPUT);
}
END_TEST

/* ---- (f) syntax, layouts, CSRs ---- */

START_TEST(test_syntax)
{
    for (size_t i = 0; i < dv_isa_count(); i++) {
        const dv_insn_info *r = dv_isa_at(i);
        char buf[512];
        size_t len = dv_isa_syntax(r, buf, sizeof buf);
        CHECK(len > 0 && len == strlen(buf) && len < sizeof buf, "%s: syntax length %zu", r->mnemonic, len);
        CHECK(strncmp(buf, r->mnemonic, strlen(r->mnemonic)) == 0 &&
                  (buf[strlen(r->mnemonic)] == '\0' || buf[strlen(r->mnemonic)] == ' '),
              "%s: syntax '%s'", r->mnemonic, buf);
        const dv_format *fmt = dv_isa_format(r->fmt);
        for (unsigned k = 0; k < fmt->nops; k++) {
            const dv_opspec *s = &fmt->ops[k];
            const dv_field_info *fi = dv_isa_field(s->field);
            char want[64];
            if (s->mem_base)
                snprintf(want, sizeof want, "offset(base)");
            else if (is_positional(s))
                snprintf(want, sizeof want, "%s", s->name);
            else if (fi->kind == DV_FK_UINT)
                snprintf(want, sizeof want, "%s%s=0..%llu", s->required ? "" : "[", fi->key,
                         s->field == DV_F_CCMODE ? 2ull : (1ull << s->width) - 1);
            else
                snprintf(want, sizeof want, "%s%s=", s->required ? "" : "[", fi->key);
            CHECK(strstr(buf, want) != NULL, "%s: syntax '%s' lacks '%s'", r->mnemonic, buf, want);
        }
        /* truncation: the full length is returned, the buffer stays a string */
        char small[6];
        memset(small, 'x', sizeof small);
        CHECK(dv_isa_syntax(r, small, sizeof small) == len && strlen(small) < sizeof small, "%s: truncation",
              r->mnemonic);
    }
    char buf[256];
    dv_isa_syntax(dv_isa_lookup("cc_set_flag"), buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "mode=0..2"));
    dv_isa_syntax(dv_isa_lookup("vcmp"), buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "cmp=lt|gt|le|ge|eq|ne"));
    ck_assert_ptr_nonnull(strstr(buf, "[dtype=f16|"));
}
END_TEST

/* A rule's words come from its sets: an instruction with a dtype= field
 * names exactly the dtypes it accepts, and its error names them too. */
START_TEST(test_type_docs)
{
    for (size_t i = 0; i < dv_isa_count(); i++) {
        const dv_insn_info *r = dv_isa_at(i);
        const dv_format *fmt = dv_isa_format(r->fmt);
        bool has_dtype = false;
        for (unsigned k = 0; k < fmt->nops; k++)
            has_dtype = has_dtype || fmt->ops[k].field == DV_F_DTYPE;
        if (!has_dtype || r->types == DV_TYPES_ANY)
            continue;
        char doc[160], want[160] = "", why[200];
        dv_types_doc(r->types, doc, sizeof doc);
        for (int d = 0; d < DV_DT_COUNT; d++) {
            dv_insn in = {.op = r->opcode};
            in.f[DV_F_DTYPE] = d;
            if (dv_isa_types_ok(&in, why, sizeof why)) {
                snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", want[0] ? ", " : "",
                         dv_dtype_name((dv_dtype)d));
            } else {
                char end[200];
                snprintf(end, sizeof end, "is not one of %s", doc);
                CHECK(strstr(why, end), "%s: '%s' does not end with '%s'", r->mnemonic, why, end);
            }
        }
        CHECK(strcmp(doc, want) == 0, "%s: types '%s', accepts %s", r->mnemonic, doc, want);
    }
    char doc[160];
    ck_assert_str_eq(dv_types_doc(DV_TYPES_ANY, doc, sizeof doc), "any");
    ck_assert_str_eq(dv_types_doc(DV_TYPES_DEQ, doc, sizeof doc), "s32 to f16 or f32");
    ck_assert_str_eq(dv_types_doc(DV_TYPES_QUANT, doc, sizeof doc), "f16 or f32 to s8 or u8");
    ck_assert_str_eq(dv_types_doc(DV_TYPES_CONV, doc, sizeof doc),
                     "two different types of f16, bf16, f32, s32, s16, s8, u8, not both 8-bit");
    ck_assert_str_eq(dv_types_doc(DV_TYPES_CONV, doc, 8), "two dif"); /* cut, still a string */
}
END_TEST

START_TEST(test_layouts)
{
    test_rng rng = {42};
    for (int id = 0; id < DV_LAYOUT_COUNT; id++) {
        const dv_layout *l = dv_layout_get((dv_layout_id)id);
        CHECK(l && l->name && l->name[0] && l->doc, "layout %d", id);
        CHECK(dv_layout_find(l->name) == l, "dv_layout_find(%s)", l->name);
        CHECK(l->nfields > 0 && l->nfields <= DV_LAYOUT_MAX_FIELDS, "layout %s: %u fields", l->name,
              l->nfields);
        for (int j = 0; j < id; j++)
            CHECK(strcmp(dv_layout_get((dv_layout_id)j)->name, l->name) != 0, "layout %s twice", l->name);
        uint64_t used = 0;
        for (unsigned k = 0; k < l->nfields; k++) {
            const dv_lfield *f = &l->fields[k];
            CHECK(f->key && f->key[0] && f->doc, "layout %s: field %u", l->name, k);
            CHECK(f->width > 0 && f->lo + f->width <= 64, "layout %s.%s outside 64 bits", l->name, f->key);
            uint64_t m = bits_of(f->lo, f->width);
            CHECK(!(used & m), "layout %s.%s overlaps another field", l->name, f->key);
            CHECK(k == 0 || f->lo >= l->fields[k - 1].lo + l->fields[k - 1].width,
                  "layout %s.%s is not above the field before it (fields go in ascending bit order)", l->name,
                  f->key);
            used |= m;
            for (unsigned j = 0; j < k; j++)
                CHECK(strcmp(l->fields[j].key, f->key) != 0, "layout %s: key %s twice", l->name, f->key);
        }
        /* pack random values and read them back */
        for (int it = 0; it < 100; it++) {
            uint64_t v[DV_LAYOUT_MAX_FIELDS], word = 0;
            for (unsigned k = 0; k < l->nfields; k++) {
                v[k] = test_rng_next(&rng) & bits_of(0, l->fields[k].width);
                word |= v[k] << l->fields[k].lo;
            }
            for (unsigned k = 0; k < l->nfields; k++) {
                CHECK(dv_layout_extract(l, word, l->fields[k].key) == v[k], "%s.%s extract", l->name,
                      l->fields[k].key);
                CHECK(dv_lfield_get(&l->fields[k], word) == v[k], "%s.%s get", l->name, l->fields[k].key);
            }
        }
    }
    ck_assert_ptr_null(dv_layout_get(DV_LAYOUT_COUNT));
    ck_assert_ptr_null(dv_layout_find("nosuch"));
    ck_assert_ptr_nonnull(dv_layout_find("vrep"));
    /* the simulator reads mmad's shape by field position (cube.c, core_account.c) */
    const dv_layout *mm = dv_layout_get(DV_LAYOUT_MMAD);
    ck_assert_str_eq(mm->fields[0].key, "m");
    ck_assert_str_eq(mm->fields[1].key, "k");
    ck_assert_str_eq(mm->fields[2].key, "n");
}
END_TEST

START_TEST(test_csrs)
{
    size_t n = dv_csr_count();
    ck_assert_uint_gt(n, 0);
    ck_assert_ptr_null(dv_csr_at(n));
    for (size_t i = 0; i < n; i++) {
        const dv_csr_info *c = dv_csr_at(i);
        CHECK(c && c->name && c->doc && c->doc[0], "CSR %zu", i);
        CHECK(c->number < 0x1000, "CSR %s: number 0x%x does not fit 12 bits", c->name, c->number);
        CHECK(isalpha((unsigned char)c->name[0]), "CSR %s: not a name", c->name);
        for (const char *p = c->name; *p; p++)
            CHECK(isalnum((unsigned char)*p) || *p == '_', "CSR %s: not an identifier", c->name);
        for (size_t j = 0; j < i; j++) {
            CHECK(dv_csr_at(j)->number != c->number, "CSR number 0x%x twice", c->number);
            CHECK(strcmp(dv_csr_at(j)->name, c->name) != 0, "CSR %s twice", c->name);
        }
        CHECK(dv_csr_by_number(c->number) == c && dv_csr_by_name(c->name) == c, "CSR %s lookups", c->name);
        /* a CSR name must not read as a register */
        CHECK(strcmp(c->name, "zero") && strcmp(c->name, "ra") && strcmp(c->name, "sp"), "CSR %s", c->name);
    }
    ck_assert_ptr_null(dv_csr_by_name("nosuch"));
    ck_assert_ptr_null(dv_csr_by_number(0xfff));
    ck_assert_uint_eq(dv_csr_by_name("cycle")->number, DV_CSR_CYCLE);
}
END_TEST

START_TEST(test_format_insn_text)
{
    char buf[256];
    dv_insn lw = {.op = DV_OP_LW};
    lw.f[DV_F_R0] = 1;
    lw.f[DV_F_R1] = 2;
    lw.f[DV_F_IMM] = -8;
    lw.f[DV_F_SPACE] = DV_SPACE_UB;
    dv_isa_format_insn(&lw, 0, NULL, NULL, buf, sizeof buf);
    ck_assert_str_eq(buf, "lw x1, -8(x2), space=ub");
    dv_insn li = {.op = DV_OP_LI};
    li.f[DV_F_R0] = 5;
    li.f[DV_F_IMM] = -0x12345;
    dv_isa_format_insn(&li, 0, NULL, NULL, buf, sizeof buf);
    ck_assert_str_eq(buf, "li x5, -0x12345");
    dv_insn b = {.op = DV_OP_BNE};
    b.f[DV_F_R0] = 3;
    b.f[DV_F_TARGET] = -16;
    dv_isa_format_insn(&b, 64, NULL, NULL, buf, sizeof buf);
    ck_assert_str_eq(buf, "bne x3, x0, 0x30");
    dv_insn c = {.op = DV_OP_CSRR};
    c.f[DV_F_R0] = 4;
    c.f[DV_F_CSR] = DV_CSR_CYCLE;
    dv_isa_format_insn(&c, 0, NULL, NULL, buf, sizeof buf);
    ck_assert_str_eq(buf, "csrr x4, cycle");
    c.f[DV_F_CSR] = 0x7ff;
    dv_isa_format_insn(&c, 0, NULL, NULL, buf, sizeof buf);
    ck_assert_str_eq(buf, "csrr x4, 0x7ff");
    dv_insn v = {.op = DV_OP_VCONV};
    v.f[DV_F_FROM] = DV_DT_F32;
    v.f[DV_F_TO] = DV_DT_F16;
    v.f[DV_F_ROUND] = DV_RND_RZ;
    dv_isa_format_insn(&v, 0, NULL, NULL, buf, sizeof buf);
    ck_assert_str_eq(buf, "vconv x0, x0, x0, from=f32, to=f16, round=rz");
    /* truncation keeps a string and returns the full length */
    char small[8];
    size_t len = dv_isa_format_insn(&v, 0, NULL, NULL, small, sizeof small);
    ck_assert_uint_eq(len, strlen("vconv x0, x0, x0, from=f32, to=f16, round=rz"));
    ck_assert_str_eq(small, "vconv x");
}
END_TEST

Suite *isa_random_suite(void); /* test_isa_random.c */

static Suite *isa_suite(void)
{
    Suite *s = suite_create("isa");
    TCase *tc = tcase_create("tables");
    tcase_add_test(tc, test_formats);
    tcase_add_test(tc, test_fields);
    tcase_add_test(tc, test_table_unique);
    tcase_add_test(tc, test_insn_pipe);
    tcase_add_test(tc, test_encodings_disjoint);
    tcase_add_test(tc, test_encode_range);
    tcase_add_test(tc, test_syntax);
    tcase_add_test(tc, test_type_docs);
    tcase_add_test(tc, test_layouts);
    tcase_add_test(tc, test_csrs);
    tcase_add_test(tc, test_format_insn_text);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(isa_suite());
    srunner_add_suite(sr, isa_random_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
