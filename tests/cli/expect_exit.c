/* expect_exit.c - runs a command and checks its exit code and output.
 *
 * usage: expect_exit CODE [--stderr-lines N] [--stderr-has TEXT]... [--stdout-has TEXT]... -- CMD ARGS...
 *
 * Used by the CLI tests: dvsim must answer bad input with the documented exit
 * code and exactly one line on stderr, never a crash. */
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

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: expect_exit CODE [checks] -- CMD ARGS...\n");
        return 2;
    }
    int want = atoi(argv[1]);
    long want_lines = -1;
    const char *err_has[8], *out_has[8];
    int n_err = 0, n_out = 0;
    int i = 2;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--stderr-lines") == 0 && i + 1 < argc)
            want_lines = atol(argv[++i]);
        else if (strcmp(argv[i], "--stderr-has") == 0 && i + 1 < argc && n_err < 8)
            err_has[n_err++] = argv[++i];
        else if (strcmp(argv[i], "--stdout-has") == 0 && i + 1 < argc && n_out < 8)
            out_has[n_out++] = argv[++i];
        else {
            fprintf(stderr, "expect_exit: bad option %s\n", argv[i]);
            return 2;
        }
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "expect_exit: no command\n");
        return 2;
    }
    char **cmd = argv + i + 1;
    char out_tmpl[] = "/tmp/expect_outXXXXXX", err_tmpl[] = "/tmp/expect_errXXXXXX";
    int out_fd = mkstemp(out_tmpl), err_fd = mkstemp(err_tmpl);
    if (out_fd < 0 || err_fd < 0) {
        perror("expect_exit: mkstemp");
        return 2;
    }
    unlink(out_tmpl);
    unlink(err_tmpl);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execv(cmd[0], cmd);
        perror("exec");
        _exit(127);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
        perror("expect_exit");
        return 2;
    }
    size_t out_len, err_len;
    lseek(out_fd, 0, SEEK_SET);
    lseek(err_fd, 0, SEEK_SET);
    char *out = slurp(out_fd, &out_len), *err = slurp(err_fd, &err_len);
    int fails = 0;
    if (!WIFEXITED(status)) {
        printf("FAIL: %s died with signal %d\n", cmd[0], WIFSIGNALED(status) ? WTERMSIG(status) : -1);
        fails++;
    } else if (WEXITSTATUS(status) != want) {
        printf("FAIL: exit code %d, expected %d\n", WEXITSTATUS(status), want);
        fails++;
    }
    long lines = 0;
    for (size_t k = 0; err && k < err_len; k++)
        lines += err[k] == '\n';
    if (want_lines >= 0 && lines != want_lines) {
        printf("FAIL: %ld stderr lines, expected %ld\n", lines, want_lines);
        fails++;
    }
    for (int k = 0; k < n_err; k++) {
        if (!err || !strstr(err, err_has[k])) {
            printf("FAIL: stderr lacks \"%s\"\n", err_has[k]);
            fails++;
        }
    }
    for (int k = 0; k < n_out; k++) {
        if (!out || !strstr(out, out_has[k])) {
            printf("FAIL: stdout lacks \"%s\"\n", out_has[k]);
            fails++;
        }
    }
    printf("--- stderr ---\n%s--- stdout (first 2000 bytes) ---\n%.2000s\n", err ? err : "", out ? out : "");
    free(out);
    free(err);
    return fails ? 1 : 0;
}
