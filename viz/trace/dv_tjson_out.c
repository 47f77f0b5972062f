/* dv_tjson_out.c - how the Chrome trace is written: JSON text gathered in
 * a buffer and deflated into one gzip member of a file created under a
 * temporary name (renamed when the trace is finished, so a file that exists
 * is complete), with a Z_SYNC_FLUSH per buffer so that what was written
 * reads back after an interruption. */
#include "dv_tjson_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- output: a buffer, zlib, the file ---- */

void tj_fail(dv_tjson *t, const char *what)
{
    if (!t->failed)
        snprintf(t->failmsg, sizeof t->failmsg, "%s: %s", t->path, what);
    t->failed = true;
}

void tj_deflate(dv_tjson *t, int flush)
{
    if (t->failed) {
        t->len = 0; /* nothing more reaches the file */
        return;
    }
    unsigned char out[65536];
    t->z.next_in = (Bytef *)t->buf;
    t->z.avail_in = (uInt)t->len;
    do {
        t->z.next_out = out;
        t->z.avail_out = sizeof out;
        int rc = deflate(&t->z, flush);
        if (rc == Z_STREAM_ERROR) {
            tj_fail(t, "zlib error");
            return;
        }
        size_t n = sizeof out - t->z.avail_out;
        if (n && fwrite(out, 1, n, t->f) != n) {
            tj_fail(t, strerror(errno));
            return;
        }
        t->tot.gz_bytes += n;
    } while (t->z.avail_out == 0);
    t->tot.json_bytes += t->len;
    t->len = 0;
    if (flush == Z_SYNC_FLUSH && fflush(t->f) != 0)
        tj_fail(t, strerror(errno));
}

static void tj_need(dv_tjson *t, size_t n)
{
    if (t->len + n > BUF_BYTES)
        tj_deflate(t, Z_SYNC_FLUSH);
}

void tj_put(dv_tjson *t, const char *s, size_t n)
{
    if (n > BUF_BYTES / 2) /* never: events are small; a long string is cut */
        n = BUF_BYTES / 2;
    tj_need(t, n);
    memcpy(t->buf + t->len, s, n);
    t->len += n;
}

void tj_puts(dv_tjson *t, const char *s)
{
    tj_put(t, s, strlen(s));
}

void tj_u64(dv_tjson *t, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    tj_need(t, (size_t)n);
    while (n)
        t->buf[t->len++] = tmp[--n];
}

/* The length of the well-formed UTF-8 sequence at s (1 to 4), or 0 if it
 * is not one: a stray continuation byte, a truncated sequence, an overlong
 * form, a surrogate or a code point past U+10FFFF. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0], cp, min;
    size_t n;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, min = 0x10000;
    else
        return 0;
    cp = c & (0x3fu >> (n - 1));
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) /* the terminating NUL stops here too */
            return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    return cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0 : n;
}

/* A JSON string literal (RFC 8259): quote, backslash and control characters
 * escaped.  The strings come from file names, INI files and the command line,
 * so they may be any bytes; a byte that is not part of well-formed UTF-8
 * becomes U+FFFD, so the trace stays valid JSON for strict readers. */
void tj_jstr(dv_tjson *t, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    tj_put(t, "\"", 1);
    while (*s) {
        /* a run of bytes that go out as they are, in pieces tj_put takes whole */
        size_t run = 0;
        while (run < 4096 && s[run] >= 0x20 && s[run] != '"' && s[run] != '\\') {
            size_t n = utf8_len(s + run);
            if (!n)
                break;
            run += n;
        }
        if (run) {
            tj_put(t, (const char *)s, run);
            s += run;
            continue;
        }
        char esc[8] = {'\\', 0};
        switch (*s) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default: break;
        }
        if (esc[1]) {
            tj_put(t, esc, 2);
        } else if (*s < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *s);
            tj_put(t, esc, 6);
        } else {
            tj_put(t, "\\ufffd", 6);
        }
        s++;
    }
    tj_put(t, "\"", 1);
}

/* Nanoseconds at the chip clock, rounded down. */
uint64_t tj_ns(const dv_tjson *t, uint64_t cycle)
{
    cycle += t->base;
    return t->mhz == 1000 ? cycle : cycle * 1000 / t->mhz;
}

/* A time in microseconds with exactly three decimals (whole nanoseconds). */
void tj_us(dv_tjson *t, uint64_t ns)
{
    tj_u64(t, ns / 1000);
    char frac[4] = {'.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10), (char)('0' + ns % 10)};
    tj_put(t, frac, 4);
}

/* Starts an event: the separator, then {"ph":"P","pid":N,"tid":N,"ts":T */
void tj_event_start(dv_tjson *t, char ph, unsigned core, unsigned lane, uint64_t cycle)
{
    if (!t->first)
        tj_put(t, ",\n", 2);
    t->first = false;
    char head[] = "{\"ph\":\"?\",\"pid\":";
    head[7] = ph;
    tj_put(t, head, sizeof head - 1);
    uint64_t pid = core < t->ncores && t->pid ? t->pid[core] : core + 1;
    tj_u64(t, pid);
    tj_puts(t, ",\"tid\":");
    tj_u64(t, pid * 100 + lane);
    tj_puts(t, ",\"ts\":");
    tj_us(t, tj_ns(t, cycle));
    t->tot.events++;
}

bool tj_open(dv_tjson *t, const char *path, dv_error *err)
{
    size_t n = strlen(path);
    t->path = malloc(n + 1);
    t->tmp = malloc(n + 16);
    t->buf = malloc(BUF_BYTES);
    if (!t->path || !t->tmp || !t->buf) {
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        tj_close(t);
        return false;
    }
    memcpy(t->path, path, n + 1);
    snprintf(t->tmp, n + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(t->tmp);
    if (fd >= 0) {
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
        t->f = fdopen(fd, "wb");
        if (!t->f)
            close(fd);
    }
    if (!t->f) {
        dv_error_set(err, DV_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        if (fd >= 0)
            unlink(t->tmp);
        tj_close(t);
        return false;
    }
    /* windowBits 15 + 16: a gzip wrapper; one member for the whole file.
     * Level 1: the trace is large and written while the simulation waits. */
    if (deflateInit2(&t->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        dv_error_set(err, DV_ERR_NOMEM, "zlib: out of memory");
        tj_abandon(t);
        tj_close(t);
        return false;
    }
    t->zinit = true;
    return true;
}

dv_status tj_finish(dv_tjson *t, dv_error *err)
{
    tj_deflate(t, Z_FINISH);
    if (fclose(t->f) != 0)
        tj_fail(t, strerror(errno));
    t->f = NULL;
    if (!t->failed && rename(t->tmp, t->path) != 0)
        tj_fail(t, strerror(errno));
    if (t->failed) {
        unlink(t->tmp);
        return dv_error_set(err, DV_ERR_IO, "%s", t->failmsg);
    }
    return DV_OK;
}

void tj_abandon(dv_tjson *t)
{
    if (t->f) {
        fclose(t->f);
        t->f = NULL;
        unlink(t->tmp);
    }
}

void tj_close(dv_tjson *t)
{
    if (t->zinit)
        deflateEnd(&t->z);
    t->zinit = false;
    if (t->f)
        fclose(t->f);
    t->f = NULL;
    free(t->buf);
    free(t->path);
    free(t->tmp);
    t->buf = t->path = t->tmp = NULL;
}
