#include "dv_mem.h"

#include "dv_zalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *dv_mem_kind_name(dv_mem_kind kind)
{
    static const char *const names[DV_MEM_KIND_COUNT] = {"GM", "L1", "L0A", "L0B",        "L0C",
                                                         "UB", "BT", "FB",  "scalar data"};
    return (unsigned)kind < DV_MEM_KIND_COUNT ? names[kind] : "?";
}

static const dv_mem_kind path_src[DV_PATH_COUNT] = {
    DV_MEM_GM,
#define DV_PATH_ROW(id, ev, name, key, src, dst, min, v910, v910b, v310, v910b1, v910b3, doc) DV_MEM_##src,
#include "paths.def"
#undef DV_PATH_ROW
};
static const dv_mem_kind path_dst[DV_PATH_COUNT] = {
    DV_MEM_GM,
#define DV_PATH_ROW(id, ev, name, key, src, dst, min, v910, v910b, v310, v910b1, v910b3, doc) DV_MEM_##dst,
#include "paths.def"
#undef DV_PATH_ROW
};

dv_mem_kind dv_path_src(dv_path p)
{
    return (unsigned)p < DV_PATH_COUNT ? path_src[p] : DV_MEM_GM;
}

dv_mem_kind dv_path_dst(dv_path p)
{
    return (unsigned)p < DV_PATH_COUNT ? path_dst[p] : DV_MEM_GM;
}

void dv_access_fault_describe(const dv_access_fault *f, char *buf, size_t size)
{
    const char *name = dv_mem_kind_name(f->mem);
    switch (f->kind) {
    case DV_FAULT_RANGE:
        if (f->mem == DV_MEM_GM)
            snprintf(buf, size, "GM access [0x%llx, +%llu) is outside every allocated GM region",
                     (unsigned long long)f->addr, (unsigned long long)f->len);
        else
            snprintf(buf, size, "%s access [0x%llx, +%llu) is past the end of %s (%llu bytes)", name,
                     (unsigned long long)f->addr, (unsigned long long)f->len, name,
                     (unsigned long long)f->limit);
        break;
    case DV_FAULT_ALIGN:
        snprintf(buf, size, "%s access at 0x%llx is not aligned to %llu bytes", name,
                 (unsigned long long)f->addr, (unsigned long long)f->limit);
        break;
    default: snprintf(buf, size, "no fault"); break;
    }
}

dv_status dv_mem_init(dv_mem *m, dv_mem_kind kind, uint64_t size, uint64_t align, dv_error *err)
{
    m->kind = kind;
    m->size = size;
    m->align = align ? align : 1;
    m->bytes = NULL;
    if (size) {
        m->bytes = dv_zalloc((size_t)size); /* untouched pages cost nothing (dv_zalloc.h) */
        if (!m->bytes)
            return dv_error_set(err, DV_ERR_NOMEM, "cannot allocate %llu bytes for %s",
                                (unsigned long long)size, dv_mem_kind_name(kind));
    }
    return DV_OK;
}

void dv_mem_free(dv_mem *m)
{
    dv_zfree(m->bytes, (size_t)m->size);
    m->bytes = NULL;
    m->size = 0;
}

uint8_t *dv_mem_span(dv_mem *m, uint64_t addr, uint64_t len, uint64_t align, dv_access_fault *fault)
{
    if (!align)
        align = m->align;
    if (addr % align) {
        *fault = (dv_access_fault){DV_FAULT_ALIGN, m->kind, addr, len, align};
        return NULL;
    }
    if (!m->bytes || addr > m->size || len > m->size - addr) {
        *fault = (dv_access_fault){DV_FAULT_RANGE, m->kind, addr, len, m->size};
        return NULL;
    }
    return m->bytes + addr;
}

/* ---- GM ---- */

typedef struct gm_region {
    uint64_t addr, len;
    uint8_t *bytes;
} gm_region;

struct dv_gm {
    uint64_t capacity, next, allocated;
    gm_region *regions; /* sorted by addr (allocation only grows upward) */
    size_t count, cap;
    size_t last; /* index of the region that served the last access */
};

enum { GM_BASE = 0x10000, GM_ALIGN = 512 };

dv_gm *dv_gm_create(uint64_t capacity)
{
    dv_gm *gm = calloc(1, sizeof *gm);
    if (gm) {
        gm->capacity = capacity;
        gm->next = GM_BASE;
    }
    return gm;
}

void dv_gm_destroy(dv_gm *gm)
{
    if (!gm)
        return;
    for (size_t i = 0; i < gm->count; i++)
        free(gm->regions[i].bytes);
    free(gm->regions);
    free(gm);
}

dv_status dv_gm_alloc(dv_gm *gm, uint64_t len, uint64_t *addr, dv_error *err)
{
    if (len == 0)
        len = 1;
    uint64_t rounded = (len + GM_ALIGN - 1) / GM_ALIGN * GM_ALIGN;
    if (rounded < len || gm->allocated + rounded > gm->capacity || gm->next + rounded < gm->next)
        return dv_error_set(err, DV_ERR_INPUT,
                            "GM allocation of %llu bytes exceeds the chip's GM (%llu bytes)",
                            (unsigned long long)len, (unsigned long long)gm->capacity);
    if (gm->count == gm->cap) {
        size_t cap = gm->cap ? gm->cap * 2 : 16;
        gm_region *p = realloc(gm->regions, cap * sizeof *p);
        if (!p)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        gm->regions = p;
        gm->cap = cap;
    }
    uint8_t *bytes = calloc(1, (size_t)len);
    if (!bytes)
        return dv_error_set(err, DV_ERR_NOMEM, "cannot allocate %llu bytes of GM on the host",
                            (unsigned long long)len);
    gm->regions[gm->count++] = (gm_region){gm->next, len, bytes};
    *addr = gm->next;
    /* A guard gap between regions makes an overrun fault instead of landing
     * silently in the next buffer. */
    gm->next += rounded + GM_ALIGN;
    gm->allocated += rounded;
    return DV_OK;
}

uint8_t *dv_gm_span(dv_gm *gm, uint64_t addr, uint64_t len, dv_access_fault *fault)
{
    if (gm->last < gm->count) {
        gm_region *r = &gm->regions[gm->last];
        if (addr >= r->addr && addr - r->addr <= r->len && len <= r->len - (addr - r->addr))
            return r->bytes + (addr - r->addr);
    }
    size_t lo = 0, hi = gm->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (gm->regions[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0) {
        gm_region *r = &gm->regions[lo - 1];
        if (addr - r->addr <= r->len && len <= r->len - (addr - r->addr)) {
            gm->last = lo - 1;
            return r->bytes + (addr - r->addr);
        }
    }
    *fault = (dv_access_fault){DV_FAULT_RANGE, DV_MEM_GM, addr, len, 0};
    return NULL;
}

bool dv_gm_free(dv_gm *gm, uint64_t addr)
{
    for (size_t i = 0; i < gm->count; i++) {
        if (gm->regions[i].addr != addr)
            continue;
        free(gm->regions[i].bytes);
        gm->allocated -= (gm->regions[i].len + GM_ALIGN - 1) / GM_ALIGN * GM_ALIGN;
        memmove(&gm->regions[i], &gm->regions[i + 1], (gm->count - i - 1) * sizeof *gm->regions);
        gm->count--;
        gm->last = 0;
        return true;
    }
    return false;
}

uint64_t dv_gm_allocated(const dv_gm *gm)
{
    return gm->allocated;
}
