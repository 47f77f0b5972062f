#include "dv_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dv_buf_free(dv_buf *b)
{
    free(b->data);
    *b = (dv_buf)DV_BUF_INIT;
}

bool dv_buf_reserve(dv_buf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (extra > SIZE_MAX / 2 - b->len) {
        b->oom = true;
        return false;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    /* realloc keeps the NUL of a buffer that has one; a first allocation
     * has to write it (dv_buf.h: data is a string whenever it is set). */
    p[b->len] = '\0';
    b->data = p;
    b->cap = cap;
    return true;
}

void dv_buf_append(dv_buf *b, const void *data, size_t len)
{
    if (!dv_buf_reserve(b, len))
        return;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void dv_buf_puts(dv_buf *b, const char *s)
{
    dv_buf_append(b, s, strlen(s));
}

void dv_buf_printf(dv_buf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n >= 0 && dv_buf_reserve(b, (size_t)n)) {
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

char *dv_buf_take(dv_buf *b, size_t *len)
{
    if (!b->data) /* an empty buffer is an empty string too */
        dv_buf_reserve(b, 0);
    char *p = b->data;
    if (len)
        *len = b->len;
    *b = (dv_buf)DV_BUF_INIT;
    return p;
}
