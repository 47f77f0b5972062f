/* test_ops_check.c - every operator of the registry, with every variant
 * and dtype, on every case it declares (dv_operator.cases: awkward sizes,
 * one tile, more blocks than cores) and on every built-in chip, against its
 * CPU reference.  A new operator is tested here as soon as its registry row
 * exists; nothing in this file names one. */
#include "dv_test_main.h"
#include "ops_run.h"

#include <stdio.h>

static void check_operator(const dv_operator *op)
{
    ck_assert_msg(op->cases && op->cases[0].shape, "operator %s declares no test cases", op->name);
    unsigned runs = 0;
    for (size_t c = 0; c < dv_config_builtin_count(); c++) {
        const char *chip = dv_config_builtin_name(c);
        for (unsigned v = 0; op->variants[v]; v++)
            for (unsigned d = 0; op->dtypes[d]; d++)
                for (const dv_operator_case *k = op->cases; k->shape; k++) {
                    dv_chip_config cfg;
                    dv_error err;
                    ck_assert_int_eq(dv_config_builtin(chip, &cfg, &err), DV_OK);
                    if (op->available && !op->available(&cfg, v, d)) { /* refused: test_matmul_f32.c */
                        ck_assert_int_eq(
                            op_run(op->name, chip, op->variants[v], op->dtypes[d], k->shape, k->blocks, false)
                                .status,
                            DV_ERR_INPUT);
                        continue;
                    }
                    op_result o =
                        op_run(op->name, chip, op->variants[v], op->dtypes[d], k->shape, k->blocks, true);
                    ck_assert_msg(o.status == DV_OK, "%s %s %s %s %s: create failed", op->name, chip,
                                  op->variants[v], op->dtypes[d], k->shape);
                    ck_assert_msg(o.check.compared > 0 && o.check.mismatches == 0,
                                  "%s %s %s %s %s blocks %llu (%s): %llu of %llu mismatches; %s", op->name,
                                  chip, op->variants[v], op->dtypes[d], k->shape,
                                  (unsigned long long)k->blocks, k->why,
                                  (unsigned long long)o.check.mismatches,
                                  (unsigned long long)o.check.compared, o.check.first_bad);
                    runs++;
                }
    }
    ck_assert_uint_gt(runs, 0);
    printf("%s: %u runs against the reference (every chip, variant, dtype and case)\n", op->name, runs);
}

START_TEST(test_every_operator)
{
    check_operator(dv_operator_at((unsigned)_i));
}
END_TEST

START_TEST(test_bad_requests)
{
    /* shape out of range, unknown parameter, variant and dtype: DV_ERR_INPUT */
    ck_assert_int_eq(op_run("matmul", "ascend910", NULL, NULL, "M=0", 0, false).status, DV_ERR_INPUT);
    ck_assert_int_eq(op_run("matmul", "ascend910", NULL, NULL, "Q=3", 0, false).status, DV_ERR_INPUT);
    ck_assert_int_eq(op_run("matmul", "ascend910", NULL, NULL, "M=12x", 0, false).status, DV_ERR_INPUT);
    ck_assert_int_eq(op_run("matmul", "ascend910", "fast", NULL, NULL, 0, false).status, DV_ERR_INPUT);
    ck_assert_int_eq(op_run("matmul", "ascend910", NULL, "f64", NULL, 0, false).status, DV_ERR_INPUT);
    /* matmul: M, N, K past 65535 (nd2nz's 16-bit GM row pitch); the tiling
     * takes any K below (test_matmul_shapes.c) */
    ck_assert_int_eq(op_run("matmul", "ascend910b", "db", NULL, "M=16,N=16,K=65536", 0, false).status,
                     DV_ERR_INPUT);
    /* a layernorm row wider than UB holds with gamma and beta */
    ck_assert_int_eq(op_run("layernorm", "ascend910b", NULL, "f32", "R=2,C=60000", 0, false).status,
                     DV_ERR_INPUT);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ops-check");
    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_every_operator, 0, (int)dv_operator_count());
    tcase_add_test(tc, test_bad_requests);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
