/* The float32 affine pass with repeating parameters (normalize-kern.h,
 * affine_rep) in AVX-512 (compiled with the "avx512" flags of
 * core/meson.build).  The 48 pairs sit in 12 zmm registers as float64,
 * so an item costs its load, a widening, a subtraction, a product and a
 * narrowing, with no parameter loads beside it (the template's step-1
 * map loads two float64 parameters per item, and with them standardize
 * of an HWC image took about 1.1x the time, docs/perf-notes.md).  The
 * arithmetic is the portable entry's, item by item: the same bits (checkasm).
 */
#include "core/normalize-kern.h"

#include <immintrin.h>

/* 16 items: each half widened, (x - a) * b in float64, rounded once. */
static inline __attribute__ ((always_inline)) __m512
aff16 (__m512 v, __m512d a0, __m512d a1, __m512d b0, __m512d b1)
{
  const __m512d lo = _mm512_cvtps_pd (_mm512_castps512_ps256 (v));
  const __m512d hi = _mm512_cvtps_pd (
      _mm256_castpd_ps (_mm512_extractf64x4_pd (_mm512_castps_pd (v), 1)));
  const __m256 rl
      = _mm512_cvtpd_ps (_mm512_mul_pd (_mm512_sub_pd (lo, a0), b0));
  const __m256 rh
      = _mm512_cvtpd_ps (_mm512_mul_pd (_mm512_sub_pd (hi, a1), b1));

  return _mm512_insertf32x8 (_mm512_castps256_ps512 (rl), rh, 1);
}

/* Ordinary stores up to a 64-byte border of y (a whole line per vector
 * store after it), then 48 items (three vectors) a step with the pairs
 * rotated to the phase the border left, then whole vectors, then the
 * last items one by one.  stream: the vectors as non-temporal stores,
 * then an sfence (one per call, a unit of 32K items: nothing beside the
 * call's time). */
static inline __attribute__ ((always_inline)) void
rep_avx512 (const float *x, float *y, int64_t n, const double *a,
    const double *b, int stream)
{
  int64_t i = 0;

  for (; i < n && ((uintptr_t) (y + i) & 63); i++)
    y[i] = tn_nk_rep_item (x, i, a, b);
  if (n - i >= 16) {
    const int ph = (int) (i % TN_NK_REP);
    double a2[2 * TN_NK_REP], b2[2 * TN_NK_REP];
    __m512d va[6], vb[6];

    for (int j = 0; j < 2 * TN_NK_REP; j++) {
      a2[j] = a[j % TN_NK_REP];
      b2[j] = b[j % TN_NK_REP];
    }
    for (int k = 0; k < 6; k++) {
      va[k] = _mm512_loadu_pd (a2 + ph + 8 * k);
      vb[k] = _mm512_loadu_pd (b2 + ph + 8 * k);
    }
#define REP_STORE(p, v)                                                        \
  do {                                                                         \
    if (stream)                                                                \
      _mm512_stream_ps (p, v);                                                 \
    else                                                                       \
      _mm512_store_ps (p, v);                                                  \
  } while (0)
    for (; i + TN_NK_REP <= n; i += TN_NK_REP) {
      const __m512 r0
          = aff16 (_mm512_loadu_ps (x + i), va[0], va[1], vb[0], vb[1]);
      const __m512 r1
          = aff16 (_mm512_loadu_ps (x + i + 16), va[2], va[3], vb[2], vb[3]);
      const __m512 r2
          = aff16 (_mm512_loadu_ps (x + i + 32), va[4], va[5], vb[4], vb[5]);

      REP_STORE (y + i, r0);
      REP_STORE (y + i + 16, r1);
      REP_STORE (y + i + 32, r2);
    }
    /* at most two vectors left, in the pattern's order */
    for (int k = 0; i + 16 <= n; i += 16, k += 2)
      REP_STORE (y + i,
          aff16 (_mm512_loadu_ps (x + i), va[k], va[k + 1], vb[k], vb[k + 1]));
#undef REP_STORE
  }
  tn_nk_rep_items (x, y, i, n, a, b);
  /* the streamed lines are ordered by an sfence, not by the caller's
   * locked instruction alone */
  if (stream)
    _mm_sfence ();
}

TN_NK_REP_ENTRIES (affine_rep_avx512, rep_avx512)

void
tn_nk_fill_avx512_rep (tn_norm_dsp *dsp)
{
  dsp->affine_rep[0] = affine_rep_avx512;
  dsp->affine_rep[1] = affine_rep_avx512_stream;
}
