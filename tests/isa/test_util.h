/* test_util.h - helpers shared by the ISA and assembler tests. */
#ifndef DV_TEST_UTIL_H
#define DV_TEST_UTIL_H

#include "dv_asm.h"
#include "dv_isa.h"

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ck_assert records a mark point on every call, which is slow in loops of
 * 100,000 iterations; CHECK calls into Check only when it fails. */
#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond))                                                                                         \
            ck_abort_msg(__VA_ARGS__);                                                                       \
    } while (0)

/* xorshift64: a fixed seed makes every run test the same values. */
typedef struct test_rng {
    uint64_t s;
} test_rng;

static inline uint64_t test_rng_next(test_rng *r)
{
    uint64_t x = r->s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return r->s = x;
}

/* One assembly: status, object (NULL on failure), diagnostics, error. */
typedef struct asm_run {
    dv_status st;
    dv_obj *obj;
    dv_diags diags;
    dv_error err;
} asm_run;

/* Assembles len bytes of src named `name` in diagnostics. */
asm_run asm_text(const char *name, const char *src, size_t len, const dv_asm_options *opt);
void asm_run_free(asm_run *r);

/* Assembles a NUL-terminated source that must assemble cleanly; the test
 * fails (listing the diagnostics) otherwise.  The caller destroys the object. */
dv_obj *asm_ok_at(const char *src, const dv_asm_options *opt, const char *file, int line);
#define ASM_OK(src) asm_ok_at((src), NULL, __FILE__, __LINE__)
/* src (as "t.dvs") must fail, its first diagnostic containing every word. */
void asm_error_at(const char *src, const char *const *words, const char *file, int line);
#define EXPECT_ASM_ERROR(src, ...)                                                                           \
    asm_error_at((src), (const char *const[]){__VA_ARGS__, NULL}, __FILE__, __LINE__)

/* The index-th 64-bit word of .text, and its decoding (must be legal). */
uint64_t obj_word(const dv_obj *obj, size_t index);
dv_insn obj_insn(const dv_obj *obj, size_t index);
size_t nwords(const dv_obj *obj);

/* EXPECT_INSN(obj, i, op, field, value, ..., END): the i-th instruction of
 * obj is `op` with those fields and every other field zero. */
enum { END = -1 };
void expect_insn_at(const dv_obj *obj, size_t index, dv_opcode op, const int64_t *pairs, const char *file,
                    int line);
#define EXPECT_INSN(obj, index, op, ...)                                                                     \
    expect_insn_at((obj), (index), (op), (const int64_t[]){__VA_ARGS__}, __FILE__, __LINE__)

/* The value a `li` (one word) or `li` + `lih` (two words) sequence starting
 * at word i leaves in register rd; *words is set to 1 or 2. */
uint64_t li_value(const dv_obj *obj, size_t i, int rd, size_t *words);

/* Little-endian 64-bit value at byte offset off of .data. */
uint64_t data_u64(const dv_obj *obj, size_t off);

/* Case-insensitive substring test. */
bool contains_nocase(const char *haystack, const char *needle);

/* Suites of test_asm_directives.c and test_asm_errors.c, run by test_asm.c's main. */
Suite *asm_directives_suite(void);
Suite *asm_errors_suite(void);
Suite *asm_blocks_suite(void);

#endif
