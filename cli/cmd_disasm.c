/* cmd_disasm.c - dvsim disasm: ELF kernel object -> listing. */
#include "cli.h"
#include "dv_disasm.h"

#include <stdlib.h>
#include <string.h>

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
    const char *path = NULL, *outpath = "-";
    dv_disasm_options opt = {true, true};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--no-raw") == 0)
            opt.raw = false;
        else if (strcmp(a, "--no-source") == 0)
            opt.source = false;
        else if (strcmp(a, "-o") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("disasm", "-o needs an argument");
            outpath = argv[++i];
        } else if (a[0] == '-' && a[1])
            return cli_usage_error("disasm", "unknown option '%s'", a);
        else if (path)
            return cli_usage_error("disasm", "one object at a time ('%s' and '%s')", path, a);
        else
            path = a;
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
