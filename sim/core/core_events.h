/* core_events.h - the events of perfcounters/events.def read from a core's
 * statistics: the simulator's side of the counter-source interface. */
#ifndef DV_CORE_EVENTS_H
#define DV_CORE_EVENTS_H

#include "core_state.h"
#include "dv_events.h"

uint64_t core_event_value(const dv_core *c, dv_event_id e);

#endif
