/* test_fp.c - fp16 and bf16 conversions (base/dv_fp.h) against a
 * reference that rounds by comparing distances to the two neighbouring
 * representable values in double arithmetic, which is exact here. */
#include "dv_fp.h"

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- reference ---- */

/* Non-negative finite values of a 16-bit format in bit order, plus one
 * pseudo-entry past the largest finite value at the "next" magnitude: IEEE
 * rounds an overflowing value as if the exponent were unbounded, so values
 * at or beyond the midpoint to it round to infinity (its bit pattern). */
typedef struct fmt16 {
    const double *val; /* val[0..inf_bits], val[inf_bits] = pseudo-entry */
    unsigned inf_bits;
} fmt16;

/* Exact value of an fp16 pattern: (-1)^s * m * 2^(e-25) style arithmetic. */
static double fp16_value(unsigned h)
{
    unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e ? ldexp(1024 + m, (int)e - 25) : ldexp(m, -24);
    return (h & 0x8000) ? -v : v;
}

static double bf16_value(unsigned b)
{
    unsigned e = (b >> 7) & 0xff, m = b & 0x7f;
    double v = e ? ldexp(128 + m, (int)e - 134) : ldexp(m, -133);
    return (b & 0x8000) ? -v : v;
}

static double fp16_vals[0x7c00 + 1], bf16_vals[0x7f80 + 1];
static const fmt16 fp16_ref = {fp16_vals, 0x7c00}, bf16_ref = {bf16_vals, 0x7f80};

static void build_refs(void)
{
    for (unsigned h = 0; h < 0x7c00; h++)
        fp16_vals[h] = fp16_value(h);
    fp16_vals[0x7c00] = 65536.0;
    for (unsigned b = 0; b < 0x7f80; b++)
        bf16_vals[b] = bf16_value(b);
    bf16_vals[0x7f80] = ldexp(1.0, 128);
}

/* Round-to-nearest-even of a finite or infinite, non-NaN float. */
static uint16_t ref_round(const fmt16 *f, float x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs((double)x);
    if (a >= f->val[f->inf_bits])
        return (uint16_t)(sign | f->inf_bits);
    /* largest lo with val[lo] <= a */
    unsigned lo = 0, hi = f->inf_bits;
    while (hi - lo > 1) {
        unsigned mid = lo + (hi - lo) / 2;
        if (f->val[mid] <= a)
            lo = mid;
        else
            hi = mid;
    }
    unsigned r;
    double dlo = a - f->val[lo], dhi = f->val[lo + 1] - a;
    if (dlo < dhi)
        r = lo;
    else if (dhi < dlo)
        r = lo + 1;
    else
        r = (lo & 1) ? lo + 1 : lo;
    return (uint16_t)(sign | r);
}

/* Check's ck_assert records a mark point on every call, which is slow in
 * loops of millions; CHECK only calls into Check on failure. */
#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond))                                                                                         \
            ck_abort_msg(__VA_ARGS__);                                                                       \
    } while (0)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static bool fp16_is_nan(uint16_t h)
{
    return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

static bool bf16_is_nan(uint16_t b)
{
    return (b & 0x7f80) == 0x7f80 && (b & 0x7f);
}

/* ---- fp16 ---- */

START_TEST(test_fp16_widen_all)
{
    for (unsigned h = 0; h < 0x10000; h++) {
        float f = dv_fp16_to_f32((uint16_t)h);
        if (fp16_is_nan((uint16_t)h)) {
            CHECK(isnan(f), "fp16 0x%04x should widen to NaN", h);
            CHECK(!signbit(f) == !(h & 0x8000), "fp16 0x%04x: NaN sign lost", h);
        } else if ((h & 0x7fff) == 0x7c00) {
            CHECK(isinf(f) && !signbit(f) == !(h & 0x8000), "fp16 0x%04x should be an infinity", h);
        } else {
            double want = fp16_value(h);
            CHECK((double)f == want && !signbit(f) == !(h & 0x8000), "fp16 0x%04x widens to %a, want %a", h,
                  (double)f, want);
        }
    }
}
END_TEST

START_TEST(test_fp16_round_trip_all)
{
    for (unsigned h = 0; h < 0x10000; h++) {
        uint16_t back = dv_f32_to_fp16(dv_fp16_to_f32((uint16_t)h));
        if (fp16_is_nan((uint16_t)h)) {
            CHECK(fp16_is_nan(back), "fp16 NaN 0x%04x came back as 0x%04x", h, back);
            CHECK((back & 0x8000) == (h & 0x8000), "fp16 NaN 0x%04x lost its sign (0x%04x)", h, back);
        } else {
            CHECK(back == h, "fp16 0x%04x -> f32 -> 0x%04x", h, back);
        }
    }
}
END_TEST

/* Every midpoint between neighbouring fp16 values, and the floats just
 * beside it, both signs. */
START_TEST(test_fp16_ties)
{
    build_refs();
    unsigned checked = 0;
    for (unsigned h = 0; h < 0x7c00; h++) {
        float mid = (float)((fp16_ref.val[h] + fp16_ref.val[h + 1]) / 2);
        CHECK((double)mid == (fp16_ref.val[h] + fp16_ref.val[h + 1]) / 2, "midpoint not exact");
        float xs[3] = {mid, nextafterf(mid, 0.0f), nextafterf(mid, INFINITY)};
        for (int k = 0; k < 3; k++) {
            for (int s = 0; s < 2; s++) {
                float x = s ? -xs[k] : xs[k];
                uint16_t got = dv_f32_to_fp16(x), want = ref_round(&fp16_ref, x);
                CHECK(got == want, "f32 %a (0x%08x) -> fp16 0x%04x, want 0x%04x", (double)x, dv_f32_bits(x),
                      got, want);
                checked++;
            }
        }
        /* a tie rounds to the even neighbour */
        uint16_t t = dv_f32_to_fp16(mid);
        CHECK((t & 1) == 0 || t == 0x7c00, "tie %a rounded to odd 0x%04x", (double)mid, t);
    }
    ck_assert_uint_eq(checked, 0x7c00 * 6);
}
END_TEST

START_TEST(test_fp16_random)
{
    build_refs();
    for (int i = 0; i < 2000000; i++) {
        uint64_t r = rng();
        float x;
        if (i & 1) {
            x = dv_f32_from_bits((uint32_t)r);
        } else {
            /* exponents around the fp16 range: subnormal to overflow */
            int e = (int)((r >> 32) % 48) - 30;
            x = ldexpf(1.0f + (float)(r & 0xffffff) / 16777216.0f, e);
            if (r >> 63)
                x = -x;
        }
        if (isnan(x))
            continue;
        uint16_t got = dv_f32_to_fp16(x), want = ref_round(&fp16_ref, x);
        CHECK(got == want, "f32 %a (0x%08x) -> fp16 0x%04x, want 0x%04x", (double)x, dv_f32_bits(x), got,
              want);
    }
}
END_TEST

START_TEST(test_fp16_special)
{
    ck_assert_uint_eq(dv_f32_to_fp16(1.0f), 0x3c00);
    ck_assert_uint_eq(dv_f32_to_fp16(1.5f), 0x3e00);
    ck_assert_uint_eq(dv_f32_to_fp16(-2.0f), 0xc000);
    ck_assert_uint_eq(dv_f32_to_fp16(0.0f), 0x0000);
    ck_assert_uint_eq(dv_f32_to_fp16(-0.0f), 0x8000);
    /* overflow */
    ck_assert_uint_eq(dv_f32_to_fp16(65504.0f), 0x7bff);
    ck_assert_uint_eq(dv_f32_to_fp16(nextafterf(65520.0f, 0.0f)), 0x7bff);
    ck_assert_uint_eq(dv_f32_to_fp16(65520.0f), 0x7c00);
    ck_assert_uint_eq(dv_f32_to_fp16(-65520.0f), 0xfc00);
    ck_assert_uint_eq(dv_f32_to_fp16(1e10f), 0x7c00);
    ck_assert_uint_eq(dv_f32_to_fp16(3.4028235e38f), 0x7c00);
    ck_assert_uint_eq(dv_f32_to_fp16(INFINITY), 0x7c00);
    ck_assert_uint_eq(dv_f32_to_fp16(-INFINITY), 0xfc00);
    /* subnormals */
    ck_assert_uint_eq(dv_f32_to_fp16(ldexpf(1.0f, -24)), 0x0001);
    ck_assert_uint_eq(dv_f32_to_fp16(ldexpf(1.0f, -25)), 0x0000); /* tie to even: 0 */
    ck_assert_uint_eq(dv_f32_to_fp16(nextafterf(ldexpf(1.0f, -25), 1.0f)), 0x0001);
    ck_assert_uint_eq(dv_f32_to_fp16(ldexpf(3.0f, -25)), 0x0002); /* 1.5 ulp: tie to even 2 */
    ck_assert_uint_eq(dv_f32_to_fp16(ldexpf(1023.0f, -24)), 0x03ff);
    ck_assert_uint_eq(dv_f32_to_fp16(ldexpf(2047.0f, -25)), 0x0400); /* rounds up into the normals */
    ck_assert_uint_eq(dv_f32_to_fp16(ldexpf(1.0f, -14)), 0x0400);
    ck_assert_uint_eq(dv_f32_to_fp16(-ldexpf(1.0f, -26)), 0x8000);
    ck_assert_uint_eq(dv_f32_to_fp16(dv_f32_from_bits(0x00000001)), 0x0000); /* f32 subnormal */
    ck_assert_uint_eq(dv_f32_to_fp16(dv_f32_from_bits(0x80000001)), 0x8000);
    /* NaNs of every kind stay NaN and keep their sign */
    uint32_t nans[] = {0x7fc00000u, 0x7f800001u, 0x7fbfffffu, 0x7f802000u,
                       0xffc00000u, 0xff800001u, 0x7fffffffu};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t h = dv_f32_to_fp16(dv_f32_from_bits(nans[i]));
        CHECK(fp16_is_nan(h), "f32 NaN 0x%08x -> fp16 0x%04x is not NaN", nans[i], h);
        CHECK((h & 0x8000) == ((nans[i] >> 16) & 0x8000), "NaN 0x%08x lost its sign", nans[i]);
        CHECK(h & 0x200, "f32 NaN 0x%08x -> fp16 0x%04x is not quiet", nans[i], h);
    }
}
END_TEST

/* ---- bf16 ---- */

START_TEST(test_bf16_round_trip_all)
{
    for (unsigned b = 0; b < 0x10000; b++) {
        float f = dv_bf16_to_f32((uint16_t)b);
        CHECK(dv_f32_bits(f) == (uint32_t)b << 16, "bf16 0x%04x widens to 0x%08x", b, dv_f32_bits(f));
        uint16_t back = dv_f32_to_bf16(f);
        if (bf16_is_nan((uint16_t)b)) {
            CHECK(bf16_is_nan(back) && (back & 0x8000) == (b & 0x8000), "bf16 NaN 0x%04x came back as 0x%04x",
                  b, back);
        } else {
            CHECK(back == b, "bf16 0x%04x -> f32 -> 0x%04x", b, back);
            if ((b & 0x7fff) < 0x7f80)
                CHECK((double)f == bf16_value(b), "bf16 0x%04x value", b);
        }
    }
}
END_TEST

START_TEST(test_bf16_ties_and_random)
{
    build_refs();
    for (uint32_t b = 0; b < 0x10000; b++) {
        if ((b & 0x7fff) >= 0x7f80)
            continue;
        /* the exact midpoint above b, and its neighbours */
        uint32_t mid = (b << 16) | 0x8000u;
        uint32_t xs[3] = {mid, mid - 1, mid + 1};
        for (int k = 0; k < 3; k++) {
            float x = dv_f32_from_bits(xs[k]);
            if (isnan(x))
                continue;
            uint16_t got = dv_f32_to_bf16(x), want = ref_round(&bf16_ref, x);
            CHECK(got == want, "f32 0x%08x -> bf16 0x%04x, want 0x%04x", xs[k], got, want);
        }
    }
    for (int i = 0; i < 2000000; i++) {
        float x = dv_f32_from_bits((uint32_t)rng());
        if (isnan(x))
            continue;
        uint16_t got = dv_f32_to_bf16(x), want = ref_round(&bf16_ref, x);
        CHECK(got == want, "f32 0x%08x -> bf16 0x%04x, want 0x%04x", dv_f32_bits(x), got, want);
    }
}
END_TEST

START_TEST(test_bf16_special)
{
    ck_assert_uint_eq(dv_f32_to_bf16(1.5f), 0x3fc0);
    ck_assert_uint_eq(dv_f32_to_bf16(-1.0f), 0xbf80);
    ck_assert_uint_eq(dv_f32_to_bf16(-0.0f), 0x8000);
    ck_assert_uint_eq(dv_f32_to_bf16(dv_f32_from_bits(0x3f808000u)), 0x3f80); /* tie, even below */
    ck_assert_uint_eq(dv_f32_to_bf16(dv_f32_from_bits(0x3f818000u)), 0x3f82); /* tie, even above */
    /* overflow: the largest finite bf16 is 0x7f7f; its upper midpoint rounds to inf */
    ck_assert_uint_eq(dv_f32_to_bf16(dv_f32_from_bits(0x7f7f7fffu)), 0x7f7f);
    ck_assert_uint_eq(dv_f32_to_bf16(dv_f32_from_bits(0x7f7f8000u)), 0x7f80);
    ck_assert_uint_eq(dv_f32_to_bf16(3.4028235e38f), 0x7f80);
    ck_assert_uint_eq(dv_f32_to_bf16(-INFINITY), 0xff80);
    /* subnormals keep their bits, rounded */
    ck_assert_uint_eq(dv_f32_to_bf16(dv_f32_from_bits(0x00010000u)), 0x0001);
    ck_assert_uint_eq(dv_f32_to_bf16(dv_f32_from_bits(0x00008000u)), 0x0000);
    ck_assert_uint_eq(dv_f32_to_bf16(dv_f32_from_bits(0x00008001u)), 0x0001);
    ck_assert_uint_eq(dv_f32_to_bf16(dv_f32_from_bits(0x007fffffu)), 0x0080);
    uint32_t nans[] = {0x7fc00000u, 0x7f800001u, 0x7f810000u, 0xff800001u, 0x7fffffffu};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t b = dv_f32_to_bf16(dv_f32_from_bits(nans[i]));
        CHECK(bf16_is_nan(b), "f32 NaN 0x%08x -> bf16 0x%04x is not NaN", nans[i], b);
        CHECK((b & 0x8000) == ((nans[i] >> 16) & 0x8000), "NaN 0x%08x lost its sign", nans[i]);
        CHECK(b & 0x40, "f32 NaN 0x%08x -> bf16 0x%04x is not quiet", nans[i], b);
    }
}
END_TEST

START_TEST(test_f32_bits)
{
    ck_assert_uint_eq(dv_f32_bits(1.5f), 0x3fc00000u);
    ck_assert_uint_eq(dv_f32_bits(-0.0f), 0x80000000u);
    for (int i = 0; i < 1000; i++) {
        uint32_t u = (uint32_t)rng();
        ck_assert_uint_eq(dv_f32_bits(dv_f32_from_bits(u)), u);
    }
}
END_TEST

static Suite *fp_suite(void)
{
    Suite *s = suite_create("fp");
    TCase *tc = tcase_create("fp16");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_fp16_widen_all);
    tcase_add_test(tc, test_fp16_round_trip_all);
    tcase_add_test(tc, test_fp16_ties);
    tcase_add_test(tc, test_fp16_random);
    tcase_add_test(tc, test_fp16_special);
    suite_add_tcase(s, tc);
    tc = tcase_create("bf16");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_bf16_round_trip_all);
    tcase_add_test(tc, test_bf16_ties_and_random);
    tcase_add_test(tc, test_bf16_special);
    tcase_add_test(tc, test_f32_bits);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fp_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
