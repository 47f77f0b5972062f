/* rt_race.c - the launch-level race check: every launch's GM footprint
 * (the bytes its cores read and wrote, from the cores' access events) and
 * the order the runtime gives launches (a vector clock over the streams:
 * stream order, event record -> wait, host synchronise, callbacks), and the
 * pairs of launches that touch the same bytes, one writing, unordered.
 *
 * Launch A is ordered before B when A's epoch on its stream is one B knew
 * when it was issued (rt_issue stamps each launch; a wait takes the
 * event's clock, a synchronise gives the host the stream's, a command takes
 * its enqueuer's).  What the chip's timing did is beside the point: two
 * unordered launches race whether or not they overlapped in this run. */
#include "rt_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_range(rt_ranges *rs, uint64_t lo, uint64_t hi, dv_rt_device *d)
{
    if (rs->n && rs->r[rs->n - 1][1] >= lo && rs->r[rs->n - 1][0] <= hi) { /* streaming: extend the last */
        if (lo < rs->r[rs->n - 1][0])
            rs->r[rs->n - 1][0] = lo;
        if (hi > rs->r[rs->n - 1][1])
            rs->r[rs->n - 1][1] = hi;
        return;
    }
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 64;
        uint64_t(*p)[2] = realloc(rs->r, cap * sizeof *p);
        if (!p) {
            dv_error e;
            dv_error_set(&e, DV_ERR_NOMEM, "out of memory for the race check's footprints");
            rt_defer_error(d, &e);
            return;
        }
        rs->r = p;
        rs->cap = cap;
    }
    rs->r[rs->n][0] = lo;
    rs->r[rs->n][1] = hi;
    rs->n++;
}

static void on_access(void *user, const dv_trace_access *ev)
{
    dv_rt_device *d = user;
    unsigned launch;
    if (ev->mem != DV_MEM_GM || ev->len == 0 || !dv_sim_unit_launch(d->sim, ev->core, &launch) ||
        launch >= d->nlaunch_map)
        return;
    rt_foot *f = &d->foot[d->rec_of_launch[launch]];
    add_range(ev->write ? &f->wr : &f->rd, ev->addr, ev->addr + ev->len, d);
}

dv_status rt_race_attach(dv_rt_device *d, dv_error *err)
{
    dv_sim_hooks h = {.user = d, .access = on_access};
    return dv_sim_add_hooks(d->sim, &h, err);
}

static int by_lo(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sorted, overlapping and touching ranges merged. */
static void normalise(rt_ranges *rs)
{
    if (rs->n < 2)
        return;
    qsort(rs->r, rs->n, sizeof rs->r[0], by_lo);
    size_t n = 0;
    for (size_t i = 1; i < rs->n; i++) {
        if (rs->r[i][0] <= rs->r[n][1]) {
            if (rs->r[i][1] > rs->r[n][1])
                rs->r[n][1] = rs->r[i][1];
        } else {
            rs->r[++n][0] = rs->r[i][0];
            rs->r[n][1] = rs->r[i][1];
        }
    }
    rs->n = n + 1;
}

void rt_race_launch_ended(dv_rt_device *d, unsigned record)
{
    normalise(&d->foot[record].rd);
    normalise(&d->foot[record].wr);
}

void rt_race_free(dv_rt_device *d)
{
    for (unsigned i = 0; d->foot && i < d->nrec; i++) {
        free(d->foot[i].rd.r);
        free(d->foot[i].wr.r);
    }
    free(d->foot);
}

/* The first overlap of two sorted range lists. */
static bool overlap(const rt_ranges *a, const rt_ranges *b, uint64_t *addr, uint64_t *len)
{
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        uint64_t lo = a->r[i][0] > b->r[j][0] ? a->r[i][0] : b->r[j][0];
        uint64_t hi = a->r[i][1] < b->r[j][1] ? a->r[i][1] : b->r[j][1];
        if (lo < hi) {
            *addr = lo;
            *len = hi - lo;
            return true;
        }
        if (a->r[i][1] < b->r[j][1])
            i++;
        else
            j++;
    }
    return false;
}

static bool ordered(const dv_rt_device *d, unsigned a, unsigned b)
{
    unsigned sa = d->rec[a].stream, sb = d->rec[b].stream;
    const rt_vc *va = &d->foot[a].vc, *vb = &d->foot[b].vc;
    return va->c[sa] <= vb->c[sa] || vb->c[sb] <= va->c[sb];
}

dv_status dv_rt_races(const dv_rt_device *d, dv_rt_race **out, unsigned *n, dv_error *err)
{
    *out = NULL;
    *n = 0;
    if (!d->opt.race_check)
        return dv_error_set(err, DV_ERR_USAGE, "the device was opened without the race check");
    unsigned cap = 0;
    for (unsigned a = 0; a < d->nrec; a++) {
        if (d->rec[a].stop == DV_STOP_NONE) /* never ran */
            continue;
        for (unsigned b = a + 1; b < d->nrec; b++) {
            if (d->rec[b].stop == DV_STOP_NONE || ordered(d, a, b))
                continue;
            const rt_foot *fa = &d->foot[a], *fb = &d->foot[b];
            dv_rt_race r = {.first = a, .second = b};
            if (overlap(&fa->wr, &fb->wr, &r.addr, &r.len))
                r.first_writes = r.second_writes = true;
            else if (overlap(&fa->wr, &fb->rd, &r.addr, &r.len))
                r.first_writes = true;
            else if (overlap(&fa->rd, &fb->wr, &r.addr, &r.len))
                r.second_writes = true;
            else
                continue;
            if (*n == cap) {
                cap = cap ? 2 * cap : 16;
                dv_rt_race *p = realloc(*out, cap * sizeof *p);
                if (!p) {
                    free(*out);
                    *out = NULL;
                    *n = 0;
                    return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
                }
                *out = p;
            }
            (*out)[(*n)++] = r;
        }
    }
    return DV_OK;
}
