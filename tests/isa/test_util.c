/* test_util.c - helpers shared by the ISA and assembler tests. */
#include "test_util.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

asm_run asm_text(const char *name, const char *src, size_t len, const dv_asm_options *opt)
{
    asm_run r;
    memset(&r, 0, sizeof r);
    r.st = dv_asm_string(name, src, len, opt, &r.obj, &r.diags, &r.err);
    return r;
}

void asm_run_free(asm_run *r)
{
    dv_obj_destroy(r->obj);
    r->obj = NULL;
    dv_diags_free(&r->diags);
}

dv_obj *asm_ok_at(const char *src, const dv_asm_options *opt, const char *file, int line)
{
    asm_run r = asm_text("t.dvs", src, strlen(src), opt);
    if (r.st != DV_OK || !r.obj) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", r.diags.count ? r.diags.lines[0] : r.err.msg);
        size_t n = r.diags.count;
        asm_run_free(&r);
        ck_abort_msg("%s:%d: assembly failed (%zu diagnostics), first: %s\nsource:\n%s", file, line, n, msg,
                     src);
    }
    if (r.diags.count)
        ck_abort_msg("%s:%d: success with %zu diagnostics: %s", file, line, r.diags.count, r.diags.lines[0]);
    dv_diags_free(&r.diags);
    return r.obj;
}

void asm_error_at(const char *src, const char *const *words, const char *file, int line)
{
    asm_run r = asm_text("t.dvs", src, strlen(src), NULL);
    char first[1024];
    snprintf(first, sizeof first, "%s", r.diags.count ? r.diags.lines[0] : "(no diagnostics)");
    dv_status st = r.st;
    asm_run_free(&r);
    CHECK(st == DV_ERR_INPUT, "%s:%d: status %d, want DV_ERR_INPUT; %s", file, line, (int)st, first);
    for (size_t i = 0; words[i]; i++)
        CHECK(strstr(first, words[i]) != NULL, "%s:%d: '%s' lacks '%s'", file, line, first, words[i]);
}

uint64_t obj_word(const dv_obj *obj, size_t index)
{
    CHECK((index + 1) * 8 <= obj->text_size, "word %zu is past the end of .text (%zu bytes)", index,
          obj->text_size);
    uint64_t w = 0;
    for (int i = 0; i < 8; i++)
        w |= (uint64_t)obj->text[index * 8 + (size_t)i] << (8 * i);
    return w;
}

dv_insn obj_insn(const dv_obj *obj, size_t index)
{
    dv_insn insn;
    dv_error err;
    uint64_t w = obj_word(obj, index);
    CHECK(dv_isa_decode(w, &insn, &err) == DV_OK, "word %zu (0x%016llx) does not decode: %s", index,
          (unsigned long long)w, err.msg);
    return insn;
}

bool contains_nocase(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = haystack; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return n == 0;
}

/* The index-th instruction of obj must be `op` with the given (field, value)
 * pairs (terminated by END) and every other field zero. */
void expect_insn_at(const dv_obj *obj, size_t index, dv_opcode op, const int64_t *pairs, const char *file,
                    int line)
{
    dv_insn want;
    memset(&want, 0, sizeof want);
    want.op = op;
    for (size_t i = 0; pairs[i] != END; i += 2)
        want.f[pairs[i]] = pairs[i + 1];
    dv_insn got = obj_insn(obj, index);
    bool same = got.op == want.op;
    for (int f = 0; f < DV_F_COUNT; f++)
        same = same && got.f[f] == want.f[f];
    if (!same) {
        char g[256], w[256];
        dv_isa_format_insn(&got, index * 8, NULL, NULL, g, sizeof g);
        dv_isa_format_insn(&want, index * 8, NULL, NULL, w, sizeof w);
        ck_abort_msg("%s:%d: word %zu is '%s', want '%s'", file, line, index, g, w);
    }
}

size_t nwords(const dv_obj *obj)
{
    return obj->text_size / 8;
}

/* The value a `li` (one word) or `li` + `lih` (two words) sequence starting
 * at word i leaves in its register, by the semantics in isa.def. */
uint64_t li_value(const dv_obj *obj, size_t i, int rd, size_t *words)
{
    dv_insn lo = obj_insn(obj, i);
    CHECK(lo.op == DV_OP_LI && lo.f[DV_F_R0] == rd, "word %zu is not li x%d", i, rd);
    uint64_t v = (uint64_t)(int64_t)(int32_t)lo.f[DV_F_IMM];
    *words = 1;
    dv_insn hi;
    if (i + 1 < nwords(obj) && dv_isa_decode(obj_word(obj, i + 1), &hi, NULL) == DV_OK) {
        if (hi.op == DV_OP_LIH) {
            CHECK(hi.f[DV_F_R0] == rd, "lih of another register");
            v = (v & 0xffffffffu) | ((uint64_t)hi.f[DV_F_UIMM] << 32);
            *words = 2;
        }
    }
    return v;
}

uint64_t data_u64(const dv_obj *obj, size_t off)
{
    CHECK(off + 8 <= obj->data_size, "data offset %zu past %zu bytes", off, obj->data_size);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)obj->data[off + (size_t)i] << (8 * i);
    return v;
}
