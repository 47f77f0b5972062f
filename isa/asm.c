/* asm.c - the assembler's two passes over the expanded line list.
 *
 * Pass 1 defines labels and constants and fixes the size of every line;
 * pass 2 evaluates every operand with all symbols known and emits bytes.
 * A line that failed in pass 1 is skipped in pass 2, so each error is
 * reported once; the size recorded in pass 1 keeps addresses consistent. */
#include "asm_internal.h"
#include "dv_isa.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum sym_kind { SYM_LABEL_TEXT, SYM_LABEL_DATA, SYM_EQU, SYM_SET } sym_kind;

typedef struct symbol {
    char *name;
    sym_kind kind;
    int64_t value;
    bool pending;      /* .equ whose value needs a symbol not yet known */
    size_t line_index; /* .equ: where its expression is, to resolve it later */
    int expr_col;
} symbol;

typedef struct alias {
    char *name;
    int reg;
} alias;

typedef struct line_info {
    uint32_t size; /* bytes emitted, pass 1 */
    bool bad;      /* pass 1 reported an error */
    bool wide;     /* li/pack emitted as two words */
} line_info;

typedef struct assembler {
    asm_state as;
    symbol *syms;
    size_t nsyms, cap_syms;
    alias *aliases;
    size_t naliases, cap_aliases;
    line_info *info;
    int pass;
    bool in_data;
    uint64_t text_pc, data_pc;
    dv_buf text, data;
    int cur_kernel;              /* index into obj->kernels, -1 before the first .kernel */
    asm_diag_key kernel_at[256]; /* where each .kernel was written, for late errors */
    /* current line */
    const src_line *line;
    size_t line_index;
    bool line_failed;
} assembler;

/* ---- diagnostics ---- */

static void err_at(assembler *a, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void err_at(assembler *a, int col, const char *fmt, ...)
{
    a->line_failed = true;
    if (a->pass == 1)
        a->info[a->line_index].bad = true;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    asm_diag_in(&a->as, &a->line->call, a->line->file, a->line->line, col, "%s", msg);
}

static void tokname(const token *t, char *buf, size_t size)
{
    if (t->kind == TK_EOL)
        snprintf(buf, size, "end of line");
    else
        snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->start);
}

/* ---- symbols and register aliases ---- */

static symbol *sym_find(assembler *a, const char *name, size_t len)
{
    for (size_t i = 0; i < a->nsyms; i++)
        if (strlen(a->syms[i].name) == len && memcmp(a->syms[i].name, name, len) == 0)
            return &a->syms[i];
    return NULL;
}

static bool sym_lookup(void *user, const char *name, size_t len, int64_t *value, bool *pending)
{
    assembler *a = user;
    if (len == 1 && name[0] == '.') { /* the current location */
        *value = (int64_t)(a->in_data ? a->data_pc : a->text_pc);
        return true;
    }
    symbol *s = sym_find(a, name, len);
    if (!s)
        return false;
    *value = s->value;
    *pending = s->pending;
    return true;
}

static symbol *sym_define(assembler *a, const char *name, size_t len, sym_kind kind, int64_t value)
{
    if (a->nsyms == a->cap_syms) {
        size_t cap = a->cap_syms ? a->cap_syms * 2 : 64;
        symbol *p = realloc(a->syms, cap * sizeof *p);
        if (!p) {
            a->as.nomem = true;
            return NULL;
        }
        a->syms = p;
        a->cap_syms = cap;
    }
    char *copy = strndup(name, len);
    if (!copy) {
        a->as.nomem = true;
        return NULL;
    }
    a->syms[a->nsyms] = (symbol){copy, kind, value, false, 0, 0};
    return &a->syms[a->nsyms++];
}

static void alias_set(assembler *a, const char *name, size_t len, int reg)
{
    for (size_t i = 0; i < a->naliases; i++) {
        if (strlen(a->aliases[i].name) == len && memcmp(a->aliases[i].name, name, len) == 0) {
            a->aliases[i].reg = reg;
            return;
        }
    }
    if (a->naliases == a->cap_aliases) {
        size_t cap = a->cap_aliases ? a->cap_aliases * 2 : 32;
        alias *p = realloc(a->aliases, cap * sizeof *p);
        if (!p) {
            a->as.nomem = true;
            return;
        }
        a->aliases = p;
        a->cap_aliases = cap;
    }
    char *copy = strndup(name, len);
    if (!copy) {
        a->as.nomem = true;
        return;
    }
    a->aliases[a->naliases++] = (alias){copy, reg};
}

/* Register by architectural name (x0-x31, zero, ra, sp, a0-a15) or alias; -1 if none. */
static int reg_number(const assembler *a, const char *name, size_t len)
{
    char buf[16];
    if (len < sizeof buf) {
        memcpy(buf, name, len);
        buf[len] = '\0';
        char *end;
        if ((buf[0] == 'x' || buf[0] == 'a') && isdigit((unsigned char)buf[1])) {
            long n = strtol(buf + 1, &end, 10);
            if (*end == '\0' && !(buf[1] == '0' && buf[2])) {
                if (buf[0] == 'x' && n < DV_NUM_REGS)
                    return (int)n;
                if (buf[0] == 'a' && n < DV_MAX_KERNEL_ARGS)
                    return DV_ARG_REG_BASE + (int)n;
            }
        }
        if (strcmp(buf, "zero") == 0)
            return 0;
        if (strcmp(buf, "ra") == 0)
            return 1;
        if (strcmp(buf, "sp") == 0)
            return 2;
    }
    for (size_t i = 0; i < a->naliases; i++)
        if (strlen(a->aliases[i].name) == len && memcmp(a->aliases[i].name, name, len) == 0)
            return a->aliases[i].reg;
    return -1;
}

/* ---- operand parsing helpers ---- */

static bool expect_comma_or_end(assembler *a, lexer *lx)
{
    if (lx->tok.kind == TK_EOL)
        return true;
    if (lex_is(lx, ',')) {
        lex_next(lx);
        if (lx->tok.kind == TK_EOL) {
            err_at(a, lx->tok.col, "expected an operand after ','");
            return false;
        }
        return true;
    }
    char t[64];
    tokname(&lx->tok, t, sizeof t);
    err_at(a, lx->tok.col, "expected ',' or end of line, found %s", t);
    return false;
}

static bool parse_expr(assembler *a, lexer *lx, int64_t *v)
{
    expr_ctx ctx = {sym_lookup, a, a->pass == 1, false, "", 0};
    if (!expr_eval(lx, &ctx, v)) {
        if (lx->tok.kind == TK_ERROR && !ctx.err[0])
            err_at(a, lx->tok.col, "%s", lx->err);
        else
            err_at(a, ctx.err_col, "%s", ctx.err);
        return false;
    }
    return true;
}

/* Pass 1 variant: *defined is false when the value needs a later symbol. */
static bool parse_expr_soft(assembler *a, lexer *lx, int64_t *v, bool *defined)
{
    expr_ctx ctx = {sym_lookup, a, true, false, "", 0};
    if (!expr_eval(lx, &ctx, v)) {
        err_at(a, ctx.err_col, "%s", ctx.err);
        return false;
    }
    *defined = !ctx.undefined;
    return true;
}

static bool parse_reg(assembler *a, lexer *lx, int *reg, const char *what)
{
    if (lx->tok.kind == TK_IDENT) {
        int r = reg_number(a, lx->tok.start, lx->tok.len);
        if (r >= 0) {
            *reg = r;
            lex_next(lx);
            return true;
        }
        err_at(a, lx->tok.col,
               "unknown register '%.*s' for %s (expected x0-x31, zero, ra, sp, a0-a15 or a .reg alias)",
               (int)(lx->tok.len > 40 ? 40 : lx->tok.len), lx->tok.start, what);
        return false;
    }
    char t[64];
    tokname(&lx->tok, t, sizeof t);
    err_at(a, lx->tok.col, "expected a register for %s, found %s", what, t);
    return false;
}

/* Is the current token an identifier directly followed by '='? */
static bool at_keyed(const lexer *lx)
{
    if (lx->tok.kind != TK_IDENT)
        return false;
    const char *p = lx->p;
    while (*p == ' ' || *p == '\t')
        p++;
    return *p == '=';
}

/* ---- emitting ---- */

static void emit_word(assembler *a, uint64_t w, int col)
{
    if (a->pass == 2) {
        uint8_t b[8];
        for (int i = 0; i < 8; i++)
            b[i] = (uint8_t)(w >> (8 * i));
        dv_buf_append(&a->text, b, 8);
        const src_call *call = &a->line->call;
        if (dv_obj_add_line_in(a->as.obj, a->text_pc, a->line->file, a->line->line, (uint32_t)col, call->file,
                               call->line, NULL) != DV_OK)
            a->as.nomem = true;
    }
    a->text_pc += 8;
}

static void emit_insn(assembler *a, const dv_insn *insn, int col)
{
    uint64_t w = 0;
    dv_error e;
    if (a->pass == 2 && dv_isa_encode(insn, &w, &e) != DV_OK)
        err_at(a, col, "%s", e.msg);
    emit_word(a, w, col);
}

/* li: one word if the value fits in 32 signed bits, else li + lih.  The size
 * is fixed in pass 1 (two words if the value was not yet known). */
static void emit_li(assembler *a, int rd, int64_t v, bool defined, int col)
{
    line_info *li = &a->info[a->line_index];
    if (a->pass == 1)
        li->wide = !defined || v < INT32_MIN || v > INT32_MAX;
    dv_insn insn = {.op = DV_OP_LI};
    insn.f[DV_F_R0] = rd;
    insn.f[DV_F_IMM] = (int32_t)(uint32_t)(uint64_t)v;
    emit_insn(a, &insn, col);
    if (li->wide) {
        dv_insn hi = {.op = DV_OP_LIH};
        hi.f[DV_F_R0] = rd;
        hi.f[DV_F_UIMM] = (int64_t)((uint64_t)v >> 32);
        emit_insn(a, &hi, col);
    }
}

/* ---- instructions ---- */

/* What parse_insn knows of the instruction it reads. */
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
    tokname(&lx->tok, t, sizeof t);
    for (unsigned n = 0; n < fi->count; n++) {
        strncat(names, n ? ", " : "", sizeof names - strlen(names) - 1);
        strncat(names, fi->names[n], sizeof names - strlen(names) - 1);
    }
    err_at(a, lx->tok.col, "bad value %s for %s (expected one of: %s)", t, fi->key, names);
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
        err_at(a, key.col, "unknown field '%.*s' for %s (syntax: %s)", (int)(key.len > 40 ? 40 : key.len),
               key.start, ip->info->mnemonic, ip->syntax);
        return false;
    }
    if (ip->given[k]) {
        err_at(a, key.col, "field '%s' given twice", dv_isa_field(fmt->ops[k].field)->key);
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
    if (!parse_expr(a, lx, &v))
        return false;
    uint64_t max = spec->field == DV_F_CCMODE ? 2 : (1ull << spec->width) - 1;
    if (v < 0 || (uint64_t)v > max) {
        err_at(a, vcol, "%s=%lld out of range 0..%llu", fi->key, (long long)v, (unsigned long long)max);
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
        bare = peek.tok.kind == TK_IDENT && reg_number(a, peek.tok.start, peek.tok.len) >= 0;
    }
    if (!bare && !parse_expr(a, lx, &off))
        return false;
    if (!lex_is(lx, '(')) {
        err_at(a, lx->tok.col, "expected '(base register)' after the offset");
        return false;
    }
    lex_next(lx);
    int base;
    if (!parse_reg(a, lx, &base, "the base"))
        return false;
    if (!lex_is(lx, ')')) {
        err_at(a, lx->tok.col, "expected ')' after the base register");
        return false;
    }
    lex_next(lx);
    if (off < INT32_MIN || off > INT32_MAX) {
        err_at(a, opcol, "offset %lld does not fit in 32 signed bits", (long long)off);
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
        if (!csr && !sym_find(a, lx->tok.start, lx->tok.len)) {
            err_at(a, opcol, "unknown CSR '%s' (see `dvsim isa`)", name);
            return false;
        }
    }
    int64_t v;
    if (csr) {
        v = csr->number;
        lex_next(lx);
    } else if (!parse_expr(a, lx, &v)) {
        return false;
    }
    if (v < 0 || v > 0xfff) {
        err_at(a, opcol, "CSR number %lld out of range 0..0xfff", (long long)v);
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
    if (!parse_expr(a, lx, &v))
        return false;
    if (fi->kind == DV_FK_TARGET) {
        v = (int64_t)((uint64_t)v - a->text_pc); /* wraps: range-checked below */
        if (a->pass == 2 && (v < INT32_MIN || v > INT32_MAX)) {
            err_at(a, opcol, "branch target out of range");
            return false;
        }
        if (a->pass == 2 && (v & 7)) {
            err_at(a, opcol, "branch target is not a multiple of 8 bytes from here");
            return false;
        }
    } else if (fi->kind == DV_FK_SIMM && (v < INT32_MIN || v > INT32_MAX)) {
        err_at(a, opcol, "immediate %lld does not fit in 32 signed bits%s", (long long)v,
               ip->info->opcode == DV_OP_LI ? "" : " (load it with li into a register)");
        return false;
    } else if (fi->kind == DV_FK_UIMM && (v < 0 || v > (int64_t)UINT32_MAX)) {
        err_at(a, opcol, "immediate %lld does not fit in 32 unsigned bits", (long long)v);
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
        err_at(a, opcol, "too many operands for %s (syntax: %s)", ip->info->mnemonic, ip->syntax);
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
        if (!parse_reg(a, lx, &r, spec->name))
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
        err_at(a, col, "%s needs %u operand%s, given %u (syntax: %s)", mn, ip->npos, ip->npos == 1 ? "" : "s",
               ip->next_pos, ip->syntax);
        return false;
    }
    for (unsigned k = 0; k < ip->fmt->nops; k++)
        if (ip->fmt->ops[k].required && !ip->given[k]) {
            err_at(a, col, "%s needs %s= (syntax: %s)", mn, dv_isa_field(ip->fmt->ops[k].field)->key,
                   ip->syntax);
            return false;
        }
    return true;
}

/* An instruction of the ISA table: positional operands in the format's
 * order, key=value fields in any order. */
static void parse_insn(assembler *a, lexer *lx, const dv_insn_info *info, int col)
{
    insn_parse ip = {.info = info, .fmt = dv_isa_format(info->fmt), .insn = {.op = info->opcode}};
    for (unsigned i = 0; i < ip.fmt->nops; i++)
        if (dv_isa_field(ip.fmt->ops[i].field)->kind <= DV_FK_CSR)
            ip.npos++;
    dv_isa_syntax(info, ip.syntax, sizeof ip.syntax);
    while (lx->tok.kind != TK_EOL) {
        bool ok = at_keyed(lx) ? parse_keyed(a, lx, &ip) : parse_positional(a, lx, &ip);
        if (!ok || !expect_comma_or_end(a, lx))
            return;
    }
    if (operands_complete(a, &ip, col))
        emit_insn(a, &ip.insn, col); /* the encoder also checks the types (isa_types.def) */
}

/* Order matters: the directives use helpers defined with the pseudo-instructions. */
/* clang-format off */
#include "asm_pseudo.inc"
#include "asm_directives.inc"
/* clang-format on */

/* ---- one line ---- */

static void assemble_line(assembler *a)
{
    lexer lx;
    lex_init(&lx, a->line->text);
    a->line_failed = false;
    /* labels */
    while (lx.tok.kind == TK_IDENT) {
        lexer peek = lx;
        lex_next(&peek);
        if (!lex_is(&peek, ':'))
            break;
        token t = lx.tok;
        if (a->pass == 1) {
            if (reg_number(a, t.start, t.len) >= 0 && !sym_find(a, t.start, t.len))
                err_at(a, t.col, "label '%.*s' is a register name", (int)t.len, t.start);
            else if (sym_find(a, t.start, t.len))
                err_at(a, t.col, "'%.*s' is already defined", (int)t.len, t.start);
            else
                sym_define(a, t.start, t.len, a->in_data ? SYM_LABEL_DATA : SYM_LABEL_TEXT,
                           (int64_t)(a->in_data ? a->data_pc : a->text_pc));
        }
        lex_next(&lx);
        lex_next(&lx);
    }
    if (lx.tok.kind == TK_EOL)
        return;
    if (lx.tok.kind != TK_IDENT) {
        char t[64];
        tokname(&lx.tok, t, sizeof t);
        err_at(a, lx.tok.col,
               lx.tok.kind == TK_ERROR ? "%s" : "expected an instruction or directive, found %s",
               lx.tok.kind == TK_ERROR ? lx.err : t);
        return;
    }
    token m = lx.tok;
    lex_next(&lx);
    if (m.start[0] == '.') {
        do_directive(a, &lx, &m);
        return;
    }
    if (a->in_data) {
        err_at(a, m.col, "instruction '%.*s' in .data (switch back with .text)", (int)m.len, m.start);
        return;
    }
    if (do_pseudo(a, &lx, &m))
        return;
    const dv_insn_info *info = dv_isa_lookup_n(m.start, m.len);
    if (!info) {
        err_at(a, m.col, "unknown instruction '%.*s'", (int)(m.len > 40 ? 40 : m.len), m.start);
        return;
    }
    parse_insn(a, &lx, info, m.col);
}

/* ---- driver ---- */

static void run_pass(assembler *a, int pass)
{
    a->pass = pass;
    a->in_data = false;
    a->text_pc = a->data_pc = 0;
    a->cur_kernel = -1;
    for (size_t i = 0; i < a->naliases; i++)
        free(a->aliases[i].name);
    a->naliases = 0;
    for (size_t i = 0; i < a->as.nlines; i++) {
        a->line = &a->as.lines[i];
        a->line_index = i;
        line_info *li = &a->info[i];
        uint64_t before = a->in_data ? a->data_pc : a->text_pc;
        bool was_data = a->in_data;
        if (pass == 2 && li->bad) {
            /* keep addresses as pass 1 laid them out */
            if (was_data)
                a->data_pc += li->size;
            else
                a->text_pc += li->size;
            continue;
        }
        assemble_line(a);
        if (pass == 1 && was_data == a->in_data)
            li->size = (uint32_t)((a->in_data ? a->data_pc : a->text_pc) - before);
        if (a->as.nomem)
            return;
    }
}

/* After pass 1 every label has its address, so an .equ that named a later
 * symbol can be computed now; chains resolve over several rounds.  What is
 * still pending afterwards is circular or undefined, and pass 2 says so. */
static void resolve_equs(assembler *a)
{
    for (size_t round = 0; round <= a->nsyms; round++) {
        bool changed = false;
        for (size_t i = 0; i < a->nsyms; i++) {
            symbol *s = &a->syms[i];
            if (!s->pending)
                continue;
            lexer lx;
            lex_init(&lx, a->as.lines[s->line_index].text + s->expr_col - 1);
            expr_ctx ctx = {sym_lookup, a, true, false, "", 0};
            int64_t v;
            if (expr_eval(&lx, &ctx, &v) && !ctx.undefined) {
                s->value = v;
                s->pending = false;
                changed = true;
            }
        }
        if (!changed)
            return;
    }
}

static void free_assembler(assembler *a)
{
    for (size_t i = 0; i < a->nsyms; i++)
        free(a->syms[i].name);
    free(a->syms);
    for (size_t i = 0; i < a->naliases; i++)
        free(a->aliases[i].name);
    free(a->aliases);
    for (size_t i = 0; i < a->as.nlines; i++)
        free(a->as.lines[i].text);
    free(a->as.lines);
    free(a->info);
    dv_buf_free(&a->text);
    dv_buf_free(&a->data);
}

void asm_free_macros(asm_state *as);

void dv_diags_free(dv_diags *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->count; i++)
        free(d->lines[i]);
    free(d->lines);
    d->lines = NULL;
    d->count = 0;
}

static int cmp_diag(const void *x, const void *y)
{
    const asm_diag_key *a = x, *b = y;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Reports in source order (pass 1 and pass 2 find errors at different times). */
static void sort_diags(asm_state *as)
{
    size_t n = as->diags->count;
    if (n < 2 || !as->diag_keys)
        return;
    char **sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return;
    qsort(as->diag_keys, n, sizeof *as->diag_keys, cmp_diag);
    for (size_t i = 0; i < n; i++)
        sorted[i] = as->diags->lines[as->diag_keys[i].seq];
    memcpy(as->diags->lines, sorted, n * sizeof *sorted);
    free(sorted);
}

/* Sizes run to the next kernel or the end of .text; an empty kernel is an
 * error at its .kernel line (the object format needs an entry inside .text). */
static void finish_kernels(assembler *a)
{
    dv_obj *obj = a->as.obj;
    for (size_t i = 0; i < obj->nkernels; i++) {
        uint64_t end = a->text.len;
        for (size_t k = 0; k < obj->nkernels; k++)
            if (obj->kernels[k].entry > obj->kernels[i].entry && obj->kernels[k].entry < end)
                end = obj->kernels[k].entry;
        obj->kernels[i].size = end - obj->kernels[i].entry;
        if (obj->kernels[i].size == 0 && i < sizeof a->kernel_at / sizeof a->kernel_at[0]) {
            const asm_diag_key *at = &a->kernel_at[i];
            asm_diag(&a->as, at->file, at->line, at->col, "kernel '%s' has no instructions",
                     obj->kernels[i].name);
        }
    }
}

dv_status dv_asm_string(const char *name, const char *text, size_t len, const dv_asm_options *opt,
                        dv_obj **out, dv_diags *diags, dv_error *err)
{
    *out = NULL;
    dv_diags local = {NULL, 0};
    if (!diags)
        diags = &local;
    assembler a;
    memset(&a, 0, sizeof a);
    static const dv_asm_options defaults = {NULL, 0, 0};
    a.as.opt = opt ? opt : &defaults;
    a.as.diags = diags;
    a.as.max_errors = a.as.opt->max_errors ? a.as.opt->max_errors : 100;
    a.as.obj = dv_obj_create();
    if (!a.as.obj)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    dv_status st = asm_load_source(&a.as, name, text, len, 0);
    asm_free_macros(&a.as);
    if (st == DV_OK && !a.as.nomem) {
        a.info = calloc(a.as.nlines ? a.as.nlines : 1, sizeof *a.info);
        if (!a.info)
            st = DV_ERR_NOMEM;
    }
    for (size_t i = 0; st == DV_OK && i < a.as.opt->nsymbols; i++) {
        const dv_asm_symbol *ps = &a.as.opt->symbols[i];
        if (!sym_find(&a, ps->name, strlen(ps->name)) &&
            !sym_define(&a, ps->name, strlen(ps->name), SYM_EQU, ps->value))
            st = DV_ERR_NOMEM;
    }
    if (st == DV_OK && !a.as.nomem) {
        run_pass(&a, 1);
        resolve_equs(&a);
        if (!a.as.nomem)
            run_pass(&a, 2);
        if (!a.as.nomem)
            finish_kernels(&a);
    }
    sort_diags(&a.as);
    free(a.as.diag_keys);
    if (a.as.nerrors > a.as.max_errors && diags->count) {
        char **last = &diags->lines[diags->count - 1];
        size_t n = strlen(*last);
        char *grown = realloc(*last, n + 64);
        if (grown) {
            snprintf(grown + n, 64, " (further errors suppressed)");
            *last = grown;
        }
    }
    if (st == DV_OK && (a.as.nomem || a.text.oom || a.data.oom))
        st = DV_ERR_NOMEM;
    if (st == DV_OK && a.as.nerrors == 0) {
        dv_obj *obj = a.as.obj;
        st = dv_obj_set_text(obj, (const uint8_t *)a.text.data, a.text.len, err);
        if (st == DV_OK)
            st = dv_obj_set_data(obj, (const uint8_t *)a.data.data, a.data.len, err);
    }
    if (st == DV_ERR_NOMEM)
        dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", name);
    else if (st == DV_OK && a.as.nerrors) {
        st = dv_error_set(err, DV_ERR_INPUT, "%s (%u error%s)", diags->count ? diags->lines[0] : name,
                          a.as.nerrors, a.as.nerrors == 1 ? "" : "s");
    }
    if (st == DV_OK)
        *out = a.as.obj;
    else
        dv_obj_destroy(a.as.obj);
    free_assembler(&a);
    dv_diags_free(&local);
    return st;
}

dv_status dv_asm_file(const char *path, const dv_asm_options *opt, dv_obj **out, dv_diags *diags,
                      dv_error *err)
{
    *out = NULL;
    char *text;
    size_t len = 0;
    dv_status st = asm_read_file(path, &text, &len, err);
    if (st != DV_OK)
        return st;
    st = dv_asm_string(path, text, len, opt, out, diags, err);
    free(text);
    return st;
}
