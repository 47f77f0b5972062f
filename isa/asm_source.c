/* asm_source.c - turns assembly files into one list of lines: comments
 * blanked, .include files read in place, macro definitions recorded and
 * calls expanded (asm_macro.c), blocks taken or repeated (asm_blocks.c);
 * every line counted against the expansion's budget. */
/* realpath() is X/Open. */
#define _XOPEN_SOURCE 700

#include "asm_source_internal.h"
#include "dv_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool asm_budget(asm_state *as, const src_call *call, uint32_t file, uint32_t line, size_t n)
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

dv_status asm_read_file(const char *path, char **text, size_t *len, dv_error *err)
{
    *text = NULL;
    FILE *f = dv_open_input(path, err);
    if (!f)
        return err ? err->status : DV_ERR_MISSING;
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

static dv_status load_source(asm_state *as, const char *name, const char *text, size_t len, int depth);

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
    asm_macro *m = n ? asm_find_macro(as, p, n) : NULL;
    dv_status st;
    if (m)
        st = asm_expand_macro(as, m, p + n, file, line, (int)(p - work) + 1, ctx);
    else
        st = push_line(as, work, strlen(work), file, line, ctx->call) ? DV_OK : DV_ERR_NOMEM;
    free(work);
    return st;
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

/* ---- the lines of a file or of a macro expansion ---- */

/* Reads lines in order: macro definitions are recorded (at a file's top
 * level), includes read in place, blocks taken or repeated, macro calls
 * expanded; every other line goes to the assembler's list. */
dv_status asm_run_lines(asm_state *as, const src_line *lines, size_t n, const src_ctx *ctx)
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
                st = asm_macro_body_push(recording, ln->text, ln->file, ln->line);
        } else if ((rest = match_word(p, ".macro")) != NULL) {
            if (ctx->call) {
                asm_diag_in(as, ctx->call, ln->file, ln->line, col,
                            "a .macro cannot be defined inside another (missing .endm?)");
            } else {
                /* A bad header still swallows its body, so the body is not
                 * assembled as ordinary lines. */
                st = asm_add_macro(as, rest, ln->file, ln->line, col, &recording);
                in_macro = true;
                macro_file = ln->file, macro_line = ln->line, macro_col = col;
                macro_name = recording ? asm_macro_name(recording) : "?";
            }
        } else if (match_word(p, ".endm")) {
            asm_diag_in(as, ctx->call, ln->file, ln->line, col, ".endm without .macro");
        } else if ((rest = match_word(p, ".include")) != NULL) {
            st = do_include(as, ln, rest, col, ctx);
        } else if (asm_opens_if(p)) {
            st = asm_do_if(as, lines, i, n, ctx, &next);
        } else if (asm_opens_rep(p)) {
            st = asm_do_rep(as, lines, i, n, ctx, &next);
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
    if (asm_budget(as, NULL, file, 1, n))
        st = asm_run_lines(as, lines, n, &ctx);
    free(lines);
    free(copy);
    return st;
}
