/* dv_operator.h - operators as plugins (the metadef idea of CANN).
 *
 * An operator is a folder kernels/<op>/ with its device kernels (.dvs,
 * assembled at build time by the project's assembler and linked in as ELF
 * bytes, see tools/dvs2c.c) and a host part in C: a dv_operator record
 * that declares its variants, dtypes and shape parameters, and two
 * functions.  prepare() checks the shape, computes the tiling and block_dim
 * for the chip from its config, allocates and fills the GM tensors and sets
 * the kernel arguments; check() compares the outputs with a CPU reference
 * within a stated tolerance.  Every operator folder is listed once, in the
 * registry (kernels/meson.build's `operators`).
 *
 * A run goes: dv_opr_create (parse, validate, prepare) -> dv_sim_run on
 * dv_opr_sim() -> dv_opr_check -> dv_opr_destroy.  An operator whose run is
 * several kernel launches in sequence (an unfused graph) declares
 * next_launch and is run with dv_opr_run_launches() instead of dv_sim_run. */
#ifndef DV_OPERATOR_H
#define DV_OPERATOR_H

#include "dv_sim.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    DV_OPR_MAX_PARAMS = 16, /* conv2d has 13: N, C, H, W, Co, KH, KW, SH, SW, PH, PW, DH, DW */
    DV_OPR_MAX_TENSORS = 8,
    DV_OPR_MAX_INPUTS = 8, /* --input NAME=@FILE */
    DV_OPR_MAX_LAUNCHES = 8,
    DV_OPR_MAX_PLAN = 32,
};

typedef struct dv_opr_run dv_opr_run;

typedef struct dv_operator_param {
    const char *name; /* "M" */
    uint64_t def, min, max;
    const char *doc;
} dv_operator_param;

/* A shape the test suites run the operator on, with every variant and
 * dtype and on every built-in chip, against its reference. */
typedef struct dv_operator_case {
    const char *shape; /* "M=100,N=37,K=75" */
    uint64_t blocks;   /* 0: the tiling chooses */
    const char *why;   /* what it exercises: "nothing a multiple of 16" */
} dv_operator_case;

typedef struct dv_operator {
    const char *name;
    const char *summary;
    const char *const *variants;     /* NULL-terminated; the first is the default */
    const char *const *dtypes;       /* NULL-terminated; the first is the default */
    const dv_operator_param *params; /* terminated by a NULL name */
    const char *tensors;             /* "a[M,K] b[K,N] -> c[M,ldc]" for the listing */
    const char *notes;               /* layouts, tolerance: shown by `dvsim ops NAME` */
    /* Shapes the test suites check (terminated by a NULL shape): awkward
     * sizes, one tile, more blocks than cores.  The first is small: suites
     * that run every operator quickly take it. */
    const dv_operator_case *cases;
    dv_status (*prepare)(dv_opr_run *r, dv_error *err);
    dv_status (*check)(dv_opr_run *r, dv_error *err);
    void (*release)(dv_opr_run *r); /* frees r->state; may be NULL */
    /* Extra launches (may be NULL: one launch).  An operator that runs
     * several kernels in sequence, passing tensors through GM (an unfused
     * conv2d -> bias add -> relu), sets r->launches in prepare(), which sets
     * up launch 0.  dv_opr_run_launches() runs launch 0, then for each
     * i >= 1 makes a fresh simulation of the same chip holding a copy of
     * every GM tensor (at the same addresses) and calls next_launch(r, i)
     * to load the kernel and set its arguments and block_dim there. */
    dv_status (*next_launch)(dv_opr_run *r, unsigned i, dv_error *err);
    /* Constant data of the operator for shared prepare/check functions
     * (the elementwise operators' opc_ew_spec); may be NULL. */
    const void *spec;
    /* Whether variant v (index into variants) with dtype d runs on this chip
     * at all; may be NULL: every combination does.  prepare() refuses the
     * others (DV_ERR_INPUT, exit 65, with the reason); the suites that run
     * every chip x variant x dtype skip them (matmul's f32 needs the split
     * chips' fp32 Cube and the db kernels). */
    bool (*available)(const dv_chip_config *cfg, unsigned variant, unsigned dtype);
} dv_operator;

/* What the user asked for. */
typedef struct dv_opr_request {
    const char *variant; /* NULL: the default */
    const char *dtype;   /* NULL: the default */
    const char *shape;   /* "M=128,N=64"; NULL or "" for the defaults */
    uint64_t seed;
    uint64_t blocks; /* 0: the tiling chooses block_dim */
    unsigned ninputs;
    const char *input_name[DV_OPR_MAX_INPUTS]; /* replace a tensor's random fill ... */
    const char *input_file[DV_OPR_MAX_INPUTS]; /* ... with a file's bytes (exact size) */
} dv_opr_request;

typedef struct dv_opr_tensor {
    const char *name;
    bool output;
    uint64_t addr, bytes;
    uint8_t *host; /* inputs: their bytes as they were before the run (the reference reads them) */
    /* How host is had (operator.c): a hash of the input before the run
     * (host NULL until the check); at the check, the input in GM itself when
     * its hash is unchanged, else a copy made by preparing the run again. */
    uint64_t hash;
    bool hashed, host_owned;
    bool bound; /* the caller's (dv_opr_target): at its address, never filled or freed here */
} dv_opr_tensor;

/* The comparison of one run's outputs with the reference. */
typedef struct dv_opr_check {
    bool done;           /* false: not checked (timing-only run) */
    bool interrupted;    /* the host was asked to stop during the check (dv_opr_check_stop) */
    uint64_t compared;   /* elements */
    uint64_t mismatches; /* elements outside the tolerance */
    double max_abs, max_rel;
    char first_bad[160];           /* where the first mismatch is, or "" */
    uint64_t first_row, first_col; /* its position: the smallest (row, col) of a mismatch */
    char tolerance[160];           /* the rule, in words */
    char reference[128]; /* how the reference was computed: the GEMM and its threads, or the plain loops */
} dv_opr_check;

/* The run passed its check: it was checked, compared at least one element
 * and found none outside the tolerance.  THE definition: the op.check_passed
 * statistic and dv_opjob_result.passed are both this. */
static inline bool dv_opr_check_passed(const dv_opr_check *c)
{
    return c->done && !c->interrupted && c->compared > 0 && c->mismatches == 0;
}

/* The least work the operator needs, for its roofline: what any kernel
 * computing it must do.  Set by prepare(). */
typedef struct dv_opr_work {
    double macs;       /* Cube MACs in fp16 equivalents (int8 MACs count half: the Cube does twice as many) */
    double vec_cycles; /* Vector cycles at full repeats (slope per repeat from the config) */
    double read_bytes, write_bytes; /* GM inputs read once, outputs written once */
    dv_path read_path, write_path;  /* the per-core paths they take */
} dv_opr_work;

/* The operator's roofline on the cores the run used: the least cycles each
 * resource needs for dv_opr_work, the largest of them, and how close the run
 * came. */
typedef struct dv_opr_roofline {
    double cube_cycles, vec_cycles, read_cycles, write_cycles, hbm_cycles;
    double bound_cycles;
    const char *bound_by; /* the Cube's or the Vector unit's pipe key, a path name, or "HBM" */
    double achieved;      /* bound_cycles / actual cycles (every launch's), 0..1 */
    unsigned cores;       /* the most cores a launch of the operator had */
} dv_opr_roofline;

/* One finished launch of a run, for the totals of a multi-launch run. */
typedef struct dv_opr_launch {
    char kernel[64];
    uint64_t cycles;        /* core cycles (dv_run_result.cycles) */
    uint64_t launch_cycles; /* the chip's launch overhead, not in cycles */
    uint64_t block_dim;
    unsigned ncores;
    double cube_cores, vec_cores; /* of ncores, those with a Cube and those with a Vector unit */
    uint64_t gm_read, gm_write;   /* bytes moved GM -> cores and cores -> GM, all cores */
    /* The launch's chip figures (dv_opr_totals sums them over a run): HBM
     * bytes (L2 fills and write-backs), L2 line hits and misses, bytes per
     * path, Cube MACs and instructions, over all its cores; and its chip.*
     * utilisations (percent of its own cycles) and load imbalance. */
    uint64_t hbm_bytes;
    uint64_t l2_read_hits, l2_read_misses, l2_write_hits, l2_write_misses;
    uint64_t path_bytes[DV_PATH_COUNT];
    uint64_t macs, insns;
    double cube_avg_pct, cube_max_pct, vec_avg_pct, vec_max_pct, load_imbalance;
} dv_opr_launch;

struct dv_opr_run {
    const dv_operator *op;
    const dv_chip_config *cfg;
    dv_sim *sim;
    bool data;
    unsigned variant, dtype; /* indices into op->variants / op->dtypes */
    uint64_t p[DV_OPR_MAX_PARAMS];
    uint64_t seed;
    uint64_t blocks_request;
    uint64_t block_dim; /* set by prepare */
    char tiling[384];   /* the tiling in words, for the report (matmul's mix plan runs long) */
    /* The tiling's plan as figures (op.plan.KEY in the statistics and
     * --json); keys are static strings.  dv_opr_plan() adds one. */
    unsigned nplan;
    struct {
        const char *key, *doc;
        double v;
    } plan[DV_OPR_MAX_PLAN];
    dv_obj *obj; /* the kernel object in use */
    unsigned ntensors;
    dv_opr_tensor t[DV_OPR_MAX_TENSORS];
    dv_opr_work work;
    dv_opr_check check;
    void *state;          /* the operator's own */
    bool plain_reference; /* check() with the plain triple loops (tests compare it with the fast one) */
    unsigned sim_threads; /* dv_opr_set_threads: every launch's dv_sim_set_threads (0: the host's CPUs) */
    dv_opr_request req;   /* the request, its strings owned here (to prepare the inputs again) */
    unsigned launches;    /* kernel launches of the run: 1 unless prepare() says more */
    unsigned nlaunched;   /* launches run so far (dv_opr_run_launches) */
    dv_opr_launch launch[DV_OPR_MAX_LAUNCHES];
    /* An observer of every launch (dv_opjob's, e.g. the sanitizer), or NULL:
     * launch_begin with each launch's simulation before it runs (an error
     * stops the run), launch_end after it ran, before the next one. */
    dv_status (*launch_begin)(void *user, dv_opr_run *r, dv_error *err);
    void (*launch_end)(void *user, dv_opr_run *r, const dv_run_result *res);
    void *launch_user;
    /* The launch prepare() (or next_launch) set up, as the runtime reads it:
     * the kernel of obj, its arguments; block_dim above. */
    const dv_obj_kernel *kernel;
    uint64_t args[DV_MAX_KERNEL_ARGS];
    dv_gm *target_gm;                   /* a run on a target (dv_opr_create_on): its GM; sim is NULL */
    const struct dv_opr_target *target; /* during prepare() on a target: the given tensors */
};

/* Where a run on given device tensors prepares (the host runtime's
 * dv_rt_launch_op): the device's GM, and the tensors the caller gives by
 * name at their addresses.  prepare() is the operator's own, unchanged: a
 * given tensor is used where it is (it must hold the bytes the operator
 * sizes it at), never filled (the caller's bytes are the input; an NZ
 * operand's pad bytes are zeroed as for every run); a tensor not given
 * (a workspace, a table, an input left to the seeded fill) is allocated in
 * the device's GM and freed with the run.  No simulation is made: the
 * caller launches r->obj's r->kernel with r->args on r->block_dim blocks,
 * and for an operator of several launches calls dv_opr_next_launch for each
 * next one once the last has ended. */
typedef struct dv_opr_target {
    dv_gm *gm;
    unsigned nbound;
    const char *name[DV_OPR_MAX_TENSORS];
    uint64_t addr[DV_OPR_MAX_TENSORS];
} dv_opr_target;

/* A folder's operators, for the registry: its host part says
 * DV_OPERATORS(folder, &dv_op_a, &dv_op_b) once, and the folder's row in
 * kernels/meson.build's `operators` list does the rest. */
#define DV_OPERATORS(folder, ...) const dv_operator *const dv_operators_##folder[] = {__VA_ARGS__, NULL}

/* Registry (registry.c). */
unsigned dv_operator_count(void);
const dv_operator *dv_operator_at(unsigned i);
const dv_operator *dv_operator_find(const char *name);
/* Index of a parameter, a variant or a dtype by name; -1 if none. */
int dv_operator_param_index(const dv_operator *op, const char *name);
int dv_operator_variant_index(const dv_operator *op, const char *name);
int dv_operator_dtype_index(const dv_operator *op, const char *name);

/* Lifecycle (operator.c).  A bad shape, variant, dtype or input file is
 * DV_ERR_INPUT with one line naming it; a missing file DV_ERR_MISSING. */
/* The request's variant, dtype and shape against op's declaration (what
 * dv_opr_create does first): indexes into op->variants and op->dtypes and
 * a value per parameter (defaults for those the shape does not name).
 * DV_ERR_INPUT with one printable line (the request's text escaped). */
dv_status dv_opr_parse_request(const dv_operator *op, const dv_opr_request *req, unsigned *variant,
                               unsigned *dtype, uint64_t params[DV_OPR_MAX_PARAMS], dv_error *err);
dv_status dv_opr_create(const dv_operator *op, const dv_opr_request *req, const dv_chip_config *cfg,
                        bool data, dv_opr_run **out, dv_error *err);
/* The same on a target (above): DV_ERR_INPUT for a given name the operator
 * has no tensor of, or a given buffer too small for it. */
dv_status dv_opr_create_on(const dv_operator *op, const dv_opr_request *req, const dv_chip_config *cfg,
                           bool data, const dv_opr_target *target, dv_opr_run **out, dv_error *err);
/* A run on a target: sets launch i (1 .. launches-1) up (r->kernel, args, block_dim). */
dv_status dv_opr_next_launch(dv_opr_run *r, unsigned i, dv_error *err);
/* Host threads of every launch's functional work (dv_sim_set_threads). */
void dv_opr_set_threads(dv_opr_run *r, unsigned threads);
dv_sim *dv_opr_sim(dv_opr_run *r);
/* Runs every launch of the run in order (one dv_sim_run each, see
 * next_launch), stopping at the first that does not finish; res is the last
 * launch's result and dv_opr_sim() its simulation.  r->launch[] records each
 * launch's cycles and GM bytes; dv_opr_totals() sums them. */
dv_status dv_opr_run_launches(dv_opr_run *r, uint64_t max_cycles, dv_run_result *res, dv_error *err);
void dv_opr_totals(const dv_opr_run *r, dv_opr_launch *sum);
/* Snapshots the inputs (call once, just before dv_sim_run). */
dv_status dv_opr_before_run(dv_opr_run *r, dv_error *err);
/* Compares the outputs with the reference into r->check (skipped when the
 * run had no data). */
dv_status dv_opr_check_outputs(dv_opr_run *r, dv_error *err);
void dv_opr_destroy(dv_opr_run *r);
void dv_opr_roofline_of(const dv_opr_run *r, const dv_run_result *res, dv_opr_roofline *out);
const dv_opr_tensor *dv_opr_tensor_find(const dv_opr_run *r, const char *name);

/* Helpers for prepare() and check() (operator.c, opdata.c). */
uint64_t dv_opr_param(const dv_opr_run *r, const char *name);
const char *dv_opr_variant(const dv_opr_run *r);
const char *dv_opr_dtype(const dv_opr_run *r);
/* Loads the kernel object of an embedded source and selects kernel name. */
struct dv_kernel_blob;
dv_status dv_opr_use_kernel(dv_opr_run *r, const struct dv_kernel_blob *blob, const char *kernel,
                            dv_error *err);
/* Allocates a GM tensor; its bytes start at zero.  Returns its index. */
dv_status dv_opr_tensor_add(dv_opr_run *r, const char *name, bool output, uint64_t bytes, unsigned *index,
                            dv_error *err);
uint8_t *dv_opr_gm(dv_opr_run *r, unsigned index);
/* Sets kernel argument i (a_i). */
dv_status dv_opr_arg(dv_opr_run *r, unsigned i, uint64_t value, dv_error *err);
dv_status dv_opr_set_blocks(dv_opr_run *r, uint64_t block_dim, dv_error *err);
/* One figure of the tiling's plan (op.plan.KEY); key and doc static.
 * Beyond DV_OPR_MAX_PLAN figures the rest are dropped. */
void dv_opr_plan(dv_opr_run *r, const char *key, const char *doc, double v);

/* Seeded fills: floats uniform in [lo, hi) stored as dt (f16, bf16, f32),
 * or s8 uniform in [lo, hi]; stream picks an independent sequence. */
void dv_opr_fill(dv_opr_run *r, unsigned index, dv_dtype dt, uint64_t count, double lo, double hi,
                 unsigned stream);
/* Element i of a buffer of dtype dt as a double. */
double dv_opr_load(const uint8_t *base, dv_dtype dt, uint64_t i);
/* True if the host asked the run to stop (Ctrl-C, SIGTERM: dv_sim_interrupted);
 * then it marks the check interrupted.  A check() whose reference takes
 * long asks it once per row and returns. */
bool dv_opr_check_stop(dv_opr_run *r);
/* Compares got, element (row, col) of output tensor, with want: a mismatch
 * unless |got - want| <= tol (a NaN or infinite want only by the same);
 * accumulates into r->check. */
void dv_opr_compare(dv_opr_run *r, const char *tensor, uint64_t row, uint64_t col, double got, double want,
                    double tol);
/* The same into a check of its own (one per host thread of a check). */
void dv_opr_compare_to(dv_opr_check *c, const char *tensor, uint64_t row, uint64_t col, double got,
                       double want, double tol);
/* dv_opr_compare_to of n elements of a row: got[i], want[i], tol[i] at (row, col + i). */
void dv_opr_compare_run(dv_opr_check *c, const char *tensor, uint64_t row, uint64_t col, uint64_t n,
                        const double *got, const double *want, const double *tol);
/* Adds part's comparisons to c: counts add, maxima are maxima, the first
 * mismatch is the one at the smaller (row, col); the same outcome as one
 * check that compared everything, in any order. */
void dv_opr_check_merge(dv_opr_check *c, const dv_opr_check *part);

/* Rounding unit of a dtype (2^-11 for f16, 2^-8 for bf16, 2^-24 for f32, 0 for integers). */
double dv_opr_unit_roundoff(dv_dtype dt);

#endif
