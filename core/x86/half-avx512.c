/* float32 -> float16 with AVX-512F's vcvtps2ph on zmm (the avx512 library
 * of core/meson.build), 16 items per instruction and 64-byte stores; the
 * same instruction as the F16C entry of x86/half-f16c.c on a wider
 * register, so the same bits (round to nearest even, NaN made quiet).
 *
 * Why a second entry: on the Xeon of session 10 (Emerald Rapids) a 16M
 * cast with the F16C entry's 32-byte non-temporal stores ran at 0.67-0.72
 * of a memcpy of the output bytes, the same loop with 64-byte ones (a
 * whole line per store) at 0.83-0.85, and with the source prefetched
 * (STREAM_AHEAD) at 0.89-0.95 (a scratch loop, docs/perf-notes.md).
 * AVX512-FP16's vcvtps2phx would do the same work at the same rate (one
 * zmm per cycle measured for both) and needs a CPU level of its own. */
#include "core/half-private.h"

#include <immintrin.h>
#include <stdint.h>

/* Items of the source that the stream entry asks the caches for ahead of
 * the loads (4 KiB).  On the Xeon the loop ran at about the sum of its
 * memory time and its instructions' time without it: the hardware
 * prefetchers alone did not keep enough lines in flight. */
#define STREAM_AHEAD 1024

/* 32 items converted, in order. */
static inline __attribute__ ((always_inline)) __m512i
f16_32 (__m512 a, __m512 b)
{
  return _mm512_inserti64x4 (
      _mm512_castsi256_si512 (_mm512_cvtps_ph (a, _MM_FROUND_TO_NEAREST_INT)),
      _mm512_cvtps_ph (b, _MM_FROUND_TO_NEAREST_INT), 1);
}

void
tn_f32_to_f16_avx512 (uint16_t *dst, const float *src, size_t n)
{
  size_t i = 0;

  for (; i + 32 <= n; i += 32)
    _mm512_storeu_si512 (dst + i,
        f16_32 (_mm512_loadu_ps (src + i), _mm512_loadu_ps (src + i + 16)));
  if (i < n) {
    /* masked: the lanes past n are neither read nor written */
    size_t m = n - i;
    __mmask16 ka = (__mmask16) (m >= 16 ? 0xffff : (1u << m) - 1);
    __mmask16 kb = (__mmask16) (m > 16 ? (1u << (m - 16)) - 1 : 0);
    __mmask32 k = (__mmask32) (((uint64_t) 1 << m) - 1);

    _mm512_mask_storeu_epi16 (dst + i, k,
        f16_32 (_mm512_maskz_loadu_ps (ka, src + i),
            _mm512_maskz_loadu_ps (kb, src + i + 16)));
  }
}

void
tn_f32_to_f16_avx512_stream (uint16_t *dst, const float *src, size_t n)
{
  size_t head = (-(uintptr_t) dst & 63) / sizeof *dst, i;

  if (((uintptr_t) dst & 1) || head >= n) {
    tn_f32_to_f16_avx512 (dst, src, n);
    return;
  }
  tn_f32_to_f16_avx512 (dst, src, head);
  for (i = head; i + 32 <= n; i += 32) {
    /* prefetches past the end of src never fault */
    _mm_prefetch ((const char *) (src + i + STREAM_AHEAD), _MM_HINT_T0);
    _mm_prefetch ((const char *) (src + i + STREAM_AHEAD + 16), _MM_HINT_T0);
    _mm512_stream_si512 ((void *) (dst + i),
        f16_32 (_mm512_loadu_ps (src + i), _mm512_loadu_ps (src + i + 16)));
  }
  tn_f32_to_f16_avx512 (dst + i, src + i, n - i);
}
