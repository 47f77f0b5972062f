/* dv_stats.h - the statistics of a run as named values: each with a
 * hierarchical dotted name ("core0.cube.busy_cycles"), a unit and a
 * description, in a stable order.  Reports, stats.json and (later) the
 * regression baseline all read this one list. */
#ifndef DV_STATS_H
#define DV_STATS_H

#include "dv_buf.h"
#include "dv_sim.h"

#include <stddef.h>

typedef struct dv_stat {
    char name[64];
    const char *unit;
    const char *desc;
    double value;
    bool integer;
} dv_stat;

typedef struct dv_stat_list {
    dv_stat *items;
    size_t count, cap;
} dv_stat_list;

/* Builds the list for a finished run: chip.* roll-ups, then core<i>.* for
 * every core that ran blocks. */
dv_status dv_stats_collect(const dv_sim *sim, const dv_run_result *res, dv_stat_list *out, dv_error *err);
/* Appends a value (unit and desc must outlive the list: string literals). */
void dv_stats_add(dv_stat_list *l, const char *unit, const char *desc, double v, bool integer,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void dv_stats_free(dv_stat_list *l);
const dv_stat *dv_stats_find(const dv_stat_list *l, const char *name);
/* Appends the list as one JSON object (written by cJSON, so every name and
 * text is escaped), in the list's order, and a newline:
 *   {"name": {"value": v, "unit": "...", "desc": "..."}, ...}
 * Integer statistics print every digit; the others 6 significant digits, so
 * the same run gives the same bytes.  DV_ERR_NOMEM if memory runs out. */
dv_status dv_stats_json(const dv_stat_list *l, dv_buf *out);

#endif
