/* san_report.c - the sanitizer's findings: keys (once per pair of source
 * lines), the lines and the JSON of the report. */
#include "san_state.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *san_pipe_name(dv_pipe p)
{
    return dv_pipe_trace_name(p);
}

void san_source(const dv_san *s, uint64_t pc, char *buf, size_t size)
{
    if (s->obj)
        dv_obj_source_of(s->obj, pc, buf, size);
    else
        snprintf(buf, size, "pc 0x%llx", (unsigned long long)pc);
}

static uint64_t mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static uint64_t hash_str(const char *t)
{
    uint64_t h = 1469598103934665603ull;
    for (; *t; t++)
        h = (h ^ (unsigned char)*t) * 1099511628211ull;
    return h;
}

/* A source line by its text (file, line and macro call site), so the same
 * line of every launch and every expansion at one call site is one key. */
static uint64_t line_hash(const dv_san *s, uint64_t pc)
{
    char buf[SAN_SRC];
    san_source(s, pc, buf, sizeof buf);
    if (strcmp(buf, "no source line") == 0)
        return mix(7, pc);
    return hash_str(buf);
}

uint64_t san_pc_key(const dv_san *s, unsigned kind, uint64_t pc_a, uint64_t pc_b)
{
    uint64_t k = mix(mix(mix(kind + 256, pc_a), pc_b), s->launch);
    return k ? k : 2;
}

uint64_t san_line_key(const dv_san *s, unsigned kind, uint64_t pc_a, uint64_t pc_b)
{
    uint64_t a = line_hash(s, pc_a), b = kind == 'r' ? line_hash(s, pc_b) : 0;
    if (a > b) { /* a pair is the same whichever side came first */
        uint64_t t = a;
        a = b;
        b = t;
    }
    uint64_t k = mix(mix(kind, a), b);
    return k ? k : 1;
}

bool san_seen_add(dv_san *s, uint64_t key)
{
    if (2 * (s->nseen + 1) > s->seencap) {
        size_t cap = s->seencap ? 2 * s->seencap : 256;
        uint64_t *n = calloc(cap, sizeof *n);
        if (!n) {
            s->oom = true;
            return false;
        }
        for (size_t i = 0; i < s->seencap; i++)
            if (s->seen[i]) {
                size_t j = s->seen[i] & (cap - 1);
                while (n[j])
                    j = (j + 1) & (cap - 1);
                n[j] = s->seen[i];
            }
        free(s->seen);
        s->seen = n;
        s->seencap = cap;
    }
    size_t j = key & (s->seencap - 1);
    while (s->seen[j]) {
        if (s->seen[j] == key)
            return false;
        j = (j + 1) & (s->seencap - 1);
    }
    s->seen[j] = key;
    s->nseen++;
    return true;
}

san_finding *san_new_finding(dv_san *s, uint64_t key, dv_san_check check, bool note)
{
    if (!san_seen_add(s, key))
        return NULL;
    if (s->nf == s->fcap) {
        size_t cap = s->fcap ? 2 * s->fcap : 16;
        san_finding *n = realloc(s->f, cap * sizeof *n);
        if (!n) {
            s->oom = true;
            return NULL;
        }
        s->f = n;
        s->fcap = cap;
    }
    san_finding *f = &s->f[s->nf++];
    memset(f, 0, sizeof *f);
    f->check = check;
    f->note = note;
    f->launch = s->launch;
    return f;
}

static const char *check_name(const san_finding *f)
{
    if (f->note)
        return "note";
    switch (f->check) {
    case DV_SAN_RACE: return "race";
    case DV_SAN_SYNC: return "sync";
    case DV_SAN_INIT: return "init";
    default: return "mem";
    }
}

static void side(dv_buf *b, const san_acc *a, const char *src, bool gm)
{
    if (gm)
        dv_buf_printf(b, "core %u ", a->tid / SAN_NP);
    dv_buf_printf(b, "%s %s at pc 0x%llx %s (cycle %llu)", san_pipe_name((dv_pipe)(a->tid % SAN_NP)),
                  a->write ? "write" : "read", (unsigned long long)a->pc, src, (unsigned long long)a->cycle);
}

/* The finding's text after "race: " and the like. */
static void finding_text(const dv_san *s, const san_finding *f, dv_buf *b)
{
    if (!f->access) {
        dv_buf_puts(b, f->what);
        return;
    }
    bool gm = f->mem == DV_MEM_GM;
    dv_buf_printf(b, "%s [0x%llx,+%llu)", dv_mem_kind_name(f->mem), (unsigned long long)f->lo,
                  (unsigned long long)(f->hi - f->lo));
    if (gm) {
        const san_tensor *t = san_tensor_at(s, f->lo, 1);
        if (t)
            dv_buf_printf(b, " (%s+0x%llx)", t->name, (unsigned long long)(f->lo - t->addr));
        dv_buf_puts(b, ": ");
    } else {
        dv_buf_printf(b, " of core %u: ", f->core);
    }
    switch (f->check) {
    case DV_SAN_RACE:
        side(b, &f->a, f->src_a, gm);
        dv_buf_puts(b, " vs ");
        side(b, &f->b, f->src_b, gm);
        dv_buf_puts(b, ": no flag orders them");
        break;
    case DV_SAN_INIT:
        side(b, &f->b, f->src_b, gm);
        dv_buf_puts(b, gm ? " of bytes of an uninitialised tensor never written"
                          : " of bytes never written in this launch");
        break;
    default:
        side(b, &f->b, f->src_b, gm);
        dv_buf_printf(b, " %s", f->what);
        break;
    }
}

void dv_san_counts_of(const dv_san *s, dv_san_counts *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < s->nf; i++) {
        const san_finding *f = &s->f[i];
        if (f->note)
            out->notes++;
        else if (f->check == DV_SAN_RACE)
            out->race++;
        else if (f->check == DV_SAN_SYNC)
            out->sync++;
        else if (f->check == DV_SAN_INIT)
            out->init++;
        else
            out->mem++;
    }
}

size_t dv_san_findings(const dv_san *s)
{
    dv_san_counts c;
    dv_san_counts_of(s, &c);
    return c.race + c.sync + c.init + c.mem;
}

static void summary(const dv_san *s, dv_buf *b)
{
    dv_san_counts c;
    dv_san_counts_of(s, &c);
    size_t n = c.race + c.sync + c.init + c.mem;
    dv_buf_printf(b, "sanitizer: %zu finding%s (race %zu, sync %zu, init %zu, mem %zu), %zu note%s", n,
                  n == 1 ? "" : "s", c.race, c.sync, c.init, c.mem, c.notes, c.notes == 1 ? "" : "s");
    if (s->oom)
        dv_buf_puts(b, "; out of memory: the checks stopped early");
}

dv_status dv_san_report_text(const dv_san *s, dv_buf *out)
{
    for (size_t i = 0; i < s->nf; i++) {
        dv_buf_printf(out, "%s: ", check_name(&s->f[i]));
        finding_text(s, &s->f[i], out);
        dv_buf_puts(out, "\n");
    }
    summary(s, out);
    dv_buf_puts(out, "\n");
    return out->oom ? DV_ERR_NOMEM : DV_OK;
}

static cJSON *side_json(const san_acc *a, const char *src)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "core", a->tid / SAN_NP);
    cJSON_AddStringToObject(o, "pipe", san_pipe_name((dv_pipe)(a->tid % SAN_NP)));
    cJSON_AddStringToObject(o, "access", a->write ? "write" : "read");
    cJSON_AddNumberToObject(o, "pc", (double)a->pc);
    cJSON_AddStringToObject(o, "source", src);
    cJSON_AddNumberToObject(o, "cycle", (double)a->cycle);
    return o;
}

dv_status dv_san_report_json(const dv_san *s, dv_buf *out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *checks = cJSON_AddArrayToObject(root, "checks");
    static const char *const names[] = {"race", "sync", "init", "mem"};
    for (unsigned i = 0; i < 4; i++)
        if (s->checks & (1u << i))
            cJSON_AddItemToArray(checks, cJSON_CreateString(names[i]));
    cJSON *list = cJSON_AddArrayToObject(root, "findings");
    for (size_t i = 0; i < s->nf; i++) {
        const san_finding *f = &s->f[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "check", check_name(f));
        dv_buf t = DV_BUF_INIT;
        finding_text(s, f, &t);
        cJSON_AddStringToObject(o, "text", t.data ? t.data : "");
        dv_buf_free(&t);
        if (f->access) {
            cJSON_AddStringToObject(o, "buffer", dv_mem_kind_name(f->mem));
            cJSON_AddNumberToObject(o, "addr", (double)f->lo);
            cJSON_AddNumberToObject(o, "bytes", (double)(f->hi - f->lo));
            if (f->check == DV_SAN_RACE)
                cJSON_AddItemToObject(o, "first", side_json(&f->a, f->src_a));
            cJSON_AddItemToObject(o, f->check == DV_SAN_RACE ? "second" : "access",
                                  side_json(&f->b, f->src_b));
        }
        cJSON_AddItemToArray(list, o);
    }
    dv_san_counts c;
    dv_san_counts_of(s, &c);
    cJSON *sum = cJSON_AddObjectToObject(root, "summary");
    cJSON_AddNumberToObject(sum, "findings", (double)(c.race + c.sync + c.init + c.mem));
    cJSON_AddNumberToObject(sum, "race", (double)c.race);
    cJSON_AddNumberToObject(sum, "sync", (double)c.sync);
    cJSON_AddNumberToObject(sum, "init", (double)c.init);
    cJSON_AddNumberToObject(sum, "mem", (double)c.mem);
    cJSON_AddNumberToObject(sum, "notes", (double)c.notes);
    cJSON_AddBoolToObject(sum, "complete", !s->oom);
    char *txt = cJSON_Print(root);
    cJSON_Delete(root);
    if (!txt)
        return DV_ERR_NOMEM;
    dv_buf_puts(out, txt);
    dv_buf_puts(out, "\n");
    free(txt);
    return out->oom ? DV_ERR_NOMEM : DV_OK;
}
