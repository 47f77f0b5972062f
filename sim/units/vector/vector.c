/* vector.c - the Vector unit (pipe V): decoding, address checks, timing and
 * dispatch of every vector instruction of isa.def, set_mask and
 * set_mask_mode.  The arithmetic lives in vector_arith.c (element-wise,
 * vcmp, vsel, vdup), vector_reduce.c (reductions, vtranspose) and
 * vector_conv.c (vconv, vdeq, vquant); the UB bank-conflict cost of the
 * repeats in vector_conflicts.c.
 *
 * ---- Semantics (this comment is the specification) ----
 * Operands live in UB.  op->r[] holds the values of the register slots; the
 * packed repeat descriptor (layout vrep) is in slot R3 for vbin/vscal/vcmp/
 * vsel/vquant, R2 for vun/vred/vdup/vconv.
 * Addressing: block b (0..7) of repeat r of operand X is at
 *   base_X + (r*Xrep + b*Xblk)*32     (Xrep/Xblk: dstrep/dstblk, src0rep/...)
 * and holds 32/size consecutive elements.  A repeat has 256/size lanes
 * (128 for 16-bit, 64 for 32-bit); lane i is in block i/(32/size) at
 * position i%(32/size).  Single-source ops use the src0 strides.
 * Mask (c->vec): norm mode: lane i is active if bit i of mask_lo (i < 64)
 * or bit i-64 of mask_hi is set (so 32-bit types only use mask_lo).  Counter
 * mode: the first mask_lo lanes of every repeat are active.  Inactive lanes
 * leave dst untouched.  Only blocks holding an active lane are accessed and
 * therefore checked: each must be inside UB and aligned to cfg->align_ub,
 * else exec returns false with c->fault set (fault_msg empty).  The checks
 * run even when c->data is false; only the arithmetic is skipped.
 * Types: f16 and bf16 are computed in float and rounded to nearest even; f32
 * in float; s32/s16 in 64-bit integers, stored with wraparound (add, sub, mul,
 * abs of the minimum, INT_MIN / -1).  Integer division by zero gives 0; float
 * division follows IEEE.  vmax/vmin use fmaxf/fminf (a NaN operand loses).
 * vand/vor/vnot are bitwise on any 16- or 32-bit type; vcopy, vsel and vdup
 * copy bits.  vexp/vln/vsqrt use libm on float; vrsqrt/vrec compute 1/sqrtf(x)
 * and 1/x exactly in float before rounding - the hardware is an
 * approximation (~2e-3 relative, facts #20), we are exact.
 * Scalars (vadds/vmuls/vmaxs/vmins slot R2, vdup slot R1) hold the value's
 * bits in dtype: low 16 bits for 16-bit types, low 32 bits for 32-bit ones.
 * Reductions: vcmax/vcmin/vcadd write one result per repeat, over its active
 * lanes, to dst element r (dst + r*size, consecutive; dst aligned);
 * vcgmax/vcgmin/vcgadd one result per 32-byte block to dst element r*8+b.
 * Float sums accumulate in float in lane order and are rounded to dtype once;
 * integer sums wrap.  A repeat or block without an active lane writes nothing.
 * vcmp (cmp = lt gt le ge eq ne): one bit per lane; repeat r's lanes/8 bytes
 * are at dst + r*lanes/8, bit i (little-endian: byte i/8, bit i%8) = result of
 * lane i; inactive lanes give 0 bits, every byte of the repeat is written.
 * vsel reads the same layout from the address in slot R4: dst = bit ? src0 : src1.
 * vconv (from=, to=, round=): lanes = 256/max(size_from, size_to); src reads
 * lanes*size_from/32 blocks and dst writes lanes*size_to/32 blocks per
 * repeat.  Types f32 f16 bf16 s32 s16 s8 u8, from != to.  Every source value
 * is exact in double; it is rounded once to the target with the mode: rne,
 * rz, rd, ru, rna (ties away), odd (round to odd: an inexact result takes
 * the neighbour with an odd last bit, so it never overflows to infinity).
 * Modes apply to every inexact conversion (float->int, narrowing float->float
 * and int->float).  Float->int saturates, NaN -> 0; int->int saturates.
 * vdeq (from=s32, to=f16|f32): dst = convert((float)src * scale, round), scale =
 * f32 bits in the low 32 bits of the slot R2 register.
 * vquant (from=f16|f32, to=s8|u8): dst = saturate(round(src*scale) + offset),
 * src*scale in float; the register holds the f32 scale bits in bits 31:0 and
 * a signed 32-bit offset in bits 63:32.
 * vtranspose: the 16x16 matrix of 16-bit elements (512 bytes, row-major) at
 * src (R1) is written transposed to dst (R0); dtype must be 16-bit; the mask
 * is ignored; both addresses must be aligned and the 512 bytes inside UB.
 * set_mask: mask_hi = r[0], mask_lo = r[1]; set_mask_mode: mode = field mode.
 * They change c->vec even when c->data is false (control state, not data).
 * Invalid combinations (unsupported dtype or conversion pair, repeat >
 * cfg->vec_max_repeat) return false with one line in c->fault_msg and
 * c->fault.kind = DV_FAULT_NONE.  Repeat 0 is a valid no-op.
 *
 * ---- Timing (dv_vector_cycles; fields, registers and config only) ----
 * R = repeat field; slope = vec_slope_b16 (8/16-bit elements) or
 * vec_slope_b32 (32-bit; vconv/vdeq/vquant: the wider type); class VDIV uses
 * vec_div_slope.  cycles = slope*R + (head + tail unless back_to_back) +
 * vec_count_extra in counter mode + UB conflicts.  head/tail = vec_head/
 * vec_tail, class VEXP vec_exp_head/vec_exp_tail, class VRED adds
 * vec_red_extra to them.  Conflicts: for each repeat dv_ub_repeat gets the
 * blocks that repeat reads and the blocks the previous repeat wrote; the
 * repeat costs max(0, cycles - slope) extra, attributed first to group
 * conflicts then to bank conflicts in the stats, so the stats add up to the
 * extra cycles actually charged.  vtranspose counts as 2 full contiguous
 * repeats of 16-bit elements.  set_mask/set_mask_mode: 1 cycle.
 * Stats: repeats = R, elem_ops = active lanes per repeat * R, path NONE. */
#include "vec_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum vrep_field {
    VR_REPEAT,
    VR_DSTBLK,
    VR_SRC0BLK,
    VR_SRC1BLK,
    VR_DSTREP,
    VR_SRC0REP,
    VR_SRC1REP
} vrep_field;

static uint32_t vrep_get(uint64_t word, vrep_field f)
{
    /* Field order of isa_params.def's VREP layout. */
    const dv_layout *l = dv_layout_get(DV_LAYOUT_VREP);
    return (uint32_t)dv_lfield_get(&l->fields[f], word);
}

static bool fail(char *msg, size_t size, const char *fmt, ...)
{
    if (msg && size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, size, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* The blocks with an active lane depend only on the element size and the
 * mask: an instruction's operands of the same size share them (a third of
 * a timing-only vadd's decode was this, three times over). */
typedef struct blk_memo {
    unsigned esize, lanes; /* 0: nothing kept */
    bool active[VEC_MAX_BLOCKS];
} blk_memo;

static void set_opnd(vec_opnd *o, uint64_t base, uint32_t blk, uint32_t rep, uint32_t esize, unsigned lanes,
                     const bool *active, blk_memo *memo)
{
    o->used = true;
    o->base = base;
    o->blk = blk;
    o->rep = rep;
    o->esize = esize;
    o->nblk = lanes * esize / VEC_BLOCK;
    if (memo->esize == esize && memo->lanes == lanes) {
        memcpy(o->blk_active, memo->active, sizeof o->blk_active);
        return;
    }
    memset(o->blk_active, 0, sizeof o->blk_active);
    /* block by block, 8 lanes at a time (a division per lane was most of a
     * timing-only run); a block holds 8, 16 or 32 lanes */
    unsigned per = VEC_BLOCK / esize;
    for (unsigned b = 0, i = 0; b < VEC_MAX_BLOCKS && i < lanes; b++) {
        uint64_t any = 0;
        if (per % 8 == 0 && i + per <= lanes)
            for (unsigned j = 0; j < per; j += 8) {
                uint64_t w;
                memcpy(&w, active + i + j, 8);
                any |= w;
            }
        else
            for (unsigned j = 0; j < per && i + j < lanes; j++)
                any |= active[i + j];
        i += per;
        o->blk_active[b] = any != 0;
    }
    memo->esize = esize;
    memo->lanes = lanes;
    memcpy(memo->active, o->blk_active, sizeof memo->active);
}

static void set_mask_lanes(const dv_vec_state *v, vec_desc *d)
{
    d->nactive = 0;
    /* one loop per mode, the count from the mask (a test of the mode per
     * lane cost more than the lane) */
    unsigned n = d->lanes;
    if (d->op == DV_OP_VTRANS) {
        memset(d->active, 1, n);
        d->nactive = n;
    } else if (v->mode == DV_MASK_COUNT_MODE) {
        for (unsigned i = 0; i < n; i++)
            d->active[i] = i < v->mask_lo;
        d->nactive = v->mask_lo < n ? (unsigned)v->mask_lo : n;
    } else {
        unsigned lo = n < 64 ? n : 64;
        uint64_t mask_lo = v->mask_lo, mask_hi = v->mask_hi;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* 8 lanes at a time: the byte replicated, bit j kept in byte j, made 0 or 1 */
        for (unsigned i = 0; i + 8 <= n; i += 8) {
            uint64_t byte = ((i < 64 ? mask_lo >> i : mask_hi >> (i - 64)) & 0xff) * 0x0101010101010101ull;
            uint64_t bits = byte & 0x8040201008040201ull;
            uint64_t lanes = ((bits + 0x7f7f7f7f7f7f7f7full) >> 7) & 0x0101010101010101ull;
            memcpy(&d->active[i], &lanes, 8);
        }
        for (unsigned i = n / 8 * 8; i < n; i++)
            d->active[i] = ((i < 64 ? mask_lo >> i : mask_hi >> (i - 64)) & 1) != 0;
#else
        for (unsigned i = 0; i < lo; i++)
            d->active[i] = ((mask_lo >> i) & 1) != 0;
        for (unsigned i = lo; i < n; i++)
            d->active[i] = ((mask_hi >> (i - 64)) & 1) != 0;
#endif
        uint64_t mlo = lo == 64 ? v->mask_lo : v->mask_lo & ((1ull << lo) - 1);
        uint64_t mhi = n <= 64 ? 0 : n - 64 == 64 ? v->mask_hi : v->mask_hi & ((1ull << (n - 64)) - 1);
        d->nactive = (unsigned)(__builtin_popcountll(mlo) + __builtin_popcountll(mhi));
    }
}

/* Decodes a vector instruction (not set_mask*).  Returns false with a one
 * line message for invalid combinations. */
bool vec_decode(const dv_unit_ctx *c, const dv_op *op, vec_desc *d, char *msg, size_t msz)
{
    const dv_insn_info *info = dv_isa_info(op->insn->op);
    memset(d, 0, sizeof *d);
    if (!info || info->pipe != DV_PIPE_V || info->tclass == DV_TC_MASK || info->tclass == DV_TC_DMA)
        return fail(msg, msz, "opcode 0x%02x is not a vector instruction", (unsigned)op->insn->op);
    d->op = op->insn->op;
    d->tc = info->tclass;
    d->dt = (dv_dtype)op->insn->f[DV_F_DTYPE];
    d->from = (dv_dtype)op->insn->f[DV_F_FROM];
    d->to = (dv_dtype)op->insn->f[DV_F_TO];
    d->round = (dv_round)op->insn->f[DV_F_ROUND];
    const char *mn = info->mnemonic;

    int vslot = -1;
    switch (info->fmt) {
    case DV_FMT_VBIN:
    case DV_FMT_VSCAL:
    case DV_FMT_VCMP:
    case DV_FMT_VSEL:
    case DV_FMT_VQUANT: vslot = 3; break;
    case DV_FMT_VUN:
    case DV_FMT_VRED:
    case DV_FMT_VDUP:
    case DV_FMT_VCONV: vslot = 2; break;
    default: break;
    }
    uint64_t vr = vslot >= 0 ? op->r[vslot] : 0;

    unsigned sfrom, sto;
    char why[160];
    /* The type rule (isa_types.def) again: program text passed dv_isa_decode, but
     * the unit's contract is any dv_op (its tests build them by hand). */
    if (!dv_isa_types_ok(op->insn, why, sizeof why))
        return fail(msg, msz, "%s: %s", mn, why);
    if (info->fmt == DV_FMT_VCONV || info->fmt == DV_FMT_VQUANT) {
        if ((unsigned)d->round >= DV_RND_COUNT)
            return fail(msg, msz, "%s: bad rounding mode %d", mn, (int)d->round);
        sfrom = dv_dtype_size(d->from);
        sto = dv_dtype_size(d->to);
        d->esize = sfrom > sto ? sfrom : sto;
    } else {
        d->esize = sfrom = sto = dv_dtype_size(d->dt);
    }
    if (d->op == DV_OP_VCMP && (op->insn->f[DV_F_CMP] < 0 || op->insn->f[DV_F_CMP] >= DV_CMP_COUNT))
        return fail(msg, msz, "%s: bad comparison %lld", mn, (long long)op->insn->f[DV_F_CMP]);
    d->lanes = DV_VEC_REPEAT_BYTES / d->esize;
    if (d->lanes > VEC_MAX_LANES) /* the type rules keep every instruction within the mask's 128 lanes */
        return fail(msg, msz, "%s: %u lanes of %u-byte elements exceed the mask's %d", mn, d->lanes, d->esize,
                    VEC_MAX_LANES);
    set_mask_lanes(c->vec, d);
    blk_memo memo = {0};

    if (d->op == DV_OP_VTRANS) {
        /* Two contiguous full repeats: 512 bytes in, 512 bytes out. */
        d->repeats = 2;
        set_opnd(&d->dst, op->r[0], 1, 8, 2, 128, d->active, &memo);
        set_opnd(&d->src0, op->r[1], 1, 8, 2, 128, d->active, &memo);
        return true;
    }

    d->repeats = vrep_get(vr, VR_REPEAT);
    if (d->repeats > c->cfg->vec_max_repeat)
        return fail(msg, msz, "%s: repeat %u exceeds the maximum %llu", mn, d->repeats,
                    (unsigned long long)c->cfg->vec_max_repeat);
    uint32_t dblk = vrep_get(vr, VR_DSTBLK), drep = vrep_get(vr, VR_DSTREP);
    uint32_t s0blk = vrep_get(vr, VR_SRC0BLK), s0rep = vrep_get(vr, VR_SRC0REP);
    uint32_t s1blk = vrep_get(vr, VR_SRC1BLK), s1rep = vrep_get(vr, VR_SRC1REP);

    switch (info->fmt) {
    case DV_FMT_VBIN:
    case DV_FMT_VCMP:
    case DV_FMT_VSEL:
        set_opnd(&d->src0, op->r[1], s0blk, s0rep, sfrom, d->lanes, d->active, &memo);
        set_opnd(&d->src1, op->r[2], s1blk, s1rep, sfrom, d->lanes, d->active, &memo);
        if (info->fmt == DV_FMT_VCMP)
            d->xdst = (vec_extent){true, op->r[0], d->lanes / 8};
        else
            set_opnd(&d->dst, op->r[0], dblk, drep, sto, d->lanes, d->active, &memo);
        if (info->fmt == DV_FMT_VSEL)
            d->xsrc = (vec_extent){true, op->r[4], d->lanes / 8};
        break;
    case DV_FMT_VSCAL:
    case DV_FMT_VUN:
    case DV_FMT_VCONV:
    case DV_FMT_VQUANT:
        set_opnd(&d->src0, op->r[1], s0blk, s0rep, sfrom, d->lanes, d->active, &memo);
        set_opnd(&d->dst, op->r[0], dblk, drep, sto, d->lanes, d->active, &memo);
        break;
    case DV_FMT_VDUP: set_opnd(&d->dst, op->r[0], dblk, drep, sto, d->lanes, d->active, &memo); break;
    case DV_FMT_VRED: {
        set_opnd(&d->src0, op->r[1], s0blk, s0rep, sfrom, d->lanes, d->active, &memo);
        bool group = d->op == DV_OP_VCGMAX || d->op == DV_OP_VCGMIN || d->op == DV_OP_VCGADD;
        d->xdst = (vec_extent){true, op->r[0], (uint64_t)sto * (group ? 8 : 1)};
        break;
    }
    default: return fail(msg, msz, "%s: unexpected format", mn);
    }
    return true;
}

/* Address of block b of repeat r; false if the arithmetic wraps. */
bool vec_block_addr(const vec_opnd *o, unsigned r, unsigned b, uint64_t *addr)
{
    uint64_t off = ((uint64_t)r * o->rep + (uint64_t)b * o->blk) * VEC_BLOCK;
    *addr = o->base + off;
    return *addr >= o->base;
}

/* True when every active block of every repeat is aligned and inside UB,
 * known from the lowest and highest of them: the addresses grow with the
 * repeat and the block (unsigned strides), and they are all aligned when
 * the base and both strides are.  False: look block by block (and find the
 * first fault). */
static bool opnd_surely_inside(const dv_mem *ub, const vec_opnd *o, unsigned repeats, uint64_t align)
{
    if (!align)
        align = ub->align;
    unsigned lo = VEC_MAX_BLOCKS, hi = 0;
    for (unsigned b = 0; b < o->nblk; b++)
        if (o->blk_active[b]) {
            lo = b < lo ? b : lo;
            hi = b;
        }
    if (lo == VEC_MAX_BLOCKS || !repeats)
        return true; /* no block to check */
    if (!ub->bytes || !align || o->base % align || (uint64_t)o->rep * VEC_BLOCK % align ||
        (uint64_t)o->blk * VEC_BLOCK % align)
        return false;
    /* at most (255 + 8) 2^32 32 bytes: no wrap of the offset */
    uint64_t top = ((uint64_t)(repeats - 1) * o->rep + (uint64_t)hi * o->blk) * VEC_BLOCK;
    if (top > UINT64_MAX - o->base)
        return false;
    top += o->base;
    return top <= ub->size && VEC_BLOCK <= ub->size - top;
}

static bool check_opnd(dv_unit_ctx *c, const vec_opnd *o, unsigned repeats)
{
    if (!o->used || opnd_surely_inside(&c->mem[DV_MEM_UB], o, repeats, c->cfg->align_ub))
        return true;
    for (unsigned r = 0; r < repeats; r++)
        for (unsigned b = 0; b < o->nblk; b++) {
            if (!o->blk_active[b])
                continue;
            uint64_t a;
            if (!vec_block_addr(o, r, b, &a))
                a = o->base; /* wrapped: the base itself is far outside UB */
            if (!dv_mem_span(&c->mem[DV_MEM_UB], a, VEC_BLOCK, c->cfg->align_ub, &c->fault))
                return false;
        }
    return true;
}

static bool check_extent(dv_unit_ctx *c, const vec_extent *x, unsigned repeats)
{
    if (!x->used || !repeats)
        return true;
    return dv_mem_span(&c->mem[DV_MEM_UB], x->base, x->step * repeats, c->cfg->align_ub, &c->fault) != NULL;
}

static bool vec_check(dv_unit_ctx *c, const vec_desc *d)
{
    if (d->op == DV_OP_VTRANS) {
        dv_mem *ub = &c->mem[DV_MEM_UB];
        return dv_mem_span(ub, d->src0.base, 512, c->cfg->align_ub, &c->fault) &&
               dv_mem_span(ub, d->dst.base, 512, c->cfg->align_ub, &c->fault);
    }
    return check_opnd(c, &d->src0, d->repeats) && check_opnd(c, &d->src1, d->repeats) &&
           check_extent(c, &d->xsrc, d->repeats) && check_opnd(c, &d->dst, d->repeats) &&
           check_extent(c, &d->xdst, d->repeats);
}

/* The decode of the instruction whose cycles were computed last on each
 * unit, for its exec and for the next cycles of the same instruction (a
 * loop's body issues it again with the same registers): a pipe runs one
 * instruction at a time, so nothing the decode reads changes between the
 * two.  It is used only when everything the decode depends on is the same:
 * the unit and its config (the pointer and the repeat limit, in case a
 * later launch's config is allocated where an earlier one was), the pc,
 * the decoded instruction, the register values and the mask; so a hit is
 * exactly what vec_decode would give.  The UB conflict cost kept with it
 * holds for the same geometry and slope, and its passed bounds check for
 * the same UB (buffer, size, alignment).  A failed decode clears the
 * unit's slot, so an exec only ever meets its own instruction's decode. */

typedef struct decoded_slot {
    const dv_unit_ctx *unit;
    const dv_chip_config *cfg;
    uint64_t max_repeat;
    uint64_t pc, r[5], mask_lo, mask_hi;
    dv_insn insn;
    dv_maskmode mode;
    vec_desc d;
    bool have_conflicts; /* conflicts is the cost of d at geometry g and slope */
    dv_ub_geom g;
    uint64_t slope;
    ub_conflicts conflicts;
    bool checked; /* vec_check passed in this UB: */
    dv_mem ub;    /* its bytes, size, alignment */
    uint64_t align_ub;
} decoded_slot;
enum { DECODED_SLOTS = 64 };
static _Thread_local decoded_slot decoded[DECODED_SLOTS];

static decoded_slot *decoded_of(const dv_unit_ctx *c)
{
    uintptr_t h = (uintptr_t)c;
    return &decoded[(h ^ (h >> 7) ^ (h >> 15)) % DECODED_SLOTS];
}

static bool decoded_same(const decoded_slot *s, const dv_unit_ctx *c, const dv_op *op)
{
    return s->unit == c && s->pc == op->pc && s->insn.op == op->insn->op && s->mask_lo == c->vec->mask_lo &&
           s->mask_hi == c->vec->mask_hi && s->mode == c->vec->mode && s->cfg == c->cfg &&
           s->max_repeat == c->cfg->vec_max_repeat && memcmp(s->r, op->r, sizeof s->r) == 0 &&
           memcmp(s->insn.f, op->insn->f, sizeof s->insn.f) == 0;
}

static void decoded_keep(const dv_unit_ctx *c, const dv_op *op, const vec_desc *d)
{
    decoded_slot *s = decoded_of(c);
    s->unit = c;
    s->cfg = c->cfg;
    s->max_repeat = c->cfg->vec_max_repeat;
    s->pc = op->pc;
    s->insn = *op->insn;
    s->mask_lo = c->vec->mask_lo;
    s->mask_hi = c->vec->mask_hi;
    s->mode = c->vec->mode;
    memcpy(s->r, op->r, sizeof s->r);
    s->d = *d;
    s->have_conflicts = false;
    s->checked = false;
}

/* vec_check of the unit's kept decode, once per UB. */
static bool kept_check(dv_unit_ctx *c, decoded_slot *s)
{
    const dv_mem *ub = &c->mem[DV_MEM_UB];
    if (s->checked && s->ub.bytes == ub->bytes && s->ub.size == ub->size && s->ub.align == ub->align &&
        s->align_ub == c->cfg->align_ub)
        return true;
    if (!vec_check(c, &s->d))
        return false;
    s->checked = true;
    s->ub = *ub;
    s->align_ub = c->cfg->align_ub;
    return true;
}

/* The UB conflict cost of d (the unit's kept decode when `kept`). */
static ub_conflicts conflicts_of(const dv_unit_ctx *c, const vec_desc *d, uint64_t slope, bool kept)
{
    const dv_chip_config *cfg = c->cfg;
    dv_ub_geom g = {(uint32_t)cfg->ub_banks, (uint32_t)cfg->ub_bank_groups, (uint32_t)cfg->ub_row_bytes};
    decoded_slot *s = decoded_of(c);
    if (kept && s->have_conflicts && s->slope == slope && memcmp(&s->g, &g, sizeof g) == 0)
        return s->conflicts;
    ub_conflicts x = vec_ub_conflicts(d, &g, slope);
    if (kept) {
        s->have_conflicts = true;
        s->g = g;
        s->slope = slope;
        s->conflicts = x;
    }
    return x;
}

bool dv_vector_exec(dv_unit_ctx *c, const dv_op *op)
{
    c->fault = (dv_access_fault){0};
    c->fault_msg[0] = '\0';
    if (op->insn->op == DV_OP_SET_MASK) {
        c->vec->mask_hi = op->r[0];
        c->vec->mask_lo = op->r[1];
        return true;
    }
    if (op->insn->op == DV_OP_SET_MASK_MODE) {
        int64_t m = op->insn->f[DV_F_MASKMODE];
        if (m < 0 || m >= DV_MASKMODE_COUNT)
            return fail(c->fault_msg, sizeof c->fault_msg, "set_mask_mode: bad mode %lld", (long long)m);
        c->vec->mode = (dv_maskmode)m;
        return true;
    }
    vec_desc d;
    decoded_slot *ds = decoded_of(c);
    if (decoded_same(ds, c, op) && !vec_no_shortcuts()) {
        if (!kept_check(c, ds))
            return false;
        d = ds->d;
    } else if (!vec_decode(c, op, &d, c->fault_msg, sizeof c->fault_msg) || !vec_check(c, &d)) {
        return false;
    }
    if (!c->data || !d.repeats)
        return true;
    switch (d.tc) {
    case DV_TC_VRED: vec_exec_reduce(c, &d); break;
    case DV_TC_VCONV: vec_exec_conv(c, op, &d); break;
    default:
        if (d.op == DV_OP_VTRANS)
            vec_exec_transpose(c, &d);
        else
            vec_exec_arith(c, op, &d);
        break;
    }
    return true;
}

/* The UB bytes an operand or extent spans over `repeats` repeats (its
 * bounding range; [0, 0) when unused). */
void vec_opnd_span(const vec_opnd *o, unsigned repeats, uint64_t *lo, uint64_t *hi)
{
    *lo = *hi = 0;
    if (!o->used || !repeats || !o->nblk)
        return;
    *lo = o->base;
    *hi = o->base + ((uint64_t)(repeats - 1) * o->rep + (uint64_t)(o->nblk - 1) * o->blk + 1) * VEC_BLOCK;
}

void vec_extent_span(const vec_extent *x, unsigned repeats, uint64_t *lo, uint64_t *hi)
{
    *lo = *hi = 0;
    if (x->used && repeats) {
        *lo = x->base;
        *hi = x->base + x->step * repeats;
    }
}

static bool overlaps(uint64_t lo, uint64_t hi, uint64_t wlo, uint64_t whi)
{
    return lo < hi && wlo < whi && lo < whi && wlo < hi;
}

/* Whether the op reads any of the UB bytes [wlo, whi). */
static bool reads_range(const vec_desc *d, uint64_t wlo, uint64_t whi)
{
    uint64_t lo, hi;
    if (d->op == DV_OP_VTRANS)
        return overlaps(d->src0.base, d->src0.base + 512, wlo, whi);
    vec_opnd_span(&d->src0, d->repeats, &lo, &hi);
    if (overlaps(lo, hi, wlo, whi))
        return true;
    vec_opnd_span(&d->src1, d->repeats, &lo, &hi);
    if (overlaps(lo, hi, wlo, whi))
        return true;
    vec_extent_span(&d->xsrc, d->repeats, &lo, &hi);
    return overlaps(lo, hi, wlo, whi);
}

/* Records what the op writes, for the next op's dependency, and how long an
 * op that streams behind it and reads that waits: the result latency less
 * the cycles the op's own later repeats take (a consumer's repeat r reads
 * what repeat r produced, which is older the longer the producer runs),
 * except after a reduction or vtranspose, whose results come at the end. */
static void set_written(const dv_chip_config *cfg, dv_vec_state *v, const vec_desc *d, uint64_t slope)
{
    uint64_t hidden = d->repeats > 1 ? (uint64_t)(d->repeats - 1) * slope : 0;
    bool at_end = d->tc == DV_TC_VRED || d->op == DV_OP_VTRANS;
    v->dep_stall = at_end || hidden < cfg->vec_dep_cycles ? cfg->vec_dep_cycles - (at_end ? 0 : hidden) : 0;
    uint64_t lo, hi, xlo, xhi;
    if (d->op == DV_OP_VTRANS) {
        lo = d->dst.base;
        hi = lo + 512;
    } else {
        vec_opnd_span(&d->dst, d->repeats, &lo, &hi);
    }
    vec_extent_span(&d->xdst, d->repeats, &xlo, &xhi);
    if (xlo < xhi) {
        lo = lo < hi && lo < xlo ? lo : xlo;
        hi = hi > xhi ? hi : xhi;
    }
    v->wrote_lo = lo;
    v->wrote_hi = hi;
}

uint64_t dv_vector_cycles(const dv_unit_ctx *c, const dv_op *op, bool back_to_back, dv_op_stats *st)
{
    const dv_chip_config *cfg = c->cfg;
    memset(st, 0, sizeof *st);
    st->path = DV_PATH_NONE;
    if (op->insn->op == DV_OP_SET_MASK || op->insn->op == DV_OP_SET_MASK_MODE)
        return 1;
    vec_desc d;
    const decoded_slot *ds = decoded_of(c);
    bool kept = !vec_no_shortcuts();
    if (kept && decoded_same(ds, c, op)) {
        d = ds->d;
    } else if (!vec_decode(c, op, &d, NULL, 0)) {
        decoded_of(c)->unit = NULL; /* nothing kept: exec decodes (and faults) itself */
        /* exec will fault; charge the issue cost so time still advances. */
        return back_to_back ? 1 : cfg->vec_head + cfg->vec_tail;
    } else {
        decoded_keep(c, op, &d);
    }
    uint64_t slope = d.tc == DV_TC_VDIV ? cfg->vec_div_slope
                     : d.esize == 4     ? cfg->vec_slope_b32
                                        : cfg->vec_slope_b16;
    if (d.tc == DV_TC_VEXP)
        slope *= cfg->vec_exp_slope_mul;
    uint64_t head = cfg->vec_head, tail = cfg->vec_tail;
    if (d.tc == DV_TC_VEXP) {
        head = cfg->vec_exp_head;
        tail = cfg->vec_exp_tail;
    }
    if (d.tc == DV_TC_VRED)
        head += cfg->vec_red_extra;
    uint64_t cycles = slope * d.repeats;
    if (!back_to_back)
        cycles += head + tail;
    else if (reads_range(&d, c->vec->wrote_lo, c->vec->wrote_hi))
        cycles += c->vec->dep_stall; /* streams behind the op whose result it reads: waits for it */
    set_written(cfg, c->vec, &d, slope);
    if (c->vec->mode == DV_MASK_COUNT_MODE && d.op != DV_OP_VTRANS)
        cycles += cfg->vec_count_extra;

    ub_conflicts x = conflicts_of(c, &d, slope, kept);
    cycles += x.extra;
    st->ub_group_conflict_cycles += x.group;
    st->ub_bank_conflict_cycles += x.bank;
    st->repeats = d.repeats;
    st->elem_ops = (uint64_t)d.nactive * d.repeats;
    /* streaming behind another op, an op still holds the pipe for the issue interval */
    return cycles < cfg->vec_issue_cycles ? cfg->vec_issue_cycles : cycles;
}
