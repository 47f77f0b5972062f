/* fuzz_pmu.c - fuzz harness for PMU sample files (dvsim pmu-dump).
 *
 * The first input byte chooses how the rest reaches dv_samples_read_fd:
 * even, as the file's bytes (gzip damage: headers, CRC and length trailers,
 * raw non-gzip data); odd, gzip-compressed first, so that the fuzzer works
 * on the record format inside (names, counts, records cut short).
 * Properties: a rejection is DV_ERR_INPUT (or IO, NOMEM) with one printable
 * line; the header comes once, before any record, with at most
 * DV_SAMPLE_MAX_EVENTS names; every record has the header's count of values;
 * the reader's record count is the number of records passed on. */
#include "dv_samples.h"
#include "fuzz.h"
#include "fuzz_tmpfile.h"

#include <zlib.h>

typedef struct seen {
    unsigned headers, n;
    uint64_t records;
} seen;

static void on_header(void *user, const char *const *names, unsigned n)
{
    seen *s = user;
    FUZZ_CHECK(s->headers == 0 && s->records == 0, "header after the start");
    FUZZ_CHECK(n <= DV_SAMPLE_MAX_EVENTS, "%u events", n);
    for (unsigned i = 0; i < n; i++)
        FUZZ_CHECK(names[i] != NULL, "event name %u missing", i);
    s->headers++;
    s->n = n;
}

static void on_record(void *user, const dv_sample *r)
{
    seen *s = user;
    FUZZ_CHECK(s->headers == 1, "record before the header");
    FUZZ_CHECK(r->n == s->n, "record of %u values, header %u", r->n, s->n);
    s->records++;
}

/* gzip (not zlib) framing, as the writer's gzopen makes. */
static uint8_t *gzip_bytes(const uint8_t *data, size_t size, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&z, (uLong)size) + 32;
    uint8_t *out = malloc(cap);
    if (!out) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    uint8_t *packed = NULL;
    const uint8_t *bytes = data + 1;
    size_t len = size - 1;
    if (data[0] & 1) {
        packed = gzip_bytes(data + 1, size - 1, &len);
        if (!packed)
            return 0;
        bytes = packed;
    }
    const char *path = fuzz_write_tmp("pmu.samples.gz", bytes, len);
    free(packed);
    if (!path)
        return 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    seen s = {0, 0, 0};
    dv_sample_reader_cb cb = {on_header, on_record, &s};
    uint64_t records = 0;
    dv_error err;
    dv_error_clear(&err);
    dv_status st = dv_samples_read_fd(fd, "f", &cb, &records, &err);
    FUZZ_CHECK(records == s.records, "reader counted %llu records, passed on %llu",
               (unsigned long long)records, (unsigned long long)s.records);
    if (st != DV_OK) {
        FUZZ_CHECK(st == DV_ERR_INPUT || st == DV_ERR_IO || st == DV_ERR_NOMEM, "status %d: %s", (int)st,
                   err.msg);
        fuzz_check_line(err.msg);
    } else {
        FUZZ_CHECK(s.headers == 1, "accepted file without a header");
    }
    return 0;
}
