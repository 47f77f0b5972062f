/* replay_main.c - runs a fuzz harness over saved inputs without libFuzzer.
 *
 * usage: replay_X PATH...   (a PATH is an input file or a directory of them)
 *
 * Linked with one fuzz_*.c by the normal compiler, so that every build - in
 * particular the -Db_sanitize=address,undefined CI build, and builds on
 * machines without clang - re-runs the committed corpus and past crashes.
 * Directories are read non-recursively, in name order so that a failure is
 * reproducible; hidden files are skipped (libFuzzer never writes any, and
 * editors leave some).  Each input is copied into a buffer of exactly its
 * size, as libFuzzer does, so that AddressSanitizer catches a read one byte
 * past the end. */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

static size_t ninputs;

/* Reads the whole file into a malloc'd buffer of exactly its size (at least
 * one byte is allocated so an empty input still has a valid pointer). */
static bool read_input(const char *path, uint8_t **out, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return false;
    }
    size_t len = 0, cap = 4096;
    uint8_t *buf = malloc(cap);
    bool ok = buf != NULL;
    while (ok) {
        if (len == cap) {
            uint8_t *grown = realloc(buf, cap * 2);
            if (!grown) {
                ok = false;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ok && ferror(f)) {
        fprintf(stderr, "replay: %s: read error\n", path);
        ok = false;
    }
    fclose(f);
    uint8_t *exact = ok ? malloc(len ? len : 1) : NULL;
    if (ok && !exact)
        fprintf(stderr, "replay: %s: out of memory\n", path);
    if (exact && len)
        memcpy(exact, buf, len);
    free(buf);
    *out = exact;
    *size = len;
    return exact != NULL;
}

static bool run_file(const char *path)
{
    uint8_t *data = NULL;
    size_t size = 0;
    if (!read_input(path, &data, &size))
        return false;
    /* Named before the run: if the harness aborts, the log says which input. */
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, size);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    ninputs++;
    return true;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return false;
    }
    char **paths = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(dir) + 1 + strlen(e->d_name) + 1;
        char *path = malloc(len);
        if (n == cap) {
            char **grown = realloc(paths, (cap ? cap * 2 : 64) * sizeof *paths);
            if (grown) {
                paths = grown;
                cap = cap ? cap * 2 : 64;
            }
        }
        if (!path || n == cap) {
            free(path);
            fprintf(stderr, "replay: %s: out of memory\n", dir);
            ok = false;
            break;
        }
        snprintf(path, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path); /* subdirectories and special files are not inputs */
            continue;
        }
        paths[n++] = path;
    }
    closedir(d);
    if (n > 1)
        qsort(paths, n, sizeof *paths, cmp_names);
    for (size_t i = 0; i < n; i++) {
        if (ok)
            ok = run_file(paths[i]);
        free(paths[i]);
    }
    free(paths);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 64;
    }
    bool ok = true;
    for (int i = 1; i < argc && ok; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            ok = false;
        } else if (S_ISDIR(st.st_mode)) {
            ok = run_dir(argv[i]);
        } else {
            ok = run_file(argv[i]);
        }
    }
    printf("replay: %zu input%s run\n", ninputs, ninputs == 1 ? "" : "s");
    return ok ? 0 : 1;
}
