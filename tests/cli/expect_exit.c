/* expect_exit.c - runs a command and checks its exit code and output.
 *
 * usage: expect_exit CODE [--stderr-lines N] [--stderr-has TEXT]... [--stdout-has TEXT]...
 *                    [--stdout-json] [--json-has POINTER=VALUE]... [--stdout-to FILE] [--absent PATH]...
 *                    -- CMD ARGS...
 *
 * Used by the CLI tests: dvsim must answer bad input with the documented exit
 * code and exactly one line on stderr, never a crash.  --stdout-json: stdout
 * is one JSON document (cJSON parses it); --json-has: the value at POINTER
 * (RFC 6901, "/0/name"; a "*" step matches any member or element) equals
 * VALUE (a string, a number compared as a number, true, false or null) for
 * at least one match.  They check the data, not how it is laid out.
 * --stdout-to: the command's stdout goes to FILE instead (/dev/full: how it
 * answers a failed write), and is not checked.  --absent: PATH does not
 * exist after the command (an error found before anything was created); a
 * file or an empty folder there beforehand is removed first.  --printable:
 * stdout and stderr hold only printable ASCII, tabs and newlines (bytes
 * from an input were escaped).
 *
 * DV_TEST_WRAPPER (words separated by spaces, e.g. "valgrind --quiet
 * --error-exitcode=99"), when set, runs before CMD: the valgrind test setup
 * runs dvsim itself under memcheck this way, not only this helper. */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *slurp(int fd, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    ssize_t r;
    while (buf && (r = read(fd, buf + n, cap - n)) > 0) {
        n += (size_t)r;
        if (n == cap) {
            cap *= 2;
            char *grown = realloc(buf, cap + 1);
            if (!grown) {
                free(buf);
                return NULL;
            }
            buf = grown;
        }
    }
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

/* The next step of a JSON pointer, unescaped (~1 is '/', ~0 is '~'); *p
 * moves past it. */
static void pointer_step(const char **p, char *step, size_t size)
{
    size_t n = 0;
    const char *s = *p + 1; /* past the '/' */
    for (; *s && *s != '/'; s++) {
        char c = *s;
        if (c == '~' && (s[1] == '0' || s[1] == '1'))
            c = *++s == '0' ? '~' : '/';
        if (n + 1 < size)
            step[n++] = c;
    }
    step[n] = '\0';
    *p = s;
}

static bool value_is(const cJSON *v, const char *want)
{
    if (cJSON_IsString(v))
        return strcmp(v->valuestring, want) == 0;
    if (cJSON_IsNumber(v)) {
        char *end;
        double d = strtod(want, &end);
        return end != want && !*end && d == v->valuedouble;
    }
    if (cJSON_IsBool(v))
        return strcmp(want, cJSON_IsTrue(v) ? "true" : "false") == 0;
    return cJSON_IsNull(v) && strcmp(want, "null") == 0;
}

/* True if some node that ptr selects under node equals want. */
static bool json_has(const cJSON *node, const char *ptr, const char *want)
{
    if (!*ptr)
        return value_is(node, want);
    if (*ptr != '/')
        return false;
    char step[256];
    pointer_step(&ptr, step, sizeof step);
    int index = 0;
    for (const cJSON *c = node->child; c; c = c->next, index++) {
        char name[24];
        snprintf(name, sizeof name, "%d", index);
        bool match = strcmp(step, "*") == 0 ||
                     (cJSON_IsObject(node) ? strcmp(c->string, step) == 0 : strcmp(name, step) == 0);
        if (match && json_has(c, ptr, want))
            return true;
    }
    return false;
}

typedef struct checks {
    int want;
    long want_lines;
    const char *err_has[8], *out_has[8], *json_has[8], *absent[8];
    int n_err, n_out, n_json, n_absent;
    bool json, printable;
    const char *stdout_to;
} checks;

/* The checks before "--"; returns the index of the command, or 0. */
static int parse_checks(int argc, char **argv, checks *c)
{
    c->want = atoi(argv[1]);
    int i = 2;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--stderr-lines") == 0 && i + 1 < argc)
            c->want_lines = atol(argv[++i]);
        else if (strcmp(argv[i], "--stderr-has") == 0 && i + 1 < argc && c->n_err < 8)
            c->err_has[c->n_err++] = argv[++i];
        else if (strcmp(argv[i], "--stdout-has") == 0 && i + 1 < argc && c->n_out < 8)
            c->out_has[c->n_out++] = argv[++i];
        else if (strcmp(argv[i], "--json-has") == 0 && i + 1 < argc && c->n_json < 8 &&
                 strchr(argv[i + 1], '='))
            c->json_has[c->n_json++] = argv[++i];
        else if (strcmp(argv[i], "--stdout-json") == 0)
            c->json = true;
        else if (strcmp(argv[i], "--printable") == 0)
            c->printable = true;
        else if (strcmp(argv[i], "--absent") == 0 && i + 1 < argc && c->n_absent < 8)
            c->absent[c->n_absent++] = argv[++i];
        else if (strcmp(argv[i], "--stdout-to") == 0 && i + 1 < argc)
            c->stdout_to = argv[++i];
        else {
            fprintf(stderr, "expect_exit: bad option %s\n", argv[i]);
            return 0;
        }
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "expect_exit: no command\n");
        return 0;
    }
    return i + 1;
}

/* cmd after the words of DV_TEST_WRAPPER (a new array; cmd itself if unset). */
static char **wrapped(char **cmd)
{
    const char *w = getenv("DV_TEST_WRAPPER");
    if (!w || !*w)
        return cmd;
    size_t n = 0, words = 0;
    while (cmd[n])
        n++;
    char *copy = strdup(w);
    char **all = malloc((strlen(w) + n + 2) * sizeof *all);
    if (!copy || !all)
        return cmd;
    for (char *save = NULL, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
        all[words++] = t;
    for (size_t i = 0; i <= n; i++)
        all[words + i] = cmd[i];
    return all;
}

/* Runs cmd with stdout and stderr into the two files; false if it cannot. */
static bool run(char **cmd, int out_fd, int err_fd, int *status)
{
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        cmd = wrapped(cmd);
        execvp(cmd[0], cmd);
        perror("exec");
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, status, 0) < 0) {
        perror("expect_exit");
        return false;
    }
    return true;
}

static int check_json(const checks *c, const char *out)
{
    if (!c->json && !c->n_json)
        return 0;
    cJSON *doc = out ? cJSON_ParseWithOpts(out, NULL, true) : NULL; /* nothing after it but white space */
    if (!doc) {
        printf("FAIL: stdout is not one JSON document\n");
        return 1;
    }
    int fails = 0;
    for (int k = 0; k < c->n_json; k++) {
        char ptr[512];
        snprintf(ptr, sizeof ptr, "%s", c->json_has[k]);
        char *eq = strchr(ptr, '=');
        *eq = '\0';
        if (!json_has(doc, ptr, eq + 1)) {
            printf("FAIL: the JSON on stdout lacks %s\n", c->json_has[k]);
            fails++;
        }
    }
    cJSON_Delete(doc);
    return fails;
}

static int check(const checks *c, int status, const char *out, const char *err, size_t err_len)
{
    int fails = 0;
    if (!WIFEXITED(status)) {
        printf("FAIL: died with signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : -1);
        fails++;
    } else if (WEXITSTATUS(status) != c->want) {
        printf("FAIL: exit code %d, expected %d\n", WEXITSTATUS(status), c->want);
        fails++;
    }
    long lines = 0;
    for (size_t k = 0; err && k < err_len; k++)
        lines += err[k] == '\n';
    if (c->want_lines >= 0 && lines != c->want_lines) {
        printf("FAIL: %ld stderr lines, expected %ld\n", lines, c->want_lines);
        fails++;
    }
    for (int k = 0; k < c->n_err; k++) {
        if (!err || !strstr(err, c->err_has[k])) {
            printf("FAIL: stderr lacks \"%s\"\n", c->err_has[k]);
            fails++;
        }
    }
    for (int k = 0; k < c->n_out; k++) {
        if (!out || !strstr(out, c->out_has[k])) {
            printf("FAIL: stdout lacks \"%s\"\n", c->out_has[k]);
            fails++;
        }
    }
    for (int pass = 0; c->printable && pass < 2; pass++) {
        const char *t = pass ? err : out;
        for (size_t k = 0; t && t[k]; k++) {
            unsigned char ch = (unsigned char)t[k];
            if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch >= 0x7f) {
                printf("FAIL: %s has byte 0x%02x at %zu\n", pass ? "stderr" : "stdout", ch, k);
                fails++;
                break;
            }
        }
    }
    for (int k = 0; k < c->n_absent; k++) {
        if (access(c->absent[k], F_OK) == 0) {
            printf("FAIL: %s exists\n", c->absent[k]);
            fails++;
        }
    }
    return fails + check_json(c, out);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: expect_exit CODE [checks] -- CMD ARGS...\n");
        return 2;
    }
    checks c = {.want_lines = -1};
    int cmd = parse_checks(argc, argv, &c);
    if (!cmd)
        return 2;
    char out_tmpl[] = "/tmp/expect_outXXXXXX", err_tmpl[] = "/tmp/expect_errXXXXXX";
    int out_fd = mkstemp(out_tmpl), err_fd = mkstemp(err_tmpl);
    if (out_fd < 0 || err_fd < 0) {
        perror("expect_exit: mkstemp");
        return 2;
    }
    unlink(out_tmpl);
    unlink(err_tmpl);
    int to_fd = c.stdout_to ? open(c.stdout_to, O_WRONLY | O_CREAT | O_TRUNC, 0666) : out_fd;
    if (to_fd < 0) {
        perror(c.stdout_to);
        return 2;
    }
    for (int k = 0; k < c.n_absent; k++)
        if (remove(c.absent[k]) != 0 && access(c.absent[k], F_OK) == 0) {
            perror(c.absent[k]);
            return 2;
        }
    int status;
    bool ran = run(argv + cmd, to_fd, err_fd, &status);
    if (c.stdout_to)
        close(to_fd);
    if (!ran)
        return 2;
    size_t out_len, err_len;
    lseek(out_fd, 0, SEEK_SET);
    lseek(err_fd, 0, SEEK_SET);
    char *out = slurp(out_fd, &out_len), *err = slurp(err_fd, &err_len);
    int fails = check(&c, status, out, err, err_len);
    printf("--- stderr ---\n%s--- stdout (first 2000 bytes) ---\n%.2000s\n", err ? err : "", out ? out : "");
    free(out);
    free(err);
    return fails ? 1 : 0;
}
