/* test_asm_nomem.c - the assembler when a string copy fails: every
 * strdup/strndup of an assembly fails in turn, and each run must end in
 * DV_ERR_NOMEM (or DV_OK, where the copy was not needed), never in a crash;
 * the sanitizer build's leak checker also sees that nothing is left behind.
 *
 * This binary defines strdup and strndup itself, so the assembler linked
 * into it calls these; they fail only while a test arms them. */
#include "dv_asm.h"
#include "test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static unsigned fail_in; /* 0: off; n: the n-th copy from now returns NULL */
static bool failed;

char *strndup(const char *s, size_t n)
{
    if (fail_in && --fail_in == 0) {
        failed = true;
        return NULL;
    }
    size_t len = strnlen(s, n);
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

char *strdup(const char *s)
{
    return strndup(s, strlen(s));
}

/* Macros with parameters and defaults, calls with and without
 * parentheses, .irp, .ifc, labels, kernels and arguments. */
static const char src[] = ".macro two a, b=7\n"
                          "  addi \\a, x0, \\b\n"
                          ".endm\n"
                          ".macro pick kind, r\n"
                          ".ifc \\kind, one\n"
                          "  two \\r, 1\n"
                          ".else\n"
                          "  two(\\r)\n"
                          ".endif\n"
                          ".endm\n"
                          ".kernel k\n"
                          ".arg n, type=u64\n"
                          "top:\n"
                          ".irp r, x5, x6\n"
                          "  pick one, \\r\n"
                          "  pick other, \\r\n"
                          ".endr\n"
                          ".equ size, 8\n"
                          "  bne x5, x0, top\n"
                          "  end\n";

START_TEST(test_every_copy_fails)
{
    unsigned runs = 0;
    for (unsigned n = 1;; n++) {
        fail_in = n;
        failed = false;
        dv_obj *obj = NULL;
        dv_diags diags = {NULL, 0};
        dv_error err;
        dv_status st = dv_asm_string("t.dvs", src, strlen(src), NULL, &obj, &diags, &err);
        bool was_failed = failed;
        fail_in = 0;
        CHECK(st == DV_OK || st == DV_ERR_NOMEM, "copy %u failing: status %d (%s)", n, (int)st, err.msg);
        CHECK(st != DV_ERR_NOMEM || !obj, "copy %u failing: an object with DV_ERR_NOMEM", n);
        if (st == DV_OK)
            CHECK(obj && obj->text_size == 8 * 6, "copy %u failing: %zu bytes of .text", n,
                  obj ? obj->text_size : 0);
        dv_obj_destroy(obj);
        dv_diags_free(&diags);
        runs++;
        if (!was_failed)
            break; /* the whole assembly needed fewer than n copies */
    }
    ck_assert_uint_gt(runs, 10);
}
END_TEST

static Suite *nomem_suite(void)
{
    Suite *s = suite_create("asm-nomem");
    TCase *tc = tcase_create("strdup");
    tcase_add_test(tc, test_every_copy_fails);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(nomem_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed_tests = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed_tests ? EXIT_FAILURE : EXIT_SUCCESS;
}
