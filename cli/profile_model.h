/* profile_model.h - the model behind the profile's three renderings
 * (profile_report.c: text, JSON, CSV): the rows by line, call or pc, their
 * waits and what released them, the per-pipe sums and the phases of the
 * critical path (profile_model.c), so that the three say the same.  For
 * cli/profile_*.c and what includes profile_report.h. */
#ifndef DV_PROFILE_MODEL_H
#define DV_PROFILE_MODEL_H

#include "dv_profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

typedef struct prof_row {
    char where[320];       /* "k.dvs:52 <- lib.inc:37", "pc 0x40", "no source line" */
    const dv_obj_line *ln; /* the first line entry of the row (NULL: none) */
    uint64_t pc;           /* the row's first instruction */
    uint64_t insns;        /* executions (fetched by the Scalar unit) */
    uint64_t pipe[DV_PIPE_COUNT];
    uint64_t cls[DV_PROF_CLASS_COUNT];
    uint64_t cost; /* every class but starved and idle */
} prof_row;

typedef struct prof_rows {
    prof_row *rows;
    size_t n;
    uint64_t total_cost;
} prof_rows;

/* A row's waits merged by flag and releaser, the costliest first (at most
 * ROW_WAITS). */
enum { ROW_WAITS = 4 };
typedef struct row_wait {
    char flag[64], rel[400];
    bool never;
    uint64_t cycles, waits;
} row_wait;
typedef struct row_waits {
    row_wait w[ROW_WAITS + 1];
    size_t n;
} row_waits;

typedef struct phase {
    uint64_t start, end; /* cycles */
    int bound;           /* the pipe with the most work */
    char text[1024];
} phase;

bool prof_costs(dv_prof_class k);
const char *prof_file_of(const dv_obj *obj, uint32_t f);
bool prof_in_scope(const dv_prof_result *r, unsigned ci, const prof_report_opts *o);
bool prof_build_rows(const dv_prof_result *r, const prof_report_opts *o, prof_rows *out);
size_t prof_rows_shown(const prof_rows *rows, const prof_report_opts *o);
void prof_source_line(const dv_obj *obj, uint32_t f, uint32_t line, char *buf, size_t size);
dv_insn prof_insn_at(const dv_obj *obj, uint64_t pc);
void prof_loc_of(const dv_obj *obj, uint64_t pc, char *buf, size_t size);
void prof_flag_name(const dv_obj *obj, uint64_t pc, char *buf, size_t size);
void prof_collect_waits(const dv_prof_result *r, const prof_report_opts *o, const prof_row *row,
                        row_waits *ws);
const char *prof_kind_name(unsigned k);
uint64_t prof_pipe_sum(const dv_prof_result *r, const prof_report_opts *o, int kind, int p, int cls,
                       unsigned *ncores);
unsigned prof_kind_count(const dv_prof_result *r, const prof_report_opts *o, int kind);
size_t prof_phases_of(const dv_prof_result *r, int kind, phase *out);

#endif
