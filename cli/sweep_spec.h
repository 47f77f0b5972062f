/* sweep_spec.h - a design-space sweep (dvsim sweep, docs/sweeps.md): the
 * spec file (INI or JSON) read into workloads, chips and axes, and its
 * expansion into independent jobs, each a dvsim run command line with a
 * stable hash of that command line (the job's name and folder).
 *
 * The parser reads text from memory and touches no file (the fuzz harness
 * feeds it bytes); cmd_sweep resolves the kernels' paths and checks the
 * chips and the axes' values before anything runs. */
#ifndef DV_SWEEP_SPEC_H
#define DV_SWEEP_SPEC_H

#include "dv_status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    SWEEP_MAX_WORKLOADS = 64,
    SWEEP_MAX_AXES = 16,
    SWEEP_MAX_CHIPS = 32,
    SWEEP_MAX_LIST = 64,       /* metrics, groups, fixed --set, args, gms */
    SWEEP_MAX_VALUES = 100000, /* values of one axis */
    SWEEP_MAX_JOBS = 1000000,  /* what one spec may expand to */
    SWEEP_MAX_STR = 1024,      /* any one string of the spec */
    SWEEP_MAX_SPEC_BYTES = 1 << 24
};

/* A list of strings (owned). */
typedef struct sweep_list {
    char **items;
    size_t count;
} sweep_list;

/* What an axis varies: a chip config key (--set KEY=V), a shape parameter
 * of the operators (--shape P=V), a scalar argument of the kernels
 * (--arg N=V), or one of the run's options (variant, dtype, seed, blocks). */
typedef enum sweep_axis_kind {
    SWEEP_AXIS_KEY,
    SWEEP_AXIS_SHAPE,
    SWEEP_AXIS_ARG,
    SWEEP_AXIS_OPTION
} sweep_axis_kind;

typedef struct sweep_axis {
    char *name;
    sweep_axis_kind kind;
    char *target; /* the key, parameter, argument or option name */
    sweep_list values;
    char *zip; /* moves with this axis (same number of values); NULL: crossed */
    int group; /* after expansion: the axes of a group move together */
} sweep_axis;

typedef struct sweep_workload {
    char *name;
    char *op;     /* an operator (dvsim ops), or NULL */
    char *kernel; /* a kernel file (.dvs or .elf), or NULL; exactly one of the two */
    char *variant, *dtype, *shape, *kernel_name, *blocks;
    sweep_list args, gms; /* NAME=VALUE of a kernel's --arg and --gm */
} sweep_workload;

typedef struct sweep_spec {
    char *name;
    sweep_list chips;   /* built-in chip names, or .ini files (--config) */
    sweep_list metrics; /* stat names of stats.json picked into results.csv */
    sweep_list groups;  /* msprof metric groups (run --metrics): their figures join stats.json */
    sweep_list sets;    /* KEY=VALUE overrides of every job */
    char *seed, *max_cycles;
    bool data; /* false (the default): timing only, --no-data */
    bool zip_all;
    sweep_workload workloads[SWEEP_MAX_WORKLOADS];
    size_t nworkloads;
    sweep_axis axes[SWEEP_MAX_AXES];
    size_t naxes;
} sweep_spec;

/* Parses a spec: JSON when the text starts with '{' (after blanks), INI
 * otherwise; origin names it in messages ("study.ini").  Checks what the
 * text alone can show: known sections and keys, no key twice, one of op
 * and kernel per workload, axes with a target and values, zips of axes
 * that exist with as many values, at least one workload and chip, no
 * control characters, the sizes above.  DV_ERR_INPUT with "origin:LINE:
 * message" (INI) or "origin: message" on failure; free with
 * sweep_spec_free either way. */
dv_status sweep_spec_parse(const char *text, size_t len, const char *origin, sweep_spec *s, dv_error *err);
void sweep_spec_free(sweep_spec *s);

/* One job: the dvsim run command line (argv[0] "run", without --out) and
 * what it stands for in results.csv. */
typedef struct sweep_job {
    size_t id;       /* its place in the expansion */
    char hash[17];   /* FNV-1a 64 of the command line, hex */
    size_t workload; /* index in spec.workloads */
    size_t chip;     /* index in spec.chips */
    size_t *value;   /* per axis, the index of its value */
    size_t primary;  /* the first job with the same command line (an axis that leaves the workload
                      * alone repeats it): only that one runs, the others share its folder */
} sweep_job;

typedef struct sweep_jobs {
    sweep_job *jobs;
    size_t count;
    size_t *values; /* count x naxes, the jobs' value arrays */
} sweep_jobs;

/* The number of jobs s expands to (0 if more than SWEEP_MAX_JOBS). */
size_t sweep_spec_count(const sweep_spec *s);
/* Expands s: workloads, then chips, then the axis groups in the order given
 * (the first slowest).  An axis of a shape parameter is for the operators
 * with that parameter, of kernel arguments for kernels, variant and dtype
 * for operators; it leaves the other workloads alone (their jobs repeat
 * one command line: one runs, sweep_job.primary).
 * DV_ERR_INPUT past SWEEP_MAX_JOBS, DV_ERR_NOMEM. */
dv_status sweep_expand(const sweep_spec *s, sweep_jobs *out, dv_error *err);
void sweep_jobs_free(sweep_jobs *j);

/* The command line of job j (argv[0] "run", NULL-terminated); free it
 * with sweep_argv_free. */
dv_status sweep_job_argv(const sweep_spec *s, const sweep_job *j, char ***argv, int *argc, dv_error *err);
void sweep_argv_free(char **argv);

/* The spec as canonical JSON (what sweep_spec_parse reads back to the same
 * jobs): DIR/sweep.json, from which workers and --merge expand the jobs. */
dv_status sweep_spec_json(const sweep_spec *s, char **text, dv_error *err);

/* FNV-1a 64 of a command line (its words separated by '\n'), as 16 hex digits. */
void sweep_hash(char *const *argv, int argc, char out[17]);

#endif
