/* sim_perf.c - host counter groups and metric groups over a simulation: the
 * glue between perfcounters/ and the hook interface (dv_sim_perf.h). */
#include "dv_sim_perf.h"

static dv_status on_launch(void *user, const dv_sim *sim, dv_error *err)
{
    (void)sim;
    return dv_perf_start(user, err); /* rings for the launch's cores */
}

static uint64_t period_of(void *user)
{
    return dv_perf_period(user);
}

static void on_tick(void *user, uint64_t cycle)
{
    dv_perf_take_samples(user, cycle);
}

dv_perf *dv_sim_perf_open(dv_sim *s, const char *const *events, unsigned n, int core, dv_error *err)
{
    dv_perf *p = dv_perf_open(dv_sim_counters(s), events, n, core, err);
    if (!p)
        return NULL;
    dv_sim_hooks h = {.user = p, .launch = on_launch, .period = period_of, .tick = on_tick};
    if (dv_sim_add_hooks(s, &h, err) != DV_OK) {
        dv_perf_close(p);
        return NULL;
    }
    return p;
}

void dv_sim_perf_close(dv_sim *s, dv_perf *p)
{
    if (!p)
        return;
    dv_sim_remove_hooks(s, p);
    dv_perf_close(p);
}

void dv_sim_metrics(const dv_sim *s, const dv_run_result *res, unsigned g, unsigned c, dv_metric_row *row)
{
    const dv_chip_config *cfg = dv_sim_config(s);
    dv_metric_run run = {res->ncores, res->cycles, (double)cfg->clock_mhz * 1e6,
                         dv_config_core_macs_fp16(cfg), dv_config_core_macs_int8(cfg)};
    dv_metrics_compute(dv_sim_counters(s), &run, g, c, row);
}
