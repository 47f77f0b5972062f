/* cli_asm.h - how dvsim assembles a source (dvsim asm, and dvsim run of a
 * .dvs): the folders searched for .include (the -I folders in order, then
 * the kernel library, kernels/lib) and the predefined symbols ev.NAME of the
 * event catalogue, the same as the build's dvs2c gives the operators'
 * kernels. */
#ifndef DV_CLI_ASM_H
#define DV_CLI_ASM_H

#include "dv_asm.h"

enum { CLI_MAX_INCLUDES = 64 };

typedef struct cli_asm_path {
    const char *dirs[CLI_MAX_INCLUDES + 1]; /* room for the library after the -I folders */
    size_t n;
} cli_asm_path;

/* Adds an -I folder; 0, or the usage error's exit code after saying so. */
int cli_asm_path_add(cli_asm_path *p, const char *cmd, const char *dir);
/* The assembler's options over p (p must outlive them); the kernel library
 * goes last, so a folder of the user's may override one of its files. */
dv_asm_options cli_asm_options(cli_asm_path *p);

#endif
