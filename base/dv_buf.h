/* dv_buf.h - a growable byte/text buffer. */
#ifndef DV_BUF_H
#define DV_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dv_buf {
    char *data; /* always NUL-terminated when non-NULL */
    size_t len;
    size_t cap;
    bool oom; /* an allocation failed; further appends are dropped */
} dv_buf;

#define DV_BUF_INIT                                                                                          \
    {                                                                                                        \
        NULL, 0, 0, false                                                                                    \
    }

void dv_buf_free(dv_buf *b);
/* Room for `extra` more bytes and the NUL after them; false (oom set) if
 * it cannot be had or an earlier allocation failed.  Once data is set,
 * data[len] is NUL, from the first allocation on. */
bool dv_buf_reserve(dv_buf *b, size_t extra);
void dv_buf_append(dv_buf *b, const void *data, size_t len);
void dv_buf_puts(dv_buf *b, const char *s);
void dv_buf_printf(dv_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the buffer to the caller (who frees it) and resets b: a string,
 * "" for an empty buffer; NULL only if no memory could be had for that. */
char *dv_buf_take(dv_buf *b, size_t *len);

#endif
