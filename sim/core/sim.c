/* sim.c - a launch of a kernel's blocks over the chip's cores. */
#include "dv_perf.h"
#include "dv_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dv_sim {
    dv_chip_config cfg;
    bool data;
    dv_evq q;
    dv_gm *gm;
    dv_gm_system gmsys; /* the chip's L2 and HBM */
    const dv_obj *obj;
    const dv_obj_kernel *kernel;
    uint64_t args[DV_MAX_KERNEL_ARGS];
    uint64_t block_dim, next_block;
    dv_core *cores;
    unsigned ncores, ninit;
    uint64_t stop_seq;   /* bumped by a core whenever its stop changes */
    unsigned group_size; /* mix launches: 1 AIC + its AIVs; else 1 */
    dv_cc_net cc;
    dv_core **core_ptrs;
    struct dv_perf *perf;
    dv_event sampler; /* the host counters' sampling clock */
    bool ran;
    dv_status start_err;
    /* incremental runs (dv_sim_start / advance / finish) */
    uint64_t max_cycles;
    bool running;     /* started, not yet ended */
    dv_core *stopped; /* the first core that stopped the run */
    const volatile sig_atomic_t *interrupt_flag;
    bool interrupt;   /* dv_sim_interrupt */
    uint64_t horizon; /* the end of the last slice dv_sim_advance went through */
    const dv_trace_sink *trace;
    dv_sim_pace_fn pace; /* dv_sim_set_pacer */
    void *pace_user;
};

dv_sim *dv_sim_create(const dv_chip_config *cfg, bool data, dv_error *err)
{
    dv_status st = dv_config_validate(cfg, err);
    if (st != DV_OK)
        return NULL;
    dv_sim *s = calloc(1, sizeof *s);
    if (!s) {
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->data = data;
    s->block_dim = 1;
    dv_evq_init(&s->q, s);
    s->gm = dv_gm_create(cfg->gm_bytes);
    if (!s->gm) {
        free(s);
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (cfg->l2_bytes) {
        s->gmsys.l2 = dv_l2_create(cfg->l2_bytes, cfg->l2_line_bytes, (unsigned)cfg->l2_ways, err);
        if (!s->gmsys.l2) {
            dv_gm_destroy(s->gm);
            free(s);
            return NULL;
        }
    }
    return s;
}

void dv_sim_destroy(dv_sim *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->ninit; i++)
        dv_core_destroy(&s->cores[i]);
    free(s->cores);
    free(s->core_ptrs);
    free(s->gmsys.owners);
    free(s->cc.count);
    free(s->cc.need);
    dv_evq_destroy(&s->q);
    dv_gm_destroy(s->gm);
    dv_l2_destroy(s->gmsys.l2);
    free(s);
}

const dv_chip_config *dv_sim_config(const dv_sim *s)
{
    return &s->cfg;
}

dv_gm *dv_sim_gm(dv_sim *s)
{
    return s->gm;
}

const dv_core *dv_sim_core(const dv_sim *s, unsigned i)
{
    return i < s->ninit ? &s->cores[i] : NULL;
}

const dv_obj_kernel *dv_sim_kernel(const dv_sim *s)
{
    return s->kernel;
}

dv_status dv_sim_load(dv_sim *s, const dv_obj *obj, const char *kernel, dv_error *err)
{
    if (obj->nkernels == 0)
        return dv_error_set(err, DV_ERR_INPUT, "the object has no kernel (declare one with .kernel)");
    const dv_obj_kernel *k = NULL;
    if (kernel) {
        k = dv_obj_find_kernel(obj, kernel);
        if (!k)
            return dv_error_set(err, DV_ERR_INPUT, "the object has no kernel '%s'", kernel);
    } else if (obj->nkernels > 1) {
        return dv_error_set(err, DV_ERR_USAGE, "the object has %zu kernels; choose one with --kernel",
                            obj->nkernels);
    } else {
        k = &obj->kernels[0];
    }
    if (s->cfg.split && k->core == DV_CORE_COUPLED)
        return dv_error_set(err, DV_ERR_INPUT, "kernel '%s' is for coupled cores; %s has split AIC/AIV cores",
                            k->name, s->cfg.name);
    if (!s->cfg.split && k->core != DV_CORE_COUPLED)
        return dv_error_set(err, DV_ERR_INPUT, "kernel '%s' is for %s cores; %s has coupled cores", k->name,
                            dv_core_type_name(k->core), s->cfg.name);
    s->obj = obj;
    s->kernel = k;
    return DV_OK;
}

void dv_sim_attach_perf(dv_sim *s, struct dv_perf *p)
{
    s->perf = p;
}

static void on_sample_tick(dv_event *ev, void *ctx)
{
    dv_sim *s = ctx;
    (void)ev;
    dv_perf_take_samples(s->perf, s->q.now);
    dv_error err;
    dv_evq_schedule(&s->q, &s->sampler, s->q.now + dv_perf_period(s->perf), DV_PRIO_SAMPLE, &err);
}

dv_status dv_sim_set_arg(dv_sim *s, unsigned index, uint64_t value, dv_error *err)
{
    if (index >= DV_MAX_KERNEL_ARGS)
        return dv_error_set(err, DV_ERR_USAGE, "argument index %u out of range", index);
    s->args[index] = value;
    return DV_OK;
}

dv_status dv_sim_set_blocks(dv_sim *s, uint64_t block_dim, dv_error *err)
{
    if (block_dim == 0 || block_dim > 65535)
        return dv_error_set(err, DV_ERR_USAGE, "block_dim must be 1 to 65535, not %llu",
                            (unsigned long long)block_dim);
    s->block_dim = block_dim;
    return DV_OK;
}

/* Starts block b on every core of group g (one core unless mix). */
static dv_status start_group(dv_sim *s, unsigned g, uint64_t b, uint64_t cycle, dv_error *err)
{
    for (unsigned k = 0; k < s->group_size; k++) {
        dv_core *c = &s->cores[g * s->group_size + k];
        if (s->cc.count) {
            memset(s->cc.count + c->net_index * DV_MAX_EVENT_IDS, 0, DV_MAX_EVENT_IDS);
            memset(s->cc.need + c->net_index * DV_MAX_EVENT_IDS, 0, DV_MAX_EVENT_IDS);
        }
        dv_status st = dv_core_start_block(c, b, s->block_dim, s->args, cycle, err);
        if (st != DV_OK)
            return st;
    }
    return DV_OK;
}

/* A core finished a block: when its whole group has, the group takes the
 * next block, if any (waves). */
static void on_block_done(dv_core *c, void *user)
{
    dv_sim *s = user;
    if (s->next_block >= s->block_dim)
        return;
    unsigned g = (unsigned)(c->net_index / s->group_size);
    for (unsigned k = 0; k < s->group_size; k++)
        if (s->cores[g * s->group_size + k].stop != DV_STOP_DONE)
            return;
    dv_error err;
    if (start_group(s, g, s->next_block++, c->q->now, &err) != DV_OK)
        s->start_err = DV_ERR_NOMEM;
}

/* How many groups of how many cores this launch uses. */
static void plan(const dv_sim *s, unsigned *groups, unsigned *group_size)
{
    uint64_t avail = s->cfg.cores;
    *group_size = 1;
    if (s->cfg.split && s->kernel->core == DV_CORE_AIV)
        avail = s->cfg.cores * s->cfg.aiv_per_aic;
    if (s->cfg.split && s->kernel->core == DV_CORE_MIX)
        *group_size = 1 + (unsigned)s->cfg.aiv_per_aic;
    *groups = (unsigned)(s->block_dim < avail ? s->block_dim : avail);
}

/* The kind, AIC group and AIV index of core i. */
static void place(const dv_sim *s, unsigned i, dv_core_kind *kind, unsigned *group, uint64_t *sub)
{
    unsigned aiv = (unsigned)s->cfg.aiv_per_aic;
    *sub = 0;
    if (!s->cfg.split) {
        *kind = DV_KIND_COUPLED, *group = i;
    } else if (s->kernel->core == DV_CORE_AIC) {
        *kind = DV_KIND_AIC, *group = i;
    } else if (s->kernel->core == DV_CORE_AIV) {
        *kind = DV_KIND_AIV, *group = i / aiv, *sub = i % aiv;
    } else {
        *group = i / s->group_size;
        unsigned k = i % s->group_size;
        *kind = k == 0 ? DV_KIND_AIC : DV_KIND_AIV;
        *sub = k == 0 ? 0 : k - 1;
    }
}

dv_status dv_sim_start(dv_sim *s, uint64_t max_cycles, dv_error *err)
{
    if (!s->kernel)
        return dv_error_set(err, DV_ERR_USAGE, "no kernel loaded");
    if (s->ran)
        return dv_error_set(err, DV_ERR_USAGE, "this simulation has already run");
    s->ran = true;
    s->max_cycles = max_cycles;
    unsigned groups;
    plan(s, &groups, &s->group_size);
    s->ncores = groups * s->group_size;
    s->cores = calloc(s->ncores, sizeof *s->cores);
    s->core_ptrs = calloc(s->ncores, sizeof *s->core_ptrs);
    if (!s->cores || !s->core_ptrs)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    if (s->ncores > 1) {
        s->gmsys.owners = calloc(DV_GM_OWNER_SLOTS, sizeof *s->gmsys.owners);
        if (!s->gmsys.owners)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    }
    if (s->cfg.split) {
        s->cc.cores = s->core_ptrs;
        s->cc.ncores = s->ncores;
        s->cc.count = calloc((size_t)s->ncores * DV_MAX_EVENT_IDS, 1);
        s->cc.need = calloc((size_t)s->ncores * DV_MAX_EVENT_IDS, 1);
        if (!s->cc.count || !s->cc.need)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    }
    for (unsigned i = 0; i < s->ncores; i++) {
        dv_core *c = &s->cores[i];
        dv_core_kind kind;
        unsigned group;
        uint64_t sub;
        place(s, i, &kind, &group, &sub);
        dv_status st = dv_core_init(c, &s->cfg, &s->q, s->gm, s->obj, s->kernel, kind, s->data, err);
        s->ninit = i + 1;
        if (st != DV_OK)
            return st;
        c->core_id = i;
        c->group = group;
        c->sub_idx = sub;
        c->sub_dim = kind == DV_KIND_AIV ? s->cfg.aiv_per_aic : 1;
        c->net_index = i;
        c->cc = s->cfg.split ? &s->cc : NULL;
        c->gmsys = &s->gmsys;
        c->on_done = on_block_done;
        c->on_done_user = s;
        c->stop_seq = &s->stop_seq;
        c->trace = s->trace;
        s->core_ptrs[i] = c;
    }
    if (s->trace && s->trace->launch)
        s->trace->launch(s->trace->user, s);
    for (unsigned g = 0; g < groups; g++) {
        dv_status st = start_group(s, g, s->next_block++, 0, err);
        if (st != DV_OK)
            return st;
    }
    if (s->perf) {
        dv_status st = dv_perf_run_started(s->perf, err);
        if (st != DV_OK)
            return st;
        if (dv_perf_period(s->perf)) {
            dv_event_init(&s->sampler, on_sample_tick);
            st = dv_evq_schedule(&s->q, &s->sampler, dv_perf_period(s->perf), DV_PRIO_SAMPLE, err);
            if (st != DV_OK)
                return st;
        }
    }
    s->running = true;
    return DV_OK;
}

/* Stops every core still running with `why` at the cycle `at`. */
static void stop_running(dv_sim *s, dv_stop why, uint64_t at)
{
    for (unsigned i = 0; i < s->ncores; i++) {
        dv_core *c = &s->cores[i];
        if (c->stop != DV_STOP_NONE)
            continue;
        c->stop = why;
        c->end_cycle = at;
        if (why == DV_STOP_LIMIT)
            snprintf(c->stop_msg, sizeof c->stop_msg, "stopped at the cycle limit %llu (core %u, pc 0x%llx)",
                     (unsigned long long)at, i, (unsigned long long)c->pc);
        else
            snprintf(c->stop_msg, sizeof c->stop_msg, "interrupted at cycle %llu (core %u, pc 0x%llx)",
                     (unsigned long long)at, i, (unsigned long long)c->pc);
        if (!s->stopped)
            s->stopped = c;
    }
}

/* The cycle the run has reached: its last event, or the end of the last
 * slice it was advanced through without events. */
static uint64_t reached(const dv_sim *s)
{
    return s->horizon > s->q.now ? s->horizon : s->q.now;
}

bool dv_sim_advance(dv_sim *s, uint64_t until, dv_error *err)
{
    if (!s->running)
        return false;
    uint64_t seen = s->stop_seq - 1; /* scan once on entry */
    for (;;) {
        /* The cores are scanned only after one of them changed its outcome
         * (core_stop_changed bumps stop_seq): a scan after every event would
         * cost O(cores) per simulated instruction. */
        if (seen != s->stop_seq) {
            seen = s->stop_seq;
            unsigned done = 0;
            for (unsigned i = 0; i < s->ncores && !s->stopped; i++) {
                dv_stop st = s->cores[i].stop;
                if (st == DV_STOP_DONE)
                    done++;
                else if (st != DV_STOP_NONE)
                    s->stopped = &s->cores[i];
            }
            if (s->stopped || done == s->ncores)
                break;
        }
        if (s->start_err)
            break;
        uint64_t next = dv_evq_next_cycle(&s->q);
        /* the sampling clock alone does not keep a run alive */
        if (s->q.count == (size_t)dv_event_queued(&s->sampler))
            next = UINT64_MAX;
        if (next == UINT64_MAX) {
            for (unsigned i = 0; i < s->ncores; i++) {
                if (s->cores[i].stop == DV_STOP_NONE) {
                    dv_core_diagnose_deadlock(&s->cores[i]);
                    if (!s->stopped)
                        s->stopped = &s->cores[i];
                }
            }
            break;
        }
        if (s->max_cycles && next > s->max_cycles) {
            stop_running(s, DV_STOP_LIMIT, s->max_cycles);
            break;
        }
        if (s->interrupt || (s->interrupt_flag && *s->interrupt_flag)) {
            stop_running(s, DV_STOP_INTERRUPTED, reached(s));
            break;
        }
        if (next > until) {
            if (until > s->horizon)
                s->horizon = until; /* nothing happens up to `until` */
            return true;
        }
        /* An event may run ahead (dv_evq_run_ahead) no further than the
         * slice and the cycle limit allow. */
        s->q.limit = s->max_cycles && s->max_cycles < until ? s->max_cycles : until;
        dv_evq_step(&s->q);
    }
    s->running = false;
    if (s->start_err)
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    return false;
}

dv_status dv_sim_finish(dv_sim *s, dv_run_result *res, dv_error *err)
{
    if (!s->ran || !s->cores)
        return dv_error_set(err, DV_ERR_USAGE, "the simulation has not started");
    if (s->running) { /* the front end stopped before the end */
        stop_running(s, DV_STOP_INTERRUPTED, reached(s));
        s->running = false;
    }
    if (s->start_err)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    dv_core *stopped = s->stopped;
    dv_evq_cancel(&s->q, &s->sampler);
    memset(res, 0, sizeof *res);
    for (unsigned i = 0; i < s->ncores; i++) {
        dv_core *c = &s->cores[i];
        if (c->stop != DV_STOP_DONE) {
            if (c->stop == DV_STOP_NONE) { /* another core stopped the run */
                c->end_cycle = s->q.now;
            }
            dv_core_close_stats(c);
        }
        if (c->end_cycle > res->cycles)
            res->cycles = c->end_cycle;
    }
    res->stop = stopped ? stopped->stop : DV_STOP_DONE;
    /* A sample point that coincides with the end comes after the cores'
     * last events at that cycle: take it now. */
    if (s->perf && dv_perf_period(s->perf) && res->stop == DV_STOP_DONE && res->cycles &&
        res->cycles % dv_perf_period(s->perf) == 0)
        dv_perf_take_samples(s->perf, res->cycles);
    res->message = stopped ? stopped->stop_msg : "";
    res->stats = &s->cores[0].stats;
    res->ncores = s->ncores;
    res->block_dim = s->block_dim;
    res->launch_cycles = s->cfg.launch_cycles;
    return DV_OK;
}

dv_status dv_sim_run(dv_sim *s, uint64_t max_cycles, dv_run_result *res, dv_error *err)
{
    dv_status st = dv_sim_start(s, max_cycles, err);
    if (st != DV_OK)
        return st;
    if (!s->pace) {
        dv_sim_advance(s, UINT64_MAX, err);
    } else {
        /* the front end takes over between slices (dv_sim_set_pacer) */
        while (dv_sim_advance(s, s->pace(s->pace_user, s), err))
            ;
    }
    return dv_sim_finish(s, res, err);
}

void dv_sim_set_pacer(dv_sim *s, dv_sim_pace_fn pace, void *user)
{
    s->pace = pace;
    s->pace_user = user;
}

uint64_t dv_sim_now(const dv_sim *s)
{
    return s->q.now;
}

uint64_t dv_sim_next_cycle(const dv_sim *s)
{
    return dv_evq_next_cycle(&s->q);
}

unsigned dv_sim_ncores(const dv_sim *s)
{
    return s->ninit;
}

void dv_sim_set_interrupt_flag(dv_sim *s, const volatile sig_atomic_t *flag)
{
    s->interrupt_flag = flag;
}

void dv_sim_interrupt(dv_sim *s)
{
    s->interrupt = true;
}

void dv_sim_attach_trace(dv_sim *s, const dv_trace_sink *sink)
{
    s->trace = sink;
}
