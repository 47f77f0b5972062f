/* test_base.c - the parts of base/ the assembler is built on: dv_buf keeps
 * its text a string from the first allocation on.  The meson test runs it
 * with glibc's malloc filling new memory (GLIBC_TUNABLES perturb, no
 * tcache), as ASan's does, so a byte nobody wrote is not 0 by luck. */
#include "dv_buf.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_buf_string)
{
    dv_buf b = DV_BUF_INIT;
    ck_assert(dv_buf_reserve(&b, 100));
    ck_assert_ptr_nonnull(b.data);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_int_eq(b.data[0], '\0'); /* dv_buf.h: a string whenever data is set */
    dv_buf_free(&b);

    size_t len = 99;
    char *s = dv_buf_take(&b, &len); /* an empty buffer is "" */
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s, "");
    ck_assert_uint_eq(len, 0);
    free(s);

    dv_buf_puts(&b, "abc");
    ck_assert(dv_buf_reserve(&b, 5000)); /* growing keeps the text and its NUL */
    ck_assert_str_eq(b.data, "abc");
    dv_buf_printf(&b, "%d", 42);
    dv_buf_append(&b, "", 0);
    s = dv_buf_take(&b, &len);
    ck_assert_str_eq(s, "abc42");
    ck_assert_uint_eq(len, 5);
    ck_assert_ptr_null(b.data);
    free(s);
}
END_TEST

static Suite *base_suite(void)
{
    Suite *s = suite_create("base");
    TCase *tc = tcase_create("buf");
    tcase_add_test(tc, test_buf_string);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(base_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
