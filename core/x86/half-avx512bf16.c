/* float32 -> bfloat16 with AVX512_BF16 (the avx512bf16 library of
 * core/meson.build: the avx512 flags and -mavx512bf16), taken only when
 * the CPU has both (core/half.c).
 *
 * vcvtne2ps2bf16 rounds to nearest even and makes a NaN quiet exactly as
 * tn_f32_to_bf16_inline does (the top 16 bits with bit 6 set), but treats
 * a float32 subnormal input as zero (Intel's pseudocode; Zen 4 measured
 * the same: 0x00018000 gives 0x0000, not 0x0002), whatever MXCSR says.
 * So the lanes with a zero exponent and a nonzero fraction are rounded
 * again with the integer formula of the portable entry; the test costs
 * two opmask compares per 16 lanes, the fix-up runs only for vectors that
 * hold a subnormal.  One instruction per 32 items instead of the AVX2
 * entry's dozen per 16: in cache (1M items) about 1.6x the AVX2 entry. */
#include "core/half-private.h"

#include <immintrin.h>
#include <stdint.h>

/* Items of the source the stream entry asks the caches for ahead of its
 * loads (4 KiB), as x86/half-avx512.c does for float16 and for the same
 * reason: on the Xeon of session 10 the 16M cast went from 0.70-0.75 of
 * memcpy of the output bytes to 0.83-0.90 with them (scratch loop). */
#define STREAM_AHEAD 1024

/* The portable rounding of 16 lanes without NaNs (subnormals and zeros
 * only come here), narrowed to 16 bits. */
static __attribute__ ((noinline, cold)) __m512i
round_sub (__m512i p, __m512i a, __m512i b, __mmask16 sa, __mmask16 sb)
{
  const __m512i bias = _mm512_set1_epi32 (0x7fff);
  const __m512i one = _mm512_set1_epi32 (1);
  __m512i ra = _mm512_srli_epi32 (
      _mm512_add_epi32 (_mm512_add_epi32 (a, bias),
          _mm512_and_si512 (_mm512_srli_epi32 (a, 16), one)),
      16);
  __m512i rb = _mm512_srli_epi32 (
      _mm512_add_epi32 (_mm512_add_epi32 (b, bias),
          _mm512_and_si512 (_mm512_srli_epi32 (b, 16), one)),
      16);
  __m512i q
      = _mm512_inserti64x4 (_mm512_castsi256_si512 (_mm512_cvtepi32_epi16 (ra)),
          _mm512_cvtepi32_epi16 (rb), 1);

  return _mm512_mask_blend_epi16 (_mm512_kunpackw (sb, sa), p, q);
}

/* 32 items: a holds items 0-15, b 16-31. */
static inline __attribute__ ((always_inline)) __m512i
bf16_32 (__m512i a, __m512i b)
{
  const __m512i expo = _mm512_set1_epi32 (0x7f800000);
  const __m512i frac = _mm512_set1_epi32 (0x007fffff);
  /* vcvtne2ps2bf16 puts its second operand in the low half */
  __m512i p = (__m512i) _mm512_cvtne2ps_pbh (
      _mm512_castsi512_ps (b), _mm512_castsi512_ps (a));
  __mmask16 sa = _mm512_mask_test_epi32_mask (
      _mm512_testn_epi32_mask (a, expo), a, frac);
  __mmask16 sb = _mm512_mask_test_epi32_mask (
      _mm512_testn_epi32_mask (b, expo), b, frac);

  if (__builtin_expect ((sa | sb) != 0, 0))
    p = round_sub (p, a, b, sa, sb);
  return p;
}

void
tn_f32_to_bf16_avx512bf16 (uint16_t *dst, const float *src, size_t n)
{
  size_t i = 0;

  for (; i + 32 <= n; i += 32)
    _mm512_storeu_si512 (dst + i, bf16_32 (_mm512_loadu_si512 (src + i),
                                      _mm512_loadu_si512 (src + i + 16)));
  if (i < n) {
    /* masked: the lanes past n are neither read nor written */
    size_t m = n - i;
    __mmask16 ka = (__mmask16) (m >= 16 ? 0xffff : (1u << m) - 1);
    __mmask16 kb = (__mmask16) (m > 16 ? (1u << (m - 16)) - 1 : 0);
    __mmask32 k = (__mmask32) (((uint64_t) 1 << m) - 1);

    _mm512_mask_storeu_epi16 (dst + i, k,
        bf16_32 (_mm512_maskz_loadu_epi32 (ka, src + i),
            _mm512_maskz_loadu_epi32 (kb, src + i + 16)));
  }
}

void
tn_f32_to_bf16_avx512bf16_stream (uint16_t *dst, const float *src, size_t n)
{
  size_t head = (-(uintptr_t) dst & 63) / sizeof *dst, i;

  if (((uintptr_t) dst & 1) || head >= n) {
    tn_f32_to_bf16_avx512bf16 (dst, src, n);
    return;
  }
  tn_f32_to_bf16_avx512bf16 (dst, src, head);
  for (i = head; i + 32 <= n; i += 32) {
    /* prefetches past the end of src never fault */
    _mm_prefetch ((const char *) (src + i + STREAM_AHEAD), _MM_HINT_T0);
    _mm_prefetch ((const char *) (src + i + STREAM_AHEAD + 16), _MM_HINT_T0);
    _mm512_stream_si512 (
        (void *) (dst + i), bf16_32 (_mm512_loadu_si512 (src + i),
                                _mm512_loadu_si512 (src + i + 16)));
  }
  tn_f32_to_bf16_avx512bf16 (dst + i, src + i, n - i);
}
