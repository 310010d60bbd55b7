/* The float32 comparison run in AVX2 (compiled with -mavx2 -mfma -mf16c,
 * the "compare:" block of core/meson.build).  It gives the portable
 * kernel's bits (core/compare-kern.c): the same float32 operations per
 * item, the product of the bound kept apart from its sum, and maxima
 * and counts, which do not depend on the order items are folded in.
 * Blocks of clean items take the cheap pass (CMP_FAST in
 * core/compare-kern.h), about half the instructions of the whole test
 * (step8), which the other blocks get. */
#include "core/compare-kern.h"

#include <immintrin.h>

/* The portable entries, for strided runs and the last items. */
static tn_cmp_run_fn run_c;
static tn_cmp_item_fn item_c;

typedef struct {
  __m256i ok;      /* per lane: minus the count of passing items */
  __m256 abs, rel; /* per lane maxima */
  __m256i ulp;     /* per lane unsigned maxima */
  __m256 gate;     /* rel * (1 - 2^-10), at least 0 */
} acc8;

/* One vector of 8 items.  same: x == y, computed by the caller. */
static inline void
step8 (acc8 *acc, __m256 x, __m256 y, __m256 same, __m256 rtol, __m256 atol,
    __m256i mulp, int ulp_mode, int equal_nan)
{
  const __m256 absmask = _mm256_castsi256_ps (_mm256_set1_epi32 (0x7fffffff));
  const __m256 inf = _mm256_set1_ps (__builtin_inff ());
  const __m256 anynan = _mm256_cmp_ps (x, y, _CMP_UNORD_Q);
  const __m256 ax = _mm256_and_ps (x, absmask);
  const __m256 ay = _mm256_and_ps (y, absmask);
  /* |x - y|: 0 where x == y, except NaN for equal infinities, which no
   * maximum below takes (maxps keeps its second operand then) and which
   * same passes */
  const __m256 d = _mm256_and_ps (_mm256_sub_ps (x, y), absmask);
  /* ulps, sign-magnitude: |mx - my| for equal signs, mx + my for
   * opposite ones (at most 2^32 - 2, exact in uint32); blendv picks by
   * the sign bit of x ^ y; 0 where x == y (+0 and -0 too) */
  const __m256i mx = _mm256_castps_si256 (ax), my = _mm256_castps_si256 (ay);
  const __m256 opp = _mm256_xor_ps (x, y);
  __m256i u = _mm256_castps_si256 (_mm256_blendv_ps (
      _mm256_castsi256_ps (_mm256_abs_epi32 (_mm256_sub_epi32 (mx, my))),
      _mm256_castsi256_ps (_mm256_add_epi32 (mx, my)), opp));
  /* and 0 where same: under DAZ two distinct subnormals compare equal
   * and have no ulps, as in the item kernel */
  u = _mm256_andnot_si256 (_mm256_castps_si256 (same), u);
  __m256 ok;

  if (ulp_mode) {
    __m256i le = _mm256_cmpeq_epi32 (_mm256_max_epu32 (u, mulp), mulp);

    ok = _mm256_andnot_ps (anynan, _mm256_castsi256_ps (le));
  } else {
    __m256 p = _mm256_mul_ps (rtol, ay);

    __asm__("" : "+x"(p)); /* no FMA: NumPy rounds the product */
    /* NumPy: infinities are close only to themselves.  Only an infinite
     * reference needs the test: an infinite x beside a finite y has
     * d = inf above any finite tolerance, and equal infinities are in
     * same; a NaN gives a NaN d, which compares false. */
    ok = _mm256_and_ps (_mm256_cmp_ps (ay, inf, _CMP_LT_OQ),
        _mm256_cmp_ps (d, _mm256_add_ps (atol, p), _CMP_LE_OQ));
  }
  ok = _mm256_or_ps (ok, same);
  if (_mm256_movemask_ps (anynan)) { /* rare: NaNs have no ulps */
    u = _mm256_andnot_si256 (_mm256_castps_si256 (anynan), u);
    if (equal_nan)
      ok = _mm256_or_ps (ok, _mm256_and_ps (_mm256_cmp_ps (x, x, _CMP_UNORD_Q),
                                 _mm256_cmp_ps (y, y, _CMP_UNORD_Q)));
  }
  acc->ok = _mm256_add_epi32 (acc->ok, _mm256_castps_si256 (ok));
  /* maxps keeps its second operand when the first is NaN */
  acc->abs = _mm256_max_ps (d, acc->abs);
  /* The largest d / ay with a division only where it may raise a lane's
   * maximum: d / ay > rel needs d > gate * ay (gate is rel less 2^-10 of
   * it, more than the two roundings; rounding is monotonic, so a rounded
   * gate * ay never passes a d above the exact one), so vectors whose
   * lanes are all below gate * ay, nearly all once the maxima settle,
   * skip it.  A NaN product (gate 0, ay inf) skips a quotient that is 0
   * or NaN, and neither raises a maximum. */
  if (_mm256_movemask_ps (
          _mm256_cmp_ps (d, _mm256_mul_ps (acc->gate, ay), _CMP_GE_OQ))) {
    acc->rel = _mm256_max_ps (_mm256_div_ps (d, ay), acc->rel);
    acc->gate = _mm256_max_ps (
        _mm256_mul_ps (acc->rel, _mm256_set1_ps (1.0f - 0x1p-10f)),
        _mm256_setzero_ps ());
  }
  acc->ulp = _mm256_max_epu32 (u, acc->ulp);
}

/* The whole test for items [i, end) of pa, pe (end - i a multiple of
 * 16), into c0 and c1. */
static inline void
full_range (acc8 *c0, acc8 *c1, const float *pa, const float *pe, int64_t i,
    int64_t end, __m256 rtol, __m256 atol, __m256i mulp, int ulp_mode,
    int equal_nan)
{
  for (; i < end; i += 16) {
    const __m256 x0 = _mm256_loadu_ps (pa + i), y0 = _mm256_loadu_ps (pe + i);
    const __m256 x1 = _mm256_loadu_ps (pa + i + 8);
    const __m256 y1 = _mm256_loadu_ps (pe + i + 8);
    const __m256 s0 = _mm256_cmp_ps (x0, y0, _CMP_EQ_OQ);
    const __m256 s1 = _mm256_cmp_ps (x1, y1, _CMP_EQ_OQ);

    /* 16 equal items (a bit-exact golden): each passes with no error,
     * which changes no maximum */
    if (_mm256_movemask_ps (_mm256_and_ps (s0, s1)) == 0xff) {
      c0->ok = _mm256_sub_epi32 (c0->ok, _mm256_set1_epi32 (2));
      continue;
    }
    step8 (c0, x0, y0, s0, rtol, atol, mulp, ulp_mode, equal_nan);
    step8 (c1, x1, y1, s1, rtol, atol, mulp, ulp_mode, equal_nan);
  }
}

/* What the cheap pass over a block gathers (CMP_FAST in compare-kern.h). */
typedef struct {
  __m256 bad;   /* lanes with an item the cheap test does not pass */
  __m256 sg;    /* or of x ^ y: a sign bit set if any signs differ */
  __m256i dmax; /* max of the bits of d (>= inf's: not all finite) */
  __m256i umax; /* max of |bits x - bits y| */
} fast8;

/* Returns the lanes where d / ay may reach the running max rel. */
static inline __attribute__ ((always_inline)) __m256
fast_step8 (fast8 *f, __m256 x, __m256 y, __m256 rel, __m256 rtol, __m256 atol,
    __m256i mulp, int ulp_mode)
{
  const __m256 absmask = _mm256_castsi256_ps (_mm256_set1_epi32 (0x7fffffff));
  const __m256 minsub = _mm256_castsi256_ps (_mm256_set1_epi32 (1));
  const __m256 d = _mm256_and_ps (_mm256_sub_ps (x, y), absmask);
  const __m256 ay = _mm256_and_ps (y, absmask);
  const __m256i u = _mm256_abs_epi32 (
      _mm256_sub_epi32 (_mm256_castps_si256 (x), _mm256_castps_si256 (y)));
  /* |y| for the products with rtol and rel: 0 below CMP_FAST_TINY
   * (compare-kern.h), which keeps the pass exact and the multiplies off
   * subnormals */
  const __m256 ayp = _mm256_and_ps (
      ay, _mm256_castsi256_ps (_mm256_cmpgt_epi32 (_mm256_castps_si256 (ay),
              _mm256_set1_epi32 (CMP_FAST_TINY - 1))));
  __m256 bad;

  if (ulp_mode) {
    bad = _mm256_castsi256_ps (_mm256_cmpgt_epi32 (u, mulp));
  } else {
    __m256 p = _mm256_mul_ps (rtol, ayp);

    __asm__("" : "+x"(p)); /* no FMA: NumPy rounds the product */
    bad = _mm256_cmp_ps (d, _mm256_add_ps (atol, p), _CMP_NLE_UQ);
  }
  f->bad = _mm256_or_ps (f->bad, bad);
  f->sg = _mm256_or_ps (f->sg, _mm256_xor_ps (x, y));
  f->dmax = _mm256_max_epi32 (f->dmax, _mm256_castps_si256 (d));
  f->umax = _mm256_max_epu32 (f->umax, u);
  /* the product at least the least subnormal, so no d = 0 flags; maxps
   * keeps its second operand when one is NaN: inf * 0 (rel inf already,
   * a lane of an infinite y) flags nothing; a lane below CMP_FAST_TINY,
   * y = 0 among them, flags wherever d != 0 */
  return _mm256_cmp_ps (
      d, _mm256_max_ps (minsub, _mm256_mul_ps (rel, ayp)), _CMP_GE_OQ);
}

/* d / ay rounded once to float32 as _mm256_div_ps rounds it, through
 * float64, for vectors with a subnormal d or ay (whose vdivps would take
 * an assist on Intel): the float64 quotient of two 24-bit significands
 * rounds to the float32 one (53 >= 2 * 24 + 2), nothing is subnormal in
 * float64, and vcvtps2pd takes no assist. */
static __attribute__ ((noinline)) __m256
div_wide (__m256 d, __m256 ay)
{
  const __m128 lo = _mm256_cvtpd_ps (
      _mm256_div_pd (_mm256_cvtps_pd (_mm256_castps256_ps128 (d)),
          _mm256_cvtps_pd (_mm256_castps256_ps128 (ay))));
  const __m128 hi = _mm256_cvtpd_ps (
      _mm256_div_pd (_mm256_cvtps_pd (_mm256_extractf128_ps (d, 1)),
          _mm256_cvtps_pd (_mm256_extractf128_ps (ay, 1))));

  return _mm256_insertf128_ps (_mm256_castps128_ps256 (lo), hi, 1);
}

/* Nonzero when a lane of the float32 vector v (non-negative) is
 * subnormal. */
static inline int
any_subnormal8 (__m256 v)
{
  const __m256i m = _mm256_castps_si256 (v);

  return _mm256_movemask_ps (_mm256_castsi256_ps (
      _mm256_and_si256 (_mm256_cmpgt_epi32 (m, _mm256_setzero_si256 ()),
          _mm256_cmpgt_epi32 (_mm256_set1_epi32 (0x800000), m))));
}

/* The largest rel of both accumulators in every lane. */
static inline __m256
rel_all (const acc8 *c0, const acc8 *c1)
{
  __m256 m = _mm256_max_ps (c0->rel, c1->rel);

  m = _mm256_max_ps (m, _mm256_permute2f128_ps (m, m, 1));
  m = _mm256_max_ps (m, _mm256_permute_ps (m, 0x4e));
  return _mm256_max_ps (m, _mm256_permute_ps (m, 0xb1));
}

/* Items [i, end) (end - i a multiple of 16, at most CMP_FAST_BLOCK) the
 * cheap way, else the whole test (CMP_FAST in compare-kern.h).  *relg:
 * the run's max rel so far in every lane (rel_all). */
static inline __attribute__ ((always_inline)) void
fast_block (acc8 *c0, acc8 *c1, __m256 *relg, const float *pa, const float *pe,
    int64_t i, int64_t end, __m256 rtol, __m256 atol, __m256i mulp,
    __m256i mulp_s, int ulp_mode, int equal_nan)
{
  const __m256 z = _mm256_setzero_ps ();
  const __m256 absmask = _mm256_castsi256_ps (_mm256_set1_epi32 (0x7fffffff));
  const __m256 rel = *relg;
  fast8 f = { z, z, _mm256_setzero_si256 (), _mm256_setzero_si256 () };
  uint8_t relf[CMP_FAST_BLOCK / 16];
  unsigned any = 0;
  const int64_t i0 = i;
  __m256 dirty;

  /* equal items first (a bit-exact golden): each passes with no error,
   * which changes no maximum; a block that differs stops at once */
  while (i < end
         && _mm256_movemask_ps (
                _mm256_and_ps (_mm256_cmp_ps (_mm256_loadu_ps (pa + i),
                                   _mm256_loadu_ps (pe + i), _CMP_EQ_OQ),
                    _mm256_cmp_ps (_mm256_loadu_ps (pa + i + 8),
                        _mm256_loadu_ps (pe + i + 8), _CMP_EQ_OQ)))
                == 0xff)
    i += 16;
  c0->ok = _mm256_sub_epi32 (c0->ok, _mm256_set1_epi32 ((int) ((i - i0) / 8)));
  if (i == end)
    return;
  for (int64_t j = i, k = 0; j < end; j += 16, k++) {
    _mm_prefetch ((const char *) (pa + j + CMP_FAST_AHEAD), _MM_HINT_T0);
    _mm_prefetch ((const char *) (pe + j + CMP_FAST_AHEAD), _MM_HINT_T0);
    const __m256 r0 = fast_step8 (&f, _mm256_loadu_ps (pa + j),
        _mm256_loadu_ps (pe + j), rel, rtol, atol, mulp_s, ulp_mode);
    const __m256 r1 = fast_step8 (&f, _mm256_loadu_ps (pa + j + 8),
        _mm256_loadu_ps (pe + j + 8), rel, rtol, atol, mulp_s, ulp_mode);

    relf[k] = (uint8_t) _mm256_movemask_ps (_mm256_or_ps (r0, r1));
    any |= relf[k];
  }
  dirty = _mm256_or_ps (_mm256_or_ps (f.bad, f.sg),
      _mm256_castsi256_ps (
          _mm256_cmpgt_epi32 (f.dmax, _mm256_set1_epi32 (0x7f7fffff))));
  if (_mm256_movemask_ps (dirty)) {
    full_range (c0, c1, pa, pe, i, end, rtol, atol, mulp, ulp_mode, equal_nan);
    *relg = rel_all (c0, c1);
    return;
  }
  c0->ok = _mm256_sub_epi32 (c0->ok, _mm256_set1_epi32 ((int) ((end - i) / 8)));
  c0->abs = _mm256_max_ps (_mm256_castsi256_ps (f.dmax), c0->abs);
  c0->ulp = _mm256_max_epu32 (f.umax, c0->ulp);
  if (any) {
    /* the quotients of the pairs of vectors that may raise the max; all
     * finite: 0 / 0 (equal zeros) is NaN, which maxps drops */
    for (int64_t j = i, k = 0; j < end; j += 16, k++) {
      if (relf[k]) {
        for (int h = 0; h < 16; h += 8) {
          const __m256 y = _mm256_loadu_ps (pe + j + h);
          const __m256 d = _mm256_and_ps (
              _mm256_sub_ps (_mm256_loadu_ps (pa + j + h), y), absmask);
          const __m256 ay = _mm256_and_ps (y, absmask);

          c0->rel = _mm256_max_ps (any_subnormal8 (d) | any_subnormal8 (ay)
                                       ? div_wide (d, ay)
                                       : _mm256_div_ps (d, ay),
              c0->rel);
        }
      }
    }
    c0->gate = _mm256_max_ps (
        _mm256_mul_ps (c0->rel, _mm256_set1_ps (1.0f - 0x1p-10f)), z);
    *relg = rel_all (c0, c1);
  }
}

static void
run_float32_avx2 (const void *a, int64_t sa, const void *e, int64_t se,
    int64_t n, const tn_cmp_tol *t, tn_cmp_part *out)
{
  const float *pa = a, *pe = e;
  const __m256 rtol = _mm256_set1_ps ((float) t->rtol);
  const __m256 atol = _mm256_set1_ps ((float) t->atol);
  const int ulp_mode = t->max_ulp >= 0, equal_nan = t->equal_nan;
  const __m256i mulp
      = _mm256_set1_epi32 ((int) (uint32_t) (t->max_ulp > (int64_t) UINT32_MAX
                                                 ? UINT32_MAX
                                                 : (uint64_t) t->max_ulp));
  const __m256i mulp_s = _mm256_set1_epi32 (
      t->max_ulp > INT32_MAX ? INT32_MAX : (int32_t) t->max_ulp);
  acc8 c0 = { _mm256_setzero_si256 (), _mm256_setzero_ps (),
    _mm256_setzero_ps (), _mm256_setzero_si256 (), _mm256_setzero_ps () };
  acc8 c1 = c0;
  float fa[8], fr[8];
  uint32_t u[8];
  int32_t k[8];
  int64_t i = 0, okc = 0;
  const int64_t n16 = n - n % 16;
  tn_cmp_part o = { 0, 0.0, 0.0, 0 };

  if (sa != 1 || se != 1) {
    run_c (a, sa, e, se, n, t, out);
    return;
  }
  if (CMP_FAST_OK ()) {
    __m256 relg = _mm256_setzero_ps ();

    for (; i < n16; i += CMP_FAST_BLOCK) {
      const int64_t end = n16 - i < CMP_FAST_BLOCK ? n16 : i + CMP_FAST_BLOCK;

      if (ulp_mode)
        fast_block (&c0, &c1, &relg, pa, pe, i, end, rtol, atol, mulp, mulp_s,
            1, equal_nan);
      else
        fast_block (&c0, &c1, &relg, pa, pe, i, end, rtol, atol, mulp, mulp_s,
            0, equal_nan);
    }
    i = n16;
  } else {
    full_range (
        &c0, &c1, pa, pe, 0, n16, rtol, atol, mulp, ulp_mode, equal_nan);
    i = n16;
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 x0 = _mm256_loadu_ps (pa + i), y0 = _mm256_loadu_ps (pe + i);

    step8 (&c0, x0, y0, _mm256_cmp_ps (x0, y0, _CMP_EQ_OQ), rtol, atol, mulp,
        ulp_mode, equal_nan);
  }
  c0.ok = _mm256_add_epi32 (c0.ok, c1.ok);
  c0.abs = _mm256_max_ps (c1.abs, c0.abs);
  c0.rel = _mm256_max_ps (c1.rel, c0.rel);
  c0.ulp = _mm256_max_epu32 (c1.ulp, c0.ulp);
  _mm256_storeu_si256 ((__m256i *) k, c0.ok);
  _mm256_storeu_ps (fa, c0.abs);
  _mm256_storeu_ps (fr, c0.rel);
  _mm256_storeu_si256 ((__m256i *) u, c0.ulp);
  for (int l = 0; l < 8; l++)
    okc -= k[l];
  o.bad = i - okc;
  tn_cmp_finish_f32 (&o, 8, fa, fr, u, pa, pe, i, n, t, item_c);
  *out = o;
}

void
tn_cmp_init_avx2 (tn_compare_dsp *dsp)
{
  run_c = dsp->run[TN_FLOAT32];
  item_c = dsp->item[TN_FLOAT32];
  dsp->run[TN_FLOAT32] = run_float32_avx2;
}
