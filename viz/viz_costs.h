/* viz_costs.h - the live view of the profile (dv_profile.h) in dvsim viz:
 * the per-line cost panel of the selected core (key l shows it in place of
 * the graphs) and the search behind key s, the next stall of the selected
 * pipe (key p picks the pipe).  No SDL here. */
#ifndef DV_VIZ_COSTS_H
#define DV_VIZ_COSTS_H

#include "viz_canvas.h"
#include "viz_model.h"

#include <stdbool.h>
#include <stdint.h>

/* The panel in the rectangle (x, y, w, h): the costliest source lines of
 * core `core` so far (cycles on every pipe but starved and idle), each with
 * its main class; `note` (may be "") on its title line. */
void viz_costs_draw(viz_canvas *c, int x, int y, int w, int h, const viz_model *m, unsigned core,
                    int sel_lane, const char *note);

/* The first stall of `lane` on core `core` that starts after `after`: a
 * pipe's blocked wait_flag, or for the Scalar unit its queue-full, flag or
 * barrier hold (FLOWCTRL).  Fills *start and what (its class and cycles);
 * false if the recorded history has none. */
bool viz_next_stall(const viz_model *m, unsigned core, int lane, uint64_t after, uint64_t *start, char *what,
                    size_t size);

#endif
