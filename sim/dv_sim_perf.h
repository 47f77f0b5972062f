/* dv_sim_perf.h - the performance counters (perfcounters/) over a
 * simulation: its counter source, host counter groups wired to its run
 * through the hook interface, and msprof's metric groups of a finished run. */
#ifndef DV_SIM_PERF_H
#define DV_SIM_PERF_H

#include "dv_counters.h"
#include "dv_metrics.h"
#include "dv_perf.h"
#include "dv_sim.h"

/* The simulation's events (valid as long as it is). */
const dv_counter_source *dv_sim_counters(const dv_sim *s);
/* dv_perf_open on the simulation's counters, told when its run starts,
 * reaches a sample point and ends.  Close with dv_sim_perf_close. */
dv_perf *dv_sim_perf_open(dv_sim *s, const char *const *events, unsigned n, int core, dv_error *err);
void dv_sim_perf_close(dv_sim *s, dv_perf *p);
/* Metric group g of core c (DV_METRIC_CHIP: the chip) after a run. */
void dv_sim_metrics(const dv_sim *s, const dv_run_result *res, unsigned g, unsigned c, dv_metric_row *row);

#endif
