/* asm_insn.c - the operands of an instruction of the ISA table, read by
 * its format: positional operands in the format's order (registers, memory
 * operands, CSRs, immediates and branch targets), key=value fields in any
 * order; then the instruction is emitted. */
#include "asm_internal.h"
#include "dv_isa.h"

#include <stdio.h>
#include <string.h>

/* What asm_parse_insn knows of the instruction it reads. */
typedef struct insn_parse {
    const dv_insn_info *info;
    const dv_format *fmt;
    dv_insn insn;
    bool given[DV_MAX_OPERANDS];
    unsigned npos, next_pos; /* positional operands: wanted, read */
    char syntax[256];        /* for the messages */
} insn_parse;

/* The value of an enum field (dtype=f16), by name. */
static bool parse_enum_value(assembler *a, lexer *lx, const dv_field_info *fi, int64_t *out)
{
    for (unsigned v = 0; v < fi->count; v++)
        if (lex_ident_is(lx, fi->names[v])) {
            *out = v;
            lex_next(lx);
            return true;
        }
    char t[64], names[160] = "";
    asm_tokname(&lx->tok, t, sizeof t);
    for (unsigned n = 0; n < fi->count; n++) {
        strncat(names, n ? ", " : "", sizeof names - strlen(names) - 1);
        strncat(names, fi->names[n], sizeof names - strlen(names) - 1);
    }
    asm_err_at(a, lx->tok.col, "bad value %s for %s (expected one of: %s)", t, fi->key, names);
    return false;
}

/* key=value: an enum or a numeric field of the instruction word. */
static bool parse_keyed(assembler *a, lexer *lx, insn_parse *ip)
{
    const dv_format *fmt = ip->fmt;
    const token key = lx->tok;
    unsigned k;
    for (k = 0; k < fmt->nops; k++) {
        const dv_field_info *fi = dv_isa_field(fmt->ops[k].field);
        if (fi->kind >= DV_FK_ENUM && strlen(fi->key) == key.len && memcmp(fi->key, key.start, key.len) == 0)
            break;
    }
    if (k == fmt->nops) {
        asm_err_at(a, key.col, "unknown field '%.*s' for %s (syntax: %s)", (int)(key.len > 40 ? 40 : key.len),
                   key.start, ip->info->mnemonic, ip->syntax);
        return false;
    }
    if (ip->given[k]) {
        asm_err_at(a, key.col, "field '%s' given twice", dv_isa_field(fmt->ops[k].field)->key);
        return false;
    }
    ip->given[k] = true;
    lex_next(lx); /* key */
    lex_next(lx); /* '=' */
    const dv_opspec *spec = &fmt->ops[k];
    const dv_field_info *fi = dv_isa_field(spec->field);
    if (fi->kind == DV_FK_ENUM)
        return parse_enum_value(a, lx, fi, &ip->insn.f[spec->field]);
    int vcol = lx->tok.col;
    int64_t v;
    if (!asm_parse_expr(a, lx, &v))
        return false;
    uint64_t max = spec->field == DV_F_CCMODE ? 2 : (1ull << spec->width) - 1;
    if (v < 0 || (uint64_t)v > max) {
        asm_err_at(a, vcol, "%s=%lld out of range 0..%llu", fi->key, (long long)v, (unsigned long long)max);
        return false;
    }
    ip->insn.f[spec->field] = v;
    return true;
}

/* offset(base) or (base): a memory operand. */
static bool parse_mem_operand(assembler *a, lexer *lx, dv_insn *insn, int opcol)
{
    int64_t off = 0;
    bool bare = lex_is(lx, '('); /* "(reg)" alone means offset 0 */
    if (bare) {
        lexer peek = *lx;
        lex_next(&peek);
        bare = peek.tok.kind == TK_IDENT && asm_reg_number(a, peek.tok.start, peek.tok.len) >= 0;
    }
    if (!bare && !asm_parse_expr(a, lx, &off))
        return false;
    if (!lex_is(lx, '(')) {
        asm_err_at(a, lx->tok.col, "expected '(base register)' after the offset");
        return false;
    }
    lex_next(lx);
    int base;
    if (!asm_parse_reg(a, lx, &base, "the base"))
        return false;
    if (!lex_is(lx, ')')) {
        asm_err_at(a, lx->tok.col, "expected ')' after the base register");
        return false;
    }
    lex_next(lx);
    if (off < INT32_MIN || off > INT32_MAX) {
        asm_err_at(a, opcol, "offset %lld does not fit in 32 signed bits", (long long)off);
        return false;
    }
    insn->f[DV_F_IMM] = off;
    insn->f[DV_F_R1] = base;
    return true;
}

/* A CSR by name (see `dvsim isa`) or number. */
static bool parse_csr_operand(assembler *a, lexer *lx, dv_insn *insn, int opcol)
{
    const dv_csr_info *csr = NULL;
    if (lx->tok.kind == TK_IDENT) {
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(lx->tok.len > 31 ? 31 : lx->tok.len), lx->tok.start);
        csr = dv_csr_by_name(name);
        if (!csr && !asm_sym_find(a, lx->tok.start, lx->tok.len)) {
            asm_err_at(a, opcol, "unknown CSR '%s' (see `dvsim isa`)", name);
            return false;
        }
    }
    int64_t v;
    if (csr) {
        v = csr->number;
        lex_next(lx);
    } else if (!asm_parse_expr(a, lx, &v)) {
        return false;
    }
    if (v < 0 || v > 0xfff) {
        asm_err_at(a, opcol, "CSR number %lld out of range 0..0xfff", (long long)v);
        return false;
    }
    insn->f[DV_F_CSR] = v;
    return true;
}

/* An immediate or a branch target (made relative to this instruction). */
static bool parse_imm_operand(assembler *a, lexer *lx, insn_parse *ip, const dv_opspec *spec, int opcol)
{
    const dv_field_info *fi = dv_isa_field(spec->field);
    int64_t v;
    if (!asm_parse_expr(a, lx, &v))
        return false;
    if (fi->kind == DV_FK_TARGET) {
        v = (int64_t)((uint64_t)v - a->text_pc); /* wraps: range-checked below */
        if (a->pass == 2 && (v < INT32_MIN || v > INT32_MAX)) {
            asm_err_at(a, opcol, "branch target out of range");
            return false;
        }
        if (a->pass == 2 && (v & 7)) {
            asm_err_at(a, opcol, "branch target is not a multiple of 8 bytes from here");
            return false;
        }
    } else if (fi->kind == DV_FK_SIMM && (v < INT32_MIN || v > INT32_MAX)) {
        asm_err_at(a, opcol, "immediate %lld does not fit in 32 signed bits%s", (long long)v,
                   ip->info->opcode == DV_OP_LI ? "" : " (load it with li into a register)");
        return false;
    } else if (fi->kind == DV_FK_UIMM && (v < 0 || v > (int64_t)UINT32_MAX)) {
        asm_err_at(a, opcol, "immediate %lld does not fit in 32 unsigned bits", (long long)v);
        return false;
    }
    ip->insn.f[spec->field] = v;
    return true;
}

/* The next positional operand: a register, a memory operand, a CSR or an
 * immediate, as the format's next positional slot says. */
static bool parse_positional(assembler *a, lexer *lx, insn_parse *ip)
{
    const dv_format *fmt = ip->fmt;
    int opcol = lx->tok.col;
    unsigned k = 0, seen = 0;
    for (k = 0; k < fmt->nops; k++) {
        if (dv_isa_field(fmt->ops[k].field)->kind <= DV_FK_CSR) {
            if (seen == ip->next_pos)
                break;
            seen++;
        }
    }
    if (k == fmt->nops) {
        asm_err_at(a, opcol, "too many operands for %s (syntax: %s)", ip->info->mnemonic, ip->syntax);
        return false;
    }
    const dv_opspec *spec = &fmt->ops[k];
    const dv_field_info *fi = dv_isa_field(spec->field);
    ip->given[k] = true;
    ip->next_pos++;
    if (spec->mem_base)
        return parse_mem_operand(a, lx, &ip->insn, opcol);
    if (fi->kind == DV_FK_REG) {
        int r;
        if (!asm_parse_reg(a, lx, &r, spec->name))
            return false;
        ip->insn.f[spec->field] = r;
        return true;
    }
    if (fi->kind == DV_FK_CSR)
        return parse_csr_operand(a, lx, &ip->insn, opcol);
    return parse_imm_operand(a, lx, ip, spec, opcol);
}

/* Every operand was given that must be. */
static bool operands_complete(assembler *a, const insn_parse *ip, int col)
{
    const char *mn = ip->info->mnemonic;
    if (ip->next_pos < ip->npos) {
        asm_err_at(a, col, "%s needs %u operand%s, given %u (syntax: %s)", mn, ip->npos,
                   ip->npos == 1 ? "" : "s", ip->next_pos, ip->syntax);
        return false;
    }
    for (unsigned k = 0; k < ip->fmt->nops; k++)
        if (ip->fmt->ops[k].required && !ip->given[k]) {
            asm_err_at(a, col, "%s needs %s= (syntax: %s)", mn, dv_isa_field(ip->fmt->ops[k].field)->key,
                       ip->syntax);
            return false;
        }
    return true;
}

/* An instruction of the ISA table: positional operands in the format's
 * order, key=value fields in any order. */
void asm_parse_insn(assembler *a, lexer *lx, const dv_insn_info *info, int col)
{
    insn_parse ip = {.info = info, .fmt = dv_isa_format(info->fmt), .insn = {.op = info->opcode}};
    for (unsigned i = 0; i < ip.fmt->nops; i++)
        if (dv_isa_field(ip.fmt->ops[i].field)->kind <= DV_FK_CSR)
            ip.npos++;
    dv_isa_syntax(info, ip.syntax, sizeof ip.syntax);
    while (lx->tok.kind != TK_EOL) {
        bool ok = asm_at_keyed(lx) ? parse_keyed(a, lx, &ip) : parse_positional(a, lx, &ip);
        if (!ok || !asm_expect_comma_or_end(a, lx))
            return;
    }
    if (operands_complete(a, &ip, col))
        asm_emit_insn(a, &ip.insn, col); /* the encoder also checks the types (isa_types.def) */
}
