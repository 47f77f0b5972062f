/* sim.c - a launch of a kernel's blocks over the chip's cores, and the
 * observers (dv_hooks.h) that watch it. */
#include "core_async.h"
#include "core_events.h"
#include "core_scalar.h"
#include "dv_core.h"
#include "dv_sim.h"
#include "dv_sim_perf.h"
#include "dv_zalloc.h"
#include "sim_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the cores' events to several observers ---- */

static void fan_block(void *user, unsigned core, uint64_t block_idx, uint64_t cycle)
{
    const dv_sim *s = user;
    for (unsigned i = 0; i < s->nhooks; i++)
        if (s->hooks[i].block)
            s->hooks[i].block(s->hooks[i].user, core, block_idx, cycle);
}

static void fan_insn(void *user, const dv_trace_insn *ev)
{
    const dv_sim *s = user;
    for (unsigned i = 0; i < s->nhooks; i++)
        if (s->hooks[i].insn)
            s->hooks[i].insn(s->hooks[i].user, ev);
}

static void fan_scalar(void *user, unsigned core, const dv_insn *in, uint64_t pc, uint64_t start,
                       uint64_t end)
{
    const dv_sim *s = user;
    for (unsigned i = 0; i < s->nhooks; i++)
        if (s->hooks[i].scalar) {
            s->hooks[i].scalar(s->hooks[i].user, core, in, pc, start, end);
        } else if (s->hooks[i].insn) {
            dv_trace_insn ev = {
                .core = core, .lane = DV_PIPE_S, .start = start, .end = end, .pc = pc, .insn = in};
            s->hooks[i].insn(s->hooks[i].user, &ev);
        }
}

static void fan_flag(void *user, const dv_trace_flag *ev)
{
    const dv_sim *s = user;
    for (unsigned i = 0; i < s->nhooks; i++)
        if (s->hooks[i].flag)
            s->hooks[i].flag(s->hooks[i].user, ev);
}

static void fan_stall(void *user, const dv_trace_stall *ev)
{
    const dv_sim *s = user;
    for (unsigned i = 0; i < s->nhooks; i++)
        if (s->hooks[i].stall)
            s->hooks[i].stall(s->hooks[i].user, ev);
}

static void fan_access(void *user, const dv_trace_access *ev)
{
    const dv_sim *s = user;
    for (unsigned i = 0; i < s->nhooks; i++)
        if (s->hooks[i].access)
            s->hooks[i].access(s->hooks[i].user, ev);
}

static bool watches_cores(const dv_sim_hooks *h)
{
    return h->block || h->insn || h->scalar || h->flag || h->stall || h->access;
}

/* The cores call one observer directly, several through the fan-out. */
void sim_choose_core_hooks(dv_sim *s)
{
    unsigned n = 0;
    s->core_hooks = NULL;
    for (unsigned i = 0; i < s->nhooks; i++)
        if (watches_cores(&s->hooks[i])) {
            s->core_hooks = &s->hooks[i];
            n++;
        }
    if (n > 1) {
        bool access = false; /* footprints are worked out only for someone who reads them */
        for (unsigned i = 0; i < s->nhooks; i++)
            access |= s->hooks[i].access != NULL;
        s->fanout = (dv_sim_hooks){.user = s,
                                   .block = fan_block,
                                   .insn = fan_insn,
                                   .scalar = fan_scalar,
                                   .flag = fan_flag,
                                   .stall = fan_stall,
                                   .access = access ? fan_access : NULL};
        s->core_hooks = &s->fanout;
    }
}

dv_status dv_sim_add_hooks(dv_sim *s, const dv_sim_hooks *h, dv_error *err)
{
    if (s->ran)
        return dv_error_set(err, DV_ERR_USAGE, "observers are added before the run starts");
    if (s->nhooks == DV_SIM_MAX_HOOKS)
        return dv_error_set(err, DV_ERR_USAGE, "at most %d observers of one run", DV_SIM_MAX_HOOKS);
    for (unsigned i = 0; h->pace && i < s->nhooks; i++)
        if (s->hooks[i].pace)
            return dv_error_set(err, DV_ERR_USAGE, "only one observer may pace a run");
    s->hooks[s->nhooks++] = *h;
    return DV_OK;
}

void dv_sim_remove_hooks(dv_sim *s, const void *user)
{
    if (s->running) {
        /* The cores, the clocks and the pacer hold slots by position while a
         * run goes: silence the observer's slot instead of moving the others. */
        for (unsigned i = 0; i < s->nhooks; i++)
            if (s->hooks[i].user == user)
                s->hooks[i] = (dv_sim_hooks){0};
        return;
    }
    unsigned n = 0;
    for (unsigned i = 0; i < s->nhooks; i++)
        if (s->hooks[i].user != user)
            s->hooks[n++] = s->hooks[i];
    s->nhooks = n;
}

/* ---- the counter source (dv_counters.h) over the launch's cores ---- */

static unsigned src_ncores(void *user)
{
    return ((const dv_sim *)user)->ninit;
}

static uint64_t src_read(void *user, unsigned core, dv_event_id e)
{
    const dv_sim *s = user;
    return core < s->ninit ? core_event_value(&s->cores[core], e) : 0;
}

static uint64_t src_now(void *user)
{
    return ((const dv_sim *)user)->q.now;
}

const dv_counter_source *dv_sim_counters(const dv_sim *s)
{
    return &s->counters;
}

const char *dv_stop_name(dv_stop s)
{
    static const char *const names[] = {"running",  "done",        "guest fault",
                                        "deadlock", "cycle limit", "interrupted"};
    return (unsigned)s <= DV_STOP_INTERRUPTED ? names[s] : "?";
}

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
    if (dv_gmsys_init(&s->gmsys, cfg->l2_bytes, cfg->l2_line_bytes, (unsigned)cfg->l2_ways,
                      cfg->hbm_bytes_per_cycle, cfg->l2_bw_ratio, err) != DV_OK) {
        dv_gm_destroy(s->gm);
        free(s);
        return NULL;
    }
    s->counters = (dv_counter_source){s, src_ncores, src_read, src_now};
    dv_log_init(&s->log);
    return s;
}

void dv_sim_destroy(dv_sim *s)
{
    if (!s)
        return;
    sim_runs_free(s); /* before the pool: the launches' cores join their work */
    /* the first core owns the shared .text, which the others' ops in flight
     * point into: destroy it last */
    for (unsigned i = s->ninit; i-- > 0;)
        dv_core_destroy(&s->cores[i]);
    dv_pool_destroy(s->pool); /* after the cores: each joined its work */
    dv_zfree(s->cores, (s->ncores ? s->ncores : 1) * sizeof *s->cores);
    free(s->core_ptrs);
    free(s->cc.count);
    free(s->cc.need);
    dv_evq_destroy(&s->q);
    dv_gm_destroy(s->gm);
    dv_gmsys_free(&s->gmsys);
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

bool dv_sim_core_info(const dv_sim *s, unsigned i, dv_core_info *out)
{
    if (i >= s->ninit)
        return false;
    dv_core_info_of(&s->cores[i], out);
    return true;
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

/* An observer's clock: tick, then come back a period later. */
static void on_clock(dv_event *ev, void *ctx)
{
    (void)ctx;
    hook_clock *k = (hook_clock *)((char *)ev - offsetof(hook_clock, ev));
    dv_sim *s = k->sim;
    const dv_sim_hooks *h = &s->hooks[k->hook];
    if (!h->tick) /* its observer was removed during the run */
        return;
    h->tick(h->user, s->q.now);
    k->last = s->q.now;
    dv_error err;
    if (dv_evq_schedule(&s->q, &k->ev, s->q.now + k->period, DV_PRIO_SAMPLE, &err) != DV_OK && !s->start_err)
        s->start_err = err.status;
}

/* A tick due at the last cycle of a finished run comes after the cores'
 * last events there, so the run ended before it fired: give it now. */
static void end_ticks(dv_sim *s, const dv_run_result *res)
{
    for (unsigned i = 0; res->stop == DV_STOP_DONE && res->cycles && i < s->nhooks; i++) {
        const hook_clock *k = &s->clocks[i];
        const dv_sim_hooks *h = &s->hooks[i];
        if (k->period && h->tick && res->cycles % k->period == 0 && k->last < res->cycles)
            h->tick(h->user, res->cycles);
    }
}

/* Events in the queue that are observers' clocks (they alone do not keep a
 * run alive). */
size_t sim_clocks_queued(const dv_sim *s)
{
    size_t n = 0;
    for (unsigned i = 0; i < s->nhooks; i++)
        n += dv_event_queued(&s->clocks[i].ev);
    return n;
}

/* How far an event may run ahead of the queue (dv_evq_run_ahead, the
 * Scalar unit's own instructions): to the end of the slice and the cycle
 * limit, where the front end looks, and to an observer's next tick, which
 * looks at the cores after their events of its cycle. */
void sim_set_horizon(dv_sim *s, uint64_t until, uint64_t max_cycles)
{
    uint64_t h = max_cycles && max_cycles < until ? max_cycles : until;
    for (unsigned i = 0; i < s->nhooks; i++)
        if (dv_event_queued(&s->clocks[i].ev) && s->clocks[i].ev.cycle < h)
            h = s->clocks[i].ev.cycle;
    s->q.limit = h;
}

dv_status sim_start_clocks(dv_sim *s, dv_error *err)
{
    for (unsigned i = 0; i < s->nhooks; i++) {
        const dv_sim_hooks *h = &s->hooks[i];
        hook_clock *k = &s->clocks[i];
        dv_event_init(&k->ev, on_clock);
        k->sim = s;
        k->hook = i;
        k->last = 0;
        k->period = h->period && h->tick ? h->period(h->user) : 0;
        if (k->period) {
            dv_status st = dv_evq_schedule(&s->q, &k->ev, k->period, DV_PRIO_SAMPLE, err);
            if (st != DV_OK)
                return st;
        }
    }
    return DV_OK;
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
        DV_LOG(&s->log, DV_LOG_CAT_SIM, DV_LOG_DEBUG, "core %u: block %llu starts at cycle %llu",
               c->net_index, (unsigned long long)b, (unsigned long long)cycle);
    }
    return DV_OK;
}

/* A core finished a block: when its whole group has, the group takes the
 * next block, if any (waves). */
static void on_block_done(dv_core *c, void *user)
{
    dv_sim *s = user;
    DV_LOG(&s->log, DV_LOG_CAT_SIM, DV_LOG_DEBUG, "core %u: block %llu done at cycle %llu (%llu cycles)",
           c->net_index, (unsigned long long)c->block_idx, (unsigned long long)c->q->now,
           (unsigned long long)(c->q->now - c->block_start));
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

void dv_sim_set_threads(dv_sim *s, unsigned threads)
{
    s->threads = threads;
}

unsigned sim_host_threads(unsigned setting)
{
    if (setting == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        setting = n > 0 ? (unsigned)n : 1;
    }
    return setting > DV_SIM_MAX_THREADS ? DV_SIM_MAX_THREADS : setting;
}

double dv_sim_join_wait(const dv_sim *s)
{
    return dv_pool_waited(s->pool);
}

unsigned dv_sim_threads(const dv_sim *s)
{
    return dv_pool_threads(s->pool) + 1;
}

dv_status dv_sim_start(dv_sim *s, uint64_t max_cycles, dv_error *err)
{
    if (!s->kernel)
        return dv_error_set(err, DV_ERR_USAGE, "no kernel loaded");
    if (s->ran)
        return dv_error_set(err, DV_ERR_USAGE, "this simulation has already run");
    s->ran = true;
    s->max_cycles = max_cycles;
    sim_choose_core_hooks(s);
    unsigned groups;
    plan(s, &groups, &s->group_size);
    s->ncores = groups * s->group_size;
    s->cores = dv_zalloc((s->ncores ? s->ncores : 1) * sizeof *s->cores); /* dv_core_init: zeroed */
    s->core_ptrs = calloc(s->ncores, sizeof *s->core_ptrs);
    if (!s->cores || !s->core_ptrs)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    s->anet = (core_async_net){s->core_ptrs, s->ncores, 0};
    if (s->ncores > 1 && dv_gmsys_track_owners(&s->gmsys, err) != DV_OK)
        return DV_ERR_NOMEM;
    /* The simulation's thread plus threads - 1 in the pool; no pool for a
     * timing-only run (no arithmetic), a single thread or a single core. */
    unsigned threads = sim_host_threads(s->threads);
    /* DVSIM_DEFER_WORK=1 (for tests): no thread, every product is computed
     * only when joined, so a missing join gives a wrong result at once */
    const char *env = getenv("DVSIM_DEFER_WORK");
    bool defer = env && strcmp(env, "1") == 0;
    if (defer)
        threads = 1;
    /* One core's products follow one another (each waits for the last), so
     * a single-core launch gains nothing from a thread and pays for moving
     * its buffers between host cores (measured: a third more CPU time). */
    if (s->data && ((threads > 1 && s->ncores > 1) || defer)) {
        s->pool = dv_pool_create(threads - 1);
        if (!s->pool && defer)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        /* threads that cannot be started: the work runs here, the results are the same */
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
        /* One decoded .text for the launch, core 0's: the same words decode
         * the same on every core, and 32 copies of the hot loop (224 bytes an
         * instruction) did not stay in the host's caches. */
        dv_status st = dv_core_init(c, &s->cfg, &s->q, s->gm, &s->gmsys, s->obj, s->kernel, kind, s->data,
                                    i ? &s->cores[0] : NULL, err);
        s->ninit = i + 1;
        if (st != DV_OK)
            return st;
        c->core_id = i;
        c->group = group;
        c->sub_idx = sub;
        c->sub_dim = kind == DV_KIND_AIV ? s->cfg.aiv_per_aic : 1;
        c->net_index = i;
        c->cc = s->cfg.split ? &s->cc : NULL;
        c->on_done = on_block_done;
        c->on_done_user = s;
        c->stop_seq = &s->stop_seq;
        c->hooks = s->core_hooks;
        c->async.pool = s->pool;
        c->async.net = s->pool ? &s->anet : NULL;
        dv_pmu_init(&c->pmu, &s->counters, i);
        s->core_ptrs[i] = c;
    }
    for (unsigned i = 0; i < s->nhooks; i++) {
        dv_status st = s->hooks[i].launch ? s->hooks[i].launch(s->hooks[i].user, s, err) : DV_OK;
        if (st != DV_OK)
            return st;
    }
    DV_LOG(&s->log, DV_LOG_CAT_SIM, DV_LOG_INFO,
           "launch: kernel %s (%s) on %s: %llu block%s on %u core%s%s%s", s->kernel->name,
           dv_core_type_name(s->kernel->core), s->cfg.name, (unsigned long long)s->block_dim,
           s->block_dim == 1 ? "" : "s", s->ncores, s->ncores == 1 ? "" : "s",
           s->block_dim > groups ? " (in waves)" : "", s->data ? "" : ", timing only");
    for (unsigned g = 0; g < groups; g++) {
        dv_status st = start_group(s, g, s->next_block++, 0, err);
        if (st != DV_OK)
            return st;
    }
    dv_status st = sim_start_clocks(s, err);
    if (st != DV_OK)
        return st;
    s->running = true;
    return DV_OK;
}

/* Where core c is: the Scalar unit's pc and each pipe's instruction in
 * progress, with their source lines, appended to buf (of size, n used). */
static size_t where(const dv_core *c, unsigned i, char *buf, size_t size, size_t n)
{
    char src[300];
    if (n < size)
        n += (size_t)snprintf(buf + n, size - n, " core %u: %s%s at pc 0x%llx (%s)", i,
                              dv_pipe_trace_name(DV_PIPE_S), c->ended ? " ended, last" : "",
                              (unsigned long long)c->pc, dv_obj_source_of(c->obj, c->pc, src, sizeof src));
    for (int p = DV_PIPE_V; p < DV_PIPE_COUNT && n < size; p++) {
        const dv_pipe_state *ps = &c->pipes[p];
        if (!ps->count)
            continue;
        const dv_op *op = &ps->queue[ps->head];
        n += (size_t)snprintf(buf + n, size - n, ", %s at pc 0x%llx (%s)", dv_pipe_trace_name(ps->id),
                              (unsigned long long)op->pc, dv_obj_source_of(c->obj, op->pc, src, sizeof src));
    }
    return n < size ? n : size;
}

/* Stops every core still running with `why` at the cycle `at`.  Each
 * core's message says where it was; the first one's (the run's message)
 * names every core still running, as far as it has room. */
static void stop_running(dv_sim *s, dv_stop why, uint64_t at)
{
    dv_core *first = NULL;
    size_t fn = 0;
    unsigned listed = 0, running = 0;
    for (unsigned i = 0; i < s->ncores; i++) {
        dv_core *c = &s->cores[i];
        if (c->stop != DV_STOP_NONE)
            continue;
        c->stop = why;
        c->end_cycle = at;
        size_t n = (size_t)snprintf(
            c->stop_msg, sizeof c->stop_msg,
            "%s %llu:", why == DV_STOP_LIMIT ? "stopped at the cycle limit" : "interrupted at cycle",
            (unsigned long long)at);
        n = where(c, i, c->stop_msg, sizeof c->stop_msg, n);
        running++;
        if (!first) {
            first = c;
            fn = n;
            listed = 1;
        } else if (fn + 200 < sizeof first->stop_msg) {
            fn = where(c, i, first->stop_msg, sizeof first->stop_msg,
                       fn + (size_t)snprintf(first->stop_msg + fn, sizeof first->stop_msg - fn, ";"));
            listed++;
        }
        if (!s->stopped)
            s->stopped = c;
    }
    if (first && running > listed)
        snprintf(first->stop_msg + fn, sizeof first->stop_msg - fn, "; and %u more cores", running - listed);
}

/* The run stops right after its last event: what the Scalar units ran
 * ahead of it is undone (core_scalar_rewind). */
static void rewind_cores(dv_sim *s)
{
    for (unsigned i = 0; i < s->ncores; i++)
        core_scalar_rewind(&s->cores[i]);
}

/* The cycle the run has reached: its last event, or the end of the last
 * slice it was advanced through without events. */
static uint64_t reached(const dv_sim *s)
{
    return s->horizon > s->q.now ? s->horizon : s->q.now;
}

bool dv_sim_advance(dv_sim *s, uint64_t until, dv_error *err)
{
    if (s->runs)
        return sim_runs_advance(s, until, err);
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
            if (s->stopped)
                rewind_cores(s); /* the run stops right after the fault */
            if (s->stopped || done == s->ncores)
                break;
        }
        if (s->start_err)
            break;
        uint64_t next = dv_evq_next_cycle(&s->q);
        /* the observers' clocks alone do not keep a run alive */
        if (s->q.count <= s->nhooks && s->q.count == sim_clocks_queued(s)) /* cheap test first: every event */
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
            rewind_cores(s);
            stop_running(s, DV_STOP_INTERRUPTED, reached(s));
            break;
        }
        if (next > until) {
            if (until > s->horizon)
                s->horizon = until; /* nothing happens up to `until` */
            for (unsigned i = 0; i < s->ncores; i++)
                core_async_join(&s->cores[i]); /* the front end may look at the buffers */
            return true;
        }
        sim_set_horizon(s, until, s->max_cycles);
        dv_evq_step(&s->q);
    }
    s->running = false;
    if (s->start_err)
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    return false;
}

/* The outcome, to the log: every core that faulted or deadlocked, the cycle
 * limit or an interruption, and the end. */
static void log_outcome(const dv_sim *s, const dv_run_result *res)
{
    const dv_log *log = &s->log;
    for (unsigned i = 0; i < s->ncores && dv_log_enabled(log, DV_LOG_CAT_SIM, DV_LOG_WARN); i++) {
        const dv_core *c = &s->cores[i];
        if (c->stop == DV_STOP_FAULT || c->stop == DV_STOP_DEADLOCK)
            dv_log_emit(log, DV_LOG_CAT_SIM, DV_LOG_WARN, "%s: %s", dv_stop_name(c->stop), c->stop_msg);
    }
    if (res->stop == DV_STOP_LIMIT)
        DV_LOG(log, DV_LOG_CAT_SIM, DV_LOG_WARN, "%s", res->message);
    else if (res->stop == DV_STOP_INTERRUPTED)
        DV_LOG(log, DV_LOG_CAT_SIM, DV_LOG_INFO, "%s", res->message);
    DV_LOG(log, DV_LOG_CAT_SIM, DV_LOG_INFO, "end: %s after %llu cycles", dv_stop_name(res->stop),
           (unsigned long long)res->cycles);
}

dv_status dv_sim_finish(dv_sim *s, dv_run_result *res, dv_error *err)
{
    if (s->runs)
        return sim_runs_finish(s, res, err);
    if (!s->ran || !s->cores)
        return dv_error_set(err, DV_ERR_USAGE, "the simulation has not started");
    if (s->running) { /* the front end stopped before the end */
        stop_running(s, DV_STOP_INTERRUPTED, reached(s));
        s->running = false;
    }
    if (s->start_err)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    dv_core *stopped = s->stopped;
    for (unsigned i = 0; i < s->nhooks; i++)
        dv_evq_cancel(&s->q, &s->clocks[i].ev);
    memset(res, 0, sizeof *res);
    for (unsigned i = 0; i < s->ncores; i++) {
        dv_core *c = &s->cores[i];
        core_async_join(c); /* every result in place before the run ends */
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
    end_ticks(s, res);
    for (unsigned i = 0; i < s->nhooks; i++)
        if (s->hooks[i].end)
            s->hooks[i].end(s->hooks[i].user, res->cycles, res->stop == DV_STOP_DONE);
    res->message = stopped ? stopped->stop_msg : "";
    res->stats = &s->cores[0].stats;
    res->ncores = s->ncores;
    res->block_dim = s->block_dim;
    res->launch_cycles = s->cfg.launch_cycles;
    log_outcome(s, res);
    return DV_OK;
}

dv_status dv_sim_run(dv_sim *s, uint64_t max_cycles, dv_run_result *res, dv_error *err)
{
    dv_status st = dv_sim_start(s, max_cycles, err);
    if (st != DV_OK)
        return st;
    const dv_sim_hooks *pacer = NULL;
    for (unsigned i = 0; i < s->nhooks; i++)
        if (s->hooks[i].pace)
            pacer = &s->hooks[i];
    if (!pacer) {
        dv_sim_advance(s, UINT64_MAX, err);
    } else {
        /* the front end takes over between slices (dv_sim_hooks.pace) */
        while (dv_sim_advance(s, pacer->pace ? pacer->pace(pacer->user, s) : UINT64_MAX, err))
            ; /* (a pacer removed during the run lets it go to the end) */
    }
    return dv_sim_finish(s, res, err);
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

const volatile sig_atomic_t *dv_sim_interrupt_flag(const dv_sim *s)
{
    return s->interrupt_flag;
}

bool dv_sim_interrupted(const dv_sim *s)
{
    return s->interrupt || (s->interrupt_flag && *s->interrupt_flag);
}

void dv_sim_interrupt(dv_sim *s)
{
    s->interrupt = true;
}

void dv_sim_set_log(dv_sim *s, dv_log_sink_fn sink, void *user)
{
    dv_log_set_sink(&s->log, sink, user);
}

void dv_sim_set_log_level(dv_sim *s, dv_log_cat cat, dv_log_level level)
{
    dv_log_set_level(&s->log, cat, level);
}
