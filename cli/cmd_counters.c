/* cmd_counters.c - dvsim counters: the event catalogue. */
#include "cli.h"
#include "dv_events.h"

#include <string.h>

void cmd_counters_help(FILE *out)
{
    fprintf(out, "usage: dvsim counters [--json]\n\n"
                 "Lists every countable event with its number (what a kernel writes to pmevtyperN),\n"
                 "name, unit and meaning.\n");
}

int cmd_counters(int argc, char **argv)
{
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else
            return cli_usage_error("counters", "unknown argument '%s'", argv[i]);
    }
    if (json)
        printf("[\n");
    for (int i = 0; i < DV_EV_COUNT; i++) {
        const dv_event_info *e = dv_event_info_of((dv_event_id)i);
        if (json) {
            printf("  {\"number\": %d, \"name\": ", i);
            cli_json_string(stdout, e->name);
            printf(", \"unit\": ");
            cli_json_string(stdout, e->unit);
            printf(", \"description\": ");
            cli_json_string(stdout, e->doc);
            printf("}%s\n", i + 1 < DV_EV_COUNT ? "," : "");
        } else {
            printf("%3d  %-32s %-13s %s\n", i, e->name, e->unit, e->doc);
        }
    }
    if (json)
        printf("]\n");
    return 0;
}
