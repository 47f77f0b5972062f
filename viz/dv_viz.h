/* dv_viz.h - dvsim viz: the live window (or headless PNG frames) of a run.
 *
 * The front end records the run through the simulator's hooks
 * (dv_hooks.h, added with dv_sim_add_hooks) and takes over between slices
 * of simulated time through their pace member: each frame the simulation advances a bounded number of cycles
 * (and, in a window, at most budget_ms of host time), then the view is
 * drawn from what was recorded (viz_draw.h).  The simulation never depends
 * on frame timing: pausing, stepping and the speed change only when the
 * slices end.  Closing the window (or reaching `frames` headless) stops the
 * run at the next event, as Ctrl-C does.
 *
 * Headless, the frames are drawn by SDL's software renderer into a surface
 * (no display needed); the same cycles per frame give the same pixels. */
#ifndef DV_VIZ_H
#define DV_VIZ_H

#include "dv_sim.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct dv_viz_options {
    bool headless;
    unsigned frames;           /* headless: frames to draw (0: until the run ends) */
    const char *png;           /* headless: the last frame as a PNG (may be NULL) */
    unsigned width, height;    /* default 1280 x 720 */
    uint64_t cycles_per_frame; /* default 1000 */
    double budget_ms;     /* host time for simulating per frame; 0: none (headless default; a window: 8) */
    unsigned core;        /* the core shown first */
    uint64_t span;        /* cycles across the timeline (default 4000) */
    uint64_t period;      /* cycles per counter window (default 200) */
    int hover_x, hover_y; /* headless: a pointer position (-1: none), for screenshots */
    bool frame_stats;     /* print frame-time percentiles at the end */
    bool paused;          /* start paused (a window) */
    const char *keys;     /* headless: keys pressed one per frame, "space,n,c,q" (tests) */
    bool frame_log;       /* print a line per frame: cycle, state, instructions seen */
} dv_viz_options;

void dv_viz_defaults(dv_viz_options *o);

typedef struct dv_viz dv_viz;

/* Opens the window (or the headless surface). */
dv_viz *dv_viz_create(const dv_viz_options *o, dv_error *err);
/* Attaches to a simulation before its run (adds its hooks, the pacing one). */
dv_status dv_viz_attach(dv_viz *v, dv_sim *sim, const char *title, dv_error *err);
/* After the run: a window shows the end until it is closed (unless the run
 * was stopped from it); headless draws the final frame and writes the PNG.
 * Prints the frame-time line when asked. */
dv_status dv_viz_end(dv_viz *v, const dv_run_result *res, dv_error *err);
void dv_viz_destroy(dv_viz *v);

#endif
