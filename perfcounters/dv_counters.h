/* dv_counters.h - the counter-source interface: how the PMU model, the host
 * counter API and the metric groups read the events of events.def without
 * knowing what produces them.  A simulator fills one (dv_sim_counters) and
 * keeps it alive as long as something reads from it. */
#ifndef DV_COUNTERS_H
#define DV_COUNTERS_H

#include "dv_events.h"

#include <stdint.h>

typedef struct dv_counter_source {
    void *user; /* passed to every function */
    /* Cores whose events can be read (0 before a run has created them). */
    unsigned (*ncores)(void *user);
    /* The count of event e on core c: since the run started, except
     * DV_EV_CYCLES, which counts from the start of the core's current block. */
    uint64_t (*read)(void *user, unsigned core, dv_event_id e);
    /* The run's clock, in cycles. */
    uint64_t (*now)(void *user);
} dv_counter_source;

#endif
