/* dv_op.h - an instruction as a pipe executes it, and what it did: the unit
 * of work the core hands to the execution units and reports to its hooks. */
#ifndef DV_OP_H
#define DV_OP_H

#include "dv_isa.h"

#include <stdint.h>

/* A dispatched instruction as it sits in a pipe queue: the Scalar unit read
 * its registers when it dispatched it, so later scalar code cannot change it. */
typedef struct dv_op {
    const dv_insn *insn; /* its decoded word, in the launch's .text (which outlives the op) */
    uint64_t r[5];       /* values of the registers named in slots R0..R4 */
    uint64_t pc;
    uint64_t dispatched; /* the cycle the Scalar unit put it in its pipe's queue */
} dv_op;

/* What one instruction did (filled by the units' cycles functions). */
typedef struct dv_op_stats {
    dv_path path;
    uint64_t bytes;    /* bytes moved over `path` */
    uint64_t lead;     /* of the cycles, the transfer's start-up (DMA head, GM latency) before bytes flow */
    uint64_t macs;     /* Cube multiply-accumulates */
    uint64_t fractals; /* Cube fractal steps */
    uint64_t elem_ops; /* Vector element operations (active lanes x repeats) */
    uint64_t repeats;  /* Vector repeats */
    uint64_t ub_group_conflict_cycles;
    uint64_t ub_bank_conflict_cycles;
} dv_op_stats;

#endif
