/* Hand-vectorised AVX-512 short rows of float32 written as float32 sums
 * and means (short32, reduce-kern.h), 16 rows per vector: the AVX2
 * kernel's steps (core/x86/reduce-avx2-short.c: x_0 + x_1 + ... in
 * float64, left to right, one true division, one rounding to float32)
 * with rows of 2, 3 and 4 dense items sorted by two-source permutations
 * (vpermt2ps), two per item for the pixels of an RGB image where AVX2
 * needs two blends and a permutation per 8 rows. */
#include "reduce-avx2.h"

/* Item l of 16 rows of k dense items (k = 2, 3, 4; row i at x + i * k)
 * as v[l], in row order. */
RK_INLINE void
rk_short_ld16 (const float *x, int64_t k, __m512 *v)
{
  if (k == 3) {
    /* item l of row j is at l + 3 j of a:b:c (48 floats): those below 32
     * from a:b first, then the rest from c */
    const __m512 a = _mm512_loadu_ps (x), b = _mm512_loadu_ps (x + 16);
    const __m512 c = _mm512_loadu_ps (x + 32);

    for (int l = 0; l < 3; l++) {
      int i1[16], i2[16];

      for (int j = 0; j < 16; j++) {
        int at = l + 3 * j;

        i1[j] = at < 32 ? at : 0;
        i2[j] = at < 32 ? j : 16 + at - 32;
      }
      v[l] = _mm512_permutex2var_ps (
          _mm512_permutex2var_ps (a, _mm512_loadu_si512 (i1), b),
          _mm512_loadu_si512 (i2), c);
    }
  } else if (k == 2) {
    const __m512i ev = _mm512_setr_epi32 (
        0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i od = _mm512_add_epi32 (ev, _mm512_set1_epi32 (1));
    const __m512 a = _mm512_loadu_ps (x), b = _mm512_loadu_ps (x + 16);

    v[0] = _mm512_permutex2var_ps (a, ev, b);
    v[1] = _mm512_permutex2var_ps (a, od, b);
  } else {
    /* items 0|1 and 2|3 of rows 0-7 from r0:r1, of rows 8-15 from r2:r3,
     * then the 256-bit halves paired */
    const __m512i p01 = _mm512_setr_epi32 (
        0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
    const __m512i p23 = _mm512_add_epi32 (p01, _mm512_set1_epi32 (2));
    const __m512 r0 = _mm512_loadu_ps (x), r1 = _mm512_loadu_ps (x + 16);
    const __m512 r2 = _mm512_loadu_ps (x + 32), r3 = _mm512_loadu_ps (x + 48);
    __m512 t0 = _mm512_permutex2var_ps (r0, p01, r1);
    __m512 t1 = _mm512_permutex2var_ps (r0, p23, r1);
    __m512 t2 = _mm512_permutex2var_ps (r2, p01, r3);
    __m512 t3 = _mm512_permutex2var_ps (r2, p23, r3);

    v[0] = _mm512_shuffle_f32x4 (t0, t2, 0x44);
    v[1] = _mm512_shuffle_f32x4 (t0, t2, 0xee);
    v[2] = _mm512_shuffle_f32x4 (t1, t3, 0x44);
    v[3] = _mm512_shuffle_f32x4 (t1, t3, 0xee);
  }
}

/* Dense rows of k = 2, 3 or 4 items. */
RK_INLINE void
rk_short32_run (const float *x, int64_t k, int64_t n, double den, float *out)
{
  const __m512d vd = _mm512_set1_pd (den);
  int64_t i = 0;
  __m512 v[4];

  for (; i + 16 <= n; i += 16) {
    __m512d lo, hi;

    rk_short_ld16 (x + i * k, k, v);
    lo = _mm512_cvtps_pd (_mm512_castps512_ps256 (v[0]));
    hi = _mm512_cvtps_pd (_mm512_extractf32x8_ps (v[0], 1));
    for (int64_t l = 1; l < k; l++) {
      lo = _mm512_add_pd (lo, _mm512_cvtps_pd (_mm512_castps512_ps256 (v[l])));
      hi = _mm512_add_pd (
          hi, _mm512_cvtps_pd (_mm512_extractf32x8_ps (v[l], 1)));
    }
    if (den != 1.0) {
      lo = _mm512_div_pd (lo, vd);
      hi = _mm512_div_pd (hi, vd);
    }
    _mm512_storeu_ps (out + i,
        _mm512_insertf32x8 (_mm512_castps256_ps512 (_mm512_cvtpd_ps (lo)),
            _mm512_cvtpd_ps (hi), 1));
  }
  /* the last rows */
  if (i < n)
    tn_rk_short32_avx2_float32 (
        (const char *) (x + i * k), k, k, n - i, den, out + i);
}

/* Other rows: AVX2's. */
static void
fsum_short32_avx512_float32 (
    const char *p, int64_t k, int64_t rs, int64_t n, double den, float *out)
{
  const float *x = (const float *) p;

  if (rs == k && k == 2)
    rk_short32_run (x, 2, n, den, out);
  else if (rs == k && k == 3)
    rk_short32_run (x, 3, n, den, out);
  else if (rs == k && k == 4)
    rk_short32_run (x, 4, n, den, out);
  else
    tn_rk_short32_avx2_float32 (p, k, rs, n, den, out);
}

void
tn_rk_init_avx512_short (tn_reduce_dsp *dsp)
{
  dsp->short32[TN_FLOAT32] = fsum_short32_avx512_float32;
}
