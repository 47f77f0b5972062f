/* disasm.c - objdump-like listing of a kernel object that is also valid
 * assembler input (addresses and encodings sit in block comments). */
#include "dv_disasm.h"
#include "dv_isa.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct labels {
    const dv_obj *obj;
    uint64_t *addr; /* sorted branch targets inside .text without a kernel symbol */
    size_t n;
    char buf[64];
} labels;

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static const char *kernel_at(const dv_obj *obj, uint64_t addr)
{
    for (size_t i = 0; i < obj->nkernels; i++)
        if (obj->kernels[i].entry == addr)
            return obj->kernels[i].name;
    return NULL;
}

static bool is_label(const labels *l, uint64_t addr)
{
    return bsearch(&addr, l->addr, l->n, sizeof *l->addr, cmp_u64) != NULL;
}

static const char *label_of(void *user, uint64_t addr)
{
    labels *l = user;
    const char *k = kernel_at(l->obj, addr);
    if (k)
        return k;
    if (is_label(l, addr)) {
        snprintf(l->buf, sizeof l->buf, "L%04" PRIx64, addr);
        return l->buf;
    }
    return NULL;
}

static uint64_t word_at(const dv_obj *obj, size_t off)
{
    uint64_t w = 0;
    for (int i = 0; i < 8; i++)
        w |= (uint64_t)obj->text[off + (size_t)i] << (8 * i);
    return w;
}

static dv_status collect_labels(const dv_obj *obj, labels *l, dv_error *err)
{
    size_t n = obj->text_size / DV_INSN_BYTES;
    l->addr = malloc((n ? n : 1) * sizeof *l->addr);
    if (!l->addr)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        dv_insn insn;
        if (dv_isa_decode(word_at(obj, i * 8), &insn, NULL) != DV_OK)
            continue;
        const dv_format *fmt = dv_isa_format(dv_isa_info(insn.op)->fmt);
        for (unsigned k = 0; k < fmt->nops; k++) {
            if (fmt->ops[k].field != DV_F_TARGET)
                continue;
            uint64_t t = i * 8 + (uint64_t)insn.f[DV_F_TARGET];
            if (t < obj->text_size && !(t & 7) && !kernel_at(obj, t))
                l->addr[l->n++] = t;
        }
    }
    qsort(l->addr, l->n, sizeof *l->addr, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < l->n; i++)
        if (u == 0 || l->addr[u - 1] != l->addr[i])
            l->addr[u++] = l->addr[i];
    l->n = u;
    return DV_OK;
}

static void list_kernel_header(dv_buf *out, const dv_obj_kernel *k)
{
    dv_buf_printf(out, "\n.kernel %s, type=%s\n", k->name, dv_core_type_name(k->core));
    for (unsigned a = 0; a < k->nargs; a++)
        dv_buf_printf(out, ".arg %s, type=%s\t; a%u = x%u\n", k->args[a].name,
                      dv_arg_type_name(k->args[a].type), a, DV_ARG_REG_BASE + a);
}

dv_status dv_disasm_obj(const dv_obj *obj, const dv_disasm_options *opt, dv_buf *out, dv_error *err)
{
    dv_disasm_options defaults = {true, true};
    if (!opt)
        opt = &defaults;
    labels l = {obj, NULL, 0, ""};
    dv_status st = collect_labels(obj, &l, err);
    if (st != DV_OK)
        return st;
    if (obj->family != DV_FAMILY_ANY) {
        dv_buf_printf(out, ".chip %s\n", dv_chip_family_chip(obj->family));
    }
    dv_buf_puts(out, ".text\n");
    char text[256];
    for (size_t off = 0; off + DV_INSN_BYTES <= obj->text_size; off += DV_INSN_BYTES) {
        for (size_t k = 0; k < obj->nkernels; k++)
            if (obj->kernels[k].entry == off)
                list_kernel_header(out, &obj->kernels[k]);
        if (is_label(&l, off))
            dv_buf_printf(out, "L%04zx:\n", off);
        uint64_t w = word_at(obj, off);
        dv_insn insn;
        dv_error derr;
        bool ok = dv_isa_decode(w, &insn, &derr) == DV_OK;
        if (ok)
            dv_isa_format_insn(&insn, off, label_of, &l, text, sizeof text);
        else
            snprintf(text, sizeof text, ".dword 0x%016" PRIx64, w);
        if (opt->raw)
            dv_buf_printf(out, "/* %04zx: %016" PRIx64 " */  ", off, w);
        else
            dv_buf_puts(out, "    ");
        dv_buf_puts(out, text);
        const dv_obj_line *ln = opt->source ? dv_obj_line_at(obj, off) : NULL;
        if (!ok || (ln && ln->file < obj->nfiles)) {
            size_t width = strlen(text);
            for (size_t pad = width; pad < 40; pad++)
                dv_buf_puts(out, " ");
            if (!ok)
                dv_buf_puts(out, " ; illegal instruction");
            char where[512];
            if (ln && ln->file < obj->nfiles)
                dv_buf_printf(out, " ; %s", dv_obj_line_format(obj, ln, where, sizeof where));
        }
        dv_buf_puts(out, "\n");
    }
    if (obj->data_size) {
        dv_buf_puts(out, "\n.data\n");
        for (size_t i = 0; i < obj->data_size; i += 16) {
            if (opt->raw)
                dv_buf_printf(out, "/* %04zx */  ", i);
            dv_buf_puts(out, ".byte ");
            for (size_t j = i; j < obj->data_size && j < i + 16; j++)
                dv_buf_printf(out, "%s0x%02x", j == i ? "" : ", ", obj->data[j]);
            dv_buf_puts(out, "\n");
        }
    }
    free(l.addr);
    if (out->oom)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    return DV_OK;
}
