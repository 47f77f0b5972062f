/* dv_launch.h - several kernels on the chip at once.
 *
 * A chip opened with dv_sim_open takes launches while it runs: each is a
 * kernel of an object, its arguments, a block count, the AI cores it may
 * use (a core set; empty: any) and a start condition (no block before a
 * cycle).  The chip's task scheduler hands blocks to cores as they free up:
 *
 *   whenever a unit frees (a block ends) or a launch becomes ready (its
 *   start cycle is reached), the ready launches are visited oldest first
 *   (FIFO by launch order) and each takes every free slot of its core set,
 *   lowest core first, for its next blocks.  A slot is the unit a block
 *   needs: a coupled core, an AIC, an AIV (an AIV kernel's blocks run one per
 *   AIV of the set's cores) or an AIC with its AIVs (a mix kernel).
 *
 * So launches on disjoint core sets run side by side, and a launch whose
 * cores are busy waits for them; an older launch has the first claim on a
 * core that frees.  All launches share the event queue, GM and its L2 and
 * HBM servers, so they contend for them as the cores of one launch do.
 *
 * Each launch's cores are its own (buffers, flags, cross-core counters):
 * nothing on chip passes between launches, only GM.  A core's id (the
 * coreid CSR, dv_trace_*.core of the observers) is its unit on the chip:
 * the AI core's index for a coupled core or an AIC, cores + i for AIV i
 * (AIV i belongs to AI core i / aiv_per_aic).
 *
 * dv_sim_advance fires the events and returns true while something is
 * running or waiting to start; false when the chip is idle (not an end:
 * more launches may be added, and the next advance runs them from the
 * current cycle).  A launch that faults or deadlocks ends alone with that
 * outcome (its cores stop, the others go on); the cycle limit and an
 * interruption stop every launch.  A launch's completion is a query
 * (dv_sim_launch_info) and a callback, called at the cycle it ends, between
 * events, from dv_sim_advance: it may add launches.  Same inputs, same
 * cycles: the scheduler's choices depend on nothing but the simulation. */
#ifndef DV_LAUNCH_H
#define DV_LAUNCH_H

#include "dv_sim.h"

enum { DV_CORESET_WORDS = 4 }; /* AI cores 0..255 */

/* A set of AI cores (indices below chip.cores). */
typedef struct dv_coreset {
    uint64_t w[DV_CORESET_WORDS];
} dv_coreset;

static inline void dv_coreset_add(dv_coreset *s, unsigned i)
{
    if (i < 64 * DV_CORESET_WORDS)
        s->w[i / 64] |= 1ull << (i % 64);
}

static inline bool dv_coreset_has(const dv_coreset *s, unsigned i)
{
    return i < 64 * DV_CORESET_WORDS && (s->w[i / 64] >> (i % 64) & 1);
}

unsigned dv_coreset_count(const dv_coreset *s);
bool dv_coreset_empty(const dv_coreset *s);
/* "0-9,12,14-15" into *out (cores below ncores); DV_ERR_INPUT naming the bad part. */
dv_status dv_coreset_parse(const char *text, unsigned ncores, dv_coreset *out, dv_error *err);
/* The same form ("0-9,12"; "" for the empty set) into buf. */
void dv_coreset_format(const dv_coreset *s, char *buf, size_t size);

typedef void (*dv_launch_done_fn)(void *user, dv_sim *sim, unsigned launch);

typedef struct dv_launch_desc {
    const dv_obj *obj;  /* must outlive the launch */
    const char *kernel; /* NULL: the object's only kernel */
    uint64_t args[DV_MAX_KERNEL_ARGS];
    uint64_t block_dim;     /* 1 .. 65535 */
    dv_coreset cores;       /* empty: any core of the chip */
    uint64_t not_before;    /* the start condition: no block before this cycle (earlier: now) */
    dv_launch_done_fn done; /* may be NULL */
    void *user;
} dv_launch_desc;

typedef struct dv_launch_info {
    const char *kernel;
    uint64_t block_dim;
    dv_stop stop;          /* NONE while it runs or waits */
    bool started;          /* a block has started */
    uint64_t submit_cycle; /* when it was added */
    uint64_t ready_cycle;  /* when its start condition held */
    uint64_t start_cycle;  /* its first block's start */
    uint64_t end_cycle;    /* its last block's end (valid once stop != NONE) */
    unsigned units;        /* cores it ran blocks on */
    dv_coreset cores_used; /* the AI cores of those units */
    const char *message;   /* a fault's or a deadlock's, "" otherwise */
    /* sums over its cores once it has ended */
    uint64_t path_bytes[DV_PATH_COUNT];
    uint64_t cube_macs, insns;
} dv_launch_info;

/* Opens the chip for launches (instead of dv_sim_load/dv_sim_start): its
 * observers' clocks start; max_cycles 0: no limit.  Observers get the cores'
 * events with unit ids (above) and no `launch` call. */
dv_status dv_sim_open(dv_sim *s, uint64_t max_cycles, dv_error *err);
/* Adds a launch (during the run too: between advances or from a completion
 * callback); *id numbers them 0, 1, ...  DV_ERR_INPUT for a kernel the
 * object lacks or the chip cannot run, a core outside the chip. */
dv_status dv_sim_launch(dv_sim *s, const dv_launch_desc *d, unsigned *id, dv_error *err);
unsigned dv_sim_launch_count(const dv_sim *s);
bool dv_sim_launch_info(const dv_sim *s, unsigned id, dv_launch_info *out);
/* The launch running on unit `unit` now (false: none), for observers that
 * attribute the cores' events to launches. */
bool dv_sim_unit_launch(const dv_sim *s, unsigned unit, unsigned *launch);
/* Units of the chip: cores, plus cores * aiv_per_aic on a split chip. */
unsigned dv_sim_units(const dv_sim *s);

#endif
