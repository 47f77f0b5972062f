/* vt_env.c - test fixture for the Vector unit. */
#include "vt_env.h"

#include <string.h>

void vt_init(vt_env *e)
{
    memset(e, 0, sizeof *e);
    dv_error err;
    ck_assert_int_eq(dv_config_builtin("ascend910b", &e->cfg, &err), DV_OK);
    ck_assert_int_eq(dv_mem_init(&e->mem[DV_MEM_UB], DV_MEM_UB, e->cfg.ub_bytes, e->cfg.align_ub, &err),
                     DV_OK);
    e->vec.mask_lo = e->vec.mask_hi = ~0ull;
    e->vec.mode = DV_MASK_NORM;
    e->c.cfg = &e->cfg;
    e->c.mem = e->mem;
    e->c.vec = &e->vec;
    e->c.data = true;
    e->seed = 12345;
}

void vt_free(vt_env *e)
{
    dv_mem_free(&e->mem[DV_MEM_UB]);
}

uint8_t *vt_ub(vt_env *e, uint64_t addr)
{
    ck_assert_uint_lt(addr, e->mem[DV_MEM_UB].size);
    return e->mem[DV_MEM_UB].bytes + addr;
}

uint32_t vt_rand(vt_env *e)
{
    e->seed = e->seed * 1103515245u + 12345u;
    return e->seed >> 8;
}

uint16_t vt_rand_f16(vt_env *e)
{
    float f = ((float)(vt_rand(e) % 65536) - 32768.0f) / 4096.0f;
    return dv_f32_to_fp16(f);
}

uint64_t vt_vrep(unsigned repeat, unsigned dblk, unsigned s0blk, unsigned s1blk, unsigned drep,
                 unsigned s0rep, unsigned s1rep)
{
    return (uint64_t)repeat | (uint64_t)dblk << 8 | (uint64_t)s0blk << 16 | (uint64_t)s1blk << 24 |
           (uint64_t)drep << 32 | (uint64_t)s0rep << 40 | (uint64_t)s1rep << 48;
}

uint64_t vt_vrep_dense(unsigned repeat)
{
    return vt_vrep(repeat, 1, 1, 1, 8, 8, 8);
}

dv_op vt_op(dv_opcode opc, dv_dtype dt, uint64_t r0, uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4)
{
    dv_op op;
    memset(&op, 0, sizeof op);
    op.insn = unit_insn_new();
    op_insn(&op)->op = opc;
    op_insn(&op)->f[DV_F_DTYPE] = dt;
    op.r[0] = r0;
    op.r[1] = r1;
    op.r[2] = r2;
    op.r[3] = r3;
    op.r[4] = r4;
    return op;
}

uint32_t vt_ld(vt_env *e, uint64_t addr, unsigned size)
{
    uint8_t *p = vt_ub(e, addr);
    uint32_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

void vt_st(vt_env *e, uint64_t addr, unsigned size, uint32_t v)
{
    uint8_t *p = vt_ub(e, addr);
    for (unsigned i = 0; i < size; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t vt_lane(uint64_t base, unsigned blk, unsigned rep, unsigned size, unsigned r, unsigned i)
{
    unsigned per = 32 / size;
    return base + ((uint64_t)r * rep + (uint64_t)(i / per) * blk) * 32 + (uint64_t)(i % per) * size;
}
