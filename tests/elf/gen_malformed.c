/* gen_malformed.c - writes the malformed ELF reproducers in tests/elf/malformed/.
 *
 * Each reproducer is a valid object (built here and written with
 * dv_obj_write_elf) with one defect patched in, named for that defect.
 * test_elf.c checks that dv_obj_load rejects each one with the expected
 * message.  The build compiles this program but never runs it; to regenerate
 * the committed files after a format change:
 *
 *     meson compile -C build && build/tests/elf/gen_malformed tests/elf/malformed
 *
 * and update the expected messages in test_elf.c if the reader's wording
 * changed.  Offsets are found by parsing the valid file, not hard-coded, so
 * the generator survives layout changes. */
#include "dv_obj.h"

#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the interesting fields of the valid object are. */
typedef struct layout {
    size_t size;
    size_t shoff;
    unsigned shnum, shstrndx;
    unsigned text, data, symtab, strtab, meta, lines;
    size_t kernel1; /* offset of kernel 1's record inside .dv.meta */
    size_t arg0;    /* offset of kernel 0's first argument inside .dv.meta */
    size_t entries; /* offset of the first line entry inside .dv.lines */
} layout;

static uint64_t get(const uint8_t *b, size_t off, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | b[off + (size_t)i];
    return v;
}

static void put(uint8_t *b, size_t off, int bytes, uint64_t v)
{
    for (int i = 0; i < bytes; i++)
        b[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* Offset of a field of section i's header. */
static size_t sh(const layout *L, unsigned i, size_t field)
{
    return L->shoff + (size_t)i * sizeof(Elf64_Shdr) + field;
}

static size_t sec_off(const uint8_t *b, const layout *L, unsigned i)
{
    return (size_t)get(b, sh(L, i, offsetof(Elf64_Shdr, sh_offset)), 8);
}

static size_t sec_size(const uint8_t *b, const layout *L, unsigned i)
{
    return (size_t)get(b, sh(L, i, offsetof(Elf64_Shdr, sh_size)), 8);
}

static void set_sh(uint8_t *b, const layout *L, unsigned i, size_t field, int bytes, uint64_t v)
{
    put(b, sh(L, i, field), bytes, v);
}

static dv_obj *sample(void)
{
    dv_obj *o = dv_obj_create();
    uint8_t text[64], data[12];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (uint8_t)(i * 7 + 1);
    memset(data, 0xab, sizeof data);
    dv_obj_kernel k1 = {.name = "vadd",
                        .entry = 0,
                        .size = 32,
                        .core = DV_CORE_AIV,
                        .nargs = 3,
                        .args = {{"x", DV_ARG_PTR}, {"y", DV_ARG_PTR}, {"n", DV_ARG_U64}}};
    dv_obj_kernel k2 = {.name = "vmul",
                        .entry = 32,
                        .size = 32,
                        .core = DV_CORE_MIX,
                        .nargs = 2,
                        .args = {{"a", DV_ARG_PTR}, {"scale", DV_ARG_F32}}};
    uint32_t f0, f1;
    dv_error err;
    o->family = DV_FAMILY_910B;
    if (dv_obj_set_text(o, text, sizeof text, &err) || dv_obj_set_data(o, data, sizeof data, &err) ||
        dv_obj_add_kernel(o, &k1, &err) || dv_obj_add_kernel(o, &k2, &err) ||
        dv_obj_add_file(o, "k.dvs", &f0, &err) || dv_obj_add_file(o, "inc/common.dvs", &f1, &err) ||
        dv_obj_add_line(o, 0, f0, 1, 1, &err) || dv_obj_add_line(o, 8, f0, 2, 5, &err) ||
        dv_obj_add_line(o, 32, f1, 10, 0, &err) || dv_obj_add_line(o, 48, f1, 12, 3, &err)) {
        fprintf(stderr, "gen_malformed: building the sample: %s\n", err.msg);
        exit(1);
    }
    return o;
}

static void find_layout(const uint8_t *b, size_t size, layout *L)
{
    memset(L, 0, sizeof *L);
    L->size = size;
    L->shoff = (size_t)get(b, offsetof(Elf64_Ehdr, e_shoff), 8);
    L->shnum = (unsigned)get(b, offsetof(Elf64_Ehdr, e_shnum), 2);
    L->shstrndx = (unsigned)get(b, offsetof(Elf64_Ehdr, e_shstrndx), 2);
    const char *names = (const char *)b + sec_off(b, L, L->shstrndx);
    for (unsigned i = 1; i < L->shnum; i++) {
        const char *n = names + get(b, sh(L, i, offsetof(Elf64_Shdr, sh_name)), 4);
        unsigned *slot = !strcmp(n, ".text")       ? &L->text
                         : !strcmp(n, ".data")     ? &L->data
                         : !strcmp(n, ".symtab")   ? &L->symtab
                         : !strcmp(n, ".strtab")   ? &L->strtab
                         : !strcmp(n, ".dv.meta")  ? &L->meta
                         : !strcmp(n, ".dv.lines") ? &L->lines
                                                   : NULL;
        if (slot)
            *slot = i;
    }
    /* .dv.meta: 16-byte header, then kernel 0 = 24 fixed bytes, "vadd\0",
     * its 3 args (u32 type + name), then kernel 1. */
    const uint8_t *m = b + sec_off(b, L, L->meta);
    size_t k = 16 + 24;
    k += strlen((const char *)m + k) + 1;
    L->arg0 = k;
    for (uint32_t a = 0; a < get(m, 16 + 20, 4); a++)
        k += 4 + strlen((const char *)m + k + 4) + 1;
    L->kernel1 = k;
    /* .dv.lines: 16-byte header, then the file names, then the entries. */
    const uint8_t *l = b + sec_off(b, L, L->lines);
    size_t e = 16;
    for (uint32_t f = 0; f < get(l, 8, 4); f++)
        e += strlen((const char *)l + e) + 1;
    L->entries = e;
}

/* Applies the defect `name` to the valid file b (of L->size bytes, with room
 * to grow); returns false for an unknown name.  One line per defect: a table
 * written as code, kept in one piece so that each defect reads next to its
 * name. */
static bool apply(const char *name, uint8_t *b, size_t *n, const layout *L)
{
    size_t meta = sec_off(b, L, L->meta), lines = sec_off(b, L, L->lines);
    size_t text_size = sec_size(b, L, L->text);
    size_t sym1 = sec_off(b, L, L->symtab) + sizeof(Elf64_Sym);
#define IS(s) (strcmp(name, s) == 0)
    if (IS("empty-file.elf"))
        *n = 0;
    else if (IS("truncated-header.elf"))
        *n = 40;
    else if (IS("bad-magic.elf"))
        b[1] = 'X';
    else if (IS("wrong-class.elf"))
        b[EI_CLASS] = ELFCLASS32;
    else if (IS("wrong-endian.elf"))
        b[EI_DATA] = ELFDATA2MSB;
    else if (IS("bad-version.elf"))
        b[EI_VERSION] = EV_NONE;
    else if (IS("wrong-machine.elf"))
        put(b, offsetof(Elf64_Ehdr, e_machine), 2, EM_X86_64);
    else if (IS("wrong-type.elf"))
        put(b, offsetof(Elf64_Ehdr, e_type), 2, ET_EXEC);
    else if (IS("bad-family.elf"))
        put(b, offsetof(Elf64_Ehdr, e_flags), 4, 7);
    else if (IS("bad-shentsize.elf"))
        put(b, offsetof(Elf64_Ehdr, e_shentsize), 2, 40);
    else if (IS("no-sections.elf"))
        put(b, offsetof(Elf64_Ehdr, e_shnum), 2, 0);
    else if (IS("shoff-past-end.elf"))
        put(b, offsetof(Elf64_Ehdr, e_shoff), 8, L->size + 64);
    else if (IS("shoff-overflow.elf"))
        put(b, offsetof(Elf64_Ehdr, e_shoff), 8, UINT64_MAX - 63);
    else if (IS("shnum-huge.elf"))
        put(b, offsetof(Elf64_Ehdr, e_shnum), 2, 0xffff);
    else if (IS("bad-shstrndx.elf"))
        put(b, offsetof(Elf64_Ehdr, e_shstrndx), 2, L->shnum + 3);
    else if (IS("shstrtab-not-strtab.elf"))
        set_sh(b, L, L->shstrndx, offsetof(Elf64_Shdr, sh_type), 4, SHT_PROGBITS);
    else if (IS("section-offset-past-end.elf"))
        set_sh(b, L, L->meta, offsetof(Elf64_Shdr, sh_offset), 8, L->size + 100);
    else if (IS("section-size-overflow.elf")) /* offset + size wraps to 16 */
        set_sh(b, L, L->meta, offsetof(Elf64_Shdr, sh_size), 8, (uint64_t)0 - meta + 16);
    else if (IS("unterminated-shstrtab.elf"))
        b[sec_off(b, L, L->shstrndx) + sec_size(b, L, L->shstrndx) - 1] = 'x';
    else if (IS("section-name-out-of-range.elf"))
        set_sh(b, L, L->text, offsetof(Elf64_Shdr, sh_name), 4, 0xffff);
    else if (IS("missing-text.elf"))
        memcpy(b + sec_off(b, L, L->shstrndx) + get(b, sh(L, L->text, 0), 4), ".txet", 5);
    else if (IS("duplicate-text.elf"))
        memcpy(b + sec_off(b, L, L->shstrndx) + get(b, sh(L, L->data, 0), 4), ".text", 5);
    else if (IS("text-nobits.elf"))
        set_sh(b, L, L->text, offsetof(Elf64_Shdr, sh_type), 4, SHT_NOBITS);
    else if (IS("missing-meta.elf"))
        memcpy(b + sec_off(b, L, L->shstrndx) + get(b, sh(L, L->meta, 0), 4), ".dv.mxta", 8);
    else if (IS("text-not-multiple-of-8.elf"))
        set_sh(b, L, L->text, offsetof(Elf64_Shdr, sh_size), 8, text_size - 4);
    else if (IS("symtab-bad-entsize.elf"))
        set_sh(b, L, L->symtab, offsetof(Elf64_Shdr, sh_entsize), 8, 16);
    else if (IS("symtab-bad-link.elf"))
        set_sh(b, L, L->symtab, offsetof(Elf64_Shdr, sh_link), 4, L->text);
    else if (IS("unterminated-strtab.elf"))
        b[sec_off(b, L, L->strtab) + sec_size(b, L, L->strtab) - 1] = 'x';
    else if (IS("symbol-name-out-of-range.elf"))
        put(b, sym1 + offsetof(Elf64_Sym, st_name), 4, 0x7fff);
    else if (IS("symbol-outside-text.elf"))
        put(b, sym1 + offsetof(Elf64_Sym, st_value), 8, text_size + 64);
    else if (IS("symbol-undefined.elf"))
        put(b, sym1 + offsetof(Elf64_Sym, st_shndx), 2, SHN_UNDEF);
    else if (IS("meta-bad-magic.elf"))
        b[meta] = 'X';
    else if (IS("meta-version.elf"))
        put(b, meta + 4, 2, 2);
    else if (IS("meta-flags.elf"))
        put(b, meta + 6, 2, 1);
    else if (IS("meta-crc-mismatch.elf"))
        b[meta + 8] ^= 0x5a;
    else if (IS("text-corrupted.elf")) /* the CRC catches a changed .text */
        b[sec_off(b, L, L->text) + 9] ^= 1;
    else if (IS("meta-short.elf"))
        set_sh(b, L, L->meta, offsetof(Elf64_Shdr, sh_size), 8, 10);
    else if (IS("meta-truncated.elf"))
        set_sh(b, L, L->meta, offsetof(Elf64_Shdr, sh_size), 8, sec_size(b, L, L->meta) - 3);
    else if (IS("meta-trailing-bytes.elf"))
        set_sh(b, L, L->meta, offsetof(Elf64_Shdr, sh_size), 8, sec_size(b, L, L->meta) + 1);
    else if (IS("meta-kernel-count-huge.elf"))
        put(b, meta + 12, 4, UINT32_MAX);
    else if (IS("meta-kernel-outside-text.elf"))
        put(b, meta + L->kernel1, 8, text_size);
    else if (IS("meta-kernel-size-overflow.elf")) /* entry + size wraps */
        put(b, meta + L->kernel1 + 8, 8, UINT64_MAX - 8);
    else if (IS("meta-kernel-misaligned.elf")) /* entry 4, still inside .text */
        put(b, meta + L->kernel1, 8, 4);
    else if (IS("meta-core-type.elf"))
        put(b, meta + 16 + 16, 4, 9);
    else if (IS("meta-too-many-args.elf"))
        put(b, meta + 16 + 20, 4, 17);
    else if (IS("meta-arg-type.elf"))
        put(b, meta + L->arg0, 4, 4);
    else if (IS("meta-empty-name.elf"))
        b[meta + 16 + 24] = '\0';
    else if (IS("meta-kernel-size-zero.elf")) /* a kernel of no instructions */
        put(b, meta + L->kernel1 + 8, 8, 0);
    else if (IS("meta-name-newline.elf")) /* "vadd" -> "v\ndd": not an identifier */
        b[meta + 16 + 24 + 1] = '\n';
    else if (IS("meta-arg-name-escape.elf")) /* argument "x" -> ESC */
        b[meta + L->arg0 + 4] = 0x1b;
    else if (IS("meta-duplicate-kernel.elf")) /* vmul -> vadd */
        memcpy(b + meta + L->kernel1 + 24, "vadd", 4);
    else if (IS("lines-bad-magic.elf"))
        b[lines + 3] = 'X';
    else if (IS("lines-version.elf"))
        put(b, lines + 4, 2, 7);
    else if (IS("lines-file-count-huge.elf"))
        put(b, lines + 8, 4, UINT32_MAX);
    else if (IS("lines-count-huge.elf"))
        put(b, lines + 12, 4, UINT32_MAX);
    else if (IS("lines-file-index.elf"))
        put(b, lines + L->entries + 8, 4, 9);
    else if (IS("lines-unsorted.elf")) { /* swap the pcs of entries 0 and 1 */
        uint64_t pc0 = get(b, lines + L->entries, 8), pc1 = get(b, lines + L->entries + 20, 8);
        put(b, lines + L->entries, 8, pc1);
        put(b, lines + L->entries + 20, 8, pc0);
    } else if (IS("lines-pc-outside-text.elf"))
        put(b, lines + L->entries + 3 * 20, 8, text_size);
    else if (IS("lines-pc-unaligned.elf"))
        put(b, lines + L->entries, 8, 4);
    else if (IS("lines-line-zero.elf"))
        put(b, lines + L->entries + 12, 4, 0);
    else
        return false;
#undef IS
    return true;
}

int main(int argc, char **argv)
{
    static const char *const defects[] = {
        "empty-file.elf",
        "truncated-header.elf",
        "bad-magic.elf",
        "wrong-class.elf",
        "wrong-endian.elf",
        "bad-version.elf",
        "wrong-machine.elf",
        "wrong-type.elf",
        "bad-family.elf",
        "bad-shentsize.elf",
        "no-sections.elf",
        "shoff-past-end.elf",
        "shoff-overflow.elf",
        "shnum-huge.elf",
        "bad-shstrndx.elf",
        "shstrtab-not-strtab.elf",
        "section-offset-past-end.elf",
        "section-size-overflow.elf",
        "unterminated-shstrtab.elf",
        "section-name-out-of-range.elf",
        "missing-text.elf",
        "duplicate-text.elf",
        "text-nobits.elf",
        "missing-meta.elf",
        "text-not-multiple-of-8.elf",
        "symtab-bad-entsize.elf",
        "symtab-bad-link.elf",
        "unterminated-strtab.elf",
        "symbol-name-out-of-range.elf",
        "symbol-outside-text.elf",
        "symbol-undefined.elf",
        "meta-bad-magic.elf",
        "meta-version.elf",
        "meta-flags.elf",
        "meta-crc-mismatch.elf",
        "text-corrupted.elf",
        "meta-short.elf",
        "meta-truncated.elf",
        "meta-trailing-bytes.elf",
        "meta-kernel-count-huge.elf",
        "meta-kernel-outside-text.elf",
        "meta-kernel-size-overflow.elf",
        "meta-kernel-misaligned.elf",
        "meta-core-type.elf",
        "meta-too-many-args.elf",
        "meta-arg-type.elf",
        "meta-empty-name.elf",
        "meta-kernel-size-zero.elf",
        "meta-name-newline.elf",
        "meta-arg-name-escape.elf",
        "meta-duplicate-kernel.elf",
        "lines-bad-magic.elf",
        "lines-version.elf",
        "lines-file-count-huge.elf",
        "lines-count-huge.elf",
        "lines-file-index.elf",
        "lines-unsorted.elf",
        "lines-pc-outside-text.elf",
        "lines-pc-unaligned.elf",
        "lines-line-zero.elf",
    };
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    dv_obj *obj = sample();
    uint8_t *valid = NULL;
    size_t size = 0;
    dv_error err;
    if (dv_obj_write_elf(obj, &valid, &size, &err) != DV_OK) {
        fprintf(stderr, "gen_malformed: %s\n", err.msg);
        return 1;
    }
    dv_obj_destroy(obj);
    layout L;
    find_layout(valid, size, &L);
    uint8_t *b = malloc(size);
    int status = 0;
    for (size_t i = 0; b && i < sizeof defects / sizeof defects[0]; i++) {
        memcpy(b, valid, size);
        size_t n = size;
        if (!apply(defects[i], b, &n, &L)) {
            fprintf(stderr, "gen_malformed: no patch for %s\n", defects[i]);
            status = 1;
            continue;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], defects[i]);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(b, 1, n, f) != n || fclose(f) != 0) {
            fprintf(stderr, "gen_malformed: cannot write %s\n", path);
            return 1;
        }
    }
    free(b);
    free(valid);
    return status;
}
