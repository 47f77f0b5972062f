/* asm_source.c - turns assembly files into one list of lines: comments
 * blanked, .include files read in place, macros recorded and expanded. */
/* realpath() is X/Open. */
#define _XOPEN_SOURCE 700

#include "asm_internal.h"
#include "dv_isa.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MAX_LINES bounds the whole expansion: a macro that calls itself twice is
 * exponential long before it is MAX_MACRO_DEPTH deep, and a .rept in a
 * .rept multiplies.  A line is counted when it is made (read from a file,
 * or copied from a macro's or a block's body), whether or not it is then
 * assembled, so lines under a false .if count too; an expansion or a
 * repetition of an empty body counts one. */
enum {
    MAX_INCLUDE_DEPTH = 16,
    MAX_MACRO_DEPTH = 32,
    MAX_MACRO_ARGS = 16,
    MAX_LINE = 4096,
    MAX_LINES = 250000,
    MAX_EXPANDED_BYTES = 16 << 20, /* 16 MiB of expanded text */
    MAX_REPT = 65536,              /* .rept count */
    MAX_BLOCK_DEPTH = 32,          /* .if / .rept / .irp nested in one another */
};

typedef struct asm_macro {
    char *name;
    unsigned nparams;
    char *params[MAX_MACRO_ARGS];
    char *defaults[MAX_MACRO_ARGS]; /* `.macro m a, b=1`: the value of b when a call leaves it out; NULL:
                                       required */
    src_line *body;
    size_t nbody;
} asm_macro;

static const char *file_name(const asm_state *as, uint32_t file)
{
    return file < as->obj->nfiles ? as->obj->files[file] : "?";
}

static void vdiag(asm_state *as, const src_call *call, uint32_t file, uint32_t line, int col, const char *fmt,
                  va_list ap)
{
    as->nerrors++;
    if (as->nerrors > as->max_errors)
        return;
    dv_buf b = DV_BUF_INIT;
    bool in_macro = call && call->line;
    /* a macro's statement is reported at the call, where its author wrote it */
    uint32_t kf = in_macro ? call->file : file, kl = in_macro ? call->line : line;
    int kc = in_macro ? call->col : col;
    if (kc > 0)
        dv_buf_printf(&b, "%s:%u:%d: ", file_name(as, kf), kl, kc);
    else
        dv_buf_printf(&b, "%s:%u: ", file_name(as, kf), kl);
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    dv_buf_puts(&b, msg);
    if (in_macro && col > 0)
        dv_buf_printf(&b, " (in macro at %s:%u:%d)", file_name(as, file), line, col);
    else if (in_macro)
        dv_buf_printf(&b, " (in macro at %s:%u)", file_name(as, file), line);
    file = kf, line = kl, col = kc;
    char **grown = realloc(as->diags->lines, (as->diags->count + 1) * sizeof *grown);
    if (!grown || b.oom) {
        as->nomem = true;
        if (grown)
            as->diags->lines = grown;
        dv_buf_free(&b);
        return;
    }
    as->diags->lines = grown;
    asm_diag_key *keys = realloc(as->diag_keys, (as->diags->count + 1) * sizeof *keys);
    if (!keys) {
        as->nomem = true;
        dv_buf_free(&b);
        return;
    }
    as->diag_keys = keys;
    as->diag_keys[as->diags->count] = (asm_diag_key){file, line, col, (uint32_t)as->diags->count};
    as->diags->lines[as->diags->count++] = dv_buf_take(&b, NULL);
}

void asm_diag(asm_state *as, uint32_t file, uint32_t line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(as, NULL, file, line, col, fmt, ap);
    va_end(ap);
}

void asm_diag_in(asm_state *as, const src_call *call, uint32_t file, uint32_t line, int col, const char *fmt,
                 ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(as, call, file, line, col, fmt, ap);
    va_end(ap);
}

/* Counts n lines of expansion (at least one) against the budget, made at
 * file:line; false once it is spent. */
static bool budget(asm_state *as, const src_call *call, uint32_t file, uint32_t line, size_t n)
{
    if (as->too_long)
        return false;
    as->expanded += n ? n : 1;
    if (as->expanded <= MAX_LINES)
        return true;
    as->too_long = true;
    asm_diag_in(as, call, file, line, 0,
                "the source expands to more than %d lines (a runaway macro, .rept, .irp or .include?)",
                MAX_LINES);
    return false;
}

static bool push_line(asm_state *as, const char *text, size_t len, uint32_t file, uint32_t line,
                      const src_call *call)
{
    /* Long lines repeated by macros bound memory too, not only the count. */
    as->expanded_bytes += len;
    if (as->expanded_bytes > MAX_EXPANDED_BYTES) {
        if (!as->too_long) {
            as->too_long = true;
            asm_diag(as, file, line, 1, "the source expands to more than %d MiB of text (runaway macro?)",
                     MAX_EXPANDED_BYTES >> 20);
        }
        return true; /* dropped; the error fails the assembly */
    }
    if (as->nlines == as->cap_lines) {
        size_t cap = as->cap_lines ? as->cap_lines * 2 : 256;
        src_line *p = realloc(as->lines, cap * sizeof *p);
        if (!p)
            return false;
        as->lines = p;
        as->cap_lines = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return false;
    memcpy(copy, text, len);
    copy[len] = '\0';
    as->lines[as->nlines++] = (src_line){copy, file, line, call ? *call : (src_call){0, 0, 0}};
    return true;
}

/* Blanks comments (';', '#', '//' to end of line; block comments, which may
 * span lines) in place, keeping newlines so line numbers stay right.  Returns
 * the offset of an unterminated block comment's opening, or len. */
static size_t blank_comments(char *s, size_t len)
{
    bool in_block = false, in_string = false;
    size_t block_start = len;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '\n') {
            in_string = false;
            continue;
        }
        if (in_block) {
            if (c == '*' && i + 1 < len && s[i + 1] == '/') {
                s[i] = s[i + 1] = ' ';
                i++;
                in_block = false;
            } else {
                s[i] = ' ';
            }
            continue;
        }
        if (in_string) {
            if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            block_start = i;
            s[i] = s[i + 1] = ' ';
            i++;
            in_block = true;
        } else if (c == ';' || c == '#' || (c == '/' && i + 1 < len && s[i + 1] == '/')) {
            while (i < len && s[i] != '\n')
                s[i++] = ' ';
            i--;
        }
    }
    return in_block ? block_start : len;
}

/* 1-based line and column of byte offset off in text. */
static void line_col(const char *text, size_t off, uint32_t *line, int *col)
{
    uint32_t l = 1;
    size_t start = 0;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            l++;
            start = i + 1;
        }
    }
    *line = l;
    *col = (int)(off - start) + 1;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

/* If p starts with word (followed by a non-identifier char), returns the rest. */
static const char *match_word(const char *p, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(p, word, n) != 0)
        return NULL;
    char c = p[n];
    if (isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$')
        return NULL;
    return p + n;
}

static size_t ident_len(const char *p)
{
    size_t n = 0;
    if (!(isalpha((unsigned char)p[0]) || p[0] == '_' || p[0] == '.' || p[0] == '$'))
        return 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.' || p[n] == '$')
        n++;
    return n;
}

static asm_macro *find_macro(asm_state *as, const char *name, size_t len)
{
    for (size_t i = 0; i < as->nmacros; i++)
        if (strlen(as->macros[i].name) == len && memcmp(as->macros[i].name, name, len) == 0)
            return &as->macros[i];
    return NULL;
}

dv_status asm_read_file(const char *path, char **text, size_t *len, dv_error *err)
{
    *text = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return dv_error_set(err, DV_ERR_MISSING, "%s: cannot open: %s", path, strerror(errno));
    dv_buf b = DV_BUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len <= DV_ASM_MAX_SOURCE)
        dv_buf_append(&b, chunk, n);
    bool bad = ferror(f);
    fclose(f);
    dv_status st = DV_OK;
    if (bad)
        st = dv_error_set(err, DV_ERR_IO, "%s: read error", path);
    else if (b.oom)
        st = dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", path);
    else if (b.len > DV_ASM_MAX_SOURCE)
        st = dv_error_set(err, DV_ERR_INPUT, "%s: larger than %d MiB", path, DV_ASM_MAX_SOURCE >> 20);
    if (st != DV_OK) {
        dv_buf_free(&b);
        return st;
    }
    *text = dv_buf_take(&b, len);
    return DV_OK;
}

/* Resolves an include: the including file's folder, then the include dirs. */
static char *find_include(asm_state *as, const char *from, const char *name, char **text, size_t *len)
{
    char path[4096];
    const char *slash = strrchr(from, '/');
    if (name[0] == '/')
        snprintf(path, sizeof path, "%s", name);
    else if (slash)
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - from), from, name);
    else
        snprintf(path, sizeof path, "%s", name);
    if (asm_read_file(path, text, len, NULL) == DV_OK)
        return strdup(path);
    for (size_t i = 0; as->opt && i < as->opt->ninclude_dirs; i++) {
        snprintf(path, sizeof path, "%s/%s", as->opt->include_dirs[i], name);
        if (asm_read_file(path, text, len, NULL) == DV_OK)
            return strdup(path);
    }
    return NULL;
}

/* What substitute() replaces in the lines of a body. */
typedef struct subst {
    char *const *names; /* \names[k] -> values[k] */
    char *const *values;
    unsigned n;
    const unsigned *counter; /* \@ (a macro expansion's number); NULL: kept */
    const unsigned *iter;    /* \+ (a .rept's or .irp's iteration); NULL: kept */
} subst;

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

static void free_args(char **args, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        free(args[i]);
}

/* Splits "a, b(c, d), "e, f"" at top-level commas (not inside parentheses
 * or a string) into *n new strings (at most max; *too_many if there are
 * more).  DV_ERR_NOMEM with *n = 0 and nothing allocated if a copy fails. */
static dv_status split_args(const char *p, char **args, unsigned max, unsigned *nargs, bool *too_many)
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
            free_args(args, n);
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

/* What a run of lines is read in. */
typedef struct src_ctx {
    int inc_depth;        /* files being read around these lines */
    int mac_depth;        /* macro expansions around them */
    int block_depth;      /* .if / .rept / .irp blocks around them */
    const src_call *call; /* the outermost macro call; NULL at a file's top level */
} src_ctx;

static dv_status run_lines(asm_state *as, const src_line *lines, size_t n, const src_ctx *ctx);
static dv_status load_source(asm_state *as, const char *name, const char *text, size_t len, int depth);
static bool opens_rep(const char *p);

/* One copy of a body (a macro's, a .rept's or an .irp's): each line
 * substituted into a new line list, which is read like a file's lines in
 * ctx, then freed.  \+ is the iteration of the innermost .rept or .irp
 * around it, so it is replaced only outside the blocks nested in the body.
 * A line that grows past MAX_LINE (arguments that contain their own
 * expansion grow exponentially with the nesting) stops the expansion, with
 * an error naming `what`. */
static dv_status run_copy(asm_state *as, const src_line *body, size_t nbody, const subst *sb,
                          const char *what, const src_ctx *ctx)
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
        if (opens_rep(p))
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
        st = run_lines(as, copy, n, ctx);
    for (size_t k = 0; k < n; k++)
        free(copy[k].text);
    free(copy);
    return st;
}

/* The offset of the ')' that closes the '(' at p[0] (outside strings, as
 * split_args reads them), or len if none does. */
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

static dv_status expand_macro(asm_state *as, asm_macro *m, const char *argtext, uint32_t file, uint32_t line,
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
    if (split_args(call_args(argtext, paren, sizeof paren), args, MAX_MACRO_ARGS, &nargs, &too_many) != DV_OK)
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
        free_args(args, nargs);
        return DV_OK;
    }
    char *values[MAX_MACRO_ARGS];
    for (unsigned k = 0; k < m->nparams; k++)
        values[k] = k < nargs && (args[k][0] || !m->defaults[k]) ? args[k] : m->defaults[k];
    if (!budget(as, ctx->call, file, line, m->nbody)) {
        free_args(args, nargs);
        return DV_OK; /* the budget error fails the assembly */
    }
    unsigned counter = as->macro_counter++;
    subst sb = {m->params, values, m->nparams, &counter, NULL};
    char what[80];
    snprintf(what, sizeof what, "macro '%s'", m->name);
    /* The body's lines are the call's: inner calls keep the outermost one. */
    src_call here = {file, line, col};
    src_ctx inner = {ctx->inc_depth, ctx->mac_depth + 1, 0, ctx->call ? ctx->call : &here};
    dv_status st = run_copy(as, m->body, m->nbody, &sb, what, &inner);
    free_args(args, nargs);
    return st;
}

/* One logical line: a macro call is expanded, anything else is kept. */
static dv_status expand_line(asm_state *as, const char *text, uint32_t file, uint32_t line,
                             const src_ctx *ctx)
{
    if (as->too_long)
        return DV_OK; /* dropped; the budget error fails the assembly */
    /* Peel leading labels onto lines of their own so "loop: mymacro x1"
     * expands the macro; blanking (not cutting) keeps columns right. */
    char *work = strdup(text);
    if (!work)
        return DV_ERR_NOMEM;
    const char *p = skip_ws(work);
    for (;;) {
        size_t n = ident_len(p);
        const char *q = skip_ws(p + n);
        if (n == 0 || *q != ':')
            break;
        size_t upto = (size_t)(q + 1 - work);
        bool ok = push_line(as, work, upto, file, line, ctx->call);
        memset(work, ' ', upto);
        if (!ok) {
            free(work);
            return DV_ERR_NOMEM;
        }
        p = skip_ws(q + 1);
    }
    size_t n = ident_len(p);
    asm_macro *m = n ? find_macro(as, p, n) : NULL;
    dv_status st;
    if (m)
        st = expand_macro(as, m, p + n, file, line, (int)(p - work) + 1, ctx);
    else
        st = push_line(as, work, strlen(work), file, line, ctx->call) ? DV_OK : DV_ERR_NOMEM;
    free(work);
    return st;
}

static void macro_free(asm_macro *m)
{
    free(m->name);
    free_args(m->params, m->nparams);
    for (unsigned k = 0; k < m->nparams; k++)
        free(m->defaults[k]);
    for (size_t k = 0; k < m->nbody; k++)
        free(m->body[k].text);
    free(m->body);
}

/* Records the macro a .macro line names (*out; NULL after a diagnostic). */
static dv_status add_macro(asm_state *as, const char *header, uint32_t file, uint32_t line, int col,
                           asm_macro **out)
{
    *out = NULL;
    const char *p = skip_ws(header);
    size_t n = ident_len(p);
    if (n == 0) {
        asm_diag(as, file, line, col, "expected a macro name after .macro");
        return DV_OK;
    }
    if (find_macro(as, p, n) || dv_isa_lookup_n(p, n)) {
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
    if (!m->name || split_args(p + n, m->params, MAX_MACRO_ARGS, &m->nparams, &too_many) != DV_OK) {
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

static dv_status macro_body_push(asm_macro *m, const char *text, uint32_t file, uint32_t line)
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

void asm_free_macros(asm_state *as);

void asm_free_macros(asm_state *as)
{
    for (size_t i = 0; i < as->nmacros; i++)
        macro_free(&as->macros[i]);
    free(as->macros);
    as->macros = NULL;
    as->nmacros = as->cap_macros = 0;
}

/* The files being read, innermost last, compared by their resolved path. */
static const char *open_file_cycle(asm_state *as, const char *path)
{
    char *real = realpath(path, NULL);
    const char *hit = NULL;
    for (int i = 0; real && i < as->nopen; i++)
        if (strcmp(as->open_real[i], real) == 0)
            hit = as->open_real[i];
    free(real);
    return hit;
}

dv_status asm_load_source(asm_state *as, const char *name, const char *text, size_t len, int depth)
{
    char *real = realpath(name, NULL);
    if (real && as->nopen < (int)(sizeof as->open_real / sizeof as->open_real[0]))
        as->open_real[as->nopen++] = real;
    else
        free(real), real = NULL;
    dv_status st = load_source(as, name, text, len, depth);
    if (real) {
        as->nopen--;
        free(real);
    }
    return st;
}

/* ---- .include ---- */

static dv_status do_include(asm_state *as, const src_line *ln, const char *rest, int col, const src_ctx *ctx)
{
    const char *q = skip_ws(rest);
    const char *end = *q == '"' ? strchr(q + 1, '"') : NULL;
    int qcol = (int)(q - ln->text) + 1;
    if (!end || *skip_ws(end + 1)) {
        asm_diag_in(as, ctx->call, ln->file, ln->line, qcol, "expected .include \"file\"");
        return DV_OK;
    }
    if (ctx->call) {
        asm_diag_in(as, ctx->call, ln->file, ln->line, col, ".include is not expanded inside a macro");
        return DV_OK;
    }
    if (as->opt->no_includes) {
        asm_diag(as, ln->file, ln->line, col, ".include is disabled here");
        return DV_OK;
    }
    if (ctx->inc_depth + 1 >= MAX_INCLUDE_DEPTH) {
        asm_diag(as, ln->file, ln->line, col, ".include nested more than %d deep (an include cycle?)",
                 MAX_INCLUDE_DEPTH);
        return DV_OK;
    }
    char *incname = strndup(q + 1, (size_t)(end - q - 1));
    char *inctext = NULL;
    size_t inclen = 0;
    char *path = incname ? find_include(as, as->obj->files[ln->file], incname, &inctext, &inclen) : NULL;
    const char *cycle = path ? open_file_cycle(as, path) : NULL;
    dv_status st = DV_OK;
    if (!incname)
        st = DV_ERR_NOMEM;
    else if (cycle)
        asm_diag(as, ln->file, ln->line, col, "include cycle: \"%s\" is already being read (from %s)",
                 incname, cycle);
    else if (!path)
        asm_diag(as, ln->file, ln->line, qcol,
                 "cannot find or read include file \"%s\" (or it is larger than %d MiB)", incname,
                 DV_ASM_MAX_SOURCE >> 20);
    else
        st = asm_load_source(as, path, inctext, inclen, ctx->inc_depth + 1);
    free(incname);
    free(inctext);
    free(path);
    return st;
}

/* ---- conditional and repeated blocks: .if*, .else, .endif; .rept, .irp, .endr ---- */

static bool opens_if(const char *p)
{
    return match_word(p, ".if") || match_word(p, ".ifc") || match_word(p, ".ifnc") || match_word(p, ".ifb") ||
           match_word(p, ".ifnb");
}

static bool opens_rep(const char *p)
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
        if (opens_if(p) || opens_rep(p)) {
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
        if (split_args(rest, args, 3, &n, &too_many) != DV_OK)
            return DV_ERR_NOMEM;
        bool same = n == 2 && strcmp(args[0], args[1]) == 0;
        if (n != 2)
            asm_diag_in(as, ctx->call, ln->file, ln->line, (int)(p - ln->text) + 1,
                        "%.5s needs two strings to compare, separated by a comma", p);
        free_args(args, n);
        *ok = n == 2;
        *yes = same == (match_word(p, ".ifc") != NULL);
        return DV_OK;
    }
    int64_t v = 0;
    *ok = const_expr(as, ln, match_word(p, ".if"), ".if", ctx, &v);
    *yes = v != 0;
    return DV_OK;
}

static dv_status do_if(asm_state *as, const src_line *lines, size_t i, size_t n, const src_ctx *ctx,
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
        return run_lines(as, lines + i + 1, (else_at < end ? else_at : end) - i - 1, &inner);
    return else_at < end ? run_lines(as, lines + else_at + 1, end - else_at - 1, &inner) : DV_OK;
}

/* One copy of a repeated body (after the .rept or .irp line at): \name ->
 * value (.irp), \+ -> the iteration. */
static dv_status rep_copy(asm_state *as, const src_line *at, const src_line *body, size_t nbody, char *name,
                          char *value, unsigned iter, const src_ctx *ctx)
{
    if (!budget(as, ctx->call, at->file, at->line, nbody))
        return DV_OK; /* the budget error fails the assembly */
    char *names[1] = {name}, *values[1] = {value};
    subst sb = {names, values, name ? 1 : 0, NULL, &iter};
    return run_copy(as, body, nbody, &sb, name ? ".irp" : ".rept", ctx);
}

static dv_status do_rep(asm_state *as, const src_line *lines, size_t i, size_t n, const src_ctx *ctx,
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
    if (split_args(rest, args, MAX_MACRO_ARGS + 1, &na, &too_many) != DV_OK)
        return DV_ERR_NOMEM;
    /* the name must be one: `.irp , 1, 2` has none */
    if (na == 0 || !args[0][0] || ident_len(args[0]) != strlen(args[0]) || too_many) {
        asm_diag_in(as, ctx->call, lines[i].file, lines[i].line, col,
                    too_many ? ".irp takes at most %d values"
                             : ".irp needs a name, then its values (%d at most)",
                    MAX_MACRO_ARGS);
        free_args(args, na);
        return DV_OK;
    }
    if (na == 1) /* no values: once, with the name empty (as GNU as) */
        st = rep_copy(as, &lines[i], body, nbody, args[0], "", 0, &inner);
    for (unsigned k = 1; k < na && st == DV_OK && !as->too_long; k++)
        st = rep_copy(as, &lines[i], body, nbody, args[0], args[k], k - 1, &inner);
    free_args(args, na);
    return st;
}

/* ---- the lines of a file or of a macro expansion ---- */

/* Reads lines in order: macro definitions are recorded (at a file's top
 * level), includes read in place, blocks taken or repeated, macro calls
 * expanded; every other line goes to the assembler's list. */
static dv_status run_lines(asm_state *as, const src_line *lines, size_t n, const src_ctx *ctx)
{
    asm_macro *recording = NULL;
    bool in_macro = false;
    const char *macro_name = "?";
    uint32_t macro_file = 0, macro_line = 0;
    int macro_col = 1;
    dv_status st = DV_OK;
    for (size_t i = 0; i < n && st == DV_OK;) {
        const src_line *ln = &lines[i];
        const char *p = skip_ws(ln->text), *rest;
        int col = (int)(p - ln->text) + 1;
        size_t next = i + 1;
        if (in_macro) {
            if (match_word(p, ".endm"))
                in_macro = false, recording = NULL;
            else if (match_word(p, ".macro"))
                asm_diag(as, ln->file, ln->line, col,
                         "a .macro cannot be defined inside another (missing .endm?)");
            else if (recording)
                st = macro_body_push(recording, ln->text, ln->file, ln->line);
        } else if ((rest = match_word(p, ".macro")) != NULL) {
            if (ctx->call) {
                asm_diag_in(as, ctx->call, ln->file, ln->line, col,
                            "a .macro cannot be defined inside another (missing .endm?)");
            } else {
                /* A bad header still swallows its body, so the body is not
                 * assembled as ordinary lines. */
                st = add_macro(as, rest, ln->file, ln->line, col, &recording);
                in_macro = true;
                macro_file = ln->file, macro_line = ln->line, macro_col = col;
                macro_name = recording ? recording->name : "?";
            }
        } else if (match_word(p, ".endm")) {
            asm_diag_in(as, ctx->call, ln->file, ln->line, col, ".endm without .macro");
        } else if ((rest = match_word(p, ".include")) != NULL) {
            st = do_include(as, ln, rest, col, ctx);
        } else if (opens_if(p)) {
            st = do_if(as, lines, i, n, ctx, &next);
        } else if (opens_rep(p)) {
            st = do_rep(as, lines, i, n, ctx, &next);
        } else if (match_word(p, ".else") || match_word(p, ".endif") || match_word(p, ".endr")) {
            asm_diag_in(as, ctx->call, ln->file, ln->line, col, "%.*s without its opening directive",
                        (int)ident_len(p), p);
        } else {
            st = expand_line(as, ln->text, ln->file, ln->line, ctx);
        }
        i = next;
    }
    if (in_macro)
        asm_diag(as, macro_file, macro_line, macro_col, "macro '%s' has no .endm", macro_name);
    return st;
}

static dv_status load_source(asm_state *as, const char *name, const char *text, size_t len, int depth)
{
    uint32_t file;
    if (as->too_long)
        return DV_OK;
    dv_status st = dv_obj_add_file(as->obj, name, &file, NULL);
    if (st != DV_OK)
        return st;
    char *copy = malloc(len + 1);
    if (!copy)
        return DV_ERR_NOMEM;
    memcpy(copy, text, len);
    copy[len] = '\0';
    /* A NUL byte would cut the line short without a word: report and blank it. */
    for (size_t i = 0; i < len; i++) {
        if (copy[i] == '\0') {
            uint32_t l;
            int c;
            line_col(copy, i, &l, &c);
            asm_diag(as, file, l, c, "NUL byte in source");
            copy[i] = ' ';
        }
    }
    size_t open = blank_comments(copy, len);
    if (open < len) {
        uint32_t l;
        int c;
        line_col(text, open, &l, &c);
        asm_diag(as, file, l, c, "unterminated block comment (no closing */)");
    }
    /* The file's lines (views into copy), then read in order. */
    size_t nlines = 1;
    for (size_t i = 0; i < len; i++)
        nlines += copy[i] == '\n';
    src_line *lines = malloc(nlines * sizeof *lines);
    if (!lines) {
        free(copy);
        return DV_ERR_NOMEM;
    }
    size_t n = 0;
    uint32_t lineno = 0;
    char *save = NULL;
    for (char *cur = copy; cur; cur = save) {
        char *nl = strchr(cur, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        lineno++;
        if (strlen(cur) > MAX_LINE) {
            asm_diag(as, file, lineno, 1, "line longer than %d characters", MAX_LINE);
            continue;
        }
        lines[n++] = (src_line){cur, file, lineno, {0, 0, 0}};
    }
    src_ctx ctx = {depth, 0, 0, NULL};
    if (budget(as, NULL, file, 1, n))
        st = run_lines(as, lines, n, &ctx);
    free(lines);
    free(copy);
    return st;
}
