/* sweep_spec.c - a sweep spec read from INI or JSON text into a sweep_spec
 * (sweep_spec.h): one table of the keys each section takes, one setter
 * behind both syntaxes, the checks of the whole spec after it. */
#include "sweep_spec.h"

#include "dv_config.h"
#include "dv_num.h"
#include "dv_text.h"

#include <cjson/cJSON.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SEC_SWEEP, SEC_WORKLOAD, SEC_AXIS } section_kind;

/* The keys of each section; list: the value is a list (INI: separated by
 * commas or blanks; JSON: an array, or an object of NAME=VALUE items). */
typedef struct spec_key {
    section_kind sec;
    const char *name;
    bool list;
} spec_key;

static const spec_key keys[] = {
    {SEC_SWEEP, "name", false},       {SEC_SWEEP, "chips", true},      {SEC_SWEEP, "metrics", true},
    {SEC_SWEEP, "groups", true},      {SEC_SWEEP, "set", true},        {SEC_SWEEP, "seed", false},
    {SEC_SWEEP, "max_cycles", false}, {SEC_SWEEP, "data", false},      {SEC_SWEEP, "combine", false},
    {SEC_WORKLOAD, "op", false},      {SEC_WORKLOAD, "kernel", false}, {SEC_WORKLOAD, "variant", false},
    {SEC_WORKLOAD, "dtype", false},   {SEC_WORKLOAD, "shape", false},  {SEC_WORKLOAD, "entry", false},
    {SEC_WORKLOAD, "blocks", false},  {SEC_WORKLOAD, "args", true},    {SEC_WORKLOAD, "gms", true},
    {SEC_AXIS, "key", false},         {SEC_AXIS, "shape", false},      {SEC_AXIS, "arg", false},
    {SEC_AXIS, "option", false},      {SEC_AXIS, "values", true},      {SEC_AXIS, "range", false},
    {SEC_AXIS, "zip", false},
};

/* Parsing state shared by both syntaxes. */
typedef struct parse_ctx {
    sweep_spec *s;
    dv_error *err;
    const char *origin;
    unsigned line; /* INI: the line being read; 0 for JSON */
    bool failed;
    section_kind sec;
    void *obj; /* the workload or axis being filled */
    /* which keys the current section, and [sweep], already have */
    bool seen[sizeof keys / sizeof keys[0]];
    bool seen_sweep[sizeof keys / sizeof keys[0]];
    bool have_range; /* the current axis's values came from a range */
    bool continued;  /* INI: an indented line going on with the key before it (a list) */
} parse_ctx;

static bool fail(parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(parse_ctx *c, const char *fmt, ...)
{
    if (c->failed)
        return false;
    char msg[DV_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->line)
        dv_error_set(c->err, DV_ERR_INPUT, "%s:%u: %s", c->origin, c->line, msg);
    else
        dv_error_set(c->err, DV_ERR_INPUT, "%s: %s", c->origin, msg);
    c->failed = true;
    return false;
}

static bool nomem(parse_ctx *c)
{
    if (!c->failed)
        dv_error_set(c->err, DV_ERR_NOMEM, "%s: out of memory", c->origin);
    c->failed = true;
    return false;
}

/* Printable, no control characters, not too long, not empty. */
static bool text_ok(parse_ctx *c, const char *what, const char *v, size_t n)
{
    if (n == 0)
        return fail(c, "%s: empty value", what);
    if (n > SWEEP_MAX_STR)
        return fail(c, "%s: value longer than %d characters", what, SWEEP_MAX_STR);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
            return fail(c, "%s: control character in '%s'", what, DV_ESC(v));
    return true;
}

static char *dup_n(parse_ctx *c, const char *v, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) {
        nomem(c);
        return NULL;
    }
    memcpy(d, v, n);
    d[n] = '\0';
    return d;
}

static bool list_add(parse_ctx *c, sweep_list *l, const char *v, size_t n, size_t max, const char *what)
{
    if (!text_ok(c, what, v, n))
        return false;
    if (l->count >= max)
        return fail(c, "%s: more than %zu items", what, max);
    if ((l->count & (l->count - 1)) == 0) { /* grows at powers of two */
        char **items = realloc(l->items, (l->count ? 2 * l->count : 1) * sizeof *items);
        if (!items)
            return nomem(c);
        l->items = items;
    }
    char *d = dup_n(c, v, n);
    if (!d)
        return false;
    l->items[l->count++] = d;
    return true;
}

static void list_free(sweep_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    *l = (sweep_list){NULL, 0};
}

/* A name of a workload or an axis: a column of results.csv. */
static bool name_ok(parse_ctx *c, const char *what, const char *v)
{
    if (!*v || strlen(v) > 64)
        return fail(c, "%s: a name of 1 to 64 characters, not '%s'", what, DV_ESC(v));
    for (const char *p = v; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '-' || *p == '.'))
            return fail(c, "%s: '%s' is not a name (letters, digits, _ - .)", what, DV_ESC(v));
    return true;
}

/* One word of a command line: an axis value, a variant, a dtype. */
static bool word_ok(parse_ctx *c, const char *what, const char *v)
{
    for (const char *p = v; *p; p++)
        if (*p == ' ' || *p == ',' || *p == '=' || *p == '"' || *p == '\'' || *p == '\\')
            return fail(c, "%s: '%s' has a blank, comma, quote or '='", what, DV_ESC(v));
    return true;
}

static bool number_ok(parse_ctx *c, const char *what, const char *v)
{
    uint64_t x;
    if (!dv_parse_u64(v, &x))
        return fail(c, "%s: '%s' is not an unsigned integer", what, DV_ESC(v));
    return true;
}

/* range = START:STOP[:STEP], STOP included; STEP N or +N (added), *N or xN
 * (multiplied); default +1. */
static bool parse_range(parse_ctx *c, sweep_axis *a, const char *v)
{
    char buf[128];
    if (strlen(v) >= sizeof buf)
        return fail(c, "range: '%s' is too long", DV_ESC(v));
    snprintf(buf, sizeof buf, "%s", v);
    char *f[3] = {buf, NULL, NULL};
    int n = 1;
    for (char *p = buf; *p; p++)
        if (*p == ':') {
            if (n == 3)
                return fail(c, "range: '%s' is not START:STOP[:STEP]", DV_ESC(v));
            *p = '\0';
            f[n++] = p + 1;
        }
    uint64_t start, stop, step = 1;
    bool mul = false;
    if (n < 2 || !dv_parse_u64(f[0], &start) || !dv_parse_u64(f[1], &stop))
        return fail(c, "range: '%s' is not START:STOP[:STEP] (unsigned integers)", DV_ESC(v));
    if (n == 3) {
        const char *s = f[2];
        if (*s == '*' || *s == 'x')
            mul = true, s++;
        else if (*s == '+')
            s++;
        if (!dv_parse_u64(s, &step) || step == 0 || (mul && step == 1))
            return fail(c, "range: step '%s' is not N, +N or *N (N > 0, a factor > 1)", DV_ESC(f[2]));
    }
    if (stop < start)
        return fail(c, "range: '%s' ends before it starts", DV_ESC(v));
    if (mul && start == 0)
        return fail(c, "range: '%s' multiplies from 0", DV_ESC(v));
    for (uint64_t x = start;;) {
        char num[24];
        int len = snprintf(num, sizeof num, "%llu", (unsigned long long)x);
        if (!list_add(c, &a->values, num, (size_t)len, SWEEP_MAX_VALUES, "range"))
            return false;
        uint64_t next = mul ? x * step : x + step;
        if ((mul ? next / step != x : next < x) || next > stop) /* overflow or past the end */
            break;
        x = next;
    }
    return true;
}

static bool set_str(parse_ctx *c, char **dst, const char *key, const char *v)
{
    if (!text_ok(c, key, v, strlen(v)))
        return false;
    *dst = dup_n(c, v, strlen(v));
    return *dst != NULL;
}

/* NAME=VALUE of set, args and gms. */
static bool assignment_ok(parse_ctx *c, const char *key, const char *v)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return fail(c, "%s: '%s' is not NAME=VALUE", key, DV_ESC(v));
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(eq - v < 127 ? eq - v : 127), v);
    if (strcmp(key, "set") == 0 && !dv_config_key_find(name)) {
        fail(c, "set: unknown config key '%s' (see dvsim chips --keys)", DV_ESC(name));
        c->err->status = DV_ERR_CONFIG;
        return false;
    }
    return true;
}

static bool bool_value(parse_ctx *c, const char *key, const char *v, bool *out)
{
    if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1"))
        *out = true;
    else if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "0"))
        *out = false;
    else
        return fail(c, "%s: '%s' is not true or false", key, DV_ESC(v));
    return true;
}

static bool set_sweep(parse_ctx *c, const char *key, const char *v, const sweep_list *items)
{
    sweep_spec *s = c->s;
    if (!strcmp(key, "name"))
        return name_ok(c, "name", v) && set_str(c, &s->name, key, v);
    if (!strcmp(key, "seed"))
        return number_ok(c, key, v) && set_str(c, &s->seed, key, v);
    if (!strcmp(key, "max_cycles"))
        return number_ok(c, key, v) && set_str(c, &s->max_cycles, key, v);
    if (!strcmp(key, "data"))
        return bool_value(c, key, v, &s->data);
    if (!strcmp(key, "combine")) {
        if (strcmp(v, "cross") && strcmp(v, "zip"))
            return fail(c, "combine: '%s' is not cross or zip", DV_ESC(v));
        s->zip_all = !strcmp(v, "zip");
        return true;
    }
    sweep_list *l = !strcmp(key, "chips")     ? &s->chips
                    : !strcmp(key, "metrics") ? &s->metrics
                    : !strcmp(key, "groups")  ? &s->groups
                                              : &s->sets;
    for (size_t i = 0; i < items->count; i++) {
        const char *it = items->items[i];
        if (l == &s->sets ? !assignment_ok(c, key, it) : !word_ok(c, key, it))
            return false;
        if (!list_add(c, l, it, strlen(it), SWEEP_MAX_LIST, key))
            return false;
    }
    return true;
}

static bool set_workload(parse_ctx *c, sweep_workload *w, const char *key, const char *v,
                         const sweep_list *items)
{
    if (!strcmp(key, "args") || !strcmp(key, "gms")) {
        sweep_list *l = key[0] == 'a' ? &w->args : &w->gms;
        for (size_t i = 0; i < items->count; i++)
            if (!assignment_ok(c, key, items->items[i]) ||
                !list_add(c, l, items->items[i], strlen(items->items[i]), SWEEP_MAX_LIST, key))
                return false;
        return true;
    }
    if (!strcmp(key, "blocks"))
        return number_ok(c, key, v) && set_str(c, &w->blocks, key, v);
    if (!strcmp(key, "shape")) {
        for (const char *p = v; *p; p++)
            if (*p == ' ' || *p == '"' || *p == '\'' || *p == '\\')
                return fail(c, "shape: '%s' is not P=V,... (no blanks or quotes)", DV_ESC(v));
        return set_str(c, &w->shape, key, v);
    }
    char **dst = !strcmp(key, "op")        ? &w->op
                 : !strcmp(key, "kernel")  ? &w->kernel
                 : !strcmp(key, "variant") ? &w->variant
                 : !strcmp(key, "dtype")   ? &w->dtype
                                           : &w->kernel_name;
    if (dst != &w->kernel && !word_ok(c, key, v))
        return false;
    return set_str(c, dst, key, v);
}

static bool set_axis(parse_ctx *c, sweep_axis *a, const char *key, const char *v, const sweep_list *items)
{
    if (!strcmp(key, "values")) {
        if (c->have_range)
            return fail(c, "axis %s: values and range both given; use one", a->name);
        for (size_t i = 0; i < items->count; i++)
            if (!word_ok(c, "values", items->items[i]) ||
                !list_add(c, &a->values, items->items[i], strlen(items->items[i]), SWEEP_MAX_VALUES, key))
                return false;
        return true;
    }
    if (!strcmp(key, "range")) {
        if (a->values.count)
            return fail(c, "axis %s: values and range both given; use one", a->name);
        c->have_range = true;
        return parse_range(c, a, v);
    }
    if (!strcmp(key, "zip"))
        return name_ok(c, "zip", v) && set_str(c, &a->zip, key, v);
    if (a->target)
        return fail(c, "axis %s: one of key, shape, arg and option, not several", a->name);
    a->kind = !strcmp(key, "key")     ? SWEEP_AXIS_KEY
              : !strcmp(key, "shape") ? SWEEP_AXIS_SHAPE
              : !strcmp(key, "arg")   ? SWEEP_AXIS_ARG
                                      : SWEEP_AXIS_OPTION;
    if (a->kind == SWEEP_AXIS_KEY && !dv_config_key_find(v)) {
        fail(c, "axis %s: unknown config key '%s' (see dvsim chips --keys)", a->name, DV_ESC(v));
        c->err->status = DV_ERR_CONFIG;
        return false;
    }
    if (a->kind == SWEEP_AXIS_OPTION && strcmp(v, "variant") && strcmp(v, "dtype") && strcmp(v, "seed") &&
        strcmp(v, "blocks"))
        return fail(c, "axis %s: option '%s' is not variant, dtype, seed or blocks", a->name, DV_ESC(v));
    if ((a->kind == SWEEP_AXIS_SHAPE || a->kind == SWEEP_AXIS_ARG) && !name_ok(c, key, v))
        return false;
    return set_str(c, &a->target, key, v);
}

/* Splits an INI list value at commas and blanks. */
static bool split_list(parse_ctx *c, const char *v, sweep_list *out)
{
    for (const char *p = v; *p;) {
        p += strspn(p, ", \t");
        size_t n = strcspn(p, ", \t");
        if (n && !list_add(c, out, p, n, SWEEP_MAX_VALUES, "list"))
            return false;
        p += n;
    }
    return true;
}

/* The current section takes key = v (items: the list, for list keys). */
static bool set_key(parse_ctx *c, const char *key, const char *v, const sweep_list *items)
{
    size_t k;
    for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (keys[k].sec == c->sec && !strcmp(keys[k].name, key))
            break;
    static const char *const secname[] = {"[sweep]", "a workload", "an axis"};
    if (k == sizeof keys / sizeof keys[0])
        return fail(c, "%s has no key '%s'", secname[c->sec], DV_ESC(key));
    bool *seen = c->sec == SEC_SWEEP ? c->seen_sweep : c->seen;
    if (c->continued && !keys[k].list)
        return fail(c, "%s: one value, not continued on an indented line", key);
    if (seen[k] && !c->continued)
        return fail(c, "%s: given twice", key);
    seen[k] = true;
    if (keys[k].list && !items->count)
        return fail(c, "%s: empty list", key);
    if (c->sec == SEC_SWEEP)
        return set_sweep(c, key, v, items);
    if (c->sec == SEC_WORKLOAD)
        return set_workload(c, c->obj, key, v, items);
    return set_axis(c, c->obj, key, v, items);
}

/* A new [workload NAME] or [axis NAME]. */
static bool begin_section(parse_ctx *c, section_kind sec, const char *name)
{
    sweep_spec *s = c->s;
    memset(c->seen, 0, sizeof c->seen);
    c->have_range = false;
    c->sec = sec;
    if (sec == SEC_SWEEP)
        return true;
    if (!name_ok(c, sec == SEC_WORKLOAD ? "workload" : "axis", name))
        return false;
    if (sec == SEC_WORKLOAD) {
        for (size_t i = 0; i < s->nworkloads; i++)
            if (!strcmp(s->workloads[i].name, name))
                return fail(c, "workload %s: given twice", name);
        if (s->nworkloads == SWEEP_MAX_WORKLOADS)
            return fail(c, "more than %d workloads", SWEEP_MAX_WORKLOADS);
        sweep_workload *w = &s->workloads[s->nworkloads++];
        c->obj = w;
        return (w->name = dup_n(c, name, strlen(name))) != NULL;
    }
    static const char *const reserved[] = {"id", "hash", "workload", "chip", "status", "exit", "message"};
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!strcmp(name, reserved[i]))
            return fail(c, "axis %s: the name of a column results.csv has anyway", name);
    for (size_t i = 0; i < s->naxes; i++)
        if (!strcmp(s->axes[i].name, name))
            return fail(c, "axis %s: given twice", name);
    if (s->naxes == SWEEP_MAX_AXES)
        return fail(c, "more than %d axes", SWEEP_MAX_AXES);
    sweep_axis *a = &s->axes[s->naxes++];
    c->obj = a;
    return (a->name = dup_n(c, name, strlen(name))) != NULL;
}

/* ---- INI ---- */

typedef struct spec_reader {
    const char *p, *end;
    parse_ctx *c;
    char section[256];  /* the section the keys go to */
    char last_key[256]; /* the key of the line before */
    bool indented;      /* the line read starts with a blank */
} spec_reader;

static char *ini_read(char *str, int num, void *stream)
{
    spec_reader *r = stream;
    if (r->p >= r->end || r->c->failed)
        return NULL;
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    size_t n = nl ? (size_t)(nl - r->p) + 1 : (size_t)(r->end - r->p);
    size_t take = n < (size_t)num - 1 ? n : (size_t)num - 1; /* a longer line is cut (and fails below) */
    memcpy(str, r->p, take);
    str[take] = '\0';
    r->indented = take && (str[0] == ' ' || str[0] == '\t');
    if (memchr(str, '\0', take))
        str[strlen(str)] = '\0';
    r->p += n;
    r->c->line++;
    if (take < n) {
        fail(r->c, "line longer than %d characters", num - 2);
        return NULL;
    }
    return str;
}

static int ini_entry(void *user, const char *section, const char *name, const char *value)
{
    spec_reader *r = user;
    parse_ctx *c = r->c;
    if (c->failed || !section || !name ||
        !value) /* inih passes none NULL (said for gcc's -fsanitize build) */
        return 0;
    if (strcmp(section, r->section) != 0) {
        snprintf(r->section, sizeof r->section, "%s", section);
        r->last_key[0] = '\0';
        section_kind sec;
        const char *nm = "";
        if (!strcmp(section, "sweep"))
            sec = SEC_SWEEP;
        else if (!strncmp(section, "workload ", 9))
            sec = SEC_WORKLOAD, nm = section + 9;
        else if (!strncmp(section, "axis ", 5))
            sec = SEC_AXIS, nm = section + 5;
        else
            return fail(c, "unknown section [%s] ([sweep], [workload NAME], [axis NAME])", DV_ESC(section)),
                   0;
        if (!begin_section(c, sec, nm))
            return 0;
    }
    if (!section[0])
        return fail(c, "'%s' before any section ([sweep], [workload NAME], [axis NAME])", DV_ESC(name)), 0;
    /* inih hands an indented line on as more of the key before it */
    c->continued = r->indented && !strcmp(r->last_key, name);
    snprintf(r->last_key, sizeof r->last_key, "%s", name);
    sweep_list items = {NULL, 0};
    bool ok = split_list(c, value, &items) && set_key(c, name, value, &items);
    list_free(&items);
    return ok;
}

static dv_status parse_ini(parse_ctx *c, const char *text, size_t len)
{
    spec_reader r = {text, text + len, c, "", "", false};
    int rc = ini_parse_stream(ini_read, &r, ini_entry, &r);
    if (c->failed)
        return c->err->status;
    if (rc > 0) {
        c->line = (unsigned)rc;
        fail(c, "not INI syntax (expected [section] or key = value)");
        return DV_ERR_INPUT;
    }
    c->line = 0;
    return DV_OK;
}

/* ---- JSON ---- */

/* A JSON scalar as text: a string, an integer, a number, a boolean. */
static bool json_text(parse_ctx *c, const char *key, const cJSON *v, char *buf, size_t size)
{
    if (cJSON_IsString(v)) {
        snprintf(buf, size, "%s", v->valuestring);
        if (strlen(v->valuestring) >= size)
            return fail(c, "%s: string longer than %zu characters", key, size - 1);
    } else if (cJSON_IsBool(v)) {
        snprintf(buf, size, "%s", cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d >= 0 && d < 9007199254740992.0 && d == (double)(uint64_t)d)
            snprintf(buf, size, "%llu", (unsigned long long)(uint64_t)d);
        else
            snprintf(buf, size, "%.17g", d);
    } else {
        return fail(c, "%s: not a string, number or boolean", key);
    }
    return true;
}

/* A JSON value of a key: scalars, arrays of scalars, objects of NAME:VALUE
 * (items NAME=VALUE; the shape's joined by commas). */
static bool json_value(parse_ctx *c, const char *key, const cJSON *v)
{
    static char buf[SWEEP_MAX_STR + 2], item[SWEEP_MAX_STR + 2]; /* not reentrant: one parse at a time */
    sweep_list items = {NULL, 0};
    bool ok = true;
    buf[0] = '\0';
    size_t k;
    for (k = 0; k < sizeof keys / sizeof keys[0] && strcmp(keys[k].name, key) != 0; k++)
        ;
    if (k == sizeof keys / sizeof keys[0]) /* not a key of any section: a name not to print raw */
        return fail(c, "no key '%s' in a sweep spec", DV_ESC(key));
    if (cJSON_IsArray(v) && !strcmp(key, "range") && cJSON_GetArraySize(v) >= 2) {
        size_t n = 0;
        for (const cJSON *e = v->child; e && ok; e = e->next) {
            ok = json_text(c, key, e, item, sizeof item);
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? ":" : "", item);
            if (n >= sizeof buf)
                ok = fail(c, "range: too long");
        }
    } else if (cJSON_IsArray(v)) {
        for (const cJSON *e = v->child; e && ok; e = e->next)
            ok = json_text(c, key, e, item, sizeof item) &&
                 list_add(c, &items, item, strlen(item), SWEEP_MAX_VALUES, key);
        if (ok && items.count)
            snprintf(buf, sizeof buf, "%s", items.items[0]);
    } else if (cJSON_IsObject(v)) {
        size_t n = 0;
        for (const cJSON *e = v->child; e && ok; e = e->next) {
            ok = json_text(c, key, e, item, sizeof item);
            char kv[2 * SWEEP_MAX_STR + 4];
            int m = snprintf(kv, sizeof kv, "%s=%s", e->string, item);
            ok = ok && list_add(c, &items, kv, (size_t)m, SWEEP_MAX_VALUES, key);
            n += (size_t)snprintf(buf + (n < sizeof buf ? n : sizeof buf - 1),
                                  sizeof buf - (n < sizeof buf ? n : sizeof buf - 1), "%s%s", n ? "," : "",
                                  kv);
            if (n >= sizeof buf)
                ok = fail(c, "%s: too long", key);
        }
    } else {
        ok = json_text(c, key, v, buf, sizeof buf) && list_add(c, &items, buf, strlen(buf), 1, key);
    }
    if (ok && !buf[0] && !items.count)
        ok = fail(c, "%s: empty", key);
    ok = ok && set_key(c, key, buf, &items);
    list_free(&items);
    return ok;
}

/* The members of a workload or axis object (name: its "name" member). */
static bool json_section(parse_ctx *c, section_kind sec, const cJSON *o, size_t index)
{
    const char *what = sec == SEC_WORKLOAD ? "workloads" : "axes";
    if (!cJSON_IsObject(o))
        return fail(c, "%s[%zu]: not an object", what, index);
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(o, "name");
    if (!cJSON_IsString(nm))
        return fail(c, "%s[%zu]: no \"name\" string", what, index);
    if (!begin_section(c, sec, nm->valuestring))
        return false;
    for (const cJSON *e = o->child; e; e = e->next)
        if (strcmp(e->string, "name") != 0 && !json_value(c, e->string, e))
            return false;
    return true;
}

static dv_status parse_json(parse_ctx *c, const char *text, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        fail(c, "not valid JSON (near byte %zu)",
             cJSON_GetErrorPtr() ? (size_t)(cJSON_GetErrorPtr() - text) : (size_t)0);
        return DV_ERR_INPUT;
    }
    bool ok = true;
    if (!cJSON_IsObject(root))
        ok = fail(c, "not a JSON object");
    begin_section(c, SEC_SWEEP, "");
    for (const cJSON *e = ok ? root->child : NULL; e && ok; e = e->next) {
        c->sec = SEC_SWEEP;
        bool wl = !strcmp(e->string, "workloads"), ax = !strcmp(e->string, "axes");
        if (!wl && !ax) {
            ok = json_value(c, e->string, e);
            continue;
        }
        if (!cJSON_IsArray(e)) {
            ok = fail(c, "%s: not an array", e->string);
            continue;
        }
        size_t i = 0;
        for (const cJSON *m = e->child; m && ok; m = m->next)
            ok = json_section(c, wl ? SEC_WORKLOAD : SEC_AXIS, m, i++);
    }
    cJSON_Delete(root);
    return c->failed ? c->err->status : DV_OK;
}

/* ---- the whole spec ---- */

static bool check_workload(parse_ctx *c, const sweep_workload *w)
{
    if (!w->op == !w->kernel)
        return fail(c, "workload %s: give one of op and kernel", w->name);
    if (w->op && (w->args.count || w->gms.count || w->kernel_name))
        return fail(c, "workload %s: args, gms and entry are for kernels, not the operator %s", w->name,
                    DV_ESC(w->op));
    if (w->kernel && (w->variant || w->dtype || w->shape))
        return fail(c, "workload %s: variant, dtype and shape are for operators, not a kernel", w->name);
    return true;
}

/* Zips: every axis's group is that of the axis it zips with, which must
 * come before it with as many values. */
static bool check_axes(parse_ctx *c, sweep_spec *s)
{
    int groups = 0;
    for (size_t i = 0; i < s->naxes; i++) {
        sweep_axis *a = &s->axes[i];
        if (!a->target)
            return fail(c, "axis %s: give what it varies (key, shape, arg or option)", a->name);
        if (!a->values.count)
            return fail(c, "axis %s: give values or range", a->name);
        a->group = groups;
        if (s->zip_all && i > 0) {
            if (a->values.count != s->axes[0].values.count)
                return fail(c, "combine = zip: axis %s has %zu values, axis %s %zu", a->name, a->values.count,
                            s->axes[0].name, s->axes[0].values.count);
            a->group = 0;
            continue;
        }
        if (a->zip) {
            size_t j;
            for (j = 0; j < i && strcmp(s->axes[j].name, a->zip) != 0; j++)
                ;
            if (j == i)
                return fail(c, "axis %s: zip = %s names no axis before it", a->name, a->zip);
            if (s->axes[j].values.count != a->values.count)
                return fail(c, "axis %s: %zu values, but axis %s it zips with has %zu", a->name,
                            a->values.count, s->axes[j].name, s->axes[j].values.count);
            a->group = s->axes[j].group;
            continue;
        }
        groups++;
        a->group = groups - 1;
    }
    return true;
}

dv_status sweep_spec_parse(const char *text, size_t len, const char *origin, sweep_spec *s, dv_error *err)
{
    memset(s, 0, sizeof *s);
    dv_error local;
    parse_ctx c = {.s = s, .err = err ? err : &local, .origin = origin};
    if (len > SWEEP_MAX_SPEC_BYTES) {
        fail(&c, "larger than %d bytes", SWEEP_MAX_SPEC_BYTES);
        return DV_ERR_INPUT;
    }
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    dv_status st = i < len && text[i] == '{' ? parse_json(&c, text, len) : parse_ini(&c, text, len);
    if (st != DV_OK)
        return st;
    if (!s->nworkloads)
        fail(&c, "no workload (a [workload NAME] section, or \"workloads\")");
    for (size_t w = 0; w < s->nworkloads && !c.failed; w++)
        check_workload(&c, &s->workloads[w]);
    if (!c.failed)
        check_axes(&c, s);
    if (!c.failed && !s->chips.count)
        list_add(&c, &s->chips, dv_config_default_name(), strlen(dv_config_default_name()), 1, "chips");
    if (!c.failed && !s->metrics.count)
        list_add(&c, &s->metrics, "cycles", 6, 1, "metrics");
    if (!c.failed && sweep_spec_count(s) == 0)
        fail(&c, "expands to more than %d jobs", SWEEP_MAX_JOBS);
    return c.failed ? c.err->status : DV_OK;
}

void sweep_spec_free(sweep_spec *s)
{
    free(s->name);
    list_free(&s->chips);
    list_free(&s->metrics);
    list_free(&s->groups);
    list_free(&s->sets);
    free(s->seed);
    free(s->max_cycles);
    for (size_t i = 0; i < s->nworkloads; i++) {
        sweep_workload *w = &s->workloads[i];
        free(w->name);
        free(w->op);
        free(w->kernel);
        free(w->variant);
        free(w->dtype);
        free(w->shape);
        free(w->kernel_name);
        free(w->blocks);
        list_free(&w->args);
        list_free(&w->gms);
    }
    for (size_t i = 0; i < s->naxes; i++) {
        free(s->axes[i].name);
        free(s->axes[i].target);
        free(s->axes[i].zip);
        list_free(&s->axes[i].values);
    }
    memset(s, 0, sizeof *s);
}

/* ---- the canonical JSON ---- */

static bool json_list(cJSON *o, const char *key, const sweep_list *l)
{
    if (!l->count)
        return true;
    cJSON *a = cJSON_AddArrayToObject(o, key);
    for (size_t i = 0; a && i < l->count; i++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateString(l->items[i])))
            return false;
    return a != NULL;
}

static bool json_str(cJSON *o, const char *key, const char *v)
{
    return !v || cJSON_AddStringToObject(o, key, v) != NULL;
}

dv_status sweep_spec_json(const sweep_spec *s, char **text, dv_error *err)
{
    static const char *const kind[] = {"key", "shape", "arg", "option"};
    cJSON *root = cJSON_CreateObject();
    bool ok = root && json_str(root, "name", s->name) && json_list(root, "chips", &s->chips) &&
              json_list(root, "metrics", &s->metrics) && json_list(root, "groups", &s->groups) &&
              json_list(root, "set", &s->sets) && json_str(root, "seed", s->seed) &&
              json_str(root, "max_cycles", s->max_cycles) && cJSON_AddBoolToObject(root, "data", s->data);
    cJSON *ws = ok ? cJSON_AddArrayToObject(root, "workloads") : NULL;
    for (size_t i = 0; ws && i < s->nworkloads; i++) {
        const sweep_workload *w = &s->workloads[i];
        cJSON *o = cJSON_CreateObject();
        ok = ok && o && cJSON_AddItemToArray(ws, o) && json_str(o, "name", w->name) &&
             json_str(o, "op", w->op) && json_str(o, "kernel", w->kernel) &&
             json_str(o, "variant", w->variant) && json_str(o, "dtype", w->dtype) &&
             json_str(o, "shape", w->shape) && json_str(o, "entry", w->kernel_name) &&
             json_str(o, "blocks", w->blocks) && json_list(o, "args", &w->args) &&
             json_list(o, "gms", &w->gms);
    }
    cJSON *as = ok && ws ? cJSON_AddArrayToObject(root, "axes") : NULL;
    for (size_t i = 0; as && i < s->naxes; i++) {
        const sweep_axis *a = &s->axes[i];
        cJSON *o = cJSON_CreateObject();
        /* a zip is written as the group it made (combine = zip included) */
        const char *zip = NULL;
        for (size_t j = 0; j < i && !zip; j++)
            if (s->axes[j].group == a->group)
                zip = s->axes[j].name;
        ok = ok && o && cJSON_AddItemToArray(as, o) && json_str(o, "name", a->name) &&
             json_str(o, kind[a->kind], a->target) && json_list(o, "values", &a->values) &&
             json_str(o, "zip", zip);
    }
    char *out = ok && as ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!out)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for the sweep's JSON");
    *text = out;
    return DV_OK;
}
