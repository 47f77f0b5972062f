/* test_getopt.c - the command line's getopt_long wrapper (cli_getopt in
 * cli/cli.h): both forms of a value, options and positional arguments in
 * any order (also under POSIXLY_CORRECT), "--", the top level's in-order
 * mode, and a clean start for every parse in one process, also after one
 * that stopped in the middle of a cluster of short options; and the
 * command line's number parser (cli_parse_u64). */
#include "cli.h"
#include "dv_test_main.h"

#include <check.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum { CHIP = CLI_OPT_FIRST, JSON };
static const struct option longopts[] = {{"chip", required_argument, NULL, CHIP},
                                         {"json", no_argument, NULL, JSON},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};

/* Parses a NULL-terminated argv; writes what it saw, e.g. "chip=x json arg=a -o=f ", into out. */
static int parse(char **argv, bool in_order, char *out, size_t size)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    cli_getopt g;
    cli_getopt_init(&g, "test", argc, argv, "ho:v", longopts, in_order);
    size_t n = 0;
    out[0] = '\0';
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        if (c == CLI_BAD)
            return EXIT_USAGE;
        const char *what = c == CHIP      ? "chip"
                           : c == JSON    ? "json"
                           : c == CLI_ARG ? "arg"
                           : c == 'o'     ? "-o"
                                          : "-v";
        n += (size_t)snprintf(out + n, size - n, g.arg ? "%s=%s " : "%s ", what, g.arg);
        if (in_order && c == CLI_ARG)
            break;
    }
    return 0;
}

START_TEST(test_forms_and_order)
{
    char a0[] = "test", a1[] = "first", a2[] = "--chip", a3[] = "x", a4[] = "--chip=y", a5[] = "-vofile",
         a6[] = "--js", a7[] = "--", a8[] = "--json", a9[] = "-o";
    char *argv[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, NULL};
    char out[256];
    ck_assert_int_eq(parse(argv, false, out, sizeof out), 0);
    ck_assert_str_eq(out, "arg=first chip=x chip=y -v -o=file json arg=--json arg=-o ");
    /* the order is the one given, whatever POSIXLY_CORRECT says */
    setenv("POSIXLY_CORRECT", "1", 1);
    char *again[] = {a0, a1, a2, a3, NULL};
    ck_assert_int_eq(parse(again, false, out, sizeof out), 0);
    ck_assert_str_eq(out, "arg=first chip=x ");
    unsetenv("POSIXLY_CORRECT");
}
END_TEST

START_TEST(test_errors_then_clean_start)
{
    char a0[] = "test", a1[] = "-vxv", a2[] = "--chip", a3[] = "--nope", a4[] = "--json=1", a5[] = "--c";
    char out[256];
    char *bad_cluster[] = {a0, a1, NULL};
    /* stops after -v, in the middle of -vxv */
    ck_assert_int_eq(parse(bad_cluster, false, out, sizeof out), EXIT_USAGE);
    /* straight after it, a good command line parses from a clean start (no
     * state of the cluster left in getopt) */
    char *prefix[] = {a0, a5, a0, NULL}; /* --c: --chip is the only option starting so */
    ck_assert_int_eq(parse(prefix, false, out, sizeof out), 0);
    ck_assert_str_eq(out, "chip=test ");
    char *missing[] = {a0, a2, NULL};
    ck_assert_int_eq(parse(missing, false, out, sizeof out), EXIT_USAGE);
    char *unknown[] = {a0, a3, NULL};
    ck_assert_int_eq(parse(unknown, false, out, sizeof out), EXIT_USAGE);
    char *no_value[] = {a0, a4, NULL};
    ck_assert_int_eq(parse(no_value, false, out, sizeof out), EXIT_USAGE);
    ck_assert_int_eq(parse(prefix, false, out, sizeof out), 0);
    ck_assert_str_eq(out, "chip=test ");
}
END_TEST

START_TEST(test_in_order)
{
    char a0[] = "dvsim", a1[] = "--json", a2[] = "run", a3[] = "--chip", a4[] = "x";
    char *argv[] = {a0, a1, a2, a3, a4, NULL};
    char out[256];
    ck_assert_int_eq(parse(argv, true, out, sizeof out), 0);
    ck_assert_str_eq(out, "json arg=run ");
    ck_assert_int_eq(optind, 3); /* the command's own options start after it */
}
END_TEST

/* The one number parser of the command line: decimal or 0x hex, nothing else. */
START_TEST(test_parse_u64)
{
    static const struct {
        const char *s;
        bool ok;
        uint64_t v;
    } cases[] = {
        {"0", true, 0},
        {"42", true, 42},
        {"010", true, 10}, /* not octal */
        {"0x1f", true, 31},
        {"0XfF", true, 255},
        {"18446744073709551615", true, UINT64_MAX},
        {"18446744073709551616", false, 0},
        {"", false, 0},
        {"0x", false, 0},
        {"0x0x5", false, 0},
        {"-1", false, 0},
        {" -1", false, 0}, /* strtoull would skip the space and wrap the sign */
        {" 5", false, 0},
        {"+5", false, 0},
        {"5 ", false, 0},
        {"1k", false, 0},
        {"1.5", false, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t v = 12345;
        ck_assert_msg(cli_parse_u64(cases[i].s, &v) == cases[i].ok, "'%s'", cases[i].s);
        ck_assert_msg(v == (cases[i].ok ? cases[i].v : 12345), "'%s' gave %llu", cases[i].s,
                      (unsigned long long)v);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("getopt");
    TCase *tc = tcase_create("getopt");
    tcase_add_test(tc, test_forms_and_order);
    tcase_add_test(tc, test_errors_then_clean_start);
    tcase_add_test(tc, test_in_order);
    tcase_add_test(tc, test_parse_u64);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
