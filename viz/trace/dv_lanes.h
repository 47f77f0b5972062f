/* dv_lanes.h - the lanes a trace and the viz window show for a core: one per
 * pipe, named as msprof names them (isa/pipes.def), then FLOWCTRL for the
 * Scalar unit's stalls (a full queue, a flag, a barrier). */
#ifndef DV_LANES_H
#define DV_LANES_H

#include "dv_isa.h"

enum { DV_LANES = DV_PIPE_COUNT + 1, DV_LANE_FLOWCTRL = DV_PIPE_COUNT };

static inline const char *dv_lane_name(unsigned lane)
{
    return lane < DV_PIPE_COUNT ? dv_pipe_trace_name((dv_pipe)lane) : "FLOWCTRL";
}

#endif
