/* compile_memory.c - the GM memory plan: every activation buffer's live
 * range over the steps (from the step that writes it to the last that reads
 * it; graph inputs from the start, outputs to the end; a reshape's alias
 * extends its root's), then offsets.  -O0 gives every buffer its own range;
 * from -O1 a buffer goes to the lowest offset free over its live range
 * (first fit in step order), so buffers whose lives do not overlap share GM.
 *
 * A plan for several streams (dv_plan_compile_streams) lets a buffer take
 * over a range only from buffers whose every user (the steps that read or
 * write it) the new buffer's producer depends on, through the data alone:
 * then the reuse orders nothing the data does not already order, and
 * independent branches can run side by side (dvsim graph --streams) without
 * waiting for each other's GM; a buffer whose users lie on another branch
 * keeps its range from the new one.  For one stream, plan order is the run's
 * order and any buffer dead before the new one is born gives up its range.
 * Both peaks are reported; weights live in their own region. */
#include "compile_priv.h"

#include <limits.h>
#include <stdlib.h>

static uint64_t aligned(uint64_t b)
{
    return (b + DV_PLAN_ALIGN - 1) / DV_PLAN_ALIGN * DV_PLAN_ALIGN;
}

static int root(const dv_plan *p, int t)
{
    return p->t[t].alias >= 0 ? p->t[t].alias : t;
}

static void touch(dv_plan *p, int t, int step)
{
    dv_plan_tensor *r = &p->t[root(p, t)];
    if (step < r->first)
        r->first = step;
    if (step > r->last)
        r->last = step;
}

/* Step dependencies as bit sets of nsteps bits, words words each. */
typedef struct stepsets {
    size_t words;
    uint64_t *anc;   /* anc[s]: the steps s depends on through the data, transitively */
    uint64_t *users; /* users[t]: the steps that read or write plan tensor t's buffer (root) */
} stepsets;

static void add(uint64_t *set, int s)
{
    if (s >= 0)
        set[s / 64] |= 1ull << (s % 64);
}

/* Each step's ancestors (a step's producers are earlier in plan order) and each buffer's users. */
static dv_status step_sets(const dv_plan *p, stepsets *ss, dv_error *err)
{
    ss->words = (p->nsteps + 63) / 64 + 1;
    ss->anc = calloc((p->nsteps + 1) * ss->words, sizeof *ss->anc);
    ss->users = calloc((p->ntensors + 1) * ss->words, sizeof *ss->users);
    if (!ss->anc || !ss->users)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    for (unsigned s = 0; s < p->nsteps; s++) {
        const dv_plan_step *st = &p->s[s];
        uint64_t *a = ss->anc + s * ss->words;
        for (unsigned k = 0; k < st->nin + st->nout; k++) {
            int t = k < st->nin ? st->in[k] : st->out[k - st->nin];
            if (p->t[t].weight)
                continue;
            int r = root(p, t), prod = p->t[r].first;
            add(ss->users + (size_t)r * ss->words, (int)s);
            if (k < st->nin && prod >= 0 && prod < (int)s) {
                add(a, prod);
                for (size_t w = 0; w < ss->words; w++)
                    a[w] |= ss->anc[(size_t)prod * ss->words + w];
            }
        }
    }
    return DV_OK;
}

/* Buffer t may take u's range: u is dead before t is born and t's producer depends on all of u's users. */
static bool may_reuse(const dv_plan *p, const stepsets *ss, int u, int t)
{
    const dv_plan_tensor *tu = &p->t[u], *tt = &p->t[t];
    if (!(tu->last < tt->first))
        return false;
    if (p->streams <= 1)
        return true;
    const uint64_t *users = ss->users + (size_t)u * ss->words, *anc = ss->anc + (size_t)tt->first * ss->words;
    for (size_t w = 0; w < ss->words; w++)
        if (users[w] & ~anc[w])
            return false;
    return tt->first >= 0;
}

dv_status cc_memory(cctx *c)
{
    dv_plan *p = c->p;
    int end = (int)p->nsteps;
    for (unsigned i = 0; i < p->ntensors; i++) {
        dv_plan_tensor *t = &p->t[i];
        t->first = INT_MAX; /* unused until touched */
        t->last = INT_MIN;
    }
    for (unsigned i = 0; i < p->ntensors; i++) {
        if (p->t[i].weight)
            continue;
        if (p->t[i].input)
            touch(p, (int)i, -1); /* from before the first step */
        if (p->t[i].output)
            touch(p, (int)i, end);
    }
    for (unsigned s = 0; s < p->nsteps; s++) {
        for (unsigned k = 0; k < p->s[s].nin; k++)
            if (!p->t[p->s[s].in[k]].weight)
                touch(p, p->s[s].in[k], (int)s);
        for (unsigned k = 0; k < p->s[s].nout; k++)
            if (!p->t[p->s[s].out[k]].weight)
                touch(p, p->s[s].out[k], (int)s);
    }
    stepsets ss = {0};
    dv_status st = step_sets(p, &ss, c->err);
    /* buffers in order of their first step; each takes the lowest offset free over its life */
    unsigned nb = 0;
    int *order = st == DV_OK ? malloc((p->ntensors + 1) * sizeof *order) : NULL;
    if (!order) {
        free(ss.anc);
        free(ss.users);
        return st != DV_OK ? st : dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
    }
    for (unsigned i = 0; i < p->ntensors; i++)
        if (!p->t[i].weight && p->t[i].alias < 0 && p->t[i].last != INT_MIN)
            order[nb++] = (int)i;
    for (unsigned i = 1; i < nb; i++) /* insertion sort by first step: stable, nb is small */
        for (unsigned j = i; j > 0 && p->t[order[j]].first < p->t[order[j - 1]].first; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    uint64_t peak = 0, sum = 0;
    for (unsigned i = 0; i < nb; i++) {
        dv_plan_tensor *t = &p->t[order[i]];
        uint64_t size = aligned(t->bytes), off = 0;
        sum += size;
        if (p->opt == 0) {
            t->offset = sum - size;
        } else {
            /* first fit: move past every placed buffer that overlaps in time and space, until none does */
            for (bool moved = true; moved;) {
                moved = false;
                for (unsigned j = 0; j < i; j++) {
                    const dv_plan_tensor *u = &p->t[order[j]];
                    bool taken = !may_reuse(p, &ss, order[j], order[i]);
                    if (taken && off < u->offset + aligned(u->bytes) && u->offset < off + size) {
                        off = u->offset + aligned(u->bytes);
                        moved = true;
                    }
                }
            }
            t->offset = off;
        }
        if (t->offset + size > peak)
            peak = t->offset + size;
    }
    for (unsigned i = 0; i < p->ntensors; i++) {
        dv_plan_tensor *t = &p->t[i];
        if (t->alias >= 0)
            t->offset = p->t[t->alias].offset;
        if (t->last == INT_MIN) /* a weight, or a buffer no step touches */
            t->first = t->last = -1;
    }
    free(order);
    free(ss.anc);
    free(ss.users);
    p->rep.peak_no_reuse = sum;
    p->rep.peak = peak;
    cc_log(c, "memory: %u GM buffers, peak %llu bytes without reuse, %llu with%s%s (plus %s)", nb,
           (unsigned long long)sum, (unsigned long long)peak,
           p->opt ? " liveness-based reuse" : "out reuse (-O0)",
           p->opt && p->streams > 1 ? " along the data's dependencies (for several streams)" : "",
           "the weights region");
    if (peak > c->cfg->gm_bytes)
        return dv_error_set(c->err, DV_ERR_INPUT, "%s: the plan needs %llu bytes of GM, the chip has %llu",
                            p->g->file, (unsigned long long)peak, (unsigned long long)c->cfg->gm_bytes);
    return DV_OK;
}
