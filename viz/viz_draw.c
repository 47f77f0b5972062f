/* viz_draw.c - one frame of the view (see viz_draw.h for what it shows). */
#include "viz_draw.h"

#include "viz_costs.h"

#include <stdio.h>
#include <string.h>

/* ---- colours ---- */
enum {
    C_BG = 0x0f1318,
    C_PANEL = 0x171d24,
    C_HEADER = 0x1f2b37,
    C_GRID = 0x29323d,
    C_TEXT = 0xd8dee9,
    C_DIM = 0x8590a0,
    C_NOW = 0xf0f0f0,
    C_SELECT = 0x3a4a5c,
    C_FLOW = 0xffd33d,
    C_WAIT = 0xe5534b,
    C_SET = 0xffd33d,
    C_STALL_FULL = 0xd29922,
    C_STALL_BARRIER = 0xa371f7,
    C_DISPATCH = 0x4f5b68,
    C_SCALAR = 0x9aa5b1,
    C_BRANCH = 0xc9d1d9,
    C_DMA = 0x4a90d9,
    C_CUBE = 0xf28c28,
    C_FIX = 0xb562e0,
    C_VEC = 0x3fb950,
    C_VEC_HEAVY = 0x238636,
    C_VEC_RED = 0x56d4b0,
    C_VEC_CONV = 0x9ccc65,
    C_MASK = 0x7d8590,
    C_BARRIER = 0xe3b341,
};

static uint32_t class_colour(const viz_slice *s)
{
    switch (s->kind) {
    case VIZ_K_WAIT: return C_WAIT;
    case VIZ_K_SET: return C_SET;
    case VIZ_K_DISPATCH: return C_DISPATCH;
    case VIZ_K_STALL:
        return s->op == DV_TRACE_STALL_QUEUE_FULL ? C_STALL_FULL
               : s->op == DV_TRACE_STALL_FLAG     ? C_WAIT
                                                  : C_STALL_BARRIER;
    default: break;
    }
    const dv_insn_info *info = dv_isa_info(s->op);
    switch (info ? info->tclass : DV_TC_ALU) {
    case DV_TC_DMA: return C_DMA;
    case DV_TC_CUBE: return C_CUBE;
    case DV_TC_FIX: return C_FIX;
    case DV_TC_VBIN:
    case DV_TC_VMUL:
    case DV_TC_VUN: return C_VEC;
    case DV_TC_VDIV:
    case DV_TC_VEXP: return C_VEC_HEAVY;
    case DV_TC_VRED:
    case DV_TC_VCMP: return C_VEC_RED;
    case DV_TC_VCONV: return C_VEC_CONV;
    case DV_TC_MASK: return C_MASK;
    case DV_TC_SYNC: return C_BARRIER;
    case DV_TC_BRANCH: return C_BRANCH;
    default: return C_SCALAR;
    }
}

/* a * (1 - k/8) + b * k/8, per channel, in integers */
static uint32_t mix(uint32_t a, uint32_t b, unsigned k)
{
    uint32_t out = 0;
    for (int sh = 0; sh <= 16; sh += 8) {
        uint32_t x = (a >> sh) & 255, y = (b >> sh) & 255;
        out |= ((x * (8 - k) + y * k) / 8) << sh;
    }
    return out;
}

/* ---- numbers as text ---- */

static void fmt_count(uint64_t v, char *buf, size_t size)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < n && (size_t)o + 2 < size; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
}

static void fmt_bytes(double b, char *buf, size_t size)
{
    if (b >= 1048576)
        snprintf(buf, size, "%.1fM", b / 1048576);
    else if (b >= 1024)
        snprintf(buf, size, "%.1fK", b / 1024);
    else
        snprintf(buf, size, "%.0f", b);
}

/* ---- layout ---- */

typedef struct layout {
    int w, h, k, lh; /* size, text scale, line height */
    int head_h;
    int tl_x, tl_y, label_w, plot_x, plot_w, lane_h, tl_h; /* timeline */
    int side_x, side_w;                                    /* right column */
    int ov_y, ov_h;                                        /* core overview */
    int occ_y, occ_h;                                      /* buffers */
    int gr_y, gr_h;                                        /* graphs */
    int src_y, leg_y;                                      /* source line, legend */
} layout;

static void lay_out(const viz_canvas *c, int w, int h, layout *l)
{
    memset(l, 0, sizeof *l);
    l->w = w, l->h = h;
    l->k = viz_text_scale(c);
    l->lh = viz_line_h(c);
    int pad = 8 * l->k;
    l->head_h = l->lh + 12 * l->k;
    l->side_w = w * 29 / 100;
    l->side_x = w - l->side_w - pad;
    l->tl_x = pad;
    l->tl_y = l->head_h + l->lh + 2 * pad; /* room for the timeline's caption */
    l->label_w = 9 * 6 * l->k;
    l->plot_x = l->tl_x + l->label_w;
    l->plot_w = l->side_x - pad - l->plot_x;
    l->lane_h = (h * 44 / 100) / DV_LANES;
    if (l->lane_h < l->lh + 4)
        l->lane_h = l->lh + 4;
    l->tl_h = l->lane_h * DV_LANES + l->lh + 6 * l->k; /* lanes and the axis */
    l->ov_y = l->head_h + pad;
    l->occ_h = 5 * (l->lh + 6 * l->k) + l->lh + 4 * l->k;
    l->ov_h = l->tl_y + l->tl_h - l->ov_y - l->occ_h - pad;
    l->occ_y = l->ov_y + l->ov_h + pad;
    l->gr_y = l->tl_y + l->tl_h + pad;
    l->leg_y = h - 3 * (l->lh + 4 * l->k) - pad / 2;
    l->src_y = l->leg_y - (l->lh + 8 * l->k);
    l->gr_h = l->src_y - pad - l->gr_y;
}

int viz_plot_width(const viz_canvas *c, int w, int h)
{
    layout l;
    lay_out(c, w, h, &l);
    return l.plot_w;
}

/* The timeline's cycle range [t0, t0 + span). */
static uint64_t view_t0(const viz_view *v)
{
    uint64_t t1 = v->follow ? v->now : v->end;
    return t1 > v->span ? t1 - v->span : 0;
}

static int x_of(const layout *l, const viz_view *v, uint64_t t0, uint64_t cycle)
{
    if (cycle <= t0)
        return l->plot_x;
    double f = (double)(cycle - t0) / (double)v->span;
    if (f > 1)
        f = 1;
    return l->plot_x + (int)(f * l->plot_w);
}

bool viz_cycle_at(const viz_canvas *c, int w, int h, const viz_view *v, int x, int y, uint64_t *cycle)
{
    layout l;
    lay_out(c, w, h, &l);
    if (x < l.plot_x || x >= l.plot_x + l.plot_w || y < l.tl_y || y >= l.tl_y + l.lane_h * DV_LANES)
        return false;
    *cycle = view_t0(v) + (uint64_t)((double)(x - l.plot_x) * (double)v->span / l.plot_w);
    return true;
}

/* ---- which lanes and buffers a core has ---- */

static bool has_lane(const dv_core_info *dc, int lane)
{
    return lane == DV_LANE_FLOWCTRL || dc->has_pipe[lane];
}

static void core_label(const dv_core_info *dc, unsigned i, char *buf, size_t size)
{
    switch (dc->kind) {
    case DV_KIND_AIC: snprintf(buf, size, "AIC%u", dc->group); break;
    case DV_KIND_AIV:
        snprintf(buf, size, "AIV%llu", (unsigned long long)(dc->group * dc->sub_dim + dc->sub_idx));
        break;
    default: snprintf(buf, size, "c%u", i); break;
    }
}

/* ---- panels ---- */

static void draw_header(viz_canvas *c, const layout *l, const viz_model *m, const viz_view *v)
{
    viz_fill(c, 0, 0, l->w, l->head_h, C_HEADER);
    int y = 6 * l->k;
    char right[256], cyc[32];
    fmt_count(v->now, cyc, sizeof cyc);
    double us = m->cfg ? (double)v->now / (double)m->cfg->clock_mhz : 0;
    int n = snprintf(right, sizeof right, "cycle %s  %.2f us  %s  %llu cycles/frame", cyc, us, v->state,
                     (unsigned long long)v->cycles_per_frame);
    if (v->show_host_time && n > 0 && (size_t)n < sizeof right)
        snprintf(right + n, sizeof right - (size_t)n, "  %.1f ms/frame", v->frame_ms);
    int rw = viz_text_w(c, right);
    viz_text(c, l->w - rw - 8 * l->k, y, l->w, right, C_TEXT);
    char left[200];
    snprintf(left, sizeof left, "dvsim viz  %s", v->title ? v->title : "");
    viz_text(c, 8 * l->k, y, l->w - rw - 24 * l->k, left, C_TEXT);
}

static void draw_axis(viz_canvas *c, const layout *l, const viz_view *v, uint64_t t0)
{
    int y = l->tl_y + l->lane_h * DV_LANES;
    viz_fill(c, l->plot_x, y, l->plot_w, 1, C_DIM);
    /* ticks at 1, 2 or 5 x 10^n cycles, about 100 pixels apart */
    uint64_t want = v->span * 100 / (uint64_t)(l->plot_w > 0 ? l->plot_w : 1), step = 1;
    while (step < want) {
        if (step * 2 >= want) {
            step *= 2;
            break;
        }
        if (step * 5 >= want) {
            step *= 5;
            break;
        }
        step *= 10;
    }
    for (uint64_t t = (t0 + step - 1) / step * step; t < t0 + v->span; t += step) {
        int x = x_of(l, v, t0, t);
        viz_fill(c, x, l->tl_y, 1, l->lane_h * DV_LANES, C_GRID);
        viz_fill(c, x, y, 1, 4 * l->k, C_DIM);
        char lab[32];
        fmt_count(t, lab, sizeof lab);
        viz_text(c, x + 2 * l->k, y + 3 * l->k, l->plot_x + l->plot_w, lab, C_DIM);
    }
}

static void draw_lane(viz_canvas *c, const layout *l, const viz_view *v, const viz_ring *r, int lane,
                      uint64_t t0, uint64_t now)
{
    int y = l->tl_y + lane * l->lane_h + 2 * l->k, hgt = l->lane_h - 4 * l->k;
    uint64_t t1 = t0 + v->span;
    int last_x1 = -1;
    uint32_t last_col = 0;
    for (uint32_t i = viz_ring_find(r, t0); i < r->count; i++) {
        const viz_slice *s = viz_ring_at(r, i);
        if (s->start >= t1 || s->start > now)
            break;
        uint64_t end = s->end < now ? s->end : now;
        int x0 = x_of(l, v, t0, s->start), x1 = x_of(l, v, t0, end);
        if (x1 <= x0)
            x1 = x0 + 1;
        uint32_t col = class_colour(s);
        if (x1 <= last_x1 && col == last_col)
            continue; /* many slices in one pixel: drawn once */
        int top = y, hh = hgt;
        if (s->kind == VIZ_K_SET || (s->kind == VIZ_K_WAIT && s->end == s->start)) {
            top = y + hgt / 4; /* a flag that did not wait: a short tick */
            hh = hgt / 2;
        } else if (s->kind == VIZ_K_DISPATCH) {
            top = y + hgt / 3;
            hh = hgt / 3;
        }
        viz_fill(c, x0, top, x1 - x0, hh, col);
        if (x1 - x0 >= 3 && hh == hgt)
            viz_fill(c, x1 - 1, top, 1, hh, mix(col, C_BG, 4)); /* a seam between neighbours */
        last_x1 = x1;
        last_col = col;
    }
}

/* What is still going on at `now` and not yet a slice: waits and stalls. */
static void draw_open(viz_canvas *c, const layout *l, const viz_view *v, const dv_core_info *dc, uint64_t t0,
                      uint64_t now)
{
    int hgt = l->lane_h - 4 * l->k;
    for (int p = DV_PIPE_V; p < DV_PIPE_COUNT; p++) {
        uint64_t ws = dc->pipe_wait_since[p];
        if (dc->pipe_waiting[p] && ws < now && ws < t0 + v->span) {
            int x0 = x_of(l, v, t0, ws), x1 = x_of(l, v, t0, now);
            viz_fill(c, x0, l->tl_y + p * l->lane_h + 2 * l->k, x1 > x0 ? x1 - x0 : 1, hgt, C_WAIT);
        }
    }
    uint64_t since = dc->scalar_held_since;
    uint32_t col = 0;
    if (dc->scalar_held == DV_TRACE_STALL_QUEUE_FULL)
        col = C_STALL_FULL;
    else if (dc->scalar_held == DV_TRACE_STALL_FLAG)
        col = C_WAIT;
    else if (dc->scalar_held == DV_TRACE_STALL_BARRIER)
        col = C_STALL_BARRIER;
    if (col && since < now && dc->stop == DV_STOP_NONE) {
        int x0 = x_of(l, v, t0, since), x1 = x_of(l, v, t0, now);
        viz_fill(c, x0, l->tl_y + DV_LANE_FLOWCTRL * l->lane_h + 2 * l->k, x1 > x0 ? x1 - x0 : 1, hgt, col);
    }
}

static void draw_flows(viz_canvas *c, const layout *l, const viz_view *v, const viz_core *vc, uint64_t t0,
                       uint64_t now)
{
    uint64_t t1 = t0 + v->span;
    for (uint32_t i = 0; i < vc->flow_count; i++) {
        const viz_flow *f = &vc->flows[(vc->flow_head + i) % VIZ_FLOWS];
        if (f->wait_cycle < t0 || f->set_cycle >= t1 || f->wait_cycle > now)
            continue;
        int xs = x_of(l, v, t0, f->set_cycle), xw = x_of(l, v, t0, f->wait_cycle);
        int ys = l->tl_y + f->set_lane * l->lane_h + l->lane_h / 2;
        int yw = l->tl_y + f->wait_lane * l->lane_h + l->lane_h / 2;
        int top = ys < yw ? ys : yw, bot = ys < yw ? yw : ys;
        viz_fill(c, xs, top, 1, bot - top + 1, C_FLOW);
        if (xw > xs)
            viz_fill(c, xs, yw, xw - xs + 1, 1, C_FLOW);
        viz_fill(c, xw - l->k, yw - l->k, 2 * l->k + 1, 2 * l->k + 1, C_FLOW); /* the wait end */
    }
}

static void draw_timeline(viz_canvas *c, const layout *l, const viz_model *m, const viz_view *v)
{
    viz_fill(c, l->tl_x, l->tl_y, l->label_w + l->plot_w, l->lane_h * DV_LANES, C_PANEL);
    if (!m->ncores)
        return;
    const viz_core *vc = &m->cores[v->core];
    dv_core_info dci;
    dv_sim_core_info(m->sim, v->core, &dci);
    const dv_core_info *dc = &dci;
    uint64_t t0 = view_t0(v);
    draw_axis(c, l, v, t0);
    for (int lane = 0; lane < DV_LANES; lane++) {
        int y = l->tl_y + lane * l->lane_h;
        if (lane)
            viz_fill(c, l->tl_x, y, l->label_w + l->plot_w, 1, C_GRID);
        bool present = has_lane(dc, lane);
        if (lane == v->sel_lane)
            viz_fill(c, l->tl_x, y + 1, 2 * l->k, l->lane_h - 1, C_NOW);
        viz_text(c, l->tl_x + 4 * l->k, y + (l->lane_h - l->lh) / 2 + l->k, l->plot_x,
                 dv_lane_name((unsigned)lane), present ? C_TEXT : C_GRID);
        draw_lane(c, l, v, &vc->lanes[lane], lane, t0, v->now);
    }
    draw_open(c, l, v, dc, t0, v->now);
    draw_flows(c, l, v, vc, t0, v->now);
    if (v->now >= t0 && v->now <= t0 + v->span) {
        int x = x_of(l, v, t0, v->now);
        viz_fill(c, x, l->tl_y, l->k, l->lane_h * DV_LANES, C_NOW);
    }
    char cap[160], a[32], b[32];
    fmt_count(t0, a, sizeof a);
    fmt_count(t0 + v->span, b, sizeof b);
    char label[16];
    core_label(dc, v->core, label, sizeof label);
    snprintf(cap, sizeof cap, "%s, block %llu: cycles %s - %s%s;  graphs below: windows of %llu cycles",
             label, (unsigned long long)vc->block, a, b, v->follow ? "" : " (panned; f follows)",
             (unsigned long long)m->period);
    viz_text(c, l->tl_x + 4 * l->k, l->tl_y + l->lane_h * DV_LANES + 3 * l->k, l->plot_x - 2 * l->k, "cycles",
             C_DIM);
    viz_text(c, l->tl_x, l->tl_y - l->lh - 3 * l->k, l->plot_x + l->plot_w, cap, C_TEXT);
}

/* Busy fraction of lane p over the core's last `n` samples. */
static double recent_busy(const viz_core *vc, int p, unsigned n)
{
    double sum = 0;
    unsigned got = 0;
    for (unsigned b = 0; b < n; b++) {
        const viz_sample *s = viz_hist_at(vc, b);
        if (!s)
            break;
        sum += s->busy[p];
        got++;
    }
    return got ? sum / got : 0;
}

static const uint32_t pipe_colours[DV_PIPE_COUNT] = {C_SCALAR, C_VEC, C_CUBE, C_DMA, C_DMA, C_DMA, C_FIX};

typedef struct ov_geom {
    int cols, rows, col_w, row_h, label_w, cell_w, y0;
} ov_geom;

static void ov_layout(const layout *l, unsigned ncores, ov_geom *g)
{
    g->y0 = l->ov_y + l->lh + 4 * l->k;
    int avail = l->ov_h - (g->y0 - l->ov_y);
    /* rows as tall as fit, up to three lines; columns when they do not */
    g->row_h = ncores ? avail / (int)ncores : avail;
    if (g->row_h > 3 * l->lh)
        g->row_h = 3 * l->lh;
    if (g->row_h < l->lh + 2 * l->k)
        g->row_h = l->lh + 2 * l->k;
    g->rows = avail / g->row_h;
    if (g->rows < 1)
        g->rows = 1;
    g->cols = ((int)ncores + g->rows - 1) / g->rows;
    if (g->cols < 1)
        g->cols = 1;
    if (g->cols == 1 && (int)ncores < g->rows)
        g->rows = (int)ncores;
    g->col_w = l->side_w / g->cols;
    g->label_w = 7 * 6 * l->k; /* "AIV47" and a margin */
    g->cell_w = (g->col_w - g->label_w - 4 * l->k) / DV_PIPE_COUNT;
    if (g->cell_w < 1)
        g->cell_w = 1;
}

static void draw_overview(viz_canvas *c, const layout *l, const viz_model *m, const viz_view *v)
{
    viz_fill(c, l->side_x, l->ov_y, l->side_w, l->ov_h, C_PANEL);
    char title[96];
    snprintf(title, sizeof title, "cores: pipes busy, last %llu cycles", (unsigned long long)(4 * m->period));
    viz_text(c, l->side_x + 4 * l->k, l->ov_y + 2 * l->k, l->side_x + l->side_w, title, C_DIM);
    ov_geom g;
    ov_layout(l, m->ncores, &g);
    for (unsigned i = 0; i < m->ncores; i++) {
        int col = (int)i / g.rows, row = (int)i % g.rows;
        int x = l->side_x + col * g.col_w, y = g.y0 + row * g.row_h;
        if (y + g.row_h > l->ov_y + l->ov_h)
            continue;
        if (i == v->core)
            viz_fill(c, x, y, g.col_w, g.row_h, C_SELECT);
        dv_core_info dci;
        dv_sim_core_info(m->sim, i, &dci);
        const dv_core_info *dc = &dci;
        char lab[16];
        core_label(dc, i, lab, sizeof lab);
        viz_text(c, x + 2 * l->k, y + (g.row_h - l->lh) / 2 + l->k, x + g.label_w, lab,
                 i == v->core ? C_TEXT : C_DIM);
        for (int p = 0; p < DV_PIPE_COUNT; p++) {
            int cx = x + g.label_w + p * g.cell_w;
            if (!has_lane(dc, p)) {
                viz_fill(c, cx + 1, y + g.row_h / 2, g.cell_w - 2, 1, C_GRID);
                continue;
            }
            double b = recent_busy(&m->cores[i], p, 4);
            unsigned level = b <= 0 ? 0 : 1 + (unsigned)(b * 7.0 + 0.5);
            viz_fill(c, cx + 1, y + 1, g.cell_w - 2, g.row_h - 2,
                     mix(C_GRID, pipe_colours[p], level > 8 ? 8 : level));
        }
    }
}

int viz_core_at(const viz_canvas *c, int w, int h, const viz_model *m, int x, int y)
{
    layout l;
    lay_out(c, w, h, &l);
    ov_geom g;
    ov_layout(&l, m->ncores, &g);
    if (x < l.side_x || x >= l.side_x + l.side_w || y < g.y0 || y >= l.ov_y + l.ov_h)
        return -1;
    int col = (x - l.side_x) / g.col_w, row = (y - g.y0) / g.row_h;
    if (row >= g.rows)
        return -1;
    int i = col * g.rows + row;
    return i < (int)m->ncores ? i : -1;
}

static void draw_buffers(viz_canvas *c, const layout *l, const viz_model *m, const viz_view *v)
{
    static const dv_mem_kind kinds[] = {DV_MEM_L1, DV_MEM_L0A, DV_MEM_L0B, DV_MEM_L0C, DV_MEM_UB};
    viz_fill(c, l->side_x, l->occ_y, l->side_w, l->occ_h, C_PANEL);
    viz_text(c, l->side_x + 4 * l->k, l->occ_y + 2 * l->k, l->side_x + l->side_w,
             "buffers: bytes in flight (avg, | peak)", C_DIM);
    if (!m->ncores)
        return;
    const viz_core *vc = &m->cores[v->core];
    dv_core_info dci;
    dv_sim_core_info(m->sim, v->core, &dci);
    const dv_core_info *dc = &dci;
    const viz_sample *s = viz_hist_at(vc, 0);
    int row_h = l->lh + 6 * l->k, y = l->occ_y + l->lh + 6 * l->k;
    int lab_w = 4 * 6 * l->k, txt_w = 15 * 6 * l->k;
    int bar_x = l->side_x + 4 * l->k + lab_w, bar_w = l->side_w - 8 * l->k - lab_w - txt_w;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++, y += row_h) {
        uint64_t cap = dc->buffer_bytes[kinds[i]];
        viz_text(c, l->side_x + 4 * l->k, y + 2 * l->k, bar_x, dv_mem_kind_name(kinds[i]),
                 cap ? C_TEXT : C_GRID);
        viz_fill(c, bar_x, y, bar_w, row_h - 4 * l->k, C_GRID);
        if (!cap)
            continue;
        double cur = s ? s->inflight[kinds[i]] : 0, peak = (double)vc->peak_inflight[kinds[i]];
        int fw = (int)((double)bar_w * (cur > (double)cap ? 1.0 : cur / (double)cap));
        viz_fill(c, bar_x, y, fw, row_h - 4 * l->k,
                 kinds[i] == DV_MEM_UB    ? C_VEC
                 : kinds[i] == DV_MEM_L0C ? C_CUBE
                                          : C_DMA);
        int px = bar_x + (int)((double)bar_w * (peak > (double)cap ? 1.0 : peak / (double)cap));
        if (peak > 0)
            viz_fill(c, px > bar_x + bar_w - 2 * l->k ? bar_x + bar_w - 2 * l->k : px, y, 2 * l->k,
                     row_h - 4 * l->k, C_NOW);
        char a[16], b[16], txt[40];
        fmt_bytes(cur, a, sizeof a);
        fmt_bytes((double)cap, b, sizeof b);
        snprintf(txt, sizeof txt, "%s / %s", a, b);
        viz_text(c, bar_x + bar_w + 4 * l->k, y + 2 * l->k, l->side_x + l->side_w, txt, C_TEXT);
    }
}

/* One small graph: a title, the latest value, and the history as bars. */
static void graph(viz_canvas *c, const layout *l, int x, int y, int w, int h, const char *title,
                  const char *value, const viz_core *vc, int which, int index, double full, uint32_t colour)
{
    viz_fill(c, x, y, w, h, C_PANEL);
    viz_text(c, x + 3 * l->k, y + 2 * l->k, x + w, title, C_DIM);
    int vw = viz_text_w(c, value);
    viz_text(c, x + w - vw - 3 * l->k, y + 2 * l->k, x + w, value, C_TEXT);
    int gy = y + l->lh + 4 * l->k, gh = h - (gy - y) - 2 * l->k, bw = 2 * l->k;
    if (gh <= 0)
        return;
    viz_fill(c, x + 2 * l->k, gy + gh, w - 4 * l->k, 1, C_GRID);
    int n = (w - 4 * l->k) / bw;
    for (int b = 0; b < n; b++) {
        const viz_sample *s = viz_hist_at(vc, (uint32_t)b);
        if (!s)
            break;
        double val = which == 0 ? s->busy[index] : s->bw[index];
        double f = full > 0 ? val / full : 0;
        if (f > 1)
            f = 1;
        int bh = (int)(f * gh + 0.5);
        if (bh)
            viz_fill(c, x + w - 2 * l->k - (b + 1) * bw, gy + gh - bh, bw, bh, colour);
    }
}

static void draw_graphs(viz_canvas *c, const layout *l, const viz_model *m, const viz_view *v)
{
    if (!m->ncores || l->gr_h < 4 * l->lh)
        return;
    const viz_core *vc = &m->cores[v->core];
    dv_core_info dci;
    dv_sim_core_info(m->sim, v->core, &dci);
    const dv_core_info *dc = &dci;
    const viz_sample *s = viz_hist_at(vc, 0);
    int gap = 6 * l->k, row_h = (l->gr_h - gap) / 2, total = l->w - 2 * 8 * l->k;
    /* row 1: busy % per pipe the core has */
    int np = 0;
    for (int p = 0; p < DV_PIPE_COUNT; p++)
        np += has_lane(dc, p);
    int gw = (total - (np - 1) * gap) / (np ? np : 1), x = 8 * l->k;
    for (int p = 0; p < DV_PIPE_COUNT; p++) {
        if (!has_lane(dc, p))
            continue;
        char title[32], val[16];
        snprintf(title, sizeof title, "%s busy %%", dv_lane_name((unsigned)p));
        snprintf(val, sizeof val, "%.0f%%", s ? 100.0 * s->busy[p] : 0.0);
        graph(c, l, x, l->gr_y, gw, row_h, title, val, vc, 0, p, 1.0, pipe_colours[p]);
        x += gw + gap;
    }
    /* row 2: bandwidth per path of the chip, full height = the path's peak */
    int paths[DV_PATH_COUNT], n = 0;
    for (int p = 1; p < DV_PATH_COUNT; p++)
        if (dv_path_bw(m->cfg, (dv_path)p))
            paths[n++] = p;
    gw = (total - (n - 1) * gap) / (n ? n : 1);
    x = 8 * l->k;
    double ghz = (double)m->cfg->clock_mhz / 1000.0;
    for (int i = 0; i < n; i++) {
        char val[24];
        double bpc = s ? s->bw[paths[i]] : 0;
        snprintf(val, sizeof val, "%.0f", bpc * ghz);
        char title[32];
        snprintf(title, sizeof title, "%s GB/s", dv_path_name((dv_path)paths[i]));
        graph(c, l, x, l->gr_y + row_h + gap, gw, row_h, title, val, vc, 1, paths[i],
              (double)dv_path_bw(m->cfg, (dv_path)paths[i]), C_DMA);
        x += gw + gap;
    }
}

/* The text of source line `line` of `path` ("" if it cannot be read). */
static void read_source_line(const char *path, unsigned line, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char buf[512];
    unsigned n = 0;
    while (fgets(buf, sizeof buf, f)) {
        size_t len = strlen(buf);
        bool whole = len && buf[len - 1] == '\n';
        if (++n == line) {
            buf[strcspn(buf, "\r\n")] = '\0';
            const char *p = buf;
            while (*p == ' ' || *p == '\t')
                p++;
            snprintf(out, size, "%s", p);
            for (char *q = out; *q; q++)
                if (*q == '\t')
                    *q = ' ';
            break;
        }
        while (!whole && fgets(buf, sizeof buf, f)) { /* the rest of a long line */
            len = strlen(buf);
            whole = len && buf[len - 1] == '\n';
        }
    }
    fclose(f);
}

static void draw_source(viz_canvas *c, const layout *l, const viz_model *m, viz_view *v)
{
    viz_fill(c, 0, l->src_y, l->w, l->lh + 6 * l->k, C_PANEL);
    int x = 8 * l->k, y = l->src_y + 3 * l->k;
    uint64_t cycle;
    if (!m->ncores || v->mouse_x < 0 || !viz_cycle_at(c, l->w, l->h, v, v->mouse_x, v->mouse_y, &cycle)) {
        viz_text(c, x, y, l->w, "point at a block to see its instruction and source line", C_DIM);
        return;
    }
    int lane = (v->mouse_y - l->tl_y) / l->lane_h;
    const viz_ring *r = &m->cores[v->core].lanes[lane];
    uint32_t i = viz_ring_find(r, cycle);
    /* the slice under the pointer, or the nearest within two pixels */
    uint64_t slack = v->span * 2 / (uint64_t)(l->plot_w > 0 ? l->plot_w : 1) + 1;
    const viz_slice *s = NULL;
    for (uint32_t k = i > 0 ? i - 1 : 0; k < r->count && k <= i + 1; k++) {
        const viz_slice *t = viz_ring_at(r, k);
        if (t->start <= cycle + slack && t->end + slack >= cycle && t->start <= v->now) {
            s = t;
            break;
        }
    }
    if (!s) {
        char none[64];
        snprintf(none, sizeof none, "%s: idle at cycle %llu", dv_lane_name((unsigned)lane),
                 (unsigned long long)cycle);
        viz_text(c, x, y, l->w, none, C_DIM);
        return;
    }
    dv_core_info dci;
    dv_sim_core_info(m->sim, v->core, &dci);
    const dv_core_info *dc = &dci;
    char text[200] = "", line[640];
    if (s->kind == VIZ_K_STALL) {
        static const char *const why[] = {"queue full", "wait_flag (dst=s)", "pipe_barrier all"};
        snprintf(text, sizeof text, "Scalar unit held: %s", why[s->op < 3 ? s->op : 2]);
    } else if (dc->obj && s->pc / DV_INSN_BYTES < dc->obj->text_size / DV_INSN_BYTES) {
        uint64_t word = 0;
        for (int b = 0; b < 8; b++)
            word |= (uint64_t)dc->obj->text[s->pc + (uint64_t)b] << (8 * b);
        dv_insn in;
        if (dv_isa_decode(word, &in, NULL) == DV_OK)
            dv_isa_format_insn(&in, s->pc, NULL, NULL, text, sizeof text);
    }
    const dv_obj_line *ln = dc->obj ? dv_obj_line_at(dc->obj, s->pc) : NULL;
    char where[320] = "";
    if (ln && ln->file < dc->obj->nfiles) {
        snprintf(where, sizeof where, "%s:%u", dc->obj->files[ln->file], ln->line);
        if (strcmp(where, v->src_key) != 0) {
            snprintf(v->src_key, sizeof v->src_key, "%s", where);
            read_source_line(dc->obj->files[ln->file], ln->line, v->src_text, sizeof v->src_text);
        }
    }
    snprintf(line, sizeof line, "%s pc 0x%x [%llu, %llu) %s  %s%s%s", dv_lane_name((unsigned)lane), s->pc,
             (unsigned long long)s->start, (unsigned long long)s->end, text, where,
             v->src_text[0] && where[0] ? ": " : "", where[0] ? v->src_text : "");
    viz_text(c, x, y, l->w - 8 * l->k, line, C_TEXT);
}

static void draw_legend(viz_canvas *c, const layout *l)
{
    /* the units' colours under their pipes' names (isa/pipes.def) */
    const struct {
        const char *name;
        uint32_t colour;
    } items[] = {{dv_pipe_key(DV_PIPE_S), C_SCALAR},
                 {"dispatch", C_DISPATCH},
                 {"transfer", C_DMA},
                 {dv_pipe_key(DV_PIPE_M), C_CUBE},
                 {"fixpipe", C_FIX},
                 {dv_pipe_key(DV_PIPE_V), C_VEC},
                 {"vec exp/div", C_VEC_HEAVY},
                 {"vec reduce/cmp", C_VEC_RED},
                 {"vec conv", C_VEC_CONV},
                 {"set_flag", C_SET},
                 {"wait/blocked", C_WAIT},
                 {"queue full", C_STALL_FULL},
                 {"barrier", C_STALL_BARRIER}};
    int x = 8 * l->k, y = l->leg_y, sw = l->lh - 2 * l->k;
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        int w = sw + 4 * l->k + viz_text_w(c, items[i].name) + 10 * l->k;
        if (x + w > l->w) {
            x = 8 * l->k;
            y += l->lh + 4 * l->k;
        }
        viz_fill(c, x, y + l->k, sw, sw, items[i].colour);
        viz_text(c, x + sw + 4 * l->k, y + l->k, l->w, items[i].name, C_DIM);
        x += w;
    }
    y += l->lh + 4 * l->k;
    viz_text(c, 8 * l->k, y + l->k, l->w,
             "keys: space pause/run  n step 1 instruction  c step N cycles  [ ] N  +/- or wheel zoom  "
             "arrows or drag pan  f follow",
             C_TEXT);
    y += l->lh + 4 * l->k;
    viz_text(
        c, 8 * l->k, y + l->k, l->w,
        "      up/down, Tab or click a row: pick core  , . speed  Home start  q Esc: quit (ends the run)",
        C_TEXT);
}

void viz_draw(viz_canvas *c, int w, int h, const viz_model *m, viz_view *v)
{
    layout l;
    lay_out(c, w, h, &l);
    if (v->core >= m->ncores)
        v->core = 0;
    if (v->span < 16)
        v->span = 16;
    viz_fill(c, 0, 0, w, h, C_BG);
    draw_header(c, &l, m, v);
    if (m->ncores && m->sim) {
        draw_timeline(c, &l, m, v);
        draw_overview(c, &l, m, v);
        draw_buffers(c, &l, m, v);
        if (v->show_costs)
            viz_costs_draw(c, 8 * l.k, l.gr_y, l.w - 16 * l.k, l.gr_h, m, v->core, v->sel_lane, v->note);
        else
            draw_graphs(c, &l, m, v);
        draw_source(c, &l, m, v);
    }
    draw_legend(c, &l);
}
