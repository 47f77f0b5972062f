/* rt_priv.h - the runtime's state, shared by its files: the device and its
 * streams and events (rt_device.c), the commands a stream runs in order and
 * the launch records (rt_launch.c), the launch-level race check
 * (rt_race.c).  Private to runtime/. */
#ifndef DV_RT_PRIV_H
#define DV_RT_PRIV_H

#include "dv_rt.h"

/* What one launch or host function knew had happened when it was enqueued
 * or issued: a vector clock over the streams (the race check's order). */
typedef struct rt_vc {
    uint32_t c[DV_RT_MAX_STREAMS];
} rt_vc;

typedef enum rt_cmd_kind { CMD_KERNEL, CMD_OP, CMD_HOST, CMD_RECORD, CMD_WAIT } rt_cmd_kind;

typedef struct rt_cmd {
    rt_cmd_kind kind;
    struct rt_cmd *next;
    rt_vc after;     /* what its enqueuer knew: the host's, or the stream of the callback */
    unsigned record; /* KERNEL: its record; OP: its first launch's */
    dv_launch_desc desc;
    dv_opr_run *run;  /* OP */
    unsigned op_next; /* OP: the launch to issue next */
    bool check;
    dv_coreset cores;
    dv_rt_host_fn fn; /* HOST */
    void *user;
    dv_rt_event *ev; /* RECORD, WAIT */
    uint64_t gen;    /* RECORD: this record's number; WAIT: the record it waits for */
} rt_cmd;

struct dv_rt_stream {
    dv_rt_device *d;
    unsigned index;
    char name[32];
    rt_cmd *head, *tail;
    bool busy; /* its head is a launch on the chip */
    rt_vc vc;
};

struct dv_rt_event {
    dv_rt_device *d;
    char name[32];
    uint64_t gen_enqueued, gen_done; /* records enqueued, completed */
    uint64_t cycle;
    rt_vc vc; /* what its last completed record knew */
};

/* A launch's GM footprint (the race check): merged [lo, hi) ranges. */
typedef struct rt_ranges {
    uint64_t (*r)[2];
    size_t n, cap;
} rt_ranges;

typedef struct rt_foot {
    rt_ranges rd, wr;
    rt_vc vc; /* what it knew when issued, its own epoch included */
} rt_foot;

struct dv_rt_device {
    dv_chip_config cfg;
    dv_rt_options opt;
    dv_sim *sim;
    bool opened; /* dv_sim_open done (at the first launch or synchronise) */
    bool halted; /* the cycle limit or an interruption stopped the chip */
    dv_rt_stream *streams[DV_RT_MAX_STREAMS];
    unsigned nstreams; /* slots used (a destroyed stream's stays NULL) */
    dv_rt_record *rec;
    rt_foot *foot; /* per record, with opt.race_check */
    unsigned nrec, caprec;
    unsigned *rec_of_launch; /* the record of each chip launch */
    unsigned nlaunch_map;
    rt_vc host_vc;
    int cb_stream; /* the stream whose host function runs now, or -1 (the host) */
    bool pumping;
    dv_error deferred; /* an error met inside the run loop (a callback's launch) */
};

/* rt_device.c */
dv_status rt_ensure_open(dv_rt_device *d, dv_error *err);
void rt_pump(dv_rt_device *d);
void rt_defer_error(dv_rt_device *d, const dv_error *err);
void rt_vc_join(rt_vc *to, const rt_vc *from);
/* Appends a command to s (its `after` set from the enqueuer). */
void rt_enqueue(dv_rt_stream *s, rt_cmd *c);
/* rt_launch.c: issue the head launch of s (KERNEL or OP) on the chip. */
dv_status rt_issue(dv_rt_stream *s, rt_cmd *c, dv_error *err);
dv_status rt_new_record(dv_rt_device *d, unsigned *index, dv_error *err);
void rt_cmd_free(rt_cmd *c);
/* rt_race.c */
dv_status rt_race_attach(dv_rt_device *d, dv_error *err);
void rt_race_free(dv_rt_device *d);
void rt_race_launch_ended(dv_rt_device *d, unsigned record);

#endif
