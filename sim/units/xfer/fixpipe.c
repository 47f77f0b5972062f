/* fixpipe.c - FixPipe's fixp (pipe FIX, split chips) and the coupled
 * chips' copy_l0c_ub (pipe V, reached through dv_mte_*); both convert with
 * outconv.c.
 *
 * Spec.
 * fixp (layout fixp: m, n, srcm, dststride; out = gm | l1): the tile in L0C
 *   is NZ with a fractal-column pitch of srcm rows: element (r, c), r < m,
 *   c < n, at src + ((c/16)*srcm + r)*64 + (c%16)*4 (f32 or s32, see
 *   outconv.c).  srcm must be >= m (else columns overlap); src is aligned to
 *   cfg->align_l0c.
 *   nz2nd=1: ND output, row pitch dststride elements (>= n): (r, c) at
 *     dst + (r*dststride + c)*outsize.
 *   nz2nd=0: NZ output, fractal-column pitch dststride rows (>= m): (r, c)
 *     at dst + ((c/16)*dststride + r)*16*outsize + (c%16)*outsize.
 *   vdeq/vreq read an 8-byte entry per column c from the L1 table at q.
 *   out=gm needs the L0C->GM path (path.l0c_to_gm), out=l1 the L0C->L1 one; a
 *   chip without FixPipe faults.  GM needs no alignment, L1 cfg->align_l1.
 *   Bytes = m*n*outsize; cycles dv_xfer_cycles on the path (GM latency for
 *   out=gm).  m or n of 0 is a no-op.
 * copy_l0c_ub (layout burst, len in 16x16 fractals): fractal f < len of
 *   burst i < nburst at src + (i*(len+srcgap) + f)*1024 goes to
 *   dst + (i*(len+dstgap) + f)*256*outsize, each of its 256 elements
 *   converted in place order.  Simplification: vdeq/vreq pick the table
 *   entry by the element's column within its fractal (e % 16), so the L1
 *   table has 16 entries (128 bytes) at q.  Needs the L0C->UB path.
 *   Bytes = nburst*len*1024 (the source). */
#include "xfer.h"

enum { FX_M, FX_N, FX_SRCM, FX_DSTSTRIDE };
enum { BU_NBURST, BU_LEN, BU_SRCGAP, BU_DSTGAP };
enum { L0C_FRACTAL = 16 * 16 * 4 };

static unsigned op_out_size(const dv_op *op)
{
    return xf_out_size((dv_quant)op->insn->f[DV_F_QUANT]);
}

static dv_path fixp_path(const dv_op *op)
{
    return op->insn->f[DV_F_OUT] == DV_OUT_L1 ? DV_PATH_L0C_L1 : DV_PATH_L0C_GM;
}

uint64_t dv_fixp_cycles(const dv_unit_ctx *c, const dv_op *op, bool back_to_back, dv_op_stats *st)
{
    (void)back_to_back;
    const dv_chip_config *cfg = c->cfg;
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_FIXP, op->r[2], f);
    st->path = fixp_path(op);
    st->bytes = f[FX_M] * f[FX_N] * op_out_size(op);
    return dv_xfer_cycles(st->bytes, dv_path_bw(cfg, st->path), cfg->dma_head_cycles,
                          st->path == DV_PATH_L0C_GM, cfg->gm_latency, cfg->gm_full_bw_bytes);
}

void xf_fixp_gm_ranges(const dv_op *op, dv_gm_range_fn fn, void *user)
{
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_FIXP, op->r[2], f);
    uint64_t size = op_out_size(op);
    if (op->insn->f[DV_F_NZ2ND]) {
        for (uint64_t r = 0; r < f[FX_M]; r++)
            fn(user, op->r[0] + r * f[FX_DSTSTRIDE] * size, f[FX_N] * size, true);
    } else {
        for (uint64_t cb = 0; cb * 16 < f[FX_N]; cb++)
            fn(user, op->r[0] + cb * f[FX_DSTSTRIDE] * 16 * size, f[FX_M] * 16 * size, true);
    }
}

/* Checks the vdeq/vreq table (entries x 8 bytes in L1) and sets up cv. */
static bool conv_setup(dv_unit_ctx *c, const dv_op *op, uint64_t entries, xf_conv *cv)
{
    *cv = (xf_conv){
        .quant = (dv_quant)op->insn->f[DV_F_QUANT], .relu = op->insn->f[DV_F_RELU] != 0, .q = op->r[3]};
    if (cv->quant != DV_Q_VDEQ && cv->quant != DV_Q_VREQ)
        return true;
    cv->table = xf_span(c, DV_MEM_L1, op->r[3], entries * 8, c->cfg->align_l1);
    return cv->table != NULL;
}

bool dv_fixp_exec(dv_unit_ctx *c, const dv_op *op)
{
    const dv_chip_config *cfg = c->cfg;
    dv_path path = fixp_path(op);
    if (!dv_path_bw(cfg, path))
        return xf_fail(c, "fixp: this chip (%s) has no %s path (no FixPipe)", cfg->name, dv_path_name(path));
    unsigned osize = op_out_size(op);
    if (!osize)
        return xf_fail(c, "fixp: invalid quant mode %lld", (long long)op->insn->f[DV_F_QUANT]);
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_FIXP, op->r[2], f);
    uint64_t m = f[FX_M], n = f[FX_N], srcm = f[FX_SRCM], ds = f[FX_DSTSTRIDE];
    bool nd = op->insn->f[DV_F_NZ2ND] != 0;
    if (!m || !n)
        return true;
    if (srcm < m)
        return xf_fail(c, "fixp: srcm=%llu is less than m=%llu", (unsigned long long)srcm,
                       (unsigned long long)m);
    if (nd ? ds < n : ds < m)
        return xf_fail(c, "fixp: dststride=%llu is less than %s=%llu", (unsigned long long)ds, nd ? "n" : "m",
                       (unsigned long long)(nd ? n : m));
    /* The last element of each layout bounds its extent. */
    uint64_t last_c = (n - 1) % 16 + 1; /* columns used in the last fractal column */
    uint64_t src_ext = (((n - 1) / 16) * srcm + m - 1) * 64 + last_c * 4;
    uint64_t dst_ext =
        nd ? ((m - 1) * ds + n) * osize : ((((n - 1) / 16) * ds + m - 1) * 16 + last_c) * osize;
    dv_mem_kind dk = path == DV_PATH_L0C_L1 ? DV_MEM_L1 : DV_MEM_GM;
    xf_conv cv;
    const uint8_t *src = xf_span(c, DV_MEM_L0C, op->r[1], src_ext, cfg->align_l0c);
    uint8_t *dst = src ? xf_span(c, dk, op->r[0], dst_ext, xf_align(cfg, dk)) : NULL;
    if (!dst || !conv_setup(c, op, n, &cv))
        return false;
    if (!c->data)
        return true;
    for (uint64_t r = 0; r < m; r++)
        for (uint64_t col = 0; col < n; col++) {
            const uint8_t *s = src + ((col / 16) * srcm + r) * 64 + (col % 16) * 4;
            uint64_t o = nd ? r * ds + col : ((col / 16) * ds + r) * 16 + col % 16;
            xf_convert(&cv, s, col, dst + o * osize);
        }
    return true;
}

uint64_t xf_l0c_ub_cycles(const dv_unit_ctx *c, const dv_op *op, dv_op_stats *st)
{
    const dv_chip_config *cfg = c->cfg;
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_BURST, op->r[2], f);
    st->path = DV_PATH_L0C_UB;
    st->bytes = f[BU_NBURST] * f[BU_LEN] * L0C_FRACTAL;
    return dv_xfer_cycles(st->bytes, dv_path_bw(cfg, st->path), cfg->dma_head_cycles, false, cfg->gm_latency,
                          cfg->gm_full_bw_bytes);
}

bool xf_l0c_ub_exec(dv_unit_ctx *c, const dv_op *op)
{
    const dv_chip_config *cfg = c->cfg;
    if (!dv_path_bw(cfg, DV_PATH_L0C_UB))
        return xf_fail(c, "copy_l0c_ub: this chip (%s) has no L0C->UB path", cfg->name);
    unsigned osize = op_out_size(op);
    if (!osize)
        return xf_fail(c, "copy_l0c_ub: invalid quant mode %lld", (long long)op->insn->f[DV_F_QUANT]);
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_BURST, op->r[2], f);
    uint64_t nb = f[BU_NBURST], len = f[BU_LEN];
    if (!nb || !len)
        return true;
    xf_conv cv;
    if (!conv_setup(c, op, 16, &cv))
        return false;
    uint64_t sstep = (len + f[BU_SRCGAP]) * L0C_FRACTAL, dstep = (len + f[BU_DSTGAP]) * 256 * osize;
    /* Pass 0 checks every burst, pass 1 converts: a fault moves nothing. */
    for (int pass = 0; pass < (c->data ? 2 : 1); pass++)
        for (uint64_t i = 0; i < nb; i++) {
            const uint8_t *s =
                xf_span(c, DV_MEM_L0C, op->r[1] + i * sstep, len * L0C_FRACTAL, cfg->align_l0c);
            uint8_t *d =
                s ? xf_span(c, DV_MEM_UB, op->r[0] + i * dstep, len * 256 * osize, cfg->align_ub) : NULL;
            if (!d)
                return false;
            if (pass)
                xf_convert_n(&cv, s, len * 256, d);
        }
    return true;
}
