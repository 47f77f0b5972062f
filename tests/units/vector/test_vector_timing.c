/* test_vector_timing.c - dv_vector_cycles against the formula of vector.c,
 * with the 910B numbers: head 10, tail 14, slope 1 (16-bit) / 2 (32-bit),
 * div slope 4, exp head/tail 13/18, reduce extra 22, count extra 16; UB of
 * 48 banks in 16 groups of 32-byte rows, so for a block at row n
 * (= address/32): bank = n % 48 and group = bank % 16 = n % 16. */
#include "vt_env.h"

/* Conflict-free placement for dense f16/f32 operands:
 *  src0 at row 0: repeat r reads rows 8r..8r+7 (groups 8r%16 .. +7, banks 8r%48 .. +7);
 *  src1 at row 1608 (bank 24, group 8): rows 1608+8r.., the other 8 groups, banks (24+8r)%48 ..;
 *  dst at row 3376 (bank 16): repeat r-1 wrote banks (8+8r)%48 .. +7, disjoint from both.
 * So every repeat costs one port cycle: no extra. */
enum { A = 0, B = 1608 * 32, D = 3376 * 32 };

static uint64_t cyc(vt_env *e, dv_op op, bool b2b, dv_op_stats *st)
{
    return dv_vector_cycles(&e->c, &op, b2b, st);
}

START_TEST(vadd_formula)
{
    vt_env e;
    vt_init(&e);
    dv_op_stats st;
    dv_op op = vt_op(DV_OP_VADD, DV_DT_F16, D, A, B, vt_vrep_dense(10), 0);
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 10 * 1 + 14); /* head + R*slope + tail */
    ck_assert_uint_eq(st.repeats, 10);
    ck_assert_uint_eq(st.elem_ops, 1280);
    ck_assert_uint_eq(st.ub_group_conflict_cycles + st.ub_bank_conflict_cycles, 0);
    ck_assert_int_eq(st.path, DV_PATH_NONE);
    ck_assert_uint_eq(cyc(&e, op, true, &st), 10 * 1); /* back to back: R*slope */
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F32;
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 10 * 2 + 14);
    ck_assert_uint_eq(st.elem_ops, 640);
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F16;
    op.r[3] = vt_vrep_dense(0);
    ck_assert_uint_eq(cyc(&e, op, false, &st), 24);
    vt_free(&e);
}
END_TEST

START_TEST(classes)
{
    vt_env e;
    vt_init(&e);
    dv_op_stats st;
    dv_op op = vt_op(DV_OP_VEXP, DV_DT_F16, D, A, vt_vrep_dense(2), 0, 0);
    ck_assert_uint_eq(cyc(&e, op, false, &st), 13 + 2 + 18);
    op = vt_op(DV_OP_VCADD, DV_DT_F16, D, A, vt_vrep_dense(1), 0, 0);
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 22 + 1 + 14);
    ck_assert_uint_eq(cyc(&e, op, true, &st), 1);
    op = vt_op(DV_OP_VDIV, DV_DT_F16, D, A, B, vt_vrep_dense(3), 0);
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 3 * 4 + 14);
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F32;
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 3 * 4 + 14);
    op = vt_op(DV_OP_VCONV, DV_DT_F16, D, A, vt_vrep(1, 1, 1, 0, 4, 8, 0), 0, 0);
    op_insn(&op)->f[DV_F_FROM] = DV_DT_F32;
    op_insn(&op)->f[DV_F_TO] = DV_DT_F16;
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 2 + 14); /* the wider type sets the slope */
    op_insn(&op)->f[DV_F_FROM] = DV_DT_S16;
    op_insn(&op)->f[DV_F_TO] = DV_DT_S8;
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 1 + 14);
    op = vt_op(DV_OP_VTRANS, DV_DT_F16, D, A, 0, 0, 0);
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 2 + 14); /* two 256-byte repeats */
    op = vt_op(DV_OP_SET_MASK, DV_DT_F16, 1, 2, 0, 0, 0);
    ck_assert_uint_eq(cyc(&e, op, false, &st), 1);
    op = vt_op(DV_OP_SET_MASK_MODE, DV_DT_F16, 0, 0, 0, 0, 0);
    ck_assert_uint_eq(cyc(&e, op, false, &st), 1);
    vt_free(&e);
}
END_TEST

START_TEST(masks_and_count_mode)
{
    vt_env e;
    vt_init(&e);
    dv_op_stats st;
    dv_op op = vt_op(DV_OP_VADD, DV_DT_F16, D, A, B, vt_vrep_dense(3), 0);
    e.vec.mask_lo = 0x1f;
    e.vec.mask_hi = 1;
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 3 + 14);
    ck_assert_uint_eq(st.elem_ops, 6 * 3);
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F32;
    e.vec.mask_hi = ~0ull; /* not used by 32-bit lanes */
    cyc(&e, op, false, &st);
    ck_assert_uint_eq(st.elem_ops, 5 * 3);
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F16;
    e.vec.mode = DV_MASK_COUNT_MODE;
    e.vec.mask_lo = 37;
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 3 + 14 + 16);
    ck_assert_uint_eq(st.elem_ops, 37 * 3);
    e.vec.mask_lo = 200;
    cyc(&e, op, true, &st);
    ck_assert_uint_eq(st.elem_ops, 128 * 3);
    ck_assert_uint_eq(cyc(&e, op, true, &st), 3 + 16);
    vt_free(&e);
}
END_TEST

START_TEST(bank_conflicts)
{
    vt_env e;
    vt_init(&e);
    dv_op_stats st;
    /* src1 at row 16 (bank 16, group 0): repeat r reads src0 rows 8r.. and
     * src1 rows 16+8r.., the same 8 groups twice -> 2 port cycles per repeat,
     * 1 more than the slope: 10 repeats cost 10 extra cycles.  Writes (banks
     * (8+8r)%48..) still hit no bank that is read. */
    dv_op op = vt_op(DV_OP_VADD, DV_DT_F16, D, A, 16 * 32, vt_vrep_dense(10), 0);
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 10 + 14 + 10);
    ck_assert_uint_eq(st.ub_group_conflict_cycles, 10);
    ck_assert_uint_eq(st.ub_bank_conflict_cycles, 0);
    ck_assert_uint_eq(cyc(&e, op, true, &st), 10 + 10);
    /* f32 has a slope of 2: the 2-cycle repeat hides the conflict. */
    op_insn(&op)->f[DV_F_DTYPE] = DV_DT_F32;
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 20 + 14);
    ck_assert_uint_eq(st.ub_group_conflict_cycles, 0);
    /* src0 and src1 on the same rows (stride 0 re-reads): one access per row. */
    op = vt_op(DV_OP_VADD, DV_DT_F16, D, A, A, vt_vrep_dense(4), 0);
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 4 + 14);
    /* dst at row 3368 (bank 8): repeat r-1 wrote banks 8r%48 .. +7, exactly
     * the banks src0 reads in repeat r.  Each of those 8 banks then serves 2
     * rows (one read, one write) while the group ports need 1 cycle; banks
     * work in parallel, so the repeat takes 2 cycles: 1 over the slope.
     * Repeat 0 has no previous writes: R=3 costs 2 extra. */
    op = vt_op(DV_OP_VADD, DV_DT_F16, 3368 * 32, A, B, vt_vrep_dense(3), 0);
    ck_assert_uint_eq(cyc(&e, op, false, &st), 10 + 3 + 14 + 2);
    ck_assert_uint_eq(st.ub_bank_conflict_cycles, 2);
    ck_assert_uint_eq(st.ub_group_conflict_cycles, 0);
    vt_free(&e);
}
END_TEST

TCase *vt_timing_tcase(void)
{
    TCase *tc = tcase_create("timing");
    tcase_add_test(tc, vadd_formula);
    tcase_add_test(tc, classes);
    tcase_add_test(tc, masks_and_count_mode);
    tcase_add_test(tc, bank_conflicts);
    return tc;
}
