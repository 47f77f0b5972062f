/* dv_metrics.c - msprof op metric groups from the event catalogue.  Ratios
 * are busy (or waiting) cycles over the run's cycles; bandwidths are bytes
 * over the run time at the chip clock.  The chip row sums the cores' events
 * and divides by cores x cycles. */
#include "dv_metrics.h"

#include <strings.h>

typedef struct ctx {
    const dv_counter_source *src;
    unsigned first, last; /* cores summed */
    double cycles, cores, seconds;
} ctx;

/* Event e summed over the cores of the row. */
static double ev(const ctx *x, dv_event_id e)
{
    double v = 0;
    for (unsigned c = x->first; c <= x->last; c++)
        v += (double)x->src->read(x->src->user, c, e);
    return v;
}

static void add(dv_metric_row *r, const char *name, const char *unit, double v)
{
    if (r->n < DV_METRIC_MAX) {
        r->name[r->n] = name;
        r->unit[r->n] = unit;
        r->value[r->n++] = v;
    }
}

static double ratio(const ctx *x, double cyc)
{
    return x->cycles > 0 ? cyc / (x->cycles * x->cores) : 0;
}

static double gbps(const ctx *x, double bytes)
{
    return x->seconds > 0 ? bytes / (x->seconds * 1e9) : 0;
}

static void pipe_utilization(const ctx *x, const dv_metric_run *run, dv_metric_row *row)
{
    add(row, "total_cycles", "cycles", x->cycles);
    add(row, "time", "us", (double)run->cycles / run->clock_hz * 1e6);
    add(row, "cube_ratio", "", ratio(x, ev(x, DV_EV_CUBE_BUSY)));
    add(row, "vec_ratio", "", ratio(x, ev(x, DV_EV_VECTOR_BUSY)));
    add(row, "scalar_ratio", "", ratio(x, ev(x, DV_EV_SCALAR_BUSY)));
    add(row, "mte1_ratio", "", ratio(x, ev(x, DV_EV_MTE1_BUSY)));
    add(row, "mte2_ratio", "", ratio(x, ev(x, DV_EV_MTE2_BUSY)));
    add(row, "mte3_ratio", "", ratio(x, ev(x, DV_EV_MTE3_BUSY)));
    add(row, "fixpipe_ratio", "", ratio(x, ev(x, DV_EV_FIXP_BUSY)));
}

/* Each kind of MAC against the peak of its type (cube.k_fp16 and cube.k_int8
 * of the chip: the Cube does twice as many int8 MACs on the built-in chips). */
static void arithmetic_utilization(const ctx *x, const dv_metric_run *run, dv_metric_row *row)
{
    double f16 = ev(x, DV_EV_CUBE_MACS_F16) + ev(x, DV_EV_CUBE_MACS_BF16), i8 = ev(x, DV_EV_CUBE_MACS_INT8);
    double cap16 = run->peak_macs_fp16 * x->cycles * x->cores,
           cap8 = run->peak_macs_int8 * x->cycles * x->cores;
    double r16 = cap16 > 0 ? f16 / cap16 : 0, r8 = cap8 > 0 ? i8 / cap8 : 0;
    add(row, "cube_ratio", "", r16 + r8);
    add(row, "cube_fp16_ratio", "", r16);
    add(row, "cube_int8_ratio", "", r8);
    add(row, "cube_fops", "FLOP", 2 * (f16 + i8));
    add(row, "cube_instructions", "", ev(x, DV_EV_CUBE_INSTRUCTIONS));
    add(row, "vec_ratio", "", ratio(x, ev(x, DV_EV_VECTOR_BUSY)));
    add(row, "vec_16bit_ops", "ops", ev(x, DV_EV_VEC_OPS_16));
    add(row, "vec_32bit_ops", "ops", ev(x, DV_EV_VEC_OPS_32));
    add(row, "vec_fops", "ops", ev(x, DV_EV_VEC_OPS_16) + ev(x, DV_EV_VEC_OPS_32) + ev(x, DV_EV_VEC_OPS_8));
}

static void memory(const ctx *x, const dv_metric_run *run, dv_metric_row *row)
{
    (void)run;
    double gm_in = ev(x, DV_EV_PATH_GM_TO_L1) + ev(x, DV_EV_PATH_GM_TO_UB);
    double gm_out = ev(x, DV_EV_PATH_UB_TO_GM) + ev(x, DV_EV_PATH_L0C_TO_GM);
    add(row, "main_mem_read_bw", "GB/s", gbps(x, gm_in));
    add(row, "main_mem_write_bw", "GB/s", gbps(x, gm_out));
    add(row, "gm_to_ub_bw", "GB/s", gbps(x, ev(x, DV_EV_PATH_GM_TO_UB)));
    add(row, "ub_to_gm_bw", "GB/s", gbps(x, ev(x, DV_EV_PATH_UB_TO_GM)));
    add(row, "gm_to_l1_datas", "KB", ev(x, DV_EV_PATH_GM_TO_L1) / 1024);
    add(row, "gm_to_ub_datas", "KB", ev(x, DV_EV_PATH_GM_TO_UB) / 1024);
    add(row, "ub_to_gm_datas", "KB", ev(x, DV_EV_PATH_UB_TO_GM) / 1024);
    add(row, "l0c_to_gm_datas", "KB", ev(x, DV_EV_PATH_L0C_TO_GM) / 1024);
    add(row, "l0c_to_l1_datas", "KB", ev(x, DV_EV_PATH_L0C_TO_L1) / 1024);
    add(row, "mte1_instructions", "", ev(x, DV_EV_MTE1_INSTRUCTIONS));
    add(row, "mte2_instructions", "", ev(x, DV_EV_MTE2_INSTRUCTIONS));
    add(row, "mte3_instructions", "", ev(x, DV_EV_MTE3_INSTRUCTIONS));
}

static void memory_l0(const ctx *x, const dv_metric_run *run, dv_metric_row *row)
{
    (void)run;
    add(row, "l0a_read_bw", "GB/s", gbps(x, ev(x, DV_EV_L0A_READ)));
    add(row, "l0a_write_bw", "GB/s", gbps(x, ev(x, DV_EV_L0A_WRITE)));
    add(row, "l0b_read_bw", "GB/s", gbps(x, ev(x, DV_EV_L0B_READ)));
    add(row, "l0b_write_bw", "GB/s", gbps(x, ev(x, DV_EV_L0B_WRITE)));
    add(row, "l0c_read_bw_cube", "GB/s", gbps(x, ev(x, DV_EV_L0C_READ)));
    add(row, "l0c_write_bw_cube", "GB/s", gbps(x, ev(x, DV_EV_L0C_WRITE)));
}

static void memory_ub(const ctx *x, const dv_metric_run *run, dv_metric_row *row)
{
    (void)run;
    add(row, "ub_read_bw", "GB/s", gbps(x, ev(x, DV_EV_UB_READ)));
    add(row, "ub_write_bw", "GB/s", gbps(x, ev(x, DV_EV_UB_WRITE)));
}

/* Conflicts per Vector busy cycle; waits and full queues per cycle. */
static void resource_conflict_ratio(const ctx *x, const dv_metric_run *run, dv_metric_row *row)
{
    (void)run;
    double vbusy = ev(x, DV_EV_VECTOR_BUSY);
    double bank = ev(x, DV_EV_UB_BANK_CONFLICT), group = ev(x, DV_EV_UB_BANKGROUP_CONFLICT);
    double full = 0;
    static const dv_event_id queue_full[] = {
#define DV_PIPE_ROW(id, evname, asm_name, lane, key, busy) DV_EV_##evname##_QUEUE_FULL,
#include "pipes.def"
#undef DV_PIPE_ROW
    };
    for (unsigned i = 0; i < sizeof queue_full / sizeof queue_full[0]; i++)
        full += ev(x, queue_full[i]);
    add(row, "cube_wait_ratio", "", ratio(x, ev(x, DV_EV_CUBE_WAIT)));
    add(row, "vec_wait_ratio", "", ratio(x, ev(x, DV_EV_VECTOR_WAIT)));
    add(row, "vec_bankgroup_cflt_ratio", "", vbusy > 0 ? group / vbusy : 0);
    add(row, "vec_bank_cflt_ratio", "", vbusy > 0 ? bank / vbusy : 0);
    add(row, "vec_total_cflt_ratio", "", vbusy > 0 ? (bank + group) / vbusy : 0);
    add(row, "mte1_wait_ratio", "", ratio(x, ev(x, DV_EV_MTE1_WAIT)));
    add(row, "mte2_wait_ratio", "", ratio(x, ev(x, DV_EV_MTE2_WAIT)));
    add(row, "mte3_wait_ratio", "", ratio(x, ev(x, DV_EV_MTE3_WAIT)));
    add(row, "iq_full_ratio", "", ratio(x, full));
}

static void l2_cache(const ctx *x, const dv_metric_run *run, dv_metric_row *row)
{
    (void)run;
    double rh = ev(x, DV_EV_L2_READ_HIT), rm = ev(x, DV_EV_L2_READ_MISS);
    double wh = ev(x, DV_EV_L2_WRITE_HIT), wm = ev(x, DV_EV_L2_WRITE_MISS);
    add(row, "read_cache_hit", "lines", rh);
    add(row, "read_cache_miss_allocate", "lines", rm);
    add(row, "write_cache_hit", "lines", wh);
    add(row, "write_cache_miss_allocate", "lines", wm);
    add(row, "hit_rate", "", rh + rm + wh + wm > 0 ? (rh + wh) / (rh + rm + wh + wm) : 0);
}

/* The groups, in msprof's order (--aic-metrics names). */
static const struct {
    const char *name;
    void (*compute)(const ctx *x, const dv_metric_run *run, dv_metric_row *row);
} groups[] = {
    {"PipeUtilization", pipe_utilization},
    {"ArithmeticUtilization", arithmetic_utilization},
    {"Memory", memory},
    {"MemoryL0", memory_l0},
    {"MemoryUB", memory_ub},
    {"ResourceConflictRatio", resource_conflict_ratio},
    {"L2Cache", l2_cache},
};
enum { NGROUPS = sizeof groups / sizeof groups[0] };

unsigned dv_metric_group_count(void)
{
    return NGROUPS;
}

const char *dv_metric_group_name(unsigned g)
{
    return g < NGROUPS ? groups[g].name : NULL;
}

int dv_metric_group_find(const char *name)
{
    for (unsigned g = 0; g < NGROUPS; g++)
        if (strcasecmp(groups[g].name, name) == 0)
            return (int)g;
    return -1;
}

void dv_metrics_compute(const dv_counter_source *src, const dv_metric_run *run, unsigned g, unsigned c,
                        dv_metric_row *row)
{
    row->n = 0;
    if (c == DV_METRIC_CHIP && run->ncores == 0)
        return; /* no cores, no row */
    ctx x = {src, c, c, (double)run->cycles, 1, (double)run->cycles / run->clock_hz};
    if (c == DV_METRIC_CHIP) {
        x.first = 0;
        x.last = run->ncores - 1;
        x.cores = run->ncores;
    }
    groups[g < NGROUPS ? g : NGROUPS - 1].compute(&x, run, row);
}
