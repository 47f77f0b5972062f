/* rt_script_priv.h - a parsed dvsim rt script (rt_script.c parses it,
 * rt_script_run.c runs it).  Private to those two files. */
#ifndef DV_RT_SCRIPT_PRIV_H
#define DV_RT_SCRIPT_PRIV_H

#include "rt_script.h"

enum { MAX_NAMES = 64, MAX_TOK = 48, MAX_OBJS = 32 };

typedef enum line_kind {
    L_STREAM,
    L_EVENT,
    L_BUF,
    L_OP,
    L_KERNEL,
    L_RECORD,
    L_WAIT,
    L_CALLBACK,
    L_SYNC,
    L_DUMP
} line_kind;

typedef struct kernel_arg {
    int buf; /* -1: a number */
    uint64_t v;
} kernel_arg;

typedef struct rt_line {
    line_kind kind;
    unsigned lineno;
    int stream, event, buf; /* indices, -1 if none */
    /* op */
    char op[64], shape[256], variant[64], dtype[64];
    uint64_t seed, blocks;
    dv_coreset cores;
    bool has_cores, check;
    unsigned nbind;
    char bind_name[DV_OPR_MAX_TENSORS][32];
    int bind_buf[DV_OPR_MAX_TENSORS];
    /* kernel */
    int obj;
    char entry[64];
    unsigned nargs;
    kernel_arg args[DV_MAX_KERNEL_ARGS];
    /* callback */
    struct rt_line *sub;
    uint64_t repeat;
    /* dump */
    char path[512];
} rt_line;

typedef struct rt_buf {
    char name[32];
    uint64_t bytes;
    enum { FILL_ZEROS, FILL_RANDOM, FILL_FILE } fill;
    uint64_t seed;
    char path[512];
    uint64_t addr;
} rt_buf;

/* A callback's state while its chain lasts. */
typedef struct rt_cb {
    rt_script *s;
    const rt_line *line;
    uint64_t left;
} rt_cb;

struct rt_script {
    char path[512];
    unsigned ncores;
    rt_line *lines;
    unsigned n, cap;
    char streams[MAX_NAMES][32], events[MAX_NAMES][32];
    unsigned nstreams, nevents;
    rt_buf bufs[MAX_NAMES];
    unsigned nbufs;
    struct {
        char path[512];
        dv_obj *obj;
    } objs[MAX_OBJS];
    unsigned nobjs;
    /* running */
    dv_rt_device *d;
    dv_rt_stream *st[MAX_NAMES];
    dv_rt_event *ev[MAX_NAMES];
    rt_cb **cbs;
    unsigned ncbs, capcbs;
    dv_error cb_err; /* the first error of a callback's command */
    unsigned cb_line;
};

#endif
