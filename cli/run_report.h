/* run_report.h - what dvsim run prints after a simulation: the report,
 * the msprof-style metric groups and the PMU counters. */
#ifndef DV_RUN_REPORT_H
#define DV_RUN_REPORT_H

#include "dv_sim.h"
#include "dv_sim_perf.h"
#include "dv_stats.h"

#include <stdbool.h>

enum { RUN_CHIP = ~0u }; /* run_stat of chip.* instead of core<i>.* */

/* The value of core<i>.<suffix>, or of chip.<suffix> when i is RUN_CHIP. */
double run_stat(const dv_stat_list *l, unsigned i, const char *suffix);
void run_print_report(const dv_sim *sim, const char *kernel, const dv_run_result *res, const dv_stat_list *l);
void run_print_metrics(const dv_sim *sim, const dv_run_result *res, unsigned group);
/* --metrics GROUP,...: prints each group (print) and appends them to the
 * statistics as metrics.<Group>.chip.<metric> and
 * metrics.<Group>.core<i>.<metric>, for --json and stats.json. */
void run_metrics(const dv_sim *sim, const dv_run_result *res, const char *groups, bool print,
                 dv_stat_list *l);

/* --pmu: host-side counters over the run, optional sampling to a file. */
typedef struct pmu_ctx {
    const char *cmd; /* for messages */
    dv_perf *perf;
    dv_sample_writer *w;
    uint64_t written;
    dv_status write_err;
} pmu_ctx;

/* Opens the events of list (comma-separated) on sim and, with a period,
 * samples them into outdir/pmu.samples.gz (outdir given: run_opts_parse
 * checks).  cmd names the command in messages.  Returns an exit code. */
int run_pmu_setup(pmu_ctx *pc, const char *cmd, dv_sim *sim, const char *list, uint64_t period, uint64_t ring,
                  const char *outdir);
int run_pmu_finish(pmu_ctx *pc, bool json);

#endif
