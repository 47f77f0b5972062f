/* test_stats.c - stats.json as written by dv_stats_json: valid JSON whatever
 * the names and descriptions hold, the list's order, integers with every
 * digit, derived values rounded to 6 significant digits. */
#include "dv_stats.h"
#include "dv_test_main.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static cJSON *parse(const dv_stat_list *l)
{
    dv_buf js = DV_BUF_INIT;
    ck_assert_int_eq(dv_stats_json(l, &js), DV_OK);
    ck_assert_uint_gt(js.len, 0);
    ck_assert_int_eq(js.data[js.len - 1], '\n');
    cJSON *root = cJSON_Parse(js.data);
    ck_assert_msg(root != NULL, "not JSON: %s", js.data);
    dv_buf_free(&js);
    return root;
}

START_TEST(test_escaped)
{
    dv_stat_list l = {NULL, 0, 0};
    dv_stats_add(&l, "B/\"cycle\"", "a \\ backslash,\na newline and a tab\t", 1.5, false, "core0.odd\"name");
    dv_stats_add(&l, "cycles", "control \x01 byte", 7, true, "chip.cycles");
    cJSON *root = parse(&l);
    const cJSON *odd = cJSON_GetObjectItemCaseSensitive(root, "core0.odd\"name");
    ck_assert_ptr_nonnull(odd);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(odd, "unit")->valuestring, "B/\"cycle\"");
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(odd, "desc")->valuestring,
                     "a \\ backslash,\na newline and a tab\t");
    const cJSON *cyc = cJSON_GetObjectItemCaseSensitive(root, "chip.cycles");
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cyc, "desc")->valuestring, "control \x01 byte");
    cJSON_Delete(root);
    dv_stats_free(&l);
}
END_TEST

START_TEST(test_order_and_numbers)
{
    dv_stat_list l = {NULL, 0, 0};
    /* 2^60 + 2^10: far past where a 15-digit %g would show an exponent */
    dv_stats_add(&l, "bytes", "big", 1152921504606848000.0, true, "z.big");
    dv_stats_add(&l, "%", "third", 100.0 / 3.0, false, "a.third");
    dv_stats_add(&l, "cycles", "zero", 0, true, "m.zero");
    dv_buf js = DV_BUF_INIT;
    ck_assert_int_eq(dv_stats_json(&l, &js), DV_OK);
    ck_assert_ptr_nonnull(strstr(js.data, "1152921504606848000"));
    ck_assert_ptr_nonnull(strstr(js.data, "33.3333"));
    ck_assert_ptr_null(strstr(js.data, "33.33333"));
    /* the list's order, not sorted */
    ck_assert(strstr(js.data, "z.big") < strstr(js.data, "a.third"));
    ck_assert(strstr(js.data, "a.third") < strstr(js.data, "m.zero"));
    cJSON *root = cJSON_Parse(js.data);
    ck_assert_ptr_nonnull(root);
    const cJSON *first = root->child;
    ck_assert_str_eq(first->string, "z.big");
    ck_assert_str_eq(first->next->string, "a.third");
    ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(first->next, "value")->valuedouble, 33.3333);
    cJSON_Delete(root);
    dv_buf_free(&js);
    dv_stats_free(&l);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("stats");
    tcase_add_test(tc, test_escaped);
    tcase_add_test(tc, test_order_and_numbers);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
