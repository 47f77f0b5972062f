/* test_asm_errors.c - every class of assembly error is reported as
 * DV_ERR_INPUT with one "name:LINE:COL: message" line naming the problem,
 * all errors of a file are reported in line order, and max_errors caps them. */
#include "dv_asm.h"
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Does diag start with "t.dvs:LINE:COL: "?  col 0 accepts any column >= 1. */
static bool has_location(const char *diag, const char *name, unsigned line, unsigned col)
{
    size_t n = strlen(name);
    if (strncmp(diag, name, n) != 0 || diag[n] != ':')
        return false;
    char *end;
    unsigned long l = strtoul(diag + n + 1, &end, 10);
    if (end == diag + n + 1 || *end != ':' || l != line)
        return false;
    const char *c = end + 1;
    unsigned long k = strtoul(c, &end, 10);
    if (end == c || k == 0 || (col && k != col))
        return false;
    return end[0] == ':' && end[1] == ' ';
}

/* Assembles len bytes of src as "t.dvs": it must fail with DV_ERR_INPUT and
 * exactly one diagnostic at line:col that contains every word of `words`. */
static void expect_error_at(const char *src, size_t len, unsigned line, unsigned col,
                            const char *const *words, const char *file, int srcline)
{
    asm_run r = asm_text("t.dvs", src, len, NULL);
    char first[1024];
    snprintf(first, sizeof first, "%s", r.diags.count ? r.diags.lines[0] : "(no diagnostics)");
    size_t count = r.diags.count;
    dv_status st = r.st;
    bool has_obj = r.obj != NULL;
    char msg[DV_ERROR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", r.err.msg);
    asm_run_free(&r);
    CHECK(st == DV_ERR_INPUT, "%s:%d: status %d, want DV_ERR_INPUT; %s", file, srcline, (int)st, first);
    CHECK(!has_obj, "%s:%d: an object despite errors", file, srcline);
    CHECK(count == 1, "%s:%d: %zu diagnostics, want 1; first: %s", file, srcline, count, first);
    CHECK(has_location(first, "t.dvs", line, col), "%s:%d: '%s' does not start with t.dvs:%u:%u: ", file,
          srcline, first, line, col);
    for (size_t i = 0; words[i]; i++)
        CHECK(contains_nocase(first, words[i]), "%s:%d: '%s' lacks '%s'", file, srcline, first, words[i]);
    /* err repeats the first diagnostic with the count */
    CHECK(strncmp(msg, first, strlen(first) < 100 ? strlen(first) : 100) == 0 && strstr(msg, "(1 error)"),
          "%s:%d: err.msg '%s'", file, srcline, msg);
}

#define EXPECT_ERROR(src, line, col, ...)                                                                    \
    expect_error_at((src), strlen(src), (line), (col), (const char *const[]){__VA_ARGS__, NULL}, __FILE__,   \
                    __LINE__)

START_TEST(test_unknown_instruction)
{
    EXPECT_ERROR("nop\n  frob x1\n", 2, 3, "unknown instruction", "'frob'");
    EXPECT_ERROR("ADD x1, x2, x3\n", 1, 1, "unknown instruction", "'ADD'");
    EXPECT_ERROR("pack x1\n", 1, 1, "unknown instruction");
}
END_TEST

START_TEST(test_unknown_register)
{
    EXPECT_ERROR("add x1, x2, x99\n", 1, 13, "unknown register", "'x99'");
    EXPECT_ERROR("add x1, x32, x3\n", 1, 9, "unknown register", "'x32'");
    EXPECT_ERROR("add x1, x01, x3\n", 1, 9, "unknown register", "'x01'");
    EXPECT_ERROR("mv a16, x1\n", 1, 4, "unknown register", "'a16'");
    EXPECT_ERROR("lw x1, 8(q7)\n", 1, 10, "unknown register", "'q7'");
    EXPECT_ERROR(".reg r, y3\n", 1, 9, "unknown register", "'y3'");
    EXPECT_ERROR("add x1, x2, 5\n", 1, 13, "expected a register");
}
END_TEST

START_TEST(test_operand_count)
{
    EXPECT_ERROR("add x1, x2\n", 1, 1, "add needs 3 operands, given 2");
    EXPECT_ERROR("  end x1\n", 1, 7, "too many operands");
    EXPECT_ERROR("add x1, x2, x3, x4\n", 1, 17, "too many operands for add");
    EXPECT_ERROR("mv x1, x2, x3\n", 1, 10, "too many operands for mv");
    EXPECT_ERROR("li x1, 1, 2\n", 1, 9, "too many operands for li");
    EXPECT_ERROR("add x1, x2,\n", 1, 12, "expected an operand after ','");
    EXPECT_ERROR("add x1 x2, x3\n", 1, 8, "expected ','");
    EXPECT_ERROR("beqz x1\n", 1, 8, "expected ','");
}
END_TEST

START_TEST(test_keyed_fields)
{
    EXPECT_ERROR("vcmp x1, x2, x3, x4, dtype=f16\n", 1, 1, "vcmp needs cmp=");
    EXPECT_ERROR("set_flag src=s, dst=v\n", 1, 1, "needs id=");
    EXPECT_ERROR("vadd x1, x2, x3, x4, foo=1\n", 1, 22, "unknown field 'foo'", "vadd");
    EXPECT_ERROR("add x1, x2, x3, dtype=f16\n", 1, 17, "unknown field 'dtype'");
    EXPECT_ERROR("vadd x1, x2, x3, x4, dtype=f64\n", 1, 28, "bad value 'f64' for dtype", "f16");
    EXPECT_ERROR("lw x1, 0(x2), space=l0\n", 1, 21, "bad value 'l0' for space");
    EXPECT_ERROR("vadd x1, x2, x3, x4, dtype=f16, dtype=f32\n", 1, 33, "field 'dtype' given twice");
}
END_TEST

START_TEST(test_out_of_range)
{
    EXPECT_ERROR("set_flag src=s, dst=v, id=16\n", 1, 27, "id=16 out of range 0..15");
    EXPECT_ERROR("cc_set_flag pipe=s, mode=3, id=0\n", 1, 26, "mode=3 out of range 0..2");
    EXPECT_ERROR("mmad x1, x2, x3, x4, init=2\n", 1, 27, "init=2 out of range 0..1");
    EXPECT_ERROR("pack.vrep x1, repeat=256\n", 1, 22, "vrep.repeat=256 out of range 0..255");
    EXPECT_ERROR("pack.burst x1, nburst=-1\n", 1, 23, "burst.nburst=-1 out of range");
    EXPECT_ERROR("addi x1, x2, 0x80000000\n", 1, 14, "does not fit in 32 signed bits");
    EXPECT_ERROR("addi x1, x2, -0x80000001\n", 1, 14, "does not fit in 32 signed bits");
    EXPECT_ERROR("lih x1, 0x100000000\n", 1, 9, "does not fit in 32 unsigned bits");
    EXPECT_ERROR("lw x1, 0x80000000(x2)\n", 1, 8, "does not fit in 32 signed bits");
    EXPECT_ERROR("csrr x1, 0x1000\n", 1, 10, "CSR number", "out of range");
    EXPECT_ERROR(".data\n.byte 256\n", 2, 7, "does not fit in 1 byte");
    EXPECT_ERROR(".data\n.half 1, -32769\n", 2, 10, "does not fit in 2 bytes");
    EXPECT_ERROR(".data\n.word 0x100000000\n", 2, 7, "does not fit in 4 bytes");
    EXPECT_ERROR(".zero -8\n", 1, 1, ".zero takes");
}
END_TEST

START_TEST(test_symbols)
{
    EXPECT_ERROR("nop\nli x1, nosuch\n", 2, 8, "undefined symbol 'nosuch'");
    EXPECT_ERROR("beq x1, x2, nowhere\n", 1, 13, "undefined symbol 'nowhere'");
    EXPECT_ERROR(".data\n.word 1 + ghost\n", 2, 11, "undefined symbol 'ghost'");
    EXPECT_ERROR("a:\nnop\n  a: nop\n", 3, 3, "'a' is already defined");
    EXPECT_ERROR(".equ N, 1\n.equ N, 2\n", 2, 6, "'N' is already defined");
    EXPECT_ERROR("N: nop\n.set N, 2\n", 2, 6, "'N' is already defined");
    EXPECT_ERROR(".kernel k\nend\n.kernel k\nend\n", 3, 9, "'k' is already defined");
    EXPECT_ERROR("x5: nop\n", 1, 1, "register name");
    EXPECT_ERROR(".equ a0, 1\n", 1, 6, "register name");
    EXPECT_ERROR(".equ N, 1\n.reg N, x3\n", 2, 6, "already a symbol");
}
END_TEST

START_TEST(test_expression_errors)
{
    EXPECT_ERROR("li x1, (1 + 2\n", 1, 14, "expected ')'");
    EXPECT_ERROR("li x1, 1 + * 2\n", 1, 12, "expected a value");
    EXPECT_ERROR(".dword 3 +\n", 1, 11, "expected a value at end of line");
    EXPECT_ERROR("li x1, f16 1.5\n", 1, 12, "expected '(' after f16");
    EXPECT_ERROR("li x1, \"str\"\n", 1, 8, "string is not a number");
    EXPECT_ERROR("li x1, 4 / 0\n", 1, 0, "division by zero");
    EXPECT_ERROR(".equ Z, 0\n.data\n.byte 7 % Z\n", 3, 0, "division by zero");
    EXPECT_ERROR("li x1, 1.5\n", 1, 8, "floating-point value", "f16(");
    EXPECT_ERROR("addi x1, x2, 2 * 0.5\n", 1, 14, "floating-point");
    EXPECT_ERROR("li x1, f16(1.5) | 1.5\n", 1, 0, "needs integers");
    EXPECT_ERROR("li x1, 0x\n", 1, 8, "malformed number");
    EXPECT_ERROR("li x1, 12abc\n", 1, 8, "malformed number");
    EXPECT_ERROR("li x1, 0x10000000000000000\n", 1, 8, "does not fit in 64 bits");
    EXPECT_ERROR("li x1, 99999999999999999999\n", 1, 8, "does not fit in 64 bits");
    EXPECT_ERROR("li x1, @\n", 1, 8, "unexpected character '@'");
    EXPECT_ERROR("  @foo\n", 1, 3, "unexpected character '@'");
    EXPECT_ERROR("nop @\n", 1, 5, "too many operands");
    EXPECT_ERROR("li x1, \"abc\n", 1, 8, "unterminated string");
}
END_TEST

START_TEST(test_directive_errors)
{
    EXPECT_ERROR("  .frob 1\n", 1, 3, "unknown directive '.frob'");
    EXPECT_ERROR(".arg x, type=ptr\n", 1, 1, ".arg before any .kernel");
    EXPECT_ERROR(".kernel k\n.arg x, type=int\nend\n", 2, 14, "bad type", "ptr");
    EXPECT_ERROR(".kernel k, type=gpu\n", 1, 17, "bad type", "coupled");
    EXPECT_ERROR(".kernel k\n.arg x\n.arg x\nend\n", 3, 6, "argument 'x' declared twice");
    EXPECT_ERROR("nop\n  .kernel k\n", 2, 3, "kernel 'k' has no instructions");
    EXPECT_ERROR(".data\n  add x1, x2, x3\n", 2, 3, "instruction 'add' in .data");
    EXPECT_ERROR(".data\n  li x1, 5\n", 2, 3, "in .data");
    EXPECT_ERROR(".byte 1\n", 1, 1, "only .dword may appear in .text");
    EXPECT_ERROR(".word 1\n", 1, 1, "only .dword");
    EXPECT_ERROR(".align 3\n", 1, 1, ".align takes a power of two");
    EXPECT_ERROR(".data\n.align 0\n", 2, 1, "power of two");
    EXPECT_ERROR(".align 8192\n", 1, 1, "power of two");
    EXPECT_ERROR(".align N\n.equ N, 8\n", 1, 1, "no forward references");
    EXPECT_ERROR(".zero 4\n", 1, 1, ".text grows in 8-byte instructions");
    EXPECT_ERROR(".chip ascend999\n", 1, 7, "unknown chip 'ascend999'");
    EXPECT_ERROR(".text x\n", 1, 7, "too many operands for .text");
    EXPECT_ERROR(".data\n.kernel k\n.text\nend\n", 2, 1, ".kernel in .data");
}
END_TEST

START_TEST(test_too_many_args)
{
    char src[2048];
    size_t len = (size_t)snprintf(src, sizeof src, ".kernel k\n");
    for (int i = 0; i < 17; i++)
        len += (size_t)snprintf(src + len, sizeof src - len, ".arg p%d\n", i);
    len += (size_t)snprintf(src + len, sizeof src - len, "end\n");
    expect_error_at(src, len, 18, 1, (const char *const[]){"more than 16 arguments", NULL}, __FILE__,
                    __LINE__);
}
END_TEST

/* .align and .zero refuse values that depend on later symbols, also through
 * an .equ. */
START_TEST(test_align_forward_equ)
{
    EXPECT_ERROR(".data\n.equ E, F\n.align E\n.equ F, 8\n", 3, 1, "no forward references");
}
END_TEST

START_TEST(test_macro_no_endm)
{
    EXPECT_ERROR("nop\n  .macro m\nnop\n", 2, 3, "macro 'm' has no .endm");
}
END_TEST

START_TEST(test_macro_errors)
{
    EXPECT_ERROR("nop\n  .endm\n", 2, 3, ".endm without .macro");
    EXPECT_ERROR(".macro m a, b\nadd \\a, \\b, \\b\n.endm\nm x1\n", 4, 1,
                 "macro 'm' takes 2 arguments, given 1");
    EXPECT_ERROR(".macro m a\nnop\n.endm\n  m x1, x2, x3\n", 4, 3, "takes 1 argument", "given 3");
    EXPECT_ERROR(".macro r\nr\n.endm\nr\n", 4, 1, "recursive macro", "(in macro at t.dvs:2:1)");
    EXPECT_ERROR(".macro add\n.endm\n", 1, 1, "already defined or is an instruction");
    EXPECT_ERROR(".macro m\n.macro n\n.endm\n", 2, 1, "cannot be defined inside another");
    /* an error inside an expansion points at the call and names the macro body line */
    EXPECT_ERROR(".macro m\n  frob\n.endm\nm\n", 4, 1, "unknown instruction 'frob'",
                 "(in macro at t.dvs:2:3)");
    /* nested: the outermost call, the innermost body line */
    EXPECT_ERROR(".macro i\n  frob\n.endm\n.macro o\n  i\n.endm\n  o\n", 7, 3, "unknown instruction 'frob'",
                 "(in macro at t.dvs:2:3)");
}
END_TEST

START_TEST(test_misc_errors)
{
    EXPECT_ERROR("csrr x1, nosuch\n", 1, 10, "unknown CSR 'nosuch'");
    EXPECT_ERROR("pack.foo x1, a=1\n", 1, 1, "unknown parameter layout 'foo'", "vrep");
    EXPECT_ERROR("pack.vrep x1, foo=1\n", 1, 15, "layout vrep has no field 'foo'", "repeat");
    EXPECT_ERROR("pack.vrep x1, repeat=1, repeat=2\n", 1, 25, "given twice");
    EXPECT_ERROR("pack.vrep x1, 5\n", 1, 15, "expected key=value");
    EXPECT_ERROR("beq x1, x2, 4\n", 1, 13, "not a multiple of 8");
    EXPECT_ERROR("nop\nj 12\n", 2, 3, "not a multiple of 8");
    EXPECT_ERROR("bnez x1, 0x100000000\n", 1, 10, "out of range");
    EXPECT_ERROR("jal x0, 0x80000000\n", 1, 9, "out of range");
    EXPECT_ERROR("1: nop\n", 1, 1, "expected an instruction or directive");
}
END_TEST

START_TEST(test_nul_byte)
{
    static const char src[] = "nop\nnop \0\n";
    expect_error_at(src, sizeof src - 1, 2, 5, (const char *const[]){"NUL byte", NULL}, __FILE__, __LINE__);
}
END_TEST

START_TEST(test_long_line)
{
    char src[5000];
    memset(src, ' ', sizeof src);
    memcpy(src, "nop\n", 4);
    memcpy(src + 4000, "nop", 3);
    src[sizeof src - 1] = '\n';
    expect_error_at(src, sizeof src, 2, 1, (const char *const[]){"longer than", NULL}, __FILE__, __LINE__);
}
END_TEST

/* ---- files ---- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(test_file_errors)
{
    dv_obj *o = NULL;
    dv_diags diags = {NULL, 0};
    dv_error err;
    ck_assert_int_eq(dv_asm_file("/nonexistent-dir/k.dvs", NULL, &o, &diags, &err), DV_ERR_MISSING);
    ck_assert_ptr_null(o);
    ck_assert_uint_eq(diags.count, 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent-dir/k.dvs"));

    char dir[] = "/tmp/dvasm-errXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char top[64], self[64], missing[64];
    snprintf(top, sizeof top, "%s/top.dvs", dir);
    snprintf(self, sizeof self, "%s/self.inc", dir);
    snprintf(missing, sizeof missing, "%s/missing.dvs", dir);
    write_file(self, ".include \"self.inc\"\n");
    write_file(top, "nop\n.include \"self.inc\"\n");
    write_file(missing, "nop\n  .include \"nope.inc\"\n");

    /* a file that includes itself: one error at the include that is too deep */
    dv_status st = dv_asm_file(top, NULL, &o, &diags, &err);
    ck_assert_int_eq(st, DV_ERR_INPUT);
    ck_assert_uint_eq(diags.count, 1);
    char want[96];
    snprintf(want, sizeof want, "%s:1:1: ", self);
    CHECK(strncmp(diags.lines[0], want, strlen(want)) == 0 && strstr(diags.lines[0], "cycle"),
          "include cycle: '%s'", diags.lines[0]);
    dv_diags_free(&diags);

    /* a missing include is an error of the including line */
    st = dv_asm_file(missing, NULL, &o, &diags, &err);
    ck_assert_int_eq(st, DV_ERR_INPUT);
    ck_assert_uint_eq(diags.count, 1);
    snprintf(want, sizeof want, "%s:2:12: ", missing);
    CHECK(strncmp(diags.lines[0], want, strlen(want)) == 0 && strstr(diags.lines[0], "cannot find") &&
              strstr(diags.lines[0], "\"nope.inc\""),
          "missing include: '%s'", diags.lines[0]);
    dv_diags_free(&diags);

    /* includes can be switched off */
    dv_asm_options opt = {NULL, 0, 0, true};
    st = dv_asm_file(top, &opt, &o, &diags, &err);
    ck_assert_int_eq(st, DV_ERR_INPUT);
    ck_assert_uint_eq(diags.count, 1);
    snprintf(want, sizeof want, "%s:2:1: ", top);
    CHECK(strncmp(diags.lines[0], want, strlen(want)) == 0 && strstr(diags.lines[0], "disabled"),
          "no_includes: '%s'", diags.lines[0]);
    dv_diags_free(&diags);

    remove(top);
    remove(self);
    remove(missing);
    rmdir(dir);

    EXPECT_ERROR(".include nope.inc\n", 1, 10, "expected .include \"file\"");
}
END_TEST

/* A file that includes itself three times: the depth limit alone lets this
 * run 3^15 includes deep, so it must be caught as a cycle, quickly (the
 * test case has a short timeout).  The file is made and removed by an
 * unchecked fixture, which runs in Check's parent process, so a timeout
 * does not leave it behind. */
static char cycle_dir[] = "/tmp/dvasm-cycXXXXXX";
static char cycle_file[64];

static void cycle_setup(void)
{
    if (!mkdtemp(cycle_dir))
        return;
    snprintf(cycle_file, sizeof cycle_file, "%s/s3.inc", cycle_dir);
    FILE *f = fopen(cycle_file, "w");
    if (f) {
        fputs(".include \"s3.inc\"\n.include \"s3.inc\"\n.include \"s3.inc\"\n", f);
        fclose(f);
    }
}

static void cycle_teardown(void)
{
    remove(cycle_file);
    rmdir(cycle_dir);
}

START_TEST(test_include_fanout_cycle)
{
    ck_assert_msg(cycle_file[0], "fixture could not create the include file");
    dv_obj *o = NULL;
    dv_diags diags = {NULL, 0};
    dv_error err;
    dv_status st = dv_asm_file(cycle_file, NULL, &o, &diags, &err);
    ck_assert_int_eq(st, DV_ERR_INPUT);
    ck_assert_uint_ge(diags.count, 1);
    CHECK(strstr(diags.lines[0], "cycle") != NULL, "'%s'", diags.lines[0]);
    dv_diags_free(&diags);
}
END_TEST

/* A macro whose body only calls itself twice pushes no lines, so the
 * expansion's line limit never stops it: 2^32 expansions. */
START_TEST(test_macro_double_recursion)
{
    EXPECT_ERROR(".macro r\nr\nr\n.endm\nr\n", 5, 1, "recursive macro");
}
END_TEST

/* Repetitions count against the expansion's line budget even when they
 * make no line that is assembled (an empty body, a false .if): 2^32 copies
 * otherwise. */
START_TEST(test_rept_budget)
{
    EXPECT_ASM_ERROR(".rept 65536\n.rept 65536\n.endr\n.endr\n", "t.dvs:2: ", "more than 500000 lines");
    EXPECT_ASM_ERROR(".rept 65536\n.rept 65536\n.if 0\n nop\n.endif\n.endr\n.endr\n",
                     "t.dvs:2: ", "more than 500000 lines");
    EXPECT_ASM_ERROR(".irp a, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n"
                     ".irp b, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n"
                     ".irp c, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n"
                     ".irp d, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n"
                     ".irp e, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n"
                     ".irp f, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n"
                     ".endr\n.endr\n.endr\n.endr\n.endr\n.endr\n",
                     "more than 500000 lines");
    /* what stays under it still assembles: 40000 x (2 + 4) + 1000 + 7 lines */
    dv_obj *o = ASM_OK(".rept 40000\n.rept 4\n.endr\n.endr\n.rept 1000\n nop\n.endr\n");
    ck_assert_uint_eq(o->text_size, 8000);
    dv_obj_destroy(o);
}
END_TEST

/* An unterminated block comment must not silently swallow the rest of the
 * file. */
START_TEST(test_unterminated_block_comment)
{
    EXPECT_ERROR("nop\n  /* oops\nadd x1, x2, x3\nend\n", 2, 3, "unterminated");
}
END_TEST

/* ---- several errors ---- */

static const char five_errors[] = "li x1, undefined_sym\n" /* 1: found in pass 2 */
                                  "frob\n"                 /* 2: pass 1 */
                                  "nop\n"
                                  "add x1, x2\n"    /* 4: pass 1 */
                                  "beq x1, x2, 4\n" /* 5: pass 2 */
                                  ".byte 1\n";      /* 6: pass 1 */

START_TEST(test_all_errors_reported)
{
    asm_run r = asm_text("t.dvs", five_errors, strlen(five_errors), NULL);
    ck_assert_int_eq(r.st, DV_ERR_INPUT);
    ck_assert_ptr_null(r.obj);
    ck_assert_uint_eq(r.diags.count, 5);
    static const unsigned lines[] = {1, 2, 4, 5, 6};
    for (size_t i = 0; i < 5; i++)
        CHECK(has_location(r.diags.lines[i], "t.dvs", lines[i], 0), "diagnostic %zu: '%s', want line %u", i,
              r.diags.lines[i], lines[i]);
    ck_assert_ptr_nonnull(strstr(r.err.msg, "(5 errors)"));
    ck_assert_ptr_nonnull(strstr(r.err.msg, "undefined_sym"));
    asm_run_free(&r);
}
END_TEST

START_TEST(test_max_errors)
{
    dv_asm_options opt = {NULL, 0, 3};
    asm_run r = asm_text("t.dvs", five_errors, strlen(five_errors), &opt);
    ck_assert_int_eq(r.st, DV_ERR_INPUT);
    ck_assert_uint_eq(r.diags.count, 3);
    ck_assert_ptr_nonnull(strstr(r.err.msg, "(5 errors)"));
    size_t suppressed = 0;
    for (size_t i = 0; i < r.diags.count; i++)
        suppressed += strstr(r.diags.lines[i], "further errors suppressed") != NULL;
    ck_assert_uint_eq(suppressed, 1);
    asm_run_free(&r);

    /* exactly max_errors errors: nothing was suppressed, so nothing says so */
    opt.max_errors = 5;
    r = asm_text("t.dvs", five_errors, strlen(five_errors), &opt);
    ck_assert_uint_eq(r.diags.count, 5);
    for (size_t i = 0; i < r.diags.count; i++)
        CHECK(!strstr(r.diags.lines[i], "suppressed"), "'%s' claims suppressed errors, but all 5 are listed",
              r.diags.lines[i]);
    asm_run_free(&r);

    /* the default cap is 100 */
    char src[4096];
    size_t len = 0;
    for (int i = 0; i < 150; i++)
        len += (size_t)snprintf(src + len, sizeof src - len, "frob\n");
    r = asm_text("t.dvs", src, len, NULL);
    ck_assert_uint_eq(r.diags.count, 100);
    ck_assert_ptr_nonnull(strstr(r.err.msg, "(150 errors)"));
    asm_run_free(&r);
}
END_TEST

/* One bad line does not hide the good lines' errors nor invent new ones. */
START_TEST(test_no_cascade)
{
    const char *src = "li x1, undefined + 1\n"
                      "later: nop\n"
                      "j later\n"
                      "li x2, 0x123456789\n"
                      "frob x1\n"
                      "j later\n";
    asm_run r = asm_text("t.dvs", src, strlen(src), NULL);
    ck_assert_uint_eq(r.diags.count, 2);
    ck_assert(has_location(r.diags.lines[0], "t.dvs", 1, 8));
    ck_assert(has_location(r.diags.lines[1], "t.dvs", 5, 1));
    asm_run_free(&r);
}
END_TEST

Suite *asm_errors_suite(void)
{
    Suite *s = suite_create("asm-errors");
    TCase *tc = tcase_create("classes");
    tcase_add_test(tc, test_unknown_instruction);
    tcase_add_test(tc, test_unknown_register);
    tcase_add_test(tc, test_operand_count);
    tcase_add_test(tc, test_keyed_fields);
    tcase_add_test(tc, test_out_of_range);
    tcase_add_test(tc, test_symbols);
    tcase_add_test(tc, test_expression_errors);
    tcase_add_test(tc, test_directive_errors);
    tcase_add_test(tc, test_too_many_args);
    tcase_add_test(tc, test_align_forward_equ);
    tcase_add_test(tc, test_macro_errors);
    tcase_add_test(tc, test_macro_no_endm);
    tcase_add_test(tc, test_misc_errors);
    tcase_add_test(tc, test_nul_byte);
    tcase_add_test(tc, test_long_line);
    tcase_add_test(tc, test_file_errors);
    tcase_add_test(tc, test_unterminated_block_comment);
    suite_add_tcase(s, tc);
    /* inputs that used to run (practically) forever: a short timeout */
    tc = tcase_create("runaway");
    tcase_set_timeout(tc, 10);
    tcase_add_unchecked_fixture(tc, cycle_setup, cycle_teardown);
    tcase_add_test(tc, test_include_fanout_cycle);
    tcase_add_test(tc, test_macro_double_recursion);
    tcase_add_test(tc, test_rept_budget);
    suite_add_tcase(s, tc);
    tc = tcase_create("reporting");
    tcase_add_test(tc, test_all_errors_reported);
    tcase_add_test(tc, test_max_errors);
    tcase_add_test(tc, test_no_cascade);
    suite_add_tcase(s, tc);
    return s;
}
