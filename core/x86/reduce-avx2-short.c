/* Hand-vectorised AVX2 short rows of float32 (reduce-kern.h): each row's
 * float64 fold (shortr) and its float32 sum or mean (short32), 8 rows per
 * vector: lane l of the 8 rows is one vector (x_l).  The kernels run in
 * the IEEE environment (core/parallel.h: no FTZ/DAZ), where rk_short_row's
 * steps with -0.0 (-0.0f + x, -0.0 + x, the fold of the empty lanes) give
 * back x, bit for bit (a signalling NaN would come back quiet, as the
 * conversion to float64 makes it anyway): what is left is x_0 + x_1 + ...
 * in float64, left to right, then (short32) one true division by den and
 * one rounding to float32, as the driver's emit does. */
#include "reduce-avx2.h"

/* Transposes the 8 x 8 floats of r in place. */
RK_INLINE void
rk_tr8 (__m256 *r)
{
  __m256 t[8], u[8];

  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps (r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps (r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps (t[i], t[i + 2], 0x44);
    u[i + 1] = _mm256_shuffle_ps (t[i], t[i + 2], 0xee);
    u[i + 2] = _mm256_shuffle_ps (t[i + 1], t[i + 3], 0x44);
    u[i + 3] = _mm256_shuffle_ps (t[i + 1], t[i + 3], 0xee);
  }
  for (int i = 0; i < 4; i++) {
    r[i] = _mm256_permute2f128_ps (u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps (u[i], u[i + 4], 0x31);
  }
}

/* Item l of 8 rows (row i at x + i * rs) as v[l], l < k, in row order.
 * Rows of 2, 3 or 4 dense items (the pixels of an image) are read as k
 * vectors and sorted by shuffles; other rows one by one, transposed.
 * more: a ninth row follows, and rs >= k, rs + k >= 8, so that the
 * load of 8 items at item l0 (a multiple of 8 below k) of row j ends
 * inside row j + 1: j rs + l0 + 8 <= (j + 1) rs + k. */
RK_INLINE void
rk_short_ld8 (const float *x, int64_t k, int64_t rs, int more, __m256 *v)
{
  if (k == 3 && rs == 3) {
    /* a = x0 y0 z0 x1 y1 z1 x2 y2, b = z2 x3 .. x5, c = y5 z5 .. z7: a
     * blend takes item (j % 3) of each triple into slot j, a permutation
     * puts the slots in row order. */
    const __m256i px = _mm256_setr_epi32 (0, 3, 6, 1, 4, 7, 2, 5);
    const __m256i py = _mm256_setr_epi32 (1, 4, 7, 2, 5, 0, 3, 6);
    const __m256i pz = _mm256_setr_epi32 (2, 5, 0, 3, 6, 1, 4, 7);
    __m256 a = _mm256_loadu_ps (x), b = _mm256_loadu_ps (x + 8);
    __m256 c = _mm256_loadu_ps (x + 16);

    v[0] = _mm256_permutevar8x32_ps (
        _mm256_blend_ps (_mm256_blend_ps (a, b, 0x92), c, 0x24), px);
    v[1] = _mm256_permutevar8x32_ps (
        _mm256_blend_ps (_mm256_blend_ps (a, b, 0x24), c, 0x49), py);
    v[2] = _mm256_permutevar8x32_ps (
        _mm256_blend_ps (_mm256_blend_ps (a, b, 0x49), c, 0x92), pz);
  } else if (k == 2 && rs == 2) {
    /* even and odd items of each 128-bit half: rows 0 1 4 5 | 2 3 6 7 */
    __m256 a = _mm256_loadu_ps (x), b = _mm256_loadu_ps (x + 8);

    v[0] = _mm256_castpd_ps (_mm256_permute4x64_pd (
        _mm256_castps_pd (_mm256_shuffle_ps (a, b, 0x88)), 0xd8));
    v[1] = _mm256_castpd_ps (_mm256_permute4x64_pd (
        _mm256_castps_pd (_mm256_shuffle_ps (a, b, 0xdd)), 0xd8));
  } else if (k == 4 && rs == 4) {
    /* a 4 x 4 transpose in each 128-bit half (rows 0 2 4 6 | 1 3 5 7),
     * then one permutation per item */
    const __m256i pr = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
    __m256 r0 = _mm256_loadu_ps (x), r1 = _mm256_loadu_ps (x + 8);
    __m256 r2 = _mm256_loadu_ps (x + 16), r3 = _mm256_loadu_ps (x + 24);
    __m256 t0 = _mm256_unpacklo_ps (r0, r1), t1 = _mm256_unpackhi_ps (r0, r1);
    __m256 t2 = _mm256_unpacklo_ps (r2, r3), t3 = _mm256_unpackhi_ps (r2, r3);

    v[0] = _mm256_permutevar8x32_ps (_mm256_shuffle_ps (t0, t2, 0x44), pr);
    v[1] = _mm256_permutevar8x32_ps (_mm256_shuffle_ps (t0, t2, 0xee), pr);
    v[2] = _mm256_permutevar8x32_ps (_mm256_shuffle_ps (t1, t3, 0x44), pr);
    v[3] = _mm256_permutevar8x32_ps (_mm256_shuffle_ps (t1, t3, 0xee), pr);
  } else {
    /* each row by loads of 8 items, the 8 x 8 blocks transposed (a
     * gather per item costs several times that).  Past a row's end a
     * load reads into the next row when it reaches no further (more):
     * masked loads only where it might, since they are slow (on Zen 4
     * about ten times a load). */
    for (int64_t l0 = 0; l0 < k; l0 += 8) {
      __m256 r[8];
      __m256i m = _mm256_cmpgt_epi32 (_mm256_set1_epi32 ((int) (k - l0)),
          _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7));

      if (more || k - l0 >= 8)
        for (int i = 0; i < 8; i++)
          r[i] = _mm256_loadu_ps (x + i * rs + l0);
      else
        for (int i = 0; i < 8; i++)
          r[i] = _mm256_maskload_ps (x + i * rs + l0, m);
      rk_tr8 (r);
      for (int64_t l = l0; l < k && l < l0 + 8; l++)
        v[l] = r[l - l0];
    }
  }
}

/* x_0 + x_1 + ... of 8 rows in float64, left to right: rows 0-3 in *lo,
 * rows 4-7 in *hi. */
RK_INLINE void
rk_short_f8 (const __m256 *x, int64_t k, __m256d *lo, __m256d *hi)
{
  __m256d l0 = _mm256_cvtps_pd (_mm256_castps256_ps128 (x[0]));
  __m256d h0 = _mm256_cvtps_pd (_mm256_extractf128_ps (x[0], 1));

  for (int64_t l = 1; l < k; l++) {
    l0 = _mm256_add_pd (l0, _mm256_cvtps_pd (_mm256_castps256_ps128 (x[l])));
    h0 = _mm256_add_pd (h0, _mm256_cvtps_pd (_mm256_extractf128_ps (x[l], 1)));
  }
  *lo = l0;
  *hi = h0;
}

/* One row's float32 result, as the driver writes it. */
RK_INLINE float
rk_short_f32 (const float *x, int64_t k, double den)
{
  return rk_canon_f (
      (float) (rk_short_row (TN_FLOAT32, TN_RK_FSUM, x, k) / den));
}

/* The two kernels' loops for one k: fold (out64) or divide and round
 * (out32; stream: from the first output on a 32-byte border, by
 * non-temporal stores).  Called with k constant for the common k, so
 * that the k vectors stay in registers. */
RK_INLINE void
rk_short_run (const float *x, int64_t k, int64_t rs, int64_t n, double den,
    double *out64, float *out32, int stream)
{
  const __m256d vd = _mm256_set1_pd (den);
  int64_t i = 0;
  __m256 v[TN_RK_LANES];
  __m256d lo, hi;

  if (out32 && stream)
    for (; i < n && ((uintptr_t) (out32 + i) & 31) != 0; i++)
      out32[i] = rk_short_f32 (x + i * rs, k, den);
  for (; i + 8 <= n; i += 8) {
    __m256 r;

    if (rs == k && k <= 4)
      rk_prefetch_ahead (x + i * k, 32 * k);
    rk_short_ld8 (x + i * rs, k, rs, rs >= k && rs + k >= 8 && i + 8 < n, v);
    rk_short_f8 (v, k, &lo, &hi);
    if (out64) {
      _mm256_storeu_pd (out64 + i, lo);
      _mm256_storeu_pd (out64 + i + 4, hi);
      continue;
    }
    if (den != 1.0) {
      lo = _mm256_div_pd (lo, vd);
      hi = _mm256_div_pd (hi, vd);
    }
    r = _mm256_insertf128_ps (
        _mm256_castps128_ps256 (_mm256_cvtpd_ps (lo)), _mm256_cvtpd_ps (hi), 1);
    /* one compare finds a NaN among the 8 */
    if (__builtin_expect (
            _mm256_movemask_pd (_mm256_cmp_pd (lo, hi, _CMP_UNORD_Q)) != 0, 0))
      r = rk_canon8 (r);
    if (stream)
      _mm256_stream_ps (out32 + i, r);
    else
      _mm256_storeu_ps (out32 + i, r);
  }
  for (; i < n; i++) {
    if (out64)
      out64[i] = rk_short_row (TN_FLOAT32, TN_RK_FSUM, x + i * rs, k);
    else
      out32[i] = rk_short_f32 (x + i * rs, k, den);
  }
}

#define RK_SHORT_K(K)                                                          \
  case K:                                                                      \
    rk_short_run (x, K, rs, n, den, out64, out32, stream);                     \
    return
RK_INLINE void
rk_short_any (const char *p, int64_t k, int64_t rs, int64_t n, double den,
    double *out64, float *out32, int stream)
{
  const float *x = (const float *) p;

  switch (k) {
    RK_SHORT_K (2);
    RK_SHORT_K (3);
    RK_SHORT_K (4);
    RK_SHORT_K (5);
    RK_SHORT_K (6);
    RK_SHORT_K (7);
    RK_SHORT_K (8);
    RK_SHORT_K (16);
  default:
    rk_short_run (x, k, rs, n, den, out64, out32, stream);
  }
}
#undef RK_SHORT_K

static void
fsum_short_v_float32 (
    const char *p, int64_t k, int64_t rs, int64_t n, double *out)
{
  rk_short_any (p, k, rs, n, 1.0, out, NULL, 0);
}

void
tn_rk_short32_avx2_float32 (const char *p, int64_t k, int64_t rs, int64_t n,
    double den, float *out, int stream)
{
  rk_short_any (p, k, rs, n, den, NULL, out, stream);
}

void
tn_rk_init_avx2_short (tn_reduce_dsp *dsp)
{
  dsp->shortr[TN_RK_FSUM][TN_FLOAT32] = fsum_short_v_float32;
  dsp->short32[TN_FLOAT32] = tn_rk_short32_avx2_float32;
}
