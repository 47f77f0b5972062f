/* sim.c - a simulation of one core running one kernel. */
#include "dv_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dv_sim {
    dv_chip_config cfg;
    bool data;
    dv_evq q;
    dv_gm *gm;
    const dv_obj *obj;
    const dv_obj_kernel *kernel;
    uint64_t args[DV_MAX_KERNEL_ARGS];
    dv_core core;
    bool core_ready;
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
    dv_evq_init(&s->q, s);
    s->gm = dv_gm_create(cfg->gm_bytes);
    if (!s->gm) {
        free(s);
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return s;
}

void dv_sim_destroy(dv_sim *s)
{
    if (!s)
        return;
    if (s->core_ready)
        dv_core_destroy(&s->core);
    dv_evq_destroy(&s->q);
    dv_gm_destroy(s->gm);
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

const dv_core *dv_sim_core(const dv_sim *s)
{
    return s->core_ready ? &s->core : NULL;
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

dv_status dv_sim_set_arg(dv_sim *s, unsigned index, uint64_t value, dv_error *err)
{
    if (index >= DV_MAX_KERNEL_ARGS)
        return dv_error_set(err, DV_ERR_USAGE, "argument index %u out of range", index);
    s->args[index] = value;
    return DV_OK;
}

dv_status dv_sim_run(dv_sim *s, uint64_t max_cycles, dv_run_result *res, dv_error *err)
{
    if (!s->kernel)
        return dv_error_set(err, DV_ERR_USAGE, "no kernel loaded");
    if (s->core_ready)
        return dv_error_set(err, DV_ERR_USAGE, "this simulation has already run");
    dv_status st = dv_core_init(&s->core, &s->cfg, &s->q, s->gm, s->obj, s->kernel, s->data, err);
    s->core_ready = true;
    if (st != DV_OK)
        return st;
    for (unsigned i = 0; i < DV_MAX_KERNEL_ARGS; i++)
        s->core.regs[DV_ARG_REG_BASE + i] = s->args[i];
    st = dv_core_start(&s->core, 0, err);
    if (st != DV_OK)
        return st;
    dv_core *c = &s->core;
    while (c->stop == DV_STOP_NONE) {
        uint64_t next = dv_evq_next_cycle(&s->q);
        if (next == UINT64_MAX) {
            dv_core_diagnose_deadlock(c);
            break;
        }
        if (max_cycles && next > max_cycles) {
            c->stop = DV_STOP_LIMIT;
            c->end_cycle = max_cycles;
            snprintf(c->stop_msg, sizeof c->stop_msg, "stopped at the cycle limit %llu (pc 0x%llx)",
                     (unsigned long long)max_cycles, (unsigned long long)c->pc);
            break;
        }
        dv_evq_step(&s->q);
    }
    if (c->stop != DV_STOP_DONE)
        dv_core_close_stats(c);
    res->stop = c->stop;
    res->cycles = c->end_cycle;
    res->message = c->stop_msg;
    res->stats = &c->stats;
    return DV_OK;
}
