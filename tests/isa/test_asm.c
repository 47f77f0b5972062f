/* test_asm.c - the assembler: every operand form, pseudo-instruction and
 * expression produces the expected words and values.  Directives, macros,
 * kernels and files are in test_asm_directives.c, the error classes in
 * test_asm_errors.c; this file's main runs all three. */
#include "dv_asm.h"
#include "dv_isa.h"
#include "dv_obj.h"
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- instructions and operand forms ---- */

START_TEST(test_register_forms)
{
    dv_obj *o = ASM_OK("add x1, x2, x3\n"
                       "sub zero, ra, sp\n"
                       "mul a0, a15, x31\n"
                       "addi x5, x6, -42\n"
                       "slli x5, x6, 0x3f\n"
                       "lih x9, 0xffffffff\n"
                       "jalr x1, x2, 16\n"
                       "nop\n"
                       "end\n");
    ck_assert_uint_eq(nwords(o), 9);
    EXPECT_INSN(o, 0, DV_OP_ADD, DV_F_R0, 1, DV_F_R1, 2, DV_F_R2, 3, END);
    EXPECT_INSN(o, 1, DV_OP_SUB, DV_F_R0, 0, DV_F_R1, 1, DV_F_R2, 2, END);
    EXPECT_INSN(o, 2, DV_OP_MUL, DV_F_R0, 10, DV_F_R1, 25, DV_F_R2, 31, END);
    EXPECT_INSN(o, 3, DV_OP_ADDI, DV_F_R0, 5, DV_F_R1, 6, DV_F_IMM, -42, END);
    EXPECT_INSN(o, 4, DV_OP_SLLI, DV_F_R0, 5, DV_F_R1, 6, DV_F_IMM, 63, END);
    EXPECT_INSN(o, 5, DV_OP_LIH, DV_F_R0, 9, DV_F_UIMM, 0xffffffff, END);
    EXPECT_INSN(o, 6, DV_OP_JALR, DV_F_R0, 1, DV_F_R1, 2, DV_F_IMM, 16, END);
    EXPECT_INSN(o, 7, DV_OP_NOP, END);
    EXPECT_INSN(o, 8, DV_OP_END, END);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_memory_operands)
{
    dv_obj *o = ASM_OK(".equ OFF, 16\n"
                       "lw x1, 8(x2), space=ub\n"
                       "sd x3, -16(sp)\n"
                       "lbu x4, (x5)\n"
                       "lh x6, OFF + 4 (x7), space=l1\n"
                       "sb x8, (OFF * 2)(x9), space=sdata\n"
                       "ld x1, -0x80000000(x2)\n"
                       "lwu x1, space=gm, 0(x2)\n");
    EXPECT_INSN(o, 0, DV_OP_LW, DV_F_R0, 1, DV_F_R1, 2, DV_F_IMM, 8, DV_F_SPACE, DV_SPACE_UB, END);
    EXPECT_INSN(o, 1, DV_OP_SD, DV_F_R0, 3, DV_F_R1, 2, DV_F_IMM, -16, END);
    EXPECT_INSN(o, 2, DV_OP_LBU, DV_F_R0, 4, DV_F_R1, 5, END);
    EXPECT_INSN(o, 3, DV_OP_LH, DV_F_R0, 6, DV_F_R1, 7, DV_F_IMM, 20, DV_F_SPACE, DV_SPACE_L1, END);
    EXPECT_INSN(o, 4, DV_OP_SB, DV_F_R0, 8, DV_F_R1, 9, DV_F_IMM, 32, DV_F_SPACE, DV_SPACE_SDATA, END);
    EXPECT_INSN(o, 5, DV_OP_LD, DV_F_R0, 1, DV_F_R1, 2, DV_F_IMM, INT32_MIN, END);
    EXPECT_INSN(o, 6, DV_OP_LWU, DV_F_R0, 1, DV_F_R1, 2, END);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_tensor_fields)
{
    dv_obj *o = ASM_OK("vadd x1, x2, x3, x4\n"
                       "vmul x1, x2, x3, x4, dtype=f32\n"
                       "vcmp x1, x2, x3, x4, cmp=ge, dtype=s32\n"
                       "vconv x1, x2, x3, to=f16, from=f32, round=rna\n"
                       "fixp x1, x2, x3, x4, out=l1, quant=vreq, relu=1, nz2nd=1\n"
                       "mmad x1, x2, x3, x4, dtype=s8, init=1\n"
                       "load2d_l0b x1, x2, x3, transpose=1, dtype=bf16\n"
                       "vsel x1, x2, x3, x4, x5, dtype=u16\n"
                       "set_mask_mode mode=count\n"
                       "set_flag src=mte2, dst=v, id=15\n"
                       "wait_flag dst=v, src=mte2, id=3\n"
                       "pipe_barrier pipe=all\n"
                       "cc_set_flag pipe=fix, mode=2, id=7\n"
                       "cc_wait_flag id=1, pipe=mte3\n"
                       "vexp dtype=f32, x1, x2, x3\n");
    EXPECT_INSN(o, 0, DV_OP_VADD, DV_F_R0, 1, DV_F_R1, 2, DV_F_R2, 3, DV_F_R3, 4, END);
    EXPECT_INSN(o, 1, DV_OP_VMUL, DV_F_R0, 1, DV_F_R1, 2, DV_F_R2, 3, DV_F_R3, 4, DV_F_DTYPE, DV_DT_F32, END);
    EXPECT_INSN(o, 2, DV_OP_VCMP, DV_F_R0, 1, DV_F_R1, 2, DV_F_R2, 3, DV_F_R3, 4, DV_F_CMP, DV_CMP_GE,
                DV_F_DTYPE, DV_DT_S32, END);
    EXPECT_INSN(o, 3, DV_OP_VCONV, DV_F_R0, 1, DV_F_R1, 2, DV_F_R2, 3, DV_F_FROM, DV_DT_F32, DV_F_TO,
                DV_DT_F16, DV_F_ROUND, DV_RND_RNA, END);
    EXPECT_INSN(o, 4, DV_OP_FIXP, DV_F_R0, 1, DV_F_R1, 2, DV_F_R2, 3, DV_F_R3, 4, DV_F_OUT, DV_OUT_L1,
                DV_F_QUANT, DV_Q_VREQ, DV_F_RELU, 1, DV_F_NZ2ND, 1, END);
    EXPECT_INSN(o, 5, DV_OP_MMAD, DV_F_R0, 1, DV_F_R1, 2, DV_F_R2, 3, DV_F_R3, 4, DV_F_DTYPE, DV_DT_S8,
                DV_F_INIT, 1, END);
    EXPECT_INSN(o, 6, DV_OP_LOAD2D_L0B, DV_F_R0, 1, DV_F_R1, 2, DV_F_R2, 3, DV_F_DTYPE, DV_DT_BF16,
                DV_F_TRANSPOSE, 1, END);
    EXPECT_INSN(o, 7, DV_OP_VSEL, DV_F_R0, 1, DV_F_R1, 2, DV_F_R2, 3, DV_F_R3, 4, DV_F_R4, 5, DV_F_DTYPE,
                DV_DT_U16, END);
    EXPECT_INSN(o, 8, DV_OP_SET_MASK_MODE, DV_F_MASKMODE, DV_MASK_COUNT_MODE, END);
    EXPECT_INSN(o, 9, DV_OP_SET_FLAG, DV_F_SRC, DV_PIPE_MTE2, DV_F_DST, DV_PIPE_V, DV_F_ID, 15, END);
    EXPECT_INSN(o, 10, DV_OP_WAIT_FLAG, DV_F_SRC, DV_PIPE_MTE2, DV_F_DST, DV_PIPE_V, DV_F_ID, 3, END);
    EXPECT_INSN(o, 11, DV_OP_PIPE_BARRIER, DV_F_PIPE, DV_PIPE_ALL, END);
    EXPECT_INSN(o, 12, DV_OP_CC_SET_FLAG, DV_F_PIPE, DV_PIPE_FIX, DV_F_CCMODE, 2, DV_F_ID, 7, END);
    EXPECT_INSN(o, 13, DV_OP_CC_WAIT_FLAG, DV_F_PIPE, DV_PIPE_MTE3, DV_F_ID, 1, END);
    /* a keyed field may come before the positional operands */
    EXPECT_INSN(o, 14, DV_OP_VEXP, DV_F_R0, 1, DV_F_R1, 2, DV_F_R2, 3, DV_F_DTYPE, DV_DT_F32, END);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_csr_operands)
{
    dv_obj *o = ASM_OK(".equ MYCSR, 0x101\n"
                       "csrr x1, cycle\n"
                       "csrr x2, 0x7ff\n"
                       "csrw pmcr, x3\n"
                       "csrw MYCSR, x4\n"
                       "csrr x5, blockidx\n");
    EXPECT_INSN(o, 0, DV_OP_CSRR, DV_F_R0, 1, DV_F_CSR, DV_CSR_CYCLE, END);
    EXPECT_INSN(o, 1, DV_OP_CSRR, DV_F_R0, 2, DV_F_CSR, 0x7ff, END);
    EXPECT_INSN(o, 2, DV_OP_CSRW, DV_F_CSR, DV_CSR_PMCR, DV_F_R1, 3, END);
    EXPECT_INSN(o, 3, DV_OP_CSRW, DV_F_CSR, 0x101, DV_F_R1, 4, END);
    EXPECT_INSN(o, 4, DV_OP_CSRR, DV_F_R0, 5, DV_F_CSR, DV_CSR_BLOCKIDX, END);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_pseudos)
{
    dv_obj *o = ASM_OK("start:\n"
                       "mv x1, x2\n"      /* 0 */
                       "not x3, x4\n"     /* 8 */
                       "neg x5, x6\n"     /* 16 */
                       "j start\n"        /* 24 */
                       "call fn\n"        /* 32 */
                       "ret\n"            /* 40 */
                       "beqz x7, start\n" /* 48 */
                       "bnez x8, fn\n"    /* 56 */
                       "bgt x1, x2, fn\n" /* 64 */
                       "ble x3, x4, fn\n" /* 72 */
                       "bgtu x5, x6, start\n"
                       "bleu x7, x8, start\n" /* 88 */
                       "fn: end\n");          /* 96 */
    ck_assert_uint_eq(nwords(o), 13);
    EXPECT_INSN(o, 0, DV_OP_ADDI, DV_F_R0, 1, DV_F_R1, 2, END);
    EXPECT_INSN(o, 1, DV_OP_XORI, DV_F_R0, 3, DV_F_R1, 4, DV_F_IMM, -1, END);
    EXPECT_INSN(o, 2, DV_OP_SUB, DV_F_R0, 5, DV_F_R1, 0, DV_F_R2, 6, END);
    EXPECT_INSN(o, 3, DV_OP_JAL, DV_F_R0, 0, DV_F_TARGET, -24, END);
    EXPECT_INSN(o, 4, DV_OP_JAL, DV_F_R0, 1, DV_F_TARGET, 64, END);
    EXPECT_INSN(o, 5, DV_OP_JALR, DV_F_R0, 0, DV_F_R1, 1, END);
    EXPECT_INSN(o, 6, DV_OP_BEQ, DV_F_R0, 7, DV_F_R1, 0, DV_F_TARGET, -48, END);
    EXPECT_INSN(o, 7, DV_OP_BNE, DV_F_R0, 8, DV_F_R1, 0, DV_F_TARGET, 40, END);
    /* bgt a, b == blt b, a */
    EXPECT_INSN(o, 8, DV_OP_BLT, DV_F_R0, 2, DV_F_R1, 1, DV_F_TARGET, 32, END);
    EXPECT_INSN(o, 9, DV_OP_BGE, DV_F_R0, 4, DV_F_R1, 3, DV_F_TARGET, 24, END);
    EXPECT_INSN(o, 10, DV_OP_BLTU, DV_F_R0, 6, DV_F_R1, 5, DV_F_TARGET, -80, END);
    EXPECT_INSN(o, 11, DV_OP_BGEU, DV_F_R0, 8, DV_F_R1, 7, DV_F_TARGET, -88, END);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_li)
{
    dv_obj *o = ASM_OK("here: li x1, 42\n"
                       "li x2, -1\n"
                       "li x3, 0x7fffffff\n"
                       "li x4, -0x80000000\n"
                       "li x5, 0x80000000\n"
                       "li x6, 0xffffffff\n"
                       "li x7, 0x123456789abcdef0\n"
                       "li x8, -0x80000001\n"
                       "li x9, 0x8000000000000000\n"
                       "li x10, 0xffffffffffffffff\n"
                       "li x11, LATER\n"
                       "li x12, -LATER * 0x10000\n"
                       "li x13, here + 8\n"
                       "li x14, there\n"
                       "there: li x15, 0x100000000\n"
                       ".equ LATER, 5\n"
                       "end\n");
    static const struct {
        int rd;
        uint64_t v;
        size_t words;
    } want[] = {
        {1, 42, 1},
        {2, ~0ull, 1},
        {3, 0x7fffffff, 1},
        {4, 0xffffffff80000000ull, 1},
        {5, 0x80000000, 2},
        {6, 0xffffffff, 2},
        {7, 0x123456789abcdef0ull, 2},
        {8, (uint64_t)-0x80000001ll, 2},
        {9, 0x8000000000000000ull, 2},
        {10, ~0ull, 1},
        {11, 5, 2}, /* forward reference: always two words */
        {12, (uint64_t)(-5ll * 0x10000), 2},
        {13, 8, 1},      /* a label already defined: its address fits */
        {14, 22 * 8, 2}, /* a label defined later: two words */
        {15, 0x100000000ull, 2},
    };
    size_t at = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        size_t words;
        uint64_t v = li_value(o, at, want[i].rd, &words);
        CHECK(v == want[i].v, "li x%d: value 0x%llx, want 0x%llx", want[i].rd, (unsigned long long)v,
              (unsigned long long)want[i].v);
        CHECK(words == want[i].words, "li x%d: %zu words, want %zu", want[i].rd, words, want[i].words);
        at += words;
    }
    ck_assert_uint_eq(at, 24);
    EXPECT_INSN(o, 24, DV_OP_END, END);
    dv_obj_destroy(o);
}
END_TEST

/* Forward references inside .equ: every use must see the final value, and
 * li must not be sized by a provisional one. */
START_TEST(test_equ_forward_chain)
{
    dv_obj *o = ASM_OK("li x1, C\n"
                       ".equ C, D + 1\n"
                       ".equ D, 2\n"
                       "li x2, SIZE\n"
                       ".equ SIZE, stop - begin\n"
                       ".equ WIDE, ONE << 32\n"
                       "begin: li x3, WIDE\n"
                       ".equ ONE, 1\n"
                       "stop: end\n");
    size_t at = 0, words;
    uint64_t c = li_value(o, at, 1, &words);
    at += words;
    uint64_t size = li_value(o, at, 2, &words);
    at += words;
    uint64_t wide = li_value(o, at, 3, &words);
    CHECK(c == 3 && size == 16 && wide == 0x100000000ull,
          "values of symbols defined by forward references:\n"
          "  li x1, C    (C = D + 1, D = 2 later):        got %llu, want 3\n"
          "  li x2, SIZE (SIZE = stop - begin, later labels): got %lld, want 16\n"
          "  li x3, WIDE (WIDE = ONE << 32, ONE = 1 later):  got 0x%llx, want 0x100000000",
          (unsigned long long)c, (long long)size, (unsigned long long)wide);
    dv_obj_destroy(o);
}
END_TEST

/* A divisor that is a forward reference is not zero. */
START_TEST(test_forward_divisor)
{
    dv_obj *o = ASM_OK("li x1, 10 / B\n"
                       ".equ A, 12 % B\n"
                       ".equ B, 4\n"
                       "li x2, A\n");
    size_t words, w2;
    ck_assert_uint_eq(li_value(o, 0, 1, &words), 2);
    ck_assert_uint_eq(li_value(o, words, 2, &w2), 0);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_pack)
{
    dv_obj *o =
        ASM_OK(".equ TILE, 128 * 128\n"
               "pack.burst x8, nburst=1, len=TILE * 2 / 32\n"
               "pack.vrep x9, repeat=255, dstblk=1, src0blk=2, src1blk=3, dstrep=8, src0rep=9, src1rep=10\n"
               "pack.mmad x10, m=4095, k=0xfff, n=16\n"
               "pack.fmatrix x11, padb=255\n"
               "pack.vrep x12\n"
               "pack.burst x13, dstgap=N\n"
               ".equ N, 3\n");
    size_t at = 0, words;
    ck_assert_uint_eq(li_value(o, at, 8, &words), 1 | (1024ull << 12));
    ck_assert_uint_eq(words, 1);
    at += words;
    const dv_layout *vrep = dv_layout_find("vrep");
    uint64_t v = li_value(o, at, 9, &words);
    at += words;
    ck_assert_uint_eq(dv_layout_extract(vrep, v, "repeat"), 255);
    ck_assert_uint_eq(dv_layout_extract(vrep, v, "dstblk"), 1);
    ck_assert_uint_eq(dv_layout_extract(vrep, v, "src0blk"), 2);
    ck_assert_uint_eq(dv_layout_extract(vrep, v, "src1blk"), 3);
    ck_assert_uint_eq(dv_layout_extract(vrep, v, "dstrep"), 8);
    ck_assert_uint_eq(dv_layout_extract(vrep, v, "src0rep"), 9);
    ck_assert_uint_eq(dv_layout_extract(vrep, v, "src1rep"), 10);
    ck_assert_uint_eq(words, 2); /* bits above 31 are set */
    ck_assert_uint_eq(li_value(o, at, 10, &words), 4095 | (4095ull << 12) | (16ull << 24));
    at += words;
    ck_assert_uint_eq(li_value(o, at, 11, &words), 255ull << 56);
    ck_assert_uint_eq(words, 2);
    at += words;
    ck_assert_uint_eq(li_value(o, at, 12, &words), 0);
    ck_assert_uint_eq(words, 1);
    at += words;
    ck_assert_uint_eq(li_value(o, at, 13, &words), 3ull << 44);
    ck_assert_uint_eq(words, 2); /* forward reference */
    ck_assert_uint_eq(at + words, nwords(o));
    dv_obj_destroy(o);
}
END_TEST

/* pack.load2dt, the merging transpose's layout (isa_params.def): every
 * field at its place, registers included. */
START_TEST(test_pack_load2dt)
{
    dv_obj *o =
        ASM_OK("pack.load2dt x8, start=7, repeat=16, srcstride=128, dstgap=3, srcpair=64, dstpair=16\n");
    size_t words;
    const dv_layout *l = dv_layout_find("load2dt");
    ck_assert_ptr_nonnull(l);
    uint64_t v = li_value(o, 0, 8, &words);
    ck_assert_uint_eq(dv_layout_extract(l, v, "start"), 7);
    ck_assert_uint_eq(dv_layout_extract(l, v, "repeat"), 16);
    ck_assert_uint_eq(dv_layout_extract(l, v, "srcstride"), 128);
    ck_assert_uint_eq(dv_layout_extract(l, v, "dstgap"), 3);
    ck_assert_uint_eq(dv_layout_extract(l, v, "srcpair"), 64);
    ck_assert_uint_eq(dv_layout_extract(l, v, "dstpair"), 16);
    ck_assert_uint_eq(v, 7 | 16ull << 16 | 128ull << 24 | 3ull << 40 | 64ull << 48 | 16ull << 56);
    dv_obj_destroy(o);
}
END_TEST

/* ---- expressions ---- */

START_TEST(test_expressions)
{
    /* precedence, loosest first: | ^ & (<< >>) (+ -) (* / %), as in C */
    dv_obj *o = ASM_OK(".data\n"
                       ".dword 1 + 2 * 3, (1 + 2) * 3, 1 << 4 | 1, 6 & 3 ^ 1\n"
                       ".dword 1 << 2 + 1, 2 * 3 + 1 << 1, 1 | 2 ^ 3 & 4, 12 ^ 10 | 1\n"
                       ".dword -8 >> 1, 7 % 3, -7 / 2, -7 % 2\n"
                       ".dword ~0, !0, !5, -(-3), +4, 0b1010, 0x1_0000, 1 << 64\n"
                       ".dword 0xffffffffffffffff + 2, 10 - 3 - 2, 64 / 4 / 2, 0x7fffffffffffffff * 2\n"
                       ".dword -0x8000000000000000 / -1, ~-1, - - 5, 18446744073709551615\n");
    /* >> is logical, / and % truncate toward zero, arithmetic wraps */
    /* clang-format off */
    static const uint64_t want[] = {
        7, 9, 17, 3, 8, 14, 3, 7,
        0x7ffffffffffffffcull, 1, (uint64_t)-3, (uint64_t)-1,
        ~0ull, 1, 0, 3, 4, 10, 0x10000, 0,
        1, 5, 8, 0xfffffffffffffffeull,
        0x8000000000000000ull, 0, 5, ~0ull,
    };
    /* clang-format on */
    ck_assert_uint_eq(o->data_size, sizeof want);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK(data_u64(o, i * 8) == want[i], "value %zu: 0x%llx, want 0x%llx", i,
              (unsigned long long)data_u64(o, i * 8), (unsigned long long)want[i]);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_float_bits)
{
    dv_obj *o = ASM_OK(".data\n"
                       ".half f16(1.5), f16(-2), f16(1), bf16(1.5), f16(0.1), f16(1.0 + 0.5), f16(65520.0), "
                       "f16(3 / 2)\n"
                       ".word f32(1.5), f32(-0.0), f32(1e10), f32(2.5e-1)\n");
    static const uint16_t h[] = {0x3e00, 0xc000, 0x3c00, 0x3fc0, 0x2e66, 0x3e00, 0x7c00, 0x3c00};
    static const uint32_t w[] = {0x3fc00000u, 0x80000000u, 0x501502f9u, 0x3e800000u};
    ck_assert_uint_eq(o->data_size, sizeof h + sizeof w);
    for (size_t i = 0; i < 8; i++)
        CHECK((o->data[2 * i] | o->data[2 * i + 1] << 8) == h[i], "half %zu: 0x%04x, want 0x%04x", i,
              o->data[2 * i] | o->data[2 * i + 1] << 8, h[i]);
    for (size_t i = 0; i < 4; i++) {
        const uint8_t *p = o->data + 16 + 4 * i;
        uint32_t v = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
        CHECK(v == w[i], "word %zu: 0x%08x, want 0x%08x", i, v, w[i]);
    }
    dv_obj_destroy(o);
}
END_TEST

/* f16() and bf16() round the exact value once: a literal just above a tie
 * must not become the tie by a first rounding to f32. */
START_TEST(test_float_single_rounding)
{
    dv_obj *o = ASM_OK(".data\n"
                       ".half f16(1.00048828125000091), bf16(1.00390625000000091)\n"
                       ".half f16(1.00048828125), bf16(1.00390625)\n");
    unsigned h[4];
    for (int i = 0; i < 4; i++)
        h[i] = o->data[2 * i] | (unsigned)o->data[2 * i + 1] << 8;
    dv_obj_destroy(o);
    /* the exact ties round to even */
    ck_assert_uint_eq(h[2], 0x3c00);
    ck_assert_uint_eq(h[3], 0x3f80);
    CHECK(h[0] == 0x3c01 && h[1] == 0x3f81,
          "f16(1 + 2^-11 + 9e-16) = 0x%04x, want 0x3c01; bf16(1 + 2^-8 + 9e-16) = 0x%04x, want 0x3f81 "
          "(rounded to f32 first, which lands on the tie)",
          h[0], h[1]);
}
END_TEST

START_TEST(test_dot_symbol)
{
    dv_obj *o = ASM_OK("nop\n"
                       ".dword .\n"
                       "j .\n"
                       "beq x1, x2, . + 16\n"
                       "nop\n"
                       "nop\n"
                       ".equ HERE, .\n"
                       ".data\n"
                       ".byte 1, 2, 3\n"
                       ".dword .\n"
                       ".text\n"
                       ".dword HERE\n");
    ck_assert_uint_eq(obj_word(o, 1), 8);
    EXPECT_INSN(o, 2, DV_OP_JAL, DV_F_R0, 0, DV_F_TARGET, 0, END);
    EXPECT_INSN(o, 3, DV_OP_BEQ, DV_F_R0, 1, DV_F_R1, 2, DV_F_TARGET, 16, END);
    ck_assert_uint_eq(obj_word(o, 6), 48);
    ck_assert_uint_eq(data_u64(o, 3), 3);
    dv_obj_destroy(o);
}
END_TEST

/* ---- symbols ---- */

START_TEST(test_labels_and_branches)
{
    dv_obj *o = ASM_OK("top:\n"
                       "  nop\n"
                       ".Lloop: $x: a.b_c:  addi x1, x1, -1\n"
                       "  bne x1, x0, .Lloop\n"
                       "  beq x1, x2, fwd\n"
                       "  blt x1, x2, top\n"
                       "  nop\n"
                       "fwd:\n"
                       "fwd2: jal ra, $x\n"
                       "  bgeu x3, x4, a.b_c\n"
                       "  jal x0, fwd2\n");
    EXPECT_INSN(o, 2, DV_OP_BNE, DV_F_R0, 1, DV_F_TARGET, -8, END);
    EXPECT_INSN(o, 3, DV_OP_BEQ, DV_F_R0, 1, DV_F_R1, 2, DV_F_TARGET, 24, END);
    EXPECT_INSN(o, 4, DV_OP_BLT, DV_F_R0, 1, DV_F_R1, 2, DV_F_TARGET, -32, END);
    EXPECT_INSN(o, 6, DV_OP_JAL, DV_F_R0, 1, DV_F_TARGET, -40, END);
    EXPECT_INSN(o, 7, DV_OP_BGEU, DV_F_R0, 3, DV_F_R1, 4, DV_F_TARGET, -48, END);
    EXPECT_INSN(o, 8, DV_OP_JAL, DV_F_TARGET, -16, END);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_equ_set_reg)
{
    dv_obj *o = ASM_OK(".equ A, 3\n"
                       ".equ B, A * 2 + FWD\n"
                       ".set V, 1\n"
                       "addi x1, x0, V\n"
                       ".set V, V + 10\n"
                       "addi x1, x0, V\n"
                       "addi x1, x0, B\n"
                       ".equ FWD, 100\n"
                       ".reg tmp, x7\n"
                       ".reg ptr, a3\n"
                       "add tmp, ptr, tmp\n"
                       ".reg tmp, x8\n"
                       "add tmp, x0, x0\n");
    EXPECT_INSN(o, 0, DV_OP_ADDI, DV_F_R0, 1, DV_F_IMM, 1, END);
    EXPECT_INSN(o, 1, DV_OP_ADDI, DV_F_R0, 1, DV_F_IMM, 11, END);
    EXPECT_INSN(o, 2, DV_OP_ADDI, DV_F_R0, 1, DV_F_IMM, 106, END);
    EXPECT_INSN(o, 3, DV_OP_ADD, DV_F_R0, 7, DV_F_R1, 13, DV_F_R2, 7, END);
    EXPECT_INSN(o, 4, DV_OP_ADD, DV_F_R0, 8, END); /* .reg may rebind an alias */
    dv_obj_destroy(o);
}
END_TEST

static Suite *asm_suite(void)
{
    Suite *s = suite_create("asm");
    TCase *tc = tcase_create("forms");
    tcase_add_test(tc, test_register_forms);
    tcase_add_test(tc, test_memory_operands);
    tcase_add_test(tc, test_tensor_fields);
    tcase_add_test(tc, test_csr_operands);
    tcase_add_test(tc, test_pseudos);
    tcase_add_test(tc, test_li);
    tcase_add_test(tc, test_pack);
    tcase_add_test(tc, test_pack_load2dt);
    suite_add_tcase(s, tc);
    tc = tcase_create("expressions");
    tcase_add_test(tc, test_expressions);
    tcase_add_test(tc, test_float_bits);
    tcase_add_test(tc, test_float_single_rounding);
    tcase_add_test(tc, test_dot_symbol);
    tcase_add_test(tc, test_labels_and_branches);
    tcase_add_test(tc, test_equ_set_reg);
    tcase_add_test(tc, test_equ_forward_chain);
    tcase_add_test(tc, test_forward_divisor);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(asm_suite());
    srunner_add_suite(sr, asm_directives_suite());
    srunner_add_suite(sr, asm_errors_suite());
    srunner_add_suite(sr, asm_blocks_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
