/* permute.c - host part of the permute operator: a strided GM -> GM copy of
 * an f16 tensor of rank <= 4 (dims N0..N3, N3 innermost).  It copies the box
 * O_d .. O_d + E_d of every source dim d, with the outer dims reordered by
 * PERM (output dim k is source dim PERM's digit k; the innermost stays
 * innermost), into y, which may be larger than the box along one output
 * axis CA (CN long, the box at CO): Transpose of the outer dims, Slice with
 * steps of 1 on any dim, and Concat as one launch per input.  The kernel
 * (permute.dvs) moves rows (innermost runs) by MTE2 / MTE3 with strides. */
#include "dv_kernel_blob.h"
#include "dv_operator.h"
#include "opcommon.h"

#include <stdio.h>

DV_KERNEL_BLOB(permute_permute);

static const char *const variants[] = {"db", NULL};
static const char *const dtypes[] = {"f16", NULL};
static const dv_operator_param params[] = {
    {"N0", 1, 1, 1 << 24, "source dim 0 (outermost)"},
    {"N1", 1, 1, 1 << 24, "source dim 1"},
    {"N2", 64, 1, 1 << 24, "source dim 2"},
    {"N3", 64, 1, 1 << 24, "source dim 3 (innermost, contiguous)"},
    {"PERM", 123, 0, 3210,
     "output dims as source dims, four digits (leading 0 may be dropped): 213 = 0213, "
     "[N0,N2,N1,N3]; the last digit must be 3"},
    {"O0", 0, 0, 1 << 24, "box offset in source dim 0"},
    {"O1", 0, 0, 1 << 24, "box offset in source dim 1"},
    {"O2", 0, 0, 1 << 24, "box offset in source dim 2"},
    {"O3", 0, 0, 1 << 24, "box offset in source dim 3"},
    {"E0", 0, 0, 1 << 24, "box extent in source dim 0 (0: to the end)"},
    {"E1", 0, 0, 1 << 24, "box extent in source dim 1 (0: to the end)"},
    {"E2", 0, 0, 1 << 24, "box extent in source dim 2 (0: to the end)"},
    {"E3", 0, 0, 1 << 24, "box extent in source dim 3 (0: to the end)"},
    {"CA", 0, 0, 3, "output axis along which y may be larger than the box (Concat's axis)"},
    {"CN", 0, 0, 1 << 24, "y's length along CA (0: the box's)"},
    {"CO", 0, 0, 1 << 24, "the box's offset in y along CA"},
    {NULL, 0, 0, 0, NULL},
};

/* The copy as shapes: source dims n, permutation p (output dim k = source
 * dim p[k]), box offsets o and extents e (source dims), box b (output dims)
 * and y's dims yd (b but for CA). */
typedef struct pm_geo {
    uint64_t n[4], o[4], e[4], b[4], yd[4];
    unsigned p[4];
    uint64_t ca, co;
} pm_geo;

static dv_status geometry(const dv_opr_run *r, pm_geo *g, dv_error *err)
{
    static const char *const nn[] = {"N0", "N1", "N2", "N3"}, *const on[] = {"O0", "O1", "O2", "O3"},
                             *const en[] = {"E0", "E1", "E2", "E3"};
    uint64_t perm = dv_opr_param(r, "PERM");
    unsigned seen = 0;
    for (int k = 3; k >= 0; k--, perm /= 10) {
        g->p[k] = (unsigned)(perm % 10);
        if (g->p[k] > 3 || (seen >> g->p[k] & 1))
            return dv_error_set(err, DV_ERR_INPUT, "permute: PERM=%llu is not a permutation of 0123",
                                (unsigned long long)dv_opr_param(r, "PERM"));
        seen |= 1u << g->p[k];
    }
    if (g->p[3] != 3)
        return dv_error_set(err, DV_ERR_INPUT,
                            "permute: PERM must keep dim 3 innermost (moving it needs a real transpose)");
    for (unsigned d = 0; d < 4; d++) {
        g->n[d] = dv_opr_param(r, nn[d]);
        g->o[d] = dv_opr_param(r, on[d]);
        g->e[d] = dv_opr_param(r, en[d]);
        if (g->e[d] == 0)
            g->e[d] = g->o[d] < g->n[d] ? g->n[d] - g->o[d] : 0;
        if (g->e[d] == 0 || g->o[d] + g->e[d] > g->n[d])
            return dv_error_set(err, DV_ERR_INPUT, "permute: the box O%u=%llu E%u=%llu passes N%u=%llu", d,
                                (unsigned long long)g->o[d], d, (unsigned long long)g->e[d], d,
                                (unsigned long long)g->n[d]);
    }
    for (unsigned k = 0; k < 4; k++)
        g->b[k] = g->yd[k] = g->e[g->p[k]];
    g->ca = dv_opr_param(r, "CA");
    g->co = dv_opr_param(r, "CO");
    uint64_t cn = dv_opr_param(r, "CN");
    g->yd[g->ca] = cn ? cn : g->b[g->ca];
    if (g->co + g->b[g->ca] > g->yd[g->ca])
        return dv_error_set(err, DV_ERR_INPUT,
                            "permute: the box (%llu at CO=%llu) passes CN=%llu along CA=%llu",
                            (unsigned long long)g->b[g->ca], (unsigned long long)g->co,
                            (unsigned long long)g->yd[g->ca], (unsigned long long)g->ca);
    return DV_OK;
}

static uint64_t count4(const uint64_t *d)
{
    return d[0] * d[1] * d[2] * d[3];
}

/* Row-major strides (elements) of dims d. */
static void strides(const uint64_t *d, uint64_t *s)
{
    s[3] = 1;
    for (int k = 2; k >= 0; k--)
        s[k] = s[k + 1] * d[k + 1];
}

typedef struct pm_tiling {
#define TILING_FIELD(member, sym, doc) uint64_t member;
#include "tiling.def"
#undef TILING_FIELD
} pm_tiling;

/* The kernel's strides from the geometry: outer output dims merged where
 * they are contiguous in both tensors (longer runs of i2, longer DMAs). */
static void tiling_of(const dv_opr_run *r, const pm_geo *g, pm_tiling *t)
{
    uint64_t xs[4], ys[4], ss[3], ds[3], ext[3];
    strides(g->n, xs);
    strides(g->yd, ys);
    t->sbase = t->dbase = 0;
    for (unsigned d = 0; d < 4; d++)
        t->sbase += g->o[d] * xs[d] * 2;
    t->dbase = g->co * ys[g->ca] * 2;
    for (unsigned k = 0; k < 3; k++) {
        ext[k] = g->b[k];
        ss[k] = xs[g->p[k]] * 2;
        ds[k] = ys[k] * 2;
    }
    /* From the innermost outer dim out: dims of extent 1 drop, a dim whose
     * strides are the merged run's times its extent joins it. */
    uint64_t me[3] = {1, 1, 1}, ms[3] = {0, 0, 0}, md[3] = {0, 0, 0};
    int m = 2;
    for (int k = 2; k >= 0; k--) {
        if (ext[k] == 1)
            continue;
        if (me[m] > 1 && ss[k] == ms[m] * me[m] && ds[k] == md[m] * me[m]) {
            me[m] *= ext[k];
            continue;
        }
        if (me[m] > 1)
            m--;
        me[m] = ext[k], ms[m] = ss[k], md[m] = ds[k];
    }
    for (unsigned k = 0; k < 3; k++)
        ext[k] = me[k], ss[k] = ms[k], ds[k] = md[k];
    t->e1 = ext[1];
    t->e2 = ext[2];
    t->ss0 = ss[0], t->ss1 = ss[1], t->ss2 = ss[2];
    t->ds0 = ds[0], t->ds1 = ds[1], t->ds2 = ds[2];
    t->rows = ext[0] * ext[1] * ext[2];
    uint64_t rowb = g->b[3] * 2;
    t->pitch = opc_round_up(rowb, 32);
    uint64_t half = (r->cfg->ub_bytes - UB_SKEW) / 2 / 32 * 32;
    t->tile = opc_min(half / t->pitch, 4095);
    t->ub1 = half + UB_SKEW;
    /* gaps between the bursts of a run (none in a run of one row) */
    uint64_t gin = t->e2 > 1 ? (ss[2] - rowb) / 32 : 0, gout = t->e2 > 1 ? (ds[2] - rowb) / 32 : 0;
    t->aligned = rowb % 32 == 0 && ss[2] % 32 == 0 && ds[2] % 32 == 0 && gin <= 65535 && gout <= 65535 &&
                 rowb / 32 <= 65535;
    uint64_t len = rowb / 32;
    t->burst_in = t->aligned ? (len << 12) | (gin << 28) : 0;
    t->burst_out = t->aligned ? (len << 12) | (gout << 44) : 0;
    t->whole = rowb / 32 * 32;
    t->burst_row = !t->aligned && len ? (1ull | len << 12) : 0;
    t->tailh = t->aligned ? 0 : (rowb % 32) / 2;
}

static dv_status prepare(dv_opr_run *r, dv_error *err)
{
    pm_geo g;
    dv_status st = geometry(r, &g, err);
    if (st != DV_OK)
        return st;
    pm_tiling t;
    tiling_of(r, &g, &t);
    if (t.tile == 0)
        return dv_error_set(err, DV_ERR_INPUT,
                            "permute: a row of %llu elements does not fit half of UB (%llu bytes)",
                            (unsigned long long)g.b[3], (unsigned long long)r->cfg->ub_bytes);
    uint64_t cores = opc_vector_cores(r->cfg), blocks = r->blocks_request ? r->blocks_request : cores;
    blocks = opc_min(blocks, t.rows);
    t.per_block = opc_ceil_div(t.rows, blocks);
    blocks = opc_ceil_div(t.rows, t.per_block);
    const uint64_t f[] = {
#define TILING_FIELD(member, sym, doc) t.member,
#include "tiling.def"
#undef TILING_FIELD
    };
    unsigned x, y, rec;
    if ((st = opc_use_vector_kernel(r, &dvk_permute_permute, "permute", 2, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "x", false, opc_round_up(count4(g.n) * 2, 32), &x, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "y", true, opc_round_up(count4(g.yd) * 2, 32), &y, err)) != DV_OK ||
        (st = opc_record_tensor(r, f, sizeof f / sizeof f[0], &rec, err)) != DV_OK)
        return st;
    dv_opr_fill(r, x, DV_DT_F16, count4(g.n), -4, 4, 0);
    uint64_t args[] = {r->t[x].addr, r->t[y].addr, r->t[rec].addr};
    if ((st = opc_args(r, args, 3, err)) != DV_OK || (st = dv_opr_set_blocks(r, blocks, err)) != DV_OK)
        return st;
    double bytes = (double)(count4(g.b) * 2);
    r->work = (dv_opr_work){
        .read_bytes = bytes, .write_bytes = bytes, .read_path = DV_PATH_GM_UB, .write_path = DV_PATH_UB_GM};
    snprintf(r->tiling, sizeof r->tiling,
             "%llu blocks of %llu rows of %llu bytes (runs of %llu), tiles of up to %llu rows, %s",
             (unsigned long long)blocks, (unsigned long long)t.per_block, (unsigned long long)(g.b[3] * 2),
             (unsigned long long)t.e2, (unsigned long long)t.tile,
             t.aligned ? "one DMA per tile each way"
                       : "a DMA per row of its whole 32-byte blocks, the tail by the Scalar unit");
    dv_opr_plan(r, "rows", "output rows (innermost runs)", (double)t.rows);
    dv_opr_plan(r, "aligned", "1: one multi-burst DMA per tile each way", (double)t.aligned);
    dv_opr_plan(r, "tail_elems", "f16 elements per row copied by the Scalar unit", (double)t.tailh);
    return DV_OK;
}

/* The reference: the plain N-D index mapping, y[.. CO + i_CA ..][j] = x[O + i],
 * and every element of y outside the window still 0 (as allocated). */
static dv_status check(dv_opr_run *r, dv_error *err)
{
    pm_geo g;
    dv_status st = geometry(r, &g, err);
    if (st != DV_OK)
        return st;
    const uint8_t *x = dv_opr_tensor_find(r, "x")->host, *y = dv_opr_gm(r, 1);
    snprintf(r->check.tolerance, sizeof r->check.tolerance, "exact (a copy); 0 outside the window");
    uint64_t ny = count4(g.yd), yi[4];
    for (uint64_t i = 0; i < ny; i++) {
        uint64_t rest = i;
        for (int k = 3; k >= 0; k--)
            yi[k] = rest % g.yd[k], rest /= g.yd[k];
        double want = 0;
        uint64_t bi[4] = {yi[0], yi[1], yi[2], yi[3]};
        if (bi[g.ca] >= g.co && bi[g.ca] < g.co + g.b[g.ca]) {
            bi[g.ca] -= g.co;
            uint64_t xi[4], xo = 0;
            for (unsigned k = 0; k < 4; k++)
                xi[g.p[k]] = g.o[g.p[k]] + bi[k];
            for (unsigned d = 0; d < 4; d++)
                xo = xo * g.n[d] + xi[d];
            want = dv_opr_load(x, DV_DT_F16, xo);
        }
        dv_opr_compare(r, "y", i / g.yd[3], i % g.yd[3], dv_opr_load(y, DV_DT_F16, i), want, 0);
    }
    return DV_OK;
}

static const dv_operator_case cases[] = {
    {"N0=2,N1=8,N2=4,N3=64,PERM=213", 0, "attention's head split [B,S,H,D] -> [B,H,S,D], aligned"},
    {"N0=1,N1=1,N2=1,N3=1", 0, "one element (all tail)"},
    {"N2=16,N3=16", 0, "one tile, one burst"},
    {"N0=2,N1=3,N2=5,N3=17,PERM=2013", 0, "rows of 34 bytes: whole block plus a Scalar tail"},
    {"N0=3,N1=7,N2=5,N3=9,PERM=1203,O1=2,E1=4,O3=1,E3=7", 0, "a box of every dim, rows under 32 bytes"},
    {"N1=4,N2=6,N3=40,O3=20,CA=3,CN=60,CO=20", 0, "Slice of the last half into a window (Concat's launch)"},
    {"N0=2,N1=32,N2=12,N3=64,PERM=213,CA=1,CN=40,CO=8", 0, "Concat along the heads, aligned"},
    {"N1=50,N2=30,N3=48,PERM=2013", 100, "more blocks than cores"},
    {NULL, 0, NULL},
};

const dv_operator dv_op_permute = {
    .name = "permute",
    .summary = "strided copy: permute the outer dims, slice a box, write into a window (MTE2 / MTE3, "
               "double buffered)",
    .variants = variants,
    .dtypes = dtypes,
    .params = params,
    .tensors = "x[N0,N1,N2,N3] -> y[the box's dims permuted, CN along CA] (each padded to 32 bytes in GM)",
    .notes =
        "Output row (i0, i1, i2) is the innermost run of E3 elements at the box's (permuted) position. "
        "Outer dims contiguous in both tensors are merged; block i takes per_block rows from i * per_block, "
        "in tiles (inside one run of the innermost outer dim) through two UB buffers, CopyIn of the next "
        "overlapping CopyOut of this one. Rows and gaps of whole 32-byte blocks move in one multi-burst DMA "
        "per tile each way; other rows move their whole blocks by DMA, one per row, and their tail "
        "(rowb mod 32 bytes) GM -> GM by the Scalar unit, so no byte outside the box or window is touched. "
        "y outside the window is left as it is (0 in a standalone run). Exact. Inputs uniform in [-4, 4).",
    .cases = cases,
    .prepare = prepare,
    .check = check,
};

DV_OPERATORS(permute, &dv_op_permute);
