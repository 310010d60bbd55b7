/* The AVX2 view kernels (the avx2 library of core/meson.build): two
 * 16-byte blocks side by side, one per 128-bit lane, since vpshufb does
 * not cross lanes; then one 16-byte block where one fits
 * (x86/view-shuf.h), then the portable loops of core/view-kern-tmpl.h. */
#include "core/x86/view-shuf.h"

VK_INLINE __m256i
mask32 (const tn_vk *k, int i)
{
  return _mm256_load_si256 ((const __m256i *) k->mask[i]);
}

VK_INLINE int64_t
deint_32 (const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t nb,
    int64_t j, const int S, const int C, const int M)
{
  const int G = 32 / S;
  VK_MASKS (__m256i, mask32, mk, k, C * M);

  for (; j + G <= nb; j += G) {
    const char *sb = s + j * C * S;
    __m256i in[TN_VK_MAX_C];

#pragma GCC unroll 8
    for (int i = 0; i < C; i++)
      in[i] = _mm256_inserti128_si256 (_mm256_castsi128_si256 (_mm_loadu_si128 (
                                           (const __m128i *) (sb + 16 * i))),
          _mm_loadu_si128 ((const __m128i *) (sb + 16 * (C + i))), 1);
    for (int q = 0; q < M; q++) {
      __m256i a = _mm256_shuffle_epi8 (in[0], mk[q * C]);

#pragma GCC unroll 8
      for (int i = 1; i < C; i++)
        a = _mm256_or_si256 (a, _mm256_shuffle_epi8 (in[i], mk[q * C + i]));
      _mm256_storeu_si256 ((__m256i *) (d + q * pitch + j * S), a);
    }
  }
  return j;
}

VK_INLINE int64_t
inter_32 (const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n,
    int64_t j, const int S, const int C)
{
  const int G = 32 / S;
  VK_MASKS (__m256i, mask32, mk, k, C * C);

  for (; j + G <= n; j += G) {
    char *db = d + j * C * S;
    __m256i in[TN_VK_MAX_C];

#pragma GCC unroll 8
    for (int q = 0; q < C; q++)
      in[q] = _mm256_loadu_si256 ((const __m256i *) (s + q * pitch + j * S));
    for (int o = 0; o < C; o++) {
      __m256i a = _mm256_shuffle_epi8 (in[0], mk[o * C]);

#pragma GCC unroll 8
      for (int q = 1; q < C; q++)
        a = _mm256_or_si256 (a, _mm256_shuffle_epi8 (in[q], mk[o * C + q]));
      _mm_storeu_si128 ((__m128i *) (db + 16 * o), _mm256_castsi256_si128 (a));
      _mm_storeu_si128 (
          (__m128i *) (db + 16 * (C + o)), _mm256_extracti128_si256 (a, 1));
    }
  }
  return j;
}

ANY_FN (deint, 32, DEINT_CASE)
ANY_FN (inter, 32, INTER_CASE)

VK_ALL_ENTRIES (avx2, 32)
