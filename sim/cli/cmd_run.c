/* cmd_run.c - dvsim run: simulate a kernel object (or .dvs source) on one
 * core of a chip and report where the cycles went. */
#include "cli.h"
#include "dv_asm.h"
#include "dv_fp.h"
#include "dv_metrics.h"
#include "dv_perf.h"
#include "dv_stats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_BINDINGS = 32 };
/* A guest loop that never ends must not hang the host: 10^9 cycles is 1 s of
 * simulated time at 1 GHz, far beyond any single kernel run here. */
#define DEFAULT_MAX_CYCLES 1000000000ull

typedef struct binding {
    const char *name;
    const char *spec;
} binding;

void cmd_run_help(FILE *out)
{
    fprintf(
        out,
        "usage: dvsim run KERNEL.elf|KERNEL.dvs [options]\n\n"
        "Runs one kernel on one core and reports cycles, per-pipe busy time, Cube and Vector\n"
        "utilisation, bytes and bandwidth per path, and the roofline bound.\n\n"
        "  --chip NAME            ascend910 (default), ascend910b, ascend310\n"
        "  --kernel NAME          which kernel of the object (needed if it has several)\n"
        "  --blocks N             launch N blocks (block_dim): block i on core i, in waves when\n"
        "                         there are more blocks than cores (the kernel reads csr blockidx)\n"
        "  --arg NAME=VALUE       a scalar argument: u64 (decimal or 0x hex), s64, or f32 (1.5)\n"
        "  --gm NAME=SPEC         allocate GM for pointer argument NAME:\n"
        "                           zeros:BYTES | @FILE | random:TYPE:COUNT:SEED (TYPE f16, bf16, f32, s8, "
        "s32)\n"
        "  --dump NAME=FILE       write the GM buffer of NAME to FILE after the run\n"
        "  --max-cycles N         stop at cycle N (exit 1); default 10^9, 0 for no limit\n"
        "  --no-data              timing only: skip the arithmetic\n"
        "  --json                 print the statistics as one JSON object\n"
        "  --out DIR              write DIR/stats.json\n\n"
        "Exit: 0 the kernel ended; 1 it faulted, deadlocked or hit the cycle limit (report on stderr).\n");
}

static bool parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-')
        return false;
    *v = x;
    return true;
}

/* A scalar argument by its declared type: u64 (decimal or 0x hex), s64
 * (may be negative), f32 (a float, passed as its bits). */
static bool parse_arg(dv_arg_type type, const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    if (type == DV_ARG_S64) {
        long long x = strtoll(s, &end, 0);
        *v = (uint64_t)x;
        return !errno && end != s && !*end;
    }
    if (type == DV_ARG_F32) {
        float f = strtof(s, &end);
        *v = dv_f32_bits(f);
        return !errno && end != s && !*end;
    }
    return parse_u64(s, v);
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Fills a new GM buffer from spec; returns its address. */
static int make_buffer(dv_sim *sim, const binding *b, uint64_t *addr, uint64_t *len)
{
    dv_error err = {DV_OK, ""};
    uint8_t *bytes = NULL;
    uint64_t n = 0;
    char type[16] = "";
    unsigned long long count = 0, seed = 0;
    int used = 0;
    unsigned size = 0;
    if (strncmp(b->spec, "zeros:", 6) == 0) {
        if (!parse_u64(b->spec + 6, &n) || n == 0)
            return cli_usage_error("run", "--gm %s: zeros needs a byte count", b->name);
    } else if (b->spec[0] == '@') {
        FILE *f = fopen(b->spec + 1, "rb");
        if (!f) {
            fprintf(stderr, "dvsim: %s: cannot open: %s\n", b->spec + 1, strerror(errno));
            return 66;
        }
        dv_buf data = DV_BUF_INIT;
        char chunk[65536];
        size_t got;
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
            dv_buf_append(&data, chunk, got);
        fclose(f);
        n = data.len;
        bytes = (uint8_t *)dv_buf_take(&data, NULL);
        if (n == 0) {
            free(bytes);
            fprintf(stderr, "dvsim: %s is empty\n", b->spec + 1);
            return 65;
        }
    } else if (sscanf(b->spec, "random:%15[a-z0-9]:%llu:%llu%n", type, &count, &seed, &used) == 3 &&
               b->spec[used] == '\0' && count > 0) {
        size = strcmp(type, "f16") == 0 || strcmp(type, "bf16") == 0  ? 2
               : strcmp(type, "f32") == 0 || strcmp(type, "s32") == 0 ? 4
               : strcmp(type, "s8") == 0                              ? 1
                                                                      : 0;
        if (!size)
            return cli_usage_error("run", "--gm %s: unknown type '%s' (f16, bf16, f32, s8, s32)", b->name,
                                   type);
        if (count > (1ull << 40))
            return cli_usage_error("run", "--gm %s: count too large", b->name);
        n = count * size;
    } else {
        return cli_usage_error("run", "--gm %s=%s: expected zeros:BYTES, @FILE or random:TYPE:COUNT:SEED",
                               b->name, b->spec);
    }
    /* GM first: its capacity check comes before any large host-side fill. */
    if (dv_gm_alloc(dv_sim_gm(sim), n, addr, &err) != DV_OK) {
        free(bytes);
        return cli_fail(&err);
    }
    dv_access_fault f;
    uint8_t *dst = dv_gm_span(dv_sim_gm(sim), *addr, n, &f);
    if (bytes) {
        memcpy(dst, bytes, (size_t)n);
        free(bytes);
    } else if (size) {
        /* Floats uniform in [-1, 1); s8 in [-128, 127]; s32 in [-1000, 1000]. */
        uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
        for (uint64_t i = 0; i < count; i++) {
            uint64_t r = xorshift(&s);
            float v01 = (float)((double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0);
            uint32_t v;
            if (size == 2)
                v = strcmp(type, "f16") == 0 ? dv_f32_to_fp16(v01) : dv_f32_to_bf16(v01);
            else if (strcmp(type, "f32") == 0)
                v = dv_f32_bits(v01);
            else if (size == 1)
                v = (uint32_t)(int32_t)((int64_t)(r >> 56) - 128);
            else
                v = (uint32_t)(int32_t)((int64_t)((r >> 32) % 2001) - 1000);
            memcpy(dst + i * size, &v, size); /* little-endian host */
        }
    }
    *len = n;
    return 0;
}

/* The value of core<i>.<suffix>, or of chip.<suffix> when i is CHIP. */
enum { CHIP = ~0u };
static double stat_of(const dv_stat_list *l, unsigned i, const char *suffix)
{
    char name[64];
    if (i == CHIP)
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
    printf("\ncube:   %" PRIu64 " MACs in %" PRIu64 " fractals, %.1f%% of the fp16 peak (%.0f MAC/cycle)\n",
           s->cube_macs, s->cube_fractals, stat_of(l, 0, "cube.utilisation_pct"),
           dv_config_core_macs_fp16(cfg));
    printf("vector: %" PRIu64 " element ops in %" PRIu64 " repeats, busy %.1f%%; UB conflicts %" PRIu64
           " bank-group + %" PRIu64 " bank cycles\n",
           s->vec_elem_ops, s->vec_repeats, stat_of(l, 0, "vector.utilisation_pct"),
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
           stat_of(l, 0, "roofline.achieved_pct"));
}

static void print_report(const dv_sim *sim, const char *kernel, const dv_run_result *res,
                         const dv_stat_list *l)
{
    const dv_chip_config *cfg = dv_sim_config(sim);
    printf("kernel %s on %s: %llu block%s on %u core%s, %llu MHz\n", kernel, cfg->name,
           (unsigned long long)res->block_dim, res->block_dim == 1 ? "" : "s", res->ncores,
           res->ncores == 1 ? "" : "s", (unsigned long long)cfg->clock_mhz);
    printf("result: %s after %llu cycles, %.3f us with the %llu-cycle launch\n", dv_stop_name(res->stop),
           (unsigned long long)res->cycles, stat_of(l, CHIP, "time_us"),
           (unsigned long long)res->launch_cycles);
    if (res->ncores > 1) {
        printf("\n%-6s %7s %12s %7s %7s %7s %7s %12s\n", "core", "blocks", "active cyc", "cube%", "vec%",
               "mte2%", "mte3%", "GM bytes");
        for (unsigned i = 0; i < res->ncores; i++) {
            const dv_core_stats *s = &dv_sim_core(sim, i)->stats;
            uint64_t gm = s->path_bytes[DV_PATH_GM_L1] + s->path_bytes[DV_PATH_GM_UB] +
                          s->path_bytes[DV_PATH_UB_GM] + s->path_bytes[DV_PATH_L0C_GM];
            printf("%-6u %7.0f %12.0f %6.1f%% %6.1f%% %6.1f%% %6.1f%% %12" PRIu64 "\n", i,
                   stat_of(l, i, "blocks"), stat_of(l, i, "active_cycles"),
                   stat_of(l, i, "cube.utilisation_pct"), stat_of(l, i, "vector.utilisation_pct"),
                   stat_of(l, i, "mte2.busy_pct"), stat_of(l, i, "mte3.busy_pct"), gm);
        }
        printf("\nchip: cube %.1f%% mean / %.1f%% max, vector %.1f%% / %.1f%%; load imbalance %.2f\n",
               stat_of(l, CHIP, "cube.utilisation_avg_pct"), stat_of(l, CHIP, "cube.utilisation_max_pct"),
               stat_of(l, CHIP, "vector.utilisation_avg_pct"), stat_of(l, CHIP, "vector.utilisation_max_pct"),
               stat_of(l, CHIP, "load_imbalance"));
    }
    printf("memory: GM %.1f GB/s (L2 read hits %.1f%%, write hits %.1f%%); HBM %.1f GB/s of %.0f (%.1f%%)\n",
           stat_of(l, CHIP, "gm.gbps"), stat_of(l, CHIP, "l2.read_hit_pct"),
           stat_of(l, CHIP, "l2.write_hit_pct"), stat_of(l, CHIP, "hbm.gbps"),
           stat_of(l, CHIP, "hbm.peak_gbps"), stat_of(l, CHIP, "hbm.utilisation_pct"));
    if (res->ncores > 1)
        printf("\ncore 0 in detail:");
    print_core(cfg, res, res->stats, l);
}

/* --metrics GROUP: one msprof metric group, the chip and each core (the
 * first eight; all of them are in the events of --pmu and stats.json). */
static void print_metrics(const dv_sim *sim, const dv_run_result *res, unsigned g)
{
    unsigned shown = res->ncores < 8 ? res->ncores : 8;
    dv_metric_row chip, core[8];
    dv_metrics_compute(sim, res, g, UINT32_MAX, &chip);
    for (unsigned c = 0; c < shown; c++)
        dv_metrics_compute(sim, res, g, c, &core[c]);
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

/* --pmu: host-side counters over the run, optional sampling to a file. */
typedef struct pmu_ctx {
    dv_perf *perf;
    dv_sample_writer *w;
    uint64_t written;
    dv_status write_err;
} pmu_ctx;

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

static int pmu_setup(pmu_ctx *pc, dv_sim *sim, const char *list, uint64_t period, uint64_t ring,
                     const char *outdir)
{
    char *copy = strdup(list);
    const char *names[DV_SAMPLE_MAX_EVENTS];
    unsigned n = 0;
    char *save = NULL;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        if (n == DV_SAMPLE_MAX_EVENTS) {
            free(copy);
            return cli_usage_error("run", "--pmu: at most %d events", DV_SAMPLE_MAX_EVENTS);
        }
        names[n++] = t;
    }
    dv_error err = {DV_OK, ""};
    pc->perf = n ? dv_perf_open(sim, names, n, -1, &err) : NULL;
    if (!pc->perf) {
        free(copy);
        return cli_usage_error("run", "--pmu: %s", n ? err.msg : "no events given");
    }
    if (period) {
        if (!outdir) {
            free(copy);
            return cli_usage_error("run", "--pmu-period writes DIR/pmu.samples.gz: give --out DIR");
        }
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

static int pmu_finish(pmu_ctx *pc, bool json)
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
        fprintf(stderr, "dvsim run: writing the PMU samples failed%s%s\n", err.msg[0] ? ": " : "", err.msg);
        return 74;
    }
    return 0;
}

static int load_object(const char *path, dv_obj **obj)
{
    dv_error err = {DV_OK, ""};
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".dvs") == 0) {
        dv_diags diags = {NULL, 0};
        dv_status st = dv_asm_file(path, NULL, obj, &diags, &err);
        if (st != DV_OK) {
            for (size_t i = 0; i < diags.count; i++)
                fprintf(stderr, "%s\n", diags.lines[i]);
            if (!diags.count)
                fprintf(stderr, "dvsim: %s\n", err.msg);
            dv_diags_free(&diags);
            return dv_status_exit_code(st);
        }
        return 0;
    }
    return dv_obj_load(path, obj, &err) == DV_OK ? 0 : cli_fail(&err);
}

int cmd_run(int argc, char **argv)
{
    const char *path = NULL, *chip = NULL, *kernel = NULL, *outdir = NULL, *config = NULL;
    const char *sets[MAX_BINDINGS];
    int nsets = 0;
    binding args[MAX_BINDINGS], gms[MAX_BINDINGS], dumps[MAX_BINDINGS];
    int nargs = 0, ngms = 0, ndumps = 0;
    uint64_t max_cycles = DEFAULT_MAX_CYCLES, blocks = 1, pmu_period = 0, pmu_ring = 4096;
    const char *pmu = NULL, *metrics = NULL;
    bool json = false, data = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--json") == 0)
            json = true;
        else if (strcmp(a, "--no-data") == 0)
            data = false;
        else if (strcmp(a, "--chip") == 0 && has_value)
            chip = argv[++i];
        else if (strcmp(a, "--config") == 0 && has_value)
            config = argv[++i];
        else if (strcmp(a, "--set") == 0 && has_value) {
            if (nsets == MAX_BINDINGS)
                return cli_usage_error("run", "too many --set options");
            sets[nsets++] = argv[++i];
        } else if (strcmp(a, "--kernel") == 0 && has_value)
            kernel = argv[++i];
        else if (strcmp(a, "--blocks") == 0 && has_value) {
            if (!parse_u64(argv[++i], &blocks) || blocks == 0)
                return cli_usage_error("run", "--blocks needs a positive number");
        } else if (strcmp(a, "--metrics") == 0 && has_value) {
            metrics = argv[++i];
            if (dv_metric_group_find(metrics) < 0) {
                char list[256] = "";
                for (unsigned g = 0; g < dv_metric_group_count(); g++) {
                    strncat(list, g ? ", " : "", sizeof list - strlen(list) - 1);
                    strncat(list, dv_metric_group_name(g), sizeof list - strlen(list) - 1);
                }
                return cli_usage_error("run", "--metrics: unknown group '%s' (%s)", metrics, list);
            }
        } else if (strcmp(a, "--pmu") == 0 && has_value) {
            pmu = argv[++i];
        } else if (strcmp(a, "--pmu-period") == 0 && has_value) {
            if (!parse_u64(argv[++i], &pmu_period) || pmu_period == 0)
                return cli_usage_error("run", "--pmu-period needs a positive number of cycles, not '%s'",
                                       argv[i]);
        } else if (strcmp(a, "--pmu-ring") == 0 && has_value) {
            if (!parse_u64(argv[++i], &pmu_ring) || pmu_ring == 0 || pmu_ring > 1000000)
                return cli_usage_error("run", "--pmu-ring needs 1 to 1000000 records, not '%s'", argv[i]);
        } else if (strcmp(a, "--out") == 0 && has_value)
            outdir = argv[++i];
        else if (strcmp(a, "--max-cycles") == 0 && has_value) {
            if (!parse_u64(argv[++i], &max_cycles))
                return cli_usage_error("run", "--max-cycles needs a number");
        } else if ((strcmp(a, "--arg") == 0 || strcmp(a, "--gm") == 0 || strcmp(a, "--dump") == 0) &&
                   has_value) {
            char *kv = argv[++i];
            char *eq = strchr(kv, '=');
            if (!eq || eq == kv)
                return cli_usage_error("run", "%s needs NAME=VALUE, not '%s'", a, kv);
            *eq = '\0';
            binding *list = a[2] == 'a' ? args : a[2] == 'g' ? gms : dumps;
            int *count = a[2] == 'a' ? &nargs : a[2] == 'g' ? &ngms : &ndumps;
            if (*count == MAX_BINDINGS)
                return cli_usage_error("run", "too many %s options", a);
            list[(*count)++] = (binding){kv, eq + 1};
        } else if (a[0] == '-' && a[1])
            return cli_usage_error("run", "unknown option '%s' (or it lacks its value)", a);
        else if (path)
            return cli_usage_error("run", "one kernel at a time ('%s' and '%s')", path, a);
        else
            path = a;
    }
    if (!path)
        return cli_usage_error("run", "no kernel given");
    dv_error err = {DV_OK, ""};
    dv_chip_config cfg;
    if (chip && config)
        return cli_usage_error("run", "--chip and --config both name a chip; use one");
    if (config ? dv_config_load_ini(config, &cfg, &err) != DV_OK
               : dv_config_builtin(chip ? chip : dv_config_default_name(), &cfg, &err) != DV_OK)
        return cli_fail(&err);
    for (int i = 0; i < nsets; i++)
        if (dv_config_set_kv(&cfg, sets[i], &err) != DV_OK)
            return cli_fail(&err);
    dv_obj *obj = NULL;
    int rc = load_object(path, &obj);
    if (rc)
        return rc;
    dv_sim *sim = dv_sim_create(&cfg, data, &err);
    if (!sim) {
        dv_obj_destroy(obj);
        return cli_fail(&err);
    }
    uint64_t addr[DV_MAX_KERNEL_ARGS] = {0}, len[DV_MAX_KERNEL_ARGS] = {0};
    if (dv_sim_load(sim, obj, kernel, &err) != DV_OK) {
        rc = cli_fail(&err);
        goto done;
    }
    const dv_obj_kernel *k = dv_sim_kernel(sim);
    if (dv_sim_set_blocks(sim, blocks, &err) != DV_OK) {
        rc = cli_fail(&err);
        goto done;
    }
    bool bound[DV_MAX_KERNEL_ARGS] = {false};
    for (int pass = 0; pass < 2; pass++) {
        binding *list = pass ? gms : args;
        for (int i = 0; i < (pass ? ngms : nargs); i++) {
            unsigned a;
            for (a = 0; a < k->nargs && strcmp(k->args[a].name, list[i].name) != 0; a++)
                ;
            if (a == k->nargs) {
                rc = cli_usage_error("run", "kernel %s has no argument '%s'", k->name, list[i].name);
                goto done;
            }
            if ((k->args[a].type == DV_ARG_PTR) != (pass == 1)) {
                rc = cli_usage_error("run", "argument '%s' is %s: give it with %s", list[i].name,
                                     k->args[a].type == DV_ARG_PTR ? "a GM pointer" : "a scalar",
                                     k->args[a].type == DV_ARG_PTR ? "--gm" : "--arg");
                goto done;
            }
            uint64_t v;
            if (pass == 0) {
                if (!parse_arg(k->args[a].type, list[i].spec, &v)) {
                    rc = cli_usage_error("run", "--arg %s: '%s' is not a valid %s", list[i].name,
                                         list[i].spec, dv_arg_type_name(k->args[a].type));
                    goto done;
                }
            } else if ((rc = make_buffer(sim, &list[i], &addr[a], &len[a])) != 0) {
                goto done;
            } else {
                v = addr[a];
            }
            dv_sim_set_arg(sim, a, v, NULL);
            bound[a] = true;
        }
    }
    for (unsigned a = 0; a < k->nargs; a++) {
        if (!bound[a]) {
            rc = cli_usage_error("run", "kernel %s needs argument '%s' (%s)", k->name, k->args[a].name,
                                 k->args[a].type == DV_ARG_PTR ? "--gm NAME=SPEC" : "--arg NAME=VALUE");
            goto done;
        }
    }
    pmu_ctx pc;
    memset(&pc, 0, sizeof pc);
    if (pmu_period && !pmu) {
        rc = cli_usage_error("run", "--pmu-period needs --pmu EVENT,...");
        goto done;
    }
    if (pmu && (rc = pmu_setup(&pc, sim, pmu, pmu_period, pmu_ring, outdir)) != 0)
        goto done;
    dv_run_result res;
    if (dv_sim_run(sim, max_cycles, &res, &err) != DV_OK) {
        rc = cli_fail(&err);
        goto done;
    }
    dv_stat_list stats;
    if (dv_stats_collect(sim, &res, &stats, &err) != DV_OK) {
        rc = cli_fail(&err);
        goto done;
    }
    dv_buf js = DV_BUF_INIT;
    dv_stats_json(&stats, &js);
    if (json)
        fputs(js.data, stdout);
    else
        print_report(sim, k->name, &res, &stats);
    if (outdir) {
        char p[4096];
        if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "dvsim: %s: cannot create: %s\n", outdir, strerror(errno));
            rc = 74;
        } else {
            snprintf(p, sizeof p, "%s/stats.json", outdir);
            if (cli_write_file(p, js.data, js.len, &err) != DV_OK)
                rc = cli_fail(&err);
            dv_buf ini = DV_BUF_INIT;
            dv_config_write_ini(&cfg, &ini);
            snprintf(p, sizeof p, "%s/config.ini", outdir);
            if (!rc && cli_write_file(p, ini.data, ini.len, &err) != DV_OK)
                rc = cli_fail(&err);
            dv_buf_free(&ini);
        }
    }
    dv_buf_free(&js);
    dv_stats_free(&stats);
    for (int i = 0; i < ndumps && !rc; i++) {
        unsigned a;
        for (a = 0; a < k->nargs && strcmp(k->args[a].name, dumps[i].name) != 0; a++)
            ;
        if (a == k->nargs || !len[a]) {
            rc = cli_usage_error("run", "--dump %s: not a GM argument given with --gm", dumps[i].name);
            break;
        }
        dv_access_fault f;
        if (cli_write_file(dumps[i].spec, dv_gm_span(dv_sim_gm(sim), addr[a], len[a], &f), len[a], &err) !=
            DV_OK)
            rc = cli_fail(&err);
    }
    if (metrics && !json)
        print_metrics(sim, &res, (unsigned)dv_metric_group_find(metrics));
    if (pc.perf) {
        int prc = pmu_finish(&pc, json);
        if (!rc)
            rc = prc;
    }
    if (res.stop != DV_STOP_DONE) {
        fprintf(stderr, "dvsim run: %s: %s\n", dv_stop_name(res.stop), res.message);
        if (!rc)
            rc = 1;
    }
done:
    if (pc.perf) {
        dv_samples_close(pc.w, NULL);
        dv_perf_close(pc.perf);
    }
    dv_sim_destroy(sim);
    dv_obj_destroy(obj);
    return rc;
}
