/* dv_tjson_priv.h - the state of the Chrome-trace writer, shared by its
 * two halves: dv_tjson.c (what the trace says: lanes, slices, flows,
 * counters) and dv_tjson_out.c (how it is written: JSON text deflated into
 * one gzip member). */
#ifndef DV_TJSON_PRIV_H
#define DV_TJSON_PRIV_H

#include "dv_lanes.h"
#include "dv_tcount.h"
#include "dv_tjson.h"

#include <stdio.h>
#include <zlib.h>

enum {
    BUF_BYTES = 1 << 20,
    NFLAGS = DV_PIPE_COUNT * DV_PIPE_COUNT * DV_MAX_EVENT_IDS,
    NOCC = 5, /* buffers shown as occupancy counters (dv_tjson.c) */
};

/* A slice waiting for its lane's next event. */
typedef struct slot {
    bool used;
    uint64_t start, end, pc;
    const char *cat;
    dv_path path;
    uint64_t bytes;
    uint64_t mem, bank; /* its memory-system and UB-conflict cycles (dv_profile.h's classes) */
} slot;

/* The open flow of a flag: set, not yet consumed. */
typedef struct pending_flow {
    uint64_t id; /* 0: none */
    bool started;
} pending_flow;

typedef struct core_state {
    slot slots[DV_PIPE_COUNT];
    bool last_written[DV_LANES]; /* the lane's last slice made it into the window */
    pending_flow flags[NFLAGS];
    int scalar_set_flag; /* a set by the Scalar unit whose slice comes next, or -1 */
    uint64_t scalar_wait_flow;
    uint64_t *dangling; /* flows to end on a marker when the trace closes */
    size_t ndangling, capdangling;
    double last_bw[DV_PATH_COUNT], last_occ[NOCC];
    bool counters_seen;
} core_state;

struct dv_tjson {
    char *path, *tmp;
    FILE *f;
    z_stream z;
    bool zinit;
    char *buf;
    size_t len;
    bool failed;
    char failmsg[256];
    bool first;
    dv_tjson_options opt;
    uint64_t w0, w1; /* window; w1 = UINT64_MAX without an end */
    dv_sim_hooks hooks;
    const dv_sim *sim;
    const dv_chip_config *cfg;
    uint64_t mhz;
    unsigned ncores;
    core_state *cores;
    dv_tcount *counters;
    /* Several launches in one file (dv_tjson_end_launch): the cycles of
     * the launches before this one, where this one's cycle 0 lies; the
     * window in this launch's cycles; a pid per core of this launch (the
     * same core name keeps its pid from launch to launch). */
    uint64_t base;
    unsigned launches; /* ended by dv_tjson_end_launch */
    unsigned *pid;     /* per core of this launch */
    char (*pid_names)[64];
    unsigned npids, cappids;
    dv_chip_config cfg_kept; /* the chip of an ended launch (its simulation goes) */
    char kernels[256];       /* the ended launches' kernels, comma-separated */
    const dv_obj *obj;
    char **text; /* per instruction of .text: its name and static args, JSON */
    size_t ntext;
    uint64_t next_flow;
    dv_tjson_totals tot;
};

/* dv_tjson_out.c: the output, a buffer deflated into the file (gzip). */
bool tj_open(dv_tjson *t, const char *path, dv_error *err); /* path, tmp, buf, the file, zlib */
dv_status tj_finish(dv_tjson *t, dv_error *err);            /* the last bytes; the file takes its name */
void tj_abandon(dv_tjson *t);                               /* the file is removed */
void tj_close(dv_tjson *t);                                 /* frees what tj_open made */
void tj_fail(dv_tjson *t, const char *what);
void tj_deflate(dv_tjson *t, int flush);
void tj_put(dv_tjson *t, const char *s, size_t n);
void tj_puts(dv_tjson *t, const char *s);
void tj_u64(dv_tjson *t, uint64_t v);
void tj_jstr(dv_tjson *t, const char *s); /* a JSON string literal */
uint64_t tj_ns(const dv_tjson *t, uint64_t cycle);
void tj_us(dv_tjson *t, uint64_t ns);
/* Starts an event: the separator, then {"ph":"P","pid":N,"tid":N,"ts":T */
void tj_event_start(dv_tjson *t, char ph, unsigned core, unsigned lane, uint64_t cycle);

#endif
