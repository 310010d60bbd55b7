/* The bulk float16 conversions with F16C (vcvtph2ps / vcvtps2ph), in the
 * avx2 library of core/meson.build: built with -mavx2 -mfma -mf16c, so
 * tn_half_dsp_init takes them only when the CPU has AVX2 as well.
 *
 * The tail goes through a padded block so every item takes the same
 * instruction and the results never depend on n. */
#include "core/half-private.h"

#include <immintrin.h>
#include <string.h>

void
tn_f16_to_f32_f16c (float *dst, const uint16_t *src, size_t n)
{
  uint16_t tin[8] = { 0 };
  float tout[8];
  size_t i = 0;

  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128 ((const __m128i *) (src + i));
    _mm256_storeu_ps (dst + i, _mm256_cvtph_ps (h));
  }
  if (i < n) {
    memcpy (tin, src + i, (n - i) * sizeof *src);
    _mm256_storeu_ps (
        tout, _mm256_cvtph_ps (_mm_loadu_si128 ((const __m128i *) tin)));
    memcpy (dst + i, tout, (n - i) * sizeof *dst);
  }
}

void
tn_f32_to_f16_f16c (uint16_t *dst, const float *src, size_t n)
{
  float tin[8] = { 0 };
  uint16_t tout[8];
  size_t i = 0;

  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps (src + i);
    _mm_storeu_si128 (
        (__m128i *) (dst + i), _mm256_cvtps_ph (v, _MM_FROUND_TO_NEAREST_INT));
  }
  if (i < n) {
    memcpy (tin, src + i, (n - i) * sizeof *src);
    _mm_storeu_si128 ((__m128i *) tout,
        _mm256_cvtps_ph (_mm256_loadu_ps (tin), _MM_FROUND_TO_NEAREST_INT));
    memcpy (dst + i, tout, (n - i) * sizeof *dst);
  }
}
