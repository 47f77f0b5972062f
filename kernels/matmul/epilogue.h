/* epilogue.h - the matmul activation epilogue on split chips (ACT=1 SiLU,
 * ACT=2 GELU): the mix kernels of epilogue.inc, whose AIC computes the C
 * tiles and whose two AIVs apply the activation through a GM ring.  The
 * host part: the ring and the AIVs' UB plan, the record the kernels read
 * (epilogue.def), the plan's figures and line. */
#ifndef DV_MM_EPILOGUE_H
#define DV_MM_EPILOGUE_H

#include "dv_operator.h"
#include "tiling.h"

#include <stdbool.h>
#include <stdint.h>

/* Slots per block's ring: the Cube's next tile (FixPipe writing slot
 * g + 1) while the AIVs read tile g.  A cross-core counter then reaches at
 * most MM_EP_SLOTS (sync.cross_core_max is 16). */
enum { MM_EP_SLOTS = 2 };

typedef struct mm_ep {
#define EPILOGUE_FIELD(member, sym, doc) uint64_t member;
#include "epilogue.def"
#undef EPILOGUE_FIELD
    uint64_t aivs;      /* AIVs per tile (chip.aiv_per_aic), each ceil(rows / aivs) of its rows */
    unsigned ring, rec; /* the tensors: the ring workspace, the record */
} mm_ep;

/* true when the run needs the mix kernel: an activation on a split chip. */
bool mm_ep_mix(const dv_chip_config *cfg, const mm_problem *p);

/* The plan for tiling t with output elements of oes bytes: the ring
 * (ws_epilogue, MM_EP_SLOTS slots per block) and the record (epilogue)
 * as tensors; *q (the kernel's q argument, TA's zeros or 0) goes into the
 * record and becomes its address.  DV_ERR_INPUT if a tile row of the
 * output type does not fit a quarter of UB. */
dv_status mm_ep_prepare(dv_opr_run *r, const mm_problem *p, const mm_tiling *t, mm_ep *ep, uint64_t *q,
                        dv_error *err);

/* The Vector work of the activation (the roofline's vec_cycles): four
 * operations over every element of C (rows of ldc). */
double mm_ep_vec_cycles(const dv_chip_config *cfg, const mm_problem *p, const mm_tiling *t);

/* op.plan.* figures of the mix plan and its words at the end of r->tiling. */
void mm_ep_describe(dv_opr_run *r, const mm_ep *ep);

#endif
