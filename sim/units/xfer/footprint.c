/* footprint.c - the bytes the Cube, the transfer engines and FixPipe read
 * and write (dv_xfer_footprint), as mte.c, img2col.c, cube.c and
 * fixpipe.c specify them: every burst, row, block and fractal, adjacent ones
 * joined.  load3d reads its whole feature map (what exec checks). */
#include "footprint_run.h"
#include "xfer.h"

enum { BU_NBURST, BU_LEN, BU_SRCGAP, BU_DSTGAP };
enum { ND0_N, ND0_D, ND0_SRCD, ND0_NDNUM };
enum { ND1_DSTC0, ND1_DSTN, ND1_SRCMAT, ND1_DSTMAT };
enum { L2_START, L2_REPEAT, L2_SRCSTRIDE, L2_DSTGAP };
enum { FX_M, FX_N, FX_SRCM, FX_DSTSTRIDE };
enum { IC_C1, IC_KW, IC_KH, IC_SW, IC_SH, IC_DW, IC_DH };
enum { FM_W, FM_H };
enum { IP_KSTART, IP_KEXT, IP_MSTART, IP_MEXT };
enum { L0C_FRACTAL = 16 * 16 * 4 };

typedef struct ends {
    dv_mem_kind src, dst;
} ends;

static ends copy_ends(dv_opcode op)
{
    switch (op) {
    case DV_OP_COPY_GM_L1: return (ends){DV_MEM_GM, DV_MEM_L1};
    case DV_OP_COPY_GM_UB: return (ends){DV_MEM_GM, DV_MEM_UB};
    case DV_OP_COPY_UB_GM: return (ends){DV_MEM_UB, DV_MEM_GM};
    case DV_OP_COPY_UB_L1: return (ends){DV_MEM_UB, DV_MEM_L1};
    default: return (ends){DV_MEM_L1, DV_MEM_UB}; /* copy_l1_ub */
    }
}

/* Burst i of nburst: len bytes at base + i * step, for one side. */
static void bursts(fp_run *run, dv_mem_kind mem, uint64_t base, uint64_t n, uint64_t len, uint64_t step,
                   bool write)
{
    for (uint64_t i = 0; i < n; i++)
        fp_add(run, mem, base + i * step, len, write);
    fp_flush(run);
}

static void copy(fp_run *run, const dv_op *op)
{
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_BURST, op->r[2], f);
    uint64_t len = f[BU_LEN] * XF_BLOCK;
    ends e = copy_ends(op->insn->op);
    bursts(run, e.src, op->r[1], f[BU_NBURST], len, len + f[BU_SRCGAP] * XF_BLOCK, false);
    bursts(run, e.dst, op->r[0], f[BU_NBURST], len, len + f[BU_DSTGAP] * XF_BLOCK, true);
}

static void nd2nz(fp_run *run, const dv_op *op)
{
    dv_dtype dt = (dv_dtype)op->insn->f[DV_F_DTYPE];
    unsigned size = (unsigned)dt < DV_DT_COUNT ? dv_dtype_size(dt) : 0;
    if (!size || XF_BLOCK % size)
        return;
    uint64_t c0 = XF_BLOCK / size, a[DV_LAYOUT_MAX_FIELDS], b[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_ND2NZ0, op->r[2], a);
    xf_unpack(DV_LAYOUT_ND2NZ1, op->r[3], b);
    uint64_t n = a[ND0_N], d = a[ND0_D], blocks = (d + c0 - 1) / c0;
    for (uint64_t t = 0; t < a[ND0_NDNUM]; t++)
        for (uint64_t r = 0; r < n; r++)
            fp_add(run, DV_MEM_GM, op->r[1] + (t * b[ND1_SRCMAT] + r * a[ND0_SRCD]) * size, d * size, false);
    fp_flush(run);
    for (uint64_t t = 0; t < a[ND0_NDNUM]; t++)
        for (uint64_t cb = 0; cb < blocks; cb++)
            for (uint64_t r = 0; r < n; r++)
                fp_add(run, DV_MEM_L1,
                       op->r[0] + (t * b[ND1_DSTMAT] + cb * b[ND1_DSTC0] + r * b[ND1_DSTN]) * XF_BLOCK,
                       XF_BLOCK, true);
    fp_flush(run);
}

static void load2d(fp_run *run, const dv_op *op)
{
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    dv_mem_kind dst = op->insn->op == DV_OP_LOAD2D_L0A ? DV_MEM_L0A : DV_MEM_L0B;
    if (xf_load2d_squares(op)) { /* layout load2dt: two fractals a square on each side */
        xf_unpack(DV_LAYOUT_LOAD2DT, op->r[2], f);
        for (uint64_t h = 0; h < 2; h++) {
            bursts(run, DV_MEM_L1, op->r[1] + (f[0] + h * f[4]) * XF_FRACTAL, f[1], XF_FRACTAL,
                   f[2] * XF_FRACTAL, false);
            bursts(run, dst, op->r[0] + h * f[5] * XF_FRACTAL, f[1], XF_FRACTAL, (1 + f[3]) * XF_FRACTAL,
                   true);
        }
        return;
    }
    xf_unpack(DV_LAYOUT_LOAD2D, op->r[2], f);
    bursts(run, DV_MEM_L1, op->r[1] + f[L2_START] * XF_FRACTAL, f[L2_REPEAT], XF_FRACTAL,
           f[L2_SRCSTRIDE] * XF_FRACTAL, false);
    bursts(run, dst, op->r[0], f[L2_REPEAT], XF_FRACTAL, (1 + f[L2_DSTGAP]) * XF_FRACTAL, true);
}

static void load3d(fp_run *run, const dv_unit_ctx *c, const dv_op *op)
{
    uint64_t fm[DV_LAYOUT_MAX_FIELDS], ic[DV_LAYOUT_MAX_FIELDS], ip[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_FMATRIX, *c->fmatrix, fm);
    xf_unpack(DV_LAYOUT_IMG2COL, op->r[2], ic);
    xf_unpack(DV_LAYOUT_IMG2COLPOS, op->r[3], ip);
    if (!ip[IP_KEXT] || !ip[IP_MEXT])
        return;
    fp_add(run, DV_MEM_L1, op->r[1], ic[IC_C1] * fm[FM_H] * fm[FM_W] * XF_BLOCK, false);
    fp_flush(run);
    uint64_t m1 = (ip[IP_MEXT] + XF_ROWS - 1) / XF_ROWS;
    fp_add(run, op->insn->op == DV_OP_LOAD3D_L0A ? DV_MEM_L0A : DV_MEM_L0B, op->r[0],
           m1 * ip[IP_KEXT] * XF_FRACTAL, true);
    fp_flush(run);
}

/* The vdeq/vreq table in L1: entries x 8 bytes at the q register. */
static void table(fp_run *run, const dv_op *op, uint64_t entries)
{
    dv_quant q = (dv_quant)op->insn->f[DV_F_QUANT];
    if (q == DV_Q_VDEQ || q == DV_Q_VREQ) {
        fp_add(run, DV_MEM_L1, op->r[3], entries * 8, false);
        fp_flush(run);
    }
}

static void l0c_ub(fp_run *run, const dv_op *op)
{
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_BURST, op->r[2], f);
    uint64_t nb = f[BU_NBURST], len = f[BU_LEN], osize = xf_out_size((dv_quant)op->insn->f[DV_F_QUANT]);
    if (!nb || !len || !osize)
        return;
    table(run, op, 16);
    bursts(run, DV_MEM_L0C, op->r[1], nb, len * L0C_FRACTAL, (len + f[BU_SRCGAP]) * L0C_FRACTAL, false);
    bursts(run, DV_MEM_UB, op->r[0], nb, len * 256 * osize, (len + f[BU_DSTGAP]) * 256 * osize, true);
}

static void fixp(fp_run *run, const dv_op *op)
{
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_FIXP, op->r[2], f);
    uint64_t m = f[FX_M], n = f[FX_N], srcm = f[FX_SRCM], ds = f[FX_DSTSTRIDE];
    uint64_t osize = xf_out_size((dv_quant)op->insn->f[DV_F_QUANT]);
    if (!m || !n || !osize)
        return;
    dv_mem_kind dk = op->insn->f[DV_F_OUT] == DV_OUT_L1 ? DV_MEM_L1 : DV_MEM_GM;
    table(run, op, n);
    /* L0C: per fractal column, the first `cols` 4-byte elements of rows 0..m-1 */
    for (uint64_t cb = 0; cb * 16 < n; cb++) {
        uint64_t cols = n - cb * 16 < 16 ? n - cb * 16 : 16;
        for (uint64_t r = 0; r < m; r++)
            fp_add(run, DV_MEM_L0C, op->r[1] + (cb * srcm + r) * 64, cols * 4, false);
    }
    fp_flush(run);
    if (op->insn->f[DV_F_NZ2ND]) {
        for (uint64_t r = 0; r < m; r++)
            fp_add(run, dk, op->r[0] + r * ds * osize, n * osize, true);
    } else {
        for (uint64_t cb = 0; cb * 16 < n; cb++) {
            uint64_t cols = n - cb * 16 < 16 ? n - cb * 16 : 16;
            for (uint64_t r = 0; r < m; r++)
                fp_add(run, dk, op->r[0] + ((cb * ds + r) * 16) * osize, cols * osize, true);
        }
    }
    fp_flush(run);
}

void dv_xfer_footprint(const dv_unit_ctx *c, const dv_op *op, dv_unit_access_fn fn, void *user)
{
    fp_run run = {.fn = fn, .user = user};
    uint64_t a, b, cc;
    switch (op->insn->op) {
    case DV_OP_COPY_GM_L1:
    case DV_OP_COPY_GM_UB:
    case DV_OP_COPY_UB_GM:
    case DV_OP_COPY_UB_L1:
    case DV_OP_COPY_L1_UB: copy(&run, op); return;
    case DV_OP_ND2NZ_GM_L1: nd2nz(&run, op); return;
    case DV_OP_LOAD2D_L0A:
    case DV_OP_LOAD2D_L0B: load2d(&run, op); return;
    case DV_OP_LOAD3D_L0A:
    case DV_OP_LOAD3D_L0B: load3d(&run, c, op); return;
    case DV_OP_COPY_L0C_UB: l0c_ub(&run, op); return;
    case DV_OP_FIXP: fixp(&run, op); return;
    case DV_OP_MMAD:
        if (!xf_mmad_extents(c->cfg, op, &a, &b, &cc))
            return;
        fn(user, DV_MEM_L0A, op->r[1], a, false);
        fn(user, DV_MEM_L0B, op->r[2], b, false);
        if (!op->insn->f[DV_F_INIT])
            fn(user, DV_MEM_L0C, op->r[0], cc, false);
        fn(user, DV_MEM_L0C, op->r[0], cc, true);
        return;
    default: return;
    }
}
