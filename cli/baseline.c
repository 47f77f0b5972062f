/* baseline.c - reading dvsim regress's baseline file (baseline.h). */
#include "baseline.h"

#include "dv_num.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int baseline_parse(const char *text, baseline *b, char *why, size_t why_size)
{
    memset(b, 0, sizeof *b);
    b->tolerance_pct = 0.01;
    b->root = cJSON_Parse(text);
    const cJSON *entries = b->root ? cJSON_GetObjectItemCaseSensitive(b->root, "entries") : NULL;
    if (!cJSON_IsArray(entries)) {
        snprintf(why, why_size, "not a baseline (a JSON object with an \"entries\" array)");
        return 65;
    }
    const cJSON *tn = cJSON_GetObjectItemCaseSensitive(b->root, "tolerance_pct");
    if (tn) {
        /* a number of percentage points; NaN and the infinities are not JSON,
         * but a huge exponent is (cJSON makes it inf) */
        if (!cJSON_IsNumber(tn) || !(tn->valuedouble >= 0 && tn->valuedouble <= 100)) {
            snprintf(why, why_size, "\"tolerance_pct\" must be a number from 0 to 100");
            return 65;
        }
        b->tolerance_pct = tn->valuedouble;
    }
    size_t n = (size_t)cJSON_GetArraySize(entries);
    b->e = calloc(n ? n : 1, sizeof *b->e);
    if (!b->e) {
        snprintf(why, why_size, "out of memory");
        return 71;
    }
    cJSON *node;
    cJSON_ArrayForEach(node, entries)
    {
        baseline_entry *x = &b->e[b->n++];
        x->node = node;
        const cJSON *blocks = cJSON_GetObjectItemCaseSensitive(node, "blocks");
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(node, "data");
        uint64_t nblocks = 0; /* 0: the tiling's */
        /* a JSON number is a double; its cast to an integer is only defined
         * in range, so it goes through dv_u64_of_double */
        if (blocks && (!cJSON_IsNumber(blocks) ||
                       !dv_u64_of_double(blocks->valuedouble, BASELINE_MAX_BLOCKS, &nblocks))) {
            snprintf(why, why_size, "entry %zu: \"blocks\" must be a whole number from 0 to %d", b->n,
                     BASELINE_MAX_BLOCKS);
            return 65;
        }
        if (data && !cJSON_IsBool(data)) {
            snprintf(why, why_size, "entry %zu: \"data\" must be true or false", b->n);
            return 65;
        }
        x->spec = (op_spec){.op = str_of(node, "op"),
                            .variant = str_of(node, "variant"),
                            .dtype = str_of(node, "dtype"),
                            .shape = str_of(node, "shape"),
                            .chip = str_of(node, "chip"),
                            .blocks = nblocks,
                            .data = !cJSON_IsFalse(data)};
        if (!x->spec.op || !x->spec.chip) {
            snprintf(why, why_size, "entry %zu needs \"op\" and \"chip\"", b->n);
            return 65;
        }
    }
    return 0;
}

void baseline_free(baseline *b)
{
    cJSON_Delete(b->root);
    free(b->e);
    memset(b, 0, sizeof *b);
}
