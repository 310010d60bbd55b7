/* The float32 comparison run in AVX-512 (F, DQ, BW, VL: the "compare:"
 * block of core/meson.build).  The operations per item are the AVX2
 * entry's (x86/compare-avx2.c), so the part has the portable kernel's
 * bits; the opmask registers carry the verdicts, which halves the
 * instructions per item, and that is what a comparison whose items all
 * take the whole test is bound by.  Blocks of clean items (a reference
 * off by an ulp everywhere) take the cheap pass instead (CMP_FAST in
 * core/compare-kern.h). */
#include "core/compare-kern.h"

#include <immintrin.h>

/* The portable entries, for strided runs and the last items. */
static tn_cmp_run_fn run_c;
static tn_cmp_item_fn item_c;

typedef struct {
  int64_t ok;      /* passing items */
  __m512 abs, rel; /* per lane maxima */
  __m512i ulp;     /* per lane unsigned maxima */
  __m512 gate;     /* rel * (1 - 2^-10), at least 0 */
} acc16;

/* One vector of 16 items; ks: x == y, computed by the caller. */
static inline void
step16 (acc16 *acc, __m512 x, __m512 y, __mmask16 ks, __m512 rtol, __m512 atol,
    __m512i mulp, int ulp_mode, int equal_nan)
{
  const __m512i absmask = _mm512_set1_epi32 (0x7fffffff);
  const __m512 inf = _mm512_set1_ps (__builtin_inff ());
  const __mmask16 knan = _mm512_cmp_ps_mask (x, y, _CMP_UNORD_Q);
  const __m512i mx = _mm512_and_si512 (_mm512_castps_si512 (x), absmask);
  const __m512i my = _mm512_and_si512 (_mm512_castps_si512 (y), absmask);
  const __m512 ay = _mm512_castsi512_ps (my);
  /* |x - y|, 0 where x == y (inf - inf would be NaN) */
  const __m512 d = _mm512_castsi512_ps (_mm512_maskz_and_epi32 (
      (__mmask16) ~ks, _mm512_castps_si512 (_mm512_sub_ps (x, y)), absmask));
  /* ulps, sign-magnitude: |mx - my| for equal signs, mx + my for
   * opposite ones; 0 where x == y or either is NaN */
  const __mmask16 kopp = _mm512_movepi32_mask (
      _mm512_xor_si512 (_mm512_castps_si512 (x), _mm512_castps_si512 (y)));
  const __m512i u = _mm512_maskz_mov_epi32 ((__mmask16) ~(knan | ks),
      _mm512_mask_add_epi32 (
          _mm512_abs_epi32 (_mm512_sub_epi32 (mx, my)), kopp, mx, my));
  __mmask16 ok;

  if (ulp_mode) {
    ok = _mm512_mask_cmple_epu32_mask ((__mmask16) ~knan, u, mulp);
  } else {
    __m512 p = _mm512_mul_ps (rtol, ay);

    __asm__("" : "+v"(p)); /* no FMA: NumPy rounds the product */
    /* NumPy: infinities are close only to themselves.  Only an infinite
     * reference needs the test: an infinite x beside a finite y has
     * d = inf above any finite tolerance, and equal infinities are in ks. */
    ok = _mm512_mask_cmp_ps_mask (_mm512_cmp_ps_mask (ay, inf, _CMP_LT_OQ), d,
        _mm512_add_ps (atol, p), _CMP_LE_OQ);
  }
  ok |= ks;
  if (equal_nan && knan) /* rare: skipped as a whole */
    ok |= _mm512_cmp_ps_mask (x, x, _CMP_UNORD_Q)
          & _mm512_cmp_ps_mask (y, y, _CMP_UNORD_Q);
  acc->ok += __builtin_popcount ((unsigned) ok);
  /* maxps keeps its second operand when the first is NaN */
  acc->abs = _mm512_max_ps (d, acc->abs);
  /* The largest d / ay with a division only where it may raise a lane's
   * maximum: d / ay > rel needs d > gate * ay (gate is rel less 2^-10 of
   * it, more than the two roundings; rounding is monotonic), so lanes
   * below gate * ay are skipped; a NaN product (gate 0, ay inf) skips a
   * quotient that is 0 or NaN, and neither raises a maximum. */
  if (_mm512_cmp_ps_mask (d, _mm512_mul_ps (acc->gate, ay), _CMP_GE_OQ)) {
    acc->rel = _mm512_max_ps (_mm512_div_ps (d, ay), acc->rel);
    acc->gate = _mm512_max_ps (
        _mm512_mul_ps (acc->rel, _mm512_set1_ps (1.0f - 0x1p-10f)),
        _mm512_setzero_ps ());
  }
  acc->ulp = _mm512_max_epu32 (u, acc->ulp);
}

/* The whole test for items [i, end) of pa, pe (end - i a multiple of
 * 32), into c0 and c1. */
static inline void
full_range (acc16 *c0, acc16 *c1, const float *pa, const float *pe, int64_t i,
    int64_t end, __m512 rtol, __m512 atol, __m512i mulp, int ulp_mode,
    int equal_nan)
{
  for (; i < end; i += 32) {
    const __m512 x0 = _mm512_loadu_ps (pa + i), y0 = _mm512_loadu_ps (pe + i);
    const __m512 x1 = _mm512_loadu_ps (pa + i + 16);
    const __m512 y1 = _mm512_loadu_ps (pe + i + 16);
    const __mmask16 s0 = _mm512_cmp_ps_mask (x0, y0, _CMP_EQ_OQ);
    const __mmask16 s1 = _mm512_cmp_ps_mask (x1, y1, _CMP_EQ_OQ);

    /* 32 equal items (a bit-exact golden): each passes with no error,
     * which changes no maximum */
    if ((s0 & s1) == 0xffff) {
      c0->ok += 32;
      continue;
    }
    step16 (c0, x0, y0, s0, rtol, atol, mulp, ulp_mode, equal_nan);
    step16 (c1, x1, y1, s1, rtol, atol, mulp, ulp_mode, equal_nan);
  }
}

/* d / ay rounded once to float32, exactly as _mm512_div_ps rounds it,
 * for vectors with a subnormal d or ay, whose vdivps would take an
 * assist: in float64 nothing is subnormal (converting one takes no
 * assist), the quotient of two 24-bit significands rounded to 53 bits
 * and then to 24 is the quotient rounded to 24 (53 >= 2 * 24 + 2: double
 * rounding is innocuous for a division), and a nonzero d / ay is at
 * least 2^-25, never subnormal itself. */
static __attribute__ ((noinline)) __m512
div_wide (__m512 d, __m512 ay)
{
  const __m512d lo
      = _mm512_div_pd (_mm512_cvtps_pd (_mm512_castps512_ps256 (d)),
          _mm512_cvtps_pd (_mm512_castps512_ps256 (ay)));
  const __m512d hi
      = _mm512_div_pd (_mm512_cvtps_pd (_mm512_extractf32x8_ps (d, 1)),
          _mm512_cvtps_pd (_mm512_extractf32x8_ps (ay, 1)));

  return _mm512_insertf32x8 (
      _mm512_castps256_ps512 (_mm512_cvtpd_ps (lo)), _mm512_cvtpd_ps (hi), 1);
}

/* Lanes of a float32 vector given as bits with a magnitude below
 * FLT_MIN other than 0 (subnormal), nonzero when any. */
static inline __mmask16
subnormal16 (__m512i b)
{
  const __m512i m = _mm512_and_si512 (b, _mm512_set1_epi32 (0x7fffffff));

  return _mm512_cmplt_epu32_mask (_mm512_sub_epi32 (m, _mm512_set1_epi32 (1)),
      _mm512_set1_epi32 (0x7fffff));
}

/* What the cheap pass over a block gathers (CMP_FAST in compare-kern.h);
 * the masks are cleared where a lane fails a test. */
typedef struct {
  __mmask16 ok; /* lanes whose items all pass the cheap test */
  __m512i sg;   /* or of x ^ y: a sign bit set if any signs differ */
  __m512i dmax; /* max of the bits of d (>= inf's: not all finite) */
  __m512i umax; /* max of |bits x - bits y| */
} fast16;

/* Returns the lanes where d / ay may reach the running max rel. */
static inline __attribute__ ((always_inline)) __mmask16
fast_step16 (fast16 *f, __m512 x, __m512 y, __m512 rel, __m512 rtol,
    __m512 atol, __m512i mulp, int ulp_mode)
{
  const __m512i absmask = _mm512_set1_epi32 (0x7fffffff);
  const __m512 minsub = _mm512_castsi512_ps (_mm512_set1_epi32 (1));
  const __m512i xi = _mm512_castps_si512 (x), yi = _mm512_castps_si512 (y);
  const __m512i di
      = _mm512_and_si512 (_mm512_castps_si512 (_mm512_sub_ps (x, y)), absmask);
  const __m512 d = _mm512_castsi512_ps (di);
  const __m512i ayi = _mm512_and_si512 (yi, absmask);
  const __m512 ay = _mm512_castsi512_ps (ayi);
  const __m512i u = _mm512_abs_epi32 (_mm512_sub_epi32 (xi, yi));
  /* the lanes whose products with rtol and rel are computed; the others
   * take 0 (see CMP_FAST_TINY) */
  const __mmask16 kp
      = _mm512_cmpge_epu32_mask (ayi, _mm512_set1_epi32 (CMP_FAST_TINY));

  if (ulp_mode) {
    f->ok = _mm512_mask_cmple_epu32_mask (f->ok, u, mulp);
  } else {
    __m512 p = _mm512_maskz_mul_ps (kp, rtol, ay);

    __asm__("" : "+v"(p)); /* no FMA: NumPy rounds the product */
    f->ok = _mm512_mask_cmp_ps_mask (
        f->ok, d, _mm512_add_ps (atol, p), _CMP_LE_OQ);
  }
  f->sg = _mm512_ternarylogic_epi32 (f->sg, xi, yi, 0xf6); /* sg | x ^ y */
  f->dmax = _mm512_max_epi32 (f->dmax, di);
  f->umax = _mm512_max_epu32 (f->umax, u);
  /* the product at least the least subnormal, so no d = 0 flags; maxps
   * keeps its second operand when one is NaN: inf * 0 (rel inf already,
   * a lane of an infinite y) flags nothing; a lane below CMP_FAST_TINY, y = 0
   * among them, flags wherever d != 0 */
  return _mm512_cmp_ps_mask (
      d, _mm512_max_ps (minsub, _mm512_maskz_mul_ps (kp, rel, ay)), _CMP_GE_OQ);
}

/* The largest rel of both accumulators in every lane. */
static inline __m512
rel_all (const acc16 *c0, const acc16 *c1)
{
  return _mm512_set1_ps (
      _mm512_reduce_max_ps (_mm512_max_ps (c0->rel, c1->rel)));
}

/* Items [i, end) (end - i a multiple of 32, at most CMP_FAST_BLOCK) the
 * cheap way, else the whole test (CMP_FAST in compare-kern.h).  *relg:
 * the run's max rel so far in every lane (rel_all). */
static inline __attribute__ ((always_inline)) void
fast_block (acc16 *c0, acc16 *c1, __m512 *relg, const float *pa,
    const float *pe, int64_t i, int64_t end, __m512 rtol, __m512 atol,
    __m512i mulp, int ulp_mode, int equal_nan)
{
  const __m512 rel = *relg;
  fast16 f = { 0xffff, _mm512_setzero_si512 (), _mm512_setzero_si512 (),
    _mm512_setzero_si512 () };
  __mmask16 relf[CMP_FAST_BLOCK / 16], any = 0;
  const int64_t i0 = i;

  /* equal items first (a bit-exact golden): each passes with no error,
   * which changes no maximum; a block that differs stops at once */
  while (i < end
         && (_mm512_cmp_ps_mask (
                 _mm512_loadu_ps (pa + i), _mm512_loadu_ps (pe + i), _CMP_EQ_OQ)
                & _mm512_cmp_ps_mask (_mm512_loadu_ps (pa + i + 16),
                    _mm512_loadu_ps (pe + i + 16), _CMP_EQ_OQ))
                == 0xffff)
    i += 32;
  c0->ok += i - i0;
  if (i == end)
    return;

  for (int64_t j = i, k = 0; j < end; j += 32, k += 2) {
    _mm_prefetch ((const char *) (pa + j + CMP_FAST_AHEAD), _MM_HINT_T0);
    _mm_prefetch ((const char *) (pa + j + CMP_FAST_AHEAD + 16), _MM_HINT_T0);
    _mm_prefetch ((const char *) (pe + j + CMP_FAST_AHEAD), _MM_HINT_T0);
    _mm_prefetch ((const char *) (pe + j + CMP_FAST_AHEAD + 16), _MM_HINT_T0);
    relf[k] = fast_step16 (&f, _mm512_loadu_ps (pa + j),
        _mm512_loadu_ps (pe + j), rel, rtol, atol, mulp, ulp_mode);
    relf[k + 1] = fast_step16 (&f, _mm512_loadu_ps (pa + j + 16),
        _mm512_loadu_ps (pe + j + 16), rel, rtol, atol, mulp, ulp_mode);
    any |= relf[k] | relf[k + 1];
  }
  if (f.ok != 0xffff || _mm512_movepi32_mask (f.sg)
      || _mm512_cmpgt_epi32_mask (f.dmax, _mm512_set1_epi32 (0x7f7fffff))) {
    full_range (c0, c1, pa, pe, i, end, rtol, atol, mulp, ulp_mode, equal_nan);
    *relg = rel_all (c0, c1);
    return;
  }
  c0->ok += end - i;
  c0->abs = _mm512_max_ps (_mm512_castsi512_ps (f.dmax), c0->abs);
  c0->ulp = _mm512_max_epu32 (f.umax, c0->ulp);
  if (any) {
    /* the quotients of the vectors that may raise the max; all finite:
     * 0 / 0 (equal zeros) is NaN, which maxps drops */
    for (int64_t j = i, k = 0; j < end; j += 16, k++) {
      if (relf[k]) {
        const __m512 y = _mm512_loadu_ps (pe + j);
        const __m512 d
            = _mm512_abs_ps (_mm512_sub_ps (_mm512_loadu_ps (pa + j), y));
        const __m512 ay = _mm512_abs_ps (y);

        c0->rel
            = _mm512_max_ps (subnormal16 (_mm512_castps_si512 (d))
                                     | subnormal16 (_mm512_castps_si512 (ay))
                                 ? div_wide (d, ay)
                                 : _mm512_div_ps (d, ay),
                c0->rel);
      }
    }
    c0->gate = _mm512_max_ps (
        _mm512_mul_ps (c0->rel, _mm512_set1_ps (1.0f - 0x1p-10f)),
        _mm512_setzero_ps ());
    *relg = rel_all (c0, c1);
  }
}

static void
run_float32_avx512 (const void *a, int64_t sa, const void *e, int64_t se,
    int64_t n, const tn_cmp_tol *t, tn_cmp_part *out)
{
  const float *pa = a, *pe = e;
  const __m512 rtol = _mm512_set1_ps ((float) t->rtol);
  const __m512 atol = _mm512_set1_ps ((float) t->atol);
  const int ulp_mode = t->max_ulp >= 0, equal_nan = t->equal_nan;
  const __m512i mulp
      = _mm512_set1_epi32 ((int) (uint32_t) (t->max_ulp > (int64_t) UINT32_MAX
                                                 ? UINT32_MAX
                                                 : (uint64_t) t->max_ulp));
  acc16 c0 = { 0, _mm512_setzero_ps (), _mm512_setzero_ps (),
    _mm512_setzero_si512 (), _mm512_setzero_ps () };
  acc16 c1 = c0;
  float fa[16], fr[16];
  uint32_t u[16];
  int64_t i = 0, okc;
  const int64_t n32 = n - n % 32;
  tn_cmp_part o = { 0, 0.0, 0.0, 0 };

  if (sa != 1 || se != 1) {
    run_c (a, sa, e, se, n, t, out);
    return;
  }
  if (CMP_FAST_OK ()) {
    __m512 relg = _mm512_setzero_ps ();

    for (; i < n32; i += CMP_FAST_BLOCK) {
      const int64_t end = n32 - i < CMP_FAST_BLOCK ? n32 : i + CMP_FAST_BLOCK;

      if (ulp_mode)
        fast_block (
            &c0, &c1, &relg, pa, pe, i, end, rtol, atol, mulp, 1, equal_nan);
      else
        fast_block (
            &c0, &c1, &relg, pa, pe, i, end, rtol, atol, mulp, 0, equal_nan);
    }
  } else {
    full_range (
        &c0, &c1, pa, pe, 0, n32, rtol, atol, mulp, ulp_mode, equal_nan);
  }
  i = n32;
  for (; i + 16 <= n; i += 16) {
    const __m512 x0 = _mm512_loadu_ps (pa + i), y0 = _mm512_loadu_ps (pe + i);

    step16 (&c0, x0, y0, _mm512_cmp_ps_mask (x0, y0, _CMP_EQ_OQ), rtol, atol,
        mulp, ulp_mode, equal_nan);
  }
  okc = c0.ok + c1.ok;
  _mm512_storeu_ps (fa, _mm512_max_ps (c1.abs, c0.abs));
  _mm512_storeu_ps (fr, _mm512_max_ps (c1.rel, c0.rel));
  _mm512_storeu_si512 (u, _mm512_max_epu32 (c1.ulp, c0.ulp));
  o.bad = i - okc;
  tn_cmp_finish_f32 (&o, 16, fa, fr, u, pa, pe, i, n, t, item_c);
  *out = o;
}

void
tn_cmp_init_avx512 (tn_compare_dsp *dsp)
{
  run_c = dsp->run[TN_FLOAT32];
  item_c = dsp->item[TN_FLOAT32];
  dsp->run[TN_FLOAT32] = run_float32_avx512;
}
