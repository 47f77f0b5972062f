/* baseline.h - the baseline file of dvsim regress (tests/perf/baseline.json):
 * a JSON object with "entries", each an operator run (op, variant, dtype,
 * shape, chip, blocks, data) and its recorded figures, and an optional
 * "tolerance_pct".  Read apart from the runs, so that a fuzzer can feed the
 * reader any text. */
#ifndef DV_BASELINE_H
#define DV_BASELINE_H

#include "op_exec.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* An entry's "blocks" at most: dvsim run --blocks's limit. */
enum { BASELINE_MAX_BLOCKS = 65535 };

typedef struct baseline_entry {
    cJSON *node;  /* the entry's object in the tree */
    op_spec spec; /* its strings point into the tree */
} baseline_entry;

typedef struct baseline {
    cJSON *root;
    baseline_entry *e;
    size_t n;
    double tolerance_pct; /* 0.01 when the file has none */
} baseline;

/* Parses text (NUL-terminated) into *b (free it with baseline_free, also
 * after a failure).  Returns 0, 65 with a one-line reason in why (it does
 * not name the file) for text that is not a baseline, or 71 out of memory. */
int baseline_parse(const char *text, baseline *b, char *why, size_t why_size);
void baseline_free(baseline *b);

#endif
