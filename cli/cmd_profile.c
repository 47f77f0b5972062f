/* cmd_profile.c - dvsim profile: dvsim run with the stall-attribution
 * observer (dv_profile.h) attached, printing where every cycle went instead
 * of the run's report.  The run options are dvsim run's; the options below
 * are read by dvsim run's parser with them (cli_run_hooks). */
#include "cli.h"
#include "dv_profile.h"
#include "profile_report.h"
#include "run_opts.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void cmd_profile_help(FILE *out)
{
    fputs(
        "usage: dvsim profile OPERATOR|KERNEL.elf|KERNEL.dvs [profile options] [dvsim run options]\n"
        "\n"
        "Runs like dvsim run and says where every cycle went: every cycle of every pipe of every core\n"
        "in one class (busy, memory, bank, flag, cc_flag, barrier, starved, queue_full, idle),\n"
        "attributed to an instruction and its source line (for a macro's line, the calling line\n"
        "first: k.dvs:52 <- lib.inc:37).  Prints the classes per pipe, the critical path (which pipe\n"
        "bounded each phase and what held the others), and the lines by cost with their classes and\n"
        "the set_flag that released each wait.  The classes are checked against the per-pipe totals\n"
        "of the run's statistics (exit 70 if they disagree).\n"
        "\n"
        "profile options:\n"
        "  --top N          list the N costliest rows (default 20; 0: all)\n"
        "  --by line|call|pc  rows per source line (default), per calling line, or per instruction\n"
        "  --core I         one core's figures (default: summed over the cores)\n"
        "  --kind K         only the cores of kind coupled, aic or aiv (a mix kernel's Cube or Vector side)\n"
        "  --csv            the rows and pipes as CSV\n"
        "  --no-source      no source text under the rows\n"
        "  --json           (dvsim run's) the same content as JSON\n"
        "  --out DIR        (dvsim run's) also writes DIR/profile.json, for dvsim diff\n"
        "\n"
        "docs/profiling.md explains the classes and works through examples.\n",
        out);
}

typedef struct prof_run {
    prof_report_opts o;
    bool csv, json;
    const char *outdir;
    dv_profile *prof;
    char title[256];
} prof_run;

enum { OPT_TOP = CLI_OPT_HOOK, OPT_BY, OPT_CORE, OPT_CSV, OPT_NO_SOURCE, OPT_KIND };

static const struct option prof_options[] = {
    {"top", required_argument, NULL, OPT_TOP},
    {"by", required_argument, NULL, OPT_BY},
    {"core", required_argument, NULL, OPT_CORE},
    {"csv", no_argument, NULL, OPT_CSV},
    {"no-source", no_argument, NULL, OPT_NO_SOURCE},
    {"kind", required_argument, NULL, OPT_KIND},
    {NULL, 0, NULL, 0},
};

static int option(void *user, int code, const char *v)
{
    prof_run *pr = user;
    uint64_t n;
    switch (code) {
    case OPT_TOP:
        if (!cli_parse_u64(v, &n) || n > UINT_MAX)
            return cli_usage_error("profile", "--top needs a number, not '%s'", v);
        pr->o.top = (unsigned)n;
        return 0;
    case OPT_CORE:
        if (!cli_parse_u64(v, &n) || n > INT_MAX)
            return cli_usage_error("profile", "--core needs a core index, not '%s'", v);
        pr->o.core = (int)n;
        return 0;
    case OPT_BY:
        if (strcmp(v, "line") == 0)
            pr->o.by = PROF_BY_LINE;
        else if (strcmp(v, "call") == 0)
            pr->o.by = PROF_BY_CALL;
        else if (strcmp(v, "pc") == 0)
            pr->o.by = PROF_BY_PC;
        else
            return cli_usage_error("profile", "--by needs line, call or pc, not '%s'", v);
        return 0;
    case OPT_KIND:
        if (strcmp(v, "coupled") == 0)
            pr->o.kind = DV_KIND_COUPLED;
        else if (strcmp(v, "aic") == 0)
            pr->o.kind = DV_KIND_AIC;
        else if (strcmp(v, "aiv") == 0)
            pr->o.kind = DV_KIND_AIV;
        else
            return cli_usage_error("profile", "--kind needs coupled, aic or aiv, not '%s'", v);
        return 0;
    case OPT_CSV: pr->csv = true; return 0;
    case OPT_NO_SOURCE: pr->o.no_source = true; return 0;
    default: return cli_usage_error("profile", "unknown option");
    }
}

static int parsed(void *user, const run_opts *o)
{
    prof_run *pr = user;
    pr->json = o->json;
    pr->outdir = o->outdir;
    if (pr->json && pr->csv)
        return cli_usage_error("profile", "--json and --csv: choose one");
    return 0;
}

static int before(void *user, dv_sim *sim, const char *title)
{
    prof_run *pr = user;
    dv_error err = {DV_OK, ""};
    snprintf(pr->title, sizeof pr->title, "%s", title);
    if (!(pr->prof = dv_profile_create(&err)) || dv_profile_attach(pr->prof, sim, &err) != DV_OK)
        return cli_fail(&err);
    return 0;
}

static int write_json(const prof_run *pr, cJSON *root)
{
    if (mkdir(pr->outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dvsim: %s: cannot create: %s\n", pr->outdir, strerror(errno));
        return 74;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/profile.json", pr->outdir);
    char *text = cJSON_Print(root);
    if (!text)
        return cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory for the profile"});
    dv_error err = {DV_OK, ""};
    size_t n = strlen(text);
    char *line = malloc(n + 1);
    if (!line) {
        cJSON_free(text);
        return cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory for the profile"});
    }
    memcpy(line, text, n);
    line[n] = '\n';
    cJSON_free(text);
    dv_status st = cli_write_file(path, line, n + 1, &err);
    free(line);
    return st == DV_OK ? 0 : cli_fail(&err);
}

static int after(void *user, dv_sim *sim, const dv_run_result *res)
{
    prof_run *pr = user;
    (void)res;
    const dv_prof_result *r = pr->prof ? dv_profile_result(pr->prof) : NULL;
    if (!r || !r->ended)
        return cli_fail(&(dv_error){DV_ERR_INTERNAL, "the profile saw no run"});
    if (dv_profile_status(pr->prof) != DV_OK)
        return cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory for the profile"});
    if (pr->o.core >= 0 && (unsigned)pr->o.core >= r->ncores)
        return cli_usage_error("profile", "--core %d: the run has cores 0..%u", pr->o.core, r->ncores - 1);
    unsigned nkind = 0;
    for (unsigned i = 0; pr->o.kind >= 0 && i < r->ncores; i++)
        nkind += (int)r->cores[i].kind == pr->o.kind;
    if (pr->o.kind >= 0 && !nkind)
        return cli_usage_error("profile", "--kind %s: the run has no core of that kind",
                               pr->o.kind == DV_KIND_AIC   ? "aic"
                               : pr->o.kind == DV_KIND_AIV ? "aiv"
                                                           : "coupled");
    char why[300];
    if (!prof_check_sums(sim, r, why, sizeof why)) {
        fprintf(stderr, "dvsim profile: the profile disagrees with the statistics: %s\n", why);
        return 70;
    }
    int rc = 0;
    if (pr->outdir) { /* every row, for dvsim diff */
        prof_report_opts all = pr->o;
        all.top = 0;
        cJSON *root = prof_json(sim, r, &all, pr->title);
        if (!root)
            return cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory for the profile"});
        rc = write_json(pr, root);
        cJSON_Delete(root);
        if (rc)
            return rc;
    }
    if (pr->json) {
        cJSON *root = prof_json(sim, r, &pr->o, pr->title);
        return root ? cli_print_json(root, true)
                    : cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory for the profile"});
    }
    if (pr->csv)
        prof_print_csv(stdout, sim, r, &pr->o);
    else
        prof_print_text(stdout, sim, r, &pr->o, pr->title);
    return rc;
}

int cmd_profile(int argc, char **argv)
{
    prof_run pr;
    memset(&pr, 0, sizeof pr);
    pr.o.top = 20;
    pr.o.core = -1;
    pr.o.kind = -1;
    cli_run_hooks hooks = {.cmd = "profile",
                           .options = prof_options,
                           .option = option,
                           .parsed = parsed,
                           .help = cmd_profile_help,
                           .before = before,
                           .after = after,
                           .user = &pr,
                           .own_output = true};
    int rc = cmd_run_with(argc, argv, &hooks);
    dv_profile_destroy(pr.prof);
    return rc;
}
