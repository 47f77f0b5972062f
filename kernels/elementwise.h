/* elementwise.h - the host part of the elementwise operators, shared: an
 * operator is its kernel (one line instantiating kernels/lib/elementwise.inc),
 * its reference function and its tolerance; prepare, check, the shapes it
 * is tested on and its declaration come from here. */
#ifndef DV_ELEMENTWISE_H
#define DV_ELEMENTWISE_H

#include "dv_operator.h"

struct dv_kernel_blob;

typedef struct opc_ew_spec {
    const struct dv_kernel_blob *blob; /* the kernels NAME_f16, NAME_f32, ..._aiv */
    const char *kernel;                /* NAME */
    unsigned ninputs;                  /* 1: x -> y; 2: x, y -> z */
    double (*ref)(const double *in);   /* the exact result of one element */
    double roundings; /* tolerance: so many rounding units of the dtype times |ref| (0: exact) */
    const char *rule; /* the tolerance in words, for the report */
} opc_ew_spec;

dv_status opc_ew_prepare(dv_opr_run *r, dv_error *err);
dv_status opc_ew_check(dv_opr_run *r, dv_error *err);
/* variants, dtypes, the N parameter and the test cases of every one */
extern const char *const opc_ew_variants[], *const opc_ew_dtypes[];
extern const dv_operator_param opc_ew_params[];
extern const dv_operator_case opc_ew_cases[];

/* The declaration of an elementwise operator NAME with its opc_ew_spec. */
#define OPC_ELEMENTWISE(NAME, SUMMARY, TENSORS, NOTES, SPEC)                                                 \
    {                                                                                                        \
        .name = #NAME, .summary = SUMMARY, .variants = opc_ew_variants, .dtypes = opc_ew_dtypes,             \
        .params = opc_ew_params, .tensors = TENSORS, .notes = NOTES, .cases = opc_ew_cases,                  \
        .prepare = opc_ew_prepare, .check = opc_ew_check, .spec = SPEC,                                      \
    }

#endif
