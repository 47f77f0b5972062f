/* dvm_priv.h - the .dvm layout shared by its writer (dvm.c) and reader
 * (dvm_read.c); docs/graphs.md describes it for other readers.  All
 * integers little-endian; strings NUL-padded in fixed fields. */
#ifndef DV_DVM_PRIV_H
#define DV_DVM_PRIV_H

#include "dv_plan.h"

enum {
    DVM_VERSION = 1,
    DVM_HEADER = 32,  /* magic[8] version nsections size(u64) table_crc reserved */
    DVM_SECTION = 24, /* id crc32 offset(u64) size(u64) */
    DVM_MAX_SECTIONS = 16,
    DVM_TENSOR = 200, /* a tensor record (dvm.c put_tensor) */
    DVM_STEP = 564,   /* a step record (dvm.c put_step) */
};

/* Section ids. */
enum { DVM_META = 1, DVM_TENSORS = 2, DVM_STEPS = 3, DVM_WEIGHTS = 4 };

#define DVM_MAGIC "DVMODEL"

#endif
