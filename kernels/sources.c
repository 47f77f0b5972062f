/* sources.c - the embedded kernel sources (dv_kernel_sources.h), looked up
 * in every blob of blob_list.h. */
#include "dv_kernel_blob.h"
#include "dv_kernel_sources.h"

#include <string.h>

#define DV_KERNEL_BLOB_ROW(sym) DV_KERNEL_BLOB(sym);
#include "blob_list.h"
#undef DV_KERNEL_BLOB_ROW

static const dv_kernel_blob *const blobs[] = {
#define DV_KERNEL_BLOB_ROW(sym) &dvk_##sym,
#include "blob_list.h"
#undef DV_KERNEL_BLOB_ROW
};

const char *dv_kernel_source_text(const char *path)
{
    if (!path)
        return NULL;
    for (size_t b = 0; b < sizeof blobs / sizeof blobs[0]; b++)
        for (size_t i = 0; i < blobs[b]->nsrcs; i++)
            if (blobs[b]->src_names[i] && strcmp(blobs[b]->src_names[i], path) == 0)
                return blobs[b]->src_texts[i];
    return NULL;
}
