/* dv_rt.h - the host runtime: devices, device memory, streams, events,
 * asynchronous kernel and operator launches, host callbacks; the CANN
 * runtime's (aclrt*) shape on one simulated chip (docs/runtime.md).
 *
 * A device is one chip (a dv_sim opened for launches, sim/dv_launch.h) and
 * its GM.  Work is enqueued on streams and runs in order within a stream;
 * streams run side by side, their kernels sharing the chip's cores (each
 * launch on its core set, or any core) and its L2 and HBM.  Events order
 * streams: a wait on stream B for an event recorded on stream A holds B's
 * later work until A's work before the record has ended.  Nothing runs
 * while the host enqueues: simulated time moves only in the synchronise
 * calls (stream, event, device), which drive the chip's run loop; host
 * callbacks run at the simulated cycle their stream reaches them and may
 * enqueue more work on any stream.
 *
 * Every kernel launch pays the chip's launch overhead (chip.launch_cycles,
 * davinci-facts: the time from the launch to its first instruction) from
 * the cycle its stream issues it: a stream issues a launch when everything
 * before it in the stream has ended.
 *
 * Each kernel launch leaves a record (dv_rt_record): its stream, what it
 * was, the core set asked for and the cores it ran on, and the cycles it
 * was enqueued, issued, started (its first block) and ended.  Same inputs,
 * same records: the runtime and the chip decide nothing from the host's
 * clock or threads. */
#ifndef DV_RT_H
#define DV_RT_H

#include "dv_launch.h"
#include "dv_operator.h"
#include "dv_sim.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct dv_rt_device dv_rt_device;
typedef struct dv_rt_stream dv_rt_stream;
typedef struct dv_rt_event dv_rt_event;

enum { DV_RT_MAX_STREAMS = 64 };

typedef struct dv_rt_options {
    bool data;               /* false: timing only (no arithmetic, nothing to check) */
    uint64_t max_cycles;     /* 0: no limit */
    bool no_launch_overhead; /* true: launches start when issued (chip.launch_cycles not paid) */
    bool race_check;         /* keep every launch's GM footprint for dv_rt_race_report */
    unsigned threads;        /* dv_sim_set_threads (0: the host's CPUs) */
} dv_rt_options;

/* Opens a device on chip config cfg (copied).  opt may be NULL (data, no limit). */
dv_status dv_rt_device_open(const dv_chip_config *cfg, const dv_rt_options *opt, dv_rt_device **out,
                            dv_error *err);
/* Waits for nothing: work still queued is dropped, running launches stop. */
void dv_rt_device_close(dv_rt_device *d);
/* The device's simulation, for observers (dv_sim_add_hooks): add them before
 * the first launch.  Its cores' events name units (dv_launch.h). */
dv_sim *dv_rt_device_sim(dv_rt_device *d);
const dv_chip_config *dv_rt_device_config(const dv_rt_device *d);
/* The simulated cycle the device has reached. */
uint64_t dv_rt_device_now(const dv_rt_device *d);

/* ---- device memory (synchronous, host side: no simulated time) ---- */
dv_status dv_rt_malloc(dv_rt_device *d, uint64_t bytes, uint64_t *addr, dv_error *err);
dv_status dv_rt_free(dv_rt_device *d, uint64_t addr, dv_error *err);
dv_status dv_rt_memcpy_h2d(dv_rt_device *d, uint64_t dst, const void *src, uint64_t bytes, dv_error *err);
dv_status dv_rt_memcpy_d2h(dv_rt_device *d, void *dst, uint64_t src, uint64_t bytes, dv_error *err);
dv_status dv_rt_memset(dv_rt_device *d, uint64_t addr, int value, uint64_t bytes, dv_error *err);

/* ---- streams and events ---- */
dv_status dv_rt_stream_create(dv_rt_device *d, const char *name, dv_rt_stream **out, dv_error *err);
/* A stream with work queued cannot go (DV_ERR_USAGE): synchronise it first. */
dv_status dv_rt_stream_destroy(dv_rt_stream *s, dv_error *err);
unsigned dv_rt_stream_index(const dv_rt_stream *s);
const char *dv_rt_stream_name(const dv_rt_stream *s);

dv_status dv_rt_event_create(dv_rt_device *d, const char *name, dv_rt_event **out, dv_error *err);
void dv_rt_event_destroy(dv_rt_event *e);
/* The event completes when s's work enqueued before it has ended (a second
 * record moves it: waits enqueued later wait for the new one). */
dv_status dv_rt_event_record(dv_rt_event *e, dv_rt_stream *s, dv_error *err);
/* s's work enqueued after this waits until e's last record completes (an
 * event never recorded: no wait). */
dv_status dv_rt_stream_wait_event(dv_rt_stream *s, dv_rt_event *e, dv_error *err);
/* True once e's last record has completed (or it was never recorded). */
bool dv_rt_event_query(const dv_rt_event *e);
/* The cycle e's last record completed (valid when dv_rt_event_query). */
uint64_t dv_rt_event_cycle(const dv_rt_event *e);
dv_status dv_rt_event_synchronize(dv_rt_event *e, dv_error *err);

/* ---- launches ---- */
typedef struct dv_rt_kernel_launch {
    const dv_obj *obj;  /* must outlive the launch */
    const char *kernel; /* NULL: the object's only kernel */
    uint64_t args[DV_MAX_KERNEL_ARGS];
    uint64_t blocks;
    const dv_coreset *cores; /* NULL or empty: any core */
    const char *label;       /* for the records (NULL: the kernel's name) */
} dv_rt_kernel_launch;

typedef struct dv_rt_op_launch {
    const char *op; /* an operator of kernels/ (dvsim ops) */
    dv_opr_request req;
    /* tensors given on the device, by the operator's names (the others are
     * its own: seeded inputs, workspaces; dv_opr_target) */
    unsigned nbound;
    const char *name[DV_OPR_MAX_TENSORS];
    uint64_t addr[DV_OPR_MAX_TENSORS];
    const dv_coreset *cores; /* NULL or empty: any core */
    bool check;              /* compare its outputs with the CPU reference when it ends */
} dv_rt_op_launch;

typedef void (*dv_rt_host_fn)(void *user, dv_rt_device *d, dv_rt_stream *s);

/* Enqueue a kernel launch on s; *record (may be NULL) numbers its record.
 * The kernel and core set are checked now (DV_ERR_INPUT). */
dv_status dv_rt_launch_kernel(dv_rt_stream *s, const dv_rt_kernel_launch *k, unsigned *record, dv_error *err);
/* Enqueue an operator's launches on s (prepared now, on the device's GM:
 * a bad shape or tensor is DV_ERR_INPUT now); *record is its first launch's. */
dv_status dv_rt_launch_op(dv_rt_stream *s, const dv_rt_op_launch *op, unsigned *record, dv_error *err);
/* Enqueue a host function: it runs when s reaches it (everything before it
 * in s has ended), at that simulated cycle, and may enqueue more work. */
dv_status dv_rt_launch_host_func(dv_rt_stream *s, dv_rt_host_fn fn, void *user, dv_error *err);

/* Run the chip until s's work (or e's record, or every stream's work) has
 * ended.  A wait nothing can satisfy is DV_ERR_INPUT (the streams' deadlock,
 * named); a guest fault in a launch is not an error here: its record says. */
dv_status dv_rt_stream_synchronize(dv_rt_stream *s, dv_error *err);
dv_status dv_rt_device_synchronize(dv_rt_device *d, dv_error *err);

/* ---- records ---- */
typedef enum dv_rt_kind { DV_RT_KERNEL, DV_RT_OP } dv_rt_kind;

typedef struct dv_rt_record {
    dv_rt_kind kind;
    unsigned stream;
    char label[96];        /* the kernel's label, or "matmul" / "conv2d[2/3]" */
    char shape[128];       /* an operator's shape, "" for a kernel */
    dv_coreset cores;      /* asked for (empty: any) */
    dv_coreset cores_used; /* the AI cores it ran on */
    unsigned units;        /* cores (AIC/AIV units) it ran blocks on */
    uint64_t blocks;
    uint64_t enqueue_cycle, issue_cycle, start_cycle, end_cycle;
    dv_stop stop; /* NONE: not ended (yet) */
    char message[256];
    uint64_t gm_read, gm_write; /* bytes between GM and the cores */
    uint64_t launch_id;         /* the chip's (dv_sim_launch_info) */
    /* an operator's last launch with check: the reference comparison */
    bool checked, passed;
    uint64_t mismatches;
    /* an operator's last launch: its roofline (dv_opr_roofline_of, the one
     * formula dvsim run reports) over every launch of the operator, each
     * launch's cycles from its start to its end on the chip */
    bool has_roofline;
    dv_opr_roofline roofline;
} dv_rt_record;

unsigned dv_rt_record_count(const dv_rt_device *d);
const dv_rt_record *dv_rt_record_at(const dv_rt_device *d, unsigned i);
/* The first launch that did not finish (a fault, a deadlock, the limit), or NULL. */
const dv_rt_record *dv_rt_failed(const dv_rt_device *d);

/* ---- the launch-level race check (opt.race_check) ----
 * Two launches whose GM bytes overlap, one of them writing, race unless
 * the runtime orders them: the same stream, an event record -> wait, a
 * host synchronise, or a callback that enqueued the later one.  One line
 * per racing pair (the first overlapping range), in record order. */
typedef struct dv_rt_race {
    unsigned first, second; /* records */
    uint64_t addr, len;
    bool first_writes, second_writes;
} dv_rt_race;
/* The races among the records so far (*out malloc'd, *n of them). */
dv_status dv_rt_races(const dv_rt_device *d, dv_rt_race **out, unsigned *n, dv_error *err);

#endif
