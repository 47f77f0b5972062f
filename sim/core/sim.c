/* sim.c - a launch of a kernel's blocks over the chip's cores. */
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
    bool ran;
    dv_status start_err;
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
    if (k->core == DV_CORE_MIX)
        return dv_error_set(err, DV_ERR_INPUT,
                            "kernel '%s' is a mix kernel (AIC with its AIVs): not modelled yet", k->name);
    s->obj = obj;
    s->kernel = k;
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

/* A core finished a block: give it the next one, if any. */
static void on_block_done(dv_core *c, void *user)
{
    dv_sim *s = user;
    if (s->next_block >= s->block_dim)
        return;
    dv_error err;
    if (dv_core_start_block(c, s->next_block++, s->block_dim, s->args, c->q->now, &err) != DV_OK)
        s->start_err = DV_ERR_NOMEM;
}

/* The cores of the kernel's type on this chip. */
static uint64_t cores_for(const dv_sim *s)
{
    if (s->cfg.split && s->kernel->core == DV_CORE_AIV)
        return s->cfg.cores * s->cfg.aiv_per_aic;
    return s->cfg.cores;
}

dv_status dv_sim_run(dv_sim *s, uint64_t max_cycles, dv_run_result *res, dv_error *err)
{
    if (!s->kernel)
        return dv_error_set(err, DV_ERR_USAGE, "no kernel loaded");
    if (s->ran)
        return dv_error_set(err, DV_ERR_USAGE, "this simulation has already run");
    s->ran = true;
    uint64_t avail = cores_for(s);
    s->ncores = (unsigned)(s->block_dim < avail ? s->block_dim : avail);
    s->cores = calloc(s->ncores, sizeof *s->cores);
    if (!s->cores)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    for (unsigned i = 0; i < s->ncores; i++) {
        dv_core *c = &s->cores[i];
        dv_status st = dv_core_init(c, &s->cfg, &s->q, s->gm, s->obj, s->kernel, s->data, err);
        s->ninit = i + 1;
        if (st != DV_OK)
            return st;
        c->core_id = i;
        c->gmsys = &s->gmsys;
        c->on_done = on_block_done;
        c->on_done_user = s;
    }
    for (unsigned i = 0; i < s->ncores; i++) {
        dv_status st = dv_core_start_block(&s->cores[i], s->next_block++, s->block_dim, s->args, 0, err);
        if (st != DV_OK)
            return st;
    }
    dv_core *stopped = NULL;
    for (;;) {
        unsigned done = 0;
        for (unsigned i = 0; i < s->ncores && !stopped; i++) {
            dv_stop st = s->cores[i].stop;
            if (st == DV_STOP_DONE)
                done++;
            else if (st != DV_STOP_NONE)
                stopped = &s->cores[i];
        }
        if (stopped || done == s->ncores || s->start_err)
            break;
        uint64_t next = dv_evq_next_cycle(&s->q);
        if (next == UINT64_MAX) {
            for (unsigned i = 0; i < s->ncores; i++) {
                if (s->cores[i].stop == DV_STOP_NONE) {
                    dv_core_diagnose_deadlock(&s->cores[i]);
                    if (!stopped)
                        stopped = &s->cores[i];
                }
            }
            break;
        }
        if (max_cycles && next > max_cycles) {
            for (unsigned i = 0; i < s->ncores; i++) {
                dv_core *c = &s->cores[i];
                if (c->stop == DV_STOP_NONE) {
                    c->stop = DV_STOP_LIMIT;
                    c->end_cycle = max_cycles;
                    snprintf(c->stop_msg, sizeof c->stop_msg,
                             "stopped at the cycle limit %llu (core %u, pc 0x%llx)",
                             (unsigned long long)max_cycles, i, (unsigned long long)c->pc);
                    if (!stopped)
                        stopped = c;
                }
            }
            break;
        }
        dv_evq_step(&s->q);
    }
    if (s->start_err)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
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
    res->message = stopped ? stopped->stop_msg : "";
    res->stats = &s->cores[0].stats;
    res->ncores = s->ncores;
    res->block_dim = s->block_dim;
    res->launch_cycles = s->cfg.launch_cycles;
    return DV_OK;
}
