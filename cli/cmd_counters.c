/* cmd_counters.c - dvsim counters: the event catalogue. */
#include "cli.h"
#include "dv_events.h"

#include <getopt.h>

void cmd_counters_help(FILE *out)
{
    fprintf(out, "usage: dvsim counters [--json]\n\n"
                 "Lists every countable event with its number (what a kernel writes to pmevtyperN),\n"
                 "name, unit and meaning.\n");
}

static int print_json(void)
{
    cJSON *list = cJSON_CreateArray();
    bool ok = list != NULL;
    for (int i = 0; ok && i < DV_EV_COUNT; i++) {
        const dv_event_info *e = dv_event_info_of((dv_event_id)i);
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(list, o);
        if (!ok)
            cJSON_Delete(o);
        ok = ok && cJSON_AddNumberToObject(o, "number", i) && cJSON_AddStringToObject(o, "name", e->name) &&
             cJSON_AddStringToObject(o, "unit", e->unit) && cJSON_AddStringToObject(o, "description", e->doc);
    }
    return cli_print_json(list, ok);
}

int cmd_counters(int argc, char **argv)
{
    enum { JSON = CLI_OPT_FIRST };
    static const struct option longopts[] = {
        {"json", no_argument, NULL, JSON}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    bool json = false;
    cli_getopt g;
    cli_getopt_init(&g, "counters", argc, argv, "h", longopts, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_counters_help(stdout); return 0;
        case JSON: json = true; break;
        case CLI_ARG: return cli_usage_error("counters", "unknown argument '%s'", g.arg);
        default: return EXIT_USAGE;
        }
    }
    if (json)
        return print_json();
    for (int i = 0; i < DV_EV_COUNT; i++) {
        const dv_event_info *e = dv_event_info_of((dv_event_id)i);
        printf("%3d  %-32s %-13s %s\n", i, e->name, e->unit, e->doc);
    }
    return 0;
}
