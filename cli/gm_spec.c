/* gm_spec.c - dvsim run's --gm SPEC (gm_spec.h). */
#include "gm_spec.h"

#include "dv_fp.h"
#include "dv_num.h"
#include "dv_text.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    unsigned size;
} types[] = {{"f16", 2}, {"bf16", 2}, {"f32", 4}, {"s8", 1}, {"s32", 4}};

bool gm_spec_parse(const char *spec, gm_spec *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    bool uninit = strncmp(spec, "uninit:", 7) == 0;
    if (strncmp(spec, "zeros:", 6) == 0 || uninit) {
        out->kind = uninit ? GM_SPEC_UNINIT : GM_SPEC_ZEROS;
        const char *count = spec + (uninit ? 7 : 6);
        if (dv_parse_u64(count, &out->bytes) && out->bytes > 0)
            return true;
        snprintf(why, why_size, "%s needs a byte count above 0, not '%s'", uninit ? "uninit" : "zeros",
                 DV_ESC(count));
        return false;
    }
    if (spec[0] == '@') {
        out->kind = GM_SPEC_FILE;
        out->path = spec + 1;
        if (spec[1])
            return true;
        snprintf(why, why_size, "@ needs a file name");
        return false;
    }
    if (strncmp(spec, "random:", 7) == 0) {
        out->kind = GM_SPEC_RANDOM;
        const char *t = spec + 7, *c1 = strchr(t, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) {
            snprintf(why, why_size, "random needs TYPE:COUNT:SEED, not '%s'", DV_ESC(t));
            return false;
        }
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
            if (strlen(types[i].name) == (size_t)(c1 - t) &&
                memcmp(types[i].name, t, (size_t)(c1 - t)) == 0) {
                snprintf(out->type, sizeof out->type, "%s", types[i].name);
                out->elem = types[i].size;
            }
        if (!out->elem) {
            char shown[DV_ESCAPE_MAX];
            snprintf(why, why_size, "unknown type '%s' (f16, bf16, f32, s8, s32)",
                     dv_escape_n(t, (size_t)(c1 - t), shown, sizeof shown));
            return false;
        }
        if (!dv_parse_u64n(c1 + 1, (size_t)(c2 - c1 - 1), &out->count) || out->count == 0 ||
            out->count > GM_SPEC_MAX_COUNT) {
            char shown[DV_ESCAPE_MAX];
            snprintf(why, why_size, "random's COUNT must be 1 to 2^40 elements, not '%s'",
                     dv_escape_n(c1 + 1, (size_t)(c2 - c1 - 1), shown, sizeof shown));
            return false;
        }
        if (!dv_parse_u64(c2 + 1, &out->seed)) {
            snprintf(why, why_size, "random's SEED must be a number, not '%s'", DV_ESC(c2 + 1));
            return false;
        }
        out->bytes = out->count * out->elem;
        return true;
    }
    snprintf(why, why_size, "'%s' is not zeros:BYTES, uninit:BYTES, @FILE or random:TYPE:COUNT:SEED",
             DV_ESC(spec));
    return false;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

void gm_spec_fill_random(const gm_spec *spec, uint8_t *dst)
{
    uint64_t s = spec->seed * 0x9e3779b97f4a7c15ull + 1;
    unsigned size = spec->elem;
    for (uint64_t i = 0; i < spec->count; i++) {
        uint64_t r = xorshift(&s);
        float v01 = (float)((double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0);
        uint32_t v;
        if (size == 2)
            v = strcmp(spec->type, "f16") == 0 ? dv_f32_to_fp16(v01) : dv_f32_to_bf16(v01);
        else if (strcmp(spec->type, "f32") == 0)
            v = dv_f32_bits(v01);
        else if (size == 1)
            v = (uint32_t)(int32_t)((int64_t)(r >> 56) - 128);
        else
            v = (uint32_t)(int32_t)((int64_t)((r >> 32) % 2001) - 1000);
        memcpy(dst + i * size, &v, size); /* little-endian host */
    }
}
