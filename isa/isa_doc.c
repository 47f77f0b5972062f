/* isa_doc.c - docs/isa.md, generated from the tables (`dvsim isa --markdown`). */
#include "dv_buf.h"
#include "dv_isa.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *title;
    unsigned lo, hi; /* opcode range */
} sections[] = {
    {"Scalar: control", 0x00, 0x07},
    {"Scalar: register-register ALU", 0x08, 0x1f},
    {"Scalar: register-immediate ALU", 0x20, 0x2f},
    {"Scalar: memory", 0x30, 0x3f},
    {"Scalar: control flow and CSRs", 0x40, 0x4f},
    {"Transfer engines: MTE2, MTE3, MTE1 copies", 0x50, 0x57},
    {"Transfer engines: L1 to L0 (MTE1)", 0x58, 0x5f},
    {"Cube", 0x60, 0x67},
    {"FixPipe and the L0C output path", 0x68, 0x6f},
    {"Vector: binary", 0x70, 0x77},
    {"Vector: with a scalar", 0x78, 0x7f},
    {"Vector: unary", 0x80, 0x8f},
    {"Vector: reductions", 0x90, 0x97},
    {"Vector: compare, select, broadcast", 0x98, 0x9f},
    {"Vector: conversion and quantisation", 0xa0, 0xa7},
    {"Vector: mask", 0xa8, 0xaf},
    {"Synchronisation", 0xb0, 0xbf},
};

static void escape_pipes(dv_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            dv_buf_puts(b, "\\|");
        else
            dv_buf_append(b, s, 1);
    }
}

dv_status dv_isa_markdown(char **out, dv_error *err)
{
    dv_buf b = DV_BUF_INIT;
    dv_buf_puts(&b, "# dvsim ISA reference\n\n"
                    "Generated from `isa/isa.def`, `isa/isa_params.def` and `isa/isa_csr.def` by "
                    "`dvsim isa --markdown`; do not edit by hand (the test suite checks that this page "
                    "matches the tables).\n\n"
                    "Every instruction is one 64-bit little-endian word: bits [7:0] are the opcode, the "
                    "register operands sit in five 5-bit slots at bits 8, 13, 18, 23 and 28, and the "
                    "remaining fields are placed by the instruction's format. Unused bits must be zero. "
                    "Registers are `x0`-`x31` (64-bit; `x0` reads as zero), with the names `zero`, `ra` "
                    "(x1), `sp` (x2) and `a0`-`a15` (x10-x25, the kernel arguments).\n\n"
                    "The Scalar unit fetches every instruction, runs the scalar ones and dispatches the "
                    "rest, with their register values, into the in-order queue of the pipe named below. "
                    "Tensor instructions take addresses and shape parameters from registers; a *params* "
                    "register packs several fields, in one of the layouts at the end of this page, built "
                    "with the assembler's `pack.LAYOUT rd, key=value, ...`. Keyed fields (`dtype=f16`) "
                    "are encoded in the instruction word; those in brackets may be left out (default: "
                    "the first value, or 0).\n\n");
    char syntax[512], types[160];
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
        dv_buf_printf(&b,
                      "## %s\n\n| opcode | syntax | pipe | timing class | meaning |\n|---|---|---|---|---|\n",
                      sections[s].title);
        for (size_t i = 0; i < dv_isa_count(); i++) {
            const dv_insn_info *info = dv_isa_at(i);
            if (info->opcode < sections[s].lo || info->opcode > sections[s].hi)
                continue;
            dv_isa_syntax(info, syntax, sizeof syntax);
            dv_buf_printf(&b, "| 0x%02x | `", (unsigned)info->opcode);
            escape_pipes(&b, syntax);
            dv_buf_printf(&b, "` | %s | %s | ",
                          info->pipe == DV_PIPE_DYN ? "named in a field" : dv_pipe_name(info->pipe),
                          dv_tclass_name(info->tclass));
            escape_pipes(&b, info->doc);
            if (info->types != DV_TYPES_ANY) /* isa_types.def: the assembler rejects the others */
                dv_buf_printf(&b, " Types: %s.", dv_types_doc(info->types, types, sizeof types));
            dv_buf_puts(&b, " |\n");
        }
        dv_buf_puts(&b, "\n");
    }
    dv_buf_puts(&b,
                "## Pseudo-instructions (assembler only)\n\n"
                "| syntax | expands to |\n|---|---|\n"
                "| `li rd, value` | `li` (value fits in 32 signed bits) or `li` + `lih` |\n"
                "| `pack.LAYOUT rd, key=value, ...` | `li` of the packed parameter word |\n"
                "| `mv rd, rs` | `addi rd, rs, 0` |\n| `not rd, rs` | `xori rd, rs, -1` |\n"
                "| `neg rd, rs` | `sub rd, x0, rs` |\n| `j target` | `jal x0, target` |\n"
                "| `call target` | `jal ra, target` |\n| `ret` | `jalr x0, ra, 0` |\n"
                "| `beqz rs, target` / `bnez rs, target` | `beq` / `bne rs, x0, target` |\n"
                "| `bgt a, b, t` / `ble` / `bgtu` / `bleu` | `blt b, a, t` / `bge` / `bltu` / `bgeu` |\n\n");
    dv_buf_puts(&b, "## Parameter layouts\n\n");
    for (int i = 0; i < DV_LAYOUT_COUNT; i++) {
        const dv_layout *l = dv_layout_get((dv_layout_id)i);
        dv_buf_printf(&b, "### `%s`: %s\n\n| field | bits | meaning |\n|---|---|---|\n", l->name, l->doc);
        for (unsigned k = 0; k < l->nfields; k++)
            dv_buf_printf(&b, "| `%s` | [%u:%u] | %s |\n", l->fields[k].key,
                          l->fields[k].lo + l->fields[k].width - 1, l->fields[k].lo, l->fields[k].doc);
        dv_buf_puts(&b, "\n");
    }
    dv_buf_puts(
        &b, "## Control and status registers\n\n| number | name | access | meaning |\n|---|---|---|---|\n");
    for (size_t i = 0; i < dv_csr_count(); i++) {
        const dv_csr_info *c = dv_csr_at(i);
        dv_buf_printf(&b, "| 0x%03x | `%s` | %s | %s |\n", c->number, c->name, c->writable ? "rw" : "ro",
                      c->doc);
    }
    dv_buf_puts(&b, "\n## Field values\n\n| field | values |\n|---|---|\n");
    for (int f = 0; f < DV_F_COUNT; f++) {
        const dv_field_info *fi = dv_isa_field((dv_field)f);
        if (fi->kind != DV_FK_ENUM)
            continue;
        if (f == DV_F_DST || f == DV_F_PIPE || f == DV_F_TO)
            continue; /* same values as src / from */
        dv_buf_printf(&b, "| `%s` | ",
                      f == DV_F_SRC    ? "src, dst, pipe"
                      : f == DV_F_FROM ? "from, to"
                                       : fi->key);
        for (unsigned k = 0; k < fi->count; k++)
            dv_buf_printf(&b, "%s`%s`", k ? ", " : "", fi->names[k]);
        dv_buf_printf(&b, " (%s) |\n", fi->doc);
    }
    if (b.oom) {
        dv_buf_free(&b);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    }
    *out = dv_buf_take(&b, NULL);
    return DV_OK;
}
