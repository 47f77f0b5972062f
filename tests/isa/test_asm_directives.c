/* test_asm_directives.c - the assembler's directives: macros, kernels and
 * their arguments, data, .chip, comments and the line table, includes. */
#include "dv_asm.h"
#include "dv_isa.h"
#include "dv_obj.h"
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- macros ---- */

START_TEST(test_macros)
{
    dv_obj *o = ASM_OK(".macro countdown reg, n\n"
                       "    li \\reg, \\n\n"
                       "again\\@:\n"
                       "    addi \\reg, \\reg, -1\n"
                       "    bnez \\reg, again\\@\n"
                       ".endm\n"
                       ".macro twice op, a, b\n"
                       "    \\op \\a, \\b, \\b\n"
                       "    \\op \\a, \\a, \\a\n"
                       ".endm\n"
                       ".macro none\n"
                       "    nop\n"
                       ".endm\n"
                       "start: countdown x5, 3\n"
                       "    countdown x6, 2 * 2\n"
                       "    twice add, x1, x2\n"
                       "    none\n"
                       ".macro mem r, addr\n"
                       "    lw \\r, \\addr, space=ub\n"
                       ".endm\n"
                       "    mem x3, 8(x4)\n"
                       "    j start\n");
    ck_assert_uint_eq(nwords(o), 11);
    EXPECT_INSN(o, 0, DV_OP_LI, DV_F_R0, 5, DV_F_IMM, 3, END);
    EXPECT_INSN(o, 1, DV_OP_ADDI, DV_F_R0, 5, DV_F_R1, 5, DV_F_IMM, -1, END);
    EXPECT_INSN(o, 2, DV_OP_BNE, DV_F_R0, 5, DV_F_TARGET, -8, END);
    EXPECT_INSN(o, 3, DV_OP_LI, DV_F_R0, 6, DV_F_IMM, 4, END);
    EXPECT_INSN(o, 5, DV_OP_BNE, DV_F_R0, 6, DV_F_TARGET, -8, END); /* its own label, not the first one's */
    EXPECT_INSN(o, 6, DV_OP_ADD, DV_F_R0, 1, DV_F_R1, 2, DV_F_R2, 2, END);
    EXPECT_INSN(o, 7, DV_OP_ADD, DV_F_R0, 1, DV_F_R1, 1, DV_F_R2, 1, END);
    EXPECT_INSN(o, 8, DV_OP_NOP, END);
    EXPECT_INSN(o, 9, DV_OP_LW, DV_F_R0, 3, DV_F_R1, 4, DV_F_IMM, 8, DV_F_SPACE, DV_SPACE_UB, END);
    EXPECT_INSN(o, 10, DV_OP_JAL, DV_F_TARGET, -80, END); /* start: labels the first expansion */
    dv_obj_destroy(o);
}
END_TEST

/* ---- kernels ---- */

START_TEST(test_kernels)
{
    dv_obj *o = ASM_OK(".kernel first\n"
                       ".arg x, type=ptr\n"
                       ".arg n, type=u64\n"
                       ".arg s, type=s64\n"
                       ".arg alpha, type=f32\n"
                       ".arg y\n"
                       "    add x, n, y\n"
                       "    addi a1, alpha, 0\n"
                       "    end\n"
                       ".kernel second, type=aiv\n"
                       ".arg n, type=s64\n"
                       "    mv n, n\n"
                       "    call first\n"
                       "    end\n"
                       ".kernel third, type=aic\n"
                       "    end\n"
                       ".kernel fourth, type=mix\n"
                       "    end\n"
                       ".kernel fifth, type=coupled\n"
                       "    nop\n"
                       "    end\n");
    ck_assert_uint_eq(o->nkernels, 5);
    const dv_obj_kernel *k = dv_obj_find_kernel(o, "first");
    ck_assert_ptr_nonnull(k);
    ck_assert_uint_eq(k->entry, 0);
    ck_assert_uint_eq(k->size, 24);
    ck_assert_int_eq(k->core, DV_CORE_COUPLED);
    ck_assert_uint_eq(k->nargs, 5);
    static const char *const names[] = {"x", "n", "s", "alpha", "y"};
    static const dv_arg_type types[] = {DV_ARG_PTR, DV_ARG_U64, DV_ARG_S64, DV_ARG_F32, DV_ARG_PTR};
    for (unsigned i = 0; i < 5; i++) {
        ck_assert_str_eq(k->args[i].name, names[i]);
        ck_assert_int_eq(k->args[i].type, types[i]);
    }
    /* argument i is register x(10 + i), by its name or as a<i> */
    EXPECT_INSN(o, 0, DV_OP_ADD, DV_F_R0, 10, DV_F_R1, 11, DV_F_R2, 14, END);
    EXPECT_INSN(o, 1, DV_OP_ADDI, DV_F_R0, 11, DV_F_R1, 13, END);
    k = dv_obj_find_kernel(o, "second");
    ck_assert_ptr_nonnull(k);
    ck_assert_uint_eq(k->entry, 24);
    ck_assert_uint_eq(k->size, 24);
    ck_assert_int_eq(k->core, DV_CORE_AIV);
    ck_assert_uint_eq(k->nargs, 1);
    ck_assert_int_eq(k->args[0].type, DV_ARG_S64);
    EXPECT_INSN(o, 3, DV_OP_ADDI, DV_F_R0, 10, DV_F_R1, 10, END);
    EXPECT_INSN(o, 4, DV_OP_JAL, DV_F_R0, 1, DV_F_TARGET, -32, END); /* a kernel name is a label */
    k = dv_obj_find_kernel(o, "third");
    ck_assert_int_eq(k->core, DV_CORE_AIC);
    ck_assert_uint_eq(k->entry, 48);
    ck_assert_uint_eq(k->size, 8);
    ck_assert_uint_eq(k->nargs, 0);
    k = dv_obj_find_kernel(o, "fourth");
    ck_assert_int_eq(k->core, DV_CORE_MIX);
    ck_assert_uint_eq(k->entry, 56);
    ck_assert_uint_eq(k->size, 8);
    k = dv_obj_find_kernel(o, "fifth");
    ck_assert_int_eq(k->core, DV_CORE_COUPLED);
    ck_assert_uint_eq(k->entry, 64);
    ck_assert_uint_eq(k->size, 16);
    ck_assert_uint_eq(o->text_size, 80);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_sixteen_args)
{
    char src[2048];
    size_t len = (size_t)snprintf(src, sizeof src, ".kernel k\n");
    for (int i = 0; i < 16; i++)
        len += (size_t)snprintf(src + len, sizeof src - len, ".arg p%d, type=u64\n", i);
    snprintf(src + len, sizeof src - len, "add p15, a15, p0\n");
    dv_obj *o = ASM_OK(src);
    ck_assert_uint_eq(o->kernels[0].nargs, 16);
    EXPECT_INSN(o, 0, DV_OP_ADD, DV_F_R0, 25, DV_F_R1, 25, DV_F_R2, 10, END);
    dv_obj_destroy(o);
}
END_TEST

/* ---- data and sections ---- */

START_TEST(test_data_directives)
{
    dv_obj *o = ASM_OK(".data\n"
                       "bytes: .byte 1, -1, 255, -128\n"
                       "halves: .half 0x1234, -2\n"
                       "words: .word 0xdeadbeef, -1\n"
                       ".align 8\n"
                       "dw: .dword 0x0102030405060708\n"
                       ".zero 3\n"
                       ".byte 9\n"
                       ".align 4\n"
                       ".align 1\n"
                       "tail: .byte tail\n"
                       ".text\n"
                       "li x1, words\n"
                       "li x2, dw\n"
                       ".dword 0x1122334455667788\n"
                       ".align 32\n"
                       ".zero 16\n"
                       "end\n");
    static const uint8_t want[] = {1,    0xff, 0xff, 0x80,                         /* .byte */
                                   0x34, 0x12, 0xfe, 0xff,                         /* .half */
                                   0xef, 0xbe, 0xad, 0xde, 0xff, 0xff, 0xff, 0xff, /* .word */
                                   8,    7,    6,    5,    4,    3,    2,    1,    /* .dword at 16 */
                                   0,    0,    0,    9,                            /* .zero 3, .byte 9 */
                                   28};                                            /* tail: its own address */
    ck_assert_uint_eq(o->data_size, sizeof want);
    ck_assert_mem_eq(o->data, want, sizeof want);
    size_t w;
    ck_assert_uint_eq(li_value(o, 0, 1, &w), 8); /* data labels are .data offsets */
    ck_assert_uint_eq(li_value(o, 1, 2, &w), 16);
    ck_assert_uint_eq(obj_word(o, 2), 0x1122334455667788ull);
    /* .align 32 at 24 (one nop) and .zero 16 (two) pad .text with nops */
    for (size_t i = 3; i < 6; i++)
        EXPECT_INSN(o, i, DV_OP_NOP, END);
    EXPECT_INSN(o, 6, DV_OP_END, END);
    ck_assert_uint_eq(nwords(o), 7);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_chip)
{
    static const struct {
        const char *src;
        dv_chip_family fam;
    } cases[] = {
        {"nop\n", DV_FAMILY_ANY},
        {".chip ascend910\n", DV_FAMILY_910},
        {".chip ascend910b\nnop\n", DV_FAMILY_910B},
        {".chip ascend310\n", DV_FAMILY_310},
        {".chip any\n", DV_FAMILY_ANY},
        {".chip 910b   ; family name\n", DV_FAMILY_910B},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dv_obj *o = ASM_OK(cases[i].src);
        CHECK(o->family == cases[i].fam, "'%s': family %d, want %d", cases[i].src, (int)o->family,
              (int)cases[i].fam);
        dv_obj_destroy(o);
    }
}
END_TEST

/* ---- comments and the line table ---- */

START_TEST(test_comments_and_lines)
{
    dv_obj *o = ASM_OK("; comment\n"
                       "# comment\n"
                       "// comment\n"
                       "  nop ; trailing\n" /* line 4, pc 0 */
                       "/* block\n"
                       "   spanning */ add x1, x2, x3 # x\n"  /* line 6, pc 8 */
                       "\taddi x1, x1, 1 // c\n"              /* line 7, pc 16 */
                       "li x1, 0x100000000 /* two words */\n" /* line 8, pc 24 and 32 */
                       "\n"
                       "  .dword 5 /* inline */ + 1\n"); /* line 10, pc 40 */
    ck_assert_uint_eq(nwords(o), 6);
    ck_assert_uint_eq(obj_word(o, 5), 6);
    ck_assert_uint_eq(o->nfiles, 1);
    ck_assert_str_eq(o->files[0], "t.dvs");
    static const struct {
        uint64_t pc;
        uint32_t line, col;
    } want[] = {{0, 4, 3}, {8, 6, 16}, {16, 7, 2}, {24, 8, 1}, {32, 8, 1}, {40, 10, 10}};
    ck_assert_uint_eq(o->nlines, 6);
    for (size_t i = 0; i < 6; i++) {
        const dv_obj_line *l = dv_obj_line_at(o, want[i].pc);
        CHECK(l && l->pc == want[i].pc && l->file == 0 && l->line == want[i].line && l->col == want[i].col,
              "pc %llu: line %u col %u, want line %u col %u", (unsigned long long)want[i].pc, l ? l->line : 0,
              l ? l->col : 0, want[i].line, want[i].col);
    }
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_source_forms)
{
    /* CRLF line ends, tabs, an empty source */
    dv_obj *o =
        ASM_OK("nop\r\n\tadd x1, x2, x3 ; c\r\n.macro m a\r\n add \\a, \\a, \\a\r\n.endm\r\nm x4\r\n");
    ck_assert_uint_eq(nwords(o), 3);
    EXPECT_INSN(o, 2, DV_OP_ADD, DV_F_R0, 4, DV_F_R1, 4, DV_F_R2, 4, END);
    dv_obj_destroy(o);
    o = ASM_OK("");
    ck_assert_uint_eq(o->text_size, 0);
    ck_assert_uint_eq(o->data_size, 0);
    ck_assert_uint_eq(o->nkernels, 0);
    dv_obj_destroy(o);
    /* the text need not be NUL-terminated: exactly len bytes are read */
    static const char body[] = "add x1, x2, x3\nsub x4, x5, x6";
    char *exact = malloc(sizeof body - 1);
    ck_assert_ptr_nonnull(exact);
    memcpy(exact, body, sizeof body - 1);
    asm_run r = asm_text("t.dvs", exact, sizeof body - 1, NULL);
    free(exact);
    ck_assert_int_eq(r.st, DV_OK);
    ck_assert_uint_eq(nwords(r.obj), 2);
    EXPECT_INSN(r.obj, 1, DV_OP_SUB, DV_F_R0, 4, DV_F_R1, 5, DV_F_R2, 6, END);
    asm_run_free(&r);
}
END_TEST

/* ---- includes and files ---- */

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void remove_file(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    remove(path);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

START_TEST(test_includes)
{
    char top[] = "/tmp/dvasm-incXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(top));
    char lib[64], sub[64], main_path[96], abs_inc[96];
    snprintf(lib, sizeof lib, "%s/lib", top);
    snprintf(sub, sizeof sub, "%s/sub", top);
    snprintf(main_path, sizeof main_path, "%s/main.dvs", top);
    snprintf(abs_inc, sizeof abs_inc, "%s/abs.inc", top);
    ck_assert_int_eq(mkdir(lib, 0700), 0);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    write_file(sub, "nested.inc", "add x1, x2, x3\n");
    write_file(top, "defs.inc", ".equ VALUE, 7\n.include \"sub/nested.inc\"\n");
    write_file(lib, "lib.inc",
               "; library\n.macro twice r\n    add \\r, \\r, \\r\n    add \\r, \\r, \\r\n.endm\n"
               "lib_nop: nop\n");
    write_file(top, "abs.inc", "end\n");
    char main_src[512];
    snprintf(main_src, sizeof main_src,
             ".include \"defs.inc\"   ; next to main.dvs\n"
             ".include \"lib.inc\"    ; from the include dirs\n"
             "nop\n"
             "li x1, VALUE\n"
             "twice x4\n"
             ".include \"%s\"\n",
             abs_inc);
    write_file(top, "main.dvs", main_src);

    const char *const dirs[] = {"/nonexistent-dir", lib};
    dv_asm_options opt = {dirs, 2, 0};
    dv_obj *o = NULL;
    dv_diags diags = {NULL, 0};
    dv_error err;
    dv_status st = dv_asm_file(main_path, &opt, &o, &diags, &err);
    CHECK(st == DV_OK, "includes: %s", diags.count ? diags.lines[0] : err.msg);
    ck_assert_uint_eq(nwords(o), 7);
    EXPECT_INSN(o, 0, DV_OP_ADD, DV_F_R0, 1, DV_F_R1, 2, DV_F_R2, 3, END);
    EXPECT_INSN(o, 1, DV_OP_NOP, END);
    EXPECT_INSN(o, 2, DV_OP_NOP, END);
    EXPECT_INSN(o, 3, DV_OP_LI, DV_F_R0, 1, DV_F_IMM, 7, END);
    EXPECT_INSN(o, 4, DV_OP_ADD, DV_F_R0, 4, DV_F_R1, 4, DV_F_R2, 4, END);
    EXPECT_INSN(o, 6, DV_OP_END, END);
    /* the line table names the file each word came from */
    static const struct {
        uint64_t pc;
        const char *file;
        uint32_t line;
    } want[] = {{0, "/sub/nested.inc", 1}, {8, "/lib/lib.inc", 6},  {16, "/main.dvs", 3},
                {24, "/main.dvs", 4},      {32, "/lib/lib.inc", 3}, {40, "/lib/lib.inc", 4},
                {48, "/abs.inc", 1}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const dv_obj_line *l = dv_obj_line_at(o, want[i].pc);
        CHECK(l && l->pc == want[i].pc && l->file < o->nfiles && ends_with(o->files[l->file], want[i].file) &&
                  l->line == want[i].line,
              "pc %llu: %s:%u, want ...%s:%u", (unsigned long long)want[i].pc,
              l && l->file < o->nfiles ? o->files[l->file] : "?", l ? l->line : 0, want[i].file,
              want[i].line);
    }
    ck_assert_str_eq(o->files[0], main_path);
    dv_obj_destroy(o);
    dv_diags_free(&diags);

    /* dv_asm_string resolves includes next to the name it is given */
    char name[96];
    snprintf(name, sizeof name, "%s/virtual.dvs", top);
    const char *src = ".include \"defs.inc\"\nli x2, VALUE\n";
    asm_run r = asm_text(name, src, strlen(src), NULL);
    CHECK(r.st == DV_OK, "string include: %s", r.diags.count ? r.diags.lines[0] : r.err.msg);
    ck_assert_uint_eq(nwords(r.obj), 2);
    asm_run_free(&r);

    remove_file(sub, "nested.inc");
    remove_file(lib, "lib.inc");
    remove_file(top, "defs.inc");
    remove_file(top, "abs.inc");
    remove_file(top, "main.dvs");
    rmdir(sub);
    rmdir(lib);
    rmdir(top);
}
END_TEST

/* The sample kernel of the source tree assembles. */
START_TEST(test_sample_kernel)
{
    const char *root = getenv("DV_SOURCE_ROOT");
    ck_assert_msg(root != NULL, "DV_SOURCE_ROOT is not set (tests/isa/meson.build sets it)");
    char path[1024];
    snprintf(path, sizeof path, "%s/kernels/samples/vadd.dvs", root);
    dv_obj *o = NULL;
    dv_diags diags = {NULL, 0};
    dv_error err;
    dv_status st = dv_asm_file(path, NULL, &o, &diags, &err);
    CHECK(st == DV_OK, "%s: %s", path, diags.count ? diags.lines[0] : err.msg);
    ck_assert_int_eq(o->family, DV_FAMILY_910);
    const dv_obj_kernel *k = dv_obj_find_kernel(o, "vadd");
    ck_assert_ptr_nonnull(k);
    ck_assert_uint_eq(k->nargs, 4);
    ck_assert_int_eq(k->args[3].type, DV_ARG_U64);
    ck_assert_uint_eq(k->entry, 0);
    ck_assert_uint_eq(k->size, o->text_size);
    ck_assert_uint_eq(o->nlines, o->text_size / 8);
    dv_obj_destroy(o);
    dv_diags_free(&diags);
}
END_TEST

Suite *asm_directives_suite(void)
{
    Suite *s = suite_create("asm-directives");
    TCase *tc = tcase_create("directives");
    tcase_add_test(tc, test_macros);
    tcase_add_test(tc, test_kernels);
    tcase_add_test(tc, test_sixteen_args);
    tcase_add_test(tc, test_data_directives);
    tcase_add_test(tc, test_chip);
    tcase_add_test(tc, test_comments_and_lines);
    tcase_add_test(tc, test_source_forms);
    tcase_add_test(tc, test_includes);
    tcase_add_test(tc, test_sample_kernel);
    suite_add_tcase(s, tc);
    return s;
}
