#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "dv_zalloc.h"

#include <stdlib.h>
#include <sys/mman.h>

/* Under AddressSanitizer every block comes from calloc, so that overruns of
 * it are still caught. */
#if defined(__SANITIZE_ADDRESS__)
#define ZALLOC_MAPS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZALLOC_MAPS 0
#endif
#endif
#ifndef ZALLOC_MAPS
#define ZALLOC_MAPS 1
#endif

void *dv_zalloc(size_t n)
{
    if (!ZALLOC_MAPS || n < DV_ZALLOC_MAP)
        return calloc(1, n);
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void dv_zfree(void *p, size_t n)
{
    if (!p)
        return;
    if (!ZALLOC_MAPS || n < DV_ZALLOC_MAP)
        free(p);
    else
        munmap(p, n);
}
