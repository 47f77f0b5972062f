/* test_config.c - the chip-config table and the built-in chips. */
#include "dv_config.h"
#include "dv_test_main.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_builtins_valid)
{
    ck_assert_uint_eq(dv_config_builtin_count(), 5); /* isa/chips.def: 910, 910b, 310, 910b1, 910b3 */
    ck_assert_str_eq(dv_config_default_name(), "ascend910");
    for (size_t i = 0; i < dv_config_builtin_count(); i++) {
        dv_chip_config cfg;
        dv_error err = {DV_OK, ""};
        ck_assert_int_eq(dv_config_builtin(dv_config_builtin_name(i), &cfg, &err), DV_OK);
        ck_assert_msg(dv_config_validate(&cfg, &err) == DV_OK, "%s", err.msg);
    }
    dv_error err;
    dv_chip_config cfg;
    ck_assert_int_eq(dv_config_builtin("ascend999", &cfg, &err), DV_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "ascend910b"));
}
END_TEST

START_TEST(test_keys_unique_and_settable)
{
    for (size_t i = 0; i < dv_config_key_count(); i++) {
        const dv_config_key *k = dv_config_key_at(i);
        ck_assert_ptr_eq(dv_config_key_find(k->key), k);
        ck_assert_ptr_nonnull(strchr(k->key, '.'));
        ck_assert(k->doc[0] != '\0');
    }
    dv_chip_config cfg;
    ck_assert_int_eq(dv_config_builtin("ascend910b", &cfg, NULL), DV_OK);
    const dv_config_key *k = dv_config_key_find("buffer.ub_bytes");
    ck_assert_uint_eq(dv_config_get(&cfg, k), 196608);
    dv_error err;
    dv_config_set(&cfg, k, 196608 + 16); /* not a multiple of align.ub = 32 */
    ck_assert_int_eq(dv_config_validate(&cfg, &err), DV_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "buffer.ub_bytes"));
    dv_config_set(&cfg, k, 196608);
    dv_config_set(&cfg, dv_config_key_find("path.gm_to_ub"), 0); /* zero bandwidth */
    ck_assert_int_eq(dv_config_validate(&cfg, &err), DV_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "path.gm_to_ub"));
}
END_TEST

START_TEST(test_derived_peaks)
{
    dv_chip_config cfg;
    dv_config_builtin("ascend910", &cfg, NULL);
    /* 32 cores x 4096 MAC x 2 FLOP x 1 GHz = 262.1 TFLOPS (facts #62: "256 TFLOPS") */
    ck_assert_double_eq_tol(dv_config_peak_fp16_flops(&cfg), 262.144e12, 1e6);
    dv_config_builtin("ascend910b", &cfg, NULL);
    /* 24 x 4096 x 2 x 1.8 GHz = 353.9 TFLOPS (facts #66) */
    ck_assert_double_eq_tol(dv_config_peak_fp16_flops(&cfg), 353.8944e12, 1e6);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, test_builtins_valid);
    tcase_add_test(tc, test_keys_unique_and_settable);
    tcase_add_test(tc, test_derived_peaks);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
