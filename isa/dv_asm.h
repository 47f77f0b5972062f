/* dv_asm.h - the dvsim assembler: .dvs text -> kernel object.
 *
 * Syntax (docs/assembler.md): one instruction or directive per line;
 * comments start with ";", "#" or "//", and block comments run from slash-star to star-slash;
 * labels end with ':'; operands are separated by commas; tensor fields are
 * written key=value.  Directives: .kernel, .arg, .equ/.set, .reg, .macro/.endm,
 * .include, .text, .data, .byte/.half/.word/.dword, .align, .zero, .chip.
 * Pseudo-instructions: li (any 64-bit constant), mv, not, neg, j, call, ret,
 * beqz, bnez, bgt, ble, bgtu, bleu, pack.LAYOUT.
 *
 * Every error of a file is collected (not only the first) as
 * "file:line:col: message" lines. */
#ifndef DV_ASM_H
#define DV_ASM_H

#include "dv_obj.h"
#include "dv_status.h"

#include <stdbool.h>
#include <stddef.h>

enum { DV_ASM_MAX_SOURCE = 64 << 20 }; /* bytes per source file */

/* A constant the assembler knows before the first line, as if by .equ. */
typedef struct dv_asm_symbol {
    const char *name;
    int64_t value;
} dv_asm_symbol;

typedef struct dv_asm_options {
    const char *const *include_dirs; /* searched after the including file's folder */
    size_t ninclude_dirs;
    unsigned max_errors; /* 0: default (100) */
    bool no_includes;    /* reject .include (fuzzing, untrusted input) */
    /* Predefined constants (e.g. the event catalogue's ev.<name>, from
     * dv_event_asm_symbols): a source may not define them again. */
    const dv_asm_symbol *symbols;
    size_t nsymbols;
} dv_asm_options;

/* Diagnostics collected by one assembly, one line each. */
typedef struct dv_diags {
    char **lines;
    size_t count;
} dv_diags;

void dv_diags_free(dv_diags *d);

/* Assembles `text` (len bytes, need not be NUL-terminated) named `name` in
 * messages.  On success *out is a new object the caller destroys.  On failure
 * returns DV_ERR_INPUT (assembly errors, including an .include that cannot
 * be found: all in diags, the first in err) or DV_ERR_NOMEM. */
dv_status dv_asm_string(const char *name, const char *text, size_t len, const dv_asm_options *opt,
                        dv_obj **out, dv_diags *diags, dv_error *err);

/* As dv_asm_string on the contents of path; DV_ERR_MISSING if it cannot be read. */
dv_status dv_asm_file(const char *path, const dv_asm_options *opt, dv_obj **out, dv_diags *diags,
                      dv_error *err);

#endif
