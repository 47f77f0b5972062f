/* dv_config.c - the chip-config table and the compiled-in chips. */
#include "dv_config.h"

#include "dv_text.h"

#include <stdio.h>
#include <string.h>

static const dv_config_key keys[] = {
#define DV_CFG(member, key, unit, min, v910, v910b, v310, v910b1, v910b3, doc)                               \
    {key, unit, min, offsetof(dv_chip_config, member), doc, {v910, v910b, v310, v910b1, v910b3}},
#include "chip_config.def"
#undef DV_CFG
};
enum { NKEYS = sizeof keys / sizeof keys[0] };

static const char *const chip_names[DV_CHIP_COUNT] = {
#define DV_CHIP(id, name, family) name,
#include "chips.def"
#undef DV_CHIP
};

size_t dv_config_key_count(void)
{
    return NKEYS;
}

const dv_config_key *dv_config_key_at(size_t index)
{
    return index < NKEYS ? &keys[index] : NULL;
}

const dv_config_key *dv_config_key_find(const char *key)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].key, key) == 0)
            return &keys[i];
    return NULL;
}

uint64_t dv_config_get(const dv_chip_config *cfg, const dv_config_key *k)
{
    uint64_t v;
    memcpy(&v, (const char *)cfg + k->offset, sizeof v);
    return v;
}

void dv_config_set(dv_chip_config *cfg, const dv_config_key *k, uint64_t value)
{
    memcpy((char *)cfg + k->offset, &value, sizeof value);
}

uint64_t dv_path_bw(const dv_chip_config *cfg, dv_path p)
{
    switch (p) {
#define DV_PATH_ROW(id, ev, name, key, src, dst, min, v910, v910b, v310, v910b1, v910b3, doc)                \
    case DV_PATH_##id:                                                                                       \
        return cfg->bw_##id;
#include "paths.def"
#undef DV_PATH_ROW
    default: return 0;
    }
}

/* A path's bandwidth key, "path.<key>" (chip_config.def's rows of paths.def). */
static const char *path_bw_key(dv_path p)
{
    switch (p) {
#define DV_PATH_ROW(id, ev, name, key, src, dst, min, v910, v910b, v310, v910b1, v910b3, doc)                \
    case DV_PATH_##id:                                                                                       \
        return "path." key;
#include "paths.def"
#undef DV_PATH_ROW
    default: return "path.?";
    }
}

size_t dv_config_builtin_count(void)
{
    return DV_CHIP_COUNT;
}

const char *dv_config_builtin_name(size_t index)
{
    return index < DV_CHIP_COUNT ? chip_names[index] : NULL;
}

const char *dv_config_default_name(void)
{
    return chip_names[0];
}

dv_status dv_config_builtin(const char *name, dv_chip_config *out, dv_error *err)
{
    for (size_t i = 0; i < DV_CHIP_COUNT; i++) {
        if (strcmp(chip_names[i], name) == 0) {
            memset(out, 0, sizeof *out);
            snprintf(out->name, sizeof out->name, "%s", chip_names[i]);
            for (size_t k = 0; k < NKEYS; k++)
                dv_config_set(out, &keys[k], keys[k].chip_default[i]);
            return DV_OK;
        }
    }
    char names[128] = "";
    for (size_t i = 0; i < DV_CHIP_COUNT; i++) {
        strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
        strncat(names, chip_names[i], sizeof names - strlen(names) - 1);
    }
    return dv_error_set(err, DV_ERR_CONFIG, "unknown chip '%s' (built in: %s)", DV_ESC(name), names);
}

/* Records the key a failed check names, for file:line reporting. */
#define FAIL(keyname, ...)                                                                                   \
    do {                                                                                                     \
        if (bad_key)                                                                                         \
            *bad_key = (keyname);                                                                            \
        return dv_error_set(err, DV_ERR_CONFIG, __VA_ARGS__);                                                \
    } while (0)

/* Upper bounds by a key's unit (its chip_config.def column), so that every
 * key has one, also a key added later, without a column in every row.  Why
 * each is safe and still far beyond any chip:
 *   cycles, cycles/repeat  2^32: one instruction's or transfer's cost.  The
 *       simulator adds costs to a 64-bit clock; at most 2^32 (times at most
 *       255 repeats) per step, the clock would need 2^24 such steps past the
 *       cycle limit to wrap, so every sum stays exact.  Real costs are tens
 *       to thousands of cycles.
 *   bytes      2^36 (64 GiB): the largest GM of a built-in chip (910B); buffers
 *       have tighter per-key bounds below, L2 is bounded by the GM.
 *   B/cycle    2^20: a path or HBM moving 1 MiB per cycle (1 PB/s at 1 GHz,
 *       1000x the 910's HBM); keeps bytes/bandwidth products in range.
 *   MHz 10^5, cores 4096, bool 1, elements 4096 (a Cube fractal side),
 *   repeats 2^16 (the ISA's repeat fields are 8 bits), banks and groups 4096,
 *   ways 1024, "x HBM" 1024, ids 4096, instructions 4096 (queues are
 *   allocated per pipe), count 2^32, requests 4096 (the per-key bound below
 *   is the engines' table, DV_MAX_DMA_REQUESTS), "x slope" 1024 (a multiple
 *   of a per-repeat slope, itself at most 2^32: the product stays in 2^42).
 * A unit not listed here fails validation (test 'config' checks that every
 * key's unit has a bound). */
static const struct {
    const char *unit;
    uint64_t max;
} unit_max[] = {
    {"cycles", 1ull << 32},
    {"cycles/repeat", 1ull << 32},
    {"bytes", 1ull << 36},
    {"B/cycle", 1ull << 20},
    {"MHz", 100000},
    {"cores", 4096},
    {"bool", 1},
    {"elements", 4096},
    {"repeats", 1u << 16},
    {"banks", 4096},
    {"groups", 4096},
    {"ways", 1024},
    {"x HBM", 1024},
    {"ids", 4096},
    {"instructions", 4096},
    {"count", 1ull << 32},
    {"requests", 4096},
    {"x slope", 1024},
};

bool dv_config_unit_max(const char *unit, uint64_t *max)
{
    for (size_t i = 0; i < sizeof unit_max / sizeof unit_max[0]; i++)
        if (strcmp(unit_max[i].unit, unit) == 0) {
            *max = unit_max[i].max;
            return true;
        }
    return false;
}

dv_status dv_config_validate_at(const dv_chip_config *cfg, const char **bad_key, dv_error *err)
{
    for (size_t i = 0; i < NKEYS; i++) {
        uint64_t v = dv_config_get(cfg, &keys[i]), max;
        if (!dv_config_unit_max(keys[i].unit, &max))
            FAIL(keys[i].key, "%s: %s has unit '%s', which has no upper bound (dv_config.c)", cfg->name,
                 keys[i].key, keys[i].unit);
        if (v > max)
            FAIL(keys[i].key, "%s: %s = %llu is above its maximum %llu (%s)", cfg->name, keys[i].key,
                 (unsigned long long)v, (unsigned long long)max, keys[i].unit);
    }
    for (size_t i = 0; i < NKEYS; i++) {
        uint64_t v = dv_config_get(cfg, &keys[i]);
        if (v < keys[i].min)
            FAIL(keys[i].key, "%s: %s = %llu is below its minimum %llu", cfg->name, keys[i].key,
                 (unsigned long long)v, (unsigned long long)keys[i].min);
    }
    /* Upper bounds that keep the model's tables and the host's memory sane. */
    static const struct {
        const char *key;
        uint64_t max;
    } upper[] = {
        {"chip.cores", 4096},
        {"chip.split", 1},
        {"chip.aiv_per_aic", 8},
        {"chip.clock_mhz", 100000},
        {"ub.banks", 256},
        {"ub.bank_groups", 64},
        {"sync.event_ids", DV_MAX_EVENT_IDS},
        {"path.mte1_requests", DV_MAX_DMA_REQUESTS},
        {"path.mte2_requests", DV_MAX_DMA_REQUESTS},
        {"path.mte3_requests", DV_MAX_DMA_REQUESTS},
        {"sync.queue_depth", 4096},
        {"buffer.l1_bytes", 1ull << 30},
        {"buffer.l0a_bytes", 1ull << 30},
        {"buffer.l0b_bytes", 1ull << 30},
        {"buffer.l0c_bytes", 1ull << 30},
        {"buffer.ub_bytes", 1ull << 30},
        {"memory.l2_ways", 256}, /* the L2 keeps its LRU order as a byte per way (dv_l2.c) */
    };
    for (size_t i = 0; i < sizeof upper / sizeof upper[0]; i++) {
        uint64_t v = dv_config_get(cfg, dv_config_key_find(upper[i].key));
        if (v > upper[i].max)
            FAIL(upper[i].key, "%s: %s = %llu is above its maximum %llu", cfg->name, upper[i].key,
                 (unsigned long long)v, (unsigned long long)upper[i].max);
    }
    static const struct {
        const char *size, *align;
    } aligned[] = {
        {"buffer.ub_bytes", "align.ub"},    {"buffer.l1_bytes", "align.l1"},
        {"buffer.l0a_bytes", "align.l0ab"}, {"buffer.l0b_bytes", "align.l0ab"},
        {"buffer.l0c_bytes", "align.l0c"},
    };
    for (size_t i = 0; i < sizeof aligned / sizeof aligned[0]; i++) {
        uint64_t size = dv_config_get(cfg, dv_config_key_find(aligned[i].size));
        uint64_t align = dv_config_get(cfg, dv_config_key_find(aligned[i].align));
        if (align & (align - 1))
            FAIL(aligned[i].align, "%s: %s = %llu is not a power of two", cfg->name, aligned[i].align,
                 (unsigned long long)align);
        if (size % align)
            FAIL(aligned[i].size, "%s: %s = %llu is not a multiple of %s = %llu", cfg->name, aligned[i].size,
                 (unsigned long long)size, aligned[i].align, (unsigned long long)align);
    }
    if (cfg->l2_bytes > cfg->gm_bytes)
        FAIL("memory.l2_bytes", "%s: memory.l2_bytes = %llu is larger than the GM (memory.gm_bytes = %llu)",
             cfg->name, (unsigned long long)cfg->l2_bytes, (unsigned long long)cfg->gm_bytes);
    if (cfg->split && cfg->aiv_per_aic == 0)
        FAIL("chip.aiv_per_aic", "%s: a split chip needs chip.aiv_per_aic >= 1", cfg->name);
    if (!cfg->split && dv_path_bw(cfg, DV_PATH_L0C_UB) == 0)
        FAIL(path_bw_key(DV_PATH_L0C_UB),
             "%s: a coupled chip needs %s > 0 (its Cube results leave through UB)", cfg->name,
             path_bw_key(DV_PATH_L0C_UB));
    if (cfg->split && dv_path_bw(cfg, DV_PATH_L0C_GM) == 0)
        FAIL(path_bw_key(DV_PATH_L0C_GM), "%s: a split chip needs %s > 0 (FixPipe)", cfg->name,
             path_bw_key(DV_PATH_L0C_GM));
    if (cfg->ub_banks % cfg->ub_bank_groups)
        FAIL("ub.banks", "%s: ub.banks = %llu is not a multiple of ub.bank_groups = %llu", cfg->name,
             (unsigned long long)cfg->ub_banks, (unsigned long long)cfg->ub_bank_groups);
    return DV_OK;
}

dv_status dv_config_validate(const dv_chip_config *cfg, dv_error *err)
{
    return dv_config_validate_at(cfg, NULL, err);
}

double dv_config_core_macs_fp16(const dv_chip_config *cfg)
{
    return (double)cfg->cube_m * (double)cfg->cube_n * (double)cfg->cube_k_fp16 /
           (double)cfg->cube_fractal_cycles;
}

double dv_config_core_macs_int8(const dv_chip_config *cfg)
{
    return (double)cfg->cube_m * (double)cfg->cube_n * (double)cfg->cube_k_int8 /
           (double)cfg->cube_fractal_cycles;
}

/* fp32: 16 x 8 x 16 (C0 = 8, facts #5) per cube.fp32_fractal_cycles. */
double dv_config_core_macs_fp32(const dv_chip_config *cfg)
{
    return cfg->cube_fp32_fractal_cycles
               ? (double)cfg->cube_m * (double)cfg->cube_n * (double)(cfg->cube_k_fp16 / 2) /
                     (double)cfg->cube_fp32_fractal_cycles
               : 0;
}

double dv_config_peak_fp16_flops(const dv_chip_config *cfg)
{
    return 2.0 * dv_config_core_macs_fp16(cfg) * (double)cfg->cores * (double)cfg->clock_mhz * 1e6;
}

void dv_config_write_ini(const dv_chip_config *cfg, dv_buf *out)
{
    dv_buf_printf(out, "; effective chip config written by dvsim\n[chip]\nname = %s\n", cfg->name);
    char section[32] = "chip";
    for (size_t i = 0; i < NKEYS; i++) {
        const char *dot = strchr(keys[i].key, '.');
        size_t n = (size_t)(dot - keys[i].key);
        if (strlen(section) != n || strncmp(section, keys[i].key, n) != 0) {
            snprintf(section, sizeof section, "%.*s", (int)n, keys[i].key);
            dv_buf_printf(out, "\n[%s]\n", section);
        }
        dv_buf_printf(out, "%s = %llu  ; %s: %s\n", dot + 1, (unsigned long long)dv_config_get(cfg, &keys[i]),
                      keys[i].unit, keys[i].doc);
    }
}
