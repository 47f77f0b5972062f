/* xt.h - shared fixture of the xfer unit tests: a hand-built core context
 * (all buffers, a GM) and host-side layout helpers. */
#ifndef XT_H
#define XT_H

#include "../unit_insn.h"
#include "dv_config.h"
#include "dv_unit.h"

#include <check.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct xt_env {
    dv_chip_config cfg;
    dv_mem mem[DV_MEM_KIND_COUNT];
    dv_gm *gm;
    dv_vec_state vec;
    uint64_t fmatrix;
    dv_unit_ctx ctx;
} xt_env;

/* chip: "ascend910" or "ascend910b".  Aborts the test on failure. */
void xt_open(xt_env *e, const char *chip);
void xt_close(xt_env *e);
uint64_t xt_gm_alloc(xt_env *e, uint64_t len);
uint8_t *xt_ptr(xt_env *e, dv_mem_kind kind, uint64_t addr, uint64_t len);

/* A decoded op with register values. */
dv_op xt_op(dv_opcode opc, uint64_t r0, uint64_t r1, uint64_t r2, uint64_t r3);
/* Packs a layout from field values in isa_params.def order. */
uint64_t xt_pack(dv_layout_id id, const uint64_t *vals, unsigned n);

/* Element-type byte access (little-endian). */
void xt_put(uint8_t *p, unsigned size, uint32_t v);
uint32_t xt_get(const uint8_t *p, unsigned size);

Suite *xt_suite_cube(void);
Suite *xt_suite_mte(void);
Suite *xt_suite_fixp(void);

#endif
