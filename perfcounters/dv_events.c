/* dv_events.c - the event catalogue as a table (events.def). */
#include "dv_events.h"

#include <string.h>

static const dv_event_info events[DV_EV_COUNT] = {
#define DV_EVENT(id, name, unit, doc) {DV_EV_##id, name, unit, doc, -1, -1},
#define DV_EVENT_PIPE(id, name, unit, doc, pipe) {DV_EV_##id, name, unit, doc, DV_PIPE_##pipe, -1},
#define DV_EVENT_PATH(id, name, unit, doc, path) {DV_EV_##id, name, unit, doc, -1, DV_PATH_##path},
#include "events.def"
#undef DV_EVENT
#undef DV_EVENT_PIPE
#undef DV_EVENT_PATH
};

const dv_event_info *dv_event_info_of(dv_event_id id)
{
    return (unsigned)id < DV_EV_COUNT ? &events[id] : NULL;
}

const dv_event_info *dv_event_find(const char *name)
{
    for (int i = 0; i < DV_EV_COUNT; i++)
        if (strcmp(events[i].name, name) == 0)
            return &events[i];
    return NULL;
}

static const dv_asm_symbol asm_symbols[DV_EV_COUNT] = {
#define DV_EVENT(id, name, unit, doc) {"ev." name, DV_EV_##id},
#include "events.def"
#undef DV_EVENT
};

const dv_asm_symbol *dv_event_asm_symbols(size_t *count)
{
    *count = DV_EV_COUNT;
    return asm_symbols;
}
