/* elf_write.c - writes a kernel object as an ELF64 relocatable file.
 *
 * The layout is fixed (docs/elf-format.md): the ELF header, then the
 * sections in the order below, each at the next multiple of its alignment,
 * then the section header table.  We set every offset ourselves
 * (ELF_F_LAYOUT) so the bytes depend only on the object, never on libelf's
 * layout heuristics, and identical objects give identical files.
 *
 * The .dv.meta and .dv.lines encodings are repeated in elf_read.c; the
 * document is the contract between the two. */
#include "dv_buf.h"
#include "dv_file.h"
#include "dv_isa.h"
#include "dv_obj.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

enum {
    META_FLAGS = 0,   /* reserved, must be zero in version 1 */
    MAX_SECTIONS = 8, /* null .text .data .symtab .strtab .dv.meta .dv.lines .shstrtab */
};

static void put_u16(dv_buf *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    dv_buf_append(b, x, sizeof x);
}

static void put_u32(dv_buf *b, uint32_t v)
{
    uint8_t x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    dv_buf_append(b, x, sizeof x);
}

static void put_u64(dv_buf *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    dv_buf_append(b, x, sizeof x);
}

/* Strings are stored with their NUL terminator. */
static void put_str(dv_buf *b, const char *s)
{
    dv_buf_append(b, s, strlen(s) + 1);
}

/* Rejects what cannot be encoded at all (NULL names, counts that overflow the
 * fixed-width fields).  Everything else is checked by reading the result back
 * (dv_obj_write_elf), so the writer and reader cannot disagree. */
static dv_status check_encodable(const dv_obj *obj, dv_error *err)
{
    if ((obj->text_size && !obj->text) || (obj->data_size && !obj->data))
        return dv_error_set(err, DV_ERR_USAGE, "cannot write object: section size set but no bytes");
    if (obj->nkernels > UINT32_MAX || obj->nfiles > UINT32_MAX || obj->nlines > UINT32_MAX)
        return dv_error_set(err, DV_ERR_USAGE,
                            "cannot write object: more than 2^32-1 kernels, files or lines");
    if ((obj->nkernels && !obj->kernels) || (obj->nfiles && !obj->files) || (obj->nlines && !obj->lines))
        return dv_error_set(err, DV_ERR_USAGE, "cannot write object: count set but array is NULL");
    for (size_t i = 0; i < obj->nkernels; i++) {
        const dv_obj_kernel *k = &obj->kernels[i];
        if (!k->name)
            return dv_error_set(err, DV_ERR_USAGE, "cannot write object: kernel %zu has no name", i);
        if (k->nargs > DV_MAX_KERNEL_ARGS)
            return dv_error_set(err, DV_ERR_USAGE,
                                "cannot write object: kernel '%s' has %u arguments, at most %d", k->name,
                                k->nargs, DV_MAX_KERNEL_ARGS);
        for (unsigned a = 0; a < k->nargs; a++)
            if (!k->args[a].name)
                return dv_error_set(err, DV_ERR_USAGE,
                                    "cannot write object: kernel '%s' argument %u has no name", k->name, a);
    }
    for (size_t i = 0; i < obj->nfiles; i++)
        if (!obj->files[i])
            return dv_error_set(err, DV_ERR_USAGE, "cannot write object: file %zu has no name", i);
    return DV_OK;
}

static void encode_meta(const dv_obj *obj, dv_buf *b)
{
    uint32_t crc = (uint32_t)crc32_z(crc32_z(0, Z_NULL, 0), obj->text, obj->text_size);
    dv_buf_append(b, "DVMT", 4);
    put_u16(b, DV_META_VERSION);
    put_u16(b, META_FLAGS);
    put_u32(b, crc);
    put_u32(b, (uint32_t)obj->nkernels);
    for (size_t i = 0; i < obj->nkernels; i++) {
        const dv_obj_kernel *k = &obj->kernels[i];
        put_u64(b, k->entry);
        put_u64(b, k->size);
        put_u32(b, (uint32_t)k->core);
        put_u32(b, k->nargs);
        put_str(b, k->name);
        for (unsigned a = 0; a < k->nargs; a++) {
            put_u32(b, (uint32_t)k->args[a].type);
            put_str(b, k->args[a].name);
        }
    }
}

static void encode_lines(const dv_obj *obj, dv_buf *b)
{
    /* An object without macro expansions keeps the 20-byte entries. */
    bool calls = false;
    for (size_t i = 0; i < obj->nlines; i++)
        calls = calls || obj->lines[i].call_line;
    dv_buf_append(b, "DVLN", 4);
    put_u16(b, DV_META_VERSION);
    put_u16(b, calls ? DV_LINES_CALLS : 0);
    put_u32(b, (uint32_t)obj->nfiles);
    put_u32(b, (uint32_t)obj->nlines);
    for (size_t i = 0; i < obj->nfiles; i++)
        put_str(b, obj->files[i]);
    for (size_t i = 0; i < obj->nlines; i++) {
        put_u64(b, obj->lines[i].pc);
        put_u32(b, obj->lines[i].file);
        put_u32(b, obj->lines[i].line);
        put_u32(b, obj->lines[i].col);
        if (calls) {
            put_u32(b, obj->lines[i].call_file);
            put_u32(b, obj->lines[i].call_line);
        }
    }
}

/* One section to emit; index 0 of the table is the null section. */
typedef struct out_section {
    const char *name;
    uint32_t type;
    uint64_t flags;
    uint64_t align;
    uint64_t entsize;
    uint32_t link;
    uint32_t info;
    const void *bytes;
    size_t size;
    Elf_Type dtype;
    uint32_t name_off; /* in .shstrtab, filled in by write_sections */
} out_section;

/* Everything the ELF file holds besides .text and .data, kept together so
 * the buffers can be released in one place. */
typedef struct out_parts {
    dv_buf meta, lines, strtab, shstrtab;
    Elf64_Sym *syms;
    size_t nsyms;
} out_parts;

/* Appends a section with the defaults most of ours share (8-byte aligned
 * bytes); the caller adjusts the rest. */
static out_section *add_section(out_section *sec, size_t *n, const char *name, uint32_t type, uint64_t flags,
                                const void *bytes, size_t size)
{
    out_section *s = &sec[(*n)++];
    *s = (out_section){.name = name,
                       .type = type,
                       .flags = flags,
                       .align = 8,
                       .bytes = bytes,
                       .size = size,
                       .dtype = ELF_T_BYTE};
    return s;
}

static void free_parts(out_parts *p)
{
    dv_buf_free(&p->meta);
    dv_buf_free(&p->lines);
    dv_buf_free(&p->strtab);
    dv_buf_free(&p->shstrtab);
    free(p->syms);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* Hands the sections to libelf, which writes them to fd at our offsets. */
static dv_status write_sections(const dv_obj *obj, const out_section *sec, size_t nsec, int fd, dv_error *err)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return dv_error_set(err, DV_ERR_INTERNAL, "libelf is too old: %s", elf_errmsg(-1));
    Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
    if (!e)
        return dv_error_set(err, DV_ERR_INTERNAL, "libelf: elf_begin: %s", elf_errmsg(-1));
    dv_status st = DV_OK;
    Elf64_Ehdr *eh = elf64_newehdr(e);
    if (!eh) {
        st = dv_error_set(err, DV_ERR_INTERNAL, "libelf: elf64_newehdr: %s", elf_errmsg(-1));
        goto out;
    }
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_VERSION] = EV_CURRENT;
    eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
    eh->e_type = ET_REL;
    eh->e_machine = DV_ELF_MACHINE;
    eh->e_version = EV_CURRENT;
    eh->e_flags = (uint32_t)obj->family;
    eh->e_shstrndx = (uint16_t)(nsec - 1); /* .shstrtab is last */
    elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);

    uint64_t off = sizeof(Elf64_Ehdr);
    for (size_t i = 1; i < nsec; i++) {
        const out_section *s = &sec[i];
        Elf_Scn *scn = elf_newscn(e);
        Elf_Data *d = scn ? elf_newdata(scn) : NULL;
        Elf64_Shdr *sh = scn ? elf64_getshdr(scn) : NULL;
        if (!d || !sh) {
            st = dv_error_set(err, DV_ERR_INTERNAL, "libelf: cannot add section %s: %s", s->name,
                              elf_errmsg(-1));
            goto out;
        }
        d->d_buf = (void *)s->bytes; /* libelf only reads it */
        d->d_size = s->size;
        d->d_type = s->dtype;
        d->d_align = s->align;
        d->d_off = 0;
        d->d_version = EV_CURRENT;
        off = align_up(off, s->align);
        sh->sh_name = s->name_off;
        sh->sh_type = s->type;
        sh->sh_flags = s->flags;
        sh->sh_offset = off;
        sh->sh_size = s->size;
        sh->sh_link = s->link;
        sh->sh_info = s->info;
        sh->sh_addralign = s->align;
        sh->sh_entsize = s->entsize;
        off += s->size;
    }
    eh->e_shoff = align_up(off, 8);
    if (elf_update(e, ELF_C_WRITE) < 0)
        st = dv_error_set(err, DV_ERR_IO, "cannot write ELF: %s", elf_errmsg(-1));
out:
    elf_end(e);
    return st;
}

/* Encodes the object and writes it to fd through libelf. */
static dv_status write_fd(const dv_obj *obj, int fd, dv_error *err)
{
    out_parts p = {DV_BUF_INIT, DV_BUF_INIT, DV_BUF_INIT, DV_BUF_INIT, NULL, 0};
    out_section sec[MAX_SECTIONS];
    size_t n = 1;
    dv_status st = DV_OK;
    memset(sec, 0, sizeof sec);

    encode_meta(obj, &p.meta);
    encode_lines(obj, &p.lines);
    p.nsyms = obj->nkernels + 1;
    p.syms = calloc(p.nsyms, sizeof *p.syms);
    if (!p.syms) {
        st = dv_error_set(err, DV_ERR_NOMEM, "out of memory writing the symbol table");
        goto out;
    }
    dv_buf_append(&p.strtab, "", 1);
    for (size_t i = 0; i < obj->nkernels; i++) {
        const dv_obj_kernel *k = &obj->kernels[i];
        Elf64_Sym *sym = &p.syms[i + 1];
        sym->st_name = (uint32_t)p.strtab.len;
        sym->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
        sym->st_other = STV_DEFAULT;
        sym->st_shndx = 1; /* .text */
        sym->st_value = k->entry;
        sym->st_size = k->size;
        put_str(&p.strtab, k->name);
    }

    add_section(sec, &n, ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, obj->text, obj->text_size);
    if (obj->data_size > 0)
        add_section(sec, &n, ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, obj->data, obj->data_size);
    out_section *symtab = add_section(sec, &n, ".symtab", SHT_SYMTAB, 0, p.syms, p.nsyms * sizeof *p.syms);
    symtab->entsize = sizeof *p.syms;
    symtab->link = (uint32_t)n; /* .strtab comes next */
    symtab->info = 1;           /* index of the first non-local symbol */
    symtab->dtype = ELF_T_SYM;  /* libelf converts to the file's byte order */
    add_section(sec, &n, ".strtab", SHT_STRTAB, 0, p.strtab.data, p.strtab.len)->align = 1;
    add_section(sec, &n, ".dv.meta", SHT_PROGBITS, 0, p.meta.data, p.meta.len);
    add_section(sec, &n, ".dv.lines", SHT_PROGBITS, 0, p.lines.data, p.lines.len);
    out_section *shstrtab = add_section(sec, &n, ".shstrtab", SHT_STRTAB, 0, NULL, 0);
    shstrtab->align = 1;

    dv_buf_append(&p.shstrtab, "", 1);
    for (size_t i = 1; i < n; i++) {
        sec[i].name_off = (uint32_t)p.shstrtab.len;
        put_str(&p.shstrtab, sec[i].name);
    }
    /* .shstrtab's bytes are final only once every name is in. */
    shstrtab->bytes = p.shstrtab.data;
    shstrtab->size = p.shstrtab.len;
    if (p.meta.oom || p.lines.oom || p.strtab.oom || p.shstrtab.oom) {
        st = dv_error_set(err, DV_ERR_NOMEM, "out of memory encoding the object");
        goto out;
    }
    st = write_sections(obj, sec, n, fd, err);
out:
    free_parts(&p);
    return st;
}

/* Reads the whole of fd (from offset 0) into a new buffer. */
static dv_status slurp_fd(int fd, uint8_t **buf, size_t *size, dv_error *err)
{
    struct stat stbuf;
    if (fstat(fd, &stbuf) != 0)
        return dv_error_set(err, DV_ERR_IO, "temporary file: %s", strerror(errno));
    size_t n = (size_t)stbuf.st_size;
    uint8_t *p = malloc(n ? n : 1);
    if (!p)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory reading back %zu bytes", n);
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, p + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(p);
            return dv_error_set(err, DV_ERR_IO, "temporary file: %s", r < 0 ? strerror(errno) : "short read");
        }
        got += (size_t)r;
    }
    *buf = p;
    *size = n;
    return DV_OK;
}

dv_status dv_obj_write_elf(const dv_obj *obj, uint8_t **buf, size_t *size, dv_error *err)
{
    if (!obj || !buf || !size)
        return dv_error_set(err, DV_ERR_USAGE, "dv_obj_write_elf: NULL argument");
    *buf = NULL;
    *size = 0;
    dv_status st = check_encodable(obj, err);
    if (st != DV_OK)
        return st;
    /* libelf only writes to file descriptors; an anonymous temporary file
     * is removed by the system even if we crash. */
    FILE *tmp = tmpfile();
    if (!tmp)
        return dv_error_set(err, DV_ERR_IO, "cannot create a temporary file: %s", strerror(errno));
    uint8_t *out = NULL;
    size_t out_size = 0;
    st = write_fd(obj, fileno(tmp), err);
    if (st == DV_OK)
        st = slurp_fd(fileno(tmp), &out, &out_size, err);
    fclose(tmp);
    if (st != DV_OK)
        return st;

    /* Refuse to produce a file our own reader would reject: a kernel past
     * the end of .text or an unsorted line table is a bug in the caller and
     * is best reported here rather than when someone loads the file. */
    dv_obj *check = NULL;
    dv_error rerr;
    dv_error_clear(&rerr);
    st = dv_obj_read_elf(out, out_size, &check, &rerr);
    dv_obj_destroy(check);
    if (st != DV_OK) {
        free(out);
        if (st == DV_ERR_INPUT)
            return dv_error_set(err, DV_ERR_USAGE, "cannot write object: %s", rerr.msg);
        return dv_error_set(err, st, "%s", rerr.msg);
    }
    *buf = out;
    *size = out_size;
    return DV_OK;
}

dv_status dv_obj_save(const dv_obj *obj, const char *path, dv_error *err)
{
    if (!path)
        return dv_error_set(err, DV_ERR_USAGE, "dv_obj_save: NULL path");
    uint8_t *buf = NULL;
    size_t size = 0;
    dv_status st = dv_obj_write_elf(obj, &buf, &size, err);
    if (st != DV_OK) {
        dv_error_prefix(err, "%s", path);
        return st;
    }
    st = dv_write_file_atomic(path, buf, size, err); /* the old file or the new one, never half */
    free(buf);
    return st;
}
