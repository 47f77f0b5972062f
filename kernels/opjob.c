/* opjob.c - the operator driver (dv_opjob.h). */
#include "dv_opjob.h"
#include "refgemm.h"

#include <math.h>
#include <string.h>
#include <time.h>

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double clock_seconds(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_seconds(void)
{
    return clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

/* The operator's figures in the statistics: op.* */
static void add_operator_stats(dv_opjob_result *o)
{
    const dv_opr_run *r = o->run;
    const dv_opr_check *c = &r->check;
    dv_stat_list *l = &o->stats;
    dv_stats_add(l, "bool",
                 "1: the outputs matched the reference (0: a mismatch, nothing compared or not checked)",
                 dv_opr_check_passed(c), true, "op.check_passed");
    dv_stats_add(l, "elements", "output elements compared with the reference", (double)c->compared, true,
                 "op.check_compared");
    dv_stats_add(l, "elements", "output elements outside the tolerance", (double)c->mismatches, true,
                 "op.check_mismatches");
    dv_stats_add(l, "", "largest absolute error", c->max_abs, false, "op.max_abs_err");
    dv_stats_add(l, "", "largest relative error", c->max_rel, false, "op.max_rel_err");
    dv_stats_add(l, "blocks", "block_dim chosen by the tiling", (double)r->block_dim, true, "op.block_dim");
    dv_stats_add(l, "launches", "kernel launches of the operator run", (double)r->nlaunched, true,
                 "op.launches");
    dv_stats_add(l, "cycles", "core cycles summed over the launches", (double)o->total.cycles, true,
                 "op.total_cycles");
    dv_stats_add(l, "bytes", "GM -> core bytes summed over the launches", (double)o->total.gm_read, true,
                 "op.gm_read_bytes");
    dv_stats_add(l, "bytes", "core -> GM bytes summed over the launches", (double)o->total.gm_write, true,
                 "op.gm_write_bytes");
    for (unsigned i = 0; i < r->nplan; i++)
        dv_stats_add(l, "", r->plan[i].doc, r->plan[i].v, r->plan[i].v == floor(r->plan[i].v), "op.plan.%s",
                     r->plan[i].key);
    dv_stats_add(l, "cycles", "operator roofline: least cycles of its limiting resource",
                 o->roof.bound_cycles, false, "op.roofline.bound_cycles");
    dv_stats_add(l, "%", "operator roofline bound / actual cycles", 100.0 * o->roof.achieved, false,
                 "op.roofline.achieved_pct");
}

/* Replaces the value and the description of a statistic of the list. */
static void restate(dv_stat_list *l, const char *name, double v, const char *desc)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->items[i].name, name) == 0) {
            l->items[i].value = v;
            l->items[i].desc = desc;
        }
}

/* A run of several launches (split-K's product and reduction, conv2d's
 * unfused bias and ReLU): the chip.* figures dv_stats_collect gave for the
 * last launch become the run's, every launch summed (bytes, hits, cycles
 * and overheads, blocks) or over every launch's cycles (rates,
 * utilisations); each launch's own figures stay as op.launch<i>.*.  The
 * core<i>.* figures remain the last launch's. */
static void total_chip_stats(dv_opjob_result *o, const dv_chip_config *cfg)
{
    const dv_opr_run *r = o->run;
    dv_stat_list *l = &o->stats;
    const dv_opr_launch *t = &o->total;
    if (r->nlaunched > 1) {
        double hz = (double)cfg->clock_mhz * 1e6, cyc = t->cycles ? (double)t->cycles : 1;
        double secs = cyc / hz, gm = (double)(t->gm_read + t->gm_write), hbm = (double)t->hbm_bytes;
        double rl = (double)(t->l2_read_hits + t->l2_read_misses),
               wl = (double)(t->l2_write_hits + t->l2_write_misses);
        restate(l, "chip.cycles", (double)t->cycles,
                "core cycles of every launch, summed (op.launch<i>.cycles)");
        restate(l, "chip.launch_cycles", (double)t->launch_cycles, "every launch's overhead, summed");
        restate(l, "chip.time_us", ((double)t->cycles + (double)t->launch_cycles) / hz * 1e6,
                "every launch's overhead plus run time at the chip clock");
        restate(l, "chip.blocks", (double)t->block_dim, "blocks launched, summed over the launches");
        restate(l, "chip.cores_used", (double)t->ncores, "the most cores a launch ran blocks on");
        restate(l, "chip.cube.utilisation_avg_pct", t->cube_avg_pct,
                "mean Cube utilisation of the cores with a Cube over every launch's cycles");
        restate(l, "chip.cube.utilisation_max_pct", t->cube_max_pct,
                "the busiest core's Cube utilisation in any launch, over that launch's cycles");
        restate(l, "chip.vector.utilisation_avg_pct", t->vec_avg_pct,
                "mean Vector busy time of the cores with a Vector unit over every launch's cycles");
        restate(l, "chip.vector.utilisation_max_pct", t->vec_max_pct,
                "the busiest core's Vector busy time in any launch, over that launch's cycles");
        restate(l, "chip.gm.bytes", gm, "bytes read from and written to GM by all cores, every launch");
        restate(l, "chip.gm.gbps", gm / secs / 1e9, "GM bytes / run time, every launch");
        restate(l, "chip.hbm.bytes", hbm, "HBM traffic of every launch: L2 line fills and write-backs");
        restate(l, "chip.hbm.gbps", hbm / secs / 1e9, "HBM traffic / run time, every launch");
        restate(l, "chip.hbm.utilisation_pct", 100.0 * hbm / cyc / (double)cfg->hbm_bytes_per_cycle,
                "HBM traffic / HBM peak, every launch");
        restate(l, "chip.l2.read_hit_pct", rl > 0 ? 100.0 * (double)t->l2_read_hits / rl : 0,
                "L2 read hits / reads (lines), every launch");
        restate(l, "chip.l2.write_hit_pct", wl > 0 ? 100.0 * (double)t->l2_write_hits / wl : 0,
                "L2 write hits / writes (lines), every launch");
        restate(l, "chip.load_imbalance", t->load_imbalance, "the most imbalanced launch's load imbalance");
    }
    for (unsigned i = 0; i < r->nlaunched; i++) {
        const dv_opr_launch *x = &r->launch[i];
        double rl = (double)(x->l2_read_hits + x->l2_read_misses);
        dv_stats_add(l, "cycles", "this launch's core cycles", (double)x->cycles, true, "op.launch%u.cycles",
                     i);
        dv_stats_add(l, "cycles", "this launch's overhead", (double)x->launch_cycles, true,
                     "op.launch%u.launch_cycles", i);
        dv_stats_add(l, "blocks", "this launch's block_dim", (double)x->block_dim, true, "op.launch%u.blocks",
                     i);
        dv_stats_add(l, "bytes", "this launch's GM bytes read and written",
                     (double)(x->gm_read + x->gm_write), true, "op.launch%u.gm_bytes", i);
        dv_stats_add(l, "bytes", "this launch's HBM traffic (L2 fills and write-backs)", (double)x->hbm_bytes,
                     true, "op.launch%u.hbm_bytes", i);
        dv_stats_add(l, "%", "this launch's L2 read hits / reads (lines)",
                     rl > 0 ? 100.0 * (double)x->l2_read_hits / rl : 0, false, "op.launch%u.l2_read_hit_pct",
                     i);
        dv_stats_add(l, "MACs", "this launch's Cube multiply-accumulates", (double)x->macs, true,
                     "op.launch%u.cube_macs", i);
        dv_stats_add(l, "count", "this launch's instructions, every pipe of every core", (double)x->insns,
                     true, "op.launch%u.instructions", i);
        dv_stats_add(l, "%", "this launch's mean Cube utilisation (chip.cube.utilisation_avg_pct)",
                     x->cube_avg_pct, false, "op.launch%u.cube_utilisation_avg_pct", i);
        dv_stats_add(l, "%", "this launch's mean Vector busy time (chip.vector.utilisation_avg_pct)",
                     x->vec_avg_pct, false, "op.launch%u.vector_utilisation_avg_pct", i);
    }
}

/* The figures regress pins and bench reports: every launch's. */
static void figures(dv_opjob_result *o)
{
    const dv_stat *cube = dv_stats_find(&o->stats, "chip.cube.utilisation_avg_pct");
    const dv_stat *vec = dv_stats_find(&o->stats, "chip.vector.utilisation_avg_pct");
    o->cube_pct = cube ? cube->value : 0;
    o->vector_pct = vec ? vec->value : 0;
    memcpy(o->path_bytes, o->total.path_bytes, sizeof o->path_bytes);
    o->insns = o->total.insns;
    o->macs = o->total.macs;
    o->cycles = o->total.cycles;
}

/* The Cube's side of a roofline of the runs (dvsim sweep, python/dvsim/plot.py):
 * its MACs and the FLOP rate they make over the run's cycles (every
 * launch's core cycles, chip.cycles), next to the chip's fp16 peak (the roof). */
static void add_cube_stats(dv_opjob_result *o, const dv_chip_config *cfg)
{
    const dv_stat *cyc = dv_stats_find(&o->stats, "chip.cycles");
    double secs = cyc && cfg->clock_mhz ? cyc->value / ((double)cfg->clock_mhz * 1e6) : 0;
    dv_stats_add(&o->stats, "MACs", "Cube multiply-accumulates of every launch", (double)o->macs, true,
                 "op.cube_macs");
    dv_stats_add(&o->stats, "TFLOPS", "Cube FLOP rate: 2 x MACs / every launch's core cycles (chip.cycles)",
                 secs > 0 ? 2.0 * (double)o->macs / secs / 1e12 : 0, false, "op.cube_tflops");
    dv_stats_add(&o->stats, "TFLOPS", "the chip's fp16 Cube peak (the roof)",
                 dv_config_peak_fp16_flops(cfg) / 1e12, false, "op.peak_fp16_tflops");
}

dv_status dv_opjob_run(const dv_opjob *job, dv_opjob_result *out, dv_error *err)
{
    memset(out, 0, sizeof *out);
    double t0 = now_seconds(), c0 = cpu_seconds();
    dv_status st = dv_opr_create(job->op, &job->req, job->cfg, job->data, &out->run, err);
    out->fill_seconds = now_seconds() - t0;
    out->fill_cpu = cpu_seconds() - c0;
    if (st != DV_OK)
        return st;
    dv_opr_run *r = out->run;
    dv_opr_set_threads(r, ref_threads()); /* the check's threads (dvsim run --threads) */
    r->launch_begin = job->launch_begin;
    r->launch_end = job->launch_end;
    r->launch_user = job->launch_user;
    if (job->before && (st = job->before(job->user, r, err)) != DV_OK)
        return st;
    if ((st = dv_opr_before_run(r, err)) != DV_OK)
        return st;
    t0 = now_seconds();
    c0 = cpu_seconds();
    double th0 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    if ((st = dv_opr_run_launches(r, job->max_cycles, &out->res, err)) != DV_OK)
        return st;
    out->sim_seconds = now_seconds() - t0;
    out->sim_cpu = cpu_seconds() - c0;
    out->sim_thread_cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - th0;
    out->sim_threads = dv_sim_threads(dv_opr_sim(r));
    out->sim_join_wait = dv_sim_join_wait(dv_opr_sim(r));
    if (out->res.stop == DV_STOP_DONE && !job->no_check) {
        if (job->checking)
            job->checking(job->user, r);
        t0 = now_seconds();
        c0 = cpu_seconds();
        if ((st = dv_opr_check_outputs(r, err)) != DV_OK)
            return st;
        out->check_seconds = now_seconds() - t0;
        out->check_cpu = cpu_seconds() - c0;
    }
    out->checked = r->check.done;
    out->passed = dv_opr_check_passed(&r->check);
    dv_opr_totals(r, &out->total);
    dv_opr_roofline_of(r, &out->res, &out->roof);
    if ((st = dv_stats_collect(dv_opr_sim(r), &out->res, &out->stats, err)) != DV_OK)
        return st;
    total_chip_stats(out, job->cfg);
    add_operator_stats(out);
    figures(out);
    add_cube_stats(out, job->cfg);
    return DV_OK;
}

void dv_opjob_free(dv_opjob_result *out)
{
    dv_stats_free(&out->stats);
    dv_opr_destroy(out->run);
    memset(out, 0, sizeof *out);
}
