/* cli_asm.c - the include path and the predefined symbols of dvsim's
 * assembler runs (cli_asm.h). */
#include "cli_asm.h"

#include "cli.h"
#include "dv_events.h"

#ifndef DV_KERNEL_LIB_DIR
#define DV_KERNEL_LIB_DIR "kernels/lib"
#endif

int cli_asm_path_add(cli_asm_path *p, const char *cmd, const char *dir)
{
    if (p->n == CLI_MAX_INCLUDES)
        return cli_usage_error(cmd, "more than %d -I options", CLI_MAX_INCLUDES);
    p->dirs[p->n++] = dir;
    return 0;
}

dv_asm_options cli_asm_options(cli_asm_path *p)
{
    size_t n = p->n;
    p->dirs[n] = DV_KERNEL_LIB_DIR; /* not counted in p->n: added once per call */
    dv_asm_options opt = {p->dirs, n + 1, 0};
    opt.symbols = dv_event_asm_symbols(&opt.nsymbols); /* ev.NAME: the event catalogue */
    return opt;
}
