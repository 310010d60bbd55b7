/* The elementwise passes of the normalisations in plain C, written once:
 * compiled into core as the portable kernels (tn_nk_fill_c) and again per
 * ISA by meson with TN_ISA set and that ISA's flags (tn_nk_fill_avx2: the
 * same loops vectorised by the compiler).  The project builds with
 * -ffp-contract=off, so no multiply and add is fused under -mfma unless
 * written as fmaf, which every build rounds once: the same bits. */
#include "normalize-kern.h"

#include <math.h>
#include <string.h>

#ifndef TN_ISA
#define TN_ISA c
#define NK_PORTABLE 1
#endif
/* y[k] = EXPR of v = x[k] for k in [0, n): blocks of NK_W items, then
 * the tail.  -O2's vectoriser takes only loops whose trip count is a
 * multiple of the vector width and that need no aliasing check: the loop
 * over a block is both (ivdep: y may be x, but item k reads only x[k]
 * before it writes y[k]), so every ISA build vectorises it, while the
 * tail runs the same expression.  In place, the blocks read y itself:
 * the vectoriser still versions the loop over x and y on their overlap,
 * and x == y took its scalar copy (softmax's scaling in place ran at the
 * exp pass's cost). */
#ifdef __AVX512F__
/* zmm registers: generic tuning would keep to ymm */
#pragma GCC target("prefer-vector-width=512")
#define NK_W 16
#else
#define NK_W 8
#endif
#define NK_BLOCKS(T, XS, EXPR)                                                 \
  for (; i_ + NK_W <= n; i_ += NK_W) {                                         \
    const T *xs_ = (XS) + i_;                                                  \
    T *ys_ = y + i_;                                                           \
    _Pragma ("GCC ivdep") for (int j_ = 0; j_ < NK_W; j_++)                    \
    {                                                                          \
      const T v = xs_[j_];                                                     \
      const int64_t k = i_ + j_;                                               \
      (void) k;                                                                \
      ys_[j_] = (EXPR);                                                        \
    }                                                                          \
  }
#define NK_MAP(T, EXPR)                                                        \
  do {                                                                         \
    int64_t i_ = 0;                                                            \
    if ((const void *) x == (const void *) y) {                                \
      NK_BLOCKS (T, (const T *) y, EXPR)                                       \
    } else {                                                                   \
      NK_BLOCKS (T, x, EXPR)                                                   \
    }                                                                          \
    for (; i_ < n; i_++) {                                                     \
      const T v = x[i_];                                                       \
      const int64_t k = i_;                                                    \
      (void) k;                                                                \
      y[i_] = (EXPR);                                                          \
    }                                                                          \
  } while (0)
#define NK_CAT(a, b) a##_##b
#define NK_NAME(a, isa) NK_CAT (a, isa)

static inline __attribute__ ((always_inline)) float
nk_bits (int32_t i)
{
  float f;

  memcpy (&f, &i, 4);
  return f;
}

static inline __attribute__ ((always_inline)) int32_t
nk_int (float f)
{
  int32_t i;

  memcpy (&i, &f, 4);
  return i;
}

/* c ? a : b for c 0 or 1, in bits: a ternary would be a branch that
 * keeps the loop from being vectorised. */
static inline __attribute__ ((always_inline)) float
nk_sel (int32_t c, float a, float b)
{
  const int32_t m = -c;

  return nk_bits ((nk_int (a) & m) | (nk_int (b) & ~m));
}

/* exp (hi + lo) in float32 for |lo| <= ulp (hi), after Cephes' expf:
 * hi, held to [-104, 88], is split as k ln2 + r (Cody and Waite: ln2 in
 * two floats, the first step exact), lo joins r, exp (r) on |r| <= ln2 / 2
 * is a degree-6 polynomial, and 2^k is applied in two steps when it is
 * below the normal range, so that a subnormal result rounds once.  From
 * -104 down the result is 0 (it would round to 0 anyway); above 88 it is
 * exp (88), not inf (the softmax pass never goes above 0); NaN stays NaN.
 * Every multiply-add is fmaf, correctly rounded as an instruction (-mfma)
 * and as glibc's function (the portable build): the same bits in both.
 * No branches, so that the compiler vectorises the loops around it. */
static inline __attribute__ ((always_inline)) float
nk_expf2 (float hi, float lo)
{
  const float log2e = 0x1.715476p+0f, magic = 0x1.8p23f;
  const float ln2hi = 0x1.62e430p-1f, ln2lo = -0x1.05c610p-29f;
  const int32_t nan = hi != hi;
  /* max and min as maxps and minps have them: a NaN gives the bound,
   * which the last line puts right */
  const float lo_h = hi > -104.0f ? hi : -104.0f;
  const float h = lo_h < 88.0f ? lo_h : 88.0f;
  const float l = nk_sel ((hi >= -104.0f) & (hi <= 88.0f), lo, 0.0f);
  float kf, r, p, y;
  int32_t k, sub;

  kf = fmaf (h, log2e, magic) - magic; /* the nearest integer */
  r = fmaf (-kf, ln2hi, h);
  r = fmaf (-kf, ln2lo, r) + l;
  p = 1.9875691500e-4f;
  p = fmaf (p, r, 1.3981999507e-3f);
  p = fmaf (p, r, 8.3334519073e-3f);
  p = fmaf (p, r, 4.1665795894e-2f);
  p = fmaf (p, r, 1.6666665459e-1f);
  p = fmaf (p, r, 5.0000001201e-1f);
  y = fmaf (p, r * r, r) + 1.0f;
  k = (int32_t) kf;
  sub = k < -126;
  y = y * nk_bits ((k + 64 * sub + 127) << 23);
  y = y * nk_sel (sub, 0x1p-64f, 1.0f);
  return nk_sel (nan, hi, y);
}

/* exp (x - m) with x - m as an exact float pair (Knuth's two-sum). */
static inline __attribute__ ((always_inline)) float
nk_exp_diff (float x, float m)
{
  const float hi = x - m, bb = hi - x;
  const float lo = (x - (hi - bb)) + (-m - bb);

  return nk_expf2 (hi, lo);
}

#ifdef NK_PORTABLE
float
tn_nk_expf2 (float hi, float lo)
{
  return nk_expf2 (hi, lo);
}
#endif

static void
NK_NAME (nk_exp_f32, TN_ISA) (const void *xv, void *yv, int64_t n,
    const double *pa, const double *pb, int step)
{
  const float *x = xv;
  float *y = yv;

  (void) pb;
  if (step == 0) {
    const float m = (float) pa[0];

    NK_MAP (float, nk_exp_diff (v, m));
  } else {
    NK_MAP (float, nk_exp_diff (v, (float) pa[k]));
  }
}

static void
NK_NAME (nk_exp_f64, TN_ISA) (const void *xv, void *yv, int64_t n,
    const double *pa, const double *pb, int step)
{
  const double *x = xv;
  double *y = yv;

  (void) pb;
  for (int64_t i = 0; i < n; i++)
    y[i] = exp (x[i] - pa[i * step]);
}

static void
NK_NAME (nk_affine_f32, TN_ISA) (const void *xv, void *yv, int64_t n,
    const double *pa, const double *pb, int step)
{
  const float *x = xv;
  float *y = yv;

  if (step == 0) {
    const double a = pa[0], b = pb[0];

    NK_MAP (float, (float) (((double) v - a) * b));
  } else {
    NK_MAP (float, (float) (((double) v - pa[k]) * pb[k]));
  }
}

static void
NK_NAME (nk_affine_f64, TN_ISA) (const void *xv, void *yv, int64_t n,
    const double *pa, const double *pb, int step)
{
  const double *x = xv;
  double *y = yv;

  if (step == 0) {
    const double a = pa[0], b = pb[0];

    NK_MAP (double, (v - a) / b);
  } else {
    NK_MAP (double, (v - pa[k]) / pb[k]);
  }
}

static void
NK_NAME (nk_shift_f32, TN_ISA) (const void *xv, void *yv, int64_t n,
    const double *pa, const double *pb, int step)
{
  const float *x = xv;
  float *y = yv;

  if (step == 0) {
    const double a = pa[0], b = pb[0];

    NK_MAP (float, (float) (((double) v - a) - b));
  } else {
    NK_MAP (float, (float) (((double) v - pa[k]) - pb[k]));
  }
}

static void
NK_NAME (nk_shift_f64, TN_ISA) (const void *xv, void *yv, int64_t n,
    const double *pa, const double *pb, int step)
{
  const double *x = xv;
  double *y = yv;

  if (step == 0) {
    const double a = pa[0], b = pb[0];

    NK_MAP (double, (v - a) - b);
  } else {
    NK_MAP (double, (v - pa[k]) - pb[k]);
  }
}

#ifdef NK_PORTABLE
/* The reductions and affine_rep (normalize-kern.h), portable only: the
 * ISA entries are hand-written (x86/normalize-avx2.c, avx512.c), since
 * -O2 does not vectorise a fold into lanes, and the compiler's loop over
 * 48-item blocks kept the pairs in memory (1.1x the time). */
static float
nk_rmax_c (const float *x, int64_t n)
{
  float m = -INFINITY;
  int nan = 0;

  for (int64_t i = 0; i < n; i++) {
    nan |= x[i] != x[i];
    m = x[i] > m ? x[i] : m;
  }
  return nan ? NAN : m == 0.0f ? 0.0f : m;
}

static double
nk_rsum_c (const float *x, int64_t n)
{
  double l[16] = { 0 };

  for (int64_t i = 0; i < n; i++)
    l[i % 16] += (double) x[i];
  for (int w = 8; w >= 1; w /= 2)
    for (int j = 0; j < w; j++)
      l[j] += l[j + w];
  return l[0];
}

static void
nk_moments_c (const float *x, int64_t n, int p, double *s, double *q)
{
  double c[24], ls[24] = { 0 }, lq[24] = { 0 };

  tn_nk_moments_shifts (x, p, c);
  tn_nk_moments_items (x, 0, n, c, ls, lq);
  tn_nk_moments_fold (ls, lq, p, s, q);
}

static void
nk_affine_rep_c (
    const float *x, float *y, int64_t n, const double *a, const double *b)
{
  tn_nk_rep_items (x, y, 0, n, a, b);
}
#endif

void
NK_NAME (tn_nk_fill, TN_ISA) (tn_norm_dsp *dsp)
{
#ifdef NK_PORTABLE
  dsp->rmax = nk_rmax_c;
  dsp->rsum = nk_rsum_c;
  dsp->moments = nk_moments_c;
  dsp->affine_rep[0] = nk_affine_rep_c;
  dsp->affine_rep[1] = nk_affine_rep_c;
#endif
  dsp->fn[TN_NK_EXP][0] = NK_NAME (nk_exp_f32, TN_ISA);
  dsp->fn[TN_NK_EXP][1] = NK_NAME (nk_exp_f64, TN_ISA);
  dsp->fn[TN_NK_AFFINE][0] = NK_NAME (nk_affine_f32, TN_ISA);
  dsp->fn[TN_NK_AFFINE][1] = NK_NAME (nk_affine_f64, TN_ISA);
  dsp->fn[TN_NK_SHIFT][0] = NK_NAME (nk_shift_f32, TN_ISA);
  dsp->fn[TN_NK_SHIFT][1] = NK_NAME (nk_shift_f64, TN_ISA);
}
