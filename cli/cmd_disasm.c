/* cmd_disasm.c - dvsim disasm: ELF kernel object -> listing. */
#include "cli.h"
#include "dv_disasm.h"

#include <getopt.h>

void cmd_disasm_help(FILE *out)
{
    fprintf(out, "usage: dvsim disasm FILE.elf [--no-raw] [--no-source] [-o OUT.dvs]\n\n"
                 "Lists a kernel object: kernels with their arguments, each instruction with its address,\n"
                 "encoding and source line.  The listing assembles back to the same bytes.\n\n"
                 "  --no-raw     leave out addresses and encodings\n"
                 "  --no-source  leave out source file:line comments\n"
                 "  -o FILE      write the listing to FILE instead of standard output\n");
}

int cmd_disasm(int argc, char **argv)
{
    enum { NO_RAW = CLI_OPT_FIRST, NO_SOURCE };
    static const struct option longopts[] = {{"no-raw", no_argument, NULL, NO_RAW},
                                             {"no-source", no_argument, NULL, NO_SOURCE},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *path = NULL, *outpath = "-";
    dv_disasm_options opt = {true, true};
    cli_getopt g;
    cli_getopt_init(&g, "disasm", argc, argv, "ho:", longopts, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_disasm_help(stdout); return 0;
        case NO_RAW: opt.raw = false; break;
        case NO_SOURCE: opt.source = false; break;
        case 'o': outpath = g.arg; break;
        case CLI_ARG:
            if (path)
                return cli_usage_error("disasm", "one object at a time ('%s' and '%s')", path, g.arg);
            path = g.arg;
            break;
        default: return EXIT_USAGE;
        }
    }
    if (!path)
        return cli_usage_error("disasm", "no object file given");
    dv_error err = {DV_OK, ""};
    dv_obj *obj = NULL;
    if (dv_obj_load(path, &obj, &err) != DV_OK)
        return cli_fail(&err);
    dv_buf out = DV_BUF_INIT;
    dv_buf_printf(&out, "; dvsim disassembly of %s\n", path);
    dv_status st = dv_disasm_obj(obj, &opt, &out, &err);
    if (st == DV_OK)
        st = cli_write_file(outpath, out.data, out.len, &err);
    dv_buf_free(&out);
    dv_obj_destroy(obj);
    return st == DV_OK ? 0 : cli_fail(&err);
}
