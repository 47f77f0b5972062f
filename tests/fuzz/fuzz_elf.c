/* fuzz_elf.c - fuzz harness for the ELF kernel object reader.
 *
 * dv_obj_read_elf is the one parser in dvsim that takes bytes from outside
 * (a kernel object someone hands to `dvsim run`), so it must reject any
 * malformed input with DV_ERR_INPUT and a one-line message, and an object it
 * accepts must be safe for everything downstream: the disassembler and the
 * kernel / line lookups are run over every accepted object, and it must be
 * written back (dv_obj_write_elf) and re-read without any change.
 *
 * .dv.meta carries a CRC32 of .text.  A mutation of .text almost never keeps
 * the CRC right, so without help the fuzzer would reach the disassembler
 * only with the .text of its seeds.  When an input's CRC does not match, the
 * harness therefore also runs a copy with the CRC patched in (the reader's
 * own rejection of the unpatched bytes is checked too). */
#include "dv_disasm.h"
#include "dv_obj.h"
#include "fuzz.h"

#include <stdbool.h>
#include <string.h>
#include <zlib.h>

/* Property from dv_obj.h / elf_read.c: a rejection is "one line saying what
 * is wrong", with names from the file escaped, so a hostile file cannot forge
 * extra lines in a log. */
static void check_message(const dv_error *err, dv_status st)
{
    FUZZ_CHECK(err->status == st, "status %d but err.status %d", (int)st, (int)err->status);
    size_t n = strnlen(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0 && n < sizeof err->msg, "empty or unterminated error message");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)err->msg[i];
        FUZZ_CHECK(c >= 0x20 && c < 0x7f, "unprintable byte 0x%02x at %zu in error message: %s", c, i,
                   err->msg);
    }
}

static void exercise(const dv_obj *obj)
{
    /* The listing must always be produced (undecodable words become .dword). */
    dv_buf out = DV_BUF_INIT;
    dv_error err;
    dv_error_clear(&err);
    dv_disasm_options opt = {.raw = true, .source = true};
    dv_status st = dv_disasm_obj(obj, &opt, &out, &err);
    FUZZ_CHECK(st == DV_OK || st == DV_ERR_NOMEM, "dv_disasm_obj failed on an accepted object: %s", err.msg);
    dv_buf_free(&out);

    /* The reader rejects duplicate names, so each kernel finds itself. */
    for (size_t i = 0; i < obj->nkernels; i++) {
        const dv_obj_kernel *k = dv_obj_find_kernel(obj, obj->kernels[i].name);
        FUZZ_CHECK(k == &obj->kernels[i], "kernel %zu ('%s') not found by name", i, obj->kernels[i].name);
    }
    FUZZ_CHECK(dv_obj_find_kernel(obj, "") == NULL, "empty kernel name found");

    /* Every instruction address and every line entry: a found entry must be
     * at or before the pc and name a file that exists. */
    for (uint64_t pc = 0; pc <= obj->text_size; pc += 4) {
        const dv_obj_line *l = dv_obj_line_at(obj, pc);
        if (!l)
            continue;
        FUZZ_CHECK(pc < obj->text_size, "line entry for pc %llu past .text", (unsigned long long)pc);
        FUZZ_CHECK(l->pc <= pc && l->file < obj->nfiles && obj->files[l->file], "bad line entry for pc %llu",
                   (unsigned long long)pc);
    }
    for (size_t i = 0; i < obj->nlines; i++)
        FUZZ_CHECK(dv_obj_line_at(obj, obj->lines[i].pc) == &obj->lines[i], "line entry %zu not found", i);
}

/* Everything the reader accepted must survive dv_obj_write_elf and a second
 * read unchanged: the writer and reader share one format description, and a
 * field one of them drops or reinterprets is a bug in one of them. */
static void check_rewrite(const dv_obj *obj)
{
    uint8_t *elf = NULL;
    size_t elf_size = 0;
    dv_error err;
    dv_error_clear(&err);
    dv_status st = dv_obj_write_elf(obj, &elf, &elf_size, &err);
    if (st == DV_ERR_NOMEM)
        return;
    FUZZ_CHECK(st == DV_OK, "dv_obj_write_elf refused an object dv_obj_read_elf accepted: %s", err.msg);
    dv_obj *back = NULL;
    st = dv_obj_read_elf(elf, elf_size, &back, &err);
    FUZZ_CHECK(st == DV_OK, "dv_obj_read_elf rejected what dv_obj_write_elf wrote: %s", err.msg);
    FUZZ_CHECK(same_bytes(obj->text, obj->text_size, back->text, back->text_size),
               ".text changed on rewrite");
    FUZZ_CHECK(same_bytes(obj->data, obj->data_size, back->data, back->data_size),
               ".data changed on rewrite");
    FUZZ_CHECK(obj->family == back->family, "chip family changed on rewrite");
    FUZZ_CHECK(obj->nkernels == back->nkernels, "kernel count changed on rewrite");
    for (size_t i = 0; i < obj->nkernels; i++) {
        const dv_obj_kernel *a = &obj->kernels[i], *b = &back->kernels[i];
        FUZZ_CHECK(strcmp(a->name, b->name) == 0 && a->entry == b->entry && a->size == b->size &&
                       a->core == b->core && a->nargs == b->nargs,
                   "kernel %zu changed on rewrite", i);
        for (unsigned k = 0; k < a->nargs; k++)
            FUZZ_CHECK(strcmp(a->args[k].name, b->args[k].name) == 0 && a->args[k].type == b->args[k].type,
                       "kernel %zu argument %u changed on rewrite", i, k);
    }
    FUZZ_CHECK(obj->nfiles == back->nfiles, "file count changed on rewrite");
    for (size_t i = 0; i < obj->nfiles; i++)
        FUZZ_CHECK(strcmp(obj->files[i], back->files[i]) == 0, "file %zu changed on rewrite", i);
    FUZZ_CHECK(obj->nlines == back->nlines, "line count changed on rewrite");
    for (size_t i = 0; i < obj->nlines; i++) {
        const dv_obj_line *a = &obj->lines[i], *b = &back->lines[i]; /* field by field: padding */
        FUZZ_CHECK(a->pc == b->pc && a->file == b->file && a->line == b->line && a->col == b->col,
                   "line entry %zu changed on rewrite", i);
    }
    dv_obj_destroy(back);
    free(elf);
}

static void run_one(const uint8_t *data, size_t size)
{
    dv_obj *obj = NULL;
    dv_error err;
    dv_error_clear(&err);
    dv_status st = dv_obj_read_elf(data, size, &obj, &err);
    if (st != DV_OK) {
        FUZZ_CHECK(obj == NULL, "rejected input left an object behind");
        check_message(&err, st);
        return;
    }
    FUZZ_CHECK(obj != NULL, "accepted input gave no object");
    exercise(obj);
    check_rewrite(obj);
    dv_obj_destroy(obj);
}

static uint64_t ld(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* True if [off, off + len) lies inside a buffer of `size` bytes. */
static bool inside(uint64_t off, uint64_t len, size_t size)
{
    return off <= size && len <= size - off;
}

/* Returns a copy of data with the .text CRC in .dv.meta corrected, or NULL if
 * the sections cannot be found or the CRC is already right.  Deliberately a
 * much simpler walk than the reader's (first section of each name wins): it
 * only has to be right often enough to help the fuzzer past the check. */
static uint8_t *patch_crc(const uint8_t *data, size_t size)
{
    if (size < 64)
        return NULL;
    uint64_t shoff = ld(data + 40, 8), shnum = ld(data + 60, 2), shstrndx = ld(data + 62, 2);
    if (shstrndx >= shnum || !inside(shoff, shnum * 64, size))
        return NULL;
    const uint8_t *strsh = data + shoff + shstrndx * 64;
    uint64_t stroff = ld(strsh + 24, 8), strsize = ld(strsh + 32, 8);
    if (!inside(stroff, strsize, size))
        return NULL;
    uint64_t text_off = 0, text_size = 0, meta_off = 0, meta_size = 0;
    bool have_text = false, have_meta = false;
    for (uint64_t i = 1; i < shnum; i++) {
        const uint8_t *sh = data + shoff + i * 64;
        uint64_t name = ld(sh, 4), off = ld(sh + 24, 8), sz = ld(sh + 32, 8);
        if (name >= strsize || !inside(off, sz, size))
            continue;
        const char *s = (const char *)data + stroff + name;
        size_t room = (size_t)(strsize - name);
        if (!have_text && room > 5 && memcmp(s, ".text", 6) == 0) {
            have_text = true;
            text_off = off;
            text_size = sz;
        } else if (!have_meta && room > 8 && memcmp(s, ".dv.meta", 9) == 0) {
            have_meta = true;
            meta_off = off;
            meta_size = sz;
        }
    }
    if (!have_text || !have_meta || meta_size < 16)
        return NULL;
    uint32_t crc = (uint32_t)crc32(0L, data + text_off, (uInt)text_size);
    if (ld(data + meta_off + 8, 4) == crc)
        return NULL;
    uint8_t *copy = malloc(size);
    if (!copy)
        return NULL;
    memcpy(copy, data, size);
    for (unsigned i = 0; i < 4; i++)
        copy[meta_off + 8 + i] = (uint8_t)(crc >> (8 * i));
    return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run_one(data, size);
    uint8_t *patched = patch_crc(data, size);
    if (patched) {
        run_one(patched, size);
        free(patched);
    }
    return 0;
}
