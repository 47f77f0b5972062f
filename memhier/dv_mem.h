/* dv_mem.h - the buffers of a core (L1, L0A, L0B, L0C, UB, BT, FB) and the
 * chip's global memory (GM), holding real bytes.
 *
 * Every access goes through a check that names the buffer, the address range
 * and what is wrong, so a kernel's out-of-range or misaligned access becomes
 * a guest fault with a clear report instead of a host crash. */
#ifndef DV_MEM_H
#define DV_MEM_H

#include "dv_isa.h"
#include "dv_status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum dv_mem_kind {
    DV_MEM_GM,
    DV_MEM_L1,
    DV_MEM_L0A,
    DV_MEM_L0B,
    DV_MEM_L0C,
    DV_MEM_UB,
    DV_MEM_BT,
    DV_MEM_FB,
    DV_MEM_SDATA, /* the Scalar unit's own data memory */
    DV_MEM_KIND_COUNT
} dv_mem_kind;

const char *dv_mem_kind_name(dv_mem_kind kind); /* "GM", "L1", "L0A", ..., "scalar data" */
/* The buffers a data path reads and writes (isa/paths.def's SRC and DST;
 * DV_PATH_NONE: GM, unused). */
dv_mem_kind dv_path_src(dv_path p);
dv_mem_kind dv_path_dst(dv_path p);

/* Why an access was refused. */
typedef enum dv_fault_kind { DV_FAULT_NONE, DV_FAULT_RANGE, DV_FAULT_ALIGN } dv_fault_kind;

typedef struct dv_access_fault {
    dv_fault_kind kind;
    dv_mem_kind mem;
    uint64_t addr, len;
    uint64_t limit; /* buffer size (RANGE) or required alignment (ALIGN) */
} dv_access_fault;

/* "UB access [0x3ff00, +512) is past the end of UB (256 KiB)" */
void dv_access_fault_describe(const dv_access_fault *f, char *buf, size_t size);

/* ---- a core-local buffer ---- */
typedef struct dv_mem {
    dv_mem_kind kind;
    uint8_t *bytes;
    uint64_t size;
    uint64_t align; /* every access's start must be a multiple of this */
} dv_mem;

/* size may be 0 (the core type has no such buffer: every access faults). */
dv_status dv_mem_init(dv_mem *m, dv_mem_kind kind, uint64_t size, uint64_t align, dv_error *err);
void dv_mem_free(dv_mem *m);

/* Pointer to [addr, addr+len) if it lies inside the buffer and addr is
 * aligned to `align` (0: the buffer's own alignment); else NULL and *fault. */
uint8_t *dv_mem_span(dv_mem *m, uint64_t addr, uint64_t len, uint64_t align, dv_access_fault *fault);

/* ---- global memory: regions allocated by the host ---- */
typedef struct dv_gm dv_gm;

/* capacity: the chip's GM size (allocations beyond it fail). */
dv_gm *dv_gm_create(uint64_t capacity);
void dv_gm_destroy(dv_gm *gm);
/* Allocates len zeroed bytes at a 512-byte aligned address (never 0). */
dv_status dv_gm_alloc(dv_gm *gm, uint64_t len, uint64_t *addr, dv_error *err);
/* Pointer to [addr, addr+len) if it lies inside one allocated region; else
 * NULL and *fault (RANGE).  GM needs no alignment (#42). */
uint8_t *dv_gm_span(dv_gm *gm, uint64_t addr, uint64_t len, dv_access_fault *fault);
uint64_t dv_gm_allocated(const dv_gm *gm); /* bytes */
/* Frees the region allocated at addr (false: none starts there).  Its
 * addresses are not handed out again: a stale pointer faults. */
bool dv_gm_free(dv_gm *gm, uint64_t addr);

#endif
