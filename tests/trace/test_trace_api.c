/* test_trace_api.c - the observers' hooks (dv_hooks.h), the incremental run
 * API and the pacer (dv_sim.h), and the windowed counters (dv_tcount.h):
 *   - a run cut into slices (dv_sim_advance, or a pacer) gives the same
 *     cycles and statistics as dv_sim_run, bit for bit;
 *   - the hooks report every instruction once per lane, in time order, with
 *     no overlap, as many as the statistics count;
 *   - the counters' windows add up to the statistics (bytes per path, busy
 *     cycles per pipe);
 *   - dv_sim_interrupt and the interrupt flag stop a run as DV_STOP_INTERRUPTED
 *     with whole statistics;
 *   - two simulations advanced in turns, each with its own hooks, give each
 *     the cycles, statistics, hook counts and results it gives alone (the
 *     simulator keeps no state outside its dv_sim). */
#include "dv_operator.h"
#include "dv_tcount.h"
#include "dv_test_main.h"
#include "dv_test_sim.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct op_case {
    const char *chip, *op, *variant, *dtype, *shape;
    uint64_t blocks;
} op_case;

static const op_case cases[] = {
    {"ascend910", "matmul", "db", "f16", "M=128,N=128,K=128", 2},
    {"ascend910", "matmul", "naive", "f16", "M=64,N=64,K=64", 1},
    {"ascend910b", "matmul", "pipelined", "f16", "M=128,N=64,K=96", 2},
    {"ascend910", "add", "db", "f16", "N=8192", 2},
    {"ascend910b", "add", "db", "f32", "N=8192", 3},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

static dv_opr_run *make(const op_case *c)
{
    dv_chip_config cfg;
    dv_error err = {DV_OK, ""};
    ck_assert_int_eq(dv_config_builtin(c->chip, &cfg, &err), DV_OK);
    const dv_operator *op = dv_operator_find(c->op);
    ck_assert_ptr_nonnull(op);
    dv_opr_request req = {
        .variant = c->variant, .dtype = c->dtype, .shape = c->shape, .seed = 3, .blocks = c->blocks};
    dv_opr_run *r = NULL;
    ck_assert_msg(dv_opr_create(op, &req, &cfg, true, &r, &err) == DV_OK, "%s", err.msg);
    ck_assert_int_eq(dv_opr_before_run(r, &err), DV_OK);
    return r;
}

static void same_stats(dv_sim *a, dv_sim *b, const dv_run_result *ra, const dv_run_result *rb)
{
    ck_assert_int_eq(ra->stop, rb->stop);
    ck_assert_uint_eq(ra->cycles, rb->cycles);
    ck_assert_uint_eq(ra->ncores, rb->ncores);
    for (unsigned i = 0; i < ra->ncores; i++)
        ck_assert_msg(memcmp(tc_core(a, i).stats, tc_core(b, i).stats, sizeof(dv_core_stats)) == 0,
                      "core %u statistics differ", i);
}

/* ---- slices and pacer ---- */

static uint64_t pace_step, pace_until;
static unsigned pace_calls;

/* Slices of pace_step cycles (dv_sim_now stays put over a slice without
 * events, so the pacer counts for itself). */
static uint64_t pace_fixed(void *user, dv_sim *s)
{
    (void)user;
    ck_assert_uint_le(dv_sim_now(s), pace_until);
    pace_calls++;
    pace_until += pace_step;
    return pace_until;
}

START_TEST(test_sliced_runs_match)
{
    const op_case *c = &cases[_i];
    dv_error err = {DV_OK, ""};
    dv_opr_run *whole = make(c), *sliced = make(c), *paced = make(c);
    dv_run_result rw, rs, rp;
    ck_assert_int_eq(dv_sim_run(dv_opr_sim(whole), 0, &rw, &err), DV_OK);
    ck_assert_int_eq(rw.stop, DV_STOP_DONE);
    /* slices of 37 cycles */
    dv_sim *s = dv_opr_sim(sliced);
    ck_assert_uint_eq(dv_sim_ncores(s), 0);
    ck_assert_int_eq(dv_sim_start(s, 0, &err), DV_OK);
    ck_assert_uint_eq(dv_sim_ncores(s), rw.ncores);
    uint64_t until = 0;
    unsigned slices = 0;
    while (dv_sim_advance(s, until, &err)) {
        ck_assert_uint_le(dv_sim_now(s), until);
        ck_assert_uint_gt(dv_sim_next_cycle(s), until);
        until += 37;
        slices++;
    }
    ck_assert_uint_gt(slices, 10);
    ck_assert_int_eq(dv_sim_finish(s, &rs, &err), DV_OK);
    same_stats(dv_opr_sim(whole), s, &rw, &rs);
    /* a pacer: dv_sim_run hands over every 13 cycles */
    pace_step = 13;
    pace_calls = 0;
    pace_until = 0;
    dv_sim_hooks pacer = {.pace = pace_fixed};
    ck_assert_int_eq(dv_sim_add_hooks(dv_opr_sim(paced), &pacer, &err), DV_OK);
    ck_assert_int_eq(dv_sim_run(dv_opr_sim(paced), 0, &rp, &err), DV_OK);
    ck_assert_uint_gt(pace_calls, rw.cycles / 13 / 2);
    same_stats(dv_opr_sim(whole), dv_opr_sim(paced), &rw, &rp);
    ck_assert_int_eq(dv_opr_check_outputs(paced, &err), DV_OK);
    ck_assert_uint_eq(paced->check.mismatches, 0);
    dv_opr_destroy(whole);
    dv_opr_destroy(sliced);
    dv_opr_destroy(paced);
}
END_TEST

/* ---- the hooks ---- */

enum { MAXC = 128 };
typedef struct recorder {
    unsigned ncores;
    bool launched;
    uint64_t insns[MAXC][DV_PIPE_COUNT];
    uint64_t last_end[MAXC][DV_PIPE_COUNT], last_start[MAXC][DV_PIPE_COUNT];
    uint64_t busy[MAXC][DV_PIPE_COUNT];
    uint64_t sets, waits, blocks, stalls, stall_cycles;
    uint64_t now; /* the latest cycle a hook reported as current */
    bool order_ok, overlap_ok;
    dv_tcount *tc;
    double win_bytes[MAXC][DV_PATH_COUNT], win_busy[MAXC][DV_PIPE_COUNT];
    uint64_t win_end;
} recorder;

static void rec_window(void *user, unsigned core, const dv_tcount_window *w)
{
    recorder *r = user;
    for (int p = 0; p < DV_PATH_COUNT; p++)
        r->win_bytes[core][p] += w->path_bytes[p];
    for (int l = 0; l < DV_PIPE_COUNT; l++)
        r->win_busy[core][l] += w->busy[l];
    if (core == 0) {
        ck_assert_uint_eq(w->start, r->win_end); /* windows tile the run */
        r->win_end = w->start + w->cycles;
    }
}

static dv_status rec_launch(void *user, const dv_sim *sim, dv_error *err)
{
    (void)err;
    recorder *r = user;
    r->launched = true;
    r->ncores = dv_sim_ncores(sim);
    ck_assert_uint_le(r->ncores, MAXC);
    r->tc = dv_tcount_create(r->ncores, 100, rec_window, r);
    ck_assert_ptr_nonnull(r->tc);
    return DV_OK;
}

static void rec_block(void *user, unsigned core, uint64_t block, uint64_t cycle)
{
    recorder *r = user;
    (void)block;
    ck_assert_uint_lt(core, r->ncores);
    ck_assert_uint_ge(cycle, r->now);
    r->blocks++;
}

static void rec_insn(void *user, const dv_trace_insn *ev)
{
    recorder *r = user;
    ck_assert_uint_lt(ev->core, r->ncores);
    ck_assert_uint_le(ev->start, ev->end);
    bool wait = ev->insn->op == DV_OP_WAIT_FLAG || ev->insn->op == DV_OP_CC_WAIT_FLAG;
    /* a pipe's wait is reported when released; the Scalar unit's like any of its instructions */
    uint64_t current = wait && ev->lane != DV_PIPE_S ? ev->end : ev->start;
    if (current < r->now)
        r->order_ok = false;
    r->now = current;
    if (ev->start < r->last_end[ev->core][ev->lane] || ev->start < r->last_start[ev->core][ev->lane])
        r->overlap_ok = false;
    r->last_start[ev->core][ev->lane] = ev->start;
    r->last_end[ev->core][ev->lane] = ev->end;
    r->insns[ev->core][ev->lane]++;
    if (!wait || ev->lane == DV_PIPE_S)
        r->busy[ev->core][ev->lane] += ev->end - ev->start;
    ck_assert(ev->lane == DV_PIPE_S ? ev->op == NULL : ev->op != NULL);
    dv_tcount_insn(r->tc, ev);
}

static void rec_flag(void *user, const dv_trace_flag *ev)
{
    recorder *r = user;
    ck_assert_uint_ge(ev->cycle, r->now);
    r->now = ev->cycle;
    if (ev->kind == DV_TRACE_FLAG_SET)
        r->sets++;
    else if (ev->kind == DV_TRACE_FLAG_WAIT)
        r->waits++;
}

static void rec_stall(void *user, const dv_trace_stall *ev)
{
    recorder *r = user;
    ck_assert_uint_lt(ev->start, ev->end);
    r->stalls++;
    r->stall_cycles += ev->end - ev->start;
}

static recorder *watch(dv_sim *s)
{
    recorder *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    r->order_ok = r->overlap_ok = true;
    dv_sim_hooks sink = {.user = r,
                         .launch = rec_launch,
                         .block = rec_block,
                         .insn = rec_insn,
                         .flag = rec_flag,
                         .stall = rec_stall};
    ck_assert_int_eq(dv_sim_add_hooks(s, &sink, NULL), DV_OK);
    return r;
}

START_TEST(test_hooks_count_everything)
{
    const op_case *c = &cases[_i];
    dv_error err = {DV_OK, ""};
    dv_opr_run *op = make(c);
    dv_sim *s = dv_opr_sim(op);
    recorder *r = watch(s);
    dv_run_result res;
    ck_assert_int_eq(dv_sim_run(s, 0, &res, &err), DV_OK);
    ck_assert_int_eq(res.stop, DV_STOP_DONE);
    dv_tcount_finish(r->tc, res.cycles);
    ck_assert(r->launched);
    ck_assert_msg(r->order_ok, "hooks went back in time");
    ck_assert_msg(r->overlap_ok, "two instructions of a lane overlap");
    ck_assert_uint_eq(r->blocks, res.block_dim);
    ck_assert_uint_eq(r->win_end, res.cycles);
    uint64_t scalar_held = 0;
    for (unsigned i = 0; i < res.ncores; i++) {
        const dv_core_stats *st = tc_core(s, i).stats;
        scalar_held += st->pipe[DV_PIPE_S].wait_cycles; /* on flags and barriers */
        for (int l = 0; l < DV_PIPE_COUNT; l++)
            scalar_held += st->pipe[l].full_cycles; /* on a full queue */
        for (int l = 0; l < DV_PIPE_COUNT; l++) {
            ck_assert_msg(r->insns[i][l] == st->pipe[l].insns,
                          "core %u lane %d: %llu hooks, %llu instructions", i, l,
                          (unsigned long long)r->insns[i][l], (unsigned long long)st->pipe[l].insns);
            ck_assert_uint_eq(r->busy[i][l], st->pipe[l].busy_cycles);
            ck_assert_msg(fabs(r->win_busy[i][l] - (double)st->pipe[l].busy_cycles) < 1e-6,
                          "core %u lane %d: windows %.3f busy, statistics %llu", i, l, r->win_busy[i][l],
                          (unsigned long long)st->pipe[l].busy_cycles);
        }
        for (int p = 1; p < DV_PATH_COUNT; p++)
            ck_assert_msg(fabs(r->win_bytes[i][p] - (double)st->path_bytes[p]) <
                              1e-3 * (1 + (double)st->path_bytes[p]),
                          "core %u path %d: windows %.1f bytes, statistics %llu", i, p, r->win_bytes[i][p],
                          (unsigned long long)st->path_bytes[p]);
    }
    /* the stalls reported are the Scalar unit's wait and queue-full cycles */
    ck_assert_uint_eq(r->stall_cycles, scalar_held);
    if (strcmp(c->op, "matmul") == 0 && strcmp(c->variant, "naive") != 0)
        ck_assert_uint_gt(r->sets, 0);
    ck_assert_uint_le(r->waits, r->sets);
    dv_tcount_destroy(r->tc);
    free(r);
    dv_opr_destroy(op);
}
END_TEST

/* ---- two simulations in turns ---- */

/* The hooks of one simulation saw its own instructions, all of them. */
static void saw_own(const recorder *r, dv_sim *s, const dv_run_result *res)
{
    ck_assert(r->launched);
    ck_assert_uint_eq(r->ncores, res->ncores);
    ck_assert_uint_eq(r->blocks, res->block_dim);
    ck_assert(r->order_ok && r->overlap_ok);
    for (unsigned i = 0; i < res->ncores; i++)
        for (int l = 0; l < DV_PIPE_COUNT; l++)
            ck_assert_uint_eq(r->insns[i][l], tc_core(s, i).stats->pipe[l].insns);
}

/* Pairs of cases[] on different chips or operators. */
static const unsigned pairs[][2] = {{0, 2}, {1, 3}, {2, 4}, {3, 4}, {0, 0}};
enum { NPAIRS = sizeof pairs / sizeof pairs[0] };

START_TEST(test_interleaved)
{
    const op_case *ca = &cases[pairs[_i][0]], *cb = &cases[pairs[_i][1]];
    dv_error err = {DV_OK, ""};
    dv_opr_run *alone_a = make(ca), *alone_b = make(cb), *a = make(ca), *b = make(cb);
    dv_run_result ra0, rb0, ra, rb;
    ck_assert_int_eq(dv_sim_run(dv_opr_sim(alone_a), 0, &ra0, &err), DV_OK);
    ck_assert_int_eq(dv_sim_run(dv_opr_sim(alone_b), 0, &rb0, &err), DV_OK);
    dv_sim *sa = dv_opr_sim(a), *sb = dv_opr_sim(b);
    recorder *wa = watch(sa), *wb = watch(sb);
    ck_assert_int_eq(dv_sim_start(sa, 0, &err), DV_OK);
    ck_assert_int_eq(dv_sim_start(sb, 0, &err), DV_OK);
    /* turns of unequal length, so the two are never at the same cycle for long */
    uint64_t until_a = 0, until_b = 0;
    bool more_a = true, more_b = true;
    while (more_a || more_b) {
        if (more_a)
            more_a = dv_sim_advance(sa, until_a += 29, &err);
        if (more_b)
            more_b = dv_sim_advance(sb, until_b += 41, &err);
    }
    ck_assert_int_eq(dv_sim_finish(sa, &ra, &err), DV_OK);
    ck_assert_int_eq(dv_sim_finish(sb, &rb, &err), DV_OK);
    dv_tcount_finish(wa->tc, ra.cycles);
    dv_tcount_finish(wb->tc, rb.cycles);
    same_stats(dv_opr_sim(alone_a), sa, &ra0, &ra);
    same_stats(dv_opr_sim(alone_b), sb, &rb0, &rb);
    saw_own(wa, sa, &ra);
    saw_own(wb, sb, &rb);
    ck_assert_int_eq(dv_opr_check_outputs(a, &err), DV_OK);
    ck_assert_int_eq(dv_opr_check_outputs(b, &err), DV_OK);
    ck_assert_uint_eq(a->check.mismatches, 0);
    ck_assert_uint_eq(b->check.mismatches, 0);
    dv_tcount_destroy(wa->tc);
    dv_tcount_destroy(wb->tc);
    free(wa);
    free(wb);
    dv_opr_destroy(alone_a);
    dv_opr_destroy(alone_b);
    dv_opr_destroy(a);
    dv_opr_destroy(b);
}
END_TEST

/* ---- observers that fail or leave ---- */

static dv_status launch_fails(void *user, const dv_sim *sim, dv_error *err)
{
    (void)user, (void)sim;
    return dv_error_set(err, DV_ERR_NOMEM, "the observer has no memory");
}

/* An observer's launch error is dv_sim_start's (and dv_sim_run's). */
START_TEST(test_launch_error)
{
    dv_error err = {DV_OK, ""};
    dv_opr_run *op = make(&cases[0]);
    dv_sim_hooks h = {.launch = launch_fails};
    ck_assert_int_eq(dv_sim_add_hooks(dv_opr_sim(op), &h, &err), DV_OK);
    dv_run_result res;
    ck_assert_int_eq(dv_sim_run(dv_opr_sim(op), 0, &res, &err), DV_ERR_NOMEM);
    ck_assert_str_eq(err.msg, "the observer has no memory");
    dv_opr_destroy(op);
}
END_TEST

/* A ticking observer that removes itself (and, on its second tick, the
 * pacer) during the run: it is not called again, the clock stops, the run
 * still ends with the cycles of a run without observers, and the other
 * observer sees every instruction. */
typedef struct leaver {
    dv_sim *sim;
    unsigned ticks, paces;
} leaver;
static leaver leave_state;

static uint64_t leave_period(void *user)
{
    (void)user;
    return 50;
}

static void leave_tick(void *user, uint64_t cycle)
{
    leaver *l = user;
    (void)cycle;
    ck_assert_uint_eq(++l->ticks, 1);
    dv_sim_remove_hooks(l->sim, l);
}

static uint64_t leave_pace(void *user, dv_sim *s)
{
    (void)user;
    leave_state.paces++;
    if (leave_state.paces == 3)
        dv_sim_remove_hooks(s, &leave_state.paces); /* the pacer leaves */
    return dv_sim_now(s) + 40;
}

START_TEST(test_remove_during_run)
{
    dv_error err = {DV_OK, ""};
    dv_opr_run *alone = make(&cases[2]), *op = make(&cases[2]);
    dv_run_result r0, r;
    ck_assert_int_eq(dv_sim_run(dv_opr_sim(alone), 0, &r0, &err), DV_OK);
    dv_sim *s = dv_opr_sim(op);
    leave_state = (leaver){.sim = s};
    recorder *w = watch(s);
    dv_sim_hooks tick = {.user = &leave_state, .period = leave_period, .tick = leave_tick};
    dv_sim_hooks pace = {.user = &leave_state.paces, .pace = leave_pace};
    ck_assert_int_eq(dv_sim_add_hooks(s, &tick, &err), DV_OK);
    ck_assert_int_eq(dv_sim_add_hooks(s, &pace, &err), DV_OK);
    ck_assert_int_eq(dv_sim_run(s, 0, &r, &err), DV_OK);
    ck_assert_uint_eq(leave_state.ticks, 1);
    ck_assert_uint_eq(leave_state.paces, 3);
    dv_tcount_finish(w->tc, r.cycles);
    same_stats(dv_opr_sim(alone), s, &r0, &r);
    saw_own(w, s, &r);
    dv_tcount_destroy(w->tc);
    free(w);
    dv_opr_destroy(alone);
    dv_opr_destroy(op);
}
END_TEST

/* ---- interrupts ---- */

static uint64_t pace_interrupt(void *user, dv_sim *s)
{
    uint64_t *at = user; /* at[0]: when to stop, at[1]: the last slice's end */
    if (at[1] >= at[0])
        dv_sim_interrupt(s);
    at[1] += 50;
    return at[1];
}

START_TEST(test_interrupt)
{
    dv_error err = {DV_OK, ""};
    dv_opr_run *op = make(&cases[0]);
    uint64_t at[2] = {500, 0};
    dv_sim_hooks pacer = {.user = at, .pace = pace_interrupt};
    ck_assert_int_eq(dv_sim_add_hooks(dv_opr_sim(op), &pacer, NULL), DV_OK);
    dv_run_result res;
    ck_assert_int_eq(dv_sim_run(dv_opr_sim(op), 0, &res, &err), DV_OK);
    ck_assert_int_eq(res.stop, DV_STOP_INTERRUPTED);
    ck_assert_str_eq(dv_stop_name(res.stop), "interrupted");
    ck_assert_uint_ge(res.cycles, 500);
    ck_assert_uint_lt(res.cycles, 600);
    ck_assert_ptr_nonnull(strstr(res.message, "interrupted at cycle"));
    /* whole statistics: the pipes' busy cycles never exceed the run (the
     * Scalar unit counts an instruction's latency when it issues it) */
    for (unsigned i = 0; i < res.ncores; i++)
        for (int l = DV_PIPE_V; l < DV_PIPE_COUNT; l++)
            ck_assert_uint_le(tc_core(dv_opr_sim(op), i).stats->pipe[l].busy_cycles, res.cycles);
    dv_opr_destroy(op);

    /* the flag a signal handler would set */
    op = make(&cases[0]);
    static volatile sig_atomic_t flag;
    flag = 0;
    dv_sim *s = dv_opr_sim(op);
    dv_sim_set_interrupt_flag(s, &flag);
    ck_assert_int_eq(dv_sim_start(s, 0, &err), DV_OK);
    ck_assert(dv_sim_advance(s, 300, &err));
    flag = 1;
    ck_assert(!dv_sim_advance(s, UINT64_MAX, &err));
    ck_assert_int_eq(dv_sim_finish(s, &res, &err), DV_OK);
    ck_assert_int_eq(res.stop, DV_STOP_INTERRUPTED);
    ck_assert_uint_le(res.cycles, 300);
    dv_opr_destroy(op);

    /* finishing a run that is still going counts as an interruption */
    op = make(&cases[0]);
    s = dv_opr_sim(op);
    ck_assert_int_eq(dv_sim_start(s, 0, &err), DV_OK);
    ck_assert(dv_sim_advance(s, 200, &err));
    ck_assert_int_eq(dv_sim_finish(s, &res, &err), DV_OK);
    ck_assert_int_eq(res.stop, DV_STOP_INTERRUPTED);
    /* and a finished simulation does not run again */
    ck_assert_int_eq(dv_sim_start(s, 0, &err), DV_ERR_USAGE);
    dv_opr_destroy(op);
}
END_TEST

/* The cycle limit still cuts where it did. */
START_TEST(test_limit_sliced)
{
    dv_error err = {DV_OK, ""};
    dv_opr_run *a = make(&cases[0]), *b = make(&cases[0]);
    dv_run_result ra, rb;
    ck_assert_int_eq(dv_sim_run(dv_opr_sim(a), 777, &ra, &err), DV_OK);
    ck_assert_int_eq(ra.stop, DV_STOP_LIMIT);
    dv_sim *s = dv_opr_sim(b);
    ck_assert_int_eq(dv_sim_start(s, 777, &err), DV_OK);
    for (uint64_t u = 0; dv_sim_advance(s, u, &err); u += 100)
        ;
    ck_assert_int_eq(dv_sim_finish(s, &rb, &err), DV_OK);
    same_stats(dv_opr_sim(a), s, &ra, &rb);
    dv_opr_destroy(a);
    dv_opr_destroy(b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trace-api");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_sliced_runs_match, 0, NCASES);
    tcase_add_loop_test(tc, test_hooks_count_everything, 0, NCASES);
    tcase_add_loop_test(tc, test_interleaved, 0, NPAIRS);
    tcase_add_test(tc, test_launch_error);
    tcase_add_test(tc, test_remove_during_run);
    tcase_add_test(tc, test_interrupt);
    tcase_add_test(tc, test_limit_sliced);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return dv_test_run(suite());
}
