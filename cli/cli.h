/* cli.h - the dvsim command-line front end.  Each subcommand is a function
 * that parses its own arguments and returns the process exit code
 * (CONVENTIONS.md: 0 ok, 1 check failed, 64 usage, 65 bad input data,
 * 66 missing input, 70 internal, 74 I/O, 78 config). */
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
/* dvsim viz: dvsim run with the SDL window (viz/) taking over the run. */
int cmd_viz(int argc, char **argv);
void cmd_viz_help(FILE *out);
struct cli_run_hooks;
int cmd_run_with(int argc, char **argv, const struct cli_run_hooks *hooks);

/* Prints "dvsim: message" to stderr and returns the exit code of the status. */
int cli_fail(const dv_error *err);
/* Prints "dvsim CMD: message" for a usage error and returns 64. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* JSON output goes through cJSON, which escapes every string.  A uint64_t
 * as a JSON number with all its digits (cJSON's own numbers are doubles). */
cJSON *cli_json_u64(uint64_t v);
/* Adds key: v to obj; false if memory ran out. */
bool cli_json_add_u64(cJSON *obj, const char *key, uint64_t v);
/* Prints root (formatted) and a newline on stdout and deletes it.  ok false
 * (or root NULL) means building it ran out of memory.  Returns the exit
 * code: 0, 70 out of memory, 74 stdout failed. */
int cli_print_json(cJSON *root, bool ok);
/* True if argv[i] is -h or --help. */
bool cli_is_help(const char *arg);
/* Monotonic host time in seconds (timing the simulator, not simulated time). */
double cli_now(void);
/* Writes data to path through a temporary name and a rename. */
dv_status cli_write_file(const char *path, const void *data, size_t len, dv_error *err);

#endif
