/* elf_read.c - reads and validates a kernel object ELF file.
 *
 * The input is untrusted (a fuzzer is run on dv_obj_read_elf), so the file is
 * parsed by hand with explicit little-endian loads: every offset, size, count,
 * index and string is checked against the bytes actually present before it
 * is used, with overflow-free comparisons (`a > size - b`, never `a + b >
 * size`).  Counts are checked against the bytes they need before anything is
 * allocated.  Names from the file are escaped before they go into a message,
 * so an error is always one printable line.
 *
 * The accepted format is described in docs/elf-format.md; the .dv.meta and
 * .dv.lines encodings mirror elf_write.c. */
#include "dv_file.h"
#include "dv_isa.h"
#include "dv_obj.h"
#include "dv_text.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

enum {
    EHDR_SIZE = 64,
    SHDR_SIZE = 64,
    SYM_SIZE = 24,
    SEC_HEADER = 16,               /* .dv.meta and .dv.lines: magic, version, flags, 2 x u32 */
    KERNEL_FIXED = 24,             /* entry, size, core, nargs */
    KERNEL_MIN = KERNEL_FIXED + 2, /* plus the shortest name: one byte and NUL */
    FILE_MIN = 2,                  /* the shortest path: one byte and NUL */
    SHOW_MAX = 48,                 /* characters of a name quoted in a message */
};

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

__attribute__((format(printf, 2, 3))) static dv_status bad(dv_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dv_error_vset(err, DV_ERR_INPUT, fmt, ap);
    va_end(ap);
    return DV_ERR_INPUT;
}

/* Copies a name from the file into out, escaping anything unprintable and
 * shortening it, so that a hostile name cannot break the one-line message. */
/* A kernel's or argument's name is one the assembler could have written
 * (its identifiers: a letter, '_', '.' or '$', then those and digits), so
 * that `dvsim run` and `dvsim disasm` print it as it is and a listing
 * assembles back. */
static bool is_ident(const char *s)
{
    unsigned char c = (unsigned char)s[0];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '$'))
        return false;
    for (; (c = (unsigned char)*s) != 0; s++)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '.' || c == '$'))
            return false;
    return true;
}

static const char *show(const char *s, char out[SHOW_MAX])
{
    return dv_escape(s, out, SHOW_MAX);
}

typedef struct shdr {
    uint32_t name, type, link, info;
    uint64_t offset, size, entsize;
    const char *sname; /* NULL until the name is validated */
} shdr;

/* The file being read: sections are validated in place, then decoded. */
typedef struct reader {
    const uint8_t *buf;
    size_t size;
    shdr *sh;
    unsigned shnum;
    unsigned text, data, symtab, meta, lines; /* section indices, 0 if absent */
    dv_error *err;
} reader;

/* A section's name, escaped for a message (valid after load_sections). */
static const char *sec_name(const reader *r, unsigned i, char out[SHOW_MAX])
{
    return show(r->sh[i].sname, out);
}

static dv_status check_header(reader *r)
{
    const uint8_t *b = r->buf;
    dv_error *err = r->err;
    if (r->size == 0)
        return bad(err, "file is empty (an ELF header needs %d bytes)", EHDR_SIZE);
    if (r->size < EHDR_SIZE)
        return bad(err, "file too small for an ELF header (%zu bytes, need %d)", r->size, EHDR_SIZE);
    if (memcmp(b, ELFMAG, SELFMAG) != 0)
        return bad(err, "not an ELF file (bad magic bytes)");
    if (b[EI_CLASS] != ELFCLASS64)
        return bad(err, "ELF class %u is not ELFCLASS64 (%d)", b[EI_CLASS], ELFCLASS64);
    if (b[EI_DATA] != ELFDATA2LSB)
        return bad(err, "ELF data encoding %u is not little-endian (ELFDATA2LSB = %d)", b[EI_DATA],
                   ELFDATA2LSB);
    if (b[EI_VERSION] != EV_CURRENT || rd32(b + 20) != EV_CURRENT)
        return bad(err, "ELF version %u/%u is not EV_CURRENT (%d)", b[EI_VERSION], rd32(b + 20), EV_CURRENT);
    if (rd16(b + 18) != DV_ELF_MACHINE)
        return bad(err, "e_machine 0x%x is not dvsim (0x%x)", rd16(b + 18), DV_ELF_MACHINE);
    if (rd16(b + 16) != ET_REL)
        return bad(err, "ELF type %u is not ET_REL (%d)", rd16(b + 16), ET_REL);
    if (rd32(b + 48) >= DV_FAMILY_COUNT)
        return bad(err, "e_flags 0x%x is not a chip family (0 to %d)", rd32(b + 48), DV_FAMILY_COUNT - 1);
    if (rd16(b + 58) != SHDR_SIZE)
        return bad(err, "e_shentsize %u is not %d", rd16(b + 58), SHDR_SIZE);
    return DV_OK;
}

/* Loads the section header table and checks each section's name and extent. */
static dv_status load_sections(reader *r)
{
    const uint8_t *b = r->buf;
    uint64_t shoff = rd64(b + 40);
    unsigned shnum = rd16(b + 60), shstrndx = rd16(b + 62);
    if (shnum == 0)
        return bad(r->err, "no section header table (e_shnum is 0)");
    /* shnum * 64 fits easily in 64 bits; shoff is checked first so the
     * subtraction cannot wrap. */
    if (shoff > r->size || (uint64_t)shnum * SHDR_SIZE > r->size - shoff)
        return bad(r->err, "section header table extends past end of file (offset %llu + %u * %d > %zu)",
                   (unsigned long long)shoff, shnum, SHDR_SIZE, r->size);
    if (shstrndx == SHN_UNDEF || shstrndx >= shnum)
        return bad(r->err, "e_shstrndx %u is not a section (1 to %u)", shstrndx, shnum - 1);
    r->sh = calloc(shnum, sizeof *r->sh);
    if (!r->sh)
        return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory for %u section headers", shnum);
    r->shnum = shnum;
    for (unsigned i = 0; i < shnum; i++) {
        const uint8_t *p = b + shoff + (uint64_t)i * SHDR_SIZE;
        shdr *s = &r->sh[i];
        s->name = rd32(p);
        s->type = rd32(p + 4);
        s->offset = rd64(p + 24);
        s->size = rd64(p + 32);
        s->link = rd32(p + 40);
        s->info = rd32(p + 44);
        s->entsize = rd64(p + 56);
    }

    /* The name table first, so that every later message can name sections. */
    const shdr *ss = &r->sh[shstrndx];
    if (ss->type != SHT_STRTAB)
        return bad(r->err, "section %u (e_shstrndx) has type %u, not SHT_STRTAB", shstrndx, ss->type);
    if (ss->offset > r->size || ss->size > r->size - ss->offset)
        return bad(
            r->err,
            "section %u (section name string table) extends past end of file (offset %llu + size %llu > %zu)",
            shstrndx, (unsigned long long)ss->offset, (unsigned long long)ss->size, r->size);
    const char *names = (const char *)b + ss->offset;
    if (ss->size == 0 || names[ss->size - 1] != '\0')
        return bad(r->err, "section %u (section name string table) is not NUL-terminated", shstrndx);
    char n1[SHOW_MAX];
    for (unsigned i = 0; i < shnum; i++) {
        shdr *s = &r->sh[i];
        if (s->name >= ss->size)
            return bad(r->err, "section %u: name offset %u is outside the section name table (size %llu)", i,
                       s->name, (unsigned long long)ss->size);
        s->sname = names + s->name; /* terminated: the table ends in NUL */
        if (s->type != SHT_NOBITS && (s->offset > r->size || s->size > r->size - s->offset))
            return bad(r->err, "section %u (%s) extends past end of file (offset %llu + size %llu > %zu)", i,
                       show(s->sname, n1), (unsigned long long)s->offset, (unsigned long long)s->size,
                       r->size);
    }
    return DV_OK;
}

/* Finds the sections dvsim uses, by name, rejecting duplicates and wrong types. */
static dv_status find_sections(reader *r)
{
    static const struct {
        const char *name;
        uint32_t type;
        size_t field;
    } want[] = {
        {".text", SHT_PROGBITS, offsetof(reader, text)},
        {".data", SHT_PROGBITS, offsetof(reader, data)},
        {".symtab", SHT_SYMTAB, offsetof(reader, symtab)},
        {".dv.meta", SHT_PROGBITS, offsetof(reader, meta)},
        {".dv.lines", SHT_PROGBITS, offsetof(reader, lines)},
    };
    for (unsigned i = 1; i < r->shnum; i++) {
        for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
            if (strcmp(r->sh[i].sname, want[w].name) != 0)
                continue;
            unsigned *slot = (unsigned *)((char *)r + want[w].field);
            if (*slot)
                return bad(r->err, "two %s sections (%u and %u)", want[w].name, *slot, i);
            if (r->sh[i].type != want[w].type)
                return bad(r->err, "section %u (%s) has type %u, expected %u", i, want[w].name, r->sh[i].type,
                           want[w].type);
            *slot = i;
        }
    }
    if (!r->text)
        return bad(r->err, "no .text section");
    if (!r->meta)
        return bad(r->err, "no .dv.meta section: not a dvsim kernel object");
    uint64_t tsize = r->sh[r->text].size;
    if (tsize % DV_INSN_BYTES != 0)
        return bad(r->err, "section %u (.text) size %llu is not a multiple of %d", r->text,
                   (unsigned long long)tsize, DV_INSN_BYTES);
    return DV_OK;
}

static dv_status check_symtab(reader *r)
{
    if (!r->symtab)
        return DV_OK; /* optional: the loader itself uses .dv.meta */
    const shdr *st = &r->sh[r->symtab];
    unsigned si = r->symtab;
    char n1[SHOW_MAX], n2[SHOW_MAX];
    if (st->entsize != SYM_SIZE)
        return bad(r->err, "section %u (.symtab) entry size %llu is not %d", si,
                   (unsigned long long)st->entsize, SYM_SIZE);
    if (st->size % SYM_SIZE != 0)
        return bad(r->err, "section %u (.symtab) size %llu is not a multiple of %d", si,
                   (unsigned long long)st->size, SYM_SIZE);
    if (st->link == 0 || st->link >= r->shnum || r->sh[st->link].type != SHT_STRTAB)
        return bad(r->err, "section %u (.symtab) links to section %u, which is not a string table", si,
                   st->link);
    const shdr *ss = &r->sh[st->link];
    const char *strs = (const char *)r->buf + ss->offset;
    if (ss->size == 0 || strs[ss->size - 1] != '\0')
        return bad(r->err, "section %u (%s) is not NUL-terminated", st->link, sec_name(r, st->link, n1));
    uint64_t nsyms = st->size / SYM_SIZE;
    if (st->info > nsyms)
        return bad(r->err, "section %u (.symtab) sh_info %u exceeds its %llu symbols", si, st->info,
                   (unsigned long long)nsyms);
    uint64_t tsize = r->sh[r->text].size;
    for (uint64_t i = 0; i < nsyms; i++) {
        const uint8_t *p = r->buf + st->offset + i * SYM_SIZE;
        uint32_t name = rd32(p);
        unsigned type = p[4] & 0xf, shndx = rd16(p + 6);
        uint64_t value = rd64(p + 8), size = rd64(p + 16);
        if (name >= ss->size)
            return bad(r->err, ".symtab: symbol %llu name offset %u is outside %s (size %llu)",
                       (unsigned long long)i, name, sec_name(r, st->link, n2), (unsigned long long)ss->size);
        const char *sname = show(strs + name, n1);
        if (type == STT_FUNC && shndx != r->text)
            return bad(r->err,
                       ".symtab: kernel symbol '%s' is not defined in .text (st_shndx %u, .text is %u)",
                       sname, shndx, r->text);
        if (shndx == r->text && (value > tsize || size > tsize - value))
            return bad(r->err, ".symtab: symbol '%s' (value %llu, size %llu) lies outside .text (size %llu)",
                       sname, (unsigned long long)value, (unsigned long long)size, (unsigned long long)tsize);
    }
    return DV_OK;
}

/* A bounded view of one section's bytes. */
typedef struct cursor {
    const uint8_t *p;
    size_t len, off;
} cursor;

static size_t left(const cursor *c)
{
    return c->len - c->off;
}

static const uint8_t *take(cursor *c, size_t n)
{
    if (n > left(c))
        return NULL;
    const uint8_t *p = c->p + c->off;
    c->off += n;
    return p;
}

/* A NUL-terminated string inside the section; NULL if it runs off the end. */
static const char *take_str(cursor *c, size_t *len)
{
    const uint8_t *p = c->p + c->off;
    const uint8_t *nul = memchr(p, '\0', left(c));
    if (!nul)
        return NULL;
    *len = (size_t)(nul - p);
    c->off += *len + 1;
    return (const char *)p;
}

static char *dup_str(const char *s, size_t len)
{
    char *d = malloc(len + 1);
    if (d)
        memcpy(d, s, len + 1);
    return d;
}

static cursor section_cursor(const reader *r, unsigned i)
{
    return (cursor){r->buf + r->sh[i].offset, (size_t)r->sh[i].size, 0};
}

/* The 16-byte header .dv.meta and .dv.lines share: magic, version, flags
 * (only those in `allowed` may be set; *flags gets them), then two u32
 * fields that *h points at on success. */
static dv_status read_header(reader *r, cursor *c, const char *sec, const char *magic, unsigned allowed,
                             unsigned *flags, const uint8_t **h)
{
    *h = take(c, SEC_HEADER);
    if (!*h)
        return bad(r->err, "%s: section is %zu bytes, too short for its %d-byte header", sec, c->len,
                   SEC_HEADER);
    if (memcmp(*h, magic, 4) != 0)
        return bad(r->err, "%s: bad magic (expected \"%s\")", sec, magic);
    if (rd16(*h + 4) != DV_META_VERSION)
        return bad(r->err, "%s: format version %u is not supported (this dvsim reads version %d)", sec,
                   rd16(*h + 4), DV_META_VERSION);
    if (rd16(*h + 6) & ~allowed)
        return bad(r->err, "%s: reserved flags 0x%x are not zero", sec, rd16(*h + 6) & ~allowed);
    *flags = rd16(*h + 6);
    *h += 8;
    return DV_OK;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Kernel names must be unique (lookup is by name); sorting keeps this
 * O(n log n) for a hostile file with many kernels. */
static dv_status check_unique_kernels(reader *r, const dv_obj *obj)
{
    if (obj->nkernels < 2)
        return DV_OK;
    char **names = malloc(obj->nkernels * sizeof *names);
    if (!names)
        return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory checking kernel names");
    for (size_t i = 0; i < obj->nkernels; i++)
        names[i] = obj->kernels[i].name;
    qsort(names, obj->nkernels, sizeof *names, cmp_names);
    dv_status st = DV_OK;
    char n1[SHOW_MAX];
    for (size_t i = 1; i < obj->nkernels && st == DV_OK; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            st = bad(r->err, ".dv.meta: duplicate kernel '%s'", show(names[i], n1));
    free(names);
    return st;
}

static dv_status read_args(reader *r, cursor *c, dv_obj_kernel *k, size_t ki)
{
    char n1[SHOW_MAX], n2[SHOW_MAX];
    for (unsigned a = 0; a < k->nargs; a++) {
        const uint8_t *p = take(c, 4);
        size_t len = 0;
        const char *name = p ? take_str(c, &len) : NULL;
        if (!name)
            return bad(r->err, ".dv.meta: kernel %zu ('%s') argument %u runs past the end of the section", ki,
                       show(k->name, n1), a);
        if (len == 0)
            return bad(r->err, ".dv.meta: kernel '%s' argument %u has an empty name", show(k->name, n1), a);
        if (!is_ident(name))
            return bad(r->err, ".dv.meta: kernel '%s' argument %u name '%s' is not an identifier",
                       show(k->name, n1), a, show(name, n2));
        uint32_t type = rd32(p);
        if (type >= DV_ARG_TYPE_COUNT)
            return bad(r->err, ".dv.meta: kernel '%s' argument '%s' has type %u (0 to %d)", show(k->name, n1),
                       show(name, n2), type, DV_ARG_TYPE_COUNT - 1);
        for (unsigned b = 0; b < a; b++)
            if (strcmp(k->args[b].name, name) == 0)
                return bad(r->err, ".dv.meta: kernel '%s' has two arguments named '%s'", show(k->name, n1),
                           show(name, n2));
        k->args[a].type = (dv_arg_type)type;
        if (!(k->args[a].name = dup_str(name, len)))
            return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory reading .dv.meta");
    }
    return DV_OK;
}

static dv_status read_meta(reader *r, dv_obj *obj)
{
    cursor c = section_cursor(r, r->meta);
    const uint8_t *h;
    unsigned flags;
    dv_status st = read_header(r, &c, ".dv.meta", "DVMT", 0, &flags, &h);
    if (st != DV_OK)
        return st;
    uint32_t want = rd32(h), nk = rd32(h + 4);
    uint32_t got = (uint32_t)crc32_z(crc32_z(0, Z_NULL, 0), obj->text, obj->text_size);
    if (got != want)
        return bad(r->err,
                   ".dv.meta: CRC32 of .text is 0x%08x, expected 0x%08x (.text does not match its metadata)",
                   got, want);
    if (nk > left(&c) / KERNEL_MIN)
        return bad(r->err, ".dv.meta: %u kernels cannot fit in the %zu bytes left in the section", nk,
                   left(&c));
    if (nk && !(obj->kernels = calloc(nk, sizeof *obj->kernels)))
        return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory for %u kernels", nk);
    char n1[SHOW_MAX];
    for (uint32_t i = 0; i < nk; i++) {
        dv_obj_kernel *k = &obj->kernels[obj->nkernels++]; /* counted now so destroy frees it */
        const uint8_t *p = take(&c, KERNEL_FIXED);
        size_t len = 0;
        const char *name = p ? take_str(&c, &len) : NULL;
        if (!name)
            return bad(r->err, ".dv.meta: kernel %u runs past the end of the section (%zu bytes)", i, c.len);
        if (len == 0)
            return bad(r->err, ".dv.meta: kernel %u has an empty name", i);
        if (!(k->name = dup_str(name, len)))
            return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory reading .dv.meta");
        k->entry = rd64(p);
        k->size = rd64(p + 8);
        uint32_t core = rd32(p + 16), nargs = rd32(p + 20);
        const char *kn = show(k->name, n1);
        if (!is_ident(k->name))
            return bad(r->err, ".dv.meta: kernel name '%s' is not an identifier (letters, digits, _ . $)",
                       kn);
        if (core >= DV_CORE_TYPE_COUNT)
            return bad(r->err, ".dv.meta: kernel '%s' has core type %u (0 to %d)", kn, core,
                       DV_CORE_TYPE_COUNT - 1);
        k->core = (dv_core_type)core;
        if (k->entry >= obj->text_size || k->size > obj->text_size - k->entry)
            return bad(r->err, ".dv.meta: kernel '%s' (entry %llu, size %llu) lies outside .text (size %zu)",
                       kn, (unsigned long long)k->entry, (unsigned long long)k->size, obj->text_size);
        if (k->entry % DV_INSN_BYTES != 0)
            return bad(r->err, ".dv.meta: kernel '%s' entry %llu is not a multiple of %d", kn,
                       (unsigned long long)k->entry, DV_INSN_BYTES);
        if (k->size == 0 || k->size % DV_INSN_BYTES != 0)
            return bad(r->err, ".dv.meta: kernel '%s' size %llu is not a positive multiple of %d", kn,
                       (unsigned long long)k->size, DV_INSN_BYTES);
        if (nargs > DV_MAX_KERNEL_ARGS)
            return bad(r->err, ".dv.meta: kernel '%s' has %u arguments, at most %d", kn, nargs,
                       DV_MAX_KERNEL_ARGS);
        k->nargs = nargs;
        if ((st = read_args(r, &c, k, i)) != DV_OK)
            return st;
    }
    if (left(&c) != 0)
        return bad(r->err, ".dv.meta: %zu unexpected bytes after the last kernel", left(&c));
    return check_unique_kernels(r, obj);
}

static dv_status read_lines(reader *r, dv_obj *obj)
{
    if (!r->lines)
        return DV_OK; /* optional: objects without debug information */
    cursor c = section_cursor(r, r->lines);
    const uint8_t *h;
    unsigned flags;
    dv_status st = read_header(r, &c, ".dv.lines", "DVLN", DV_LINES_CALLS, &flags, &h);
    if (st != DV_OK)
        return st;
    uint32_t nf = rd32(h), nl = rd32(h + 4);
    if (nf > left(&c) / FILE_MIN)
        return bad(r->err, ".dv.lines: %u file names cannot fit in the %zu bytes left in the section", nf,
                   left(&c));
    if (nf && !(obj->files = calloc(nf, sizeof *obj->files)))
        return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory for %u file names", nf);
    for (uint32_t i = 0; i < nf; i++) {
        size_t len = 0;
        const char *name = take_str(&c, &len);
        if (!name)
            return bad(r->err, ".dv.lines: file name %u runs past the end of the section", i);
        if (len == 0)
            return bad(r->err, ".dv.lines: file name %u is empty", i);
        if (!(obj->files[obj->nfiles++] = dup_str(name, len)))
            return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory reading .dv.lines");
    }
    size_t esize = flags & DV_LINES_CALLS ? DV_LINE_SIZE_CALLS : DV_LINE_SIZE;
    if (nl > left(&c) / esize)
        return bad(r->err, ".dv.lines: %u entries need %llu bytes but only %zu are left in the section", nl,
                   (unsigned long long)nl * esize, left(&c));
    if (left(&c) != (size_t)nl * esize)
        return bad(r->err, ".dv.lines: %zu unexpected bytes after the last entry",
                   left(&c) - (size_t)nl * esize);
    if (nl && !(obj->lines = malloc((size_t)nl * sizeof *obj->lines)))
        return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory for %u line entries", nl);
    for (uint32_t i = 0; i < nl; i++) {
        const uint8_t *p = take(&c, esize);
        dv_obj_line *l = &obj->lines[i];
        *l = (dv_obj_line){.pc = rd64(p), .file = rd32(p + 8), .line = rd32(p + 12), .col = rd32(p + 16)};
        if (flags & DV_LINES_CALLS) {
            l->call_file = rd32(p + 20);
            l->call_line = rd32(p + 24);
            if (l->call_line && l->call_file >= nf)
                return bad(r->err, ".dv.lines: entry %u has call file index %u, but there are %u files", i,
                           l->call_file, nf);
            if (!l->call_line && l->call_file)
                return bad(r->err, ".dv.lines: entry %u has a call file but no call line", i);
        }
        if (l->pc % DV_INSN_BYTES != 0 || l->pc >= obj->text_size)
            return bad(r->err, ".dv.lines: entry %u has pc %llu, not an instruction in .text (size %zu)", i,
                       (unsigned long long)l->pc, obj->text_size);
        if (i > 0 && l->pc <= obj->lines[i - 1].pc)
            return bad(r->err,
                       ".dv.lines: entry %u (pc %llu) is not after entry %u (pc %llu); entries must be "
                       "sorted by pc",
                       i, (unsigned long long)l->pc, i - 1, (unsigned long long)obj->lines[i - 1].pc);
        if (l->file >= nf)
            return bad(r->err, ".dv.lines: entry %u has file index %u, but there are %u files", i, l->file,
                       nf);
        if (l->line == 0)
            return bad(r->err, ".dv.lines: entry %u has line 0 (lines start at 1)", i);
        obj->nlines = i + 1;
    }
    return DV_OK;
}

static dv_status copy_section(const reader *r, unsigned i, uint8_t **dst, size_t *dst_size)
{
    size_t n = (size_t)r->sh[i].size;
    char n1[SHOW_MAX];
    if (n == 0)
        return DV_OK;
    if (!(*dst = malloc(n)))
        return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory for %zu bytes of %s", n, sec_name(r, i, n1));
    memcpy(*dst, r->buf + r->sh[i].offset, n);
    *dst_size = n;
    return DV_OK;
}

static dv_status read_obj(reader *r, dv_obj *obj)
{
    dv_status st;
    if ((st = check_header(r)) != DV_OK || (st = load_sections(r)) != DV_OK ||
        (st = find_sections(r)) != DV_OK || (st = check_symtab(r)) != DV_OK)
        return st;
    obj->family = (dv_chip_family)rd32(r->buf + 48);
    if ((st = copy_section(r, r->text, &obj->text, &obj->text_size)) != DV_OK)
        return st;
    if (r->data && (st = copy_section(r, r->data, &obj->data, &obj->data_size)) != DV_OK)
        return st;
    if ((st = read_meta(r, obj)) != DV_OK)
        return st;
    return read_lines(r, obj);
}

dv_status dv_obj_read_elf(const uint8_t *buf, size_t size, dv_obj **out, dv_error *err)
{
    if (!out || (!buf && size > 0))
        return dv_error_set(err, DV_ERR_USAGE, "dv_obj_read_elf: NULL argument");
    *out = NULL;
    dv_obj *obj = dv_obj_create();
    if (!obj)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    reader r = {.buf = buf, .size = size, .err = err};
    dv_status st = read_obj(&r, obj);
    free(r.sh);
    if (st != DV_OK) {
        dv_obj_destroy(obj);
        return st;
    }
    *out = obj;
    return DV_OK;
}

/* Reads until end of file, so pipes and devices work as well as files. */
static dv_status read_file(int fd, uint8_t **buf, size_t *size, dv_error *err)
{
    size_t cap = 64 * 1024, len = 0;
    uint8_t *p = malloc(cap);
    if (!p)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    for (;;) {
        if (len == cap) {
            uint8_t *q = cap <= SIZE_MAX / 2 ? realloc(p, cap * 2) : NULL;
            if (!q) {
                free(p);
                return dv_error_set(err, DV_ERR_NOMEM, "out of memory reading %zu bytes", len);
            }
            p = q;
            cap *= 2;
        }
        ssize_t n = read(fd, p + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            free(p);
            return dv_error_set(err, DV_ERR_IO, "read error: %s", strerror(e));
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    *buf = p;
    *size = len;
    return DV_OK;
}

dv_status dv_obj_load(const char *path, dv_obj **out, dv_error *err)
{
    if (!path || !out)
        return dv_error_set(err, DV_ERR_USAGE, "dv_obj_load: NULL argument");
    *out = NULL;
    int fd = dv_open_input_fd(path, err);
    if (fd < 0)
        return err ? err->status : DV_ERR_MISSING;
    uint8_t *buf = NULL;
    size_t size = 0;
    dv_status st = read_file(fd, &buf, &size, err);
    close(fd);
    if (st == DV_OK) {
        st = dv_obj_read_elf(buf, size, out, err);
        free(buf);
    }
    if (st != DV_OK)
        dv_error_prefix(err, "%s", path);
    return st;
}
