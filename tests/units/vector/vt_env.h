/* vt_env.h - a hand-built Vector unit context for the tests: the 910B config,
 * a UB, a mask state, and helpers to pack instructions and read/write UB. */
#ifndef VT_ENV_H
#define VT_ENV_H

#include "../unit_insn.h"
#include "dv_fp.h"
#include "dv_unit.h"

#include <check.h>
#include <stdint.h>

typedef struct vt_env {
    dv_chip_config cfg;
    dv_mem mem[DV_MEM_KIND_COUNT];
    dv_vec_state vec;
    dv_unit_ctx c;
    uint32_t seed; /* per-test random stream */
} vt_env;

void vt_init(vt_env *e);
void vt_free(vt_env *e);
uint8_t *vt_ub(vt_env *e, uint64_t addr);
uint32_t vt_rand(vt_env *e);
/* A random finite f16 in about [-8, 8]. */
uint16_t vt_rand_f16(vt_env *e);

uint64_t vt_vrep(unsigned repeat, unsigned dblk, unsigned s0blk, unsigned s1blk, unsigned drep,
                 unsigned s0rep, unsigned s1rep);
/* Contiguous operands: block stride 1, repeat stride 8. */
uint64_t vt_vrep_dense(unsigned repeat);
dv_op vt_op(dv_opcode opc, dv_dtype dt, uint64_t r0, uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4);

uint32_t vt_ld(vt_env *e, uint64_t addr, unsigned size);
void vt_st(vt_env *e, uint64_t addr, unsigned size, uint32_t v);
/* Address of lane i of repeat r of a strided operand (the spec's formula). */
uint64_t vt_lane(uint64_t base, unsigned blk, unsigned rep, unsigned size, unsigned r, unsigned i);

TCase *vt_conv_tcase(void);
TCase *vt_timing_tcase(void);

#endif
