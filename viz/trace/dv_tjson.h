/* dv_tjson.h - a Chrome Trace Event file (JSON, gzip) of a run, written as
 * the simulation goes (docs/trace-and-viz.md describes the format).
 *
 * dv_tjson_create opens the output under a temporary name next to `path`;
 * the caller adds dv_tjson_hooks() to the simulation (dv_sim_add_hooks)
 * before the run, and after dv_sim_finish calls dv_tjson_finish, which
 * writes the last events and the end of the JSON document, ends the gzip
 * stream (one member) and renames the file into place.  Memory stays
 * bounded: events go through a 1 MiB buffer into zlib and to the file, with
 * a Z_SYNC_FLUSH per buffer.  A run cut short (cycle limit, Ctrl-C through
 * dv_sim_interrupt) still ends in a complete document.
 *
 * No SDL and no other I/O than the trace file. */
#ifndef DV_TJSON_H
#define DV_TJSON_H

#include "dv_hooks.h"
#include "dv_sim.h"

#include <stdint.h>

enum { DV_TJSON_DEFAULT_PERIOD = 1000 }; /* cycles per counter sample */

typedef struct dv_tjson_options {
    uint64_t window_start;   /* cycles: only what overlaps [start, end) is written */
    uint64_t window_end;     /* 0: up to the end of the run */
    uint64_t counter_period; /* cycles per counter sample; 0: DV_TJSON_DEFAULT_PERIOD */
    const char *producer;    /* "dvsim 0.1.0" (otherData.version); may be NULL */
    const char *title;       /* what ran, e.g. "matmul db f16 M=64,N=64,K=64" (otherData.run) */
} dv_tjson_options;

typedef struct dv_tjson dv_tjson;

/* DV_ERR_IO when the file cannot be created. */
dv_tjson *dv_tjson_create(const char *path, const dv_tjson_options *opt, dv_error *err);
const dv_sim_hooks *dv_tjson_hooks(dv_tjson *t);
/* Figures of the finished file, for a report line. */
typedef struct dv_tjson_totals {
    uint64_t events;     /* JSON events written */
    uint64_t slices;     /* of which X slices */
    uint64_t flows;      /* set -> wait flows (pairs of s and f events) */
    uint64_t json_bytes; /* before compression */
    uint64_t gz_bytes;   /* the file */
} dv_tjson_totals;

/* Completes the file for a finished run (res from dv_sim_finish; NULL if the
 * run could not start), fills totals (may be NULL) and frees t.  DV_ERR_IO
 * if any write failed (the partial file is removed). */
dv_status dv_tjson_finish(dv_tjson *t, const dv_run_result *res, dv_tjson_totals *totals, dv_error *err);
/* A run of several launches, each in its own simulation (an operator's
 * split-K product and reduction, an unfused conv2d), in one file: after a
 * launch ends, before its simulation goes, this closes its slices and
 * flows; the next simulation takes the hooks again (dv_sim_add_hooks) and
 * its events follow on the same time axis, from the cycle this one ended
 * (res->cycles after the cycles of the launches before).  A core keeps its
 * lanes (pid) across launches when it has the same name.  The window
 * (dv_tjson_options) is in the run's cycles.  dv_tjson_finish then ends the
 * file (its res: the last launch's; otherData.cycles: the sum). */
void dv_tjson_end_launch(dv_tjson *t, const dv_run_result *res);
/* Removes the temporary file and frees t. */
void dv_tjson_discard(dv_tjson *t);

#endif
