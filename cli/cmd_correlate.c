/* cmd_correlate.c - dvsim correlate: the model held against measured 910B1
 * curves (calib_910b1.def, from shared/docs/calibration-910b.md).  For every
 * measured point it generates a micro-kernel that does what was measured (one
 * transfer of the size, one mmad of the shape, a stream of one vector
 * instruction), runs it on one core of the chip, and compares what the model
 * gives with what the hardware did: the error of each point, the mean
 * absolute error and the worst point of each curve.  It fails (exit 1) when
 * a bounded curve is outside the bounds (docs/fidelity.md). */
#include "cli.h"
#include "cli_asm.h"
#include "dv_config.h"
#include "dv_sim.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cmd_correlate_help(FILE *out)
{
    fprintf(out,
            "usage: dvsim correlate [--chip NAME | --config FILE] [--set KEY=VALUE]... [--curve NAME]\n"
            "                        [--mae PCT] [--max PCT] [--json]\n\n"
            "Runs a micro-kernel per measured 910B1 point (msKPP's curves, shared/docs/calibration-910b.md)\n"
            "on one core of the chip and prints measured against simulated: the error of each point,\n"
            "the mean absolute error (MAE) and the worst point of each curve.  Exit 1 when a bounded\n"
            "curve's MAE exceeds --mae or one of its points exceeds --max (docs/fidelity.md).\n\n"
            "  --chip NAME      a built-in chip (default ascend910b1, the chip the curves were measured on)\n"
            "  --config FILE    an INI chip config instead\n"
            "  --set KEY=VALUE  change a config key (repeatable)\n"
            "  --curve NAME     only this curve (GM_TO_L1, L1_TO_L0A, ..., as printed)\n"
            "  --mae PCT        bound on a curve's mean absolute error, percent (default 10)\n"
            "  --max PCT        bound on any point's error, percent (default 20)\n"
            "  --json           one JSON object\n");
}

typedef enum calib_kind { XFER_GM_L1, XFER_L1_L0A, XFER_L1_L0B, MMAD, VEC } calib_kind;

typedef enum curve_id {
#define DV_CALIB_CURVE(id, name, kind, operand, shape, bounded, unit) CURVE_##id,
#define DV_CALIB_POINT(id, a, b, c, measured)
#include "calib_910b1.def"
#undef DV_CALIB_CURVE
#undef DV_CALIB_POINT
    CURVE_COUNT
} curve_id;

typedef struct calib_curve {
    const char *name;
    calib_kind kind;
    const char *operand;
    bool shape, bounded;
    const char *unit;
} calib_curve;

static const calib_curve curves[CURVE_COUNT] = {
#define DV_CALIB_CURVE(id, name, kind, operand, shape, bounded, unit)                                        \
    {name, kind, operand, shape, bounded, unit},
#define DV_CALIB_POINT(id, a, b, c, measured)
#include "calib_910b1.def"
#undef DV_CALIB_CURVE
#undef DV_CALIB_POINT
};

typedef struct calib_point {
    curve_id curve;
    unsigned a, b, c;
    double measured;
} calib_point;

static const calib_point points[] = {
#define DV_CALIB_CURVE(id, name, kind, operand, shape, bounded, unit)
#define DV_CALIB_POINT(id, a, b, c, measured) {CURVE_##id, a, b, c, measured},
#include "calib_910b1.def"
#undef DV_CALIB_CURVE
#undef DV_CALIB_POINT
};
enum { NPOINTS = sizeof points / sizeof points[0] };

/* msKPP's conversion: GB/s / 1.8 = bytes per cycle at 1.8 GHz. */
static const double CALIB_GHZ = 1.8;

/* Vector streams: the marginal cost of one instruction is the difference
 * between two stream lengths over the extra instructions, so the first
 * instruction's head and tail (paid once) drop out, as they do in a
 * throughput measurement. */
enum { VEC_SHORT = 8, VEC_LONG = 40 };

/* UB layout of the vector kernels (bytes): three operands of up to 192
 * repeats, offset so that no two operands share a bank group (as
 * kernels/samples/vadd.dvs). */
enum { UB_SRC0 = 0, UB_SRC1 = 49152 + 256, UB_DST = 2 * 49152 + 256 + 768 };

typedef struct vec_op {
    char mnemonic[16], from[8], to[8];
    unsigned src_bytes, dst_bytes; /* element sizes */
    bool binary, conv;
} vec_op;

static unsigned dtype_bytes(const char *t)
{
    return strcmp(t, "f32") == 0 || strcmp(t, "s32") == 0 ? 4
           : strcmp(t, "s8") == 0 || strcmp(t, "u8") == 0 ? 1
                                                          : 2;
}

static bool parse_vec_op(const char *operand, vec_op *v)
{
    memset(v, 0, sizeof *v);
    int n = sscanf(operand, "%15s %7s %7s", v->mnemonic, v->from, v->to);
    if (n < 2)
        return false;
    v->conv = n == 3;
    if (!v->conv)
        strcpy(v->to, v->from);
    v->src_bytes = dtype_bytes(v->from);
    v->dst_bytes = dtype_bytes(v->to);
    v->binary = strcmp(v->mnemonic, "vadd") == 0 || strcmp(v->mnemonic, "vsub") == 0 ||
                strcmp(v->mnemonic, "vmul") == 0 || strcmp(v->mnemonic, "vmax") == 0;
    return true;
}

/* The micro-kernel of a point, with `count` vector instructions (VEC). */
static void kernel_text(const dv_chip_config *cfg, const calib_point *p, unsigned count, char *out,
                        size_t size)
{
    const calib_curve *cv = &curves[p->curve];
    const char *type = !cfg->split ? "coupled" : cv->kind == VEC ? "aiv" : "aic";
    int n = snprintf(out, size, ".kernel calib, type=%s\n.arg src, type=ptr\n    li x6, 0\n", type);
    size_t used = n > 0 ? (size_t)n : 0;
    char *at = out + used;
    size_t left = size - used;
    switch (cv->kind) {
    case XFER_GM_L1:
        snprintf(at, left, "    pack.burst x5, nburst=1, len=%u\n    copy_gm_l1 x6, src, x5\n    end\n",
                 p->a * 32);
        return;
    case XFER_L1_L0A:
    case XFER_L1_L0B:
        snprintf(at, left,
                 "    pack.load2d x5, start=0, repeat=%u, srcstride=1, dstgap=0\n    %s x6, x6, x5, "
                 "dtype=f16\n    end\n",
                 p->a * 2, cv->kind == XFER_L1_L0A ? "load2d_l0a" : "load2d_l0b");
        return;
    case MMAD:
        snprintf(at, left,
                 "    pack.mmad x5, m=%u, k=%u, n=%u\n    mmad x6, x6, x6, x5, dtype=f16, init=1\n    end\n",
                 p->a, p->b, p->c);
        return;
    case VEC: {
        vec_op v;
        parse_vec_op(cv->operand, &v);
        unsigned esize = v.src_bytes > v.dst_bytes ? v.src_bytes : v.dst_bytes;
        unsigned lanes = 256 / esize, repeats = p->a / lanes;
        char insn[128];
        if (v.conv)
            snprintf(insn, sizeof insn, "%s x12, x10, x9, from=%s, to=%s", v.mnemonic, v.from, v.to);
        else if (v.binary)
            snprintf(insn, sizeof insn, "%s x12, x10, x11, x9, dtype=%s", v.mnemonic, v.from);
        else
            snprintf(insn, sizeof insn, "%s x12, x10, x9, dtype=%s", v.mnemonic, v.from);
        snprintf(
            at, left,
            "    set_mask_mode mode=norm\n    li x7, -1\n    set_mask x7, x7\n"
            "    li x10, %d\n    li x11, %d\n    li x12, %d\n"
            "    pack.vrep x9, repeat=%u, dstblk=1, src0blk=1, src1blk=1, dstrep=%u, src0rep=%u, src1rep=%u\n"
            ".rept %u\n    %s\n.endr\n    end\n",
            UB_SRC0, UB_SRC1, UB_DST, repeats, lanes * v.dst_bytes / 32, lanes * v.src_bytes / 32,
            lanes * v.src_bytes / 32, count, insn);
        return;
    }
    }
}

static void point_label(const calib_point *p, char *out, size_t size);

/* Runs one micro-kernel and returns the busy cycles of the pipe it measures
 * (0 with *err set on failure). */
static uint64_t run_kernel(const dv_chip_config *cfg, const calib_point *p, unsigned count, dv_error *err)
{
    char text[2048];
    kernel_text(cfg, p, count, text, sizeof text);
    cli_asm_path path = {{NULL}, 0};
    dv_asm_options opt = cli_asm_options(&path);
    dv_obj *obj = NULL;
    dv_diags diags = {NULL, 0};
    if (dv_asm_string("correlate", text, strlen(text), &opt, &obj, &diags, err) != DV_OK) {
        dv_diags_free(&diags);
        return 0;
    }
    dv_diags_free(&diags);
    uint64_t busy = 0;
    dv_sim *sim = dv_sim_create(cfg, false, err);
    if (sim) {
        const calib_curve *cv = &curves[p->curve];
        uint64_t src = 0;
        dv_run_result res;
        if (dv_sim_load(sim, obj, "calib", err) == DV_OK && dv_sim_set_blocks(sim, 1, err) == DV_OK &&
            dv_gm_alloc(dv_sim_gm(sim), cv->kind == XFER_GM_L1 ? (uint64_t)p->a * 1024 : 64, &src, err) ==
                DV_OK &&
            dv_sim_set_arg(sim, 0, src, err) == DV_OK && dv_sim_run(sim, 100000000, &res, err) == DV_OK) {
            if (res.stop != DV_STOP_DONE) {
                /* the generated kernels are valid: only a config too small for
                 * the measured size (a buffer, a path it lacks) stops one */
                char label[64];
                point_label(p, label, sizeof label);
                dv_error_set(err, DV_ERR_CONFIG, "%s cannot run the %s point %s: %s", cfg->name, cv->name,
                             label, res.message ? res.message : dv_stop_name(res.stop));
            } else {
                dv_pipe pipe = cv->kind == XFER_GM_L1 ? DV_PIPE_MTE2
                               : cv->kind == MMAD     ? DV_PIPE_M
                               : cv->kind == VEC      ? DV_PIPE_V
                                                      : DV_PIPE_MTE1;
                busy = res.stats->pipe[pipe].busy_cycles;
                if (!busy)
                    dv_error_set(err, DV_ERR_INTERNAL, "the %s micro-kernel took no cycles", cv->name);
            }
        }
        dv_sim_destroy(sim);
    }
    dv_obj_destroy(obj);
    return busy;
}

/* What the model gives for a point, in the curve's unit (before any shape
 * normalisation); < 0 with *err set on failure. */
static double simulate(const dv_chip_config *cfg, const calib_point *p, dv_error *err)
{
    const calib_curve *cv = &curves[p->curve];
    if (cv->kind == VEC) {
        uint64_t s = run_kernel(cfg, p, VEC_SHORT, err), l = s ? run_kernel(cfg, p, VEC_LONG, err) : 0;
        if (!s || !l)
            return -1;
        double per = (double)(l - s) / (VEC_LONG - VEC_SHORT);
        return per > 0 ? p->a / per : -1;
    }
    uint64_t cycles = run_kernel(cfg, p, 1, err);
    if (!cycles)
        return -1;
    if (cv->kind == MMAD)
        return 2.0 * p->a * p->b * p->c / (double)cycles;
    return (double)p->a * 1024 / (double)cycles;
}

/* The measured value in the unit compared (transfers: B/cycle). */
static double measured(const calib_point *p)
{
    calib_kind k = curves[p->curve].kind;
    return k == XFER_GM_L1 || k == XFER_L1_L0A || k == XFER_L1_L0B ? p->measured / CALIB_GHZ : p->measured;
}

static void point_label(const calib_point *p, char *out, size_t size)
{
    switch (curves[p->curve].kind) {
    case MMAD: snprintf(out, size, "%ux%ux%u", p->a, p->b, p->c); break;
    case VEC: snprintf(out, size, "%u el", p->a); break;
    default: snprintf(out, size, "%u KB", p->a); break;
    }
}

typedef struct curve_result {
    double mae, worst; /* fractions */
    size_t worst_at;   /* index in points */
    size_t npoints;
    bool ok;
} curve_result;

typedef struct point_result {
    double meas, sim; /* in the compared unit (shape curves: relative to the last point) */
    double error;     /* sim / meas - 1 */
} point_result;

static int parse_pct(const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0) || v > 1000)
        return cli_usage_error("correlate", "%s: '%s' is not a percentage", opt, s);
    *out = v / 100;
    return 0;
}

static cJSON *json_result(const dv_chip_config *cfg, const point_result *pr, const curve_result *cr,
                          double mae_bound, double max_bound, const char *only, bool all_ok, bool *ok)
{
    cJSON *root = cJSON_CreateObject(), *list = cJSON_CreateArray();
    *ok = root && list && cJSON_AddStringToObject(root, "chip", cfg->name) &&
          cJSON_AddStringToObject(root, "measured_on",
                                  "ascend910b1 (msKPP, shared/docs/calibration-910b.md)") &&
          cJSON_AddNumberToObject(root, "mae_bound_pct", mae_bound * 100) &&
          cJSON_AddNumberToObject(root, "point_bound_pct", max_bound * 100) &&
          cJSON_AddItemToObject(root, "curves", list);
    if (!*ok) {
        if (!cJSON_IsArray(cJSON_GetObjectItem(root, "curves")))
            cJSON_Delete(list);
        return root;
    }
    for (int c = 0; *ok && c < CURVE_COUNT; c++) {
        if (only && strcmp(only, curves[c].name) != 0)
            continue;
        cJSON *o = cJSON_CreateObject(), *pts = cJSON_CreateArray();
        *ok = o && pts && cJSON_AddItemToArray(list, o);
        if (!*ok) {
            cJSON_Delete(o);
            cJSON_Delete(pts);
            break;
        }
        char label[64];
        point_label(&points[cr[c].worst_at], label, sizeof label);
        *ok = cJSON_AddStringToObject(o, "name", curves[c].name) &&
              cJSON_AddStringToObject(o, "unit", curves[c].unit) &&
              cJSON_AddBoolToObject(o, "shape", curves[c].shape) &&
              cJSON_AddBoolToObject(o, "bounded", curves[c].bounded) &&
              cJSON_AddNumberToObject(o, "mae_pct", cr[c].mae * 100) &&
              cJSON_AddNumberToObject(o, "worst_pct", cr[c].worst * 100) &&
              cJSON_AddStringToObject(o, "worst_at", label) && cJSON_AddBoolToObject(o, "ok", cr[c].ok);
        if (!*ok || !cJSON_AddItemToObject(o, "points", pts)) {
            cJSON_Delete(pts);
            *ok = false;
            break;
        }
        for (size_t i = 0; *ok && i < NPOINTS; i++) {
            if (points[i].curve != (curve_id)c)
                continue;
            cJSON *q = cJSON_CreateObject();
            *ok = q && cJSON_AddItemToArray(pts, q);
            if (!*ok) {
                cJSON_Delete(q);
                break;
            }
            point_label(&points[i], label, sizeof label);
            *ok = cJSON_AddStringToObject(q, "point", label) &&
                  cJSON_AddNumberToObject(q, "measured", pr[i].meas) &&
                  cJSON_AddNumberToObject(q, "simulated", pr[i].sim) &&
                  cJSON_AddNumberToObject(q, "error_pct", pr[i].error * 100);
        }
    }
    *ok = *ok && cJSON_AddBoolToObject(root, "ok", all_ok);
    return root;
}

static void print_text(const dv_chip_config *cfg, const point_result *pr, const curve_result *cr,
                       double mae_bound, double max_bound, const char *only)
{
    printf("dvsim correlate: %s against Ascend 910B1 measurements (msKPP; shared/docs/calibration-910b.md)\n",
           cfg->name);
    for (int c = 0; c < CURVE_COUNT; c++) {
        if (only && strcmp(only, curves[c].name) != 0)
            continue;
        printf("\n%s (%s%s)\n  %-12s %10s %10s %8s\n", curves[c].name, curves[c].unit,
               curves[c].shape ? ", each point over the curve's last" : "", "point", "measured", "simulated",
               "error");
        for (size_t i = 0; i < NPOINTS; i++) {
            if (points[i].curve != (curve_id)c)
                continue;
            char label[64];
            point_label(&points[i], label, sizeof label);
            printf("  %-12s %10.3f %10.3f %+7.1f%%\n", label, pr[i].meas, pr[i].sim, pr[i].error * 100);
        }
        char label[64];
        point_label(&points[cr[c].worst_at], label, sizeof label);
        printf("  MAE %.1f%%, worst %+.1f%% at %s\n", cr[c].mae * 100, cr[c].worst * 100, label);
    }
    printf("\n%-22s %6s %7s %8s  %s (MAE <= %.0f%%, every point <= %.0f%%)\n", "curve", "points", "MAE",
           "worst", "bound", mae_bound * 100, max_bound * 100);
    for (int c = 0; c < CURVE_COUNT; c++)
        if (!only || strcmp(only, curves[c].name) == 0)
            printf("%-22s %6zu %6.1f%% %+7.1f%%  %s\n", curves[c].name, cr[c].npoints, cr[c].mae * 100,
                   cr[c].worst * 100,
                   !curves[c].bounded ? "shown only"
                   : cr[c].ok         ? "ok"
                                      : "FAILED");
}

int cmd_correlate(int argc, char **argv)
{
    enum { CHIP = CLI_OPT_FIRST, CONFIG, SET, CURVE, MAE, MAX, JSON };
    static const struct option longopts[] = {{"chip", required_argument, NULL, CHIP},
                                             {"config", required_argument, NULL, CONFIG},
                                             {"set", required_argument, NULL, SET},
                                             {"curve", required_argument, NULL, CURVE},
                                             {"mae", required_argument, NULL, MAE},
                                             {"max", required_argument, NULL, MAX},
                                             {"json", no_argument, NULL, JSON},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *chip = NULL, *config = NULL, *only = NULL;
    char **sets = calloc((size_t)argc + 1, sizeof *sets);
    int nsets = 0, rc = 0;
    double mae_bound = 0.10, max_bound = 0.20;
    bool json = false;
    if (!sets) {
        fprintf(stderr, "dvsim: out of memory\n");
        return 70;
    }
    cli_getopt g;
    cli_getopt_init(&g, "correlate", argc, argv, "h", longopts, false);
    for (int c; rc == 0 && (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h':
            cmd_correlate_help(stdout);
            free(sets);
            return 0;
        case CHIP: chip = g.arg; break;
        case CONFIG: config = g.arg; break;
        case SET: sets[nsets++] = g.arg; break;
        case CURVE: only = g.arg; break;
        case MAE: rc = parse_pct("--mae", g.arg, &mae_bound); break;
        case MAX: rc = parse_pct("--max", g.arg, &max_bound); break;
        case JSON: json = true; break;
        case CLI_ARG: rc = cli_usage_error("correlate", "unknown argument '%s'", g.arg); break;
        default: rc = EXIT_USAGE; break;
        }
    }
    if (rc == 0 && chip && config)
        rc = cli_usage_error("correlate", "--chip and --config exclude each other");
    bool known = !only;
    for (int c = 0; !known && c < CURVE_COUNT; c++)
        known = strcmp(only, curves[c].name) == 0;
    if (rc == 0 && !known)
        rc = cli_usage_error("correlate", "--curve %s: no such curve (see dvsim correlate)", only);
    dv_error err = {DV_OK, ""};
    dv_chip_config cfg;
    if (rc == 0 && (config ? dv_config_load_ini(config, &cfg, &err)
                           : dv_config_builtin(chip ? chip : "ascend910b1", &cfg, &err)) != DV_OK)
        rc = cli_fail(&err);
    for (int i = 0; rc == 0 && i < nsets; i++)
        if (dv_config_set_kv(&cfg, sets[i], &err) != DV_OK)
            rc = cli_fail(&err);
    free(sets);
    if (rc)
        return rc;

    point_result pr[NPOINTS];
    curve_result cr[CURVE_COUNT];
    memset(pr, 0, sizeof pr);
    memset(cr, 0, sizeof cr);
    for (size_t i = 0; i < NPOINTS; i++) {
        if (only && strcmp(only, curves[points[i].curve].name) != 0)
            continue;
        pr[i].meas = measured(&points[i]);
        pr[i].sim = simulate(&cfg, &points[i], &err);
        if (pr[i].sim < 0)
            return cli_fail(&err);
    }
    bool all_ok = true;
    for (int c = 0; c < CURVE_COUNT; c++) {
        if (only && strcmp(only, curves[c].name) != 0)
            continue;
        size_t last = 0;
        for (size_t i = 0; i < NPOINTS; i++)
            if (points[i].curve == (curve_id)c)
                last = i;
        double meas_last = pr[last].meas, sim_last = pr[last].sim, sum = 0;
        cr[c].ok = true;
        for (size_t i = 0; i < NPOINTS; i++) {
            if (points[i].curve != (curve_id)c)
                continue;
            if (curves[c].shape) {
                pr[i].meas /= meas_last;
                pr[i].sim /= sim_last;
            }
            pr[i].error = pr[i].sim / pr[i].meas - 1;
            sum += fabs(pr[i].error);
            if (cr[c].npoints++ == 0 || fabs(pr[i].error) > fabs(cr[c].worst)) {
                cr[c].worst = pr[i].error;
                cr[c].worst_at = i;
            }
        }
        /* the last point of a shape curve is 1 against 1 by construction, not a match */
        size_t n = cr[c].npoints - (curves[c].shape && cr[c].npoints > 1 ? 1 : 0);
        cr[c].mae = n ? sum / (double)n : 0;
        cr[c].ok = cr[c].mae <= mae_bound && fabs(cr[c].worst) <= max_bound;
        if (curves[c].bounded && !cr[c].ok)
            all_ok = false;
    }
    if (json) {
        bool ok;
        cJSON *root = json_result(&cfg, pr, cr, mae_bound, max_bound, only, all_ok, &ok);
        rc = cli_print_json(root, ok);
        if (rc)
            return rc;
    } else {
        print_text(&cfg, pr, cr, mae_bound, max_bound, only);
    }
    if (!all_ok && !json)
        fprintf(stderr, "dvsim correlate: %s is outside the bounds on a bounded curve\n", cfg.name);
    return all_ok ? 0 : 1;
}
