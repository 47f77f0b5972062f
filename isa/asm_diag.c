/* asm_diag.c - the assembler's diagnostics: "file:line:col: message" lines
 * appended to the caller's list (a macro's statement reported at its call,
 * naming the macro line), kept in source order. */
#include "asm_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *file_name(const asm_state *as, uint32_t file)
{
    return file < as->obj->nfiles ? as->obj->files[file] : "?";
}

static void vdiag(asm_state *as, const src_call *call, uint32_t file, uint32_t line, int col, const char *fmt,
                  va_list ap)
{
    as->nerrors++;
    if (as->nerrors > as->max_errors)
        return;
    dv_buf b = DV_BUF_INIT;
    bool in_macro = call && call->line;
    /* a macro's statement is reported at the call, where its author wrote it */
    uint32_t kf = in_macro ? call->file : file, kl = in_macro ? call->line : line;
    int kc = in_macro ? call->col : col;
    if (kc > 0)
        dv_buf_printf(&b, "%s:%u:%d: ", file_name(as, kf), kl, kc);
    else
        dv_buf_printf(&b, "%s:%u: ", file_name(as, kf), kl);
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    dv_buf_puts(&b, msg);
    if (in_macro && col > 0)
        dv_buf_printf(&b, " (in macro at %s:%u:%d)", file_name(as, file), line, col);
    else if (in_macro)
        dv_buf_printf(&b, " (in macro at %s:%u)", file_name(as, file), line);
    file = kf, line = kl, col = kc;
    char **grown = realloc(as->diags->lines, (as->diags->count + 1) * sizeof *grown);
    if (!grown || b.oom) {
        as->nomem = true;
        if (grown)
            as->diags->lines = grown;
        dv_buf_free(&b);
        return;
    }
    as->diags->lines = grown;
    asm_diag_key *keys = realloc(as->diag_keys, (as->diags->count + 1) * sizeof *keys);
    if (!keys) {
        as->nomem = true;
        dv_buf_free(&b);
        return;
    }
    as->diag_keys = keys;
    as->diag_keys[as->diags->count] = (asm_diag_key){file, line, col, (uint32_t)as->diags->count};
    as->diags->lines[as->diags->count++] = dv_buf_take(&b, NULL);
}

void asm_diag(asm_state *as, uint32_t file, uint32_t line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(as, NULL, file, line, col, fmt, ap);
    va_end(ap);
}

void asm_diag_in(asm_state *as, const src_call *call, uint32_t file, uint32_t line, int col, const char *fmt,
                 ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(as, call, file, line, col, fmt, ap);
    va_end(ap);
}

void dv_diags_free(dv_diags *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->count; i++)
        free(d->lines[i]);
    free(d->lines);
    d->lines = NULL;
    d->count = 0;
}

static int cmp_diag(const void *x, const void *y)
{
    const asm_diag_key *a = x, *b = y;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Reports in source order (pass 1 and pass 2 find errors at different times). */
void asm_sort_diags(asm_state *as)
{
    size_t n = as->diags->count;
    if (n < 2 || !as->diag_keys)
        return;
    char **sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return;
    qsort(as->diag_keys, n, sizeof *as->diag_keys, cmp_diag);
    for (size_t i = 0; i < n; i++)
        sorted[i] = as->diags->lines[as->diag_keys[i].seq];
    memcpy(as->diags->lines, sorted, n * sizeof *sorted);
    free(sorted);
}
