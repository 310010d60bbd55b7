/* AVX2+FMA micro-kernels (the avx2 library of core/meson.build): an
 * mr x NR tile held in 2 * mr ymm registers (12 of the 16 at mr = 6), one
 * broadcast of A and two loads of B per k step (the templates of
 * x86/gemm-tmpl.h).  float32, float64 and int8 (as int16 pairs through
 * vpmaddwd). */
#include "core/gemm-pack.h"

#include "gemm-tmpl.h"

/* float32: 8 lanes. */
#define F32_PFB 0
#define F32_ZERO() _mm256_setzero_ps ()
#define F32_LDB(b, v) _mm256_loadu_ps ((b) + 8 * (v))
#define F32_BCA(a, i) _mm256_broadcast_ss ((a) + (i))
#define F32_MAC(x, a, b) _mm256_fmadd_ps ((a), (b), (x))
#define F32_LDC(c) _mm256_loadu_ps (c)
#define F32_ADD(x, y) _mm256_add_ps ((x), (y))
#define F32_STC(c, x) _mm256_storeu_ps ((c), (x))

/* float64: 4 lanes. */
#define F64_PFB 0
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
#define I8_PFB 0
#define I8_ZERO() _mm256_setzero_si256 ()
#define I8_LDB(b, v) _mm256_loadu_si256 ((const __m256i *) ((b) + 16 * (v)))
#define I8_BCA(a, i) i8_bca ((a), (i))
#define I8_MAC(x, a, b) _mm256_add_epi32 ((x), _mm256_madd_epi16 ((a), (b)))
#define I8_LDC(c) _mm256_loadu_si256 ((const __m256i *) (c))
#define I8_ADD(x, y) _mm256_add_epi32 ((x), (y))
#define I8_STC(c, x) _mm256_storeu_si256 ((__m256i *) (c), (x))

#define ROWS6(M, ...)                                                          \
  M (__VA_ARGS__, 1)                                                           \
  M (__VA_ARGS__, 2)                                                           \
  M (__VA_ARGS__, 3)                                                           \
  M (__VA_ARGS__, 4)                                                           \
  M (__VA_ARGS__, 5)                                                           \
  M (__VA_ARGS__, 6)

TN_GEMM_UKR_X86 (
    tn_gemm_ukr_f32_avx2, F32, float, float, __m256, 8, 6, 16, ROWS6, 6)
TN_GEMM_UKR_X86 (
    tn_gemm_ukr_f64_avx2, F64, double, double, __m256d, 4, 6, 8, ROWS6, 6)
TN_GEMM_UKR_X86 (
    tn_gemm_ukr_i8_avx2, I8, int16_t, int32_t, __m256i, 8, 12, 32, ROWS6, 6)
TN_GEMM_SKR_X86 (
    tn_gemm_skr_f32_avx2, F32, float, float, __m256, 8, 6, 16, ROWS6, 6, 12)
TN_GEMM_SKR_X86 (
    tn_gemm_skr_f64_avx2, F64, double, double, __m256d, 4, 6, 8, ROWS6, 6, 12)
TN_GEMM_SKR_X86 (
    tn_gemm_skr_i8_avx2, I8, int16_t, int32_t, __m256i, 8, 12, 32, ROWS6, 6, 12)
