/* profile_report.c - the profile of a run as rows (profile_report.h). */
#include "profile_report.h"

#include "cli.h"
#include "dv_isa.h"
#include "dv_kernel_sources.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- what a row is ---- */

typedef struct prof_row {
    char where[320];       /* "k.dvs:52 <- lib.inc:37", "pc 0x40", "no source line" */
    const dv_obj_line *ln; /* the first line entry of the row (NULL: none) */
    uint64_t pc;           /* the row's first instruction */
    uint64_t insns;        /* executions (fetched by the Scalar unit) */
    uint64_t pipe[DV_PIPE_COUNT];
    uint64_t cls[DV_PROF_CLASS_COUNT];
    uint64_t cost; /* every class but starved and idle */
} prof_row;

typedef struct prof_rows {
    prof_row *rows;
    size_t n;
    uint64_t total_cost;
} prof_rows;

static bool costs(dv_prof_class k)
{
    return k != DV_PROF_STARVED && k != DV_PROF_IDLE;
}

static const char *base_name(const char *p)
{
    return p;
}

static const char *file_of(const dv_obj *obj, uint32_t f)
{
    return f < obj->nfiles ? base_name(obj->files[f]) : "?";
}

/* The row's key for pc under o->by. */
static void key_of(const dv_prof_result *r, uint64_t pc, prof_group by, char *buf, size_t size,
                   const dv_obj_line **out)
{
    const dv_obj_line *ln = dv_obj_line_at(r->obj, pc);
    *out = ln;
    if (by == PROF_BY_PC) {
        snprintf(buf, size, "pc 0x%04" PRIx64, pc);
        return;
    }
    if (!ln || ln->file >= r->obj->nfiles) {
        snprintf(buf, size, "no source line");
        return;
    }
    if (ln->call_line && by == PROF_BY_CALL)
        snprintf(buf, size, "%s:%u", file_of(r->obj, ln->call_file), ln->call_line);
    else if (ln->call_line)
        snprintf(buf, size, "%s:%u <- %s:%u", file_of(r->obj, ln->call_file), ln->call_line,
                 file_of(r->obj, ln->file), ln->line);
    else
        snprintf(buf, size, "%s:%u", file_of(r->obj, ln->file), ln->line);
}

static bool in_scope(const dv_prof_result *r, unsigned ci, const prof_report_opts *o)
{
    return (o->core < 0 || (unsigned)o->core == ci) && (o->kind < 0 || (int)r->cores[ci].kind == o->kind);
}

static int row_cmp(const void *a, const void *b)
{
    const prof_row *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Rows by cost (ties: the earlier instruction first); rows with nothing
 * attributed are left out. */
static bool build_rows(const dv_prof_result *r, const prof_report_opts *o, prof_rows *out)
{
    memset(out, 0, sizeof *out);
    out->rows = calloc(r->npcs ? r->npcs : 1, sizeof *out->rows);
    if (!out->rows)
        return false;
    for (size_t i = 0; i < r->npcs; i++) {
        uint64_t pc = i * DV_INSN_BYTES;
        prof_row tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.pc = pc;
        key_of(r, pc, o->by, tmp.where, sizeof tmp.where, &tmp.ln);
        dv_insn in;
        uint64_t w = 0;
        for (int b = 0; b < 8; b++)
            w |= (uint64_t)r->obj->text[pc + (uint64_t)b] << (8 * b);
        dv_pipe own = dv_isa_decode(w, &in, NULL) == DV_OK ? dv_insn_pipe(&in) : DV_PIPE_S;
        if ((unsigned)own >= DV_PIPE_COUNT)
            own = DV_PIPE_S;
        bool any = false;
        for (unsigned ci = 0; ci < r->ncores; ci++) {
            if (!in_scope(r, ci, o))
                continue;
            const dv_prof_pc *p = &r->cores[ci].pcs[i];
            tmp.insns += p->count[DV_PROF_LANE_S];
            for (int l = 0; l < DV_PROF_LANES; l++)
                for (int k = 0; k < DV_PROF_CLASS_COUNT; k++) {
                    uint64_t v = p->cycles[k][l];
                    if (!v)
                        continue;
                    any = true;
                    tmp.cls[k] += v;
                    if (costs((dv_prof_class)k)) {
                        tmp.cost += v;
                        tmp.pipe[l == DV_PROF_LANE_S ? DV_PIPE_S : own] += v;
                    }
                }
        }
        if (!any && !tmp.insns)
            continue;
        prof_row *row = NULL;
        for (size_t j = 0; j < out->n; j++)
            if (strcmp(out->rows[j].where, tmp.where) == 0) {
                row = &out->rows[j];
                break;
            }
        if (!row) {
            row = &out->rows[out->n++];
            *row = tmp;
            out->total_cost += tmp.cost;
            continue;
        }
        row->insns += tmp.insns;
        row->cost += tmp.cost;
        out->total_cost += tmp.cost;
        for (int p = 0; p < DV_PIPE_COUNT; p++)
            row->pipe[p] += tmp.pipe[p];
        for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
            row->cls[k] += tmp.cls[k];
    }
    qsort(out->rows, out->n, sizeof *out->rows, row_cmp);
    return true;
}

static size_t rows_shown(const prof_rows *rows, const prof_report_opts *o)
{
    return o->top && o->top < rows->n ? o->top : rows->n;
}

/* ---- the text of source lines ---- */

static const char *file_text(const char *path, char **owned)
{
    *owned = NULL;
    const char *t = dv_kernel_source_text(path);
    if (t)
        return t;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n + 1 < cap)
            break;
        char *b = realloc(buf, cap *= 2);
        if (!b)
            free(buf);
        buf = b;
    }
    fclose(f);
    if (buf)
        buf[n] = 0;
    return *owned = buf;
}

/* The text of line `line` of file `f` of obj (trimmed), or "". */
static void source_line(const dv_obj *obj, uint32_t f, uint32_t line, char *buf, size_t size)
{
    buf[0] = 0;
    if (f >= obj->nfiles || !line)
        return;
    char *owned;
    const char *t = file_text(obj->files[f], &owned);
    if (!t)
        return;
    for (uint32_t l = 1; l < line && t; l++) {
        t = strchr(t, '\n');
        if (t)
            t++;
    }
    if (t) {
        while (*t == ' ' || *t == '\t')
            t++;
        size_t n = strcspn(t, "\r\n");
        if (n >= size)
            n = size - 1;
        memcpy(buf, t, n);
        buf[n] = 0;
    }
    free(owned);
}

/* ---- flags and what released them ---- */

static dv_insn insn_at(const dv_obj *obj, uint64_t pc)
{
    dv_insn in;
    memset(&in, 0, sizeof in);
    uint64_t w = 0;
    if (pc + DV_INSN_BYTES <= obj->text_size)
        for (int b = 0; b < 8; b++)
            w |= (uint64_t)obj->text[pc + (uint64_t)b] << (8 * b);
    if (dv_isa_decode(w, &in, NULL) != DV_OK)
        in.op = DV_OP_NOP;
    return in;
}

static void loc_of(const dv_obj *obj, uint64_t pc, char *buf, size_t size)
{
    const dv_obj_line *ln = dv_obj_line_at(obj, pc);
    if (!ln || ln->file >= obj->nfiles)
        snprintf(buf, size, "pc 0x%" PRIx64, pc);
    else if (ln->call_line)
        snprintf(buf, size, "%s:%u <- %s:%u", file_of(obj, ln->call_file), ln->call_line,
                 file_of(obj, ln->file), ln->line);
    else
        snprintf(buf, size, "%s:%u", file_of(obj, ln->file), ln->line);
}

/* "flag mte2->v id 0" or "cross-core flag 3" for the wait at pc. */
static void flag_name(const dv_obj *obj, uint64_t pc, char *buf, size_t size)
{
    dv_insn in = insn_at(obj, pc);
    if (in.op == DV_OP_CC_WAIT_FLAG)
        snprintf(buf, size, "cross-core flag %lld", (long long)in.f[DV_F_ID]);
    else
        snprintf(buf, size, "flag %s->%s id %lld", dv_pipe_name((dv_pipe)in.f[DV_F_SRC]),
                 dv_pipe_name((dv_pipe)in.f[DV_F_DST]), (long long)in.f[DV_F_ID]);
}

/* What released the waits at pc in words: "set at k.dvs:30", "never set",
 * "set by core 3 at k.dvs:40". */
static void release_text(const dv_obj *obj, const dv_prof_release *x, char *buf, size_t size)
{
    char loc[320];
    switch (x->kind) {
    case DV_PROF_REL_SET:
        loc_of(obj, x->set_pc, loc, sizeof loc);
        snprintf(buf, size, "set at %s", loc);
        break;
    case DV_PROF_REL_CC:
        loc_of(obj, x->set_pc, loc, sizeof loc);
        snprintf(buf, size, "set by core %u at %s", x->set_core, loc);
        break;
    case DV_PROF_REL_NEVER: snprintf(buf, size, "never set: still waiting when the run stopped"); break;
    default: snprintf(buf, size, "released by an earlier run of the block"); break;
    }
}

/* The release of the waits at pc with the most cycles. */
static const dv_prof_release *top_release(const dv_prof_result *r, uint64_t pc)
{
    const dv_prof_release *best = NULL;
    for (size_t i = 0; i < r->nreleases; i++)
        if (r->releases[i].wait_pc == pc && (!best || r->releases[i].cycles > best->cycles))
            best = &r->releases[i];
    return best;
}

/* Whether row `row` holds pc under the grouping. */
static bool row_has(const dv_prof_result *r, const prof_report_opts *o, const prof_row *row, uint64_t pc)
{
    char key[320];
    const dv_obj_line *ln;
    key_of(r, pc, o->by, key, sizeof key, &ln);
    return strcmp(key, row->where) == 0;
}

/* A row's waits merged by flag and releaser, the costliest first (at most
 * ROW_WAITS). */
enum { ROW_WAITS = 4 };
typedef struct row_wait {
    char flag[64], rel[400];
    bool never;
    uint64_t cycles, waits;
} row_wait;
typedef struct row_waits {
    row_wait w[ROW_WAITS + 1];
    size_t n;
} row_waits;

static void collect_waits(const dv_prof_result *r, const prof_report_opts *o, const prof_row *row,
                          row_waits *ws)
{
    ws->n = 0;
    for (size_t x = 0; x < r->nreleases; x++) {
        const dv_prof_release *rel = &r->releases[x];
        if (!rel->cycles || !row_has(r, o, row, rel->wait_pc))
            continue;
        row_wait w;
        memset(&w, 0, sizeof w);
        flag_name(r->obj, rel->wait_pc, w.flag, sizeof w.flag);
        release_text(r->obj, rel, w.rel, sizeof w.rel);
        w.never = rel->kind == DV_PROF_REL_NEVER;
        size_t j = 0;
        while (j < ws->n && !(strcmp(ws->w[j].flag, w.flag) == 0 && strcmp(ws->w[j].rel, w.rel) == 0))
            j++;
        if (j == ws->n) {
            if (ws->n == ROW_WAITS + 1)
                continue;
            ws->w[ws->n++] = w;
        }
        ws->w[j].cycles += rel->cycles;
        ws->w[j].waits += rel->waits;
    }
    for (size_t i = 1; i < ws->n; i++) /* by cycles, stable */
        for (size_t j = i; j > 0 && ws->w[j].cycles > ws->w[j - 1].cycles; j--) {
            row_wait t = ws->w[j];
            ws->w[j] = ws->w[j - 1];
            ws->w[j - 1] = t;
        }
    if (ws->n > ROW_WAITS)
        ws->n = ROW_WAITS;
}

/* ---- the sum checks ---- */

bool prof_check_sums(const dv_sim *sim, const dv_prof_result *r, char *why, size_t size)
{
    for (unsigned ci = 0; ci < r->ncores; ci++) {
        dv_core_info info;
        if (!dv_sim_core_info(sim, ci, &info)) {
            snprintf(why, size, "core %u is missing", ci);
            return false;
        }
        const dv_prof_core *c = &r->cores[ci];
        const dv_core_stats *s = info.stats;
        uint64_t full = 0;
        for (int p = 0; p < DV_PIPE_COUNT; p++)
            full += s->pipe[p].full_cycles;
        for (int p = 0; p < DV_PIPE_COUNT; p++) {
            if (!c->has_pipe[p])
                continue;
            const uint64_t *k = c->pipe[p];
            uint64_t sum = 0;
            for (int i = 0; i < DV_PROF_CLASS_COUNT; i++)
                sum += k[i];
            uint64_t busy = k[DV_PROF_BUSY] + k[DV_PROF_MEMORY] + k[DV_PROF_BANK];
            uint64_t wait = k[DV_PROF_FLAG] + k[DV_PROF_CC_FLAG] + k[DV_PROF_BARRIER];
            const char *name = dv_pipe_trace_name((dv_pipe)p);
            if (sum != r->cycles) {
                snprintf(why, size,
                         "core %u %s: the classes add up to %" PRIu64 ", not the run's %" PRIu64 " cycles",
                         ci, name, sum, r->cycles);
                return false;
            }
            /* a run that stopped early: the Scalar's instruction in flight (dv_profile.h) */
            if ((r->done || p != DV_PIPE_S) && busy != s->pipe[p].busy_cycles) {
                snprintf(why, size, "core %u %s: busy+memory+bank %" PRIu64 " != busy_cycles %" PRIu64, ci,
                         name, busy, s->pipe[p].busy_cycles);
                return false;
            }
            if (wait != s->pipe[p].wait_cycles) {
                snprintf(why, size, "core %u %s: flag+cc_flag+barrier %" PRIu64 " != wait_cycles %" PRIu64,
                         ci, name, wait, s->pipe[p].wait_cycles);
                return false;
            }
            if (p == DV_PIPE_S && k[DV_PROF_QUEUE_FULL] != full) {
                snprintf(why, size, "core %u: queue_full %" PRIu64 " != the pipes' full_cycles %" PRIu64, ci,
                         k[DV_PROF_QUEUE_FULL], full);
                return false;
            }
            if (p != DV_PIPE_S && c->full_by_pipe[p] != s->pipe[p].full_cycles) {
                snprintf(why, size, "core %u %s: queue_full %" PRIu64 " != full_cycles %" PRIu64, ci, name,
                         c->full_by_pipe[p], s->pipe[p].full_cycles);
                return false;
            }
        }
    }
    return true;
}

/* ---- the per-pipe table ---- */

static const char *kind_name(unsigned k)
{
    static const char *const names[] = {"coupled", "aic", "aiv"};
    return k < 3 ? names[k] : "?";
}

/* The classes of pipe p over the cores of kind k in scope (kind < 0: any). */
static uint64_t pipe_sum(const dv_prof_result *r, const prof_report_opts *o, int kind, int p, int cls,
                         unsigned *ncores)
{
    uint64_t v = 0;
    unsigned n = 0;
    for (unsigned ci = 0; ci < r->ncores; ci++) {
        if (!in_scope(r, ci, o) || (kind >= 0 && (int)r->cores[ci].kind != kind) || !r->cores[ci].has_pipe[p])
            continue;
        v += r->cores[ci].pipe[p][cls];
        n++;
    }
    if (ncores)
        *ncores = n;
    return v;
}

static unsigned kind_count(const dv_prof_result *r, const prof_report_opts *o, int kind)
{
    unsigned n = 0;
    for (unsigned ci = 0; ci < r->ncores; ci++)
        n += in_scope(r, ci, o) && (int)r->cores[ci].kind == kind;
    return n;
}

/* ---- the critical path ---- */

typedef struct phase {
    uint64_t start, end; /* cycles */
    int bound;           /* the pipe with the most work */
    char text[1024];
} phase;

static int bound_of(const dv_prof_bin *b, size_t n)
{
    int best = -1;
    uint64_t most = 0;
    for (int p = 0; p < DV_PIPE_COUNT; p++) {
        uint64_t w = 0;
        for (size_t i = 0; i < n; i++)
            w += b[i].cycles[p][DV_PROF_BUSY] + b[i].cycles[p][DV_PROF_MEMORY] + b[i].cycles[p][DV_PROF_BANK];
        if (w > most)
            most = w, best = p;
    }
    return best;
}

static void phase_describe(const dv_prof_result *r, int kind, phase *ph, size_t b0, size_t b1)
{
    const dv_prof_bin *bins = r->bins[kind];
    uint64_t span = (ph->end - ph->start) * r->kind_cores[kind];
    if (!span)
        span = 1;
    uint64_t cyc[DV_PIPE_COUNT][DV_PROF_CLASS_COUNT];
    memset(cyc, 0, sizeof cyc);
    for (size_t i = b0; i < b1; i++)
        for (int p = 0; p < DV_PIPE_COUNT; p++)
            for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
                cyc[p][k] += bins[i].cycles[p][k];
    size_t n = 0;
    char *t = ph->text;
    size_t size = sizeof ph->text;
    n += (size_t)snprintf(t + n, size - n, "cycles %" PRIu64 "-%" PRIu64 ": ", ph->start, ph->end);
    int b = ph->bound < 0 ? 0 : ph->bound;
    if (ph->bound < 0)
        n += (size_t)snprintf(t + n, size - n, "no pipe working");
    uint64_t work = cyc[b][DV_PROF_BUSY] + cyc[b][DV_PROF_MEMORY] + cyc[b][DV_PROF_BANK];
    if (ph->bound >= 0)
        n += (size_t)snprintf(t + n, size - n, "%s bound (working %.0f%% of the time",
                              dv_pipe_trace_name((dv_pipe)b), 100.0 * (double)work / (double)span);
    if (n < size && cyc[b][DV_PROF_MEMORY] * 5 >= work && work)
        n += (size_t)snprintf(t + n, size - n, "; %.0f%% of it waiting for HBM/L2",
                              100.0 * (double)cyc[b][DV_PROF_MEMORY] / (double)work);
    if (n < size && cyc[b][DV_PROF_BANK] * 10 >= work && work)
        n += (size_t)snprintf(t + n, size - n, "; %.0f%% of it UB bank conflicts",
                              100.0 * (double)cyc[b][DV_PROF_BANK] / (double)work);
    if (n < size && ph->bound >= 0)
        n += (size_t)snprintf(t + n, size - n, ")");
    /* what held the other pipes: each one's biggest stall instruction */
    for (int p = 0; p < DV_PIPE_COUNT && n < size; p++) {
        dv_prof_top all[DV_PROF_TOP * DV_PROF_BINS];
        size_t na = 0;
        for (size_t i = b0; i < b1; i++)
            for (int s = 0; s < DV_PROF_TOP; s++) {
                const dv_prof_top *x = &bins[i].top[p][s];
                if (x->cls < 0)
                    continue;
                size_t j = 0;
                while (j < na && !(all[j].pc == x->pc && all[j].cls == x->cls))
                    j++;
                if (j == na)
                    all[na++] = (dv_prof_top){x->pc, 0, x->cls};
                all[j].cycles += x->cycles;
            }
        const dv_prof_top *best = NULL;
        for (size_t j = 0; j < na; j++)
            if (!best || all[j].cycles > best->cycles ||
                (all[j].cycles == best->cycles && all[j].pc < best->pc))
                best = &all[j];
        if (!best || best->cycles * 10 < span) /* under 10% of the phase */
            continue;
        char loc[320], what[1200];
        loc_of(r->obj, best->pc, loc, sizeof loc);
        double pct = 100.0 * (double)best->cycles / (double)span;
        const char *pn = dv_pipe_trace_name((dv_pipe)p);
        if (best->cls == DV_PROF_FLAG || best->cls == DV_PROF_CC_FLAG) {
            char fl[64], rel[400] = "";
            flag_name(r->obj, best->pc, fl, sizeof fl);
            const dv_prof_release *x = top_release(r, best->pc);
            if (x)
                release_text(r->obj, x, rel, sizeof rel);
            snprintf(what, sizeof what, "%s waits on %s at %s, %s (%.0f%%)", pn, fl, loc, rel, pct);
        } else if (best->cls == DV_PROF_BARRIER) {
            snprintf(what, sizeof what, "%s held at pipe_barrier all at %s (%.0f%%)", pn, loc, pct);
        } else {
            dv_insn in = insn_at(r->obj, best->pc);
            snprintf(what, sizeof what, "%s blocked: the %s queue is full at %s (%.0f%%)", pn,
                     dv_pipe_trace_name(dv_insn_pipe(&in)), loc, pct);
        }
        n += (size_t)snprintf(t + n, size - n, "; %s", what);
    }
}

/* Phases of the kind's timeline: runs of bins with the same bound pipe,
 * the short ones (under a sixteenth of the run) merged into their
 * neighbour.  Returns the count (at most DV_PROF_BINS). */
static size_t phases_of(const dv_prof_result *r, int kind, phase *out)
{
    const dv_prof_bin *bins = r->bins[kind];
    uint64_t w = r->bin_width;
    size_t nb = (size_t)((r->cycles + w - 1) / w);
    if (nb > DV_PROF_BINS)
        nb = DV_PROF_BINS;
    size_t first[DV_PROF_BINS + 1], n = 0;
    int bound[DV_PROF_BINS];
    for (size_t i = 0; i < nb; i++) {
        int b = bound_of(&bins[i], 1);
        if (n && bound[n - 1] == b)
            continue;
        first[n] = i;
        bound[n++] = b;
    }
    first[n] = nb;
    /* merge short phases until none is left */
    for (bool again = true; again && n > 1;) {
        again = false;
        for (size_t i = 0; i < n; i++) {
            uint64_t len = (first[i + 1] - first[i]) * w;
            if (len * 16 >= r->cycles)
                continue;
            size_t into = i == 0 ? 1 : i - 1; /* the neighbour before, or after the first */
            size_t lo = into < i ? into : i;
            memmove(&first[lo + 1], &first[lo + 2], (n - lo - 1) * sizeof first[0]);
            memmove(&bound[lo], &bound[lo + 1], (n - lo - 1) * sizeof bound[0]);
            n--;
            bound[lo] = bound_of(&bins[first[lo]], first[lo + 1] - first[lo]);
            /* neighbours that now agree become one */
            if (lo + 1 < n && bound[lo + 1] == bound[lo]) {
                memmove(&first[lo + 1], &first[lo + 2], (n - lo - 1) * sizeof first[0]);
                memmove(&bound[lo + 1], &bound[lo + 2], (n - lo - 2) * sizeof bound[0]);
                n--;
            }
            again = true;
            break;
        }
    }
    for (size_t i = 1; i < n;) { /* neighbours that agree become one */
        if (bound[i] != bound[i - 1]) {
            i++;
            continue;
        }
        memmove(&first[i], &first[i + 1], (n - i) * sizeof first[0]);
        memmove(&bound[i], &bound[i + 1], (n - i - 1) * sizeof bound[0]);
        n--;
    }
    for (size_t i = 0; i < n; i++) {
        out[i].start = first[i] * w;
        out[i].end = first[i + 1] * w < r->cycles ? first[i + 1] * w : r->cycles;
        out[i].bound = bound_of(&bins[first[i]], first[i + 1] - first[i]);
        phase_describe(r, kind, &out[i], first[i], first[i + 1]);
    }
    return n;
}

/* ---- text ---- */

static void print_pipes(FILE *out, const dv_prof_result *r, const prof_report_opts *o)
{
    for (int kind = 0; kind < 3; kind++) {
        unsigned nk = kind_count(r, o, kind);
        if (!nk)
            continue;
        fprintf(out, "\n%s cores: %u; %% of their %" PRIu64 " cycles each\n", kind_name((unsigned)kind), nk,
                r->cycles);
        fprintf(out, "%-7s", "pipe");
        for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
            fprintf(out, " %9s", dv_prof_class_name((dv_prof_class)k));
        fputc('\n', out);
        for (int p = 0; p < DV_PIPE_COUNT; p++) {
            unsigned n;
            pipe_sum(r, o, kind, p, 0, &n);
            if (!n)
                continue;
            double total = (double)r->cycles * n;
            fprintf(out, "%-7s", dv_pipe_trace_name((dv_pipe)p));
            for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
                fprintf(out, " %8.1f%%",
                        total > 0 ? 100.0 * (double)pipe_sum(r, o, kind, p, k, NULL) / total : 0);
            fputc('\n', out);
        }
    }
}

/* "flag 80% busy 20%": the row's classes by share of its cycles. */
static void classes_text(const prof_row *row, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    uint64_t all = 0;
    for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
        all += costs((dv_prof_class)k) ? row->cls[k] : 0;
    bool used[DV_PROF_CLASS_COUNT] = {false};
    for (;;) {
        int best = -1;
        for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
            if (costs((dv_prof_class)k) && !used[k] && row->cls[k] &&
                (best < 0 || row->cls[k] > row->cls[best]))
                best = k;
        if (best < 0 || n >= size)
            break;
        used[best] = true;
        n += (size_t)snprintf(buf + n, size - n, "%s%s %.0f%%", n ? " " : "",
                              dv_prof_class_name((dv_prof_class)best),
                              100.0 * (double)row->cls[best] / (double)(all ? all : 1));
    }
}

static void print_rows(FILE *out, const dv_prof_result *r, const prof_report_opts *o, const prof_rows *rows)
{
    size_t shown = rows_shown(rows, o);
    fprintf(out, "\n%s by cost (cycles on every pipe but starved and idle; %zu of %zu shown)\n",
            o->by == PROF_BY_PC     ? "instructions"
            : o->by == PROF_BY_CALL ? "calling lines"
                                    : "source lines",
            shown, rows->n);
    fprintf(out, "%6s %12s %10s  %-32s %s\n", "share", "cycles", "insns", "classes", "where");
    fprintf(out, "%31s| cycles per pipe; the source line (a macro's: the call, then <- the statement)\n", "");
    for (size_t i = 0; i < shown; i++) {
        const prof_row *row = &rows->rows[i];
        char pipes[160] = "", cls[200];
        size_t n = 0;
        for (int p = 0; p < DV_PIPE_COUNT && n < sizeof pipes; p++)
            if (row->pipe[p])
                n += (size_t)snprintf(pipes + n, sizeof pipes - n, "%s%s:%" PRIu64, n ? " " : "",
                                      dv_pipe_trace_name((dv_pipe)p), row->pipe[p]);
        classes_text(row, cls, sizeof cls);
        fprintf(out, "%5.1f%% %12" PRIu64 " %10" PRIu64 "  %-32s %s\n",
                rows->total_cost ? 100.0 * (double)row->cost / (double)rows->total_cost : 0, row->cost,
                row->insns, cls, row->where);
        fprintf(out, "%31s| %s\n", "", pipes);
        if (!o->no_source && row->ln && o->by != PROF_BY_PC) {
            char src[200];
            bool call = row->ln->call_line != 0;
            source_line(r->obj, call ? row->ln->call_file : row->ln->file,
                        call ? row->ln->call_line : row->ln->line, src, sizeof src);
            if (src[0])
                fprintf(out, "%31s| %s\n", "", src);
            if (call && o->by == PROF_BY_LINE) {
                source_line(r->obj, row->ln->file, row->ln->line, src, sizeof src);
                if (src[0])
                    fprintf(out, "%31s|   <- %s\n", "", src);
            }
        }
        if (o->by == PROF_BY_PC) {
            char dis[200];
            dv_insn in = insn_at(r->obj, row->pc);
            dv_isa_format_insn(&in, row->pc, NULL, NULL, dis, sizeof dis);
            char loc[320];
            loc_of(r->obj, row->pc, loc, sizeof loc);
            fprintf(out, "%31s| %s   (%s)\n", "", dis, loc);
        }
        row_waits ws;
        collect_waits(r, o, row, &ws);
        for (size_t x = 0; x < ws.n; x++)
            fprintf(out, "%31s| waits on %s: %" PRIu64 " cycles in %" PRIu64 " waits, %s\n", "", ws.w[x].flag,
                    ws.w[x].cycles, ws.w[x].waits, ws.w[x].rel);
    }
}

static void print_path(FILE *out, const dv_prof_result *r, const prof_report_opts *o)
{
    fprintf(out, "\ncritical path (which pipe bounded each phase, and what held the others):\n");
    for (int kind = 0; kind < 3; kind++) {
        if (!r->bins[kind] || !kind_count(r, o, kind))
            continue;
        phase ph[DV_PROF_BINS];
        size_t n = phases_of(r, kind, ph);
        for (size_t i = 0; i < n; i++)
            fprintf(out, "  %s: %s\n", kind_name((unsigned)kind), ph[i].text);
    }
}

void prof_print_text(FILE *out, const dv_sim *sim, const dv_prof_result *r, const prof_report_opts *o,
                     const char *title)
{
    (void)sim;
    fprintf(out, "profile: %s\n%" PRIu64 " cycles, %u core%s%s%s\n", title, r->cycles, r->ncores,
            r->ncores == 1 ? "" : "s", r->done ? "" : " (the run stopped early)",
            o->core >= 0 ? "; figures of one core" : "; figures summed over the cores");
    if (o->core >= 0)
        fprintf(out, "core %d\n", o->core);
    for (size_t x = 0; x < r->nreleases; x++) {
        const dv_prof_release *rel = &r->releases[x];
        if (rel->kind != DV_PROF_REL_NEVER)
            continue;
        char fl[64], loc[320];
        flag_name(r->obj, rel->wait_pc, fl, sizeof fl);
        loc_of(r->obj, rel->wait_pc, loc, sizeof loc);
        fprintf(out, "never came: %s, waited for at %s (%" PRIu64 " cycles until the run stopped)\n", fl, loc,
                rel->cycles);
    }
    print_pipes(out, r, o);
    if (o->core < 0)
        print_path(out, r, o);
    prof_rows rows;
    if (!build_rows(r, o, &rows)) {
        fprintf(out, "(out of memory for the rows)\n");
        return;
    }
    print_rows(out, r, o, &rows);
    free(rows.rows);
}

/* ---- JSON ---- */

static cJSON *classes_json(const uint64_t *k)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; o && i < DV_PROF_CLASS_COUNT; i++)
        cli_json_add_u64(o, dv_prof_class_name((dv_prof_class)i), k[i]);
    return o;
}

cJSON *prof_json(const dv_sim *sim, const dv_prof_result *r, const prof_report_opts *o, const char *title)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON_AddStringToObject(root, "title", title);
    cli_json_add_u64(root, "cycles", r->cycles);
    cJSON_AddBoolToObject(root, "done", r->done);
    cli_json_add_u64(root, "cores", r->ncores);
    cJSON_AddStringToObject(root, "by", o->by == PROF_BY_PC ? "pc" : o->by == PROF_BY_CALL ? "call" : "line");
    if (o->core >= 0)
        cli_json_add_u64(root, "core", (uint64_t)o->core);
    cJSON *classes = cJSON_AddArrayToObject(root, "classes");
    for (int k = 0; classes && k < DV_PROF_CLASS_COUNT; k++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", dv_prof_class_name((dv_prof_class)k));
        cJSON_AddStringToObject(c, "part_of", dv_prof_class_stat((dv_prof_class)k));
        cJSON_AddStringToObject(c, "desc", dv_prof_class_doc((dv_prof_class)k));
        cJSON_AddItemToArray(classes, c);
    }
    char why[300];
    cJSON_AddBoolToObject(root, "sums_ok", prof_check_sums(sim, r, why, sizeof why));
    /* per kind, summed */
    cJSON *pipes = cJSON_AddArrayToObject(root, "pipes");
    for (int kind = 0; pipes && kind < 3; kind++)
        for (int p = 0; p < DV_PIPE_COUNT; p++) {
            unsigned n;
            pipe_sum(r, o, kind, p, 0, &n);
            if (!n)
                continue;
            uint64_t k[DV_PROF_CLASS_COUNT];
            for (int c = 0; c < DV_PROF_CLASS_COUNT; c++)
                k[c] = pipe_sum(r, o, kind, p, c, NULL);
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "kind", kind_name((unsigned)kind));
            cli_json_add_u64(e, "cores", n);
            cJSON_AddStringToObject(e, "pipe", dv_pipe_trace_name((dv_pipe)p));
            cJSON_AddItemToObject(e, "cycles", classes_json(k));
            cJSON_AddItemToArray(pipes, e);
        }
    /* every core, with the statistics the classes add up to */
    cJSON *cores = cJSON_AddArrayToObject(root, "per_core");
    for (unsigned ci = 0; cores && ci < r->ncores; ci++) {
        if (!in_scope(r, ci, o))
            continue;
        dv_core_info info;
        dv_sim_core_info(sim, ci, &info);
        const dv_prof_core *c = &r->cores[ci];
        cJSON *e = cJSON_CreateObject();
        cli_json_add_u64(e, "core", ci);
        cJSON_AddStringToObject(e, "kind", kind_name(c->kind));
        cli_json_add_u64(e, "end_cycle", c->end_cycle);
        cJSON *ps = cJSON_AddObjectToObject(e, "pipes");
        for (int p = 0; p < DV_PIPE_COUNT; p++) {
            if (!c->has_pipe[p])
                continue;
            cJSON *pe = classes_json(c->pipe[p]);
            cli_json_add_u64(pe, "stat_busy_cycles", info.stats->pipe[p].busy_cycles);
            cli_json_add_u64(pe, "stat_wait_cycles", info.stats->pipe[p].wait_cycles);
            cli_json_add_u64(pe, "stat_full_cycles", info.stats->pipe[p].full_cycles);
            cJSON_AddItemToObject(ps, dv_pipe_trace_name((dv_pipe)p), pe);
        }
        cJSON_AddItemToArray(cores, e);
    }
    if (o->core < 0) {
        cJSON *path = cJSON_AddArrayToObject(root, "critical_path");
        for (int kind = 0; path && kind < 3; kind++) {
            if (!r->bins[kind] || !kind_count(r, o, kind))
                continue;
            phase ph[DV_PROF_BINS];
            size_t n = phases_of(r, kind, ph);
            for (size_t i = 0; i < n; i++) {
                cJSON *e = cJSON_CreateObject();
                cJSON_AddStringToObject(e, "kind", kind_name((unsigned)kind));
                cli_json_add_u64(e, "start", ph[i].start);
                cli_json_add_u64(e, "end", ph[i].end);
                cJSON_AddStringToObject(e, "bound",
                                        ph[i].bound >= 0 ? dv_pipe_trace_name((dv_pipe)ph[i].bound) : "");
                cJSON_AddStringToObject(e, "text", ph[i].text);
                cJSON_AddItemToArray(path, e);
            }
        }
    }
    cJSON *never = cJSON_AddArrayToObject(root, "never_came");
    for (size_t x = 0; never && x < r->nreleases; x++) {
        const dv_prof_release *rel = &r->releases[x];
        if (rel->kind != DV_PROF_REL_NEVER)
            continue;
        char fl[64], loc[320];
        flag_name(r->obj, rel->wait_pc, fl, sizeof fl);
        loc_of(r->obj, rel->wait_pc, loc, sizeof loc);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "flag", fl);
        cJSON_AddStringToObject(e, "where", loc);
        cli_json_add_u64(e, "pc", rel->wait_pc);
        cli_json_add_u64(e, "cycles", rel->cycles);
        cJSON_AddItemToArray(never, e);
    }
    prof_rows rows;
    if (!build_rows(r, o, &rows)) {
        cJSON_Delete(root);
        return NULL;
    }
    cli_json_add_u64(root, "total_cost", rows.total_cost);
    cli_json_add_u64(root, "rows_total", rows.n);
    cJSON *arr = cJSON_AddArrayToObject(root, "rows");
    size_t shown = rows_shown(&rows, o);
    for (size_t i = 0; arr && i < shown; i++) {
        const prof_row *row = &rows.rows[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "where", row->where);
        if (row->ln && o->by != PROF_BY_PC) {
            bool call = row->ln->call_line != 0;
            cJSON_AddStringToObject(e, "file", file_of(r->obj, call ? row->ln->call_file : row->ln->file));
            cli_json_add_u64(e, "line", call ? row->ln->call_line : row->ln->line);
            if (call && o->by == PROF_BY_LINE) {
                cJSON_AddStringToObject(e, "macro_file", file_of(r->obj, row->ln->file));
                cli_json_add_u64(e, "macro_line", row->ln->line);
            }
        }
        cli_json_add_u64(e, "pc", row->pc);
        cli_json_add_u64(e, "insns", row->insns);
        cli_json_add_u64(e, "cycles", row->cost);
        cJSON_AddNumberToObject(e, "share_pct",
                                rows.total_cost ? 100.0 * (double)row->cost / (double)rows.total_cost : 0);
        cJSON *pp = cJSON_AddObjectToObject(e, "pipes");
        for (int p = 0; pp && p < DV_PIPE_COUNT; p++)
            if (row->pipe[p])
                cli_json_add_u64(pp, dv_pipe_trace_name((dv_pipe)p), row->pipe[p]);
        cJSON_AddItemToObject(e, "classes", classes_json(row->cls));
        cJSON *waits = cJSON_AddArrayToObject(e, "waits");
        row_waits ws;
        collect_waits(r, o, row, &ws);
        for (size_t x = 0; waits && x < ws.n; x++) {
            cJSON *w = cJSON_CreateObject();
            cJSON_AddStringToObject(w, "flag", ws.w[x].flag);
            cJSON_AddStringToObject(w, "released", ws.w[x].rel);
            cJSON_AddBoolToObject(w, "never_set", ws.w[x].never);
            cli_json_add_u64(w, "cycles", ws.w[x].cycles);
            cli_json_add_u64(w, "waits", ws.w[x].waits);
            cJSON_AddItemToArray(waits, w);
        }
        cJSON_AddItemToArray(arr, e);
    }
    free(rows.rows);
    return root;
}

/* ---- CSV: the rows, then the pipes, one table with a section column ---- */

static void csv_field(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void prof_print_csv(FILE *out, const dv_sim *sim, const dv_prof_result *r, const prof_report_opts *o)
{
    (void)sim;
    fputs("section,scope,where,insns,cycles,share_pct", out);
    for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
        fprintf(out, ",%s", dv_prof_class_name((dv_prof_class)k));
    fputc('\n', out);
    for (int kind = 0; kind < 3; kind++)
        for (int p = 0; p < DV_PIPE_COUNT; p++) {
            unsigned n;
            pipe_sum(r, o, kind, p, 0, &n);
            if (!n)
                continue;
            fprintf(out, "pipe,%s,%s,,,", kind_name((unsigned)kind), dv_pipe_trace_name((dv_pipe)p));
            for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
                fprintf(out, ",%" PRIu64, pipe_sum(r, o, kind, p, k, NULL));
            fputc('\n', out);
        }
    prof_rows rows;
    if (!build_rows(r, o, &rows))
        return;
    size_t shown = rows_shown(&rows, o);
    for (size_t i = 0; i < shown; i++) {
        const prof_row *row = &rows.rows[i];
        fputs(o->by == PROF_BY_PC ? "pc," : o->by == PROF_BY_CALL ? "call," : "line,", out);
        fputs(o->core >= 0 ? "core," : "all,", out);
        csv_field(out, row->where);
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.4f", row->insns, row->cost,
                rows.total_cost ? 100.0 * (double)row->cost / (double)rows.total_cost : 0);
        for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
            fprintf(out, ",%" PRIu64, row->cls[k]);
        fputc('\n', out);
    }
    free(rows.rows);
}
