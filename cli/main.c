/* main.c - dvsim: subcommand dispatch and top-level help. */
#include "cli.h"

#include <getopt.h>
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
    {"profile",
     "run and say where every cycle went: per source line, instruction and pipe, with stall reasons",
     cmd_profile, cmd_profile_help},
    {"diff", "compare two runs (--out folders or stats/profile JSON): what moved per metric and line",
     cmd_diff, cmd_diff_help},
    {"sweep", "run a design-space sweep (a local pool, GNU parallel or Slurm) into results.csv", cmd_sweep,
     cmd_sweep_help},
    {"rt", "run a script of streams, events and launches through the host runtime (several kernels at once)",
     cmd_rt, cmd_rt_help},
    {"viz", "run with a live window of the pipes (SDL2), or render its frames to PNG", cmd_viz, cmd_viz_help},
    {"ops", "list the operators (their variants, dtypes and shape parameters)", cmd_ops, cmd_ops_help},
    {"bench", "measure the simulator's own speed on fixed workloads, next to the host's GEMM rate", cmd_bench,
     cmd_bench_help},
    {"regress", "run the performance baseline's operator entries and report what moved", cmd_regress,
     cmd_regress_help},
    {"correlate", "hold the model against measured 910B1 curves: error per point, MAE per curve",
     cmd_correlate, cmd_correlate_help},
    {"chips", "list the chip configs (built in and in DVSIM_CHIP_PATH) with their key figures", cmd_chips,
     cmd_chips_help},
    {"counters", "list the performance-counter events (numbers for pmevtyperN)", cmd_counters,
     cmd_counters_help},
    {"pmu-dump", "print a PMU sample file (from run --pmu-period) as CSV or JSON", cmd_pmu_dump,
     cmd_pmu_dump_help},
    {"isa", "print the instruction set (or its Markdown reference page)", cmd_isa, cmd_isa_help},
    {"compile", "compile an ONNX model (fusion, layouts, GM plan) into a .dvm; --ref checks it on the CPU",
     cmd_compile, cmd_compile_help},
    {"graph", "run a model (ONNX or .dvm) on the chip through the runtime: per-step table, latency, check",
     cmd_graph, cmd_graph_help},
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

static const cli_command *find(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    static const struct option top[] = {
        {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0}};
    /* in order: the options up to the command are dvsim's, the rest the command's */
    cli_getopt g;
    cli_getopt_init(&g, NULL, argc, argv, "hV", top, true);
    int c;
    while ((c = cli_getopt_next(&g)) != -1 && c != CLI_ARG) {
        switch (c) {
        case 'h': usage(stdout); return cli_stdout_done();
        case 'V': printf("dvsim %s\n", DVSIM_VERSION); return cli_stdout_done();
        default: return EXIT_USAGE;
        }
    }
    if (c == -1) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = g.arg;
    int first = optind - 1; /* argv[first] is the command: its own argv[0] */
    if (strcmp(name, "help") == 0) {
        const cli_command *cmd = first + 1 < argc ? find(argv[first + 1]) : NULL;
        if (cmd)
            cmd->help(stdout);
        else
            usage(stdout);
        return cli_stdout_done();
    }
    if (strcmp(name, "version") == 0) {
        printf("dvsim %s\n", DVSIM_VERSION);
        return cli_stdout_done();
    }
    const cli_command *cmd = find(name);
    if (!cmd) {
        fprintf(stderr, "dvsim: unknown command '%s' (see 'dvsim --help')\n", name);
        return EXIT_USAGE;
    }
    /* what the command printed is checked here, once for every command */
    int rc = cmd->run(argc - first, argv + first);
    return rc ? rc : cli_stdout_done();
}
