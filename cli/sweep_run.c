/* sweep_run.c - a sweep's jobs run in child processes of this dvsim (fork:
 * the child runs dvsim run in-process, no exec), a pool of them, and the
 * status each leaves (sweep_run.h). */
#include "sweep_run.h"

#include "cli.h"
#include "dv_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A child's exit when another process holds its job (dvsim run never exits 75). */
enum { SWEEP_BUSY = 75 };

void sweep_job_dir(const sweep_ctx *c, const sweep_job *j, char *buf, size_t size)
{
    snprintf(buf, size, "%s/jobs/%s", c->dir, c->jobs.jobs[j->primary].hash);
}

int sweep_load(const char *dir, sweep_ctx *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    char p[4096], *text;
    size_t len;
    dv_error err = {DV_OK, ""};
    snprintf(p, sizeof p, "%s/sweep.json", dir);
    if (dv_read_file(p, &text, &len, &err) != DV_OK) {
        fprintf(stderr, "dvsim sweep: %s (not a sweep folder?)\n", err.msg);
        return dv_status_exit_code(err.status);
    }
    dv_status st = sweep_spec_parse(text, len, p, &c->spec, &err);
    free(text);
    if (st == DV_OK)
        st = sweep_expand(&c->spec, &c->jobs, &err);
    if (st != DV_OK)
        return cli_fail(&err);
    ssize_t n = readlink("/proc/self/exe", c->exe, sizeof c->exe - 1);
    c->exe[n > 0 ? n : 0] = '\0';
    return 0;
}

void sweep_ctx_free(sweep_ctx *c)
{
    sweep_jobs_free(&c->jobs);
    sweep_spec_free(&c->spec);
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dvsim sweep: %s: cannot create: %s\n", path, strerror(errno));
        return 74;
    }
    return 0;
}

int sweep_prepare(sweep_ctx *c)
{
    char p[4096], *json;
    dv_error err = {DV_OK, ""};
    int rc = make_dir(c->dir);
    snprintf(p, sizeof p, "%s/jobs", c->dir);
    if (!rc)
        rc = make_dir(p);
    if (rc)
        return rc;
    if (sweep_spec_json(&c->spec, &json, &err) != DV_OK)
        return cli_fail(&err);
    snprintf(p, sizeof p, "%s/sweep.json", c->dir);
    dv_status st = cli_write_file(p, json, strlen(json), &err);
    free(json);
    return st == DV_OK ? 0 : cli_fail(&err);
}

int sweep_job_exit(const sweep_ctx *c, const sweep_job *j)
{
    char p[4096], buf[64];
    sweep_job_dir(c, j, p, sizeof p);
    strncat(p, "/status.json", sizeof p - strlen(p) - 1);
    int fd = open(p, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    int rc;
    buf[n > 0 ? n : 0] = '\0';
    return sscanf(buf, "{\"exit\": %d", &rc) == 1 ? rc : -1;
}

bool sweep_job_done(const sweep_ctx *c, const sweep_job *j)
{
    int rc = sweep_job_exit(c, j);
    return rc == 0 || (rc > 0 && !c->retry_failed);
}

/* status.json: the exit code and what the job said last (escaped by cJSON). */
static void write_status(const char *dir, int rc, const char *message)
{
    char p[4096];
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return;
    cJSON_AddNumberToObject(o, "exit", rc);
    cJSON_AddStringToObject(o, "message", message);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text)
        return;
    /* cJSON writes {"exit":N,...}: the reader above wants the blank after the colon */
    char *out = malloc(strlen(text) + 2);
    if (out) {
        snprintf(out, strlen(text) + 2, "{\"exit\": %s", text + strlen("{\"exit\":"));
        snprintf(p, sizeof p, "%s/status.json", dir);
        dv_write_file_atomic(p, out, strlen(out), NULL);
    }
    free(out);
    free(text);
}

/* The last line the job printed on stderr (log.txt, removed if empty). */
static void last_line(const char *dir, char *msg, size_t size)
{
    char p[4096], *text = NULL;
    size_t len = 0;
    snprintf(p, sizeof p, "%s/log.txt", dir);
    msg[0] = '\0';
    if (dv_read_file(p, &text, &len, NULL) != DV_OK)
        return;
    if (!len) {
        unlink(p);
    } else {
        while (len && text[len - 1] == '\n')
            text[--len] = '\0';
        const char *nl = strrchr(text, '\n');
        snprintf(msg, size, "%s", nl ? nl + 1 : text);
    }
    free(text);
}

/* A stop from outside (Ctrl-C, SIGTERM, a kill, Slurm's time limit): the
 * job did not finish and runs again; any other exit is its verdict. */
static bool stopped_rc(int rc)
{
    return rc == 128 + SIGINT || rc == 128 + SIGTERM || rc == 128 + SIGHUP || rc == 128 + SIGKILL;
}

/* In the child: dvsim run JOB --out DIR, stdout to /dev/null, stderr to
 * DIR/log.txt; the status written; never returns. */
static void child(const sweep_ctx *c, const sweep_job *j)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    unsetenv("DVSIM_PROGRESS"); /* the job's log holds what it says, not a progress line */
    char dir[SWEEP_JOB_DIR_MAX];
    sweep_job_dir(c, j, dir, sizeof dir);
    char **argv;
    int argc;
    if (make_dir(dir) || sweep_job_argv(&c->spec, j, &argv, &argc, NULL) != DV_OK)
        _exit(74);
    char log[4096];
    /* Another sweep of this folder (a second --local, a Slurm array over it) may be at this
     * job: the one holding DIR/.lock runs it, the others leave it (a POSIX record lock, which
     * goes with the process however it ends). */
    snprintf(log, sizeof log, "%s/.lock", dir);
    int lock = open(log, O_RDWR | O_CREAT, 0666);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (lock < 0 || fcntl(lock, F_SETLK, &fl) != 0 || sweep_job_done(c, j))
        _exit(SWEEP_BUSY);
    snprintf(log, sizeof log, "%s/status.json", dir);
    unlink(log);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    int null = open("/dev/null", O_WRONLY), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (null < 0 || fd < 0 || dup2(null, 1) < 0 || dup2(fd, 2) < 0)
        _exit(74);
    close(null);
    close(fd);
    char **full = malloc(((size_t)argc + 3) * sizeof *full);
    if (!full)
        _exit(71);
    memcpy(full, argv, (size_t)argc * sizeof *full);
    full[argc] = "--out";
    full[argc + 1] = dir;
    full[argc + 2] = NULL;
    int rc = cmd_run(argc + 2, full);
    if (!rc)
        rc = cli_stdout_done();
    fflush(stderr);
    if (!stopped_rc(rc)) {
        char msg[512];
        last_line(dir, msg, sizeof msg);
        write_status(dir, rc, rc ? msg : "");
    }
    _exit(rc);
}

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

typedef struct running {
    pid_t pid;
    size_t id;
} running;

static void progress_line(const sweep_tally *t, size_t todo, double t0)
{
    double el = cli_now() - t0;
    size_t done = t->ran;
    double rate = el > 0 ? (double)done / el : 0;
    double eta = rate > 0 ? (double)(todo - done) / rate : 0;
    fprintf(stderr, "\r\033[Kdvsim sweep: %zu/%zu done (%zu failed), %.0f jobs/s, ETA %dm%02ds", done, todo,
            t->failed, rate, (int)eta / 60, (int)eta % 60);
}

/* A child ended: its tally, and a status when it crashed (it wrote none). */
static void reap(sweep_ctx *c, size_t id, int ws, sweep_tally *t)
{
    int rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    if (rc == SWEEP_BUSY) { /* run (or just finished) by another sweep of the folder */
        t->skipped++;
        return;
    }
    if (stopped_rc(rc)) {
        t->stopped++;
        return;
    }
    t->ran++;
    if (rc) {
        t->failed++;
        if (WIFSIGNALED(ws)) {
            char dir[SWEEP_JOB_DIR_MAX], msg[128];
            sweep_job_dir(c, &c->jobs.jobs[id], dir, sizeof dir);
            snprintf(msg, sizeof msg, "the job's process died of signal %d (%s)", WTERMSIG(ws),
                     strsignal(WTERMSIG(ws)));
            write_status(dir, rc, msg);
        }
    }
}

int sweep_run_jobs(sweep_ctx *c, const size_t *ids, size_t n, unsigned workers, bool progress, sweep_tally *t)
{
    memset(t, 0, sizeof *t);
    t->total = n;
    size_t *todo = malloc((n ? n : 1) * sizeof *todo), ntodo = 0;
    running *run = calloc(workers ? workers : 1, sizeof *run);
    if (!todo || !run) {
        free(todo);
        free(run);
        return cli_fail(&(dv_error){DV_ERR_NOMEM, "out of memory for the job list"});
    }
    for (size_t i = 0; i < n; i++) {
        const sweep_job *j = &c->jobs.jobs[ids[i]];
        if (j->primary != j->id || sweep_job_done(c, j))
            t->skipped++;
        else
            todo[ntodo++] = ids[i];
    }
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    stop_signal = 0;
    fflush(NULL); /* nothing buffered is written twice by the children */
    double t0 = cli_now(), shown = 0;
    size_t next = 0, nrun = 0;
    bool forwarded = false;
    while (next < ntodo || nrun) {
        while (!stop_signal && next < ntodo && nrun < workers) {
            pid_t pid = fork();
            if (pid == 0)
                child(c, &c->jobs.jobs[todo[next]]);
            if (pid < 0) {
                fprintf(stderr, "dvsim sweep: fork failed: %s\n", strerror(errno));
                stop_signal = stop_signal ? stop_signal : SIGTERM;
                break;
            }
            for (unsigned w = 0; w < workers; w++)
                if (!run[w].pid) {
                    run[w] = (running){pid, todo[next]};
                    break;
                }
            next++, nrun++;
        }
        if (!nrun)
            break;
        if (stop_signal && !forwarded) { /* pass the stop on, once */
            for (unsigned w = 0; w < workers; w++)
                if (run[w].pid)
                    kill(run[w].pid, stop_signal);
            forwarded = true;
        }
        int ws;
        pid_t pid = waitpid(-1, &ws, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (unsigned w = 0; w < workers; w++)
            if (run[w].pid == pid) {
                reap(c, run[w].id, ws, t);
                run[w].pid = 0;
                nrun--;
            }
        if (progress && cli_now() - shown > 0.2) {
            progress_line(t, ntodo, t0);
            shown = cli_now();
        }
    }
    if (progress && shown > 0) {
        progress_line(t, ntodo, t0);
        fputc('\n', stderr);
    }
    t->stopped += ntodo - next;
    t->seconds = cli_now() - t0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    free(todo);
    free(run);
    return stop_signal ? 128 + stop_signal : 0;
}
