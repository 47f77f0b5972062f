/* tiling_l2.c - the matmul tiling's model of the memory behind GM: the
 * bytes the L2 moves for a plan (whole lines: memhier/dv_gmsys.c's L2
 * server moves every line a transfer touches, so a tile 64 f16 columns wide
 * in 512-byte lines costs the L2 four times its bytes), and the HBM traffic
 * of the block order (row-major blocks of consecutive tiles, or the
 * swizzled round-robin order of the _sw kernels). */
#include "opcommon.h"
#include "tiling.h"

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The mean L2 lines a w-byte segment touches, the segments starting at
 * multiples of step within rows pitch bytes apart (their starts mod the
 * line: the multiples of gcd(pitch, step, line)). */
static double lines_of(uint64_t w, uint64_t pitch, uint64_t step, uint64_t lb)
{
    if (!w)
        return 0;
    uint64_t a = gcd(gcd(pitch ? pitch : lb, step ? step : lb), lb), n = lb / a;
    double sum = 0;
    for (uint64_t i = 0; i < n; i++)
        sum += (double)((i * a + w - 1) / lb + 1);
    return sum / (double)n;
}

double mm_l2_bytes(const dv_chip_config *cfg, const mm_problem *p, const mm_tiling *t)
{
    uint64_t lb = cfg->l2_line_bytes ? cfg->l2_line_bytes : 1, es = t->es;
    uint64_t mt = opc_min(t->mt, p->m), nt = opc_min(t->nt, p->n), kl1 = opc_min(t->kl1, p->k);
    double chunks = (double)opc_ceil_div(p->k, t->kl1), lbd = (double)lb;
    double tiles = (double)(t->mtiles * t->ntiles) * (double)t->batch;
    /* B per tile: K rows of Nt columns ([K, N]); Nt rows of K in chunks of
     * kl1 (B^T [N, K]: TB, s8); NZ: column blocks of Kp rows x 32 bytes, whole */
    double b;
    if (p->bnz)
        b = (double)(t->kp * nt * es);
    else if (p->tb || p->dt == 2)
        b = (double)nt * chunks * lines_of(kl1 * es, p->k * es, kl1 * es, lb) * lbd;
    else
        b = (double)p->k * lines_of(nt * es, p->n * es, nt * es, lb) * lbd;
    /* A per read: Mt rows of K in chunks of kl1 (A^T [K, M]: K rows of Mt) */
    double a = p->ta ? (double)p->k * lines_of(mt * es, p->m * es, mt * es, lb) * lbd
                     : (double)mt * chunks * lines_of(kl1 * es, t->lda * es, kl1 * es, lb) * lbd;
    double a_tiles = mm_a_reads(p, t) * (double)t->mtiles * (double)t->batch; /* A panel reads */
    return tiles * b + a_tiles * a;
}

/* The share of re-reads that miss when a reuse interval touches w bytes:
 * none while they fit the L2, all of them once w is twice the L2 (LRU). */
static double miss_share(double w, double l2)
{
    double f = l2 > 0 ? (w - l2) / l2 : 1;
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

double mm_hbm_bytes(const dv_chip_config *cfg, const mm_problem *p, const mm_tiling *t)
{
    double nb = (double)t->batch, es = (double)t->es, l2 = (double)cfg->l2_bytes;
    double a = nb * (double)(p->m * p->k) * es, b = nb * (double)(p->k * p->n) * es;
    if (a + b <= l2)
        return a + b; /* each line once */
    /* A comes from HBM once: a tile row's panel (or chunks) is read by its
     * blocks close together.  B is read once per tile row; a re-read hits
     * if B's lines stay in the L2 over the reuse interval, in which the
     * cores also touch their A panels and write their C tiles. */
    double mt = (double)opc_min(t->mt, p->m), panel = mt * (double)p->k * es;
    double crow = mt * (double)p->n * (double)t->oes, blocks = (double)t->blocks;
    double rereads, w;
    if (!t->swz) {
        /* a block's tiles consecutive: the blocks stream all of B, each at
         * its own column phase; blocks at the same phase share the reads */
        uint64_t ph = t->ntiles / gcd(t->tpb % t->ntiles ? t->tpb % t->ntiles : t->ntiles, t->ntiles);
        double share = blocks / (double)opc_min(ph, t->blocks);
        rereads = (double)t->mtiles / (share > 1 ? share : 1) - 1;
        w = b + blocks * (panel + crow);
    } else {
        /* swizzled: a group's blocks read each B panel together, once per
         * group of G rows */
        rereads = (double)opc_ceil_div(t->mtiles, t->swz) - 1;
        w = b + (double)t->swz * (panel + crow);
    }
    return a + b * (1 + (rereads > 0 ? rereads : 0) * miss_share(w, l2));
}
