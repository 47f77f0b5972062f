/* viz_model.h - what the window shows, gathered from the tracing hooks
 * (dv_hooks.h) as the simulation runs.  No SDL here.
 *
 * Per core and lane (the pipes, then FLOWCTRL for the Scalar unit's stalls)
 * a ring of the latest slices; per core a ring of set->wait flows and a
 * ring of counter windows (dv_tcount.h).  Memory is fixed at launch: the
 * rings keep the most recent history and drop the oldest. */
#ifndef DV_VIZ_MODEL_H
#define DV_VIZ_MODEL_H

#include "dv_hooks.h"
#include "dv_lanes.h"
#include "dv_sim.h"
#include "dv_tcount.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    VIZ_FLOWS = 512,   /* flows kept per core */
    VIZ_HISTORY = 256, /* counter windows kept per core */
};

/* What a slice is, for its colour. */
typedef enum viz_kind {
    VIZ_K_UNIT,     /* an instruction executing on its pipe */
    VIZ_K_SCALAR,   /* a scalar instruction */
    VIZ_K_DISPATCH, /* the Scalar unit handing an instruction to a pipe */
    VIZ_K_SET,      /* set_flag */
    VIZ_K_WAIT,     /* wait_flag: blocked until released */
    VIZ_K_STALL,    /* FLOWCTRL: the Scalar unit held (queue full, flag, barrier) */
} viz_kind;

typedef struct viz_slice {
    uint64_t start, end;
    uint32_t pc;
    uint16_t op;   /* dv_opcode (stalls: dv_trace_stall_kind) */
    uint8_t kind;  /* viz_kind */
    uint8_t extra; /* stalls: the pipe */
} viz_slice;

typedef struct viz_ring {
    viz_slice *s;
    uint32_t cap, head, count; /* head: index of the oldest */
} viz_ring;

typedef struct viz_flow {
    uint64_t set_cycle, wait_cycle;
    uint8_t set_lane, wait_lane;
} viz_flow;

typedef struct viz_sample {
    uint64_t start, cycles;
    float busy[DV_PIPE_COUNT]; /* fraction 0..1 */
    float bw[DV_PATH_COUNT];   /* bytes per cycle */
    float inflight[DV_MEM_KIND_COUNT];
} viz_sample;

typedef struct viz_core {
    viz_ring lanes[DV_LANES];
    viz_flow flows[VIZ_FLOWS];
    uint32_t flow_head, flow_count;
    uint64_t pending_set[DV_PIPE_COUNT * DV_PIPE_COUNT * DV_MAX_EVENT_IDS]; /* set cycle + 1, 0: none */
    uint8_t pending_lane[DV_PIPE_COUNT * DV_PIPE_COUNT * DV_MAX_EVENT_IDS];
    viz_sample hist[VIZ_HISTORY];
    uint32_t hist_head, hist_count;
    uint64_t insns; /* instructions started on this core (every lane) */
    uint64_t block;
    uint64_t peak_inflight[DV_MEM_KIND_COUNT];
} viz_core;

typedef struct viz_model {
    const dv_sim *sim;
    const dv_chip_config *cfg;
    unsigned ncores;
    viz_core *cores;
    dv_tcount *counters;
    uint64_t period;         /* cycles per counter window */
    dv_sim_hooks hooks;      /* the events it gathers */
    struct dv_profile *prof; /* the stall attribution of the run (dv_profile.h), for the cost panel */
    bool failed;             /* out of memory at launch */
} viz_model;

/* Sets the model up (its hooks go to dv_sim_add_hooks); period: cycles
 * per counter window. */
void viz_model_init(viz_model *m, uint64_t period);
void viz_model_free(viz_model *m);
/* The run ended at `end`: completes the last counter window. */
void viz_model_finish(viz_model *m, uint64_t end);

/* Slice i (0 = oldest) of a ring. */
static inline const viz_slice *viz_ring_at(const viz_ring *r, uint32_t i)
{
    return &r->s[(r->head + i) % r->cap];
}
/* Index of the first slice of r that ends after `cycle` (binary search:
 * slices of a lane are in time order). */
uint32_t viz_ring_find(const viz_ring *r, uint64_t cycle);
/* The latest counter sample i windows back (0: the newest); NULL if none. */
const viz_sample *viz_hist_at(const viz_core *c, uint32_t back);

#endif
