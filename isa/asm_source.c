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
 * exponential long before it is MAX_MACRO_DEPTH deep. */
enum {
    MAX_INCLUDE_DEPTH = 16,
    MAX_MACRO_DEPTH = 32,
    MAX_MACRO_ARGS = 16,
    MAX_LINE = 4096,
    MAX_LINES = 250000,
    MAX_EXPANDED_BYTES = 16 << 20 /* 16 MiB of expanded text */
};

typedef struct asm_macro {
    char *name;
    unsigned nparams;
    char *params[MAX_MACRO_ARGS];
    src_line *body;
    size_t nbody;
} asm_macro;

void asm_diag(asm_state *as, uint32_t file, uint32_t line, int col, const char *fmt, ...)
{
    as->nerrors++;
    if (as->nerrors > as->max_errors)
        return;
    dv_buf b = DV_BUF_INIT;
    const char *fname = file < as->obj->nfiles ? as->obj->files[file] : "?";
    if (col > 0)
        dv_buf_printf(&b, "%s:%u:%d: ", fname, line, col);
    else
        dv_buf_printf(&b, "%s:%u: ", fname, line);
    va_list ap;
    va_start(ap, fmt);
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dv_buf_puts(&b, msg);
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

/* Counts one line of expansion against the budget; false once it is spent. */
static bool budget(asm_state *as, uint32_t file, uint32_t line)
{
    if (as->too_long)
        return false;
    if (++as->expanded < MAX_LINES)
        return true;
    as->too_long = true;
    asm_diag(as, file, line, 1, "the source expands to more than %d lines (runaway macro recursion?)",
             MAX_LINES);
    return false;
}

static bool push_line(asm_state *as, const char *text, size_t len, uint32_t file, uint32_t line)
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
    as->lines[as->nlines++] = (src_line){copy, file, line};
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

/* Substitutes \param and \@ in a macro body line. */
static void substitute(dv_buf *out, const char *body, const asm_macro *m, char *const *args, unsigned nargs,
                       unsigned counter)
{
    for (const char *p = body; *p;) {
        if (*p == '\\' && p[1] == '@') {
            dv_buf_printf(out, "%u", counter);
            p += 2;
            continue;
        }
        if (*p == '\\') {
            size_t n = ident_len(p + 1);
            bool done = false;
            for (unsigned k = 0; n && k < m->nparams; k++) {
                if (strlen(m->params[k]) == n && memcmp(m->params[k], p + 1, n) == 0) {
                    dv_buf_puts(out, k < nargs ? args[k] : "");
                    p += 1 + n;
                    done = true;
                    break;
                }
            }
            if (done)
                continue;
        }
        dv_buf_append(out, p, 1);
        p++;
    }
}

static void free_args(char **args, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        free(args[i]);
}

/* Splits "a, b(c, d), e" at top-level commas. */
static unsigned split_args(const char *p, char **args, unsigned max, bool *too_many)
{
    unsigned n = 0;
    *too_many = false;
    p = skip_ws(p);
    if (!*p)
        return 0;
    for (;;) {
        const char *start = p;
        int depth = 0;
        while (*p && !(depth == 0 && *p == ',')) {
            if (*p == '(')
                depth++;
            else if (*p == ')' && depth > 0)
                depth--;
            p++;
        }
        const char *end = p;
        while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            end--;
        if (n == max) {
            *too_many = true;
            return n;
        }
        args[n] = strndup(start, (size_t)(end - start));
        n++;
        if (!*p)
            return n;
        p = skip_ws(p + 1);
    }
}

static dv_status expand_line(asm_state *as, const char *text, uint32_t file, uint32_t line, int depth);
static dv_status load_source(asm_state *as, const char *name, const char *text, size_t len, int depth);

static dv_status expand_macro(asm_state *as, asm_macro *m, const char *argtext, uint32_t file, uint32_t line,
                              int col, int depth)
{
    if (as->too_long)
        return DV_OK;
    if (depth >= MAX_MACRO_DEPTH) {
        asm_diag(as, file, line, col, "macro '%s' nested more than %d deep (recursive macro?)", m->name,
                 MAX_MACRO_DEPTH);
        as->too_long = true; /* stop expanding: the same error would repeat per call */
        return DV_OK;
    }
    char *args[MAX_MACRO_ARGS];
    bool too_many;
    unsigned nargs = split_args(argtext, args, MAX_MACRO_ARGS, &too_many);
    if (too_many || nargs > m->nparams) {
        asm_diag(as, file, line, col, "macro '%s' takes %u argument%s, given %s%u", m->name, m->nparams,
                 m->nparams == 1 ? "" : "s", too_many ? "more than " : "", nargs);
        free_args(args, nargs);
        return DV_OK;
    }
    if (nargs < m->nparams) {
        asm_diag(as, file, line, col, "macro '%s' takes %u argument%s, given %u", m->name, m->nparams,
                 m->nparams == 1 ? "" : "s", nargs);
        free_args(args, nargs);
        return DV_OK;
    }
    unsigned counter = as->macro_counter++;
    dv_status st = DV_OK;
    for (size_t i = 0; i < m->nbody && st == DV_OK; i++) {
        dv_buf b = DV_BUF_INIT;
        substitute(&b, m->body[i].text, m, args, nargs, counter);
        if (b.oom) {
            st = DV_ERR_NOMEM;
        } else if (b.len > MAX_LINE) {
            /* Arguments that contain their own expansion grow exponentially
             * with the nesting depth: stop at the first overlong line. */
            asm_diag(as, m->body[i].file, m->body[i].line, 1,
                     "macro '%s' expands to a line longer than %d characters", m->name, MAX_LINE);
            as->too_long = true;
            dv_buf_free(&b);
            break;
        } else
            st = expand_line(as, b.data ? b.data : "", m->body[i].file, m->body[i].line, depth + 1);
        dv_buf_free(&b);
    }
    free_args(args, nargs);
    return st;
}

/* One logical line: a macro call is expanded, anything else is kept. */
static dv_status expand_line(asm_state *as, const char *text, uint32_t file, uint32_t line, int depth)
{
    if (!budget(as, file, line))
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
        bool ok = push_line(as, work, upto, file, line);
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
        st = expand_macro(as, m, p + n, file, line, (int)(p - work) + 1, depth);
    else
        st = push_line(as, work, strlen(work), file, line) ? DV_OK : DV_ERR_NOMEM;
    free(work);
    return st;
}

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
    if (!m->name)
        return DV_ERR_NOMEM;
    bool too_many;
    m->nparams = split_args(p + n, m->params, MAX_MACRO_ARGS, &too_many);
    if (too_many)
        asm_diag(as, file, line, col, "macro '%s' has more than %d parameters", m->name, MAX_MACRO_ARGS);
    for (unsigned k = 0; k < m->nparams; k++) {
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
    m->nbody++;
    return DV_OK;
}

void asm_free_macros(asm_state *as);

void asm_free_macros(asm_state *as)
{
    for (size_t i = 0; i < as->nmacros; i++) {
        asm_macro *m = &as->macros[i];
        free(m->name);
        free_args(m->params, m->nparams);
        for (size_t k = 0; k < m->nbody; k++)
            free(m->body[k].text);
        free(m->body);
    }
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

static dv_status load_source(asm_state *as, const char *name, const char *text, size_t len, int depth)
{
    uint32_t file;
    if (!budget(as, 0, 0))
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

    asm_macro *recording = NULL;
    bool in_macro = false;
    const char *macro_name = "?";
    uint32_t macro_line = 0;
    int macro_col = 1;
    uint32_t lineno = 0;
    char *save = NULL;
    for (char *cur = copy; cur && st == DV_OK; cur = save) {
        char *nl = strchr(cur, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        lineno++;
        if (strlen(cur) > MAX_LINE) {
            asm_diag(as, file, lineno, 1, "line longer than %d characters", MAX_LINE);
            continue;
        }
        const char *p = skip_ws(cur);
        int col = (int)(p - cur) + 1;
        const char *rest;
        if (in_macro) {
            if ((rest = match_word(p, ".endm")) != NULL)
                in_macro = false, recording = NULL;
            else if (match_word(p, ".macro"))
                asm_diag(as, file, lineno, col, "a .macro cannot be defined inside another (missing .endm?)");
            else if (recording)
                st = macro_body_push(recording, cur, file, lineno);
            continue;
        }
        if ((rest = match_word(p, ".macro")) != NULL) {
            /* A bad header still swallows its body, so the body is not
             * assembled as ordinary lines. */
            st = add_macro(as, rest, file, lineno, col, &recording);
            in_macro = true;
            macro_line = lineno;
            macro_col = col;
            macro_name = recording ? recording->name : "?";
            continue;
        }
        if (match_word(p, ".endm")) {
            asm_diag(as, file, lineno, col, ".endm without .macro");
            continue;
        }
        if ((rest = match_word(p, ".include")) != NULL) {
            const char *q = skip_ws(rest);
            const char *end = *q == '"' ? strchr(q + 1, '"') : NULL;
            if (!end || *skip_ws(end + 1)) {
                asm_diag(as, file, lineno, (int)(q - cur) + 1, "expected .include \"file\"");
                continue;
            }
            if (as->opt->no_includes) {
                asm_diag(as, file, lineno, col, ".include is disabled here");
                continue;
            }
            if (depth + 1 >= MAX_INCLUDE_DEPTH) {
                asm_diag(as, file, lineno, col, ".include nested more than %d deep (an include cycle?)",
                         MAX_INCLUDE_DEPTH);
                continue;
            }
            char *incname = strndup(q + 1, (size_t)(end - q - 1));
            char *inctext = NULL;
            size_t inclen = 0;
            char *path = incname ? find_include(as, as->obj->files[file], incname, &inctext, &inclen) : NULL;
            const char *cycle = path ? open_file_cycle(as, path) : NULL;
            if (!incname) {
                st = DV_ERR_NOMEM;
            } else if (cycle) {
                asm_diag(as, file, lineno, col, "include cycle: \"%s\" is already being read (from %s)",
                         incname, cycle);
            } else if (!path) {
                asm_diag(as, file, lineno, (int)(q - cur) + 1,
                         "cannot find or read include file \"%s\" (or it is larger than %d MiB)", incname,
                         DV_ASM_MAX_SOURCE >> 20);
            } else {
                st = asm_load_source(as, path, inctext, inclen, depth + 1);
            }
            free(incname);
            free(inctext);
            free(path);
            continue;
        }
        st = expand_line(as, cur, file, lineno, 0);
    }
    if (in_macro)
        asm_diag(as, file, macro_line, macro_col, "macro '%s' has no .endm", macro_name);
    free(copy);
    return st;
}
