/* test_ops_perf.c - the performance claims of the operators, from the
 * model's cycles (timing-only runs: the same cycles, no arithmetic).
 *  - the matmul ladder on one core: Cube utilisation strictly rises
 *    naive < tiled < pipelined < db, and db reaches 85% of the Cube's peak;
 *  - all 32 cores of ascend910 on a 2048^3 fp16 matmul: 70% of chip peak;
 *  - int8 on a compute-bound shape: about half the cycles of fp16;
 *  - vector operators on one core: 80% of the limiting path's bandwidth. */
#include "dv_sim_perf.h"
#include "dv_test_main.h"
#include "ops_run.h"

static void ladder(const char *chip)
{
    static const char *const variants[] = {"naive", "tiled", "pipelined", "db"};
    double prev = 0;
    for (unsigned v = 0; v < 4; v++) {
        op_result o = op_run("matmul", chip, variants[v], "f16", "M=1024,N=1024,K=1024", 1, false);
        ck_assert_int_eq(o.status, DV_OK);
        ck_assert_msg(o.cube_pct > prev, "%s: %s %.1f%% is not above %.1f%%", chip, variants[v], o.cube_pct,
                      prev);
        prev = o.cube_pct;
    }
    ck_assert_msg(prev >= 85.0, "%s: db reaches %.1f%% of the Cube's peak", chip, prev);
}

START_TEST(test_ladder_910)
{
    ladder("ascend910");
}
END_TEST

START_TEST(test_ladder_910b)
{
    ladder("ascend910b");
}
END_TEST

START_TEST(test_chip_peak_910)
{
    op_result o = op_run("matmul", "ascend910", "db", "f16", "M=2048,N=2048,K=2048", 0, false);
    ck_assert_int_eq(o.res.ncores, 32);
    ck_assert_msg(o.chip_cube_pct >= 70.0, "all cores: %.1f%% of chip peak", o.chip_cube_pct);
}
END_TEST

START_TEST(test_int8_half)
{
    op_result f = op_run("matmul", "ascend910", "db", "f16", "M=1024,N=1024,K=2048", 1, false);
    op_result q = op_run("matmul", "ascend910", "db", "s8-deq", "M=1024,N=1024,K=2048", 1, false);
    double ratio = (double)q.res.cycles / (double)f.res.cycles;
    ck_assert_msg(ratio > 0.4 && ratio < 0.6, "int8 / fp16 cycles = %.3f", ratio);
}
END_TEST

/* Each vector operator on a large input on one core: at least 80% of its
 * limiting resource (GM->UB for add and relu, the Vector unit for softmax
 * and layernorm, as the operator roofline says). */
START_TEST(test_vector_bandwidth)
{
    static const char *const chips[] = {"ascend910", "ascend910b"};
    static const struct {
        const char *op, *shape;
        bool memory_bound;
    } ops[] = {
        {"add", "N=4194304", true},
        {"relu", "N=4194304", true},
        {"softmax", "R=4096,C=1024", false},
        {"layernorm", "R=4096,C=1024", false},
    };
    for (unsigned c = 0; c < 2; c++)
        for (unsigned i = 0; i < sizeof ops / sizeof ops[0]; i++) {
            op_result o = op_run(ops[i].op, chips[c], NULL, "f16", ops[i].shape, 1, false);
            ck_assert_str_eq(o.roof.bound_by,
                             ops[i].memory_bound ? dv_path_name(DV_PATH_GM_UB) : dv_pipe_key(DV_PIPE_V));
            if (ops[i].memory_bound)
                ck_assert_msg(o.path_pct[DV_PATH_GM_UB] >= 80.0, "%s %s: GM->UB at %.1f%% of its peak",
                              chips[c], ops[i].op, o.path_pct[DV_PATH_GM_UB]);
            ck_assert_msg(o.roof.achieved >= 0.8, "%s %s: %.1f%% of the roofline", chips[c], ops[i].op,
                          100 * o.roof.achieved);
        }
}
END_TEST

/* Issue 7's agreement, on every operator of the registry: msprof's
 * PipeUtilization cube ratio is the report's Cube busy %, and the Memory
 * group's data volumes are the report's bytes per path, for core 0 and each
 * operator's default variant and dtype on every chip (timing-only, each
 * operator's first, small case). */
static double row_value(const dv_metric_row *row, const char *name)
{
    for (unsigned i = 0; i < row->n; i++)
        if (strcmp(row->name[i], name) == 0)
            return row->value[i];
    ck_abort_msg("no metric %s", name);
    return 0;
}

START_TEST(test_metrics_agree_on_every_operator)
{
    for (unsigned o = 0; o < dv_operator_count(); o++) {
        const dv_operator *op = dv_operator_at(o);
        ck_assert_msg(op->cases && op->cases[0].shape, "operator %s declares no test cases", op->name);
        for (size_t c = 0; c < dv_config_builtin_count(); c++) {
            /* the small case; the last launch of a multi-launch variant */
            const char *chip = dv_config_builtin_name(c);
            dv_chip_config cfg;
            dv_opjob_result r;
            ck_assert_int_eq(op_run_kept(&r, &cfg, op->name, chip, NULL, NULL, op->cases[0].shape, 0, false),
                             DV_OK);
            const dv_sim *sim = dv_opr_sim(r.run);
            dv_metric_row pipe, mem;
            dv_sim_metrics(sim, &r.res, (unsigned)dv_metric_group_find("PipeUtilization"), 0, &pipe);
            dv_sim_metrics(sim, &r.res, (unsigned)dv_metric_group_find("Memory"), 0, &mem);
            ck_assert_double_eq_tol(100 * row_value(&pipe, "cube_ratio"),
                                    dv_stats_find(&r.stats, "core0.cube.busy_pct")->value, 1e-9);
            static const struct {
                const char *metric;
                dv_path path;
            } paths[] = {
                {"gm_to_l1_datas", DV_PATH_GM_L1},
                {"gm_to_ub_datas", DV_PATH_GM_UB},
                {"ub_to_gm_datas", DV_PATH_UB_GM},
                {"l0c_to_gm_datas", DV_PATH_L0C_GM},
            };
            double moved = 0; /* every operator reads GM and writes GM: the agreement is not 0 == 0 */
            for (unsigned p = 0; p < sizeof paths / sizeof paths[0]; p++) {
                char name[96];
                snprintf(name, sizeof name, "core0.path.%s.bytes", dv_path_key(paths[p].path));
                const dv_stat *st = dv_stats_find(&r.stats, name);
                ck_assert_double_eq(row_value(&mem, paths[p].metric) * 1024, st ? st->value : 0);
                moved += st ? st->value : 0;
            }
            ck_assert_msg(moved > 0, "%s on %s: core 0 moved no bytes on the GM paths compared", op->name,
                          chip);
            dv_opjob_free(&r);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ops-perf");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_ladder_910);
    tcase_add_test(tc, test_ladder_910b);
    tcase_add_test(tc, test_chip_peak_910);
    tcase_add_test(tc, test_int8_half);
    tcase_add_test(tc, test_vector_bandwidth);
    tcase_add_test(tc, test_metrics_agree_on_every_operator);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
