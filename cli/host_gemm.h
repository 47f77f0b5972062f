/* host_gemm.h - the host's single-thread fp32 GEMM rate (dvsim bench). */
#ifndef DV_HOST_GEMM_H
#define DV_HOST_GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* FLOP/s of an n x n x n fp32 GEMM on one thread: the plain C kernel, or
 * OpenBLAS when openblas is true (0 if it is not installed; what says). */
double host_gemm_flops(unsigned n, bool openblas, char *what, size_t what_size);

#endif
