/* attention.c - host part of the attention operator: FlashAttention-style
 * forward O = softmax(Q K^T / sqrt(D)) V per (batch, head), f16 Q, K, V, O
 * [B, H, S, D] row-major, f32 softmax statistics, optionally causal
 * (top-left aligned, as PyTorch's is_causal: query i sees keys 0..i).
 *
 * Variants: overlap (the stages of different tiles overlap: on coupled
 * cores by set_flag / wait_flag, on split chips by a mix kernel whose AIC
 * and AIVs hand tiles through GM rings with cross-core flags and a QK
 * look-ahead) and serial (no overlap of Cube and Vector).  The tiling is
 * chosen from the chip's buffers (see attention.dvs for the kernels). */
#include "dv_fp.h"
#include "dv_kernel_blob.h"
#include "dv_operator.h"
#include "opcommon.h"
#include "refgemm.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DV_KERNEL_BLOB(attention_attention);

static const char *const variants[] = {"overlap", "serial", NULL};
static const char *const dtypes[] = {"f16", NULL};
static const dv_operator_param params[] = {
    {"B", 1, 1, 4096, "batch"},
    {"H", 2, 1, 4096, "heads"},
    {"SQ", 256, 1, 65536, "query length"},
    {"SK", 512, 1, 65536, "key length"},
    {"D", 64, 64, 128, "head dimension: 64 or 128"},
    {"CAUSAL", 0, 0, 1, "1: query i sees keys 0..i"},
    {NULL, 0, 0, 0, NULL},
};

enum {
    AT_LOOKAHEAD = 2,
#define KERNEL_CONST(sym, value, doc) sym = value,
#include "consts.def"
#undef KERNEL_CONST
};
_Static_assert(AT_LOOKAHEAD < AT_RING, "the statistics ring holds the items between the SM and GU streams");
_Static_assert(AT_RING > 0 && (AT_RING & (AT_RING - 1)) == 0,
               "the kernels index the statistics ring with andi");
_Static_assert(2 * AT_NS <= 16, "a cross-core flag counter (at most 2 AT_NS) stays within 16 (facts #58)");

/* The record (TilingData): the rows of tiling.def, which the kernels read
 * too (at_common.inc), so the order is the one list of the fields. */
typedef struct at_tiling {
#define TILING_FIELD(member, sym, doc) uint64_t member;
#include "tiling.def"
#undef TILING_FIELD
} at_tiling;

/* tiling_pp (kernel.inc) reads buffer 1 of a pair 8 bytes past buffer 0:
 * each pair's rows are adjacent in tiling.def. */
#define AT_PAIR(f0, f1)                                                                                      \
    _Static_assert(offsetof(at_tiling, f1) - offsetof(at_tiling, f0) == 8, #f1 " follows " #f0)
AT_PAIR(q0, q1);
AT_PAIR(k0, k1);
AT_PAIR(v0, v1);
AT_PAIR(p0, p1);
AT_PAIR(sb0, sb1);
AT_PAIR(ot0, ot1);
#undef AT_PAIR

typedef struct at_state {
    at_tiling t;
    unsigned q, k, v, o, rec, ws;
    double flops; /* 4 B H SQ SK D (non-causal count) */
} at_state;

static uint64_t rup(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b * b;
}

/* Lays out UB from `at`; returns the end (bytes used). */
static uint64_t ub_layout(at_tiling *t, bool split)
{
    uint64_t at = 0;
#define PLACE(f, bytes) (t->f = at, at = rup(at + (bytes), 256))
    uint64_t r = t->r, d = t->d;
    PLACE(sb0, r * t->s1 * 2);
    if (t->nsb == 2)
        PLACE(sb1, r * t->s1 * 2);
    else
        t->sb1 = t->sb0;
    if (split) {
        PLACE(ot0, r * d * 2);
        PLACE(ot1, r * d * 2);
        PLACE(ot32, r * 16 * 4); /* one column block at a time */
    } else {
        uint64_t piece = r * t->otcb * 16 * 4;
        PLACE(ot32, piece > r * d * 2 ? piece : r * d * 2);
    }
    PLACE(oacc, r * d * 4);
    PLACE(pm, t->nb * r * 2);
    PLACE(pm32, t->nb * r * 4);
    PLACE(ps, t->nb * r * 2);
    PLACE(ps32, t->nb * r * 4);
    /* a ring of AT_RING items' statistics, 512 bytes apart: the softmax
     * stream starts item k + L while the rescale stream finishes item k */
    PLACE(mold, AT_RING * 512);
    PLACE(mnew, 512);
    PLACE(lsum, AT_RING * 512);
    PLACE(t32, 512);
    PLACE(alpha, AT_RING * 512);
    PLACE(rb16, r * 32);
    PLACE(rbl, r * 32);
    PLACE(tr, r * 32);
    PLACE(h16, r * 2);
    PLACE(l16, r * 2);
    PLACE(ab32, r * 64);
    PLACE(abl, r * 64);
    PLACE(one, 256);
    PLACE(ond, r * d * 2);
#undef PLACE
    return at;
}

/* Chooses S0 (query rows per item), S1 (keys per tile) and the buffer
 * layouts for the chip; DV_ERR_INPUT if nothing fits. */
static dv_status at_tile(const dv_chip_config *cfg, at_tiling *t, uint64_t blocks_req, dv_error *err)
{
    bool split = cfg->split;
    static const uint64_t s0s[] = {128, 64};
    static const uint64_t s1s[] = {256, 128};
    t->db = t->d / 16;
    for (unsigned a = 0; a < 2; a++)
        for (unsigned b = 0; b < 2; b++) {
            uint64_t s0 = s0s[a], s1 = s1s[b];
            /* split chips give each AIV half the rows, and the vector code
             * works on multiples of 64 rows */
            if (split && s0 != 128)
                continue;
            if (s1 == 256 && t->sk <= 128)
                continue;
            t->s0 = s0, t->s1 = s1;
            t->r = split ? s0 / 2 : s0;
            t->nb = s1 / 16, t->m1 = s0 / 16;
            /* L1: Q, K, V, P double buffered */
            uint64_t qb = s0 * t->d * 2, kb = s1 * t->d * 2, pb = s0 * s1 * 2;
            t->q0 = 0, t->q1 = qb, t->k0 = 2 * qb, t->k1 = t->k0 + kb, t->v0 = t->k1 + kb, t->v1 = t->v0 + kb;
            t->p0 = t->v1 + kb, t->p1 = t->p0 + pb;
            if (t->p1 + pb > cfg->l1_bytes)
                continue;
            /* L0: halves hold Q or a 128-key P chunk (A), a K half or a V chunk (B) */
            t->l0ah = cfg->l0a_bytes / 2 / cfg->align_l0ab * cfg->align_l0ab;
            t->l0bh = cfg->l0b_bytes / 2 / cfg->align_l0ab * cfg->align_l0ab;
            if (s0 * t->d * 2 > t->l0ah || s0 * 128 * 2 > t->l0ah || 128 * t->d * 2 > t->l0bh)
                continue;
            t->l0cs = rup(s0 * 128 * 4, cfg->align_l0c);
            /* a slot's event id comes from a compare chain of AT_SLOTS
             * cases, and must exist on the chip */
            t->nsl = cfg->l0c_bytes / t->l0cs;
            if (t->nsl > AT_SLOTS)
                t->nsl = AT_SLOTS;
            if (t->nsl > cfg->event_ids)
                t->nsl = cfg->event_ids;
            if (t->nsl < 2)
                continue;
            /* UB: two S tiles if they fit (split chips need them: MTE2,
             * the Vector unit and MTE3 work on consecutive tiles), and the
             * O tile of coupled cores comes out of L0C in pieces */
            bool ok = false;
            for (t->nsb = 2; t->nsb >= (split ? 2u : 1u) && !ok; t->nsb--)
                for (t->otcb = t->db; t->otcb >= 1; t->otcb /= 2)
                    if (ub_layout(t, split) <= cfg->ub_bytes) {
                        ok = true;
                        break;
                    }
            if (!ok)
                continue;
            t->nsb++;
            t->nqb = (t->sq + s0 - 1) / s0;
            t->ntk = (t->sk + s1 - 1) / s1;
            t->items = t->b * t->h * t->nqb;
            uint64_t cores = cfg->cores; /* coupled cores, or AIC groups */
            t->blocks = blocks_req ? blocks_req : t->items < cores ? t->items : cores;
            t->l = t->serial ? 0 : AT_LOOKAHEAD;
            t->ns = AT_NS;
            t->sslot = s0 * s1 * 2;
            t->oslot = s0 * t->d * 2;
            t->wss = 0, t->wsp = t->ns * t->sslot, t->wso = 2 * t->ns * t->sslot;
            t->wsblk = t->wso + t->ns * t->oslot;
            return DV_OK;
        }
    return dv_error_set(err, DV_ERR_INPUT, "attention: no tiling of D=%llu fits %s's buffers",
                        (unsigned long long)t->d, cfg->name);
}

static dv_status prepare(dv_opr_run *r, dv_error *err)
{
    at_state *s = calloc(1, sizeof *s);
    if (!s)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    r->state = s;
    at_tiling *t = &s->t;
    t->b = dv_opr_param(r, "B"), t->h = dv_opr_param(r, "H"), t->sq = dv_opr_param(r, "SQ");
    t->sk = dv_opr_param(r, "SK"), t->d = dv_opr_param(r, "D"), t->causal = dv_opr_param(r, "CAUSAL");
    t->serial = strcmp(dv_opr_variant(r), "serial") == 0;
    if (t->d != 64 && t->d != 128)
        return dv_error_set(err, DV_ERR_INPUT, "attention: D=%llu must be 64 or 128",
                            (unsigned long long)t->d);
    if (t->b * t->h > (1u << 20) || t->b * t->h * (t->sq > t->sk ? t->sq : t->sk) * t->d > (1ull << 31))
        return dv_error_set(err, DV_ERR_INPUT,
                            "attention: B*H*S*D=%llu is larger than this operator's 2^31 "
                            "elements per tensor",
                            (unsigned long long)(t->b * t->h * t->sq * t->d));
    dv_status st = at_tile(r->cfg, t, r->blocks_request, err);
    if (st != DV_OK)
        return st;
    uint16_t sc16 = dv_f64_to_fp16(1.0 / sqrt((double)t->d));
    t->sc16 = sc16;
    t->sc32 = dv_f32_bits(dv_fp16_to_f32(sc16));
    bool split = r->cfg->split;
    if ((st = dv_opr_use_kernel(r, &dvk_attention_attention, split ? "attention_mix" : "attention", err)) !=
        DV_OK)
        return st;
    uint64_t qb = t->b * t->h * t->sq * t->d * 2, kb = t->b * t->h * t->sk * t->d * 2;
    /* Slack after Q, K and V: a partial last block or tile loads whole
     * blocks (the rows past the end are masked or never written). */
    uint64_t qslack = t->s0 * t->d * 2, kslack = t->s1 * t->d * 2;
    const uint64_t fields[] = {
#define TILING_FIELD(member, sym, doc) t->member,
#include "tiling.def"
#undef TILING_FIELD
    };
    if ((st = dv_opr_tensor_add(r, "q", false, qb + qslack, &s->q, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "k", false, kb + kslack, &s->k, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "v", false, kb + kslack, &s->v, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "o", true, qb, &s->o, err)) != DV_OK ||
        (st = opc_record_tensor(r, fields, sizeof fields / sizeof fields[0], &s->rec, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "workspace", true, split ? t->blocks * t->wsblk : 32, &s->ws, err)) !=
            DV_OK)
        return st;
    dv_opr_fill(r, s->q, DV_DT_F16, qb / 2, -1, 1, 0);
    dv_opr_fill(r, s->k, DV_DT_F16, kb / 2, -1, 1, 1);
    dv_opr_fill(r, s->v, DV_DT_F16, kb / 2, -1, 1, 2);
    uint64_t args[] = {r->t[s->q].addr, r->t[s->k].addr,   r->t[s->v].addr,
                       r->t[s->o].addr, r->t[s->rec].addr, r->t[s->ws].addr};
    if ((st = opc_args(r, args, 6, err)) != DV_OK || (st = dv_opr_set_blocks(r, t->blocks, err)) != DV_OK)
        return st;
    /* Least work: the two products over the visible (query, key) pairs;
     * on the Vector unit an exp, a max and a sum pass over the scores. */
    double pairs = 0;
    for (uint64_t i = 0; i < t->sq; i++)
        pairs += (double)(t->causal ? (i + 1 < t->sk ? i + 1 : t->sk) : t->sk);
    pairs *= (double)(t->b * t->h);
    s->flops = 4.0 * (double)(t->b * t->h) * (double)t->sq * (double)t->sk * (double)t->d;
    r->work = (dv_opr_work){
        .macs = 2 * pairs * (double)t->d,
        .vec_cycles = 3 * pairs / 128.0 * (double)r->cfg->vec_slope_b16,
        .read_bytes = (double)(qb + 2 * kb),
        .write_bytes = (double)qb,
        .read_path = DV_PATH_GM_L1,
        .write_path = DV_PATH_UB_GM,
    };
    snprintf(r->tiling, sizeof r->tiling,
             "%llu blocks over %llu items of %llu query rows (%llu per vector core), key tiles of %llu, %s; "
             "%llu L0C slots; 4 B H SQ SK D = %.3g GFLOP",
             (unsigned long long)t->blocks, (unsigned long long)t->items, (unsigned long long)t->s0,
             (unsigned long long)t->r, (unsigned long long)t->s1,
             t->serial ? "serial (no overlap)" : "QK 2 tiles ahead of PV", (unsigned long long)t->nsl,
             s->flops / 1e9);
    return DV_OK;
}

/* The reference in double, and a first-order bound of the kernel's
 * rounding (u = 2^-11): per score s_j the exponent of p_j is off by at most
 *   e_j = sc (u |s_j| + D 2^-24 sum|q k|) + sc u |s_j - m| + u |t_j| + u
 * (S rounded to f16 after f32 accumulation, s - m and (s - m) sc rounded
 * in f16, exp rounded to f16), plus |s_j - m| |sc16 - sc| for the scale
 * rounded to f16; such relative errors move o by at most
 * sum_j w_j e_j |v_j - o|.  The O tiles (f16 on split chips) and the row
 * sums (f16 per 16-key block) add u sum_j w_j |v_j| and u |o|, the final
 * rounding u |o|.  Tolerance: 1.25 x that, plus 2^-24. */
static dv_status check_plain(dv_opr_run *r, dv_error *err)
{
    at_state *s = r->state;
    const at_tiling *t = &s->t;
    const uint8_t *qh = r->t[s->q].host, *kh = r->t[s->k].host, *vh = r->t[s->v].host;
    const uint8_t *o = dv_opr_gm(r, s->o);
    uint64_t d = t->d, sk = t->sk;
    double *qd = malloc(sizeof(double) * d), *kd = malloc(sizeof(double) * sk * d);
    double *vd = malloc(sizeof(double) * sk * d), *sc = malloc(sizeof(double) * sk * 3);
    if (!qd || !kd || !vd || !sc) {
        free(qd), free(kd), free(vd), free(sc);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for the reference");
    }
    double u = ldexp(1, -11), scale = 1.0 / sqrt((double)d), sc16 = dv_fp16_to_f32((uint16_t)t->sc16);
    snprintf(r->check.tolerance, sizeof r->check.tolerance,
             "|o - ref| <= 1.25 (sum_j w_j e_j |v_j - o| + u sum_j w_j |v_j| + 2u |o|) + 2^-24, e_j the f16 "
             "rounding of the exponent (see attention.c), ref in double");
    for (uint64_t bh = 0; bh < t->b * t->h; bh++) {
        for (uint64_t j = 0; j < sk * d; j++) {
            kd[j] = dv_opr_load(kh, DV_DT_F16, bh * sk * d + j);
            vd[j] = dv_opr_load(vh, DV_DT_F16, bh * sk * d + j);
        }
        for (uint64_t i = 0; i < t->sq && !dv_opr_check_stop(r); i++) {
            for (uint64_t c = 0; c < d; c++)
                qd[c] = dv_opr_load(qh, DV_DT_F16, (bh * t->sq + i) * d + c);
            uint64_t nk = t->causal ? (i + 1 < sk ? i + 1 : sk) : sk;
            double m = -INFINITY;
            for (uint64_t j = 0; j < nk; j++) {
                double sum = 0, sabs = 0;
                for (uint64_t c = 0; c < d; c++) {
                    double p = qd[c] * kd[j * d + c];
                    sum += p;
                    sabs += fabs(p);
                }
                sc[3 * j] = sum;
                sc[3 * j + 1] = sabs;
                m = sum > m ? sum : m;
            }
            double z = 0;
            for (uint64_t j = 0; j < nk; j++) {
                double sj = sc[3 * j], w = exp((sj - m) * scale), tj = (sj - m) * sc16;
                sc[3 * j + 2] = w;
                z += w;
                /* e_j, kept in sc[3j + 1] */
                sc[3 * j + 1] = sc16 * (u * fabs(sj) + (double)d * ldexp(1, -24) * sc[3 * j + 1]) +
                                sc16 * u * fabs(sj - m) + u * fabs(tj) + u +
                                fabs(sj - m) * fabs(sc16 - scale);
            }
            for (uint64_t c = 0; c < d; c++) {
                double ref = 0, vabs = 0;
                for (uint64_t j = 0; j < nk; j++) {
                    double w = sc[3 * j + 2] / z;
                    ref += w * vd[j * d + c];
                    vabs += w * fabs(vd[j * d + c]);
                }
                double prop = 0;
                for (uint64_t j = 0; j < nk; j++)
                    prop += sc[3 * j + 2] / z * sc[3 * j + 1] * fabs(vd[j * d + c] - ref);
                double tol = 1.25 * (prop + u * vabs + 2 * u * fabs(ref)) + ldexp(1, -24);
                double got = dv_opr_load(o, DV_DT_F16, (bh * t->sq + i) * d + c);
                dv_opr_compare(r, "o", bh * t->sq + i, c, got, ref, tol);
            }
        }
    }
    free(qd), free(kd), free(vd), free(sc);
    return DV_OK;
}

/* The fast reference: the same rule by blocks of 64 query rows on the
 * host's threads (refgemm.h), S = Q K^T, O = W V and W |V| as products
 * (sum|q k| in float, refgemm.h's bound), the propagation term in loops
 * along D that the compiler vectorises. */
enum { AT_REF_ROWS = 64 };

typedef struct at_ref_buf {
    double *q, *kt, *v, *va, *s, *w, *e, *o, *oa, *prop;
    float *qa, *kta, *sa;
    uint64_t bh; /* whose K and V are loaded, or UINT64_MAX */
    dv_opr_check chk;
} at_ref_buf;

typedef struct at_ref {
    const at_tiling *t;
    const uint8_t *qh, *kh, *vh, *o;
    uint64_t skp, nqb; /* SK padded to 32; query blocks per (b, h) */
    double u, scale, sc16;
    at_ref_buf buf[64];
} at_ref;

static void at_ref_free(at_ref_buf *b)
{
    free(b->q), free(b->kt), free(b->v), free(b->va), free(b->s), free(b->w), free(b->e), free(b->o);
    free(b->oa), free(b->prop), free(b->qa), free(b->kta), free(b->sa);
}

static bool at_ref_alloc(at_ref_buf *b, uint64_t d, uint64_t sk, uint64_t skp)
{
    size_t R = AT_REF_ROWS;
    b->q = malloc(sizeof(double) * R * d), b->qa = malloc(sizeof(float) * R * d);
    b->kt = calloc((size_t)(d * skp), sizeof(double)), b->kta = calloc((size_t)(d * skp), sizeof(float));
    b->v = malloc(sizeof(double) * (size_t)(sk * d)), b->va = malloc(sizeof(double) * (size_t)(sk * d));
    b->s = malloc(sizeof(double) * R * (size_t)skp), b->sa = malloc(sizeof(float) * R * (size_t)skp);
    b->w = malloc(sizeof(double) * R * (size_t)sk), b->e = malloc(sizeof(double) * R * (size_t)sk);
    b->o = malloc(sizeof(double) * R * d), b->oa = malloc(sizeof(double) * R * d);
    b->prop = malloc(sizeof(double) * d);
    b->bh = UINT64_MAX;
    return b->q && b->qa && b->kt && b->kta && b->v && b->va && b->s && b->sa && b->w && b->e && b->o &&
           b->oa && b->prop;
}

static void at_ref_block(void *user, uint64_t task, unsigned thread)
{
    at_ref *x = user;
    at_ref_buf *b = &x->buf[thread];
    const at_tiling *t = x->t;
    uint64_t d = t->d, sk = t->sk, skp = x->skp, bh = task / x->nqb, i0 = task % x->nqb * AT_REF_ROWS;
    uint64_t rows = t->sq - i0 < AT_REF_ROWS ? t->sq - i0 : AT_REF_ROWS, rows4 = (rows + 3) / 4 * 4;
    double u = x->u, scale = x->scale, sc16 = x->sc16;
    if (b->bh != bh) { /* K^T, V and |V| of this (b, h) */
        b->bh = bh;
        for (uint64_t j = 0; j < sk; j++) {
            ref_load_row(x->kh, DV_DT_F16, (bh * sk + j) * d, d, b->prop);
            for (uint64_t c = 0; c < d; c++) {
                b->kt[c * skp + j] = b->prop[c];
                b->kta[c * skp + j] = (float)fabs(b->prop[c]);
            }
        }
        ref_load_row(x->vh, DV_DT_F16, bh * sk * d, sk * d, b->v);
        for (uint64_t j = 0; j < sk * d; j++)
            b->va[j] = fabs(b->v[j]);
    }
    ref_load_row(x->qh, DV_DT_F16, (bh * t->sq + i0) * d, rows * d, b->q);
    memset(b->q + rows * d, 0, sizeof(double) * (size_t)((rows4 - rows) * d));
    for (uint64_t j = 0; j < rows4 * d; j++)
        b->qa[j] = (float)fabs(b->q[j]);
    ref_dgemm(rows4, skp, d, b->q, b->kt, b->s, skp);
    ref_sgemm(rows4, skp, d, b->qa, b->kta, b->sa, skp);
    memset(b->w, 0, sizeof(double) * (size_t)(rows4 * sk));
    memset(b->e, 0, sizeof(double) * (size_t)(rows4 * sk));
    for (uint64_t r = 0; r < rows; r++) {
        uint64_t i = i0 + r, nk = t->causal ? (i + 1 < sk ? i + 1 : sk) : sk;
        const double *sr = b->s + r * skp;
        double m = -INFINITY, z = 0;
        for (uint64_t j = 0; j < nk; j++)
            m = sr[j] > m ? sr[j] : m;
        double *wr = b->w + r * sk, *er = b->e + r * sk;
        for (uint64_t j = 0; j < nk; j++) {
            double sj = sr[j], w = exp((sj - m) * scale), tj = (sj - m) * sc16;
            wr[j] = w;
            z += w;
            er[j] = sc16 * (u * fabs(sj) + (double)d * ldexp(1, -24) * ref_abs_bound(b->sa[r * skp + j], d)) +
                    sc16 * u * fabs(sj - m) + u * fabs(tj) + u + fabs(sj - m) * fabs(sc16 - scale);
        }
        for (uint64_t j = 0; j < nk; j++) {
            wr[j] = wr[j] / z;
            er[j] = wr[j] * er[j];
        }
    }
    ref_dgemm(rows4, d, sk, b->w, b->v, b->o, d);
    ref_dgemm(rows4, d, sk, b->w, b->va, b->oa, d);
    for (uint64_t r = 0; r < rows; r++) {
        uint64_t i = i0 + r, nk = t->causal ? (i + 1 < sk ? i + 1 : sk) : sk;
        const double *ref = b->o + r * d, *er = b->e + r * sk;
        double *prop = b->prop;
        memset(prop, 0, sizeof(double) * (size_t)d);
        for (uint64_t j = 0; j < nk; j++) {
            const double *vr = b->v + j * d;
            for (uint64_t c = 0; c < d; c++)
                prop[c] += er[j] * fabs(vr[c] - ref[c]);
        }
        for (uint64_t c = 0; c < d; c++) {
            double tol = 1.25 * (prop[c] + u * b->oa[r * d + c] + 2 * u * fabs(ref[c])) + ldexp(1, -24);
            double got = dv_opr_load(x->o, DV_DT_F16, (bh * t->sq + i) * d + c);
            dv_opr_compare_to(&b->chk, "o", bh * t->sq + i, c, got, ref[c], tol);
        }
    }
}

static dv_status check_fast(dv_opr_run *r, dv_error *err)
{
    at_state *s = r->state;
    const at_tiling *t = &s->t;
    at_ref *x = calloc(1, sizeof *x);
    if (!x)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for the reference");
    *x = (at_ref){.t = t,
                  .qh = r->t[s->q].host,
                  .kh = r->t[s->k].host,
                  .vh = r->t[s->v].host,
                  .o = dv_opr_gm(r, s->o),
                  .skp = (t->sk + 31) / 32 * 32,
                  .nqb = (t->sq + AT_REF_ROWS - 1) / AT_REF_ROWS,
                  .u = ldexp(1, -11),
                  .scale = 1.0 / sqrt((double)t->d),
                  .sc16 = dv_fp16_to_f32((uint16_t)t->sc16)};
    snprintf(r->check.tolerance, sizeof r->check.tolerance,
             "|o - ref| <= 1.25 (sum_j w_j e_j |v_j - o| + u sum_j w_j |v_j| + 2u |o|) + 2^-24, e_j the f16 "
             "rounding of the exponent (see attention.c), ref in double");
    uint64_t ntasks = t->b * t->h * x->nqb;
    unsigned nt = ref_threads();
    if (nt > ntasks)
        nt = (unsigned)ntasks;
    bool ok = true;
    for (unsigned i = 0; i < nt && ok; i++)
        ok = at_ref_alloc(&x->buf[i], t->d, t->sk, x->skp);
    unsigned used = ok ? ref_parallel(ntasks, at_ref_block, x) : 0;
    for (unsigned i = 0; i < nt; i++) {
        dv_opr_check_merge(&r->check, &x->buf[i].chk);
        at_ref_free(&x->buf[i]);
    }
    free(x);
    if (!ok)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for the reference");
    snprintf(r->check.reference, sizeof r->check.reference, "%s, %u thread%s", ref_gemm_backend(), used,
             used == 1 ? "" : "s");
    return DV_OK;
}

static dv_status check(dv_opr_run *r, dv_error *err)
{
    return r->plain_reference ? check_plain(r, err) : check_fast(r, err);
}

static void release(dv_opr_run *r)
{
    free(r->state);
    r->state = NULL;
}

static const dv_operator_case cases[] = {
    {"B=1,H=1,SQ=128,SK=256,D=64", 0, "one query block, two key tiles"},
    {"B=1,H=2,SQ=100,SK=300,D=128", 0, "SK not a multiple of the tile"},
    {"B=2,H=1,SQ=200,SK=200,D=64,CAUSAL=1", 0, "the causal mask"},
    {"B=1,H=1,SQ=256,SK=1000,D=128,CAUSAL=1", 0, "causal, SQ < SK"},
    {"B=1,H=3,SQ=300,SK=77,D=128,CAUSAL=1", 0, "causal, SQ > SK: later rows see every key"},
    {"B=1,H=1,SQ=20,SK=1000,D=64", 0, "one short query block, many tiles"},
    {"B=2,H=2,SQ=64,SK=520,D=64,CAUSAL=1", 3, "fewer blocks than items"},
    {"B=1,H=4,SQ=128,SK=128,D=64", 1, "four one-tile items on one core: the statistics ring"},
    {NULL, 0, NULL},
};

const dv_operator dv_op_attention = {
    .name = "attention",
    .summary =
        "FlashAttention-style forward, softmax(Q K^T / sqrt(D)) V: Cube and Vector stages overlapped across "
        "tiles (split chips: a mix kernel, AIC + 2 AIVs through GM with cross-core flags)",
    .variants = variants,
    .dtypes = dtypes,
    .params = params,
    .tensors = "q[B,H,SQ,D] k[B,H,SK,D] v[B,H,SK,D] -> o[B,H,SQ,D] (f16 row-major; f32 softmax statistics)",
    .notes =
        "CAUSAL=1 masks keys after the query (top-left aligned). Items of 128 query rows (64 on coupled "
        "cores "
        "if UB is short), key tiles of 256 (128), QK two tiles ahead of PV; split chips: QK and PV on the "
        "AIC, "
        "softmax and rescale on its two AIVs (64 rows each), S, P and O through GM rings of 4 slots. "
        "Tolerance: a first-order bound of the f16 roundings of the exponent and of P, O tiles and the sum "
        "(see attention.c).",
    .prepare = prepare,
    .cases = cases,
    .check = check,
    .release = release,
};

DV_OPERATORS(attention, &dv_op_attention);
