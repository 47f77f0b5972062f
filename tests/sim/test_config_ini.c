/* test_config_ini.c - chip configs from INI files and --set. */
#include "dv_config.h"
#include "dv_test_main.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static void write_ini(const char *text)
{
    snprintf(path, sizeof path, "/tmp/dvcfgXXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq((int)write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
}

/* Loads text; returns the status and leaves the message in err. */
static dv_status load(const char *text, dv_chip_config *cfg, dv_error *err)
{
    write_ini(text);
    dv_status st = dv_config_load_ini(path, cfg, err);
    unlink(path);
    return st;
}

static void expect_error(const char *text, const char *where, const char *what)
{
    dv_chip_config cfg;
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(load(text, &cfg, &err), DV_ERR_CONFIG);
    char want[128];
    snprintf(want, sizeof want, "%s%s", path, where);
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "'%s' should start with '%s'", err.msg, want);
    ck_assert_msg(strstr(err.msg, what) != NULL, "'%s' should contain '%s'", err.msg, what);
    ck_assert_ptr_null(strchr(err.msg, '\n'));
}

START_TEST(test_base_and_overrides)
{
    dv_chip_config cfg;
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(
        load("[chip]\nname = mine\nbase = ascend910b\n[path]\ngm_to_ub = 0x40\n[buffer]\nub_bytes = 128K\n",
             &cfg, &err),
        DV_OK);
    ck_assert_str_eq(cfg.name, "mine");
    ck_assert_uint_eq(dv_path_bw(&cfg, DV_PATH_GM_UB), 64);
    ck_assert_uint_eq(cfg.ub_bytes, 131072);
    ck_assert_uint_eq(cfg.cores, 24); /* from the base */
}
END_TEST

START_TEST(test_written_config_reads_back)
{
    /* The effective config dvsim writes (--out) is a complete config file. */
    for (size_t i = 0; i < dv_config_builtin_count(); i++) {
        dv_chip_config a, b;
        dv_config_builtin(dv_config_builtin_name(i), &a, NULL);
        dv_buf ini = DV_BUF_INIT;
        dv_config_write_ini(&a, &ini);
        dv_error err = {DV_OK, ""};
        ck_assert_msg(load(ini.data, &b, &err) == DV_OK, "%s", err.msg);
        ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
        dv_buf_free(&ini);
    }
}
END_TEST

START_TEST(test_errors_name_file_line_key)
{
    expect_error("[chip]\nbase = ascend910\n[path]\ngm_to_uub = 3\n", ":4: ", "unknown key 'path.gm_to_uub'");
    expect_error("[chip]\nbase = ascend910\n[cube]\nhead_cycles = six\n",
                 ":4: ", "cube.head_cycles: 'six' is not an unsigned integer");
    expect_error("[chip]\nbase = ascend910\n[cube]\nhead_cycles = -1\n", ":4: ", "not an unsigned integer");
    expect_error("[chip]\nbase = ascend910\n\n[path]\ngm_to_ub = 0\n",
                 ":5: ", "path.gm_to_ub = 0 is below its minimum 1");
    expect_error("[chip]\nbase = ascend910\n[buffer]\nub_bytes = 1000\n",
                 ":4: ", "buffer.ub_bytes = 1000 is not a multiple of align.ub");
    expect_error("[chip]\nbase = ascend999\n", ":2: ", "unknown chip 'ascend999'");
    expect_error("[chip]\nbase = ascend910\nbase = ascend910\n", ":3: ", "given twice");
    expect_error("[chip]\nbase = ascend910\n[cube]\nm = 16\nm = 16\n", ":5: ", "cube.m: given twice");
    expect_error("[cube]\nm = 16\n", ": ", "missing key chip.cores");
    expect_error("[chip\nbase = ascend910\n", ":1: ", "not INI syntax");
    dv_chip_config cfg;
    dv_error err;
    ck_assert_int_eq(dv_config_load_ini("/nonexistent/chip.ini", &cfg, &err), DV_ERR_MISSING);
}
END_TEST

START_TEST(test_set)
{
    dv_chip_config cfg;
    dv_error err = {DV_OK, ""};
    dv_config_builtin("ascend910", &cfg, NULL);
    ck_assert_int_eq(dv_config_set_kv(&cfg, "path.gm_to_ub=32", &err), DV_OK);
    ck_assert_uint_eq(dv_path_bw(&cfg, DV_PATH_GM_UB), 32);
    ck_assert_int_eq(dv_config_set_kv(&cfg, "path.gm_to_ub=0", &err), DV_ERR_CONFIG);
    ck_assert_uint_eq(dv_path_bw(&cfg, DV_PATH_GM_UB), 32); /* unchanged after a refused --set */
    ck_assert_int_eq(dv_config_set_kv(&cfg, "nosuch.key=1", &err), DV_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "unknown key 'nosuch.key'"));
    ck_assert_int_eq(dv_config_set_kv(&cfg, "cube.m", &err), DV_ERR_CONFIG);
    ck_assert_int_eq(dv_config_set_kv(&cfg, "sync.event_ids=17", &err), DV_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "above its maximum 16"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config-ini");
    TCase *tc = tcase_create("ini");
    tcase_add_test(tc, test_base_and_overrides);
    tcase_add_test(tc, test_written_config_reads_back);
    tcase_add_test(tc, test_errors_name_file_line_key);
    tcase_add_test(tc, test_set);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
