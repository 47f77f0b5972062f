/* cli.h - the dvsim command-line front end.  Each subcommand is a function
 * that parses its own arguments and returns the process exit code
 * (CONVENTIONS.md: 0 ok, 1 check failed, 64 usage, 65 bad input data,
 * 66 missing input, 70 internal, 71 out of memory, 74 I/O, 78 config;
 * docs/errors.md). */
#ifndef DV_CLI_H
#define DV_CLI_H

#include "dv_status.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { EXIT_USAGE = 64 };

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
    void (*help)(FILE *out);
} cli_command;

int cmd_asm(int argc, char **argv);
void cmd_asm_help(FILE *out);
int cmd_disasm(int argc, char **argv);
void cmd_disasm_help(FILE *out);
int cmd_run(int argc, char **argv);
void cmd_run_help(FILE *out);
int cmd_correlate(int argc, char **argv);
void cmd_correlate_help(FILE *out);
int cmd_chips(int argc, char **argv);
void cmd_chips_help(FILE *out);
int cmd_counters(int argc, char **argv);
void cmd_counters_help(FILE *out);
int cmd_pmu_dump(int argc, char **argv);
void cmd_pmu_dump_help(FILE *out);
int cmd_ops(int argc, char **argv);
void cmd_ops_help(FILE *out);
int cmd_regress(int argc, char **argv);
void cmd_regress_help(FILE *out);
int cmd_bench(int argc, char **argv);
void cmd_bench_help(FILE *out);
int cmd_isa(int argc, char **argv);
void cmd_isa_help(FILE *out);
int cmd_profile(int argc, char **argv);
void cmd_profile_help(FILE *out);
int cmd_diff(int argc, char **argv);
void cmd_diff_help(FILE *out);
int cmd_compile(int argc, char **argv);
void cmd_compile_help(FILE *out);
/* dvsim graph: a compiled plan run on the chip through the host runtime (graph/dv_graph_run.h). */
int cmd_graph(int argc, char **argv);
void cmd_graph_help(FILE *out);
int cmd_sweep(int argc, char **argv);
void cmd_sweep_help(FILE *out);
int cmd_rt(int argc, char **argv);
void cmd_rt_help(FILE *out);
/* dvsim viz: dvsim run with the SDL window (viz/) taking over the run. */
int cmd_viz(int argc, char **argv);
void cmd_viz_help(FILE *out);
struct cli_run_hooks;
int cmd_run_with(int argc, char **argv, const struct cli_run_hooks *hooks);

/* Prints "dvsim: message" to stderr and returns the exit code of the status. */
int cli_fail(const dv_error *err);
/* Prints "dvsim CMD: message (see 'dvsim CMD --help')" for a usage error
 * and returns 64 (cmd NULL: the top level, "dvsim: ..."). */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Options, through getopt_long: "--chip X" and "--chip=X", unambiguous
 * prefixes of long options, "-oFILE", "--" ending the options.  Options and
 * positional arguments may come in any order and are returned in the order
 * given (getopt's "-" mode, whatever POSIXLY_CORRECT says), except with
 * in_order (getopt's "+"): the first positional argument ends the options
 * (the top level, where what follows the command is the command's).
 *
 *     cli_getopt g;
 *     cli_getopt_init(&g, "asm", argc, argv, "ho:I:", longopts, false);
 *     for (int c; (c = cli_getopt_next(&g)) != -1;)
 *         switch (c) { case 'o': out = g.arg; break; case CLI_ARG: src = g.arg; break; ...
 *                      default: return EXIT_USAGE; }
 *
 * getopt keeps its state in globals: cli_getopt_init resets it, so every
 * subcommand parses from a clean start, also several in one process.
 * Values of long-only options start at CLI_OPT_FIRST: dvsim run's at
 * CLI_OPT_RUN, its trace options' at CLI_OPT_TRACE, those a command adds to
 * dvsim run's (dvsim viz, cli_run_hooks) at CLI_OPT_HOOK. */
enum {
    CLI_ARG = 1,
    CLI_BAD = '?',
    CLI_OPT_FIRST = 0x100,
    CLI_OPT_RUN = 0x100,
    CLI_OPT_TRACE = 0x180,
    CLI_OPT_HOOK = 0x200
};
struct option;
typedef struct cli_getopt {
    const char *cmd; /* for messages; NULL at the top level */
    int argc;
    char **argv; /* argv[0] is the command's name */
    const struct option *longopts;
    char optstring[64];
    bool rest; /* past "--": only positional arguments are left */
    char *arg; /* the option's value, or the positional argument (CLI_ARG); in argv */
} cli_getopt;
void cli_getopt_init(cli_getopt *g, const char *cmd, int argc, char **argv, const char *shortopts,
                     const struct option *longopts, bool in_order);
/* The next option's val (or 'h' and the like for short ones), CLI_ARG for a
 * positional argument, -1 at the end, or CLI_BAD after printing the one line
 * of a usage error (unknown or ambiguous option, a value missing or given
 * to an option that takes none): the caller returns EXIT_USAGE. */
int cli_getopt_next(cli_getopt *g);
/* JSON output goes through cJSON, which escapes every string.  A uint64_t
 * as a JSON number with all its digits (cJSON's own numbers are doubles). */
cJSON *cli_json_u64(uint64_t v);
/* Adds key: v to obj; false if memory ran out. */
bool cli_json_add_u64(cJSON *obj, const char *key, uint64_t v);
/* Prints root (formatted) and a newline on stdout and deletes it.  ok false
 * (or root NULL) means building it ran out of memory.  Returns the exit
 * code: 0, 71 out of memory, 74 stdout failed (cli_stdout_done). */
int cli_print_json(cJSON *root, bool ok);
/* Flushes stdout.  Returns 0, or 74 after "dvsim: writing to standard
 * output failed" on stderr if anything written to it so far failed (a full
 * disk: stdio's errors are sticky, so one call at the end sees them all).
 * main() calls it after every command that succeeded. */
int cli_stdout_done(void);
/* A number of the command line: dv_parse_u64 (dv_num.h), decimal, or hex
 * after 0x; no sign, no space, nothing after it ("010" is ten).  False if
 * s is not one or does not fit 64 bits. */
bool cli_parse_u64(const char *s, uint64_t *v);
/* True if arg is -h or --help. */
bool cli_is_help(const char *arg);
/* Monotonic host time in seconds (timing the simulator, not simulated time). */
double cli_now(void);
/* Writes data to path through a temporary name and a rename
 * (dv_write_file_atomic), or to stdout when path is "-". */
dv_status cli_write_file(const char *path, const void *data, size_t len, dv_error *err);

#endif
