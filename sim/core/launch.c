/* launch.c - several kernels on the chip at once (dv_launch.h): opening
 * the chip, adding launches, and the run loop that ends them (faults,
 * deadlocks, the cycle limit) and calls their completion callbacks between
 * events.  Their cores and the scheduler are launch_cores.c. */
#include "core_scalar.h"
#include "launch_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- opening the chip, adding launches ---- */

dv_status dv_sim_open(dv_sim *s, uint64_t max_cycles, dv_error *err)
{
    if (s->ran)
        return dv_error_set(err, DV_ERR_USAGE, "this simulation has already run");
    struct dv_chip_runs *r = calloc(1, sizeof *r);
    if (!r)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    s->runs = r;
    s->ran = true;
    r->max_cycles = max_cycles;
    r->units = dv_sim_units(s);
    r->unit_owner = malloc(r->units * sizeof *r->unit_owner);
    if (!r->unit_owner)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    for (unsigned i = 0; i < r->units; i++)
        r->unit_owner[i] = -1;
    sim_choose_core_hooks(s);
    if (dv_gmsys_track_owners(&s->gmsys, err) != DV_OK)
        return DV_ERR_NOMEM;
    unsigned threads = sim_host_threads(s->threads);
    const char *env = getenv("DVSIM_DEFER_WORK"); /* sim.c says why */
    bool defer = env && strcmp(env, "1") == 0;
    if (s->data && (threads > 1 || defer)) {
        s->pool = dv_pool_create(defer ? 0 : threads - 1);
        if (!s->pool && defer)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    }
    dv_status st = sim_start_clocks(s, err);
    if (st != DV_OK)
        return st;
    s->running = true;
    DV_LOG(&s->log, DV_LOG_CAT_SIM, DV_LOG_INFO, "chip %s open for launches: %u units%s", s->cfg.name,
           r->units, s->data ? "" : ", timing only");
    return DV_OK;
}

/* The kernel of d, checked against the chip (as dv_sim_load checks it). */
static dv_status find_kernel(const dv_sim *s, const dv_launch_desc *d, const dv_obj_kernel **out,
                             dv_error *err)
{
    const dv_obj *obj = d->obj;
    if (!obj || obj->nkernels == 0)
        return dv_error_set(err, DV_ERR_INPUT, "the object has no kernel (declare one with .kernel)");
    const dv_obj_kernel *k = &obj->kernels[0];
    if (d->kernel) {
        k = dv_obj_find_kernel(obj, d->kernel);
        if (!k)
            return dv_error_set(err, DV_ERR_INPUT, "the object has no kernel '%s'", d->kernel);
    } else if (obj->nkernels > 1) {
        return dv_error_set(err, DV_ERR_INPUT, "the object has %zu kernels; name one", obj->nkernels);
    }
    if (s->cfg.split == (k->core == DV_CORE_COUPLED))
        return dv_error_set(err, DV_ERR_INPUT, "kernel '%s' is for %s cores; %s has %s cores", k->name,
                            dv_core_type_name(k->core), s->cfg.name,
                            s->cfg.split ? "split AIC/AIV" : "coupled");
    *out = k;
    return DV_OK;
}

/* The slots of the launch's core set: a unit per AI core (coupled, AIC), per
 * AIV of each (AIV), or an AIC with its AIVs (mix). */
static dv_status make_slots(chip_launch *l, dv_error *err)
{
    const dv_chip_config *cfg = &l->sim->cfg;
    unsigned aiv = (unsigned)cfg->aiv_per_aic, cores = (unsigned)cfg->cores;
    bool per_aiv = cfg->split && l->k->core == DV_CORE_AIV;
    l->group_size = cfg->split && l->k->core == DV_CORE_MIX ? 1 + aiv : 1;
    unsigned n = 0;
    for (unsigned g = 0; g < cores; g++)
        n += dv_coreset_has(&l->d.cores, g) ? (per_aiv ? aiv : 1) : 0;
    l->nslots = n;
    l->slot_units = malloc((size_t)n * l->group_size * sizeof *l->slot_units);
    l->slot_group = malloc((size_t)n * sizeof *l->slot_group);
    if (!l->slot_units || !l->slot_group)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    unsigned j = 0;
    for (unsigned g = 0; g < cores; g++) {
        if (!dv_coreset_has(&l->d.cores, g))
            continue;
        if (per_aiv) {
            for (unsigned k = 0; k < aiv; k++)
                l->slot_units[j++] = cores + g * aiv + k;
            continue;
        }
        l->slot_units[j++] = g; /* the coupled core or the AIC */
        for (unsigned k = 1; k < l->group_size; k++)
            l->slot_units[j++] = cores + g * aiv + (k - 1);
    }
    for (unsigned i = 0; i < n; i++)
        l->slot_group[i] = -1;
    return DV_OK;
}

static void free_launch(chip_launch *l)
{
    if (!l)
        return;
    launch_free_cores(l);
    free(l->slot_units);
    free(l->slot_group);
    free(l->group_slot);
    free(l->group_busy);
    free(l);
}

dv_status dv_sim_launch(dv_sim *s, const dv_launch_desc *d, unsigned *id, dv_error *err)
{
    struct dv_chip_runs *r = s->runs;
    if (!r)
        return dv_error_set(err, DV_ERR_USAGE, "the chip is not open for launches (dv_sim_open)");
    if (d->block_dim == 0 || d->block_dim > 65535)
        return dv_error_set(err, DV_ERR_INPUT, "block_dim must be 1 to 65535, not %llu",
                            (unsigned long long)d->block_dim);
    const dv_obj_kernel *k = NULL;
    dv_status st = find_kernel(s, d, &k, err);
    if (st != DV_OK)
        return st;
    for (unsigned i = (unsigned)s->cfg.cores; i < 64 * DV_CORESET_WORDS; i++)
        if (dv_coreset_has(&d->cores, i))
            return dv_error_set(err, DV_ERR_INPUT, "core %u is not on %s (cores 0-%llu)", i, s->cfg.name,
                                (unsigned long long)s->cfg.cores - 1);
    if (r->n == r->cap) {
        unsigned cap = r->cap ? 2 * r->cap : 16;
        chip_launch **nl = realloc(r->l, cap * sizeof *nl);
        if (nl)
            r->l = nl;
        unsigned *ne = realloc(r->ended, cap * sizeof *ne);
        if (ne)
            r->ended = ne;
        if (!nl || !ne)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        r->cap = cap;
    }
    chip_launch *l = calloc(1, sizeof *l);
    if (!l)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    l->sim = s;
    l->id = r->n;
    l->d = *d;
    l->d.kernel = NULL; /* the caller's string need not outlive the call */
    l->k = k;
    if (dv_coreset_empty(&l->d.cores))
        for (unsigned g = 0; g < s->cfg.cores; g++)
            dv_coreset_add(&l->d.cores, g);
    st = make_slots(l, err);
    if (st != DV_OK) {
        free_launch(l);
        return st;
    }
    snprintf(l->kernel_name, sizeof l->kernel_name, "%s", k->name);
    l->info.kernel = l->kernel_name;
    l->info.block_dim = d->block_dim;
    l->info.submit_cycle = s->q.now;
    l->info.message = l->message;
    dv_event_init(&l->start.ev, launch_on_start);
    l->start.l = l;
    uint64_t at = d->not_before > s->q.now ? d->not_before : s->q.now;
    st = dv_evq_schedule(&s->q, &l->start.ev, at, DV_PRIO_SCALAR, err);
    if (st != DV_OK) {
        free_launch(l);
        return st;
    }
    r->l[r->n++] = l;
    s->running = true;
    DV_LOG(&s->log, DV_LOG_CAT_SIM, DV_LOG_INFO,
           "launch %u: kernel %s, %llu blocks on %u slots, from cycle %llu", l->id, k->name,
           (unsigned long long)d->block_dim, l->nslots, (unsigned long long)at);
    *id = l->id;
    return DV_OK;
}

unsigned dv_sim_launch_count(const dv_sim *s)
{
    return s->runs ? s->runs->n : 0;
}

bool dv_sim_launch_info(const dv_sim *s, unsigned id, dv_launch_info *out)
{
    if (!s->runs || id >= s->runs->n)
        return false;
    *out = s->runs->l[id]->info;
    return true;
}

bool dv_sim_unit_launch(const dv_sim *s, unsigned unit, unsigned *launch)
{
    if (!s->runs || unit >= s->runs->units || s->runs->unit_owner[unit] < 0)
        return false;
    *launch = (unsigned)s->runs->unit_owner[unit];
    return true;
}

/* ---- running ---- */

/* A launch stops right after the last event: what its cores' Scalar units
 * ran ahead of it is undone (core_scalar_rewind). */
static void rewind_launch(chip_launch *l)
{
    for (unsigned k = 0; l->cores && k < l->ngroups * l->group_size; k++)
        core_scalar_rewind(&l->cores[k]);
}

/* Launches with a core that faulted (or deadlocked) end with it; their other
 * cores stop where they are. */
static void scan_failures(dv_sim *s)
{
    struct dv_chip_runs *r = s->runs;
    for (unsigned i = r->first_live; i < r->n; i++) {
        chip_launch *l = r->l[i];
        if (l->ended || !l->cores)
            continue;
        for (unsigned c = 0; c < l->ngroups * l->group_size; c++) {
            dv_stop st = l->cores[c].stop;
            if (st == DV_STOP_FAULT || st == DV_STOP_DEADLOCK) {
                rewind_launch(l);
                for (unsigned g = 0; g < l->ngroups; g++)
                    if (l->group_busy[g])
                        launch_release_units(l, g);
                launch_end(l, st, l->cores[c].stop_msg, s->q.now);
                break;
            }
        }
    }
}

/* Stops every launch still running or waiting (the cycle limit, an interruption). */
static void stop_all(dv_sim *s, dv_stop why, uint64_t at)
{
    struct dv_chip_runs *r = s->runs;
    for (unsigned i = r->first_live; i < r->n; i++) {
        chip_launch *l = r->l[i];
        if (l->ended)
            continue;
        dv_evq_cancel(&s->q, &l->start.ev);
        for (unsigned c = 0; l->cores && c < l->ngroups * l->group_size; c++)
            if (l->cores[c].stop == DV_STOP_NONE) {
                l->cores[c].stop = why;
                l->cores[c].end_cycle = at;
            }
        for (unsigned g = 0; l->group_busy && g < l->ngroups; g++)
            if (l->group_busy[g])
                launch_release_units(l, g);
        char msg[96];
        snprintf(msg, sizeof msg, "%s %llu",
                 why == DV_STOP_LIMIT ? "stopped at the cycle limit" : "interrupted at cycle",
                 (unsigned long long)at);
        launch_end(l, why, msg, at);
    }
}

/* Launches that ended in the last event: their cores go, then their
 * callbacks, in the order they ended (a callback may add launches). */
static void settle(dv_sim *s)
{
    struct dv_chip_runs *r = s->runs;
    for (unsigned i = 0; i < r->nended; i++) {
        chip_launch *l = r->l[r->ended[i]];
        launch_free_cores(l);
    }
    while (r->first_live < r->n && r->l[r->first_live]->ended)
        r->first_live++;
    /* callbacks may end nothing (they run between events) but add launches */
    unsigned n = r->nended;
    r->nended = 0;
    for (unsigned i = 0; i < n; i++) {
        chip_launch *l = r->l[r->ended[i]];
        if (l->d.done)
            l->d.done(l->d.user, s, l->id);
    }
}

static bool busy(const struct dv_chip_runs *r)
{
    return r->first_live < r->n;
}

bool sim_runs_advance(dv_sim *s, uint64_t until, dv_error *err)
{
    struct dv_chip_runs *r = s->runs;
    for (;;) {
        if (r->seen_seq != s->stop_seq) {
            r->seen_seq = s->stop_seq;
            scan_failures(s);
        }
        if (r->nended)
            settle(s);
        if (s->start_err)
            break;
        uint64_t next = dv_evq_next_cycle(&s->q);
        if (s->q.count <= s->nhooks && s->q.count == sim_clocks_queued(s))
            next = UINT64_MAX;
        if (next == UINT64_MAX) {
            if (!busy(r))
                return false; /* idle: more launches may come */
            /* nothing can happen, yet launches run: their cores deadlocked */
            for (unsigned i = r->first_live; i < r->n; i++) {
                chip_launch *l = r->l[i];
                for (unsigned c = 0; !l->ended && l->cores && c < l->ngroups * l->group_size; c++)
                    dv_core_diagnose_deadlock(&l->cores[c]);
            }
            scan_failures(s);
            continue;
        }
        if (r->max_cycles && next > r->max_cycles) {
            stop_all(s, DV_STOP_LIMIT, r->max_cycles);
            settle(s);
            return false;
        }
        if (s->interrupt || (s->interrupt_flag && *s->interrupt_flag)) {
            for (unsigned i = r->first_live; i < r->n; i++)
                if (!r->l[i]->ended)
                    rewind_launch(r->l[i]);
            stop_all(s, DV_STOP_INTERRUPTED, s->horizon > s->q.now ? s->horizon : s->q.now);
            settle(s);
            return false;
        }
        if (next > until) {
            if (until > s->horizon)
                s->horizon = until;
            return true;
        }
        sim_set_horizon(s, until, r->max_cycles);
        dv_evq_step(&s->q);
    }
    dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    return false;
}

dv_status sim_runs_finish(dv_sim *s, dv_run_result *res, dv_error *err)
{
    struct dv_chip_runs *r = s->runs;
    if (busy(r)) { /* the front end stopped before the end */
        stop_all(s, DV_STOP_INTERRUPTED, s->horizon > s->q.now ? s->horizon : s->q.now);
        r->nended = 0;
        for (unsigned i = 0; i < r->n; i++)
            launch_free_cores(r->l[i]);
    }
    s->running = false;
    if (s->start_err)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    for (unsigned i = 0; i < s->nhooks; i++)
        dv_evq_cancel(&s->q, &s->clocks[i].ev);
    static const dv_core_stats none;
    memset(res, 0, sizeof *res);
    res->stop = DV_STOP_DONE;
    res->message = "";
    res->stats = &none;
    res->launch_cycles = s->cfg.launch_cycles;
    for (unsigned i = 0; i < r->n; i++) {
        const dv_launch_info *in = &r->l[i]->info;
        if (in->end_cycle > res->cycles)
            res->cycles = in->end_cycle;
        if (in->stop != DV_STOP_DONE && res->stop == DV_STOP_DONE) {
            res->stop = in->stop;
            res->message = in->message;
        }
        res->block_dim += in->block_dim;
    }
    res->ncores = r->units;
    for (unsigned i = 0; i < s->nhooks; i++)
        if (s->hooks[i].end)
            s->hooks[i].end(s->hooks[i].user, res->cycles, res->stop == DV_STOP_DONE);
    return DV_OK;
}

void sim_runs_free(dv_sim *s)
{
    struct dv_chip_runs *r = s->runs;
    if (!r)
        return;
    for (unsigned i = 0; i < r->n; i++) {
        dv_evq_cancel(&s->q, &r->l[i]->start.ev);
        free_launch(r->l[i]);
    }
    free(r->l);
    free(r->ended);
    free(r->unit_owner);
    free(r);
    s->runs = NULL;
}
