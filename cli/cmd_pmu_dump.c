/* cmd_pmu_dump.c - dvsim pmu-dump: a PMU sample file as CSV or JSON. */
#include "cli.h"
#include "dv_samples.h"
#include "dv_text.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
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
    bool oom; /* printing the names as JSON ran out of memory: no output */
    uint64_t count;
} dump;

/* An event name from the file, escaped (dv_escape: no control byte or
 * non-ASCII byte reaches the terminal or the JSON) in full: a name is at
 * most 65535 bytes, each at most 4 when escaped.  NULL: out of memory. */
static char *shown_name(const char *s)
{
    size_t n = strlen(s), size = 4 * n + 8;
    char *out = malloc(size);
    return out ? (char *)dv_escape_n(s, n, out, size) : NULL;
}

/* A CSV field, quoted when it holds a separator, a quote or a line break
 * (RFC 4180). */
static void csv_field(const char *s)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

/* The JSON output is an object with the event names and an array of the
 * records.  A sample file can hold millions of records, so the array is
 * streamed.  The names come from the file: cJSON prints them (escaped),
 * once; a record is numbers only, written here with all their digits. */
static void on_header(void *user, const char *const *names, unsigned n)
{
    dump *d = user;
    char *shown[DV_SAMPLE_MAX_EVENTS];
    unsigned made = 0;
    while (made < n && made < DV_SAMPLE_MAX_EVENTS && (shown[made] = shown_name(names[made])) != NULL)
        made++;
    if (made < n) {
        d->oom = true;
    } else if (d->json) {
        cJSON *events = cJSON_CreateStringArray((const char *const *)shown, (int)n);
        char *text = events ? cJSON_PrintUnformatted(events) : NULL;
        cJSON_Delete(events);
        if (text)
            printf("{\"events\": %s,\n \"records\": [", text);
        else
            d->oom = true;
        free(text);
    } else {
        printf("cycle,core");
        for (unsigned i = 0; i < n; i++) {
            putchar(',');
            csv_field(shown[i]);
        }
        printf("\n");
    }
    for (unsigned i = 0; i < made; i++)
        free(shown[i]);
}

static void on_record(void *user, const dv_sample *s)
{
    dump *d = user;
    if (d->oom)
        return;
    if (d->json) {
        printf("%s{\"cycle\":%" PRIu64 ",\"core\":%u,\"values\":[", d->count ? ",\n  " : "\n  ", s->cycle,
               s->core);
        for (unsigned i = 0; i < s->n; i++)
            printf("%s%" PRIu64, i ? "," : "", s->values[i]);
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
    enum { JSON = CLI_OPT_FIRST, CSV };
    static const struct option longopts[] = {{"json", no_argument, NULL, JSON},
                                             {"csv", no_argument, NULL, CSV},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    cli_getopt g;
    cli_getopt_init(&g, "pmu-dump", argc, argv, "h", longopts, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_pmu_dump_help(stdout); return 0;
        case JSON: d.json = true; break;
        case CSV: d.json = false; break;
        case CLI_ARG:
            if (path)
                return cli_usage_error("pmu-dump", "one file at a time");
            path = g.arg;
            break;
        default: return EXIT_USAGE;
        }
    }
    if (!path)
        return cli_usage_error("pmu-dump", "no sample file given");
    dv_sample_reader_cb cb = {on_header, on_record, &d};
    uint64_t records;
    dv_error err = {DV_OK, ""};
    dv_status st = dv_samples_read(path, &cb, &records, &err);
    if (st != DV_OK)
        return cli_fail(&err);
    if (d.oom) {
        fprintf(stderr, "dvsim pmu-dump: out of memory for the JSON output\n");
        return 71;
    }
    if (d.json)
        printf("\n ]}\n");
    return 0;
}
