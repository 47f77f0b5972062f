/* run_opts.c - dvsim run's options (and dvsim viz's, through the hooks),
 * read with getopt_long, and checked before anything is simulated. */
#include "run_opts.h"

#include "cli.h"
#include "dv_metrics.h"
#include "dv_sanitize.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A guest loop that never ends must not hang the host: 10^9 cycles is 1 s of
 * simulated time at 1 GHz, far beyond any single kernel run here. */
#define DEFAULT_MAX_CYCLES 1000000000ull

void cmd_run_help(FILE *out)
{
    fputs("usage: dvsim run OPERATOR [operator options] [options]\n"
          "       dvsim run KERNEL.elf|KERNEL.dvs [kernel options] [options]\n"
          "\n"
          "Runs an operator (see dvsim ops) or one kernel object and reports cycles, per-pipe busy time,\n"
          "Cube and Vector utilisation, bytes and bandwidth per path, and the roofline bound.  An\n"
          "operator's outputs are checked against its CPU reference.  Options may come before or\n"
          "after the operator or kernel; each value as --opt VALUE or --opt=VALUE.\n"
          "\n"
          "operator options:\n"
          "  --variant V            the kernel variant (default: the operator's first)\n"
          "  --dtype T              the data type (default: the operator's first)\n"
          "  --shape K=V,...        shape parameters, e.g. M=512,N=512,K=1024\n"
          "  --seed S               seed of the random inputs (default 1)\n"
          "  --blocks N             override the tiling's block_dim\n"
          "  --input NAME=FILE      take input tensor NAME from FILE (its exact size)\n"
          "  --dump NAME=FILE       write tensor NAME to FILE after the run\n"
          "\n"
          "kernel options:\n"
          "  --kernel NAME          which kernel of the object (needed if it has several)\n"
          "  --blocks N             launch N blocks (block_dim): block i on core i, in waves when\n"
          "                         there are more blocks than cores (the kernel reads csr blockidx)\n"
          "  --arg NAME=VALUE       a scalar argument: u64 (decimal or 0x hex), s64, or f32 (1.5)\n"
          "  --gm NAME=SPEC         allocate GM for pointer argument NAME:\n"
          "                           zeros:BYTES | @FILE | random:TYPE:COUNT:SEED (TYPE f16, bf16, f32, s8, "
          "s32)\n"
          "                           | uninit:BYTES (never written: --sanitize reports reads of it)\n"
          "  --dump NAME=FILE       write the GM buffer of NAME to FILE after the run\n"
          "  -I, --include DIR      search DIR for a .dvs kernel's .include files (then kernels/lib)\n"
          "\n"
          "options:\n"
          "  --chip NAME            ascend910 (default), ascend910b, ascend310\n"
          "  --config FILE.ini      a chip config file instead (docs/chip-config.md); --set KEY=VALUE\n"
          "  --max-cycles N         stop at cycle N (exit 1); default 10^9, 0 for no limit\n"
          "  --no-data              timing only: skip the arithmetic (and the check)\n"
          "  --threads N            host threads of the functional work (products, copies) and of\n"
          "                           the reference check (default: the host's CPUs; the results,\n"
          "                           statistics and traces are the same for every N)\n"
          "  --json                 print the statistics as one JSON object\n"
          "  --out DIR              write DIR/stats.json and DIR/config.ini\n"
          "  --pmu EV,... [--pmu-period P] [--pmu-ring N]   count (and sample) PMU events\n"
          "  --metrics GROUP,...    print msprof metric groups (also in --json and stats.json)\n"
          "  --sanitize[=CHECKS]    check races, sync, uninitialised reads and GM use in the same run\n"
          "                           (race,sync,init,mem; default all; docs/sanitizer.md): exit 1 if found\n"
          "  --log LEVEL            the simulator's log on stderr (\"dvsim: sim: info: ...\"): error, warn,\n"
          "  --log CAT=LEVEL,...      info, debug or trace, for every category or for some (asm, elf,\n"
          "                           sim, mem, pmu; the others then stay at warn); default: off\n",
          out);
    run_trace_help(out);
    fputs("\n"
          "Exit: 0 the run ended (and the check passed); 1 it faulted, deadlocked, hit the cycle limit\n"
          "or the outputs did not match the reference; 64 usage; 65 bad shape, dtype or input;\n"
          "130 interrupted (Ctrl-C: the run stops at the next event, the outputs and the trace are\n"
          "completed).\n",
          out);
}

enum {
    OPT_VARIANT = CLI_OPT_RUN,
    OPT_DTYPE,
    OPT_SHAPE,
    OPT_SEED,
    OPT_BLOCKS,
    OPT_INPUT,
    OPT_DUMP,
    OPT_KERNEL,
    OPT_ARG,
    OPT_GM,
    OPT_CHIP,
    OPT_CONFIG,
    OPT_SET,
    OPT_MAX_CYCLES,
    OPT_NO_DATA,
    OPT_JSON,
    OPT_OUT,
    OPT_PMU,
    OPT_PMU_PERIOD,
    OPT_PMU_RING,
    OPT_METRICS,
    OPT_LOG,
    OPT_TRACE_OUT,
    OPT_SANITIZE,
    OPT_THREADS,
    OPT_RUN_END /* not an option: the first code past dvsim run's */
};
_Static_assert((int)OPT_RUN_END <= (int)CLI_OPT_TRACE,
               "dvsim run's option codes run into the trace options' (cli.h)");

static const struct option run_options[] = {
    {"variant", required_argument, NULL, OPT_VARIANT},
    {"dtype", required_argument, NULL, OPT_DTYPE},
    {"shape", required_argument, NULL, OPT_SHAPE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"blocks", required_argument, NULL, OPT_BLOCKS},
    {"input", required_argument, NULL, OPT_INPUT},
    {"dump", required_argument, NULL, OPT_DUMP},
    {"kernel", required_argument, NULL, OPT_KERNEL},
    {"arg", required_argument, NULL, OPT_ARG},
    {"gm", required_argument, NULL, OPT_GM},
    {"chip", required_argument, NULL, OPT_CHIP},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"set", required_argument, NULL, OPT_SET},
    {"max-cycles", required_argument, NULL, OPT_MAX_CYCLES},
    {"no-data", no_argument, NULL, OPT_NO_DATA},
    {"json", no_argument, NULL, OPT_JSON},
    {"out", required_argument, NULL, OPT_OUT},
    {"pmu", required_argument, NULL, OPT_PMU},
    {"pmu-period", required_argument, NULL, OPT_PMU_PERIOD},
    {"pmu-ring", required_argument, NULL, OPT_PMU_RING},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"log", required_argument, NULL, OPT_LOG},
    {"trace-out", no_argument, NULL, OPT_TRACE_OUT},
    {"sanitize", optional_argument, NULL, OPT_SANITIZE},
    {"threads", required_argument, NULL, OPT_THREADS},
    RUN_TRACE_OPTIONS,
    {"include", required_argument, NULL, 'I'},
    {"help", no_argument, NULL, 'h'},
};
enum { NRUN_OPTIONS = sizeof run_options / sizeof run_options[0] };

static int add_binding(const char *cmd, const char *opt, char *kv, run_binding *list, int *count)
{
    char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return cli_usage_error(cmd, "%s needs NAME=VALUE, not '%s'", opt, kv);
    *eq = '\0';
    if (*count == RUN_MAX_BINDINGS)
        return cli_usage_error(cmd, "too many %s options", opt);
    list[(*count)++] = (run_binding){kv, eq + 1};
    return 0;
}

static int find_name(const char *name, size_t len, const char *(*name_of)(unsigned), unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (strlen(name_of(i)) == len && strncmp(name_of(i), name, len) == 0)
            return (int)i;
    return -1;
}

static const char *level_name(unsigned i)
{
    return dv_log_level_name((dv_log_level)i);
}

static const char *cat_name(unsigned i)
{
    return dv_log_cat_name((dv_log_cat)i);
}

/* --log LEVEL, --log CAT=LEVEL,... (in order: "info,mem=trace" is every
 * category at info, mem at trace).  Categories not named stay at warn. */
static int parse_log(const char *cmd, const char *spec, run_opts *o)
{
    for (int c = 0; c < DV_LOG_CAT_COUNT; c++)
        o->log_level[c] = DV_LOG_WARN;
    const char *p = spec;
    do {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        const char *lv = eq ? eq + 1 : p;
        size_t lvlen = len - (size_t)(lv - p);
        int cat = eq ? find_name(p, (size_t)(eq - p), cat_name, DV_LOG_CAT_COUNT) : -1;
        int level = find_name(lv, lvlen, level_name, DV_LOG_TRACE + 1);
        if (eq && cat < 0)
            return cli_usage_error(cmd, "--log: unknown category '%.*s' (asm, elf, sim, mem, pmu)",
                                   (int)(eq - p), p);
        if (level < 0)
            return cli_usage_error(cmd, "--log: unknown level '%.*s' (error, warn, info, debug, trace)",
                                   (int)lvlen, lv);
        for (int c = 0; c < DV_LOG_CAT_COUNT; c++)
            if (c == cat || cat < 0)
                o->log_level[c] = (dv_log_level)level;
        p += len;
    } while (*p++ == ',');
    o->log = true;
    return 0;
}

/* The options with a number. */
static int number_option(const char *cmd, run_opts *o, int code, const char *v)
{
    switch (code) {
    case OPT_SEED:
        return cli_parse_u64(v, &o->seed) ? 0 : cli_usage_error(cmd, "--seed needs a number, not '%s'", v);
    case OPT_BLOCKS:
        if (!cli_parse_u64(v, &o->blocks) || o->blocks == 0 || o->blocks > 65535)
            return cli_usage_error(cmd, "--blocks needs a number from 1 to 65535, not '%s'", v);
        return 0;
    case OPT_MAX_CYCLES:
        return cli_parse_u64(v, &o->max_cycles)
                   ? 0
                   : cli_usage_error(cmd, "--max-cycles needs a number, not '%s'", v);
    case OPT_THREADS:
        if (!cli_parse_u64(v, &o->threads) || o->threads == 0 || o->threads > 64)
            return cli_usage_error(cmd, "--threads needs a number from 1 to 64, not '%s'", v);
        return 0;
    case OPT_PMU_PERIOD:
        if (!cli_parse_u64(v, &o->pmu_period) || o->pmu_period == 0)
            return cli_usage_error(cmd, "--pmu-period needs a positive number of cycles, not '%s'", v);
        return 0;
    case OPT_PMU_RING:
        if (!cli_parse_u64(v, &o->pmu_ring) || o->pmu_ring == 0 || o->pmu_ring > 1000000)
            return cli_usage_error(cmd, "--pmu-ring needs 1 to 1000000 records, not '%s'", v);
        return 0;
    default: return -1;
    }
}

static int metrics_option(const char *cmd, run_opts *o, const char *v)
{
    o->metrics = v;
    for (const char *t = v;; t++) { /* GROUP[,GROUP...] */
        size_t n = strcspn(t, ",");
        char one[64];
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), t);
        if (!n || n >= sizeof one || dv_metric_group_find(one) < 0) {
            char list[256] = "";
            for (unsigned g = 0; g < dv_metric_group_count(); g++) {
                strncat(list, g ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, dv_metric_group_name(g), sizeof list - strlen(list) - 1);
            }
            return cli_usage_error(cmd, "--metrics: unknown group '%.*s' (%s)", (int)n, t, list);
        }
        t += n;
        if (!*t)
            return 0;
    }
}

/* --sanitize[=race,sync,init,mem]: every check without a value. */
static int sanitize_option(const char *cmd, run_opts *o, const char *v)
{
    dv_error err = {DV_OK, ""};
    if (dv_san_parse_checks(v, &o->sanitize, &err) != DV_OK)
        return cli_usage_error(cmd, "%s", err.msg);
    return 0;
}

/* One of dvsim run's options (getopt's value code, its value v); -1 if
 * code is not one of them. */
static int run_option(const char *cmd, run_opts *o, int code, char *v)
{
    int rc = number_option(cmd, o, code, v);
    if (rc < 0)
        rc = run_trace_option(cmd, code, v, &o->trace);
    if (rc >= 0)
        return rc;
    switch (code) {
    case OPT_VARIANT: o->variant = v; return 0;
    case OPT_DTYPE: o->dtype = v; return 0;
    case OPT_SHAPE: o->shape = v; return 0;
    case OPT_KERNEL: o->kernel = v; return 0;
    case OPT_CHIP: o->chip = v; return 0;
    case OPT_CONFIG: o->config = v; return 0;
    case OPT_OUT: o->outdir = v; return 0;
    case OPT_PMU: o->pmu = v; return 0;
    case OPT_NO_DATA: o->data = false; return 0;
    case OPT_JSON: o->json = true; return 0;
    case OPT_TRACE_OUT: o->trace_out = true; return 0;
    case OPT_SANITIZE: return sanitize_option(cmd, o, v);
    case OPT_METRICS: return metrics_option(cmd, o, v);
    case OPT_LOG: return parse_log(cmd, v, o);
    case OPT_INPUT: return add_binding(cmd, "--input", v, o->inputs, &o->ninputs);
    case OPT_DUMP: return add_binding(cmd, "--dump", v, o->dumps, &o->ndumps);
    case OPT_ARG: return add_binding(cmd, "--arg", v, o->args, &o->nargs);
    case OPT_GM: return add_binding(cmd, "--gm", v, o->gms, &o->ngms);
    case 'I': return cli_asm_path_add(&o->incs, cmd, v);
    case OPT_SET:
        if (o->nsets == RUN_MAX_BINDINGS)
            return cli_usage_error(cmd, "too many --set options");
        o->sets[o->nsets++] = v;
        return 0;
    default: return -1;
    }
}

/* What the options say together: the command line alone, nothing created. */
static int check_opts(const char *cmd, const run_opts *o)
{
    if (!o->path)
        return cli_usage_error(cmd, "no operator or kernel given (dvsim ops lists the operators)");
    if (o->chip && o->config)
        return cli_usage_error(cmd, "--chip and --config both name a chip; use one");
    if (o->pmu_period && !o->pmu)
        return cli_usage_error(cmd, "--pmu-period needs --pmu EVENT,...");
    if (o->pmu_period && !o->outdir)
        return cli_usage_error(cmd, "--pmu-period writes DIR/pmu.samples.gz: give --out DIR");
    bool traced = o->trace.path || o->trace_out;
    if (!traced && (o->trace.w0 || o->trace.w1 || o->trace.period))
        return cli_usage_error(cmd, "--trace-window and --trace-period need --trace FILE");
    if (o->trace_out && !o->outdir)
        return cli_usage_error(cmd, "--trace-out writes DIR/trace.json.gz: give --out DIR");
    if (o->trace_out && o->trace.path)
        return cli_usage_error(cmd, "--trace FILE and --trace-out both name the trace; use one");
    return 0;
}

/* --trace-out: DIR of --out DIR is made now, for the trace's file. */
static int trace_out(run_opts *o)
{
    if (!o->trace_out)
        return 0;
    if (mkdir(o->outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dvsim: %s: cannot create: %s\n", o->outdir, strerror(errno));
        return 74;
    }
    snprintf(o->trace_path, sizeof o->trace_path, "%s/trace.json.gz", o->outdir);
    o->trace.path = o->trace_path;
    return 0;
}

/* dvsim run's options, then every one of the hooks': one table, so that
 * getopt sees every option (and resolves abbreviations over all of them).
 * NULL if memory ran out. */
static struct option *option_table(const cli_run_hooks *hooks)
{
    size_t nhook = 0;
    for (const struct option *h = hooks ? hooks->options : NULL; h && h->name; h++)
        nhook++;
    struct option *all = malloc((NRUN_OPTIONS + nhook + 1) * sizeof *all);
    if (!all)
        return NULL;
    memcpy(all, run_options, sizeof run_options);
    if (nhook)
        memcpy(all + NRUN_OPTIONS, hooks->options, nhook * sizeof *all);
    all[NRUN_OPTIONS + nhook] = (struct option){NULL, 0, NULL, 0};
    return all;
}

/* The options and the operand, through the table all. */
static int parse_args(int argc, char **argv, const cli_run_hooks *hooks, const struct option *all,
                      run_opts *o)
{
    const char *cmd = o->cmd;
    cli_getopt g;
    cli_getopt_init(&g, cmd, argc, argv, "hI:", all, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        int rc;
        if (c == 'h') {
            (hooks && hooks->help ? hooks->help : cmd_run_help)(stdout);
            return -1;
        } else if (c == CLI_BAD) {
            return EXIT_USAGE;
        } else if (c == CLI_ARG) {
            if (o->path)
                return cli_usage_error(cmd, "one kernel or operator at a time ('%s' and '%s')", o->path,
                                       g.arg);
            o->path = g.arg;
        } else if (c >= CLI_OPT_HOOK && hooks && hooks->option) {
            if ((rc = hooks->option(hooks->user, c, g.arg)) != 0)
                return rc;
        } else if ((rc = run_option(cmd, o, c, g.arg)) != 0) {
            return rc < 0 ? cli_usage_error(cmd, "internal: option %d has no handler", c) : rc;
        }
    }
    return 0;
}

int run_opts_parse(int argc, char **argv, const cli_run_hooks *hooks, run_opts *o)
{
    const char *cmd = hooks ? hooks->cmd : "run";
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->max_cycles = DEFAULT_MAX_CYCLES;
    o->pmu_ring = 4096;
    o->seed = 1;
    o->data = true;
    struct option *all = option_table(hooks);
    if (!all) {
        fprintf(stderr, "dvsim %s: out of memory\n", cmd);
        return 71;
    }
    int rc = parse_args(argc, argv, hooks, all, o);
    free(all);
    if (rc)
        return rc;
    rc = check_opts(cmd, o);
    if (!rc && hooks && hooks->parsed)
        rc = hooks->parsed(hooks->user, o);
    return rc ? rc : trace_out(o);
}
