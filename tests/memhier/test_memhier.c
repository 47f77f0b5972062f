/* test_memhier.c - buffers, GM regions, transfer and bank-conflict costs. */
#include "dv_gmsys.h"
#include "dv_l2.h"
#include "dv_mem.h"
#include "dv_test_main.h"
#include "dv_timing.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_local_buffer_checks)
{
    dv_mem ub;
    ck_assert_int_eq(dv_mem_init(&ub, DV_MEM_UB, 4096, 32, NULL), DV_OK);
    dv_access_fault f;
    ck_assert_ptr_eq(dv_mem_span(&ub, 0, 4096, 0, &f), ub.bytes);
    ck_assert_ptr_eq(dv_mem_span(&ub, 4064, 32, 0, &f), ub.bytes + 4064);
    ck_assert_ptr_null(dv_mem_span(&ub, 4064, 64, 0, &f));
    ck_assert_int_eq(f.kind, DV_FAULT_RANGE);
    ck_assert_uint_eq(f.limit, 4096);
    ck_assert_ptr_null(dv_mem_span(&ub, 16, 32, 0, &f));
    ck_assert_int_eq(f.kind, DV_FAULT_ALIGN);
    ck_assert_uint_eq(f.limit, 32);
    /* an address near 2^64 must not wrap around the range check */
    ck_assert_ptr_null(dv_mem_span(&ub, UINT64_MAX - 31, 64, 0, &f));
    ck_assert_int_eq(f.kind, DV_FAULT_RANGE);
    char msg[160];
    dv_access_fault_describe(&f, msg, sizeof msg);
    ck_assert_ptr_nonnull(strstr(msg, "past the end of UB"));
    dv_mem_free(&ub);
    /* a buffer the core type does not have: every access faults */
    dv_mem none;
    ck_assert_int_eq(dv_mem_init(&none, DV_MEM_L0C, 0, 64, NULL), DV_OK);
    ck_assert_ptr_null(dv_mem_span(&none, 0, 64, 0, &f));
    dv_mem_free(&none);
}
END_TEST

START_TEST(test_gm_regions)
{
    dv_gm *gm = dv_gm_create(1 << 20);
    uint64_t a, b;
    ck_assert_int_eq(dv_gm_alloc(gm, 1000, &a, NULL), DV_OK);
    ck_assert_int_eq(dv_gm_alloc(gm, 512, &b, NULL), DV_OK);
    ck_assert_uint_eq(a % 512, 0);
    ck_assert_uint_gt(b, a + 1000); /* a guard gap, so overruns fault */
    dv_access_fault f;
    ck_assert_ptr_nonnull(dv_gm_span(gm, a, 1000, &f));
    ck_assert_ptr_nonnull(dv_gm_span(gm, a + 1, 999, &f)); /* GM needs no alignment */
    ck_assert_ptr_null(dv_gm_span(gm, a, 1001, &f));
    ck_assert_int_eq(f.kind, DV_FAULT_RANGE);
    ck_assert_ptr_null(dv_gm_span(gm, 0, 8, &f));
    ck_assert_ptr_nonnull(dv_gm_span(gm, b + 511, 1, &f));
    ck_assert_ptr_null(dv_gm_span(gm, b + 512, 1, &f));
    uint8_t *p = dv_gm_span(gm, b, 512, &f);
    ck_assert_uint_eq(p[0] | p[511], 0); /* zeroed */
    uint64_t c;
    dv_error err;
    ck_assert_int_eq(dv_gm_alloc(gm, 2 << 20, &c, &err), DV_ERR_INPUT); /* beyond capacity */
    dv_gm_destroy(gm);
}
END_TEST

START_TEST(test_xfer_cycles)
{
    /* ascend910 GM->UB: 64 B/cycle, head 20, GM latency 200 vanishing at 16 KiB */
    ck_assert_uint_eq(dv_xfer_cycles(65536, 64, 20, true, 200, 16384), 20 + 1024);
    ck_assert_uint_eq(dv_xfer_cycles(16384, 64, 20, true, 200, 16384), 20 + 256);
    /* 4 KiB: 64 cycles of data, 3/4 of the latency */
    ck_assert_uint_eq(dv_xfer_cycles(4096, 64, 20, true, 200, 16384), 20 + 64 + 150);
    /* on-core paths pay no GM latency; partial cycles round up */
    ck_assert_uint_eq(dv_xfer_cycles(4096, 64, 20, false, 200, 16384), 20 + 64);
    ck_assert_uint_eq(dv_xfer_cycles(65, 64, 0, false, 0, 16384), 2);
}
END_TEST

START_TEST(test_ub_bank_conflicts)
{
    const dv_ub_geom g = {48, 16, 32}; /* 910B UB: 48 banks in 16 groups */
    uint64_t reads[16], writes[8];
    /* vadd f16 over contiguous data: src0 blocks 0-7, src1 blocks 8-15 -> 16
     * rows in 16 different groups: one cycle, no conflict */
    for (int i = 0; i < 8; i++) {
        reads[i] = (uint64_t)i * 32;
        reads[8 + i] = (uint64_t)(8 + i) * 32;
        writes[i] = (uint64_t)(32 + i) * 32; /* previous repeat wrote banks 32-39 */
    }
    dv_ub_repeat_cost c = dv_ub_repeat(&g, reads, 16, writes, 8);
    ck_assert_uint_eq(c.cycles, 1);
    ck_assert_uint_eq(c.group_extra, 0);
    ck_assert_uint_eq(c.bank_extra, 0);
    /* src1 placed 16 blocks after src0 (same groups 0-7): two reads per group -> 2 cycles */
    for (int i = 0; i < 8; i++)
        reads[8 + i] = (uint64_t)(16 + i) * 32;
    c = dv_ub_repeat(&g, reads, 16, writes, 8);
    ck_assert_uint_eq(c.cycles, 2);
    ck_assert_uint_eq(c.group_extra, 1);
    /* block stride 0: the same row read 8 times is one access per operand */
    for (int i = 0; i < 8; i++) {
        reads[i] = 0;
        reads[8 + i] = 8 * 32;
    }
    c = dv_ub_repeat(&g, reads, 16, writes, 0);
    ck_assert_uint_eq(c.cycles, 1);
    /* a write to a bank being read: one extra cycle per such bank */
    writes[0] = 0;
    writes[1] = 48 * 32; /* same bank 0, another row */
    c = dv_ub_repeat(&g, reads, 16, writes, 2);
    ck_assert_uint_eq(c.bank_extra, 1);
    ck_assert_uint_eq(c.group_extra, 1); /* two writes in group 0 */
    ck_assert_uint_eq(c.cycles, 3);
}
END_TEST

START_TEST(test_l2_cache)
{
    /* 2 sets x 2 ways of 512-byte lines = 2 KiB */
    dv_l2 *l2 = dv_l2_create(2048, 512, 2, NULL);
    dv_l2_counts n = {0};
    /* a 1 KiB read at 0: lines 0 and 1, two misses, two fills */
    ck_assert_uint_eq(dv_l2_access(l2, 0, 1024, false, &n), 1024);
    ck_assert_uint_eq(n.read_misses, 2);
    ck_assert_uint_eq(dv_l2_access(l2, 100, 10, false, &n), 0); /* line 0 again: a hit */
    ck_assert_uint_eq(n.read_hits, 1);
    /* writes allocate without a fill: line 2 goes to set 0's free way */
    ck_assert_uint_eq(dv_l2_access(l2, 2 * 512, 512, true, &n), 0);
    ck_assert_uint_eq(n.write_misses, 1);
    /* line 4 (set 0) evicts line 0 (LRU of set 0, clean): one fill, no write-back */
    ck_assert_uint_eq(dv_l2_access(l2, 4 * 512, 1, false, &n), 512);
    /* line 6 (set 0) evicts dirty line 2: fill + write-back */
    ck_assert_uint_eq(dv_l2_access(l2, 6 * 512, 1, false, &n), 1024);
    ck_assert_uint_eq(n.writeback_bytes, 512);
    /* an access straddling two lines touches both */
    dv_l2_counts m = {0};
    dv_l2_access(l2, 511, 2, false, &m);
    ck_assert_uint_eq(m.read_hits + m.read_misses, 2);
    dv_l2_destroy(l2);
    /* no cache: everything goes to HBM */
    dv_l2 *none = dv_l2_create(0, 512, 16, NULL);
    dv_l2_counts z = {0};
    ck_assert_uint_eq(dv_l2_access(none, 0, 2048, false, &z), 2048);
    ck_assert_uint_eq(z.read_misses, 4);
    dv_l2_destroy(none);
}
END_TEST

/* One contiguous GM range per transfer. */
typedef struct one_range {
    uint64_t addr, len;
} one_range;

static void visit_one(const void *ctx, dv_gm_range_fn fn, void *user)
{
    const one_range *r = ctx;
    fn(user, r->addr, r->len, false);
}

/* `n` transfers of `bytes` from different cores, all issued at cycle 0 to
 * distinct GM (every line misses L2): returns when the last is through. */
static uint64_t stream(dv_gmsys *g, unsigned n, uint64_t bytes)
{
    uint64_t last = 0;
    for (unsigned i = 0; i < n; i++) {
        one_range r = {(uint64_t)i * bytes, bytes};
        /* the path is fast (1 cycle): only the shared servers limit */
        dv_gm_xfer x = {i % 32, 0, bytes, 1, bytes, visit_one, &r};
        dv_l2_counts c = {0};
        uint64_t ser = 0;
        uint64_t t = dv_gmsys_access(g, &x, &c, &ser);
        last = t > last ? t : last;
    }
    return last;
}

/* The HBM and L2 servers carry the fraction of a cycle a transfer leaves
 * (issue 16): 32 KiB at 1200 B/cycle is 27.3 cycles, not 28, so 32 cores
 * reach HBM's configured rate.  On main, 256 such transfers took 256 * 28 =
 * 7168 cycles (97.5% of the rate); 4 KiB bursts 256 * 4 = 1024 cycles of
 * 873.8 (85%); the L2 at 6000 B/cycle delivered 32 KiB in 6 cycles, not 5.46. */
START_TEST(test_gmsys_fractional_rate)
{
    dv_gmsys g;
    /* no L2: every byte is served by HBM at 1200 B/cycle */
    ck_assert_int_eq(dv_gmsys_init(&g, 0, 512, 16, 1200, 5, NULL), DV_OK);
    uint64_t t = stream(&g, 256, 32768);
    ck_assert_uint_eq(t, (256ull * 32768 + 1199) / 1200); /* 6991 */
    ck_assert(256.0 * 32768 / (double)t >= 0.999 * 1200);
    dv_gmsys_free(&g);
    ck_assert_int_eq(dv_gmsys_init(&g, 0, 512, 16, 1200, 5, NULL), DV_OK);
    t = stream(&g, 256, 4096);
    ck_assert_uint_eq(t, (256ull * 4096 + 1199) / 1200); /* 874 */
    dv_gmsys_free(&g);
    /* an L2 that already holds the data: only its server (5 x 1200) limits */
    ck_assert_int_eq(dv_gmsys_init(&g, 64 << 20, 512, 16, 1200, 5, NULL), DV_OK);
    stream(&g, 256, 32768); /* warm: 8 MiB of lines now in L2 */
    g.l2_free = g.hbm_free = 0;
    t = stream(&g, 256, 32768);
    ck_assert_uint_eq(t, (256ull * 32768 + 5999) / 6000); /* 1399, not 256 * 6 = 1536 */
    dv_gmsys_free(&g);
}
END_TEST

/* n ranges of len bytes, step apart. */
typedef struct strided {
    uint64_t addr, len, step, n;
} strided;

static void visit_strided(const void *ctx, dv_gm_range_fn fn, void *user)
{
    const strided *r = ctx;
    for (uint64_t i = 0; i < r->n; i++)
        fn(user, r->addr + i * r->step, r->len, false);
}

/* A strided transfer costs the L2 the lines it touches: 1024 bursts of 32 B
 * 512 B apart are 1024 lines of 512 B through an L2 server of 6000 B/cycle,
 * ceil(524288 / 6000) = 88 cycles, where the same bursts packed into 32 KiB
 * take ceil(32768 / 6000) = 6.  On main both took 6 (the L2 server saw the
 * 32 KiB of useful bytes).  The data is in L2 already (a first pass). */
START_TEST(test_gmsys_lines_touched)
{
    const strided sparse = {0, 32, 512, 1024}, dense = {0, 32, 32, 1024};
    const strided *cases[] = {&sparse, &dense};
    const uint64_t want[] = {(1024 * 512 + 5999) / 6000, (32768 + 5999) / 6000};
    for (unsigned c = 0; c < 2; c++) {
        dv_gmsys g;
        ck_assert_int_eq(dv_gmsys_init(&g, 64 << 20, 512, 16, 1200, 5, NULL), DV_OK);
        dv_gm_xfer x = {0, 0, 32768, 1, 32768, visit_strided, cases[c]};
        dv_l2_counts cnt = {0};
        uint64_t ser = 0;
        dv_gmsys_access(&g, &x, &cnt, &ser); /* fills L2 */
        g.l2_free = g.hbm_free = 0;
        ck_assert_uint_eq(dv_gmsys_access(&g, &x, &cnt, &ser), want[c]);
        dv_gmsys_free(&g);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("memhier");
    TCase *tc = tcase_create("memhier");
    tcase_add_test(tc, test_local_buffer_checks);
    tcase_add_test(tc, test_gm_regions);
    tcase_add_test(tc, test_xfer_cycles);
    tcase_add_test(tc, test_ub_bank_conflicts);
    tcase_add_test(tc, test_l2_cache);
    tcase_add_test(tc, test_gmsys_fractional_rate);
    tcase_add_test(tc, test_gmsys_lines_touched);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
