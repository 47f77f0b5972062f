/* isa_ops.h - helpers shared by the ISA table tests: the bits an operand
 * or a whole format occupies, memory operands' base slot included. */
#ifndef DV_TEST_ISA_OPS_H
#define DV_TEST_ISA_OPS_H

#include "dv_isa.h"

#include <stdbool.h>
#include <stdint.h>

/* The R1 slot a memory operand's base register occupies. */
static const dv_opspec mem_base_slot = {DV_F_R1, 13, 5, "base", true, false};

static inline uint64_t bits_of(unsigned lo, unsigned width)
{
    return (width >= 64 ? ~0ull : (1ull << width) - 1) << lo;
}

/* Calls fn on every operand of fmt, the base register of a memory operand
 * included. */
typedef void (*op_fn)(const dv_opspec *spec, void *user);

static inline void for_each_op(const dv_format *fmt, op_fn fn, void *user)
{
    for (unsigned i = 0; i < fmt->nops; i++) {
        fn(&fmt->ops[i], user);
        if (fmt->ops[i].mem_base)
            fn(&mem_base_slot, user);
    }
}

static inline void add_bits(const dv_opspec *spec, void *user)
{
    *(uint64_t *)user |= bits_of(spec->lo, spec->width);
}

static inline uint64_t used_bits(const dv_format *fmt)
{
    uint64_t used = 0xff;
    for_each_op(fmt, add_bits, &used);
    return used;
}

#endif
