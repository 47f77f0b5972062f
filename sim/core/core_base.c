/* core_base.c - scheduling, faults and source lines of a core. */
#include "core_base.h"

#include <stdarg.h>
#include <stdio.h>

void core_schedule(dv_core *c, dv_event *ev, uint64_t cycle, dv_evprio prio)
{
    dv_error err;
    if (dv_evq_schedule(c->q, ev, cycle, prio, &err) != DV_OK) {
        c->stop = DV_STOP_FAULT;
        core_stop_changed(c);
        snprintf(c->stop_msg, sizeof c->stop_msg, "internal: %s", err.msg);
    }
}

void core_schedule_pipe(dv_core *c, dv_pipe_state *p, uint64_t cycle, dv_evprio prio)
{
    core_schedule(c, &p->ev, cycle, prio);
    c->pipe_due[p->id] = dv_event_queued(&p->ev) ? p->ev.cycle : UINT64_MAX;
}

void core_wake_scalar(dv_core *c)
{
    if (c->stop == DV_STOP_NONE && !c->ended && !dv_event_queued(&c->scalar_ev))
        core_schedule(c, &c->scalar_ev, c->q->now, DV_PRIO_SCALAR);
}

const char *core_source_of(const dv_core *c, uint64_t pc, char *buf, size_t size)
{
    return dv_obj_source_of(c->obj, pc, buf, size);
}

void core_fault(dv_core *c, dv_pipe pipe, uint64_t pc, const char *fmt, ...)
{
    if (c->stop != DV_STOP_NONE)
        return;
    char what[600], src[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    c->stop = DV_STOP_FAULT;
    core_stop_changed(c);
    c->end_cycle = c->q->now;
    snprintf(c->stop_msg, sizeof c->stop_msg, "core %llu, pipe %s, pc 0x%llx (%s), cycle %llu: %s",
             (unsigned long long)c->core_id, dv_pipe_trace_name(pipe), (unsigned long long)pc,
             core_source_of(c, pc, src, sizeof src), (unsigned long long)c->q->now, what);
}
