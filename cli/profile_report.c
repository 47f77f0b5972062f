/* profile_report.c - a run's profile rendered as text, JSON and CSV
 * (profile_report.h), from the model of profile_model.c. */
#include "profile_report.h"

#include "cli.h"
#include "profile_model.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ---- */

static void print_pipes(FILE *out, const dv_prof_result *r, const prof_report_opts *o)
{
    for (int kind = 0; kind < 3; kind++) {
        unsigned nk = prof_kind_count(r, o, kind);
        if (!nk)
            continue;
        fprintf(out, "\n%s cores: %u; %% of their %" PRIu64 " cycles each\n", prof_kind_name((unsigned)kind),
                nk, r->cycles);
        fprintf(out, "%-7s", "pipe");
        for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
            fprintf(out, " %9s", dv_prof_class_name((dv_prof_class)k));
        fputc('\n', out);
        for (int p = 0; p < DV_PIPE_COUNT; p++) {
            unsigned n;
            prof_pipe_sum(r, o, kind, p, 0, &n);
            if (!n)
                continue;
            double total = (double)r->cycles * n;
            fprintf(out, "%-7s", dv_pipe_trace_name((dv_pipe)p));
            for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
                fprintf(out, " %8.1f%%",
                        total > 0 ? 100.0 * (double)prof_pipe_sum(r, o, kind, p, k, NULL) / total : 0);
            fputc('\n', out);
        }
    }
}

/* "flag 80% busy 20%": the row's classes by share of its cycles. */
static void classes_text(const prof_row *row, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    uint64_t all = 0;
    for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
        all += prof_costs((dv_prof_class)k) ? row->cls[k] : 0;
    bool used[DV_PROF_CLASS_COUNT] = {false};
    for (;;) {
        int best = -1;
        for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
            if (prof_costs((dv_prof_class)k) && !used[k] && row->cls[k] &&
                (best < 0 || row->cls[k] > row->cls[best]))
                best = k;
        if (best < 0 || n >= size)
            break;
        used[best] = true;
        n += (size_t)snprintf(buf + n, size - n, "%s%s %.0f%%", n ? " " : "",
                              dv_prof_class_name((dv_prof_class)best),
                              100.0 * (double)row->cls[best] / (double)(all ? all : 1));
    }
}

static void print_rows(FILE *out, const dv_prof_result *r, const prof_report_opts *o, const prof_rows *rows)
{
    size_t shown = prof_rows_shown(rows, o);
    fprintf(out, "\n%s by cost (cycles on every pipe but starved and idle; %zu of %zu shown)\n",
            o->by == PROF_BY_PC     ? "instructions"
            : o->by == PROF_BY_CALL ? "calling lines"
                                    : "source lines",
            shown, rows->n);
    fprintf(out, "%6s %12s %10s  %-32s %s\n", "share", "cycles", "insns", "classes", "where");
    fprintf(out, "%31s| cycles per pipe; the source line (a macro's: the call, then <- the statement)\n", "");
    for (size_t i = 0; i < shown; i++) {
        const prof_row *row = &rows->rows[i];
        char pipes[160] = "", cls[200];
        size_t n = 0;
        for (int p = 0; p < DV_PIPE_COUNT && n < sizeof pipes; p++)
            if (row->pipe[p])
                n += (size_t)snprintf(pipes + n, sizeof pipes - n, "%s%s:%" PRIu64, n ? " " : "",
                                      dv_pipe_trace_name((dv_pipe)p), row->pipe[p]);
        classes_text(row, cls, sizeof cls);
        fprintf(out, "%5.1f%% %12" PRIu64 " %10" PRIu64 "  %-32s %s\n",
                rows->total_cost ? 100.0 * (double)row->cost / (double)rows->total_cost : 0, row->cost,
                row->insns, cls, row->where);
        fprintf(out, "%31s| %s\n", "", pipes);
        if (!o->no_source && row->ln && o->by != PROF_BY_PC) {
            char src[200];
            bool call = row->ln->call_line != 0;
            prof_source_line(r->obj, call ? row->ln->call_file : row->ln->file,
                             call ? row->ln->call_line : row->ln->line, src, sizeof src);
            if (src[0])
                fprintf(out, "%31s| %s\n", "", src);
            if (call && o->by == PROF_BY_LINE) {
                prof_source_line(r->obj, row->ln->file, row->ln->line, src, sizeof src);
                if (src[0])
                    fprintf(out, "%31s|   <- %s\n", "", src);
            }
        }
        if (o->by == PROF_BY_PC) {
            char dis[200];
            dv_insn in = prof_insn_at(r->obj, row->pc);
            dv_isa_format_insn(&in, row->pc, NULL, NULL, dis, sizeof dis);
            char loc[320];
            prof_loc_of(r->obj, row->pc, loc, sizeof loc);
            fprintf(out, "%31s| %s   (%s)\n", "", dis, loc);
        }
        row_waits ws;
        prof_collect_waits(r, o, row, &ws);
        for (size_t x = 0; x < ws.n; x++)
            fprintf(out, "%31s| waits on %s: %" PRIu64 " cycles in %" PRIu64 " waits, %s\n", "", ws.w[x].flag,
                    ws.w[x].cycles, ws.w[x].waits, ws.w[x].rel);
    }
}

static void print_path(FILE *out, const dv_prof_result *r, const prof_report_opts *o)
{
    fprintf(out, "\ncritical path (which pipe bounded each phase, and what held the others):\n");
    for (int kind = 0; kind < 3; kind++) {
        if (!r->bins[kind] || !prof_kind_count(r, o, kind))
            continue;
        phase ph[DV_PROF_BINS];
        size_t n = prof_phases_of(r, kind, ph);
        for (size_t i = 0; i < n; i++)
            fprintf(out, "  %s: %s\n", prof_kind_name((unsigned)kind), ph[i].text);
    }
}

void prof_print_text(FILE *out, const dv_sim *sim, const dv_prof_result *r, const prof_report_opts *o,
                     const char *title)
{
    (void)sim;
    fprintf(out, "profile: %s\n%" PRIu64 " cycles, %u core%s%s%s\n", title, r->cycles, r->ncores,
            r->ncores == 1 ? "" : "s", r->done ? "" : " (the run stopped early)",
            o->core >= 0 ? "; figures of one core" : "; figures summed over the cores");
    if (o->core >= 0)
        fprintf(out, "core %d\n", o->core);
    for (size_t x = 0; x < r->nreleases; x++) {
        const dv_prof_release *rel = &r->releases[x];
        if (rel->kind != DV_PROF_REL_NEVER)
            continue;
        char fl[64], loc[320];
        prof_flag_name(r->obj, rel->wait_pc, fl, sizeof fl);
        prof_loc_of(r->obj, rel->wait_pc, loc, sizeof loc);
        fprintf(out, "never came: %s, waited for at %s (%" PRIu64 " cycles until the run stopped)\n", fl, loc,
                rel->cycles);
    }
    print_pipes(out, r, o);
    if (o->core < 0)
        print_path(out, r, o);
    prof_rows rows;
    if (!prof_build_rows(r, o, &rows)) {
        fprintf(out, "(out of memory for the rows)\n");
        return;
    }
    print_rows(out, r, o, &rows);
    free(rows.rows);
}

/* ---- JSON ---- */

static cJSON *classes_json(const uint64_t *k)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; o && i < DV_PROF_CLASS_COUNT; i++)
        cli_json_add_u64(o, dv_prof_class_name((dv_prof_class)i), k[i]);
    return o;
}

cJSON *prof_json(const dv_sim *sim, const dv_prof_result *r, const prof_report_opts *o, const char *title)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON_AddStringToObject(root, "title", title);
    cli_json_add_u64(root, "cycles", r->cycles);
    cJSON_AddBoolToObject(root, "done", r->done);
    cli_json_add_u64(root, "cores", r->ncores);
    cJSON_AddStringToObject(root, "by", o->by == PROF_BY_PC ? "pc" : o->by == PROF_BY_CALL ? "call" : "line");
    if (o->core >= 0)
        cli_json_add_u64(root, "core", (uint64_t)o->core);
    cJSON *classes = cJSON_AddArrayToObject(root, "classes");
    for (int k = 0; classes && k < DV_PROF_CLASS_COUNT; k++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", dv_prof_class_name((dv_prof_class)k));
        cJSON_AddStringToObject(c, "part_of", dv_prof_class_stat((dv_prof_class)k));
        cJSON_AddStringToObject(c, "desc", dv_prof_class_doc((dv_prof_class)k));
        cJSON_AddItemToArray(classes, c);
    }
    char why[300];
    cJSON_AddBoolToObject(root, "sums_ok", prof_check_sums(sim, r, why, sizeof why));
    /* per kind, summed */
    cJSON *pipes = cJSON_AddArrayToObject(root, "pipes");
    for (int kind = 0; pipes && kind < 3; kind++)
        for (int p = 0; p < DV_PIPE_COUNT; p++) {
            unsigned n;
            prof_pipe_sum(r, o, kind, p, 0, &n);
            if (!n)
                continue;
            uint64_t k[DV_PROF_CLASS_COUNT];
            for (int c = 0; c < DV_PROF_CLASS_COUNT; c++)
                k[c] = prof_pipe_sum(r, o, kind, p, c, NULL);
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "kind", prof_kind_name((unsigned)kind));
            cli_json_add_u64(e, "cores", n);
            cJSON_AddStringToObject(e, "pipe", dv_pipe_trace_name((dv_pipe)p));
            cJSON_AddItemToObject(e, "cycles", classes_json(k));
            cJSON_AddItemToArray(pipes, e);
        }
    /* every core, with the statistics the classes add up to */
    cJSON *cores = cJSON_AddArrayToObject(root, "per_core");
    for (unsigned ci = 0; cores && ci < r->ncores; ci++) {
        if (!prof_in_scope(r, ci, o))
            continue;
        dv_core_info info;
        dv_sim_core_info(sim, ci, &info);
        const dv_prof_core *c = &r->cores[ci];
        cJSON *e = cJSON_CreateObject();
        cli_json_add_u64(e, "core", ci);
        cJSON_AddStringToObject(e, "kind", prof_kind_name(c->kind));
        cli_json_add_u64(e, "end_cycle", c->end_cycle);
        cJSON *ps = cJSON_AddObjectToObject(e, "pipes");
        for (int p = 0; p < DV_PIPE_COUNT; p++) {
            if (!c->has_pipe[p])
                continue;
            cJSON *pe = classes_json(c->pipe[p]);
            cli_json_add_u64(pe, "stat_busy_cycles", info.stats->pipe[p].busy_cycles);
            cli_json_add_u64(pe, "stat_wait_cycles", info.stats->pipe[p].wait_cycles);
            cli_json_add_u64(pe, "stat_full_cycles", info.stats->pipe[p].full_cycles);
            cJSON_AddItemToObject(ps, dv_pipe_trace_name((dv_pipe)p), pe);
        }
        cJSON_AddItemToArray(cores, e);
    }
    if (o->core < 0) {
        cJSON *path = cJSON_AddArrayToObject(root, "critical_path");
        for (int kind = 0; path && kind < 3; kind++) {
            if (!r->bins[kind] || !prof_kind_count(r, o, kind))
                continue;
            phase ph[DV_PROF_BINS];
            size_t n = prof_phases_of(r, kind, ph);
            for (size_t i = 0; i < n; i++) {
                cJSON *e = cJSON_CreateObject();
                cJSON_AddStringToObject(e, "kind", prof_kind_name((unsigned)kind));
                cli_json_add_u64(e, "start", ph[i].start);
                cli_json_add_u64(e, "end", ph[i].end);
                cJSON_AddStringToObject(e, "bound",
                                        ph[i].bound >= 0 ? dv_pipe_trace_name((dv_pipe)ph[i].bound) : "");
                cJSON_AddStringToObject(e, "text", ph[i].text);
                cJSON_AddItemToArray(path, e);
            }
        }
    }
    cJSON *never = cJSON_AddArrayToObject(root, "never_came");
    for (size_t x = 0; never && x < r->nreleases; x++) {
        const dv_prof_release *rel = &r->releases[x];
        if (rel->kind != DV_PROF_REL_NEVER)
            continue;
        char fl[64], loc[320];
        prof_flag_name(r->obj, rel->wait_pc, fl, sizeof fl);
        prof_loc_of(r->obj, rel->wait_pc, loc, sizeof loc);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "flag", fl);
        cJSON_AddStringToObject(e, "where", loc);
        cli_json_add_u64(e, "pc", rel->wait_pc);
        cli_json_add_u64(e, "cycles", rel->cycles);
        cJSON_AddItemToArray(never, e);
    }
    prof_rows rows;
    if (!prof_build_rows(r, o, &rows)) {
        cJSON_Delete(root);
        return NULL;
    }
    cli_json_add_u64(root, "total_cost", rows.total_cost);
    cli_json_add_u64(root, "rows_total", rows.n);
    cJSON *arr = cJSON_AddArrayToObject(root, "rows");
    size_t shown = prof_rows_shown(&rows, o);
    for (size_t i = 0; arr && i < shown; i++) {
        const prof_row *row = &rows.rows[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "where", row->where);
        if (row->ln && o->by != PROF_BY_PC) {
            bool call = row->ln->call_line != 0;
            cJSON_AddStringToObject(e, "file",
                                    prof_file_of(r->obj, call ? row->ln->call_file : row->ln->file));
            cli_json_add_u64(e, "line", call ? row->ln->call_line : row->ln->line);
            if (call && o->by == PROF_BY_LINE) {
                cJSON_AddStringToObject(e, "macro_file", prof_file_of(r->obj, row->ln->file));
                cli_json_add_u64(e, "macro_line", row->ln->line);
            }
        }
        cli_json_add_u64(e, "pc", row->pc);
        cli_json_add_u64(e, "insns", row->insns);
        cli_json_add_u64(e, "cycles", row->cost);
        cJSON_AddNumberToObject(e, "share_pct",
                                rows.total_cost ? 100.0 * (double)row->cost / (double)rows.total_cost : 0);
        cJSON *pp = cJSON_AddObjectToObject(e, "pipes");
        for (int p = 0; pp && p < DV_PIPE_COUNT; p++)
            if (row->pipe[p])
                cli_json_add_u64(pp, dv_pipe_trace_name((dv_pipe)p), row->pipe[p]);
        cJSON_AddItemToObject(e, "classes", classes_json(row->cls));
        cJSON *waits = cJSON_AddArrayToObject(e, "waits");
        row_waits ws;
        prof_collect_waits(r, o, row, &ws);
        for (size_t x = 0; waits && x < ws.n; x++) {
            cJSON *w = cJSON_CreateObject();
            cJSON_AddStringToObject(w, "flag", ws.w[x].flag);
            cJSON_AddStringToObject(w, "released", ws.w[x].rel);
            cJSON_AddBoolToObject(w, "never_set", ws.w[x].never);
            cli_json_add_u64(w, "cycles", ws.w[x].cycles);
            cli_json_add_u64(w, "waits", ws.w[x].waits);
            cJSON_AddItemToArray(waits, w);
        }
        cJSON_AddItemToArray(arr, e);
    }
    free(rows.rows);
    return root;
}

/* ---- CSV: the rows, then the pipes, one table with a section column ---- */

static void csv_field(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void prof_print_csv(FILE *out, const dv_sim *sim, const dv_prof_result *r, const prof_report_opts *o)
{
    (void)sim;
    fputs("section,scope,where,insns,cycles,share_pct", out);
    for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
        fprintf(out, ",%s", dv_prof_class_name((dv_prof_class)k));
    fputc('\n', out);
    for (int kind = 0; kind < 3; kind++)
        for (int p = 0; p < DV_PIPE_COUNT; p++) {
            unsigned n;
            prof_pipe_sum(r, o, kind, p, 0, &n);
            if (!n)
                continue;
            fprintf(out, "pipe,%s,%s,,,", prof_kind_name((unsigned)kind), dv_pipe_trace_name((dv_pipe)p));
            for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
                fprintf(out, ",%" PRIu64, prof_pipe_sum(r, o, kind, p, k, NULL));
            fputc('\n', out);
        }
    prof_rows rows;
    if (!prof_build_rows(r, o, &rows))
        return;
    size_t shown = prof_rows_shown(&rows, o);
    for (size_t i = 0; i < shown; i++) {
        const prof_row *row = &rows.rows[i];
        fputs(o->by == PROF_BY_PC ? "pc," : o->by == PROF_BY_CALL ? "call," : "line,", out);
        fputs(o->core >= 0 ? "core," : "all,", out);
        csv_field(out, row->where);
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.4f", row->insns, row->cost,
                rows.total_cost ? 100.0 * (double)row->cost / (double)rows.total_cost : 0);
        for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
            fprintf(out, ",%" PRIu64, row->cls[k]);
        fputc('\n', out);
    }
    free(rows.rows);
}
