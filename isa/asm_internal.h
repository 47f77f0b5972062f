/* asm_internal.h - shared between the assembler's lexer, expression
 * evaluator, source stage, diagnostics and passes.  Not installed. */
#ifndef DV_ASM_INTERNAL_H
#define DV_ASM_INTERNAL_H

#include "dv_asm.h"
#include "dv_buf.h"
#include "dv_isa.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum tok_kind { TK_EOL, TK_IDENT, TK_INT, TK_FLOAT, TK_STRING, TK_PUNCT, TK_ERROR } tok_kind;

/* Two-character operators are packed as 'c1' << 8 | 'c2' in `punct`. */
enum { P_SHL = ('<' << 8) | '<', P_SHR = ('>' << 8) | '>' };

typedef struct token {
    tok_kind kind;
    const char *start; /* into the line */
    size_t len;
    int col; /* 1-based */
    int64_t ival;
    double fval;
    int punct;
} token;

typedef struct lexer {
    const char *line; /* NUL-terminated, comments already blanked */
    const char *p;
    token tok;     /* current token */
    char err[128]; /* set when the current token is TK_ERROR */
} lexer;

void lex_init(lexer *lx, const char *line);
void lex_next(lexer *lx);
bool lex_is(const lexer *lx, int punct);
bool lex_ident_is(const lexer *lx, const char *word);

/* Symbol lookup callback for expressions: returns true and sets *value if
 * `name` (len bytes) is defined; *pending is set when the value is not final
 * yet (an .equ that needs a symbol defined further down). */
typedef bool (*sym_lookup_fn)(void *user, const char *name, size_t len, int64_t *value, bool *pending);

typedef struct expr_ctx {
    sym_lookup_fn lookup;
    void *user;
    bool allow_undefined; /* first pass: an undefined symbol evaluates to 0 and sets `undefined` */
    bool undefined;
    char err[160];
    int err_col;
} expr_ctx;

/* Parses and evaluates an expression starting at the current token.  Stops
 * at ',', ')' (unmatched) or end of line.  false: error in ctx->err. */
bool expr_eval(lexer *lx, expr_ctx *ctx, int64_t *value);

/* ---- sources: files, includes and macros expanded into one line list ---- */

/* The outermost macro call a line was expanded from: the line outside any
 * macro (line 0: the line is not from a macro). */
typedef struct src_call {
    uint32_t file, line;
    int col;
} src_call;

typedef struct src_line {
    char *text;    /* comments blanked; owned */
    uint32_t file; /* index into the object's file list */
    uint32_t line; /* 1-based line in that file */
    src_call call; /* where the macro that produced it was called */
} src_line;

typedef struct asm_state asm_state;

/* Diagnostics: "file:line:col: message" appended to the state's list. */
void asm_diag(asm_state *as, uint32_t file, uint32_t line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The same for a line that may come from a macro (call NULL or call->line
 * 0: it does not): "call:line:col: message (in macro at file:line:col)",
 * so a mistake is found at the line its author wrote. */
void asm_diag_in(asm_state *as, const src_call *call, uint32_t file, uint32_t line, int col, const char *fmt,
                 ...) __attribute__((format(printf, 6, 7)));

/* Reads a whole source file (at most DV_ASM_MAX_SOURCE bytes) into a new
 * NUL-terminated buffer: DV_ERR_MISSING, DV_ERR_IO, DV_ERR_NOMEM or
 * DV_ERR_INPUT (too large) otherwise. */
dv_status asm_read_file(const char *path, char **text, size_t *len, dv_error *err);

/* Reads `text` as file `name` and appends its lines (with includes and macro
 * expansions) to the state's line list. */
dv_status asm_load_source(asm_state *as, const char *name, const char *text, size_t len, int depth);

typedef struct asm_diag_key {
    uint32_t file, line;
    int col;
    uint32_t seq;
} asm_diag_key;

struct asm_state {
    const dv_asm_options *opt;
    dv_obj *obj;
    dv_diags *diags;
    asm_diag_key *diag_keys; /* parallel to diags->lines, to sort them into source order */
    unsigned nerrors;
    unsigned max_errors;
    bool nomem;
    /* expanded source */
    src_line *lines;
    size_t nlines, cap_lines;
    struct asm_macro *macros;
    size_t nmacros, cap_macros;
    unsigned macro_counter; /* \@ */
    bool too_long;          /* the expansion hit its line limit */
    size_t expanded;        /* lines expanded so far, against that limit */
    size_t expanded_bytes;  /* and their text */
    char *open_real[16];    /* resolved paths of the files being read (include cycles) */
    int nopen;
};

/* Frees the macros recorded while the sources were read. */
void asm_free_macros(asm_state *as);
/* Sorts the diagnostics into source order (pass 1 and pass 2 find errors at
 * different times). */
void asm_sort_diags(asm_state *as);

/* ---- the two passes: asm.c (with asm_pseudo.inc, asm_directives.inc) and
 * asm_insn.c (the operands of a table instruction) ---- */

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

/* "file:line:col: message" for the current line, which is marked failed. */
void asm_err_at(assembler *a, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A token as a message shows it: 'text' or "end of line". */
void asm_tokname(const token *t, char *buf, size_t size);
symbol *asm_sym_find(assembler *a, const char *name, size_t len);
/* Register by architectural name (x0-x31, zero, ra, sp, a0-a15) or alias; -1 if none. */
int asm_reg_number(const assembler *a, const char *name, size_t len);
bool asm_expect_comma_or_end(assembler *a, lexer *lx);
bool asm_parse_expr(assembler *a, lexer *lx, int64_t *v);
bool asm_parse_reg(assembler *a, lexer *lx, int *reg, const char *what);
/* Is the current token an identifier directly followed by '='? */
bool asm_at_keyed(const lexer *lx);
/* Encodes insn (pass 2) and emits it, with its line entry at column col. */
void asm_emit_insn(assembler *a, const dv_insn *insn, int col);
/* An instruction of the ISA table, its mnemonic read (asm_insn.c). */
void asm_parse_insn(assembler *a, lexer *lx, const dv_insn_info *info, int col);

#endif
