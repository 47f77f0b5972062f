/* rt_script.h - the script of dvsim rt (docs/runtime.md): streams, events,
 * device buffers, operator and kernel launches, event records and waits,
 * host callbacks, synchronise and dump, one command a line.  A script is
 * parsed whole first (a bad line is one error naming its line, before
 * anything runs), then run against a device of the host runtime. */
#ifndef DV_RT_SCRIPT_H
#define DV_RT_SCRIPT_H

#include "cli_asm.h"
#include "dv_rt.h"

typedef struct rt_script rt_script;

/* Parses path for a chip of ncores AI cores.  On a bad line: NULL, and
 * err says "FILE:LINE: what" (DV_ERR_INPUT; DV_ERR_MISSING for a file it
 * cannot read).  Kernel files are loaded here (.dvs assembled with incs). */
rt_script *rt_script_parse(const char *path, unsigned ncores, cli_asm_path *incs, dv_error *err);
void rt_script_free(rt_script *s);
/* Runs the script on d: every line in order (launches enqueue, sync and
 * dump synchronise), then a device synchronise.  An error names its line. */
dv_status rt_script_run(rt_script *s, dv_rt_device *d, dv_error *err);
/* Stream i's name (as the script named it). */
const char *rt_script_stream_name(const rt_script *s, unsigned i);
unsigned rt_script_streams(const rt_script *s);

#endif
