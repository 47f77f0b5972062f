/* cmd_chips.c - dvsim chips: the chip configs dvsim knows (built in and in
 * the directories of DVSIM_CHIP_PATH), their key figures and a health check. */
#include "cli.h"
#include "dv_config.h"

#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void cmd_chips_help(FILE *out)
{
    fprintf(out, "usage: dvsim chips [--json] [--keys]\n\n"
                 "Lists the built-in chip configs and every *.ini file in the directories of\n"
                 "DVSIM_CHIP_PATH (colon-separated), with cores, clock, peak fp16/int8, HBM bandwidth,\n"
                 "buffer sizes and whether the config is consistent.\n\n"
                 "  --json   one JSON object\n"
                 "  --keys   list every config key with its unit, minimum and source instead\n");
}

typedef struct entry {
    char source[512]; /* "built-in" or the file */
    dv_chip_config cfg;
    dv_status status;
    char problem[DV_ERROR_MSG_MAX];
} entry;

static int keys_json(void)
{
    cJSON *list = cJSON_CreateArray();
    bool ok = list != NULL;
    for (size_t i = 0; ok && i < dv_config_key_count(); i++) {
        const dv_config_key *k = dv_config_key_at(i);
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(list, o);
        if (!ok)
            cJSON_Delete(o);
        ok = ok && cJSON_AddStringToObject(o, "key", k->key) && cJSON_AddStringToObject(o, "unit", k->unit) &&
             cli_json_add_u64(o, "min", k->min) && cJSON_AddStringToObject(o, "doc", k->doc);
    }
    return cli_print_json(list, ok);
}

static int list_keys(bool json)
{
    if (json)
        return keys_json();
    for (size_t i = 0; i < dv_config_key_count(); i++) {
        const dv_config_key *k = dv_config_key_at(i);
        printf("%-32s %-14s min %-6llu %s\n", k->key, k->unit, (unsigned long long)k->min, k->doc);
    }
    return 0;
}

static void add_dir(entry **list, size_t *n, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    /* readdir order is arbitrary: collect, then sort, for a stable listing */
    char **names = NULL;
    size_t count = 0;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".ini") != 0)
            continue;
        char **grown = realloc(names, (count + 1) * sizeof *grown);
        if (!grown)
            break;
        names = grown;
        names[count++] = strdup(de->d_name);
    }
    closedir(d);
    for (size_t i = 1; i < count; i++)
        for (size_t j = i; j > 0 && names[j] && names[j - 1] && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (size_t i = 0; i < count; i++) {
        entry *grown = names[i] ? realloc(*list, (*n + 1) * sizeof *grown) : NULL;
        if (grown) {
            *list = grown;
            entry *e = &(*list)[(*n)++];
            memset(e, 0, sizeof *e);
            snprintf(e->source, sizeof e->source, "%s/%s", dir, names[i]);
            dv_error err = {DV_OK, ""};
            e->status = dv_config_load_ini(e->source, &e->cfg, &err);
            snprintf(e->problem, sizeof e->problem, "%s", err.msg);
            if (e->status != DV_OK)
                snprintf(e->cfg.name, sizeof e->cfg.name, "%.*s", (int)strcspn(names[i], "."), names[i]);
        }
        free(names[i]);
    }
    free(names);
}

/* The built-in chips, then the *.ini files of DVSIM_CHIP_PATH. */
static void collect(entry **list, size_t *n)
{
    for (size_t i = 0; i < dv_config_builtin_count(); i++) {
        entry *grown = realloc(*list, (*n + 1) * sizeof *grown);
        if (!grown)
            break;
        *list = grown;
        entry *e = &grown[(*n)++];
        memset(e, 0, sizeof *e);
        snprintf(e->source, sizeof e->source, "built-in%s", i == 0 ? " (default)" : "");
        dv_config_builtin(dv_config_builtin_name(i), &e->cfg, NULL);
        dv_error err = {DV_OK, ""};
        e->status = dv_config_validate(&e->cfg, &err);
        snprintf(e->problem, sizeof e->problem, "%s", err.msg);
    }
    const char *path = getenv("DVSIM_CHIP_PATH");
    if (path && *path) {
        char *copy = strdup(path), *save = NULL;
        for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir; dir = strtok_r(NULL, ":", &save))
            add_dir(list, n, dir);
        free(copy);
    }
}

/* The key figures (0 for a config that does not validate). */
typedef struct figures {
    double f16_tflops, i8_tops, hbm_gbps;
    char cores[32];
} figures;

static void figures_of(const entry *e, figures *f)
{
    const dv_chip_config *c = &e->cfg;
    bool ok = e->status == DV_OK;
    f->f16_tflops = ok ? dv_config_peak_fp16_flops(c) / 1e12 : 0;
    f->i8_tops = ok ? f->f16_tflops * (double)c->cube_k_int8 / (double)c->cube_k_fp16 : 0;
    f->hbm_gbps = (double)c->hbm_bytes_per_cycle * (double)c->clock_mhz / 1e3;
    if (c->split)
        snprintf(f->cores, sizeof f->cores, "%llu+%llu", (unsigned long long)c->cores,
                 (unsigned long long)(c->cores * c->aiv_per_aic));
    else
        snprintf(f->cores, sizeof f->cores, "%llu", (unsigned long long)c->cores);
}

/* One chip as a JSON object; the figures rounded as the table shows them. */
static bool chip_json(cJSON *list, const entry *e)
{
    const dv_chip_config *c = &e->cfg;
    bool ok = e->status == DV_OK;
    figures f;
    figures_of(e, &f);
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(list, o)) {
        cJSON_Delete(o);
        return false;
    }
    return cJSON_AddStringToObject(o, "name", c->name) && cJSON_AddStringToObject(o, "source", e->source) &&
           cJSON_AddBoolToObject(o, "ok", ok) &&
           cJSON_AddStringToObject(o, "problem", ok ? "" : e->problem) &&
           cli_json_add_u64(o, "cores", c->cores) && cli_json_add_u64(o, "aiv_per_aic", c->aiv_per_aic) &&
           cli_json_add_u64(o, "clock_mhz", c->clock_mhz) &&
           cJSON_AddNumberToObject(o, "peak_fp16_tflops", round(f.f16_tflops * 100) / 100) &&
           cJSON_AddNumberToObject(o, "peak_int8_tops", round(f.i8_tops * 100) / 100) &&
           cJSON_AddNumberToObject(o, "hbm_gbps", round(f.hbm_gbps * 10) / 10) &&
           cli_json_add_u64(o, "l1_bytes", c->l1_bytes) && cli_json_add_u64(o, "ub_bytes", c->ub_bytes) &&
           cli_json_add_u64(o, "l0a_bytes", c->l0a_bytes) && cli_json_add_u64(o, "l0b_bytes", c->l0b_bytes) &&
           cli_json_add_u64(o, "l0c_bytes", c->l0c_bytes);
}

static void chip_row(const entry *e)
{
    const dv_chip_config *c = &e->cfg;
    if (e->status != DV_OK) {
        printf("%-14s %-22.22s  BROKEN: %s\n", c->name, e->source, e->problem);
        return;
    }
    figures f;
    figures_of(e, &f);
    printf("%-14s %-22.22s %5s %6llu %8.1f %9.1f %9.0f %8llu %8llu %7llu %7llu  ok\n", c->name, e->source,
           f.cores, (unsigned long long)c->clock_mhz, f.f16_tflops, f.i8_tops, f.hbm_gbps,
           (unsigned long long)c->l1_bytes / 1024, (unsigned long long)c->ub_bytes / 1024,
           (unsigned long long)c->l0a_bytes / 1024, (unsigned long long)c->l0c_bytes / 1024);
}

int cmd_chips(int argc, char **argv)
{
    enum { JSON = CLI_OPT_FIRST, KEYS };
    static const struct option longopts[] = {{"json", no_argument, NULL, JSON},
                                             {"keys", no_argument, NULL, KEYS},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    bool json = false, keys = false;
    cli_getopt g;
    cli_getopt_init(&g, "chips", argc, argv, "h", longopts, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_chips_help(stdout); return 0;
        case JSON: json = true; break;
        case KEYS: keys = true; break;
        case CLI_ARG: return cli_usage_error("chips", "unknown argument '%s'", g.arg);
        default: return EXIT_USAGE;
        }
    }
    if (keys)
        return list_keys(json);
    entry *list = NULL;
    size_t n = 0;
    collect(&list, &n);
    int bad = 0, rc = 0;
    for (size_t i = 0; i < n; i++)
        bad += list[i].status != DV_OK;
    if (json) {
        cJSON *arr = cJSON_CreateArray();
        bool ok = arr != NULL;
        for (size_t i = 0; ok && i < n; i++)
            ok = chip_json(arr, &list[i]);
        rc = cli_print_json(arr, ok);
    } else {
        printf("%-14s %-22s %5s %6s %8s %9s %9s %8s %8s %7s %7s  %s\n", "chip", "source", "cores", "MHz",
               "fp16 TF", "int8 TOPS", "HBM GB/s", "L1 KiB", "UB KiB", "L0A/B", "L0C", "health");
        for (size_t i = 0; i < n; i++)
            chip_row(&list[i]);
    }
    free(list);
    return rc ? rc : bad ? 78 : 0;
}
