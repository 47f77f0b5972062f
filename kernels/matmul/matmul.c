/* matmul.c - host part of the matmul operator: C = A x B on the Cube.
 *
 * Float: A [M, K] and B [K, N] in f16 or bf16, accumulated in f32, C in f16
 * or f32.  Int8: A [M, K] and B^T [N, K] in s8 (weights stored as out x in),
 * accumulated in s32, C dequantised to f16 with one scale (deq) or a scale
 * per column (vdeq), or requantised to s8 with a scale and an offset (req).
 * fp32 (split chips, whose Cube multiplies fp32 at a quarter of the fp16
 * rate): A, B and C in f32, accumulated in f32 (the layouts kernels,
 * layouts_f32.dvs).
 * C has a row pitch ldc of N rounded up to 32 bytes' worth of columns.
 * The variants are the optimisation ladder of the kernels in kernels/matmul/. */
#include "dv_fp.h"
#include "dv_kernel_blob.h"
#include "dv_operator.h"
#include "epilogue.h"
#include "opcommon.h"
#include "refgemm.h"
#include "tiling.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DV_KERNEL_BLOB(matmul_serial);
DV_KERNEL_BLOB(matmul_pipelined);
DV_KERNEL_BLOB(matmul_db);
DV_KERNEL_BLOB(matmul_layouts_c0);
DV_KERNEL_BLOB(matmul_layouts_c1);
DV_KERNEL_BLOB(matmul_layouts_a0);
DV_KERNEL_BLOB(matmul_layouts_a1);
DV_KERNEL_BLOB(matmul_ksum);
DV_KERNEL_BLOB(matmul_swizzle);
DV_KERNEL_BLOB(matmul_mix0);
DV_KERNEL_BLOB(matmul_mix1);
DV_KERNEL_BLOB(matmul_layouts_f32);

static const char *const variants[] = {"db", "pipelined", "tiled", "naive", NULL};
static const char *const dtypes[] = {"f16",     "f16-f32", "bf16-f16", "bf16-f32", "s8-deq",
                                     "s8-vdeq", "s8-req",  "f32",      NULL};
static const dv_operator_param params[] = {
    {"M", 1024, 1, 65535, "rows of A and C"},
    {"N", 1024, 1, 65535, "columns of B and C"},
    {"K", 1024, 1, 65535, "columns of A, rows of B"},
    {"TM", 0, 0, 256, "force the tile rows, a multiple of 16 (0: the tiling function chooses)"},
    {"TN", 0, 0, 256, "force the tile columns, a multiple of 16 (0: the tiling function chooses)"},
    {"B", 1, 1, 65535, "matrices in the batch: C[b] = A[b] x B[b]"},
    {"TA", 0, 0, 1, "1: A given transposed, as [K, M] (f16, bf16, f32; db)"},
    {"TB", 0, 0, 1,
     "1: B given as [N, K], e.g. weights stored out x in (f16, bf16, f32; db; s8's B always is)"},
    {"BNZ", 0, 0, 1,
     "1: B given in NZ, pre-laid-out weights: N/16 blocks of roundup(K,16) x 16 (f16, bf16; db)"},
    {"BIAS", 0, 0, 1, "1: C = A x B + bias[N] (f16, bf16, f32; db): L0C starts as ones x bias"},
    {"ACT", 0, 0, 2,
     "1: SiLU, 2: GELU (x sigmoid(1.702 x)) on the Vector unit over each tile in UB (f16, bf16; db; split "
     "chips: a mix kernel, the AIC's tiles through a GM ring to its AIVs)"},
    {"RELU", 0, 0, 1, "1: ReLU on the output path (FixPipe / copy_l0c_ub; f16, bf16, f32; db)"},
    {"KS", 0, 0, 64,
     "split-K: 0 the tiling's model chooses, 1 never, S: K in S ranges on as many cores, f32 partial sums "
     "in a GM workspace, summed by a second launch on the Vector unit (f16, bf16; db)"},
    {"SW", 0, 0, 256,
     "block order: 0 the tiling's model chooses, 1 row-major (a block's tiles consecutive), G: swizzled, the "
     "blocks round robin over groups of G tile rows walked column by column (db)"},
    {NULL, 0, 0, 0, NULL},
};

/* dtype index -> input type and output conversion. */
static const struct {
    unsigned dt;
    mm_out out;
} dtype_map[] = {
    {0, MM_OUT_F16}, {0, MM_OUT_F32},  {1, MM_OUT_F16}, {1, MM_OUT_F32},
    {2, MM_OUT_DEQ}, {2, MM_OUT_VDEQ}, {2, MM_OUT_REQ}, {3, MM_OUT_F32},
};

/* The stored type of the inputs (mm_problem's dt). */
static dv_dtype mm_in_type(unsigned dt)
{
    static const dv_dtype types[] = {DV_DT_F16, DV_DT_BF16, DV_DT_S8, DV_DT_F32};
    return types[dt];
}

/* Int8 scales: s32 sums of K products of uniform s8 have a standard
 * deviation of about 128^2 / 3 * sqrt(K); dequant brings them to ~1,
 * requant to ~20 s8 steps (plus an offset of 3, so it is exercised). */
static const int32_t REQ_OFFSET = 3;

typedef struct mm_state {
    mm_problem p;
    mm_tiling t;
    float scale; /* deq / req */
    unsigned c;  /* C's tensor index */
    unsigned ws; /* split-K: the f32 workspace's */
    mm_ep ep;    /* ACT on split chips: the mix kernel's ring and record */
} mm_state;

static float base_scale(uint64_t k)
{
    return (float)(3.0 / (16384.0 * sqrt((double)k)));
}

/* The plan as figures: op.plan.* in the statistics and --json. */
static void mm_plan_figures(dv_opr_run *r, const mm_state *s, const mm_tiling *t)
{
    dv_opr_plan(r, "blocks", "block_dim", (double)t->blocks);
    dv_opr_plan(r, "tiles", "output tiles in all", (double)t->tiles);
    dv_opr_plan(r, "tiles_per_block", "tiles per block", (double)t->tpb);
    dv_opr_plan(r, "tile_m", "tile rows (L0C base block)", (double)t->mt);
    dv_opr_plan(r, "tile_n", "tile columns (L0C base block)", (double)t->nt);
    dv_opr_plan(r, "k_l1", "K per L1 chunk", (double)t->kl1);
    dv_opr_plan(r, "k_l0", "K per L0 step", (double)t->kl0);
    dv_opr_plan(r, "a_chunked", "1: A streams in L1 chunks with B; 0: an A panel of all K",
                (double)t->achunk);
    dv_opr_plan(r, "a_panel_reuse", "1: the A panel is kept across a tile row", (double)t->reuse);
    dv_opr_plan(r, "a_panels", "A panels in L1 (2: a tile row's panel loads while MTE1 reads the last)",
                t->achunk    ? 0
                : t->l1astep ? 2
                             : 1);
    dv_opr_plan(r, "l1_buffers", "L1 buffers per operand (multi-buffer depth)", t->l1bstep ? 2 : 1);
    dv_opr_plan(r, "a_reads", "times MTE2 reads A over (the plan's arithmetic)", mm_a_reads(&s->p, t));
    dv_opr_plan(r, "b_reads", "times MTE2 reads B over (the plan's arithmetic)", mm_b_reads(&s->p, t));
    dv_opr_plan(
        r, "swizzle",
        "block order: 0 row-major, a block's tiles consecutive; G: round robin over groups of G tile rows",
        (double)t->swz);
    dv_opr_plan(r, "model_cycles", "the tiling model's estimate of the plan", t->est_cycles);
    dv_opr_plan(r, "k_split", "split-K: K ranges on separate cores, summed by a second launch (1: none)",
                (double)t->ksplit);
    if (t->ksplit > 1) {
        dv_opr_plan(r, "k_per_split", "K depth of each split but the last", (double)t->k);
        dv_opr_plan(r, "model_reduce_cycles", "the model's estimate of the reduction launch",
                    t->reduce_cycles);
        dv_opr_plan(r, "model_unsplit_cycles", "the model's estimate of the best plan without split-K",
                    t->unsplit_cycles);
    }
}

/* f32 input: which chips and layouts take it.  The Cube multiplies fp32
 * only on the split chips (cube.fp32_fractal_cycles, facts #6); the coupled
 * chips' mmad takes s8/u8/f16 (facts #7, the config table's "n.a."), and
 * the facts describe no fp32 matmul path on their Vector unit, so there f32
 * is refused rather than run on a path the hardware is not known to have. */
static dv_status mm_f32_check(const dv_chip_config *cfg, const mm_problem *p, unsigned variant, dv_error *err)
{
    if (!cfg->cube_fp32_fractal_cycles)
        return dv_error_set(
            err, DV_ERR_INPUT,
            "matmul: f32 needs a Cube that multiplies fp32, and %s's has none "
            "(cube.fp32_fractal_cycles = 0: facts #7, its mmad takes s8/u8/f16; the facts give "
            "no fp32 matmul on its Vector unit); the 910B chips have one (1024 MAC/cycle, #6)",
            cfg->name);
    if (variant != 0) /* variants[] lists db first */
        return dv_error_set(err, DV_ERR_INPUT,
                            "matmul: f32 takes the db variant (its kernels are layouts_f32.dvs)");
    if (p->bnz || p->act || p->ksplit > 1)
        return dv_error_set(err, DV_ERR_INPUT,
                            "matmul: f32 takes B=, TA, TB, BIAS and RELU, not BNZ, ACT or KS (no f32 kernels "
                            "for them: layouts_f32.dvs)");
    return DV_OK;
}

/* The operator's available(): f32 (the last dtype) runs only where the
 * Cube multiplies fp32 and only as db (mm_f32_check says why not). */
static bool available(const dv_chip_config *cfg, unsigned variant, unsigned dtype)
{
    return dtype_map[dtype].dt != 3 || (cfg->cube_fp32_fractal_cycles && variant == 0);
}

static dv_status prepare(dv_opr_run *r, dv_error *err)
{
    mm_state *s = calloc(1, sizeof *s);
    if (!s)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    r->state = s;
    mm_problem *p = &s->p;
    p->m = dv_opr_param(r, "M");
    p->n = dv_opr_param(r, "N");
    p->k = dv_opr_param(r, "K");
    p->dt = dtype_map[r->dtype].dt;
    p->out = dtype_map[r->dtype].out;
    p->variant = (mm_variant)(MM_DB - r->variant); /* variants[] lists db first */
    p->blocks = r->blocks_request;
    p->force_mt = dv_opr_param(r, "TM");
    p->force_nt = dv_opr_param(r, "TN");
    p->batch = dv_opr_param(r, "B");
    p->ta = dv_opr_param(r, "TA") != 0;
    p->tb = dv_opr_param(r, "TB") != 0;
    p->bias = dv_opr_param(r, "BIAS") != 0;
    p->relu = dv_opr_param(r, "RELU") != 0;
    p->bnz = dv_opr_param(r, "BNZ") != 0;
    p->act = (unsigned)dv_opr_param(r, "ACT");
    p->ksplit = dv_opr_param(r, "KS");
    p->swz = dv_opr_param(r, "SW");
    dv_status st0;
    if (p->act && (p->dt == 2 || p->relu))
        return dv_error_set(err, DV_ERR_INPUT, "matmul: ACT (SiLU, GELU) is for f16 and bf16, without RELU");
    if (p->dt == 3 && (st0 = mm_f32_check(r->cfg, p, r->variant, err)) != DV_OK)
        return st0;
    if (p->bnz && (p->dt == 2 || p->tb))
        return dv_error_set(err, DV_ERR_INPUT, "matmul: BNZ is B [K, N] in NZ, for f16 and bf16 without TB");
    if (p->dt == 2 && (p->bias || p->relu))
        return dv_error_set(err, DV_ERR_INPUT,
                            "matmul: BIAS and RELU are for f16 and bf16 (s8 dequantises on the output path)");
    if (p->dt == 2 && (p->ta || p->tb))
        return dv_error_set(
            err, DV_ERR_INPUT,
            "matmul: TA and TB are for f16 and bf16 (s8's B is B^T [N, K] already, and the Cube "
            "takes no transposed s8 A: load2d transposes 16 x 16 fractals of 2-byte elements)");
    /* f32's kernels are all of the layouts family (layouts_f32.dvs) */
    bool layouts = p->batch > 1 || p->ta || p->tb || p->bias || p->relu || p->bnz || p->act || p->dt == 3;
    p->layouts = layouts;
    if (layouts && p->variant != MM_DB)
        return dv_error_set(err, DV_ERR_INPUT,
                            "matmul: B=, TA, TB, BNZ, BIAS, RELU and ACT take the db variant");
    if (p->force_mt % 16 || p->force_nt % 16)
        return dv_error_set(err, DV_ERR_INPUT, "matmul: TM and TN must be multiples of 16 (TM=%llu, TN=%llu)",
                            (unsigned long long)p->force_mt, (unsigned long long)p->force_nt);
    dv_status st = mm_tile(r->cfg, p, &s->t, err);
    if (st != DV_OK)
        return st;
    const mm_tiling *t = &s->t;
    static const dv_kernel_blob *const blobs[] = {&dvk_matmul_serial, &dvk_matmul_serial,
                                                  &dvk_matmul_pipelined, &dvk_matmul_db};
    /* one kernel per variant, input type and output conversion (mm.inc) */
    static const char *const names[] = {"serial", "serial", "pipelined", "db"};
    static const char *const ins[] = {"f16", "bf16", "s8", "f32"};
    static const char *const outs[] = {"f16", "f32", "deq", "vdeq", "req"};
    char kernel[64], lay[8] = "";
    bool split = t->ksplit > 1;
    if (layouts) /* the layouts family: batch, A^T, B^T (s8's native) */
        snprintf(lay, sizeof lay, "_x%d%d", p->ta ? 1 : 0, p->tb || p->dt == 2 ? 1 : 0);
    if (split) /* split-K: f32 partial sums, the layouts family's batch over the splits */
        snprintf(lay, sizeof lay, "_xk");
    snprintf(kernel, sizeof kernel, "matmul_%s%s_%s_%s%s%s%s", names[p->variant], t->swz ? "_sw" : "",
             ins[p->dt], split ? "f32" : outs[p->out],
             t->achunk    ? "_ak"
             : t->l1astep ? "_a2"
                          : "",
             lay,
             mm_ep_mix(r->cfg, p) ? "_mix"
             : r->cfg->split      ? "_aic"
                                  : "");
    /* the layouts family's four objects: by core kind and A's place */
    static const dv_kernel_blob *const lblobs[2][2] = {{&dvk_matmul_layouts_c0, &dvk_matmul_layouts_c1},
                                                       {&dvk_matmul_layouts_a0, &dvk_matmul_layouts_a1}};
    static const dv_kernel_blob *const mblobs[2] = {&dvk_matmul_mix0, &dvk_matmul_mix1};
    const dv_kernel_blob *blob = p->dt == 3             ? &dvk_matmul_layouts_f32
                                 : mm_ep_mix(r->cfg, p) ? mblobs[t->achunk ? 1 : 0]
                                 : layouts || split     ? lblobs[r->cfg->split ? 1 : 0][t->achunk ? 1 : 0]
                                 : t->swz               ? &dvk_matmul_swizzle
                                                        : blobs[p->variant];
    if ((st = dv_opr_use_kernel(r, blob, kernel, err)) != DV_OK)
        return st;

    dv_dtype in = mm_in_type(p->dt);
    uint64_t es = t->es;
    unsigned a, b, c, rec, tab = 0, bt = 0;
    if (p->bias) { /* before the record, which holds its address */
        if ((st = dv_opr_tensor_add(r, "bias", false, opc_round_up(p->n * es, 32), &bt, err)) != DV_OK)
            return st;
        dv_opr_fill(r, bt, in, p->n, -1, 1, 3);
        s->t.bias = r->t[bt].addr;
    }
    const uint64_t fields[] = {
#define TILING_FIELD(member, sym, doc) t->member,
#include "tiling.def"
#undef TILING_FIELD
    };
    if (split) {
        /* the record is the splits'; the tensors and the reference see
         * one matrix of M x N x K with C in the output type */
        s->t.batch = 1;
        s->t.sb = p->k * p->n * es;
        s->t.oes = p->out == MM_OUT_F32 ? 4 : 2;
        s->t.kp = opc_round_up(p->k, 16);
    }
    uint64_t nb = t->batch;
    if ((st = dv_opr_tensor_add(r, "a", false, opc_round_up(nb * p->m * p->k * es, 32), &a, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "b", false, opc_round_up(nb * t->sb, 32), &b, err)) != DV_OK ||
        (st = dv_opr_tensor_add(r, "c", true, nb * p->m * t->ldc * t->oes, &c, err)) != DV_OK ||
        (st = opc_record_tensor(r, fields, sizeof fields / sizeof fields[0], &rec, err)) != DV_OK)
        return st;
    s->c = c;
    if (p->out == MM_OUT_VDEQ &&
        (st = dv_opr_tensor_add(r, "scales", false, opc_round_up(p->n * 8, 32), &tab, err)) != DV_OK)
        return st;
    if (in == DV_DT_S8) {
        dv_opr_fill(r, a, in, nb * p->m * p->k, -128, 127, 0);
        dv_opr_fill(r, b, in, nb * p->n * p->k, -128, 127, 1);
    } else {
        dv_opr_fill(r, a, in, nb * p->m * p->k, -1, 1, 0);
        dv_opr_fill(r, b, in, nb * t->sb / es, -1, 1, 1);
        if (p->bnz && r->data) /* NZ: the pad rows and columns are zeros */
            for (uint64_t e = 0; e < nb * t->sb / es; e++) {
                uint64_t inb = e % (t->sb / es), blk = inb / (t->kp * 16), kk = inb / 16 % t->kp;
                if (kk >= p->k || blk * 16 + inb % 16 >= p->n)
                    memset(dv_opr_gm(r, b) + e * es, 0, es);
            }
    }
    uint64_t q = 0;
    if (p->ta || p->dt == 3) {
        /* A^T's pad rows past K come from here (mm.inc): up to 16 column
         * blocks x 15 rows x 32 bytes of zeros; f32 also zeroes a chunk's odd
         * 8-column block from it: up to kl1 = 1024 rows of 32 bytes */
        unsigned z;
        uint64_t zb = p->dt == 3 ? 1024 * 32 : 16 * 15 * 32;
        if ((st = dv_opr_tensor_add(r, "zeros", false, zb, &z, err)) != DV_OK)
            return st;
        if (r->data)
            memset(dv_opr_gm(r, z), 0, zb);
        q = r->t[z].addr;
    }
    s->scale = base_scale(p->k);
    if (p->out == MM_OUT_REQ)
        s->scale *= 20;
    if (p->out == MM_OUT_DEQ)
        q = dv_f32_bits(s->scale);
    else if (p->out == MM_OUT_REQ)
        q = dv_f32_bits(s->scale) | (uint64_t)(uint32_t)REQ_OFFSET << 32;
    else if (p->out == MM_OUT_VDEQ) {
        /* Column j's scale: the base scale times 0.5..1.5 (seeded). */
        uint8_t *tb = dv_opr_gm(r, tab);
        dv_opr_fill(r, tab, DV_DT_F32, 2 * p->n, 0.5, 1.5, 2); /* fills 8-byte entries as two f32 */
        for (uint64_t j = 0; j < p->n && r->data; j++) {
            float f;
            memcpy(&f, tb + 8 * j, 4);
            uint32_t bits = dv_f32_bits(f * s->scale);
            memcpy(tb + 8 * j, &bits, 4);
            memset(tb + 8 * j + 4, 0, 4);
        }
        q = r->t[tab].addr;
    }
    uint64_t cdst = r->t[c].addr;
    if (split) { /* launch 0 writes the splits' f32 sums here; launch 1 sums them into c */
        if ((st = dv_opr_tensor_add(r, "ws", true, t->ksplit * p->m * t->ldc * 4, &s->ws, err)) != DV_OK)
            return st;
        cdst = r->t[s->ws].addr;
        r->launches = 2;
    }
    if (mm_ep_mix(r->cfg, p) && (st = mm_ep_prepare(r, p, t, &s->ep, &q, err)) != DV_OK)
        return st; /* q: the mix kernels' epilogue record, which holds the plain q */
    uint64_t args[] = {r->t[a].addr, r->t[b].addr, cdst, r->t[rec].addr, q};
    if ((st = opc_args(r, args, 5, err)) != DV_OK || (st = dv_opr_set_blocks(r, t->blocks, err)) != DV_OK)
        return st;
    double macs = (double)nb * (double)p->m * (double)p->n * (double)p->k;
    /* the work in fp16 MACs (the roofline's unit): int8 goes at twice the
     * rate, f32 at cube.fp32_fractal_cycles per 16x8x16 (a quarter) */
    double f32w = in == DV_DT_F32 ? dv_config_core_macs_fp16(r->cfg) / dv_config_core_macs_fp32(r->cfg) : 1;
    r->work = (dv_opr_work){
        .macs =
            in == DV_DT_S8 ? macs * (double)r->cfg->cube_k_fp16 / (double)r->cfg->cube_k_int8 : macs * f32w,
        .read_bytes = (double)(nb * (p->m * p->k + p->k * p->n)) * (double)es,
        .write_bytes = (double)(nb * p->m * p->n * t->oes),
        .vec_cycles = mm_ep_vec_cycles(r->cfg, p, t),
        .read_path = DV_PATH_GM_L1,
        .write_path = r->cfg->split && !p->act ? DV_PATH_L0C_GM : DV_PATH_UB_GM,
    };
    char lays[96] = "";
    if (layouts)
        snprintf(lays, sizeof lays, "kernel %s: %llu matrices, A %s, B %s%s%s; ", lay + 1,
                 (unsigned long long)nb, p->ta ? "[K,M]" : "[M,K]", p->tb || p->dt == 2 ? "[N,K]" : "[K,N]",
                 p->bias ? ", + bias" : "",
                 p->relu       ? ", ReLU"
                 : p->act == 1 ? ", SiLU"
                 : p->act == 2 ? ", GELU"
                               : "");
    snprintf(r->tiling, sizeof r->tiling,
             "%s%llu blocks x %llu tiles of %llux%llu; K in L1 chunks of %llu, L0 steps of %llu; %s; "
             "%s buffers; model %.0f cycles",
             lays, (unsigned long long)t->blocks, (unsigned long long)t->tpb, (unsigned long long)t->mt,
             (unsigned long long)t->nt, (unsigned long long)t->kl1, (unsigned long long)t->kl0,
             t->achunk  ? "A in chunks with B"
             : t->reuse ? (t->l1astep ? "two A panels, each kept across a tile row"
                                      : "A panel kept across a tile row")
                        : "A panel reloaded per tile",
             p->variant == MM_DB ? "double" : "single", t->est_cycles);
    if (t->swz) {
        size_t len = strlen(r->tiling);
        snprintf(r->tiling + len, sizeof r->tiling - len,
                 "; swizzled block order: round robin over groups of %llu tile rows, column by column",
                 (unsigned long long)t->swz);
    }
    if (split) {
        size_t len = strlen(r->tiling);
        snprintf(r->tiling + len, sizeof r->tiling - len,
                 "; split-K: %llu splits of K=%llu (the last %llu), f32 workspace, then a reduction launch "
                 "(model %.0f; unsplit %.0f)",
                 (unsigned long long)t->ksplit, (unsigned long long)t->k, (unsigned long long)t->klast,
                 t->reduce_cycles, t->unsplit_cycles);
    }
    mm_plan_figures(r, s, t);
    if (mm_ep_mix(r->cfg, p))
        mm_ep_describe(r, &s->ep);
    return DV_OK;
}

/* Split-K's launch 1 (matmul_ksum, ksum.dvs): the S f32 slices of the
 * workspace summed into C on the vector cores. */
static dv_status next_launch(dv_opr_run *r, unsigned i, dv_error *err)
{
    (void)i;
    const mm_state *s = r->state;
    const mm_tiling *t = &s->t;
    dv_status st =
        dv_opr_use_kernel(r, &dvk_matmul_ksum, r->cfg->split ? "matmul_ksum_aiv" : "matmul_ksum", err);
    if (st != DV_OK)
        return st;
    uint64_t n = s->p.m * t->ldc, blocks, per, tile;
    mm_ksum_split(r->cfg, n, &blocks, &per, &tile);
    uint64_t args[] = {
        r->t[s->ws].addr, r->t[s->c].addr, n, t->ksplit, per, tile, s->p.out == MM_OUT_F32 ? 1 : 0};
    if ((st = opc_args(r, args, 7, err)) != DV_OK)
        return st;
    return dv_opr_set_blocks(r, blocks, err);
}

/* The tolerance rule in words (both references). */
static void describe_tolerance(dv_opr_run *r, const mm_problem *p)
{
    if (p->dt == 2)
        snprintf(r->check.tolerance, sizeof r->check.tolerance, "%s",
                 p->out == MM_OUT_REQ
                     ? "exact s32 sum, requant within 1 (f16 staging rounds twice on coupled cores)"
                     : "exact s32 sum, dequant within u_f16 |c|");
    else if (p->dt == 3)
        snprintf(r->check.tolerance, sizeof r->check.tolerance, "%s",
                 "|c - ref| <= (K + 1) 2^-24 sum|a b| (f32 in, products rounded to f32, f32 accumulation; "
                 "no hf32 input rounding), ref in double");
    else
        snprintf(r->check.tolerance, sizeof r->check.tolerance,
                 "|c - ref| <= u_out |ref| + K 2^-24 sum|a b| (f32 accumulation), ref in double%s",
                 p->act ? "; SiLU/GELU: 1.1 x that + 8 u_ub |x|" : "");
}

/* expect()'s factors, fixed for a problem: computed once, not per element. */
typedef struct mm_rule {
    dv_dtype outt;
    double u_out;    /* the output's unit roundoff */
    double acc_coef; /* float inputs: (1 + u_out) terms 2^-24, the accumulation's share of sum|a b| */
    double tiny;     /* opc_tiny(outt) */
    double u_ub;     /* SiLU/GELU: the unit roundoff of UB's type, where they are computed */
} mm_rule;

static dv_dtype mm_out_type(const mm_problem *p)
{
    return p->out == MM_OUT_F32 ? DV_DT_F32 : p->out == MM_OUT_REQ ? DV_DT_S8 : DV_DT_F16;
}

static mm_rule mm_rule_of(const mm_problem *p)
{
    mm_rule u = {.outt = mm_out_type(p)};
    u.u_out = dv_opr_unit_roundoff(u.outt);
    /* f16/bf16 products are exact in f32: K roundings (the sums, the bias
     * the first); f32 products round too: one more per term */
    double terms = (double)p->k + (p->dt == 3 ? 1 : 0);
    u.acc_coef = (1 + u.u_out) * terms * 0x1p-24;
    u.tiny = opc_tiny(u.outt);
    u.u_ub = dv_opr_unit_roundoff(p->out == MM_OUT_F32 ? DV_DT_F32 : DV_DT_F16);
    return u;
}

/* The expected value of c[i][j] from its exact sum (and sum|a b| for
 * float inputs) and the allowed error: the one rule of both references. */
static inline void expect(const mm_state *s, const mm_rule *u, const dv_opr_tensor *tab, uint64_t j,
                          double sum, double sabs, double *want, double *tol)
{
    const mm_problem *p = &s->p;
    if (p->dt != 2) {
        *want = sum;
        *tol = u->u_out * fabs(sum) + u->acc_coef * sabs + u->tiny;
        return;
    }
    double scale = s->scale;
    if (p->out == MM_OUT_VDEQ) {
        float f;
        memcpy(&f, tab->host + 8 * j, 4);
        scale = f;
    }
    double v = (double)(int32_t)(int64_t)sum * scale;
    if (p->out == MM_OUT_REQ) {
        double w = nearbyint(v) + REQ_OFFSET;
        *want = w > 127 ? 127 : w < -128 ? -128 : w;
        *tol = 1;
    } else {
        *want = v;
        *tol = u->u_out * fabs(v) + u->tiny;
    }
}

/* The fused epilogue in the reference: the bias (as doubles, one per
 * column, or NULL) into the sum (and its magnitude into the tolerance's
 * sum|a b|: L0C starts from it), then expect(), then the ReLU. */
static inline void expect_fused(const mm_state *s, const mm_rule *u, const dv_opr_tensor *tab,
                                const double *bias, uint64_t j, double sum, double sabs, double *want,
                                double *tol)
{
    if (bias) {
        sum += bias[j];
        sabs += fabs(bias[j]);
    }
    expect(s, u, tab, j, sum, sabs, want, tol);
    if (s->p.relu && *want < 0)
        *want = 0;
    if (s->p.act) {
        /* x sigmoid(a x), computed in UB's type: the four Vector operations'
         * roundings (8 u of it, of |x|) on top of the error in x itself,
         * which the slope (at most 1.1) carries over */
        double x = *want, a = s->p.act == 1 ? 1.0 : 1.702;
        *want = x / (1 + exp(-a * x));
        *tol = 1.1 * *tol + 8 * u->u_ub * fabs(x);
    }
}

/* The bias row as doubles (NULL without a bias; *fail on no memory). */
static double *mm_bias_doubles(const dv_opr_run *r, const mm_problem *p, bool *fail)
{
    *fail = false;
    if (!p->bias)
        return NULL;
    double *b = malloc(sizeof(double) * (size_t)p->n);
    if (!b) {
        *fail = true;
        return NULL;
    }
    ref_load_row(dv_opr_tensor_find((dv_opr_run *)r, "bias")->host, mm_in_type(p->dt), 0, p->n, b);
    return b;
}

/* The fast reference (refgemm.h): A and B as doubles by panels. */
typedef struct mm_ref {
    const mm_state *s;
    mm_rule rule;
    const uint8_t *a, *b, *c;
    const double *bias;
    const dv_opr_tensor *tab;
    dv_dtype in;
    uint64_t batch; /* the matrix of the batch being checked */
} mm_ref;

static void ref_load_a(const void *user, uint64_t i0, uint64_t rows, double *dst)
{
    const mm_ref *x = user;
    uint64_t m = x->s->p.m, k = x->s->p.k, base = x->batch * m * k;
    if (!x->s->p.ta) {
        ref_load_row(x->a, x->in, base + i0 * k, rows * k, dst);
        return;
    }
    for (uint64_t kk = 0; kk < k; kk++) /* A^T [K, M] */
        for (uint64_t r = 0; r < rows; r++)
            dst[r * k + kk] = dv_opr_load(x->a, x->in, base + kk * m + i0 + r);
}

static void ref_load_b(const void *user, uint64_t j0, uint64_t cols, double *dst, uint64_t ld)
{
    const mm_ref *x = user;
    uint64_t k = x->s->p.k, n = x->s->p.n, base = x->batch * x->s->t.sb / x->s->t.es;
    if (x->s->p.bnz) { /* NZ: (kk, j) at ((j / 16) Kp + kk) 16 + j % 16 */
        for (uint64_t kk = 0; kk < k; kk++)
            for (uint64_t c = 0; c < cols; c++)
                dst[kk * ld + c] =
                    dv_opr_load(x->b, x->in, base + (((j0 + c) / 16) * x->s->t.kp + kk) * 16 + (j0 + c) % 16);
        return;
    }
    if (x->in != DV_DT_S8 && !x->s->p.tb) {
        for (uint64_t kk = 0; kk < k; kk++)
            ref_load_row(x->b, x->in, base + kk * n + j0, cols, dst + kk * ld);
        return;
    }
    for (uint64_t c = 0; c < cols; c++) /* B^T [N, K] */
        for (uint64_t kk = 0; kk < k; kk++)
            dst[kk * ld + c] = dv_opr_load(x->b, x->in, base + (j0 + c) * k + kk);
}

/* A block's rows compared a run of columns at a time: C's values loaded
 * and the expected values and tolerances computed in a loop of their own,
 * then handed to dv_opr_compare_run (a third of a 1024^3 check had gone to
 * calls per element). */
enum { VISIT_RUN = 256 };
static void ref_visit(const void *user, dv_opr_check *chk, uint64_t i0, uint64_t rows, uint64_t j0,
                      uint64_t cols, const double *c, const float *sabs, uint64_t ld, const ref_refine *rf)
{
    const mm_ref *x = user;
    uint64_t ldc = x->s->t.ldc, k = x->s->p.k, row0 = x->batch * x->s->p.m + i0; /* C's rows: batch-major */
    double got[VISIT_RUN], want[VISIT_RUN], tol[VISIT_RUN];
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c0 = 0; c0 < cols; c0 += VISIT_RUN) {
            uint64_t n = cols - c0 < VISIT_RUN ? cols - c0 : VISIT_RUN;
            ref_load_row(x->c, x->rule.outt, (row0 + r) * ldc + j0 + c0, n, got);
            for (uint64_t i = 0; i < n; i++) {
                uint64_t cc = c0 + i;
                double sb = sabs ? ref_abs_bound(sabs[r * ld + cc], k) : 0;
                expect_fused(x->s, &x->rule, x->tab, x->bias, j0 + cc, c[r * ld + cc], sb, &want[i], &tol[i]);
                if (ref_unsure(rf, r, cc, got[i], want[i],
                               tol[i])) /* c from a float product, near the bound */
                    expect_fused(x->s, &x->rule, x->tab, x->bias, j0 + cc, ref_exact(rf, r, cc), sb, &want[i],
                                 &tol[i]);
            }
            dv_opr_compare_run(chk, "c", row0 + r, j0 + c0, n, got, want, tol);
        }
}

static dv_status check_fast(dv_opr_run *r, dv_error *err)
{
    const mm_state *s = r->state;
    const mm_problem *p = &s->p;
    bool fail;
    double *bias = mm_bias_doubles(r, p, &fail);
    if (fail)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for the reference");
    mm_ref x = {.s = s,
                .rule = mm_rule_of(p),
                .a = dv_opr_tensor_find(r, "a")->host,
                .b = dv_opr_tensor_find(r, "b")->host,
                .c = dv_opr_gm(r, s->c),
                .tab = dv_opr_tensor_find(r, "scales"),
                .bias = bias,
                .in = mm_in_type(p->dt)};
    describe_tolerance(r, p);
    ref_gemm g = {.m = p->m,
                  .n = p->n,
                  .k = p->k,
                  .load_a = ref_load_a,
                  .load_b = ref_load_b,
                  .visit = ref_visit,
                  .user = &x,
                  .abs = p->dt != 2};
    dv_status st = DV_OK;
    for (x.batch = 0; x.batch < s->t.batch && st == DV_OK && !dv_opr_check_stop(r); x.batch++)
        st = ref_gemm_check(r, &g, err);
    free(bias);
    return st;
}

/* The plain reference: a triple loop in double, sum|a b| exact. */
static dv_status check_plain(dv_opr_run *r, dv_error *err)
{
    mm_state *s = r->state;
    const mm_problem *p = &s->p;
    const mm_tiling *t = &s->t;
    dv_dtype in = mm_in_type(p->dt);
    mm_rule rule = mm_rule_of(p);
    const uint8_t *a = dv_opr_tensor_find(r, "a")->host, *b = dv_opr_tensor_find(r, "b")->host;
    const dv_opr_tensor *tab = dv_opr_tensor_find(r, "scales");
    const uint8_t *c = dv_opr_gm(r, s->c);
    uint64_t m = p->m, n = p->n, k = p->k;
    bool bt = in == DV_DT_S8 || p->tb, fail;
    /* B as doubles, column-major (contiguous along K for the dot), one
     * matrix of the batch at a time. */
    double *bcol = malloc(sizeof(double) * (size_t)(n * k)), *ar = malloc(sizeof(double) * (size_t)k);
    double *bias = mm_bias_doubles(r, p, &fail);
    if (!bcol || !ar || fail) {
        free(bcol);
        free(ar);
        free(bias);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for the reference");
    }
    describe_tolerance(r, p);
    for (uint64_t bi = 0; bi < t->batch; bi++) {
        uint64_t ab = bi * m * k, bb = bi * t->sb / t->es, cb = bi * m;
        for (uint64_t j = 0; j < n; j++)
            for (uint64_t kk = 0; kk < k; kk++)
                bcol[j * k + kk] = dv_opr_load(b, in,
                                               bb + (p->bnz ? ((j / 16) * t->kp + kk) * 16 + j % 16
                                                     : bt   ? j * k + kk
                                                            : kk * n + j));
        for (uint64_t i = 0; i < m && !dv_opr_check_stop(r); i++) {
            for (uint64_t kk = 0; kk < k; kk++)
                ar[kk] = dv_opr_load(a, in, ab + (p->ta ? kk * m + i : i * k + kk));
            for (uint64_t j = 0; j < n; j++) {
                const double *bc = bcol + j * k;
                double sum = 0, sabs = 0;
                for (uint64_t kk = 0; kk < k; kk++) {
                    sum += ar[kk] * bc[kk];
                    sabs += fabs(ar[kk] * bc[kk]);
                }
                double got = dv_opr_load(c, rule.outt, (cb + i) * t->ldc + j), want, tol;
                expect_fused(s, &rule, tab, bias, j, sum, sabs, &want, &tol);
                dv_opr_compare(r, "c", cb + i, j, got, want, tol);
            }
        }
    }
    free(bcol);
    free(ar);
    free(bias);
    return DV_OK;
}

static dv_status check(dv_opr_run *r, dv_error *err)
{
    return r->plain_reference ? check_plain(r, err) : check_fast(r, err);
}

static void release(dv_opr_run *r)
{
    free(r->state);
    r->state = NULL;
}

static const dv_operator_case cases[] = {
    {"M=16,N=16,K=16", 0, "one fractal, one tile"},
    {"M=1,N=1,K=1", 0, "the smallest"},
    {"M=100,N=37,K=75", 0, "nothing a multiple of 16"},
    {"M=48,N=40,K=3000", 0, "K much larger than M and N"},
    {"M=300,N=260,K=513", 0, "several tiles, partial edges"},
    {"M=200,N=200,K=64", 40, "more blocks than cores: waves, idle blocks"},
    {NULL, 0, NULL},
};

const dv_operator dv_op_matmul = {
    .name = "matmul",
    .summary =
        "C = A x B on the Cube: the optimisation ladder naive / tiled / pipelined / db, float and int8",
    .variants = variants,
    .dtypes = dtypes,
    .params = params,
    .tensors =
        "a[B,M,K] (TA: [B,K,M]) b[B,K,N] (TB and s8: [B,N,K]; BNZ: NZ) [bias[N]] -> c[B,M,ldc], ldc = N "
        "rounded up to 16 (s8-req: 32) columns",
    .notes = "dtype IN-OUT: f16/bf16 in, f32 accumulation, f16 or f32 out; s8-deq / s8-vdeq: s8 in, s32 "
             "accumulation, f16 out with one scale / a scale per column; s8-req: s8 out, scale and offset 3; "
             "f32: f32 in and out on the split chips' fp32 Cube (1024 MAC/cycle), refused on coupled chips. "
             "Output conversion on FixPipe (split chips) or copy_l0c_ub + Vector (coupled). Tolerance: float "
             "|c - ref| <= u_out |ref| + K 2^-24 sum|a b| (f32 in: K + 1); deq u_f16 |c|; req 1.",
    .prepare = prepare,
    .cases = cases,
    .check = check,
    .release = release,
    .next_launch = next_launch,
    .available = available,
};

DV_OPERATORS(matmul, &dv_op_matmul);
