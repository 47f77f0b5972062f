/* dv_simd.h - the host targets of the kernels written with GCC vector
 * types (the Cube's mmad, the reference check's GEMMs, the host GEMM
 * yardstick).
 *
 * A kernel is built twice: wide, 64-byte vectors for AVX-512, and
 * narrow, 32-byte vectors for AVX2 and baseline x86-64, picked at run
 * time by DV_CPU_WIDE().  One width for all does not do: GCC lowers a
 * 64-byte vector on AVX2 through the stack, so a register-blocked
 * kernel's accumulators are stored and reloaded on every step (the
 * Cube's mmad ran at 8 GFLOP/s instead of 40 on an AVX2 host).  Every
 * element's sum runs the same way in both, so the results do not depend
 * on the width.  Not under ThreadSanitizer: it instruments the clones'
 * ifunc resolver, which the loader runs before TSan's runtime is up (a
 * crash at start); nor with clang, whose __builtin_cpu_supports and
 * target_clones differ. */
#ifndef DV_SIMD_H
#define DV_SIMD_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define DV_TARGET_WIDE __attribute__((target("avx512f")))
#define DV_TARGET_NARROW __attribute__((target_clones("avx2", "default")))
#define DV_TARGET_ANY __attribute__((target_clones("avx512f", "avx2", "default")))
#define DV_CPU_WIDE() __builtin_cpu_supports("avx512f")
/* Kernels whose every product is exact in the element type (the Cube's
 * f16/bf16 mmad on operands of bounded magnitude): a * b + c fused into
 * one multiply-add is then the same number as the separate multiply and
 * add, so these let GCC contract (fp-contract=fast; ISO C otherwise
 * forbids it), at half the host instructions.  Whether GCC contracts or
 * not, the results are the same; the caller takes them where DV_CPU_FMA()
 * says, and only on exact products. */
#define DV_TARGET_WIDE_FMA __attribute__((target("avx512f,fma"), optimize("fp-contract=fast")))
#define DV_TARGET_NARROW_FMA __attribute__((target("avx2,fma"), optimize("fp-contract=fast")))
#define DV_CPU_FMA() (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
#else
#define DV_TARGET_WIDE
#define DV_TARGET_NARROW
#define DV_TARGET_ANY
#define DV_CPU_WIDE() 0
#define DV_TARGET_WIDE_FMA
#define DV_TARGET_NARROW_FMA
#define DV_CPU_FMA() 0
#endif

/* The paths written with x86 intrinsics (F16C conversions, SSE2
 * transposes): compiled with GCC on x86-64, taken where DV_CPU_F16C()
 * says the host runs them (AVX2 and F16C, which every such path assumes). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DV_X86_PATHS 1
#define DV_CPU_F16C() (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c"))
#else
#define DV_CPU_F16C() 0
#endif

/* Small constant loops over a kernel's register block: unrolled, so that
 * GCC keeps the block's vectors in registers. */
#define DV_UNROLL _Pragma("GCC unroll 8")

#endif
