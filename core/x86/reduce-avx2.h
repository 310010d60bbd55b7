/* Internal to core/x86/reduce-avx2-*.c: what their kernels share.  Both
 * are compiled with -mavx2 -mfma -mf16c (the "reduce:" block of
 * core/meson.build) and put their kernels in a table over the
 * template's AVX2 build (core/reduce-tmpl.c).  Each kernel keeps the
 * template's association: vector lane k of accumulator j is lane 8j + k
 * (floats) or 4j + k (doubles) of reduce.h, and tails go through the same
 * scalar steps (core/reduce-item.h). */
#ifndef TN_X86_REDUCE_AVX2_H
#define TN_X86_REDUCE_AVX2_H

#include "core/reduce-item.h"

#include <immintrin.h>
#include <stddef.h>
#include <string.h>

/* rk_canon_f (core/reduce-item.h) of 8 results. */
RK_INLINE __m256
rk_canon8 (__m256 r)
{
  return _mm256_blendv_ps (
      r, _mm256_set1_ps (NAN), _mm256_cmp_ps (r, r, _CMP_UNORD_Q));
}

/* 8 items at p + i as float32 (exact): float16, bfloat16, float32. */
RK_INLINE __m256
rk8_f (tn_dtype t, const void *p, int64_t i)
{
  const uint16_t *h = (const uint16_t *) p + i;

  switch (t) {
  case TN_FLOAT16:
    return _mm256_cvtph_ps (_mm_loadu_si128 ((const __m128i *) h));
  case TN_BFLOAT16:
    return _mm256_castsi256_ps (_mm256_slli_epi32 (
        _mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const __m128i *) h)), 16));
  default:
    return _mm256_loadu_ps ((const float *) p + i);
  }
}

/* The dense short rows' loops (k = 2, 3, 4 items a row) prefetch the
 * lines RK_PF_AHEAD bytes ahead of what they read.  Their work per row
 * is about two thirds of a read pass's time per frame on the Xeon
 * (perf-notes, "Session 11 H2"): from memory the hardware prefetchers
 * alone then kept too few lines in flight, and the work and the misses
 * added up (2.6 ms for <1080,1920,3> float32 against 1.7 for a read pass
 * with the same streamed writes; 2.0-2.1 ms with the prefetch).  In cache
 * it changes nothing. */
#define RK_PF_AHEAD 1024

/* Prefetches the lines of the bytes [p, p + n) RK_PF_AHEAD ahead (n a
 * multiple of 32: 8 or 16 rows of k float32 items, or a step of 32 items
 * of the float arg-reductions' rows, whose max pass reads L3-resident
 * rows at 0.8 of a read loop without it). */
RK_INLINE void
rk_prefetch_ahead (const void *p, int64_t n)
{
  for (int64_t o = 0; o < n; o += 64)
    _mm_prefetch ((const char *) p + RK_PF_AHEAD + o, _MM_HINT_T0);
}

/* The AVX2 float32 short32 entry (core/x86/reduce-avx2-short.c), which
 * the AVX-512 one calls for the rows it does not read itself. */
void tn_rk_short32_avx2_float32 (const char *p, int64_t k, int64_t rs,
    int64_t n, double den, float *out, int stream);

/* Entries are named as the template's, with a _v. */
#define RK_SET_ROWS(K, k, E, name) dsp->rows[K][E] = k##_rows_v_##name
#define RK_SET_COLS(K, k, E, name) dsp->cols[K][E] = k##_cols_v_##name
#define RK_SET_STRIP(K, k, E, name) dsp->strip[K][E] = k##_strip_v_##name
#define RK_SET_ALL(K, k, E, name)                                              \
  RK_SET_ROWS (K, k, E, name);                                                 \
  RK_SET_COLS (K, k, E, name);                                                 \
  RK_SET_STRIP (K, k, E, name)

#endif
