/* fuzz_baseline.c - fuzz harness for dvsim regress's baseline file
 * (baseline.h), and the operator requests its entries name.
 *
 * Properties: a rejection is 65 (or 71) with one printable line; an
 * accepted baseline has entries with an op and a chip and blocks within
 * BASELINE_MAX_BLOCKS; each entry's name (op_spec_name) is a bounded
 * string; an entry naming an operator has its request parsed as dvsim
 * regress would (dv_opr_parse_request: rejected with one line, or inside
 * the declaration); the tree prints (as --bless writes it) and that text
 * parses back to a baseline with the same entries. */
#include "baseline.h"
#include "dv_operator.h"
#include "fuzz.h"
#include "fuzz_tmpfile.h"

static void check_entries(const baseline *b)
{
    for (size_t i = 0; i < b->n; i++) {
        const op_spec *s = &b->e[i].spec;
        FUZZ_CHECK(s->op && s->chip, "entry %zu without op or chip", i);
        FUZZ_CHECK(s->blocks <= BASELINE_MAX_BLOCKS, "entry %zu blocks %llu", i,
                   (unsigned long long)s->blocks);
        char name[256];
        op_spec_name(s, name, sizeof name);
        FUZZ_CHECK(strlen(name) < sizeof name, "entry name unterminated");
        const dv_operator *op = dv_operator_find(s->op);
        if (!op)
            continue;
        dv_opr_request req = {.shape = s->shape, .dtype = s->dtype, .variant = s->variant};
        unsigned vi, di;
        uint64_t params[DV_OPR_MAX_PARAMS];
        dv_error err;
        dv_error_clear(&err);
        if (dv_opr_parse_request(op, &req, &vi, &di, params, &err) != DV_OK)
            fuzz_check_line(err.msg);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    baseline b;
    char why[256] = "";
    int rc = baseline_parse(text, &b, why, sizeof why);
    free(text);
    if (rc) {
        FUZZ_CHECK(rc == 65 || rc == 71, "exit code %d", rc);
        fuzz_check_line(why);
        baseline_free(&b);
        return 0;
    }
    check_entries(&b);
    char *printed = cJSON_Print(b.root);
    if (printed) {
        baseline again;
        rc = baseline_parse(printed, &again, why, sizeof why);
        FUZZ_CHECK(rc == 0 || rc == 71, "the printed baseline is rejected: %s", why);
        FUZZ_CHECK(rc != 0 || again.n == b.n, "entries %zu, printed and read back %zu", b.n, again.n);
        baseline_free(&again);
        free(printed);
    }
    baseline_free(&b);
    return 0;
}
