/* fuzz.h - shared declarations of the dvsim fuzz harnesses.
 *
 * Each fuzz_*.c defines the libFuzzer entry point.  The same file is linked
 * either with libFuzzer (clang -fsanitize=fuzzer, see meson.build) or with
 * replay_main.c (the normal compiler), which feeds it the saved corpus so
 * every build - including the sanitizer CI build - re-checks old inputs. */
#ifndef DV_FUZZ_H
#define DV_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The libFuzzer entry point; declared here because the project builds with
 * -Wmissing-prototypes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failed property must abort even in a build with NDEBUG (assert() would
 * vanish), and abort() is what both libFuzzer and the sanitizers report as a
 * crash together with the stack. */
#define FUZZ_CHECK(cond, ...)                                                                                \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: fuzz property failed: %s: ", __FILE__, __LINE__, #cond);                 \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fputc('\n', stderr);                                                                             \
            abort();                                                                                         \
        }                                                                                                    \
    } while (0)

/* Two byte ranges are equal (NULL is fine when the length is 0). */
static inline bool same_bytes(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

#endif
