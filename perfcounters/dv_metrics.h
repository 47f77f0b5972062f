/* dv_metrics.h - msprof op's metric groups (facts #84-#90), computed from
 * the event catalogue of a counter source for each core and for the chip. */
#ifndef DV_METRICS_H
#define DV_METRICS_H

#include "dv_counters.h"

enum { DV_METRIC_MAX = 24, DV_METRIC_CHIP = UINT32_MAX };

typedef struct dv_metric_row {
    unsigned n;
    const char *name[DV_METRIC_MAX];
    const char *unit[DV_METRIC_MAX];
    double value[DV_METRIC_MAX];
} dv_metric_row;

/* What the ratios and bandwidths are taken over. */
typedef struct dv_metric_run {
    unsigned ncores;       /* cores of the run (the chip row sums them) */
    uint64_t cycles;       /* the run's cycles */
    double clock_hz;       /* the chip clock */
    double peak_macs_fp16; /* Cube MACs per cycle per core at fp16 */
    double peak_macs_int8; /* and at int8 */
} dv_metric_run;

/* The group names: PipeUtilization, ArithmeticUtilization, Memory, MemoryL0,
 * MemoryUB, ResourceConflictRatio, L2Cache. */
unsigned dv_metric_group_count(void);
const char *dv_metric_group_name(unsigned g);
/* Index of a group by name (case-insensitive), or -1. */
int dv_metric_group_find(const char *name);

/* Group g for core c of src (c = DV_METRIC_CHIP: the whole chip). */
void dv_metrics_compute(const dv_counter_source *src, const dv_metric_run *run, unsigned g, unsigned c,
                        dv_metric_row *row);

#endif
