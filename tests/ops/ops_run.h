/* ops_run.h - runs one operator the way `dvsim run OP` does, for tests. */
#ifndef DV_OPS_RUN_H
#define DV_OPS_RUN_H

#include "dv_operator.h"
#include "dv_stats.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

typedef struct op_result {
    dv_status status; /* of dv_opr_create */
    dv_run_result res;
    dv_opr_check check;
    dv_opr_roofline roof;
    double cube_pct;     /* core 0 */
    double chip_cube_pct; /* mean over the cores used */
    double path_pct[DV_PATH_COUNT]; /* core 0: bytes / cycles / peak */
} op_result;

static inline op_result op_run(const char *op, const char *chip, const char *variant, const char *dtype,
                               const char *shape, uint64_t blocks, bool data)
{
    op_result o;
    memset(&o, 0, sizeof o);
    dv_chip_config cfg;
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_config_builtin(chip, &cfg, &err), DV_OK);
    const dv_operator *opr = dv_operator_find(op);
    ck_assert_ptr_nonnull(opr);
    dv_opr_request req = {.variant = variant, .dtype = dtype, .shape = shape, .seed = 7, .blocks = blocks};
    dv_opr_run *r;
    o.status = dv_opr_create(opr, &req, &cfg, data, &r, &err);
    if (o.status != DV_OK)
        return o;
    ck_assert_int_eq(dv_opr_before_run(r, &err), DV_OK);
    ck_assert_int_eq(dv_sim_run(dv_opr_sim(r), 2000000000ull, &o.res, &err), DV_OK);
    ck_assert_msg(o.res.stop == DV_STOP_DONE, "%s %s %s %s %s: %s", op, chip, variant, dtype, shape,
                  o.res.message ? o.res.message : "");
    ck_assert_int_eq(dv_opr_check_outputs(r, &err), DV_OK);
    o.check = r->check;
    dv_opr_roofline_of(r, &o.res, &o.roof);
    dv_stat_list l;
    ck_assert_int_eq(dv_stats_collect(dv_opr_sim(r), &o.res, &l, &err), DV_OK);
    o.cube_pct = dv_stats_find(&l, "core0.cube.utilisation_pct")->value;
    o.chip_cube_pct = dv_stats_find(&l, "chip.cube.utilisation_avg_pct")->value;
    dv_core_info c0;
    ck_assert(dv_sim_core_info(dv_opr_sim(r), 0, &c0));
    for (int p = 1; p < DV_PATH_COUNT; p++) {
        uint64_t bw = dv_path_bw(&cfg, (dv_path)p);
        o.path_pct[p] = bw && o.res.cycles ? 100.0 * (double)c0.stats->path_bytes[p] / (double)o.res.cycles / (double)bw : 0;
    }
    dv_stats_free(&l);
    dv_opr_destroy(r);
    return o;
}

#endif
