/* footprint_run.h - coalescing the ranges of a footprint (dv_unit_footprint):
 * consecutive ranges of one buffer and direction that touch are reported
 * as one, so a contiguous copy of many bursts is one range. */
#ifndef DV_FOOTPRINT_RUN_H
#define DV_FOOTPRINT_RUN_H

#include "dv_unit.h"

typedef struct fp_run {
    dv_unit_access_fn fn;
    void *user;
    dv_mem_kind mem;
    bool write, open;
    uint64_t addr, len;
} fp_run;

static inline void fp_flush(fp_run *r)
{
    if (r->open && r->len)
        r->fn(r->user, r->mem, r->addr, r->len, r->write);
    r->open = false;
}

static inline void fp_add(fp_run *r, dv_mem_kind mem, uint64_t addr, uint64_t len, bool write)
{
    if (!len)
        return;
    if (r->open && r->mem == mem && r->write == write && r->addr + r->len == addr) {
        r->len += len;
        return;
    }
    fp_flush(r);
    *r = (fp_run){r->fn, r->user, mem, write, true, addr, len};
}

#endif
