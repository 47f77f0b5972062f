/* host_gemm.c - the host's own fp32 GEMM rate, the yardstick `dvsim bench`
 * measures the functional Cube against: a plain C kernel with GCC vector
 * types, register-blocked 4 rows x 32 columns (AVX-512) or 4 x 16 (AVX2
 * and baseline x86-64), picked at run time; and OpenBLAS's
 * cblas_sgemm on one thread when the library is installed (dlopen, no
 * build dependency). */
#include "host_gemm.h"

#include "cli.h"
#include "dv_simd.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef float v16 __attribute__((vector_size(64)));
typedef float v8 __attribute__((vector_size(32)));

/* C[n x n] += A[n x n] * B[n x n], row-major, n a multiple of 32: 4 rows
 * by 2 vectors of L floats, wide or narrow (dv_simd.h). */
#define GEMM_BLOCKED(name, V, L, target)                                                                     \
    target static void name(unsigned n, const float *a, const float *b, float *c)                            \
    {                                                                                                        \
        for (unsigned i = 0; i < n; i += 4)                                                                  \
            for (unsigned j = 0; j < n; j += 2 * (L)) {                                                      \
                V acc[4][2];                                                                                 \
                for (unsigned r = 0; r < 4; r++)                                                             \
                    memcpy(acc[r], c + (i + r) * n + j, sizeof acc[r]);                                      \
                for (unsigned k = 0; k < n; k++) {                                                           \
                    V b0, b1;                                                                                \
                    memcpy(&b0, b + k * n + j, sizeof b0);                                                   \
                    memcpy(&b1, b + k * n + j + (L), sizeof b1);                                             \
                    DV_UNROLL                                                                                \
                    for (unsigned r = 0; r < 4; r++) {                                                       \
                        float x = a[(i + r) * n + k];                                                        \
                        acc[r][0] += x * b0;                                                                 \
                        acc[r][1] += x * b1;                                                                 \
                    }                                                                                        \
                }                                                                                            \
                for (unsigned r = 0; r < 4; r++)                                                             \
                    memcpy(c + (i + r) * n + j, acc[r], sizeof acc[r]);                                      \
            }                                                                                                \
    }

GEMM_BLOCKED(gemm_wide, v16, 16, DV_TARGET_WIDE)
GEMM_BLOCKED(gemm_narrow, v8, 8, DV_TARGET_NARROW)

static void gemm_blocked(unsigned n, const float *a, const float *b, float *c)
{
    (DV_CPU_WIDE() ? gemm_wide : gemm_narrow)(n, a, b, c);
}

/* The thread's CPU clock: the machines are shared, wall time is not the
 * host's rate (OpenBLAS runs on this thread: one thread set). */
static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                         float *, int);
typedef void (*threads_fn)(int);

double host_gemm_flops(unsigned n, bool openblas, char *what, size_t what_size)
{
    float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n),
          *c = calloc((size_t)n * n, 4);
    double rate = 0;
    if (!a || !b || !c)
        goto done;
    for (unsigned i = 0; i < n * n; i++) {
        a[i] = (float)((i * 7u) % 13) / 13.0f - 0.5f;
        b[i] = (float)((i * 5u) % 11) / 11.0f - 0.5f;
    }
    if (openblas) {
        void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
        sgemm_fn sgemm = h ? (sgemm_fn)(uintptr_t)dlsym(h, "cblas_sgemm") : NULL;
        threads_fn threads = h ? (threads_fn)(uintptr_t)dlsym(h, "openblas_set_num_threads") : NULL;
        if (!sgemm) {
            snprintf(what, what_size, "OpenBLAS not installed");
            if (h)
                dlclose(h);
            goto done;
        }
        if (threads)
            threads(1);
        enum { ROW_MAJOR = 101, NO_TRANS = 111 };
        sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, (int)n, (int)n, (int)n, 1.0f, a, (int)n, b, (int)n, 1.0f, c,
              (int)n);
        double t0 = thread_cpu();
        sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, (int)n, (int)n, (int)n, 1.0f, a, (int)n, b, (int)n, 1.0f, c,
              (int)n);
        rate = 2.0 * n * n * (double)n / (thread_cpu() - t0);
        snprintf(what, what_size, "OpenBLAS cblas_sgemm, 1 thread");
        dlclose(h);
    } else {
        gemm_blocked(n, a, b, c); /* warm */
        double t0 = thread_cpu();
        gemm_blocked(n, a, b, c);
        rate = 2.0 * n * n * (double)n / (thread_cpu() - t0);
        snprintf(what, what_size, "C with vector types, %s register block", DV_CPU_WIDE() ? "4x32" : "4x16");
    }
done:
    free(a);
    free(b);
    free(c);
    return rate;
}
