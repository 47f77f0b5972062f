/* cmd_run.c - dvsim run: simulate a kernel object (or .dvs source) on one
 * core of a chip and report where the cycles went. */
#include "cli.h"
#include "dv_asm.h"
#include "dv_file.h"
#include "dv_fp.h"
#include "dv_num.h"
#include "dv_opjob.h"
#include "dv_sim_perf.h"
#include "dv_stats.h"
#include "dv_text.h"
#include "gm_spec.h"
#include "refgemm.h"
#include "run_opts.h"
#include "run_progress.h"
#include "run_report.h"
#include "run_sanitize.h"
#include "run_trace.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* A scalar argument by its declared type: u64 (decimal or 0x hex), s64
 * (may be negative), f32 (a float, passed as its bits).  Numbers are
 * dv_num.h's; a float is strtof's, without the space it would skip. */
static bool parse_arg(dv_arg_type type, const char *s, uint64_t *v)
{
    if (type == DV_ARG_S64) {
        int64_t x;
        if (!dv_parse_s64(s, &x))
            return false;
        *v = (uint64_t)x;
        return true;
    }
    if (type == DV_ARG_F32) {
        char *end;
        errno = 0;
        float f = strtof(s, &end);
        *v = dv_f32_bits(f);
        return !errno && end != s && !*end && !isspace((unsigned char)*s);
    }
    return cli_parse_u64(s, v);
}

/* Fills a new GM buffer from spec (gm_spec.h); returns its address. */
static int make_buffer(const char *cmd, dv_sim *sim, const run_binding *b, uint64_t *addr, uint64_t *len)
{
    dv_error err = {DV_OK, ""};
    uint8_t *bytes = NULL;
    gm_spec gs;
    char why[256];
    if (!gm_spec_parse(b->spec, &gs, why, sizeof why))
        return cli_usage_error(cmd, "--gm %s: %s", DV_ESC(b->name), why);
    uint64_t n = gs.bytes;
    if (gs.kind == GM_SPEC_FILE) {
        char *text;
        size_t flen;
        if (dv_read_file(gs.path, &text, &flen, &err) != DV_OK)
            return cli_fail(&err); /* 66 when it cannot be opened or is a directory */
        bytes = (uint8_t *)text;
        n = flen;
        if (n == 0) {
            free(bytes);
            fprintf(stderr, "dvsim: %s is empty\n", gs.path);
            return 65;
        }
    }
    /* GM first: its capacity check comes before any large host-side fill. */
    if (dv_gm_alloc(dv_sim_gm(sim), n, addr, &err) != DV_OK) {
        free(bytes);
        return cli_fail(&err);
    }
    dv_access_fault f;
    uint8_t *dst = dv_gm_span(dv_sim_gm(sim), *addr, n, &f);
    if (gs.kind == GM_SPEC_UNINIT) {
        memset(dst, 0xcd, (size_t)n); /* not zeros: a kernel that reads it gets garbage, as on hardware */
    } else if (bytes) {
        memcpy(dst, bytes, (size_t)n);
        free(bytes);
    } else if (gs.kind == GM_SPEC_RANDOM) {
        gm_spec_fill_random(&gs, dst);
    }
    *len = n;
    return 0;
}

static int load_object(const char *path, cli_asm_path *incs, dv_obj **obj)
{
    dv_error err = {DV_OK, ""};
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".dvs") == 0) {
        dv_diags diags = {NULL, 0};
        dv_asm_options opt = cli_asm_options(incs);
        dv_status st = dv_asm_file(path, &opt, obj, &diags, &err);
        if (st != DV_OK) {
            for (size_t i = 0; i < diags.count; i++)
                fprintf(stderr, "%s\n", diags.lines[i]);
            if (!diags.count)
                fprintf(stderr, "dvsim: %s\n", err.msg);
            dv_diags_free(&diags);
            return dv_status_exit_code(st);
        }
        return 0;
    }
    return dv_obj_load(path, obj, &err) == DV_OK ? 0 : cli_fail(&err);
}

/* A kernel object run: load it, bind --arg and --gm to its arguments. */
static int setup_kernel(run_opts *o, dv_sim *sim, dv_obj **obj, uint64_t *addr, uint64_t *len)
{
    dv_error err = {DV_OK, ""};
    if (o->variant || o->dtype || o->shape || o->ninputs)
        return cli_usage_error(o->cmd, "--variant, --dtype, --shape and --input are for operators, not %s",
                               o->path);
    int rc = load_object(o->path, &o->incs, obj);
    if (rc)
        return rc;
    if (dv_sim_load(sim, *obj, o->kernel, &err) != DV_OK ||
        dv_sim_set_blocks(sim, o->blocks ? o->blocks : 1, &err) != DV_OK)
        return cli_fail(&err);
    const dv_obj_kernel *k = dv_sim_kernel(sim);
    bool bound[DV_MAX_KERNEL_ARGS] = {false};
    for (int pass = 0; pass < 2; pass++) {
        run_binding *list = pass ? o->gms : o->args;
        for (int i = 0; i < (pass ? o->ngms : o->nargs); i++) {
            unsigned a;
            for (a = 0; a < k->nargs && strcmp(k->args[a].name, list[i].name) != 0; a++)
                ;
            if (a == k->nargs)
                return cli_usage_error(o->cmd, "kernel %s has no argument '%s'", k->name,
                                       DV_ESC(list[i].name));
            if ((k->args[a].type == DV_ARG_PTR) != (pass == 1))
                return cli_usage_error(o->cmd, "argument '%s' is %s: give it with %s", list[i].name,
                                       k->args[a].type == DV_ARG_PTR ? "a GM pointer" : "a scalar",
                                       k->args[a].type == DV_ARG_PTR ? "--gm" : "--arg");
            uint64_t v;
            if (pass == 0) {
                if (!parse_arg(k->args[a].type, list[i].spec, &v))
                    return cli_usage_error(o->cmd, "--arg %s: '%s' is not a valid %s", list[i].name,
                                           DV_ESC(list[i].spec), dv_arg_type_name(k->args[a].type));
            } else if ((rc = make_buffer(o->cmd, sim, &list[i], &addr[a], &len[a])) != 0) {
                return rc;
            } else {
                v = addr[a];
            }
            dv_sim_set_arg(sim, a, v, NULL);
            bound[a] = true;
        }
    }
    for (unsigned a = 0; a < k->nargs; a++)
        if (!bound[a])
            return cli_usage_error(o->cmd, "kernel %s needs argument '%s' (%s)", k->name, k->args[a].name,
                                   k->args[a].type == DV_ARG_PTR ? "--gm NAME=SPEC" : "--arg NAME=VALUE");
    return 0;
}

/* An operator run: the operator's host part does the binding. */
static int operator_request(const run_opts *o, const dv_operator *op, dv_opr_request *req)
{
    if (o->kernel || o->nargs || o->ngms)
        return cli_usage_error(o->cmd,
                               "--kernel, --arg and --gm are for kernel objects; %s is an operator "
                               "(use --shape, --dtype, --variant)",
                               op->name);
    if (o->ninputs > DV_OPR_MAX_INPUTS)
        return cli_usage_error(o->cmd, "at most %d --input options", DV_OPR_MAX_INPUTS);
    *req = (dv_opr_request){.variant = o->variant,
                            .dtype = o->dtype,
                            .shape = o->shape,
                            .seed = o->seed,
                            .blocks = o->blocks,
                            .ninputs = (unsigned)o->ninputs};
    for (int i = 0; i < o->ninputs; i++) {
        req->input_name[i] = o->inputs[i].name;
        req->input_file[i] = o->inputs[i].spec;
    }
    return 0;
}

/* What the job (dv_opjob_run) found: its totals and roofline, its check. */
static void print_operator(const dv_opjob_result *jr)
{
    const dv_opr_run *r = jr->run;
    const dv_operator *op = r->op;
    printf("operator %s, variant %s, dtype %s, shape ", op->name, dv_opr_variant(r), dv_opr_dtype(r));
    for (unsigned i = 0; op->params[i].name; i++)
        printf("%s%s=%llu", i ? "," : "", op->params[i].name, (unsigned long long)r->p[i]);
    printf(", seed %llu\ntiling: %s\n", (unsigned long long)r->seed, r->tiling);
    const dv_opr_check *c = &r->check;
    if (c->interrupted)
        printf("check: interrupted after %llu elements (not checked)\n", (unsigned long long)c->compared);
    else if (!c->done)
        printf("check: not checked (%s)\n", r->data ? "the kernel did not finish" : "--no-data: timing only");
    else if (!c->mismatches)
        printf("check: PASS, %llu elements; max abs error %.3g, max rel error %.3g (%s)\n",
               (unsigned long long)c->compared, c->max_abs, c->max_rel, c->tolerance);
    else
        printf(
            "check: FAIL, %llu of %llu elements outside the tolerance (%s); first: %s; max abs error %.3g\n",
            (unsigned long long)c->mismatches, (unsigned long long)c->compared, c->tolerance, c->first_bad,
            c->max_abs);
    const dv_opr_launch *sum = &jr->total;
    if (r->nlaunched > 1) {
        printf("launches:");
        for (unsigned i = 0; i < r->nlaunched; i++)
            printf("%s %s %llu cycles", i ? "," : "", r->launch[i].kernel,
                   (unsigned long long)r->launch[i].cycles);
        printf("\n");
    }
    unsigned st = jr->sim_threads ? jr->sim_threads : 1; /* the functional work's threads */
    if (c->done)
        printf("host: fill %.3f s, simulation %.3f s (%u thread%s), check %.3f s (CPU %.3f s; %s)\n",
               jr->fill_seconds, jr->sim_seconds, st, st == 1 ? "" : "s", jr->check_seconds, jr->check_cpu,
               c->reference);
    else
        printf("host: fill %.3f s, simulation %.3f s (%u thread%s)\n", jr->fill_seconds, jr->sim_seconds, st,
               st == 1 ? "" : "s");
    printf("total: %s, %llu cycles (+%llu launch overhead); GM bytes moved %llu (read %llu, written %llu)\n",
           sum->kernel, (unsigned long long)sum->cycles, (unsigned long long)sum->launch_cycles,
           (unsigned long long)(sum->gm_read + sum->gm_write), (unsigned long long)sum->gm_read,
           (unsigned long long)sum->gm_write);
    const dv_opr_roofline *rl = &jr->roof;
    printf("operator roofline on %u core%s: cube %.0f, vector %.0f, %s %.0f, %s %.0f, HBM %.0f cycles;\n"
           "  bound by %s at %.0f cycles, achieved %.1f%% of it\n\n",
           rl->cores, rl->cores == 1 ? "" : "s", rl->cube_cycles, rl->vec_cycles,
           dv_path_name(r->work.read_path), rl->read_cycles, dv_path_name(r->work.write_path),
           rl->write_cycles, rl->hbm_cycles, rl->bound_by, rl->bound_cycles, 100.0 * rl->achieved);
}

/* With --sanitize, its findings as DIR/sanitizer.json (the object of
 * --json's "sanitizer"; stats.json keeps the model's figures alone). */
static int write_sanitizer(const run_san *rs, const char *outdir)
{
    if (!rs->san)
        return 0;
    dv_error err = {DV_OK, ""};
    dv_buf b = DV_BUF_INIT;
    if (dv_san_report_json(rs->san, &b) != DV_OK) {
        dv_buf_free(&b);
        return cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory for the sanitizer's report"});
    }
    char p[4096];
    snprintf(p, sizeof p, "%s/sanitizer.json", outdir);
    dv_status st = cli_write_file(p, b.data, b.len, &err);
    dv_buf_free(&b);
    return st == DV_OK ? 0 : cli_fail(&err);
}

static int write_outdir(const char *outdir, const dv_buf *js, const dv_chip_config *cfg)
{
    dv_error err = {DV_OK, ""};
    char p[4096];
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dvsim: %s: cannot create: %s\n", outdir, strerror(errno));
        return 74;
    }
    snprintf(p, sizeof p, "%s/stats.json", outdir);
    if (cli_write_file(p, js->data, js->len, &err) != DV_OK)
        return cli_fail(&err);
    dv_buf ini = DV_BUF_INIT;
    dv_config_write_ini(cfg, &ini);
    snprintf(p, sizeof p, "%s/config.ini", outdir);
    dv_status st = cli_write_file(p, ini.data, ini.len, &err);
    dv_buf_free(&ini);
    return st == DV_OK ? 0 : cli_fail(&err);
}

/* Every --dump NAME names a tensor of the operator or a GM argument of the
 * kernel: checked before the run, not after a long simulation. */
static int check_dumps(const run_opts *o, dv_sim *sim, const dv_opr_run *opr)
{
    const dv_obj_kernel *k = dv_sim_kernel(sim);
    for (int i = 0; i < o->ndumps; i++) {
        bool found = false;
        if (opr)
            found = dv_opr_tensor_find(opr, o->dumps[i].name) != NULL;
        else
            for (unsigned j = 0; j < k->nargs && !found; j++)
                found = k->args[j].type == DV_ARG_PTR && strcmp(k->args[j].name, o->dumps[i].name) == 0;
        if (!found)
            return cli_usage_error(o->cmd, "--dump %s: not %s", DV_ESC(o->dumps[i].name),
                                   opr ? "a tensor of the operator" : "a GM argument given with --gm");
    }
    return 0;
}

/* --dump NAME=FILE: a tensor of the operator or a --gm buffer of the kernel. */
static int write_dumps(const run_opts *o, dv_sim *sim, const dv_opr_run *opr, const uint64_t *addr,
                       const uint64_t *len)
{
    dv_error err = {DV_OK, ""};
    const dv_obj_kernel *k = dv_sim_kernel(sim);
    for (int i = 0; i < o->ndumps; i++) {
        uint64_t a = 0, n = 0;
        if (opr) {
            const dv_opr_tensor *t = dv_opr_tensor_find(opr, o->dumps[i].name);
            if (t)
                a = t->addr, n = t->bytes;
        } else {
            for (unsigned j = 0; j < k->nargs; j++)
                if (strcmp(k->args[j].name, o->dumps[i].name) == 0)
                    a = addr[j], n = len[j];
        }
        if (!n)
            return cli_usage_error(o->cmd, "--dump %s: not %s", o->dumps[i].name,
                                   opr ? "a tensor of the operator" : "a GM argument given with --gm");
        dv_access_fault f;
        if (cli_write_file(o->dumps[i].spec, dv_gm_span(dv_sim_gm(sim), a, n, &f), n, &err) != DV_OK)
            return cli_fail(&err);
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    return cmd_run_with(argc, argv, NULL);
}

/* What runs, in words, for the trace and the viz window. */
static void run_title(const run_opts *o, const dv_opr_run *opr, dv_sim *sim, char *buf, size_t size)
{
    size_t n = 0;
    if (opr) {
        n = (size_t)snprintf(buf, size, "%s %s %s ", opr->op->name, dv_opr_variant(opr), dv_opr_dtype(opr));
        for (unsigned i = 0; opr->op->params[i].name && n < size; i++)
            n += (size_t)snprintf(buf + n, size - n, "%s%s=%llu", i ? "," : "", opr->op->params[i].name,
                                  (unsigned long long)opr->p[i]);
    } else {
        n = (size_t)snprintf(buf, size, "%s (%s)", dv_sim_kernel(sim)->name, o->path);
    }
    if (n < size)
        snprintf(buf + n, size - n, " on %s", dv_sim_config(sim)->name);
}

/* What a run needs besides its simulation: counters, a trace, a window. */
typedef struct run_state {
    run_opts *o;
    const cli_run_hooks *hooks;
    pmu_ctx pc;
    run_trace rt;
    run_san san; /* --sanitize */
    char title[256];
    int rc;            /* the exit code of a failure in attach() */
    run_progress prog; /* the progress line of a long run */
} run_state;

/* --log: the simulator's messages, one line each on stderr. */
static void log_line(void *user, dv_log_cat cat, dv_log_level level, const char *msg)
{
    (void)user;
    fprintf(stderr, "dvsim: %s: %s: %s\n", dv_log_cat_name(cat), dv_log_level_name(level), msg);
}

/* Attaches what the options ask for to the simulation about to run. */
static int attach(run_state *rs, dv_sim *sim, const dv_opr_run *opr)
{
    run_opts *o = rs->o;
    const char *cmd = o->cmd;
    int rc;
    dv_sim_set_interrupt_flag(sim, run_signal_flag()); /* also without a trace, for every launch */
    if ((rc = check_dumps(o, sim, opr)) != 0)
        return rc;
    if (o->log) {
        for (int c = 0; c < DV_LOG_CAT_COUNT; c++)
            dv_sim_set_log_level(sim, (dv_log_cat)c, o->log_level[c]);
        dv_sim_set_log(sim, log_line, NULL);
    }
    if (o->pmu && (rc = run_pmu_setup(&rs->pc, cmd, sim, o->pmu, o->pmu_period, o->pmu_ring, o->outdir)) != 0)
        return rc;
    if (opr && opr->launches > 1 && o->pmu)
        return cli_usage_error(cmd, "--pmu follows one launch; %s runs %u (variant %s)", opr->op->name,
                               opr->launches, dv_opr_variant(opr));
    run_title(o, opr, sim, rs->title, sizeof rs->title);
    if (opr && opr->launches > 1 && rs->hooks) /* the window follows one simulation */
        return cli_usage_error(cmd, "dvsim %s follows one launch; %s runs %u (variant %s)", rs->hooks->cmd,
                               opr->op->name, opr->launches, dv_opr_variant(opr));
    /* the trace follows every launch (launch_begin, launch_end) */
    if ((rc = run_trace_begin(&rs->rt, &o->trace, sim, rs->title)) != 0)
        return rc;
    if (rs->hooks && (rc = rs->hooks->before(rs->hooks->user, sim, rs->title)) != 0)
        return rc;
    dv_error err = {DV_OK, ""};
    if (!rs->hooks && run_progress_attach(&rs->prog, sim, &err) != DV_OK) /* the window shows its own */
        return cli_fail(&err);
    return 0;
}

static void checking(void *user, dv_opr_run *r)
{
    run_state *rs = user;
    rs->prog.last = 0; /* a new phase shows at once */
    run_progress_say(&rs->prog, "checking the outputs against the reference (%s)", r->op->name);
}

/* Every launch of an operator: the sanitizer's watch, and the trace of a
 * run of several launches (each in its own simulation: the trace takes the
 * next one's events on from where the last one ended). */
static dv_status launch_begin(void *user, dv_opr_run *r, dv_error *err)
{
    run_state *rs = user;
    dv_status st = run_san_launch_begin(&rs->san, r, err);
    if (st == DV_OK && r->nlaunched > 0 && rs->rt.tj)
        st = dv_sim_add_hooks(dv_opr_sim(r), dv_tjson_hooks(rs->rt.tj), err);
    return st;
}

static void launch_end(void *user, dv_opr_run *r, const dv_run_result *res)
{
    run_state *rs = user;
    run_san_launch_end(&rs->san, r, res);
    if (rs->rt.tj && r->launches > 1)
        dv_tjson_end_launch(rs->rt.tj, res);
}

static dv_status attach_operator(void *user, dv_opr_run *r, dv_error *err)
{
    run_state *rs = user;
    rs->rc = attach(rs, dv_opr_sim(r), r);
    return rs->rc ? dv_error_set(err, DV_ERR_USAGE, "(reported)") : DV_OK;
}

/* After the run: the trace, the window, the report, the files.  jr is an
 * operator's job (NULL for a kernel); stats are the run's statistics (an
 * operator's with its op.* figures). */
static int report(run_state *rs, dv_sim *sim, const dv_opjob_result *jr, const dv_run_result *res,
                  dv_stat_list *stats, const dv_chip_config *cfg, const uint64_t *addr, const uint64_t *len)
{
    run_opts *o = rs->o;
    const dv_opr_run *opr = jr ? jr->run : NULL;
    int rc;
    run_progress_end(&rs->prog);
    if ((rc = run_trace_end(&rs->rt, res, o->json)) != 0)
        return rc;
    if (rs->hooks && rs->hooks->after && (rc = rs->hooks->after(rs->hooks->user, sim, res)) != 0)
        return rc;
    bool own = rs->hooks && rs->hooks->own_output; /* the command printed its own results */
    if (o->metrics)                                /* the groups' tables come after the report */
        run_metrics(sim, res, o->metrics, false, stats);
    /* stats.json holds the model's figures alone, without the host.* times:
     * the same bytes every run */
    dv_stat_list model = {malloc((stats->count ? stats->count : 1) * sizeof *stats->items), 0, 0};
    for (size_t i = 0; model.items && i < stats->count; i++)
        if (strncmp(stats->items[i].name, "host.", 5) != 0)
            model.items[model.count++] = stats->items[i];
    dv_buf js = DV_BUF_INIT, all = DV_BUF_INIT;
    dv_status jst = model.items ? dv_stats_json(&model, &js) : DV_ERR_NOMEM;
    free(model.items);
    if (jst != DV_OK || (o->json && dv_stats_json(stats, &all) != DV_OK)) {
        dv_buf_free(&js);
        dv_buf_free(&all);
        return cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory for the statistics"});
    }
    if (o->json && !own) {
        char *withsan = rs->san.san ? run_san_json(&rs->san, all.data) : NULL;
        fputs(withsan ? withsan : all.data, stdout);
        if (withsan)
            fputs("\n", stdout);
        free(withsan);
    }
    dv_buf_free(&all);
    if (!o->json && !own) {
        if (jr)
            print_operator(jr);
        run_print_report(sim, dv_sim_kernel(sim)->name, res, stats);
    }
    int san_rc = run_san_report(&rs->san, o->cmd, o->json, stdout);
    if (o->outdir)
        rc = write_outdir(o->outdir, &js, cfg);
    if (o->outdir && !rc)
        rc = write_sanitizer(&rs->san, o->outdir);
    dv_buf_free(&js);
    if (!rc)
        rc = write_dumps(o, sim, opr, addr, len);
    if (o->metrics && !o->json && !own) {
        dv_stat_list scratch = {NULL, 0, 0};
        run_metrics(sim, res, o->metrics, true, &scratch);
        dv_stats_free(&scratch);
    }
    if (rs->pc.perf) {
        int prc = run_pmu_finish(&rs->pc, o->json);
        if (!rc)
            rc = prc;
    }
    if (res->stop == DV_STOP_INTERRUPTED && rs->hooks && !run_trace_sigint()) {
        /* the window was closed (or its frames were drawn): a normal end */
        fprintf(stderr, "dvsim %s: %s\n", rs->hooks->cmd, res->message);
    } else if (res->stop != DV_STOP_DONE) {
        fprintf(stderr, "dvsim %s: %s: %s\n", o->cmd, dv_stop_name(res->stop), res->message);
        if (!rc)
            rc = res->stop == DV_STOP_INTERRUPTED ? 128 + (run_signal() ? run_signal() : SIGINT) : 1;
    } else if (run_signal()) { /* after the simulation: during the check or the files */
        fprintf(stderr, "dvsim %s: interrupted (signal %d) after the run%s\n", o->cmd, run_signal(),
                opr && opr->check.interrupted ? ", during the reference check" : "");
        if (!rc)
            rc = 128 + run_signal();
    } else if (opr && opr->check.mismatches) {
        fprintf(stderr, "dvsim %s %s: the outputs do not match the reference (%llu of %llu elements)\n",
                o->cmd, opr->op->name, (unsigned long long)opr->check.mismatches,
                (unsigned long long)opr->check.compared);
        if (!rc)
            rc = 1;
    }
    if (!rc)
        rc = san_rc;
    return rc;
}

/* On every path after attach(), whatever it got to: a trace that report()
 * did not complete is removed, and Ctrl-C is restored. */
static void detach(run_state *rs, dv_sim *sim)
{
    run_progress_end(&rs->prog);
    run_trace_end(&rs->rt, NULL, true);
    if (rs->pc.perf) {
        dv_samples_close(rs->pc.w, NULL);
        dv_sim_perf_close(sim, rs->pc.perf);
    }
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The job's host times (--json only: they differ from run to run). */
static void run_host_stats(dv_opjob_result *jr)
{
    dv_stat_list *l = &jr->stats;
    dv_stats_add(l, "s", "host wall time: create, prepare and fill the inputs", jr->fill_seconds, false,
                 "host.fill_seconds");
    dv_stats_add(l, "s", "host wall time: the simulation (every launch)", jr->sim_seconds, false,
                 "host.sim_seconds");
    dv_stats_add(l, "s", "host wall time: the reference check", jr->check_seconds, false,
                 "host.check_seconds");
    dv_stats_add(l, "s", "host CPU time, every thread: create and fill", jr->fill_cpu, false,
                 "host.fill_cpu_seconds");
    dv_stats_add(l, "s", "host CPU time, every thread: the simulation", jr->sim_cpu, false,
                 "host.sim_cpu_seconds");
    dv_stats_add(l, "s", "host CPU time, every thread: the reference check", jr->check_cpu, false,
                 "host.check_cpu_seconds");
    dv_stats_add(l, "s", "host CPU time of the simulation's own thread (the pool's threads do the rest)",
                 jr->sim_thread_cpu, false, "host.sim_thread_cpu_seconds");
    dv_stats_add(l, "s", "host wall time the simulation's thread waited for the pool's threads",
                 jr->sim_join_wait, false, "host.sim_join_wait_seconds");
    dv_stats_add(l, "count", "host threads of the simulation's functional work", jr->sim_threads, false,
                 "host.sim_threads");
}

/* An operator, through the operator driver (dv_opjob.h). */
static int run_operator(run_state *rs, const dv_operator *op, const dv_chip_config *cfg)
{
    dv_opjob job = {.op = op,
                    .cfg = cfg,
                    .data = rs->o->data,
                    .max_cycles = rs->o->max_cycles,
                    .before = attach_operator,
                    .checking = checking,
                    .user = rs};
    int rc = operator_request(rs->o, op, &job.req);
    if (rc)
        return rc;
    job.launch_begin = launch_begin;
    job.launch_end = launch_end;
    job.launch_user = rs;
    dv_opjob_result jr;
    dv_error err = {DV_OK, ""};
    if (dv_opjob_run(&job, &jr, &err) != DV_OK) {
        if (rs->rc)
            rc = rs->rc;
        else if (!jr.run) {
            fprintf(stderr, "dvsim %s %s: %s\n", rs->o->cmd, op->name, err.msg);
            rc = dv_status_exit_code(err.status);
        } else {
            rc = cli_fail(&err);
        }
    } else {
        run_host_stats(&jr);
        rc = report(rs, dv_opr_sim(jr.run), &jr, &jr.res, &jr.stats, cfg, NULL, NULL);
    }
    if (jr.run)
        detach(rs, dv_opr_sim(jr.run));
    dv_opjob_free(&jr);
    return rc;
}

/* --sanitize on a kernel: its --gm buffers are the tensors. */
static int sanitize_kernel(run_state *rs, dv_sim *sim, const uint64_t *addr, const uint64_t *len)
{
    dv_error err = {DV_OK, ""};
    const dv_obj_kernel *k = dv_sim_kernel(sim);
    for (int i = 0; i < rs->o->ngms; i++)
        for (unsigned a = 0; a < k->nargs; a++)
            if (len[a] && strcmp(k->args[a].name, rs->o->gms[i].name) == 0 &&
                dv_san_add_tensor(rs->san.san, k->args[a].name, addr[a], len[a],
                                  strncmp(rs->o->gms[i].spec, "uninit:", 7) == 0, &err) != DV_OK)
                return cli_fail(&err);
    return dv_san_attach(rs->san.san, sim, &err) == DV_OK ? 0 : cli_fail(&err);
}

/* A kernel object, or a .dvs source assembled on the fly. */
static int run_kernel(run_state *rs, const dv_chip_config *cfg)
{
    run_opts *o = rs->o;
    struct stat sb;
    if (!strchr(o->path, '/') && !strchr(o->path, '.') && stat(o->path, &sb) != 0 && *o->path)
        return cli_usage_error(o->cmd, "'%s' is neither an operator (dvsim ops lists them) nor a kernel file",
                               o->path);
    dv_error err = {DV_OK, ""};
    dv_sim *sim = dv_sim_create(cfg, o->data, &err);
    if (!sim)
        return cli_fail(&err);
    dv_sim_set_threads(sim, (unsigned)o->threads); /* 0: the host's CPUs */
    dv_obj *obj = NULL;
    uint64_t addr[DV_MAX_KERNEL_ARGS] = {0}, len[DV_MAX_KERNEL_ARGS] = {0};
    int rc = setup_kernel(o, sim, &obj, addr, len);
    if (!rc)
        rc = attach(rs, sim, NULL);
    if (!rc && rs->san.san)
        rc = sanitize_kernel(rs, sim, addr, len);
    if (!rc) {
        dv_run_result res;
        dv_stat_list stats;
        double t0 = cli_now(), c0 = cpu_now();
        dv_status st = dv_sim_run(sim, o->max_cycles, &res, &err);
        if (st == DV_OK && rs->san.san)
            dv_san_finish(rs->san.san, sim, &res);
        if (st != DV_OK) {
            rc = cli_fail(&err);
        } else if (dv_stats_collect(sim, &res, &stats, &err) != DV_OK) {
            rc = cli_fail(&err);
        } else {
            double wall = cli_now() - t0, cpu = cpu_now() - c0;
            /* host.* for --json only (report leaves them out of stats.json) */
            dv_stats_add(&stats, "s", "host wall time: the simulation", wall, false, "host.sim_seconds");
            dv_stats_add(&stats, "s", "host CPU time, every thread: the simulation", cpu, false,
                         "host.sim_cpu_seconds");
            rc = report(rs, sim, NULL, &res, &stats, cfg, addr, len);
            dv_stats_free(&stats);
        }
    }
    detach(rs, sim);
    dv_sim_destroy(sim);
    dv_obj_destroy(obj);
    return rc;
}

int cmd_run_with(int argc, char **argv, const cli_run_hooks *hooks)
{
    run_opts o;
    int rc = run_opts_parse(argc, argv, hooks, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    dv_error err = {DV_OK, ""};
    dv_chip_config cfg;
    if (o.config ? dv_config_load_ini(o.config, &cfg, &err) != DV_OK
                 : dv_config_builtin(o.chip ? o.chip : dv_config_default_name(), &cfg, &err) != DV_OK)
        return cli_fail(&err);
    for (int i = 0; i < o.nsets; i++)
        if (dv_config_set_kv(&cfg, o.sets[i], &err) != DV_OK)
            return cli_fail(&err);
    ref_set_threads((unsigned)o.threads);
    run_state rs;
    memset(&rs, 0, sizeof rs);
    rs.o = &o;
    rs.hooks = hooks;
    if ((rc = run_san_create(&rs.san, o.sanitize)) != 0)
        return rc;
    run_progress_init(&rs.prog, o.cmd);
    /* An operator name, unless a file of that name exists. */
    struct stat sb;
    const dv_operator *op = stat(o.path, &sb) != 0 ? dv_operator_find(o.path) : NULL;
    run_signals_begin();
    rc = op ? run_operator(&rs, op, &cfg) : run_kernel(&rs, &cfg);
    run_signals_end();
    run_san_free(&rs.san);
    return rc;
}
