/* graph_report.h - dvsim graph's report (graph_report.c): the per-step
 * table, the totals and the check, as text or JSON. */
#ifndef DV_GRAPH_REPORT_H
#define DV_GRAPH_REPORT_H

#include "cli.h"
#include "dv_graph_run.h"

/* The outputs against the reference. */
typedef struct graph_check {
    bool done;           /* false: timing only, or a .dvm (no graph to run the reference on) */
    const char *why_not; /* when not done */
    uint64_t compared, mismatches;
    double max_abs, max_rel; /* max_rel over elements with |want| above the absolute floor */
    char first_bad[160];
    char rule[160];
} graph_check;

typedef struct graph_report {
    const char *model;
    const dv_plan *p;
    const dv_chip_config *cfg;
    const dv_graph_run_result *res;
    unsigned streams;
    int64_t batch;
    const char *inputs; /* where the inputs came from */
    graph_check check;
} graph_report;

void graph_report_print(const graph_report *r);
int graph_report_json(const graph_report *r);

#endif
