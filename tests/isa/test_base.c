/* test_base.c - the parts of base/ the assembler is built on: dv_buf keeps
 * its text a string from the first allocation on; dv_log's gate, and a NULL
 * log is off; dv_file's reader returns what its writer wrote.  The meson test runs it
 * with glibc's malloc filling new memory (GLIBC_TUNABLES perturb, no
 * tcache), as ASan's does, so a byte nobody wrote is not 0 by luck. */
#include "dv_buf.h"
#include "dv_file.h"
#include "dv_log.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void count_sink(void *user, dv_log_cat cat, dv_log_level level, const char *msg)
{
    (void)cat, (void)level, (void)msg;
    ++*(int *)user;
}

/* dv_read_file gives back what dv_write_file_atomic wrote, as a string;
 * a missing file is DV_ERR_MISSING. */
START_TEST(test_file_round_trip)
{
    char path[] = "/tmp/dv-test-file-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    dv_error err = {DV_OK, ""};
    static const char bytes[] = {'a', 0, 'b', 'c'};
    ck_assert_int_eq(dv_write_file_atomic(path, bytes, sizeof bytes, &err), DV_OK);
    char *data;
    size_t len;
    ck_assert_int_eq(dv_read_file(path, &data, &len, &err), DV_OK);
    ck_assert_uint_eq(len, sizeof bytes);
    ck_assert_int_eq(memcmp(data, bytes, len), 0);
    ck_assert_int_eq(data[len], '\0');
    free(data);
    ck_assert_int_eq(dv_write_file_atomic(path, "", 0, &err), DV_OK);
    ck_assert_int_eq(dv_read_file(path, &data, &len, &err), DV_OK);
    ck_assert_uint_eq(len, 0);
    ck_assert_str_eq(data, "");
    free(data);
    remove(path);
    close(fd);
    ck_assert_int_eq(dv_read_file(path, &data, &len, &err), DV_ERR_MISSING);
    ck_assert_ptr_null(data);
    ck_assert_ptr_nonnull(strstr(err.msg, "cannot open"));
}
END_TEST

START_TEST(test_log_gate)
{
    /* no log at all: off, and nothing is formatted or dereferenced */
    ck_assert(!dv_log_enabled(NULL, DV_LOG_CAT_ASM, DV_LOG_ERROR));
    DV_LOG(NULL, DV_LOG_CAT_SIM, DV_LOG_ERROR, "%s", "dropped");
    dv_log_emit(NULL, DV_LOG_CAT_SIM, DV_LOG_ERROR, "dropped");

    dv_log log;
    int n = 0;
    dv_log_init(&log);
    ck_assert(!dv_log_enabled(&log, DV_LOG_CAT_SIM, DV_LOG_ERROR)); /* no sink */
    dv_log_set_sink(&log, count_sink, &n);
    ck_assert(dv_log_enabled(&log, DV_LOG_CAT_SIM, DV_LOG_WARN));
    ck_assert(!dv_log_enabled(&log, DV_LOG_CAT_SIM, DV_LOG_INFO));
    dv_log_set_level(&log, DV_LOG_CAT_SIM, DV_LOG_TRACE);
    DV_LOG(&log, DV_LOG_CAT_SIM, DV_LOG_TRACE, "one");
    DV_LOG(&log, DV_LOG_CAT_MEM, DV_LOG_INFO, "not this");
    ck_assert_int_eq(n, 1);
}
END_TEST

static Suite *base_suite(void)
{
    Suite *s = suite_create("base");
    TCase *tc = tcase_create("buf");
    tcase_add_test(tc, test_buf_string);
    suite_add_tcase(s, tc);
    tc = tcase_create("log");
    tcase_add_test(tc, test_file_round_trip);
    tcase_add_test(tc, test_log_gate);
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
