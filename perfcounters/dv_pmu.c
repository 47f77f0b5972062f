/* dv_pmu.c - the device PMU behind the PMU CSRs (see dv_pmu.h).
 * Overflow: a counter whose value reaches its threshold (pmevthr, 0 = none)
 * sets its pmovsr bit, checked whenever the PMU is read or written; the
 * counter keeps counting.  Writing 1 to a pmovsr bit clears it. */
#include "dv_pmu.h"

#include <stdio.h>
#include <string.h>

void dv_pmu_init(dv_pmu *p, const dv_counter_source *src, unsigned core)
{
    memset(p, 0, sizeof *p);
    p->src = src;
    p->core = core;
}

static bool counting(const dv_pmu *p, unsigned i)
{
    unsigned bit = i == DV_PMU_COUNTERS ? DV_PMU_CYCLE_BIT : i;
    return (p->pmcr & 1) && (p->enabled >> bit & 1);
}

static uint64_t event_of(const dv_pmu *p, unsigned i)
{
    dv_event_id e = i == DV_PMU_COUNTERS ? DV_EV_CYCLES : (dv_event_id)p->evtype[i];
    return p->src ? p->src->read(p->src->user, p->core, e) : 0;
}

static uint64_t value(const dv_pmu *p, unsigned i)
{
    return p->acc[i] + (counting(p, i) ? event_of(p, i) - p->base[i] : 0);
}

/* Edge-triggered: the status bit is set once when a counter reaches its
 * threshold; it is set again only after the counter went below it (reset,
 * write) and reached it anew. */
static void check_overflow(dv_pmu *p)
{
    for (unsigned i = 0; i < DV_PMU_COUNTERS; i++) {
        uint32_t bit = 1u << i;
        if (p->threshold[i] && value(p, i) >= p->threshold[i]) {
            if (!(p->fired & bit))
                p->overflow |= bit;
            p->fired |= bit;
        } else {
            p->fired &= ~bit;
        }
    }
}

/* Folds the running part into acc before a change of what or whether a
 * counter counts, and restarts it from the event's current value. */
static void fold_all(dv_pmu *p)
{
    for (unsigned i = 0; i <= DV_PMU_COUNTERS; i++) {
        p->acc[i] = value(p, i);
        p->base[i] = event_of(p, i);
    }
}

static void refresh_bases(dv_pmu *p)
{
    for (unsigned i = 0; i <= DV_PMU_COUNTERS; i++)
        p->base[i] = event_of(p, i);
}

bool dv_pmu_read(dv_pmu *p, unsigned csr, uint64_t *v)
{
    check_overflow(p);
    switch (csr) {
    case DV_CSR_PMCR: *v = p->pmcr; return true;
    case DV_CSR_PMCNTENSET:
    case DV_CSR_PMCNTENCLR: *v = p->enabled; return true;
    case DV_CSR_PMOVSR: *v = p->overflow; return true;
    case DV_CSR_PMCCNTR: *v = value(p, DV_PMU_COUNTERS); return true;
    default: break;
    }
    if (csr >= DV_CSR_PMEVTYPER0 && csr < DV_CSR_PMEVTYPER0 + DV_PMU_COUNTERS)
        *v = p->evtype[csr - DV_CSR_PMEVTYPER0];
    else if (csr >= DV_CSR_PMEVCNTR0 && csr < DV_CSR_PMEVCNTR0 + DV_PMU_COUNTERS)
        *v = value(p, csr - DV_CSR_PMEVCNTR0);
    else if (csr >= DV_CSR_PMEVTHR0 && csr < DV_CSR_PMEVTHR0 + DV_PMU_COUNTERS)
        *v = p->threshold[csr - DV_CSR_PMEVTHR0];
    else
        return false;
    return true;
}

/* The event-select, counter and threshold registers. */
static bool write_counter_csr(dv_pmu *p, unsigned csr, uint64_t v, char *why, size_t size)
{
    if (csr >= DV_CSR_PMEVTYPER0 && csr < DV_CSR_PMEVTYPER0 + DV_PMU_COUNTERS) {
        if (v >= DV_EV_COUNT) {
            snprintf(why, size, "event %llu does not exist (0..%d, see `dvsim counters`)",
                     (unsigned long long)v, DV_EV_COUNT - 1);
            return false;
        }
        p->evtype[csr - DV_CSR_PMEVTYPER0] = v;
    } else if (csr >= DV_CSR_PMEVCNTR0 && csr < DV_CSR_PMEVCNTR0 + DV_PMU_COUNTERS) {
        p->acc[csr - DV_CSR_PMEVCNTR0] = v;
    } else if (csr >= DV_CSR_PMEVTHR0 && csr < DV_CSR_PMEVTHR0 + DV_PMU_COUNTERS) {
        p->threshold[csr - DV_CSR_PMEVTHR0] = v;
    } else {
        snprintf(why, size, "not writable");
        return false;
    }
    return true;
}

bool dv_pmu_write(dv_pmu *p, unsigned csr, uint64_t v, char *why, size_t size)
{
    check_overflow(p);
    fold_all(p);
    const uint32_t valid = ((1u << DV_PMU_COUNTERS) - 1) | (1u << DV_PMU_CYCLE_BIT);
    switch (csr) {
    case DV_CSR_PMCR:
        p->pmcr = v & 1;
        if (v & 2) /* P: reset the event counters */
            for (unsigned i = 0; i < DV_PMU_COUNTERS; i++)
                p->acc[i] = 0;
        if (v & 4) /* C: reset the cycle counter */
            p->acc[DV_PMU_COUNTERS] = 0;
        break;
    case DV_CSR_PMCNTENSET: p->enabled |= (uint32_t)v & valid; break;
    case DV_CSR_PMCNTENCLR: p->enabled &= ~((uint32_t)v & valid); break;
    case DV_CSR_PMOVSR: p->overflow &= ~(uint32_t)v; break;
    case DV_CSR_PMCCNTR: p->acc[DV_PMU_COUNTERS] = v; break;
    default:
        if (!write_counter_csr(p, csr, v, why, size))
            return false;
    }
    refresh_bases(p);
    return true;
}
