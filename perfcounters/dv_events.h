/* dv_events.h - the event catalogue: what a performance counter can count.
 * Events are numbered in table order (events.def); a PMU's event-select
 * register takes that number. */
#ifndef DV_EVENTS_H
#define DV_EVENTS_H

#include "dv_asm.h"
#include "dv_isa.h"

#include <stddef.h>

typedef enum dv_event_id {
#define DV_EVENT(id, name, unit, doc) DV_EV_##id,
#include "events.def"
#undef DV_EVENT
    DV_EV_COUNT
} dv_event_id;

typedef struct dv_event_info {
    dv_event_id id;
    const char *name; /* "cube.macs_f16" */
    const char *unit;
    const char *doc;
    int pipe; /* the dv_pipe a per-pipe event belongs to, else -1 */
    int path; /* the dv_path a per-path event belongs to, else -1 */
} dv_event_info;

const dv_event_info *dv_event_info_of(dv_event_id id); /* NULL if out of range */
const dv_event_info *dv_event_find(const char *name);  /* NULL if unknown */
/* The event numbers as assembler constants ev.<name> ("ev.cube.fractals"),
 * for dv_asm_options.symbols: kernels that program the PMU name events. */
const dv_asm_symbol *dv_event_asm_symbols(size_t *count);

#endif
