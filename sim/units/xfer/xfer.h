/* xfer.h - private helpers shared by the Cube, the transfer engines and
 * FixPipe (sim/units/xfer): parameter unpacking, checked buffer access,
 * parameter faults and the L0C output conversions used by both fixp and
 * copy_l0c_ub.  Not part of the public contract (that is dv_unit.h). */
#ifndef DV_XFER_H
#define DV_XFER_H

#include "dv_unit.h"

#include <stdbool.h>
#include <stdint.h>

/* Fractal geometry (facts §1.1): 16 rows x 32 bytes. */
enum { XF_BLOCK = 32, XF_FRACTAL = 512, XF_ROWS = 16 };

/* All fields of a packed params word, in isa_params.def order, so callers
 * index them with small local enums instead of looking keys up by name. */
void xf_unpack(dv_layout_id id, uint64_t word, uint64_t out[DV_LAYOUT_MAX_FIELDS]);

/* A parameter fault: one line in c->fault_msg, c->fault.kind = NONE.
 * Always returns false so callers can `return xf_fail(...)`. */
bool xf_fail(dv_unit_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Checked access to [addr, addr+len) of a core buffer (align 0: the
 * buffer's own) or of GM (kind DV_MEM_GM: no alignment).  NULL with
 * c->fault set when refused. */
uint8_t *xf_span(dv_unit_ctx *c, dv_mem_kind kind, uint64_t addr, uint64_t len, uint64_t align);

/* Alignment the config requires of a core buffer (0 for GM). */
uint64_t xf_align(const dv_chip_config *cfg, dv_mem_kind kind);

/* Little-endian element access. */
static inline uint32_t xf_ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint16_t xf_ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static inline void xf_st32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline void xf_st16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* A 16 x 16 matrix of two-byte elements transposed: dst row r, column c
 * = src row c, column r; rows src_stride and dst_stride bytes apart (32
 * for a whole fractal).  The regions must not overlap.  SSE2 on x86-64:
 * load2d's transposes and the Cube's B operands take it per fractal. */
void xf_transpose16_u16(const uint8_t *src, uint64_t src_stride, uint8_t *dst, uint64_t dst_stride);

/* ---- L0C output conversions (outconv.c) ---- */

/* One conversion as fixp / copy_l0c_ub configure it.  For vdeq/vreq the
 * per-channel table (8 bytes per channel) must already be checked. */
typedef struct xf_conv {
    dv_quant quant;
    bool relu;
    uint64_t q;           /* deq/req: the scale (and offset) register */
    const uint8_t *table; /* vdeq/vreq: the L1 table, else NULL */
} xf_conv;

/* Bytes per output element of a quant mode (0 for an invalid mode). */
unsigned xf_out_size(dv_quant quant);
/* Converts one 4-byte L0C element (f32 or s32, as the mode implies) to
 * out_size bytes at dst, channel selecting the vdeq/vreq table entry. */
void xf_convert(const xf_conv *cv, const uint8_t *src, uint64_t channel, uint8_t *dst);
/* n consecutive elements, channel = index % 16 (a fractal row's columns):
 * copy_l0c_ub's bursts.  The same bytes as n xf_convert calls. */
void xf_convert_n(const xf_conv *cv, const uint8_t *src, uint64_t n, uint8_t *dst);

/* ---- per-class entry points (each file's own instructions) ---- */
uint64_t xf_img2col_cycles(const dv_unit_ctx *c, const dv_op *op, dv_op_stats *st);
bool xf_img2col_exec(dv_unit_ctx *c, const dv_op *op);
uint64_t xf_l0c_ub_cycles(const dv_unit_ctx *c, const dv_op *op, dv_op_stats *st);
bool xf_l0c_ub_exec(dv_unit_ctx *c, const dv_op *op);
/* mte.c: load2d's merging transpose of 4-byte elements (transpose=1 with
 * f32, s32, u32: layout load2dt, squares of two fractals). */
bool xf_load2d_squares(const dv_op *op);

/* cube.c: the bytes mmad reads of L0A and L0B and covers of L0C; false
 * when it touches nothing (a zero dimension, a dtype that faults). */
bool xf_mmad_extents(const dv_chip_config *cfg, const dv_op *op, uint64_t *a, uint64_t *b, uint64_t *c);
/* fixpipe.c: the GM rows of a fixp to GM (dv_xfer_gm_ranges). */
void xf_fixp_gm_ranges(const dv_op *op, dv_gm_range_fn fn, void *user);

#endif
