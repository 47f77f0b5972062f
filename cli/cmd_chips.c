/* cmd_chips.c - dvsim chips: the chip configs dvsim knows (built in and in
 * the directories of DVSIM_CHIP_PATH), their key figures and a health check. */
#include "cli.h"
#include "dv_config.h"

#include <dirent.h>
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

static int list_keys(bool json)
{
    if (json)
        printf("[\n");
    for (size_t i = 0; i < dv_config_key_count(); i++) {
        const dv_config_key *k = dv_config_key_at(i);
        if (json) {
            printf("  {\"key\": ");
            cli_json_string(stdout, k->key);
            printf(", \"unit\": ");
            cli_json_string(stdout, k->unit);
            printf(", \"min\": %llu, \"doc\": ", (unsigned long long)k->min);
            cli_json_string(stdout, k->doc);
            printf("}%s\n", i + 1 < dv_config_key_count() ? "," : "");
        } else {
            printf("%-32s %-14s min %-6llu %s\n", k->key, k->unit, (unsigned long long)k->min, k->doc);
        }
    }
    if (json)
        printf("]\n");
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

int cmd_chips(int argc, char **argv)
{
    bool json = false, keys = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--keys") == 0)
            keys = true;
        else
            return cli_usage_error("chips", "unknown argument '%s'", argv[i]);
    }
    if (keys)
        return list_keys(json);
    entry *list = NULL;
    size_t n = 0;
    for (size_t i = 0; i < dv_config_builtin_count(); i++) {
        entry *grown = realloc(list, (n + 1) * sizeof *grown);
        if (!grown)
            break;
        list = grown;
        entry *e = &list[n++];
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
            add_dir(&list, &n, dir);
        free(copy);
    }
    if (json)
        printf("[\n");
    else
        printf("%-14s %-22s %5s %6s %8s %9s %9s %8s %8s %7s %7s  %s\n", "chip", "source", "cores", "MHz",
               "fp16 TF", "int8 TOPS", "HBM GB/s", "L1 KiB", "UB KiB", "L0A/B", "L0C", "health");
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const dv_chip_config *c = &list[i].cfg;
        bool ok = list[i].status == DV_OK;
        bad += !ok;
        double f16 = ok ? dv_config_peak_fp16_flops(c) / 1e12 : 0;
        double i8 = ok ? f16 * (double)c->cube_k_int8 / (double)c->cube_k_fp16 : 0;
        double hbm = (double)c->hbm_bytes_per_cycle * (double)c->clock_mhz / 1e3;
        char cores[32];
        if (c->split)
            snprintf(cores, sizeof cores, "%llu+%llu", (unsigned long long)c->cores,
                     (unsigned long long)(c->cores * c->aiv_per_aic));
        else
            snprintf(cores, sizeof cores, "%llu", (unsigned long long)c->cores);
        if (json) {
            printf("  {\"name\": ");
            cli_json_string(stdout, c->name);
            printf(", \"source\": ");
            cli_json_string(stdout, list[i].source);
            printf(", \"ok\": %s, \"problem\": ", ok ? "true" : "false");
            cli_json_string(stdout, ok ? "" : list[i].problem);
            printf(
                ", \"cores\": %llu, \"aiv_per_aic\": %llu, \"clock_mhz\": %llu, \"peak_fp16_tflops\": %.2f, "
                "\"peak_int8_tops\": %.2f, \"hbm_gbps\": %.1f, \"l1_bytes\": %llu, \"ub_bytes\": %llu, "
                "\"l0a_bytes\": %llu, \"l0b_bytes\": %llu, \"l0c_bytes\": %llu}%s\n",
                (unsigned long long)c->cores, (unsigned long long)c->aiv_per_aic,
                (unsigned long long)c->clock_mhz, f16, i8, hbm, (unsigned long long)c->l1_bytes,
                (unsigned long long)c->ub_bytes, (unsigned long long)c->l0a_bytes,
                (unsigned long long)c->l0b_bytes, (unsigned long long)c->l0c_bytes, i + 1 < n ? "," : "");
        } else if (ok) {
            printf("%-14s %-22.22s %5s %6llu %8.1f %9.1f %9.0f %8llu %8llu %7llu %7llu  ok\n", c->name,
                   list[i].source, cores, (unsigned long long)c->clock_mhz, f16, i8, hbm,
                   (unsigned long long)c->l1_bytes / 1024, (unsigned long long)c->ub_bytes / 1024,
                   (unsigned long long)c->l0a_bytes / 1024, (unsigned long long)c->l0c_bytes / 1024);
        } else {
            printf("%-14s %-22.22s  BROKEN: %s\n", c->name, list[i].source, list[i].problem);
        }
    }
    if (json)
        printf("]\n");
    free(list);
    return bad ? 78 : 0;
}
