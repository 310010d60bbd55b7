/* The float32 comparison run in AVX-512 (F, DQ, BW, VL: the "compare:"
 * block of core/meson.build).  The operations per item are the AVX2
 * entry's (x86/compare-avx2.c), so the part has the portable kernel's
 * bits; the opmask registers carry the verdicts, which halves the
 * instructions per item, and that is what a comparison whose items all
 * take the whole test (a reference off by an ulp everywhere) is bound by. */
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
  tn_cmp_part o = { 0, 0.0, 0.0, 0 };

  if (sa != 1 || se != 1) {
    run_c (a, sa, e, se, n, t, out);
    return;
  }
  for (; i + 32 <= n; i += 32) {
    const __m512 x0 = _mm512_loadu_ps (pa + i), y0 = _mm512_loadu_ps (pe + i);
    const __m512 x1 = _mm512_loadu_ps (pa + i + 16);
    const __m512 y1 = _mm512_loadu_ps (pe + i + 16);
    const __mmask16 s0 = _mm512_cmp_ps_mask (x0, y0, _CMP_EQ_OQ);
    const __mmask16 s1 = _mm512_cmp_ps_mask (x1, y1, _CMP_EQ_OQ);

    /* 32 equal items (a bit-exact golden): each passes with no error,
     * which changes no maximum */
    if ((s0 & s1) == 0xffff) {
      c0.ok += 32;
      continue;
    }
    step16 (&c0, x0, y0, s0, rtol, atol, mulp, ulp_mode, equal_nan);
    step16 (&c1, x1, y1, s1, rtol, atol, mulp, ulp_mode, equal_nan);
  }
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
