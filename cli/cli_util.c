#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_fail(const dv_error *err)
{
    fprintf(stderr, "dvsim: %s\n", err->msg);
    return dv_status_exit_code(err->status);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "dvsim %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'dvsim %s --help')\n", cmd);
    va_end(ap);
    return EXIT_USAGE;
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
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    snprintf(tmp, n, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        dv_status st = dv_error_set(err, DV_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return st;
    }
    /* mkstemp creates 0600; give the file the mode a plain fopen would. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    ok = f && fclose(f) == 0 && ok;
    if (!f)
        close(fd);
    if (!ok || rename(tmp, path) != 0) {
        dv_status st = dv_error_set(err, DV_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return st;
    }
    free(tmp);
    return DV_OK;
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
        return 70;
    }
    int rc = printf("%s\n", text) < 0 || fflush(stdout) != 0 ? 74 : 0;
    free(text);
    if (rc)
        fprintf(stderr, "dvsim: writing to standard output failed\n");
    return rc;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
