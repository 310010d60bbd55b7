/* The moments of standardize and the float32 affine pass with repeating
 * parameters (normalize-kern.h: moments, affine_rep) in AVX-512
 * (compiled with the "avx512" flags of core/meson.build).  affine_rep: the 48
 * pairs sit in 12 zmm registers as float64, so an item costs its load, a
 * widening, a subtraction, a product and a narrowing, with no parameter loads
 * beside it (the template's step-1 map loads two float64 parameters per item,
 * and with them standardize of an HWC image took about 1.1x the time,
 * docs/perf-notes.md).  The arithmetic is the portable entry's, item by item:
 * the same bits (checkasm).
 */
#include "core/normalize-kern.h"

#include <immintrin.h>
#include <math.h>

/* pf: both passes request every line of x twice ahead of their loads:
 * PF_NEAR bytes ahead into L1, PF_FAR bytes ahead into L2 (normalize.c
 * chooses: on Intel parts, where the hardware prefetchers alone left the
 * passes slower than memory; a single request 4096 bytes ahead into L1
 * was 5-18% slower than the two; docs/perf-notes.md, session 10 H4). */
#define PF_NEAR 2048
#define PF_FAR 8192
#define PF_LINES(pf, p)                                                        \
  do {                                                                         \
    if (pf) {                                                                  \
      const char *p_ = (const char *) (p);                                     \
                                                                               \
      _mm_prefetch (p_ + PF_NEAR, _MM_HINT_T0);                                \
      _mm_prefetch (p_ + PF_NEAR + 64, _MM_HINT_T0);                           \
      _mm_prefetch (p_ + PF_NEAR + 128, _MM_HINT_T0);                          \
      _mm_prefetch (p_ + PF_FAR, _MM_HINT_T1);                                 \
      _mm_prefetch (p_ + PF_FAR + 64, _MM_HINT_T1);                            \
      _mm_prefetch (p_ + PF_FAR + 128, _MM_HINT_T1);                           \
    }                                                                          \
  } while (0)

/* moments: the 24 lanes in 3 zmm vectors of 8 doubles (the shifts repeat
 * every 12 lanes, so lanes 0-7, 8-15, 16-23 take c[0..7], c[8..11, 0..3],
 * c[4..11]), 48 items (3 lines) a step; the items after the last whole
 * 24 join their lanes in scalar code, as the portable entry has them.
 * Per 8 items a widening (two uops) and a subtraction, an addition and a
 * fused multiply-add: at two zmm operations a cycle that is about the
 * speed of a read from L3, where the AVX2 entry (4 items a vector) ran
 * at 0.7 of it. */
static inline __attribute__ ((always_inline)) void
mom_avx512 (const float *x, int64_t n, int p, double *s, double *q, int pf)
{
  double c[24], ls[24], lq[24];
  __m512d s0 = _mm512_setzero_pd (), s1 = s0, s2 = s0;
  __m512d q0 = s0, q1 = s0, q2 = s0, c0, c1, c2;
  int64_t i = 0;

  tn_nk_moments_shifts (x, p, c);
  c0 = _mm512_loadu_pd (c);
  c1 = _mm512_loadu_pd (c + 8);
  c2 = _mm512_loadu_pd (c + 16);
#define MOM_STEP(k, o)                                                         \
  do {                                                                         \
    const __m512d d_ = _mm512_sub_pd (                                         \
        _mm512_cvtps_pd (_mm256_loadu_ps (x + i + (o))), c##k);                \
                                                                               \
    s##k = _mm512_add_pd (s##k, d_);                                           \
    q##k = _mm512_fmadd_pd (d_, d_, q##k);                                     \
  } while (0)
  for (; i + 48 <= n; i += 48) {
    PF_LINES (pf, x + i);
    MOM_STEP (0, 0);
    MOM_STEP (1, 8);
    MOM_STEP (2, 16);
    MOM_STEP (0, 24);
    MOM_STEP (1, 32);
    MOM_STEP (2, 40);
  }
  if (i + 24 <= n) {
    MOM_STEP (0, 0);
    MOM_STEP (1, 8);
    MOM_STEP (2, 16);
    i += 24;
  }
#undef MOM_STEP
  _mm512_storeu_pd (ls, s0);
  _mm512_storeu_pd (ls + 8, s1);
  _mm512_storeu_pd (ls + 16, s2);
  _mm512_storeu_pd (lq, q0);
  _mm512_storeu_pd (lq + 8, q1);
  _mm512_storeu_pd (lq + 16, q2);
  tn_nk_moments_items (x, i, n, c, ls, lq);
  tn_nk_moments_fold (ls, lq, p, s, q);
}

static void
moments_avx512 (const float *x, int64_t n, int p, double *s, double *q)
{
  mom_avx512 (x, n, p, s, q, 0);
}

static void
moments_avx512_pf (const float *x, int64_t n, int p, double *s, double *q)
{
  mom_avx512 (x, n, p, s, q, 1);
}

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
    const double *b, int stream, int pf)
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
      PF_LINES (pf, x + i);
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

static inline __attribute__ ((always_inline)) void
rep_avx512_nopf (const float *x, float *y, int64_t n, const double *a,
    const double *b, int stream)
{
  rep_avx512 (x, y, n, a, b, stream, 0);
}

static inline __attribute__ ((always_inline)) void
rep_avx512_pf (const float *x, float *y, int64_t n, const double *a,
    const double *b, int stream)
{
  rep_avx512 (x, y, n, a, b, stream, 1);
}

TN_NK_REP_ENTRIES (affine_rep_avx512, rep_avx512_nopf)
TN_NK_REP_ENTRIES (affine_rep_avx512_pf, rep_avx512_pf)

void
tn_nk_fill_avx512_red (tn_norm_dsp *dsp, int prefetch)
{
  dsp->moments = prefetch ? moments_avx512_pf : moments_avx512;
  dsp->affine_rep[0] = prefetch ? affine_rep_avx512_pf : affine_rep_avx512;
  dsp->affine_rep[1]
      = prefetch ? affine_rep_avx512_pf_stream : affine_rep_avx512_stream;
}
