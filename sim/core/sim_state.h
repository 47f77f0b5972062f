/* sim_state.h - a simulation's state (struct dv_sim), shared by sim.c (the
 * one-kernel launch and the observers) and launch.c (several kernels on the
 * chip at once).  Private to sim/core. */
#ifndef DV_SIM_STATE_H
#define DV_SIM_STATE_H

#include "core_async.h"
#include "dv_core.h"
#include "dv_evq.h"
#include "dv_sim.h"

#include <signal.h>

/* An observer's clock (dv_sim_hooks.period / tick). */
typedef struct hook_clock {
    dv_event ev;
    struct dv_sim *sim;
    unsigned hook;
    uint64_t period;
    uint64_t last; /* the cycle of its last tick */
} hook_clock;

struct dv_sim {
    dv_chip_config cfg;
    bool data;
    dv_evq q;
    dv_gm *gm;
    dv_gmsys gmsys; /* the chip's L2 and HBM */
    const dv_obj *obj;
    const dv_obj_kernel *kernel;
    uint64_t args[DV_MAX_KERNEL_ARGS];
    uint64_t block_dim, next_block;
    dv_core *cores;
    unsigned ncores, ninit;
    uint64_t stop_seq;   /* bumped by a core whenever its stop changes */
    unsigned group_size; /* mix launches: 1 AIC + its AIVs; else 1 */
    dv_cc_net cc;
    dv_core **core_ptrs;
    bool ran;
    dv_status start_err;
    /* incremental runs (dv_sim_start / advance / finish) */
    uint64_t max_cycles;
    bool running;     /* started, not yet ended */
    dv_core *stopped; /* the first core that stopped the run */
    const volatile sig_atomic_t *interrupt_flag;
    bool interrupt;   /* dv_sim_interrupt */
    uint64_t horizon; /* the end of the last slice dv_sim_advance went through */
    /* observers */
    dv_sim_hooks hooks[DV_SIM_MAX_HOOKS]; /* copies of what was added */
    unsigned nhooks;
    hook_clock clocks[DV_SIM_MAX_HOOKS];
    dv_sim_hooks fanout;            /* the cores' events to several observers */
    const dv_sim_hooks *core_hooks; /* what the cores call: NULL, one observer or fanout */
    dv_counter_source counters;     /* dv_sim_counters */
    unsigned threads;               /* dv_sim_set_threads; 0: the host's CPUs */
    dv_pool *pool;                  /* the functional work's threads (core_async.h), or NULL */
    core_async_net anet;            /* dv_sim_run's cores, whose GM reads may be in flight */
    dv_log log;                     /* dv_sim_set_log; off by default */
    /* several launches at once (launch.c, dv_launch.h); NULL: the one-kernel run above */
    struct dv_chip_runs *runs;
};

/* sim.c, for launch.c: the cores' observers (one or the fan-out), the
 * observers' clocks and those queued, the horizon of the next event, the
 * host threads for a setting. */
void sim_choose_core_hooks(dv_sim *s);
dv_status sim_start_clocks(dv_sim *s, dv_error *err);
size_t sim_clocks_queued(const dv_sim *s);
void sim_set_horizon(dv_sim *s, uint64_t until, uint64_t max_cycles);
unsigned sim_host_threads(unsigned setting);
/* launch.c: dv_sim_advance, dv_sim_finish and dv_sim_destroy of a chip
 * opened for several launches (dv_sim_open). */
bool sim_runs_advance(dv_sim *s, uint64_t until, dv_error *err);
dv_status sim_runs_finish(dv_sim *s, dv_run_result *res, dv_error *err);
void sim_runs_free(dv_sim *s);

#endif
