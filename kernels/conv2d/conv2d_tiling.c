/* conv2d_tiling.c - the conv2d tiling function.
 *
 * A search over tile sizes (Mt positions, Nt channels, multiples of 16) and
 * the two tile orders; for each, the largest L1 chunk of input channel
 * blocks (cc) whose double-buffered strip and weights fit L1, and the
 * largest L0 step (kstep K blocks) whose A and B (plus the ones and bias
 * fractals of the fused bias) fit half of L0A and L0B.  L0C holds two tiles
 * (Mt x Nt x 4 each), UB two converted tiles on coupled cores.  Each
 * candidate is scored by walking block 0's items as the kernel will
 * (counting the strips and weight chunks it actually loads, since equal
 * neighbours reuse their buffers) with a pipe model: Cube fractal cycles,
 * MTE2 bytes over the GM->L1 path, MTE1 bytes and start-ups, the output
 * path, and the Scalar unit's per-item and per-step bookkeeping (all from
 * the chip config); the busiest pipe sets the pace, plus the first load and
 * the last output, which nothing hides.  Ties go to the larger tile. */
#include "conv2d_tiling.h"

#include "dv_timing.h"
#include "opcommon.h"

#include <stddef.h>
#include <string.h>

/* tiling_pp (kernel.inc) reads buffer 1 of a pair 8 bytes past buffer 0:
 * each pair's rows are adjacent in tiling.def. */
_Static_assert(offsetof(cv_tiling, s1) - offsetof(cv_tiling, s0) == 8, "s1 follows s0");
_Static_assert(offsetof(cv_tiling, w1) - offsetof(cv_tiling, w0) == 8, "w1 follows w0");

bool cv_out_dim(uint64_t in, uint64_t pad, uint64_t k, uint64_t dil, uint64_t stride, uint64_t *out)
{
    uint64_t span = dil * (k - 1) + 1;
    if (in + 2 * pad < span)
        return false;
    *out = (in + 2 * pad - span) / stride + 1;
    return true;
}

/* Input rows of the strip of position tile mi (as conv2d.dvs's cv_geom). */
static uint64_t strip_rows(const cv_tiling *t, uint64_t mi)
{
    uint64_t m0 = mi * t->mt, mv = opc_min(t->mt, t->ohw - m0);
    uint64_t ohs = m0 / t->ow, ohe = (m0 + mv - 1) / t->ow;
    int64_t ist = (int64_t)(ohs * t->sh) - (int64_t)t->ph;
    int64_t lo = ist > 0 ? ist : 0;
    int64_t end = (int64_t)(ohe * t->sh) - (int64_t)t->ph + (int64_t)t->spanh;
    int64_t hi = end < (int64_t)t->h ? end : (int64_t)t->h;
    return (uint64_t)(hi - lo);
}

/* Buffer layout of t for its sizes; false if it does not fit. */
static bool layout(const dv_chip_config *cfg, cv_tiling *t)
{
    uint64_t m1 = t->mt / 16, n1 = t->nt / 16;
    uint64_t strip = t->cc * t->rows * t->w * 32, wb = t->cc * t->kk * n1 * 512;
    t->s0 = 0;
    t->s1 = strip;
    t->w0 = 2 * strip;
    t->w1 = t->w0 + wb;
    t->biasl1 = t->w1 + wb;
    t->onesl1 = t->biasl1 + (t->bias ? t->co1 * 512 : 0);
    if (t->onesl1 + (t->bias ? 512 : 0) > cfg->l1_bytes)
        return false;
    t->onesoff = m1 * t->kstep * 512;
    t->l0ah = opc_round_up(t->onesoff + (t->bias ? m1 * 512 : 0), cfg->align_l0ab);
    t->biasoff = t->kstep * n1 * 512;
    t->l0bh = opc_round_up(t->biasoff + (t->bias ? n1 * 512 : 0), cfg->align_l0ab);
    if (2 * t->l0ah > cfg->l0a_bytes || 2 * t->l0bh > cfg->l0b_bytes || t->kstep * n1 > 255)
        return false;
    t->l0ch = opc_round_up(t->mt * t->nt * 4, cfg->align_l0c);
    if (2 * t->l0ch > cfg->l0c_bytes)
        return false;
    t->ubh = 0;
    if (!cfg->split) {
        /* a skew puts the pong half in other bank groups */
        t->ubh = opc_round_up(t->mt * t->nt * 2, UB_SKEW) + UB_SKEW;
        if (2 * t->ubh > cfg->ub_bytes)
            return false;
    }
    return true;
}

/* Cycles of a GM -> L1 DMA of `bytes` in the timing model. */
static double gm_l1(const dv_chip_config *cfg, uint64_t bytes)
{
    return (double)dv_xfer_cycles(bytes, dv_path_bw(cfg, DV_PATH_GM_L1), cfg->dma_head_cycles, true,
                                  cfg->gm_latency, cfg->gm_full_bw_bytes);
}

/* Cycles of the model for block 0 of candidate t. */
static double estimate(const dv_chip_config *cfg, cv_tiling *t)
{
    double cube = 0, mte2 = 0, mte1 = 0, out = 0, scalar = 0, first = 0, last = 0;
    double head = (double)cfg->dma_head_cycles;
    /* The Scalar unit, counted on conv2d.dvs's scalar lane of a traced run
     * (dvsim run conv2d --blocks 1 --no-data --trace: each scalar slice has
     * its source line; the library's lines are its caller's) and checked
     * against the disassembly (dvsim asm kernels/conv2d/conv2d.dvs -I
     * kernels/lib -I kernels/conv2d, dvsim disasm).  Per item: cv_geom of
     * the item (38 ALU, 10 mul, 32 loads and stores of the record and the
     * sdata geometry, 5 divisions: divremu 4 times and oh_e's divu, 1 taken
     * branch) and the item's bookkeeping (cv_next, the two cv_bufs,
     * cv_compute's set-up of the load3d, load2d and mmad words, cv_tile's
     * chunk test, cv_advance: 45 ALU, 2 mul, 4.5 dispatched, 17 loads, 8.5
     * taken branches; with one chunk cv_next compares the neighbours'
     * geometry, 4 loads, 2 ALU and 1 taken branch more).  Per strip loaded
     * (cv_load_strip): 11 ALU, 7 mul, 3 dispatched, 10 loads, 2 taken; per
     * weight chunk (cv_load_w): the same with 8 loads.  Per K step
     * (cv_step and the step loop of cv_compute): 14 ALU, 3 mul, 7
     * dispatched (load3d, load2d, four flags, the mmad), 0.5 taken (the
     * loop back every second step), no load.  Per tile: the output path
     * (cv_dst and cv_out_v: 15 ALU, 5 mul, 9 dispatched, 9 loads, 1 taken;
     * cv_out_fix: 11.5 ALU, 4 mul, 4 dispatched, 9.5 loads, 1 taken) and
     * the first product (cv_first: 3 dispatched, 1 load, 1 taken; with the
     * bias 9 ALU, 6 dispatched, 7 loads, 1 taken). */
    double geom_s = opc_scalar_cycles(cfg, 38, 10, 0, 32, 5, 1);
    double item_s = geom_s + (t->nch > 1 ? opc_scalar_cycles(cfg, 45, 2, 4.5, 17, 0, 8.5)
                                         : opc_scalar_cycles(cfg, 47, 2, 4.5, 21, 0, 9.5));
    double strip_s = opc_scalar_cycles(cfg, 11, 7, 3, 10, 0, 2),
           w_s = opc_scalar_cycles(cfg, 11, 7, 3, 8, 0, 2);
    double step_s = opc_scalar_cycles(cfg, 14, 3, 7, 0, 0, 0.5);
    double tile_s =
        (cfg->split ? opc_scalar_cycles(cfg, 11.5, 4, 4, 9.5, 0, 1)
                    : opc_scalar_cycles(cfg, 15, 5, 9, 9, 0, 1)) +
        (t->bias ? opc_scalar_cycles(cfg, 9, 0, 6, 7, 0, 1) : opc_scalar_cycles(cfg, 0, 0, 3, 1, 0, 1));
    uint64_t kb = t->c1 * t->kk;
    uint64_t end = opc_min(t->tpb, t->tiles);
    int64_t pn = -1, pmi = -1, pni = -1;
    t->strip_loads = t->w_loads = 0;
    for (uint64_t tile = 0; tile < end; tile++) {
        uint64_t per = t->nm * t->nn, n = tile / per, r = tile % per;
        uint64_t mi = t->order ? r % t->nm : r / t->nn, ni = t->order ? r / t->nm : r % t->nn;
        uint64_t mv = opc_min(t->mt, t->ohw - mi * t->mt), nv = opc_min(t->nt, t->co - ni * t->nt);
        uint64_t m1 = opc_ceil_div(mv, 16), n1 = opc_ceil_div(nv, 16), rows = strip_rows(t, mi);
        for (uint64_t c = 0; c < t->nch; c++) {
            uint64_t ccv = opc_min(t->cc, t->c1 - c * t->cc);
            bool news = t->nch > 1 || (int64_t)n != pn || (int64_t)mi != pmi;
            bool neww = t->nch > 1 || (int64_t)ni != pni;
            /* MTE2: each strip and weight chunk is one DMA, priced as the
             * timing model prices it (dv_xfer_cycles: head, bytes over the
             * GM->L1 path, and the GM latency of a transfer short of
             * path.gm_full_bw_bytes). */
            double load = (news ? gm_l1(cfg, ccv * rows * t->w * 32) : 0) +
                          (neww ? gm_l1(cfg, ccv * t->kk * n1 * 512) : 0);
            mte2 += load;
            t->strip_loads += news;
            t->w_loads += neww;
            /* The Cube starts when the block's first loads have landed. */
            if (tile == 0 && c == 0)
                first = load;
            uint64_t steps = opc_ceil_div(ccv * t->kk, t->kstep);
            double a = (double)(m1 * ccv * t->kk * 512) / (double)dv_path_bw(cfg, DV_PATH_L1_L0A),
                   b = (double)(ccv * t->kk * n1 * 512) / (double)dv_path_bw(cfg, DV_PATH_L1_L0B);
            mte1 += a + b + 2 * head * (double)steps;
            /* The Cube pays its head (cube.head_cycles) when an mmad does
             * not follow the previous one back to back: at the item's first
             * step, and at every step when MTE1 fills a step's halves
             * slower than the Cube multiplies them. */
            double cube_step = (double)(m1 * t->kstep * n1 * cfg->cube_fractal_cycles);
            double mte1_step = (a + b) / (double)steps + 2 * head;
            cube += (mte1_step > cube_step ? (double)steps : 1) * (double)cfg->cube_head_cycles;
            scalar += item_s + (news ? strip_s : 0) + (neww ? w_s : 0) + step_s * (double)steps;
        }
        scalar += tile_s;
        cube += (double)(m1 * kb * n1 * cfg->cube_fractal_cycles);
        /* The output path: FixPipe's one fixp to GM, or on coupled cores
         * copy_l0c_ub (Vector pipe) then copy_ub_gm (MTE3), each priced by
         * dv_xfer_cycles.  Across tiles the two pipes overlap (the busier
         * one sets the pace); the last tile pays both. */
        if (cfg->split) {
            double fix =
                (double)dv_xfer_cycles(mv * nv * 2, dv_path_bw(cfg, DV_PATH_L0C_GM), cfg->dma_head_cycles,
                                       true, cfg->gm_latency, cfg->gm_full_bw_bytes);
            out += fix;
            last = fix;
        } else {
            double v =
                (double)dv_xfer_cycles(m1 * n1 * 1024, dv_path_bw(cfg, DV_PATH_L0C_UB), cfg->dma_head_cycles,
                                       false, cfg->gm_latency, cfg->gm_full_bw_bytes);
            double m3 =
                (double)dv_xfer_cycles(mv * n1 * 32, dv_path_bw(cfg, DV_PATH_UB_GM), cfg->dma_head_cycles,
                                       true, cfg->gm_latency, cfg->gm_full_bw_bytes);
            out += opc_max_d(v, m3);
            last = v + m3;
        }
        pn = (int64_t)n, pmi = (int64_t)mi, pni = (int64_t)ni;
    }
    /* The pipes overlap in the steady state; the first item's load (after
     * the Scalar unit's set-up of it) and the last tile's output do not. */
    return opc_max_d(opc_max_d(cube, mte2), opc_max_d(opc_max_d(mte1, out), scalar)) + first + last + geom_s +
           strip_s;
}

dv_status cv_tile(const dv_chip_config *cfg, const cv_problem *p, cv_tiling *t, dv_error *err)
{
    cv_tiling b;
    memset(&b, 0, sizeof b);
    b.n = p->n, b.h = p->h, b.w = p->w, b.co = p->co, b.kh = p->kh, b.kw = p->kw;
    b.sh = p->sh, b.sw = p->sw, b.ph = p->ph, b.pw = p->pw, b.dh = p->dh, b.dw = p->dw;
    b.c1 = opc_ceil_div(p->c, 16);
    b.co1 = opc_ceil_div(p->co, 16);
    b.bias = p->bias, b.relu = p->relu;
    b.kk = p->kh * p->kw;
    b.spanh = p->dh * (p->kh - 1) + 1;
    if (p->ph > p->dh * (p->kh - 1) || p->pw > p->dw * (p->kw - 1))
        return dv_error_set(err, DV_ERR_INPUT,
                            "conv2d: padding PH=%llu PW=%llu must not exceed the dilated kernel's reach "
                            "(DH*(KH-1)=%llu, DW*(KW-1)=%llu): a window would hold padding only",
                            (unsigned long long)p->ph, (unsigned long long)p->pw,
                            (unsigned long long)(p->dh * (p->kh - 1)),
                            (unsigned long long)(p->dw * (p->kw - 1)));
    if (!cv_out_dim(p->h, p->ph, p->kh, p->dh, p->sh, &b.oh) ||
        !cv_out_dim(p->w, p->pw, p->kw, p->dw, p->sw, &b.ow))
        return dv_error_set(
            err, DV_ERR_INPUT,
            "conv2d: the dilated kernel (%llu x %llu) is larger than the padded input (%llu x %llu)",
            (unsigned long long)b.spanh, (unsigned long long)(p->dw * (p->kw - 1) + 1),
            (unsigned long long)(p->h + 2 * p->ph), (unsigned long long)(p->w + 2 * p->pw));
    b.ohw = b.oh * b.ow;
    if (p->h * p->w > 65535 || b.ohw > 65535)
        return dv_error_set(
            err, DV_ERR_INPUT,
            "conv2d: H*W=%llu and OH*OW=%llu must each be at most 65535 (DMA burst and FixPipe "
            "stride fields)",
            (unsigned long long)(p->h * p->w), (unsigned long long)b.ohw);
    /* img2col word without c1: kw, kh, sw, sh, dw, dh (layout img2col) */
    b.img = p->kw << 12 | p->kh << 20 | p->sw << 28 | p->sh << 34 | p->dw << 40 | p->dh << 48;
    uint64_t cores = cfg->cores;
    bool found = false;
    uint64_t mmax = opc_min(512, opc_round_up(b.ohw, 16)), nmax = opc_min(256, b.co1 * 16);
    for (uint64_t mt = 16; mt <= mmax; mt += 16)
        for (uint64_t nt = 16; nt <= nmax; nt += 16)
            for (uint64_t order = 0; order < 2; order++) {
                cv_tiling c = b;
                c.mt = mt, c.nt = nt, c.order = order;
                c.nm = opc_ceil_div(b.ohw, mt);
                c.nn = opc_ceil_div(b.co, nt);
                if (order && (c.nm == 1 || c.nn == 1))
                    continue; /* the same walk as order 0 */
                c.tiles = b.n * c.nm * c.nn;
                c.blocks = p->blocks ? p->blocks : opc_min(cores, c.tiles);
                c.tpb = opc_ceil_div(c.tiles, c.blocks);
                c.rows = 0;
                for (uint64_t mi = 0; mi < c.nm; mi++) {
                    uint64_t r = strip_rows(&c, mi);
                    c.rows = r > c.rows ? r : c.rows;
                }
                /* The largest chunk that fits, and a half and a quarter of
                 * it (smaller chunks start the Cube sooner when a block has
                 * few tiles), each with the largest step that fits. */
                uint64_t ccmax = 0;
                for (c.cc = opc_min(b.c1, 4095 / b.kk); c.cc >= 1 && !ccmax; c.cc--) {
                    c.nch = opc_ceil_div(b.c1, c.cc);
                    c.kstep = 1;
                    if (layout(cfg, &c))
                        ccmax = c.cc;
                }
                for (uint64_t div = 1; div <= 4 && ccmax / div >= 1; div *= 2) {
                    if (div > 1 && ccmax / div == ccmax / (div / 2))
                        continue;
                    cv_tiling d = c;
                    d.cc = ccmax / div;
                    d.nch = opc_ceil_div(b.c1, d.cc);
                    for (d.kstep = opc_min(d.cc * b.kk, 255); d.kstep >= 1 && !layout(cfg, &d); d.kstep--)
                        ;
                    if (!d.kstep)
                        continue;
                    d.est_cycles = estimate(cfg, &d);
                    if (!found || d.est_cycles < t->est_cycles * 0.999 ||
                        (d.est_cycles <= t->est_cycles * 1.001 &&
                         d.mt * d.nt * d.cc > t->mt * t->nt * t->cc)) {
                        *t = d;
                        found = true;
                    }
                }
            }
    if (!found)
        return dv_error_set(err, DV_ERR_INPUT,
                            "conv2d: no tiling fits %s's buffers (one channel block of a 16-position strip, "
                            "%llu input rows x W=%llu, and its weights must fit half of L1)",
                            cfg->name, (unsigned long long)b.spanh, (unsigned long long)p->w);
    /* the kernel's L0 layout uses the final tile sizes */
    layout(cfg, t);
    return DV_OK;
}
