/* stats.c - a run's statistics as a named, ordered list. */
#include "dv_sim_perf.h"
#include "dv_stats.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dv_stats_add(dv_stat_list *l, const char *unit, const char *desc, double v, bool integer,
                  const char *fmt, ...)
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

/* Every event of the catalogue that belongs to pipe p (pipe >= 0) or path
 * p (path >= 0), or to neither (both < 0), as core<id>.<event name>. */
static void add_events(dv_stat_list *l, const dv_counter_source *src, unsigned id, int pipe, int path)
{
    for (int e = 0; e < DV_EV_COUNT; e++) {
        const dv_event_info *ev = dv_event_info_of((dv_event_id)e);
        if (ev->id == DV_EV_CYCLES || ev->pipe != pipe || ev->path != path)
            continue;
        dv_stats_add(l, ev->unit, ev->doc, (double)src->read(src->user, id, ev->id), true, "core%u.%s", id,
                     ev->name);
    }
}

static void add_paths(dv_stat_list *l, const dv_chip_config *cfg, const dv_counter_source *src, unsigned id,
                      const dv_core_stats *s, double total)
{
    double hz = (double)cfg->clock_mhz * 1e6;
    for (int p = 1; p < DV_PATH_COUNT; p++) {
        uint64_t bw = dv_path_bw(cfg, (dv_path)p);
        if (!bw && !s->path_bytes[p])
            continue; /* the chip has no such path */
        const char *key = dv_path_key((dv_path)p);
        double b = (double)s->path_bytes[p];
        add_events(l, src, id, -1, p);
        dv_stats_add(l, "B/cycle", "bytes / total cycles", b / total, false, "core%u.path.%s.bytes_per_cycle",
                     id, key);
        dv_stats_add(l, "GB/s", "bytes / run time", b / (total / hz) / 1e9, false, "core%u.path.%s.gbps", id,
                     key);
        dv_stats_add(l, "B/cycle", "the path's peak from the chip config", (double)bw, true,
                     "core%u.path.%s.peak_bytes_per_cycle", id, key);
        dv_stats_add(l, "%", "achieved / peak bandwidth", bw ? 100.0 * b / total / (double)bw : 0, false,
                     "core%u.path.%s.utilisation_pct", id, key);
    }
}

/* The cycles the Cube needs at least for a core's MACs: each input type at
 * its own peak (int8 at cube.k_int8 per fractal, twice fp16's; f32 at
 * cube.fp32_fractal_cycles per 16x8x16, a quarter of it on the 910B), so an
 * int8 run is measured against the int8 peak, not reported at 200% of
 * fp16's, nor an f32 run at 25%. */
static double cube_peak_cycles(const dv_chip_config *cfg, const dv_core_stats *s)
{
    double f16 = dv_config_core_macs_fp16(cfg), i8 = dv_config_core_macs_int8(cfg);
    double f32p = dv_config_core_macs_fp32(cfg);
    double int8 = (double)s->cube_macs_int8, f32 = (double)s->cube_macs_f32;
    double rest = (double)s->cube_macs - int8 - f32;
    return (rest > 0 ? rest / f16 : 0) + (i8 > 0 ? int8 / i8 : 0) + (f32p > 0 ? f32 / f32p : 0);
}

/* Roofline: the least time each resource needs for the work done. */
static void add_roofline(dv_stat_list *l, const dv_chip_config *cfg, unsigned id, const dv_core_stats *s,
                         double total)
{
    double bound = cube_peak_cycles(cfg, s);
    const char *bound_by = dv_pipe_key(DV_PIPE_M);
    /* Vector: every repeat takes at least the 16-bit slope; 32-bit lanes
     * (a quarter of a repeat's bytes) go at the 32-bit slope, 8-bit ones
     * fill a repeat with as many lanes as it has bytes. */
    double lanes = DV_VEC_REPEAT_BYTES;
    double vec = (double)s->vec_ops_32 / (lanes / 4) * (double)cfg->vec_slope_b32 +
                 (double)s->vec_ops_16 / (lanes / 2) * (double)cfg->vec_slope_b16 +
                 (double)s->vec_ops_8 / lanes * (double)cfg->vec_slope_b16;
    if ((double)s->vec_repeats * (double)cfg->vec_slope_b16 > vec)
        vec = (double)s->vec_repeats * (double)cfg->vec_slope_b16;
    if (vec > bound) {
        bound = vec;
        bound_by = dv_pipe_key(DV_PIPE_V);
    }
    for (int p = 1; p < DV_PATH_COUNT; p++) {
        uint64_t bw = dv_path_bw(cfg, (dv_path)p);
        double t = bw ? (double)s->path_bytes[p] / (double)bw : 0;
        if (t > bound) {
            bound = t;
            bound_by = dv_path_key((dv_path)p);
        }
    }
    dv_stats_add(l, "cycles", bound_by, bound, false, "core%u.roofline.bound_cycles", id);
    dv_stats_add(l, "%", "roofline bound cycles / actual cycles", 100.0 * bound / total, false,
                 "core%u.roofline.achieved_pct", id);
}

/* One core's statistics: every event of the catalogue, grouped by pipe and
 * path, and what follows from them; percentages are over the whole run's
 * cycles. */
static void add_core(dv_stat_list *l, const dv_chip_config *cfg, const dv_counter_source *src, unsigned id,
                     const dv_core_stats *s, uint64_t run_cycles)
{
    double cycles = (double)run_cycles, total = cycles > 0 ? cycles : 1;
    dv_stats_add(l, "cycles", "cycles of the whole run (the percentages of this core are of these)", cycles,
                 true, "core%u.cycles", id);
    for (int p = 0; p < DV_PIPE_COUNT; p++) {
        add_events(l, src, id, p, -1);
        dv_stats_add(l, "%", "busy cycles / total cycles", 100.0 * (double)s->pipe[p].busy_cycles / total,
                     false, "core%u.%s.busy_pct", id, dv_pipe_key((dv_pipe)p));
    }
    add_paths(l, cfg, src, id, s, total);
    add_events(l, src, id, -1, -1);
    dv_stats_add(l, "%", "MACs over the peak of their input type (fp16/bf16, int8) / total cycles",
                 100.0 * cube_peak_cycles(cfg, s) / total, false, "core%u.cube.utilisation_pct", id);
    dv_stats_add(l, "%", "Vector busy cycles / total cycles",
                 100.0 * (double)s->pipe[DV_PIPE_V].busy_cycles / total, false,
                 "core%u.vector.utilisation_pct", id);
    add_roofline(l, cfg, id, s, total);
}

dv_status dv_stats_collect(const dv_sim *sim, const dv_run_result *res, dv_stat_list *l, dv_error *err)
{
    memset(l, 0, sizeof *l);
    const dv_chip_config *cfg = dv_sim_config(sim);
    double hz = (double)cfg->clock_mhz * 1e6, total = res->cycles ? (double)res->cycles : 1;
    dv_stats_add(l, "cycles", "chip cycles from the first fetch to the end of the last block",
                 (double)res->cycles, true, "chip.cycles");
    dv_stats_add(l, "cycles", "launch overhead before the first fetch (chip.launch_cycles)",
                 (double)res->launch_cycles, true, "chip.launch_cycles");
    dv_stats_add(l, "us", "launch overhead plus run time at the chip clock",
                 ((double)res->launch_cycles + (double)res->cycles) / hz * 1e6, false, "chip.time_us");
    dv_stats_add(l, "blocks", "blocks launched (block_dim)", (double)res->block_dim, true, "chip.blocks");
    dv_stats_add(l, "cores", "cores that ran blocks", (double)res->ncores, true, "chip.cores_used");
    double cube_sum = 0, cube_max = 0, vec_sum = 0, vec_max = 0, act_sum = 0, act_max = 0, gm_bytes = 0;
    unsigned ncube = 0, nvec = 0; /* cores that have the unit: an AIV has no Cube, an AIC no Vector */
    for (unsigned i = 0; i < res->ncores; i++) {
        dv_core_info c;
        dv_sim_core_info(sim, i, &c);
        const dv_core_stats *s = c.stats;
        double cu = 100.0 * cube_peak_cycles(cfg, s) / total;
        double vu = 100.0 * (double)s->pipe[DV_PIPE_V].busy_cycles / total;
        if (c.kind != DV_KIND_AIV) {
            cube_sum += cu;
            ncube++;
        }
        if (c.kind != DV_KIND_AIC) {
            vec_sum += vu;
            nvec++;
        }
        cube_max = cu > cube_max ? cu : cube_max;
        vec_max = vu > vec_max ? vu : vec_max;
        act_sum += (double)c.active_cycles;
        act_max = (double)c.active_cycles > act_max ? (double)c.active_cycles : act_max;
        gm_bytes += (double)(s->buf_read[DV_MEM_GM] + s->buf_write[DV_MEM_GM]);
    }
    double n = res->ncores ? res->ncores : 1;
    dv_stats_add(l, "%", "mean over the cores with a Cube (coupled cores, AICs) of Cube utilisation",
                 ncube ? cube_sum / ncube : 0, false, "chip.cube.utilisation_avg_pct");
    dv_stats_add(l, "%", "highest Cube utilisation of a core", cube_max, false,
                 "chip.cube.utilisation_max_pct");
    dv_stats_add(l, "%", "mean over the cores with a Vector unit (coupled cores, AIVs) of Vector busy time",
                 nvec ? vec_sum / nvec : 0, false, "chip.vector.utilisation_avg_pct");
    dv_stats_add(l, "%", "highest Vector busy time of a core", vec_max, false,
                 "chip.vector.utilisation_max_pct");
    dv_stats_add(l, "bytes", "bytes read from and written to GM by all cores", gm_bytes, true,
                 "chip.gm.bytes");
    dv_stats_add(l, "GB/s", "GM bytes / run time (served by L2; its misses and write-backs by HBM)",
                 gm_bytes / (total / hz) / 1e9, false, "chip.gm.gbps");
    dv_stats_add(l, "GB/s", "HBM peak (memory.hbm_bytes_per_cycle at the clock)",
                 (double)cfg->hbm_bytes_per_cycle * hz / 1e9, false, "chip.hbm.peak_gbps");
    double hbm = 0, rh = 0, rm = 0, wh = 0, wm = 0;
    for (unsigned i = 0; i < res->ncores; i++) {
        dv_core_info c;
        dv_sim_core_info(sim, i, &c);
        const dv_l2_counts *c2 = &c.stats->l2;
        hbm += (double)(c2->fill_bytes + c2->writeback_bytes);
        rh += (double)c2->read_hits;
        rm += (double)c2->read_misses;
        wh += (double)c2->write_hits;
        wm += (double)c2->write_misses;
    }
    dv_stats_add(l, "bytes", "HBM traffic: L2 line fills and write-backs", hbm, true, "chip.hbm.bytes");
    dv_stats_add(l, "GB/s", "HBM traffic / run time", hbm / (total / hz) / 1e9, false, "chip.hbm.gbps");
    dv_stats_add(l, "%", "HBM traffic / HBM peak", 100.0 * hbm / total / (double)cfg->hbm_bytes_per_cycle,
                 false, "chip.hbm.utilisation_pct");
    dv_stats_add(l, "%", "L2 read hits / reads (lines)", rh + rm > 0 ? 100.0 * rh / (rh + rm) : 0, false,
                 "chip.l2.read_hit_pct");
    dv_stats_add(l, "%", "L2 write hits / writes (lines)", wh + wm > 0 ? 100.0 * wh / (wh + wm) : 0, false,
                 "chip.l2.write_hit_pct");
    dv_stats_add(l, "ratio", "busiest core's active cycles / mean active cycles (1 = balanced)",
                 act_sum > 0 ? act_max / (act_sum / n) : 1.0, false, "chip.load_imbalance");
    const dv_counter_source *src = dv_sim_counters(sim);
    for (unsigned i = 0; i < res->ncores; i++) {
        dv_core_info c;
        dv_sim_core_info(sim, i, &c);
        dv_stats_add(l, "blocks", "blocks this core ran", (double)c.blocks_run, true, "core%u.blocks", i);
        dv_stats_add(l, "cycles", "cycles this core spent running blocks", (double)c.active_cycles, true,
                     "core%u.active_cycles", i);
        add_core(l, cfg, src, i, c.stats, res->cycles);
    }
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

/* A statistic's value as a JSON number.  Integer statistics (counts,
 * cycles, bytes) are printed with all their digits: cJSON prints a double
 * with 15 significant digits and may switch to an exponent above 1e15.
 * Derived values are rounded to 6 significant digits first, so that a last-
 * bit difference between two builds' floating-point results does not change
 * stats.json, and cJSON then prints that short form.  A value that is not
 * finite (it should not happen) becomes null rather than invalid JSON. */
static cJSON *json_value(const dv_stat *s)
{
    if (!isfinite(s->value))
        return cJSON_CreateNull();
    char text[64];
    if (s->integer) {
        snprintf(text, sizeof text, "%.0f", s->value);
        return cJSON_CreateRaw(text);
    }
    snprintf(text, sizeof text, "%.6g", s->value);
    return cJSON_CreateNumber(strtod(text, NULL));
}

dv_status dv_stats_json(const dv_stat_list *l, dv_buf *out)
{
    cJSON *root = cJSON_CreateObject();
    bool ok = root != NULL;
    for (size_t i = 0; ok && i < l->count; i++) {
        const dv_stat *s = &l->items[i];
        cJSON *item = cJSON_CreateObject();
        ok = item && cJSON_AddItemToObject(root, s->name, item);
        if (!ok) {
            cJSON_Delete(item);
            break;
        }
        cJSON *v = json_value(s);
        ok = v && cJSON_AddItemToObject(item, "value", v);
        if (!ok)
            cJSON_Delete(v);
        ok = ok && cJSON_AddStringToObject(item, "unit", s->unit ? s->unit : "") &&
             cJSON_AddStringToObject(item, "desc", s->desc ? s->desc : "");
    }
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return DV_ERR_NOMEM;
    dv_buf_puts(out, text);
    dv_buf_puts(out, "\n");
    free(text);
    return out->oom ? DV_ERR_NOMEM : DV_OK;
}
