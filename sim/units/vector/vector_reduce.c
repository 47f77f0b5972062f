/* vector_reduce.c - cross-lane Vector ops: vcmax/vcmin/vcadd (one result per
 * repeat), vcgmax/vcgmin/vcgadd (one per 32-byte block) and vtranspose.
 * Semantics: see vector.c. */
#include "vec_priv.h"

#include <math.h>
#include <string.h>

typedef enum red_kind { RED_MAX, RED_MIN, RED_ADD } red_kind;

/* Running reduction over lanes, in float for float types and 64-bit integers
 * otherwise; the sum is rounded to dtype once at the end. */
typedef struct red_acc {
    bool any;
    float f;
    int64_t i;
} red_acc;

static void red_step(red_acc *acc, red_kind k, dv_dtype dt, uint32_t bits)
{
    if (vec_is_float(dt)) {
        float v = vec_bits_to_f(bits, dt);
        if (!acc->any)
            acc->f = v;
        else if (k == RED_ADD)
            acc->f += v;
        else
            acc->f = k == RED_MAX ? fmaxf(acc->f, v) : fminf(acc->f, v);
    } else {
        int64_t v = vec_bits_to_i(bits, dt);
        if (!acc->any)
            acc->i = v;
        else if (k == RED_ADD)
            acc->i += v; /* at most 128 s32 lanes: no int64 overflow */
        else
            acc->i = k == RED_MAX ? (v > acc->i ? v : acc->i) : (v < acc->i ? v : acc->i);
    }
    acc->any = true;
}

static void red_store(dv_unit_ctx *c, uint64_t addr, const red_acc *acc, dv_dtype dt, unsigned size)
{
    if (!acc->any)
        return;
    uint32_t bits = vec_is_float(dt) ? vec_f_to_bits(acc->f, dt) : (uint32_t)(uint64_t)acc->i;
    vec_st_bits(vec_ub(c, addr), size, bits);
}

void vec_exec_reduce(dv_unit_ctx *c, const vec_desc *d)
{
    red_kind k;
    switch (d->op) {
    case DV_OP_VCMAX:
    case DV_OP_VCGMAX: k = RED_MAX; break;
    case DV_OP_VCMIN:
    case DV_OP_VCGMIN: k = RED_MIN; break;
    default: k = RED_ADD; break;
    }
    bool group = d->op == DV_OP_VCGMAX || d->op == DV_OP_VCGMIN || d->op == DV_OP_VCGADD;
    unsigned size = d->esize, per = VEC_BLOCK / size;
    for (unsigned r = 0; r < d->repeats; r++) {
        red_acc acc[VEC_MAX_BLOCKS];
        memset(acc, 0, sizeof acc);
        for (unsigned i = 0; i < d->lanes; i++) {
            if (!d->active[i])
                continue;
            uint32_t bits = vec_ld_bits(vec_ub(c, vec_lane_addr(&d->src0, r, i)), size);
            red_step(&acc[group ? i / per : 0], k, d->dt, bits);
        }
        uint64_t out = d->xdst.base + d->xdst.step * r;
        if (group)
            for (unsigned b = 0; b < VEC_MAX_BLOCKS; b++)
                red_store(c, out + (uint64_t)b * size, &acc[b], d->dt, size);
        else
            red_store(c, out, &acc[0], d->dt, size);
    }
}

void vec_exec_transpose(dv_unit_ctx *c, const vec_desc *d)
{
    /* Through a copy, so src == dst transposes in place. */
    uint8_t tmp[512];
    memcpy(tmp, vec_ub(c, d->src0.base), sizeof tmp);
    uint8_t *dst = vec_ub(c, d->dst.base);
    for (unsigned row = 0; row < 16; row++)
        for (unsigned col = 0; col < 16; col++)
            memcpy(dst + (col * 16 + row) * 2, tmp + (row * 16 + col) * 2, 2);
}
