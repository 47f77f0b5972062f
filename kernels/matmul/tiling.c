/* tiling.c - the matmul tiling function.
 *
 * naive: the textbook first attempt, 64 x 64 tiles and K steps of 64, A
 * reloaded for every tile.  tiled / pipelined / db: a search over tile
 * sizes (Mt, Nt multiples of 16 up to 256), L0 steps and L1 chunks that
 * fit the chip's buffers (facts #74: baseM*baseK <= L0A, baseK*baseN <=
 * L0B, baseM*baseN*4 <= L0C, each times the buffer count), keeping the A
 * panel of a tile row (Mt x K) in L1 so that consecutive tiles of a block
 * only stream B.  Each candidate is scored by a pipe model built from the
 * chip config: per tile the Cube, MTE2 (GM -> L1, each chunk priced by
 * dv_xfer_cycles), MTE1 (L1 -> L0) and output-path cycles, the slowest
 * pipe setting the pace (all of them adding up for the serial variants),
 * plus the Cube's head where it restarts after waits; the estimate is
 * tiles per block x that, plus the A panels' loads.  The kernel (mm.inc)
 * reads the result as its record (tiling.def). */
#include "tiling.h"

#include "dv_timing.h"
#include "opcommon.h"

#include <string.h>

static double opc_min_d(double a, double b)
{
    return a < b ? a : b;
}

uint64_t mm_ldc(const dv_chip_config *cfg, const mm_problem *p)
{
    (void)cfg;
    return opc_round_up(p->n, p->out == MM_OUT_REQ ? 32 : 16);
}

static uint64_t out_bytes(mm_out o)
{
    return o == MM_OUT_F32 ? 4 : o == MM_OUT_REQ ? 1 : 2;
}

/* Bytes per element copy_l0c_ub writes to UB on coupled cores (req goes
 * through f16). */
static uint64_t ub_bytes(mm_out o)
{
    return o == MM_OUT_F32 ? 4 : 2;
}

/* B given as B^T [N, K] (s8 always, floats with TB): its chunk is in
 * L0B's order already, one load2d per step. */
static bool mm_b_one_load(const mm_problem *p)
{
    return p->dt == 2 || p->tb;
}

/* f32 input (dt 3) with B [K, N]: its L0B fractals come from load2d's
 * merging transpose, a square of two fractals (16 K rows) at a time. */
static bool mm_b_squares(const mm_problem *p)
{
    return p->dt == 3 && !p->tb;
}

/* Cycles the Cube takes per fractal step of the input type: fp32 has its
 * own rate (cube.fp32_fractal_cycles, 16x8x16 per step, facts #6). */
static uint64_t mm_fractal_cycles(const dv_chip_config *cfg, const mm_problem *p)
{
    return p->dt == 3 ? cfg->cube_fp32_fractal_cycles : cfg->cube_fractal_cycles;
}

/* Fills the buffer layout of t for its sizes; false if it does not fit. */
static bool layout(const dv_chip_config *cfg, const mm_problem *p, mm_tiling *t, unsigned nbuf)
{
    uint64_t kp = opc_round_up(p->k, t->k0);
    uint64_t bchunk = opc_round_up(t->nt * t->kl1 * t->es, 32);
    uint64_t table = p->out == MM_OUT_VDEQ ? opc_round_up(p->n * 8, 32) : 0;
    if (t->achunk) {
        /* Each L1 buffer holds a chunk of B and, after it, the same chunk
         * of A (Mt x kl1): A streams with B, K is not bounded by L1. */
        uint64_t region = bchunk + opc_round_up(t->mt * t->kl1 * t->es, 32);
        t->aoff = bchunk;
        t->biasoff = region;
    } else {
        t->aoff = 0;
        t->biasoff = bchunk;
    }
    /* With a bias, each buffer also holds the tile's bias rows (Nt x 32
     * bytes, one element a row) and the ones fractal. */
    t->onesoff = t->biasoff + t->nt * 32;
    uint64_t half = p->bias ? t->onesoff + 512 : t->biasoff;
    /* The A panel(s) from 0: two (db) let MTE2 fill a tile row's panel
     * while MTE1 still reads the last row's. */
    uint64_t panel = t->achunk ? 0 : opc_round_up(t->mt * kp * t->es, 32);
    t->l1astep = t->apanels == 2 ? panel : 0;
    t->l1b = t->apanels == 2 ? 2 * panel : panel;
    t->l1bstep = nbuf == 2 ? half : 0;
    t->l1tab = t->l1b + half * nbuf;
    if (t->l1tab + table > cfg->l1_bytes)
        return false;
    uint64_t l0a = t->mt * t->kl0 * t->es, l0b = t->kl0 * t->nt * t->es;
    t->l0x = 0;
    if (p->bias) { /* ones x bias: m1 ones fractals in L0A, n1 bias ones in L0B */
        t->l0x = opc_round_up(l0a > l0b ? l0a : l0b, 512);
        l0a = t->l0x + t->mt * 32;
        l0b = t->l0x + t->nt * 32;
    }
    t->l0step = nbuf == 2 ? opc_round_up(l0a > l0b ? l0a : l0b, 512) : 0;
    if (l0a * nbuf > cfg->l0a_bytes || l0b * nbuf > cfg->l0b_bytes)
        return false;
    if (t->l0step && (t->l0step + l0a > cfg->l0a_bytes || t->l0step + l0b > cfg->l0b_bytes))
        return false;
    uint64_t l0c = t->mt * t->nt * 4;
    t->l0cstep = nbuf == 2 ? l0c : 0;
    if (l0c * nbuf > cfg->l0c_bytes)
        return false;
    t->ubnd = 0;
    t->ubstep = 0;
    if (!cfg->split) {
        uint64_t ub = t->mt * t->nt * t->uboes;
        if (p->out == MM_OUT_REQ) {
            t->ubnd = opc_round_up(ub, 32);
            ub = t->ubnd + t->mt * opc_round_up(t->nt, 32) * 3; /* f16 ND rows, then s8 rows */
        }
        t->ubscr = 0;
        if (p->act) { /* the activation's scratch tile after the tile */
            t->ubscr = opc_round_up(ub, 32);
            ub = t->ubscr + t->mt * t->nt * t->uboes;
        }
        ub = opc_round_up(ub, UB_SKEW) + UB_SKEW; /* skew the pong into other bank groups */
        t->ubstep = nbuf == 2 ? ub : 0;
        if (ub * nbuf > cfg->ub_bytes)
            return false;
    }
    /* load2d repeats: m1 and n1 <= 16; s8 B loads kfr * n1 fractals at once. */
    if (mm_b_one_load(p) && (t->kl0 / t->k0) * (t->nt / 16) > 255)
        return false;
    return true;
}

/* How many times MTE2 reads A and B over: A once per tile of a tile row
 * unless its panel stays, B once per tile row. */
double mm_a_reads(const mm_problem *p, const mm_tiling *t)
{
    /* swizzled (groups of G rows, round robin): a row's panel is loaded by
     * each of the blocks that visit it in its group, blocks / G of them */
    if (t->swz && t->reuse)
        return opc_min_d((double)t->blocks / (double)t->swz, (double)t->ntiles);
    return t->reuse ? 1 : (double)opc_ceil_div(p->n, t->nt);
}

double mm_b_reads(const mm_problem *p, const mm_tiling *t)
{
    return (double)opc_ceil_div(p->m, t->mt);
}

/* Cycles of the model for one candidate. */
static double estimate(const dv_chip_config *cfg, const mm_problem *p, const mm_tiling *t)
{
    double mt = (double)opc_min(t->mt, opc_round_up(p->m, 16)),
           nt = (double)opc_min(t->nt, opc_round_up(p->n, 16));
    double k = (double)opc_round_up(p->k, t->k0), es = (double)t->es;
    double cube = (mt / 16) * (nt / 16) * (k / (double)t->k0) * (double)mm_fractal_cycles(cfg, p);
    /* A block's tiles are consecutive in row-major order: it loads the A
     * panel once per tile row it touches (every tile when not reused); the
     * panel's load shows, since the row's first tile waits for it. */
    double rows = t->achunk  ? 0
                  : t->swz   ? (t->reuse ? opc_min_d((double)t->tpb, (double)opc_ceil_div(t->mtiles, t->swz))
                                         : (double)t->tpb)
                  : t->reuse ? 1 + (double)(t->tpb - 1) / (double)t->ntiles
                             : (double)t->tpb;
    double panel_one = mt * k * es / (double)dv_path_bw(cfg, DV_PATH_GM_L1);
    /* MTE2: the B chunks, each a DMA with its head and GM latency
     * (dv_xfer_cycles, the model's own cost). */
    double chunks = (double)opc_ceil_div(p->k, t->kl1), steps = (double)opc_ceil_div(p->k, t->kl0);
    double chunk =
        (double)dv_xfer_cycles((uint64_t)((double)t->kl1 * nt * es), dv_path_bw(cfg, DV_PATH_GM_L1),
                               cfg->dma_head_cycles, true, cfg->gm_latency, cfg->gm_full_bw_bytes);
    /* A in chunks (achunk): a second DMA per chunk, in the same stream. */
    double achunk = t->achunk ? (double)dv_xfer_cycles((uint64_t)((double)t->kl1 * mt * es),
                                                       dv_path_bw(cfg, DV_PATH_GM_L1), cfg->dma_head_cycles,
                                                       true, cfg->gm_latency, cfg->gm_full_bw_bytes)
                              : 0;
    double mte2 = chunks * (chunk + achunk);
    /* MTE1: bytes plus the start-up of each load2d: one per K fractal for
     * A, and for B one per K fractal (f16, bf16: transposed fractal by
     * fractal) or one per step (s8: the step's kfr x n1 fractals at once). */
    double loads =
        k / (double)t->k0 + (mm_b_one_load(p)  ? steps
                             : mm_b_squares(p) ? k / (double)(2 * t->k0) /* f32: a load per square row */
                                               : k / (double)t->k0);
    double mte1 = mt * k * es / (double)dv_path_bw(cfg, DV_PATH_L1_L0A) +
                  k * nt * es / (double)dv_path_bw(cfg, DV_PATH_L1_L0B) +
                  loads * (double)cfg->dma_head_cycles;
    double outc = cfg->split ? mt * nt * (double)t->oes / (double)dv_path_bw(cfg, DV_PATH_L0C_GM)
                             : opc_max_d(mt * nt * 4 / (double)dv_path_bw(cfg, DV_PATH_L0C_UB),
                                         mt * nt * (double)t->oes / (double)dv_path_bw(cfg, DV_PATH_UB_GM));
    /* A tile's first chunk is fetched when the Scalar unit reaches the tile,
     * as far ahead of the Cube as the MTE1 queue lets it run: queue_depth
     * instructions, per step its load2d and two flags. */
    double kfr = (double)t->kl0 / (double)t->k0;
    double step_cube = cube / steps, per_step_insns = (mm_b_one_load(p) ? kfr + 1 : 2 * kfr) + 2;
    double hidden = (double)cfg->queue_depth / per_step_insns * step_cube;
    double first = opc_max_d(0, chunk + achunk - hidden);
    /* The Scalar unit, counted on the main path of the disassembly of
     * db.dvs (dvsim asm kernels/matmul/db.dvs -I kernels/lib -I
     * kernels/matmul, then dvsim disasm): matmul_db_f16_f16, its _aic twin
     * and matmul_db_s8_deq; the other plans and conversions differ by a few
     * flags.  Ping and pong steps are averaged, loops take their branch
     * but on the last iteration, and a branch not taken counts as ALU.
     * Per K step of kfr fractals (mm_step_in, mm_load_l0, mm_mmad):
     *   f16, bf16: 29 + 9 kfr ALU, 2 kfr mul, 5 + 2 kfr dispatched (three
     *   flags, two load2d per fractal, the mmad, a flag), 1 load (T_L1B),
     *   2 kfr - 0.5 taken branches (the A and B fractal loops, the mmad's
     *   accumulate branch, the loop back every second step);
     *   s8: B is one load2d of the step's kfr x n1 fractals: 25 + 4.5 kfr
     *   ALU, 2 + kfr mul, 6 + kfr dispatched, 1 load, kfr + 0.5 taken. */
    double step_s = mm_b_one_load(p)
                        ? opc_scalar_cycles(cfg, 25 + 4.5 * kfr, 2 + kfr, 6 + kfr, 1, 0, kfr + 0.5)
                        : opc_scalar_cycles(cfg, 29 + 9 * kfr, 2 * kfr, 5 + 2 * kfr, 1, 0, 2 * kfr - 0.5);
    /* Per L1 chunk (mm_chunk around its steps, with the B load of
     * mm_load_l1, the tile's first in mm_tile): 25 ALU (s8's B address 3
     * fewer), 1 mul, 5 dispatched, 13 loads and stores (the record's K,
     * KL1, L1BSTEP, L1B, N, and kc, kv through sdata), 2.5 taken branches.
     * Per chunk of a tile that loads the A panel (mm_load_l1's A part): 12
     * ALU, 4 mul, 1 dispatched, 1 load. */
    double chunk_s = opc_scalar_cycles(cfg, t->es == 1 ? 22 : 25, 1, 5, 13, 0, 2.5);
    double apanel_s = opc_scalar_cycles(cfg, 12, 4, 1, 1, 0, 0);
    /* Per tile (mm_tile: its place by divremu, its sizes from the record,
     * the panel's reuse, T_KL0 and T_L0STEP): 19 ALU, 3 mul, 2 dispatched,
     * 10 loads, 1 division, 2 taken branches; then the output path: on
     * split chips (mm_out_split, one fixp) 11 ALU, 2 mul, 4 dispatched, 1
     * load; on coupled cores (mm_out_coupled, f16 / f32 / deq; vdeq and req
     * a few more) 19 ALU, 4 mul, 7 dispatched, 1 load, and per fractal
     * column (n1 of them: the copy_l0c_ub and copy_ub_gm loops) 8 ALU, 2
     * mul, 2 dispatched, 2 taken branches but for the last. */
    double n1 = nt / 16;
    double out_s = cfg->split ? opc_scalar_cycles(cfg, 11, 2, 4, 1, 0, 0)
                              : opc_scalar_cycles(cfg, 19 + 8 * n1, 4 + 2 * n1, 7 + 2 * n1, 1, 0, 2 * n1 - 2);
    /* The _ak kernels (A in chunks): per step, A's base in its B buffer is
     * 1 ALU and 2 loads more (mm_load_l0); each chunk loads A (mm_load_l1,
     * its address 1 mul fewer and 2 loads more than the panel's). */
    double where = t->achunk ? steps * opc_scalar_cycles(cfg, 1, 0, 0, 2, 0, 0) +
                                   chunks * (apanel_s + opc_scalar_cycles(cfg, 0, 0, 0, 2, 0, 0))
                             : 0;
    /* The two-panel kernels (_a2) read the tile's panel address from
     * scalar data (MM_SD_AP): 1 load per step and per chunk that loads the
     * panel; per new row the slot's flip and flags (mm_tile, or the
     * prefetch): 6 ALU, 2 mul, 4 dispatched, 6 loads and stores, 1 taken. */
    double ap = t->l1astep
                    ? (steps + rows / (double)t->tpb * chunks) * opc_scalar_cycles(cfg, 0, 0, 0, 1, 0, 0) +
                          opc_scalar_cycles(cfg, 6, 2, 4, 6, 0, 1)
                    : 0;
    /* The _sw kernels (swizzle.dvs): mm_swz_rc for the tile and its
     * prefetch, 3 ALU, 2 mul, 3 loads and a division more than a division
     * each, and the step's load twice. */
    double swz = t->swz ? opc_scalar_cycles(cfg, 6, 4, 0, 8, 2, 0) : 0;
    double scalar = opc_scalar_cycles(cfg, 19, 3, 2, 10, 1, 2) + out_s + chunks * chunk_s + steps * step_s +
                    rows / (double)t->tpb * chunks * apanel_s + where + ap + swz;
    /* Synchronisation: the Cube pays its head when it restarts after a wait
     * (every step unless double buffered), and a serial stage also waits for
     * the DMA head of the next. */
    double head = (double)cfg->cube_head_cycles, dma = (double)cfg->dma_head_cycles;
    double per_tile;
    /* db: a tile's last chunk fetches the next tile's first (mm.inc's
     * mm_prefetch_next), so a block waits for a first chunk once, and
     * again per tile row whose new A panel must wait for the old one. */
    double firsts = 0;
    if (p->variant == MM_DB) {
        per_tile = opc_max_d(opc_max_d(opc_max_d(cube, mte2), opc_max_d(mte1, outc)), scalar);
        firsts = (t->achunk ? 1 : t->reuse ? rows : (double)t->tpb) * first;
    } else if (p->variant == MM_PIPELINED)
        per_tile = opc_max_d(opc_max_d(cube + mte1, mte2), scalar) + outc + steps * head;
    else
        per_tile = cube + mte2 + mte1 + outc + scalar + steps * (head + dma);
    /* The A panels' loads: a row's first tile waits for its panel; with two
     * panels (db) the block waits once, for its first chunk's share of the
     * panel, and a row's first chunk comes with the last tile's prefetch:
     * a row adds what MTE2 cannot fit in its first tile beside B. */
    double panel = rows * panel_one;
    if (t->l1astep) {
        firsts = first;
        panel = panel_one / chunks + rows * opc_max_d(0, panel_one + mte2 - per_tile);
    }
    double core = (double)t->tpb * per_tile + firsts + panel;
    /* The chip: every block's MTE2 reads pass the L2 (memory.l2_bw_ratio x
     * HBM) as the whole lines they touch, and what is not in the L2 yet
     * comes from HBM (tiling_l2.c: by the block order). */
    double hbm = mm_hbm_bytes(cfg, p, t) / (double)cfg->hbm_bytes_per_cycle;
    double l2 = mm_l2_bytes(cfg, p, t) / ((double)cfg->hbm_bytes_per_cycle * (double)cfg->l2_bw_ratio);
    return opc_max_d(core, opc_max_d(hbm, l2));
}

static void finish(const mm_problem *p, mm_tiling *t, uint64_t cores)
{
    t->ntiles = opc_ceil_div(p->n, t->nt);
    t->mtiles = opc_ceil_div(p->m, t->mt);
    t->batch = p->batch ? p->batch : 1;
    t->tiles = t->batch * t->mtiles * t->ntiles;
    t->sa = p->m * p->k * t->es;
    t->sb = p->bnz ? opc_round_up(p->k, 16) * opc_round_up(p->n, 16) * t->es : p->k * p->n * t->es;
    t->bnz = p->bnz;
    t->kp = opc_round_up(p->k, 16);
    t->sc = p->m * t->ldc * t->oes;
    t->lda = p->k;
    t->klast = p->k;
    t->blocks = p->blocks ? p->blocks : opc_min(cores, t->tiles);
    t->tpb = opc_ceil_div(t->tiles, t->blocks);
    /* no block without a tile: 24 tiles on 20 cores are 12 blocks of 2 */
    if (!p->blocks)
        t->blocks = opc_ceil_div(t->tiles, t->tpb);
    t->swz = 0;
    t->tstep = 1;
}

/* The swizzled block order (swizzle.dvs) for c, groups of g tile rows: the
 * blocks take the tiles round robin. */
static void swizzle(const dv_chip_config *cfg, const mm_problem *p, mm_tiling *c, uint64_t g)
{
    c->swz = g;
    c->tstep = c->blocks;
    c->est_cycles = estimate(cfg, p, c);
}

/* The swizzle applies to db's plain kernels (not the layouts, not split-K),
 * with more than one tile row and more than one block. */
static bool swizzlable(const mm_problem *p, const mm_tiling *c)
{
    return p->variant == MM_DB && !p->layouts && p->swz != 1 && c->mtiles > 1 && c->blocks > 1 &&
           c->batch == 1;
}

/* c in its best swizzled order: SW=G forces groups of G; else every G
 * dividing the blocks (a block's next tile then stays in its tile row) up
 * to the tile rows. */
static void best_order(const dv_chip_config *cfg, const mm_problem *p, mm_tiling *c)
{
    if (!swizzlable(p, c))
        return;
    if (p->swz > 1) {
        swizzle(cfg, p, c, opc_min(p->swz, c->mtiles));
        return;
    }
    mm_tiling best = *c;
    best.est_cycles = -1;
    for (uint64_t g = 1; g <= c->blocks && g <= c->mtiles; g++) {
        if (c->blocks % g)
            continue;
        mm_tiling s = *c;
        swizzle(cfg, p, &s, g);
        if (best.est_cycles < 0 || s.est_cycles < best.est_cycles)
            best = s;
    }
    if (best.est_cycles >= 0)
        *c = best;
}

/* B's rows in a tile: whole L2 lines (or all of N), so that no line is
 * shared by two tiles that cores read at once (memory/dv_gmsys.c
 * serialises them). */
static bool lines_whole(const dv_chip_config *cfg, const mm_problem *p, const mm_tiling *t)
{
    uint64_t lb = cfg->l2_line_bytes ? cfg->l2_line_bytes : 1;
    return t->nt >= p->n || (t->nt * t->es) % lb == 0;
}

/* c better than t: a lower estimate; within 0.1% (bound by the same
 * resource, e.g. HBM), whole lines, then the larger tile (fewer
 * instructions); a full tie keeps t, so the A panel wins over A chunks. */
static bool better(const dv_chip_config *cfg, const mm_problem *p, const mm_tiling *c, const mm_tiling *t)
{
    if (c->est_cycles < t->est_cycles * 0.999)
        return true;
    if (c->est_cycles > t->est_cycles * 1.001)
        return false;
    bool cl = lines_whole(cfg, p, c), tl = lines_whole(cfg, p, t);
    if (cl != tl)
        return cl;
    return c->mt * c->nt * c->kl1 > t->mt * t->nt * t->kl1;
}

/* The best candidate with A in chunks (ac) from ac_lo to ac_hi (with ac 0,
 * one or two A panels) into *t;
 * false if none fits. */
static bool search(const dv_chip_config *cfg, const mm_problem *p, const mm_tiling *base, unsigned nbuf,
                   uint64_t nstep, uint64_t ac_lo, uint64_t ac_hi, mm_tiling *t, bool swizzled)
{
    bool found = false;
    uint64_t kl0_min = mm_b_squares(p) ? 2 * base->k0 : base->k0; /* f32 B [K,N]: whole squares */
    for (uint64_t mt = 16; mt <= 256 && mt <= opc_round_up(p->m, 16); mt += 16)
        for (uint64_t nt = nstep; nt <= 256 && nt <= opc_round_up(p->n, nstep); nt += nstep)
            for (uint64_t kl0 = kl0_min; kl0 <= 256 && kl0 <= opc_round_up(p->k, kl0_min); kl0 *= 2)
                for (uint64_t kl1 = kl0; kl1 <= 1024 && kl1 <= opc_round_up(p->k, kl0); kl1 *= 2) {
                    if ((p->force_mt && mt != opc_min(p->force_mt, opc_round_up(p->m, 16))) ||
                        (p->force_nt && nt != opc_min(p->force_nt, opc_round_up(p->n, nstep))))
                        continue;
                    /* The L0 halves alternate within a chunk: a chunk of one
                     * step would never overlap MTE1 with the Cube. */
                    if (nbuf == 2 && kl1 < 2 * kl0 && p->k > kl0)
                        continue;
                    /* v: 0 one A panel, 1 two A panels (db's plain kernels, a block of
                     * more than one tile), 2 A in chunks */
                    for (uint64_t v = ac_lo ? 2 : 0; v <= (ac_hi ? 2 : 0); v++) {
                        if (v == 1 && (nbuf != 2 || p->layouts))
                            continue;
                        uint64_t ac = v == 2;
                        mm_tiling c = *base;
                        c.mt = mt, c.nt = nt, c.kl0 = kl0, c.kl1 = kl1, c.reuse = !ac, c.achunk = ac;
                        c.apanels = v == 1 ? 2 : 1;
                        finish(p, &c, cfg->cores);
                        if (v == 1 && c.tpb < 2)
                            continue;
                        if (!layout(cfg, p, &c, nbuf))
                            continue;
                        c.est_cycles = estimate(cfg, p, &c);
                        if (swizzled) {
                            best_order(cfg, p, &c);
                            if (!c.swz)
                                continue;
                        }
                        if (!found || better(cfg, p, &c, t)) {
                            *t = c;
                            found = true;
                        }
                    }
                }
    return found;
}

void mm_ksum_split(const dv_chip_config *cfg, uint64_t n, uint64_t *blocks, uint64_t *per, uint64_t *tile)
{
    /* blocks take whole 512-byte spans (128 f32): whole L2 lines on the
     * built-in chips, and whole f16 blocks of the output */
    uint64_t vc = opc_vector_cores(cfg), b = opc_min(vc, opc_ceil_div(n, 128));
    *per = opc_round_up(opc_ceil_div(n, b), 128);
    *blocks = opc_ceil_div(n, *per);
    /* UB holds ACC and TMP (f32) and OUT (f16) of a tile: 10 bytes an
     * element plus the skews; at most 255 repeats of 64 f32 per vadd */
    uint64_t fit = (cfg->ub_bytes - 1024) / 10 / 64 * 64;
    *tile = opc_min(opc_min(*per, fit), 255 * 64);
}

/* The reduction launch (ksum.dvs) in the model: its launch overhead, then
 * per block the S slices of its share read from GM into UB and its output
 * written back (each tile waits for its loads: no overlap), or HBM if that
 * is slower; the vadds and the conversion on the Vector unit. */
static double reduce_estimate(const dv_chip_config *cfg, uint64_t n, uint64_t s, uint64_t oes)
{
    uint64_t blocks, per, tile;
    mm_ksum_split(cfg, n, &blocks, &per, &tile);
    double tiles = (double)opc_ceil_div(per, tile);
    double in = (double)dv_xfer_cycles(tile * 4, dv_path_bw(cfg, DV_PATH_GM_UB), cfg->dma_head_cycles, true,
                                       cfg->gm_latency, cfg->gm_full_bw_bytes);
    double outc = (double)dv_xfer_cycles(tile * oes, dv_path_bw(cfg, DV_PATH_UB_GM), cfg->dma_head_cycles,
                                         true, cfg->gm_latency, cfg->gm_full_bw_bytes);
    double vec = (double)opc_ceil_div(tile, 64) * (double)s; /* a repeat a cycle: vadds and the vconv */
    double core = tiles * ((double)s * in + vec + outc);
    double hbm = (double)n * (4.0 * (double)s + (double)oes) / (double)cfg->hbm_bytes_per_cycle;
    return (double)cfg->launch_cycles + opc_max_d(core, hbm);
}

/* The best split-K plan with S splits into *t; false if S does not cut K
 * (the last split would be empty) or no tiling fits. */
static bool split_plan(const dv_chip_config *cfg, const mm_problem *p, const mm_tiling *base, uint64_t nstep,
                       uint64_t s, mm_tiling *t)
{
    uint64_t ks = opc_round_up(opc_ceil_div(p->k, s), 16);
    if (s < 2 || (s - 1) * ks >= p->k)
        return false;
    mm_problem q = *p;
    q.k = ks;
    q.batch = s;
    q.layouts = true; /* the _xk kernels: one launch over S matrices */
    q.out = MM_OUT_F32;
    mm_tiling b = *base;
    b.k = ks;
    b.oes = out_bytes(MM_OUT_F32);
    b.uboes = ub_bytes(MM_OUT_F32);
    if (!search(cfg, &q, &b, 2, nstep, 1, 1, t, false))
        return false;
    t->lda = p->k;
    t->sa = ks * t->es; /* split s's A: columns s ks.. of the same rows */
    t->klast = p->k - (s - 1) * ks;
    t->ksplit = s;
    t->reduce_cycles = reduce_estimate(cfg, p->m * t->ldc, s, out_bytes(p->out));
    t->est_cycles += t->reduce_cycles;
    return true;
}

/* Split-K applies to db with f16 / bf16 inputs and none of the layouts. */
static bool splittable(const mm_problem *p)
{
    return p->variant == MM_DB && p->dt < 2 && !p->layouts;
}

dv_status mm_tile(const dv_chip_config *cfg, const mm_problem *p, mm_tiling *t, dv_error *err)
{
    mm_tiling base;
    memset(&base, 0, sizeof base);
    base.m = p->m, base.n = p->n, base.k = p->k;
    base.es = p->dt == 2 ? 1 : p->dt == 3 ? 4 : 2;
    /* f32: the fp16 fractal row of 4-byte elements, C0 = 8 (facts #5) */
    base.k0 = p->dt == 2 ? cfg->cube_k_int8 : p->dt == 3 ? cfg->cube_k_fp16 / 2 : cfg->cube_k_fp16;
    /* mm.inc takes a fractal row as 32 bytes (facts #5), its K fractals are
     * shifts by log2(32 / es): a chip config that says otherwise cannot run it. */
    if (base.k0 * base.es != 32)
        return dv_error_set(err, DV_ERR_INPUT,
                            "matmul: the kernels take a Cube fractal row of 32 bytes (%s = %u), %s has %llu",
                            p->dt == 2   ? "cube.k_int8"
                            : p->dt == 3 ? "cube.k_fp16 / 2"
                                         : "cube.k_fp16",
                            p->dt == 2   ? 32u
                            : p->dt == 3 ? 8u
                                         : 16u,
                            cfg->name, (unsigned long long)base.k0);
    base.oes = out_bytes(p->out);
    base.uboes = ub_bytes(p->out);
    base.ldc = mm_ldc(cfg, p);
    base.relu = p->relu;
    base.act = p->act;
    uint64_t cores = cfg->cores;
    unsigned nbuf = p->variant == MM_DB ? 2 : 1;
    /* Coupled requant writes whole 32-byte s8 rows: tiles 32 columns wide. */
    uint64_t nstep = !cfg->split && p->out == MM_OUT_REQ ? 32 : 16;
    if (p->variant == MM_NAIVE) {
        *t = base;
        t->mt = p->force_mt ? p->force_mt : opc_min(64, opc_round_up(p->m, 16));
        t->nt = p->force_nt ? p->force_nt : opc_min(64, opc_round_up(p->n, nstep));
        t->kl0 = t->kl1 = opc_round_up(64, t->k0);
        t->reuse = 0;
        finish(p, t, cores);
        if (!layout(cfg, p, t, 1)) {
            t->achunk = 1; /* K too deep for the 64 x K panel: A in chunks */
            if (!layout(cfg, p, t, 1))
                return dv_error_set(err, DV_ERR_INPUT, "matmul: the 64 x 64 tiles do not fit %s's buffers",
                                    cfg->name);
        }
        t->est_cycles = estimate(cfg, p, t);
        return DV_OK;
    }
    /* The single-buffer plans stream A only when its panel does not fit:
     * with one buffer an A chunk's load cannot hide behind the Cube. */
    /* f32 A^T streams in chunks: a panel's fp32 squares would be all of K
     * apart, past load2dt's 8-bit srcpair (mm.inc); f32 has no swizzled kernel */
    bool forced_swz = p->swz > 1 && p->variant == MM_DB && !p->layouts && p->dt != 3;
    bool found = search(cfg, p, &base, nbuf, nstep, p->dt == 3 && p->ta, nbuf == 2, t, forced_swz);
    if (!found && nbuf == 1)
        found = search(cfg, p, &base, nbuf, nstep, 1, 1, t, false);
    /* The swizzled order (SW=0): the best swizzled plan, taken when the
     * best row-major one is bound by HBM in the model and the swizzle wins
     * by 3% (its L2 reuse is the part of the model least tied to the run;
     * where HBM is not the limit, the round robin's A panel reloads and
     * same-line waits cost more than the L2 saves: tiling_l2.c). */
    mm_tiling sw;
    if (found && p->swz == 0 && p->variant == MM_DB && !p->layouts && p->dt != 3 && p->ksplit <= 1 &&
        mm_hbm_bytes(cfg, p, t) / (double)cfg->hbm_bytes_per_cycle >= 0.97 * t->est_cycles &&
        search(cfg, p, &base, nbuf, nstep, 0, 1, &sw, true) && sw.est_cycles < 0.97 * t->est_cycles)
        *t = sw;
    if (!found && (p->force_mt || p->force_nt))
        return dv_error_set(err, DV_ERR_INPUT,
                            "matmul: the forced tile TM=%llu TN=%llu does not fit %s's buffers",
                            (unsigned long long)p->force_mt, (unsigned long long)p->force_nt, cfg->name);
    if (!found)
        return dv_error_set(err, DV_ERR_INPUT, "matmul: no tiling of M=%llu N=%llu K=%llu fits %s's buffers",
                            (unsigned long long)p->m, (unsigned long long)p->n, (unsigned long long)p->k,
                            cfg->name);
    if (p->swz > 1 && (p->variant != MM_DB || p->layouts || p->ksplit > 1))
        return dv_error_set(err, DV_ERR_INPUT,
                            "matmul: SW (the swizzled block order) is for the db variant without B=, TA, TB, "
                            "BNZ, BIAS, RELU, ACT or KS");
    t->ksplit = 1;
    t->unsplit_cycles = t->est_cycles;
    if (p->ksplit > 1) {
        if (!splittable(p))
            return dv_error_set(err, DV_ERR_INPUT,
                                "matmul: KS (split-K) is for the db variant with f16 or bf16 inputs, without "
                                "B=, TA, TB, BNZ, BIAS, RELU or ACT");
        mm_tiling c;
        if (!split_plan(cfg, p, &base, nstep, p->ksplit, &c))
            return dv_error_set(err, DV_ERR_INPUT, "matmul: KS=%llu does not cut K=%llu into %llu splits",
                                (unsigned long long)p->ksplit, (unsigned long long)p->k,
                                (unsigned long long)p->ksplit);
        c.unsplit_cycles = t->est_cycles;
        *t = c;
        return DV_OK;
    }
    /* The model tries splits of at least 256 deep (on ascend910 the
     * unsplit 256 x 256 x 16384 fills its 32 cores with 64 x 32 tiles, yet
     * 8 splits of 128 x 128 tiles are faster), and takes
     * a split only when it wins by 5% (its reduction launch is a new
     * kernel's overhead the model may not see whole); not with a forced
     * swizzle (SW=G), which split-K's kernels do not have. */
    if (p->ksplit == 0 && splittable(p) && !p->blocks && p->swz <= 1) {
        mm_tiling best = *t;
        for (uint64_t s = 2; s <= cores && p->k >= s * 256; s++) {
            mm_tiling c;
            if (split_plan(cfg, p, &base, nstep, s, &c) && c.est_cycles < 0.95 * best.est_cycles)
                best = c;
        }
        best.unsplit_cycles = t->est_cycles;
        *t = best;
    }
    return DV_OK;
}
