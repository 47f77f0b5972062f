/* asm_source_internal.h - shared by the files of the assembler's source
 * stage (asm_source.c, asm_macro.c, asm_blocks.c), which turns the source
 * files into one list of lines before the passes.  Not installed. */
#ifndef DV_ASM_SOURCE_INTERNAL_H
#define DV_ASM_SOURCE_INTERNAL_H

#include "asm_internal.h"

#include <ctype.h>
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
    MAX_LINES = 500000,            /* matmul's db.dvs family expands to ~280,000 (false .if bodies count) */
    MAX_EXPANDED_BYTES = 16 << 20, /* 16 MiB of expanded text */
    MAX_REPT = 65536,              /* .rept count */
    MAX_BLOCK_DEPTH = 32,          /* .if / .rept / .irp nested in one another */
};

/* What a run of lines is read in. */
typedef struct src_ctx {
    int inc_depth;        /* files being read around these lines */
    int mac_depth;        /* macro expansions around them */
    int block_depth;      /* .if / .rept / .irp blocks around them */
    const src_call *call; /* the outermost macro call; NULL at a file's top level */
} src_ctx;

static inline const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

/* If p starts with word (followed by a non-identifier char), returns the rest. */
static inline const char *match_word(const char *p, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(p, word, n) != 0)
        return NULL;
    char c = p[n];
    if (isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$')
        return NULL;
    return p + n;
}

/* The length of the identifier p starts with (0 if none). */
static inline size_t ident_len(const char *p)
{
    size_t n = 0;
    if (!(isalpha((unsigned char)p[0]) || p[0] == '_' || p[0] == '.' || p[0] == '$'))
        return 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.' || p[n] == '$')
        n++;
    return n;
}

/* What substitute() replaces in the lines of a body. */
typedef struct subst {
    char *const *names; /* \names[k] -> values[k] */
    char *const *values;
    unsigned n;
    const unsigned *counter; /* \@ (a macro expansion's number); NULL: kept */
    const unsigned *iter;    /* \+ (a .rept's or .irp's iteration); NULL: kept */
} subst;

typedef struct asm_macro asm_macro;

/* ---- asm_source.c ---- */

/* Counts n lines of expansion (at least one) against the budget, made at
 * file:line (in the macro call `call`, NULL if none); false once it is spent. */
bool asm_budget(asm_state *as, const src_call *call, uint32_t file, uint32_t line, size_t n);
/* Reads lines in order (see asm_source.c). */
dv_status asm_run_lines(asm_state *as, const src_line *lines, size_t n, const src_ctx *ctx);

/* ---- asm_macro.c ---- */

asm_macro *asm_find_macro(asm_state *as, const char *name, size_t len);
const char *asm_macro_name(const asm_macro *m);
/* The macro a .macro line names, recorded (*out NULL after a diagnostic). */
dv_status asm_add_macro(asm_state *as, const char *header, uint32_t file, uint32_t line, int col,
                        asm_macro **out);
dv_status asm_macro_body_push(asm_macro *m, const char *text, uint32_t file, uint32_t line);
/* A call of m with the argument text after its name, at file:line:col. */
dv_status asm_expand_macro(asm_state *as, asm_macro *m, const char *argtext, uint32_t file, uint32_t line,
                           int col, const src_ctx *ctx);
/* "a, b(c, d), "e, f"" split at top-level commas into *nargs new strings
 * (at most max; *too_many if there are more); DV_ERR_NOMEM with *nargs 0
 * and nothing allocated if a copy fails.  asm_free_args frees them. */
dv_status asm_split_args(const char *p, char **args, unsigned max, unsigned *nargs, bool *too_many);
void asm_free_args(char **args, unsigned n);
/* One copy of a body: each line substituted (sb), then read in ctx. */
dv_status asm_run_copy(asm_state *as, const src_line *body, size_t nbody, const subst *sb, const char *what,
                       const src_ctx *ctx);

/* ---- asm_blocks.c ---- */

bool asm_opens_if(const char *p);
bool asm_opens_rep(const char *p);
/* The block opened at lines[i] (of n): taken, or repeated; *next is the
 * line after its end. */
dv_status asm_do_if(asm_state *as, const src_line *lines, size_t i, size_t n, const src_ctx *ctx,
                    size_t *next);
dv_status asm_do_rep(asm_state *as, const src_line *lines, size_t i, size_t n, const src_ctx *ctx,
                     size_t *next);

#endif
