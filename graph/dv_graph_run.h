/* dv_graph_run.h - a compiled plan run on the simulated chip through the
 * host runtime (runtime/dv_rt.h): `dvsim graph` (docs/graphs.md).
 *
 * The runner opens a device on the plan's chip, allocates the weights and
 * the activation region in its GM, copies the weights once at their plan
 * offsets and the inputs (f16, ND) at theirs, and enqueues every step:
 *   DEVICE  dv_rt_launch_op with the step's plan tensors bound by the
 *           operator's tensor names at their GM addresses;
 *   HOST    a host callback: its inputs read from GM (layout -> logical),
 *           its nodes computed by the graph's reference, its outputs
 *           written back (logical -> layout); 0 simulated cycles;
 *   LAYOUT  a host callback moving the bytes into the other layout;
 *           0 simulated cycles, its cost the compiler's (cost_cycles: the
 *           GM bytes at the HBM rate), reported apart.
 * Steps go on N streams by list scheduling over the step DAG (plan_sched.c):
 * an edge for every data dependency and for every reuse of a GM range the
 * memory plan made (a step writing a range waits for the last readers and
 * writers of the tensor that lived there before); a cross-stream edge is an
 * event record -> wait.  The runtime's race check is on: a run must have
 * none. */
#ifndef DV_GRAPH_RUN_H
#define DV_GRAPH_RUN_H

#include "dv_plan.h"
#include "dv_rt.h"

struct dv_graph_run_result;

typedef struct dv_graph_run_opts {
    unsigned streams;    /* 1 .. DV_RT_MAX_STREAMS (0: 1) */
    bool timing_only;    /* no data: no values, nothing to check (host steps then move nothing) */
    bool no_reuse_edges; /* tests only: leave out the reuse edges (the race check must see it) */
    /* Called once the device is open, before the first launch (a trace's observer), or NULL. */
    dv_status (*on_open)(void *user, dv_rt_device *d, dv_error *err);
    /* Called after the run with its figures, before the device closes (the trace's lanes from its
     * records), or NULL. */
    dv_status (*on_done)(void *user, dv_rt_device *d, const struct dv_graph_run_result *res, dv_error *err);
    void *user;
} dv_graph_run_opts;

typedef struct dv_graph_step_run {
    unsigned stream;
    unsigned first_record, nrecords; /* device steps: their launches' records */
    uint64_t start, end;             /* simulated cycles: the first launch's start to the last's end; host
                                      * and layout steps: the cycle their callback ran (start == end) */
    dv_coreset cores;                /* the AI cores its launches ran on */
    uint64_t gm_bytes;               /* device: bytes its launches moved between GM and the cores; host and
                                      * layout: the bytes the host read and wrote */
    bool has_roofline;
    dv_opr_roofline roofline; /* device steps: the operator's (dv_rt_record) */
} dv_graph_step_run;

typedef struct dv_graph_run_result {
    unsigned nsteps;
    dv_graph_step_run *step;
    uint64_t cycles;                          /* end to end: the device's cycle when every stream had ended */
    double layout_cycles;                     /* the layout steps' cost (the compiler's), not in cycles */
    unsigned launches;                        /* kernel launches (records) */
    uint64_t gm_bytes;                        /* every launch's GM bytes, plus the host steps' */
    unsigned edges_data, edges_reuse, events; /* the schedule's */
    unsigned nraces;
    dv_rt_race first_race;
    unsigned noutputs;
    dv_gtensor
        *outputs; /* logical values read back (names borrowed from the plan); data NULL if timing only */
} dv_graph_run_result;

/* Runs p on inputs (in the graph's input order; shapes as planned).  A step
 * the device refuses, a launch that faults or a host step that fails is an
 * error naming the step.  A .dvm's plan (no graph) runs when it has no host
 * step. */
dv_status dv_graph_run(const dv_plan *p, const dv_gtensor *inputs, unsigned ninputs,
                       const dv_graph_run_opts *opt, dv_graph_run_result **out, dv_error *err);
void dv_graph_run_free(dv_graph_run_result *r);

/* The plan tensors that are the graph's inputs and outputs, in order (*n of them; NULL when memory ran
 * out). */
int *dv_plan_inputs(const dv_plan *p, unsigned *n);
int *dv_plan_outputs(const dv_plan *p, unsigned *n);

#endif
