/* cmd_pmu_dump.c - dvsim pmu-dump: a PMU sample file as CSV or JSON. */
#include "cli.h"
#include "dv_samples.h"

#include <inttypes.h>
#include <string.h>

void cmd_pmu_dump_help(FILE *out)
{
    fprintf(out, "usage: dvsim pmu-dump FILE [--csv | --json]\n\n"
                 "Prints the records of a sample file written by dvsim run --pmu ... --pmu-period P:\n"
                 "one line per record (cycle, core, then one column per event), CSV by default.\n"
                 "A file cut short by an interrupted run reads back up to its last complete record.\n");
}

typedef struct dump {
    bool json;
    unsigned n;
    uint64_t count;
    char names[64][64];
} dump;

static void on_header(void *user, const char *const *names, unsigned n)
{
    dump *d = user;
    d->n = n;
    for (unsigned i = 0; i < n && i < 64; i++)
        snprintf(d->names[i], sizeof d->names[i], "%s", names[i]);
    if (d->json) {
        printf("{\"events\": [");
        for (unsigned i = 0; i < n; i++)
            printf("%s\"%s\"", i ? ", " : "", d->names[i]);
        printf("],\n \"records\": [");
    } else {
        printf("cycle,core");
        for (unsigned i = 0; i < n; i++)
            printf(",%s", d->names[i]);
        printf("\n");
    }
}

static void on_record(void *user, const dv_sample *s)
{
    dump *d = user;
    if (d->json) {
        printf("%s\n  {\"cycle\": %" PRIu64 ", \"core\": %u, \"values\": [", d->count ? "," : "", s->cycle,
               s->core);
        for (unsigned i = 0; i < s->n; i++)
            printf("%s%" PRIu64, i ? ", " : "", s->values[i]);
        printf("]}");
    } else {
        printf("%" PRIu64 ",%u", s->cycle, s->core);
        for (unsigned i = 0; i < s->n; i++)
            printf(",%" PRIu64, s->values[i]);
        printf("\n");
    }
    d->count++;
}

int cmd_pmu_dump(int argc, char **argv)
{
    const char *path = NULL;
    dump d;
    memset(&d, 0, sizeof d);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            d.json = true;
        else if (strcmp(argv[i], "--csv") == 0)
            d.json = false;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("pmu-dump", "unknown option '%s'", argv[i]);
        else if (path)
            return cli_usage_error("pmu-dump", "one file at a time");
        else
            path = argv[i];
    }
    if (!path)
        return cli_usage_error("pmu-dump", "no sample file given");
    dv_sample_reader_cb cb = {on_header, on_record, &d};
    uint64_t records;
    dv_error err = {DV_OK, ""};
    dv_status st = dv_samples_read(path, &cb, &records, &err);
    if (d.json && st == DV_OK)
        printf("\n ]}\n");
    return st == DV_OK ? 0 : cli_fail(&err);
}
