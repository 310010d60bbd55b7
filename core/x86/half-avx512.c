/* float32 -> float16 with AVX-512F's vcvtps2ph on zmm (the avx512 library
 * of core/meson.build), 16 items per instruction and 64-byte stores; the
 * same instruction as the F16C entry of x86/half-f16c.c on a wider
 * register, so the same bits (round to nearest even, NaN made quiet).
 *
 * Why a second entry: on the Xeon of session 10 (Emerald Rapids) a 16M
 * cast with the F16C entry's 32-byte non-temporal stores ran at 0.67-0.72
 * of a memcpy of the output bytes, the same loop with 64-byte ones (a
 * whole line per store) at 0.83-0.85, and with the source prefetched
 * (TN_HALF512_AHEAD) at 0.89-0.95 (a scratch loop, docs/perf-notes.md).
 * AVX512-FP16's vcvtps2phx would do the same work at the same rate (one
 * zmm per cycle measured for both) and needs a CPU level of its own. */
#include "core/half-private.h"

#include "core/x86/half-avx512-loop.h"

/* 32 items converted, in order. */
static inline __attribute__ ((always_inline)) __m512i
f16_32 (__m512 a, __m512 b)
{
  return _mm512_inserti64x4 (
      _mm512_castsi256_si512 (_mm512_cvtps_ph (a, _MM_FROUND_TO_NEAREST_INT)),
      _mm512_cvtps_ph (b, _MM_FROUND_TO_NEAREST_INT), 1);
}

TN_HALF512_LOOPS (tn_f32_to_f16_avx512, f16_32)
