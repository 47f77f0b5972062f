/* launch.c - several kernels on the chip at once (dv_launch.h): the chip's
 * task scheduler, each launch's cores, completions and their callbacks.
 *
 * A launch's cores are made when it becomes ready: one group per block up
 * to the slots of its core set (a group: one core, or an AIC and its AIVs
 * for a mix kernel), as a one-kernel launch makes them.  A group is bound to
 * a slot of the chip when it first gets a block and keeps it (its buffers
 * stay, as a core's do between the blocks of a wave); between two of its
 * blocks an older launch may take the slot.  The cores are freed when the
 * launch ends; what it did stays in its record (dv_launch_info). */
#include "core_base.h"
#include "dv_launch.h"
#include "sim_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chip_launch chip_launch;

typedef struct start_event {
    dv_event ev;
    chip_launch *l;
} start_event;

struct chip_launch {
    struct dv_sim *sim;
    unsigned id;
    dv_launch_desc d;
    const dv_obj_kernel *k;
    unsigned group_size;
    unsigned nslots;      /* slots of its core set */
    unsigned *slot_units; /* [slot][member]: the chip's unit of each member */
    int *slot_group;      /* the group bound to each slot, or -1 */
    unsigned ngroups;
    int *group_slot;  /* the slot each group is bound to, or -1 */
    bool *group_busy; /* running a block */
    dv_core *cores;   /* ngroups * group_size, NULL until ready and after the end */
    dv_core **core_ptrs;
    dv_cc_net cc;
    uint64_t next_block;
    unsigned running; /* groups running a block */
    bool ready, ended;
    start_event start;
    dv_sim_hooks hooks; /* the cores' events, core ids made unit ids, to the chip's observers */
    dv_launch_info info;
    char message[1024];
    char kernel_name[64]; /* info.kernel: the object may go before the record */
};

struct dv_chip_runs {
    chip_launch **l;
    unsigned n, cap;
    unsigned first_live; /* launches before it have all ended */
    int *unit_owner;     /* the launch running on each unit, or -1 */
    unsigned units;
    uint64_t max_cycles;
    uint64_t seen_seq;
    unsigned *ended; /* launches that ended during the last event, for their callbacks */
    unsigned nended;
};

/* ---- core sets ---- */

unsigned dv_coreset_count(const dv_coreset *s)
{
    unsigned n = 0;
    for (unsigned i = 0; i < DV_CORESET_WORDS; i++)
        n += (unsigned)__builtin_popcountll(s->w[i]);
    return n;
}

bool dv_coreset_empty(const dv_coreset *s)
{
    return dv_coreset_count(s) == 0;
}

unsigned dv_sim_units(const dv_sim *s)
{
    return (unsigned)(s->cfg.cores + (s->cfg.split ? s->cfg.cores * s->cfg.aiv_per_aic : 0));
}

/* ---- the cores' events, with unit ids ---- */

static const dv_sim_hooks *chip_hooks(const chip_launch *l)
{
    return l->sim->core_hooks;
}

static unsigned unit_of(const chip_launch *l, unsigned local)
{
    unsigned g = local / l->group_size;
    return l->slot_units[(unsigned)l->group_slot[g] * l->group_size + local % l->group_size];
}

static void w_block(void *user, unsigned core, uint64_t block_idx, uint64_t cycle)
{
    const chip_launch *l = user;
    chip_hooks(l)->block(chip_hooks(l)->user, unit_of(l, core), block_idx, cycle);
}

static void w_insn(void *user, const dv_trace_insn *ev)
{
    const chip_launch *l = user;
    dv_trace_insn e = *ev;
    e.core = unit_of(l, ev->core);
    chip_hooks(l)->insn(chip_hooks(l)->user, &e);
}

static void w_scalar(void *user, unsigned core, const dv_insn *in, uint64_t pc, uint64_t start, uint64_t end)
{
    const chip_launch *l = user;
    chip_hooks(l)->scalar(chip_hooks(l)->user, unit_of(l, core), in, pc, start, end);
}

static void w_flag(void *user, const dv_trace_flag *ev)
{
    const chip_launch *l = user;
    dv_trace_flag e = *ev;
    e.core = unit_of(l, ev->core);
    chip_hooks(l)->flag(chip_hooks(l)->user, &e);
}

static void w_stall(void *user, const dv_trace_stall *ev)
{
    const chip_launch *l = user;
    dv_trace_stall e = *ev;
    e.core = unit_of(l, ev->core);
    chip_hooks(l)->stall(chip_hooks(l)->user, &e);
}

static void w_access(void *user, const dv_trace_access *ev)
{
    const chip_launch *l = user;
    dv_trace_access e = *ev;
    e.core = unit_of(l, ev->core);
    chip_hooks(l)->access(chip_hooks(l)->user, &e);
}

/* The wrapper has exactly the functions the chip's observers have (an
 * access hook costs the cores their footprints). */
static void wrap_hooks(chip_launch *l)
{
    const dv_sim_hooks *h = chip_hooks(l);
    memset(&l->hooks, 0, sizeof l->hooks);
    l->hooks.user = l;
    l->hooks.block = h->block ? w_block : NULL;
    l->hooks.insn = h->insn ? w_insn : NULL;
    l->hooks.scalar = h->scalar ? w_scalar : NULL;
    l->hooks.flag = h->flag ? w_flag : NULL;
    l->hooks.stall = h->stall ? w_stall : NULL;
    l->hooks.access = h->access ? w_access : NULL;
}

/* ---- the launch's cores ---- */

static void on_group_block_done(dv_core *c, void *user);

/* The kind, group and AIV index of local core i (as a one-kernel launch places them). */
static void place(const chip_launch *l, unsigned i, dv_core_kind *kind, unsigned *group, uint64_t *sub)
{
    const dv_chip_config *cfg = &l->sim->cfg;
    unsigned aiv = (unsigned)cfg->aiv_per_aic;
    *sub = 0;
    if (!cfg->split) {
        *kind = DV_KIND_COUPLED, *group = i;
    } else if (l->k->core == DV_CORE_AIC) {
        *kind = DV_KIND_AIC, *group = i;
    } else if (l->k->core == DV_CORE_AIV) {
        *kind = DV_KIND_AIV, *group = i / aiv, *sub = i % aiv;
    } else {
        *group = i / l->group_size;
        unsigned k = i % l->group_size;
        *kind = k == 0 ? DV_KIND_AIC : DV_KIND_AIV;
        *sub = k == 0 ? 0 : k - 1;
    }
}

static dv_status make_cores(chip_launch *l, dv_error *err)
{
    dv_sim *s = l->sim;
    l->ngroups = (unsigned)(l->d.block_dim < l->nslots ? l->d.block_dim : l->nslots);
    unsigned n = l->ngroups * l->group_size;
    l->cores = calloc(n, sizeof *l->cores);
    l->core_ptrs = calloc(n, sizeof *l->core_ptrs);
    l->group_slot = malloc(l->ngroups * sizeof *l->group_slot);
    l->group_busy = calloc(l->ngroups, sizeof *l->group_busy);
    if (!l->cores || !l->core_ptrs || !l->group_slot || !l->group_busy)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    for (unsigned g = 0; g < l->ngroups; g++)
        l->group_slot[g] = -1;
    if (s->cfg.split) {
        l->cc.cores = l->core_ptrs;
        l->cc.ncores = n;
        l->cc.count = calloc((size_t)n * DV_MAX_EVENT_IDS, 1);
        l->cc.need = calloc((size_t)n * DV_MAX_EVENT_IDS, 1);
        if (!l->cc.count || !l->cc.need)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    }
    if (s->core_hooks)
        wrap_hooks(l);
    for (unsigned i = 0; i < n; i++) {
        dv_core *c = &l->cores[i];
        dv_core_kind kind;
        unsigned group;
        uint64_t sub;
        place(l, i, &kind, &group, &sub);
        dv_status st = dv_core_init(c, &s->cfg, &s->q, s->gm, &s->gmsys, l->d.obj, l->k, kind, s->data, err);
        l->core_ptrs[i] = c;
        if (st != DV_OK) {
            l->cc.ncores = i + 1; /* what make_cores made, for free_cores */
            return st;
        }
        c->group = group;
        c->sub_idx = sub;
        c->sub_dim = kind == DV_KIND_AIV ? s->cfg.aiv_per_aic : 1;
        c->net_index = i;
        c->cc = s->cfg.split ? &l->cc : NULL;
        c->on_done = on_group_block_done;
        c->on_done_user = l;
        c->stop_seq = &s->stop_seq;
        c->hooks = s->core_hooks ? &l->hooks : NULL;
        c->async.pool = s->pool;
        dv_pmu_init(&c->pmu, &s->counters, i);
        if (i > 0) { /* one decoded .text for the launch (sim.c says why) */
            free(c->text);
            free(c->text_ok);
            c->text = l->cores[0].text;
            c->text_ok = l->cores[0].text_ok;
            c->text_shared = true;
        }
    }
    return DV_OK;
}

/* The launch's totals, then its cores go. */
static void free_cores(chip_launch *l)
{
    unsigned n = l->cores ? l->ngroups * l->group_size : 0;
    if (l->cc.ncores && l->cc.ncores < n)
        n = l->cc.ncores;
    for (unsigned i = 0; i < n; i++) {
        dv_core *c = &l->cores[i];
        if (!c->text) /* never initialised */
            continue;
        core_async_join(c);
        if (c->stop != DV_STOP_DONE)
            dv_core_close_stats(c);
        for (unsigned p = 0; p < DV_PATH_COUNT; p++)
            l->info.path_bytes[p] += c->stats.path_bytes[p];
        l->info.cube_macs += c->stats.cube_macs;
        for (unsigned p = 0; p < DV_PIPE_COUNT; p++)
            l->info.insns += c->stats.pipe[p].insns;
    }
    /* the first core owns the shared .text: destroy it last */
    for (unsigned i = n; i-- > 0;)
        if (l->cores[i].text)
            dv_core_destroy(&l->cores[i]);
    free(l->cores);
    free(l->core_ptrs);
    free(l->cc.count);
    free(l->cc.need);
    l->cores = NULL;
    l->core_ptrs = NULL;
    l->cc = (dv_cc_net){0};
}

/* ---- the scheduler ---- */

static bool slot_free(const struct dv_chip_runs *r, const chip_launch *l, unsigned slot)
{
    for (unsigned k = 0; k < l->group_size; k++)
        if (r->unit_owner[l->slot_units[slot * l->group_size + k]] >= 0)
            return false;
    return true;
}

/* The AI core a slot belongs to. */
static unsigned slot_core(const chip_launch *l, unsigned slot)
{
    const dv_chip_config *cfg = &l->sim->cfg;
    unsigned unit = l->slot_units[slot * l->group_size];
    return unit < cfg->cores ? unit : (unsigned)((unit - cfg->cores) / cfg->aiv_per_aic);
}

static dv_status start_group(chip_launch *l, unsigned g, dv_error *err)
{
    dv_sim *s = l->sim;
    struct dv_chip_runs *r = s->runs;
    unsigned slot = (unsigned)l->group_slot[g];
    uint64_t b = l->next_block++;
    for (unsigned k = 0; k < l->group_size; k++) {
        unsigned unit = l->slot_units[slot * l->group_size + k];
        dv_core *c = &l->cores[g * l->group_size + k];
        r->unit_owner[unit] = (int)l->id;
        c->core_id = unit;
        if (l->cc.count) {
            memset(l->cc.count + c->net_index * DV_MAX_EVENT_IDS, 0, DV_MAX_EVENT_IDS);
            memset(l->cc.need + c->net_index * DV_MAX_EVENT_IDS, 0, DV_MAX_EVENT_IDS);
        }
        dv_status st = dv_core_start_block(c, b, l->d.block_dim, l->d.args, s->q.now, err);
        if (st != DV_OK)
            return st;
    }
    l->group_busy[g] = true;
    l->running++;
    if (!l->info.started) {
        l->info.started = true;
        l->info.start_cycle = s->q.now;
    }
    DV_LOG(&s->log, DV_LOG_CAT_SIM, DV_LOG_DEBUG, "launch %u: block %llu on unit %u at cycle %llu", l->id,
           (unsigned long long)b, l->slot_units[slot * l->group_size], (unsigned long long)s->q.now);
    return DV_OK;
}

/* Group g's slot: the one it is bound to if free, else the lowest free slot
 * no other group of the launch holds; -1 if none is free. */
static int slot_for(const struct dv_chip_runs *r, const chip_launch *l, unsigned g)
{
    if (l->group_slot[g] >= 0)
        return slot_free(r, l, (unsigned)l->group_slot[g]) ? l->group_slot[g] : -1;
    for (unsigned slot = 0; slot < l->nslots; slot++)
        if (l->slot_group[slot] < 0 && slot_free(r, l, slot))
            return (int)slot;
    return -1;
}

/* Every ready launch, oldest first, takes the free slots of its core set for
 * its next blocks. */
static dv_status dispatch(dv_sim *s, dv_error *err)
{
    struct dv_chip_runs *r = s->runs;
    for (unsigned i = r->first_live; i < r->n; i++) {
        chip_launch *l = r->l[i];
        if (!l->ready || l->ended)
            continue;
        for (unsigned g = 0; g < l->ngroups && l->next_block < l->d.block_dim; g++) {
            if (l->group_busy[g])
                continue;
            int slot = slot_for(r, l, g);
            if (slot < 0)
                continue;
            if (l->group_slot[g] < 0) {
                l->group_slot[g] = slot;
                l->slot_group[slot] = (int)g;
                l->info.units += l->group_size;
                dv_coreset_add(&l->info.cores_used, slot_core(l, (unsigned)slot));
            }
            dv_status st = start_group(l, g, err);
            if (st != DV_OK)
                return st;
        }
    }
    return DV_OK;
}

static void release_units(chip_launch *l, unsigned g)
{
    struct dv_chip_runs *r = l->sim->runs;
    unsigned slot = (unsigned)l->group_slot[g];
    for (unsigned k = 0; k < l->group_size; k++)
        r->unit_owner[l->slot_units[slot * l->group_size + k]] = -1;
    l->group_busy[g] = false;
    l->running--;
}

/* The launch has ended with `why` at the current cycle: its record, and its
 * callback once the event that ended it is over. */
static void end_launch(chip_launch *l, dv_stop why, const char *msg)
{
    struct dv_chip_runs *r = l->sim->runs;
    l->ended = true;
    l->info.stop = why;
    l->info.end_cycle = l->sim->q.now;
    if (!l->info.started)
        l->info.start_cycle = l->info.end_cycle;
    snprintf(l->message, sizeof l->message, "%s", msg ? msg : "");
    r->ended[r->nended++] = l->id;
    DV_LOG(&l->sim->log, DV_LOG_CAT_SIM, DV_LOG_INFO, "launch %u (%s) ends at cycle %llu: %s", l->id,
           l->kernel_name, (unsigned long long)l->info.end_cycle, dv_stop_name(why));
}

/* A core finished a block: once its group has, the group's units are free
 * and the scheduler hands them out (to this launch's next block or an older
 * launch's); the launch ends with its last group. */
static void on_group_block_done(dv_core *c, void *user)
{
    chip_launch *l = user;
    dv_sim *s = l->sim;
    unsigned g = c->net_index / l->group_size;
    for (unsigned k = 0; k < l->group_size; k++)
        if (l->cores[g * l->group_size + k].stop != DV_STOP_DONE)
            return;
    release_units(l, g);
    if (l->next_block >= l->d.block_dim && l->running == 0)
        end_launch(l, DV_STOP_DONE, NULL);
    dv_error err;
    if (dispatch(s, &err) != DV_OK)
        s->start_err = DV_ERR_NOMEM;
}

/* A launch's start condition holds: its cores are made and it joins the
 * scheduler. */
static void on_start(dv_event *ev, void *ctx)
{
    (void)ctx;
    chip_launch *l = ((start_event *)ev)->l;
    dv_sim *s = l->sim;
    dv_error err;
    l->ready = true;
    l->info.ready_cycle = s->q.now;
    if (make_cores(l, &err) != DV_OK || dispatch(s, &err) != DV_OK)
        s->start_err = DV_ERR_NOMEM;
}

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
    free_cores(l);
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
    dv_event_init(&l->start.ev, on_start);
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
                for (unsigned g = 0; g < l->ngroups; g++)
                    if (l->group_busy[g])
                        release_units(l, g);
                end_launch(l, st, l->cores[c].stop_msg);
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
                release_units(l, g);
        char msg[96];
        snprintf(msg, sizeof msg, "%s %llu",
                 why == DV_STOP_LIMIT ? "stopped at the cycle limit" : "interrupted at cycle",
                 (unsigned long long)at);
        end_launch(l, why, msg);
        l->info.end_cycle = at;
    }
}

/* Launches that ended in the last event: their cores go, then their
 * callbacks, in the order they ended (a callback may add launches). */
static void settle(dv_sim *s)
{
    struct dv_chip_runs *r = s->runs;
    for (unsigned i = 0; i < r->nended; i++) {
        chip_launch *l = r->l[r->ended[i]];
        free_cores(l);
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
            stop_all(s, DV_STOP_INTERRUPTED, s->horizon > s->q.now ? s->horizon : s->q.now);
            settle(s);
            return false;
        }
        if (next > until) {
            if (until > s->horizon)
                s->horizon = until;
            return true;
        }
        s->q.limit = r->max_cycles && r->max_cycles < until ? r->max_cycles : until;
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
            free_cores(r->l[i]);
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
