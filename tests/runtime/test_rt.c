/* test_rt.c - the host runtime (runtime/dv_rt.h): streams overlap and are
 * no faster than their longest branch, a callback chain of 100 launches,
 * an event wait orders two streams (and the race check agrees; without the
 * wait it reports the race), operator launches on given device tensors
 * give the bytes of the one-operator run, determinism. */
#include "dv_asm.h"
#include "dv_rt.h"
#include "dv_test_main.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dv_obj *copy_obj(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/kernels/samples/copy_blocks.dvs", getenv("DV_SOURCE_ROOT"));
    dv_error err = {DV_OK, ""};
    dv_obj *obj = NULL;
    ck_assert_msg(dv_asm_file(path, NULL, &obj, NULL, &err) == DV_OK, "%s", err.msg);
    return obj;
}

static dv_rt_device *open_dev(const char *chip, bool race)
{
    dv_chip_config cfg;
    ck_assert_int_eq(dv_config_builtin(chip, &cfg, NULL), DV_OK);
    dv_rt_options opt = {.data = true, .race_check = race, .threads = 1};
    dv_rt_device *d;
    dv_error err = {DV_OK, ""};
    ck_assert_msg(dv_rt_device_open(&cfg, &opt, &d, &err) == DV_OK, "%s", err.msg);
    return d;
}

static dv_rt_stream *stream(dv_rt_device *d, const char *name)
{
    dv_rt_stream *s;
    ck_assert_int_eq(dv_rt_stream_create(d, name, &s, NULL), DV_OK);
    return s;
}

static uint64_t dev_buf(dv_rt_device *d, uint64_t bytes, uint8_t seed)
{
    uint64_t a;
    ck_assert_int_eq(dv_rt_malloc(d, bytes, &a, NULL), DV_OK);
    uint8_t *h = malloc(bytes);
    for (uint64_t i = 0; i < bytes; i++)
        h[i] = (uint8_t)(i * 13 + seed + i / 977);
    ck_assert_int_eq(dv_rt_memcpy_h2d(d, a, h, bytes, NULL), DV_OK);
    free(h);
    return a;
}

static void sync_all(dv_rt_device *d)
{
    dv_error err = {DV_OK, ""};
    ck_assert_msg(dv_rt_device_synchronize(d, &err) == DV_OK, "%s", err.msg);
}

static unsigned matmul(dv_rt_stream *s, const char *shape, const char *cores)
{
    dv_coreset cs = {{0}};
    dv_error err = {DV_OK, ""};
    if (cores)
        ck_assert_int_eq(dv_coreset_parse(cores, 64, &cs, &err), DV_OK);
    dv_rt_op_launch op = {.op = "matmul", .req = {.shape = shape, .seed = 1}, .cores = cores ? &cs : NULL};
    unsigned rec;
    ck_assert_msg(dv_rt_launch_op(s, &op, &rec, &err) == DV_OK, "%s", err.msg);
    return rec;
}

static const dv_rt_record *rec(dv_rt_device *d, unsigned i)
{
    const dv_rt_record *r = dv_rt_record_at(d, i);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->stop, DV_STOP_DONE);
    return r;
}

START_TEST(test_two_branches)
{
    /* Two matmuls, one on cores 0-15 and one on 16-31 of ascend910.  Alone
     * each ends at L + T (L the launch overhead, chip.launch_cycles = 6000).
     * On one stream the second is issued when the first ends and starts L
     * later: the end is 2L + Ta + Tb (the second's T may differ a little
     * from alone: the L2 is warm with the first's lines).  On two streams
     * both start at L and share HBM: sooner than one stream, no sooner than
     * the longer alone. */
    const char *sa = "M=512,N=256,K=512", *sb = "M=256,N=256,K=512";
    uint64_t alone[2];
    for (int i = 0; i < 2; i++) {
        dv_rt_device *d = open_dev("ascend910", false);
        unsigned r = matmul(stream(d, "s0"), i ? sb : sa, i ? "16-31" : "0-15");
        sync_all(d);
        ck_assert_uint_eq(rec(d, r)->start_cycle, 6000);
        alone[i] = rec(d, r)->end_cycle;
        dv_rt_device_close(d);
    }
    dv_rt_device *one = open_dev("ascend910", false);
    dv_rt_stream *s = stream(one, "s0");
    unsigned a = matmul(s, sa, "0-15"), b = matmul(s, sb, "16-31");
    sync_all(one);
    const dv_rt_record *ra = rec(one, a), *rb = rec(one, b);
    ck_assert_uint_eq(ra->end_cycle, alone[0]);
    ck_assert_uint_eq(rb->issue_cycle, ra->end_cycle);
    ck_assert_uint_eq(rb->start_cycle, ra->end_cycle + 6000);
    uint64_t one_end = rb->end_cycle;
    uint64_t tb = alone[1] - 6000;
    ck_assert_uint_le(one_end > ra->end_cycle + 6000 + tb ? one_end - (ra->end_cycle + 6000 + tb)
                                                          : ra->end_cycle + 6000 + tb - one_end,
                      tb / 10);

    dv_rt_device *two = open_dev("ascend910", false);
    unsigned a2 = matmul(stream(two, "s0"), sa, "0-15"), b2 = matmul(stream(two, "s1"), sb, "16-31");
    sync_all(two);
    const dv_rt_record *ra2 = rec(two, a2), *rb2 = rec(two, b2);
    ck_assert_uint_eq(ra2->start_cycle, 6000);
    ck_assert_uint_eq(rb2->start_cycle, 6000);
    uint64_t two_end = ra2->end_cycle > rb2->end_cycle ? ra2->end_cycle : rb2->end_cycle;
    uint64_t longer = alone[0] > alone[1] ? alone[0] : alone[1];
    fprintf(stderr, "two branches: alone %llu, %llu; one stream %llu; two streams %llu\n",
            (unsigned long long)alone[0], (unsigned long long)alone[1], (unsigned long long)one_end,
            (unsigned long long)two_end);
    ck_assert_uint_lt(two_end, one_end);
    ck_assert_uint_ge(two_end, longer);
    /* disjoint cores: each ran on its own set */
    char used[64];
    dv_coreset_format(&rb2->cores_used, used, sizeof used);
    ck_assert_str_eq(used, "16-31");
    dv_rt_device_close(one);
    dv_rt_device_close(two);
}
END_TEST

typedef struct chain {
    const dv_obj *obj;
    uint64_t src, dst;
    unsigned left;
    unsigned recs[128], n;
} chain;

static void link(void *user, dv_rt_device *d, dv_rt_stream *s)
{
    (void)d;
    chain *c = user;
    if (c->left == 0)
        return;
    c->left--;
    dv_rt_kernel_launch k = {.obj = c->obj, .blocks = 1, .args = {c->src, c->dst, 32768}};
    dv_error err = {DV_OK, ""};
    ck_assert_msg(dv_rt_launch_kernel(s, &k, &c->recs[c->n++], &err) == DV_OK, "%s", err.msg);
    ck_assert_int_eq(dv_rt_launch_host_func(s, link, c, &err), DV_OK);
}

START_TEST(test_callback_chain)
{
    /* 100 launches, each enqueued by the callback that ran when the one
     * before ended: launch i is issued at the end of launch i - 1 and starts
     * L = 6000 cycles later; every launch takes the same cycles as the first
     * (one block, one 32 KiB tile, the same bytes). */
    dv_obj *obj = copy_obj();
    dv_rt_device *d = open_dev("ascend910", false);
    chain c = {.obj = obj, .src = dev_buf(d, 32768, 1), .left = 100};
    ck_assert_int_eq(dv_rt_malloc(d, 32768, &c.dst, NULL), DV_OK);
    dv_rt_stream *s = stream(d, "s0");
    ck_assert_int_eq(dv_rt_launch_host_func(s, link, &c, NULL), DV_OK);
    sync_all(d);
    ck_assert_uint_eq(c.n, 100);
    ck_assert_uint_eq(dv_rt_record_count(d), 100);
    uint64_t t = rec(d, 0)->end_cycle - rec(d, 0)->start_cycle;
    ck_assert_uint_gt(t, 500);
    for (unsigned i = 0; i < 100; i++) {
        const dv_rt_record *r = rec(d, c.recs[i]);
        ck_assert_uint_eq(c.recs[i], i);
        ck_assert_uint_eq(r->issue_cycle, i ? rec(d, i - 1)->end_cycle : 0);
        ck_assert_uint_eq(r->start_cycle, r->issue_cycle + 6000);
        ck_assert_uint_eq(r->end_cycle - r->start_cycle, t);
    }
    ck_assert_uint_eq(dv_rt_device_now(d), 100 * (6000 + t));
    dv_rt_device_close(d);
    dv_obj_destroy(obj);
}
END_TEST

/* producer on s0: x -> mid (copy), consumer on s1: mid -> y; with or without
 * an event between them. */
static void producer_consumer(bool wait, dv_rt_record *prod, dv_rt_record *cons, unsigned *races, bool *right)
{
    enum { BYTES = 8 * 65536 };
    dv_obj *obj = copy_obj();
    dv_rt_device *d = open_dev("ascend910", true);
    uint64_t x = dev_buf(d, BYTES, 7), mid, y;
    ck_assert_int_eq(dv_rt_malloc(d, BYTES, &mid, NULL), DV_OK);
    ck_assert_int_eq(dv_rt_malloc(d, BYTES, &y, NULL), DV_OK);
    dv_rt_stream *s0 = stream(d, "s0"), *s1 = stream(d, "s1");
    dv_rt_event *e;
    ck_assert_int_eq(dv_rt_event_create(d, "e0", &e, NULL), DV_OK);
    dv_coreset lo = {{0}}, hi = {{0}};
    dv_coreset_parse("0-7", 32, &lo, NULL);
    dv_coreset_parse("8-15", 32, &hi, NULL);
    dv_rt_kernel_launch p = {.obj = obj, .blocks = 8, .args = {x, mid, 65536}, .cores = &lo};
    dv_rt_kernel_launch c = {.obj = obj, .blocks = 8, .args = {mid, y, 65536}, .cores = &hi};
    unsigned rp, rc;
    ck_assert_int_eq(dv_rt_launch_kernel(s0, &p, &rp, NULL), DV_OK);
    ck_assert_int_eq(dv_rt_event_record(e, s0, NULL), DV_OK);
    if (wait)
        ck_assert_int_eq(dv_rt_stream_wait_event(s1, e, NULL), DV_OK);
    ck_assert_int_eq(dv_rt_launch_kernel(s1, &c, &rc, NULL), DV_OK);
    ck_assert(!dv_rt_event_query(e));
    sync_all(d);
    ck_assert(dv_rt_event_query(e));
    *prod = *rec(d, rp);
    *cons = *rec(d, rc);
    ck_assert_uint_eq(dv_rt_event_cycle(e), prod->end_cycle);
    dv_rt_race *rs;
    ck_assert_int_eq(dv_rt_races(d, &rs, races, NULL), DV_OK);
    if (*races) {
        ck_assert_uint_eq(rs[0].first, rp);
        ck_assert_uint_eq(rs[0].second, rc);
        ck_assert(rs[0].first_writes && !rs[0].second_writes);
        ck_assert_uint_eq(rs[0].addr, mid);
        ck_assert_uint_eq(rs[0].len, BYTES);
    }
    free(rs);
    uint8_t *hx = malloc(BYTES), *hy = malloc(BYTES);
    dv_rt_memcpy_d2h(d, hx, x, BYTES, NULL);
    dv_rt_memcpy_d2h(d, hy, y, BYTES, NULL);
    *right = memcmp(hx, hy, BYTES) == 0;
    free(hx);
    free(hy);
    dv_rt_event_destroy(e);
    dv_rt_device_close(d);
    dv_obj_destroy(obj);
}

START_TEST(test_event_orders_streams)
{
    dv_rt_record p, c;
    unsigned races;
    bool right;
    producer_consumer(true, &p, &c, &races, &right);
    /* the consumer is issued when the producer's event completes */
    ck_assert_uint_eq(c.issue_cycle, p.end_cycle);
    ck_assert_uint_eq(c.start_cycle, p.end_cycle + 6000);
    ck_assert_uint_eq(races, 0);
    ck_assert(right);
    /* without the wait both start at L: the consumer reads mid while the
     * producer writes it, and the race check says so */
    producer_consumer(false, &p, &c, &races, &right);
    ck_assert_uint_eq(p.start_cycle, 6000);
    ck_assert_uint_eq(c.start_cycle, 6000);
    ck_assert_uint_eq(races, 1);
    ck_assert(!right);
}
END_TEST

START_TEST(test_sync_orders_for_race_check)
{
    /* A host synchronise between two launches on two streams orders them:
     * no race; the second is issued at the cycle the host resumed. */
    dv_obj *obj = copy_obj();
    dv_rt_device *d = open_dev("ascend910", true);
    uint64_t x = dev_buf(d, 65536, 3), y;
    ck_assert_int_eq(dv_rt_malloc(d, 65536, &y, NULL), DV_OK);
    dv_rt_stream *s0 = stream(d, "s0"), *s1 = stream(d, "s1");
    dv_rt_kernel_launch k = {.obj = obj, .blocks = 1, .args = {x, y, 65536}};
    ck_assert_int_eq(dv_rt_launch_kernel(s0, &k, NULL, NULL), DV_OK);
    ck_assert_int_eq(dv_rt_stream_synchronize(s0, NULL), DV_OK);
    uint64_t t = dv_rt_device_now(d);
    k.args[0] = y, k.args[1] = x;
    unsigned r;
    ck_assert_int_eq(dv_rt_launch_kernel(s1, &k, &r, NULL), DV_OK);
    sync_all(d);
    ck_assert_uint_eq(rec(d, r)->issue_cycle, t);
    dv_rt_race *rs;
    unsigned n;
    ck_assert_int_eq(dv_rt_races(d, &rs, &n, NULL), DV_OK);
    ck_assert_uint_eq(n, 0);
    free(rs);
    dv_rt_device_close(d);
    dv_obj_destroy(obj);
}
END_TEST

/* The one-operator run's tensors (dv_opr_create, dv_opr_run_launches). */
static void op_on_given(const char *chip, const char *opname, const char *shape)
{
    dv_chip_config cfg;
    dv_config_builtin(chip, &cfg, NULL);
    const dv_operator *op = dv_operator_find(opname);
    ck_assert_ptr_nonnull(op);
    dv_opr_request req = {.shape = shape, .seed = 5};
    dv_opr_run *run;
    dv_error err = {DV_OK, ""};
    ck_assert_msg(dv_opr_create(op, &req, &cfg, true, &run, &err) == DV_OK, "%s", err.msg);
    dv_opr_set_threads(run, 1);
    dv_run_result res;
    ck_assert_int_eq(dv_opr_run_launches(run, 0, &res, &err), DV_OK);
    ck_assert_int_eq(res.stop, DV_STOP_DONE);
    /* the same inputs on a device, every tensor of the operator given, with
     * the bytes the run started from (the inputs are unchanged by it) */
    dv_rt_device *d = open_dev(chip, false);
    dv_rt_op_launch ol = {.op = opname, .req = {.shape = shape, .seed = 99}, .check = true};
    for (unsigned i = 0; i < run->ntensors; i++) {
        const dv_opr_tensor *t = &run->t[i];
        if (strcmp(t->name, "ws") == 0 || strcmp(t->name, "tiling") == 0 || strcmp(t->name, "zeros") == 0)
            continue; /* the operator's own */
        uint64_t a;
        ck_assert_int_eq(dv_rt_malloc(d, t->bytes, &a, NULL), DV_OK);
        if (!t->output)
            ck_assert_int_eq(dv_rt_memcpy_h2d(d, a, dv_opr_gm(run, i), t->bytes, NULL), DV_OK);
        ol.name[ol.nbound] = t->name;
        ol.addr[ol.nbound++] = a;
    }
    unsigned r0;
    ck_assert_msg(dv_rt_launch_op(stream(d, "s0"), &ol, &r0, &err) == DV_OK, "%s", err.msg);
    sync_all(d);
    const dv_rt_record *last = rec(d, r0 + run->launches - 1);
    ck_assert(last->checked);
    ck_assert(last->passed);
    for (unsigned i = 0, k = 0; i < run->ntensors; i++) {
        const dv_opr_tensor *t = &run->t[i];
        if (strcmp(t->name, "ws") == 0 || strcmp(t->name, "tiling") == 0 || strcmp(t->name, "zeros") == 0)
            continue;
        if (t->output) {
            uint8_t *got = malloc(t->bytes);
            ck_assert_int_eq(dv_rt_memcpy_d2h(d, got, ol.addr[k], t->bytes, NULL), DV_OK);
            ck_assert_msg(memcmp(got, dv_opr_gm(run, i), t->bytes) == 0, "%s %s: output %s differs", opname,
                          shape, t->name);
            free(got);
        }
        k++;
    }
    ck_assert_uint_eq(dv_rt_record_count(d), run->launches);
    dv_rt_device_close(d);
    dv_opr_destroy(run);
}

START_TEST(test_op_on_given_tensors)
{
    op_on_given("ascend910", "matmul", "M=100,N=37,K=75");
    op_on_given("ascend910", "matmul", "M=64,N=48,K=1024,KS=4"); /* split K: two launches */
    op_on_given("ascend910b", "matmul", "M=130,N=70,K=90");
    op_on_given("ascend910", "add", "N=5000");
    op_on_given("ascend910b", "softmax", "R=33,C=100");
    op_on_given("ascend910", "conv2d", "N=1,C=16,H=9,W=7,Co=20");
}
END_TEST

START_TEST(test_bad_requests)
{
    dv_rt_device *d = open_dev("ascend910", false);
    dv_rt_stream *s = stream(d, "s0");
    dv_error err = {DV_OK, ""};
    dv_rt_op_launch op = {.op = "nope"};
    ck_assert_int_eq(dv_rt_launch_op(s, &op, NULL, &err), DV_ERR_INPUT);
    op.op = "matmul";
    op.req.shape = "M=0";
    ck_assert_int_eq(dv_rt_launch_op(s, &op, NULL, &err), DV_ERR_INPUT);
    op.req.shape = "M=64,N=64,K=64";
    uint64_t small;
    dv_rt_malloc(d, 100, &small, NULL);
    op.name[0] = "a", op.addr[0] = small, op.nbound = 1;
    ck_assert_int_eq(dv_rt_launch_op(s, &op, NULL, &err), DV_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "smaller"));
    op.name[0] = "q";
    ck_assert_int_eq(dv_rt_launch_op(s, &op, NULL, &err), DV_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "no tensor 'q'"));
    ck_assert_int_eq(dv_rt_free(d, small + 8, &err), DV_ERR_INPUT);
    ck_assert_int_eq(dv_rt_free(d, small, &err), DV_OK);
    ck_assert_int_eq(dv_rt_memset(d, small, 0, 10, &err), DV_ERR_INPUT);
    /* waits capture the record enqueued last, so two streams waiting on each
     * other's events cannot hold each other up (a wait never waits for a
     * record enqueued after it) */
    dv_rt_stream *t = stream(d, "s1");
    dv_rt_event *e0, *e1;
    dv_rt_event_create(d, "e0", &e0, NULL);
    dv_rt_event_create(d, "e1", &e1, NULL);
    dv_rt_event_record(e0, s, NULL);
    dv_rt_event_record(e1, t, NULL);
    ck_assert_int_eq(dv_rt_device_synchronize(d, &err), DV_OK);
    dv_rt_stream_wait_event(s, e1, NULL); /* e1 done: passes */
    dv_rt_event_record(e1, t, NULL);
    dv_rt_stream_wait_event(t, e0, NULL);
    dv_rt_event_record(e0, s, NULL);
    ck_assert(!dv_rt_event_query(e0));
    ck_assert_int_eq(dv_rt_device_synchronize(d, &err), DV_OK);
    ck_assert(dv_rt_event_query(e0) && dv_rt_event_query(e1));
    dv_rt_event_destroy(e0);
    dv_rt_event_destroy(e1);
    dv_rt_device_close(d);
}
END_TEST

static void sync_inside(void *user, dv_rt_device *d, dv_rt_stream *s)
{
    (void)s;
    dv_status *st = user;
    dv_error err = {DV_OK, ""};
    *st = dv_rt_device_synchronize(d, &err);
}

START_TEST(test_host_func_cannot_sync)
{
    dv_rt_device *d = open_dev("ascend910", false);
    dv_rt_stream *s = stream(d, "s0");
    dv_status inner = DV_OK;
    matmul(s, "M=64,N=64,K=64", NULL);
    ck_assert_int_eq(dv_rt_launch_host_func(s, sync_inside, &inner, NULL), DV_OK);
    sync_all(d);
    ck_assert_int_eq(inner, DV_ERR_USAGE);
    dv_rt_device_close(d);
}
END_TEST

START_TEST(test_stream_sync_leaves_others_running)
{
    /* A stream synchronise returns at the cycle its stream's work ended,
     * with another stream's longer operator still running; closing the
     * device then stops it and frees everything (ASan: no leak, no use after
     * free of the operator's workspaces). */
    dv_rt_device *d = open_dev("ascend910", true);
    dv_rt_stream *s0 = stream(d, "s0"), *s1 = stream(d, "s1");
    unsigned a = matmul(s0, "M=64,N=64,K=64", "0-3");
    unsigned b = matmul(s1, "M=256,N=256,K=4096,KS=4", "4-31");
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_rt_stream_synchronize(s0, &err), DV_OK);
    ck_assert_int_eq(rec(d, a)->stop, DV_STOP_DONE);
    ck_assert_uint_eq(dv_rt_device_now(d), rec(d, a)->end_cycle);
    ck_assert_int_eq(dv_rt_record_at(d, b)->stop, DV_STOP_NONE);
    ck_assert_int_eq(dv_rt_stream_destroy(s1, &err), DV_ERR_USAGE);
    ck_assert_int_eq(dv_rt_stream_destroy(s0, &err), DV_OK);
    dv_rt_device_close(d);
}
END_TEST

static Suite *rt_suite(void)
{
    Suite *s = suite_create("runtime");
    TCase *tc = tcase_create("runtime");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_two_branches);
    tcase_add_test(tc, test_callback_chain);
    tcase_add_test(tc, test_event_orders_streams);
    tcase_add_test(tc, test_sync_orders_for_race_check);
    tcase_add_test(tc, test_op_on_given_tensors);
    tcase_add_test(tc, test_bad_requests);
    tcase_add_test(tc, test_stream_sync_leaves_others_running);
    tcase_add_test(tc, test_host_func_cannot_sync);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return dv_test_run(rt_suite());
}
