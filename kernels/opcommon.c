/* opcommon.c - helpers shared by the operators' host parts. */
#include "opcommon.h"

#include "dv_kernel_blob.h"

#include <math.h>
#include <stdio.h>

uint64_t opc_vector_cores(const dv_chip_config *cfg)
{
    return cfg->split ? cfg->cores * cfg->aiv_per_aic : cfg->cores;
}

dv_status opc_split_vector(const dv_opr_run *r, uint64_t n, uint64_t es, unsigned nbuf, opc_vec_split *s,
                           dv_error *err)
{
    const uint64_t rep = DV_VEC_REPEAT_BYTES; /* tiles are whole repeats; buffers UB_SKEW apart */
    uint64_t room = r->cfg->ub_bytes / nbuf;
    uint64_t tb = room > UB_SKEW ? (room - UB_SKEW) / rep * rep : 0;
    /* Twice the size from which a GM transfer reaches full bandwidth
     * (path.gm_full_bw_bytes, facts #45): big enough not to pay the GM
     * latency, small enough that the first load and the last store, which
     * nothing hides, stay short. */
    uint64_t cap = 2 * r->cfg->gm_full_bw_bytes / rep * rep;
    uint64_t max_op = r->cfg->vec_max_repeat * DV_VEC_REPEAT_BYTES; /* one op's repeats */
    if (cap > max_op)
        cap = max_op;
    if (cap < rep)
        cap = rep;
    if (tb > cap)
        tb = cap;
    if (tb < rep)
        return dv_error_set(err, DV_ERR_INPUT, "%s: UB of %llu bytes is too small for %u buffers",
                            r->op->name, (unsigned long long)r->cfg->ub_bytes, nbuf);
    s->tile = tb / es;
    s->blocks = r->blocks_request ? r->blocks_request : opc_ceil_div(n, s->tile);
    if (!r->blocks_request && s->blocks > opc_vector_cores(r->cfg))
        s->blocks = opc_vector_cores(r->cfg);
    /* Blocks take whole L2 lines: a line split between two cores makes one
     * wait for the other (same-address serialisation).  With fewer lines
     * than blocks, the last blocks have nothing to do. */
    s->per_block = opc_round_up(opc_ceil_div(n, s->blocks), r->cfg->l2_line_bytes / es);
    if (!r->blocks_request)
        s->blocks = opc_ceil_div(n, s->per_block);
    return DV_OK;
}

dv_status opc_args(dv_opr_run *r, const uint64_t *args, unsigned n, dv_error *err)
{
    for (unsigned i = 0; i < n; i++)
        if (dv_opr_arg(r, i, args[i], err) != DV_OK)
            return err->status;
    return DV_OK;
}

void opc_vec_work(dv_opr_run *r, uint64_t n, uint64_t es, double ops, double read, double write)
{
    uint64_t slope = es == 4 ? r->cfg->vec_slope_b32 : r->cfg->vec_slope_b16;
    r->work = (dv_opr_work){
        .vec_cycles = ops * (double)opc_ceil_div(n * es, DV_VEC_REPEAT_BYTES) * (double)slope,
        .read_bytes = read,
        .write_bytes = write,
        .read_path = DV_PATH_GM_UB,
        .write_path = DV_PATH_UB_GM,
    };
}

double opc_tiny(dv_dtype dt)
{
    return dt == DV_DT_F16 ? ldexp(1, -25) : dt == DV_DT_BF16 ? ldexp(1, -134) : ldexp(1, -150);
}

void opc_describe_split(dv_opr_run *r, const opc_vec_split *s)
{
    snprintf(r->tiling, sizeof r->tiling,
             "%llu blocks of %llu elements, tiles of %llu elements per UB buffer",
             (unsigned long long)s->blocks, (unsigned long long)s->per_block, (unsigned long long)s->tile);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

void opc_split_rows(const dv_opr_run *r, uint64_t rows, uint64_t rowb, uint64_t m, uint64_t *blocks,
                    uint64_t *per_block)
{
    *blocks = r->blocks_request ? r->blocks_request : opc_vector_cores(r->cfg);
    uint64_t q = r->cfg->l2_line_bytes / gcd(rowb, r->cfg->l2_line_bytes); /* rows per whole lines */
    q = q / gcd(q, m) * m;
    if (opc_ceil_div(rows, q) < *blocks)
        q = m;
    if (!r->blocks_request && *blocks > opc_ceil_div(rows, q))
        *blocks = opc_ceil_div(rows, q);
    *per_block = opc_round_up(opc_ceil_div(rows, *blocks), q);
    if (!r->blocks_request)
        *blocks = opc_ceil_div(rows, *per_block);
}

dv_status opc_use_vector_kernel(dv_opr_run *r, const dv_kernel_blob *blob, const char *name, uint64_t es,
                                dv_error *err)
{
    char kernel[64];
    snprintf(kernel, sizeof kernel, "%s_%s%s", name, es == 2 ? "f16" : "f32", r->cfg->split ? "_aiv" : "");
    return dv_opr_use_kernel(r, blob, kernel, err);
}

dv_status opc_record_tensor(dv_opr_run *r, const uint64_t *fields, size_t n, unsigned *index, dv_error *err)
{
    dv_status st = dv_opr_tensor_add(r, "tiling", false, n * 8, index, err);
    if (st != DV_OK)
        return st;
    uint8_t *out = dv_opr_gm(r, *index);
    for (size_t i = 0; i < n; i++)
        for (unsigned b = 0; b < 8; b++)
            out[8 * i + b] = (uint8_t)(fields[i] >> (8 * b));
    return DV_OK;
}

dv_status opc_prepare_elementwise(dv_opr_run *r, const dv_kernel_blob *blob, const char *name,
                                  const char *const *inputs, unsigned ninputs, const char *output,
                                  unsigned nbuf, dv_error *err)
{
    dv_dtype dt = r->dtype == 0 ? DV_DT_F16 : DV_DT_F32;
    uint64_t es = dv_dtype_size(dt), n = dv_opr_param(r, "N");
    opc_vec_split s;
    dv_status st = opc_split_vector(r, n, es, nbuf, &s, err);
    if (st != DV_OK)
        return st;
    if ((st = opc_use_vector_kernel(r, blob, name, es, err)) != DV_OK)
        return st;
    uint64_t bytes = opc_round_up(n * es, 32), args[DV_OPR_MAX_TENSORS + 3];
    unsigned na = 0, t;
    for (unsigned i = 0; i <= ninputs; i++) {
        bool out = i == ninputs;
        if ((st = dv_opr_tensor_add(r, out ? output : inputs[i], out, bytes, &t, err)) != DV_OK)
            return st;
        if (!out)
            dv_opr_fill(r, t, dt, n, -1, 1, i);
        args[na++] = r->t[t].addr;
    }
    args[na++] = n;
    args[na++] = s.tile;
    args[na++] = s.per_block;
    if ((st = opc_args(r, args, na, err)) != DV_OK || (st = dv_opr_set_blocks(r, s.blocks, err)) != DV_OK)
        return st;
    opc_vec_work(r, n, es, 1, (double)(ninputs * n * es), (double)(n * es));
    opc_describe_split(r, &s);
    return DV_OK;
}

double opc_scalar_cycles(const dv_chip_config *cfg, double alu, double mul, double disp, double mem,
                         double div, double br)
{
    return alu * (double)cfg->s_alu_cycles + mul * (double)cfg->s_mul_cycles +
           disp * (double)cfg->s_dispatch_cycles + mem * (double)cfg->s_mem_cycles +
           div * (double)cfg->s_div_cycles + br * (double)cfg->s_branch_cycles;
}
