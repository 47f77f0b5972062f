/* coreset.c - core sets (dv_launch.h) as text: "0-9,12,14-15". */
#include "dv_launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool parse_index(const char **p, unsigned *out)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return false;
    unsigned long v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (unsigned long)(*s - '0');
        if (v > 1000000)
            return false;
        s++;
    }
    *p = s;
    *out = (unsigned)v;
    return true;
}

dv_status dv_coreset_parse(const char *text, unsigned ncores, dv_coreset *out, dv_error *err)
{
    memset(out, 0, sizeof *out);
    const char *p = text;
    if (!*p)
        return dv_error_set(err, DV_ERR_INPUT, "an empty core set");
    for (;;) {
        unsigned lo, hi;
        if (!parse_index(&p, &lo))
            return dv_error_set(err, DV_ERR_INPUT, "core set '%.40s': a core number expected at '%.20s'",
                                text, p);
        hi = lo;
        if (*p == '-') {
            p++;
            if (!parse_index(&p, &hi) || hi < lo)
                return dv_error_set(err, DV_ERR_INPUT, "core set '%.40s': a range needs LO-HI with HI >= LO",
                                    text);
        }
        if (hi >= ncores)
            return dv_error_set(err, DV_ERR_INPUT,
                                "core set '%.40s': core %u is not on the chip (cores 0-%u)", text, hi,
                                ncores - 1);
        for (unsigned i = lo; i <= hi; i++)
            dv_coreset_add(out, i);
        if (!*p)
            return DV_OK;
        if (*p != ',')
            return dv_error_set(err, DV_ERR_INPUT, "core set '%.40s': unexpected '%c'", text, *p);
        p++;
    }
}

void dv_coreset_format(const dv_coreset *s, char *buf, size_t size)
{
    size_t n = 0;
    if (size)
        buf[0] = 0;
    for (unsigned i = 0; i < 64 * DV_CORESET_WORDS && n < size;) {
        if (!dv_coreset_has(s, i)) {
            i++;
            continue;
        }
        unsigned j = i;
        while (j + 1 < 64 * DV_CORESET_WORDS && dv_coreset_has(s, j + 1))
            j++;
        int w = j > i ? snprintf(buf + n, size - n, "%s%u-%u", n ? "," : "", i, j)
                      : snprintf(buf + n, size - n, "%s%u", n ? "," : "", i);
        n += w > 0 ? (size_t)w : 0;
        i = j + 1;
    }
}
