/* dv_config.h - chip configurations.
 *
 * Every number the simulator uses for a chip lives in a dv_chip_config; the
 * fields, their INI keys, units, limits, per-chip defaults and sources are
 * the rows of chip_config.def.  The chips of isa/chips.def are compiled in
 * (the first, ascend910, is the default). */
#ifndef DV_CONFIG_H
#define DV_CONFIG_H

#include "dv_buf.h"
#include "dv_isa.h"
#include "dv_status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { DV_CHIP_NAME_MAX = 64, DV_MAX_DMA_REQUESTS = 16 /* path.mteN_requests, at most */ };

/* The built-in chips (isa/chips.def), in the order of chip_config.def's columns. */
typedef enum dv_chip_id {
#define DV_CHIP(id, name, family) DV_CHIP_##id,
#include "chips.def"
#undef DV_CHIP
    DV_CHIP_COUNT
} dv_chip_id;

typedef struct dv_chip_config {
    char name[DV_CHIP_NAME_MAX];
#define DV_CFG(member, key, unit, min, v910, v910b, v310, v910b1, v910b3, doc) uint64_t member;
#include "chip_config.def"
#undef DV_CFG
} dv_chip_config;

/* One row of the table, for readers, writers and listings. */
typedef struct dv_config_key {
    const char *key; /* "section.name" */
    const char *unit;
    uint64_t min;
    size_t offset;                        /* of the uint64_t member in dv_chip_config */
    const char *doc;                      /* meaning and source */
    uint64_t chip_default[DV_CHIP_COUNT]; /* the built-in chips' values */
} dv_config_key;

size_t dv_config_key_count(void);
const dv_config_key *dv_config_key_at(size_t index);
const dv_config_key *dv_config_key_find(const char *key); /* NULL if unknown */
uint64_t dv_config_get(const dv_chip_config *cfg, const dv_config_key *k);
void dv_config_set(dv_chip_config *cfg, const dv_config_key *k, uint64_t value);

/* The compiled-in chips. */
size_t dv_config_builtin_count(void);
const char *dv_config_builtin_name(size_t index);
/* Copies the named built-in config; DV_ERR_CONFIG if there is none. */
dv_status dv_config_builtin(const char *name, dv_chip_config *out, dv_error *err);
const char *dv_config_default_name(void); /* "ascend910" */

/* Consistency of a config: limits, alignment of buffer sizes, paths the core
 * type needs.  DV_ERR_CONFIG with the offending key. */
dv_status dv_config_validate(const dv_chip_config *cfg, dv_error *err);
/* The upper bound of every key of a unit (chip_config.def's unit column);
 * false if the unit has none (validation then fails). */
bool dv_config_unit_max(const char *unit, uint64_t *max);
/* As dv_config_validate; on failure *bad_key names the key at fault. */
dv_status dv_config_validate_at(const dv_chip_config *cfg, const char **bad_key, dv_error *err);

/* Reads an INI chip config (docs/chip-config.md): either "[chip] base = NAME"
 * and the keys to change, or every key.  Unknown sections or keys, missing
 * keys, values that are not unsigned integers (with optional K/M/G binary
 * suffixes) and impossible values are DV_ERR_CONFIG "FILE:LINE: key: what";
 * a file that cannot be read is DV_ERR_MISSING. */
dv_status dv_config_load_ini(const char *path, dv_chip_config *out, dv_error *err);
/* Applies "section.key=value" (the --set option) and revalidates. */
dv_status dv_config_set_kv(dv_chip_config *cfg, const char *assignment, dv_error *err);

/* The config as INI text ("[section]" then "key = value  ; unit: source"),
 * the form --config files take; appended to out. */
void dv_config_write_ini(const dv_chip_config *cfg, dv_buf *out);

/* Bytes per cycle of a path (path.<key>), 0 if the chip lacks it. */
uint64_t dv_path_bw(const dv_chip_config *cfg, dv_path p);

/* Derived figures. */
double dv_config_peak_fp16_flops(const dv_chip_config *cfg); /* whole chip, FLOP/s */
double dv_config_core_macs_fp16(const dv_chip_config *cfg);  /* per core per cycle */
double dv_config_core_macs_int8(const dv_chip_config *cfg);  /* per core per cycle */
double dv_config_core_macs_fp32(const dv_chip_config *cfg);  /* per core per cycle; 0: no fp32 Cube */

#endif
