/* fuzz_gmspec.c - fuzz harness for dvsim run's --gm NAME=SPEC (gm_spec.h).
 *
 * Properties: a rejected spec gives one printable line; an accepted one is
 * zeros with a byte count above 0, @ with a path, or random with a known
 * type, a count from 1 to GM_SPEC_MAX_COUNT and bytes = count x element
 * size; a small random spec fills its bytes (ASan checks the writes), the
 * same way twice. */
#include "fuzz.h"
#include "fuzz_tmpfile.h"
#include "gm_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = malloc(size + 1);
    if (!spec)
        return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';
    gm_spec g;
    char why[256] = "";
    if (!gm_spec_parse(spec, &g, why, sizeof why)) {
        fuzz_check_line(why);
        free(spec);
        return 0;
    }
    switch (g.kind) {
    case GM_SPEC_ZEROS:
    case GM_SPEC_UNINIT: FUZZ_CHECK(g.bytes > 0, "zeros or uninit of 0 bytes"); break;
    case GM_SPEC_FILE: FUZZ_CHECK(g.path && *g.path, "@ without a path"); break;
    case GM_SPEC_RANDOM:
        FUZZ_CHECK(g.elem == 1 || g.elem == 2 || g.elem == 4, "element size %u", g.elem);
        FUZZ_CHECK(g.count >= 1 && g.count <= GM_SPEC_MAX_COUNT, "count %llu", (unsigned long long)g.count);
        FUZZ_CHECK(g.bytes == g.count * g.elem, "bytes %llu", (unsigned long long)g.bytes);
        if (g.bytes <= 4096) {
            uint8_t *a = malloc((size_t)g.bytes), *b = malloc((size_t)g.bytes);
            if (a && b) {
                gm_spec_fill_random(&g, a);
                gm_spec_fill_random(&g, b);
                FUZZ_CHECK(memcmp(a, b, (size_t)g.bytes) == 0, "random fill not repeatable");
            }
            free(a);
            free(b);
        }
        break;
    }
    free(spec);
    return 0;
}
