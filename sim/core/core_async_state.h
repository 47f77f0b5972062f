/* core_async_state.h - what a core keeps of its functional work in flight
 * on the launch's host threads (the functions: core_async.h). */
#ifndef CORE_ASYNC_STATE_H
#define CORE_ASYNC_STATE_H

#include "dv_mem.h"
#include "dv_pool.h"
#include "dv_unit.h"

#include <stdbool.h>
#include <stdint.h>

/* Work in flight per core: enough that the core's thread rarely needs a
 * piece the pool has not taken yet (a 32-core matmul issues about 40 pieces
 * per core between two joins of the oldest at 8).  Consecutive load2d (tiny:
 * 16 fractals) share a slot, up to CORE_ASYNC_BATCH, so that the pool's
 * cost per piece (a lock, a wake-up) stays small next to the work.
 * Products use CORE_ASYNC_OWNERS working memories in turn. */
enum { CORE_ASYNC_SLOTS = 32, CORE_ASYNC_BATCH = 16, CORE_ASYNC_OWNERS = 4 };

struct dv_core;

/* The cores whose GM reads may be in flight (one dv_sim_run's), so that a
 * GM write of any of them first joins the reads it overlaps. */
typedef struct core_async_net {
    struct dv_core **cores;
    unsigned ncores;
    unsigned gm_reads; /* slots in flight, over the cores, that read GM */
} core_async_net;

/* [lo, hi) per buffer, read and written; hi == 0: nothing. */
typedef struct core_async_hull {
    uint64_t rlo[DV_MEM_KIND_COUNT], rhi[DV_MEM_KIND_COUNT];
    uint64_t wlo[DV_MEM_KIND_COUNT], whi[DV_MEM_KIND_COUNT];
} core_async_hull;

typedef struct core_async_slot {
    dv_pool_job job;
    int kind; /* core_async.c's: a product, an nd2nz, a core-private exec */
    uint64_t seq;
    core_async_hull hull;
    dv_cube_work cube;
    dv_nd2nz_work nd;
    dv_op op[CORE_ASYNC_BATCH]; /* a core-private exec: the instructions, in order */
    unsigned nops;
    dv_unit_ctx ctx; /* and their context (the core's buffers, no GM) */
} core_async_slot;

typedef struct core_async {
    dv_pool *pool;       /* the launch's threads; NULL: everything runs at once, here */
    core_async_net *net; /* NULL: no GM read goes to the pool (launches that share GM with the host) */
    dv_pool_lane lane;   /* the core's work runs in its order */
    core_async_slot slot[CORE_ASYNC_SLOTS];
    uint64_t issued, joined;               /* slots seq joined+1 .. issued are in flight */
    bool open;                             /* slot `issued` is a batch of load2d not submitted yet */
    core_async_hull all;                   /* the hull of everything since the chain was last empty */
    dv_unit_ctx owner[CORE_ASYNC_OWNERS];  /* the working memory of products, in turn */
    uint64_t owner_seq[CORE_ASYNC_OWNERS]; /* the slot that last used each */
    uint64_t products;                     /* products issued (which owner is next) */
} core_async;

#endif
