/* dvsim_api.c - libdvsim's C ABI (dvsim_api.h) over the operator driver. */
#include "dvsim_api.h"

#include "dv_opjob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DVSIM_VERSION
#define DVSIM_VERSION "unknown"
#endif

static int failed(dv_status st, const char *msg, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return dv_status_exit_code(st);
}

/* The chip config: built in or a file, then the --set changes. */
static int chip_config(const char *chip, const char *config, const char *const *sets, int nsets,
                       dv_chip_config *cfg, char *err, size_t errlen)
{
    dv_error e = {DV_OK, ""};
    if (config ? dv_config_load_ini(config, cfg, &e) != DV_OK
               : dv_config_builtin(chip ? chip : dv_config_default_name(), cfg, &e) != DV_OK)
        return failed(e.status, e.msg, err, errlen);
    for (int i = 0; i < nsets; i++)
        if (dv_config_set_kv(cfg, sets[i], &e) != DV_OK)
            return failed(e.status, e.msg, err, errlen);
    return 0;
}

int dvsim_run_op(const char *op, const char *variant, const char *dtype, const char *shape, const char *chip,
                 const char *config, const char *const *sets, int nsets, uint64_t seed, uint64_t blocks,
                 int data, char **json, char *err, size_t errlen)
{
    *json = NULL;
    if (err && errlen)
        err[0] = '\0';
    const dv_operator *opr = op ? dv_operator_find(op) : NULL;
    if (!opr)
        return failed(DV_ERR_INPUT, "no such operator (dvsim ops lists them)", err, errlen);
    dv_chip_config cfg;
    int rc = chip_config(chip, config, sets, nsets, &cfg, err, errlen);
    if (rc)
        return rc;
    dv_opjob job = {
        .op = opr,
        .req = {.variant = variant, .dtype = dtype, .shape = shape, .seed = seed, .blocks = blocks},
        .cfg = &cfg,
        .data = data != 0,
        .max_cycles = 1000000000ull}; /* dvsim run's default limit */
    dv_opjob_result r;
    dv_error e = {DV_OK, ""};
    if (dv_opjob_run(&job, &r, &e) != DV_OK) {
        dv_opjob_free(&r);
        return failed(e.status, e.msg, err, errlen);
    }
    dv_buf b = DV_BUF_INIT;
    if (dv_stats_json(&r.stats, &b) != DV_OK) {
        dv_buf_free(&b);
        dv_opjob_free(&r);
        return failed(DV_ERR_NOMEM, "out of memory for the statistics", err, errlen);
    }
    *json = dv_buf_take(&b, NULL);
    if (r.res.stop != DV_STOP_DONE) { /* a fault, a deadlock, the cycle limit: exit 1, as dvsim run */
        failed(DV_ERR_INPUT, r.res.message ? r.res.message : dv_stop_name(r.res.stop), err, errlen);
        rc = 1;
    } else if (r.checked && !r.passed) {
        if (err && errlen)
            snprintf(err, errlen, "the outputs do not match the reference: %s", r.run->check.first_bad);
        rc = 1;
    }
    dv_opjob_free(&r);
    return rc;
}

int dvsim_chip_ini(const char *chip, const char *const *sets, int nsets, char **ini, char *err, size_t errlen)
{
    *ini = NULL;
    dv_chip_config cfg;
    size_t n = chip ? strlen(chip) : 0;
    bool file = chip && n > 4 && strcmp(chip + n - 4, ".ini") == 0;
    int rc = chip_config(file ? NULL : chip, file ? chip : NULL, sets, nsets, &cfg, err, errlen);
    if (rc)
        return rc;
    dv_buf b = DV_BUF_INIT;
    dv_config_write_ini(&cfg, &b);
    *ini = dv_buf_take(&b, NULL);
    return *ini ? 0 : failed(DV_ERR_NOMEM, "out of memory", err, errlen);
}

void dvsim_free(void *p)
{
    free(p);
}

const char *dvsim_version(void)
{
    return DVSIM_VERSION;
}
