/* cmd_sweep.c - dvsim sweep: a design-space sweep from a spec file
 * (sweep_spec.h) run by a backend (a local pool, GNU parallel, a Slurm job
 * array) into one folder per job, merged into results.csv and results.json
 * (sweep_run.h; docs/sweeps.md). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli.h"
#include "dv_config.h"
#include "dv_file.h"
#include "dv_num.h"
#include "dv_text.h"
#include "sweep_backend.h"
#include "sweep_run.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cmd_sweep_help(FILE *out)
{
    fputs("usage: dvsim sweep SPEC.ini|SPEC.json [--out DIR] [backend] [options]\n"
          "       dvsim sweep --merge DIR\n"
          "       dvsim sweep --task DIR (--job ID | --slice I/N) [--local N]   (a backend's worker)\n"
          "\n"
          "Expands the spec (workloads x chips x axes over config keys, shapes, kernel arguments and\n"
          "run options; docs/sweeps.md) into jobs, each a dvsim run named by the hash of its command\n"
          "line, runs those not finished yet into DIR/jobs/HASH/ (stats.json, config.ini, status.json)\n"
          "and merges them into DIR/results.csv and DIR/results.json: one row per job, its axes and\n"
          "the spec's metrics.  A failed job is recorded with its exit code and message; the others go\n"
          "on.  Rerun the same command to finish an interrupted sweep: finished jobs are skipped.\n"
          "\n"
          "backends (one; default --local with a worker per CPU):\n"
          "  --local N              N jobs at a time on this machine (child processes)\n"
          "  --parallel[=N]         through GNU parallel (N jobs at a time; DIR/parallel.joblog)\n"
          "  --slurm[=TASKS]        write DIR/slurm/sweep.sbatch, a job array of TASKS tasks (default:\n"
          "                         up to 64) each running its slice, and submit it with sbatch; then\n"
          "                         'dvsim sweep --merge DIR' when the array has ended\n"
          "  --slurm-dry-run        write the script, do not submit it\n"
          "  --slurm-wait           submit with sbatch --wait and merge when the array ends\n"
          "  --slurm-opt OPT        an #SBATCH line of the script (--partition=x, --time=10), repeatable\n"
          "\n"
          "options:\n"
          "  --out DIR              the sweep's folder (default: SPEC's name without its extension, .sweep)\n"
          "  --retry-failed         run the failed jobs again too\n"
          "  --list                 print the jobs (id, hash, command line) and run nothing\n"
          "  --quiet                no progress line and no summary\n"
          "\n"
          "Exit: 0 every job passed; 1 some failed or did not finish (see results.csv); 64 usage;\n"
          "65 a bad spec; 66 a missing spec, kernel or sweep folder; 69 GNU parallel or sbatch missing\n"
          "or failing; 74 I/O; 78 an unknown chip or config key, a value out of its bounds.\n",
          out);
}

enum {
    OPT_OUT = CLI_OPT_FIRST,
    OPT_LOCAL,
    OPT_PARALLEL,
    OPT_SLURM,
    OPT_SLURM_DRY,
    OPT_SLURM_WAIT,
    OPT_SLURM_OPT,
    OPT_MERGE,
    OPT_TASK,
    OPT_JOB,
    OPT_SLICE,
    OPT_RETRY,
    OPT_LIST,
    OPT_QUIET
};

typedef struct sweep_opts {
    const char *spec, *out, *merge, *task;
    sweep_backend backend;
    uint64_t workers, tasks, job, slice_i, slice_n;
    bool have_job, have_slice, retry, list, quiet;
    sweep_slurm slurm;
} sweep_opts;

static int count_option(const char *opt, const char *v, uint64_t max, uint64_t *out)
{
    if (!cli_parse_u64(v, out) || *out < 1 || *out > max)
        return cli_usage_error("sweep", "%s needs a number from 1 to %llu, not '%s'", opt,
                               (unsigned long long)max, DV_ESC(v));
    return 0;
}

static int set_backend(sweep_opts *o, sweep_backend b)
{
    if (o->backend != SWEEP_LOCAL_DEFAULT && o->backend != b)
        return cli_usage_error("sweep", "one backend at a time (--local, --parallel, --slurm)");
    o->backend = b;
    return 0;
}

static int parse(int argc, char **argv, sweep_opts *o)
{
    static const struct option longopts[] = {{"out", required_argument, NULL, OPT_OUT},
                                             {"local", required_argument, NULL, OPT_LOCAL},
                                             {"parallel", optional_argument, NULL, OPT_PARALLEL},
                                             {"slurm", optional_argument, NULL, OPT_SLURM},
                                             {"slurm-dry-run", no_argument, NULL, OPT_SLURM_DRY},
                                             {"slurm-wait", no_argument, NULL, OPT_SLURM_WAIT},
                                             {"slurm-opt", required_argument, NULL, OPT_SLURM_OPT},
                                             {"merge", required_argument, NULL, OPT_MERGE},
                                             {"task", required_argument, NULL, OPT_TASK},
                                             {"job", required_argument, NULL, OPT_JOB},
                                             {"slice", required_argument, NULL, OPT_SLICE},
                                             {"retry-failed", no_argument, NULL, OPT_RETRY},
                                             {"list", no_argument, NULL, OPT_LIST},
                                             {"quiet", no_argument, NULL, OPT_QUIET},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    memset(o, 0, sizeof *o);
    o->workers = cpus > 0 ? (uint64_t)cpus : 1;
    cli_getopt g;
    cli_getopt_init(&g, "sweep", argc, argv, "h", longopts, false);
    int rc = 0;
    for (int c; !rc && (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_sweep_help(stdout); return -1;
        case OPT_OUT: o->out = g.arg; break;
        case OPT_LOCAL:
            rc = set_backend(o, SWEEP_LOCAL);
            if (!rc)
                rc = count_option("--local", g.arg, 1024, &o->workers);
            break;
        case OPT_PARALLEL:
            rc = set_backend(o, SWEEP_PARALLEL);
            if (!rc && g.arg)
                rc = count_option("--parallel", g.arg, 1024, &o->workers);
            break;
        case OPT_SLURM:
            rc = set_backend(o, SWEEP_SLURM);
            if (!rc && g.arg)
                rc = count_option("--slurm", g.arg, 1000, &o->tasks);
            break;
        case OPT_SLURM_DRY:
            rc = set_backend(o, SWEEP_SLURM);
            o->slurm.dry_run = true;
            break;
        case OPT_SLURM_WAIT:
            rc = set_backend(o, SWEEP_SLURM);
            o->slurm.wait = true;
            break;
        case OPT_SLURM_OPT:
            if (o->slurm.nopts == SWEEP_SLURM_MAX_OPTS)
                return cli_usage_error("sweep", "at most %d --slurm-opt", SWEEP_SLURM_MAX_OPTS);
            if (strchr(g.arg, '\n') || !dv_is_printable(g.arg))
                return cli_usage_error("sweep", "--slurm-opt: '%s' is not one printable line", DV_ESC(g.arg));
            o->slurm.opts[o->slurm.nopts++] = g.arg;
            break;
        case OPT_MERGE: o->merge = g.arg; break;
        case OPT_TASK: o->task = g.arg; break;
        case OPT_JOB:
            rc = cli_parse_u64(g.arg, &o->job)
                     ? 0
                     : cli_usage_error("sweep", "--job needs a job id, not '%s'", DV_ESC(g.arg));
            o->have_job = true;
            break;
        case OPT_SLICE: {
            char *slash = strchr(g.arg, '/');
            if (!slash || (*slash = '\0', !cli_parse_u64(g.arg, &o->slice_i)) ||
                !cli_parse_u64(slash + 1, &o->slice_n) || o->slice_n == 0 || o->slice_i >= o->slice_n)
                return cli_usage_error("sweep", "--slice needs I/N with I < N");
            o->have_slice = true;
            break;
        }
        case OPT_RETRY: o->retry = true; break;
        case OPT_LIST: o->list = true; break;
        case OPT_QUIET: o->quiet = true; break;
        case CLI_ARG:
            if (o->spec)
                return cli_usage_error("sweep", "one spec at a time ('%s' and '%s')", DV_ESC(o->spec),
                                       DV_ESC(g.arg));
            o->spec = g.arg;
            break;
        default: return EXIT_USAGE;
        }
    }
    if (rc)
        return rc;
    int modes = !!o->spec + !!o->merge + !!o->task;
    if (modes != 1)
        return cli_usage_error("sweep", modes ? "give one of SPEC, --merge DIR and --task DIR"
                                              : "no spec given (dvsim sweep SPEC.ini)");
    if (o->task && o->have_job == o->have_slice)
        return cli_usage_error("sweep", "--task DIR needs one of --job ID and --slice I/N");
    if (!o->task && (o->have_job || o->have_slice))
        return cli_usage_error("sweep", "--job and --slice are for --task DIR");
    if ((o->merge || o->task) &&
        (o->out || o->list || (o->backend != SWEEP_LOCAL_DEFAULT && o->backend != SWEEP_LOCAL)))
        return cli_usage_error("sweep",
                               "--merge and --task take a sweep folder: no --out, --list or backend");
    return 0;
}

/* A path of the spec (a kernel, a chip's .ini) made absolute against the
 * spec's folder: the jobs run elsewhere (a Slurm node's working folder). */
static int resolve(const char *specdir, char **path, const char *what)
{
    char joined[PATH_MAX + 8], real[PATH_MAX];
    if ((*path)[0] == '/')
        snprintf(joined, sizeof joined, "%s", *path);
    else
        snprintf(joined, sizeof joined, "%s/%s", specdir, *path);
    if (!realpath(joined, real)) {
        fprintf(stderr, "dvsim sweep: %s: %s: cannot open: %s\n", what, DV_ESC(joined), strerror(errno));
        return 66;
    }
    char *d = strdup(real);
    if (!d)
        return cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory"});
    free(*path);
    *path = d;
    return 0;
}

static bool is_ini(const char *chip)
{
    size_t n = strlen(chip);
    return strchr(chip, '/') || (n > 4 && !strcmp(chip + n - 4, ".ini"));
}

/* What needs the files and the chips: the kernels and chip files exist, the
 * chips are known, every fixed --set and every value of a config-key axis
 * is within its key's bounds on every chip, seeds and blocks are numbers. */
static int check_spec(sweep_spec *s, const char *specpath)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", specpath);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    int rc;
    for (size_t i = 0; i < s->nworkloads; i++) {
        char what[128];
        snprintf(what, sizeof what, "workload %s: kernel", s->workloads[i].name);
        if (s->workloads[i].kernel && (rc = resolve(dir, &s->workloads[i].kernel, what)) != 0)
            return rc;
    }
    dv_error err = {DV_OK, ""};
    for (size_t c = 0; c < s->chips.count; c++) {
        if (is_ini(s->chips.items[c]) && (rc = resolve(dir, &s->chips.items[c], "chip")) != 0)
            return rc;
        dv_chip_config cfg;
        const char *chip = s->chips.items[c];
        if (is_ini(chip) ? dv_config_load_ini(chip, &cfg, &err) != DV_OK
                         : dv_config_builtin(chip, &cfg, &err) != DV_OK)
            return cli_fail(&err);
        for (size_t i = 0; i < s->sets.count; i++)
            if (dv_config_set_kv(&cfg, s->sets.items[i], &err) != DV_OK) {
                fprintf(stderr, "dvsim sweep: set %s on %s: %s\n", DV_ESC(s->sets.items[i]), DV_ESC(chip),
                        err.msg);
                return 78;
            }
        for (size_t a = 0; a < s->naxes; a++) {
            const sweep_axis *x = &s->axes[a];
            for (size_t v = 0; v < x->values.count; v++) {
                uint64_t n;
                if (x->kind == SWEEP_AXIS_OPTION &&
                    (!strcmp(x->target, "seed") || !strcmp(x->target, "blocks")) &&
                    !dv_parse_u64(x->values.items[v], &n)) {
                    fprintf(stderr, "dvsim sweep: axis %s: '%s' is not a number\n", x->name,
                            DV_ESC(x->values.items[v]));
                    return 65;
                }
                if (x->kind != SWEEP_AXIS_KEY)
                    continue;
                dv_chip_config one = cfg;
                char kv[2 * SWEEP_MAX_STR + 2];
                snprintf(kv, sizeof kv, "%s=%s", x->target, x->values.items[v]);
                if (dv_config_set_kv(&one, kv, &err) != DV_OK) {
                    fprintf(stderr, "dvsim sweep: axis %s on %s: %s\n", x->name, DV_ESC(chip), err.msg);
                    return 78;
                }
            }
        }
    }
    return 0;
}

/* DIR of --out, or SPEC's name with .sweep; made, and made absolute. */
static int out_dir(const sweep_opts *o, char *buf, size_t size)
{
    char d[PATH_MAX];
    if (o->out) {
        snprintf(d, sizeof d, "%s", o->out);
    } else {
        const char *base = strrchr(o->spec, '/') ? strrchr(o->spec, '/') + 1 : o->spec;
        const char *dot = strrchr(base, '.');
        snprintf(d, sizeof d, "%.*s.sweep", (int)(dot && dot != base ? (size_t)(dot - base) : strlen(base)),
                 base);
    }
    if (mkdir(d, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dvsim sweep: %s: cannot create: %s\n", DV_ESC(d), strerror(errno));
        return 74;
    }
    char real[PATH_MAX];
    if (!realpath(d, real)) {
        fprintf(stderr, "dvsim sweep: %s: %s\n", DV_ESC(d), strerror(errno));
        return 74;
    }
    if (strlen(real) >= size) {
        fprintf(stderr, "dvsim sweep: %s: a path longer than %zu characters\n", DV_ESC(real), size - 1);
        return 74;
    }
    memcpy(buf, real, strlen(real) + 1);
    return 0;
}

/* The spec read, checked, expanded and written as DIR/sweep.json; then c
 * holds DIR/sweep.json read back (what the workers will expand). */
static int open_spec(const sweep_opts *o, sweep_ctx *c)
{
    dv_error err = {DV_OK, ""};
    char *text;
    size_t len;
    memset(c, 0, sizeof *c);
    if (dv_read_file(o->spec, &text, &len, &err) != DV_OK)
        return cli_fail(&err);
    dv_status st = sweep_spec_parse(text, len, o->spec, &c->spec, &err);
    free(text);
    int rc = st == DV_OK ? check_spec(&c->spec, o->spec) : cli_fail(&err);
    if (!rc)
        rc = out_dir(o, c->dir, sizeof c->dir);
    if (!rc)
        rc = sweep_prepare(c);
    sweep_spec_free(&c->spec);
    char dir[sizeof c->dir];
    snprintf(dir, sizeof dir, "%s", c->dir);
    return rc ? rc : sweep_load(dir, c);
}

static int list_jobs(const sweep_ctx *c)
{
    for (size_t i = 0; i < c->jobs.count; i++) {
        const sweep_job *j = &c->jobs.jobs[i];
        char **argv;
        int argc;
        dv_error err = {DV_OK, ""};
        if (sweep_job_argv(&c->spec, j, &argv, &argc, &err) != DV_OK)
            return cli_fail(&err);
        if (j->primary != j->id)
            printf("%zu %s (repeats job %zu) dvsim", j->id, j->hash, j->primary);
        else
            printf("%zu %s dvsim", j->id, j->hash);
        for (int a = 0; a < argc; a++)
            printf(" %s", argv[a]);
        printf("\n");
        sweep_argv_free(argv);
    }
    return 0;
}

/* The progress line: when stderr is a terminal, or DVSIM_PROGRESS is set (as dvsim run's; the tests). */
static bool progress_on(void)
{
    return isatty(2) || getenv("DVSIM_PROGRESS");
}

/* --task DIR --job ID | --slice I/N: a worker of --parallel or --slurm. */
static int run_task(const sweep_opts *o)
{
    sweep_ctx c;
    int rc = sweep_load(o->task, &c);
    if (rc) {
        sweep_ctx_free(&c);
        return rc;
    }
    c.retry_failed = o->retry;
    size_t *ids = malloc((c.jobs.count ? c.jobs.count : 1) * sizeof *ids), n = 0;
    if (!ids) {
        sweep_ctx_free(&c);
        return cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory"});
    }
    if (o->have_job && o->job >= c.jobs.count) {
        rc = cli_usage_error("sweep", "--job %llu: the sweep has %zu jobs", (unsigned long long)o->job,
                             c.jobs.count);
    } else if (o->have_job) {
        ids[n++] = (size_t)o->job;
    } else {
        size_t k = 0; /* the primaries dealt round the slices */
        for (size_t i = 0; i < c.jobs.count; i++)
            if (c.jobs.jobs[i].primary == i && k++ % o->slice_n == o->slice_i)
                ids[n++] = i;
    }
    sweep_tally t;
    if (!rc)
        rc = sweep_run_jobs(&c, ids, n, (unsigned)o->workers, false, &t);
    if (!rc && !o->quiet && o->have_slice)
        fprintf(
            stderr,
            "dvsim sweep: slice %llu/%llu: %zu jobs, %zu finished before, %zu run (%zu failed) in %.2f s\n",
            (unsigned long long)o->slice_i, (unsigned long long)o->slice_n, t.total, t.skipped, t.ran,
            t.failed, t.seconds);
    free(ids);
    sweep_ctx_free(&c);
    /* a failed job is in its status: the task itself went well */
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    sweep_opts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.task)
        return run_task(&o);
    sweep_ctx c;
    if (o.merge) {
        rc = sweep_load(o.merge, &c);
        if (!rc)
            rc = sweep_merge(&c, o.quiet);
        sweep_ctx_free(&c);
        return rc;
    }
    rc = open_spec(&o, &c);
    if (!rc && o.list) {
        rc = list_jobs(&c);
    } else if (!rc) {
        c.retry_failed = o.retry;
        sweep_tally t = {0};
        rc = sweep_backend_run(&c, o.backend, (unsigned)o.workers, (unsigned)o.tasks, &o.slurm,
                               !o.quiet && progress_on(), &t);
        if (!rc && !(o.backend == SWEEP_SLURM && !o.slurm.wait)) {
            size_t runs = 0; /* the jobs that are not repeats of another */
            for (size_t i = 0; i < c.jobs.count; i++)
                runs += c.jobs.jobs[i].primary == i;
            char distinct[64] = "";
            if (runs != c.jobs.count)
                snprintf(distinct, sizeof distinct, " (%zu distinct runs)", runs);
            if (!o.quiet)
                fprintf(stderr,
                        "dvsim sweep: %zu jobs%s: %zu finished before, %zu run (%zu failed) in %.2f s (%.1f "
                        "jobs/s); %s/results.csv\n",
                        c.jobs.count, distinct, t.skipped, t.ran, t.failed, t.seconds,
                        t.seconds > 0 ? (double)t.ran / t.seconds : 0.0, c.dir);
            rc = sweep_merge(&c, o.quiet);
        } else if (rc > 128 && rc < 160) {
            sweep_merge(&c, true); /* what finished, for a look before the rerun */
            fprintf(
                stderr,
                "dvsim sweep: stopped by signal %d: %zu jobs run, %zu not finished; run it again to finish\n",
                rc - 128, t.ran, t.stopped);
        }
    }
    sweep_ctx_free(&c);
    return rc;
}
