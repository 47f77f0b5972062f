/* dv_kernel_blob.h - a kernel object linked into the program: the ELF
 * bytes that tools/dvs2c.c wrote from an assembled .dvs source at build
 * time.  An operator's host part names the blob of its kernels with
 * DV_KERNEL_BLOB(symbol), the file's base name with '-' as '_'. */
#ifndef DV_KERNEL_BLOB_H
#define DV_KERNEL_BLOB_H

#include <stddef.h>
#include <stdint.h>

typedef struct dv_kernel_blob {
    const char *source; /* the .dvs path relative to kernels/ */
    const uint8_t *elf;
    size_t size;
    /* the source files of its line table (paths as there) and their text */
    const char *const *src_names;
    const char *const *src_texts;
    size_t nsrcs;
} dv_kernel_blob;

#define DV_KERNEL_BLOB(sym) extern const dv_kernel_blob dvk_##sym

#endif
