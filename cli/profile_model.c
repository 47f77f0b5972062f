/* profile_model.c - the profile of a run as rows, waits, per-pipe sums and
 * the phases of the critical path (profile_model.h). */
#include "profile_model.h"

#include "cli.h"
#include "dv_isa.h"
#include "dv_kernel_sources.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
/* ---- what a row is ---- */

bool prof_costs(dv_prof_class k)
{
    return k != DV_PROF_STARVED && k != DV_PROF_IDLE;
}

static const char *base_name(const char *p)
{
    return p;
}

const char *prof_file_of(const dv_obj *obj, uint32_t f)
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
        snprintf(buf, size, "%s:%u", prof_file_of(r->obj, ln->call_file), ln->call_line);
    else if (ln->call_line)
        snprintf(buf, size, "%s:%u <- %s:%u", prof_file_of(r->obj, ln->call_file), ln->call_line,
                 prof_file_of(r->obj, ln->file), ln->line);
    else
        snprintf(buf, size, "%s:%u", prof_file_of(r->obj, ln->file), ln->line);
}

bool prof_in_scope(const dv_prof_result *r, unsigned ci, const prof_report_opts *o)
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
bool prof_build_rows(const dv_prof_result *r, const prof_report_opts *o, prof_rows *out)
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
            if (!prof_in_scope(r, ci, o))
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
                    if (prof_costs((dv_prof_class)k)) {
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

size_t prof_rows_shown(const prof_rows *rows, const prof_report_opts *o)
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
void prof_source_line(const dv_obj *obj, uint32_t f, uint32_t line, char *buf, size_t size)
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

dv_insn prof_insn_at(const dv_obj *obj, uint64_t pc)
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

void prof_loc_of(const dv_obj *obj, uint64_t pc, char *buf, size_t size)
{
    const dv_obj_line *ln = dv_obj_line_at(obj, pc);
    if (!ln || ln->file >= obj->nfiles)
        snprintf(buf, size, "pc 0x%" PRIx64, pc);
    else if (ln->call_line)
        snprintf(buf, size, "%s:%u <- %s:%u", prof_file_of(obj, ln->call_file), ln->call_line,
                 prof_file_of(obj, ln->file), ln->line);
    else
        snprintf(buf, size, "%s:%u", prof_file_of(obj, ln->file), ln->line);
}

/* "flag mte2->v id 0" or "cross-core flag 3" for the wait at pc. */
void prof_flag_name(const dv_obj *obj, uint64_t pc, char *buf, size_t size)
{
    dv_insn in = prof_insn_at(obj, pc);
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
        prof_loc_of(obj, x->set_pc, loc, sizeof loc);
        snprintf(buf, size, "set at %s", loc);
        break;
    case DV_PROF_REL_CC:
        prof_loc_of(obj, x->set_pc, loc, sizeof loc);
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

void prof_collect_waits(const dv_prof_result *r, const prof_report_opts *o, const prof_row *row,
                        row_waits *ws)
{
    ws->n = 0;
    for (size_t x = 0; x < r->nreleases; x++) {
        const dv_prof_release *rel = &r->releases[x];
        if (!rel->cycles || !row_has(r, o, row, rel->wait_pc))
            continue;
        row_wait w;
        memset(&w, 0, sizeof w);
        prof_flag_name(r->obj, rel->wait_pc, w.flag, sizeof w.flag);
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

const char *prof_kind_name(unsigned k)
{
    static const char *const names[] = {"coupled", "aic", "aiv"};
    return k < 3 ? names[k] : "?";
}

/* The classes of pipe p over the cores of kind k in scope (kind < 0: any). */
uint64_t prof_pipe_sum(const dv_prof_result *r, const prof_report_opts *o, int kind, int p, int cls,
                       unsigned *ncores)
{
    uint64_t v = 0;
    unsigned n = 0;
    for (unsigned ci = 0; ci < r->ncores; ci++) {
        if (!prof_in_scope(r, ci, o) || (kind >= 0 && (int)r->cores[ci].kind != kind) ||
            !r->cores[ci].has_pipe[p])
            continue;
        v += r->cores[ci].pipe[p][cls];
        n++;
    }
    if (ncores)
        *ncores = n;
    return v;
}

unsigned prof_kind_count(const dv_prof_result *r, const prof_report_opts *o, int kind)
{
    unsigned n = 0;
    for (unsigned ci = 0; ci < r->ncores; ci++)
        n += prof_in_scope(r, ci, o) && (int)r->cores[ci].kind == kind;
    return n;
}

/* ---- the critical path ---- */

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
        prof_loc_of(r->obj, best->pc, loc, sizeof loc);
        double pct = 100.0 * (double)best->cycles / (double)span;
        const char *pn = dv_pipe_trace_name((dv_pipe)p);
        if (best->cls == DV_PROF_FLAG || best->cls == DV_PROF_CC_FLAG) {
            char fl[64], rel[400] = "";
            prof_flag_name(r->obj, best->pc, fl, sizeof fl);
            const dv_prof_release *x = top_release(r, best->pc);
            if (x)
                release_text(r->obj, x, rel, sizeof rel);
            snprintf(what, sizeof what, "%s waits on %s at %s, %s (%.0f%%)", pn, fl, loc, rel, pct);
        } else if (best->cls == DV_PROF_BARRIER) {
            snprintf(what, sizeof what, "%s held at pipe_barrier all at %s (%.0f%%)", pn, loc, pct);
        } else {
            dv_insn in = prof_insn_at(r->obj, best->pc);
            snprintf(what, sizeof what, "%s blocked: the %s queue is full at %s (%.0f%%)", pn,
                     dv_pipe_trace_name(dv_insn_pipe(&in)), loc, pct);
        }
        n += (size_t)snprintf(t + n, size - n, "; %s", what);
    }
}

/* Phases of the kind's timeline: runs of bins with the same bound pipe,
 * the short ones (under a sixteenth of the run) merged into their
 * neighbour.  Returns the count (at most DV_PROF_BINS). */
size_t prof_phases_of(const dv_prof_result *r, int kind, phase *out)
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
