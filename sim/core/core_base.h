/* core_base.h - what every part of a core needs: scheduling its events,
 * waking the Scalar unit, recording a guest fault, naming source lines. */
#ifndef DV_CORE_BASE_H
#define DV_CORE_BASE_H

#include "core_state.h"

#include <stddef.h>

void core_schedule(dv_core *c, dv_event *ev, uint64_t cycle, dv_evprio prio);
/* The same for pipe p's event, noting when it is due in c->pipe_due. */
void core_schedule_pipe(dv_core *c, dv_pipe_state *p, uint64_t cycle, dv_evprio prio);
/* Schedules the Scalar unit now unless it is already due, ended or stopped. */
void core_wake_scalar(dv_core *c);
/* Stops the core with a guest fault at pc of `pipe` (the first fault wins). */
void core_fault(dv_core *c, dv_pipe pipe, uint64_t pc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "file.dvs:12" for pc, or "no source line". */
const char *core_source_of(const dv_core *c, uint64_t pc, char *buf, size_t size);

/* Tells the launch that c->stop changed (it rescans its cores then). */
static inline void core_stop_changed(dv_core *c)
{
    if (c->stop_seq)
        ++*c->stop_seq;
}

#endif
