/* ops_run.h - runs one operator through the operator driver (dv_opjob.h),
 * the way dvsim run does, for tests. */
#ifndef DV_OPS_RUN_H
#define DV_OPS_RUN_H

#include "dv_opjob.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

typedef struct op_result {
    dv_status status; /* of dv_opjob_run */
    dv_run_result res;
    dv_opr_check check;
    dv_opr_roofline roof;
    dv_opr_launch total;
    unsigned launches;
    double cube_pct;                /* core 0 */
    double chip_cube_pct;           /* mean over the cores used */
    double path_pct[DV_PATH_COUNT]; /* core 0: bytes / cycles / peak */
} op_result;

/* The job op_run runs, kept: *r holds the run, its simulation and its
 * statistics until dv_opjob_free(r), for a test that looks into them.
 * *cfg receives the chip's config and must outlive *r.  Returns the status
 * of dv_opjob_run; a run that does not finish (DV_STOP_DONE) fails the
 * test.  variant and dtype may be NULL (the operator's first). */
static inline dv_status op_run_kept(dv_opjob_result *r, dv_chip_config *cfg, const char *op, const char *chip,
                                    const char *variant, const char *dtype, const char *shape,
                                    uint64_t blocks, bool data)
{
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_config_builtin(chip, cfg, &err), DV_OK);
    dv_opjob job = {.op = dv_operator_find(op),
                    .req = {.variant = variant, .dtype = dtype, .shape = shape, .seed = 7, .blocks = blocks},
                    .cfg = cfg,
                    .data = data,
                    .max_cycles = 2000000000ull};
    ck_assert_ptr_nonnull(job.op);
    dv_status st = dv_opjob_run(&job, r, &err);
    if (st == DV_OK)
        ck_assert_msg(r->res.stop == DV_STOP_DONE, "%s %s %s %s %s: %s", op, chip, variant ? variant : "-",
                      dtype ? dtype : "-", shape, r->res.message ? r->res.message : "");
    return st;
}

static inline op_result op_run(const char *op, const char *chip, const char *variant, const char *dtype,
                               const char *shape, uint64_t blocks, bool data)
{
    op_result o;
    memset(&o, 0, sizeof o);
    dv_chip_config cfg;
    dv_opjob_result r;
    o.status = op_run_kept(&r, &cfg, op, chip, variant, dtype, shape, blocks, data);
    if (o.status == DV_OK) {
        o.res = r.res;
        o.res.message = NULL; /* they point into the run, freed below */
        o.res.stats = NULL;
        o.check = r.run->check;
        o.roof = r.roof;
        o.total = r.total;
        o.launches = r.run->nlaunched;
        o.cube_pct = dv_stats_find(&r.stats, "core0.cube.utilisation_pct")->value;
        o.chip_cube_pct = r.cube_pct;
        for (int p = 1; p < DV_PATH_COUNT; p++) {
            char name[96];
            snprintf(name, sizeof name, "core0.path.%s.utilisation_pct", dv_path_key((dv_path)p));
            const dv_stat *st = dv_stats_find(&r.stats, name);
            o.path_pct[p] = st ? st->value : 0;
        }
    }
    dv_opjob_free(&r);
    return o;
}

#endif
