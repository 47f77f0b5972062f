/* profile_report.h - a run's profile (dv_profile.h) as people read it: the
 * per-pipe classes, source lines (or calling lines, or instructions) by
 * cost with their stall classes and what released their waits, the
 * critical path in words; one model rendered as text, JSON and CSV so that
 * the three say the same.  docs/profiling.md describes the output. */
#ifndef DV_PROFILE_REPORT_H
#define DV_PROFILE_REPORT_H

#include "dv_profile.h"
#include "profile_model.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

void prof_print_text(FILE *out, const dv_sim *sim, const dv_prof_result *r, const prof_report_opts *o,
                     const char *title);
/* NULL when memory runs out. */
cJSON *prof_json(const dv_sim *sim, const dv_prof_result *r, const prof_report_opts *o, const char *title);
void prof_print_csv(FILE *out, const dv_sim *sim, const dv_prof_result *r, const prof_report_opts *o);

#endif
