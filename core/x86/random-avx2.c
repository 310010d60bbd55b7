/* Philox4x32-10 on AVX2, 16 blocks at a time (the avx2 library of
 * core/meson.build): the same bits as philox_batch_c of core/random.c. */
#include "core/random-kern.h"

#include <immintrin.h>

/* 32x32 -> 64 products of 8 lanes: vpmuludq takes the even lanes, so the
 * odd ones are shifted down first and the halves blended back. */
static inline void
mulhilo8 (__m256i a, __m256i m, __m256i *hi, __m256i *lo)
{
  __m256i pe = _mm256_mul_epu32 (a, m);
  __m256i po = _mm256_mul_epu32 (_mm256_srli_epi64 (a, 32), m);

  *lo = _mm256_blend_epi32 (pe, _mm256_slli_epi64 (po, 32), 0xAA);
  *hi = _mm256_blend_epi32 (_mm256_srli_epi64 (pe, 32), po, 0xAA);
}

#define PHILOX_ROUND8(x0, x1, x2, x3, k0v, k1v)                                \
  do {                                                                         \
    __m256i h0_, l0_, h1_, l1_;                                                \
    mulhilo8 (x0, m0, &h0_, &l0_);                                             \
    mulhilo8 (x2, m1, &h1_, &l1_);                                             \
    x0 = _mm256_xor_si256 (_mm256_xor_si256 (h1_, x1), k0v);                   \
    x1 = l1_;                                                                  \
    x2 = _mm256_xor_si256 (_mm256_xor_si256 (h0_, x3), k1v);                   \
    x3 = l0_;                                                                  \
  } while (0)

/* Two independent vectors of 8 blocks, so that one's multiply latency
 * hides behind the other's work. */
void
tn_philox_batch_avx2 (uint32_t x[4][TN_PHILOX_BATCH], uint64_t block0,
    uint64_t stream, uint64_t seed)
{
  const __m256i m0 = _mm256_set1_epi32 ((int) TN_PHILOX_M0);
  const __m256i m1 = _mm256_set1_epi32 ((int) TN_PHILOX_M1);
  uint32_t k0 = (uint32_t) seed, k1 = (uint32_t) (seed >> 32);
  __m256i a0, a1, a2, a3, b0, b1, b2, b3;

  for (int j = 0; j < TN_PHILOX_BATCH; j++) {
    uint64_t b = block0 + (uint64_t) j;

    x[0][j] = (uint32_t) b;
    x[1][j] = (uint32_t) (b >> 32);
  }
  a0 = _mm256_loadu_si256 ((const __m256i *) &x[0][0]);
  b0 = _mm256_loadu_si256 ((const __m256i *) &x[0][8]);
  a1 = _mm256_loadu_si256 ((const __m256i *) &x[1][0]);
  b1 = _mm256_loadu_si256 ((const __m256i *) &x[1][8]);
  a2 = b2 = _mm256_set1_epi32 ((int) (uint32_t) stream);
  a3 = b3 = _mm256_set1_epi32 ((int) (uint32_t) (stream >> 32));
  for (int r = 0; r < 10; r++) {
    const __m256i k0v = _mm256_set1_epi32 ((int) k0);
    const __m256i k1v = _mm256_set1_epi32 ((int) k1);

    PHILOX_ROUND8 (a0, a1, a2, a3, k0v, k1v);
    PHILOX_ROUND8 (b0, b1, b2, b3, k0v, k1v);
    k0 += TN_PHILOX_W0;
    k1 += TN_PHILOX_W1;
  }
  _mm256_storeu_si256 ((__m256i *) &x[0][0], a0);
  _mm256_storeu_si256 ((__m256i *) &x[0][8], b0);
  _mm256_storeu_si256 ((__m256i *) &x[1][0], a1);
  _mm256_storeu_si256 ((__m256i *) &x[1][8], b1);
  _mm256_storeu_si256 ((__m256i *) &x[2][0], a2);
  _mm256_storeu_si256 ((__m256i *) &x[2][8], b2);
  _mm256_storeu_si256 ((__m256i *) &x[3][0], a3);
  _mm256_storeu_si256 ((__m256i *) &x[3][8], b3);
}
