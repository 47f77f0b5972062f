/* cmd_isa.c - dvsim isa: the instruction set, as a table or as docs/isa.md. */
#include "cli.h"
#include "dv_isa.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

void cmd_isa_help(FILE *out)
{
    fprintf(out, "usage: dvsim isa [--markdown] [--check FILE]\n\n"
                 "Prints every instruction with its opcode, pipe and syntax.\n\n"
                 "  --markdown    print the reference page (docs/isa.md) instead\n"
                 "  --check FILE  exit 1 unless FILE equals the generated reference page\n");
}

static int check_file(const char *path, const char *expect)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "dvsim isa: cannot open %s\n", path);
        return 66;
    }
    size_t n = strlen(expect);
    char *buf = malloc(n + 2);
    size_t got = buf ? fread(buf, 1, n + 1, f) : 0;
    fclose(f);
    int same = buf && got == n && memcmp(buf, expect, n) == 0;
    free(buf);
    if (!same) {
        fprintf(stderr,
                "dvsim isa: %s does not match the ISA tables; regenerate it with "
                "'dvsim isa --markdown > %s'\n",
                path, path);
        return 1;
    }
    return 0;
}

int cmd_isa(int argc, char **argv)
{
    enum { MARKDOWN = CLI_OPT_FIRST, CHECK };
    static const struct option longopts[] = {{"markdown", no_argument, NULL, MARKDOWN},
                                             {"check", required_argument, NULL, CHECK},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    bool markdown = false;
    const char *check = NULL;
    cli_getopt g;
    cli_getopt_init(&g, "isa", argc, argv, "h", longopts, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_isa_help(stdout); return 0;
        case MARKDOWN: markdown = true; break;
        case CHECK: check = g.arg; break;
        case CLI_ARG: return cli_usage_error("isa", "unknown argument '%s'", g.arg);
        default: return EXIT_USAGE;
        }
    }
    if (markdown || check) {
        char *md = NULL;
        dv_error err = {DV_OK, ""};
        if (dv_isa_markdown(&md, &err) != DV_OK)
            return cli_fail(&err);
        int rc = 0;
        if (check)
            rc = check_file(check, md);
        else
            fputs(md, stdout);
        free(md);
        return rc;
    }
    char syntax[512];
    printf("%-6s %-5s %-7s %s\n", "opcode", "pipe", "class", "syntax");
    for (size_t i = 0; i < dv_isa_count(); i++) {
        const dv_insn_info *info = dv_isa_at(i);
        dv_isa_syntax(info, syntax, sizeof syntax);
        printf("0x%02x   %-5s %-7s %s\n", (unsigned)info->opcode,
               info->pipe == DV_PIPE_DYN ? "*" : dv_pipe_name(info->pipe), dv_tclass_name(info->tclass),
               syntax);
    }
    printf("\n(* = the pipe is named in the instruction; %zu instructions)\n", dv_isa_count());
    return 0;
}
