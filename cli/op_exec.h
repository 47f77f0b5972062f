/* op_exec.h - one operator run reduced to the figures that regress and
 * bench compare: cycles, utilisation, bytes per path, the check. */
#ifndef DV_OP_EXEC_H
#define DV_OP_EXEC_H

#include "dv_operator.h"

typedef struct op_spec {
    const char *op, *variant, *dtype, *shape, *chip;
    uint64_t blocks;   /* 0: the tiling chooses */
    bool data;         /* false: timing only */
    bool no_check;     /* skip the reference check (bench: its time is not the simulator's) */
    unsigned sanitize; /* dv_san_check mask: run the sanitizer on every launch (0: off) */
} op_spec;

/* The figures of a dv_opjob_result, copied out of it: the result points
 * into its run (memories, statistics, the stop message), which op_exec
 * frees, while regress keeps an outcome per entry. */
typedef struct op_outcome {
    int rc; /* 0, or the exit code of the failure described in msg */
    char msg[256];
    uint64_t cycles;
    double cube_pct, vector_pct;        /* means over the cores used */
    uint64_t path_bytes[DV_PATH_COUNT]; /* sums over the cores */
    uint64_t insns;                     /* instructions executed, every pipe of every core */
    uint64_t macs;                      /* Cube MACs */
    bool checked, passed;
    double host_seconds; /* wall time of the simulation (dv_sim_run) alone */
    size_t san_findings; /* with spec.sanitize: what it found (then rc 1, msg the first) */
    /* The whole job (dv_opjob_result): wall and CPU seconds (every thread)
     * of the fill, the simulation and the check. */
    double fill_seconds, fill_cpu, sim_cpu, check_seconds, check_cpu;
    char reference[128]; /* how the check's reference was computed */
} op_outcome;

/* Runs s; fills o (o->rc != 0 on a bad spec, a fault or a deadlock). */
void op_exec(const op_spec *s, op_outcome *o);

/* "op/variant/dtype/shape/chip[/bN][/nodata]" */
void op_spec_name(const op_spec *s, char *buf, size_t size);

#endif
