/* san_state.h - the sanitizer's state, shared by its files: vector clocks
 * (san_hb.c), the shadow of every buffer (san_shadow.c) and the findings
 * (san_report.c).  Private to sim/sanitize. */
#ifndef DV_SAN_STATE_H
#define DV_SAN_STATE_H

#include "dv_hooks.h"
#include "dv_obj.h"
#include "dv_sanitize.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    SAN_NP = DV_PIPE_COUNT, /* threads per core: the Scalar unit and the pipes */
    SAN_PAGE_SHIFT = 12,    /* the shadow's pages: 4 KiB of addresses each */
    SAN_SRC = 200,          /* a formatted source line */
};

/* One side of an access: who, when, where. */
typedef struct san_acc {
    uint64_t cycle;
    uint32_t clk; /* the thread's clock then */
    uint32_t pc;  /* .text offsets fit */
    uint16_t tid; /* thread: core * SAN_NP + pipe */
    bool write;
} san_acc;

/* A run of bytes with the same history: the last write, the reads since
 * that are not ordered after one another. */
typedef struct san_seg {
    uint64_t lo, hi;
    san_acc w;
    uint32_t nr;  /* reads */
    uint16_t cap; /* 0: at most one read, in r0 (no allocation) */
    bool has_w;
    san_acc r0;
    san_acc *r;
} san_seg;

static inline san_acc *san_reads(san_seg *g)
{
    return g->cap ? g->r : &g->r0;
}

typedef struct san_page {
    uint64_t key; /* space << 40 | page; 0: empty slot */
    san_seg *segs;
    uint32_t n, cap;
} san_page;

/* A reference-counted vector clock (flag releases, dispatch snapshots). */
typedef struct san_vc {
    uint32_t refs;
    uint64_t seq;
    uint32_t c[]; /* nthreads */
} san_vc;

/* An instruction the Scalar unit dispatched to a pipe, until it runs there. */
typedef struct san_disp {
    san_vc *snap;   /* the Scalar unit's clock when it was dispatched */
    uint32_t s_clk; /* its own component then */
    uint64_t pc, cycle;
    dv_insn insn;
} san_disp;

typedef struct san_fifo {
    san_disp *q;
    uint32_t head, n, cap;
} san_fifo;

/* A set_flag's state as the core has it (a bit), with who set it. */
typedef struct san_flag {
    bool set;
    san_vc *vc;
    uint64_t set_pc, set_cycle;
    bool ever_set, consumed;
    uint64_t last_set_pc, last_wait_pc;
    /* the wait that consumed the last set: a set not ordered after it may
     * find the flag still set, whatever the timing did this time */
    bool waited;
    uint32_t wait_tid, wait_clk;
    uint64_t wait_cycle;
    bool lost_reported; /* the set now pending was reported lost */
} san_flag;

/* A cross-core counter's pending sets (their clocks, oldest first). */
typedef struct san_ccq {
    san_vc **q;
    uint32_t head, n, cap;
    uint32_t need; /* sets one wait consumes (the last set's mode) */
    uint64_t last_set_pc;
} san_ccq;

typedef struct san_core {
    dv_core_kind kind;
    unsigned group;
    uint64_t buf_bytes[DV_MEM_KIND_COUNT];
    uint64_t block; /* the block running, UINT64_MAX before the first */
    bool started;
    san_vc *snap;                   /* the Scalar unit's clock for dispatches (NULL: take a new one) */
    uint64_t pipe_snap_seq[SAN_NP]; /* the last snapshot each pipe has joined */
    san_fifo fifo[SAN_NP];
    uint64_t dispatched; /* since the last pipe_barrier pipe=all or block start */
    san_flag flags[SAN_NP][SAN_NP][DV_MAX_EVENT_IDS];
    san_ccq cc[DV_MAX_EVENT_IDS];
} san_core;

typedef struct san_tensor {
    char *name;
    uint64_t addr, len;
    bool uninit;
} san_tensor;

typedef struct san_finding {
    dv_san_check check;
    bool note;
    unsigned launch; /* the dv_san_attach it came from (1, 2, ...) */
    /* an access finding (race, init, mem): the range and both sides */
    bool access;
    dv_mem_kind mem;
    unsigned core; /* the buffer's core (on-chip) */
    uint64_t lo, hi;
    san_acc a, b; /* a: the earlier access (race), b: the one that found it */
    char src_a[SAN_SRC], src_b[SAN_SRC];
    char what[1400]; /* the text of the rest */
} san_finding;

struct dv_san {
    unsigned checks;
    san_tensor *tensors;
    size_t ntensors;
    /* this launch */
    dv_sim *sim;
    const dv_obj *obj;
    unsigned ncores, nthreads;
    unsigned launch;
    san_core *cores;
    uint32_t *vc; /* [thread][nthreads] */
    uint64_t snap_seq;
    san_page *pages; /* open-addressing hash of the shadow's pages */
    size_t npages, pcap;
    san_page *last_page; /* the page the last lookup found (NULL after the table grows) */
    /* findings, across launches */
    san_finding *f;
    size_t nf, fcap;
    uint64_t *seen; /* hash set of finding keys */
    size_t nseen, seencap;
    /* the finding the current access extends (adjacent bytes, same lines) */
    size_t cur_f;
    bool cur_open;
    bool oom;
};

/* ---- san_hb.c ---- */
static inline uint32_t *san_vc_of(dv_san *s, unsigned tid)
{
    return s->vc + (size_t)tid * s->nthreads;
}
/* Whether access a happened before thread tid's present. */
static inline bool san_hb(const dv_san *s, const san_acc *a, unsigned tid)
{
    return a->tid == tid || a->clk <= s->vc[(size_t)tid * s->nthreads + a->tid];
}
void san_on_insn(dv_san *s, const dv_trace_insn *ev);
void san_on_block(dv_san *s, unsigned core, uint64_t block);
void san_launch_end(dv_san *s, const dv_run_result *res);
void san_vc_release(san_vc *v);
void san_free_launch_sync(dv_san *s);

/* ---- san_shadow.c ---- */
void san_on_access(dv_san *s, const dv_trace_access *ev);
void san_shadow_free(dv_san *s);
const san_tensor *san_tensor_at(const dv_san *s, uint64_t addr, uint64_t len);

/* ---- san_report.c ---- */
/* The source line of pc in this launch's object. */
void san_source(const dv_san *s, uint64_t pc, char *buf, size_t size);
/* A new finding unless key was seen; NULL then (or out of memory). */
san_finding *san_new_finding(dv_san *s, uint64_t key, dv_san_check check, bool note);
/* The key of a source line pair (a line: its entry in the line table). */
uint64_t san_line_key(const dv_san *s, unsigned kind, uint64_t pc_a, uint64_t pc_b);
/* The key of a pc pair in this launch: a cheap first test before the lines. */
uint64_t san_pc_key(const dv_san *s, unsigned kind, uint64_t pc_a, uint64_t pc_b);
/* Adds key to the set of keys seen; false if it was there. */
bool san_seen_add(dv_san *s, uint64_t key);
const char *san_pipe_name(dv_pipe p);

#endif
