/* dv_metrics.h - msprof op's metric groups (facts #84-#90), computed from the
 * event catalogue for each core and for the chip. */
#ifndef DV_METRICS_H
#define DV_METRICS_H

#include "dv_sim.h"

enum { DV_METRIC_MAX = 24 };

typedef struct dv_metric_row {
    unsigned n;
    const char *name[DV_METRIC_MAX];
    const char *unit[DV_METRIC_MAX];
    double value[DV_METRIC_MAX];
} dv_metric_row;

/* The group names: PipeUtilization, ArithmeticUtilization, Memory, MemoryL0,
 * MemoryUB, ResourceConflictRatio, L2Cache. */
unsigned dv_metric_group_count(void);
const char *dv_metric_group_name(unsigned g);
/* Index of a group by name (case-insensitive), or -1. */
int dv_metric_group_find(const char *name);

/* Group g for core c after a run (c = UINT32_MAX: the whole chip). */
void dv_metrics_compute(const dv_sim *sim, const dv_run_result *res, unsigned g, unsigned c,
                        dv_metric_row *row);

#endif
