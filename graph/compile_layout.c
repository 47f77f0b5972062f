/* compile_layout.c - plan tensors in their layouts: the activations each
 * step reads and writes, the conversions between layouts (a costed step:
 * the bytes it moves through GM at the chip's HBM rate), and the weights
 * region, each weight packed at compile time in the layout its operator
 * reads (ND f16, NZ for matmul's BNZ, FracZ for conv2d). */
#include "compile_priv.h"
#include "dv_fp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t up16(int64_t v)
{
    return (uint64_t)((v + 15) / 16 * 16);
}

uint64_t cc_layout_bytes(dv_tlayout l, int rank, const int64_t *dims)
{
    uint64_t count = 1;
    for (int i = 0; i < rank; i++)
        count *= (uint64_t)dims[i];
    switch (l) {
    case DV_TL_ND16:
        return rank ? count / (uint64_t)(dims[rank - 1] ? dims[rank - 1] : 1) * up16(dims[rank - 1]) * 2 : 32;
    case DV_TL_NC1HWC0: /* [N, C, H, W] */
        return (uint64_t)dims[0] * up16(dims[1]) * (uint64_t)dims[2] * (uint64_t)dims[3] * 2;
    case DV_TL_NZ: /* [K, N] */ return up16(dims[0]) * up16(dims[1]) * 2;
    case DV_TL_FRACZ: /* [Co, C, KH, KW] */
        return up16(dims[0]) * up16(dims[1]) * (uint64_t)dims[2] * (uint64_t)dims[3] * 2;
    default: return count * 2;
    }
}

int cc_new_tensor(cctx *c, const char *name, int gt, dv_tlayout l, int rank, const int64_t *dims)
{
    dv_plan *p = c->p;
    if (p->ntensors == p->tcap) {
        unsigned cap = p->tcap ? 2 * p->tcap : 64;
        dv_plan_tensor *t = realloc(p->t, cap * sizeof *t);
        if (!t) {
            dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
            return -1;
        }
        p->t = t;
        p->tcap = cap;
    }
    dv_plan_tensor *t = &p->t[p->ntensors];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->gt = gt;
    t->layout = l;
    t->rank = rank;
    memcpy(t->dims, dims, (size_t)rank * sizeof *dims);
    t->bytes = cc_layout_bytes(l, rank, dims);
    t->alias = -1;
    t->first = t->last = -1;
    if (gt >= 0) {
        const dv_gtensor *g = &p->g->t[gt];
        t->weight = g->data != NULL;
        t->input = g->is_input;
        t->output = g->is_output;
    }
    return (int)p->ntensors++;
}

dv_plan_step *cc_step(cctx *c, dv_step_kind k, const char *op)
{
    dv_plan *p = c->p;
    if (p->nsteps == p->scap) {
        unsigned cap = p->scap ? 2 * p->scap : 64;
        dv_plan_step *s = realloc(p->s, cap * sizeof *s);
        if (!s) {
            dv_error_set(c->err, DV_ERR_NOMEM, "out of memory");
            return NULL;
        }
        p->s = s;
        p->scap = cap;
    }
    dv_plan_step *s = &p->s[p->nsteps++];
    memset(s, 0, sizeof *s);
    s->kind = k;
    snprintf(s->op, sizeof s->op, "%s", op);
    return s;
}

dv_tlayout cc_layout_of(const cctx *c, int gt)
{
    return c->produced[gt] >= 0 ? (dv_tlayout)c->produced[gt] : DV_TL_ND;
}

int cc_define(cctx *c, int gt, dv_tlayout l)
{
    const dv_gtensor *g = &c->p->g->t[gt];
    int k = cc_new_tensor(c, g->name, gt, l, g->rank, g->dims);
    if (k >= 0) {
        c->memo[gt][l] = k;
        c->produced[gt] = (int)l;
    }
    return k;
}

/* The conversion's name: "nchw_to_nc1hwc0", "nd16_to_nd" ... */
static void conversion_name(dv_tlayout from, dv_tlayout to, char *buf, size_t len)
{
    static const char *const short_names[DV_TL_COUNT] = {"nd", "nd16", "nc1hwc0", "nz", "fracz"};
    snprintf(buf, len, "%s_to_%s", from == DV_TL_ND && to == DV_TL_NC1HWC0 ? "nchw" : short_names[from],
             to == DV_TL_ND && from == DV_TL_NC1HWC0 ? "nchw" : short_names[to]);
}

int cc_use(cctx *c, int gt, dv_tlayout l)
{
    if (c->memo[gt][l] >= 0)
        return c->memo[gt][l];
    const dv_gtensor *g = &c->p->g->t[gt];
    if (g->data) { /* a weight: packed in l at compile time */
        int k = cc_new_tensor(c, g->name, gt, l, g->rank, g->dims);
        if (k >= 0)
            c->memo[gt][l] = k;
        if (k >= 0 && l == DV_TL_NZ)
            c->p->rep.nz_weights++;
        if (k >= 0 && l == DV_TL_FRACZ)
            c->p->rep.fracz_weights++;
        return k;
    }
    dv_tlayout from = cc_layout_of(c, gt);
    int src = c->memo[gt][from];
    if (src < 0) /* a graph input, first used now: it arrives ND */
        src = cc_define(c, gt, from = DV_TL_ND);
    if (src < 0 || from == l)
        return src;
    char name[120], op[40];
    conversion_name(from, l, op, sizeof op);
    snprintf(name, sizeof name, "%.80s@%s", g->name, dv_tlayout_name(l));
    int dst = cc_new_tensor(c, name, gt, l, g->rank, g->dims);
    if (dst < 0)
        return -1;
    c->p->t[dst].input = false; /* the converted copy is the step's, not the graph's input */
    c->p->t[dst].output = false;
    c->memo[gt][l] = dst;
    dv_plan_step *s = cc_step(c, DV_STEP_LAYOUT, op);
    if (!s)
        return -1;
    s->nin = s->nout = 1;
    s->in[0] = src;
    s->out[0] = dst;
    s->gm_bytes = c->p->t[src].bytes + c->p->t[dst].bytes;
    s->cost_cycles =
        (double)s->gm_bytes / (double)(c->p->hbm_bytes_per_cycle ? c->p->hbm_bytes_per_cycle : 1);
    snprintf(s->note, sizeof s->note, "%s for a consumer that reads %s", g->name, dv_tlayout_name(l));
    c->p->rep.conversions++;
    c->p->rep.conversion_cycles += s->cost_cycles;
    return dst;
}

static uint16_t f16(double v)
{
    return dv_f64_to_fp16(v);
}

/* Writes weight tensor t (plan index) into the region at its offset. */
static void pack(dv_plan *p, const dv_plan_tensor *t)
{
    uint16_t *w = (uint16_t *)(p->weights + t->offset);
    memset(w, 0, t->bytes);
    if (t->gt < 0)
        return; /* a zero bias */
    const dv_gtensor *g = &p->g->t[t->gt];
    int64_t count = dv_gtensor_count(g);
    switch (t->layout) {
    case DV_TL_NZ: { /* [K, N]: (k, j) at ((j / 16) Kp + k) 16 + j % 16 (kernels/matmul/matmul.c) */
        int64_t K = t->dims[0], N = t->dims[1], Kp = (int64_t)up16(K);
        for (int64_t k = 0; k < K; k++)
            for (int64_t j = 0; j < N; j++)
                w[((j / 16) * Kp + k) * 16 + j % 16] = f16(g->data[k * N + j]);
        break;
    }
    case DV_TL_FRACZ: { /* [Co, C, KH, KW] -> [C1 KH KW, Co1, 16 (out), 16 (in)] (kernels/conv2d/conv2d.c) */
        int64_t Co = t->dims[0], C = t->dims[1], KH = t->dims[2], KW = t->dims[3], Co1 = (Co + 15) / 16;
        for (int64_t co = 0; co < Co; co++)
            for (int64_t ci = 0; ci < C; ci++)
                for (int64_t kh = 0; kh < KH; kh++)
                    for (int64_t kw = 0; kw < KW; kw++) {
                        int64_t row = ((ci / 16) * KH + kh) * KW + kw;
                        w[((row * Co1 + co / 16) * 16 + co % 16) * 16 + ci % 16] =
                            f16(g->data[((co * C + ci) * KH + kh) * KW + kw]);
                    }
        break;
    }
    default: /* ND (a padded bias: the first count elements) */
        for (int64_t e = 0; e < count && (uint64_t)e * 2 < t->bytes; e++)
            w[e] = f16(g->data[e]);
    }
}

dv_status cc_pack_weights(cctx *c)
{
    dv_plan *p = c->p;
    uint64_t off = 0;
    for (unsigned i = 0; i < p->ntensors; i++)
        if (p->t[i].weight) {
            p->t[i].offset = off;
            off += (p->t[i].bytes + DV_PLAN_ALIGN - 1) / DV_PLAN_ALIGN * DV_PLAN_ALIGN;
        }
    p->rep.weights_bytes = off;
    p->weights = malloc(off ? off : 1);
    if (!p->weights)
        return dv_error_set(c->err, DV_ERR_NOMEM, "out of memory for %llu bytes of weights",
                            (unsigned long long)off);
    for (unsigned i = 0; i < p->ntensors; i++)
        if (p->t[i].weight)
            pack(p, &p->t[i]);
    cc_log(c,
           "layout: %u weights in NZ (matmul BNZ), %u in FracZ (conv2d), %u conversions inserted (%.0f "
           "cycles at %llu B/cycle HBM)",
           p->rep.nz_weights, p->rep.fracz_weights, p->rep.conversions, p->rep.conversion_cycles,
           (unsigned long long)p->hbm_bytes_per_cycle);
    return DV_OK;
}
