/* asm.c - the assembler's two passes over the expanded line list.
 *
 * Pass 1 defines labels and constants and fixes the size of every line;
 * pass 2 evaluates every operand with all symbols known and emits bytes.
 * A line that failed in pass 1 is skipped in pass 2, so each error is
 * reported once; the size recorded in pass 1 keeps addresses consistent.
 * The source stage before them is asm_source.c, the operands of the ISA
 * table's instructions asm_insn.c, the diagnostics asm_diag.c. */
#include "asm_internal.h"
#include "dv_isa.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics ---- */

void asm_err_at(assembler *a, int col, const char *fmt, ...)
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

void asm_tokname(const token *t, char *buf, size_t size)
{
    if (t->kind == TK_EOL)
        snprintf(buf, size, "end of line");
    else
        snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->start);
}

/* ---- symbols and register aliases ---- */

symbol *asm_sym_find(assembler *a, const char *name, size_t len)
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
    symbol *s = asm_sym_find(a, name, len);
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
int asm_reg_number(const assembler *a, const char *name, size_t len)
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

bool asm_expect_comma_or_end(assembler *a, lexer *lx)
{
    if (lx->tok.kind == TK_EOL)
        return true;
    if (lex_is(lx, ',')) {
        lex_next(lx);
        if (lx->tok.kind == TK_EOL) {
            asm_err_at(a, lx->tok.col, "expected an operand after ','");
            return false;
        }
        return true;
    }
    char t[64];
    asm_tokname(&lx->tok, t, sizeof t);
    asm_err_at(a, lx->tok.col, "expected ',' or end of line, found %s", t);
    return false;
}

bool asm_parse_expr(assembler *a, lexer *lx, int64_t *v)
{
    expr_ctx ctx = {sym_lookup, a, a->pass == 1, false, "", 0};
    if (!expr_eval(lx, &ctx, v)) {
        if (lx->tok.kind == TK_ERROR && !ctx.err[0])
            asm_err_at(a, lx->tok.col, "%s", lx->err);
        else
            asm_err_at(a, ctx.err_col, "%s", ctx.err);
        return false;
    }
    return true;
}

/* Pass 1 variant: *defined is false when the value needs a later symbol. */
static bool parse_expr_soft(assembler *a, lexer *lx, int64_t *v, bool *defined)
{
    expr_ctx ctx = {sym_lookup, a, true, false, "", 0};
    if (!expr_eval(lx, &ctx, v)) {
        asm_err_at(a, ctx.err_col, "%s", ctx.err);
        return false;
    }
    *defined = !ctx.undefined;
    return true;
}

bool asm_parse_reg(assembler *a, lexer *lx, int *reg, const char *what)
{
    if (lx->tok.kind == TK_IDENT) {
        int r = asm_reg_number(a, lx->tok.start, lx->tok.len);
        if (r >= 0) {
            *reg = r;
            lex_next(lx);
            return true;
        }
        asm_err_at(a, lx->tok.col,
                   "unknown register '%.*s' for %s (expected x0-x31, zero, ra, sp, a0-a15 or a .reg alias)",
                   (int)(lx->tok.len > 40 ? 40 : lx->tok.len), lx->tok.start, what);
        return false;
    }
    char t[64];
    asm_tokname(&lx->tok, t, sizeof t);
    asm_err_at(a, lx->tok.col, "expected a register for %s, found %s", what, t);
    return false;
}

/* Is the current token an identifier directly followed by '='? */
bool asm_at_keyed(const lexer *lx)
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

void asm_emit_insn(assembler *a, const dv_insn *insn, int col)
{
    uint64_t w = 0;
    dv_error e;
    if (a->pass == 2 && dv_isa_encode(insn, &w, &e) != DV_OK)
        asm_err_at(a, col, "%s", e.msg);
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
    asm_emit_insn(a, &insn, col);
    if (li->wide) {
        dv_insn hi = {.op = DV_OP_LIH};
        hi.f[DV_F_R0] = rd;
        hi.f[DV_F_UIMM] = (int64_t)((uint64_t)v >> 32);
        asm_emit_insn(a, &hi, col);
    }
}

/* ---- pseudo-instructions and directives (the table's instructions: asm_insn.c) ---- */

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
            if (asm_reg_number(a, t.start, t.len) >= 0 && !asm_sym_find(a, t.start, t.len))
                asm_err_at(a, t.col, "label '%.*s' is a register name", (int)t.len, t.start);
            else if (asm_sym_find(a, t.start, t.len))
                asm_err_at(a, t.col, "'%.*s' is already defined", (int)t.len, t.start);
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
        asm_tokname(&lx.tok, t, sizeof t);
        asm_err_at(a, lx.tok.col,
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
        asm_err_at(a, m.col, "instruction '%.*s' in .data (switch back with .text)", (int)m.len, m.start);
        return;
    }
    if (do_pseudo(a, &lx, &m))
        return;
    const dv_insn_info *info = dv_isa_lookup_n(m.start, m.len);
    if (!info) {
        asm_err_at(a, m.col, "unknown instruction '%.*s'", (int)(m.len > 40 ? 40 : m.len), m.start);
        return;
    }
    asm_parse_insn(a, &lx, info, m.col);
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

/* Sizes run to the next kernel or the end of .text; an empty kernel is an
 * error at its .kernel line (the object format needs an entry inside .text),
 * also one followed at once by another .kernel (the later one takes the
 * instructions: kernels are in source order). */
static void finish_kernels(assembler *a)
{
    dv_obj *obj = a->as.obj;
    for (size_t i = 0; i < obj->nkernels; i++) {
        uint64_t end = a->text.len;
        for (size_t k = 0; k < obj->nkernels; k++)
            if ((obj->kernels[k].entry > obj->kernels[i].entry ||
                 (k > i &&
                  obj->kernels[k].entry == obj->kernels[i].entry)) && /* '.kernel k' then '.kernel j' */
                obj->kernels[k].entry < end)
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
        if (!asm_sym_find(&a, ps->name, strlen(ps->name)) &&
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
    asm_sort_diags(&a.as);
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
