/* core_pmu.c - the device PMU behind the PMU CSRs (isa_csr.def).
 *
 * Counters are computed, not ticked: an enabled counter's value is what it
 * had accumulated plus its event's growth since it was last (re)started, so
 * reads while running never go back and a disabled counter does not move.
 * Overflow: a counter whose value reaches its threshold (pmevthr, 0 = none)
 * sets its pmovsr bit, checked whenever the PMU is read or written; the
 * counter keeps counting.  Writing 1 to a pmovsr bit clears it. */
#include "core_internal.h"
#include "dv_events.h"

#include <stdio.h>

static bool counting(const dv_core *c, unsigned i)
{
    unsigned bit = i == DV_PMU_COUNTERS ? DV_PMU_CYCLE_BIT : i;
    return (c->pmu.pmcr & 1) && (c->pmu.enabled >> bit & 1);
}

static uint64_t event_of(const dv_core *c, unsigned i)
{
    return i == DV_PMU_COUNTERS ? core_event_value(c, DV_EV_CYCLES)
                                : core_event_value(c, (unsigned)c->pmu.evtype[i]);
}

static uint64_t value(const dv_core *c, unsigned i)
{
    return c->pmu.acc[i] + (counting(c, i) ? event_of(c, i) - c->pmu.base[i] : 0);
}

/* Edge-triggered: the status bit is set once when a counter reaches its
 * threshold; it is set again only after the counter went below it (reset,
 * write) and reached it anew. */
static void check_overflow(dv_core *c)
{
    for (unsigned i = 0; i < DV_PMU_COUNTERS; i++) {
        uint32_t bit = 1u << i;
        if (c->pmu.threshold[i] && value(c, i) >= c->pmu.threshold[i]) {
            if (!(c->pmu.fired & bit))
                c->pmu.overflow |= bit;
            c->pmu.fired |= bit;
        } else {
            c->pmu.fired &= ~bit;
        }
    }
}

/* Folds the running part into acc before a change of what or whether a
 * counter counts, and restarts it from the event's current value. */
static void fold_all(dv_core *c)
{
    for (unsigned i = 0; i <= DV_PMU_COUNTERS; i++) {
        c->pmu.acc[i] = value(c, i);
        c->pmu.base[i] = event_of(c, i);
    }
}

static void refresh_bases(dv_core *c)
{
    for (unsigned i = 0; i <= DV_PMU_COUNTERS; i++)
        c->pmu.base[i] = event_of(c, i);
}

bool core_pmu_read(dv_core *c, unsigned csr, uint64_t *v)
{
    check_overflow(c);
    switch (csr) {
    case DV_CSR_PMCR: *v = c->pmu.pmcr; return true;
    case DV_CSR_PMCNTENSET:
    case DV_CSR_PMCNTENCLR: *v = c->pmu.enabled; return true;
    case DV_CSR_PMOVSR: *v = c->pmu.overflow; return true;
    case DV_CSR_PMCCNTR: *v = value(c, DV_PMU_COUNTERS); return true;
    default: break;
    }
    if (csr >= DV_CSR_PMEVTYPER0 && csr < DV_CSR_PMEVTYPER0 + DV_PMU_COUNTERS)
        *v = c->pmu.evtype[csr - DV_CSR_PMEVTYPER0];
    else if (csr >= DV_CSR_PMEVCNTR0 && csr < DV_CSR_PMEVCNTR0 + DV_PMU_COUNTERS)
        *v = value(c, csr - DV_CSR_PMEVCNTR0);
    else if (csr >= DV_CSR_PMEVTHR0 && csr < DV_CSR_PMEVTHR0 + DV_PMU_COUNTERS)
        *v = c->pmu.threshold[csr - DV_CSR_PMEVTHR0];
    else
        return false;
    return true;
}

bool core_pmu_write(dv_core *c, unsigned csr, uint64_t v, char *why, size_t size)
{
    check_overflow(c);
    fold_all(c);
    const uint32_t valid = ((1u << DV_PMU_COUNTERS) - 1) | (1u << DV_PMU_CYCLE_BIT);
    switch (csr) {
    case DV_CSR_PMCR:
        c->pmu.pmcr = v & 1;
        if (v & 2) /* P: reset the event counters */
            for (unsigned i = 0; i < DV_PMU_COUNTERS; i++)
                c->pmu.acc[i] = 0;
        if (v & 4) /* C: reset the cycle counter */
            c->pmu.acc[DV_PMU_COUNTERS] = 0;
        break;
    case DV_CSR_PMCNTENSET: c->pmu.enabled |= (uint32_t)v & valid; break;
    case DV_CSR_PMCNTENCLR: c->pmu.enabled &= ~((uint32_t)v & valid); break;
    case DV_CSR_PMOVSR: c->pmu.overflow &= ~(uint32_t)v; break;
    case DV_CSR_PMCCNTR: c->pmu.acc[DV_PMU_COUNTERS] = v; break;
    default:
        if (csr >= DV_CSR_PMEVTYPER0 && csr < DV_CSR_PMEVTYPER0 + DV_PMU_COUNTERS) {
            if (v >= DV_EV_COUNT) {
                snprintf(why, size, "event %llu does not exist (0..%d, see `dvsim counters`)",
                         (unsigned long long)v, DV_EV_COUNT - 1);
                return false;
            }
            c->pmu.evtype[csr - DV_CSR_PMEVTYPER0] = v;
        } else if (csr >= DV_CSR_PMEVCNTR0 && csr < DV_CSR_PMEVCNTR0 + DV_PMU_COUNTERS) {
            c->pmu.acc[csr - DV_CSR_PMEVCNTR0] = v;
        } else if (csr >= DV_CSR_PMEVTHR0 && csr < DV_CSR_PMEVTHR0 + DV_PMU_COUNTERS) {
            c->pmu.threshold[csr - DV_CSR_PMEVTHR0] = v;
        } else {
            snprintf(why, size, "not writable");
            return false;
        }
    }
    refresh_bases(c);
    return true;
}
