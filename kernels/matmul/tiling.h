/* tiling.h - the matmul tiling function: how a chip's buffers cut C into
 * tiles and K into L1 chunks and L0 steps, and the record the kernel reads
 * (tiling.def, which the kernel reads too). */
#ifndef DV_MM_TILING_H
#define DV_MM_TILING_H

#include "dv_config.h"
#include "dv_status.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum mm_variant { MM_NAIVE, MM_TILED, MM_PIPELINED, MM_DB } mm_variant;
typedef enum mm_out { MM_OUT_F16, MM_OUT_F32, MM_OUT_DEQ, MM_OUT_VDEQ, MM_OUT_REQ } mm_out;

typedef struct mm_problem {
    uint64_t m, n, k;
    unsigned dt; /* 0 f16, 1 bf16, 2 s8, 3 f32 (split chips' fp32 Cube) */
    mm_out out;
    mm_variant variant;
    uint64_t blocks;             /* 0: the tiling chooses */
    uint64_t force_mt, force_nt; /* 0, or the tile size the user asked for */
    uint64_t batch;              /* matrices (0 or 1: one) */
    bool ta, tb;                 /* A given as [K, M]; B as [N, K] (floats; s8's B always is) */
    bool bias, relu;             /* C = relu?(A x B + bias[N]) (the layouts kernels) */
    unsigned act;                /* coupled cores: 1 SiLU, 2 GELU (x sigmoid(1.702 x)), on the Vector unit */
    bool bnz;                    /* B given in NZ: N/16 column blocks of roundup(K, 16) rows x 16 */
    bool layouts;                /* the layouts kernels (batch, TA, TB, BNZ, BIAS, RELU, ACT): one A panel */
    uint64_t ksplit;             /* split-K: 0 the model chooses, 1 never, S: S splits (f16, bf16; db) */
    uint64_t swz;                /* block order: 0 the model chooses, 1 row-major, G: swizzled groups of G */
} mm_problem;

/* The tiling: the record's fields (tiling.def), then what the host keeps. */
typedef struct mm_tiling {
#define TILING_FIELD(member, sym, doc) uint64_t member;
#include "tiling.def"
#undef TILING_FIELD
    uint64_t k0;      /* K elements of a fractal row: 32 bytes / es (the kernel shifts by its log) */
    uint64_t es, oes; /* bytes per input element, per output element in GM */
    uint64_t uboes;   /* coupled cores: bytes per element copy_l0c_ub writes to UB */
    uint64_t blocks;  /* block_dim */
    uint64_t
        apanels; /* A panels in L1 (not achunk): 1, or 2 (db: a new row's loads while MTE1 reads the last) */
    double est_cycles; /* the model's estimate that chose it (split-K: with the reduction launch) */
    /* Split-K (ksplit > 1): the record describes S matrices of M x N x k
     * (k = T_K the depth of a split, klast the last one's), whose f32
     * results go to a workspace of S slices of M x ldc; a second launch
     * (matmul_ksum, the Vector unit) sums them into C. */
    uint64_t ksplit;
    double reduce_cycles;  /* the model's estimate of the reduction launch, its launch overhead included */
    double unsplit_cycles; /* the best plan without split-K, as the model has it */
} mm_tiling;

/* Times MTE2 reads A, B over under tiling t (the plan's a_reads, b_reads). */
double mm_a_reads(const mm_problem *p, const mm_tiling *t);
double mm_b_reads(const mm_problem *p, const mm_tiling *t);
uint64_t mm_ldc(const dv_chip_config *cfg, const mm_problem *p);
/* tiling_l2.c: the bytes the L2 moves for tiling t (whole lines), and the
 * HBM traffic of its block order. */
double mm_l2_bytes(const dv_chip_config *cfg, const mm_problem *p, const mm_tiling *t);
double mm_hbm_bytes(const dv_chip_config *cfg, const mm_problem *p, const mm_tiling *t);
/* The reduction's blocks on the vector cores: elements per block and per
 * tile (matmul_ksum's per and tile) for a slice of n f32 elements. */
void mm_ksum_split(const dv_chip_config *cfg, uint64_t n, uint64_t *blocks, uint64_t *per, uint64_t *tile);
/* DV_ERR_INPUT with one line if no tiling fits the chip's buffers. */
dv_status mm_tile(const dv_chip_config *cfg, const mm_problem *p, mm_tiling *t, dv_error *err);

#endif
