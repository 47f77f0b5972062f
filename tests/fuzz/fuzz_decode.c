/* fuzz_decode.c - fuzz harness for the instruction decoder, encoder and
 * formatter.
 *
 * The input is read as little-endian 64-bit words (a trailing partial word is
 * ignored), the way the simulator and disassembler read .text.  For each
 * word that dv_isa_decode accepts:
 *   - dv_isa_encode gives the same word back: the decoder rejects non-zero
 *     unused bits and out-of-range enums, so decode is one-to-one and the
 *     round trip must be exact;
 *   - dv_isa_format_insn does not crash, with and without labels, into a
 *     buffer that is large enough and into one that is much too small, and
 *     returns the same (untruncated) length both times.
 * Finally the accepted words are formatted as one source text and assembled
 * again, which must reproduce them exactly: the disassembler relies on the
 * formatted text being valid assembler input for the same word. */
#include "dv_asm.h"
#include "dv_buf.h"
#include "dv_isa.h"
#include "dv_obj.h"
#include "fuzz.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

enum { MAX_WORDS = 1024 }; /* words per input: enough, and keeps one run fast */

static const char *label_of(void *user, uint64_t address)
{
    (void)user;
    /* Name some targets so both formatter paths (label / address) run. */
    return (address & 8) ? "somewhere" : NULL;
}

static uint64_t load_le64(const uint8_t *p)
{
    uint64_t w = 0;
    for (int i = 0; i < 8; i++)
        w |= (uint64_t)p[i] << (8 * i);
    return w;
}

static void check_text_round_trip(const uint64_t *words, size_t n, const dv_buf *src)
{
    static const dv_asm_options opt = {.max_errors = 4, .no_includes = true};
    dv_obj *obj = NULL;
    dv_diags diags = {NULL, 0};
    dv_error err;
    dv_error_clear(&err);
    const char *text = src->data ? src->data : "";
    dv_status st = dv_asm_string("decoded.dvs", text, src->len, &opt, &obj, &diags, &err);
    if (st == DV_ERR_NOMEM) {
        dv_diags_free(&diags);
        return;
    }
    if (st != DV_OK) {
        fprintf(stderr, "---- formatted words ----\n%s---- end ----\n", text);
        for (size_t i = 0; i < diags.count; i++)
            fprintf(stderr, "%s\n", diags.lines[i]);
    }
    FUZZ_CHECK(st == DV_OK, "formatted instructions do not assemble: %s", err.msg);
    FUZZ_CHECK(obj->text_size == n * 8, "%zu words formatted, %zu bytes assembled", n, obj->text_size);
    for (size_t i = 0; i < n; i++) {
        uint64_t got = load_le64(obj->text + i * 8);
        FUZZ_CHECK(got == words[i], "word %zu: 0x%016" PRIx64 " formatted and assembled gives 0x%016" PRIx64,
                   i, words[i], got);
    }
    dv_obj_destroy(obj);
    dv_diags_free(&diags);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t nwords = size / 8;
    if (nwords > MAX_WORDS)
        nwords = MAX_WORDS;
    uint64_t accepted[MAX_WORDS];
    size_t naccepted = 0;
    dv_buf src = DV_BUF_INIT;

    for (size_t i = 0; i < nwords; i++) {
        uint64_t word = load_le64(data + i * 8);
        dv_insn insn;
        dv_error err;
        dv_error_clear(&err);
        if (dv_isa_decode(word, &insn, &err) != DV_OK)
            continue;
        const dv_insn_info *info = dv_isa_info((unsigned)insn.op);
        FUZZ_CHECK(info != NULL, "decoded 0x%016" PRIx64 " to unassigned opcode %d", word, (int)insn.op);

        uint64_t again = 0;
        dv_status st = dv_isa_encode(&insn, &again, &err);
        FUZZ_CHECK(st == DV_OK, "0x%016" PRIx64 " (%s) decodes but does not encode: %s", word, info->mnemonic,
                   err.msg);
        FUZZ_CHECK(again == word, "0x%016" PRIx64 " (%s) re-encodes as 0x%016" PRIx64, word, info->mnemonic,
                   again);
        (void)dv_insn_pipe(&insn);

        uint64_t pc = (uint64_t)naccepted * 8;
        char big[512], small[6];
        size_t n1 = dv_isa_format_insn(&insn, pc, label_of, NULL, big, sizeof big);
        size_t n2 = dv_isa_format_insn(&insn, pc, label_of, NULL, small, sizeof small);
        FUZZ_CHECK(n1 == n2 && n1 < sizeof big && strlen(big) == n1 && strlen(small) < sizeof small,
                   "format lengths %zu / %zu for 0x%016" PRIx64, n1, n2, word);
        /* Without labels, targets print as absolute addresses, which the
         * assembler turns back into the same pc-relative offset. */
        (void)dv_isa_format_insn(&insn, pc, NULL, NULL, big, sizeof big);
        dv_buf_printf(&src, "%s\n", big);
        accepted[naccepted++] = word;
    }
    if (naccepted > 0 && !src.oom)
        check_text_round_trip(accepted, naccepted, &src);
    dv_buf_free(&src);
    return 0;
}
