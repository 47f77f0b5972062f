/* rt_script.c - parsing dvsim rt's script: every name declared before use,
 * every value checked, kernels loaded; rt_script_run.c runs it. */
#include "rt_script.h"

#include "dv_file.h"
#include "dv_num.h"
#include "dv_text.h"
#include "rt_script_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dv_status line_error(const rt_script *s, unsigned lineno, dv_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static dv_status line_error(const rt_script *s, unsigned lineno, dv_error *err, const char *fmt, ...)
{
    char msg[DV_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return dv_error_set(err, DV_ERR_INPUT, "%s:%u: %s", s->path, lineno, msg);
}

static int find(const char (*names)[32], unsigned n, const char *name)
{
    for (unsigned i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}

static int find_buf(const rt_script *s, const char *name)
{
    for (unsigned i = 0; i < s->nbufs; i++)
        if (strcmp(s->bufs[i].name, name) == 0)
            return (int)i;
    return -1;
}

const char *rt_script_stream_name(const rt_script *s, unsigned i)
{
    return i < s->nstreams ? s->streams[i] : "?";
}

unsigned rt_script_streams(const rt_script *s)
{
    return s->nstreams;
}

/* A file named in the script: relative to the script's folder. */
static void script_relative(const rt_script *s, const char *name, char *out, size_t size)
{
    const char *slash = strrchr(s->path, '/');
    if (name[0] == '/' || !slash)
        snprintf(out, size, "%s", name);
    else
        snprintf(out, size, "%.*s/%s", (int)(slash - s->path), s->path, name);
}

/* ---- parsing ---- */

typedef struct toks {
    char *t[MAX_TOK];
    unsigned n;
} toks;

static bool good_name(const char *t)
{
    if (!*t || strlen(t) >= 32)
        return false;
    for (const char *p = t; *p; p++)
        if (!(*p == '_' || *p == '-' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z')))
            return false;
    return true;
}

static dv_status declare(rt_script *s, char (*names)[32], unsigned *n, const char *what, const toks *tk,
                         unsigned lineno, dv_error *err)
{
    if (tk->n != 2)
        return line_error(s, lineno, err, "'%s NAME' takes one name", what);
    if (!good_name(tk->t[1]))
        return line_error(s, lineno, err, "'%s' is not a name (letters, digits, _ and -)", DV_ESC(tk->t[1]));
    if (find((const char(*)[32])names, *n, tk->t[1]) >= 0)
        return line_error(s, lineno, err, "%s %s is declared twice", what, tk->t[1]);
    if (*n == MAX_NAMES)
        return line_error(s, lineno, err, "at most %d of %ss", MAX_NAMES, what);
    snprintf(names[(*n)++], 32, "%s", tk->t[1]);
    return DV_OK;
}

static dv_status need_stream(rt_script *s, const char *name, unsigned lineno, int *out, dv_error *err)
{
    *out = find((const char(*)[32])s->streams, s->nstreams, name);
    return *out < 0 ? line_error(s, lineno, err, "no stream '%s' (declare it with 'stream %s')", DV_ESC(name),
                                 DV_ESC(name))
                    : DV_OK;
}

static dv_status need_event(rt_script *s, const char *name, unsigned lineno, int *out, dv_error *err)
{
    *out = find((const char(*)[32])s->events, s->nevents, name);
    return *out < 0 ? line_error(s, lineno, err, "no event '%s' (declare it with 'event %s')", DV_ESC(name),
                                 DV_ESC(name))
                    : DV_OK;
}

static dv_status parse_buf(rt_script *s, const toks *tk, unsigned lineno, dv_error *err)
{
    if (tk->n < 3 || tk->n > 4)
        return line_error(s, lineno, err,
                          "'buf NAME BYTES [zeros|random[:SEED]|file=PATH]' or 'buf NAME file=PATH'");
    if (!good_name(tk->t[1]))
        return line_error(s, lineno, err, "'%s' is not a name", DV_ESC(tk->t[1]));
    if (find_buf(s, tk->t[1]) >= 0)
        return line_error(s, lineno, err, "buf %s is declared twice", tk->t[1]);
    if (s->nbufs == MAX_NAMES)
        return line_error(s, lineno, err, "at most %d buffers", MAX_NAMES);
    rt_buf *b = &s->bufs[s->nbufs];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", tk->t[1]);
    unsigned i = 2;
    if (strncmp(tk->t[2], "file=", 5) != 0) {
        if (!dv_parse_u64(tk->t[2], &b->bytes) || b->bytes == 0)
            return line_error(s, lineno, err, "buf %s: '%s' is not a size in bytes", b->name,
                              DV_ESC(tk->t[2]));
        i = 3;
    }
    const char *fill = i < tk->n ? tk->t[i] : "zeros";
    if (i + 1 < tk->n)
        return line_error(s, lineno, err, "buf %s: one fill after the size", b->name);
    if (strcmp(fill, "zeros") == 0) {
        b->fill = FILL_ZEROS;
    } else if (strncmp(fill, "random", 6) == 0 && (!fill[6] || fill[6] == ':')) {
        b->fill = FILL_RANDOM;
        b->seed = 1;
        if (fill[6] && !dv_parse_u64(fill + 7, &b->seed))
            return line_error(s, lineno, err, "buf %s: '%s' needs random:SEED", b->name, DV_ESC(fill));
    } else if (strncmp(fill, "file=", 5) == 0 && fill[5]) {
        b->fill = FILL_FILE;
        script_relative(s, fill + 5, b->path, sizeof b->path);
        FILE *f = fopen(b->path, "rb");
        if (!f)
            return dv_error_set(err, DV_ERR_MISSING, "%s:%u: buf %s: cannot open %s", s->path, lineno,
                                b->name, DV_ESC(b->path));
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fclose(f);
        if (size <= 0)
            return line_error(s, lineno, err, "buf %s: %s is empty", b->name, DV_ESC(b->path));
        if (b->bytes && (uint64_t)size != b->bytes)
            return line_error(s, lineno, err, "buf %s: %s holds %ld bytes, not %llu", b->name,
                              DV_ESC(b->path), size, (unsigned long long)b->bytes);
        b->bytes = (uint64_t)size;
    } else {
        return line_error(s, lineno, err, "buf %s: '%s' is not zeros, random[:SEED] or file=PATH", b->name,
                          DV_ESC(fill));
    }
    s->nbufs++;
    return DV_OK;
}

static dv_status parse_cores(rt_script *s, rt_line *l, const char *v, dv_error *err)
{
    dv_error e = {DV_OK, ""};
    if (dv_coreset_parse(v, s->ncores, &l->cores, &e) != DV_OK)
        return line_error(s, l->lineno, err, "%s", e.msg);
    l->has_cores = true;
    return DV_OK;
}

/* op STREAM NAME [P=V,...] [variant=V] [dtype=D] [seed=S] [blocks=N] [cores=SET] [check] [TENSOR=BUF ...] */
static dv_status parse_op(rt_script *s, rt_line *l, const toks *tk, dv_error *err)
{
    if (tk->n < 3)
        return line_error(s, l->lineno, err, "'op STREAM OPERATOR [SHAPE] [options] [TENSOR=BUF ...]'");
    dv_status st = need_stream(s, tk->t[1], l->lineno, &l->stream, err);
    if (st != DV_OK)
        return st;
    const dv_operator *op = dv_operator_find(tk->t[2]);
    if (!op)
        return line_error(s, l->lineno, err, "no operator '%s' (dvsim ops lists them)", DV_ESC(tk->t[2]));
    snprintf(l->op, sizeof l->op, "%s", op->name);
    l->seed = 1;
    for (unsigned i = 3; i < tk->n; i++) {
        char *t = tk->t[i], *eq = strchr(t, '=');
        if (strcmp(t, "check") == 0) {
            l->check = true;
            continue;
        }
        if (!eq || eq == t)
            return line_error(s, l->lineno, err, "op %s: '%s' is not KEY=VALUE or check", l->op, DV_ESC(t));
        *eq = '\0';
        const char *v = eq + 1;
        if (dv_operator_param_index(op, t) >= 0) { /* a shape: "M=512,N=512" */
            *eq = '=';
            size_t n = strlen(l->shape);
            snprintf(l->shape + n, sizeof l->shape - n, "%s%s", n ? "," : "", t);
        } else if (strcmp(t, "variant") == 0) {
            snprintf(l->variant, sizeof l->variant, "%s", v);
        } else if (strcmp(t, "dtype") == 0) {
            snprintf(l->dtype, sizeof l->dtype, "%s", v);
        } else if (strcmp(t, "seed") == 0 || strcmp(t, "blocks") == 0) {
            if (!dv_parse_u64(v, strcmp(t, "seed") == 0 ? &l->seed : &l->blocks))
                return line_error(s, l->lineno, err, "op %s: %s=%s is not a number", l->op, t, DV_ESC(v));
        } else if (strcmp(t, "cores") == 0) {
            if ((st = parse_cores(s, l, v, err)) != DV_OK)
                return st;
        } else {
            int b = find_buf(s, v);
            if (b < 0 && t[0] >= 'A' && t[0] <= 'Z')
                return line_error(s, l->lineno, err, "op %s: no parameter '%s' (dvsim ops %s lists them)",
                                  l->op, DV_ESC(t), l->op);
            if (b < 0)
                return line_error(s, l->lineno, err, "op %s: %s=%s: no buf '%s' (declare it with 'buf')",
                                  l->op, t, DV_ESC(v), DV_ESC(v));
            if (l->nbind == DV_OPR_MAX_TENSORS || strlen(t) >= sizeof l->bind_name[0])
                return line_error(s, l->lineno, err, "op %s: too many tensors or a long name", l->op);
            snprintf(l->bind_name[l->nbind], sizeof l->bind_name[0], "%s", t);
            l->bind_buf[l->nbind++] = b;
        }
    }
    /* the shape, variant and dtype now, so a bad one names this line */
    dv_opr_request req = {.shape = l->shape,
                          .variant = l->variant[0] ? l->variant : NULL,
                          .dtype = l->dtype[0] ? l->dtype : NULL};
    unsigned variant, dtype;
    uint64_t params[DV_OPR_MAX_PARAMS];
    dv_error e = {DV_OK, ""};
    if (dv_opr_parse_request(op, &req, &variant, &dtype, params, &e) != DV_OK)
        return line_error(s, l->lineno, err, "%s", e.msg);
    return DV_OK;
}

static dv_status load_obj(rt_script *s, const char *path, cli_asm_path *incs, unsigned lineno, int *out,
                          dv_error *err)
{
    for (unsigned i = 0; i < s->nobjs; i++)
        if (strcmp(s->objs[i].path, path) == 0) {
            *out = (int)i;
            return DV_OK;
        }
    if (s->nobjs == MAX_OBJS)
        return line_error(s, lineno, err, "at most %d kernel files", MAX_OBJS);
    dv_obj *obj = NULL;
    dv_error e = {DV_OK, ""};
    size_t n = strlen(path);
    dv_status st;
    if (n > 4 && strcmp(path + n - 4, ".dvs") == 0) {
        dv_asm_options opt = cli_asm_options(incs);
        dv_diags diags = {NULL, 0};
        st = dv_asm_file(path, &opt, &obj, &diags, &e);
        if (st != DV_OK && diags.count)
            snprintf(e.msg, sizeof e.msg, "%s", diags.lines[0]);
        dv_diags_free(&diags);
    } else {
        st = dv_obj_load(path, &obj, &e);
    }
    if (st != DV_OK)
        return dv_error_set(err, st == DV_ERR_MISSING ? DV_ERR_MISSING : DV_ERR_INPUT, "%s:%u: %s", s->path,
                            lineno, e.msg);
    snprintf(s->objs[s->nobjs].path, sizeof s->objs[0].path, "%s", path);
    s->objs[s->nobjs].obj = obj;
    *out = (int)s->nobjs++;
    return DV_OK;
}

/* kernel STREAM FILE ENTRY [ARG ...] [blocks=N] [cores=SET]; ARG a number, BUF or BUF+OFFSET */
static dv_status parse_kernel(rt_script *s, rt_line *l, const toks *tk, cli_asm_path *incs, dv_error *err)
{
    if (tk->n < 4)
        return line_error(s, l->lineno, err, "'kernel STREAM FILE ENTRY [ARG ...] [blocks=N] [cores=SET]'");
    dv_status st = need_stream(s, tk->t[1], l->lineno, &l->stream, err);
    char file[512];
    script_relative(s, tk->t[2], file, sizeof file);
    if (st == DV_OK)
        st = load_obj(s, file, incs, l->lineno, &l->obj, err);
    if (st != DV_OK)
        return st;
    const dv_obj *obj = s->objs[l->obj].obj;
    if (!dv_obj_find_kernel(obj, tk->t[3]))
        return line_error(s, l->lineno, err, "%s has no kernel '%s'", tk->t[2], DV_ESC(tk->t[3]));
    snprintf(l->entry, sizeof l->entry, "%s", tk->t[3]);
    l->blocks = 1;
    for (unsigned i = 4; i < tk->n; i++) {
        char *t = tk->t[i];
        if (strncmp(t, "blocks=", 7) == 0) {
            if (!dv_parse_u64(t + 7, &l->blocks) || l->blocks == 0 || l->blocks > 65535)
                return line_error(s, l->lineno, err, "'%s': blocks are 1 to 65535", DV_ESC(t));
            continue;
        }
        if (strncmp(t, "cores=", 6) == 0) {
            if ((st = parse_cores(s, l, t + 6, err)) != DV_OK)
                return st;
            continue;
        }
        if (l->nargs == DV_MAX_KERNEL_ARGS)
            return line_error(s, l->lineno, err, "at most %d kernel arguments", DV_MAX_KERNEL_ARGS);
        kernel_arg *a = &l->args[l->nargs++];
        a->buf = -1;
        if (dv_parse_u64(t, &a->v))
            continue;
        char *plus = strchr(t, '+');
        if (plus)
            *plus = '\0';
        a->buf = find_buf(s, t);
        if (a->buf < 0 || (plus && !dv_parse_u64(plus + 1, &a->v)))
            return line_error(s, l->lineno, err,
                              "argument '%s' is neither a number nor BUF[+OFFSET] of a declared buf",
                              DV_ESC(t));
    }
    return DV_OK;
}

static dv_status parse_line(rt_script *s, rt_line *l, toks *tk, cli_asm_path *incs, bool in_callback,
                            dv_error *err);

static dv_status parse_callback(rt_script *s, rt_line *l, toks *tk, cli_asm_path *incs, dv_error *err)
{
    if (tk->n < 3)
        return line_error(s, l->lineno, err, "'callback STREAM [repeat=N] COMMAND ...'");
    dv_status st = need_stream(s, tk->t[1], l->lineno, &l->stream, err);
    if (st != DV_OK)
        return st;
    unsigned first = 2;
    l->repeat = 1;
    if (strncmp(tk->t[2], "repeat=", 7) == 0) {
        if (!dv_parse_u64(tk->t[2] + 7, &l->repeat) || l->repeat == 0 || l->repeat > 1000000)
            return line_error(s, l->lineno, err, "'%s': repeat is 1 to 1000000", DV_ESC(tk->t[2]));
        first = 3;
    }
    if (first >= tk->n)
        return line_error(s, l->lineno, err, "callback: a command to run is missing");
    toks sub = {.n = tk->n - first};
    memcpy(sub.t, tk->t + first, sub.n * sizeof sub.t[0]);
    l->sub = calloc(1, sizeof *l->sub);
    if (!l->sub)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    l->sub->lineno = l->lineno;
    return parse_line(s, l->sub, &sub, incs, true, err);
}

static dv_status parse_line(rt_script *s, rt_line *l, toks *tk, cli_asm_path *incs, bool in_callback,
                            dv_error *err)
{
    const char *w = tk->t[0];
    l->stream = l->event = l->buf = -1;
    static const char *const decl_only[] = {"stream", "event", "buf", "sync", "dump"};
    for (unsigned i = 0; in_callback && i < sizeof decl_only / sizeof decl_only[0]; i++)
        if (strcmp(w, decl_only[i]) == 0)
            return line_error(s, l->lineno, err,
                              "a callback runs op, kernel, record, wait or callback, not %s", w);
    dv_status st;
    if (strcmp(w, "stream") == 0) {
        l->kind = L_STREAM;
        return declare(s, s->streams, &s->nstreams, "stream", tk, l->lineno, err);
    }
    if (strcmp(w, "event") == 0) {
        l->kind = L_EVENT;
        return declare(s, s->events, &s->nevents, "event", tk, l->lineno, err);
    }
    if (strcmp(w, "buf") == 0) {
        l->kind = L_BUF;
        l->buf = (int)s->nbufs;
        return parse_buf(s, tk, l->lineno, err);
    }
    if (strcmp(w, "op") == 0) {
        l->kind = L_OP;
        return parse_op(s, l, tk, err);
    }
    if (strcmp(w, "kernel") == 0) {
        l->kind = L_KERNEL;
        return parse_kernel(s, l, tk, incs, err);
    }
    if (strcmp(w, "record") == 0 || strcmp(w, "wait") == 0) {
        l->kind = w[0] == 'r' ? L_RECORD : L_WAIT;
        if (tk->n != 3)
            return line_error(s, l->lineno, err, "'%s STREAM EVENT'", w);
        if ((st = need_stream(s, tk->t[1], l->lineno, &l->stream, err)) != DV_OK)
            return st;
        return need_event(s, tk->t[2], l->lineno, &l->event, err);
    }
    if (strcmp(w, "callback") == 0) {
        l->kind = L_CALLBACK;
        return parse_callback(s, l, tk, incs, err);
    }
    if (strcmp(w, "sync") == 0) {
        l->kind = L_SYNC;
        if (tk->n > 2)
            return line_error(s, l->lineno, err, "'sync [STREAM|EVENT]'");
        if (tk->n == 2) {
            l->stream = find((const char(*)[32])s->streams, s->nstreams, tk->t[1]);
            l->event = find((const char(*)[32])s->events, s->nevents, tk->t[1]);
            if (l->stream < 0 && l->event < 0)
                return line_error(s, l->lineno, err, "sync: no stream or event '%s'", DV_ESC(tk->t[1]));
        }
        return DV_OK;
    }
    if (strcmp(w, "dump") == 0) {
        l->kind = L_DUMP;
        if (tk->n != 3)
            return line_error(s, l->lineno, err, "'dump BUF FILE'");
        l->buf = find_buf(s, tk->t[1]);
        if (l->buf < 0)
            return line_error(s, l->lineno, err, "dump: no buf '%s'", DV_ESC(tk->t[1]));
        script_relative(s, tk->t[2], l->path, sizeof l->path);
        return DV_OK;
    }
    return line_error(
        s, l->lineno, err,
        "unknown command '%s' (stream, event, buf, op, kernel, record, wait, callback, sync, dump)",
        DV_ESC(w));
}

static void free_line(rt_line *l)
{
    if (l->sub) {
        free_line(l->sub);
        free(l->sub);
    }
}

void rt_script_free(rt_script *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->n; i++)
        free_line(&s->lines[i]);
    free(s->lines);
    for (unsigned i = 0; i < s->nobjs; i++)
        dv_obj_destroy(s->objs[i].obj);
    for (unsigned i = 0; i < s->ncbs; i++)
        free(s->cbs[i]);
    for (unsigned i = 0; i < s->nevents; i++)
        dv_rt_event_destroy(s->ev[i]); /* NULL until run */
    free(s->cbs);
    free(s);
}

rt_script *rt_script_parse(const char *path, unsigned ncores, cli_asm_path *incs, dv_error *err)
{
    FILE *f = dv_open_input(path, err);
    if (!f)
        return NULL;
    rt_script *s = calloc(1, sizeof *s);
    if (!s) {
        fclose(f);
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    s->ncores = ncores;
    char buf[4096];
    dv_status st = DV_OK;
    for (unsigned lineno = 1; st == DV_OK && fgets(buf, sizeof buf, f); lineno++) {
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n') {
            st = line_error(s, lineno, err, "line longer than %zu bytes", sizeof buf - 2);
            break;
        }
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        toks tk = {.n = 0};
        char *save = NULL;
        for (char *t = strtok_r(buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
            if (tk.n == MAX_TOK) {
                st = line_error(s, lineno, err, "more than %d words", MAX_TOK);
                break;
            }
            tk.t[tk.n++] = t;
        }
        if (st != DV_OK || tk.n == 0)
            continue;
        if (s->n == s->cap) {
            unsigned cap = s->cap ? 2 * s->cap : 32;
            rt_line *p = realloc(s->lines, cap * sizeof *p);
            if (!p) {
                st = dv_error_set(err, DV_ERR_NOMEM, "out of memory");
                break;
            }
            s->lines = p;
            s->cap = cap;
        }
        rt_line *l = &s->lines[s->n++];
        memset(l, 0, sizeof *l);
        l->lineno = lineno;
        st = parse_line(s, l, &tk, incs, false, err);
    }
    bool read_error = ferror(f);
    fclose(f);
    if (st == DV_OK && read_error)
        st = dv_error_set(err, DV_ERR_IO, "%s: read error", path);
    if (st == DV_OK && s->n == 0)
        st = dv_error_set(err, DV_ERR_INPUT, "%s: the script is empty", path);
    if (st != DV_OK) {
        rt_script_free(s);
        return NULL;
    }
    return s;
}
