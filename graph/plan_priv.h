/* plan_priv.h - the plan runners' shared state (plan_ref.c, plan_exec.c). */
#ifndef DV_PLAN_PRIV_H
#define DV_PLAN_PRIV_H

#include "dv_graph_ref.h"
#include "dv_plan.h"

typedef struct pref {
    const dv_plan *p;
    dv_graph *v;    /* the compiled graph with the values computed so far */
    int *producer;  /* graph tensor -> node */
    bool *has_step; /* node -> some step computes it */
    double **pv;    /* plan tensor -> its values when it holds no graph tensor (a step's intermediate) */
    dv_error *err;
} pref;

typedef dv_status (*pref_step_fn)(pref *r, const dv_plan_step *s);

/* Graph tensor t's value, computing it if its producer has no step (a shared-buffer reshape). */
dv_status pref_ensure(pref *r, int t, unsigned depth);
/* A step by the reference of the nodes it covers. */
dv_status pref_nodes(pref *r, const dv_plan_step *s);
/* The steps in order through step_fn (NULL: pref_nodes). */
dv_status pref_run(const dv_plan *p, const dv_gtensor *inputs, unsigned ninputs, dv_graph **values,
                   dv_error *err, pref_step_fn step_fn);
/* A permute step from its parameters (plan_copy.c); y keeps what it holds outside the window. */
dv_status plan_exec_permute(pref *r, const dv_plan_step *s, double *const *in);

#endif
