/* img2col.c - load3d_l0a / load3d_l0b (MTE1): img2col of a feature map in
 * L1 into L0A or L0B.
 *
 * Spec.  C0 = 32 / element size.  The feature map (set_fmatrix: W, H,
 * padl, padr, padt, padb) is in L1 at src in C1HWC0: element (c1, h, w, c0)
 * at src + ((c1*H + h)*W + w)*C0*size, c1 < C1 (layout img2col, with kw,
 * kh, sw, sh, dw, dh; zero kernel sizes, strides or dilations fault).  The
 * whole map, C1*H*W*32 bytes, must lie in L1 (32-byte aligned).
 *   OW = (W + padl + padr - dw*(kw-1) - 1)/sw + 1, OH likewise (a kernel
 *   wider than the padded map faults).
 *   Output row m (mstart <= m < mstart+mext) is output position (oh, ow) =
 *   (m / OW, m % OW); K block kb (kstart <= kb < kstart+kext) is (ci, ki,
 *   kj) with kb = (ci*kh + ki)*kw + kj (kb >= C1*kh*kw faults); input pixel
 *   ih = oh*sh - padt + ki*dh, iw = ow*sw - padl + kj*dw.  A pixel outside
 *   the map, or m >= OH*OW, or a pad row from mext to the next multiple of
 *   16, gives zeros.
 *   L0A ("ZZ", as mmad's A with k = K index): row mm = m - mstart, column
 *   block kk = kb - kstart: fractal (mm/16, kk) at dst + ((mm/16)*kext +
 *   kk)*512, element (mm%16, c0) at + (mm%16)*32 + c0*size.
 *   L0B ("ZN", as mmad's B with k = K index, n = m index): fractal
 *   (kk, mm/16) at dst + (kk*ceil(mext/16) + mm/16)*512, inside the same
 *   (mm%16)*32 + c0*size.
 * Bytes = ceil(mext/16)*16*kext*32 (the output); path L1->L0A / L1->L0B. */
#include "xfer.h"

#include <string.h>

enum { FM_W, FM_H, FM_PADL, FM_PADR, FM_PADT, FM_PADB };
enum { IC_C1, IC_KW, IC_KH, IC_SW, IC_SH, IC_DW, IC_DH };
enum { IP_KSTART, IP_KEXT, IP_MSTART, IP_MEXT };

static uint64_t out_bytes(const dv_op *op)
{
    uint64_t p[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_IMG2COLPOS, op->r[3], p);
    return (p[IP_MEXT] + XF_ROWS - 1) / XF_ROWS * XF_FRACTAL * p[IP_KEXT];
}

uint64_t xf_img2col_cycles(const dv_unit_ctx *c, const dv_op *op, dv_op_stats *st)
{
    const dv_chip_config *cfg = c->cfg;
    st->path = op->insn->op == DV_OP_LOAD3D_L0A ? DV_PATH_L1_L0A : DV_PATH_L1_L0B;
    st->bytes = out_bytes(op);
    return dv_xfer_cycles(st->bytes, dv_path_bw(cfg, st->path), cfg->dma_head_cycles, false, cfg->gm_latency,
                          cfg->gm_full_bw_bytes);
}

/* Output size along one axis; false if the dilated kernel does not fit. */
static bool out_dim(uint64_t in, uint64_t pad_lo, uint64_t pad_hi, uint64_t k, uint64_t dil, uint64_t stride,
                    uint64_t *out)
{
    uint64_t span = dil * (k - 1) + 1;
    if (in + pad_lo + pad_hi < span)
        return false;
    *out = (in + pad_lo + pad_hi - span) / stride + 1;
    return true;
}

bool xf_img2col_exec(dv_unit_ctx *c, const dv_op *op)
{
    const char *name = dv_isa_info(op->insn->op)->mnemonic;
    bool l0a = op->insn->op == DV_OP_LOAD3D_L0A;
    dv_dtype dt = (dv_dtype)op->insn->f[DV_F_DTYPE];
    unsigned size = (unsigned)dt < DV_DT_COUNT ? dv_dtype_size(dt) : 0;
    if (!size || XF_BLOCK % size)
        return xf_fail(c, "%s: unsupported dtype", name);
    uint64_t fm[DV_LAYOUT_MAX_FIELDS], ic[DV_LAYOUT_MAX_FIELDS], ip[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_FMATRIX, *c->fmatrix, fm);
    xf_unpack(DV_LAYOUT_IMG2COL, op->r[2], ic);
    xf_unpack(DV_LAYOUT_IMG2COLPOS, op->r[3], ip);
    if (!ic[IC_KW] || !ic[IC_KH] || !ic[IC_SW] || !ic[IC_SH] || !ic[IC_DW] || !ic[IC_DH] || !ic[IC_C1])
        return xf_fail(c, "%s: c1, kernel size, stride and dilation must all be at least 1", name);
    if (!fm[FM_W] || !fm[FM_H])
        return xf_fail(c, "%s: the feature map (set_fmatrix) has zero width or height", name);
    uint64_t ow, oh;
    if (!out_dim(fm[FM_W], fm[FM_PADL], fm[FM_PADR], ic[IC_KW], ic[IC_DW], ic[IC_SW], &ow) ||
        !out_dim(fm[FM_H], fm[FM_PADT], fm[FM_PADB], ic[IC_KH], ic[IC_DH], ic[IC_SH], &oh))
        return xf_fail(c, "%s: the dilated kernel is larger than the padded feature map", name);
    uint64_t kstart = ip[IP_KSTART], kext = ip[IP_KEXT], mstart = ip[IP_MSTART], mext = ip[IP_MEXT];
    uint64_t kblocks = ic[IC_C1] * ic[IC_KH] * ic[IC_KW];
    if (kstart + kext > kblocks)
        return xf_fail(c, "%s: K blocks %llu..%llu exceed c1*kh*kw = %llu", name, (unsigned long long)kstart,
                       (unsigned long long)(kstart + kext - 1), (unsigned long long)kblocks);
    if (!kext || !mext)
        return true;
    uint64_t W = fm[FM_W], H = fm[FM_H];
    const uint8_t *map = xf_span(c, DV_MEM_L1, op->r[1], ic[IC_C1] * H * W * XF_BLOCK, c->cfg->align_l1);
    if (!map)
        return false;
    uint64_t m1 = (mext + XF_ROWS - 1) / XF_ROWS;
    uint8_t *dst =
        xf_span(c, l0a ? DV_MEM_L0A : DV_MEM_L0B, op->r[0], m1 * kext * XF_FRACTAL, c->cfg->align_l0ab);
    if (!dst || !c->data)
        return dst != NULL;
    /* One pixel's C0 elements are one 32-byte block: copied whole. */

    for (uint64_t kk = 0; kk < kext; kk++) {
        uint64_t kb = kstart + kk;
        uint64_t kj = kb % ic[IC_KW], ki = kb / ic[IC_KW] % ic[IC_KH], ci = kb / ic[IC_KW] / ic[IC_KH];
        for (uint64_t mm = 0; mm < m1 * XF_ROWS; mm++) {
            uint64_t frac = l0a ? (mm / XF_ROWS) * kext + kk : kk * m1 + mm / XF_ROWS;
            uint8_t *out = dst + frac * XF_FRACTAL + (mm % XF_ROWS) * XF_BLOCK;
            uint64_t m = mstart + mm;
            const uint8_t *pix = NULL;
            if (mm < mext && m < oh * ow) {
                /* Signed: the padding makes the top-left taps negative. */
                int64_t ih = (int64_t)((m / ow) * ic[IC_SH] + ki * ic[IC_DH]) - (int64_t)fm[FM_PADT];
                int64_t iw = (int64_t)((m % ow) * ic[IC_SW] + kj * ic[IC_DW]) - (int64_t)fm[FM_PADL];
                if (ih >= 0 && iw >= 0 && (uint64_t)ih < H && (uint64_t)iw < W)
                    pix = map + ((ci * H + (uint64_t)ih) * W + (uint64_t)iw) * XF_BLOCK;
            }
            if (pix)
                memcpy(out, pix, XF_BLOCK);
            else
                memset(out, 0, XF_BLOCK);
        }
    }
    return true;
}
