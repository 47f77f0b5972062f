/* dvsim_api.h - libdvsim, the shared library the Python package loads
 * (python/dvsim, through ctypes): one operator run, in the calling process,
 * through the operator driver dvsim run uses (dv_opjob.h), so it gives the
 * same cycles and the same statistics as `dvsim run OP ... --out DIR`.
 * A C ABI of plain types only: nothing of dvsim's headers is needed to call it. */
#ifndef DVSIM_API_H
#define DVSIM_API_H

#include <stddef.h>
#include <stdint.h>

#define DVSIM_API __attribute__((visibility("default")))

/* Runs operator op (dvsim ops) with variant, dtype and shape ("M=256,N=256"; each NULL for
 * the operator's default) on chip (a built-in name; NULL: the default chip) or the INI
 * config file config (when not NULL), changed by the nsets "key=value" of sets, with the
 * seed, on blocks cores (0: the tiling chooses), with data (1: and the reference check) or
 * timing only (0).  On return *json is the statistics as stats.json writes them (malloc'd;
 * free with dvsim_free), also when the check failed or the kernel faulted.  Returns dvsim
 * run's exit code: 0, 1 (a fault, a deadlock, the cycle limit, a mismatch), 65 (a bad shape,
 * dtype, variant or operator), 78 (a bad chip or key), 71; err gets one line when not 0. */
DVSIM_API int dvsim_run_op(const char *op, const char *variant, const char *dtype, const char *shape,
                           const char *chip, const char *config, const char *const *sets, int nsets,
                           uint64_t seed, uint64_t blocks, int data, char **json, char *err, size_t errlen);
/* The built-in chips and a config file as INI text (dvsim_free), for the roofs of a plot. */
DVSIM_API int dvsim_chip_ini(const char *chip, const char *const *sets, int nsets, char **ini, char *err,
                             size_t errlen);
DVSIM_API void dvsim_free(void *p);
DVSIM_API const char *dvsim_version(void);

#endif
