/* fuzz_shape.c - fuzz harness for an operator request: --variant, --dtype
 * and --shape against every operator's declaration (dv_opr_parse_request).
 *
 * The input is up to three lines: shape, then optionally dtype and variant
 * (an empty line: the default).  It is tried on every operator.
 * Properties: a rejection is DV_ERR_INPUT (NOMEM) with one printable line;
 * an accepted request has indexes inside the operator's lists and every
 * parameter inside [min, max], and naming the parsed values again
 * ("N=V,...") parses to the same values. */
#include "dv_operator.h"
#include "fuzz.h"
#include "fuzz_tmpfile.h"

#include <inttypes.h>

static char *line_of(const uint8_t **p, const uint8_t *end)
{
    const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
    size_t len = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
    char *s = malloc(len + 1);
    if (s) {
        memcpy(s, *p, len);
        s[len] = '\0';
    }
    *p += nl ? len + 1 : len;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    char *shape = line_of(&p, end), *dtype = line_of(&p, end), *variant = line_of(&p, end);
    if (!shape || !dtype || !variant)
        goto out;
    for (unsigned o = 0; o < dv_operator_count(); o++) {
        const dv_operator *op = dv_operator_at(o);
        dv_opr_request req = {
            .shape = shape, .dtype = *dtype ? dtype : NULL, .variant = *variant ? variant : NULL};
        unsigned vi = 99, di = 99;
        uint64_t params[DV_OPR_MAX_PARAMS];
        dv_error err;
        dv_error_clear(&err);
        dv_status st = dv_opr_parse_request(op, &req, &vi, &di, params, &err);
        if (st != DV_OK) {
            FUZZ_CHECK(st == DV_ERR_INPUT || st == DV_ERR_NOMEM, "status %d: %s", (int)st, err.msg);
            fuzz_check_line(err.msg);
            continue;
        }
        unsigned nv = 0, nd = 0, np = 0;
        while (op->variants[nv])
            nv++;
        while (op->dtypes[nd])
            nd++;
        FUZZ_CHECK(vi < nv && di < nd, "%s: variant %u of %u, dtype %u of %u", op->name, vi, nv, di, nd);
        char again[DV_OPR_MAX_PARAMS * 48] = "";
        size_t n = 0;
        for (; op->params[np].name; np++) {
            const dv_operator_param *pp = &op->params[np];
            FUZZ_CHECK(params[np] >= pp->min && params[np] <= pp->max, "%s: %s=%" PRIu64 " out of range",
                       op->name, pp->name, params[np]);
            n += (size_t)snprintf(again + n, sizeof again - n, "%s%s=%" PRIu64, np ? "," : "", pp->name,
                                  params[np]);
        }
        uint64_t back[DV_OPR_MAX_PARAMS];
        dv_opr_request req2 = {.shape = again, .dtype = req.dtype, .variant = req.variant};
        st = dv_opr_parse_request(op, &req2, &vi, &di, back, &err);
        FUZZ_CHECK(st == DV_OK, "%s: its own shape '%s' rejected: %s", op->name, again, err.msg);
        FUZZ_CHECK(memcmp(back, params, np * sizeof *params) == 0, "%s: '%s' parsed to other values",
                   op->name, again);
    }
out:
    free(shape);
    free(dtype);
    free(variant);
    return 0;
}
