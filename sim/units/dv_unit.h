/* dv_unit.h - the contract between the core (pipes, timing) and the
 * execution units of sim/units (Vector, Cube, transfer engines, FixPipe).
 *
 * Each unit offers two functions per instruction class, kept apart so that
 * the timing model never changes a result and a timing-only run gives the
 * same cycles:
 *   dv_X_cycles(ctx, op, back_to_back, stats): how long the instruction
 *       occupies its pipe, from its fields, register values and the chip
 *       config only (never from data); fills stats (bytes, MACs, repeats,
 *       bank conflicts).
 *   dv_X_exec(ctx, op): the functional effect on the buffers.  Checks every
 *       address (range and alignment) even when ctx->data is false, and
 *       returns false with ctx->fault / ctx->fault_msg set on a guest fault.
 * The core calls exec at the simulated time the pipe executes the
 * instruction, so a kernel that forgets a wait_flag reads stale data. */
#ifndef DV_UNIT_H
#define DV_UNIT_H

#include "dv_config.h"
#include "dv_gmsys.h"
#include "dv_isa.h"
#include "dv_mem.h"
#include "dv_op.h"
#include "dv_timing.h"

#include <stdbool.h>
#include <stdint.h>

/* Vector unit state kept between instructions. */
typedef struct dv_vec_state {
    uint64_t mask_lo, mask_hi; /* bit mode: lanes 0-63 in lo, 64-127 in hi; counter mode: lo = count */
    dv_maskmode mode;
    /* The UB bytes [wrote_lo, wrote_hi) the last vector op issued writes
     * (timing: an op streaming behind it that reads them waits for its
     * result, dep_stall cycles); wrote_hi == 0: none. */
    uint64_t wrote_lo, wrote_hi, dep_stall;
} dv_vec_state;

typedef struct dv_unit_ctx {
    const dv_chip_config *cfg;
    dv_mem *mem; /* array indexed by dv_mem_kind (the GM entry is unused) */
    dv_gm *gm;
    dv_vec_state *vec;
    uint64_t *fmatrix;     /* last set_fmatrix value */
    bool data;             /* false: timing-only run, skip the arithmetic */
    dv_access_fault fault; /* set when exec fails on an access */
    char fault_msg[200];   /* set when exec fails for another reason (bad parameter) */
    void *scratch;         /* the units' working memory, grown on demand, freed with the core */
    size_t scratch_size;
} dv_unit_ctx;

/* At least size bytes of ctx->scratch (64-byte aligned), NULL if out of memory. */
void *dv_unit_scratch(dv_unit_ctx *c, size_t size);
/* Frees the units' working memory of ctx. */
void dv_unit_ctx_free(dv_unit_ctx *c);

/* The unit that executes an instruction, by its timing class (isa.def):
 * DV_TC_DMA -> dv_mte_*, DV_TC_CUBE -> dv_cube_*, DV_TC_FIX -> dv_fixp_*, the
 * vector classes and DV_TC_MASK -> dv_vector_*.  Synchronisation
 * (DV_TC_SYNC) is the core's own business (1 cycle, no effect here), except
 * set_fmatrix, which goes to dv_mte_*. */
uint64_t dv_unit_cycles(const dv_unit_ctx *c, const dv_op *op, bool back_to_back, dv_op_stats *st);
bool dv_unit_exec(dv_unit_ctx *c, const dv_op *op);

/* The exact bytes an instruction reads and writes, range by range, in the
 * core's buffers and GM (mem DV_MEM_GM), as exec will access them: from its
 * fields, register values, the vector mask and the fmatrix in c, so call it
 * when the instruction issues.  A read-modify-write (mmad with init=0) is a
 * read and a write.  Nothing for synchronisation, masks and set_fmatrix.
 * For observers (the sanitizer); exec does not use it. */
typedef void (*dv_unit_access_fn)(void *user, dv_mem_kind mem, uint64_t addr, uint64_t len, bool write);
void dv_unit_footprint(const dv_unit_ctx *c, const dv_op *op, dv_unit_access_fn fn, void *user);
void dv_vector_footprint(const dv_unit_ctx *c, const dv_op *op, dv_unit_access_fn fn, void *user);
void dv_xfer_footprint(const dv_unit_ctx *c, const dv_op *op, dv_unit_access_fn fn, void *user);

/* Vector unit (pipe V): every vector instruction of isa.def, set_mask and
 * set_mask_mode. */
uint64_t dv_vector_cycles(const dv_unit_ctx *c, const dv_op *op, bool back_to_back, dv_op_stats *st);
bool dv_vector_exec(dv_unit_ctx *c, const dv_op *op);

/* The GM ranges a transfer touches, in transfer order: the bursts of the
 * copies, the rows of an nd2nz read, the rows (or fractal columns) of a
 * FixPipe write, else the one range of st->bytes at its GM operand.  The
 * footprint of the semantics in units/xfer, for the core's L2 and
 * same-address accounting. */
void dv_xfer_gm_ranges(const dv_op *op, const dv_op_stats *st, dv_gm_range_fn fn, void *user);

/* Cube (pipe M): mmad. */
uint64_t dv_cube_cycles(const dv_unit_ctx *c, const dv_op *op, bool back_to_back, dv_op_stats *st);
bool dv_cube_exec(dv_unit_ctx *c, const dv_op *op);
/* mmad's shape: M, K, N; K per fractal row and element bytes; fractal
 * counts; bytes of one fractal of A, B, C. */
typedef struct dv_mm_shape {
    uint64_t m, k, n;
    uint64_t k0, esize;
    uint64_t m1, k1, n1;
    uint64_t fa, fb, fc;
} dv_mm_shape;
/* dv_cube_exec in two halves, so that the arithmetic can run on another
 * host thread (sim/core/core_async.c).  dv_cube_prepare does everything that
 * can fault (types, ranges, alignment, host memory), in simulated order, and
 * fills *w; w->has_work is false when there is nothing to compute (timing only,
 * or an empty product).  dv_cube_compute then writes the product into L0C,
 * reading only [a_addr, +a_len) of L0A, [b_addr, +b_len) of L0B, C's range
 * when init is 0, and its own working memory, taken from work_owner's
 * scratch (not c's when the compute runs elsewhere). */
typedef struct dv_cube_work {
    dv_mm_shape s;
    uint8_t *a, *b, *c;
    uint64_t a_addr, b_addr, c_addr, a_len, b_len, c_len;
    int dtype;
    bool init;
    uint8_t *work;
    bool has_work;
} dv_cube_work;
bool dv_cube_prepare(dv_unit_ctx *c, const dv_op *op, dv_unit_ctx *work_owner, dv_cube_work *w);
void dv_cube_compute(const dv_cube_work *w);

/* Transfer engines (MTE1, MTE2, MTE3): copy_*, nd2nz_gm_l1, load2d_*,
 * set_fmatrix, load3d_*; and copy_l0c_ub (pipe V on coupled chips), which
 * shares FixPipe's conversions. */
uint64_t dv_mte_cycles(const dv_unit_ctx *c, const dv_op *op, bool back_to_back, dv_op_stats *st);
bool dv_mte_exec(dv_unit_ctx *c, const dv_op *op);

/* nd2nz_gm_l1's exec in two halves, like mmad's: dv_nd2nz_prepare checks
 * everything (a fault leaves L1 unchanged) and, when the rows lie in one GM
 * region, fills *w with the host addresses instead of moving the bytes
 * (w->has_work); otherwise (rows checked one by one, timing only, nothing to
 * move) it moves them itself and w->has_work is false.  dv_nd2nz_compute then
 * writes L1 from GM through those addresses only (no GM lookup: it may run
 * on another host thread). */
typedef struct dv_nd2nz_work {
    uint8_t *l1;
    const uint8_t *gm;
    uint64_t n, d, srcd, ndnum, c0, size, dstc0, dstn, srcmat, dstmat;
    bool has_work;
} dv_nd2nz_work;
bool dv_nd2nz_prepare(dv_unit_ctx *c, const dv_op *op, dv_nd2nz_work *w);
void dv_nd2nz_compute(const dv_nd2nz_work *w);

/* FixPipe (pipe FIX): fixp. */
uint64_t dv_fixp_cycles(const dv_unit_ctx *c, const dv_op *op, bool back_to_back, dv_op_stats *st);
bool dv_fixp_exec(dv_unit_ctx *c, const dv_op *op);

#endif
