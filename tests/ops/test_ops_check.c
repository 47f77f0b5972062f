/* test_ops_check.c - every operator, variant and dtype against its CPU
 * reference on several shapes and both chip kinds, including awkward
 * sizes (not multiples of 16), a single tile, K much larger than M and N,
 * and more blocks than cores (ascend910 has 32 cores, ascend910b 24 AICs
 * and 48 AIVs). */
#include "dv_test_main.h"
#include "ops_run.h"

static const char *const chips[] = {"ascend910", "ascend910b"};

typedef struct shape_case {
    const char *shape;
    uint64_t blocks;
} shape_case;

static void check_all(const char *op, const char *const *variants, const char *const *dtypes,
                      const shape_case *shapes, unsigned nshapes)
{
    for (unsigned c = 0; c < 2; c++)
        for (unsigned v = 0; variants[v]; v++)
            for (unsigned d = 0; dtypes[d]; d++)
                for (unsigned s = 0; s < nshapes; s++) {
                    op_result o = op_run(op, chips[c], variants[v], dtypes[d], shapes[s].shape, shapes[s].blocks,
                                         true);
                    ck_assert_msg(o.status == DV_OK, "%s %s %s %s %s: create failed", op, chips[c], variants[v],
                                  dtypes[d], shapes[s].shape);
                    ck_assert_msg(o.check.compared > 0 && o.check.mismatches == 0,
                                  "%s %s %s %s %s blocks %llu: %llu of %llu mismatches; %s", op, chips[c],
                                  variants[v], dtypes[d], shapes[s].shape, (unsigned long long)shapes[s].blocks,
                                  (unsigned long long)o.check.mismatches, (unsigned long long)o.check.compared,
                                  o.check.first_bad);
                }
}

static const shape_case mm_shapes[] = {
    {"M=16,N=16,K=16", 0},     /* one fractal, one tile */
    {"M=1,N=1,K=1", 0},        /* the smallest */
    {"M=100,N=37,K=75", 0},    /* nothing a multiple of 16 */
    {"M=48,N=40,K=3000", 0},   /* K much larger than M and N */
    {"M=300,N=260,K=513", 0},  /* several tiles, partial edges */
    {"M=200,N=200,K=64", 40},  /* more blocks than cores: waves, idle blocks */
};

START_TEST(test_matmul_float)
{
    static const char *const variants[] = {"naive", "tiled", "pipelined", "db", NULL};
    static const char *const dtypes[] = {"f16", "f16-f32", "bf16-f16", "bf16-f32", NULL};
    check_all("matmul", variants, dtypes, mm_shapes, sizeof mm_shapes / sizeof mm_shapes[0]);
}
END_TEST

START_TEST(test_matmul_int8)
{
    static const char *const variants[] = {"naive", "tiled", "pipelined", "db", NULL};
    static const char *const dtypes[] = {"s8-deq", "s8-vdeq", "s8-req", NULL};
    check_all("matmul", variants, dtypes, mm_shapes, sizeof mm_shapes / sizeof mm_shapes[0]);
}
END_TEST

START_TEST(test_add)
{
    static const char *const variants[] = {"db", NULL};
    static const char *const dtypes[] = {"f16", "f32", NULL};
    static const shape_case shapes[] = {
        {"N=1", 0}, {"N=17", 0}, {"N=1000", 0}, {"N=16384", 1}, {"N=1000003", 0}, {"N=5000", 100},
    };
    check_all("add", variants, dtypes, shapes, sizeof shapes / sizeof shapes[0]);
}
END_TEST

START_TEST(test_relu)
{
    static const char *const variants[] = {"db", NULL};
    static const char *const dtypes[] = {"f16", "f32", NULL};
    static const shape_case shapes[] = {
        {"N=1", 0}, {"N=17", 0}, {"N=1000", 0}, {"N=65536", 1}, {"N=1000003", 0}, {"N=5000", 100},
    };
    check_all("relu", variants, dtypes, shapes, sizeof shapes / sizeof shapes[0]);
}
END_TEST

/* Rows: one element, one tile, C not a multiple of 16, long rows (several
 * repeats, two-level reductions), row bytes not a multiple of 32, more
 * blocks than cores. */
static const shape_case row_shapes[] = {
    {"R=1,C=1", 0},     {"R=8,C=64", 0},     {"R=7,C=17", 0},    {"R=100,C=17", 0},
    {"R=3,C=8192", 0},  {"R=200,C=1000", 0}, {"R=300,C=96", 100},
};

START_TEST(test_softmax)
{
    static const char *const variants[] = {"db", NULL};
    static const char *const dtypes[] = {"f16", "f32", NULL};
    check_all("softmax", variants, dtypes, row_shapes, sizeof row_shapes / sizeof row_shapes[0]);
}
END_TEST

START_TEST(test_layernorm)
{
    static const char *const variants[] = {"db", NULL};
    static const char *const dtypes[] = {"f16", "f32", NULL};
    check_all("layernorm", variants, dtypes, row_shapes, sizeof row_shapes / sizeof row_shapes[0]);
}
END_TEST

START_TEST(test_bad_requests)
{
    /* shape out of range, unknown parameter, variant and dtype: DV_ERR_INPUT */
    ck_assert_int_eq(op_run("matmul", "ascend910", NULL, NULL, "M=0", 0, false).status, DV_ERR_INPUT);
    ck_assert_int_eq(op_run("matmul", "ascend910", NULL, NULL, "Q=3", 0, false).status, DV_ERR_INPUT);
    ck_assert_int_eq(op_run("matmul", "ascend910", NULL, NULL, "M=12x", 0, false).status, DV_ERR_INPUT);
    ck_assert_int_eq(op_run("matmul", "ascend910", "fast", NULL, NULL, 0, false).status, DV_ERR_INPUT);
    ck_assert_int_eq(op_run("matmul", "ascend910", NULL, "f64", NULL, 0, false).status, DV_ERR_INPUT);
    /* K so deep that even a 16-row A panel does not fit L1 */
    ck_assert_int_eq(op_run("matmul", "ascend910b", "db", NULL, "M=16,N=16,K=65000", 0, false).status,
                     DV_ERR_INPUT);
    /* a layernorm row wider than UB holds with gamma and beta */
    ck_assert_int_eq(op_run("layernorm", "ascend910b", NULL, "f32", "R=2,C=60000", 0, false).status, DV_ERR_INPUT);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ops-check");
    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_matmul_float);
    tcase_add_test(tc, test_matmul_int8);
    tcase_add_test(tc, test_add);
    tcase_add_test(tc, test_relu);
    tcase_add_test(tc, test_softmax);
    tcase_add_test(tc, test_layernorm);
    tcase_add_test(tc, test_bad_requests);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
