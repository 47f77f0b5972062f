/* config_ini.c - chip configs from INI files (inih) and --set overrides. */
#include "dv_config.h"
#include "dv_file.h"
#include "dv_num.h"
#include "dv_text.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_KEYS = 256 };

typedef struct ini_state {
    const char *path;
    dv_chip_config *cfg;
    bool have_base, have_name;
    bool seen[MAX_KEYS];
    unsigned line_of[MAX_KEYS]; /* where each key was set, for later errors */
    unsigned line;              /* current line, counted by the reader */
    unsigned fail_line;
    dv_error *err;
    bool failed;
} ini_state;

/* A value: dv_parse_u64_scaled, decimal or 0x hex, optional K/M/G
 * (x1024^n); inih has already cut the spaces around it. */
static bool parse_value(const char *s, uint64_t *out)
{
    return dv_parse_u64_scaled(s, out);
}

/* A chip name survives the INI that --out writes ("name = NAME", read back
 * by inih, which cuts spaces at the ends and a comment after " ;" or " #"):
 * printable, no ';', '#', '=', '[' or ']', no space at either end.  (Found
 * by fuzz_config: a continuation line made a name with "  ; c" in it.) */
static bool name_char_ok(char c)
{
    return c >= 0x20 && c < 0x7f && !strchr(";#=[]\\", c);
}

static bool name_ok(const char *s, size_t size)
{
    size_t n = strlen(s);
    if (n == 0 || n >= size || s[0] == ' ' || s[n - 1] == ' ')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!name_char_ok(s[i]))
            return false;
    return true;
}

static int fail(ini_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(ini_state *st, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dv_error_set(st->err, DV_ERR_CONFIG, "%s:%u: %.400s", st->path, st->line, msg);
    st->failed = true;
    st->fail_line = st->line;
    return 0;
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
    ini_state *st = user;
    if (st->failed)
        return 0;
    char key[128];
    snprintf(key, sizeof key, "%s.%s", section, name);
    if (strcmp(key, "chip.name") == 0) {
        if (st->have_name) /* also an indented line after it: inih's continuation of the value */
            return fail(st, "chip.name: given twice");
        if (!name_ok(value, sizeof st->cfg->name))
            return fail(st,
                        "chip.name: '%s' is not a name (1 to %zu printable characters, none of ; # = [ ] \\)",
                        DV_ESC(value), sizeof st->cfg->name - 1);
        st->have_name = true;
        snprintf(st->cfg->name, sizeof st->cfg->name, "%s", value);
        return 1;
    }
    if (strcmp(key, "chip.base") == 0) {
        if (st->have_base)
            return fail(st, "chip.base: given twice");
        char keep[DV_CHIP_NAME_MAX];
        snprintf(keep, sizeof keep, "%s", st->cfg->name);
        dv_error e;
        if (dv_config_builtin(value, st->cfg, &e) != DV_OK)
            return fail(st, "chip.base: %.300s", e.msg); /* e.msg escapes the name */
        if (keep[0])
            snprintf(st->cfg->name, sizeof st->cfg->name, "%s", keep);
        st->have_base = true;
        return 1;
    }
    const dv_config_key *k = dv_config_key_find(key);
    if (!k)
        return fail(st, "unknown key '%s' (see `dvsim chips --keys`)", DV_ESC(key));
    size_t idx = (size_t)(k - dv_config_key_at(0));
    if (st->seen[idx])
        return fail(st, "%s: given twice", key);
    uint64_t v;
    if (!parse_value(value, &v))
        return fail(st, "%s: '%s' is not an unsigned integer (decimal, 0x hex, optional K/M/G)", key,
                    DV_ESC(value));
    dv_config_set(st->cfg, k, v);
    st->seen[idx] = true;
    st->line_of[idx] = st->line;
    return 1;
}

/* inih's reader callback: counts lines so handler errors name their line.
 * A line longer than inih's buffer is cut there and the rest skipped, so the
 * rest is not parsed as a line of its own (it would look like a
 * continuation); only long comments are that long. */
static char *read_line(char *str, int num, void *stream)
{
    FILE *f = ((void **)stream)[0];
    ini_state *st = ((void **)stream)[1];
    char *r = fgets(str, num, f);
    if (!r)
        return NULL;
    st->line++;
    if (!strchr(str, '\n')) {
        int c;
        while ((c = fgetc(f)) != EOF && c != '\n')
            ;
    }
    return r;
}

dv_status dv_config_load_ini(const char *path, dv_chip_config *out, dv_error *err)
{
    FILE *f = dv_open_input(path, err);
    if (!f)
        return err ? err->status : DV_ERR_MISSING;
    ini_state st;
    memset(&st, 0, sizeof st);
    dv_chip_config cfg;
    memset(&cfg, 0, sizeof cfg);
    st.path = path;
    st.cfg = &cfg;
    st.err = err;
    void *stream[2] = {f, &st};
    int rc = ini_parse_stream(read_line, stream, on_entry, &st);
    fclose(f);
    /* inih goes on after a syntax error, so report whichever came first. */
    if (rc > 0 && (!st.failed || (unsigned)rc < st.fail_line))
        return dv_error_set(err, DV_ERR_CONFIG, "%s:%d: not INI syntax (expected [section] or key = value)",
                            path, rc);
    if (st.failed)
        return DV_ERR_CONFIG;
    if (rc != 0)
        return dv_error_set(err, DV_ERR_IO, "%s: read error", path);
    if (!cfg.name[0]) {
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        snprintf(cfg.name, sizeof cfg.name, "%.*s", (int)strcspn(base, "."), base);
        for (char *c = cfg.name; *c; c++) /* the file's name, made a valid chip name */
            if (!name_char_ok(*c) || *c == ' ')
                *c = '_';
        if (!cfg.name[0])
            snprintf(cfg.name, sizeof cfg.name, "chip");
    }
    if (!st.have_base) {
        for (size_t i = 0; i < dv_config_key_count(); i++)
            if (!st.seen[i])
                return dv_error_set(err, DV_ERR_CONFIG,
                                    "%s: missing key %s (give every key, or start from a built-in chip with "
                                    "[chip] base = NAME)",
                                    path, dv_config_key_at(i)->key);
    }
    const char *bad = NULL;
    dv_error verr;
    if (dv_config_validate_at(&cfg, &bad, &verr) != DV_OK) {
        const dv_config_key *k = bad ? dv_config_key_find(bad) : NULL;
        size_t idx = k ? (size_t)(k - dv_config_key_at(0)) : 0;
        if (k && st.seen[idx])
            return dv_error_set(err, DV_ERR_CONFIG, "%s:%u: %s", path, st.line_of[idx], verr.msg);
        return dv_error_set(err, DV_ERR_CONFIG, "%s: %s", path, verr.msg);
    }
    *out = cfg;
    return DV_OK;
}

dv_status dv_config_set_kv(dv_chip_config *cfg, const char *assignment, dv_error *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq)
        return dv_error_set(err, DV_ERR_CONFIG, "--set %s: expected section.key=value", DV_ESC(assignment));
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)(eq - assignment), assignment);
    const dv_config_key *k = dv_config_key_find(key);
    if (!k)
        return dv_error_set(err, DV_ERR_CONFIG, "--set: unknown key '%s' (see `dvsim chips --keys`)",
                            DV_ESC(key));
    uint64_t v;
    if (!parse_value(eq + 1, &v))
        return dv_error_set(err, DV_ERR_CONFIG, "--set %s: '%s' is not an unsigned integer", key,
                            DV_ESC(eq + 1));
    dv_chip_config copy = *cfg;
    dv_config_set(&copy, k, v);
    dv_error verr;
    if (dv_config_validate(&copy, &verr) != DV_OK)
        return dv_error_set(err, DV_ERR_CONFIG, "--set %s: %s", key, verr.msg);
    *cfg = copy;
    return DV_OK;
}
