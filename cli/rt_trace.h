/* rt_trace.h - dvsim rt --trace: a Chrome trace (Perfetto, chrome://tracing)
 * of a runtime run: a lane per stream with a slice per launch (and its
 * launch overhead), and a lane per pipe of every core that ran, a slice
 * per instruction.  Timestamps are simulated microseconds at the chip's
 * clock; nothing of the host's time is in it, so the same run writes the
 * same file. */
#ifndef DV_RT_TRACE_H
#define DV_RT_TRACE_H

#include "dv_rt.h"

typedef struct rt_trace rt_trace;

/* Opens path (gzip when it ends in .gz) and watches d's chip (before the
 * first launch). */
rt_trace *rt_trace_create(const char *path, dv_rt_device *d, dv_error *err);
/* An instant event on stream's lane at cycle (a host function: dvsim graph's host and layout steps);
 * name is printed as is (no quotes or backslashes). */
void rt_trace_mark(rt_trace *t, unsigned stream, uint64_t cycle, const char *name);
/* Writes the streams' lanes from d's records (stream i named name(user, i))
 * and closes the file; frees t either way. */
dv_status rt_trace_finish(rt_trace *t, const dv_rt_device *d,
                          const char *(*name)(const void *user, unsigned i), const void *user,
                          unsigned nstreams, dv_error *err);
/* Closes and removes the file (the run failed before it began). */
void rt_trace_discard(rt_trace *t);

#endif
