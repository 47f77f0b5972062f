#include "dv_events.h"

#include <string.h>

static const dv_event_info events[DV_EV_COUNT] = {
#define DV_EVENT(id, name, unit, doc) {DV_EV_##id, name, unit, doc},
#include "events.def"
#undef DV_EVENT
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
