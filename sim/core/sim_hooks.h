/* sim_hooks.h - storage for the observers that glue in sim/ adds to a
 * simulation (sim_perf.c's counter groups). */
#ifndef DV_SIM_HOOKS_H
#define DV_SIM_HOOKS_H

#include "dv_sim.h"

/* Room for one dv_sim_hooks that lives as long as the simulation (NULL if
 * every slot is taken); the caller fills it and adds it. */
dv_sim_hooks *sim_hooks_slot(dv_sim *s);

#endif
