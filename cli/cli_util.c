#include "cli.h"
#include "dv_file.h"
#include "dv_num.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cli_fail(const dv_error *err)
{
    fprintf(stderr, "dvsim: %s\n", err->msg);
    return dv_status_exit_code(err->status);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "dvsim%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'dvsim%s%s --help')\n", cmd ? " " : "", cmd ? cmd : "");
    va_end(ap);
    return EXIT_USAGE;
}

void cli_getopt_init(cli_getopt *g, const char *cmd, int argc, char **argv, const char *shortopts,
                     const struct option *longopts, bool in_order)
{
    *g = (cli_getopt){.cmd = cmd, .argc = argc, .argv = argv, .longopts = longopts};
    /* '-' or '+' first: the order (overriding POSIXLY_CORRECT); ':' next:
     * getopt prints nothing and tells a missing value from an unknown option */
    snprintf(g->optstring, sizeof g->optstring, "%c:%s", in_order ? '+' : '-', shortopts);
    optind = 0; /* glibc: a full reset, also of a scan an earlier command left halfway */
    opterr = 0;
}

/* The one line for getopt's complaint about argv[at]. */
static int getopt_complaint(const cli_getopt *g, int c, const char *elem)
{
    if (strncmp(elem, "--", 2) != 0 || !elem[2]) { /* a short option: getopt says which in optopt */
        if (c == ':')
            return cli_usage_error(g->cmd, "-%c needs a value", optopt);
        return cli_usage_error(g->cmd, "unknown option '-%c'", optopt);
    }
    const char *name = elem + 2;
    int len = (int)strcspn(name, "=");
    if (c == ':')
        return cli_usage_error(g->cmd, "--%.*s needs a value", len, name);
    if (optopt) /* getopt found the option: it takes no value, and got one */
        return cli_usage_error(g->cmd, "--%.*s takes no value, not '%s'", len, name, name + len + 1);
    char cands[256] = "";
    unsigned n = 0;
    for (const struct option *o = g->longopts; o && o->name; o++) {
        if (strncmp(o->name, name, (size_t)len) == 0) {
            size_t used = strlen(cands);
            snprintf(cands + used, sizeof cands - used, "%s--%s", n++ ? ", " : "", o->name);
        }
    }
    if (n > 1)
        return cli_usage_error(g->cmd, "ambiguous option '--%.*s' (%s)", len, name, cands);
    return cli_usage_error(g->cmd, "unknown option '--%.*s'", len, name);
}

int cli_getopt_next(cli_getopt *g)
{
    if (g->rest) {
        if (optind >= g->argc)
            return -1;
        g->arg = g->argv[optind++];
        return CLI_ARG;
    }
    /* the element getopt is about to read (a cluster of short options
     * stays at its element until its last letter) */
    int at = optind ? optind : 1;
    int c = getopt_long(g->argc, g->argv, g->optstring, g->longopts, NULL);
    g->arg = optarg;
    if (c == -1) { /* the end, or "--" (optind is past it), or the command (in_order) */
        g->rest = true;
        return cli_getopt_next(g);
    }
    if (c == '?' || c == ':') {
        getopt_complaint(g, c, at < g->argc ? g->argv[at] : "");
        return CLI_BAD;
    }
    return c;
}

bool cli_parse_u64(const char *s, uint64_t *v)
{
    return dv_parse_u64(s, v);
}

bool cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

dv_status cli_write_file(const char *path, const void *data, size_t len, dv_error *err)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
            return dv_error_set(err, DV_ERR_IO, "write to standard output failed");
        return DV_OK;
    }
    return dv_write_file_atomic(path, data, len, err);
}

cJSON *cli_json_u64(uint64_t v)
{
    /* cJSON keeps numbers as doubles and prints 15 significant digits: a
     * counter past 2^53 or 1e15 would lose digits or gain an exponent. */
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, v);
    return cJSON_CreateRaw(text);
}

bool cli_json_add_u64(cJSON *obj, const char *key, uint64_t v)
{
    cJSON *item = cli_json_u64(v);
    if (item && cJSON_AddItemToObject(obj, key, item))
        return true;
    cJSON_Delete(item);
    return false;
}

int cli_print_json(cJSON *root, bool ok)
{
    char *text = ok && root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text) {
        fprintf(stderr, "dvsim: out of memory for the JSON output\n");
        return 71;
    }
    printf("%s\n", text);
    free(text);
    return cli_stdout_done();
}

int cli_stdout_done(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "dvsim: writing to standard output failed\n");
    return 74;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
