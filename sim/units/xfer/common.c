/* common.c - helpers of the xfer units: parameter unpacking, checked buffer
 * access and parameter faults (see xfer.h). */
#include "xfer.h"

#include <stdarg.h>
#include <stdio.h>

void xf_unpack(dv_layout_id id, uint64_t word, uint64_t out[DV_LAYOUT_MAX_FIELDS])
{
    const dv_layout *l = dv_layout_get(id);
    for (unsigned i = 0; i < DV_LAYOUT_MAX_FIELDS; i++)
        out[i] = i < l->nfields ? dv_lfield_get(&l->fields[i], word) : 0;
}

bool xf_fail(dv_unit_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->fault_msg, sizeof c->fault_msg, fmt, ap);
    va_end(ap);
    c->fault.kind = DV_FAULT_NONE;
    return false;
}

uint64_t xf_align(const dv_chip_config *cfg, dv_mem_kind kind)
{
    switch (kind) {
    case DV_MEM_UB: return cfg->align_ub;
    case DV_MEM_L1: return cfg->align_l1;
    case DV_MEM_L0A:
    case DV_MEM_L0B: return cfg->align_l0ab;
    case DV_MEM_L0C: return cfg->align_l0c;
    default: return 0;
    }
}

uint8_t *xf_span(dv_unit_ctx *c, dv_mem_kind kind, uint64_t addr, uint64_t len, uint64_t align)
{
    if (kind == DV_MEM_GM)
        return dv_gm_span(c->gm, addr, len, &c->fault);
    return dv_mem_span(&c->mem[kind], addr, len, align, &c->fault);
}
