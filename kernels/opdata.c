/* opdata.c - seeded input fills and the element-by-element comparison that
 * every operator's check() uses. */
#include "dv_fp.h"
#include "dv_operator.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void dv_opr_fill(dv_opr_run *r, unsigned index, dv_dtype dt, uint64_t count, double lo, double hi,
                 unsigned stream)
{
    if (!r->data || r->t[index].bound) /* a given tensor holds the caller's bytes */
        return;
    uint8_t *p = dv_opr_gm(r, index);
    uint64_t s = r->seed * 0x100000001b3ull + stream * 0x51ed270b27ull + 1;
    if (dt == DV_DT_F16) { /* the common case, converted by blocks (dv_f64_to_fp16_n) */
        enum { BLOCK = 256 };
        double v[BLOCK];
        uint16_t h[BLOCK];
        for (uint64_t i = 0; i < count; i += BLOCK) {
            size_t n = count - i < BLOCK ? (size_t)(count - i) : BLOCK;
            for (size_t k = 0; k < n; k++)
                v[k] = lo + (hi - lo) * ((double)(splitmix(&s) >> 11) / 9007199254740992.0);
            dv_f64_to_fp16_n(v, h, n);
            memcpy(p + 2 * i, h, 2 * n);
        }
        return;
    }
    for (uint64_t i = 0; i < count; i++) {
        double u = (double)(splitmix(&s) >> 11) / 9007199254740992.0; /* [0, 1) */
        double v = lo + (hi - lo) * u;
        uint16_t h;
        uint32_t w;
        switch (dt) {
        case DV_DT_F16: h = dv_f64_to_fp16(v), memcpy(p + 2 * i, &h, 2); break;
        case DV_DT_BF16: h = dv_f64_to_bf16(v), memcpy(p + 2 * i, &h, 2); break;
        case DV_DT_F32: w = dv_f32_bits((float)v), memcpy(p + 4 * i, &w, 4); break;
        case DV_DT_S8: p[i] = (uint8_t)(int8_t)floor(lo + (hi - lo + 1) * u); break;
        default: break;
        }
    }
}

double dv_opr_load(const uint8_t *base, dv_dtype dt, uint64_t i)
{
    uint16_t h;
    uint32_t w;
    switch (dt) {
    case DV_DT_F16: memcpy(&h, base + 2 * i, 2); return dv_fp16_to_f32(h);
    case DV_DT_BF16: memcpy(&h, base + 2 * i, 2); return dv_bf16_to_f32(h);
    case DV_DT_F32: memcpy(&w, base + 4 * i, 4); return dv_f32_from_bits(w);
    case DV_DT_S32: memcpy(&w, base + 4 * i, 4); return (int32_t)w;
    case DV_DT_S8: return (int8_t)base[i];
    case DV_DT_U8: return base[i];
    default: return NAN;
    }
}

double dv_opr_unit_roundoff(dv_dtype dt)
{
    switch (dt) {
    case DV_DT_F16: return ldexp(1, -11);
    case DV_DT_BF16: return ldexp(1, -8);
    case DV_DT_F32: return ldexp(1, -24);
    default: return 0;
    }
}

bool dv_opr_check_stop(dv_opr_run *r)
{
    if (!r->sim || !dv_sim_interrupted(r->sim))
        return false;
    r->check.interrupted = true;
    return true;
}

/* The first in (row, col) order, whatever order the elements come in. */
static void note_mismatch(dv_opr_check *c, const char *tensor, uint64_t row, uint64_t col, double got,
                          double want, double tol)
{
    if (c->mismatches++ == 0 || row < c->first_row || (row == c->first_row && col < c->first_col)) {
        c->first_row = row;
        c->first_col = col;
        snprintf(c->first_bad, sizeof c->first_bad, "%s[%llu, %llu] = %.9g, expected %.9g (tolerance %.3g)",
                 tensor, (unsigned long long)row, (unsigned long long)col, got, want, tol);
    }
}

static inline void compare_one(dv_opr_check *c, const char *tensor, uint64_t row, uint64_t col, double got,
                               double want, double tol)
{
    /* A reference of NaN or an infinity is matched by the same (any NaN
     * for a NaN; the infinity of the same sign), not by a tolerance: inf -
     * inf and NaN - NaN are NaN, which no tolerance admits. */
    bool special = isnan(want) || isinf(want);
    double abs_err = special ? ((isnan(want) ? isnan(got) : got == want) ? 0 : INFINITY) : fabs(got - want);
    bool bad = !(abs_err <= tol) && !(special && abs_err == 0); /* NaN is a mismatch */
    c->compared++;
    if (isnan(abs_err))
        abs_err = INFINITY;
    if (abs_err > c->max_abs)
        c->max_abs = abs_err;
    double rel = want != 0 ? abs_err / fabs(want) : (abs_err ? INFINITY : 0);
    if (rel > c->max_rel && fabs(want) > tol)
        c->max_rel = rel;
    if (bad)
        note_mismatch(c, tensor, row, col, got, want, tol);
}

void dv_opr_compare_to(dv_opr_check *c, const char *tensor, uint64_t row, uint64_t col, double got,
                       double want, double tol)
{
    compare_one(c, tensor, row, col, got, want, tol);
}

void dv_opr_compare_run(dv_opr_check *c, const char *tensor, uint64_t row, uint64_t col, uint64_t n,
                        const double *got, const double *want, const double *tol)
{
    for (uint64_t i = 0; i < n; i++)
        compare_one(c, tensor, row, col + i, got[i], want[i], tol[i]);
}

void dv_opr_compare(dv_opr_run *r, const char *tensor, uint64_t row, uint64_t col, double got, double want,
                    double tol)
{
    dv_opr_compare_to(&r->check, tensor, row, col, got, want, tol);
}

void dv_opr_check_merge(dv_opr_check *c, const dv_opr_check *part)
{
    c->compared += part->compared;
    if (part->max_abs > c->max_abs)
        c->max_abs = part->max_abs;
    if (part->max_rel > c->max_rel)
        c->max_rel = part->max_rel;
    if (part->mismatches && (!c->mismatches || part->first_row < c->first_row ||
                             (part->first_row == c->first_row && part->first_col < c->first_col))) {
        c->first_row = part->first_row;
        c->first_col = part->first_col;
        memcpy(c->first_bad, part->first_bad, sizeof c->first_bad);
    }
    c->mismatches += part->mismatches;
}
