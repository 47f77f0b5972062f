/* refgemm.c - the reference checks' matrix products (refgemm.h).
 *
 * B is taken a panel of columns at a time (doubles, and |B| in float),
 * shared by the threads; each thread takes panels of A's rows, multiplies
 * them with the B panel and hands the block to the caller's visit().  The
 * panel sizes do not depend on the threads, so neither does any sum. */
/* madvise() and MADV_HUGEPAGE */
#define _DEFAULT_SOURCE
#include "refgemm.h"

#include "dv_fp.h"
#include "dv_simd.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum {
    ROWS = 256,      /* rows of A per task */
    KC = 256,        /* K per pass of the C kernels: a 16-column strip of B stays in L1 */
    COL_ALIGN = 32,  /* B panels are padded to this many columns (the float kernel's strip) */
    KSLICE = 256,    /* the fast way's float sums: K slices of at most this many terms */
    MIN_KSLICE = 64, /* and at least (shallower K: the tight way) */
    MAX_THREADS = 64,
};
/* B panel size: at most this many doubles (16 MiB), at least 256 columns. */
static const uint64_t PANEL_DOUBLES = 2u << 20;

static atomic_uint threads_setting;

void ref_set_threads(unsigned n)
{
    atomic_store(&threads_setting, n);
}

unsigned ref_threads(void)
{
    unsigned n = atomic_load(&threads_setting);
    if (n == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 ? (unsigned)c : 1;
    }
    return n > MAX_THREADS ? MAX_THREADS : n;
}

/* OpenBLAS, when libopenblas.so.0 is installed (libopenblas-dev; no build
 * dependency): loaded on first use with OPENBLAS_NUM_THREADS=1, so that it
 * starts no threads of its own (its pthread build's idle threads spin for
 * about 0.1 s each) - the tasks here are the threads. */
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *, int,
                         double, double *, int);
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                         float *, int);
enum { ROW_MAJOR = 101, NO_TRANS = 111 }; /* cblas.h's CblasRowMajor, CblasNoTrans */
static dgemm_fn blas_dgemm;
static sgemm_fn blas_sgemm;
static char blas_name[96];
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static atomic_bool blas_off;
static atomic_bool tight_on; /* ref_gemm_set_tight() */
static bool tight_env;       /* DVSIM_REFERENCE=tight, read with the library */

/* The C kernels below, by the width this host takes (dv_simd.h). */
static const char *c_kernels_name(void)
{
    return DV_CPU_WIDE() ? "C with vector types, 64-byte: 4x16 doubles / 4x32 floats register blocks"
                         : "C with vector types, 32-byte: 4x8 doubles / 4x16 floats register blocks";
}

static void load_blas(void)
{
    snprintf(blas_name, sizeof blas_name, "%s", c_kernels_name());
    const char *ref = getenv("DVSIM_REFERENCE");
    tight_env = ref && strcmp(ref, "tight") == 0;
    const char *no = getenv("DVSIM_NO_OPENBLAS");
    if (no && *no && strcmp(no, "0") != 0)
        return;
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    void *h = dlopen("libopenblas.so.0", RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        return;
    dgemm_fn d = (dgemm_fn)(uintptr_t)dlsym(h, "cblas_dgemm");
    sgemm_fn f = (sgemm_fn)(uintptr_t)dlsym(h, "cblas_sgemm");
    if (!d || !f) {
        dlclose(h);
        return;
    }
    blas_dgemm = d;
    blas_sgemm = f;
    snprintf(blas_name, sizeof blas_name, "OpenBLAS cblas_dgemm/cblas_sgemm");
}

static bool use_blas(void)
{
    pthread_once(&blas_once, load_blas);
    return blas_dgemm && !atomic_load(&blas_off);
}

void ref_gemm_use_blas(bool on)
{
    atomic_store(&blas_off, !on);
}

void ref_gemm_set_tight(bool on)
{
    atomic_store(&tight_on, on);
}

static bool use_tight(void)
{
    pthread_once(&blas_once, load_blas);
    return tight_env || atomic_load(&tight_on);
}

const char *ref_gemm_backend(void)
{
    return use_blas() ? blas_name : c_kernels_name();
}

void ref_load_row(const uint8_t *base, dv_dtype dt, uint64_t first, uint64_t count, double *dst)
{
    uint16_t h;
    switch (dt) {
    case DV_DT_F16: {
        const float *tab = dv_fp16_table();
        for (uint64_t i = 0; i < count; i++) {
            memcpy(&h, base + 2 * (first + i), 2);
            dst[i] = tab[h];
        }
        break;
    }
    case DV_DT_BF16:
        for (uint64_t i = 0; i < count; i++) {
            memcpy(&h, base + 2 * (first + i), 2);
            dst[i] = dv_f32_from_bits((uint32_t)h << 16);
        }
        break;
    case DV_DT_S8:
        for (uint64_t i = 0; i < count; i++)
            dst[i] = (int8_t)base[first + i];
        break;
    default:
        for (uint64_t i = 0; i < count; i++)
            dst[i] = dv_opr_load(base, dt, first + i);
        break;
    }
}

typedef double v8d __attribute__((vector_size(64)));
typedef float v16f __attribute__((vector_size(64)));
typedef double v4d __attribute__((vector_size(32)));
typedef float v8f __attribute__((vector_size(32)));

/* C[rows x cols] = A[rows x k] B[k x cols] in T, with vectors V of L lanes:
 * rows a multiple of 4, cols of 2L, ldb = ldc.  Each element's sum
 * runs over increasing k (no contraction: ISO C), whatever the target
 * and width (dv_simd.h): double in 16- or 8-column strips, float in 32-
 * or 16-column ones, the callers' panels padded to COL_ALIGN. */
#define GEMM_C(name, T, V, L, target)                                                                        \
    target static void name(uint64_t rows, uint64_t cols, uint64_t k, const T *a, uint64_t lda, const T *b,  \
                            T *c, uint64_t ld)                                                               \
    {                                                                                                        \
        for (uint64_t k0 = 0; k0 < k; k0 += KC) {                                                            \
            uint64_t k1 = k0 + KC < k ? k0 + KC : k;                                                         \
            for (uint64_t j = 0; j < cols; j += 2 * (L))                                                     \
                for (uint64_t i = 0; i < rows; i += 4) {                                                     \
                    V acc[4][2];                                                                             \
                    for (unsigned r = 0; r < 4; r++)                                                         \
                        for (unsigned h = 0; h < 2; h++) {                                                   \
                            if (k0)                                                                          \
                                memcpy(&acc[r][h], c + (i + r) * ld + j + (L)*h, sizeof(V));                 \
                            else                                                                             \
                                acc[r][h] = (V){0};                                                          \
                        }                                                                                    \
                    const T *ar = a + i * lda;                                                               \
                    for (uint64_t kk = k0; kk < k1; kk++) {                                                  \
                        V b0, b1;                                                                            \
                        memcpy(&b0, b + kk * ld + j, sizeof b0);                                             \
                        memcpy(&b1, b + kk * ld + j + (L), sizeof b1);                                       \
                        DV_UNROLL                                                                            \
                        for (unsigned r = 0; r < 4; r++) {                                                   \
                            T x = ar[r * lda + kk];                                                          \
                            acc[r][0] += x * b0;                                                             \
                            acc[r][1] += x * b1;                                                             \
                        }                                                                                    \
                    }                                                                                        \
                    for (unsigned r = 0; r < 4; r++)                                                         \
                        for (unsigned h = 0; h < 2; h++)                                                     \
                            memcpy(c + (i + r) * ld + j + (L)*h, &acc[r][h], sizeof(V));                     \
                }                                                                                            \
        }                                                                                                    \
    }

GEMM_C(dgemm_wide, double, v8d, 8, DV_TARGET_WIDE)
GEMM_C(sgemm_wide, float, v16f, 16, DV_TARGET_WIDE)
GEMM_C(dgemm_narrow, double, v4d, 4, DV_TARGET_NARROW)
GEMM_C(sgemm_narrow, float, v8f, 8, DV_TARGET_NARROW)

static void dgemm_c(uint64_t rows, uint64_t cols, uint64_t k, const double *a, uint64_t lda, const double *b,
                    double *c, uint64_t ld)
{
    (DV_CPU_WIDE() ? dgemm_wide : dgemm_narrow)(rows, cols, k, a, lda, b, c, ld);
}

static void sgemm_c(uint64_t rows, uint64_t cols, uint64_t k, const float *a, uint64_t lda, const float *b,
                    float *c, uint64_t ld)
{
    (DV_CPU_WIDE() ? sgemm_wide : sgemm_narrow)(rows, cols, k, a, lda, b, c, ld);
}

static void dgemm(bool blas, uint64_t rows, uint64_t cols, uint64_t k, const double *a, const double *b,
                  double *c, uint64_t ld)
{
    if (blas)
        blas_dgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, (int)rows, (int)cols, (int)k, 1.0, a, (int)k, b, (int)ld,
                   0.0, c, (int)ld);
    else
        dgemm_c(rows, cols, k, a, k, b, c, ld);
}

static void sgemm_lda(bool blas, uint64_t rows, uint64_t cols, uint64_t k, const float *a, uint64_t lda,
                      const float *b, float *c, uint64_t ld)
{
    if (blas)
        blas_sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, (int)rows, (int)cols, (int)k, 1.0f, a, (int)lda, b, (int)ld,
                   0.0f, c, (int)ld);
    else
        sgemm_c(rows, cols, k, a, lda, b, c, ld);
}

static void sgemm(bool blas, uint64_t rows, uint64_t cols, uint64_t k, const float *a, const float *b,
                  float *c, uint64_t ld)
{
    sgemm_lda(blas, rows, cols, k, a, k, b, c, ld);
}

void ref_dgemm(uint64_t m, uint64_t n, uint64_t k, const double *a, const double *b, double *c, uint64_t ld)
{
    dgemm(use_blas(), m, n, k, a, b, c, ld);
}

void ref_sgemm(uint64_t m, uint64_t n, uint64_t k, const float *a, const float *b, float *c, uint64_t ld)
{
    sgemm(use_blas(), m, n, k, a, b, c, ld);
}

typedef struct par {
    void (*fn)(void *user, uint64_t task, unsigned thread);
    void *user;
    uint64_t ntasks;
    atomic_ulong next;
} par;

typedef struct par_thread {
    par *p;
    unsigned thread;
} par_thread;

static void *par_work(void *arg)
{
    par_thread *t = arg;
    for (uint64_t i; (i = atomic_fetch_add(&t->p->next, 1)) < t->p->ntasks;)
        t->p->fn(t->p->user, i, t->thread);
    return NULL;
}

unsigned ref_parallel(uint64_t ntasks, void (*fn)(void *user, uint64_t task, unsigned thread), void *user)
{
    unsigned nt = ref_threads();
    if (nt > ntasks)
        nt = ntasks ? (unsigned)ntasks : 1;
    par p = {.fn = fn, .user = user, .ntasks = ntasks};
    atomic_init(&p.next, 0);
    par_thread pt[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    unsigned started = 1;
    for (unsigned t = 0; t < nt; t++)
        pt[t] = (par_thread){&p, t};
    for (; started < nt; started++)
        if (pthread_create(&th[started], NULL, par_work, &pt[started]) != 0)
            break; /* fewer threads: the others take the tasks */
    par_work(&pt[0]);
    for (unsigned t = 1; t < started; t++)
        pthread_join(th[t], NULL);
    return started;
}

/* A panel's memory: of 2 MiB pages when it is that large (madvise: the
 * host's transparent huge pages are often "madvise" only), so that its
 * first touch faults once a 2 MiB page instead of once every 4 KiB (a
 * tenth of a 1024^3 check's CPU time went to the faults). */
static void *panel_alloc(size_t bytes)
{
    enum { HUGE = 2u << 20 };
    if (bytes < HUGE / 2)
        return malloc(bytes);
    void *p = NULL;
    size_t len = (bytes + HUGE - 1) / HUGE * HUGE;
    if (posix_memalign(&p, HUGE, len) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE); /* advice: nothing to do when it is not taken */
#endif
    return p;
}

/* One thread's buffers and its part of the check. */
typedef struct worker {
    double *a, *c;
    float *af, *s;
    double na[ROWS]; /* |a_i|_2 of the panel's rows (fast) */
    dv_opr_check chk;
} worker;

/* What the threads share while a B panel is in use. */
typedef struct shared {
    const ref_gemm *g;
    const dv_sim *sim; /* polled for a signal (dv_sim_interrupted) between row panels */
    const double *b;
    const float *bf;       /* tight: |B|; fast: B (when exact in float, else NULL) */
    const double *nb;      /* fast: |b_j|_2 of the panel's columns */
    uint64_t j0, cols, ld; /* the panel: columns [j0, j0 + cols), padded to ld */
    uint64_t rows;         /* A's rows per panel */
    uint64_t npanels;      /* of A's rows */
    bool blas;             /* OpenBLAS, else the C kernels */
    bool fast;             /* C in float and the Cauchy-Schwarz S (refgemm.h) */
    double err;            /* fast: |c - A B| <= err S for a float product */
    uint64_t kslice;       /* fast: K slices summed in float */
    atomic_ulong next;     /* the next row panel to take */
} shared;

typedef struct task {
    shared *sh;
    worker *w;
} task;

/* Doubles to floats; true when every value is exact in float and 0 or of a
 * magnitude in [2^-50, 2^50], so that products and sums of K of them stay
 * in float's normal range (the error bound of the fast way).  4 at a time
 * (a quarter of a 1024^3 check's overhead, scalar): 32-byte vectors of
 * doubles, native on AVX2 and AVX-512 alike. */
typedef float v4f __attribute__((vector_size(16)));
typedef long long v4l __attribute__((vector_size(32)));

DV_TARGET_ANY static bool to_float_exact(const double *x, float *f, uint64_t n)
{
    v4l bad = {0};
    uint64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4d d;
        memcpy(&d, x + i, sizeof d);
        v4f v = __builtin_convertvector(d, v4f);
        v4l mb;
        v4d m;
        memcpy(&mb, &d, sizeof mb);
        mb &= 0x7fffffffffffffffll; /* |d| */
        memcpy(&m, &mb, sizeof m);
        bad |= (__builtin_convertvector(v, v4d) != d) | ((m != 0) & ((m < 0x1p-50) | (m > 0x1p50)));
        memcpy(f + i, &v, sizeof v);
    }
    bool ok = true;
    for (unsigned l = 0; l < 4; l++)
        ok &= !bad[l];
    for (; i < n; i++) {
        float v = (float)x[i];
        double m = x[i] < 0 ? -x[i] : x[i];
        ok &= (double)v == x[i] && (m == 0 || (m >= 0x1p-50 && m <= 0x1p50));
        f[i] = v;
    }
    return ok;
}

/* c[0 .. n) += s[0 .. n) in double; n a multiple of 4. */
DV_TARGET_ANY static void add_float(double *c, const float *s, uint64_t n)
{
    for (uint64_t i = 0; i < n; i += 4) {
        v4d d;
        v4f v;
        memcpy(&d, c + i, sizeof d);
        memcpy(&v, s + i, sizeof v);
        d += __builtin_convertvector(v, v4d);
        memcpy(c + i, &d, sizeof d);
    }
}

/* |x|_2 in double: within (n + 2) 2^-53 of it, relatively; cs_bound()
 * takes that into its margin. */
static double norm2(const double *x, uint64_t n, uint64_t stride)
{
    double q = 0;
    for (uint64_t i = 0; i < n; i++)
        q += x[i * stride] * x[i * stride];
    return sqrt(q);
}

/* The fast way's S block: |a_r|_2 |b_c|_2 >= sum_k |a_rk b_kc| (Cauchy-
 * Schwarz), made an upper bound of the computed norms' product by a margin
 * for their roundings ((K + 2) 2^-53 each, the product's 2^-53) and the
 * float's (2^-23: round to nearest, then one more ulp). */
static void cs_bound(const double *na, uint64_t rows, const double *nb, uint64_t cols, uint64_t k, float *s,
                     uint64_t ld)
{
    double up = 1 + 0x1p-22 + (2.0 * (double)k + 8) * 0x1p-53;
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < cols; c++)
            s[r * ld + c] = (float)(na[r] * nb[c] * up);
}

static void row_panel(shared *sh, worker *w, uint64_t p)
{
    const ref_gemm *g = sh->g;
    uint64_t i0 = p * sh->rows, rows = g->m - i0 < sh->rows ? g->m - i0 : sh->rows,
             rows4 = (rows + 3) / 4 * 4;
    uint64_t k = g->k;
    g->load_a(g->user, i0, rows, w->a);
    memset(w->a + rows * k, 0, sizeof(double) * (size_t)((rows4 - rows) * k));
    ref_refine rf = {.a = w->a, .b = sh->b, .bf = sh->bf, .s = w->s, .k = k, .ld = sh->ld};
    if (sh->fast) {
        /* C in float when A's panel (and B's) is exact there, else in double */
        if (sh->bf && to_float_exact(w->a, w->af, rows4 * k)) {
            /* by slices of kslice: each in float, within gamma_kslice of its
             * sum|a b|, added up in double */
            memset(w->c, 0, sizeof(double) * (size_t)(rows4 * sh->ld));
            for (uint64_t k0 = 0; k0 < k; k0 += sh->kslice) {
                uint64_t kn = k - k0 < sh->kslice ? k - k0 : sh->kslice;
                sgemm_lda(sh->blas, rows4, sh->ld, kn, w->af + k0, k, sh->bf + k0 * sh->ld, w->s, sh->ld);
                add_float(w->c, w->s, rows * sh->ld);
            }
            rf.err = sh->err;
        } else if (sh->b) {
            dgemm(sh->blas, rows4, sh->ld, k, w->a, sh->b, w->c, sh->ld);
        } else { /* B exact in float, this panel of A not (bf16 of extreme magnitudes): in double, element by
                    element */
            for (uint64_t r = 0; r < rows; r++)
                for (uint64_t c = 0; c < sh->cols; c++)
                    w->c[r * sh->ld + c] = ref_exact(&rf, r, c);
        }
        for (uint64_t r = 0; r < rows; r++)
            w->na[r] = norm2(w->a + r * k, k, 1);
        cs_bound(w->na, rows, sh->nb, sh->cols, k, w->s, sh->ld);
    } else {
        dgemm(sh->blas, rows4, sh->ld, k, w->a, sh->b, w->c, sh->ld);
        if (g->abs) {
            for (uint64_t x = 0; x < rows4 * k; x++)
                w->af[x] = (float)(w->a[x] < 0 ? -w->a[x] : w->a[x]);
            sgemm(sh->blas, rows4, sh->ld, k, w->af, sh->bf, w->s, sh->ld);
        }
    }
    g->visit(g->user, &w->chk, i0, rows, sh->j0, sh->cols, w->c, g->abs ? w->s : NULL, sh->ld, &rf);
}

static void *work(void *arg)
{
    task *t = arg;
    for (uint64_t p; (p = atomic_fetch_add(&t->sh->next, 1)) < t->sh->npanels;) {
        if (t->sh->sim && dv_sim_interrupted(t->sh->sim))
            break; /* Ctrl-C, SIGTERM: the run reports what was checked */
        row_panel(t->sh, t->w, p);
    }
    return NULL;
}

dv_status ref_gemm_check(dv_opr_run *r, const ref_gemm *g, dv_error *err)
{
    if (!g->m || !g->n || !g->k)
        return DV_OK;
    bool blas = use_blas();
    /* fast: float inputs (abs), and K deep enough that the float sums'
     * bound (gamma_kslice S) is at most 3/8 of the tolerance's K 2^-24 S
     * (few elements are summed again): slices of K / 8 terms, at most
     * KSLICE (a power of two) */
    uint64_t kslice = KSLICE;
    while (kslice > MIN_KSLICE && kslice * 8 > g->k)
        kslice /= 2;
    bool fast = g->abs && !use_tight() && g->k >= 8 * kslice;
    uint64_t k = g->k;
    uint64_t pc = PANEL_DOUBLES / k / COL_ALIGN * COL_ALIGN;
    if (pc < 256)
        pc = 256;
    uint64_t ncols = (g->n + COL_ALIGN - 1) / COL_ALIGN * COL_ALIGN;
    if (pc > ncols)
        pc = ncols;
    /* ROWS rows of A a task, fewer when K is deep (at most the B panel's
     * doubles, at least 8 rows) */
    uint64_t rows = PANEL_DOUBLES / k / 8 * 8;
    rows = rows < 8 ? 8 : rows > ROWS ? ROWS : rows;
    uint64_t npanels = (g->m + rows - 1) / rows;
    unsigned nt = ref_threads();
    if (nt > npanels)
        nt = (unsigned)npanels;
    /* B's panel in double (the fast way: a strip of it, the panel only when
     * it is not exact in float) and in float */
    double *b = panel_alloc(sizeof(double) * (size_t)(k * (fast ? COL_ALIGN : pc))), *bfull = NULL;
    float *bf = g->abs ? panel_alloc(sizeof(float) * (size_t)(k * pc)) : NULL;
    double *nb = fast ? malloc(sizeof(double) * (size_t)pc) : NULL;
    worker w[MAX_THREADS];
    memset(w, 0, sizeof w);
    bool ok = b && (bf || !g->abs) && (nb || !fast);
    for (unsigned t = 0; t < nt && ok; t++) {
        w[t].a = panel_alloc(sizeof(double) * (size_t)(rows * k));
        w[t].c = panel_alloc(sizeof(double) * (size_t)(rows * pc));
        if (g->abs) {
            w[t].af = panel_alloc(sizeof(float) * (size_t)(rows * k));
            w[t].s = panel_alloc(sizeof(float) * (size_t)(rows * pc));
        }
        ok = w[t].a && w[t].c && (!g->abs || (w[t].af && w[t].s));
    }
    dv_status st = ok ? DV_OK : dv_error_set(err, DV_ERR_NOMEM, "out of memory for the reference");
    snprintf(r->check.reference, sizeof r->check.reference, "%.64s%s, %u thread%s",
             blas ? blas_name : "C with vector types", fast ? "; C in float, S = |a|_2 |b|_2" : "", nt,
             nt == 1 ? "" : "s");
    /* the float C's distance from A B, over its sum|a b|: gamma_KSLICE in
     * float for a slice, gamma_{K / KSLICE + 1} in double for their sum */
    double gs = (double)kslice * 0x1p-24, gd = (double)(k / kslice + 2) * 0x1p-53,
           ferr = (gs / (1 - gs) + gd) * (1 + 0x1p-20);
    for (uint64_t j0 = 0; st == DV_OK && j0 < g->n && !dv_opr_check_stop(r); j0 += pc) {
        uint64_t cols = g->n - j0 < pc ? g->n - j0 : pc, ld = (cols + COL_ALIGN - 1) / COL_ALIGN * COL_ALIGN;
        bool b_exact = true;
        const double *bpanel = b; /* B in double: tight; fast only when not exact in float */
        if (fast) {
            /* strips of COL_ALIGN columns in double (b), into the float panel */
            for (uint64_t s0 = 0; s0 < ld; s0 += COL_ALIGN) {
                uint64_t sc = cols > s0 ? (cols - s0 < COL_ALIGN ? cols - s0 : COL_ALIGN) : 0;
                if (sc)
                    g->load_b(g->user, j0 + s0, sc, b, COL_ALIGN);
                for (uint64_t kk = 0; kk < k; kk++) {
                    memset(b + kk * COL_ALIGN + sc, 0, sizeof(double) * (size_t)(COL_ALIGN - sc));
                    b_exact &= to_float_exact(b + kk * COL_ALIGN, bf + kk * ld + s0, COL_ALIGN);
                }
                for (uint64_t c = 0; c < sc; c++)
                    nb[s0 + c] = norm2(b + c, k, COL_ALIGN);
            }
            bpanel = NULL;
            if (!b_exact) { /* the whole panel in double, for dgemm */
                if (!bfull)
                    bfull = panel_alloc(sizeof(double) * (size_t)(k * pc));
                if (!bfull) {
                    st = dv_error_set(err, DV_ERR_NOMEM, "out of memory for the reference");
                    break;
                }
                g->load_b(g->user, j0, cols, bfull, ld);
                for (uint64_t kk = 0; kk < k; kk++)
                    memset(bfull + kk * ld + cols, 0, sizeof(double) * (size_t)(ld - cols));
                bpanel = bfull;
            }
        } else {
            g->load_b(g->user, j0, cols, b, ld);
            for (uint64_t kk = 0; kk < k; kk++) {
                double *row = b + kk * ld;
                memset(row + cols, 0, sizeof(double) * (size_t)(ld - cols));
                if (g->abs)
                    for (uint64_t c = 0; c < ld; c++)
                        bf[kk * ld + c] = (float)(row[c] < 0 ? -row[c] : row[c]);
            }
        }
        shared sh = {.g = g,
                     .sim = dv_opr_sim(r),
                     .b = bpanel,
                     .bf = fast && !b_exact ? NULL : bf,
                     .nb = nb,
                     .fast = fast,
                     .err = ferr,
                     .kslice = kslice,
                     .j0 = j0,
                     .cols = cols,
                     .ld = ld,
                     .rows = rows,
                     .npanels = npanels,
                     .blas = blas};
        atomic_init(&sh.next, 0);
        task tk[MAX_THREADS];
        pthread_t th[MAX_THREADS];
        unsigned started = 1;
        for (unsigned t = 0; t < nt; t++)
            tk[t] = (task){&sh, &w[t]};
        for (; started < nt; started++)
            if (pthread_create(&th[started], NULL, work, &tk[started]) != 0)
                break; /* fewer threads: the others take the panels */
        work(&tk[0]);
        for (unsigned t = 1; t < started; t++)
            pthread_join(th[t], NULL);
    }
    dv_opr_check_stop(r); /* a signal during the last panel marks the check interrupted */
    for (unsigned t = 0; t < nt; t++) {
        if (st == DV_OK)
            dv_opr_check_merge(&r->check, &w[t].chk);
        free(w[t].a);
        free(w[t].c);
        free(w[t].af);
        free(w[t].s);
    }
    free(b);
    free(bfull);
    free(bf);
    free(nb);
    return st;
}
