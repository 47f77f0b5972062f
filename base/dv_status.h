/* dv_status.h - the status and error type every dvsim library returns.
 *
 * Fallible functions return a dv_status and, on failure, fill a caller-owned
 * dv_error with one line a person can act on ("k.dvs:12:9: unknown register
 * 'ub9'").  Libraries never print and never exit; the CLI maps a status to an
 * exit code (the sysexits-style codes of CONVENTIONS.md). */
#ifndef DV_STATUS_H
#define DV_STATUS_H

#include <stdarg.h>
#include <stddef.h>

typedef enum dv_status {
    DV_OK = 0,
    DV_ERR_USAGE,    /* bad command line or API misuse by the caller */
    DV_ERR_INPUT,    /* malformed input data: assembly, ELF, shapes */
    DV_ERR_MISSING,  /* an input file does not exist or cannot be opened */
    DV_ERR_IO,       /* read/write failure on an open file */
    DV_ERR_CONFIG,   /* bad chip configuration */
    DV_ERR_NOMEM,    /* allocation failed */
    DV_ERR_INTERNAL, /* a bug in dvsim */
} dv_status;

enum { DV_ERROR_MSG_MAX = 512 };

typedef struct dv_error {
    dv_status status;
    char msg[DV_ERROR_MSG_MAX];
} dv_error;

/* Records status and a printf-style message in err (if err is not NULL) and
 * returns status, so callers can write `return dv_error_set(err, ...)`. */
dv_status dv_error_set(dv_error *err, dv_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
dv_status dv_error_vset(dv_error *err, dv_status status, const char *fmt, va_list ap);

/* Prefixes the existing message with "prefix: ". */
void dv_error_prefix(dv_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void dv_error_clear(dv_error *err);

/* Short name of a status ("input", "config", ...). */
const char *dv_status_name(dv_status status);

/* The process exit code a CLI uses for a status (0, 64, 65, 66, 70, 71 out of memory, 74, 78;
 * docs/errors.md). */
int dv_status_exit_code(dv_status status);

#endif
