/* test_asm_blocks.c - what kernels are written with: .rept and .irp (with
 * \+), .if/.ifc/.ifnc/.ifb/.ifnb/.else/.endif, macro parameters with
 * defaults, calls written name(args), \() to end a name, pack with register
 * fields, and the line table and diagnostics of macro expansions (the call
 * and the macro line). */
#include "dv_asm.h"
#include "dv_isa.h"
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The decoded instruction at word i of o. */
static dv_insn insn_at(const dv_obj *o, size_t i)
{
    dv_insn in;
    ck_assert_int_eq(dv_isa_decode(obj_word(o, i), &in, NULL), DV_OK);
    return in;
}

START_TEST(test_rept_irp)
{
    dv_obj *o = ASM_OK(".rept 3\n  addi x1, x1, 1\n.endr\n"
                       ".irp r, 5, 6, 7\n  addi x\\r, x0, \\+\n.endr\n"
                       ".rept 0\n  frob\n.endr\n"
                       ".rept 2\n.irp k, 1, 2\n  addi x9, x9, \\k\n.endr\n.endr\n");
    ck_assert_uint_eq(o->text_size / 8, 3 + 3 + 4);
    for (size_t i = 0; i < 3; i++)
        ck_assert_int_eq(insn_at(o, i).f[DV_F_IMM], 1);
    for (int r = 0; r < 3; r++) {
        dv_insn in = insn_at(o, 3 + (size_t)r);
        ck_assert_int_eq(in.f[DV_F_R0], 5 + r);
        ck_assert_int_eq(in.f[DV_F_IMM], r); /* \+ counts the iterations */
    }
    ck_assert_int_eq(insn_at(o, 6).f[DV_F_IMM], 1);
    ck_assert_int_eq(insn_at(o, 7).f[DV_F_IMM], 2);
    ck_assert_int_eq(insn_at(o, 9).f[DV_F_IMM], 2);
    dv_obj_destroy(o);
    /* \+ is the innermost block's iteration; the outer one's is \+ in the
     * lines outside the inner block (the inner header included) */
    o = ASM_OK(".rept 2\n  addi x2, x0, \\+\n.rept \\+ + 2\n  addi x1, x0, \\+\n.endr\n.endr\n"
               ".irp o, 0, 1\n.rept 2\nl\\o\\()_\\+:\n  bne x1, x0, l\\o\\()_\\+\n.endr\n.endr\n");
    static const int64_t want[] = {0, 0, 1, 1, 0, 1, 2};
    ck_assert_uint_eq(o->text_size / 8, 7 + 4);
    for (size_t i = 0; i < 7; i++)
        ck_assert_int_eq(insn_at(o, i).f[DV_F_IMM], want[i]);
    ck_assert_int_eq(insn_at(o, 0).f[DV_F_R0], 2);
    ck_assert_int_eq(insn_at(o, 3).f[DV_F_R0], 2);
    dv_obj_destroy(o);
    /* an .irp value that holds its own expansion grows past the line limit:
     * the copy stops there, as a macro's does */
    char src[8192];
    int len = snprintf(src, sizeof src, ".irp a, %0500d\n.irp b", 0);
    for (int i = 0; i < 4; i++) /* 4 x 1000 characters */
        len += snprintf(src + len, sizeof src - (size_t)len, ", \\a\\a");
    snprintf(src + len, sizeof src - (size_t)len, "\n.ifb \\b\\b\\b\\b\\b\n.endif\n.endr\n.endr\n");
    EXPECT_ASM_ERROR(src, "t.dvs:3:1:", ".irp expands to a line longer than 4096");
}
END_TEST

START_TEST(test_conditionals)
{
    dv_obj *o = ASM_OK(".macro op kind, n=2\n"
                       ".ifc \\kind, binary\n  addi x1, x0, 1\n.else\n  addi x1, x0, 2\n.endif\n"
                       ".ifnc \\kind, binary\n  addi x2, x0, 3\n.endif\n"
                       ".if \\n - 2\n  addi x3, x0, \\n\n.endif\n"
                       ".endm\n"
                       "op binary\n"   /* x1=1 */
                       "op unary, 5\n" /* x1=2, x2=3, x3=5 */
                       ".ifb\n  addi x4, x0, 4\n.endif\n"
                       ".ifnb x\n  addi x5, x0, 5\n.endif\n");
    ck_assert_uint_eq(o->text_size / 8, 1 + 3 + 2);
    ck_assert_int_eq(insn_at(o, 0).f[DV_F_IMM], 1);
    ck_assert_int_eq(insn_at(o, 1).f[DV_F_IMM], 2);
    ck_assert_int_eq(insn_at(o, 2).f[DV_F_IMM], 3);
    ck_assert_int_eq(insn_at(o, 3).f[DV_F_IMM], 5);
    ck_assert_int_eq(insn_at(o, 4).f[DV_F_R0], 4);
    ck_assert_int_eq(insn_at(o, 5).f[DV_F_R0], 5);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_defaults_parens_and_names)
{
    dv_obj *o = ASM_OK(".macro k name, t=f16\n.kernel \\name\\()_\\t\n  end\n.endm\n"
                       "k(add)\n"
                       "k mul, f32\n"
                       ".macro two a, b=7\n  addi \\a, x0, \\b\n.endm\n"
                       ".kernel last\n two(x1, 3)\n two x2\n two x3,\n end\n");
    ck_assert_ptr_nonnull(dv_obj_find_kernel(o, "add_f16"));
    ck_assert_ptr_nonnull(dv_obj_find_kernel(o, "mul_f32"));
    ck_assert_int_eq(insn_at(o, 2).f[DV_F_IMM], 3);
    ck_assert_int_eq(insn_at(o, 3).f[DV_F_IMM], 7);
    ck_assert_int_eq(insn_at(o, 4).f[DV_F_IMM], 7); /* an empty argument takes the default */
    dv_obj_destroy(o);
    /* parenthesised arguments: the outer parentheses of name(args) go only
     * when they match each other */
    o = ASM_OK(".macro two a, b\n  addi x1, x0, \\a\n  addi x2, x0, \\b\n.endm\n"
               ".kernel k\n two (1+2), (3+4)\n two((1+2)*2, (3+4))\n two (5), 6\n end\n");
    static const int64_t want[] = {3, 7, 6, 7, 5, 6};
    for (size_t i = 0; i < 6; i++)
        ck_assert_int_eq(insn_at(o, i).f[DV_F_IMM], want[i]);
    dv_obj_destroy(o);
    /* an .irp inside a macro: the macro keeps the .irp's \pl\() for it, so
     * each copy has its own label, and the macro's own \name\() still ends
     * its name */
    o = ASM_OK(".kernel k\n.macro m name\n.irp pl, 0, 1\nh\\pl\\()_\\@:\n  addi x1, x1, \\pl\n"
               "  bne x1, x0, h\\pl\\()_\\@\n.endr\n  j \\name\\()_x\n\\name\\()_x:\n.endm\n m lab\n end\n");
    ck_assert_uint_eq(o->text_size / 8, 6);
    ck_assert_int_eq(insn_at(o, 1).f[DV_F_TARGET], -8); /* to h0_0 */
    ck_assert_int_eq(insn_at(o, 3).f[DV_F_TARGET], -8); /* to h1_0, not h0_0 */
    ck_assert_int_eq(insn_at(o, 4).f[DV_F_TARGET], 8);  /* to lab_x */
    dv_obj_destroy(o);
}
END_TEST

/* pack with register fields: the words it builds, checked by evaluating
 * the emitted shifts and ors (a tiny interpreter of those opcodes) on
 * registers x. */
static void interpret(const dv_obj *o, uint64_t *x)
{
    for (size_t i = 0; i < o->text_size / 8; i++) {
        dv_insn in = insn_at(o, i);
        uint64_t a = x[in.f[DV_F_R1]], b = x[in.f[DV_F_R2]], imm = (uint64_t)in.f[DV_F_IMM], r;
        switch (in.op) {
        case DV_OP_SLLI: r = a << (imm & 63); break;
        case DV_OP_OR: r = a | b; break;
        case DV_OP_ORI: r = a | imm; break;
        case DV_OP_ADDI: r = a + imm; break;
        case DV_OP_LI: r = (uint64_t)(int64_t)(int32_t)imm; break;
        case DV_OP_LIH: r = (x[in.f[DV_F_R0]] & 0xffffffffull) | ((uint64_t)in.f[DV_F_UIMM] << 32); break;
        default: ck_abort_msg("pack emitted opcode 0x%x", (unsigned)in.op); r = 0;
        }
        x[in.f[DV_F_R0]] = r;
    }
}

static uint64_t run_pack(const char *src, uint64_t x5, uint64_t x6, uint64_t x7, int rd)
{
    dv_obj *o = ASM_OK(src);
    uint64_t x[32] = {0};
    x[5] = x5, x[6] = x6, x[7] = x7;
    interpret(o, x);
    dv_obj_destroy(o);
    return x[rd];
}

START_TEST(test_pack_registers)
{
    const dv_layout *mm = dv_layout_get(DV_LAYOUT_MMAD);
    uint64_t w = run_pack("pack.mmad x8, m=x5, k=x6, n=x7\n", 3, 64, 16, 8);
    ck_assert_uint_eq(dv_layout_extract(mm, w, "m"), 3);
    ck_assert_uint_eq(dv_layout_extract(mm, w, "k"), 64);
    ck_assert_uint_eq(dv_layout_extract(mm, w, "n"), 16);
    /* mixed with constants, fields in any order */
    w = run_pack("pack.mmad x8, n=x7, m=5, k=x6\n", 0, 48, 32, 8);
    ck_assert_uint_eq(w, 5 | 48 << 12 | 32ull << 24);
    /* a constant part wider than ori's immediate needs tmp= or base= */
    const char *vrep =
        "pack.vrep x9, repeat=x5, dstblk=1, src0blk=1, src1blk=1, dstrep=8, src0rep=8, src1rep=8, tmp=x11\n";
    uint64_t want =
        run_pack("pack.vrep x9, repeat=7, dstblk=1, src0blk=1, src1blk=1, dstrep=8, src0rep=8, src1rep=8\n",
                 0, 0, 0, 9);
    ck_assert_uint_eq(run_pack(vrep, 7, 0, 0, 9), want);
    ck_assert_uint_eq(
        run_pack("pack.vrep x6, dstblk=1, src0blk=1, src1blk=1, dstrep=8, src0rep=8, src1rep=8\n"
                 "pack.vrep x9, repeat=x5, base=x6\n",
                 7, 0, 0, 9),
        want);
    /* the burst of one tile: nburst=1, len=x5 (ori folds the constant) */
    ck_assert_uint_eq(run_pack("pack.burst x8, nburst=1, len=x5\n", 40, 0, 0, 8), 1 | 40 << 12);
    EXPECT_ASM_ERROR("pack.vrep x9, repeat=x5, dstrep=8\n", "tmp=");
    EXPECT_ASM_ERROR("pack.mmad x5, m=x5, k=x6\n", "rd is also the value of field m");
    /* tmp may not be a register the pack reads: li tmp would overwrite it
     * (both computed 0x100000001000 | x6 wrongly) */
    EXPECT_ASM_ERROR("pack.burst x5, nburst=x6, len=1, dstgap=1, base=x7, tmp=x7\n",
                     "tmp= must differ from base=");
    EXPECT_ASM_ERROR("pack.burst x5, nburst=x6, len=1, dstgap=1, tmp=x6\n", "tmp= must differ",
                     "field nburst");
    EXPECT_ASM_ERROR("pack.vrep x9, base=x6, dstrep=8, src0rep=8, tmp=x6\n", "tmp= must differ from base=");
    ck_assert_uint_eq(run_pack("pack.burst x8, nburst=x6, len=1, dstgap=1, base=x7, tmp=x5\n", 0, 3, 0x40, 8),
                      3 | 1 << 12 | 1ull << 44 | 0x40);
}
END_TEST

/* Every way of naming x5-x8 as rd, as the fields of a burst (or giving a
 * field a constant; dstgap's is beyond ori's 31 bits), as base= and tmp=:
 * the pack is rejected, or it leaves the right word in rd.  With rd, base,
 * tmp and the field registers all different and tmp given, it assembles. */
START_TEST(test_pack_aliasing)
{
    static const char *const key[3] = {"nburst", "len", "dstgap"};
    static const unsigned lo[3] = {0, 12, 44};
    static const uint64_t constant[3] = {1, 2, 1}, init[5] = {0, 3, 5, 9, 17}; /* x5..x8 */
    const dv_asm_options opt = {NULL, 0, 1};
    unsigned accepted = 0;
    for (unsigned choice = 0; choice < 5 * 5 * 5 * 5 * 5 * 4; choice++) {
        unsigned c = choice, field[3], base, tmp, rd;
        for (int f = 0; f < 3; f++)
            field[f] = c % 5, c /= 5; /* 0: the constant, else x(4 + n) */
        base = c % 5, c /= 5;
        tmp = c % 5, c /= 5;
        rd = 1 + c;
        char src[200];
        int len = snprintf(src, sizeof src, "pack.burst x%u", 4 + rd);
        uint64_t want = base ? init[base] : 0;
        unsigned used = 1u << rd, clash = 0;
        for (int f = 0; f < 3; f++) {
            if (field[f])
                len += snprintf(src + len, sizeof src - (size_t)len, ", %s=x%u", key[f], 4 + field[f]);
            else
                len += snprintf(src + len, sizeof src - (size_t)len, ", %s=%llu", key[f],
                                (unsigned long long)constant[f]);
            want |= (field[f] ? init[field[f]] : constant[f]) << lo[f];
            clash |= field[f] && (used & 1u << field[f]), used |= field[f] ? 1u << field[f] : 0;
        }
        if (base)
            len += snprintf(src + len, sizeof src - (size_t)len, ", base=x%u", 4 + base);
        if (tmp)
            len += snprintf(src + len, sizeof src - (size_t)len, ", tmp=x%u", 4 + tmp);
        clash |= (base && (used & 1u << base)) || (tmp && ((used | (base ? 1u << base : 0)) & 1u << tmp));
        snprintf(src + len, sizeof src - (size_t)len, "\n");
        asm_run r = asm_text("t.dvs", src, strlen(src), &opt);
        if (r.st == DV_OK) {
            uint64_t x[32] = {0};
            for (unsigned k = 1; k <= 4; k++)
                x[4 + k] = init[k];
            interpret(r.obj, x);
            CHECK(x[4 + rd] == want, "%s leaves 0x%llx in x%u, want 0x%llx", src,
                  (unsigned long long)x[4 + rd], 4 + rd, (unsigned long long)want);
            accepted++;
        } else {
            CHECK(clash || !tmp, "%s rejected: %s", src, r.diags.count ? r.diags.lines[0] : r.err.msg);
        }
        asm_run_free(&r);
    }
    ck_assert_uint_gt(accepted, 0);
}
END_TEST

/* A macro's statements: the line table keeps the macro line and the call;
 * errors and dv_obj_source_of name the call first. */
START_TEST(test_macro_call_sites)
{
    dv_obj *o = ASM_OK(".macro inner\n  nop\n.endm\n"          /* lines 1-3 */
                       ".macro outer\n  inner\n  nop\n.endm\n" /* 4-7 */
                       "  nop\n"                               /* 8 */
                       "  outer\n");                           /* 9 */
    ck_assert_uint_eq(o->nlines, 3);
    ck_assert_uint_eq(o->lines[0].line, 8);
    ck_assert_uint_eq(o->lines[0].call_line, 0);
    ck_assert_uint_eq(o->lines[1].line, 2); /* inner's nop */
    ck_assert_uint_eq(o->lines[1].call_line, 9);
    ck_assert_uint_eq(o->lines[2].line, 6); /* outer's nop */
    ck_assert_uint_eq(o->lines[2].call_line, 9);
    char buf[128];
    ck_assert_str_eq(dv_obj_source_of(o, 8, buf, sizeof buf), "t.dvs:9 (in macro at t.dvs:2)");
    ck_assert_str_eq(dv_obj_source_of(o, 0, buf, sizeof buf), "t.dvs:8");
    ck_assert_str_eq(dv_obj_line_format(o, &o->lines[1], buf, sizeof buf), "t.dvs:9 (in macro at t.dvs:2)");
    ck_assert_str_eq(dv_obj_line_format(o, NULL, buf, sizeof buf), "no source line");
    /* the call sites survive the ELF round trip */
    uint8_t *elf;
    size_t size;
    ck_assert_int_eq(dv_obj_write_elf(o, &elf, &size, NULL), DV_OK);
    dv_obj *back;
    ck_assert_int_eq(dv_obj_read_elf(elf, size, &back, NULL), DV_OK);
    ck_assert_uint_eq(back->lines[2].call_line, 9);
    ck_assert_str_eq(dv_obj_source_of(back, 8, buf, sizeof buf), "t.dvs:9 (in macro at t.dvs:2)");
    free(elf);
    dv_obj_destroy(back);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_block_errors)
{
    EXPECT_ASM_ERROR(".rept 2\nnop\n", "without .endr");
    EXPECT_ASM_ERROR(".ifc a, b\nnop\n", "without .endif");
    EXPECT_ASM_ERROR(".endr\n", "without its opening");
    EXPECT_ASM_ERROR(".ifc a\n.endif\n", "two strings");
    EXPECT_ASM_ERROR(".rept foo\n.endr\n", "constant");
    EXPECT_ASM_ERROR(".rept 70000\n.endr\n", "0 to");
    EXPECT_ASM_ERROR(".irp\n.endr\n", "needs a name");
    EXPECT_ASM_ERROR(".irp , 1, 2\n nop\n.endr\n", "needs a name");
    EXPECT_ASM_ERROR(".macro m a=1, b\n.endm\n", "needs one");
    EXPECT_ASM_ERROR(".macro m a, b=1\n.endm\nm\n", "takes 1 to 2 arguments");
    /* an error in a .rept inside a macro names the call */
    EXPECT_ASM_ERROR(".macro m\n.rept 1\n frob\n.endr\n.endm\n m\n", "t.dvs:6:2:", "in macro at t.dvs:3:2");
}
END_TEST

Suite *asm_blocks_suite(void)
{
    Suite *s = suite_create("asm-blocks");
    TCase *tc = tcase_create("blocks");
    tcase_add_test(tc, test_rept_irp);
    tcase_add_test(tc, test_conditionals);
    tcase_add_test(tc, test_defaults_parens_and_names);
    tcase_add_test(tc, test_pack_registers);
    tcase_add_test(tc, test_pack_aliasing);
    tcase_add_test(tc, test_macro_call_sites);
    tcase_add_test(tc, test_block_errors);
    suite_add_tcase(s, tc);
    return s;
}
