/* dv_samples.h - PMU sample records: a bounded ring per core, and the gzip
 * file they are drained into (docs/pmu-samples.md).
 *
 * File format, little-endian, inside one gzip stream:
 *   header: "DVPM", u32 version (1), u32 nevents, then nevents names, each
 *           u16 length + bytes;
 *   records: u64 cycle, u32 core, u32 nevents, then nevents u64 values.
 * The writer flushes with Z_SYNC_FLUSH after every batch of records, so a
 * file cut short by an interrupted run reads back up to its last flush. */
#ifndef DV_SAMPLES_H
#define DV_SAMPLES_H

#include "dv_status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { DV_SAMPLE_MAX_EVENTS = 64, DV_SAMPLES_VERSION = 1 };

typedef struct dv_sample {
    uint64_t cycle;
    uint32_t core;
    uint32_t n;
    uint64_t values[DV_SAMPLE_MAX_EVENTS];
} dv_sample;

/* A bounded ring: push fails (and counts a lost record) when it is full;
 * undrained records are never overwritten. */
typedef struct dv_sample_ring {
    dv_sample *slots;
    size_t cap, head, count;
    uint64_t lost;
} dv_sample_ring;

dv_status dv_ring_init(dv_sample_ring *r, size_t capacity, dv_error *err);
void dv_ring_free(dv_sample_ring *r);
bool dv_ring_push(dv_sample_ring *r, const dv_sample *s);
bool dv_ring_pop(dv_sample_ring *r, dv_sample *out);

typedef struct dv_sample_writer dv_sample_writer;
/* Opens path for writing (gzip) and writes the header. */
dv_sample_writer *dv_samples_create(const char *path, const char *const *names, unsigned n, dv_error *err);
dv_status dv_samples_write(dv_sample_writer *w, const dv_sample *s, dv_error *err);
dv_status dv_samples_flush(dv_sample_writer *w, dv_error *err);
dv_status dv_samples_close(dv_sample_writer *w, dv_error *err);

/* Reads a sample file: calls on_header once, then on_record per record;
 * stops cleanly at the end of the data that was flushed. */
typedef struct dv_sample_reader_cb {
    void (*on_header)(void *user, const char *const *names, unsigned n);
    void (*on_record)(void *user, const dv_sample *s);
    void *user;
} dv_sample_reader_cb;
dv_status dv_samples_read(const char *path, const dv_sample_reader_cb *cb, uint64_t *records, dv_error *err);
/* The same from an open descriptor (closed on return); path names it in
 * messages.  A damaged file (wrong gzip CRC or length, broken data) is
 * DV_ERR_INPUT after the records before the damage were passed on. */
dv_status dv_samples_read_fd(int fd, const char *path, const dv_sample_reader_cb *cb, uint64_t *records,
                             dv_error *err);

#endif
