#include "dv_samples.h"

#include "dv_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

dv_status dv_ring_init(dv_sample_ring *r, size_t capacity, dv_error *err)
{
    memset(r, 0, sizeof *r);
    r->cap = capacity ? capacity : 1;
    r->slots = calloc(r->cap, sizeof *r->slots);
    if (!r->slots)
        return dv_error_set(err, DV_ERR_NOMEM, "cannot allocate a sample ring of %zu records", capacity);
    return DV_OK;
}

void dv_ring_free(dv_sample_ring *r)
{
    free(r->slots);
    memset(r, 0, sizeof *r);
}

bool dv_ring_push(dv_sample_ring *r, const dv_sample *s)
{
    if (r->count == r->cap) {
        r->lost++;
        return false;
    }
    r->slots[(r->head + r->count) % r->cap] = *s;
    r->count++;
    return true;
}

bool dv_ring_pop(dv_sample_ring *r, dv_sample *out)
{
    if (!r->count)
        return false;
    *out = r->slots[r->head];
    r->head = (r->head + 1) % r->cap;
    r->count--;
    return true;
}

struct dv_sample_writer {
    gzFile gz;
    char *path;
};

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static dv_status gz_put(dv_sample_writer *w, const void *data, unsigned len, dv_error *err)
{
    if (len && gzwrite(w->gz, data, len) != (int)len)
        return dv_error_set(err, DV_ERR_IO, "%s: write failed", w->path);
    return DV_OK;
}

dv_sample_writer *dv_samples_create(const char *path, const char *const *names, unsigned n, dv_error *err)
{
    if (n > DV_SAMPLE_MAX_EVENTS) {
        dv_error_set(err, DV_ERR_USAGE, "at most %d events per sample file", DV_SAMPLE_MAX_EVENTS);
        return NULL;
    }
    dv_sample_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    w->gz = gzopen(path, "wb");
    if (!w->gz) {
        dv_error_set(err, DV_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        free(w->path);
        free(w);
        return NULL;
    }
    uint8_t head[12];
    memcpy(head, "DVPM", 4);
    put_le(head + 4, DV_SAMPLES_VERSION, 4);
    put_le(head + 8, n, 4);
    dv_status st = gz_put(w, head, sizeof head, err);
    for (unsigned i = 0; i < n && st == DV_OK; i++) {
        uint8_t len[2];
        size_t l = strlen(names[i]);
        put_le(len, l, 2);
        st = gz_put(w, len, 2, err);
        if (st == DV_OK)
            st = gz_put(w, names[i], (unsigned)l, err);
    }
    if (st == DV_OK)
        st = dv_samples_flush(w, err);
    if (st != DV_OK) {
        gzclose(w->gz);
        free(w->path);
        free(w);
        return NULL;
    }
    return w;
}

dv_status dv_samples_write(dv_sample_writer *w, const dv_sample *s, dv_error *err)
{
    uint8_t rec[16 + 8 * DV_SAMPLE_MAX_EVENTS];
    put_le(rec, s->cycle, 8);
    put_le(rec + 8, s->core, 4);
    put_le(rec + 12, s->n, 4);
    for (unsigned i = 0; i < s->n; i++)
        put_le(rec + 16 + 8 * i, s->values[i], 8);
    return gz_put(w, rec, 16 + 8 * s->n, err);
}

dv_status dv_samples_flush(dv_sample_writer *w, dv_error *err)
{
    if (gzflush(w->gz, Z_SYNC_FLUSH) != Z_OK)
        return dv_error_set(err, DV_ERR_IO, "%s: flush failed", w->path);
    return DV_OK;
}

dv_status dv_samples_close(dv_sample_writer *w, dv_error *err)
{
    if (!w)
        return DV_OK;
    int rc = gzclose(w->gz);
    dv_status st = rc == Z_OK ? DV_OK : dv_error_set(err, DV_ERR_IO, "%s: close failed", w->path);
    free(w->path);
    free(w);
    return st;
}

/* Reads exactly n bytes; false at a clean or cut-short end. */
static bool gz_get(gzFile gz, void *buf, unsigned n)
{
    return n == 0 || gzread(gz, buf, n) == (int)n;
}

/* Why a read stopped short: the end of what was flushed (a file cut short
 * by an interrupted run is read up to there: zlib's Z_BUF_ERROR, or a clean
 * end) is fine; damaged data (a wrong CRC or length in the gzip trailer, a
 * broken deflate stream: Z_DATA_ERROR) or a read error is not. */
static dv_status gz_end(gzFile gz, const char *path, uint64_t records, dv_error *err)
{
    int code = Z_OK;
    const char *msg = gzerror(gz, &code);
    if (code == Z_OK || code == Z_BUF_ERROR)
        return DV_OK;
    if (code == Z_ERRNO)
        return dv_error_set(err, DV_ERR_IO, "%s: read failed: %s", path, strerror(errno));
    if (code == Z_MEM_ERROR)
        return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", path);
    const char *colon = msg ? strstr(msg, ": ") : NULL; /* gzdopen's "<fd:3>: " before zlib's words */
    if (colon)
        msg = colon + 2;
    return dv_error_set(err, DV_ERR_INPUT, "%s: damaged gzip data after %llu records (%s)", path,
                        (unsigned long long)records, msg ? msg : "zlib error");
}

dv_status dv_samples_read(const char *path, const dv_sample_reader_cb *cb, uint64_t *records, dv_error *err)
{
    *records = 0;
    int fd = dv_open_input_fd(path, err);
    return fd >= 0 ? dv_samples_read_fd(fd, path, cb, records, err) : err ? err->status : DV_ERR_MISSING;
}

dv_status dv_samples_read_fd(int fd, const char *path, const dv_sample_reader_cb *cb, uint64_t *records,
                             dv_error *err)
{
    *records = 0;
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", path);
    }
    uint8_t head[12];
    dv_status st = DV_OK;
    char *names[DV_SAMPLE_MAX_EVENTS] = {NULL};
    unsigned n = 0;
    *records = 0;
    if (!gz_get(gz, head, sizeof head) || memcmp(head, "DVPM", 4) != 0) {
        if ((st = gz_end(gz, path, 0, err)) == DV_OK)
            st = dv_error_set(err, DV_ERR_INPUT, "%s: not a dvsim PMU sample file", path);
        goto out;
    }
    if (get_le(head + 4, 4) != DV_SAMPLES_VERSION) {
        st = dv_error_set(err, DV_ERR_INPUT, "%s: sample format version %llu, this dvsim reads %d", path,
                          (unsigned long long)get_le(head + 4, 4), DV_SAMPLES_VERSION);
        goto out;
    }
    n = (unsigned)get_le(head + 8, 4);
    if (n > DV_SAMPLE_MAX_EVENTS) {
        st = dv_error_set(err, DV_ERR_INPUT, "%s: %u events (at most %d)", path, n, DV_SAMPLE_MAX_EVENTS);
        n = 0;
        goto out;
    }
    for (unsigned i = 0; i < n; i++) {
        uint8_t len[2];
        if (!gz_get(gz, len, 2) || !(names[i] = calloc(1, get_le(len, 2) + 1)) ||
            !gz_get(gz, names[i], (unsigned)get_le(len, 2))) {
            if ((st = gz_end(gz, path, 0, err)) == DV_OK)
                st = dv_error_set(err, DV_ERR_INPUT, "%s: header cut short", path);
            goto out;
        }
    }
    if (cb->on_header)
        cb->on_header(cb->user, (const char *const *)names, n);
    for (;;) {
        uint8_t rec[16];
        dv_sample s;
        if (!gz_get(gz, rec, 16)) { /* the end, a record cut short by an interrupted run, or damage */
            st = gz_end(gz, path, *records, err);
            break;
        }
        s.cycle = get_le(rec, 8);
        s.core = (uint32_t)get_le(rec + 8, 4);
        s.n = (uint32_t)get_le(rec + 12, 4);
        if (s.n != n) {
            st = dv_error_set(err, DV_ERR_INPUT, "%s: record %llu has %u values, the header %u", path,
                              (unsigned long long)*records, s.n, n);
            break;
        }
        uint8_t vals[8 * DV_SAMPLE_MAX_EVENTS];
        if (!gz_get(gz, vals, 8 * n)) {
            st = gz_end(gz, path, *records, err);
            break;
        }
        for (unsigned i = 0; i < n; i++)
            s.values[i] = get_le(vals + 8 * i, 8);
        if (cb->on_record)
            cb->on_record(cb->user, &s);
        ++*records;
    }
out:
    for (unsigned i = 0; i < n; i++)
        free(names[i]);
    gzclose(gz);
    return st;
}
