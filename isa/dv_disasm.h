/* dv_disasm.h - objdump-like listings of kernel objects.
 *
 * The listing is valid assembler input: kernel directives and labels as
 * source, addresses and encodings inside block comments, source lines in
 * trailing comments.  Assembling it gives the same .text and .data bytes. */
#ifndef DV_DISASM_H
#define DV_DISASM_H

#include "dv_buf.h"
#include "dv_obj.h"
#include "dv_status.h"

#include <stdbool.h>

typedef struct dv_disasm_options {
    bool raw;    /* show address and encoding of each instruction (default on) */
    bool source; /* show the source file:line of each instruction */
} dv_disasm_options;

/* Appends the listing of obj to out.  An undecodable word is listed as
 * `.dword 0x...` with a comment, so a listing is always produced. */
dv_status dv_disasm_obj(const dv_obj *obj, const dv_disasm_options *opt, dv_buf *out, dv_error *err);

#endif
