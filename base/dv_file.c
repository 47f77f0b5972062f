/* dv_file.c - a file written whole through a temporary name and a rename. */
#include "dv_file.h"

#include "dv_buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool write_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* Creates a new file beside path, named in tmp (size bytes), mode 0666 less
 * the umask.  O_EXCL makes it unique: the name (the process and the clock)
 * is only a guess, tried again while it exists.  -1 with errno set. */
static int create_beside(const char *path, char *tmp, size_t size)
{
    for (unsigned tries = 0; tries < 100; tries++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(tmp, size, "%s.tmp%ld-%ld-%u", path, (long)getpid(), (long)ts.tv_nsec, tries);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1; /* errno is EEXIST */
}

dv_status dv_write_file_atomic(const char *path, const void *data, size_t len, dv_error *err)
{
    size_t size = strlen(path) + 64;
    char *tmp = malloc(size);
    if (!tmp)
        return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", path);
    int fd = create_beside(path, tmp, size);
    if (fd < 0) {
        dv_status st = dv_error_set(err, DV_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return st;
    }
    bool ok = write_all(fd, data, len);
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        saved = errno;
    }
    dv_status st = DV_OK;
    if (!ok) {
        st = dv_error_set(err, DV_ERR_IO, "%s: write failed: %s", path, strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return st;
}

int dv_open_input_fd(const char *path, dv_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        close(fd);
        fd = -1;
        errno = EISDIR;
    }
    if (fd < 0)
        dv_error_set(err, DV_ERR_MISSING, "%s: cannot open: %s", path, strerror(errno));
    return fd;
}

FILE *dv_open_input(const char *path, dv_error *err)
{
    int fd = dv_open_input_fd(path, err);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (fd >= 0 && !f) {
        dv_error_set(err, DV_ERR_NOMEM, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

dv_status dv_read_file(const char *path, char **data, size_t *len, dv_error *err)
{
    *data = NULL;
    *len = 0;
    FILE *f = dv_open_input(path, err);
    if (!f)
        return err ? err->status : DV_ERR_MISSING;
    dv_buf b = DV_BUF_INIT;
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && !b.oom)
        dv_buf_append(&b, chunk, got);
    bool ok = !b.oom, failed = ferror(f);
    fclose(f);
    if (!ok || failed) {
        int e = errno;
        dv_buf_free(&b);
        return ok ? dv_error_set(err, DV_ERR_IO, "%s: read failed: %s", path, strerror(e))
                  : dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", path);
    }
    *data = dv_buf_take(&b, len);
    return *data ? DV_OK : dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory", path);
}
