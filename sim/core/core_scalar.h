/* core_scalar.h - the Scalar unit: fetch, scalar instructions, CSRs, and
 * dispatch of everything else into the pipe queues. */
#ifndef DV_CORE_SCALAR_H
#define DV_CORE_SCALAR_H

#include "core_state.h"

/* The Scalar unit's event (dv_event_fn). */
void core_scalar_event(dv_event *ev, void *ctx);
/* The run stops right after the event it last fired (a fault, an
 * interruption): undoes what the Scalar unit ran ahead of the queue that
 * comes after that event, so the core is as if every instruction had been
 * an event. */
void core_scalar_rewind(dv_core *c);

#endif
