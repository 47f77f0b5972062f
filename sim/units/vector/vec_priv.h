/* vec_priv.h - shared by the Vector unit's source files: the decoded form of
 * one vector instruction (vec_desc), element load/store helpers and the
 * per-family exec entry points.  The semantics are specified in vector.c. */
#ifndef DV_VEC_PRIV_H
#define DV_VEC_PRIV_H

#include "dv_fp.h"
#include "dv_unit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    VEC_BLOCK = DV_VEC_BLOCK_BYTES,
    VEC_MAX_LANES = 128, /* the mask's bits: a repeat's 16-bit lanes */
    VEC_MAX_BLOCKS = DV_VEC_REPEAT_BLOCKS,
};

/* One strided operand: block b of repeat r is at base + (r*rep + b*blk)*32;
 * esize is the size of its elements (it decides which block a lane is in). */
typedef struct vec_opnd {
    bool used;
    uint64_t base;
    uint32_t blk, rep, nblk, esize;
    bool blk_active[VEC_MAX_BLOCKS]; /* holds at least one active lane */
} vec_opnd;

/* A contiguous, non-strided extent read or written `step` bytes per repeat
 * (vcmp/vsel bit masks, reduction results). */
typedef struct vec_extent {
    bool used;
    uint64_t base, step;
} vec_extent;

typedef struct vec_desc {
    dv_opcode op;
    dv_tclass tc;
    dv_dtype dt, from, to;
    dv_round round;
    unsigned esize; /* element size that sets the slope (vconv: the wider one) */
    unsigned repeats, lanes, nactive;
    bool active[VEC_MAX_LANES];
    vec_opnd dst, src0, src1;
    vec_extent xdst, xsrc;
} vec_desc;

/* ---- little-endian element access (the guest is little-endian whatever the host is) ---- */
static inline uint32_t vec_ld_bits(const uint8_t *p, unsigned size)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static inline void vec_st_bits(uint8_t *p, unsigned size, uint32_t v)
{
    for (unsigned i = 0; i < size; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline bool vec_is_float(dv_dtype dt)
{
    return dt == DV_DT_F16 || dt == DV_DT_BF16 || dt == DV_DT_F32;
}

/* Float view of raw element bits (float types only). */
static inline float vec_bits_to_f(uint32_t bits, dv_dtype dt)
{
    switch (dt) {
    case DV_DT_F16: return dv_fp16_to_f32((uint16_t)bits);
    case DV_DT_BF16: return dv_bf16_to_f32((uint16_t)bits);
    default: return dv_f32_from_bits(bits);
    }
}

/* Rounds a float to dt (nearest even) and returns its bits. */
static inline uint32_t vec_f_to_bits(float f, dv_dtype dt)
{
    switch (dt) {
    case DV_DT_F16: return dv_f32_to_fp16(f);
    case DV_DT_BF16: return dv_f32_to_bf16(f);
    default: return dv_f32_bits(f);
    }
}

/* Integer view of raw element bits (sign- or zero-extended by type). */
static inline int64_t vec_bits_to_i(uint32_t bits, dv_dtype dt)
{
    switch (dt) {
    case DV_DT_S32: return (int32_t)bits;
    case DV_DT_S16: return (int16_t)(uint16_t)bits;
    case DV_DT_S8: return (int8_t)(uint8_t)bits;
    case DV_DT_U8: return (uint8_t)bits;
    case DV_DT_U16: return (uint16_t)bits;
    default: return (uint32_t)bits;
    }
}

/* Address of lane i of operand o in repeat r (the lane's block must be active). */
static inline uint64_t vec_lane_addr(const vec_opnd *o, unsigned r, unsigned i)
{
    unsigned per = VEC_BLOCK / o->esize;
    return o->base + ((uint64_t)r * o->rep + (uint64_t)(i / per) * o->blk) * VEC_BLOCK +
           (uint64_t)(i % per) * o->esize;
}

static inline uint8_t *vec_ub(dv_unit_ctx *c, uint64_t addr)
{
    return c->mem[DV_MEM_UB].bytes + addr;
}

/* Family exec functions: called only after vector.c validated the
 * combination and checked every access, and only when c->data is true, so
 * they cannot fail. */
void vec_exec_arith(dv_unit_ctx *c, const dv_op *op, const vec_desc *d);
void vec_exec_reduce(dv_unit_ctx *c, const vec_desc *d);
void vec_exec_transpose(dv_unit_ctx *c, const vec_desc *d);
void vec_exec_conv(dv_unit_ctx *c, const dv_op *op, const vec_desc *d);

/* vector_conv.c: converts an exact value to `to` with rounding `rnd`
 * (saturating for integer targets, NaN -> 0) and returns its bits. */
uint32_t vec_convert(double x, dv_dtype to, dv_round rnd);
/* Rounds x to an integer value with mode rnd (x finite). */
double vec_round_int(double x, dv_round rnd);

/* Decodes a vector instruction (not set_mask*) with the current mask
 * (vector.c); false with a one-line message for invalid combinations. */
bool vec_decode(const dv_unit_ctx *c, const dv_op *op, vec_desc *d, char *msg, size_t msz);

/* The UB bank-conflict cycles of an instruction's repeats beyond the slope,
 * and how many of them the group ports and the banks cost. */
typedef struct ub_conflicts {
    uint64_t extra, group, bank;
} ub_conflicts;

/* The bank-conflict cost of d's repeats in UB geometry g beyond slope cycles
 * a repeat (vector_conflicts.c). */
ub_conflicts vec_ub_conflicts(const vec_desc *d, const dv_ub_geom *g, uint64_t slope);
/* DVSIM_VECTOR_EXACT=1: no shortcut (conflict cache, period, kept decode). */
bool vec_no_shortcuts(void);

/* vector.c: address of block b of repeat r (false if the arithmetic wraps),
 * and the bounding UB range an operand or extent spans over `repeats`
 * repeats ([0, 0) when unused). */
bool vec_block_addr(const vec_opnd *o, unsigned r, unsigned b, uint64_t *addr);
void vec_opnd_span(const vec_opnd *o, unsigned repeats, uint64_t *lo, uint64_t *hi);
void vec_extent_span(const vec_extent *x, unsigned repeats, uint64_t *lo, uint64_t *hi);

#endif
