/* dv_perf.h - the host's view of the performance counters, shaped like
 * perf_event / PAPI: open a group of events by name on one core or on every
 * core of a run, enable, disable, reset, read (value, time enabled, time
 * running), and sample every P cycles into a bounded ring per core.
 *
 * A group reads its events from a counter source (dv_counters.h) and knows
 * nothing of what runs: the simulator tells it when the run's cores exist
 * (dv_perf_start) and when a sample point comes (dv_perf_take_samples, also
 * at the last cycle of a finished run that falls on one); dv_sim_perf_open
 * (dv_sim_perf.h) wires that up.
 *
 * Every event can be counted at once (there is no multiplexing), so time
 * running always equals time enabled. */
#ifndef DV_PERF_H
#define DV_PERF_H

#include "dv_counters.h"
#include "dv_samples.h"

typedef struct dv_perf dv_perf;

typedef struct dv_perf_value {
    uint64_t value;
    uint64_t time_enabled; /* cycles */
    uint64_t time_running; /* cycles */
} dv_perf_value;

/* Opens a group of n events (names from `dvsim counters`) on core `core` or
 * on every core (core = -1) of src, which must outlive the group.  The group
 * starts disabled.  DV_ERR_USAGE names an unknown event. */
dv_perf *dv_perf_open(const dv_counter_source *src, const char *const *events, unsigned n, int core,
                      dv_error *err);
void dv_perf_close(dv_perf *p);
unsigned dv_perf_count(const dv_perf *p);
dv_event_id dv_perf_event(const dv_perf *p, unsigned i);

void dv_perf_enable(dv_perf *p);
void dv_perf_disable(dv_perf *p);
void dv_perf_reset(dv_perf *p);
/* Event i of the group on core c (DV_ERR_USAGE if the core is not counted). */
dv_status dv_perf_read(const dv_perf *p, unsigned core, unsigned i, dv_perf_value *v, dv_error *err);

/* Samples every `period` cycles (and at the end of the run if it falls on a
 * multiple) into a ring of ring_records per core.  on_sample, if set, runs
 * after each round of samples (to drain the rings). */
dv_status dv_perf_sample(dv_perf *p, uint64_t period, size_t ring_records,
                         void (*on_sample)(dv_perf *, void *), void *user, dv_error *err);
/* The sampling period in cycles (0: not sampling). */
uint64_t dv_perf_period(const dv_perf *p);
/* The ring of core c (NULL before the run or if c is not counted). */
dv_sample_ring *dv_perf_ring(dv_perf *p, unsigned core);

/* From the simulator: the run has created its cores; a sample point at
 * `cycle`. */
dv_status dv_perf_start(dv_perf *p, dv_error *err);
void dv_perf_take_samples(dv_perf *p, uint64_t cycle);

#endif
