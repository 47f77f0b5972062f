/* test_isa_random.c - random round trips of the ISA: random valid
 * instructions go encode -> decode -> text -> assemble back to the same
 * word, and every random word the decoder accepts re-encodes to itself. */
#include "dv_asm.h"
#include "dv_isa.h"
#include "isa_ops.h"
#include "test_util.h"

#include <check.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RANDOM_INSNS = 100000, RANDOM_WORDS = 300000 };

/* ---- (d) random valid instructions ---- */

static int64_t random_value(test_rng *rng, const dv_opspec *spec)
{
    const dv_field_info *fi = dv_isa_field(spec->field);
    uint64_t r = test_rng_next(rng);
    bool edge = (r & 7) == 0;
    r >>= 3;
    switch (fi->kind) {
    case DV_FK_REG: return (int64_t)(r % DV_NUM_REGS);
    case DV_FK_SIMM: {
        static const int64_t e[] = {0, 1, -1, 4095, 4096, -4095, -4096, INT32_MAX, INT32_MIN};
        return edge ? e[r % 9] : (int64_t)(int32_t)(uint32_t)r;
    }
    case DV_FK_UIMM: {
        static const int64_t e[] = {0, 1, 4095, 4096, 0x7fffffff, 0x80000000, 0xffffffff};
        return edge ? e[r % 7] : (int64_t)(uint32_t)r;
    }
    case DV_FK_TARGET: {
        static const int64_t e[] = {0, 8, -8, 4088, 4096, -4096, INT32_MAX & ~7, INT32_MIN};
        return edge ? e[r % 8] : (int64_t)(int32_t)(uint32_t)(r & ~7ull);
    }
    case DV_FK_CSR:
        if (r & 1)
            return dv_csr_at((r >> 1) % dv_csr_count())->number;
        return (int64_t)((r >> 1) % 0x1000);
    case DV_FK_ENUM: return (int64_t)(r % fi->count);
    case DV_FK_UINT:
        if (spec->field == DV_F_CCMODE)
            return (int64_t)(r % 3);
        return (int64_t)(r & ((1ull << spec->width) - 1));
    }
    return 0;
}

typedef struct fill_ctx {
    test_rng *rng;
    dv_insn *insn;
} fill_ctx;

static void fill_op(const dv_opspec *spec, void *user)
{
    fill_ctx *c = user;
    c->insn->f[spec->field] = random_value(c->rng, spec);
}

static dv_insn random_insn(test_rng *rng, const dv_insn_info *r)
{
    dv_insn insn;
    memset(&insn, 0, sizeof insn);
    insn.op = r->opcode;
    fill_ctx c = {rng, &insn};
    /* only type-legal instructions assemble (isa_types.def): draw again */
    char why[160];
    do
        for_each_op(dv_isa_format(r->fmt), fill_op, &c);
    while (!dv_isa_types_ok(&insn, why, sizeof why));
    return insn;
}

static bool insn_equal(const dv_insn *a, const dv_insn *b)
{
    if (a->op != b->op)
        return false;
    for (int f = 0; f < DV_F_COUNT; f++)
        if (a->f[f] != b->f[f])
            return false;
    return true;
}

/* Assembles one line of text and returns the word at byte offset `at`; the
 * test fails with the diagnostic if it does not assemble. */
static uint64_t assemble_word(const char *src, size_t at, const char *what)
{
    asm_run a = asm_text("rt.dvs", src, strlen(src), NULL);
    char first[600];
    snprintf(first, sizeof first, "%s", a.diags.count ? a.diags.lines[0] : a.err.msg);
    bool ok = a.st == DV_OK && a.obj && a.obj->text_size == at + 8;
    uint64_t w = ok ? obj_word(a.obj, at / 8) : 0;
    asm_run_free(&a);
    CHECK(ok, "%s: '%s' does not assemble: %s", what, src, first);
    return w;
}

START_TEST(test_random_round_trip)
{
    test_rng rng = {0x2545f4914f6cdd1dull};
    size_t n = dv_isa_count();
    unsigned per_row[256] = {0};
    for (int it = 0; it < RANDOM_INSNS; it++) {
        const dv_insn_info *r = dv_isa_at((size_t)(test_rng_next(&rng) % n));
        dv_insn insn = random_insn(&rng, r), d;
        uint64_t w;
        dv_error err;
        CHECK(dv_isa_encode(&insn, &w, &err) == DV_OK, "%s: encode failed: %s", r->mnemonic, err.msg);
        CHECK((w & 0xff) == (uint64_t)r->opcode, "%s: opcode bits", r->mnemonic);
        CHECK(dv_isa_decode(w, &d, &err) == DV_OK, "%s: 0x%016" PRIx64 " does not decode: %s", r->mnemonic, w,
              err.msg);
        CHECK(insn_equal(&insn, &d), "%s: 0x%016" PRIx64 " decodes to different fields", r->mnemonic, w);
        char text[256];
        size_t len = dv_isa_format_insn(&d, 0, NULL, NULL, text, sizeof text);
        CHECK(len > 0 && len < sizeof text && len == strlen(text), "%s: text length %zu", r->mnemonic, len);
        CHECK(strncmp(text, r->mnemonic, strlen(r->mnemonic)) == 0, "text '%s' does not start with %s", text,
              r->mnemonic);
        /* any bit outside the format's fields makes the word illegal */
        uint64_t unused = ~used_bits(dv_isa_format(r->fmt));
        if (unused) {
            unsigned bit;
            do
                bit = (unsigned)(test_rng_next(&rng) % 64);
            while (!(unused >> bit & 1));
            CHECK(dv_isa_decode(w | 1ull << bit, &d, &err) == DV_ERR_INPUT,
                  "%s: 0x%016" PRIx64 " with bit %u accepted", r->mnemonic, w, bit);
        }
        uint64_t back = assemble_word(text, 0, r->mnemonic);
        CHECK(back == w, "'%s': assembles to 0x%016" PRIx64 ", encoder gave 0x%016" PRIx64, text, back, w);
        per_row[r->opcode]++;
    }
    for (size_t i = 0; i < n; i++)
        CHECK(per_row[dv_isa_at(i)->opcode] > 0, "%s never drawn", dv_isa_at(i)->mnemonic);
}
END_TEST

typedef struct label_ctx {
    uint64_t addr;
} label_ctx;

static const char *label_fn(void *user, uint64_t address)
{
    const label_ctx *c = user;
    return address == c->addr ? "dest" : NULL;
}

/* Branches at other addresses than 0, printed as an address or a label. */
START_TEST(test_branch_text_at_pc)
{
    test_rng rng = {0x1234567887654321ull};
    static const dv_opcode ops[] = {DV_OP_BEQ,  DV_OP_BNE,  DV_OP_BLT, DV_OP_BGE,
                                    DV_OP_BLTU, DV_OP_BGEU, DV_OP_JAL};
    for (int it = 0; it < 2000; it++) {
        const dv_insn_info *r = dv_isa_info(ops[test_rng_next(&rng) % 7]);
        dv_insn insn = random_insn(&rng, r);
        uint64_t pc = 8 * (test_rng_next(&rng) % 64), dest = 8 * (test_rng_next(&rng) % 80);
        insn.f[DV_F_TARGET] = (int64_t)dest - (int64_t)pc;
        uint64_t w;
        dv_error err;
        CHECK(dv_isa_encode(&insn, &w, &err) == DV_OK, "encode: %s", err.msg);
        bool use_label = it & 1;
        label_ctx lc = {dest};
        char text[256];
        dv_isa_format_insn(&insn, pc, use_label ? label_fn : NULL, &lc, text, sizeof text);
        CHECK(use_label == (strstr(text, "dest") != NULL), "label use in '%s'", text);
        /* nops up to the instruction, a label at dest */
        char src[8192];
        size_t len = 0;
        uint64_t end = (pc > dest ? pc : dest) + 8;
        for (uint64_t a = 0; a < end; a += 8) {
            if (use_label && a == dest)
                len += (size_t)snprintf(src + len, sizeof src - len, "dest:\n");
            len += (size_t)snprintf(src + len, sizeof src - len, "%s\n", a == pc ? text : "nop");
        }
        asm_run a = asm_text("pc.dvs", src, len, NULL);
        CHECK(a.st == DV_OK, "'%s' at pc %" PRIu64 ": %s", text, pc,
              a.diags.count ? a.diags.lines[0] : a.err.msg);
        uint64_t back = obj_word(a.obj, pc / 8);
        asm_run_free(&a);
        CHECK(back == w, "'%s' at pc %" PRIu64 ": 0x%016" PRIx64 " != 0x%016" PRIx64, text, pc, back, w);
    }
}
END_TEST

/* ---- (e) random words ---- */

START_TEST(test_random_words)
{
    test_rng rng = {0xdeadbeefcafef00dull};
    size_t n = dv_isa_count();
    unsigned accepted = 0, reassembled = 0;
    for (int it = 0; it < RANDOM_WORDS; it++) {
        uint64_t w = test_rng_next(&rng);
        unsigned mode = it % 4;
        if (mode != 0) {
            /* a real opcode with random field bits, sometimes one stray bit */
            const dv_insn_info *r = dv_isa_at((size_t)(test_rng_next(&rng) % n));
            w = (w & used_bits(dv_isa_format(r->fmt)) & ~0xffull) | (uint64_t)r->opcode;
            if (mode == 3)
                w |= 1ull << (8 + test_rng_next(&rng) % 56);
        }
        dv_insn d;
        dv_error err;
        if (dv_isa_decode(w, &d, &err) != DV_OK) {
            CHECK(err.status == DV_ERR_INPUT && strstr(err.msg, "illegal instruction"),
                  "0x%016" PRIx64 ": '%s'", w, err.msg);
            continue;
        }
        accepted++;
        uint64_t back;
        CHECK(dv_isa_encode(&d, &back, &err) == DV_OK, "0x%016" PRIx64 " decodes but does not encode: %s", w,
              err.msg);
        CHECK(back == w, "0x%016" PRIx64 " decodes but re-encodes as 0x%016" PRIx64, w, back);
        /* disassemble -> assemble, on a sample (the assembler is slower) */
        if (it % 8 == 1) {
            char text[256];
            dv_isa_format_insn(&d, 0, NULL, NULL, text, sizeof text);
            uint64_t a = assemble_word(text, 0, "decoded word");
            CHECK(a == w, "0x%016" PRIx64 " lists as '%s', which assembles to 0x%016" PRIx64, w, text, a);
            reassembled++;
        }
    }
    /* the generator must actually reach the accepting paths */
    ck_assert_uint_gt(accepted, RANDOM_WORDS / 3);
    ck_assert_uint_gt(reassembled, RANDOM_WORDS / 40);
}
END_TEST

/* A word the decoder accepts must list as text that assembles back to it
 * (dv_disasm.h promises this of whole listings). */
static void check_decoded_reassembles(uint64_t w)
{
    dv_insn d;
    dv_error err;
    if (dv_isa_decode(w, &d, &err) != DV_OK)
        return; /* rejecting it is consistent too */
    char text[256];
    dv_isa_format_insn(&d, 0, NULL, NULL, text, sizeof text);
    asm_run a = asm_text("dis.dvs", text, strlen(text), NULL);
    char first[600];
    snprintf(first, sizeof first, "%s", a.diags.count ? a.diags.lines[0] : "");
    uint64_t back = a.st == DV_OK ? obj_word(a.obj, 0) : 0;
    dv_status st = a.st;
    asm_run_free(&a);
    CHECK(st == DV_OK,
          "the decoder accepts 0x%016" PRIx64 ", listed as '%s', but the assembler rejects it: %s", w, text,
          first);
    CHECK(back == w, "0x%016" PRIx64 " -> '%s' -> 0x%016" PRIx64, w, text, back);
}

START_TEST(test_decoded_ccmode3)
{
    /* cc_set_flag pipe=s, mode=3, id=0: ccmode is documented as 0, 1 or 2 */
    check_decoded_reassembles(DV_OP_CC_SET_FLAG | (3ull << 36));
}
END_TEST

START_TEST(test_decoded_misaligned_target)
{
    /* beq x0, x0 with a PC-relative offset of 4 bytes */
    check_decoded_reassembles(DV_OP_BEQ | (4ull << 32));
    check_decoded_reassembles(DV_OP_JAL | (0xfffffffcull << 32));
}
END_TEST

/* The fp32 Cube forms (isa_types.def's CUBE rule takes f32; load2d's
 * merging transpose of 4-byte elements): each assembles, decodes with
 * dtype f32, lists with it and assembles back to the same word. */
START_TEST(test_f32_cube_forms)
{
    static const char *const texts[] = {
        "mmad x1, x2, x3, x4, dtype=f32, init=1\n",
        "mmad x1, x2, x3, x4, dtype=f32\n",
        "load2d_l0b x5, x6, x7, dtype=f32, transpose=1\n",
        "load2d_l0a x5, x6, x7, dtype=f32, transpose=1\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        asm_run a = asm_text("f32.dvs", texts[i], strlen(texts[i]), NULL);
        dv_status st = a.st;
        uint64_t w = st == DV_OK ? obj_word(a.obj, 0) : 0;
        asm_run_free(&a);
        ck_assert_msg(st == DV_OK, "%s does not assemble", texts[i]);
        dv_insn d;
        dv_error err;
        ck_assert_msg(dv_isa_decode(w, &d, &err) == DV_OK, "%s", err.msg);
        ck_assert_int_eq(d.f[DV_F_DTYPE], DV_DT_F32);
        char text[256];
        dv_isa_format_insn(&d, 0, NULL, NULL, text, sizeof text);
        ck_assert_msg(strstr(text, "dtype=f32"), "%s", text);
        check_decoded_reassembles(w);
    }
}
END_TEST

Suite *isa_random_suite(void);

Suite *isa_random_suite(void)
{
    Suite *s = suite_create("isa-random");
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 110);
    tcase_add_test(tc, test_random_round_trip);
    tcase_add_test(tc, test_branch_text_at_pc);
    tcase_add_test(tc, test_random_words);
    suite_add_tcase(s, tc);
    tc = tcase_create("decoded-listing");
    tcase_add_test(tc, test_decoded_ccmode3);
    tcase_add_test(tc, test_decoded_misaligned_target);
    tcase_add_test(tc, test_f32_cube_forms);
    suite_add_tcase(s, tc);
    return s;
}
