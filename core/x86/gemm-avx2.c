/* AVX2+FMA micro-kernels (the avx2 library of core/meson.build): an
 * mr x NR tile held in 2 * mr ymm registers (12 of the 16 at mr = 6), one
 * broadcast of A and two loads of B per k step.  One template serves
 * float32, float64 and int8 (as int16 pairs through vpmaddwd); every row
 * count 1..6 gets its own unrolled copy so a matrix-vector product does
 * not pay for six rows. */
#include "core/gemm-pack.h"

#include <immintrin.h>
#include <string.h>

#define INLINE static inline __attribute__ ((always_inline))

/* float32: 8 lanes. */
#define F32_ZERO() _mm256_setzero_ps ()
#define F32_LDB(b, v) _mm256_loadu_ps ((b) + 8 * (v))
#define F32_BCA(a, i) _mm256_broadcast_ss ((a) + (i))
#define F32_MAC(x, a, b) _mm256_fmadd_ps ((a), (b), (x))
#define F32_LDC(c) _mm256_loadu_ps (c)
#define F32_ADD(x, y) _mm256_add_ps ((x), (y))
#define F32_STC(c, x) _mm256_storeu_ps ((c), (x))

/* float64: 4 lanes. */
#define F64_ZERO() _mm256_setzero_pd ()
#define F64_LDB(b, v) _mm256_loadu_pd ((b) + 4 * (v))
#define F64_BCA(a, i) _mm256_broadcast_sd ((a) + (i))
#define F64_MAC(x, a, b) _mm256_fmadd_pd ((a), (b), (x))
#define F64_LDC(c) _mm256_loadu_pd (c)
#define F64_ADD(x, y) _mm256_add_pd ((x), (y))
#define F64_STC(c, x) _mm256_storeu_pd ((c), (x))

/* int8 as int16 pairs: a step is two k items, adjacent in both panels. */
INLINE __m256i
i8_bca (const int16_t *a, int i)
{
  int32_t pair;

  memcpy (&pair, a + 2 * i, sizeof pair);
  return _mm256_set1_epi32 (pair);
}
#define I8_ZERO() _mm256_setzero_si256 ()
#define I8_LDB(b, v) _mm256_loadu_si256 ((const __m256i *) ((b) + 16 * (v)))
#define I8_BCA(a, i) i8_bca ((a), (i))
#define I8_MAC(x, a, b) _mm256_add_epi32 ((x), _mm256_madd_epi16 ((a), (b)))
#define I8_LDC(c) _mm256_loadu_si256 ((const __m256i *) (c))
#define I8_ADD(x, y) _mm256_add_epi32 ((x), (y))
#define I8_STC(c, x) _mm256_storeu_si256 ((__m256i *) (c), (x))

/* Named accumulators, not an array: GCC keeps an array of vectors on the
 * stack and stores it every step. */
#define ROW_MAC(P, i)                                                          \
  if (R > i) {                                                                 \
    ai = P##_BCA (a, i);                                                       \
    c##i##a = P##_MAC (c##i##a, ai, b0);                                       \
    c##i##b = P##_MAC (c##i##b, ai, b1);                                       \
  }
#define ROW_STORE(P, i, LANES)                                                 \
  if (R > i) {                                                                 \
    if (beta) {                                                                \
      c##i##a = P##_ADD (P##_LDC (c + i * ldc), c##i##a);                      \
      c##i##b = P##_ADD (P##_LDC (c + i * ldc + LANES), c##i##b);              \
    }                                                                          \
    P##_STC (c + i * ldc, c##i##a);                                            \
    P##_STC (c + i * ldc + LANES, c##i##b);                                    \
  }

/* P: macro prefix; CT/OT: packed and output C types; VT: vector type;
 * LANES: outputs per vector; ASTEP/BSTEP: packed items per k step. */
#define TN_GEMM_UKR_AVX2(NAME, P, CT, OT, VT, LANES, ASTEP, BSTEP)             \
  INLINE void NAME##_tile (const int R, int64_t ks, const CT *a, const CT *b,  \
      OT *c, int64_t ldc, int beta)                                            \
  {                                                                            \
    VT c0a = P##_ZERO (), c0b = c0a, c1a = c0a, c1b = c0a, c2a = c0a;          \
    VT c2b = c0a, c3a = c0a, c3b = c0a, c4a = c0a, c4b = c0a, c5a = c0a;       \
    VT c5b = c0a;                                                              \
                                                                               \
    /* C is written once at the end: start fetching its rows now. */           \
    for (int i = 0; i < R; i++) {                                              \
      _mm_prefetch ((const char *) (c + i * ldc), _MM_HINT_T0);                \
      _mm_prefetch (                                                           \
          (const char *) (c + i * ldc + 2 * LANES) - 1, _MM_HINT_T0);          \
    }                                                                          \
    _Pragma ("GCC unroll 4") for (int64_t p = 0; p < ks; p++)                  \
    {                                                                          \
      VT b0 = P##_LDB (b, 0), b1 = P##_LDB (b, 1), ai;                         \
      ROW_MAC (P, 0)                                                           \
      ROW_MAC (P, 1)                                                           \
      ROW_MAC (P, 2)                                                           \
      ROW_MAC (P, 3)                                                           \
      ROW_MAC (P, 4)                                                           \
      ROW_MAC (P, 5)                                                           \
      a += ASTEP;                                                              \
      b += BSTEP;                                                              \
    }                                                                          \
    ROW_STORE (P, 0, LANES)                                                    \
    ROW_STORE (P, 1, LANES)                                                    \
    ROW_STORE (P, 2, LANES)                                                    \
    ROW_STORE (P, 3, LANES)                                                    \
    ROW_STORE (P, 4, LANES)                                                    \
    ROW_STORE (P, 5, LANES)                                                    \
  }                                                                            \
                                                                               \
  void NAME (int mr, int64_t ks, const void *pa, const void *pb, void *c,      \
      int64_t ldc, int beta)                                                   \
  {                                                                            \
    switch (mr) {                                                              \
    case 1:                                                                    \
      NAME##_tile (1, ks, pa, pb, c, ldc, beta);                               \
      break;                                                                   \
    case 2:                                                                    \
      NAME##_tile (2, ks, pa, pb, c, ldc, beta);                               \
      break;                                                                   \
    case 3:                                                                    \
      NAME##_tile (3, ks, pa, pb, c, ldc, beta);                               \
      break;                                                                   \
    case 4:                                                                    \
      NAME##_tile (4, ks, pa, pb, c, ldc, beta);                               \
      break;                                                                   \
    case 5:                                                                    \
      NAME##_tile (5, ks, pa, pb, c, ldc, beta);                               \
      break;                                                                   \
    default:                                                                   \
      NAME##_tile (6, ks, pa, pb, c, ldc, beta);                               \
      break;                                                                   \
    }                                                                          \
  }

/* The skinny kernel (m <= MR): R rows times G strips of B side by side,
 * 2 * R * G <= 12 accumulators.  One strip has only 2 * R FMA chains, too
 * few to cover the FMA latency at R = 1; G strips give 2 * R * G.  Slot s
 * holds row s / (2G), strip s / 2 % G, half s % 2; each is the same chain
 * over k as in the micro-kernel, so the sums have the same bits. */
#define SK_MAC(P, s)                                                           \
  if (s < 2 * R * G)                                                           \
    x##s = P##_MAC (x##s, P##_BCA (a, s / (2 * G)),                            \
        P##_LDB (b + (s / 2 % G) * sstride, s % 2));
#define SK_STORE(P, s, LANES)                                                  \
  if (s < 2 * R * G) {                                                         \
    __typeof__ (c) cs                                                          \
        = c + s / (2 * G) * ldc + (s / 2 % G) * 2 * LANES + s % 2 * LANES;     \
    if (beta)                                                                  \
      x##s = P##_ADD (P##_LDC (cs), x##s);                                     \
    P##_STC (cs, x##s);                                                        \
  }
#define SK_ALL(M, ...)                                                         \
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
  M (__VA_ARGS__, 11)
#define SK_MAC1(P, s) SK_MAC (P, s)
#define SK_STORE1(P, L, s) SK_STORE (P, s, L)

#define TN_GEMM_SKR_AVX2(NAME, P, CT, OT, VT, LANES, ASTEP, BSTEP)             \
  INLINE void NAME##_tile (const int R, const int G, int64_t ks, const CT *a,  \
      const CT *b, int64_t sstride, OT *c, int64_t ldc, int beta)              \
  {                                                                            \
    VT x0 = P##_ZERO (), x1 = x0, x2 = x0, x3 = x0, x4 = x0, x5 = x0;          \
    VT x6 = x0, x7 = x0, x8 = x0, x9 = x0, x10 = x0, x11 = x0;                 \
                                                                               \
    _Pragma ("GCC unroll 2") for (int64_t p = 0; p < ks; p++)                  \
    {                                                                          \
      SK_ALL (SK_MAC1, P)                                                      \
      a += ASTEP;                                                              \
      b += BSTEP;                                                              \
    }                                                                          \
    SK_ALL (SK_STORE1, P, LANES)                                               \
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
      case 1:                                                                  \
        h = h > 6 ? 6 : h;                                                     \
        if (h == 6)                                                            \
          NAME##_tile (1, 6, ks, pa, b, sstride, c, ldc, beta);                \
        else if (h == 5)                                                       \
          NAME##_tile (1, 5, ks, pa, b, sstride, c, ldc, beta);                \
        else if (h == 4)                                                       \
          NAME##_tile (1, 4, ks, pa, b, sstride, c, ldc, beta);                \
        else if (h == 3)                                                       \
          NAME##_tile (1, 3, ks, pa, b, sstride, c, ldc, beta);                \
        else if (h == 2)                                                       \
          NAME##_tile (1, 2, ks, pa, b, sstride, c, ldc, beta);                \
        else                                                                   \
          NAME##_tile (1, 1, ks, pa, b, sstride, c, ldc, beta);                \
        break;                                                                 \
      case 2:                                                                  \
        h = h > 3 ? 3 : h;                                                     \
        if (h == 3)                                                            \
          NAME##_tile (2, 3, ks, pa, b, sstride, c, ldc, beta);                \
        else if (h == 2)                                                       \
          NAME##_tile (2, 2, ks, pa, b, sstride, c, ldc, beta);                \
        else                                                                   \
          NAME##_tile (2, 1, ks, pa, b, sstride, c, ldc, beta);                \
        break;                                                                 \
      case 3:                                                                  \
        h = h > 2 ? 2 : h;                                                     \
        if (h == 2)                                                            \
          NAME##_tile (3, 2, ks, pa, b, sstride, c, ldc, beta);                \
        else                                                                   \
          NAME##_tile (3, 1, ks, pa, b, sstride, c, ldc, beta);                \
        break;                                                                 \
      case 4:                                                                  \
        h = 1;                                                                 \
        NAME##_tile (4, 1, ks, pa, b, sstride, c, ldc, beta);                  \
        break;                                                                 \
      case 5:                                                                  \
        h = 1;                                                                 \
        NAME##_tile (5, 1, ks, pa, b, sstride, c, ldc, beta);                  \
        break;                                                                 \
      default:                                                                 \
        h = 1;                                                                 \
        NAME##_tile (6, 1, ks, pa, b, sstride, c, ldc, beta);                  \
        break;                                                                 \
      }                                                                        \
      g -= h;                                                                  \
      b += h * sstride;                                                        \
      c += h * 2 * LANES;                                                      \
    }                                                                          \
  }

TN_GEMM_UKR_AVX2 (tn_gemm_ukr_f32_avx2, F32, float, float, __m256, 8, 6, 16)
TN_GEMM_UKR_AVX2 (tn_gemm_ukr_f64_avx2, F64, double, double, __m256d, 4, 6, 8)
TN_GEMM_UKR_AVX2 (tn_gemm_ukr_i8_avx2, I8, int16_t, int32_t, __m256i, 8, 12, 32)
TN_GEMM_SKR_AVX2 (tn_gemm_skr_f32_avx2, F32, float, float, __m256, 8, 6, 16)
TN_GEMM_SKR_AVX2 (tn_gemm_skr_f64_avx2, F64, double, double, __m256d, 4, 6, 8)
TN_GEMM_SKR_AVX2 (tn_gemm_skr_i8_avx2, I8, int16_t, int32_t, __m256i, 8, 12, 32)
