/* dv_test_main.h - the common end of a Check test program's main(). */
#ifndef DV_TEST_MAIN_H
#define DV_TEST_MAIN_H

#include <check.h>
#include <stdlib.h>

/* Runs every test of suite s and returns the process exit status. */
static inline int dv_test_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
