/* dv_sim.h - one simulation: a chip config, its GM, a kernel object, and a
 * core running one kernel.  No globals: two dv_sim objects are independent.
 * (The chip issue grows this into many cores sharing L2 and HBM.) */
#ifndef DV_SIM_H
#define DV_SIM_H

#include "dv_core.h"

typedef struct dv_sim dv_sim;

typedef struct dv_run_result {
    dv_stop stop;
    uint64_t cycles;     /* cycle the core finished or stopped */
    const char *message; /* fault / deadlock description (owned by the sim) */
    const dv_core_stats *stats;
} dv_run_result;

/* data = false: timing only (no arithmetic; same cycles for kernels whose
 * control flow does not depend on data). */
dv_sim *dv_sim_create(const dv_chip_config *cfg, bool data, dv_error *err);
void dv_sim_destroy(dv_sim *s);
const dv_chip_config *dv_sim_config(const dv_sim *s);
dv_gm *dv_sim_gm(dv_sim *s);

/* Chooses the kernel to run (NULL: the object's only kernel). */
dv_status dv_sim_load(dv_sim *s, const dv_obj *obj, const char *kernel, dv_error *err);
const dv_obj_kernel *dv_sim_kernel(const dv_sim *s);
/* Sets argument i (register a_i) before the run. */
dv_status dv_sim_set_arg(dv_sim *s, unsigned index, uint64_t value, dv_error *err);
/* Runs until the kernel ends, faults, deadlocks or reaches max_cycles (0: no limit). */
dv_status dv_sim_run(dv_sim *s, uint64_t max_cycles, dv_run_result *res, dv_error *err);
const dv_core *dv_sim_core(const dv_sim *s);

#endif
