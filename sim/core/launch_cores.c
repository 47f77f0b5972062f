/* launch_cores.c - the cores of the chip's launches (dv_launch.h) and the
 * task scheduler that hands them blocks.
 *
 * A launch's cores are made when it becomes ready: one group per block up
 * to the slots of its core set (a group: one core, or an AIC and its AIVs
 * for a mix kernel), as a one-kernel launch makes them.  A group is bound to
 * a slot of the chip when it first gets a block and keeps it (its buffers
 * stay, as a core's do between the blocks of a wave); between two of its
 * blocks an older launch may take the slot.  The cores are freed when the
 * launch ends; what it did stays in its record (dv_launch_info). */
#include "core_base.h"
#include "dv_zalloc.h"
#include "launch_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (chip_hooks(l)->block) /* NULL once its observer is removed (dv_sim_remove_hooks) */
        chip_hooks(l)->block(chip_hooks(l)->user, unit_of(l, core), block_idx, cycle);
}

static void w_insn(void *user, const dv_trace_insn *ev)
{
    const chip_launch *l = user;
    dv_trace_insn e = *ev;
    e.core = unit_of(l, ev->core);
    if (chip_hooks(l)->insn) /* NULL once its observer is removed (dv_sim_remove_hooks) */
        chip_hooks(l)->insn(chip_hooks(l)->user, &e);
}

static void w_scalar(void *user, unsigned core, const dv_insn *in, uint64_t pc, uint64_t start, uint64_t end)
{
    const chip_launch *l = user;
    if (chip_hooks(l)->scalar) /* NULL once its observer is removed (dv_sim_remove_hooks) */
        chip_hooks(l)->scalar(chip_hooks(l)->user, unit_of(l, core), in, pc, start, end);
}

static void w_flag(void *user, const dv_trace_flag *ev)
{
    const chip_launch *l = user;
    dv_trace_flag e = *ev;
    e.core = unit_of(l, ev->core);
    if (chip_hooks(l)->flag) /* NULL once its observer is removed (dv_sim_remove_hooks) */
        chip_hooks(l)->flag(chip_hooks(l)->user, &e);
}

static void w_stall(void *user, const dv_trace_stall *ev)
{
    const chip_launch *l = user;
    dv_trace_stall e = *ev;
    e.core = unit_of(l, ev->core);
    if (chip_hooks(l)->stall) /* NULL once its observer is removed (dv_sim_remove_hooks) */
        chip_hooks(l)->stall(chip_hooks(l)->user, &e);
}

static void w_access(void *user, const dv_trace_access *ev)
{
    const chip_launch *l = user;
    dv_trace_access e = *ev;
    e.core = unit_of(l, ev->core);
    if (chip_hooks(l)->access) /* NULL once its observer is removed (dv_sim_remove_hooks) */
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
    l->cores = dv_zalloc((n ? n : 1) * sizeof *l->cores); /* dv_core_init: zeroed */
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
        /* one decoded .text for the launch (sim.c says why) */
        dv_status st = dv_core_init(c, &s->cfg, &s->q, s->gm, &s->gmsys, l->d.obj, l->k, kind, s->data,
                                    i ? &l->cores[0] : NULL, err);
        l->core_ptrs[i] = c;
        if (st != DV_OK) {
            l->cc.ncores = i + 1; /* what make_cores made, for launch_free_cores */
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
    }
    return DV_OK;
}

/* The launch's totals, then its cores go. */
void launch_free_cores(chip_launch *l)
{
    unsigned n0 = l->ngroups * l->group_size; /* make_cores's allocation */
    unsigned n = l->cores ? n0 : 0;
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
    if (l->cores)
        dv_zfree(l->cores, (n0 ? n0 : 1) * sizeof *l->cores);
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
dv_status launch_dispatch(dv_sim *s, dv_error *err)
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

void launch_release_units(chip_launch *l, unsigned g)
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
void launch_end(chip_launch *l, dv_stop why, const char *msg, uint64_t at)
{
    struct dv_chip_runs *r = l->sim->runs;
    l->ended = true;
    l->info.stop = why;
    l->info.end_cycle = at;
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
    launch_release_units(l, g);
    if (l->next_block >= l->d.block_dim && l->running == 0)
        launch_end(l, DV_STOP_DONE, NULL, s->q.now);
    dv_error err;
    if (launch_dispatch(s, &err) != DV_OK)
        s->start_err = DV_ERR_NOMEM;
}

/* A launch's start condition holds: its cores are made and it joins the
 * scheduler. */
void launch_on_start(dv_event *ev, void *ctx)
{
    (void)ctx;
    chip_launch *l = ((start_event *)ev)->l;
    dv_sim *s = l->sim;
    dv_error err;
    l->ready = true;
    l->info.ready_cycle = s->q.now;
    if (make_cores(l, &err) != DV_OK || launch_dispatch(s, &err) != DV_OK)
        s->start_err = DV_ERR_NOMEM;
}
