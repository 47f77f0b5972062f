/* compile_priv.h - what the compiler's passes share (compile*.c). */
#ifndef DV_COMPILE_PRIV_H
#define DV_COMPILE_PRIV_H

#include "dv_plan.h"
#include "ref_priv.h"

#include <stdarg.h>

enum { CC_GROUP_MAX = 8 };

typedef enum cc_group_kind {
    CC_SINGLE,    /* one node */
    CC_CONV_RELU, /* Conv, Relu: conv2d_bias_relu */
    CC_MATMUL, /* MatMul or Gemm, then [Add bias] [Relu | Sigmoid, Mul (SiLU) | Mul, Sigmoid, Mul (GELU)] */
    CC_ATTENTION, /* Transpose(K), MatMul, scale, [causal mask], Softmax, MatMul */
    CC_GELU,      /* Div(x, sqrt 2), Erf, Add 1, Mul x, Mul 0.5 (PyTorch's exact GELU): one host step */
    CC_RMSNORM,   /* Pow 2, ReduceMean, Add eps, Sqrt, Div | Reciprocal, Mul, Mul gamma: rmsnorm */
} cc_group_kind;

/* Nodes lowered together into one step: found by the fusion pass (compile_fuse.c). */
typedef struct cc_group {
    cc_group_kind kind;
    unsigned n;
    int nodes[CC_GROUP_MAX]; /* in graph order; the step is made at the last one */
    int bias;                /* CC_MATMUL: the graph tensor of the bias (-1: none); CC_RMSNORM: gamma */
    int relu, act;           /* CC_MATMUL: RELU, ACT (1 SiLU, 2 GELU) */
    int causal;              /* CC_ATTENTION: a causal mask (Where or Add of -inf above the diagonal) */
    int tk, m1, q;           /* CC_ATTENTION: the Transpose(K) and Q K^T nodes, the Q tensor read */
    int x;                   /* CC_GELU, CC_RMSNORM: the graph tensor it reads */
    double eps;              /* CC_RMSNORM */
    int out;                 /* the graph tensor the group's step produces */
} cc_group;

typedef struct cctx {
    dv_plan *p;
    const dv_chip_config *cfg;
    dv_error *err;
    int (*memo)[DV_TL_COUNT]; /* graph tensor x layout -> plan tensor (-1) */
    int *produced;            /* graph tensor -> the layout its producer wrote (-1: not yet) */
    unsigned *consumers;      /* graph tensor -> live nodes that read it */
    int *group_of;            /* node -> its group (-1: a single) */
    cc_group *groups;
    unsigned ngroups;
} cctx;

/* Passes. */
dv_status cc_fold(cctx *c);  /* shape inference, constant folding, BatchNorm folding (compile_fold.c) */
dv_status cc_fuse(cctx *c);  /* the fusion groups at -O2 (compile_fuse.c) */
dv_status cc_lower(cctx *c); /* nodes and groups to steps (compile_lower.c) */
dv_status cc_operator_sizes(cctx *c); /* buffers as large as their operators ask (compile_opsize.c) */
dv_status cc_memory(cctx *c);         /* liveness and GM offsets (compile_memory.c) */
dv_status cc_pack_weights(cctx *c);   /* the weights region (compile_layout.c) */

/* The consumers of every graph tensor among the nodes (compile_fold.c). */
dv_status cc_count_consumers(cctx *c);
/* The only node reading graph tensor t (-1 if none, several, or t is a graph output). */
int cc_sole_consumer(const cctx *c, int t);

/* Fusion helpers (compile_fuse.c) and the attention pattern (compile_attn.c). */
double cc_scalar_operand(const dv_graph *g, const dv_gnode *n,
                         int x);                /* the other input's one value, or NAN */
int cc_producer(const dv_graph *g, int t);      /* the node writing t (-1: a constant or graph input) */
int cc_other_input(const dv_gnode *n, int x);   /* binary n's input other than x (-1 if x is neither) */
int cc_cmp_int(const void *a, const void *b);   /* qsort of node indices */
bool cc_add_group(cctx *c, const cc_group *gr); /* false if a node already belongs to a group */
/* The attention group at MatMul i; *split: its Transpose(K) must be split first (cc_attention_split_keys). */
bool cc_match_attention(cctx *c, unsigned i, cc_group *gr, bool *split);
dv_status cc_attention_split_keys(cctx *c);

/* Lowering (compile_lower.c; the Cube operators in compile_ops.c). */
bool cc_device_fits(const cctx *c, const char *op, const char *variant, const char *params, char *why,
                    size_t len);
/* Transpose (the last dim kept), Slice, Concat onto permute (compile_copy.c). */
dv_status cc_lower_copy(cctx *c, unsigned ni);
dv_plan_step *cc_make_step(cctx *c, dv_step_kind k, const char *op, const int *in, unsigned nin,
                           const int *out, unsigned nout, const int *nodes, unsigned nnodes);
dv_status cc_host_step(cctx *c, unsigned ni, const char *why);
dv_status cc_lower_single(cctx *c, unsigned ni);
dv_status cc_lower_conv(cctx *c, unsigned ni, int relu);
dv_status cc_lower_matmul(cctx *c, const cc_group *gr);
dv_status cc_lower_attention(cctx *c, const cc_group *gr);
dv_status cc_lower_gelu(cctx *c, const cc_group *gr);
/* The RMSNorm group at ReduceMean node i, and its step (compile_rmsnorm.c). */
void cc_fuse_rmsnorm(cctx *c, unsigned i);
dv_status cc_lower_rmsnorm(cctx *c, const cc_group *gr);

/* Softmax s runs along its input's last dim. */
bool cc_softmax_on_last(const dv_graph *g, const dv_gnode *s);
/* Gemm n fits matmul's BIAS: alpha = beta = 1 and C a constant of N elements along its last dim. */
bool cc_gemm_bias_ok(const dv_graph *g, const dv_gnode *n, int64_t ncols);

/* Plan tensors and steps (compile_layout.c). */
int cc_new_tensor(cctx *c, const char *name, int gt, dv_tlayout l, int rank, const int64_t *dims);
/* The plan tensor holding graph tensor gt in layout l: a weight packed at
 * compile time, or an activation converted by a layout step from the layout
 * it has; -1 when memory ran out (c->err set). */
int cc_use(cctx *c, int gt, dv_tlayout l);
/* The layout graph tensor gt has now (its producer's), ND if none yet. */
dv_tlayout cc_layout_of(const cctx *c, int gt);
/* Defines graph tensor gt as produced in layout l. */
int cc_define(cctx *c, int gt, dv_tlayout l);
dv_plan_step *cc_step(cctx *c, dv_step_kind k, const char *op);
uint64_t cc_layout_bytes(dv_tlayout l, int rank, const int64_t *dims);
/* A line of the pass log. */
void cc_log(cctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
