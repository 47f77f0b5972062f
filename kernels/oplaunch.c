/* oplaunch.c - the launches of an operator run (dv_operator.h): each one
 * in its own simulation of the chip, GM carried over, and each launch's
 * figures recorded for the run's totals (dv_opr_totals). */
#include "dv_operator.h"
#include "dv_stats.h"

#include <stdio.h>
#include <string.h>

/* The GM bytes a finished launch moved, over every core it used. */
static void record_launch(dv_opr_run *r, const dv_run_result *res)
{
    dv_opr_launch *l = &r->launch[r->nlaunched++];
    const dv_obj_kernel *k = dv_sim_kernel(r->sim);
    *l = (dv_opr_launch){.cycles = res->cycles,
                         .launch_cycles = res->launch_cycles,
                         .block_dim = res->block_dim,
                         .ncores = res->ncores};
    snprintf(l->kernel, sizeof l->kernel, "%s", k ? k->name : "?");
    /* A coupled core has both units; on a split chip an AIC launch has no
     * Vector unit, an AIV launch no Cube, and a mix launch's ncores counts
     * an AIC and its AIVs. */
    l->cube_cores = l->vec_cores = res->ncores;
    if (r->cfg->split && k && k->core == DV_CORE_AIC)
        l->vec_cores = 0;
    else if (r->cfg->split && k && k->core == DV_CORE_AIV)
        l->cube_cores = 0;
    else if (r->cfg->split && k && k->core == DV_CORE_MIX) {
        l->cube_cores = res->ncores / (double)(1 + r->cfg->aiv_per_aic);
        l->vec_cores = res->ncores - l->cube_cores;
    }
    for (unsigned i = 0; i < res->ncores; i++) {
        dv_core_info c;
        if (!dv_sim_core_info(r->sim, i, &c))
            continue;
        const dv_core_stats *cs = c.stats;
        l->gm_read += cs->buf_read[DV_MEM_GM];
        l->gm_write += cs->buf_write[DV_MEM_GM];
        l->hbm_bytes += cs->l2.fill_bytes + cs->l2.writeback_bytes;
        l->l2_read_hits += cs->l2.read_hits;
        l->l2_read_misses += cs->l2.read_misses;
        l->l2_write_hits += cs->l2.write_hits;
        l->l2_write_misses += cs->l2.write_misses;
        for (int p = 0; p < DV_PATH_COUNT; p++)
            l->path_bytes[p] += cs->path_bytes[p];
        for (int p = 0; p < DV_PIPE_COUNT; p++)
            l->insns += cs->pipe[p].insns;
        l->macs += cs->cube_macs;
    }
    /* The utilisations as dv_stats_collect defines them (one definition):
     * the launch's chip.* figures, read back. */
    dv_stat_list st;
    if (dv_stats_collect(r->sim, res, &st, NULL) == DV_OK) {
        const dv_stat *v;
        l->cube_avg_pct = (v = dv_stats_find(&st, "chip.cube.utilisation_avg_pct")) ? v->value : 0;
        l->cube_max_pct = (v = dv_stats_find(&st, "chip.cube.utilisation_max_pct")) ? v->value : 0;
        l->vec_avg_pct = (v = dv_stats_find(&st, "chip.vector.utilisation_avg_pct")) ? v->value : 0;
        l->vec_max_pct = (v = dv_stats_find(&st, "chip.vector.utilisation_max_pct")) ? v->value : 0;
        l->load_imbalance = (v = dv_stats_find(&st, "chip.load_imbalance")) ? v->value : 1;
    }
    dv_stats_free(&st);
}

/* The next launch's simulation: the same chip, every tensor at the same GM
 * address with the bytes the last launch left (a launch boundary passes
 * nothing else on: the buffers, the L2 and the flags start afresh). */
static dv_status next_sim(dv_opr_run *r, dv_error *err)
{
    dv_sim *s = dv_sim_create(r->cfg, r->data, err);
    if (!s)
        return err->status;
    dv_sim_set_threads(s, r->sim_threads);
    for (unsigned i = 0; i < r->ntensors; i++) {
        uint64_t addr;
        dv_status st = dv_gm_alloc(dv_sim_gm(s), r->t[i].bytes, &addr, err);
        if (st == DV_OK && addr != r->t[i].addr)
            st = dv_error_set(err, DV_ERR_INTERNAL, "%s: tensor %s moved in GM between launches", r->op->name,
                              r->t[i].name);
        if (st != DV_OK) {
            dv_sim_destroy(s);
            return st;
        }
        if (r->data) {
            dv_access_fault f;
            memcpy(dv_gm_span(dv_sim_gm(s), addr, r->t[i].bytes, &f), dv_opr_gm(r, i), (size_t)r->t[i].bytes);
        }
    }
    /* The old simulation runs no more; its kernel object goes with the next
     * dv_opr_use_kernel. */
    dv_sim_set_interrupt_flag(s, dv_sim_interrupt_flag(r->sim)); /* a stop signal stops every launch */
    dv_sim_destroy(r->sim);
    r->sim = s;
    return DV_OK;
}

dv_status dv_opr_run_launches(dv_opr_run *r, uint64_t max_cycles, dv_run_result *res, dv_error *err)
{
    for (unsigned i = r->nlaunched; i < r->launches; i++) {
        dv_status st;
        if (i > 0 && ((st = next_sim(r, err)) != DV_OK || (st = r->op->next_launch(r, i, err)) != DV_OK))
            return st;
        if (r->launch_begin && (st = r->launch_begin(r->launch_user, r, err)) != DV_OK)
            return st;
        if ((st = dv_sim_run(r->sim, max_cycles, res, err)) != DV_OK)
            return st;
        if (r->launch_end)
            r->launch_end(r->launch_user, r, res);
        record_launch(r, res);
        if (res->stop != DV_STOP_DONE)
            break;
    }
    return DV_OK;
}

void dv_opr_totals(const dv_opr_run *r, dv_opr_launch *sum)
{
    *sum = (dv_opr_launch){.block_dim = 0};
    snprintf(sum->kernel, sizeof sum->kernel, "%u launch%s", r->nlaunched, r->nlaunched == 1 ? "" : "es");
    for (unsigned i = 0; i < r->nlaunched; i++) {
        const dv_opr_launch *l = &r->launch[i];
        sum->cycles += l->cycles;
        sum->launch_cycles += l->launch_cycles;
        sum->gm_read += l->gm_read;
        sum->gm_write += l->gm_write;
        sum->block_dim += l->block_dim;
        sum->ncores = l->ncores > sum->ncores ? l->ncores : sum->ncores;
        sum->cube_cores = l->cube_cores > sum->cube_cores ? l->cube_cores : sum->cube_cores;
        sum->vec_cores = l->vec_cores > sum->vec_cores ? l->vec_cores : sum->vec_cores;
        sum->hbm_bytes += l->hbm_bytes;
        sum->l2_read_hits += l->l2_read_hits;
        sum->l2_read_misses += l->l2_read_misses;
        sum->l2_write_hits += l->l2_write_hits;
        sum->l2_write_misses += l->l2_write_misses;
        for (int p = 0; p < DV_PATH_COUNT; p++)
            sum->path_bytes[p] += l->path_bytes[p];
        sum->macs += l->macs;
        sum->insns += l->insns;
        /* utilisations over the run's cycles: each launch's weighted by its
         * own (a launch on cores without the unit adds none) */
        double w = (double)l->cycles;
        sum->cube_avg_pct += l->cube_avg_pct * w;
        sum->vec_avg_pct += l->vec_avg_pct * w;
        /* the busiest core of any launch, over that launch's cycles */
        sum->cube_max_pct = l->cube_max_pct > sum->cube_max_pct ? l->cube_max_pct : sum->cube_max_pct;
        sum->vec_max_pct = l->vec_max_pct > sum->vec_max_pct ? l->vec_max_pct : sum->vec_max_pct;
        sum->load_imbalance =
            l->load_imbalance > sum->load_imbalance ? l->load_imbalance : sum->load_imbalance;
    }
    double total = sum->cycles ? (double)sum->cycles : 1;
    sum->cube_avg_pct /= total;
    sum->vec_avg_pct /= total;
}
