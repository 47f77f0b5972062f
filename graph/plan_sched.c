/* plan_sched.c - the plan's step DAG and its list scheduling onto streams.
 *
 * Edges come from the GM ranges the steps touch (activations only: the
 * weights are read-only).  Step u before step s in plan order gets an edge
 * u -> s when s reads a range u wrote (a data edge when it is the same
 * buffer: u made what s reads), or s writes a range u read or wrote (a
 * reuse edge: the memory plan gave the range to a tensor whose life began
 * after the earlier one's ended, so the new tenant must wait for the old
 * one's last readers and writers).  Plan order is a topological order (the
 * reference runs in it), so every edge goes forward.
 *
 * Scheduling walks the steps in plan order: a step goes to the stream whose
 * last step is one of its producers (the chain goes on without an event),
 * else to the least-loaded stream (load: the GM bytes of the steps given to
 * it, the plan's own measure of a step's size); ties go to the lower
 * stream.  Every edge between two streams becomes an event record -> wait
 * (plan_run.c). */
#include "plan_sched.h"

#include <stdlib.h>
#include <string.h>

static int root(const dv_plan *p, int t)
{
    return p->t[t].alias >= 0 ? p->t[t].alias : t;
}

/* The range [lo, hi) plan tensor t's buffer takes in the activation region, in whole
 * DV_PLAN_ALIGN lines (an operator may pad a tensor up to 32 bytes past its end: the line holds it). */
static void range_of(const dv_plan *p, int t, uint64_t *lo, uint64_t *hi)
{
    const dv_plan_tensor *r = &p->t[root(p, t)];
    *lo = r->offset;
    *hi = r->offset + (r->bytes + DV_PLAN_ALIGN - 1) / DV_PLAN_ALIGN * DV_PLAN_ALIGN;
}

static bool overlap(const dv_plan *p, int a, int b)
{
    uint64_t alo, ahi, blo, bhi;
    range_of(p, a, &alo, &ahi);
    range_of(p, b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

/* The kind of edge u -> s (0: none, 1: data, 2: reuse). */
static int edge_kind(const dv_plan *p, const dv_plan_step *u, const dv_plan_step *s)
{
    int kind = 0;
    for (unsigned i = 0; i < s->nin; i++) /* s reads what u wrote */
        for (unsigned j = 0; j < u->nout; j++) {
            int a = s->in[i], b = u->out[j];
            if (p->t[a].weight || p->t[b].weight || !overlap(p, a, b))
                continue;
            if (root(p, a) == root(p, b))
                return 1;
            kind = 2;
        }
    for (unsigned i = 0; i < s->nout; i++) { /* s overwrites what u read or wrote */
        int a = s->out[i];
        if (p->t[a].weight)
            continue;
        for (unsigned j = 0; j < u->nin + u->nout; j++) {
            int b = j < u->nin ? u->in[j] : u->out[j - u->nin];
            if (!p->t[b].weight && overlap(p, a, b) && root(p, a) != root(p, b))
                kind = 2;
        }
    }
    return kind;
}

dv_status psched_build(const dv_plan *p, unsigned nstreams, bool no_reuse, psched *s, dv_error *err)
{
    memset(s, 0, sizeof *s);
    unsigned n = p->nsteps, cap = 64;
    s->nsteps = n;
    s->stream = calloc(n + 1, sizeof *s->stream);
    s->edge = malloc(cap * sizeof *s->edge);
    uint64_t *load = calloc(nstreams + 1, sizeof *load);
    int *last = malloc((nstreams + 1) * sizeof *last);
    if (!s->stream || !s->edge || !load || !last) {
        free(load);
        free(last);
        psched_free(s);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    }
    for (unsigned k = 0; k < nstreams; k++)
        last[k] = -1;
    for (unsigned i = 0; i < n; i++) {
        unsigned first_edge = s->nedges;
        for (unsigned u = 0; u < i; u++) {
            int kind = edge_kind(p, &p->s[u], &p->s[i]);
            if (!kind || (kind == 2 && no_reuse))
                continue;
            if (s->nedges == cap) {
                psched_edge *e = realloc(s->edge, 2 * cap * sizeof *e);
                if (!e) {
                    free(load);
                    free(last);
                    psched_free(s);
                    return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
                }
                s->edge = e;
                cap *= 2;
            }
            s->edge[s->nedges++] = (psched_edge){.from = u, .to = i, .reuse = kind == 2};
            *(kind == 2 ? &s->reuse : &s->data) += 1;
        }
        /* the stream of a producer whose chain it continues, else the least loaded */
        int pick = -1;
        for (unsigned e = first_edge; e < s->nedges && pick < 0; e++)
            if (!s->edge[e].reuse && last[s->stream[s->edge[e].from]] == (int)s->edge[e].from)
                pick = (int)s->stream[s->edge[e].from];
        if (pick < 0) {
            pick = 0;
            for (unsigned k = 1; k < nstreams; k++)
                pick = load[k] < load[pick] ? (int)k : pick;
        }
        s->stream[i] = (unsigned)pick;
        load[pick] += p->s[i].gm_bytes ? p->s[i].gm_bytes : 1;
        last[pick] = (int)i;
    }
    free(load);
    free(last);
    return DV_OK;
}

void psched_free(psched *s)
{
    free(s->stream);
    free(s->edge);
    memset(s, 0, sizeof *s);
}
