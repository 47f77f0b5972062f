/* test_l2_ref.c - the L2 (ranks for LRU, 32-bit tags widened on demand,
 * sets by shift, fastmod or division) against the plainest model of the
 * same cache: 64-bit tags, a 64-bit LRU stamp per way, the victim the first
 * way of the lowest stamp.  Every access's HBM bytes and every count must
 * agree, over random streams on several geometries. */
#include "dv_l2.h"
#include "dv_test_main.h"

#include <check.h>
#include <stdlib.h>

typedef struct ref_l2 {
    uint64_t line, sets, ways, clock;
    uint64_t *tag, *used;
    bool *dirty;
} ref_l2;

static void ref_init(ref_l2 *r, uint64_t size, uint64_t line, unsigned ways)
{
    r->line = line;
    r->ways = ways;
    r->sets = size / line / ways;
    r->clock = 0;
    r->tag = calloc(r->sets * ways + 1, sizeof *r->tag);
    r->used = calloc(r->sets * ways + 1, sizeof *r->used);
    r->dirty = calloc(r->sets * ways + 1, sizeof *r->dirty);
}

static uint64_t ref_access(ref_l2 *r, uint64_t addr, uint64_t len, bool write, dv_l2_counts *c)
{
    uint64_t hbm = 0;
    for (uint64_t ln = addr / r->line; len && ln <= (addr + len - 1) / r->line; ln++) {
        if (!r->sets) {
            *(write ? &c->write_misses : &c->read_misses) += 1;
            hbm += r->line;
            continue;
        }
        uint64_t set = ln % r->sets * r->ways, hit = r->ways;
        for (uint64_t i = 0; i < r->ways; i++)
            if (r->tag[set + i] == ln + 1)
                hit = i;
        if (hit < r->ways) {
            *(write ? &c->write_hits : &c->read_hits) += 1;
        } else {
            hit = 0;
            for (uint64_t i = 1; i < r->ways; i++)
                if (r->used[set + i] < r->used[set + hit])
                    hit = i;
            if (r->tag[set + hit] && r->dirty[set + hit]) {
                c->writeback_bytes += r->line;
                hbm += r->line;
            }
            if (write) {
                c->write_misses++;
            } else {
                c->read_misses++;
                c->fill_bytes += r->line;
                hbm += r->line;
            }
            r->tag[set + hit] = ln + 1;
            r->dirty[set + hit] = false;
        }
        r->used[set + hit] = ++r->clock;
        r->dirty[set + hit] |= write;
    }
    return hbm;
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* n accesses of up to maxlen bytes within span bytes from base; a few far
 * ones (beyond 32-bit line numbers when far is set) */
static void compare(uint64_t size, uint64_t line, unsigned ways, uint64_t base, uint64_t span,
                    uint64_t maxlen, bool far, int n)
{
    dv_l2 *l2 = dv_l2_create(size, line, ways, NULL);
    ck_assert_ptr_nonnull(l2);
    ref_l2 r;
    ref_init(&r, size, line, ways);
    dv_l2_counts a = {0}, b = {0};
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ size ^ (line << 20) ^ ways;
    for (int i = 0; i < n; i++) {
        uint64_t addr = base + rnd(&seed) % span, len = rnd(&seed) % maxlen;
        if (far && i % 7 == 3)
            addr += (1ull << 33) * line;
        bool write = rnd(&seed) % 3 == 0;
        uint64_t ha = dv_l2_access(l2, addr, len, write, &a), hb = ref_access(&r, addr, len, write, &b);
        ck_assert_uint_eq(ha, hb);
    }
    ck_assert_uint_eq(a.read_hits, b.read_hits);
    ck_assert_uint_eq(a.read_misses, b.read_misses);
    ck_assert_uint_eq(a.write_hits, b.write_hits);
    ck_assert_uint_eq(a.write_misses, b.write_misses);
    ck_assert_uint_eq(a.fill_bytes, b.fill_bytes);
    ck_assert_uint_eq(a.writeback_bytes, b.writeback_bytes);
    /* the stream must have exercised the cache: hits, evictions of dirty lines */
    ck_assert_uint_gt(a.read_hits + a.write_hits, (uint64_t)n / 20);
    ck_assert_uint_gt(a.writeback_bytes, 0);
    dv_l2_destroy(l2);
    free(r.tag);
    free(r.used);
    free(r.dirty);
}

START_TEST(test_l2_powers_of_two)
{
    compare(64 * 1024, 512, 16, 0x10000, 512 * 1024, 4096, false, 40000); /* 8 sets of 16 */
    compare(8 * 1024, 64, 1, 0, 64 * 1024, 300, false, 20000);            /* direct-mapped */
    compare(16 * 512, 512, 16, 0, 64 * 1024, 2000, false, 20000);         /* one set */
}
END_TEST

START_TEST(test_l2_other_geometries)
{
    compare(3 * 16 * 512, 512, 16, 0x10000, 256 * 1024, 4096, false, 40000); /* 3 sets: fastmod */
    compare(5 * 3 * 500, 500, 3, 7, 100 * 1000, 1500, false, 30000);         /* line 500, 3 ways */
    compare(24 * 20 * 128, 128, 20, 0, 512 * 128, 700, false, 30000);        /* 20 ways */
}
END_TEST

START_TEST(test_l2_wide_tags)
{
    /* line numbers past 32 bits: the tags widen mid-run, and fastmod gives
     * way to division */
    compare(3 * 4 * 64, 64, 4, 0, 64 * 64, 200, true, 20000);
    compare(4 * 4 * 64, 64, 4, 0, 64 * 64, 200, true, 20000);
    compare(2 * 16 * 64, 64, 16, 0, 128 * 64, 200, true, 20000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("l2_ref");
    TCase *tc = tcase_create("l2_ref");
    tcase_add_test(tc, test_l2_powers_of_two);
    tcase_add_test(tc, test_l2_other_geometries);
    tcase_add_test(tc, test_l2_wide_tags);
    suite_add_tcase(s, tc);
    return dv_test_run(s);
}
