/* host_gemm.c - the host's own fp32 GEMM rate, the yardstick `dvsim bench`
 * measures the functional Cube against: a plain C kernel with GCC vector
 * types (16 floats), register-blocked 4 rows x 32 columns, compiled for
 * AVX-512, AVX2 and baseline x86-64 and picked at run time; and OpenBLAS's
 * cblas_sgemm on one thread when the library is installed (dlopen, no
 * build dependency). */
#include "host_gemm.h"

#include "cli.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef float v16 __attribute__((vector_size(64)));

/* Not under ThreadSanitizer: it instruments the clones' ifunc resolver,
 * which the loader runs before TSan's runtime is up (a crash at start). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define MULTI_TARGET __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MULTI_TARGET
#endif

/* C[n x n] += A[n x n] * B[n x n], row-major, n a multiple of 32. */
MULTI_TARGET static void gemm_v16(unsigned n, const float *a, const float *b, float *c)
{
    for (unsigned i = 0; i < n; i += 4)
        for (unsigned j = 0; j < n; j += 32) {
            v16 acc[4][2];
            for (unsigned r = 0; r < 4; r++)
                for (unsigned h = 0; h < 2; h++)
                    memcpy(&acc[r][h], c + (i + r) * n + j + 16 * h, sizeof(v16));
            for (unsigned k = 0; k < n; k++) {
                v16 b0, b1;
                memcpy(&b0, b + k * n + j, sizeof b0);
                memcpy(&b1, b + k * n + j + 16, sizeof b1);
                for (unsigned r = 0; r < 4; r++) {
                    float x = a[(i + r) * n + k];
                    acc[r][0] += x * b0;
                    acc[r][1] += x * b1;
                }
            }
            for (unsigned r = 0; r < 4; r++)
                for (unsigned h = 0; h < 2; h++)
                    memcpy(c + (i + r) * n + j + 16 * h, &acc[r][h], sizeof(v16));
        }
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
        gemm_v16(n, a, b, c); /* warm */
        double t0 = thread_cpu();
        gemm_v16(n, a, b, c);
        rate = 2.0 * n * n * (double)n / (thread_cpu() - t0);
        snprintf(what, what_size, "C with vector types, 4x32 register block");
    }
done:
    free(a);
    free(b);
    free(c);
    return rate;
}
