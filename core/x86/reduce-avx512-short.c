/* Hand-vectorised AVX-512 short rows of float32 written as float32 sums
 * and means (short32, reduce-kern.h), 16 rows per iteration: the AVX2
 * kernel's steps (core/x86/reduce-avx2-short.c: x_0 + x_1 + ... in
 * float64, left to right, one correctly rounded division, one rounding to
 * float32) with rows of 2, 3 and 4 dense items sorted by one permutation per
 * item and 8 rows (vpermt2ps over two loads), where AVX2 needs two blends and
 * a permutation.  On Zen 4 the permutations and the conversions to and
 * from float64 share a pipe, and they bound the loop: 6 + 6 + 2 of them
 * per 16 rows of 3 items (perf-notes, "Session 9 H1"). */
#include "reduce-avx2.h"

#include "core/cpu.h"

/* Item l of rows 0-7 of 16 rows of k dense items (k = 2, 3, 4; row i at
 * x + i * k) as lo[l], of rows 8-15 as hi[l], in row order: one
 * permutation per item and half, whose 8 results are what the conversion
 * to float64 takes.  (Sorting 16 rows per permutation, as before, needed
 * two two-source permutations per item for k = 3 and then an extraction
 * per item for the upper 8 rows: 4 more shuffles per 16 rows, on the
 * pipe the conversions need too.) */
RK_INLINE void
rk_short_ld16 (const float *x, int64_t k, __m256 *lo, __m256 *hi)
{
  /* index l + k j of item l of row j < 8 */
  const __m512i iota
      = _mm512_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m512i step = _mm512_mullo_epi32 (iota, _mm512_set1_epi32 ((int) k));

  if (k == 2) {
    /* rows 0-7 are a, rows 8-15 b */
    const __m512 a = _mm512_loadu_ps (x), b = _mm512_loadu_ps (x + 16);

    for (int l = 0; l < 2; l++) {
      const __m512i ix = _mm512_add_epi32 (step, _mm512_set1_epi32 (l));

      lo[l] = _mm512_castps512_ps256 (_mm512_permutexvar_ps (ix, a));
      hi[l] = _mm512_castps512_ps256 (_mm512_permutexvar_ps (ix, b));
    }
  } else if (k == 3) {
    /* rows 0-7 are items 0-23 of a:b, rows 8-15 items 8-31 of b:c */
    const __m512 a = _mm512_loadu_ps (x), b = _mm512_loadu_ps (x + 16);
    const __m512 c = _mm512_loadu_ps (x + 32);

    for (int l = 0; l < 3; l++) {
      const __m512i ix = _mm512_add_epi32 (step, _mm512_set1_epi32 (l));
      const __m512i iy = _mm512_add_epi32 (ix, _mm512_set1_epi32 (8));

      lo[l] = _mm512_castps512_ps256 (_mm512_permutex2var_ps (a, ix, b));
      hi[l] = _mm512_castps512_ps256 (_mm512_permutex2var_ps (b, iy, c));
    }
  } else {
    /* rows 0-7 are r0:r1, rows 8-15 r2:r3 */
    const __m512 r0 = _mm512_loadu_ps (x), r1 = _mm512_loadu_ps (x + 16);
    const __m512 r2 = _mm512_loadu_ps (x + 32), r3 = _mm512_loadu_ps (x + 48);

    for (int l = 0; l < 4; l++) {
      const __m512i ix = _mm512_add_epi32 (step, _mm512_set1_epi32 (l));

      lo[l] = _mm512_castps512_ps256 (_mm512_permutex2var_ps (r0, ix, r1));
      hi[l] = _mm512_castps512_ps256 (_mm512_permutex2var_ps (r2, ix, r3));
    }
  }
}

/* x_0 + x_1 + ... of 8 rows in float64, left to right. */
RK_INLINE __m512d
rk_short_s8 (const __m256 *v, int64_t k)
{
  __m512d s = _mm512_cvtps_pd (v[0]);

  for (int64_t l = 1; l < k; l++)
    s = _mm512_add_pd (s, _mm512_cvtps_pd (v[l]));
  return s;
}

/* The sums s of 16 rows (lo: rows 0-7, hi: 8-15) divided by den (not 1)
 * in float64, correctly rounded, as s / den.
 *
 * quot 0: by vdivpd.  quot 1: by the reciprocal y = RN(1 / den) and one
 * correction, q0 = RN(s y), r = RN(q0 den - s), q = RN(q0 - r y), the
 * last two by FMA, which gives the very bits of s / den when den is the
 * row's k (an integer 2..32; the callers pass quot only then) and s a
 * sum of k float32 items, so
 * (1) r is exact (q0 den and s are multiples of ulp(q0), |r| is a few
 * ulp(q0) times den), (2) q0 - r y = (s / den) (1 - e d) with |e| and
 * |d| about 2^-52 and 2^-53 (the errors of q0 and y), and (3) s / den
 * is never a midpoint of two doubles (s = den m with m of 54 bits would
 * have more than 53) and lies at least 2^-59 (relatively) from every
 * midpoint, far beyond 2^-104: the one rounding of the last FMA lands
 * where the division's does.  Zeros keep their sign (q0 = s, r = +0,
 * -(+0) + q0 = q0); an infinite or NaN sum gives NaN there, and then the
 * 16 rows are divided by vdivpd (one compare per 16 rows finds them).
 * Why both: a vdivpd of 8 doubles occupies the divider of an Intel core
 * (Sapphire Rapids) 16 cycles, 2 cycles a row, twice what the rest of
 * the loop costs (perf-notes, "Session 10 H1"), while on Zen 4 the
 * division hides behind the permutations and the quotient's 3 more
 * operations per 8 rows were slower (session 9). */
RK_INLINE void
rk_short_div16 (__m512d *lo, __m512d *hi, double den, int quot)
{
  const __m512d vd = _mm512_set1_pd (den);

  if (quot) {
    const __m512d y = _mm512_set1_pd (1.0 / den);
    __m512d ql = _mm512_mul_pd (*lo, y), qh = _mm512_mul_pd (*hi, y);

    ql = _mm512_fnmadd_pd (_mm512_fmsub_pd (ql, vd, *lo), y, ql);
    qh = _mm512_fnmadd_pd (_mm512_fmsub_pd (qh, vd, *hi), y, qh);
    if (__builtin_expect (_mm512_cmp_pd_mask (ql, qh, _CMP_UNORD_Q) == 0, 1)) {
      *lo = ql;
      *hi = qh;
      return;
    }
  }
  *lo = _mm512_div_pd (*lo, vd);
  *hi = _mm512_div_pd (*hi, vd);
}

/* 16 rows' results, rounded to float32: rows 0-7 in *a, 8-15 in *b. */
RK_INLINE void
rk_short_out16 (
    const float *x, int64_t k, double den, int quot, __m256 *a, __m256 *b)
{
  __m256 lo[4], hi[4];
  __m512d sl, sh;

  rk_short_ld16 (x, k, lo, hi);
  sl = rk_short_s8 (lo, k);
  sh = rk_short_s8 (hi, k);
  if (den != 1.0)
    rk_short_div16 (&sl, &sh, den, quot);
  *a = _mm512_cvtpd_ps (sl);
  *b = _mm512_cvtpd_ps (sh);
  /* one compare finds a NaN among the 16 */
  if (__builtin_expect (_mm512_cmp_pd_mask (sl, sh, _CMP_UNORD_Q) != 0, 0)) {
    *a = rk_canon8 (*a);
    *b = rk_canon8 (*b);
  }
}

/* Dense rows of k = 2, 3 or 4 items, prefetched (rk_prefetch_ahead).  stream:
 * from the first output on a 64-byte border, whole lines of outputs by
 * non-temporal stores. */
RK_INLINE void
rk_short32_run (const float *x, int64_t k, int64_t n, double den, float *out,
    int stream, int quot)
{
  int64_t i = 0;
  __m256 a, b;

  if (stream) {
    /* the rows before the border, as the tail */
    i = (int64_t) (((64 - ((uintptr_t) out & 63)) & 63) / sizeof (float));
    i = i < n ? i : n;
    if (i > 0)
      tn_rk_short32_avx2_float32 ((const char *) x, k, k, i, den, out, 0);
    for (; i + 16 <= n; i += 16) {
      rk_prefetch_ahead (x + i * k, 64 * k);
      rk_short_out16 (x + i * k, k, den, quot, &a, &b);
      _mm256_stream_ps (out + i, a);
      _mm256_stream_ps (out + i + 8, b);
    }
  } else {
    for (; i + 16 <= n; i += 16) {
      rk_prefetch_ahead (x + i * k, 64 * k);
      rk_short_out16 (x + i * k, k, den, quot, &a, &b);
      _mm256_storeu_ps (out + i, a);
      _mm256_storeu_ps (out + i + 8, b);
    }
  }
  /* the last rows */
  if (i < n)
    tn_rk_short32_avx2_float32 (
        (const char *) (x + i * k), k, k, n - i, den, out + i, 0);
}

/* Other rows: AVX2's. */
RK_INLINE void
rk_short32_any (const char *p, int64_t k, int64_t rs, int64_t n, double den,
    float *out, int stream, int quot)
{
  const float *x = (const float *) p;

  /* the quotient's proof holds for a mean (den = k) */
  quot = quot && den == (double) k;
  if (rs == k && k == 2)
    rk_short32_run (x, 2, n, den, out, stream, quot);
  else if (rs == k && k == 3)
    rk_short32_run (x, 3, n, den, out, stream, quot);
  else if (rs == k && k == 4)
    rk_short32_run (x, 4, n, den, out, stream, quot);
  else
    tn_rk_short32_avx2_float32 (p, k, rs, n, den, out, stream);
}

static void
fsum_short32_avx512_float32 (const char *p, int64_t k, int64_t rs, int64_t n,
    double den, float *out, int stream)
{
  rk_short32_any (p, k, rs, n, den, out, stream, 0);
}

static void
fsum_short32_avx512q_float32 (const char *p, int64_t k, int64_t rs, int64_t n,
    double den, float *out, int stream)
{
  rk_short32_any (p, k, rs, n, den, out, stream, 1);
}

tn_rk_short32_fn
tn_rk_avx512_short32 (int quot)
{
  return quot ? fsum_short32_avx512q_float32 : fsum_short32_avx512_float32;
}

/* Intel takes the quotient, the others (Zen 4) divide: see
 * rk_short_div16. */
void
tn_rk_init_avx512_short (tn_reduce_dsp *dsp)
{
  dsp->short32[TN_FLOAT32] = tn_rk_avx512_short32 (tn_cpu_intel ());
}
