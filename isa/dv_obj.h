/* dv_obj.h - kernel objects: the in-memory form of a dvsim ELF file.
 *
 * A kernel object holds the instruction bytes (.text), initialised data
 * (.data), one entry per kernel (name, entry offset, size, core type and its
 * arguments, from the versioned .dv.meta section), and a line table mapping
 * instruction addresses to source file and line (.dv.lines).
 *
 * On disk it is an ELF64 little-endian ET_REL file with e_machine
 * DV_ELF_MACHINE and the chip family in e_flags (docs/elf-format.md).  The
 * reader validates every offset, size, index and string before using it and
 * rejects a malformed file with DV_ERR_INPUT and one line saying what is
 * wrong. */
#ifndef DV_OBJ_H
#define DV_OBJ_H

#include "dv_status.h"

#include <stddef.h>
#include <stdint.h>

enum {
    DV_ELF_MACHINE = 0x4456, /* "DV": private e_machine value */
    DV_META_VERSION = 1,     /* of .dv.meta and .dv.lines */
    /* .dv.lines (docs/elf-format.md): the flag that says its entries carry
     * their macro call site, and an entry's size without and with it */
    DV_LINES_CALLS = 1,
    DV_LINE_SIZE = 20,       /* pc, file, line, col */
    DV_LINE_SIZE_CALLS = 28, /* and call file, call line */
    DV_MAX_KERNEL_ARGS = 16, /* arguments arrive in registers a0..a15 (x10..x25) */
    DV_ARG_REG_BASE = 10,
};

/* Chip family in e_flags: which chip an object was built for (chips.def:
 * 0 is any chip, then the built-in chips in table order). */
typedef enum dv_chip_family {
    DV_FAMILY_ANY = 0,
#define DV_CHIP(id, name, family) DV_FAMILY_##id,
#include "chips.def"
#undef DV_CHIP
    DV_FAMILY_COUNT
} dv_chip_family;

typedef enum dv_core_type {
    DV_CORE_COUPLED, /* Scalar + Cube + Vector on one core */
    DV_CORE_AIC,     /* cube core of a split chip */
    DV_CORE_AIV,     /* vector core of a split chip */
    DV_CORE_MIX,     /* one AIC with its AIVs */
    DV_CORE_TYPE_COUNT
} dv_core_type;

typedef enum dv_arg_type {
    DV_ARG_PTR, /* GM address */
    DV_ARG_U64,
    DV_ARG_S64,
    DV_ARG_F32, /* float bits in the low 32 bits */
    DV_ARG_TYPE_COUNT
} dv_arg_type;

typedef struct dv_obj_arg {
    char *name;
    dv_arg_type type;
} dv_obj_arg;

typedef struct dv_obj_kernel {
    char *name;
    uint64_t entry; /* byte offset in .text */
    uint64_t size;  /* bytes of .text that belong to the kernel */
    dv_core_type core;
    unsigned nargs;
    dv_obj_arg args[DV_MAX_KERNEL_ARGS];
} dv_obj_kernel;

typedef struct dv_obj_line {
    uint64_t pc;   /* byte offset in .text */
    uint32_t file; /* index into files */
    uint32_t line; /* 1-based */
    uint32_t col;  /* 1-based, 0 if unknown */
    /* A statement of a macro body: where the outermost macro call is (the
     * line outside any macro that expanded to it); call_line 0: none. */
    uint32_t call_file, call_line;
} dv_obj_line;

typedef struct dv_obj {
    uint8_t *text;
    size_t text_size; /* multiple of DV_INSN_BYTES */
    uint8_t *data;
    size_t data_size;
    dv_chip_family family;
    dv_obj_kernel *kernels;
    size_t nkernels;
    char **files;
    size_t nfiles;
    dv_obj_line *lines; /* sorted by pc */
    size_t nlines;
} dv_obj;

dv_obj *dv_obj_create(void);
void dv_obj_destroy(dv_obj *obj);

/* Builders (copy their arguments).  Return DV_ERR_NOMEM on allocation failure. */
dv_status dv_obj_set_text(dv_obj *obj, const uint8_t *bytes, size_t size, dv_error *err);
dv_status dv_obj_set_data(dv_obj *obj, const uint8_t *bytes, size_t size, dv_error *err);
dv_status dv_obj_add_kernel(dv_obj *obj, const dv_obj_kernel *k, dv_error *err); /* copies names */
/* A path already present returns its existing index. */
dv_status dv_obj_add_file(dv_obj *obj, const char *path, uint32_t *index, dv_error *err);
/* pc a multiple of 8, file in range, line > 0 (else DV_ERR_USAGE); an entry
 * for the same pc is replaced. */
dv_status dv_obj_add_line(dv_obj *obj, uint64_t pc, uint32_t file, uint32_t line, uint32_t col,
                          dv_error *err);
/* As dv_obj_add_line for a statement of a macro body expanded by the call
 * at call_file:call_line (call_line 0: not in a macro). */
dv_status dv_obj_add_line_in(dv_obj *obj, uint64_t pc, uint32_t file, uint32_t line, uint32_t col,
                             uint32_t call_file, uint32_t call_line, dv_error *err);

/* Lookups. */
const dv_obj_kernel *dv_obj_find_kernel(const dv_obj *obj, const char *name);
/* The line entry covering pc: the last entry at or before it (NULL before the
 * first entry or at/after the end of .text). */
const dv_obj_line *dv_obj_line_at(const dv_obj *obj, uint64_t pc);
/* Where the instruction at pc comes from: "file.dvs:12", for a macro's
 * statement the call and the macro line "k.dvs:52 (in macro at lib.inc:37)",
 * or "no source line" (pc outside .text, or no entry covers it).  Returns buf. */
const char *dv_obj_source_of(const dv_obj *obj, uint64_t pc, char *buf, size_t size);
/* The same for a line entry of obj already at hand (ln NULL, or naming a
 * file obj does not have: "no source line").  Returns buf. */
const char *dv_obj_line_format(const dv_obj *obj, const dv_obj_line *ln, char *buf, size_t size);

const char *dv_core_type_name(dv_core_type t);     /* "coupled", "aic", "aiv", "mix" */
const char *dv_arg_type_name(dv_arg_type t);       /* "ptr", "u64", "s64", "f32" */
const char *dv_chip_family_name(dv_chip_family f); /* "any", "910", "910b", "310" */
const char *dv_chip_family_chip(dv_chip_family f); /* "any", "ascend910", ... */

/* ELF I/O.  Writers produce identical bytes for identical objects. */
dv_status dv_obj_write_elf(const dv_obj *obj, uint8_t **buf, size_t *size, dv_error *err);
/* Writes to path through a temporary name and a rename. */
dv_status dv_obj_save(const dv_obj *obj, const char *path, dv_error *err);
dv_status dv_obj_read_elf(const uint8_t *buf, size_t size, dv_obj **out, dv_error *err);
/* DV_ERR_MISSING if the file cannot be opened, DV_ERR_INPUT if malformed. */
dv_status dv_obj_load(const char *path, dv_obj **out, dv_error *err);

#endif
