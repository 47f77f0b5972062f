/* test_ops_sanitize.c - every built-in operator, every variant and dtype,
 * on every built-in chip, with and without data, is sanitizer-clean: no
 * race, sync, init or mem finding (notes are allowed) under
 * dv_sanitize.h's checks, on every launch.  A check of the kernels'
 * synchronisation as much as of the sanitizer (tests/sanitize has the
 * kernels that must not be clean). */
#include "dv_opjob.h"
#include "dv_sanitize.h"
#include "ops_san.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Small shapes, so that the whole matrix runs in a minute, one of them
 * with every dimension off the fractal and block sizes (pad rows, partial
 * repeats); an operator not listed runs its default shape. */
static const char *const *shapes_of(const char *op)
{
    static const char *const mm[] = {"M=128,N=160,K=256", "M=100,N=37,K=75", "M=100,N=37,K=75,ACT=2", NULL};
    static const char *const ew[] = {"N=65536", "N=1000", NULL};
    static const char *const rows[] = {"R=64,C=1000", "R=7,C=33", NULL};
    static const char *const conv[] = {"N=1,C=32,H=14,W=14,Co=32", "N=2,C=3,H=9,W=7,Co=5", NULL};
    static const char *const att[] = {"B=1,H=1,SQ=128,SK=256,D=64", "B=1,H=2,SQ=40,SK=72,D=64,CAUSAL=1",
                                      NULL};
    static const char *const dflt[] = {NULL, NULL};
    static const struct {
        const char *name;
        const char *const *shapes;
    } t[] = {{"matmul", mm},
             {"add", ew},
             {"relu", ew},
             {"softmax", rows},
             {"layernorm", rows},
             {"conv2d", conv},
             {"conv2d_bias_relu", conv},
             {"attention", att}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(t[i].name, op) == 0)
            return t[i].shapes;
    return dflt;
}

static unsigned runs, clean;

static void check_one(const dv_operator *op, const char *chip, const char *variant, const char *dtype,
                      const char *shape, bool data)
{
    dv_chip_config cfg;
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_config_builtin(chip, &cfg, &err), DV_OK);
    watch w = {dv_san_create(DV_SAN_ALL, &err), false};
    ck_assert_ptr_nonnull(w.san);
    dv_opjob job = {.op = op,
                    .req = {.variant = variant, .dtype = dtype, .shape = shape, .seed = 3},
                    .cfg = &cfg,
                    .data = data,
                    .max_cycles = 200000000ull,
                    .launch_begin = watch_begin,
                    .launch_end = watch_end,
                    .launch_user = &w};
    dv_opjob_result r;
    dv_status st = dv_opjob_run(&job, &r, &err);
    if (st == DV_ERR_INPUT) { /* a combination this chip does not take */
        dv_opjob_free(&r);
        dv_san_destroy(w.san);
        return;
    }
    ck_assert_msg(st == DV_OK, "%s %s %s %s: %s", op->name, chip, variant, dtype, err.msg);
    ck_assert_msg(r.res.stop == DV_STOP_DONE, "%s %s %s %s: %s", op->name, chip, variant, dtype,
                  r.res.message ? r.res.message : "");
    runs++;
    size_t n = dv_san_findings(w.san);
    if (n) {
        dv_buf b = DV_BUF_INIT;
        dv_san_report_text(w.san, &b);
        fprintf(stderr, "%s %s variant %s dtype %s shape %s%s:\n%s", op->name, chip, variant, dtype,
                shape ? shape : "default", data ? "" : " (no data)", b.data ? b.data : "");
        dv_buf_free(&b);
    } else {
        clean++;
    }
    ck_assert_msg(n == 0, "%s on %s, variant %s, dtype %s, shape %s%s: %zu sanitizer findings", op->name,
                  chip, variant, dtype, shape ? shape : "default", data ? "" : " (no data)", n);
    dv_opjob_free(&r);
    dv_san_destroy(w.san);
}

START_TEST(every_operator_is_clean)
{
    int data = _i;
    for (size_t c = 0; c < dv_config_builtin_count(); c++)
        for (unsigned o = 0; o < dv_operator_count(); o++) {
            const dv_operator *op = dv_operator_at(o);
            const char *const *shapes = shapes_of(op->name);
            for (unsigned v = 0; op->variants[v]; v++)
                for (unsigned d = 0; op->dtypes[d]; d++)
                    for (unsigned k = 0; k == 0 || shapes[k]; k++)
                        check_one(op, dv_config_builtin_name(c), op->variants[v], op->dtypes[d], shapes[k],
                                  data != 0);
        }
    fprintf(stderr, "%s: %u runs, %u clean\n", data ? "with data" : "timing only", runs, clean);
    ck_assert_uint_gt(runs, 100);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ops-sanitize");
    TCase *tc = tcase_create("clean");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, every_operator_is_clean, 0, 2);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
