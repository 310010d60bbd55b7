/* AVX-512 micro-kernels (the avx512 library of core/meson.build: F, DQ,
 * BW, VL): the templates of x86/gemm-tmpl.h on zmm registers, an
 * mr x 2 vectors tile in up to 28 of the 32 (12 x 32 float32, 14 x 16
 * float64, 12 x 32 int32 sums of int8 pairs through vpmaddwd, which needs
 * BW).  The broadcast of A folds into the FMA's memory operand
 * ({1to16}), so a k step is 2 loads of B and 2 * mr FMAs.  The geometry
 * is in gemm-kern.c; kc is AVX2's, so the float bits are AVX2's. */
#include "core/gemm-pack.h"

#include "gemm-tmpl.h"

/* float32: 16 lanes. */
#define F32_PFB 0
#define F32_ZERO() _mm512_setzero_ps ()
#define F32_LDB(b, v) _mm512_loadu_ps ((b) + 16 * (v))
#define F32_BCA(a, i) _mm512_set1_ps ((a)[i])
#define F32_MAC(x, a, b) _mm512_fmadd_ps ((a), (b), (x))
#define F32_LDC(c) _mm512_loadu_ps (c)
#define F32_ADD(x, y) _mm512_add_ps ((x), (y))
#define F32_STC(c, x) _mm512_storeu_ps ((c), (x))

/* float64: 8 lanes. */
#define F64_PFB 1
#define F64_ZERO() _mm512_setzero_pd ()
#define F64_LDB(b, v) _mm512_loadu_pd ((b) + 8 * (v))
#define F64_BCA(a, i) _mm512_set1_pd ((a)[i])
#define F64_MAC(x, a, b) _mm512_fmadd_pd ((a), (b), (x))
#define F64_LDC(c) _mm512_loadu_pd (c)
#define F64_ADD(x, y) _mm512_add_pd ((x), (y))
#define F64_STC(c, x) _mm512_storeu_pd ((c), (x))

/* int8 as int16 pairs: a step is two k items, adjacent in both panels. */
INLINE __m512i
i8_bca (const int16_t *a, int i)
{
  int32_t pair;

  memcpy (&pair, a + 2 * i, sizeof pair);
  return _mm512_set1_epi32 (pair);
}
#define I8_PFB 0
#define I8_ZERO() _mm512_setzero_si512 ()
#define I8_LDB(b, v) _mm512_loadu_si512 ((const void *) ((b) + 32 * (v)))
#define I8_BCA(a, i) i8_bca ((a), (i))
#define I8_MAC(x, a, b) _mm512_add_epi32 ((x), _mm512_madd_epi16 ((a), (b)))
#define I8_LDC(c) _mm512_loadu_si512 ((const void *) (c))
#define I8_ADD(x, y) _mm512_add_epi32 ((x), (y))
#define I8_STC(c, x) _mm512_storeu_si512 ((void *) (c), (x))

#define ROWS12(M, ...)                                                         \
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
  M (__VA_ARGS__, 12)
#define ROWS14(M, ...)                                                         \
  ROWS12 (M, __VA_ARGS__)                                                      \
  M (__VA_ARGS__, 13)                                                          \
  M (__VA_ARGS__, 14)

TN_GEMM_UKR_X86 (
    tn_gemm_ukr_f32_avx512, F32, float, float, __m512, 16, 12, 32, ROWS12, 12)
TN_GEMM_UKR_X86 (
    tn_gemm_ukr_f64_avx512, F64, double, double, __m512d, 8, 14, 16, ROWS14, 14)
TN_GEMM_UKR_X86 (tn_gemm_ukr_i8_avx512, I8, int16_t, int32_t, __m512i, 16, 24,
    64, ROWS12, 12)
TN_GEMM_SKR_X86 (tn_gemm_skr_f32_avx512, F32, float, float, __m512, 16, 12, 32,
    ROWS12, 12, 28)
TN_GEMM_SKR_X86 (tn_gemm_skr_f64_avx512, F64, double, double, __m512d, 8, 14,
    16, ROWS14, 14, 28)
TN_GEMM_SKR_X86 (tn_gemm_skr_i8_avx512, I8, int16_t, int32_t, __m512i, 16, 24,
    64, ROWS12, 12, 28)
