/* stats.c - a run's statistics as a named, ordered list. */
#include "dv_stats.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add(dv_stat_list *l, const char *unit, const char *desc, double v, bool integer, const char *fmt,
                ...) __attribute__((format(printf, 6, 7)));

static void add(dv_stat_list *l, const char *unit, const char *desc, double v, bool integer, const char *fmt,
                ...)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        dv_stat *p = realloc(l->items, cap * sizeof *p);
        if (!p)
            return;
        l->items = p;
        l->cap = cap;
    }
    dv_stat *s = &l->items[l->count++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->name, sizeof s->name, fmt, ap);
    va_end(ap);
    s->unit = unit;
    s->desc = desc;
    s->value = v;
    s->integer = integer;
}

static const char *const pipe_keys[DV_PIPE_COUNT] = {"scalar", "vector", "cube", "mte1",
                                                     "mte2",   "mte3",   "fixp"};
static const char *const path_keys[DV_PATH_COUNT] = {"none",      "gm_to_l1",  "gm_to_ub",  "ub_to_gm",
                                                     "ub_to_l1",  "l1_to_ub",  "l1_to_l0a", "l1_to_l0b",
                                                     "l0c_to_ub", "l0c_to_gm", "l0c_to_l1"};

dv_status dv_stats_collect(const dv_chip_config *cfg, const dv_run_result *res, dv_stat_list *l,
                           dv_error *err)
{
    memset(l, 0, sizeof *l);
    const dv_core_stats *s = res->stats;
    double cycles = (double)res->cycles, hz = (double)cfg->clock_mhz * 1e6;
    double total = cycles > 0 ? cycles : 1;
    add(l, "cycles", "core cycles from the first fetch to the end of the kernel", cycles, true,
        "core0.cycles");
    add(l, "us", "run time at the chip clock", cycles / hz * 1e6, false, "core0.time_us");
    for (int p = 0; p < DV_PIPE_COUNT; p++) {
        add(l, "cycles", "cycles the pipe was executing an instruction", (double)s->pipe[p].busy_cycles, true,
            "core0.%s.busy_cycles", pipe_keys[p]);
        add(l, "%", "busy cycles / total cycles", 100.0 * (double)s->pipe[p].busy_cycles / total, false,
            "core0.%s.busy_pct", pipe_keys[p]);
        add(l, "instructions", "instructions executed by the pipe", (double)s->pipe[p].insns, true,
            "core0.%s.instructions", pipe_keys[p]);
        add(l, "cycles", "cycles blocked on a wait_flag", (double)s->pipe[p].wait_cycles, true,
            "core0.%s.wait_cycles", pipe_keys[p]);
        add(l, "cycles", "cycles the Scalar unit stalled because this queue was full",
            (double)s->pipe[p].full_cycles, true, "core0.%s.queue_full_cycles", pipe_keys[p]);
    }
    double peak_macs = dv_config_core_macs_fp16(cfg);
    add(l, "MACs", "Cube multiply-accumulates", (double)s->cube_macs, true, "core0.cube.macs");
    add(l, "fractals", "Cube fractal steps", (double)s->cube_fractals, true, "core0.cube.fractals");
    add(l, "%", "MACs / (fp16 peak MACs per cycle x total cycles)",
        100.0 * (double)s->cube_macs / (peak_macs * total), false, "core0.cube.utilisation_pct");
    add(l, "ops", "Vector element operations (active lanes x repeats)", (double)s->vec_elem_ops, true,
        "core0.vector.element_ops");
    add(l, "repeats", "Vector repeats", (double)s->vec_repeats, true, "core0.vector.repeats");
    add(l, "%", "Vector busy cycles / total cycles", 100.0 * (double)s->pipe[DV_PIPE_V].busy_cycles / total,
        false, "core0.vector.utilisation_pct");
    add(l, "cycles", "UB bank-group conflict cycles", (double)s->ub_group_conflict_cycles, true,
        "core0.ub.bankgroup_conflict_cycles");
    add(l, "cycles", "UB bank (read/write) conflict cycles", (double)s->ub_bank_conflict_cycles, true,
        "core0.ub.bank_conflict_cycles");
    for (int p = 1; p < DV_PATH_COUNT; p++) {
        uint64_t bw = dv_path_bw(cfg, (dv_path)p);
        if (!bw && !s->path_bytes[p])
            continue;
        double b = (double)s->path_bytes[p];
        add(l, "bytes", "bytes moved over the path", b, true, "core0.path.%s.bytes", path_keys[p]);
        add(l, "B/cycle", "bytes / total cycles", b / total, false, "core0.path.%s.bytes_per_cycle",
            path_keys[p]);
        add(l, "GB/s", "bytes / run time", b / (total / hz) / 1e9, false, "core0.path.%s.gbps", path_keys[p]);
        add(l, "B/cycle", "the path's peak from the chip config", (double)bw, true,
            "core0.path.%s.peak_bytes_per_cycle", path_keys[p]);
        add(l, "%", "achieved / peak bandwidth", bw ? 100.0 * b / total / (double)bw : 0, false,
            "core0.path.%s.utilisation_pct", path_keys[p]);
    }
    /* Roofline: the least time each resource needs for the work done. */
    double bound = (double)s->cube_macs / peak_macs;
    const char *bound_by = "cube";
    double vec = (double)s->vec_repeats * (double)cfg->vec_slope_b16;
    if (vec > bound) {
        bound = vec;
        bound_by = "vector";
    }
    for (int p = 1; p < DV_PATH_COUNT; p++) {
        uint64_t bw = dv_path_bw(cfg, (dv_path)p);
        double t = bw ? (double)s->path_bytes[p] / (double)bw : 0;
        if (t > bound) {
            bound = t;
            bound_by = path_keys[p];
        }
    }
    add(l, "cycles", bound_by, bound, false, "core0.roofline.bound_cycles");
    add(l, "%", "roofline bound cycles / actual cycles", 100.0 * bound / total, false,
        "core0.roofline.achieved_pct");
    add(l, "instructions", "scalar instructions executed", (double)s->scalar_insns, true,
        "core0.scalar.executed");
    if (l->count == 0 || !l->items)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    return DV_OK;
}

void dv_stats_free(dv_stat_list *l)
{
    free(l->items);
    memset(l, 0, sizeof *l);
}

const dv_stat *dv_stats_find(const dv_stat_list *l, const char *name)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->items[i].name, name) == 0)
            return &l->items[i];
    return NULL;
}

void dv_stats_json(const dv_stat_list *l, dv_buf *out)
{
    dv_buf_puts(out, "{\n");
    for (size_t i = 0; i < l->count; i++) {
        const dv_stat *s = &l->items[i];
        if (s->integer)
            dv_buf_printf(out, "  \"%s\": {\"value\": %.0f, ", s->name, s->value);
        else
            dv_buf_printf(out, "  \"%s\": {\"value\": %.6g, ", s->name, s->value);
        dv_buf_printf(out, "\"unit\": \"%s\", \"desc\": \"%s\"}%s\n", s->unit, s->desc,
                      i + 1 < l->count ? "," : "");
    }
    dv_buf_puts(out, "}\n");
}
