/* viz_draw.h - the view: what one frame shows, laid out for the window's
 * size (1280 x 720 is the design size; text doubles from 2560 x 1440).
 *
 *   header     what runs, the cycle and time, the state, the speed
 *   timeline   the selected core's lanes (SCALAR .. FIXP, FLOWCTRL) over the
 *              last `span` cycles: instructions as blocks coloured by class,
 *              waits in red, set->wait flows as yellow elbows
 *   cores      one row per core, a cell per pipe shaded by its recent busy time
 *   buffers    L1, L0A, L0B, L0C, UB: bytes touched by instructions in flight
 *              (window average, with the peak marked) against the capacity
 *   graphs     per pipe busy % and per path bandwidth over recent windows
 *   source     the instruction under the mouse and its source line
 *   legend     colours and keys
 * No SDL here: drawing goes through viz_canvas.h. */
#ifndef DV_VIZ_DRAW_H
#define DV_VIZ_DRAW_H

#include "viz_canvas.h"
#include "viz_model.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct viz_view {
    /* set by the front end before each frame */
    const char *title;
    uint64_t now;        /* the simulation's cycle */
    char state[96];      /* "running", "paused", "done", "guest fault", ... */
    bool show_host_time; /* frame time on screen (off for golden frames) */
    double frame_ms;     /* the last frame's host time */
    uint64_t cycles_per_frame, step_cycles;
    int mouse_x, mouse_y; /* -1: no mouse */
    /* changed by input */
    unsigned core;   /* the selected core */
    uint64_t span;   /* cycles across the timeline */
    uint64_t end;    /* right edge of the timeline when not following */
    bool follow;     /* the right edge is the current cycle */
    bool show_costs; /* key l: the per-line cost panel in place of the graphs */
    int sel_lane;    /* key p: the pipe whose next stall key s jumps to (-1: none) */
    char note[128];  /* what the last jump found */
    /* the source line under the mouse (cached) */
    char src_key[320];
    char src_text[200];
} viz_view;

void viz_draw(viz_canvas *c, int w, int h, const viz_model *m, viz_view *v);

/* Hit tests for input, in window pixels: the core of the overview row at
 * (x, y) (-1 if none); the cycle under x if (x, y) is in the timeline. */
int viz_core_at(const viz_canvas *c, int w, int h, const viz_model *m, int x, int y);
bool viz_cycle_at(const viz_canvas *c, int w, int h, const viz_view *v, int x, int y, uint64_t *cycle);
/* The timeline's plot width in pixels (for panning by pixels). */
int viz_plot_width(const viz_canvas *c, int w, int h);

#endif
