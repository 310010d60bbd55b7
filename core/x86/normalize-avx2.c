/* The reductions of the fused float32 normalisations, and the affine
 * pass with repeating parameters, in AVX2 (compiled
 * with -mavx2 -mfma -mf16c, the "normalize:" block of core/meson.build).
 * Each keeps the association normalize-kern.h states, lane for lane, so
 * it gives the portable entry's bits (checkasm): the lanes are vector
 * lanes, the items left over join their lane in scalar code, and the
 * lanes are combined in scalar code in the portable order. */
#include "core/normalize-kern.h"

#include <immintrin.h>
#include <math.h>

/* pf: moments and affine_rep request every line of x PF_NEAR bytes
 * ahead into L1 and PF_FAR bytes ahead into L2 (normalize.c chooses, as
 * for the AVX-512 entries: x86/normalize-avx512.c). */
#define PF_NEAR 2048
#define PF_FAR 8192

static float
rmax_avx2 (const float *x, int64_t n)
{
  const __m256 ninf = _mm256_set1_ps (-INFINITY);
  __m256 m0 = ninf, m1 = ninf, m2 = ninf, m3 = ninf;
  __m256 u = _mm256_setzero_ps ();
  float l[8], m = -INFINITY;
  int64_t i = 0;
  int nan;

  for (; i + 32 <= n; i += 32) {
    const __m256 a = _mm256_loadu_ps (x + i), b = _mm256_loadu_ps (x + i + 8);
    const __m256 c = _mm256_loadu_ps (x + i + 16);
    const __m256 d = _mm256_loadu_ps (x + i + 24);

    /* maxps gives its second operand for a NaN: the unordered compares
     * catch those */
    u = _mm256_or_ps (u, _mm256_or_ps (_mm256_cmp_ps (a, b, _CMP_UNORD_Q),
                             _mm256_cmp_ps (c, d, _CMP_UNORD_Q)));
    m0 = _mm256_max_ps (a, m0);
    m1 = _mm256_max_ps (b, m1);
    m2 = _mm256_max_ps (c, m2);
    m3 = _mm256_max_ps (d, m3);
  }
  nan = _mm256_movemask_ps (u) != 0;
  _mm256_storeu_ps (
      l, _mm256_max_ps (_mm256_max_ps (m0, m1), _mm256_max_ps (m2, m3)));
  for (int j = 0; j < 8; j++)
    m = l[j] > m ? l[j] : m;
  for (; i < n; i++) {
    nan |= x[i] != x[i];
    m = x[i] > m ? x[i] : m;
  }
  return nan ? NAN : m == 0.0f ? 0.0f : m;
}

static double
rsum_avx2 (const float *x, int64_t n)
{
  __m256d a0 = _mm256_setzero_pd (), a1 = a0, a2 = a0, a3 = a0;
  double l[16];
  int64_t i = 0;

  for (; i + 16 <= n; i += 16) {
    a0 = _mm256_add_pd (a0, _mm256_cvtps_pd (_mm_loadu_ps (x + i)));
    a1 = _mm256_add_pd (a1, _mm256_cvtps_pd (_mm_loadu_ps (x + i + 4)));
    a2 = _mm256_add_pd (a2, _mm256_cvtps_pd (_mm_loadu_ps (x + i + 8)));
    a3 = _mm256_add_pd (a3, _mm256_cvtps_pd (_mm_loadu_ps (x + i + 12)));
  }
  _mm256_storeu_pd (l, a0);
  _mm256_storeu_pd (l + 4, a1);
  _mm256_storeu_pd (l + 8, a2);
  _mm256_storeu_pd (l + 12, a3);
  for (int j = 0; i < n; i++, j++)
    l[j] += (double) x[i];
  for (int w = 8; w >= 1; w /= 2)
    for (int j = 0; j < w; j++)
      l[j] += l[j + w];
  return l[0];
}

/* The 24 lanes as 6 vectors of 4 doubles; the shifts repeat every 12
 * lanes (p divides 12), so 3 vectors hold them. */
static inline __attribute__ ((always_inline)) void
mom_avx2 (const float *x, int64_t n, int p, double *s, double *q, int pf)
{
  double c[24], ls[24], lq[24];
  __m256d s0 = _mm256_setzero_pd (), s1 = s0, s2 = s0, s3 = s0, s4 = s0;
  __m256d s5 = s0, q0 = s0, q1 = s0, q2 = s0, q3 = s0, q4 = s0, q5 = s0;
  __m256d c0, c1, c2;
  int64_t i = 0;

  tn_nk_moments_shifts (x, p, c);
  c0 = _mm256_loadu_pd (c);
  c1 = _mm256_loadu_pd (c + 4);
  c2 = _mm256_loadu_pd (c + 8);
#define MOM_STEP(k, cv)                                                        \
  do {                                                                         \
    const __m256d d_                                                           \
        = _mm256_sub_pd (_mm256_cvtps_pd (_mm_loadu_ps (x + i + 4 * k)), cv);  \
                                                                               \
    s##k = _mm256_add_pd (s##k, d_);                                           \
    q##k = _mm256_fmadd_pd (d_, d_, q##k);                                     \
  } while (0)
  for (; i + 24 <= n; i += 24) {
    /* 96 bytes a step: requests 96 bytes apart and 64 after them touch
     * every line */
    if (pf) {
      const char *p_ = (const char *) (x + i);

      _mm_prefetch (p_ + PF_NEAR, _MM_HINT_T0);
      _mm_prefetch (p_ + PF_NEAR + 64, _MM_HINT_T0);
      _mm_prefetch (p_ + PF_FAR, _MM_HINT_T1);
      _mm_prefetch (p_ + PF_FAR + 64, _MM_HINT_T1);
    }
    MOM_STEP (0, c0);
    MOM_STEP (1, c1);
    MOM_STEP (2, c2);
    MOM_STEP (3, c0);
    MOM_STEP (4, c1);
    MOM_STEP (5, c2);
  }
#undef MOM_STEP
  _mm256_storeu_pd (ls, s0);
  _mm256_storeu_pd (ls + 4, s1);
  _mm256_storeu_pd (ls + 8, s2);
  _mm256_storeu_pd (ls + 12, s3);
  _mm256_storeu_pd (ls + 16, s4);
  _mm256_storeu_pd (ls + 20, s5);
  _mm256_storeu_pd (lq, q0);
  _mm256_storeu_pd (lq + 4, q1);
  _mm256_storeu_pd (lq + 8, q2);
  _mm256_storeu_pd (lq + 12, q3);
  _mm256_storeu_pd (lq + 16, q4);
  _mm256_storeu_pd (lq + 20, q5);
  tn_nk_moments_items (x, i, n, c, ls, lq);
  tn_nk_moments_fold (ls, lq, p, s, q);
}

static void
moments_avx2 (const float *x, int64_t n, int p, double *s, double *q)
{
  mom_avx2 (x, n, p, s, q, 0);
}

static void
moments_avx2_pf (const float *x, int64_t n, int p, double *s, double *q)
{
  mom_avx2 (x, n, p, s, q, 1);
}

/* affine_rep (normalize-kern.h) in ymm registers: as the AVX-512 entry
 * (x86/normalize-avx512.c), but 48 pairs would take 24 of the 16
 * registers, so each vector of 8 items loads its 8 pairs, from a copy
 * of the pattern rotated to the phase left by the items before a 32-byte
 * border of y.  The arithmetic is the portable entry's, item by item. */
static inline __attribute__ ((always_inline)) void
rep_avx2 (const float *x, float *y, int64_t n, const double *a, const double *b,
    int stream, int pf)
{
  int64_t i = 0;

  for (; i < n && ((uintptr_t) (y + i) & 31); i++)
    y[i] = tn_nk_rep_item (x, i, a, b);
  if (n - i >= 8) {
    const int ph = (int) (i % TN_NK_REP);
    double a2[TN_NK_REP], b2[TN_NK_REP];

    for (int j = 0; j < TN_NK_REP; j++) {
      a2[j] = a[(ph + j) % TN_NK_REP];
      b2[j] = b[(ph + j) % TN_NK_REP];
    }
    for (int j = 0; i + 8 <= n; i += 8, j = j + 8 < TN_NK_REP ? j + 8 : 0) {
      /* every other step: one request a line */
      if (pf && !(j & 8)) {
        _mm_prefetch ((const char *) (x + i) + PF_NEAR, _MM_HINT_T0);
        _mm_prefetch ((const char *) (x + i) + PF_FAR, _MM_HINT_T1);
      }
      const __m256 v = _mm256_loadu_ps (x + i);
      const __m256d lo = _mm256_cvtps_pd (_mm256_castps256_ps128 (v));
      const __m256d hi = _mm256_cvtps_pd (_mm256_extractf128_ps (v, 1));
      const __m128 rl = _mm256_cvtpd_ps (
          _mm256_mul_pd (_mm256_sub_pd (lo, _mm256_loadu_pd (a2 + j)),
              _mm256_loadu_pd (b2 + j)));
      const __m128 rh = _mm256_cvtpd_ps (
          _mm256_mul_pd (_mm256_sub_pd (hi, _mm256_loadu_pd (a2 + j + 4)),
              _mm256_loadu_pd (b2 + j + 4)));
      const __m256 r
          = _mm256_insertf128_ps (_mm256_castps128_ps256 (rl), rh, 1);

      if (stream)
        _mm256_stream_ps (y + i, r);
      else
        _mm256_store_ps (y + i, r);
    }
  }
  tn_nk_rep_items (x, y, i, n, a, b);
  /* the streamed lines are ordered by an sfence, not by the caller's
   * locked instruction alone */
  if (stream)
    _mm_sfence ();
}

static inline __attribute__ ((always_inline)) void
rep_avx2_nopf (const float *x, float *y, int64_t n, const double *a,
    const double *b, int stream)
{
  rep_avx2 (x, y, n, a, b, stream, 0);
}

static inline __attribute__ ((always_inline)) void
rep_avx2_pf (const float *x, float *y, int64_t n, const double *a,
    const double *b, int stream)
{
  rep_avx2 (x, y, n, a, b, stream, 1);
}

TN_NK_REP_ENTRIES (affine_rep_avx2, rep_avx2_nopf)
TN_NK_REP_ENTRIES (affine_rep_avx2_pf, rep_avx2_pf)

void
tn_nk_fill_avx2_red (tn_norm_dsp *dsp, int prefetch)
{
  dsp->affine_rep[0] = prefetch ? affine_rep_avx2_pf : affine_rep_avx2;
  dsp->affine_rep[1]
      = prefetch ? affine_rep_avx2_pf_stream : affine_rep_avx2_stream;
  dsp->rmax = rmax_avx2;
  dsp->rsum = rsum_avx2;
  dsp->moments = prefetch ? moments_avx2_pf : moments_avx2;
}
