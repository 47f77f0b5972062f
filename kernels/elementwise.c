/* elementwise.c - prepare and check of the elementwise operators. */
#include "elementwise.h"

#include "opcommon.h"

#include <math.h>
#include <stdio.h>

const char *const opc_ew_variants[] = {"db", NULL};
const char *const opc_ew_dtypes[] = {"f16", "f32", NULL};
const dv_operator_param opc_ew_params[] = {
    {"N", 1 << 20, 1, 1ull << 30, "elements"},
    {NULL, 0, 0, 0, NULL},
};
const dv_operator_case opc_ew_cases[] = {
    {"N=17", 0, "less than a block, not a multiple of 16"},
    {"N=1", 0, "one element"},
    {"N=1000", 0, "one partial tile"},
    {"N=65536", 1, "whole tiles on one core"},
    {"N=1000003", 0, "every core, a partial last tile"},
    {"N=5000", 100, "more blocks than cores, most of them idle"},
    {NULL, 0, NULL},
};

static const opc_ew_spec *spec_of(const dv_opr_run *r)
{
    return r->op->spec;
}

dv_status opc_ew_prepare(dv_opr_run *r, dv_error *err)
{
    static const char *const inputs[] = {"x", "y"};
    const opc_ew_spec *s = spec_of(r);
    return opc_prepare_elementwise(r, s->blob, s->kernel, inputs, s->ninputs, s->ninputs == 1 ? "y" : "z", 4,
                                   err);
}

dv_status opc_ew_check(dv_opr_run *r, dv_error *err)
{
    (void)err;
    const opc_ew_spec *s = spec_of(r);
    dv_dtype dt = r->dtype == 0 ? DV_DT_F16 : DV_DT_F32;
    uint64_t n = dv_opr_param(r, "N");
    const uint8_t *in[2] = {r->t[0].host, s->ninputs > 1 ? r->t[1].host : NULL};
    const char *out = s->ninputs == 1 ? "y" : "z";
    const uint8_t *got = dv_opr_gm(r, s->ninputs);
    double u = dv_opr_unit_roundoff(dt);
    if (s->roundings)
        snprintf(r->check.tolerance, sizeof r->check.tolerance, "%s (u = 2^%d)", s->rule, (int)log2(u));
    else
        snprintf(r->check.tolerance, sizeof r->check.tolerance, "%s", s->rule);
    for (uint64_t i = 0; i < n; i++) {
        double x[2] = {dv_opr_load(in[0], dt, i), in[1] ? dv_opr_load(in[1], dt, i) : 0};
        double want = s->ref(x);
        double tol = s->roundings ? s->roundings * u * fabs(want) + opc_tiny(dt) : 0;
        dv_opr_compare(r, out, 0, i, dv_opr_load(got, dt, i), want, tol);
    }
    return DV_OK;
}
