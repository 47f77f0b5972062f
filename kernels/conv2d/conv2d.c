/* conv2d.c - host part of conv2d and conv2d_bias_relu: 2D convolution on
 * the Cube by img2col (load3d), f16 in, f32 accumulation, f16 out.
 *
 * Logical tensors: x [N, C, H, W], w [Co, C, KH, KW], bias [Co], y [N, Co,
 * OH, OW] with OH = (H + 2 PH - DH (KH - 1) - 1) / SH + 1 (OW likewise).
 * In GM (what the kernel reads and writes, C0 = 16):
 *   x  NC1HWC0 [N, ceil(C/16), H, W, 16], channels padded with zeros;
 *   w  FracZ [ceil(C/16) KH KW, ceil(Co/16), 16 (out), 16 (in)], zero padded;
 *   y  NC1HWC0 [N, ceil(Co/16), OH, OW, 16];
 *   bias [ceil(Co/16) 16], zero padded.
 * The inputs are drawn (seeded) as the logical tensors, uniform in [-1, 1),
 * and packed; the reference reads them back out of the packed snapshots
 * (so --input files in the packed layouts work too), convolves in double and
 * compares every valid output element.
 *
 * conv2d_bias_relu computes relu(conv2d(x, w) + bias) either as one kernel
 * (fused: the bias preloads L0C, ReLU and f16 happen on the output path) or
 * as three launches through GM (unfused: conv2d, a bias add, a ReLU; the
 * operator framework's next_launch). */
#include "conv2d_tiling.h"
#include "dv_fp.h"
#include "dv_kernel_blob.h"
#include "dv_operator.h"
#include "opcommon.h"
#include "refgemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DV_KERNEL_BLOB(conv2d_conv2d);
DV_KERNEL_BLOB(conv2d_conv2d_post);

static const char *const conv_variants[] = {"db", NULL};
static const char *const cbr_variants[] = {"fused", "unfused", NULL};
static const char *const dtypes[] = {"f16", NULL};
static const dv_operator_param params[] = {
    {"N", 1, 1, 4096, "batch"},
    {"C", 64, 1, 4096, "input channels"},
    {"H", 28, 1, 4096, "input height"},
    {"W", 28, 1, 4096, "input width"},
    {"Co", 64, 1, 4096, "output channels"},
    {"KH", 3, 1, 255, "kernel height"},
    {"KW", 3, 1, 255, "kernel width"},
    {"SH", 1, 1, 63, "stride along H"},
    {"SW", 1, 1, 63, "stride along W"},
    {"PH", 1, 0, 255, "padding at the top and bottom"},
    {"PW", 1, 0, 255, "padding at the left and right"},
    {"DH", 1, 1, 255, "dilation along H (1: none)"},
    {"DW", 1, 1, 255, "dilation along W"},
    {NULL, 0, 0, 0, NULL},
};

enum { POST_MAX_TILE = 16384 }; /* elements per UB tile of the post kernels (128 repeats) */

typedef struct cv_state {
    cv_problem p;
    cv_tiling t;
    bool unfused;
    unsigned x, w, y, bias, rec, conv, biased; /* tensor indices */
} cv_state;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint16_t draw(uint64_t *s)
{
    return dv_f64_to_fp16(-1.0 + 2.0 * (double)(splitmix(s) >> 11) / 9007199254740992.0);
}

static void put16(uint8_t *base, uint64_t i, uint16_t v)
{
    memcpy(base + 2 * i, &v, 2);
}

/* Element offsets in the packed layouts. */
static uint64_t x_at(const cv_tiling *t, uint64_t n, uint64_t c, uint64_t h, uint64_t w)
{
    return (((n * t->c1 + c / 16) * t->h + h) * t->w + w) * 16 + c % 16;
}

static uint64_t w_at(const cv_tiling *t, uint64_t co, uint64_t c, uint64_t kh, uint64_t kw)
{
    uint64_t kb = ((c / 16) * t->kh + kh) * t->kw + kw;
    return ((kb * t->co1 + co / 16) * 16 + co % 16) * 16 + c % 16;
}

static uint64_t y_at(const cv_tiling *t, uint64_t n, uint64_t co, uint64_t oh, uint64_t ow)
{
    return (((n * t->co1 + co / 16) * t->oh + oh) * t->ow + ow) * 16 + co % 16;
}

/* Draws the logical tensors in NCHW order and packs them. */
static void fill(dv_opr_run *r, cv_state *s, uint64_t c)
{
    if (!r->data)
        return;
    const cv_tiling *t = &s->t;
    uint64_t seed = r->seed * 0x100000001b3ull + 0x5eed;
    /* a tensor the caller gave (dv_opr_create_on) keeps its bytes; the
     * draws go on, so the others get the values they always get */
    uint8_t *x = r->t[s->x].bound ? NULL : dv_opr_gm(r, s->x),
            *w = r->t[s->w].bound ? NULL : dv_opr_gm(r, s->w);
    for (uint64_t n = 0; n < t->n; n++)
        for (uint64_t ci = 0; ci < c; ci++)
            for (uint64_t h = 0; h < t->h; h++)
                for (uint64_t wi = 0; wi < t->w; wi++) {
                    uint16_t v = draw(&seed);
                    if (x)
                        put16(x, x_at(t, n, ci, h, wi), v);
                }
    for (uint64_t co = 0; co < t->co; co++)
        for (uint64_t ci = 0; ci < c; ci++)
            for (uint64_t kh = 0; kh < t->kh; kh++)
                for (uint64_t kw = 0; kw < t->kw; kw++) {
                    uint16_t v = draw(&seed);
                    if (w)
                        put16(w, w_at(t, co, ci, kh, kw), v);
                }
    if (t->bias || s->unfused) {
        uint8_t *b = r->t[s->bias].bound ? NULL : dv_opr_gm(r, s->bias);
        for (uint64_t co = 0; co < t->co; co++) {
            uint16_t v = draw(&seed);
            if (b)
                put16(b, co, v);
        }
    }
}

static dv_status set_conv_args(dv_opr_run *r, cv_state *s, unsigned out, dv_error *err)
{
    uint64_t args[] = {r->t[s->x].addr, r->t[s->w].addr, r->t[out].addr, r->t[s->rec].addr,
                       s->t.bias ? r->t[s->bias].addr : 0};
    dv_status st = opc_args(r, args, 5, err);
    return st == DV_OK ? dv_opr_set_blocks(r, s->t.blocks, err) : st;
}

static dv_status prepare_common(dv_opr_run *r, bool fused_op, dv_error *err)
{
    cv_state *s = calloc(1, sizeof *s);
    if (!s)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    r->state = s;
    cv_problem *p = &s->p;
    p->n = dv_opr_param(r, "N"), p->c = dv_opr_param(r, "C"), p->h = dv_opr_param(r, "H");
    p->w = dv_opr_param(r, "W"), p->co = dv_opr_param(r, "Co"), p->kh = dv_opr_param(r, "KH");
    p->kw = dv_opr_param(r, "KW"), p->sh = dv_opr_param(r, "SH"), p->sw = dv_opr_param(r, "SW");
    p->ph = dv_opr_param(r, "PH"), p->pw = dv_opr_param(r, "PW"), p->dh = dv_opr_param(r, "DH");
    p->dw = dv_opr_param(r, "DW");
    p->blocks = r->blocks_request;
    s->unfused = fused_op && strcmp(dv_opr_variant(r), "unfused") == 0;
    p->bias = p->relu = fused_op && !s->unfused;
    dv_status st = cv_tile(r->cfg, p, &s->t, err);
    if (st != DV_OK)
        return st;
    const cv_tiling *t = &s->t;
    if ((st = dv_opr_use_kernel(r, &dvk_conv2d_conv2d, r->cfg->split ? "conv2d_aic" : "conv2d", err)) !=
        DV_OK)
        return st;
    uint64_t xb = t->n * t->c1 * t->h * t->w * 32, wb = t->c1 * t->kk * t->co1 * 512;
    uint64_t yb = t->n * t->co1 * t->ohw * 32;
    const uint64_t fields[] = {
#define TILING_FIELD(member, sym, doc) t->member,
#include "tiling.def"
#undef TILING_FIELD
    };
    if ((st = dv_opr_tensor_add(r, "x", false, xb, &s->x, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "w", false, wb, &s->w, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "y", true, yb, &s->y, err)) != DV_OK ||
        (st = opc_record_tensor(r, fields, sizeof fields / sizeof fields[0], &s->rec, err)) != DV_OK)
        return st;
    if (fused_op && (st = dv_opr_tensor_add(r, "bias", false, t->co1 * 32, &s->bias, err)) != DV_OK)
        return st;
    if (s->unfused && ((st = dv_opr_tensor_add(r, "conv", true, yb, &s->conv, err)) != DV_OK ||
                       (st = dv_opr_tensor_add(r, "biased", true, yb, &s->biased, err)) != DV_OK))
        return st;
    fill(r, s, p->c);
    if ((st = set_conv_args(r, s, s->unfused ? s->conv : s->y, err)) != DV_OK)
        return st;
    r->launches = s->unfused ? 3 : 1;
    double macs = (double)t->n * (double)p->co * (double)t->ohw * (double)p->c * (double)t->kk;
    r->work = (dv_opr_work){
        .macs = macs,
        .read_bytes = (double)(xb + wb + (fused_op ? t->co1 * 32 : 0)),
        .write_bytes = (double)yb,
        .read_path = DV_PATH_GM_L1,
        .write_path = r->cfg->split ? DV_PATH_L0C_GM : DV_PATH_UB_GM,
    };
    snprintf(
        r->tiling, sizeof r->tiling,
        "%llu blocks x %llu tiles of %llu positions x %llu channels (%s fastest); K in %llu L1 chunk%s of "
        "%llu channel blocks, L0 steps of %llu x 16; block 0 loads %.0f strips of up to %llu rows and "
        "%.0f weight chunks%s",
        (unsigned long long)t->blocks, (unsigned long long)t->tpb, (unsigned long long)t->mt,
        (unsigned long long)t->nt, t->order ? "positions" : "channels", (unsigned long long)t->nch,
        t->nch == 1 ? "" : "s", (unsigned long long)t->cc, (unsigned long long)t->kstep, t->strip_loads,
        (unsigned long long)t->rows, t->w_loads,
        s->unfused ? "; then a bias add and a ReLU, each a launch"
        : t->bias  ? "; bias and ReLU fused"
                   : "");
    return DV_OK;
}

static dv_status prepare_conv(dv_opr_run *r, dv_error *err)
{
    return prepare_common(r, false, err);
}

static dv_status prepare_cbr(dv_opr_run *r, dv_error *err)
{
    return prepare_common(r, true, err);
}

/* Launches 1 and 2 of the unfused sequence: the bias add (conv -> biased)
 * and the ReLU (biased -> y), on the vector cores. */
static dv_status next_launch(dv_opr_run *r, unsigned i, dv_error *err)
{
    cv_state *s = r->state;
    const cv_tiling *t = &s->t;
    dv_status st =
        dv_opr_use_kernel(r, &dvk_conv2d_conv2d_post, r->cfg->split ? "conv2d_post_aiv" : "conv2d_post", err);
    if (st != DV_OK)
        return st;
    uint64_t plane = t->ohw * 16, tile = plane < POST_MAX_TILE ? plane : POST_MAX_TILE;
    uint64_t tpp = opc_ceil_div(plane, tile), tiles = t->n * t->co1 * tpp;
    uint64_t blocks = tiles < opc_vector_cores(r->cfg) ? tiles : opc_vector_cores(r->cfg);
    uint64_t tpb = opc_ceil_div(tiles, blocks);
    bool add = i == 1;
    uint64_t args[] = {r->t[add ? s->conv : s->biased].addr,
                       add ? r->t[s->bias].addr : 0,
                       r->t[add ? s->biased : s->y].addr,
                       plane,
                       tpp,
                       tile,
                       tiles,
                       tpb,
                       t->co1,
                       add ? 0 : 1};
    if ((st = opc_args(r, args, 10, err)) != DV_OK)
        return st;
    return dv_opr_set_blocks(r, blocks, err);
}

/* Compares y with relu?(conv + bias?) computed in double from the packed
 * snapshots.  Tolerance: the f32 accumulation of Kc = 16 C1 KH KW (+1 with
 * a bias) products (the classical bound Kc 2^-24 sum |terms|), one f16
 * rounding of the result (u_f16 |pre-ReLU value|), and for the unfused
 * sequence the second f16 rounding of the bias add; ReLU adds no error. */
/* The rule of both references for output (n, co, oh, ow) from its exact
 * sum and sum|x w|: the expected value and the allowed error. */
typedef struct cv_rule {
    const cv_state *s;
    const uint8_t *bh; /* the bias snapshot, or NULL */
    double u, acc;
} cv_rule;

static cv_rule rule_of(dv_opr_run *r)
{
    const cv_state *s = r->state;
    const cv_tiling *t = &s->t;
    bool with_bias = t->bias || s->unfused;
    double u = dv_opr_unit_roundoff(DV_DT_F16), kc = (double)(t->c1 * 16 * t->kk + (with_bias ? 1 : 0));
    snprintf(r->check.tolerance, sizeof r->check.tolerance,
             "|y - ref| <= u_f16 (|conv|%s) + Kc 2^-24 sum|x w| (f32 accumulation, Kc = 16 C1 KH KW%s), "
             "ref in double",
             s->unfused  ? " + |conv + b|"
             : with_bias ? " + b"
                         : "",
             with_bias ? " + 1" : "");
    return (cv_rule){.s = s,
                     .bh = with_bias ? r->t[s->bias].host : NULL,
                     .u = u,
                     .acc = (1 + u) * (1 + u) * kc * ldexp(1, -24)};
}

static void expect(const cv_rule *ru, uint64_t co, double sum, double sabs, double *want, double *tol)
{
    double u = ru->u;
    *want = sum;
    *tol = ru->acc * sabs + opc_tiny(DV_DT_F16);
    if (ru->bh) {
        double b = dv_opr_load(ru->bh, DV_DT_F16, co);
        *want = sum + b;
        *tol += u * fabs(*want) + (ru->s->unfused ? u * fabs(sum) : ru->acc * fabs(b));
        *want = *want > 0 ? *want : 0;
    } else {
        *tol += u * fabs(sum);
    }
}

/* The fast reference (refgemm.h): the convolution as a GEMM, rows the
 * output positions (n, oh, ow), columns the output channels, K the
 * (ci, kh, kw) of the window (im2col rows, zeros where it pads). */
typedef struct cv_ref {
    cv_rule ru;
    const uint8_t *xh, *wh, *y;
} cv_ref;

static void ref_load_a(const void *user, uint64_t i0, uint64_t rows, double *dst)
{
    const cv_ref *x = user;
    const cv_tiling *t = &x->ru.s->t;
    uint64_t c = x->ru.s->p.c, kk = t->kk, k = c * kk;
    const float *tab = dv_fp16_table();
    for (uint64_t r = 0; r < rows; r++) {
        uint64_t i = i0 + r, ow = i % t->ow, oh = i / t->ow % t->oh, n = i / t->ow / t->oh;
        double *row = dst + r * k;
        for (uint64_t kh = 0; kh < t->kh; kh++) {
            int64_t ih = (int64_t)(oh * t->sh + kh * t->dh) - (int64_t)t->ph;
            for (uint64_t kw = 0; kw < t->kw; kw++) {
                int64_t iw = (int64_t)(ow * t->sw + kw * t->dw) - (int64_t)t->pw;
                bool in = ih >= 0 && ih < (int64_t)t->h && iw >= 0 && iw < (int64_t)t->w;
                for (uint64_t ci = 0; ci < c; ci++) {
                    uint16_t h = 0;
                    if (in)
                        memcpy(&h, x->xh + 2 * x_at(t, n, ci, (uint64_t)ih, (uint64_t)iw), 2);
                    row[ci * kk + kh * t->kw + kw] = in ? tab[h] : 0.0;
                }
            }
        }
    }
}

static void ref_load_b(const void *user, uint64_t j0, uint64_t cols, double *dst, uint64_t ld)
{
    const cv_ref *x = user;
    const cv_tiling *t = &x->ru.s->t;
    uint64_t c = x->ru.s->p.c, kk = t->kk;
    for (uint64_t ci = 0; ci < c; ci++)
        for (uint64_t k = 0; k < kk; k++)
            for (uint64_t cc = 0; cc < cols; cc++)
                dst[(ci * kk + k) * ld + cc] =
                    dv_opr_load(x->wh, DV_DT_F16, w_at(t, j0 + cc, ci, k / t->kw, k % t->kw));
}

static void ref_visit(const void *user, dv_opr_check *chk, uint64_t i0, uint64_t rows, uint64_t j0,
                      uint64_t cols, const double *c, const float *sabs, uint64_t ld, const ref_refine *rf)
{
    const cv_ref *x = user;
    const cv_tiling *t = &x->ru.s->t;
    uint64_t k = x->ru.s->p.c * t->kk;
    for (uint64_t r = 0; r < rows; r++) {
        uint64_t i = i0 + r, ow = i % t->ow, oh = i / t->ow % t->oh, n = i / t->ow / t->oh;
        for (uint64_t cc = 0; cc < cols; cc++) {
            uint64_t co = j0 + cc;
            double want, tol;
            double sb = ref_abs_bound(sabs[r * ld + cc], k);
            expect(&x->ru, co, c[r * ld + cc], sb, &want, &tol);
            double got = dv_opr_load(x->y, DV_DT_F16, y_at(t, n, co, oh, ow));
            if (ref_unsure(rf, r, cc, got, want, tol)) /* c from a float product, near the bound */
                expect(&x->ru, co, ref_exact(rf, r, cc), sb, &want, &tol);
            /* the plain reference's (row, col): its order of comparison */
            dv_opr_compare_to(chk, "y", (n * t->co + co) * t->oh + oh, ow, got, want, tol);
        }
    }
}

static dv_status check_fast(dv_opr_run *r, dv_error *err)
{
    const cv_state *s = r->state;
    const cv_tiling *t = &s->t;
    cv_ref x = {.ru = rule_of(r), .xh = r->t[s->x].host, .wh = r->t[s->w].host, .y = dv_opr_gm(r, s->y)};
    ref_gemm g = {.m = t->n * t->oh * t->ow,
                  .n = t->co,
                  .k = s->p.c * t->kk,
                  .load_a = ref_load_a,
                  .load_b = ref_load_b,
                  .visit = ref_visit,
                  .user = &x,
                  .abs = true};
    return ref_gemm_check(r, &g, err);
}

/* The plain reference: loops in double, sum|x w| exact. */
static dv_status check_plain(dv_opr_run *r, dv_error *err)
{
    cv_state *s = r->state;
    const cv_tiling *t = &s->t;
    const cv_problem *p = &s->p;
    const uint8_t *xh = r->t[s->x].host, *wh = r->t[s->w].host;
    const uint8_t *y = dv_opr_gm(r, s->y);
    uint64_t c = p->c, kk = t->kk;
    double *wd = malloc(sizeof(double) * (size_t)(t->co * c * kk));
    double *xd = malloc(sizeof(double) * (size_t)(c * t->h * t->w));
    if (!wd || !xd) {
        free(wd);
        free(xd);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for the reference");
    }
    for (uint64_t co = 0; co < t->co; co++)
        for (uint64_t ci = 0; ci < c; ci++)
            for (uint64_t k = 0; k < kk; k++)
                wd[(co * c + ci) * kk + k] =
                    dv_opr_load(wh, DV_DT_F16, w_at(t, co, ci, k / t->kw, k % t->kw));
    cv_rule ru = rule_of(r);
    for (uint64_t n = 0; n < t->n; n++) {
        for (uint64_t ci = 0; ci < c; ci++)
            for (uint64_t h = 0; h < t->h; h++)
                for (uint64_t wi = 0; wi < t->w; wi++)
                    xd[(ci * t->h + h) * t->w + wi] = dv_opr_load(xh, DV_DT_F16, x_at(t, n, ci, h, wi));
        for (uint64_t co = 0; co < t->co && !dv_opr_check_stop(r); co++)
            for (uint64_t oh = 0; oh < t->oh; oh++)
                for (uint64_t ow = 0; ow < t->ow; ow++) {
                    double sum = 0, sabs = 0;
                    for (uint64_t kh = 0; kh < t->kh; kh++) {
                        int64_t ih = (int64_t)(oh * t->sh + kh * t->dh) - (int64_t)t->ph;
                        if (ih < 0 || ih >= (int64_t)t->h)
                            continue;
                        for (uint64_t kw = 0; kw < t->kw; kw++) {
                            int64_t iw = (int64_t)(ow * t->sw + kw * t->dw) - (int64_t)t->pw;
                            if (iw < 0 || iw >= (int64_t)t->w)
                                continue;
                            const double *wr = wd + co * c * kk + kh * t->kw + kw;
                            const double *xr = xd + (uint64_t)ih * t->w + (uint64_t)iw;
                            for (uint64_t ci = 0; ci < c; ci++) {
                                double v = xr[ci * t->h * t->w] * wr[ci * kk];
                                sum += v;
                                sabs += fabs(v);
                            }
                        }
                    }
                    double want, tol;
                    expect(&ru, co, sum, sabs, &want, &tol);
                    double got = dv_opr_load(y, DV_DT_F16, y_at(t, n, co, oh, ow));
                    dv_opr_compare(r, "y", (n * t->co + co) * t->oh + oh, ow, got, want, tol);
                }
    }
    free(wd);
    free(xd);
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

#define CV_NOTES                                                                                             \
    "img2col by load3d from an L1 strip of the feature map (set_fmatrix), tiles of positions x channels "    \
    "and L1 "                                                                                                \
    "chunks of input channels from the chip's buffers, double buffered; blocks split batch, positions and "  \
    "channels. Padding may not exceed the dilated kernel's reach; H*W and OH*OW <= 65535. Tolerance: u_f16 " \
    "|y| "                                                                                                   \
    "+ Kc 2^-24 sum|x w| (f32 accumulation of Kc = 16 C1 KH KW products, one f16 rounding)."

static const dv_operator_case conv_cases[] = {
    {"N=1,C=16,H=8,W=8,Co=16,KH=1,KW=1,PH=0,PW=0", 0, "1x1"},
    {"N=1,C=32,H=12,W=12,Co=32", 0, "3x3, stride 1, padding 1"},
    {"N=1,C=32,H=15,W=13,Co=48,SH=2,SW=2", 0, "3x3, stride 2"},
    {"N=1,C=35,H=17,W=19,Co=50,DH=2,DW=2,PH=2,PW=1", 0, "dilation, odd channels"},
    {"N=3,C=3,H=20,W=20,Co=24,KH=7,KW=7,SH=2,SW=2,PH=3,PW=3", 0, "batch 3, a 7x7 stem"},
    {"N=2,C=20,H=9,W=11,Co=37,PH=0,PW=0", 0, "no padding"},
    {"N=1,C=64,H=14,W=14,Co=70,KH=1,KW=3,PH=0,PW=1,SW=2", 0, "asymmetric kernel and stride"},
    {"N=1,C=512,H=7,W=7,Co=64", 1, "one block: several L1 chunks"},
    {"N=2,C=24,H=30,W=30,Co=32", 40, "more blocks than cores"},
    {NULL, 0, NULL},
};

static const dv_operator_case cbr_cases[] = {
    {"N=1,C=16,H=9,W=9,Co=16,KH=1,KW=1,PH=0,PW=0", 0, "1x1"},
    {"N=2,C=20,H=13,W=11,Co=37", 0, "batch 2, odd channels"},
    {"N=1,C=64,H=16,W=16,Co=64,SH=2,SW=2", 0, "stride 2"},
    {NULL, 0, NULL},
};

const dv_operator dv_op_conv2d = {
    .name = "conv2d",
    .summary =
        "2D convolution (stride, padding, dilation, batch) on the Cube by img2col (load3d), f16 in, f32 acc",
    .variants = conv_variants,
    .dtypes = dtypes,
    .params = params,
    .tensors = "x[N,C1,H,W,16] (NC1HWC0) w[C1*KH*KW,Co1,16,16] (FracZ) -> y[N,Co1,OH,OW,16] (NC1HWC0); "
               "C1 = ceil(C/16), Co1 = ceil(Co/16), channels zero padded",
    .notes = CV_NOTES,
    .prepare = prepare_conv,
    .cases = conv_cases,
    .check = check,
    .release = release,
};

const dv_operator dv_op_conv2d_bias_relu = {
    .name = "conv2d_bias_relu",
    .summary = "relu(conv2d(x, w) + bias): one fused kernel, or conv2d -> bias add -> relu as three launches",
    .variants = cbr_variants,
    .dtypes = dtypes,
    .params = params,
    .tensors = "x[N,C1,H,W,16] (NC1HWC0) w[C1*KH*KW,Co1,16,16] (FracZ) bias[Co1*16] -> y[N,Co1,OH,OW,16] "
               "(NC1HWC0); unfused also writes conv[..] and biased[..] through GM",
    .notes =
        "fused: one launch; the first Cube product of a tile is ones x bias (init=1), preloading L0C as a "
        "BiasTable would; ReLU and the f16 conversion happen on the output path (FixPipe relu=1, or "
        "copy_l0c_ub relu=1 on coupled cores). unfused: conv2d, then a bias-add and a ReLU vector kernel, "
        "each "
        "its own launch reading and writing GM; the report sums cycles and GM bytes over the launches. "
        "Tolerance: u_f16 |conv + b| (+ u_f16 |conv| unfused: two roundings) + Kc 2^-24 sum|x w|.",
    .prepare = prepare_cbr,
    .cases = cbr_cases,
    .check = check,
    .release = release,
    .next_launch = next_launch,
};

DV_OPERATORS(conv2d, &dv_op_conv2d, &dv_op_conv2d_bias_relu);
