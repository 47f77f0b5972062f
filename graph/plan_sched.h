/* plan_sched.h - the step DAG of a plan and its streams (plan_sched.c), and
 * the host-side layout conversions (plan_layout.c), for the graph runner
 * (plan_run.c). */
#ifndef DV_PLAN_SCHED_H
#define DV_PLAN_SCHED_H

#include "dv_plan.h"

typedef struct psched_edge {
    unsigned from, to; /* steps, from < to */
    bool reuse;        /* a GM range reused, not a value passed */
} psched_edge;

typedef struct psched {
    unsigned nsteps;
    unsigned *stream; /* per step */
    psched_edge *edge;
    unsigned nedges, data, reuse;
} psched;

/* The DAG of p's steps and their streams (0 .. nstreams-1); no_reuse leaves the reuse edges out. */
dv_status psched_build(const dv_plan *p, unsigned nstreams, bool no_reuse, psched *s, dv_error *err);
void psched_free(psched *s);

/* Plan tensor t's bytes in GM (f16 in its layout) to its logical values (row-major, t->dims) and back
 * (padding zero).  Activation layouts only: ND, ND16, NC1HWC0 (NZ and FracZ hold weights, packed at
 * compile time); another is DV_ERR_INTERNAL. */
dv_status playout_to_logical(const dv_plan_tensor *t, const uint8_t *gm, double *out, dv_error *err);
dv_status playout_from_logical(const dv_plan_tensor *t, const double *in, uint8_t *gm, dv_error *err);
int64_t playout_count(const dv_plan_tensor *t);

#endif
