/* The x86 GEMM kernel templates, written once for every vector ISA
 * (x86/gemm-avx2.c, x86/gemm-avx512.c): an R x (2 vectors) tile of C in
 * 2 * R named accumulators, one broadcast of A and two loads of B per k
 * step; every row count of the ISA's list gets its own unrolled copy so a
 * matrix-vector product does not pay for MR rows.  The including file
 * defines, per prefix P (F32, F64, I8): P##_ZERO, _LDB, _BCA, _MAC, _LDC,
 * _ADD, _STC on its vector type, and P##_PFB (1: prefetch B).  Each output is
 * one FMA chain over k in k order (then + C when beta), whatever the tile: the
 * float bits depend on kc alone, so AVX2 and AVX-512 agree bit for bit. */
#ifndef TN_GEMM_TMPL_H
#define TN_GEMM_TMPL_H

#include <immintrin.h>
#include <string.h>

#define INLINE static inline __attribute__ ((always_inline))

/* k steps ahead of the A micro-panel (the stream from L2) that each step
 * prefetches: the loads of a new A line were the kernel's hottest
 * instructions in perf at 1024^3 and up (docs/perf-notes.md).  A step
 * of more than a line (14 float64 rows: 112 bytes) prefetches two lines,
 * or every other line would be left to the hardware. */
#define TN_GEMM_PF_A 8
/* The same for the B micro-panel where P##_PFB is 1 (AVX-512 float64):
 * at 2048^3 perf put one B load in four unrolled steps at 9-10 % of the
 * float64 kernels' cycles.  The 14x16 tile's B micro-panel (32 KiB) does
 * not stay in L1 beside the A stream, so every call reads it again from
 * L2 (from L3 the first time); with this prefetch and A's second line
 * the AVX-512 float64 kernel gained 3-13 % against OpenBLAS in seven
 * interleaved pairs of runs.  AVX2's 6x8 panel (16 KiB) stays in L1 and
 * gained nothing that showed, nor did float32 (docs/perf-notes.md,
 * session 8 H4). */
#define TN_GEMM_PF_B 8

/* k steps before the end of a tile at which its C rows start coming
 * into L1, a row a step.  Fetched into L1 at the start of the call, as
 * before, they were gone by the end: the A and B micro-panels stream
 * 52-60 KiB through L1 in between (12x32 float32, 14x16 float64), and
 * rows a power of two apart share one L1 set.  perf put the loads and
 * stores of C at 7-8 % of the float64 kernel's samples at 2048^3; now
 * they go to L2 at the start and to L1 here, as OpenBLAS's kernels do.
 * On Zen 4 the 2048^3 float64 product gained 1-4 % of OpenBLAS's speed
 * with it, float32 held (docs/perf-notes.md, session 17 H1). */
#define TN_GEMM_PF_C 32

/* Up to 14 rows of 2 accumulators (28 of AVX-512's 32 registers).  Named
 * accumulators, not an array: GCC keeps an array of vectors on the stack
 * and stores it every step.  Rows past R are dead code. */
#define TN_GEMM_ROWS14(M, ...)                                                 \
  M (__VA_ARGS__, 0)                                                           \
  M (__VA_ARGS__, 1)                                                           \
  M (__VA_ARGS__, 2)                                                           \
  M (__VA_ARGS__, 3)                                                           \
  M (__VA_ARGS__, 4)                                                           \
  M (__VA_ARGS__, 5)                                                           \
  M (__VA_ARGS__, 6)                                                           \
  M (__VA_ARGS__, 7)                                                           \
  M (__VA_ARGS__, 8)                                                           \
  M (__VA_ARGS__, 9)                                                           \
  M (__VA_ARGS__, 10)                                                          \
  M (__VA_ARGS__, 11)                                                          \
  M (__VA_ARGS__, 12)                                                          \
  M (__VA_ARGS__, 13)
#define TN_GEMM_DECL(VT, i) VT c##i##a = c0, c##i##b = c0;
#define TN_GEMM_ROW_MAC(P, i)                                                  \
  if (R > i) {                                                                 \
    ai = P##_BCA (a, i);                                                       \
    c##i##a = P##_MAC (c##i##a, ai, b0);                                       \
    c##i##b = P##_MAC (c##i##b, ai, b1);                                       \
  }
#define TN_GEMM_ROW_STORE(P, LANES, i)                                         \
  if (R > i) {                                                                 \
    if (beta) {                                                                \
      c##i##a = P##_ADD (P##_LDC (c + i * ldc), c##i##a);                      \
      c##i##b = P##_ADD (P##_LDC (c + i * ldc + LANES), c##i##b);              \
    }                                                                          \
    P##_STC (c + i * ldc, c##i##a);                                            \
    P##_STC (c + i * ldc + LANES, c##i##b);                                    \
  }
#define TN_GEMM_UKR_CASE(NAME, R)                                              \
  case R:                                                                      \
    NAME##_tile (R, ks, pa, pb, c, ldc, beta);                                 \
    break;

/* One k step of the micro-kernel: the two B vectors, the prefetches,
 * the R rows' FMAs. */
#define TN_GEMM_STEP(P, CT, VT, ASTEP, BSTEP)                                  \
  VT b0 = P##_LDB (b, 0), b1 = P##_LDB (b, 1), ai;                             \
  _mm_prefetch ((const char *) (a + TN_GEMM_PF_A * ASTEP), _MM_HINT_T0);       \
  if (ASTEP * sizeof (CT) > 64)                                                \
    _mm_prefetch (                                                             \
        (const char *) (a + TN_GEMM_PF_A * ASTEP) + 64, _MM_HINT_T0);          \
  if (P##_PFB)                                                                 \
    _mm_prefetch ((const char *) (b + TN_GEMM_PF_B * BSTEP), _MM_HINT_T0);     \
  if (P##_PFB && BSTEP * sizeof (CT) > 64)                                     \
    _mm_prefetch (                                                             \
        (const char *) (b + TN_GEMM_PF_B * BSTEP) + 64, _MM_HINT_T0);          \
  TN_GEMM_ROWS14 (TN_GEMM_ROW_MAC, P)                                          \
  a += ASTEP;                                                                  \
  b += BSTEP

/* P: macro prefix; CT/OT: packed and output C types; VT: vector type;
 * LANES: outputs per vector; ASTEP/BSTEP: packed items per k step;
 * ROWS: the row counts 1..MR as X (NAME, r) list, MR its last. */
#define TN_GEMM_UKR_X86(NAME, P, CT, OT, VT, LANES, ASTEP, BSTEP, ROWS, MR)    \
  INLINE void NAME##_tile (const int R, int64_t ks, const CT *a, const CT *b,  \
      OT *c, int64_t ldc, int beta)                                            \
  {                                                                            \
    VT c0 = P##_ZERO ();                                                       \
    TN_GEMM_ROWS14 (TN_GEMM_DECL, VT)                                          \
                                                                               \
    /* C is written once at the end: its rows go to L2 now (a row block        \
     * of C is back in L3 by the next k block), into L1 near the end. */       \
    for (int i = 0; i < R; i++) {                                              \
      _mm_prefetch ((const char *) (c + i * ldc), _MM_HINT_T1);                \
      _mm_prefetch (                                                           \
          (const char *) (c + i * ldc + 2 * LANES) - 1, _MM_HINT_T1);          \
    }                                                                          \
    int64_t p = 0, pe = ks > TN_GEMM_PF_C ? ks - TN_GEMM_PF_C : 0;             \
    _Pragma ("GCC unroll 4") for (; p < pe; p++)                               \
    {                                                                          \
      TN_GEMM_STEP (P, CT, VT, ASTEP, BSTEP);                                  \
    }                                                                          \
    /* the last steps, each fetching a row of C into L1 */                     \
    _Pragma ("GCC unroll 2") for (int q = 0; p < ks; p++, q++)                 \
    {                                                                          \
      if (q < R) {                                                             \
        _mm_prefetch ((const char *) (c + q * ldc), _MM_HINT_T0);              \
        _mm_prefetch (                                                         \
            (const char *) (c + q * ldc + 2 * LANES) - 1, _MM_HINT_T0);        \
      }                                                                        \
      TN_GEMM_STEP (P, CT, VT, ASTEP, BSTEP);                                  \
    }                                                                          \
    TN_GEMM_ROWS14 (TN_GEMM_ROW_STORE, P, LANES)                               \
  }                                                                            \
                                                                               \
  void NAME (int mr, int64_t ks, const void *pa, const void *pb, void *c,      \
      int64_t ldc, int beta)                                                   \
  {                                                                            \
    switch (mr) {                                                              \
      ROWS (TN_GEMM_UKR_CASE, NAME)                                            \
    default:                                                                   \
      NAME##_tile (MR, ks, pa, pb, c, ldc, beta);                              \
      break;                                                                   \
    }                                                                          \
  }

/* The skinny kernel (m <= MR): R rows times G strips of B side by side,
 * 2 * R * G <= NACC accumulators.  One strip has only 2 * R FMA chains,
 * too few to cover the FMA latency at small R; G strips give 2 * R * G.
 * Slot s holds row s / (2G), strip s / 2 % G, half s % 2; each is the
 * same chain over k as in the micro-kernel, so the sums have the same
 * bits. */
#define TN_GEMM_SLOTS28(M, ...)                                                \
  TN_GEMM_ROWS14 (M, __VA_ARGS__)                                              \
  M (__VA_ARGS__, 14)                                                          \
  M (__VA_ARGS__, 15)                                                          \
  M (__VA_ARGS__, 16)                                                          \
  M (__VA_ARGS__, 17)                                                          \
  M (__VA_ARGS__, 18)                                                          \
  M (__VA_ARGS__, 19)                                                          \
  M (__VA_ARGS__, 20)                                                          \
  M (__VA_ARGS__, 21)                                                          \
  M (__VA_ARGS__, 22)                                                          \
  M (__VA_ARGS__, 23)                                                          \
  M (__VA_ARGS__, 24)                                                          \
  M (__VA_ARGS__, 25)                                                          \
  M (__VA_ARGS__, 26)                                                          \
  M (__VA_ARGS__, 27)
#define TN_GEMM_SK_DECL(VT, s) VT x##s = x;
#define TN_GEMM_SK_MAC(P, s)                                                   \
  if (s < 2 * R * G)                                                           \
    x##s = P##_MAC (x##s, P##_BCA (a, s / (2 * G)),                            \
        P##_LDB (b + (s / 2 % G) * sstride, s % 2));
#define TN_GEMM_SK_STORE(P, LANES, s)                                          \
  if (s < 2 * R * G) {                                                         \
    __typeof__ (c) cs                                                          \
        = c + s / (2 * G) * ldc + (s / 2 % G) * 2 * LANES + s % 2 * LANES;     \
    if (beta)                                                                  \
      x##s = P##_ADD (P##_LDC (cs), x##s);                                     \
    P##_STC (cs, x##s);                                                        \
  }
/* Strips per call for R rows: at most 6 (the driver's SKINNY_G) */
#define TN_GEMM_SK_GMAX(NACC, R)                                               \
  ((NACC) / (2 * (R)) < 6 ? (NACC) / (2 * (R)) : 6)
#define TN_GEMM_SK_G(NAME, GM, R, G)                                           \
  if (G <= GM && h == G)                                                       \
    NAME##_tile (R, G <= GM ? G : 1, ks, pa, b, sstride, c, ldc, beta);        \
  else
#define TN_GEMM_SKR_CASE(NAME, NACC, R)                                        \
  case R:                                                                      \
    h = h < TN_GEMM_SK_GMAX (NACC, R) ? h : TN_GEMM_SK_GMAX (NACC, R);         \
    TN_GEMM_SK_G (NAME, TN_GEMM_SK_GMAX (NACC, R), R, 6)                       \
    TN_GEMM_SK_G (NAME, TN_GEMM_SK_GMAX (NACC, R), R, 5)                       \
    TN_GEMM_SK_G (NAME, TN_GEMM_SK_GMAX (NACC, R), R, 4)                       \
    TN_GEMM_SK_G (NAME, TN_GEMM_SK_GMAX (NACC, R), R, 3)                       \
    TN_GEMM_SK_G (NAME, TN_GEMM_SK_GMAX (NACC, R), R, 2)                       \
    NAME##_tile (R, 1, ks, pa, b, sstride, c, ldc, beta);                      \
    break;

/* NACC: accumulators the ISA can hold beside the operands (12 of 16
 * ymm, 28 of 32 zmm); the rest as for TN_GEMM_UKR_X86, ROWS as
 * X (NAME, NACC, r). */
#define TN_GEMM_SKR_X86(                                                       \
    NAME, P, CT, OT, VT, LANES, ASTEP, BSTEP, ROWS, MR, NACC)                  \
  INLINE void NAME##_tile (const int R, const int G, int64_t ks, const CT *a,  \
      const CT *b, int64_t sstride, OT *c, int64_t ldc, int beta)              \
  {                                                                            \
    VT x = P##_ZERO ();                                                        \
    TN_GEMM_SLOTS28 (TN_GEMM_SK_DECL, VT)                                      \
                                                                               \
    _Pragma ("GCC unroll 2") for (int64_t p = 0; p < ks; p++)                  \
    {                                                                          \
      TN_GEMM_SLOTS28 (TN_GEMM_SK_MAC, P)                                      \
      a += ASTEP;                                                              \
      b += BSTEP;                                                              \
    }                                                                          \
    TN_GEMM_SLOTS28 (TN_GEMM_SK_STORE, P, LANES)                               \
  }                                                                            \
                                                                               \
  void NAME (int mr, int g, int64_t ks, const void *pa, const void *pb,        \
      int64_t sstride, void *c_, int64_t ldc, int beta)                        \
  {                                                                            \
    const CT *b = pb;                                                          \
    OT *c = c_;                                                                \
                                                                               \
    while (g > 0) {                                                            \
      int h = g;                                                               \
                                                                               \
      switch (mr) {                                                            \
        ROWS (TN_GEMM_SKR_CASE, NAME, NACC)                                    \
      default:                                                                 \
        h = 1;                                                                 \
        NAME##_tile (MR, 1, ks, pa, b, sstride, c, ldc, beta);                 \
        break;                                                                 \
      }                                                                        \
      g -= h;                                                                  \
      b += h * sstride;                                                        \
      c += h * 2 * LANES;                                                      \
    }                                                                          \
  }

#endif
