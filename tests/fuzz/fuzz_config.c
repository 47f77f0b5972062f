/* fuzz_config.c - fuzz harness for chip config files and --set.
 *
 * The input is an INI file, optionally followed by a line "--set" and then
 * one KEY=VALUE assignment per line (as dvsim run --set takes them).  The
 * file is read by dv_config_load_ini, the assignments applied by
 * dv_config_set_kv.  Properties: a rejection is DV_ERR_CONFIG (or
 * DV_ERR_MISSING/IO for the file itself) with one printable line; an
 * accepted config validates, and written back as INI (dv_config_write_ini)
 * it reads back to the same values, so `--out DIR`'s config.ini reproduces
 * a run. */
#include "dv_config.h"
#include "fuzz.h"
#include "fuzz_tmpfile.h"

static void check_error(dv_status st, const dv_error *err)
{
    FUZZ_CHECK(st == DV_ERR_CONFIG || st == DV_ERR_MISSING || st == DV_ERR_IO || st == DV_ERR_NOMEM,
               "unexpected status %d: %s", (int)st, err->msg);
    fuzz_check_line(err->msg);
}

static void check_roundtrip(const dv_chip_config *cfg)
{
    dv_error err;
    dv_error_clear(&err);
    FUZZ_CHECK(dv_config_validate(cfg, &err) == DV_OK, "accepted config does not validate: %s", err.msg);
    dv_buf ini = DV_BUF_INIT;
    dv_config_write_ini(cfg, &ini);
    if (ini.oom) {
        dv_buf_free(&ini);
        return;
    }
    const char *path = fuzz_write_tmp("back.ini", (const uint8_t *)ini.data, ini.len);
    dv_buf_free(&ini);
    if (!path)
        return;
    dv_chip_config back;
    dv_status st = dv_config_load_ini(path, &back, &err);
    FUZZ_CHECK(st == DV_OK, "the written config does not read back: %s", err.msg);
    for (size_t i = 0; i < dv_config_key_count(); i++) {
        const dv_config_key *k = dv_config_key_at(i);
        FUZZ_CHECK(dv_config_get(cfg, k) == dv_config_get(&back, k), "%s changed on the round trip", k->key);
    }
    FUZZ_CHECK(strcmp(cfg->name, back.name) == 0, "the name changed on the round trip");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the INI part ends at a line "--set" */
    size_t ini_len = size;
    for (size_t i = 0; i + 6 <= size; i++)
        if ((i == 0 || data[i - 1] == '\n') && memcmp(data + i, "--set\n", 6) == 0) {
            ini_len = i;
            break;
        }
    const char *path = fuzz_write_tmp("in.ini", data, ini_len);
    if (!path)
        return 0;
    dv_chip_config cfg;
    dv_error err;
    dv_error_clear(&err);
    dv_status st = dv_config_load_ini(path, &cfg, &err);
    if (st != DV_OK) {
        check_error(st, &err);
        return 0;
    }
    check_roundtrip(&cfg);
    /* the --set lines, each applied in turn */
    size_t at = ini_len < size ? ini_len + 6 : size;
    while (at < size) {
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
        char *line = malloc(len + 1);
        if (!line)
            return 0;
        memcpy(line, data + at, len);
        line[len] = '\0';
        if (strlen(line) == len) { /* a NUL cannot reach argv */
            dv_chip_config before = cfg;
            st = dv_config_set_kv(&cfg, line, &err);
            if (st != DV_OK) {
                check_error(st, &err);
                FUZZ_CHECK(memcmp(&before, &cfg, sizeof cfg) == 0, "a rejected --set changed the config");
            } else {
                check_roundtrip(&cfg);
            }
        }
        free(line);
        at += len + 1;
    }
    return 0;
}
