/* libfuzzer_probe.c - compiled once at configure time (meson.build) to check
 * that clang can actually link with libFuzzer and the sanitizers: clang is
 * often installed without its compiler-rt runtime (Debian: libfuzzer-NN-dev
 * and libclang-rt-NN-dev are separate packages). */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)data;
    (void)size;
    return 0;
}
