/* sweep_backend.c - a sweep's backends (sweep_backend.h).  GNU parallel
 * and a Slurm array task each run "dvsim sweep --task DIR ...", which
 * expands DIR/sweep.json again and runs its jobs as --local does: every
 * backend leaves the same job folders, merged the same way. */
#include "sweep_backend.h"

#include "cli.h"
#include "dv_buf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The primaries not finished yet. */
static size_t pending(const sweep_ctx *c, size_t *ids)
{
    size_t n = 0;
    for (size_t i = 0; i < c->jobs.count; i++)
        if (c->jobs.jobs[i].primary == i && !sweep_job_done(c, &c->jobs.jobs[i]))
            ids[n++] = i;
    return n;
}

/* After an external backend: what of the pending jobs ran, what failed. */
static void tally_after(const sweep_ctx *c, const size_t *ids, size_t n, size_t total, sweep_tally *t)
{
    t->total = total;
    t->skipped = total - n;
    for (size_t i = 0; i < n; i++) {
        int rc = sweep_job_exit(c, &c->jobs.jobs[ids[i]]);
        if (rc < 0)
            t->stopped++;
        else
            t->ran++, t->failed += rc != 0;
    }
}

/* True if prog is on PATH. */
static bool on_path(const char *prog)
{
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        char full[4096];
        snprintf(full, sizeof full, "%.*s/%s", (int)n, p, prog);
        if (access(full, X_OK) == 0)
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

static volatile sig_atomic_t stop_signal;
static void on_stop(int sig)
{
    stop_signal = sig;
}

/* Runs argv (argv[0] on PATH), its stdout into out (when not NULL) or
 * ours; returns its exit code, or -1 if it could not be started.  A stop
 * signal is passed on to it. */
static int spawn(char *const *argv, dv_buf *out)
{
    int fds[2] = {-1, -1};
    if (out && pipe(fds) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (out) {
            dup2(fds[1], 1);
            close(fds[0]);
            close(fds[1]);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "dvsim sweep: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (out)
        close(fds[1]);
    if (pid < 0) {
        if (out)
            close(fds[0]);
        return -1;
    }
    struct sigaction sa = {0}, oi, ot;
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &oi);
    sigaction(SIGTERM, &sa, &ot);
    stop_signal = 0;
    if (out) {
        char buf[4096];
        ssize_t n;
        while ((n = read(fds[0], buf, sizeof buf)) != 0)
            if (n > 0)
                dv_buf_append(out, buf, (size_t)n);
            else if (errno != EINTR)
                break;
        close(fds[0]);
    }
    int ws = 0, forwarded = 0;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            break;
        else if (stop_signal && !forwarded++)
            kill(pid, stop_signal);
    sigaction(SIGINT, &oi, NULL);
    sigaction(SIGTERM, &ot, NULL);
    if (stop_signal)
        return 128 + stop_signal;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static int write_text(const char *path, const dv_buf *b)
{
    dv_error err = {DV_OK, ""};
    return cli_write_file(path, b->data ? b->data : "", b->len, &err) == DV_OK ? 0 : cli_fail(&err);
}

/* GNU parallel: one "dvsim sweep --task DIR --job ID" per pending job, the
 * ids in DIR/parallel.jobs, its joblog in DIR/parallel.joblog. */
static int run_parallel(sweep_ctx *c, unsigned workers, sweep_tally *t)
{
    if (!on_path("parallel")) {
        fprintf(stderr,
                "dvsim sweep: --parallel needs GNU parallel on PATH (Debian: apt-get install parallel)\n");
        return 69;
    }
    size_t *ids = malloc((c->jobs.count ? c->jobs.count : 1) * sizeof *ids);
    if (!ids)
        return cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory"});
    size_t n = pending(c, ids), total = 0;
    for (size_t i = 0; i < c->jobs.count; i++)
        total += c->jobs.jobs[i].primary == i;
    dv_buf list = DV_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        dv_buf_printf(&list, "%zu\n", ids[i]);
    char jobs[4096], joblog[4096], nj[32];
    snprintf(jobs, sizeof jobs, "%s/parallel.jobs", c->dir);
    snprintf(joblog, sizeof joblog, "%s/parallel.joblog", c->dir);
    snprintf(nj, sizeof nj, "%u", workers);
    int rc = write_text(jobs, &list);
    dv_buf_free(&list);
    double t0 = cli_now();
    if (!rc && n) {
        char *argv[] = {"parallel", "--will-cite", "--halt", "never",  "--joblog", joblog,  "-j", nj,  "-a",
                        jobs,       c->exe,        "sweep",  "--task", c->dir,     "--job", "{}", NULL};
        int prc = spawn(argv, NULL);
        if (prc > 128 && prc < 160) {
            rc = prc;
        } else if (prc < 0 || prc > 100) { /* parallel's own failure (it counts failed jobs up to 100) */
            fprintf(stderr, "dvsim sweep: GNU parallel failed (exit %d; see %s)\n", prc, joblog);
            rc = 69;
        }
    }
    t->seconds = cli_now() - t0;
    tally_after(c, ids, n, total, t);
    free(ids);
    return rc;
}

/* s in single quotes for sh. */
static void sh_quote(dv_buf *b, const char *s)
{
    dv_buf_puts(b, "'");
    for (const char *p = s; *p; p++)
        if (*p == '\'')
            dv_buf_puts(b, "'\\''");
        else
            dv_buf_append(b, p, 1);
    dv_buf_puts(b, "'");
}

/* Slurm: DIR/slurm/sweep.sbatch, an array whose task I runs slice I/N of
 * the jobs; submitted with sbatch (--wait: until the array ends). */
static int run_slurm(sweep_ctx *c, unsigned tasks, const sweep_slurm *o, sweep_tally *t)
{
    size_t total = 0;
    for (size_t i = 0; i < c->jobs.count; i++)
        total += c->jobs.jobs[i].primary == i;
    if (!tasks)
        tasks = total < 64 ? (unsigned)total : 64;
    if (tasks > total)
        tasks = (unsigned)total;
    char dir[SWEEP_JOB_DIR_MAX], script[4096];
    snprintf(dir, sizeof dir, "%s/slurm", c->dir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dvsim sweep: %s: cannot create: %s\n", dir, strerror(errno));
        return 74;
    }
    snprintf(script, sizeof script, "%s/sweep.sbatch", dir);
    dv_buf b = DV_BUF_INIT;
    dv_buf_printf(&b,
                  "#!/bin/sh\n"
                  "# dvsim sweep's Slurm job array: task I runs slice I/%u of the jobs of %s/sweep.json\n"
                  "# (those not finished yet); then: dvsim sweep --merge %s\n"
                  "#SBATCH --job-name=dvsim-sweep-%s\n"
                  "#SBATCH --array=0-%u\n"
                  "#SBATCH --output=%s/task-%%A_%%a.log\n"
                  "#SBATCH --cpus-per-task=1\n",
                  tasks, c->dir, c->dir, c->spec.name ? c->spec.name : "jobs", tasks - 1, dir);
    for (int i = 0; i < o->nopts; i++)
        dv_buf_printf(&b, "#SBATCH %s\n", o->opts[i]);
    dv_buf_puts(&b, "exec ");
    sh_quote(&b, c->exe);
    dv_buf_puts(&b, " sweep --task ");
    sh_quote(&b, c->dir);
    dv_buf_printf(&b, " --slice \"$SLURM_ARRAY_TASK_ID/%u\" --local \"${SLURM_CPUS_PER_TASK:-1}\"%s\n", tasks,
                  c->retry_failed ? " --retry-failed" : "");
    int rc = write_text(script, &b);
    dv_buf_free(&b);
    if (rc)
        return rc;
    chmod(script, 0755);
    if (o->dry_run) {
        printf("wrote %s (%u array tasks, %zu jobs); submit it with: sbatch %s\n", script, tasks, total,
               script);
        return 0;
    }
    if (!on_path("sbatch")) {
        fprintf(
            stderr,
            "dvsim sweep: --slurm needs sbatch on PATH (Slurm; --slurm-dry-run writes the script only)\n");
        return 69;
    }
    size_t *ids = malloc((c->jobs.count ? c->jobs.count : 1) * sizeof *ids);
    if (!ids)
        return cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory"});
    size_t n = pending(c, ids);
    dv_buf out = DV_BUF_INIT;
    char *argv[] = {"sbatch", "--parsable", o->wait ? "--wait" : script, o->wait ? script : NULL, NULL};
    double t0 = cli_now();
    int src = spawn(argv, &out);
    t->seconds = cli_now() - t0;
    char id[64] = "";
    if (out.data)
        sscanf(out.data, "%63[^;\n]", id);
    dv_buf_free(&out);
    if (src > 128 && src < 160) {
        rc = src;
    } else if (src != 0 && !(o->wait && id[0])) { /* with --wait, a failed task is its jobs' business */
        fprintf(stderr, "dvsim sweep: sbatch failed (exit %d)\n", src);
        rc = 69;
    } else if (!o->wait) {
        printf("submitted Slurm job %s: %u array tasks over %zu jobs (%zu to run); when it has ended:\n"
               "  dvsim sweep --merge %s\n",
               id, tasks, total, n, c->dir);
    } else {
        tally_after(c, ids, n, total, t);
        fprintf(stderr, "dvsim sweep: Slurm job %s ended (%u tasks; logs in %s)\n", id, tasks, dir);
    }
    free(ids);
    return rc;
}

int sweep_backend_run(sweep_ctx *c, sweep_backend b, unsigned workers, unsigned tasks,
                      const sweep_slurm *slurm, bool progress, sweep_tally *t)
{
    memset(t, 0, sizeof *t);
    if (b == SWEEP_PARALLEL)
        return run_parallel(c, workers, t);
    if (b == SWEEP_SLURM)
        return run_slurm(c, tasks, slurm, t);
    size_t *ids = malloc((c->jobs.count ? c->jobs.count : 1) * sizeof *ids);
    if (!ids)
        return cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory"});
    size_t n = 0;
    for (size_t i = 0; i < c->jobs.count; i++)
        if (c->jobs.jobs[i].primary == i)
            ids[n++] = i;
    int rc = sweep_run_jobs(c, ids, n, workers, progress, t);
    free(ids);
    return rc;
}
