/* dv_pmu.h - the device PMU of one core, modelled on the Arm PMU and
 * reached by kernels through the CSRs of isa/isa_csr.def: a cycle counter
 * and DV_PMU_COUNTERS programmable counters with event select, enable
 * set/clear, overflow status and an overflow threshold.
 *
 * Counters are computed, not ticked: an enabled counter's value is what it
 * had accumulated plus its event's growth since it was last (re)started, so
 * reads while running never go back and a disabled counter does not move.
 * The events come from a counter source (dv_counters.h), read for the
 * PMU's own core. */
#ifndef DV_PMU_H
#define DV_PMU_H

#include "dv_counters.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { DV_PMU_COUNTERS = 8, DV_PMU_CYCLE_BIT = 31 };

typedef struct dv_pmu {
    uint64_t pmcr;     /* bit 0 E (enable all) */
    uint32_t enabled;  /* bits 0..7 event counters, bit 31 the cycle counter */
    uint32_t overflow; /* sticky: a counter reached its threshold */
    uint32_t fired;    /* counters at or above their threshold (edge detection) */
    uint64_t evtype[DV_PMU_COUNTERS], threshold[DV_PMU_COUNTERS];
    uint64_t acc[DV_PMU_COUNTERS + 1], base[DV_PMU_COUNTERS + 1]; /* [8] = cycle counter */
    const dv_counter_source *src;                                 /* where the events come from */
    unsigned core;                                                /* the core of src this PMU counts */
} dv_pmu;

/* A cleared PMU (everything off) counting core `core` of src. */
void dv_pmu_init(dv_pmu *p, const dv_counter_source *src, unsigned core);
/* A CSR read: false if csr is not a PMU register. */
bool dv_pmu_read(dv_pmu *p, unsigned csr, uint64_t *v);
/* A CSR write: false if the register is not writable or the value is
 * refused (why says so, e.g. an event number that does not exist). */
bool dv_pmu_write(dv_pmu *p, unsigned csr, uint64_t v, char *why, size_t size);

#endif
