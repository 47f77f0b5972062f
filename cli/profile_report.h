/* profile_report.h - a run's profile (dv_profile.h) as people read it: the
 * per-pipe classes, source lines (or calling lines, or instructions) by
 * cost with their stall classes and what released their waits, the
 * critical path in words; one model rendered as text, JSON and CSV so that
 * the three say the same.  docs/profiling.md describes the output. */
#ifndef DV_PROFILE_REPORT_H
#define DV_PROFILE_REPORT_H

#include "dv_profile.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

typedef enum prof_group { PROF_BY_LINE, PROF_BY_CALL, PROF_BY_PC } prof_group;

typedef struct prof_report_opts {
    prof_group by;
    unsigned top;   /* rows listed (0: all) */
    int core;       /* -1: every core summed */
    int kind;       /* a dv_core_kind: only the cores of that kind (a mix kernel's AIC or AIV); -1: all */
    bool no_source; /* no source text under each row */
} prof_report_opts;

/* Checks that the classes add up (dv_profile.h) against the cores'
 * statistics: false with the first mismatch in why. */
bool prof_check_sums(const dv_sim *sim, const dv_prof_result *r, char *why, size_t size);

void prof_print_text(FILE *out, const dv_sim *sim, const dv_prof_result *r, const prof_report_opts *o,
                     const char *title);
/* NULL when memory runs out. */
cJSON *prof_json(const dv_sim *sim, const dv_prof_result *r, const prof_report_opts *o, const char *title);
void prof_print_csv(FILE *out, const dv_sim *sim, const dv_prof_result *r, const prof_report_opts *o);

#endif
