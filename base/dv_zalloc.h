/* dv_zalloc.h - zeroed memory whose untouched pages cost nothing.
 *
 * calloc of a large block is often served from the heap (glibc raises its
 * mmap threshold after a large free), and then clears every byte: a launch
 * of 32 cores cleared about 50 MiB of buffers it mostly never touches (a
 * timing-only run reads none of them).  Blocks of DV_ZALLOC_MAP bytes or more
 * come from the kernel here, zero and faulted in on first touch. */
#ifndef DV_ZALLOC_H
#define DV_ZALLOC_H

#include <stddef.h>

enum { DV_ZALLOC_MAP = 64 * 1024 };

/* n zero bytes (n > 0), or NULL when out of memory. */
void *dv_zalloc(size_t n);
/* Frees p (NULL: nothing) of the size n it was allocated with. */
void dv_zfree(void *p, size_t n);

#endif
