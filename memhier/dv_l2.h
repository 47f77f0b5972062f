/* dv_l2.h - the chip's L2 cache in front of HBM: set-associative, LRU,
 * write-allocate and write-back, with per-requester hit and miss counts.
 * Only tags are kept (the data lives in GM); what the cache decides is how
 * many bytes must come from or go to HBM. */
#ifndef DV_L2_H
#define DV_L2_H

#include "dv_status.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct dv_l2 dv_l2;

typedef struct dv_l2_counts {
    uint64_t read_hits, read_misses, write_hits, write_misses;
    uint64_t fill_bytes;      /* lines read from HBM */
    uint64_t writeback_bytes; /* dirty lines written to HBM on eviction */
} dv_l2_counts;

/* size 0 makes a cache that misses every access (no L2). */
dv_l2 *dv_l2_create(uint64_t size_bytes, uint64_t line_bytes, unsigned ways, dv_error *err);
void dv_l2_destroy(dv_l2 *l2);
uint64_t dv_l2_line_bytes(const dv_l2 *l2);

/* Accesses [addr, addr+len): every line it touches is looked up (and
 * allocated on a miss).  Adds to *counts and returns the HBM bytes the
 * access causes (fills and write-backs). */
uint64_t dv_l2_access(dv_l2 *l2, uint64_t addr, uint64_t len, bool write, dv_l2_counts *counts);

#endif
