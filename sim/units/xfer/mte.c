/* mte.c - the transfer engines MTE1/MTE2/MTE3: copy_* bursts, nd2nz_gm_l1,
 * load2d_l0a/l0b and set_fmatrix, plus the dispatch of dv_mte_* to
 * img2col.c (load3d) and fixpipe.c (copy_l0c_ub).
 *
 * Spec.
 * copy_gm_l1 / copy_gm_ub / copy_ub_gm / copy_ub_l1 / copy_l1_ub (layout
 *   burst): burst i < nburst copies len*32 bytes from src + i*(len+srcgap)*32
 *   to dst + i*(len+dstgap)*32.  GM needs no alignment; UB and L1 addresses
 *   must be 32-byte aligned (cfg->align_ub / align_l1).  A path the chip
 *   lacks (bandwidth 0) faults.  Bytes = nburst*len*32.
 * nd2nz_gm_l1 (layouts nd2nz0, nd2nz1; C0 = 32 / element size): for matrix
 *   t < ndnum at GM src + t*srcmat*size, element (r, c), r < n, c < d, at
 *   + (r*srcd + c)*size goes to L1 dst + t*dstmat*32 + ((c/C0)*dstc0 +
 *   r*dstn)*32 + (c%C0)*size.  Columns from d to the next multiple of C0 are
 *   written as zeros, so a partial C0 block is deterministic.
 *   Bytes = ndnum*n*ceil(d/C0)*32 (what lands in L1).
 * load2d_l0a/l0b (layout load2d): fractal i < repeat at L1 src + (start +
 *   i*srcstride)*512 goes to L0A/L0B dst + i*(1+dstgap)*512; transpose=1
 *   transposes each 16x16 fractal of a 16-bit dtype.  Bytes = repeat*512.
 *   With a 4-byte dtype (f32, s32, u32) transpose=1 is the merging form
 *   (facts #41, LoadDataWithTranspose) and the register is layout load2dt:
 *   square i < repeat is the 16x16 block of source fractals s0 = src +
 *   (start + i*srcstride)*512 (columns 0-7, row-major 16 x 8) and s1 = s0 +
 *   srcpair*512 (columns 8-15); its transpose goes to d0 = dst +
 *   i*(1+dstgap)*512 (rows 0-7 of the block as columns: out (r, c) = in (c,
 *   r) for c < 8) and d1 = d0 + dstpair*512 (c >= 8).  Bytes = repeat*1024.
 *   Other sizes (1 byte) with transpose=1 fault.
 * set_fmatrix: *ctx->fmatrix = r0; 1 cycle, no data.
 * Cycles of a transfer: dv_xfer_cycles(bytes, path bandwidth,
 *   dma_head_cycles, touches GM, gm_latency, gm_full_bw_bytes), the part
 *   after the start-up (head and GM latency, stats.lead) at least
 *   bursts * burst_cycles (a copy's nburst, an nd2nz's ndnum * n rows).  The
 *   core overlaps a transfer's start-up with the one before it on the same
 *   engine (sim/core/core_dma.c).
 * Every address is checked (also when ctx->data is false) before any byte
 * moves, so a faulting instruction leaves the buffers unchanged. */
#include "xfer.h"

#include <string.h>

enum { BU_NBURST, BU_LEN, BU_SRCGAP, BU_DSTGAP };
enum { ND0_N, ND0_D, ND0_SRCD, ND0_NDNUM };
enum { ND1_DSTC0, ND1_DSTN, ND1_SRCMAT, ND1_DSTMAT };
enum { L2_START, L2_REPEAT, L2_SRCSTRIDE, L2_DSTGAP };
enum { L2T_START, L2T_REPEAT, L2T_SRCSTRIDE, L2T_DSTGAP, L2T_SRCPAIR, L2T_DSTPAIR };

typedef struct route {
    dv_path path;
    dv_mem_kind src, dst;
} route;

static route route_of(dv_opcode op)
{
    switch (op) {
    case DV_OP_COPY_GM_L1:
    case DV_OP_ND2NZ_GM_L1: return (route){DV_PATH_GM_L1, DV_MEM_GM, DV_MEM_L1};
    case DV_OP_COPY_GM_UB: return (route){DV_PATH_GM_UB, DV_MEM_GM, DV_MEM_UB};
    case DV_OP_COPY_UB_GM: return (route){DV_PATH_UB_GM, DV_MEM_UB, DV_MEM_GM};
    case DV_OP_COPY_UB_L1: return (route){DV_PATH_UB_L1, DV_MEM_UB, DV_MEM_L1};
    case DV_OP_COPY_L1_UB: return (route){DV_PATH_L1_UB, DV_MEM_L1, DV_MEM_UB};
    case DV_OP_LOAD2D_L0A:
    case DV_OP_LOAD3D_L0A: return (route){DV_PATH_L1_L0A, DV_MEM_L1, DV_MEM_L0A};
    case DV_OP_LOAD2D_L0B:
    case DV_OP_LOAD3D_L0B: return (route){DV_PATH_L1_L0B, DV_MEM_L1, DV_MEM_L0B};
    default: return (route){DV_PATH_NONE, DV_MEM_GM, DV_MEM_GM};
    }
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* C0 of a dtype: elements per 32-byte block (0 for a size that does not
 * divide 32, which no dtype has, but keeps the division safe). */
static uint64_t c0_of(dv_dtype dt)
{
    unsigned size = (unsigned)dt < DV_DT_COUNT ? dv_dtype_size(dt) : 0;
    return size && XF_BLOCK % size == 0 ? XF_BLOCK / size : 0;
}

/* Bytes an instruction moves over its path, from its fields only. */
static uint64_t mte_bytes(const dv_op *op)
{
    uint64_t f[DV_LAYOUT_MAX_FIELDS], g[DV_LAYOUT_MAX_FIELDS];
    switch (op->insn->op) {
    case DV_OP_ND2NZ_GM_L1: {
        uint64_t c0 = c0_of((dv_dtype)op->insn->f[DV_F_DTYPE]);
        xf_unpack(DV_LAYOUT_ND2NZ0, op->r[2], f);
        return c0 ? f[ND0_NDNUM] * f[ND0_N] * ceil_div(f[ND0_D], c0) * XF_BLOCK : 0;
    }
    case DV_OP_LOAD2D_L0A:
    case DV_OP_LOAD2D_L0B:
        if (xf_load2d_squares(op)) {
            xf_unpack(DV_LAYOUT_LOAD2DT, op->r[2], g);
            return g[L2T_REPEAT] * 2 * XF_FRACTAL;
        }
        xf_unpack(DV_LAYOUT_LOAD2D, op->r[2], g);
        return g[L2_REPEAT] * XF_FRACTAL;
    default: xf_unpack(DV_LAYOUT_BURST, op->r[2], f); return f[BU_NBURST] * f[BU_LEN] * XF_BLOCK;
    }
}

/* Bursts an instruction issues: a copy's nburst, an nd2nz's rows; else 1. */
static uint64_t mte_bursts(const dv_op *op)
{
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    switch (op->insn->op) {
    case DV_OP_ND2NZ_GM_L1: xf_unpack(DV_LAYOUT_ND2NZ0, op->r[2], f); return f[ND0_NDNUM] * f[ND0_N];
    case DV_OP_COPY_GM_L1:
    case DV_OP_COPY_GM_UB:
    case DV_OP_COPY_UB_GM:
    case DV_OP_COPY_UB_L1:
    case DV_OP_COPY_L1_UB: xf_unpack(DV_LAYOUT_BURST, op->r[2], f); return f[BU_NBURST];
    default: return 1;
    }
}

/* The start-up part of a transfer's cycles: all but its bytes' time. */
static uint64_t lead_of(uint64_t cycles, uint64_t bytes, uint64_t bw)
{
    uint64_t flow = bw ? ceil_div(bytes, bw) : bytes;
    return cycles > flow ? cycles - flow : 0;
}

uint64_t dv_mte_cycles(const dv_unit_ctx *c, const dv_op *op, bool back_to_back, dv_op_stats *st)
{
    (void)back_to_back; /* the core overlaps start-ups (path.mteN_requests) from st->lead */
    const dv_chip_config *cfg = c->cfg;
    uint64_t cycles;
    switch (op->insn->op) {
    case DV_OP_SET_FMATRIX:
        st->path = DV_PATH_NONE;
        st->bytes = 0;
        return 1;
    case DV_OP_LOAD3D_L0A:
    case DV_OP_LOAD3D_L0B:
        cycles = xf_img2col_cycles(c, op, st);
        st->lead = lead_of(cycles, st->bytes, dv_path_bw(cfg, st->path));
        return cycles;
    case DV_OP_COPY_L0C_UB:
        cycles = xf_l0c_ub_cycles(c, op, st);
        st->lead = lead_of(cycles, st->bytes, dv_path_bw(cfg, st->path));
        return cycles;
    default: break;
    }
    route rt = route_of(op->insn->op);
    st->path = rt.path;
    st->bytes = mte_bytes(op);
    bool gm = rt.src == DV_MEM_GM || rt.dst == DV_MEM_GM;
    uint64_t bw = dv_path_bw(cfg, rt.path);
    cycles = dv_xfer_cycles(st->bytes, bw, cfg->dma_head_cycles, gm, cfg->gm_latency, cfg->gm_full_bw_bytes);
    st->lead = lead_of(cycles, st->bytes, bw);
    /* The engine issues one burst per burst_cycles: short bursts cost more
     * than their bytes (1024 bursts of 32 B are not one of 32 KiB). */
    uint64_t flow = cycles - st->lead, least = mte_bursts(op) * cfg->burst_cycles;
    return least > flow ? st->lead + least : cycles;
}

static bool missing_path(dv_unit_ctx *c, dv_path p)
{
    return xf_fail(c, "this chip (%s) has no %s path", c->cfg->name, dv_path_name(p));
}

static bool exec_copy(dv_unit_ctx *c, const dv_op *op, route rt)
{
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_BURST, op->r[2], f);
    uint64_t len = f[BU_LEN] * XF_BLOCK;
    uint64_t sstep = (f[BU_LEN] + f[BU_SRCGAP]) * XF_BLOCK, dstep = (f[BU_LEN] + f[BU_DSTGAP]) * XF_BLOCK;
    if (!len || !f[BU_NBURST])
        return true;
    /* Pass 0 checks every burst, pass 1 moves them: a fault moves nothing. */
    for (int pass = 0; pass < (c->data ? 2 : 1); pass++)
        for (uint64_t i = 0; i < f[BU_NBURST]; i++) {
            uint8_t *s = xf_span(c, rt.src, op->r[1] + i * sstep, len, xf_align(c->cfg, rt.src));
            uint8_t *d = s ? xf_span(c, rt.dst, op->r[0] + i * dstep, len, xf_align(c->cfg, rt.dst)) : NULL;
            if (!d)
                return false;
            if (pass)
                memmove(d, s, (size_t)len);
        }
    return true;
}

/* One row r of matrix t: its C0 blocks, the last padded with zeros. */
static void nd2nz_row(const dv_nd2nz_work *w, const uint8_t *row, uint64_t t, uint64_t r)
{
    /* whole 32-byte blocks by a copy of constant size (inlined: a call
     * per block was a sixth of a 4096^3 matmul's host time); GM and L1 are
     * separate buffers, so no overlap */
    uint64_t whole = w->d / w->c0, blocks = ceil_div(w->d, w->c0);
    uint8_t *l1 = w->l1 + (t * w->dstmat + r * w->dstn) * XF_BLOCK;
    for (uint64_t cb = 0; cb < whole; cb++)
        memcpy(l1 + cb * w->dstc0 * XF_BLOCK, row + cb * XF_BLOCK, XF_BLOCK);
    if (whole < blocks) { /* the row's last, partial block: zeroes after it */
        uint8_t *blk = l1 + whole * w->dstc0 * XF_BLOCK;
        uint64_t have = (w->d - whole * w->c0) * w->size;
        memcpy(blk, row + whole * XF_BLOCK, (size_t)have);
        memset(blk + have, 0, (size_t)(XF_BLOCK - have));
    }
}

void dv_nd2nz_compute(const dv_nd2nz_work *w)
{
    for (uint64_t t = 0; t < w->ndnum; t++)
        for (uint64_t r = 0; r < w->n; r++)
            nd2nz_row(w, w->gm + (t * w->srcmat + r * w->srcd) * w->size, t, r);
}

bool dv_nd2nz_prepare(dv_unit_ctx *c, const dv_op *op, dv_nd2nz_work *w)
{
    *w = (dv_nd2nz_work){.has_work = false};
    dv_dtype dt = (dv_dtype)op->insn->f[DV_F_DTYPE];
    uint64_t c0 = c0_of(dt);
    if (!c0)
        return xf_fail(c, "nd2nz_gm_l1: unsupported dtype");
    uint64_t size = XF_BLOCK / c0;
    uint64_t a[DV_LAYOUT_MAX_FIELDS], b[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_ND2NZ0, op->r[2], a);
    xf_unpack(DV_LAYOUT_ND2NZ1, op->r[3], b);
    uint64_t n = a[ND0_N], d = a[ND0_D], srcd = a[ND0_SRCD], ndnum = a[ND0_NDNUM];
    if (!n || !d || !ndnum)
        return true;
    if (srcd < d && n > 1)
        return xf_fail(c, "nd2nz_gm_l1: row pitch srcd=%llu is less than the row length d=%llu",
                       (unsigned long long)srcd, (unsigned long long)d);
    uint64_t blocks = ceil_div(d, c0);
    /* Every L1 block written lies in [dst, dst + extent): check that once. */
    uint64_t extent =
        ((ndnum - 1) * b[ND1_DSTMAT] + (blocks - 1) * b[ND1_DSTC0] + (n - 1) * b[ND1_DSTN] + 1) * XF_BLOCK;
    uint8_t *l1 = xf_span(c, DV_MEM_L1, op->r[0], extent, c->cfg->align_l1);
    if (!l1)
        return false;
    /* The rows' bounding extent in one GM region covers every row; only
     * when it does not are the rows checked one by one (each must lie in one
     * region), so the fault names the first bad row. */
    dv_access_fault saved = c->fault;
    uint64_t span = ((ndnum - 1) * b[ND1_SRCMAT] + (n - 1) * srcd + d) * size;
    const uint8_t *base = xf_span(c, DV_MEM_GM, op->r[1], span, 0);
    *w = (dv_nd2nz_work){.l1 = l1,
                         .gm = base,
                         .n = n,
                         .d = d,
                         .srcd = srcd,
                         .ndnum = ndnum,
                         .c0 = c0,
                         .size = size,
                         .dstc0 = b[ND1_DSTC0],
                         .dstn = b[ND1_DSTN],
                         .srcmat = b[ND1_SRCMAT],
                         .dstmat = b[ND1_DSTMAT]};
    if (base) {
        w->has_work = c->data;
        return true;
    }
    c->fault = saved;
    for (int pass = 0; pass < (c->data ? 2 : 1); pass++)
        for (uint64_t t = 0; t < ndnum; t++)
            for (uint64_t r = 0; r < n; r++) {
                uint64_t off = (t * b[ND1_SRCMAT] + r * srcd) * size;
                const uint8_t *row = xf_span(c, DV_MEM_GM, op->r[1] + off, d * size, 0);
                if (!row)
                    return false;
                if (pass)
                    nd2nz_row(w, row, t, r);
            }
    return true;
}

static bool exec_nd2nz(dv_unit_ctx *c, const dv_op *op)
{
    dv_nd2nz_work w;
    if (!dv_nd2nz_prepare(c, op, &w))
        return false;
    if (w.has_work)
        dv_nd2nz_compute(&w);
    return true;
}

bool xf_load2d_squares(const dv_op *op)
{
    dv_dtype dt = (dv_dtype)op->insn->f[DV_F_DTYPE];
    return op->insn->f[DV_F_TRANSPOSE] && (unsigned)dt < DV_DT_COUNT && dv_dtype_size(dt) == 4;
}

/* The merging transpose of 4-byte elements (layout load2dt): each square's
 * two source fractals and two destination fractals are checked before any
 * byte moves (pass 0), then moved (pass 1). */
static bool exec_load2d_squares(dv_unit_ctx *c, const dv_op *op, route rt)
{
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_LOAD2DT, op->r[2], f);
    for (int pass = 0; pass < (c->data ? 2 : 1); pass++)
        for (uint64_t i = 0; i < f[L2T_REPEAT]; i++) {
            uint64_t s0 = op->r[1] + (f[L2T_START] + i * f[L2T_SRCSTRIDE]) * XF_FRACTAL;
            uint64_t d0 = op->r[0] + i * (1 + f[L2T_DSTGAP]) * XF_FRACTAL;
            const uint8_t *s[2];
            uint8_t *d[2];
            for (unsigned h = 0; h < 2; h++) {
                s[h] =
                    xf_span(c, DV_MEM_L1, s0 + h * f[L2T_SRCPAIR] * XF_FRACTAL, XF_FRACTAL, c->cfg->align_l1);
                d[h] = s[h] ? xf_span(c, rt.dst, d0 + h * f[L2T_DSTPAIR] * XF_FRACTAL, XF_FRACTAL,
                                      c->cfg->align_l0ab)
                            : NULL;
                if (!d[h])
                    return false;
            }
            if (!pass)
                continue;
            /* in (r, c) at s[c / 8] + (r * 8 + c % 8) * 4; out (r, c) =
             * in (c, r) at d[c / 8] + (r * 8 + c % 8) * 4.  The source and
             * destination are different buffers (L1, L0), so no overlap. */
            for (unsigned r = 0; r < 16; r++)
                for (unsigned col = 0; col < 16; col++)
                    memcpy(d[col / 8] + (r * 8 + col % 8) * 4, s[r / 8] + (col * 8 + r % 8) * 4, 4);
        }
    return true;
}

static bool exec_load2d(dv_unit_ctx *c, const dv_op *op, route rt)
{
    if (xf_load2d_squares(op))
        return exec_load2d_squares(c, op, rt);
    uint64_t f[DV_LAYOUT_MAX_FIELDS];
    xf_unpack(DV_LAYOUT_LOAD2D, op->r[2], f);
    bool transpose = op->insn->f[DV_F_TRANSPOSE] != 0;
    dv_dtype dt = (dv_dtype)op->insn->f[DV_F_DTYPE];
    if (transpose && ((unsigned)dt >= DV_DT_COUNT || dv_dtype_size(dt) != 2))
        return xf_fail(c,
                       "%s: transpose=1 needs a 16-bit dtype (f16, bf16, s16, u16) or a 4-byte one (f32, "
                       "s32, u32), not %s",
                       dv_isa_info(op->insn->op)->mnemonic, dv_dtype_name(dt));
    /* Checking the two extents once covers every fractal (each lies inside
     * its extent, at a multiple of 512 bytes from its aligned start); only
     * when one is out of range are the fractals checked one by one, so the
     * fault names the first bad one. */
    uint64_t n = f[L2_REPEAT];
    bool checked = false;
    if (n) {
        dv_access_fault saved = c->fault;
        uint64_t sext = ((n - 1) * f[L2_SRCSTRIDE] + 1) * XF_FRACTAL,
                 dext = ((n - 1) * (1 + f[L2_DSTGAP]) + 1) * XF_FRACTAL;
        checked = xf_span(c, DV_MEM_L1, op->r[1] + f[L2_START] * XF_FRACTAL, sext, c->cfg->align_l1) &&
                  xf_span(c, rt.dst, op->r[0], dext, c->cfg->align_l0ab);
        if (!checked)
            c->fault = saved;
    }
    for (int pass = checked ? 1 : 0; pass < (c->data ? 2 : 1); pass++)
        for (uint64_t i = 0; i < f[L2_REPEAT]; i++) {
            const uint8_t *s =
                xf_span(c, DV_MEM_L1, op->r[1] + (f[L2_START] + i * f[L2_SRCSTRIDE]) * XF_FRACTAL, XF_FRACTAL,
                        c->cfg->align_l1);
            uint8_t *d = s ? xf_span(c, rt.dst, op->r[0] + i * (1 + f[L2_DSTGAP]) * XF_FRACTAL, XF_FRACTAL,
                                     c->cfg->align_l0ab)
                           : NULL;
            if (!d)
                return false;
            if (!pass)
                continue;
            if (!transpose) {
                memmove(d, s, XF_FRACTAL);
                continue;
            }
            /* 16 x 16 two-byte elements: out (r, c) = in (c, r). */
            xf_transpose16_u16(s, XF_BLOCK, d, XF_BLOCK);
        }
    return true;
}

bool dv_mte_exec(dv_unit_ctx *c, const dv_op *op)
{
    switch (op->insn->op) {
    case DV_OP_SET_FMATRIX: *c->fmatrix = op->r[0]; return true;
    case DV_OP_LOAD3D_L0A:
    case DV_OP_LOAD3D_L0B: return xf_img2col_exec(c, op);
    case DV_OP_COPY_L0C_UB: return xf_l0c_ub_exec(c, op);
    default: break;
    }
    route rt = route_of(op->insn->op);
    if (rt.path == DV_PATH_NONE)
        return xf_fail(c, "opcode 0x%02x is not a transfer instruction", (unsigned)op->insn->op);
    if (!dv_path_bw(c->cfg, rt.path))
        return missing_path(c, rt.path);
    switch (op->insn->op) {
    case DV_OP_ND2NZ_GM_L1: return exec_nd2nz(c, op);
    case DV_OP_LOAD2D_L0A:
    case DV_OP_LOAD2D_L0B: return exec_load2d(c, op, rt);
    default: return exec_copy(c, op, rt);
    }
}

void dv_xfer_gm_ranges(const dv_op *op, const dv_op_stats *st, dv_gm_range_fn fn, void *user)
{
    uint64_t f[DV_LAYOUT_MAX_FIELDS], g[DV_LAYOUT_MAX_FIELDS];
    switch (op->insn->op) {
    case DV_OP_COPY_GM_L1:
    case DV_OP_COPY_GM_UB:
    case DV_OP_COPY_UB_GM: {
        bool write = op->insn->op == DV_OP_COPY_UB_GM;
        xf_unpack(DV_LAYOUT_BURST, op->r[2], f);
        uint64_t len = f[BU_LEN] * XF_BLOCK, gap = (write ? f[BU_DSTGAP] : f[BU_SRCGAP]) * XF_BLOCK;
        uint64_t base = write ? op->r[0] : op->r[1];
        for (uint64_t i = 0; i < f[BU_NBURST]; i++)
            fn(user, base + i * (len + gap), len, write);
        return;
    }
    case DV_OP_ND2NZ_GM_L1: {
        uint64_t c0 = c0_of((dv_dtype)op->insn->f[DV_F_DTYPE]), size = c0 ? XF_BLOCK / c0 : 1;
        xf_unpack(DV_LAYOUT_ND2NZ0, op->r[2], f);
        xf_unpack(DV_LAYOUT_ND2NZ1, op->r[3], g);
        for (uint64_t t = 0; t < f[ND0_NDNUM]; t++)
            for (uint64_t r = 0; r < f[ND0_N]; r++)
                fn(user, op->r[1] + (t * g[ND1_SRCMAT] + r * f[ND0_SRCD]) * size, f[ND0_D] * size, false);
        return;
    }
    case DV_OP_FIXP: xf_fixp_gm_ranges(op, fn, user); return;
    default: {
        bool write = st->path == DV_PATH_L0C_GM;
        fn(user, write ? op->r[0] : op->r[1], st->bytes, write);
        return;
    }
    }
}
