/* launch_priv.h - the chip's launches (dv_launch.h), shared by launch.c
 * (opening the chip, adding launches, the run loop) and launch_cores.c
 * (each launch's cores, the scheduler, completions).  Private to sim/core. */
#ifndef DV_LAUNCH_PRIV_H
#define DV_LAUNCH_PRIV_H

#include "dv_launch.h"
#include "sim_state.h"

typedef struct chip_launch chip_launch;

typedef struct start_event {
    dv_event ev;
    chip_launch *l;
} start_event;

struct chip_launch {
    struct dv_sim *sim;
    unsigned id;
    dv_launch_desc d;
    const dv_obj_kernel *k;
    unsigned group_size;
    unsigned nslots;      /* slots of its core set */
    unsigned *slot_units; /* [slot][member]: the chip's unit of each member */
    int *slot_group;      /* the group bound to each slot, or -1 */
    unsigned ngroups;
    int *group_slot;  /* the slot each group is bound to, or -1 */
    bool *group_busy; /* running a block */
    dv_core *cores;   /* ngroups * group_size, NULL until ready and after the end */
    dv_core **core_ptrs;
    dv_cc_net cc;
    uint64_t next_block;
    unsigned running; /* groups running a block */
    bool ready, ended;
    start_event start;
    dv_sim_hooks hooks; /* the cores' events, core ids made unit ids, to the chip's observers */
    dv_launch_info info;
    char message[1024];
    char kernel_name[64]; /* info.kernel: the object may go before the record */
};

struct dv_chip_runs {
    chip_launch **l;
    unsigned n, cap;
    unsigned first_live; /* launches before it have all ended */
    int *unit_owner;     /* the launch running on each unit, or -1 */
    unsigned units;
    uint64_t max_cycles;
    uint64_t seen_seq;
    unsigned *ended; /* launches that ended during the last event, for their callbacks */
    unsigned nended;
};

/* launch_cores.c */
/* The launch's totals into its record, then its cores go. */
void launch_free_cores(chip_launch *l);
/* Every ready launch, oldest first, takes the free slots of its core set. */
dv_status launch_dispatch(dv_sim *s, dv_error *err);
/* Group g's units are free again. */
void launch_release_units(chip_launch *l, unsigned g);
/* The launch has ended with `why` at cycle `at` (its callback comes after the event). */
void launch_end(chip_launch *l, dv_stop why, const char *msg, uint64_t at);
/* The start event: the launch's start condition holds. */
void launch_on_start(dv_event *ev, void *ctx);

#endif
