/* cmd_asm.c - dvsim asm: .dvs -> ELF kernel object. */
#include "cli.h"
#include "cli_asm.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

void cmd_asm_help(FILE *out)
{
    fprintf(out, "usage: dvsim asm SOURCE.dvs [-o OUT.elf] [-I DIR]...\n\n"
                 "Assembles a kernel source into an ELF kernel object (default output: SOURCE with .elf).\n"
                 "Every error is reported as file:line:col: message; exit code 65 if there are any.\n\n"
                 "  -o FILE   output file ('-' for standard output)\n"
                 "  -I DIR    also search DIR for .include files (before the kernel library, kernels/lib)\n");
}

static char *default_output(const char *src)
{
    size_t n = strlen(src);
    const char *dot = strrchr(src, '.');
    const char *slash = strrchr(src, '/');
    if (dot && (!slash || dot > slash))
        n = (size_t)(dot - src);
    char *out = malloc(n + 5);
    if (out) {
        memcpy(out, src, n);
        strcpy(out + n, ".elf");
    }
    return out;
}

int cmd_asm(int argc, char **argv)
{
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *src = NULL, *outpath = NULL;
    cli_asm_path incs = {{0}, 0};
    cli_getopt g;
    cli_getopt_init(&g, "asm", argc, argv, "ho:I:", longopts, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_asm_help(stdout); return 0;
        case 'o': outpath = g.arg; break;
        case 'I':
            if (cli_asm_path_add(&incs, "asm", g.arg) != 0)
                return EXIT_USAGE;
            break;
        case CLI_ARG:
            if (src)
                return cli_usage_error("asm", "one source file at a time ('%s' and '%s')", src, g.arg);
            src = g.arg;
            break;
        default: return EXIT_USAGE;
        }
    }
    if (!src)
        return cli_usage_error("asm", "no source file given");
    dv_asm_options opt = cli_asm_options(&incs);
    dv_obj *obj = NULL;
    dv_diags diags = {NULL, 0};
    dv_error err = {DV_OK, ""};
    dv_status st = dv_asm_file(src, &opt, &obj, &diags, &err);
    if (st != DV_OK) {
        if (diags.count) {
            for (size_t i = 0; i < diags.count; i++)
                fprintf(stderr, "%s\n", diags.lines[i]);
            fprintf(stderr, "dvsim asm: %zu error%s\n", diags.count, diags.count == 1 ? "" : "s");
        } else {
            fprintf(stderr, "dvsim: %s\n", err.msg);
        }
        dv_diags_free(&diags);
        return dv_status_exit_code(st);
    }
    char *def = outpath ? NULL : default_output(src);
    const char *dest = outpath ? outpath : def;
    uint8_t *bytes = NULL;
    size_t size = 0;
    st =
        dest ? dv_obj_write_elf(obj, &bytes, &size, &err) : dv_error_set(&err, DV_ERR_NOMEM, "out of memory");
    if (st == DV_OK)
        st = cli_write_file(dest, bytes, size, &err);
    free(bytes);
    free(def);
    dv_obj_destroy(obj);
    return st == DV_OK ? 0 : cli_fail(&err);
}
