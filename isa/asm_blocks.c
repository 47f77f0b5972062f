/* asm_blocks.c - conditional and repeated blocks of the source: .if, .ifc,
 * .ifnc, .ifb, .ifnb with .else and .endif; .rept and .irp with .endr.  A
 * block's constant is made of literals (and macro arguments, substituted
 * before), since symbols do not exist yet at this stage. */
#include "asm_source_internal.h"

#include <string.h>

bool asm_opens_if(const char *p)
{
    return match_word(p, ".if") || match_word(p, ".ifc") || match_word(p, ".ifnc") || match_word(p, ".ifb") ||
           match_word(p, ".ifnb");
}

bool asm_opens_rep(const char *p)
{
    return match_word(p, ".rept") || match_word(p, ".irp");
}

/* The line that closes the block opened at lines[i] (n if none), and for
 * an .if its .else (n if none).  Nested blocks of either kind are skipped. */
static size_t block_end(const src_line *lines, size_t i, size_t n, bool is_if, size_t *else_at)
{
    int depth = 0;
    *else_at = n;
    for (size_t k = i + 1; k < n; k++) {
        const char *p = skip_ws(lines[k].text);
        if (asm_opens_if(p) || asm_opens_rep(p)) {
            depth++;
        } else if (match_word(p, ".endif") || match_word(p, ".endr")) {
            if (depth == 0)
                return (is_if == (match_word(p, ".endif") != NULL)) ? k : n;
            depth--;
        } else if (depth == 0 && is_if && match_word(p, ".else") && *else_at == n) {
            *else_at = k;
        }
    }
    return n;
}

/* A constant of .if or .rept: an expression of literals (macro arguments are
 * substituted by now; symbols do not exist yet at this stage). */
static bool no_symbols(void *user, const char *name, size_t len, int64_t *value, bool *pending)
{
    (void)user, (void)name, (void)len, (void)value, (void)pending;
    return false;
}

static bool const_expr(asm_state *as, const src_line *ln, const char *text, const char *what,
                       const src_ctx *ctx, int64_t *v)
{
    lexer lx;
    lex_init(&lx, text);
    expr_ctx ec = {no_symbols, NULL, false, false, "", 0};
    int col = (int)(skip_ws(text) - ln->text) + 1;
    if (lx.tok.kind == TK_EOL) {
        asm_diag_in(as, ctx->call, ln->file, ln->line, col, "%s needs a value", what);
        return false;
    }
    if (!expr_eval(&lx, &ec, v) || lx.tok.kind != TK_EOL) {
        asm_diag_in(as, ctx->call, ln->file, ln->line, col,
                    "%s takes a constant made of literals and macro arguments (%s)", what,
                    ec.err[0] ? ec.err : "unexpected text after it");
        return false;
    }
    return true;
}

/* The condition of an .if-family line (p at the directive) in *yes; *ok
 * false after a diagnostic. */
static dv_status condition(asm_state *as, const src_line *ln, const char *p, const src_ctx *ctx, bool *yes,
                           bool *ok)
{
    const char *rest;
    *ok = true;
    if ((rest = match_word(p, ".ifb")) || (rest = match_word(p, ".ifnb"))) {
        *yes = (*skip_ws(rest) == '\0') == (match_word(p, ".ifb") != NULL);
        return DV_OK;
    }
    if ((rest = match_word(p, ".ifc")) || (rest = match_word(p, ".ifnc"))) {
        char *args[3];
        bool too_many;
        unsigned n;
        if (asm_split_args(rest, args, 3, &n, &too_many) != DV_OK)
            return DV_ERR_NOMEM;
        bool same = n == 2 && strcmp(args[0], args[1]) == 0;
        if (n != 2)
            asm_diag_in(as, ctx->call, ln->file, ln->line, (int)(p - ln->text) + 1,
                        "%.5s needs two strings to compare, separated by a comma", p);
        asm_free_args(args, n);
        *ok = n == 2;
        *yes = same == (match_word(p, ".ifc") != NULL);
        return DV_OK;
    }
    int64_t v = 0;
    *ok = const_expr(as, ln, match_word(p, ".if"), ".if", ctx, &v);
    *yes = v != 0;
    return DV_OK;
}

dv_status asm_do_if(asm_state *as, const src_line *lines, size_t i, size_t n, const src_ctx *ctx,
                    size_t *next)
{
    const char *p = skip_ws(lines[i].text);
    size_t else_at, end = block_end(lines, i, n, true, &else_at);
    int col = (int)(p - lines[i].text) + 1;
    *next = end + 1;
    if (end == n) {
        asm_diag_in(as, ctx->call, lines[i].file, lines[i].line, col, "%.*s without .endif",
                    (int)ident_len(p), p);
        return DV_OK;
    }
    if (ctx->block_depth >= MAX_BLOCK_DEPTH) {
        asm_diag_in(as, ctx->call, lines[i].file, lines[i].line, col, "blocks nested more than %d deep",
                    MAX_BLOCK_DEPTH);
        return DV_OK;
    }
    bool ok, yes;
    dv_status st = condition(as, &lines[i], p, ctx, &yes, &ok);
    if (st != DV_OK || !ok)
        return st;
    src_ctx inner = *ctx;
    inner.block_depth++;
    if (yes)
        return asm_run_lines(as, lines + i + 1, (else_at < end ? else_at : end) - i - 1, &inner);
    return else_at < end ? asm_run_lines(as, lines + else_at + 1, end - else_at - 1, &inner) : DV_OK;
}

/* One copy of a repeated body (after the .rept or .irp line at): \name ->
 * value (.irp), \+ -> the iteration. */
static dv_status rep_copy(asm_state *as, const src_line *at, const src_line *body, size_t nbody, char *name,
                          char *value, unsigned iter, const src_ctx *ctx)
{
    if (!asm_budget(as, ctx->call, at->file, at->line, nbody))
        return DV_OK; /* the budget error fails the assembly */
    char *names[1] = {name}, *values[1] = {value};
    subst sb = {names, values, name ? 1 : 0, NULL, &iter};
    return asm_run_copy(as, body, nbody, &sb, name ? ".irp" : ".rept", ctx);
}

dv_status asm_do_rep(asm_state *as, const src_line *lines, size_t i, size_t n, const src_ctx *ctx,
                     size_t *next)
{
    const char *p = skip_ws(lines[i].text), *rest;
    size_t else_at, end = block_end(lines, i, n, false, &else_at);
    int col = (int)(p - lines[i].text) + 1;
    *next = end + 1;
    if (end == n) {
        asm_diag_in(as, ctx->call, lines[i].file, lines[i].line, col, "%.*s without .endr", (int)ident_len(p),
                    p);
        return DV_OK;
    }
    if (ctx->block_depth >= MAX_BLOCK_DEPTH) {
        asm_diag_in(as, ctx->call, lines[i].file, lines[i].line, col, "blocks nested more than %d deep",
                    MAX_BLOCK_DEPTH);
        return DV_OK;
    }
    src_ctx inner = *ctx;
    inner.block_depth++;
    const src_line *body = lines + i + 1;
    size_t nbody = end - i - 1;
    dv_status st = DV_OK;
    if ((rest = match_word(p, ".rept")) != NULL) {
        int64_t count;
        if (!const_expr(as, &lines[i], rest, ".rept", ctx, &count))
            return DV_OK;
        if (count < 0 || count > MAX_REPT) {
            asm_diag_in(as, ctx->call, lines[i].file, lines[i].line, col, ".rept count %lld is not 0 to %d",
                        (long long)count, MAX_REPT);
            return DV_OK;
        }
        for (int64_t k = 0; k < count && st == DV_OK && !as->too_long; k++)
            st = rep_copy(as, &lines[i], body, nbody, NULL, NULL, (unsigned)k, &inner);
        return st;
    }
    rest = match_word(p, ".irp");
    char *args[MAX_MACRO_ARGS + 1];
    bool too_many;
    unsigned na;
    if (asm_split_args(rest, args, MAX_MACRO_ARGS + 1, &na, &too_many) != DV_OK)
        return DV_ERR_NOMEM;
    /* the name must be one: `.irp , 1, 2` has none */
    if (na == 0 || !args[0][0] || ident_len(args[0]) != strlen(args[0]) || too_many) {
        asm_diag_in(as, ctx->call, lines[i].file, lines[i].line, col,
                    too_many ? ".irp takes at most %d values"
                             : ".irp needs a name, then its values (%d at most)",
                    MAX_MACRO_ARGS);
        asm_free_args(args, na);
        return DV_OK;
    }
    if (na == 1) /* no values: once, with the name empty (as GNU as) */
        st = rep_copy(as, &lines[i], body, nbody, args[0], "", 0, &inner);
    for (unsigned k = 1; k < na && st == DV_OK && !as->too_long; k++)
        st = rep_copy(as, &lines[i], body, nbody, args[0], args[k], k - 1, &inner);
    asm_free_args(args, na);
    return st;
}
