/* fuzz_tmpfile.h - the harnesses whose parser reads a file (a chip config, a
 * sample file) get the input through one scratch file per process, rewritten
 * for each input: what the parser sees is what a user's file would be. */
#ifndef DV_FUZZ_TMPFILE_H
#define DV_FUZZ_TMPFILE_H

#include "fuzz.h"

#include <fcntl.h>
#include <unistd.h>

/* Writes the bytes to the process's scratch file NAME and returns its path
 * (a static buffer), or NULL if it could not be written. */
static inline const char *fuzz_write_tmp(const char *name, const uint8_t *data, size_t size)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/dvsim-fuzz-%ld-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid(), name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    bool ok = (size == 0 || fwrite(data, 1, size, f) == size);
    ok = fclose(f) == 0 && ok;
    return ok ? path : NULL;
}

/* A message of the library: one non-empty printable line. */
static inline void fuzz_check_line(const char *msg)
{
    size_t n = strlen(msg);
    FUZZ_CHECK(n > 0, "empty error message");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)msg[i];
        FUZZ_CHECK(c >= 0x20 && c < 0x7f, "unprintable byte 0x%02x at %zu in message: %s", c, i, msg);
    }
}

#endif
