/* unit_insn.h - decoded words for the unit tests' ops.  A dv_op points at
 * its instruction in the launch's .text; a test has no .text, so its ops
 * point into a ring of words that outlive them (the tests keep a handful of
 * ops at a time), which the test may change through op_insn. */
#ifndef UNIT_INSN_H
#define UNIT_INSN_H

#include "dv_op.h"

#include <string.h>

/* A zeroed word for a new op. */
static inline dv_insn *unit_insn_new(void)
{
    enum { RING = 256 };
    static dv_insn ring[RING];
    static unsigned next;
    dv_insn *in = &ring[next++ % RING];
    memset(in, 0, sizeof *in);
    return in;
}

/* The word of an op made with unit_insn_new, to change. */
static inline dv_insn *op_insn(const dv_op *op)
{
    return (dv_insn *)op->insn;
}

#endif
