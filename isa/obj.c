/* obj.c - kernel objects: creation, builders, lookups and names.
 *
 * The ELF reader and writer live in elf_read.c and elf_write.c; this file
 * only deals with the in-memory form described in dv_obj.h. */
#include "dv_isa.h"
#include "dv_obj.h"
#include "dv_text.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The public struct has no capacity fields, so dv_obj_create allocates this
 * wrapper and the builders keep their capacities here.  A capacity is only
 * trusted while the array pointer is still the one we allocated: a caller
 * (or the ELF reader) that installs its own exactly-sized array makes the
 * capacity fall back to the element count, and the next add reallocates. */
typedef struct grow_state {
    const void *buf; /* the array we last allocated, only ever compared */
    size_t cap;
} grow_state;

typedef struct obj_priv {
    dv_obj pub; /* first member: a dv_obj * converts back to its wrapper */
    grow_state kernels, files, lines;
} obj_priv;

static obj_priv *priv_of(dv_obj *obj)
{
    return (obj_priv *)obj;
}

dv_obj *dv_obj_create(void)
{
    obj_priv *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->pub.family = DV_FAMILY_ANY;
    return &p->pub;
}

static void free_kernel(dv_obj_kernel *k)
{
    free(k->name);
    unsigned n = k->nargs <= DV_MAX_KERNEL_ARGS ? k->nargs : DV_MAX_KERNEL_ARGS;
    for (unsigned i = 0; i < n; i++)
        free(k->args[i].name);
}

void dv_obj_destroy(dv_obj *obj)
{
    if (!obj)
        return;
    free(obj->text);
    free(obj->data);
    if (obj->kernels)
        for (size_t i = 0; i < obj->nkernels; i++)
            free_kernel(&obj->kernels[i]);
    free(obj->kernels);
    if (obj->files)
        for (size_t i = 0; i < obj->nfiles; i++)
            free(obj->files[i]);
    free(obj->files);
    free(obj->lines);
    free(priv_of(obj));
}

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

/* Returns arr with room for one more element, or NULL if out of memory (arr
 * is then unchanged). */
static void *grow(void *arr, size_t count, grow_state *g, size_t elem)
{
    if (arr != g->buf || !arr) /* not ours (or empty): capacity is the count */
        g->cap = count;
    if (count < g->cap)
        return arr;
    size_t ncap = g->cap ? g->cap * 2 : 8;
    if (ncap < count + 1 || ncap > SIZE_MAX / elem)
        return NULL;
    void *p = realloc(arr, ncap * elem);
    if (!p)
        return NULL;
    g->buf = p;
    g->cap = ncap;
    return p;
}

static dv_status set_bytes(uint8_t **dst, size_t *dst_size, const uint8_t *bytes, size_t size,
                           const char *what, dv_error *err)
{
    if (size > 0 && !bytes)
        return dv_error_set(err, DV_ERR_USAGE, "%s: NULL bytes with size %zu", what, size);
    uint8_t *p = NULL;
    if (size > 0) {
        p = malloc(size);
        if (!p)
            return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory copying %zu bytes", what, size);
        memcpy(p, bytes, size);
    }
    free(*dst);
    *dst = p;
    *dst_size = size;
    return DV_OK;
}

dv_status dv_obj_set_text(dv_obj *obj, const uint8_t *bytes, size_t size, dv_error *err)
{
    if (size % DV_INSN_BYTES != 0)
        return dv_error_set(err, DV_ERR_USAGE, ".text size %zu is not a multiple of %d", size, DV_INSN_BYTES);
    return set_bytes(&obj->text, &obj->text_size, bytes, size, ".text", err);
}

dv_status dv_obj_set_data(dv_obj *obj, const uint8_t *bytes, size_t size, dv_error *err)
{
    return set_bytes(&obj->data, &obj->data_size, bytes, size, ".data", err);
}

/* The rules a kernel must follow that do not depend on .text (which a
 * builder may set later); the writer and reader check entry and size. */
static dv_status check_kernel(const dv_obj *obj, const dv_obj_kernel *k, dv_error *err)
{
    if (!k || !k->name || !k->name[0])
        return dv_error_set(err, DV_ERR_USAGE, "kernel without a name");
    if ((unsigned)k->core >= DV_CORE_TYPE_COUNT)
        return dv_error_set(err, DV_ERR_USAGE, "kernel '%s': core type %u out of range", k->name,
                            (unsigned)k->core);
    if (k->nargs > DV_MAX_KERNEL_ARGS)
        return dv_error_set(err, DV_ERR_USAGE, "kernel '%s': %u arguments, at most %d", k->name, k->nargs,
                            DV_MAX_KERNEL_ARGS);
    if (k->entry % DV_INSN_BYTES != 0)
        return dv_error_set(err, DV_ERR_USAGE, "kernel '%s': entry %llu is not a multiple of %d", k->name,
                            (unsigned long long)k->entry, DV_INSN_BYTES);
    for (unsigned i = 0; i < k->nargs; i++) {
        const dv_obj_arg *a = &k->args[i];
        if (!a->name || !a->name[0])
            return dv_error_set(err, DV_ERR_USAGE, "kernel '%s': argument %u has no name", k->name, i);
        if ((unsigned)a->type >= DV_ARG_TYPE_COUNT)
            return dv_error_set(err, DV_ERR_USAGE, "kernel '%s': argument '%s' has type %u out of range",
                                k->name, a->name, (unsigned)a->type);
        for (unsigned j = 0; j < i; j++)
            if (strcmp(k->args[j].name, a->name) == 0)
                return dv_error_set(err, DV_ERR_USAGE, "kernel '%s': duplicate argument '%s'", k->name,
                                    a->name);
    }
    if (dv_obj_find_kernel(obj, k->name))
        return dv_error_set(err, DV_ERR_USAGE, "duplicate kernel '%s'", k->name);
    return DV_OK;
}

dv_status dv_obj_add_kernel(dv_obj *obj, const dv_obj_kernel *k, dv_error *err)
{
    dv_status st = check_kernel(obj, k, err);
    if (st != DV_OK)
        return st;
    dv_obj_kernel copy = *k;
    memset(copy.args, 0, sizeof copy.args);
    copy.name = copy_string(k->name);
    bool ok = copy.name != NULL;
    for (unsigned i = 0; ok && i < k->nargs; i++) {
        copy.args[i].type = k->args[i].type;
        copy.args[i].name = copy_string(k->args[i].name);
        ok = copy.args[i].name != NULL;
    }
    dv_obj_kernel *ks = ok ? grow(obj->kernels, obj->nkernels, &priv_of(obj)->kernels, sizeof *ks) : NULL;
    if (!ks) {
        free_kernel(&copy);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory adding kernel '%s'", k->name);
    }
    obj->kernels = ks;
    obj->kernels[obj->nkernels++] = copy;
    return DV_OK;
}

dv_status dv_obj_add_file(dv_obj *obj, const char *path, uint32_t *index, dv_error *err)
{
    if (!path || !path[0])
        return dv_error_set(err, DV_ERR_USAGE, "line table: empty file name");
    /* The same path always gets the same index, so callers need not dedupe. */
    for (size_t i = 0; i < obj->nfiles; i++) {
        if (strcmp(obj->files[i], path) == 0) {
            if (index)
                *index = (uint32_t)i;
            return DV_OK;
        }
    }
    if (obj->nfiles >= UINT32_MAX)
        return dv_error_set(err, DV_ERR_USAGE, "line table: too many files");
    char *copy = copy_string(path);
    char **files = copy ? grow(obj->files, obj->nfiles, &priv_of(obj)->files, sizeof *files) : NULL;
    if (!files) {
        free(copy);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory adding file '%s'", path);
    }
    if (index)
        *index = (uint32_t)obj->nfiles;
    obj->files = files;
    obj->files[obj->nfiles++] = copy;
    return DV_OK;
}

/* Index of the first line whose pc is >= pc (nlines if none). */
static size_t lower_bound(const dv_obj_line *lines, size_t n, uint64_t pc)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lines[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

dv_status dv_obj_add_line(dv_obj *obj, uint64_t pc, uint32_t file, uint32_t line, uint32_t col, dv_error *err)
{
    return dv_obj_add_line_in(obj, pc, file, line, col, 0, 0, err);
}

dv_status dv_obj_add_line_in(dv_obj *obj, uint64_t pc, uint32_t file, uint32_t line, uint32_t col,
                             uint32_t call_file, uint32_t call_line, dv_error *err)
{
    if (pc % DV_INSN_BYTES != 0)
        return dv_error_set(err, DV_ERR_USAGE, "line table: pc %llu is not a multiple of %d",
                            (unsigned long long)pc, DV_INSN_BYTES);
    if (file >= obj->nfiles)
        return dv_error_set(err, DV_ERR_USAGE, "line table: file index %u out of range (%zu files)", file,
                            obj->nfiles);
    if (line == 0)
        return dv_error_set(err, DV_ERR_USAGE, "line table: line numbers start at 1");
    if (call_line && call_file >= obj->nfiles)
        return dv_error_set(err, DV_ERR_USAGE, "line table: call file index %u out of range (%zu files)",
                            call_file, obj->nfiles);
    dv_obj_line entry = {.pc = pc,
                         .file = file,
                         .line = line,
                         .col = col,
                         .call_file = call_line ? call_file : 0,
                         .call_line = call_line};
    /* Assemblers emit lines in pc order, so appending is the common case;
     * anything else is inserted in place to keep the table sorted. */
    size_t at = obj->nlines;
    if (at > 0 && obj->lines[at - 1].pc >= pc)
        at = lower_bound(obj->lines, obj->nlines, pc);
    if (at < obj->nlines && obj->lines[at].pc == pc) {
        /* One entry per pc: the later statement describes the instruction. */
        obj->lines[at] = entry;
        return DV_OK;
    }
    dv_obj_line *lines = grow(obj->lines, obj->nlines, &priv_of(obj)->lines, sizeof *lines);
    if (!lines)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory adding a line entry");
    obj->lines = lines;
    memmove(&obj->lines[at + 1], &obj->lines[at], (obj->nlines - at) * sizeof *obj->lines);
    obj->lines[at] = entry;
    obj->nlines++;
    return DV_OK;
}

const dv_obj_kernel *dv_obj_find_kernel(const dv_obj *obj, const char *name)
{
    if (!obj || !name)
        return NULL;
    for (size_t i = 0; i < obj->nkernels; i++)
        if (strcmp(obj->kernels[i].name, name) == 0)
            return &obj->kernels[i];
    return NULL;
}

/* An entry covers its pc up to the next entry's pc (or the end of .text),
 * like a DWARF line table: the result is the last entry at or before pc. */
const dv_obj_line *dv_obj_line_at(const dv_obj *obj, uint64_t pc)
{
    if (!obj || obj->nlines == 0 || pc >= obj->text_size)
        return NULL;
    size_t i = lower_bound(obj->lines, obj->nlines, pc);
    if (i < obj->nlines && obj->lines[i].pc == pc)
        return &obj->lines[i];
    return i > 0 ? &obj->lines[i - 1] : NULL;
}

const char *dv_obj_line_format(const dv_obj *obj, const dv_obj_line *ln, char *buf, size_t size)
{
    /* File names come from the object: escaped, so that a listing's comment
     * or a fault message stays one line. */
    if (ln && ln->file < obj->nfiles && ln->call_line && ln->call_file < obj->nfiles)
        snprintf(buf, size, "%s:%u (in macro at %s:%u)", DV_ESC(obj->files[ln->call_file]), ln->call_line,
                 DV_ESC(obj->files[ln->file]), ln->line);
    else if (ln && ln->file < obj->nfiles)
        snprintf(buf, size, "%s:%u", DV_ESC(obj->files[ln->file]), ln->line);
    else
        snprintf(buf, size, "no source line");
    return buf;
}

const char *dv_obj_source_of(const dv_obj *obj, uint64_t pc, char *buf, size_t size)
{
    return dv_obj_line_format(obj, pc % DV_INSN_BYTES == 0 ? dv_obj_line_at(obj, pc) : NULL, buf, size);
}

const char *dv_core_type_name(dv_core_type t)
{
    switch (t) {
    case DV_CORE_COUPLED: return "coupled";
    case DV_CORE_AIC: return "aic";
    case DV_CORE_AIV: return "aiv";
    case DV_CORE_MIX: return "mix";
    case DV_CORE_TYPE_COUNT: break;
    }
    return "unknown";
}

const char *dv_arg_type_name(dv_arg_type t)
{
    switch (t) {
    case DV_ARG_PTR: return "ptr";
    case DV_ARG_U64: return "u64";
    case DV_ARG_S64: return "s64";
    case DV_ARG_F32: return "f32";
    case DV_ARG_TYPE_COUNT: break;
    }
    return "unknown";
}

static const char *const family_names[DV_FAMILY_COUNT][2] = {
    {"any", "any"},
#define DV_CHIP(id, name, family) {family, name},
#include "chips.def"
#undef DV_CHIP
};

const char *dv_chip_family_name(dv_chip_family f)
{
    return (unsigned)f < DV_FAMILY_COUNT ? family_names[f][0] : "unknown";
}

const char *dv_chip_family_chip(dv_chip_family f)
{
    return (unsigned)f < DV_FAMILY_COUNT ? family_names[f][1] : "unknown";
}
