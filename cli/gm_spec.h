/* gm_spec.h - the SPEC of dvsim run's --gm NAME=SPEC: what a GM buffer of a
 * kernel argument holds before the run.
 *
 *   zeros:BYTES                 BYTES zero bytes
 *   uninit:BYTES                BYTES never written (0xcd; --sanitize's
 *                               initcheck reports a read of them)
 *   @FILE                       the bytes of FILE (at least one)
 *   random:TYPE:COUNT:SEED      COUNT seeded random elements of TYPE
 *                               (f16, bf16, f32, s8, s32)
 *
 * Numbers are dv_parse_u64's (decimal or 0x hex, nothing else).  Parsed
 * apart from the run so that a fuzzer can feed it any text. */
#ifndef DV_GM_SPEC_H
#define DV_GM_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest random COUNT: 2^40 elements (more than any GM of a chip
 * config holds, dv_config's bytes bound; the GM's capacity check comes
 * first in practice). */
#define GM_SPEC_MAX_COUNT (1ull << 40)

typedef enum gm_spec_kind { GM_SPEC_ZEROS, GM_SPEC_UNINIT, GM_SPEC_FILE, GM_SPEC_RANDOM } gm_spec_kind;

typedef struct gm_spec {
    gm_spec_kind kind;
    uint64_t bytes;   /* zeros, uninit and random: the buffer's size */
    const char *path; /* @FILE: into the spec string */
    char type[8];     /* random */
    unsigned elem;    /* random: bytes per element */
    uint64_t count, seed;
} gm_spec;

/* Parses spec into *out.  False with a one-line reason in why (printable:
 * the spec's own text is escaped) if it is not one of the forms above. */
bool gm_spec_parse(const char *spec, gm_spec *out, char *why, size_t why_size);
/* Writes the count random elements of a random spec into dst (count * elem
 * bytes): floats uniform in [-1, 1), s8 in [-128, 127], s32 in [-1000, 1000]. */
void gm_spec_fill_random(const gm_spec *s, uint8_t *dst);

#endif
