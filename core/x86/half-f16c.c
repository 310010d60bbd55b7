/* The bulk float16 conversions with F16C (vcvtph2ps / vcvtps2ph), in the
 * avx2 library of core/meson.build: built with -mavx2 -mfma -mf16c, so
 * tn_half_dsp_init takes them only when the CPU has AVX2 as well.  The
 * bfloat16 ones are AVX2 integer code (no F16C), the scalar rounding of
 * tn_f32_to_bf16_inline eight lanes at a time.
 *
 * The tail goes through a padded block so every item takes the same
 * instruction and the results never depend on n.
 *
 * The _stream forms write dst's whole 32-byte vectors with non-temporal
 * stores and the rest with the plain forms: a 16M-item cast then moves
 * 64 MiB read + 32 MiB written instead of another 32 MiB read for
 * ownership of each output line (0.70 -> 0.9 of memcpy of the output
 * bytes for bfloat16 in a scratch loop, docs/perf-notes.md). */
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

/* Sixteen items converted, in order. */
static inline __attribute__ ((always_inline)) __m256i
f16_round16 (const float *s)
{
  __m128i lo = _mm256_cvtps_ph (_mm256_loadu_ps (s), _MM_FROUND_TO_NEAREST_INT);
  __m128i hi
      = _mm256_cvtps_ph (_mm256_loadu_ps (s + 8), _MM_FROUND_TO_NEAREST_INT);

  return _mm256_inserti128_si256 (_mm256_castsi128_si256 (lo), hi, 1);
}

/* Items before the first 32-byte border of dst, at most n; n when dst is
 * not even 2-byte aligned (no border is ever reached). */
static inline size_t
stream_head (const uint16_t *dst, size_t n)
{
  size_t head = (-(uintptr_t) dst & 31) / sizeof *dst;

  return ((uintptr_t) dst & 1) || head > n ? n : head;
}

/* NAME: the plain entry PLAIN up to the first 32-byte border of dst and
 * for the tail, ROUND16's vectors streamed in between. */
#define NARROW_STREAM(NAME, PLAIN, ROUND16)                                    \
  void NAME (uint16_t *dst, const float *src, size_t n)                        \
  {                                                                            \
    size_t i = stream_head (dst, n);                                           \
                                                                               \
    PLAIN (dst, src, i);                                                       \
    for (; i + 16 <= n; i += 16)                                               \
      _mm256_stream_si256 ((__m256i *) (dst + i), ROUND16 (src + i));          \
    PLAIN (dst + i, src + i, n - i);                                           \
  }

NARROW_STREAM (tn_f32_to_f16_f16c_stream, tn_f32_to_f16_f16c, f16_round16)

void
tn_bf16_to_f32_avx2 (float *dst, const uint16_t *src, size_t n)
{
  size_t i = 0;

  for (; i + 16 <= n; i += 16) {
    __m256i h = _mm256_loadu_si256 ((const __m256i *) (src + i));
    __m256i z = _mm256_setzero_si256 ();
    /* unpack within lanes: lo holds items 0-3 and 8-11, hi 4-7 and
     * 12-15; permute2x128 puts them back in order. */
    __m256i lo = _mm256_unpacklo_epi16 (z, h),
            hi = _mm256_unpackhi_epi16 (z, h);

    _mm256_storeu_si256 (
        (__m256i *) (dst + i), _mm256_permute2x128_si256 (lo, hi, 0x20));
    _mm256_storeu_si256 (
        (__m256i *) (dst + i + 8), _mm256_permute2x128_si256 (lo, hi, 0x31));
  }
  for (; i < n; i++)
    dst[i] = tn_bf16_to_f32_inline (src[i]);
}

/* Eight float32 bits to bfloat16 bits in the low halves of the lanes. */
static inline __attribute__ ((always_inline)) __m256i
bf16_round8 (__m256i u)
{
  const __m256i absm = _mm256_set1_epi32 (0x7fffffff);
  const __m256i inf = _mm256_set1_epi32 (0x7f800000);
  const __m256i bias = _mm256_set1_epi32 (0x7fff);
  const __m256i one = _mm256_set1_epi32 (1);
  const __m256i quiet = _mm256_set1_epi32 (0x40);
  /* NaN: |u| > inf as signed integers (|u| < 2^31) */
  __m256i nan = _mm256_cmpgt_epi32 (_mm256_and_si256 (u, absm), inf);
  __m256i r = _mm256_srli_epi32 (
      _mm256_add_epi32 (_mm256_add_epi32 (u, bias),
          _mm256_and_si256 (_mm256_srli_epi32 (u, 16), one)),
      16);
  __m256i q = _mm256_or_si256 (_mm256_srli_epi32 (u, 16), quiet);

  return _mm256_blendv_epi8 (r, q, nan);
}

/* The same for lanes without NaNs: the rounding alone. */
static inline __attribute__ ((always_inline)) __m256i
bf16_round8_num (__m256i u)
{
  const __m256i bias = _mm256_set1_epi32 (0x7fff);
  const __m256i one = _mm256_set1_epi32 (1);

  return _mm256_srli_epi32 (
      _mm256_add_epi32 (_mm256_add_epi32 (u, bias),
          _mm256_and_si256 (_mm256_srli_epi32 (u, 16), one)),
      16);
}

/* Sixteen items converted, in order.  One unordered compare of the two
 * vectors finds a NaN among the sixteen; only then are the lanes sorted
 * (bf16_round8): half the instructions a vector, which Zen 1 (two
 * micro-ops for each 256-bit one) needs to keep up with memory. */
static inline __attribute__ ((always_inline)) __m256i
bf16_round16 (const float *s)
{
  __m256 fa = _mm256_loadu_ps (s), fb = _mm256_loadu_ps (s + 8);
  __m256i a = _mm256_castps_si256 (fa), b = _mm256_castps_si256 (fb);
  __m256i p;

  if (__builtin_expect (
          _mm256_movemask_ps (_mm256_cmp_ps (fa, fb, _CMP_UNORD_Q)) == 0, 1))
    p = _mm256_packus_epi32 (bf16_round8_num (a), bf16_round8_num (b));
  else
    p = _mm256_packus_epi32 (bf16_round8 (a), bf16_round8 (b));
  /* packus works within lanes: a0 b0 a1 b1 in 64-bit quarters; the
   * values fit 16 bits unsigned, so it only narrows. */
  return _mm256_permute4x64_epi64 (p, 0xd8);
}

void
tn_f32_to_bf16_avx2 (uint16_t *dst, const float *src, size_t n)
{
  size_t i = 0;

  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256 ((__m256i *) (dst + i), bf16_round16 (src + i));
  for (; i < n; i++)
    dst[i] = tn_f32_to_bf16_inline (src[i]);
}

NARROW_STREAM (tn_f32_to_bf16_avx2_stream, tn_f32_to_bf16_avx2, bf16_round16)
