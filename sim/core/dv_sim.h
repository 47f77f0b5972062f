/* dv_sim.h - one simulation: a chip config, its GM, a kernel object, and
 * the chip's cores running the kernel's blocks.  No globals: two dv_sim
 * objects are independent.
 *
 * A launch of block_dim blocks puts block i on core i; when there are more
 * blocks than cores they run in waves: a core that finishes a block takes
 * the next one.  The cores share the event queue, GM and its bandwidth
 * server, so they contend for HBM. */
#ifndef DV_SIM_H
#define DV_SIM_H

#include "dv_core.h"

typedef struct dv_sim dv_sim;

typedef struct dv_run_result {
    dv_stop stop;               /* DONE only if every block finished */
    uint64_t cycles;            /* from the first fetch to the end of the last block */
    uint64_t launch_cycles;     /* chip.launch_cycles, before the first fetch */
    const char *message;        /* fault / deadlock description of the first core that stopped */
    const dv_core_stats *stats; /* core 0 */
    unsigned ncores;            /* cores used: min(block_dim, cores of the kernel's type) */
    uint64_t block_dim;
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
/* Number of blocks to launch (default 1). */
dv_status dv_sim_set_blocks(dv_sim *s, uint64_t block_dim, dv_error *err);
/* Runs until every block ends, a core faults or deadlocks, or max_cycles
 * (0: no limit). */
dv_status dv_sim_run(dv_sim *s, uint64_t max_cycles, dv_run_result *res, dv_error *err);
/* Host-side counters (dv_perf.h) attach themselves here; one at a time. */
struct dv_perf;
void dv_sim_attach_perf(dv_sim *s, struct dv_perf *p);

/* Core i after a run (NULL if it was not used). */
const dv_core *dv_sim_core(const dv_sim *s, unsigned i);

#endif
