/* xt_env.c - fixture of the xfer tests and their main(). */
#include "xt.h"

#include <stdlib.h>
#include <string.h>

void xt_open(xt_env *e, const char *chip)
{
    memset(e, 0, sizeof *e);
    dv_error err;
    ck_assert_int_eq(dv_config_builtin(chip, &e->cfg, &err), DV_OK);
    const dv_chip_config *c = &e->cfg;
    struct {
        dv_mem_kind k;
        uint64_t size, align;
    } b[] = {{DV_MEM_L1, c->l1_bytes, c->align_l1},
             {DV_MEM_L0A, c->l0a_bytes, c->align_l0ab},
             {DV_MEM_L0B, c->l0b_bytes, c->align_l0ab},
             {DV_MEM_L0C, c->l0c_bytes, c->align_l0c},
             {DV_MEM_UB, c->ub_bytes, c->align_ub}};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        ck_assert_int_eq(dv_mem_init(&e->mem[b[i].k], b[i].k, b[i].size, b[i].align, &err), DV_OK);
    e->gm = dv_gm_create(c->gm_bytes);
    ck_assert_ptr_nonnull(e->gm);
    e->ctx = (dv_unit_ctx){
        .cfg = &e->cfg, .mem = e->mem, .gm = e->gm, .vec = &e->vec, .fmatrix = &e->fmatrix, .data = true};
}

void xt_close(xt_env *e)
{
    for (int k = 0; k < DV_MEM_KIND_COUNT; k++)
        if (k != DV_MEM_GM && e->mem[k].bytes)
            dv_mem_free(&e->mem[k]);
    dv_gm_destroy(e->gm);
    free(e->ctx.scratch); /* the units' working memory (dv_unit_scratch) */
}

uint64_t xt_gm_alloc(xt_env *e, uint64_t len)
{
    uint64_t a = 0;
    dv_error err;
    ck_assert_int_eq(dv_gm_alloc(e->gm, len, &a, &err), DV_OK);
    return a;
}

uint8_t *xt_ptr(xt_env *e, dv_mem_kind kind, uint64_t addr, uint64_t len)
{
    dv_access_fault f;
    uint8_t *p =
        kind == DV_MEM_GM ? dv_gm_span(e->gm, addr, len, &f) : dv_mem_span(&e->mem[kind], addr, len, 1, &f);
    ck_assert_ptr_nonnull(p);
    return p;
}

dv_op xt_op(dv_opcode opc, uint64_t r0, uint64_t r1, uint64_t r2, uint64_t r3)
{
    dv_op op;
    memset(&op, 0, sizeof op);
    op.insn = unit_insn_new();
    op_insn(&op)->op = opc;
    op.r[0] = r0;
    op.r[1] = r1;
    op.r[2] = r2;
    op.r[3] = r3;
    return op;
}

uint64_t xt_pack(dv_layout_id id, const uint64_t *vals, unsigned n)
{
    const dv_layout *l = dv_layout_get(id);
    ck_assert_uint_le(n, l->nfields);
    uint64_t w = 0;
    for (unsigned i = 0; i < n; i++) {
        ck_assert_uint_lt(vals[i], 1ull << l->fields[i].width);
        w |= vals[i] << l->fields[i].lo;
    }
    return w;
}

void xt_put(uint8_t *p, unsigned size, uint32_t v)
{
    for (unsigned i = 0; i < size; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

uint32_t xt_get(const uint8_t *p, unsigned size)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

int main(void)
{
    SRunner *sr = srunner_create(xt_suite_cube());
    srunner_add_suite(sr, xt_suite_mte());
    srunner_add_suite(sr, xt_suite_fixp());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
