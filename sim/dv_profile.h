/* dv_profile.h - where every cycle went: an observer (dv_hooks.h) that puts
 * every cycle of every pipe of every core of a run in exactly one stall
 * class (dv_prof_classes.def) and attributes it to an instruction (a pc of
 * .text, so a source line through the object's line table).
 *
 * What the classes add up to, per core and pipe, over the run's cycles
 * [0, chip cycles):
 *   a unit pipe:  busy + memory + bank = busy_cycles, flag + cc_flag =
 *                 wait_cycles of dv_pipe_stats, + starved + idle = cycles;
 *   the Scalar:   busy = busy_cycles, flag + barrier = wait_cycles,
 *                 queue_full = the sum of every pipe's full_cycles (split by
 *                 that pipe in full_by_pipe), + idle = cycles.
 * Exactly so for a run that finished; in a run that stopped early the
 * Scalar unit's instruction in flight counts to the stop (its busy_cycles
 * count the whole latency).
 *
 * Attribution: busy, memory and bank to the instruction that executes;
 * flag, cc_flag to the wait; barrier and queue_full to the instruction the
 * Scalar unit is held at; starved to the instruction the pipe then gets;
 * idle to the lane's last instruction.  Per pc there are two lanes: the
 * Scalar unit's (it runs or dispatches every instruction) and the pipe the
 * instruction belongs to.  A wait's cycles are also kept by what released
 * it (the set_flag's pc, the cross-core setter's core and pc, or nothing:
 * still waiting when the run stopped), and the run as a timeline of bins
 * per core kind for the critical path.  Integers only: the same run gives
 * the same profile. */
#ifndef DV_PROFILE_H
#define DV_PROFILE_H

#include "dv_sim.h"

typedef enum dv_prof_class {
#define DV_PROF_CLASS(id, name, stat, doc) DV_PROF_##id,
#include "dv_prof_classes.def"
#undef DV_PROF_CLASS
    DV_PROF_CLASS_COUNT
} dv_prof_class;

const char *dv_prof_class_name(dv_prof_class k);
const char *dv_prof_class_doc(dv_prof_class k);
/* The dv_pipe_stats field the class is part of ("-": none). */
const char *dv_prof_class_stat(dv_prof_class k);

enum { DV_PROF_LANE_S = 0, DV_PROF_LANE_PIPE = 1, DV_PROF_LANES = 2 };

/* Class first: the counts and both lanes' busy cycles, which nearly every
 * instruction adds to, share a cache line. */
typedef struct dv_prof_pc {
    uint64_t count[DV_PROF_LANES]; /* executions */
    uint64_t cycles[DV_PROF_CLASS_COUNT][DV_PROF_LANES];
} dv_prof_pc;

typedef struct dv_prof_core {
    dv_core_kind kind;
    bool has_pipe[DV_PIPE_COUNT];
    uint64_t end_cycle;
    uint64_t pipe[DV_PIPE_COUNT][DV_PROF_CLASS_COUNT];
    uint64_t full_by_pipe[DV_PIPE_COUNT];      /* the Scalar's queue_full, by the full pipe */
    uint64_t idle_unattributed[DV_PIPE_COUNT]; /* idle of a lane that ran nothing */
    dv_prof_pc *pcs;                           /* [npcs], index pc / DV_INSN_BYTES */
} dv_prof_core;

/* A wait's cycles by what released it. */
typedef enum dv_prof_release_kind {
    DV_PROF_REL_SET,   /* a set_flag of the same core at set_pc */
    DV_PROF_REL_CC,    /* the last cc_set_flag of that id: set_core at set_pc */
    DV_PROF_REL_NEVER, /* still waiting when the run stopped */
    DV_PROF_REL_UNKNOWN,
} dv_prof_release_kind;

typedef struct dv_prof_release {
    uint64_t wait_pc;
    dv_prof_release_kind kind;
    unsigned set_core;
    uint64_t set_pc;
    uint64_t cycles, waits; /* summed over the cores */
} dv_prof_release;

/* The timeline: DV_PROF_BINS bins of bin_width cycles per core kind,
 * summed over the cores of that kind; per bin and pipe the stall (flag,
 * cc_flag, barrier, queue_full) instructions that held it most. */
enum { DV_PROF_BINS = 64, DV_PROF_TOP = 3 };
typedef struct dv_prof_top {
    uint64_t pc;
    uint64_t cycles;
    int cls; /* -1: empty slot */
} dv_prof_top;
typedef struct dv_prof_bin {
    uint64_t cycles[DV_PIPE_COUNT][DV_PROF_CLASS_COUNT];
    dv_prof_top top[DV_PIPE_COUNT][DV_PROF_TOP];
} dv_prof_bin;

typedef struct dv_prof_result {
    bool ended, done; /* the run's end came; every block finished */
    uint64_t cycles;  /* the run's (chip.cycles) */
    const dv_obj *obj;
    unsigned ncores;
    dv_prof_core *cores;
    size_t npcs;
    dv_prof_release *releases; /* in the order first seen */
    size_t nreleases;
    unsigned kind_cores[3]; /* cores of each dv_core_kind */
    uint64_t bin_width;
    dv_prof_bin *bins[3]; /* [DV_PROF_BINS] per kind, NULL if no core of that kind */
} dv_prof_result;

typedef struct dv_profile dv_profile;

dv_profile *dv_profile_create(dv_error *err);
void dv_profile_destroy(dv_profile *p);
/* Observes sim's next run (before dv_sim_start).  A later launch of the
 * same simulation starts the profile again. */
dv_status dv_profile_attach(dv_profile *p, dv_sim *sim, dv_error *err);
/* The profile so far (a live view during the run); complete once the run
 * has ended (dv_sim_finish).  NULL before the launch.  Valid until the next
 * call, a new launch or dv_profile_destroy.  An allocation that failed
 * shows as DV_ERR_NOMEM in dv_profile_status. */
const dv_prof_result *dv_profile_result(dv_profile *p);
dv_status dv_profile_status(const dv_profile *p);

#endif
