/* test_base.c - the parts of base/ the assembler is built on: dv_buf keeps
 * its text a string from the first allocation on; dv_log's gate, and a NULL
 * log is off; dv_file's reader returns what its writer wrote.  The meson test runs it
 * with glibc's malloc filling new memory (GLIBC_TUNABLES perturb, no
 * tcache), as ASan's does, so a byte nobody wrote is not 0 by luck. */
#include "dv_buf.h"
#include "dv_file.h"
#include "dv_fp.h"
#include "dv_log.h"
#include "dv_num.h"
#include "dv_text.h"

#include <check.h>
#include <math.h>
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

/* A directory is refused at open, as a missing file is (66), for every
 * input: not read as empty, short or malformed. */
START_TEST(test_open_directory)
{
    dv_error err = {DV_OK, ""};
    char *data = NULL;
    size_t len;
    ck_assert_int_eq(dv_read_file("/tmp", &data, &len, &err), DV_ERR_MISSING);
    ck_assert_ptr_null(data);
    ck_assert_str_eq(err.msg, "/tmp: cannot open: Is a directory");
    ck_assert_int_lt(dv_open_input_fd("/", &err), 0);
    ck_assert_ptr_null(dv_open_input("/", &err));
    ck_assert_int_eq(err.status, DV_ERR_MISSING);
}
END_TEST

/* THE number syntax: decimal or 0x hex, nothing else (no octal, sign or
 * space), within 64 bits. */
START_TEST(test_num_strict)
{
    static const struct {
        const char *s;
        bool ok;
        uint64_t v;
    } cases[] = {
        {"0", true, 0},
        {"0100", true, 100}, /* not octal 64 */
        {"010", true, 10},
        {"0x10", true, 16},
        {"0X1f", true, 31},
        {"18446744073709551615", true, UINT64_MAX},
        {"0xffffffffffffffff", true, UINT64_MAX},
        {"18446744073709551616", false, 0},
        {"0x10000000000000000", false, 0},
        {" 1", false, 0},
        {"1 ", false, 0},
        {"-1", false, 0},
        {" -1", false, 0},
        {"+1", false, 0},
        {"", false, 0},
        {"0x", false, 0},
        {"1e3", false, 0},
        {"0b1", false, 0},
        {"12a", false, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t v = 12345;
        ck_assert_msg(dv_parse_u64(cases[i].s, &v) == cases[i].ok, "'%s'", cases[i].s);
        if (cases[i].ok)
            ck_assert_msg(v == cases[i].v, "'%s' read as %llu", cases[i].s, (unsigned long long)v);
    }
    uint64_t v;
    ck_assert(dv_parse_u64_scaled("512K", &v) && v == 512 * 1024);
    ck_assert(dv_parse_u64_scaled("0x10m", &v) && v == 16ull << 20);
    ck_assert(dv_parse_u64_scaled("1024G", &v) && v == 1ull << 40);
    ck_assert(dv_parse_u64_scaled("010", &v) && v == 10);
    ck_assert(!dv_parse_u64_scaled("K", &v));
    ck_assert(!dv_parse_u64_scaled("16T", &v));
    ck_assert(!dv_parse_u64_scaled("17179869184G", &v)); /* 2^34 G is past 2^64 */
    ck_assert(!dv_parse_u64_scaled("1 K", &v));
    int64_t s;
    ck_assert(dv_parse_s64("-9223372036854775808", &s) && s == INT64_MIN);
    ck_assert(dv_parse_s64("9223372036854775807", &s) && s == INT64_MAX);
    ck_assert(dv_parse_s64("-010", &s) && s == -10);
    ck_assert(!dv_parse_s64("9223372036854775808", &s));
    ck_assert(!dv_parse_s64("- 1", &s));
    ck_assert(!dv_parse_s64("--1", &s));
    ck_assert(dv_parse_u64n("12:34", 2, &v) && v == 12);
}
END_TEST

/* JSON numbers: whole, finite, in [0, max]; no undefined cast. */
START_TEST(test_num_double)
{
    uint64_t v;
    ck_assert(dv_u64_of_double(8, 100, &v) && v == 8);
    ck_assert(dv_u64_of_double(0, 0, &v) && v == 0);
    ck_assert(!dv_u64_of_double(-1, 100, &v));
    ck_assert(!dv_u64_of_double(101, 100, &v));
    ck_assert(!dv_u64_of_double(1.5, 100, &v));
    ck_assert(!dv_u64_of_double(1e300, UINT64_MAX, &v));
    ck_assert(!dv_u64_of_double(18446744073709551616.0, UINT64_MAX, &v));
    ck_assert(!dv_u64_of_double(NAN, UINT64_MAX, &v));
    ck_assert(!dv_u64_of_double(INFINITY, UINT64_MAX, &v));
    ck_assert(dv_u64_of_double(9007199254740992.0, UINT64_MAX, &v) && v == 9007199254740992ull);
}
END_TEST

/* THE escaping of input text: printable ASCII stays, the rest is \xNN, a
 * long text is cut with "..." inside the buffer. */
START_TEST(test_escape)
{
    char out[64];
    ck_assert_str_eq(dv_escape("plain name.dvs", out, sizeof out), "plain name.dvs");
    ck_assert_str_eq(dv_escape("a\nb\x1b[2J\\", out, sizeof out), "a\\x0ab\\x1b[2J\\x5c");
    ck_assert_str_eq(dv_escape("\xc3\xa9", out, sizeof out), "\\xc3\\xa9");
    ck_assert_str_eq(dv_escape_n("a\0b", 3, out, sizeof out), "a\\x00b");
    char longer[200];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    const char *cut = dv_escape(longer, out, sizeof out);
    ck_assert_uint_lt(strlen(cut), sizeof out);
    ck_assert_ptr_nonnull(strstr(cut, "..."));
    ck_assert(dv_is_printable("ok"));
    ck_assert(!dv_is_printable("no\t"));
    ck_assert_str_eq(DV_ESC("\r"), "\\x0d");
}
END_TEST

/* The batch fp16 conversion (F16C on x86) gives dv_f64_to_fp16's bits:
 * halfway cases both ways, values a double rounding would get wrong,
 * subnormals, underflow, overflow, infinities and NaNs, and random values
 * over the whole range. */
START_TEST(test_fp16_batch)
{
    enum { N = 20000 };
    static double in[N];
    static uint16_t out[N];
    size_t n = 0;
    const double special[] = {0.0,
                              -0.0,
                              1.0,
                              -1.0,
                              65504.0,
                              65520.0,
                              65519.99,
                              1e6,
                              -1e6,
                              INFINITY,
                              -INFINITY,
                              NAN,
                              -NAN,
                              0x1p-24,
                              0x1p-25,
                              0x1.0000000001p-25,
                              0x1p-26,
                              0x1.8p-24,
                              0x1p-14,
                              0x1.ffcp-15,
                              1.0 + 0x1p-11,
                              1.0 + 0x1p-11 + 0x1p-40,
                              1.0 + 3 * 0x1p-11,
                              1.0 + 0x1p-11 - 0x1p-40,
                              1e-300,
                              -1e-300,
                              0x1.0020000001p0};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        in[n++] = special[i];
    uint64_t x = 12345;
    while (n < N) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(x >> 11) / 9007199254740992.0;
        in[n] = (n % 3 == 0)   ? ldexp(u - 0.5, (int)(x % 60) - 40)
                : (n % 3 == 1) ? 2 * u - 1
                               : 70000 * (u - 0.5);
        n++;
    }
    dv_f64_to_fp16_n(in, out, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(out[i] == dv_f64_to_fp16(in[i]), "%a: %04x, not %04x", in[i], out[i],
                      dv_f64_to_fp16(in[i]));
    dv_f64_to_fp16_n(in, out, 5); /* a short tail alone */
    for (size_t i = 0; i < 5; i++)
        ck_assert_uint_eq(out[i], dv_f64_to_fp16(in[i]));
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
    tcase_add_test(tc, test_open_directory);
    suite_add_tcase(s, tc);
    tc = tcase_create("num");
    tcase_add_test(tc, test_num_strict);
    tcase_add_test(tc, test_num_double);
    tcase_add_test(tc, test_escape);
    tcase_add_test(tc, test_fp16_batch);
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
