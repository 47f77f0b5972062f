/* viz_costs.c - the per-line cost panel and the stall search of dvsim viz
 * (viz_costs.h). */
#include "viz_costs.h"

#include "dv_lanes.h"
#include "dv_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COSTS_ROWS = 64, C_PANEL = 0x171d24, C_TEXT = 0xd8dee9, C_DIM = 0x8590a0, C_BAR = 0xe5534b };

typedef struct cost_row {
    const dv_obj_line *ln;
    uint64_t pc, cost;
    uint64_t cls[DV_PROF_CLASS_COUNT];
} cost_row;

static bool same_line(const dv_obj_line *a, const dv_obj_line *b)
{
    if (!a || !b)
        return a == b;
    return a->file == b->file && a->line == b->line && a->call_file == b->call_file &&
           a->call_line == b->call_line;
}

static int by_cost(const void *p, const void *q)
{
    const cost_row *a = p, *b = q;
    if (a->cost != b->cost)
        return a->cost < b->cost ? 1 : -1;
    return a->pc < b->pc ? -1 : a->pc > b->pc;
}

/* The rows of one core, the costliest first; returns how many (at most
 * COSTS_ROWS distinct lines are kept: those met first). */
static size_t rows_of(const dv_prof_result *r, unsigned core, cost_row *rows, uint64_t *total)
{
    size_t n = 0;
    *total = 0;
    const dv_prof_core *pc = &r->cores[core];
    for (size_t i = 0; i < r->npcs; i++) {
        uint64_t cost = 0, cls[DV_PROF_CLASS_COUNT] = {0};
        for (int l = 0; l < DV_PROF_LANES; l++)
            for (int k = 0; k < DV_PROF_CLASS_COUNT; k++) {
                cls[k] += pc->pcs[i].cycles[k][l];
                if (k != DV_PROF_STARVED && k != DV_PROF_IDLE)
                    cost += pc->pcs[i].cycles[k][l];
            }
        if (!cost)
            continue;
        *total += cost;
        const dv_obj_line *ln = dv_obj_line_at(r->obj, i * DV_INSN_BYTES);
        size_t j = 0;
        while (j < n && !same_line(rows[j].ln, ln))
            j++;
        if (j == n) {
            if (n == COSTS_ROWS)
                continue;
            memset(&rows[n], 0, sizeof rows[n]);
            rows[n].ln = ln;
            rows[n].pc = i * DV_INSN_BYTES;
            n++;
        }
        rows[j].cost += cost;
        for (int k = 0; k < DV_PROF_CLASS_COUNT; k++)
            rows[j].cls[k] += cls[k];
    }
    qsort(rows, n, sizeof *rows, by_cost);
    return n;
}

static void where_of(const dv_obj *obj, const dv_obj_line *ln, uint64_t pc, char *buf, size_t size)
{
    if (!ln || ln->file >= obj->nfiles)
        snprintf(buf, size, "pc 0x%llx", (unsigned long long)pc);
    else if (ln->call_line && ln->call_file < obj->nfiles)
        snprintf(buf, size, "%s:%u <- %s:%u", obj->files[ln->call_file], ln->call_line, obj->files[ln->file],
                 ln->line);
    else
        snprintf(buf, size, "%s:%u", obj->files[ln->file], ln->line);
}

void viz_costs_draw(viz_canvas *c, int x, int y, int w, int h, const viz_model *m, unsigned core,
                    int sel_lane, const char *note)
{
    int k = viz_text_scale(c), lh = viz_line_h(c);
    viz_fill(c, x, y, w, h, C_PANEL);
    char title[320];
    snprintf(title, sizeof title,
             "cost per source line, core %u (cycles on every pipe but starved and idle)  "
             "l: graphs  p: pipe %s  s: its next stall  %s",
             core, sel_lane < 0 ? "(none)" : dv_lane_name((unsigned)sel_lane), note ? note : "");
    viz_text(c, x + 4 * k, y + 2 * k, x + w, title, C_DIM);
    const dv_prof_result *r = m->prof ? dv_profile_result(m->prof) : NULL;
    if (!r || core >= r->ncores) {
        viz_text(c, x + 4 * k, y + lh + 6 * k, x + w, "(no profile yet)", C_DIM);
        return;
    }
    cost_row rows[COSTS_ROWS];
    uint64_t total;
    size_t n = rows_of(r, core, rows, &total);
    int row_h = lh + 3 * k, ry = y + lh + 6 * k, bar_w = w / 8;
    for (size_t i = 0; i < n && ry + row_h <= y + h; i++, ry += row_h) {
        int best = 0;
        for (int q = 1; q < DV_PROF_CLASS_COUNT; q++)
            if (q != DV_PROF_STARVED && q != DV_PROF_IDLE && rows[i].cls[q] > rows[i].cls[best])
                best = q;
        double share = total ? (double)rows[i].cost / (double)total : 0;
        viz_fill(c, x + 4 * k, ry + k, (int)(share * bar_w) + 1, lh - 2 * k, C_BAR);
        char where[300], line[400];
        where_of(r->obj, rows[i].ln, rows[i].pc, where, sizeof where);
        snprintf(line, sizeof line, "%5.1f%% %10llu  %-10s %s", 100.0 * share,
                 (unsigned long long)rows[i].cost, dv_prof_class_name((dv_prof_class)best), where);
        viz_text(c, x + 8 * k + bar_w, ry, x + w, line, C_TEXT);
    }
}

bool viz_next_stall(const viz_model *m, unsigned core, int lane, uint64_t after, uint64_t *start, char *what,
                    size_t size)
{
    if (core >= m->ncores || lane < 0 || lane >= DV_PIPE_COUNT)
        return false;
    bool scalar = lane == DV_PIPE_S;
    const viz_ring *ring = &m->cores[core].lanes[scalar ? DV_LANE_FLOWCTRL : lane];
    for (uint32_t i = viz_ring_find(ring, after); i < ring->count; i++) {
        const viz_slice *s = viz_ring_at(ring, i);
        if (s->start <= after || s->end <= s->start)
            continue;
        if (scalar && s->kind == VIZ_K_STALL) {
            static const dv_prof_class cls[] = {DV_PROF_QUEUE_FULL, DV_PROF_FLAG, DV_PROF_BARRIER};
            snprintf(what, size, "%s %s for %llu cycles", dv_lane_name((unsigned)lane),
                     dv_prof_class_name(cls[s->op < 3 ? s->op : 2]), (unsigned long long)(s->end - s->start));
        } else if (!scalar && s->kind == VIZ_K_WAIT) {
            snprintf(what, size, "%s %s for %llu cycles (pc 0x%x)", dv_lane_name((unsigned)lane),
                     dv_prof_class_name(s->op == DV_OP_CC_WAIT_FLAG ? DV_PROF_CC_FLAG : DV_PROF_FLAG),
                     (unsigned long long)(s->end - s->start), s->pc);
        } else {
            continue;
        }
        *start = s->start;
        return true;
    }
    return false;
}
