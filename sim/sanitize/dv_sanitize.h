/* dv_sanitize.h - the kernel sanitizer: checks a kernel's synchronisation
 * and memory use in the same run that measures its cycles (docs/sanitizer.md).
 *
 * It is an observer (dv_hooks.h) of every buffer access of every pipe and
 * core (dv_trace_access) and of every flag, barrier, cross-core flag and
 * block start, and keeps four checks:
 *   race  happens-before over the (core, pipe) pairs with vector clocks:
 *         program order in a pipe, the Scalar unit's dispatch order,
 *         set_flag -> wait_flag, pipe_barrier pipe=all, cross-core flags
 *         (modes 0, 1, 2), block boundaries; every pair of accesses to
 *         overlapping bytes of a buffer (GM across cores), one a write, that
 *         is not ordered is a race, whatever the timing made of it;
 *   sync  a set_flag on a flag already set (lost), flags set and never
 *         waited for when a block ends, a wait that can never be satisfied,
 *         a cross-core counter overflow; notes for barriers that order nothing;
 *   init  a read of on-chip bytes never written in this launch, or of GM
 *         bytes of a tensor given as uninitialised;
 *   mem   the faults of the run (out of range, misaligned) and GM accesses
 *         outside every tensor the kernel was given.
 * Findings are reported once per pair of source lines (race) or per source
 * line, in the order the run met them, so a report is deterministic.  One
 * dv_san follows the launches of a run (dv_san_attach per launch). */
#ifndef DV_SANITIZE_H
#define DV_SANITIZE_H

#include "dv_buf.h"
#include "dv_sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum dv_san_check {
    DV_SAN_RACE = 1,
    DV_SAN_SYNC = 2,
    DV_SAN_INIT = 4,
    DV_SAN_MEM = 8,
    DV_SAN_ALL = 15,
} dv_san_check;

typedef struct dv_san dv_san;

/* "race,sync,init,mem" (any subset, comma separated; NULL or "" or "all":
 * every check) into a mask of dv_san_check; DV_ERR_USAGE naming the bad word. */
dv_status dv_san_parse_checks(const char *spec, unsigned *checks, dv_error *err);

dv_san *dv_san_create(unsigned checks, dv_error *err);
void dv_san_destroy(dv_san *san);
/* A GM tensor the kernel was given (name is copied): accesses outside every
 * tensor are memcheck findings (none are checked when no tensor is given);
 * reads of an uninit tensor's bytes no launch has written are initcheck's. */
dv_status dv_san_add_tensor(dv_san *san, const char *name, uint64_t addr, uint64_t len, bool uninit,
                            dv_error *err);
/* Watches the next launch, sim (before it starts): the on-chip state and the
 * clocks start afresh, the findings accumulate. */
dv_status dv_san_attach(dv_san *san, dv_sim *sim, dv_error *err);
/* After sim's run (res): what is still pending (waits, flags set), and the
 * run's fault as a finding.  Call before the next launch is attached. */
void dv_san_finish(dv_san *san, dv_sim *sim, const dv_run_result *res);

typedef struct dv_san_counts {
    size_t race, sync, init, mem, notes; /* notes are not findings */
} dv_san_counts;
void dv_san_counts_of(const dv_san *san, dv_san_counts *out);
size_t dv_san_findings(const dv_san *san); /* race + sync + init + mem */
/* One line per finding and note, then the summary line. */
dv_status dv_san_report_text(const dv_san *san, dv_buf *out);
/* {"checks": [...], "findings": [{"check": "race", "text": ..., ...}], "summary": {...}} */
dv_status dv_san_report_json(const dv_san *san, dv_buf *out);

#endif
