/* opcommon.h - small helpers shared by the operators' host parts. */
#ifndef DV_OPCOMMON_H
#define DV_OPCOMMON_H

#include "dv_operator.h"

/* The kernel library's constants (kernels/lib/kernel.def). */
enum {
#define KERNEL_CONST(sym, value, doc) sym = value,
#include "lib/kernel.def"
#undef KERNEL_CONST
};

static inline uint64_t opc_ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

static inline uint64_t opc_round_up(uint64_t a, uint64_t b)
{
    return opc_ceil_div(a, b) * b;
}

static inline uint64_t opc_min(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* The Scalar unit's cycles for so many ALU instructions (and branches not
 * taken, which cost as much), multiplies, instructions dispatched to a
 * pipe, loads and stores, divisions and taken branches: the chip config's
 * scalar.* costs, for the tiling models' counts of their kernels. */
double opc_scalar_cycles(const dv_chip_config *cfg, double alu, double mul, double disp, double mem,
                         double div, double br);

static inline double opc_max_d(double a, double b)
{
    return a > b ? a : b;
}

/* How a vector operator spreads n elements over the vector cores. */
typedef struct opc_vec_split {
    uint64_t tile;      /* elements per UB buffer */
    uint64_t per_block; /* elements per block, whole L2 lines */
    uint64_t blocks;
} opc_vec_split;

/* Tiles of up to 2 x path.gm_full_bw_bytes (32 KiB) so that nbuf buffers (each with a UB_SKEW)
 * fit UB, and at most 255 repeats; one block per vector core unless fewer
 * tiles exist or the user asked for a block count; blocks start on L2
 * lines. */
dv_status opc_split_vector(const dv_opr_run *r, uint64_t n, uint64_t es, unsigned nbuf, opc_vec_split *s,
                           dv_error *err);
/* Vector cores of the chip: coupled cores, or AIVs on a split chip. */
uint64_t opc_vector_cores(const dv_chip_config *cfg);
/* How a row-wise operator spreads `rows` rows of `rowb` bytes over the
 * vector cores: blocks start on whole L2 lines when there are rows enough
 * for every block to get whole lines (no two cores share a line), else on
 * multiples of `m` rows; the user's block count is kept. */
void opc_split_rows(const dv_opr_run *r, uint64_t rows, uint64_t rowb, uint64_t m, uint64_t *blocks,
                    uint64_t *per_block);
/* The whole prepare() of an elementwise operator over N elements of f16
 * (dtype 0) or f32: the split (opc_split_vector with nbuf buffers), the
 * kernel <name>_f16|_f32[_aiv] of blob, the inputs (uniform in [-1, 1),
 * one seeded stream each) and the output, each padded to 32 bytes, the
 * arguments (inputs, output, n, tile, per_block), block_dim and the least
 * work (one vector op per element, the inputs read and the output written
 * once). */
struct dv_kernel_blob;
dv_status opc_prepare_elementwise(dv_opr_run *r, const struct dv_kernel_blob *blob, const char *name,
                                  const char *const *inputs, unsigned ninputs, const char *output,
                                  unsigned nbuf, dv_error *err);
/* Loads the kernel NAME_f16 or NAME_f32 of blob (elements of es = 2 or 4
 * bytes), NAME_..._aiv on a split chip: the four kernels of a vector
 * operator's template (kernels/lib/elementwise.inc, rows.inc). */
dv_status opc_use_vector_kernel(dv_opr_run *r, const struct dv_kernel_blob *blob, const char *name,
                                uint64_t es, dv_error *err);
/* The tensor "tiling": a tiling record (TilingData), the n u64 fields, each
 * 8 bytes little-endian, in order, as the kernel reads them (kernel.inc's
 * TILING_FIELD: field i at byte 8 i).  An operator lists the fields once,
 * from the rows of its tiling.def, and their count is that list's length:
 *     const uint64_t f[] = {
 *     #define TILING_FIELD(member, sym, doc) t->member,
 *     #include "tiling.def"
 *     #undef TILING_FIELD
 *     };
 *     opc_record_tensor(r, f, sizeof f / sizeof f[0], &index, err);
 * *index is the tensor's. */
dv_status opc_record_tensor(dv_opr_run *r, const uint64_t *fields, size_t n, unsigned *index, dv_error *err);
/* r->tiling in words. */
void opc_describe_split(dv_opr_run *r, const opc_vec_split *s);
/* Sets a0.. from args. */
dv_status opc_args(dv_opr_run *r, const uint64_t *args, unsigned n, dv_error *err);
/* The least work of an elementwise operator: ops vector instructions over
 * n elements of es bytes, reading and writing the given GM bytes. */
void opc_vec_work(dv_opr_run *r, uint64_t n, uint64_t es, double ops, double read, double write);
/* Absolute tolerance floor of a float dtype: half its smallest subnormal. */
double opc_tiny(dv_dtype dt);

#endif
