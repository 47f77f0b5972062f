#include "dv_status.h"

#include <stdio.h>
#include <string.h>

dv_status dv_error_vset(dv_error *err, dv_status status, const char *fmt, va_list ap)
{
    if (err) {
        err->status = status;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return status;
}

dv_status dv_error_set(dv_error *err, dv_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dv_error_vset(err, status, fmt, ap);
    va_end(ap);
    return status;
}

void dv_error_prefix(dv_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char prefix[DV_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    /* Build "prefix: old" by hand; the result is cut at the buffer size. */
    char old[DV_ERROR_MSG_MAX];
    memcpy(old, err->msg, sizeof old);
    size_t n = strlen(prefix);
    if (n > sizeof err->msg - 1)
        n = sizeof err->msg - 1;
    memcpy(err->msg, prefix, n);
    const char *parts[2] = {": ", old};
    for (int i = 0; i < 2; i++) {
        size_t len = strlen(parts[i]);
        if (len > sizeof err->msg - 1 - n)
            len = sizeof err->msg - 1 - n;
        memcpy(err->msg + n, parts[i], len);
        n += len;
    }
    err->msg[n] = '\0';
}

void dv_error_clear(dv_error *err)
{
    if (err) {
        err->status = DV_OK;
        err->msg[0] = '\0';
    }
}

const char *dv_status_name(dv_status status)
{
    switch (status) {
    case DV_OK: return "ok";
    case DV_ERR_USAGE: return "usage";
    case DV_ERR_INPUT: return "input";
    case DV_ERR_MISSING: return "missing";
    case DV_ERR_IO: return "io";
    case DV_ERR_CONFIG: return "config";
    case DV_ERR_NOMEM: return "nomem";
    case DV_ERR_INTERNAL: return "internal";
    }
    return "unknown";
}

int dv_status_exit_code(dv_status status)
{
    switch (status) {
    case DV_OK: return 0;
    case DV_ERR_USAGE: return 64;
    case DV_ERR_INPUT: return 65;
    case DV_ERR_MISSING: return 66;
    case DV_ERR_IO: return 74;
    case DV_ERR_CONFIG: return 78;
    case DV_ERR_NOMEM: return 71; /* EX_OSERR: the host could not give the memory asked for */
    case DV_ERR_INTERNAL: return 70;
    }
    return 70;
}
