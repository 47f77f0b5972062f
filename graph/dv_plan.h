/* dv_plan.h - the graph compiler: an imported graph becomes a plan, a list
 * of steps, each one dvsim operator invocation (the operator's name, variant,
 * dtype and shape parameters as `dvsim ops` lists them, its tensors with GM
 * offsets and layouts), a host step (an op the chip has no operator for), or
 * a layout conversion between steps.
 *
 * Passes (compile*.c, one a file): shape inference with the folding of the
 * shape ops (every level: a shape must be known to plan), constant folding
 * of every node whose inputs are constants and BatchNormalization folded
 * into the Conv before it (-O1), fusion (-O2: Conv+Bias+ReLU into
 * conv2d_bias_relu, MatMul/Gemm + bias + ReLU / SiLU / GELU(sigmoid) into
 * the matmul epilogue, MatMul-Softmax-MatMul into attention), lowering with
 * the layout choice (conv activations NC1HWC0 and weights FracZ, matmul
 * weights NZ at -O2; a conversion step, costed, wherever a consumer wants
 * another layout), and a GM memory plan (liveness-based reuse from -O1).
 * All device tensors are f16 in GM. */
#ifndef DV_PLAN_H
#define DV_PLAN_H

#include "dv_config.h"
#include "dv_graph.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum dv_tlayout {
    DV_TL_ND,      /* row-major, dense */
    DV_TL_ND16,    /* row-major with rows padded to 16 elements (matmul's ldc) */
    DV_TL_NC1HWC0, /* [N, ceil(C/16), H, W, 16] (conv2d's activations) */
    DV_TL_NZ,      /* matmul's BNZ weights: N/16 blocks of roundup(K,16) x 16 */
    DV_TL_FRACZ,   /* conv2d's weights [C1 KH KW, Co1, 16, 16] */
    DV_TL_COUNT
} dv_tlayout;
const char *dv_tlayout_name(dv_tlayout l);

typedef enum dv_step_kind {
    DV_STEP_DEVICE, /* one dvsim operator run */
    DV_STEP_HOST,   /* an op on the host CPU (no device operator for it) */
    DV_STEP_LAYOUT, /* a layout conversion through GM (costed) */
} dv_step_kind;
const char *dv_step_kind_name(dv_step_kind k);

enum { DV_STEP_MAX_IO = 16, DV_PLAN_ALIGN = 512 /* GM buffers start on an L2 line (facts: 512 B lines) */ };

typedef struct dv_plan_tensor {
    char name[96];
    int gt; /* the graph tensor it holds (-1: an intermediate of a step or a conversion) */
    dv_tlayout layout;
    int64_t dims[DV_G_MAX_RANK]; /* the logical shape */
    int rank;
    uint64_t bytes; /* in GM at its layout, f16, or more if an operator asks for more (compile_opsize.c) */
    bool weight;    /* a constant: lives in the weights region */
    bool input, output;
    int alias;       /* >= 0: shares the buffer of that plan tensor (a reshape); -1 */
    uint64_t offset; /* in the activation region (or the weights region when weight) */
    int first, last; /* steps that define it and use it last (-1: none) */
} dv_plan_tensor;

typedef struct dv_plan_step {
    dv_step_kind kind;
    char op[40];      /* operator ("matmul") or host op ("Transpose", "nchw_to_nc1hwc0") */
    char variant[16]; /* device steps */
    char dtype[16];
    char params[192]; /* "M=64,N=64,K=32,BIAS=1" as dvsim run --shape takes it */
    char note[128];   /* what was fused, or why a host step */
    unsigned nin, nout;
    int in[DV_STEP_MAX_IO], out[DV_STEP_MAX_IO]; /* plan tensors */
    unsigned nnodes;
    int nodes[DV_STEP_MAX_IO]; /* the graph nodes it computes (the reference runs them) */
    double cost_cycles;        /* layout steps: GM bytes read + written / HBM bytes per cycle */
    uint64_t gm_bytes;         /* GM bytes the step's tensors take (inputs + outputs) */
} dv_plan_step;

/* What each pass did, for the compile report. */
typedef struct dv_plan_report {
    unsigned nodes_in, shape_folded, const_folded, bn_folded, aliases;
    unsigned fused_conv, fused_matmul, fused_attention, fused_gelu, layernorms, rmsnorms;
    unsigned nz_weights, fracz_weights, conversions;
    double conversion_cycles;
    unsigned steps_device, steps_host, steps_layout;
    uint64_t weights_bytes, peak_no_reuse, peak;
    char symbolic[160]; /* inputs whose symbolic dims were planned as 1, or "" */
} dv_plan_report;

typedef struct dv_plan {
    dv_graph *g; /* the compiled graph: folded, fused nodes kept (the steps list them) */
    int opt;
    unsigned streams; /* the memory plan's (dv_plan_compile_streams; 1 for dv_plan_compile and a .dvm) */
    char chip[64];
    uint64_t hbm_bytes_per_cycle;
    unsigned ntensors, nsteps, tcap, scap;
    dv_plan_tensor *t;
    dv_plan_step *s;
    uint8_t *weights; /* the weights region, each weight at its offset in its layout (f16) */
    dv_plan_report rep;
    char log[4096]; /* the passes in words, a line each */
} dv_plan;

/* Compiles g (not changed) at opt 0..2 for cfg (NULL: the default chip).
 * Errors: DV_ERR_INPUT naming the node when a shape cannot be inferred or
 * a node is inconsistent; DV_ERR_USAGE for a bad opt. */
dv_status dv_plan_compile(const dv_graph *g, int opt, const dv_chip_config *cfg, dv_plan **out,
                          dv_error *err);
/* The same with the memory plan made for a run on `streams` streams
 * (dvsim graph --streams): above 1, a buffer takes over a GM range only from
 * buffers whose every user its producer depends on through the data, so the
 * reuse never orders independent branches (a higher peak where the graph
 * has them; compile_memory.c).  streams 0 or 1 is dv_plan_compile. */
dv_status dv_plan_compile_streams(const dv_graph *g, int opt, const dv_chip_config *cfg, unsigned streams,
                                  dv_plan **out, dv_error *err);
void dv_plan_destroy(dv_plan *p);
/* Runs the plan on the CPU reference: every step computes the nodes it
 * covers (with the folded constants), in plan order; conversions move no
 * values (the reference is logical).  *values is a copy of the plan's graph
 * with every tensor's value. */
dv_status dv_plan_ref_run(const dv_plan *p, const dv_gtensor *inputs, unsigned ninputs, dv_graph **values,
                          dv_error *err);
/* The same run with every device step computed from its operator
 * parameters alone (plan_exec.c), host steps by their nodes' reference:
 * what checks that lowering and fusion chose the right parameters. */
dv_status dv_plan_exec_run(const dv_plan *p, const dv_gtensor *inputs, unsigned ninputs, dv_graph **values,
                           dv_error *err);
/* Graph output k's value in values (from dv_plan_ref_run). */
const dv_gtensor *dv_plan_ref_output(const dv_plan *p, const dv_graph *values, unsigned k);

/* The tensor name operator op gives a device step's input k (output false) or its output (k 0), as
 * compile_lower.c and compile_ops.c order the step's tensors; NULL if op has none there. */
const char *dv_plan_op_tensor(const char *op, bool output, unsigned k);

/* The compiled-model file (.dvm, dvm.c; docs/graphs.md): a versioned
 * container of sections META, TENSORS, STEPS, WEIGHTS. */
dv_status dv_dvm_write(const dv_plan *p, const char *path, dv_error *err);
/* A plan read back: tensors, steps, weights and the report's figures
 * (p->g is NULL: a .dvm holds what the device needs, not the graph).  A bad
 * or truncated file is DV_ERR_INPUT. */
dv_status dv_dvm_read(const uint8_t *bytes, size_t len, const char *file, dv_plan **out, dv_error *err);
dv_status dv_dvm_read_file(const char *path, dv_plan **out, dv_error *err);

#endif
