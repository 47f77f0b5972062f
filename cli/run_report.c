/* run_report.c - what dvsim run prints after a simulation. */
#include "run_report.h"

#include "cli.h"
#include "dv_sim_perf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The value of core<i>.<suffix>, or of chip.<suffix> when i is RUN_CHIP. */
double run_stat(const dv_stat_list *l, unsigned i, const char *suffix)
{
    char name[64];
    if (i == RUN_CHIP)
        snprintf(name, sizeof name, "chip.%s", suffix);
    else
        snprintf(name, sizeof name, "core%u.%s", i, suffix);
    const dv_stat *st = dv_stats_find(l, name);
    return st ? st->value : 0.0;
}

static void print_core(const dv_chip_config *cfg, const dv_run_result *res, const dv_core_stats *s,
                       const dv_stat_list *l)
{
    printf("\n%-8s %12s %7s %10s %12s %12s\n", "pipe", "busy cyc", "busy%", "insns", "wait cyc",
           "q-full cyc");
    for (int p = 0; p < DV_PIPE_COUNT; p++) {
        if (cfg->split && p == DV_PIPE_V && !s->pipe[p].insns)
            continue;
        printf("%-8s %12" PRIu64 " %6.1f%% %10" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
               dv_pipe_trace_name((dv_pipe)p), s->pipe[p].busy_cycles,
               res->cycles ? 100.0 * (double)s->pipe[p].busy_cycles / (double)res->cycles : 0.0,
               s->pipe[p].insns, s->pipe[p].wait_cycles, s->pipe[p].full_cycles);
    }
    printf("\ncube:   %" PRIu64 " MACs in %" PRIu64 " fractals, %.1f%% of the peak (%.0f fp16, %.0f int8",
           s->cube_macs, s->cube_fractals, run_stat(l, 0, "cube.utilisation_pct"),
           dv_config_core_macs_fp16(cfg), dv_config_core_macs_int8(cfg));
    if (s->cube_macs_f32) /* only runs with f32 mmads: the others' report is unchanged */
        printf(", %.0f fp32", dv_config_core_macs_fp32(cfg));
    printf(" MAC/cycle)\n");
    printf("vector: %" PRIu64 " element ops in %" PRIu64 " repeats, busy %.1f%%; UB conflicts %" PRIu64
           " bank-group + %" PRIu64 " bank cycles\n",
           s->vec_elem_ops, s->vec_repeats, run_stat(l, 0, "vector.utilisation_pct"),
           s->ub_group_conflict_cycles, s->ub_bank_conflict_cycles);
    printf("\n%-9s %12s %10s %9s %10s %7s\n", "path", "bytes", "B/cycle", "GB/s", "peak B/c", "of peak");
    for (int p = 1; p < DV_PATH_COUNT; p++) {
        if (!s->path_bytes[p])
            continue;
        double bpc = (double)s->path_bytes[p] / (double)(res->cycles ? res->cycles : 1);
        uint64_t bw = dv_path_bw(cfg, (dv_path)p);
        printf("%-9s %12" PRIu64 " %10.2f %9.2f %10" PRIu64 " %6.1f%%\n", dv_path_name((dv_path)p),
               s->path_bytes[p], bpc, bpc * (double)cfg->clock_mhz / 1000.0, bw,
               bw ? 100.0 * bpc / (double)bw : 0.0);
    }
    const dv_stat *bound = dv_stats_find(l, "core0.roofline.bound_cycles");
    printf("\nroofline: bound by %s at %.0f cycles; the core took %llu (%.1f%% of the bound's speed)\n",
           bound->desc, bound->value, (unsigned long long)res->cycles,
           run_stat(l, 0, "roofline.achieved_pct"));
}

void run_print_report(const dv_sim *sim, const char *kernel, const dv_run_result *res, const dv_stat_list *l)
{
    const dv_chip_config *cfg = dv_sim_config(sim);
    /* A run of several launches: chip.* (the chip and memory lines) are
     * every launch's, the rest (the result, the cores, core 0) the last's. */
    const dv_stat *nl = dv_stats_find(l, "op.launches");
    unsigned launches = nl ? (unsigned)nl->value : 1;
    if (launches > 1)
        printf("chip and memory figures: every launch's, summed (op.launch<i>.* in --json: each one's); "
               "the rest: the last launch's\n");
    printf("%skernel %s on %s: %llu block%s on %u core%s, %llu MHz\n", launches > 1 ? "last launch: " : "",
           kernel, cfg->name, (unsigned long long)res->block_dim, res->block_dim == 1 ? "" : "s", res->ncores,
           res->ncores == 1 ? "" : "s", (unsigned long long)cfg->clock_mhz);
    printf("result: %s after %llu cycles, %.3f us with the %llu-cycle launch\n", dv_stop_name(res->stop),
           (unsigned long long)res->cycles,
           launches > 1 ? (double)(res->cycles + res->launch_cycles) / (double)cfg->clock_mhz
                        : run_stat(l, RUN_CHIP, "time_us"),
           (unsigned long long)res->launch_cycles);
    if (res->ncores > 1) {
        printf("\n%-6s %7s %12s %7s %7s %7s %7s %12s\n", "core", "blocks", "active cyc", "cube%", "vec%",
               "mte2%", "mte3%", "GM bytes");
        for (unsigned i = 0; i < res->ncores; i++) {
            dv_core_info c;
            dv_sim_core_info(sim, i, &c);
            uint64_t gm = c.stats->buf_read[DV_MEM_GM] + c.stats->buf_write[DV_MEM_GM];
            printf("%-6u %7.0f %12.0f %6.1f%% %6.1f%% %6.1f%% %6.1f%% %12" PRIu64 "\n", i,
                   run_stat(l, i, "blocks"), run_stat(l, i, "active_cycles"),
                   run_stat(l, i, "cube.utilisation_pct"), run_stat(l, i, "vector.utilisation_pct"),
                   run_stat(l, i, "mte2.busy_pct"), run_stat(l, i, "mte3.busy_pct"), gm);
        }
        printf("\nchip%s: cube %.1f%% mean / %.1f%% max, vector %.1f%% / %.1f%%; load imbalance %.2f\n",
               launches > 1 ? " (every launch)" : "", run_stat(l, RUN_CHIP, "cube.utilisation_avg_pct"),
               run_stat(l, RUN_CHIP, "cube.utilisation_max_pct"),
               run_stat(l, RUN_CHIP, "vector.utilisation_avg_pct"),
               run_stat(l, RUN_CHIP, "vector.utilisation_max_pct"), run_stat(l, RUN_CHIP, "load_imbalance"));
    }
    printf(
        "memory%s: GM %.1f GB/s (L2 read hits %.1f%%, write hits %.1f%%); HBM %.1f GB/s of %.0f (%.1f%%)\n",
        launches > 1 ? " (every launch)" : "", run_stat(l, RUN_CHIP, "gm.gbps"),
        run_stat(l, RUN_CHIP, "l2.read_hit_pct"), run_stat(l, RUN_CHIP, "l2.write_hit_pct"),
        run_stat(l, RUN_CHIP, "hbm.gbps"), run_stat(l, RUN_CHIP, "hbm.peak_gbps"),
        run_stat(l, RUN_CHIP, "hbm.utilisation_pct"));
    if (res->ncores > 1)
        printf("\ncore 0 in detail:");
    print_core(cfg, res, res->stats, l);
}

/* --metrics GROUP: one msprof metric group, the chip and each core (the
 * first eight; all of them are in the events of --pmu and stats.json). */
void run_print_metrics(const dv_sim *sim, const dv_run_result *res, unsigned g)
{
    unsigned shown = res->ncores < 8 ? res->ncores : 8;
    dv_metric_row chip, core[8];
    dv_sim_metrics(sim, res, g, DV_METRIC_CHIP, &chip);
    for (unsigned c = 0; c < shown; c++)
        dv_sim_metrics(sim, res, g, c, &core[c]);
    printf("\n%s%s\n%-28s %-6s %14s", dv_metric_group_name(g),
           res->ncores > shown ? " (chip and the first 8 cores)" : "", "metric", "unit", "chip");
    for (unsigned c = 0; c < shown; c++)
        printf(" %13s%u", "core", c);
    printf("\n");
    for (unsigned m = 0; m < chip.n; m++) {
        printf("%-28s %-6s %14.4g", chip.name[m], chip.unit[m], chip.value[m]);
        for (unsigned c = 0; c < shown; c++)
            printf(" %14.4g", core[c].value[m]);
        printf("\n");
    }
}

void run_metrics(const dv_sim *sim, const dv_run_result *res, const char *groups, bool print, dv_stat_list *l)
{
    for (const char *t = groups; t && *t;) {
        size_t n = strcspn(t, ",");
        char one[64];
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), t);
        int g = dv_metric_group_find(one);
        t += n + (t[n] == ',');
        if (g < 0)
            continue; /* run_opts_parse checked them */
        if (print)
            run_print_metrics(sim, res, (unsigned)g);
        const char *gn = dv_metric_group_name((unsigned)g);
        dv_metric_row row;
        dv_sim_metrics(sim, res, (unsigned)g, DV_METRIC_CHIP, &row);
        for (unsigned m = 0; m < row.n; m++)
            dv_stats_add(l, row.unit[m], "msprof metric group value for the chip", row.value[m], false,
                         "metrics.%s.chip.%s", gn, row.name[m]);
        for (unsigned c = 0; c < res->ncores; c++) {
            dv_sim_metrics(sim, res, (unsigned)g, c, &row);
            for (unsigned m = 0; m < row.n; m++)
                dv_stats_add(l, row.unit[m], "msprof metric group value for the core", row.value[m], false,
                             "metrics.%s.core%u.%s", gn, c, row.name[m]);
        }
    }
}

/* --pmu: host-side counters over the run, optional sampling to a file. */

static void drain(dv_perf *p, void *user)
{
    pmu_ctx *pc = user;
    for (unsigned c = 0;; c++) {
        dv_sample_ring *r = dv_perf_ring(p, c);
        if (!r)
            break;
        dv_sample s;
        while (dv_ring_pop(r, &s)) {
            dv_error err;
            if (pc->w && pc->write_err == DV_OK) {
                pc->write_err = dv_samples_write(pc->w, &s, &err);
                pc->written++;
            }
        }
    }
    if (pc->w && pc->write_err == DV_OK)
        pc->write_err = dv_samples_flush(pc->w, NULL);
}

int run_pmu_setup(pmu_ctx *pc, const char *cmd, dv_sim *sim, const char *list, uint64_t period, uint64_t ring,
                  const char *outdir)
{
    pc->cmd = cmd;
    char *copy = strdup(list);
    const char *names[DV_SAMPLE_MAX_EVENTS];
    unsigned n = 0;
    char *save = NULL;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        if (n == DV_SAMPLE_MAX_EVENTS) {
            free(copy);
            return cli_usage_error(cmd, "--pmu: at most %d events", DV_SAMPLE_MAX_EVENTS);
        }
        names[n++] = t;
    }
    dv_error err = {DV_OK, ""};
    pc->perf = n ? dv_sim_perf_open(sim, names, n, -1, &err) : NULL;
    if (!pc->perf) {
        free(copy);
        return cli_usage_error(cmd, "--pmu: %s", n ? err.msg : "no events given");
    }
    if (period) {
        char path[4096];
        mkdir(outdir, 0777);
        snprintf(path, sizeof path, "%s/pmu.samples.gz", outdir);
        pc->w = dv_samples_create(path, names, n, &err);
        if (!pc->w || dv_perf_sample(pc->perf, period, ring, drain, pc, &err) != DV_OK) {
            free(copy);
            return cli_fail(&err);
        }
    }
    free(copy);
    dv_perf_enable(pc->perf);
    return 0;
}

int run_pmu_finish(pmu_ctx *pc, bool json)
{
    drain(pc->perf, pc);
    unsigned n = dv_perf_count(pc->perf);
    if (!json) {
        printf("\n%-32s %16s   per core\n", "counter", "total");
        for (unsigned i = 0; i < n; i++) {
            const dv_event_info *e = dv_event_info_of(dv_perf_event(pc->perf, i));
            uint64_t total = 0;
            char per[256] = "";
            size_t used = 0;
            for (unsigned c = 0;; c++) {
                dv_perf_value v;
                if (dv_perf_read(pc->perf, c, i, &v, NULL) != DV_OK)
                    break;
                total += v.value;
                if (used < sizeof per - 24)
                    used += (size_t)snprintf(per + used, sizeof per - used, "%s%llu", c ? " " : "",
                                             (unsigned long long)v.value);
            }
            printf("%-32s %16llu   %s\n", e->name, (unsigned long long)total, per);
        }
        uint64_t lost = 0;
        for (unsigned c = 0;; c++) {
            dv_sample_ring *r = dv_perf_ring(pc->perf, c);
            if (!r)
                break;
            lost += r->lost;
        }
        if (pc->w)
            printf("samples: %llu records written, %llu lost (ring full)\n", (unsigned long long)pc->written,
                   (unsigned long long)lost);
    }
    dv_error err = {DV_OK, ""};
    dv_status st = dv_samples_close(pc->w, &err);
    pc->w = NULL;
    if (pc->write_err != DV_OK || st != DV_OK) {
        fprintf(stderr, "dvsim %s: writing the PMU samples failed%s%s\n", pc->cmd, err.msg[0] ? ": " : "",
                err.msg);
        return 74;
    }
    return 0;
}
