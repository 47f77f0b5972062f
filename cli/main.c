/* main.c - dvsim: subcommand dispatch and top-level help. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#ifndef DVSIM_VERSION
#define DVSIM_VERSION "unknown"
#endif

static const cli_command commands[] = {
    {"asm", "assemble a .dvs kernel source into an ELF kernel object", cmd_asm, cmd_asm_help},
    {"disasm", "list an ELF kernel object as assembly with addresses, encodings and source lines", cmd_disasm,
     cmd_disasm_help},
    {"run", "simulate an operator or a kernel and report where the cycles went", cmd_run, cmd_run_help},
    {"viz", "run with a live window of the pipes (SDL2), or render its frames to PNG", cmd_viz, cmd_viz_help},
    {"ops", "list the operators (their variants, dtypes and shape parameters)", cmd_ops, cmd_ops_help},
    {"bench", "measure the simulator's own speed on fixed workloads, next to the host's GEMM rate", cmd_bench,
     cmd_bench_help},
    {"regress", "run the performance baseline's operator entries and report what moved", cmd_regress,
     cmd_regress_help},
    {"chips", "list the chip configs (built in and in DVSIM_CHIP_PATH) with their key figures", cmd_chips,
     cmd_chips_help},
    {"counters", "list the performance-counter events (numbers for pmevtyperN)", cmd_counters,
     cmd_counters_help},
    {"pmu-dump", "print a PMU sample file (from run --pmu-period) as CSV or JSON", cmd_pmu_dump,
     cmd_pmu_dump_help},
    {"isa", "print the instruction set (or its Markdown reference page)", cmd_isa, cmd_isa_help},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static void usage(FILE *out)
{
    fprintf(out, "usage: dvsim COMMAND [OPTIONS]\n\n"
                 "dvsim simulates the Da Vinci AI core of Ascend NPUs.\n\ncommands:\n");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n'dvsim COMMAND --help' describes a command.  Exit codes: 0 ok, 1 check failed, 64 usage,\n"
            "65 bad input data, 66 missing input, 70 internal error, 74 I/O error, 78 bad config,\n"
            "130 interrupted (Ctrl-C).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (cli_is_help(cmd) || strcmp(cmd, "help") == 0) {
        if (argc > 2 && strcmp(cmd, "help") == 0) {
            for (int i = 0; i < NCOMMANDS; i++) {
                if (strcmp(commands[i].name, argv[2]) == 0) {
                    commands[i].help(stdout);
                    return 0;
                }
            }
        }
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("dvsim %s\n", DVSIM_VERSION);
        return 0;
    }
    for (int i = 0; i < NCOMMANDS; i++) {
        if (strcmp(commands[i].name, cmd) == 0) {
            for (int k = 2; k < argc; k++) {
                if (strcmp(argv[k], "--") == 0)
                    break;
                if (cli_is_help(argv[k])) {
                    commands[i].help(stdout);
                    return 0;
                }
            }
            return commands[i].run(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "dvsim: unknown command '%s' (see 'dvsim --help')\n", cmd);
    return EXIT_USAGE;
}
