/* asm_macro.c - macros: .macro definitions recorded, calls expanded (their
 * arguments split and substituted, \@ numbered), and the copy of a body
 * that macro expansions and .rept/.irp repetitions share (asm_run_copy). */
#include "asm_source_internal.h"
#include "dv_isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct asm_macro {
    char *name;
    unsigned nparams;
    char *params[MAX_MACRO_ARGS];
    char *defaults[MAX_MACRO_ARGS]; /* `.macro m a, b=1`: the value of b when a call leaves it out; NULL:
                                       required */
    src_line *body;
    size_t nbody;
};

asm_macro *asm_find_macro(asm_state *as, const char *name, size_t len)
{
    for (size_t i = 0; i < as->nmacros; i++)
        if (strlen(as->macros[i].name) == len && memcmp(as->macros[i].name, name, len) == 0)
            return &as->macros[i];
    return NULL;
}

/* Replaces \NAME by value when the longest identifier after the backslash
 * is one of names[], \@ by counter and \+ by iter (when they are set), and
 * \() by nothing (it ends a name: "\name\()_f16").  A \NAME that is none
 * of names[] is kept with the \() after it, for the .irp or .rept inside a
 * macro body that expands it later ("half\pp\()_\@"). */
static void substitute(dv_buf *out, const char *text, const subst *sb)
{
    char *const *names = sb->names, *const *values = sb->values;
    unsigned n = sb->n;
    bool kept_name = false; /* the last thing copied was a \NAME of someone else */
    for (const char *p = text; *p;) {
        const unsigned *num = p[0] != '\\' ? NULL : p[1] == '@' ? sb->counter : p[1] == '+' ? sb->iter : NULL;
        if (num) {
            dv_buf_printf(out, "%u", *num);
            p += 2;
            kept_name = false;
            continue;
        }
        if (*p == '\\' && p[1] == '(' && p[2] == ')') {
            if (kept_name)
                dv_buf_append(out, p, 3);
            p += 3;
            kept_name = false;
            continue;
        }
        if (*p == '\\') {
            size_t len = ident_len(p + 1);
            unsigned k = 0;
            while (len && k < n && !(strlen(names[k]) == len && memcmp(names[k], p + 1, len) == 0))
                k++;
            if (len && k < n)
                dv_buf_puts(out, values[k] ? values[k] : "");
            else
                dv_buf_append(out, p, 1 + len); /* someone else's \NAME, or a lone backslash */
            kept_name = len && k == n;
            p += 1 + len;
            continue;
        }
        dv_buf_append(out, p, 1);
        p++;
        kept_name = false;
    }
}

void asm_free_args(char **args, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        free(args[i]);
}

dv_status asm_split_args(const char *p, char **args, unsigned max, unsigned *nargs, bool *too_many)
{
    unsigned n = 0;
    *nargs = 0;
    *too_many = false;
    p = skip_ws(p);
    if (!*p)
        return DV_OK;
    for (;;) {
        const char *start = p;
        int depth = 0;
        bool in_string = false;
        while (*p && !(depth == 0 && !in_string && *p == ',')) {
            if (*p == '"')
                in_string = !in_string;
            else if (*p == '(' && !in_string)
                depth++;
            else if (*p == ')' && depth > 0 && !in_string)
                depth--;
            p++;
        }
        const char *end = p;
        while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            end--;
        if (n == max) {
            *too_many = true;
            break;
        }
        if (!(args[n] = strndup(start, (size_t)(end - start)))) {
            asm_free_args(args, n);
            return DV_ERR_NOMEM;
        }
        n++;
        if (!*p)
            break;
        p = skip_ws(p + 1);
    }
    *nargs = n;
    return DV_OK;
}

/* One copy of a body (a macro's, a .rept's or an .irp's): each line
 * substituted into a new line list, which is read like a file's lines in
 * ctx, then freed.  \+ is the iteration of the innermost .rept or .irp
 * around it, so it is replaced only outside the blocks nested in the body.
 * A line that grows past MAX_LINE (arguments that contain their own
 * expansion grow exponentially with the nesting) stops the expansion, with
 * an error naming `what`. */
dv_status asm_run_copy(asm_state *as, const src_line *body, size_t nbody, const subst *sb, const char *what,
                       const src_ctx *ctx)
{
    src_line *copy = calloc(nbody ? nbody : 1, sizeof *copy);
    if (!copy)
        return DV_ERR_NOMEM;
    dv_status st = DV_OK;
    size_t n = 0;
    int nested = 0; /* .rept / .irp blocks of the body open at this line */
    subst here = *sb;
    for (size_t k = 0; k < nbody && st == DV_OK && !as->too_long; k++) {
        dv_buf b = DV_BUF_INIT;
        here.iter = nested ? NULL : sb->iter;
        substitute(&b, body[k].text, &here);
        const char *p = skip_ws(b.data ? b.data : "");
        if (asm_opens_rep(p))
            nested++;
        else if (nested && match_word(p, ".endr"))
            nested--;
        if (b.oom) {
            st = DV_ERR_NOMEM;
        } else if (b.len > MAX_LINE) {
            asm_diag_in(as, ctx->call, body[k].file, body[k].line, 1,
                        "%s expands to a line longer than %d characters", what, MAX_LINE);
            as->too_long = true;
        } else {
            copy[n++] = (src_line){dv_buf_take(&b, NULL), body[k].file, body[k].line, body[k].call};
            if (!copy[n - 1].text)
                st = DV_ERR_NOMEM;
        }
        dv_buf_free(&b);
    }
    if (st == DV_OK && !as->too_long)
        st = asm_run_lines(as, copy, n, ctx);
    for (size_t k = 0; k < n; k++)
        free(copy[k].text);
    free(copy);
    return st;
}

/* The offset of the ')' that closes the '(' at p[0] (outside strings, as
 * asm_split_args reads them), or len if none does. */
static size_t closing_paren(const char *p, size_t len)
{
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        if (p[i] == '"')
            in_string = !in_string;
        else if (p[i] == '(' && !in_string)
            depth++;
        else if (p[i] == ')' && !in_string && --depth == 0)
            return i;
    }
    return len;
}

/* The argument text of a call: after the name, either `a, b` or `(a, b)`;
 * `(1+2), (3+4)` is two arguments, not `1+2), (3+4` in parentheses. */
static const char *call_args(const char *rest, char *buf, size_t size)
{
    const char *p = skip_ws(rest);
    size_t len = strlen(p);
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
        len--;
    if (*p == '(' && len >= 2 && closing_paren(p, len) == len - 1 && len - 2 < size) {
        memcpy(buf, p + 1, len - 2);
        buf[len - 2] = '\0';
        return buf;
    }
    return rest;
}

dv_status asm_expand_macro(asm_state *as, asm_macro *m, const char *argtext, uint32_t file, uint32_t line,
                           int col, const src_ctx *ctx)
{
    if (as->too_long)
        return DV_OK;
    if (ctx->mac_depth >= MAX_MACRO_DEPTH) {
        asm_diag_in(as, ctx->call, file, line, col, "macro '%s' nested more than %d deep (recursive macro?)",
                    m->name, MAX_MACRO_DEPTH);
        as->too_long = true; /* stop expanding: the same error would repeat per call */
        return DV_OK;
    }
    char *args[MAX_MACRO_ARGS], paren[MAX_LINE + 1];
    bool too_many;
    unsigned nargs;
    if (asm_split_args(call_args(argtext, paren, sizeof paren), args, MAX_MACRO_ARGS, &nargs, &too_many) !=
        DV_OK)
        return DV_ERR_NOMEM;
    unsigned required = 0;
    for (unsigned k = 0; k < m->nparams; k++)
        if (!m->defaults[k])
            required = k + 1;
    if (too_many || nargs > m->nparams || nargs < required) {
        if (required == m->nparams)
            asm_diag_in(as, ctx->call, file, line, col, "macro '%s' takes %u argument%s, given %s%u", m->name,
                        m->nparams, m->nparams == 1 ? "" : "s", too_many ? "more than " : "", nargs);
        else
            asm_diag_in(as, ctx->call, file, line, col, "macro '%s' takes %u to %u arguments, given %s%u",
                        m->name, required, m->nparams, too_many ? "more than " : "", nargs);
        asm_free_args(args, nargs);
        return DV_OK;
    }
    char *values[MAX_MACRO_ARGS];
    for (unsigned k = 0; k < m->nparams; k++)
        values[k] = k < nargs && (args[k][0] || !m->defaults[k]) ? args[k] : m->defaults[k];
    if (!asm_budget(as, ctx->call, file, line, m->nbody)) {
        asm_free_args(args, nargs);
        return DV_OK; /* the budget error fails the assembly */
    }
    unsigned counter = as->macro_counter++;
    subst sb = {m->params, values, m->nparams, &counter, NULL};
    char what[80];
    snprintf(what, sizeof what, "macro '%s'", m->name);
    /* The body's lines are the call's: inner calls keep the outermost one. */
    src_call here = {file, line, col};
    src_ctx inner = {ctx->inc_depth, ctx->mac_depth + 1, 0, ctx->call ? ctx->call : &here};
    dv_status st = asm_run_copy(as, m->body, m->nbody, &sb, what, &inner);
    asm_free_args(args, nargs);
    return st;
}

static void macro_free(asm_macro *m)
{
    free(m->name);
    asm_free_args(m->params, m->nparams);
    for (unsigned k = 0; k < m->nparams; k++)
        free(m->defaults[k]);
    for (size_t k = 0; k < m->nbody; k++)
        free(m->body[k].text);
    free(m->body);
}

/* Records the macro a .macro line names (*out; NULL after a diagnostic). */
dv_status asm_add_macro(asm_state *as, const char *header, uint32_t file, uint32_t line, int col,
                        asm_macro **out)
{
    *out = NULL;
    const char *p = skip_ws(header);
    size_t n = ident_len(p);
    if (n == 0) {
        asm_diag(as, file, line, col, "expected a macro name after .macro");
        return DV_OK;
    }
    if (asm_find_macro(as, p, n) || dv_isa_lookup_n(p, n)) {
        asm_diag(as, file, line, col, "macro '%.*s' is already defined or is an instruction", (int)n, p);
        return DV_OK;
    }
    if (as->nmacros == as->cap_macros) {
        size_t cap = as->cap_macros ? as->cap_macros * 2 : 16;
        asm_macro *grown = realloc(as->macros, cap * sizeof *grown);
        if (!grown)
            return DV_ERR_NOMEM;
        as->macros = grown;
        as->cap_macros = cap;
    }
    asm_macro *m = &as->macros[as->nmacros];
    memset(m, 0, sizeof *m);
    m->name = strndup(p, n);
    bool too_many;
    if (!m->name || asm_split_args(p + n, m->params, MAX_MACRO_ARGS, &m->nparams, &too_many) != DV_OK) {
        macro_free(m);
        return DV_ERR_NOMEM;
    }
    if (too_many)
        asm_diag(as, file, line, col, "macro '%s' has more than %d parameters", m->name, MAX_MACRO_ARGS);
    bool defaulted = false;
    for (unsigned k = 0; k < m->nparams; k++) {
        char *eq = strchr(m->params[k], '=');
        if (eq) { /* `name=default` */
            char *end = eq;
            while (end > m->params[k] && (end[-1] == ' ' || end[-1] == '\t'))
                end--;
            *end = '\0';
            m->defaults[k] = strdup(skip_ws(eq + 1));
            if (!m->defaults[k]) {
                macro_free(m);
                return DV_ERR_NOMEM;
            }
            defaulted = true;
        } else if (defaulted) {
            asm_diag(as, file, line, col,
                     "macro parameter '%s' comes after one with a default, so it needs one", m->params[k]);
        }
        if (ident_len(m->params[k]) != strlen(m->params[k]) || !m->params[k][0])
            asm_diag(as, file, line, col, "macro parameter '%s' is not a name", m->params[k]);
    }
    as->nmacros++;
    *out = m;
    return DV_OK;
}

const char *asm_macro_name(const asm_macro *m)
{
    return m->name;
}

dv_status asm_macro_body_push(asm_macro *m, const char *text, uint32_t file, uint32_t line)
{
    src_line *grown = realloc(m->body, (m->nbody + 1) * sizeof *grown);
    if (!grown)
        return DV_ERR_NOMEM;
    m->body = grown;
    m->body[m->nbody].text = strdup(text);
    if (!m->body[m->nbody].text)
        return DV_ERR_NOMEM;
    m->body[m->nbody].file = file;
    m->body[m->nbody].line = line;
    m->body[m->nbody].call = (src_call){0, 0, 0};
    m->nbody++;
    return DV_OK;
}

void asm_free_macros(asm_state *as)
{
    for (size_t i = 0; i < as->nmacros; i++)
        macro_free(&as->macros[i]);
    free(as->macros);
    as->macros = NULL;
    as->nmacros = as->cap_macros = 0;
}
