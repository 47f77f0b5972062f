/* test_elf.c - kernel objects: builders, lookups, ELF round trips, and the
 * malformed corpus in malformed/ (DV_MALFORMED_DIR, set by meson.build). */
#include "dv_obj.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef DV_MALFORMED_DIR
#error "DV_MALFORMED_DIR must name the directory of malformed ELF files"
#endif

/* The object every round-trip test uses: text, data, two kernels with
 * arguments, two files and four lines. */
static dv_obj *make_sample(void)
{
    dv_obj *o = dv_obj_create();
    ck_assert_ptr_nonnull(o);
    uint8_t text[64], data[12];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (uint8_t)(i * 7 + 1);
    memset(data, 0xab, sizeof data);
    dv_obj_kernel k1 = {.name = "vadd",
                        .entry = 0,
                        .size = 32,
                        .core = DV_CORE_AIV,
                        .nargs = 3,
                        .args = {{"x", DV_ARG_PTR}, {"y", DV_ARG_PTR}, {"n", DV_ARG_U64}}};
    dv_obj_kernel k2 = {.name = "vmul",
                        .entry = 32,
                        .size = 32,
                        .core = DV_CORE_MIX,
                        .nargs = 2,
                        .args = {{"a", DV_ARG_PTR}, {"scale", DV_ARG_F32}}};
    uint32_t f0 = 99, f1 = 99;
    dv_error err;
    o->family = DV_FAMILY_910B;
    ck_assert_int_eq(dv_obj_set_text(o, text, sizeof text, &err), DV_OK);
    ck_assert_int_eq(dv_obj_set_data(o, data, sizeof data, &err), DV_OK);
    ck_assert_int_eq(dv_obj_add_kernel(o, &k1, &err), DV_OK);
    ck_assert_int_eq(dv_obj_add_kernel(o, &k2, &err), DV_OK);
    ck_assert_int_eq(dv_obj_add_file(o, "k.dvs", &f0, &err), DV_OK);
    ck_assert_int_eq(dv_obj_add_file(o, "inc/common.dvs", &f1, &err), DV_OK);
    ck_assert_uint_eq(f0, 0);
    ck_assert_uint_eq(f1, 1);
    /* Out of order on purpose: the builder keeps the table sorted. */
    ck_assert_int_eq(dv_obj_add_line(o, 32, f1, 10, 0, &err), DV_OK);
    ck_assert_int_eq(dv_obj_add_line(o, 0, f0, 1, 1, &err), DV_OK);
    ck_assert_int_eq(dv_obj_add_line(o, 48, f1, 12, 3, &err), DV_OK);
    ck_assert_int_eq(dv_obj_add_line(o, 8, f0, 2, 5, &err), DV_OK);
    return o;
}

static void assert_obj_equal(const dv_obj *a, const dv_obj *b)
{
    ck_assert_int_eq(a->family, b->family);
    ck_assert_uint_eq(a->text_size, b->text_size);
    if (a->text_size)
        ck_assert_mem_eq(a->text, b->text, a->text_size);
    ck_assert_uint_eq(a->data_size, b->data_size);
    if (a->data_size)
        ck_assert_mem_eq(a->data, b->data, a->data_size);
    ck_assert_uint_eq(a->nkernels, b->nkernels);
    for (size_t i = 0; i < a->nkernels; i++) {
        const dv_obj_kernel *x = &a->kernels[i], *y = &b->kernels[i];
        ck_assert_str_eq(x->name, y->name);
        ck_assert_uint_eq(x->entry, y->entry);
        ck_assert_uint_eq(x->size, y->size);
        ck_assert_int_eq(x->core, y->core);
        ck_assert_uint_eq(x->nargs, y->nargs);
        for (unsigned j = 0; j < x->nargs; j++) {
            ck_assert_str_eq(x->args[j].name, y->args[j].name);
            ck_assert_int_eq(x->args[j].type, y->args[j].type);
        }
    }
    ck_assert_uint_eq(a->nfiles, b->nfiles);
    for (size_t i = 0; i < a->nfiles; i++)
        ck_assert_str_eq(a->files[i], b->files[i]);
    ck_assert_uint_eq(a->nlines, b->nlines);
    for (size_t i = 0; i < a->nlines; i++) {
        ck_assert_uint_eq(a->lines[i].pc, b->lines[i].pc);
        ck_assert_uint_eq(a->lines[i].file, b->lines[i].file);
        ck_assert_uint_eq(a->lines[i].line, b->lines[i].line);
        ck_assert_uint_eq(a->lines[i].col, b->lines[i].col);
    }
}

START_TEST(test_builders_and_lookups)
{
    dv_obj *o = make_sample();
    dv_error err;
    ck_assert_uint_eq(o->nlines, 4);
    for (size_t i = 1; i < o->nlines; i++)
        ck_assert_uint_lt(o->lines[i - 1].pc, o->lines[i].pc);

    /* An entry covers the instructions up to the next entry. */
    ck_assert_uint_eq(dv_obj_line_at(o, 0)->line, 1);
    ck_assert_uint_eq(dv_obj_line_at(o, 8)->line, 2);
    ck_assert_uint_eq(dv_obj_line_at(o, 24)->line, 2);
    ck_assert_uint_eq(dv_obj_line_at(o, 32)->line, 10);
    ck_assert_uint_eq(dv_obj_line_at(o, 56)->line, 12);
    ck_assert_ptr_null(dv_obj_line_at(o, 64));

    /* A second line for the same pc replaces the first. */
    ck_assert_int_eq(dv_obj_add_line(o, 8, 0, 3, 1, &err), DV_OK);
    ck_assert_uint_eq(o->nlines, 4);
    ck_assert_uint_eq(dv_obj_line_at(o, 8)->line, 3);
    ck_assert_int_eq(dv_obj_add_line(o, 8, 7, 3, 1, &err), DV_ERR_USAGE);
    ck_assert_int_eq(dv_obj_add_line(o, 4, 0, 3, 1, &err), DV_ERR_USAGE);
    ck_assert_int_eq(dv_obj_add_line(o, 8, 0, 0, 1, &err), DV_ERR_USAGE);

    uint32_t idx = 99;
    ck_assert_int_eq(dv_obj_add_file(o, "inc/common.dvs", &idx, &err), DV_OK);
    ck_assert_uint_eq(idx, 1);
    ck_assert_uint_eq(o->nfiles, 2);

    ck_assert_uint_eq(dv_obj_find_kernel(o, "vmul")->entry, 32);
    ck_assert_ptr_null(dv_obj_find_kernel(o, "nope"));

    dv_obj_kernel dup = {.name = "vadd", .entry = 0, .size = 8};
    ck_assert_int_eq(dv_obj_add_kernel(o, &dup, &err), DV_ERR_USAGE);
    dv_obj_kernel many = {.name = "many", .nargs = DV_MAX_KERNEL_ARGS + 1};
    ck_assert_int_eq(dv_obj_add_kernel(o, &many, &err), DV_ERR_USAGE);
    ck_assert_ptr_null(strchr(err.msg, '\n'));
    dv_obj_kernel twice = {.name = "t", .nargs = 2, .args = {{"a", DV_ARG_PTR}, {"a", DV_ARG_U64}}};
    ck_assert_int_eq(dv_obj_add_kernel(o, &twice, &err), DV_ERR_USAGE);
    ck_assert_int_eq(dv_obj_set_text(o, o->text, 12, &err), DV_ERR_USAGE);
    dv_obj_destroy(o);

    /* Many lines, including out-of-order ones, stay sorted. */
    o = dv_obj_create();
    ck_assert_int_eq(dv_obj_add_file(o, "a", NULL, &err), DV_OK);
    for (uint64_t i = 0; i < 1000; i++)
        ck_assert_int_eq(dv_obj_add_line(o, ((i * 7919) % 1000) * 8, 0, (uint32_t)i + 1, 0, &err), DV_OK);
    ck_assert_uint_eq(o->nlines, 1000);
    for (size_t i = 0; i < o->nlines; i++)
        ck_assert_uint_eq(o->lines[i].pc, i * 8);
    dv_obj_destroy(o);
    dv_obj_destroy(NULL);
}
END_TEST

START_TEST(test_names)
{
    ck_assert_str_eq(dv_core_type_name(DV_CORE_COUPLED), "coupled");
    ck_assert_str_eq(dv_core_type_name(DV_CORE_MIX), "mix");
    ck_assert_str_eq(dv_arg_type_name(DV_ARG_F32), "f32");
    ck_assert_str_eq(dv_arg_type_name(DV_ARG_S64), "s64");
    ck_assert_str_eq(dv_chip_family_name(DV_FAMILY_910B), "910b");
    ck_assert_str_eq(dv_chip_family_name(DV_FAMILY_ANY), "any");
    ck_assert_str_eq(dv_chip_family_name(DV_FAMILY_COUNT), "unknown");
}
END_TEST

START_TEST(test_round_trip)
{
    dv_obj *o = make_sample();
    uint8_t *b1 = NULL, *b2 = NULL, *b3 = NULL;
    size_t n1 = 0, n2 = 0, n3 = 0;
    dv_error err;
    ck_assert_int_eq(dv_obj_write_elf(o, &b1, &n1, &err), DV_OK);
    ck_assert_int_eq(dv_obj_write_elf(o, &b2, &n2, &err), DV_OK);
    ck_assert_uint_eq(n1, n2);
    ck_assert_mem_eq(b1, b2, n1);

    dv_obj *r = NULL;
    ck_assert_msg(dv_obj_read_elf(b1, n1, &r, &err) == DV_OK, "%s", err.msg);
    assert_obj_equal(o, r);
    ck_assert_uint_eq(dv_obj_line_at(r, 16)->line, 2);

    /* A loaded object writes back to the same bytes, and its arrays can
     * still be extended by the builders. */
    ck_assert_int_eq(dv_obj_write_elf(r, &b3, &n3, &err), DV_OK);
    ck_assert_uint_eq(n1, n3);
    ck_assert_mem_eq(b1, b3, n1);
    dv_obj_kernel k3 = {.name = "k3", .entry = 56, .size = 8, .core = DV_CORE_AIC};
    ck_assert_int_eq(dv_obj_add_kernel(r, &k3, &err), DV_OK);
    ck_assert_int_eq(dv_obj_add_line(r, 16, 0, 7, 0, &err), DV_OK);
    ck_assert_uint_eq(r->nlines, 5);

    /* An empty object (no text, no kernels) round-trips too. */
    dv_obj *e = dv_obj_create(), *re = NULL;
    free(b3);
    ck_assert_int_eq(dv_obj_write_elf(e, &b3, &n3, &err), DV_OK);
    ck_assert_msg(dv_obj_read_elf(b3, n3, &re, &err) == DV_OK, "%s", err.msg);
    assert_obj_equal(e, re);
    dv_obj_destroy(e);
    dv_obj_destroy(re);
    dv_obj_destroy(r);
    dv_obj_destroy(o);
    free(b1);
    free(b2);
    free(b3);
}
END_TEST

START_TEST(test_write_rejects_invalid)
{
    dv_obj *o = make_sample();
    uint8_t *b = NULL;
    size_t n = 0;
    dv_error err;
    o->kernels[1].size = 64; /* runs past the end of .text */
    ck_assert_int_eq(dv_obj_write_elf(o, &b, &n, &err), DV_ERR_USAGE);
    ck_assert_ptr_null(b);
    ck_assert_ptr_nonnull(strstr(err.msg, "vmul"));
    o->kernels[1].size = 32;
    o->lines[0].pc = 40; /* unsorted */
    ck_assert_int_eq(dv_obj_write_elf(o, &b, &n, &err), DV_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(err.msg, "sorted"));
    dv_obj_destroy(o);
}
END_TEST

/* Every prefix of a valid file, and every single-bit corruption of it, is
 * either accepted or rejected with DV_ERR_INPUT and one line; run under
 * ASan/UBSan this is a small deterministic fuzz of the reader. */
START_TEST(test_truncations_and_bit_flips)
{
    dv_obj *o = make_sample();
    uint8_t *b = NULL;
    size_t n = 0;
    dv_error err;
    ck_assert_int_eq(dv_obj_write_elf(o, &b, &n, &err), DV_OK);
    for (size_t len = 0; len < n; len++) {
        dv_obj *r = NULL;
        ck_assert_int_eq(dv_obj_read_elf(b, len, &r, &err), DV_ERR_INPUT);
        ck_assert_ptr_null(r);
    }
    for (size_t i = 0; i < n; i++) {
        for (int bit = 0; bit < 8; bit++) {
            b[i] ^= (uint8_t)(1u << bit);
            dv_obj *r = NULL;
            dv_status st = dv_obj_read_elf(b, n, &r, &err);
            ck_assert(st == DV_OK || st == DV_ERR_INPUT);
            if (st != DV_OK)
                ck_assert_msg(err.msg[0] && !strchr(err.msg, '\n'), "byte %zu bit %d: '%s'", i, bit, err.msg);
            dv_obj_destroy(r);
            b[i] ^= (uint8_t)(1u << bit);
        }
    }
    free(b);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_save_load)
{
    char dir[] = "/tmp/dvsim-test-elf-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/k.elf", dir);
    dv_obj *o = make_sample(), *r = NULL;
    dv_error err;
    ck_assert_msg(dv_obj_save(o, path, &err) == DV_OK, "%s", err.msg);
    ck_assert_msg(dv_obj_save(o, path, &err) == DV_OK, "%s", err.msg); /* replaces */
    ck_assert_msg(dv_obj_load(path, &r, &err) == DV_OK, "%s", err.msg);
    assert_obj_equal(o, r);

    /* Only the object is left behind: no temporary files. */
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            entries++;
    closedir(d);
    ck_assert_int_eq(entries, 1);

    /* A failed save (kernel outside .text) leaves the old file alone. */
    o->kernels[0].entry = 4096;
    ck_assert_int_eq(dv_obj_save(o, path, &err), DV_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    dv_obj_destroy(r);
    ck_assert_int_eq(dv_obj_load(path, &r, &err), DV_OK);
    ck_assert_uint_eq(r->kernels[0].entry, 0);

    unlink(path);
    rmdir(dir);
    dv_obj_destroy(r);
    dv_obj_destroy(o);
}
END_TEST

START_TEST(test_missing_file)
{
    dv_obj *r = (dv_obj *)1;
    dv_error err;
    ck_assert_int_eq(dv_obj_load("/nonexistent/dir/k.elf", &r, &err), DV_ERR_MISSING);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/dir/k.elf"));
    ck_assert_ptr_null(strchr(err.msg, '\n'));
}
END_TEST

static void assert_rejected(const char *name, const char *expect)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DV_MALFORMED_DIR, name);
    dv_obj *r = NULL;
    dv_error err;
    dv_error_clear(&err);
    dv_status st = dv_obj_load(path, &r, &err);
    ck_assert_msg(st == DV_ERR_INPUT, "%s: status %s (%s)", name, dv_status_name(st), err.msg);
    ck_assert_ptr_null(r);
    ck_assert_msg(strncmp(err.msg, path, strlen(path)) == 0, "%s: message lacks the path: %s", name, err.msg);
    ck_assert_msg(strlen(err.msg) > strlen(path) + 2, "%s: empty message", name);
    ck_assert_msg(!strchr(err.msg, '\n'), "%s: message has a newline", name);
    if (expect)
        ck_assert_msg(strstr(err.msg, expect), "%s: expected '%s' in: %s", name, expect, err.msg);
}

/* Each reproducer must be present and rejected for its own defect (the
 * message names it), not by some earlier check that happens to trip. */
START_TEST(test_malformed_expected)
{
    static const struct {
        const char *file, *expect;
    } cases[] = {
        {"empty-file.elf", "file is empty"},
        {"truncated-header.elf", "too small for an ELF header"},
        {"bad-magic.elf", "not an ELF file"},
        {"wrong-class.elf", "ELF class 1 is not ELFCLASS64"},
        {"wrong-endian.elf", "not little-endian"},
        {"bad-version.elf", "ELF version 0/1"},
        {"wrong-machine.elf", "e_machine 0x3e is not dvsim (0x4456)"},
        {"wrong-type.elf", "ELF type 2 is not ET_REL"},
        {"bad-family.elf", "e_flags 0x7 is not a chip family"},
        {"bad-shentsize.elf", "e_shentsize 40"},
        {"no-sections.elf", "e_shnum is 0"},
        {"shoff-past-end.elf", "section header table extends past end of file"},
        {"shoff-overflow.elf", "section header table extends past end of file"},
        {"shnum-huge.elf", "+ 65535 * 64 >"},
        {"bad-shstrndx.elf", "e_shstrndx"},
        {"shstrtab-not-strtab.elf", "not SHT_STRTAB"},
        {"section-offset-past-end.elf", "extends past end of file (offset"},
        {"section-size-overflow.elf", "size 18446744073709"},
        {"unterminated-shstrtab.elf", "(section name string table) is not NUL-terminated"},
        {"section-name-out-of-range.elf", "name offset 65535"},
        {"missing-text.elf", "no .text section"},
        {"duplicate-text.elf", "two .text sections"},
        {"text-nobits.elf", "(.text) has type 8"},
        {"missing-meta.elf", "no .dv.meta section"},
        {"text-not-multiple-of-8.elf", "(.text) size 60 is not a multiple of 8"},
        {"symtab-bad-entsize.elf", "(.symtab) entry size 16"},
        {"symtab-bad-link.elf", "which is not a string table"},
        {"unterminated-strtab.elf", "(.strtab) is not NUL-terminated"},
        {"symbol-name-out-of-range.elf", "symbol 1 name offset 32767"},
        {"symbol-outside-text.elf", "symbol 'vadd' (value 128, size 32) lies outside .text"},
        {"symbol-undefined.elf", "'vadd' is not defined in .text"},
        {"meta-bad-magic.elf", ".dv.meta: bad magic"},
        {"meta-version.elf", "version 2 is not supported (this dvsim reads version 1)"},
        {"meta-flags.elf", ".dv.meta: reserved flags"},
        {"meta-crc-mismatch.elf", ".dv.meta: CRC32 of .text"},
        {"text-corrupted.elf", ".dv.meta: CRC32 of .text"},
        {"meta-short.elf", "too short for its 16-byte header"},
        {"meta-truncated.elf", "runs past the end of the section"},
        {"meta-trailing-bytes.elf", "unexpected bytes after the last kernel"},
        {"meta-kernel-count-huge.elf", "4294967295 kernels cannot fit"},
        {"meta-kernel-outside-text.elf", "kernel 'vmul' (entry 64, size 32) lies outside .text"},
        {"meta-kernel-size-overflow.elf", "kernel 'vmul' (entry 32, size 18446744073709551607)"},
        {"meta-kernel-misaligned.elf", "kernel 'vmul' entry 4 is not a multiple of 8"},
        {"meta-core-type.elf", "core type 9"},
        {"meta-too-many-args.elf", "17 arguments"},
        {"meta-arg-type.elf", "argument 'x' has type 4"},
        {"meta-empty-name.elf", "kernel 0 has an empty name"},
        {"meta-kernel-size-zero.elf", "kernel 'vmul' size 0 is not a positive multiple of 8"},
        {"meta-name-newline.elf", "kernel name 'v\\x0add' is not an identifier"},
        {"meta-arg-name-escape.elf", "kernel 'vadd' argument 0 name '\\x1b' is not an identifier"},
        {"meta-duplicate-kernel.elf", "duplicate kernel 'vadd'"},
        {"lines-bad-magic.elf", ".dv.lines: bad magic"},
        {"lines-version.elf", ".dv.lines: format version 7"},
        {"lines-file-count-huge.elf", "file names cannot fit"},
        {"lines-count-huge.elf", "4294967295 entries need"},
        {"lines-file-index.elf", "file index 9, but there are 2 files"},
        {"lines-unsorted.elf", "must be sorted by pc"},
        {"lines-pc-outside-text.elf", "pc 64, not an instruction in .text"},
        {"lines-pc-unaligned.elf", "pc 4, not an instruction"},
        {"lines-line-zero.elf", "line 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_rejected(cases[i].file, cases[i].expect);
}
END_TEST

/* Any file in the directory, including ones added later without an entry
 * above, must be rejected cleanly. */
START_TEST(test_malformed_all)
{
    DIR *d = opendir(DV_MALFORMED_DIR);
    ck_assert_msg(d != NULL, "cannot open %s", DV_MALFORMED_DIR);
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ".elf") != 0)
            continue;
        assert_rejected(e->d_name, NULL);
        count++;
    }
    closedir(d);
    ck_assert_int_ge(count, 18);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("elf");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 50); /* the bit-flip test parses ~10k files; slow under sanitizers */
    tcase_add_test(tc, test_builders_and_lookups);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_write_rejects_invalid);
    tcase_add_test(tc, test_truncations_and_bit_flips);
    tcase_add_test(tc, test_save_load);
    tcase_add_test(tc, test_missing_file);
    tcase_add_test(tc, test_malformed_expected);
    tcase_add_test(tc, test_malformed_all);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
