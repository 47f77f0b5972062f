/* refgemm.h - the reference checks' matrix products at host speed.
 *
 * The plain references were triple loops in double: 95% of a functional
 * `dvsim run matmul`.  A check that is a matrix product (matmul, conv2d as a
 * GEMM over its im2col rows, attention's two products) describes it here
 * and gets, block by block, C = A B in double and, for the tolerance,
 * an upper bound S of |A| |B|, computed by a blocked, vectorised kernel (or
 * OpenBLAS's dgemm/sgemm when it is installed) on the host's threads.
 *
 * Two ways (DVSIM_REFERENCE=tight, ref_gemm_set_tight(), selects the
 * second; s8 inputs always take it, their sums being exact in double):
 * - fast (the default, float inputs): C = A B in float (sgemm) and, for
 *   the tolerance, S_ij = |a_i|_2 |b_j|_2 >= sum_k |a_ik b_kj|
 *   (Cauchy-Schwarz), O(M K + N K + M N) instead of a second product:
 *   for seeded random data 1.2 to 1.6 times sum|a b| (uniform values 4/3,
 *   normal pi/2), so the accumulation term of the tolerance is that much
 *   looser; a wrong element (a missed K slice, a wrong tile, a missing
 *   flag: O(|c|)) is still far outside it.  f16 and bf16 values and their
 *   products are exact in float, so the float C is within gamma_K S of
 *   A B in any summation order (gamma_K = K 2^-24 / (1 - K 2^-24)); an
 *   element whose decision that could change (ref_unsure) is summed again
 *   in double (ref_exact), so the decisions are those of C in double with
 *   the Cauchy-Schwarz S.  A panel whose values are not exact in float or
 *   lie outside [2^-50, 2^50] takes C in double (dgemm) instead.
 * - tight: C in double (dgemm) and S = |A| |B| in float (sgemm): any
 *   order's error of C is at most K 2^-53 sum|a b| (Higham, gamma_K),
 *   2^-29 of the f32 accumulation term K 2^-24 sum|a b| every float
 *   tolerance already allows: decisions differ only for an error within
 *   2^-29 of its bound; S's relative error is at most gamma_K (products of
 *   f16 and bf16 values are exact in f32; plus 2^-24 for each of |a|, |b|
 *   and their product when they are not) and ref_abs_bound() inflates S by
 *   (2 K + 4) 2^-24, so it is never below the exact sum: the check never
 *   rejects what the plain one passes, and allows at most (4 K + 8) 2^-24
 *   (at K = 4096, 0.1%) more of the accumulation term.
 * Integer products (s8 x s8) and their sums are exact in double in any
 * order (|sum| < 2^31 << 2^53).
 *
 * Each block is compared by the caller's visit() into a dv_opr_check of
 * its own thread; the parts are merged at the end (dv_opr_check_merge:
 * counts add, maxima are maxima, the first mismatch is the smallest
 * (row, col)), so the outcome does not depend on the threads' number or
 * order. */
#ifndef DV_REFGEMM_H
#define DV_REFGEMM_H

#include "dv_operator.h"

#include <stdbool.h>
#include <stdint.h>

/* What a visitor needs beside C and S to decide exactly: when c came from
 * a float product (the fast reference, below) it is within err * s[r ld + cc]
 * of A B; ref_unsure() says whether that can change the decision, and
 * ref_exact() gives the element summed in double (the plain loops' order). */
typedef struct ref_refine {
    const double *a; /* the block's rows of A, lda k */
    const double *b; /* the B panel, ld; NULL: bf holds it, exact */
    const float *bf;
    const float *s; /* the block's bound of sum|a b| */
    uint64_t k, ld;
    double err; /* |c - A B| <= err * s[r * ld + cc]; 0: c is A B summed in double */
} ref_refine;

typedef struct ref_gemm {
    uint64_t m, n, k;
    /* A's rows [i0, i0 + rows) as doubles: dst[r * k + kk] = A[i0 + r][kk]. */
    void (*load_a)(const void *user, uint64_t i0, uint64_t rows, double *dst);
    /* B's columns [j0, j0 + cols) as doubles: dst[kk * ld + c] = B[kk][j0 + c]. */
    void (*load_b)(const void *user, uint64_t j0, uint64_t cols, double *dst, uint64_t ld);
    /* Compares the block [i0, i0 + rows) x [j0, j0 + cols) into chk:
     * c[r * ld + cc] = (A B)[i0 + r][j0 + cc], s an upper bound of the same
     * of |A| |B| as ref_abs_bound() wants it (NULL unless abs).  When
     * ref_unsure(rf, ...) says so for an element, the visitor decides it
     * again from ref_exact(rf, ...); its want and tol must move by at most
     * 2 |dc| when c moves by dc (matmul's and conv's rules, their bias, ReLU
     * and SiLU/GELU do).  Called on any thread, blocks in any order. */
    void (*visit)(const void *user, dv_opr_check *chk, uint64_t i0, uint64_t rows, uint64_t j0, uint64_t cols,
                  const double *c, const float *s, uint64_t ld, const ref_refine *rf);
    const void *user;
    bool abs; /* the tolerance needs sum|a b| */
} ref_gemm;

/* The decision on |got - want| <= tol can differ from the one on c summed in
 * double (the margin 3 err s covers the visitor's 2 |dc|): decide again. */
static inline bool ref_unsure(const ref_refine *rf, uint64_t r, uint64_t cc, double got, double want,
                              double tol)
{
    if (!rf || rf->err == 0)
        return false;
    if (!(want - want == 0)) /* an infinity or NaN from a float overflow, or the inputs' own */
        return true;
    double d = got - want, m = 3 * rf->err * (double)rf->s[r * rf->ld + cc];
    d = d < 0 ? -d : d;
    return d > tol - m && d <= tol + m; /* a NaN got fails either way */
}

/* A B [r][cc] of the block summed in double over increasing k. */
static inline double ref_exact(const ref_refine *rf, uint64_t r, uint64_t cc)
{
    double sum = 0;
    for (uint64_t kk = 0; kk < rf->k; kk++)
        sum += rf->a[r * rf->k + kk] * (rf->b ? rf->b[kk * rf->ld + cc] : (double)rf->bf[kk * rf->ld + cc]);
    return sum;
}

/* Runs the product block by block into r->check (merged over the threads).
 * DV_ERR_NOMEM if its panels cannot be allocated. */
dv_status ref_gemm_check(dv_opr_run *r, const ref_gemm *g, dv_error *err);

/* The products themselves, for checks that are not one GEMM (attention):
 * C[m x n] = A[m x k] B[k x n], row-major, lda = k, ldb = ldc = ld; m a
 * multiple of 4, n of 32, ld >= n.  Either backend, one thread. */
void ref_dgemm(uint64_t m, uint64_t n, uint64_t k, const double *a, const double *b, double *c, uint64_t ld);
void ref_sgemm(uint64_t m, uint64_t n, uint64_t k, const float *a, const float *b, float *c, uint64_t ld);

/* Runs fn(user, task, thread) for task = 0 .. ntasks - 1 on up to
 * ref_threads() threads (thread: 0 .. threads - 1, each running one task at
 * a time); returns the threads used. */
unsigned ref_parallel(uint64_t ntasks, void (*fn)(void *user, uint64_t task, unsigned thread), void *user);

/* count elements from element first of a buffer of dtype dt (f16, bf16,
 * f32, s32, s8, u8) as doubles: dv_opr_load over a row, at table speed. */
void ref_load_row(const uint8_t *base, dv_dtype dt, uint64_t first, uint64_t count, double *dst);

/* An upper bound of the exact sum|a b| of K terms from s (see above). */
static inline double ref_abs_bound(float s, uint64_t k)
{
    return (double)s * (1.0 + (2.0 * (double)k + 4.0) * 0x1p-24);
}

/* Host threads of the reference checks (and other heavy host work): 0 is
 * the host's CPUs.  Results do not depend on it. */
void ref_set_threads(unsigned n);
unsigned ref_threads(void);

/* The GEMM in use, in words: OpenBLAS (libopenblas.so.0, loaded at run
 * time unless DVSIM_NO_OPENBLAS is set) or the C kernels. */
const char *ref_gemm_backend(void);
/* false: the C kernels even when OpenBLAS is there (tests compare the two). */
void ref_gemm_use_blas(bool on);
/* true: the tight way (C in double, S = |A| |B|) even for float inputs;
 * also DVSIM_REFERENCE=tight.  Tests compare the ways. */
void ref_gemm_set_tight(bool on);

#endif
