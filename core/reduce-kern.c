/* The reduction kernels: the portable template, its AVX2 clone, and
 * hand-vectorised AVX2 kernels for the hot cases, all with the one
 * association of reduce.h. */
#include "reduce-kern.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "half-private.h"
#include "half.h"

#if defined(__x86_64__)
#define TN_RK_X86 1
#include <immintrin.h>
#endif

#define RK_INLINE static inline __attribute__ ((always_inline))

RK_INLINE int
rk_is_float (tn_dtype t)
{
  return t == TN_FLOAT16 || t == TN_BFLOAT16 || t == TN_FLOAT32
         || t == TN_FLOAT64;
}

/* bool counts as signed: its items are 0 and 1 either way. */
RK_INLINE int
rk_is_unsigned (tn_dtype t)
{
  return t == TN_UINT8 || t == TN_UINT16 || t == TN_UINT32 || t == TN_UINT64;
}

/* Item i of p as float64: exact for every dtype but 64-bit integers beyond
 * 2^53 (rounded to nearest); bool items are 0 or 1. */
RK_INLINE double
rk_ld_d (tn_dtype t, const void *p, int64_t i)
{
  switch (t) {
#define RK_LD_D(E, name, ctype, kind)                                          \
  case E: {                                                                    \
    ctype x = ((const ctype *) p)[i];                                          \
    if (E == TN_FLOAT16)                                                       \
      return tn_f16_to_f32 ((uint16_t) x);                                     \
    if (E == TN_BFLOAT16)                                                      \
      return tn_bf16_to_f32_inline ((uint16_t) x);                             \
    if (kind == TN_KIND_BOOL)                                                  \
      return x != 0;                                                           \
    return (double) x;                                                         \
  }
    TN_FOREACH_DTYPE (RK_LD_D)
#undef RK_LD_D
  default:
    return 0;
  }
}

/* Item i of a float16/bfloat16/float32 tensor as float32 (exact). */
RK_INLINE float
rk_ld_f (tn_dtype t, const void *p, int64_t i)
{
  switch (t) {
  case TN_FLOAT16:
    return tn_f16_to_f32 (((const uint16_t *) p)[i]);
  case TN_BFLOAT16:
    return tn_bf16_to_f32_inline (((const uint16_t *) p)[i]);
  case TN_FLOAT32:
    return ((const float *) p)[i];
  default:
    return (float) rk_ld_d (t, p, i);
  }
}

/* Item i of a bool or integer tensor, sign- or zero-extended to 64 bits. */
RK_INLINE uint64_t
rk_ld_u (tn_dtype t, const void *p, int64_t i)
{
  switch (t) {
#define RK_LD_U(E, name, ctype, kind)                                          \
  case E: {                                                                    \
    ctype x = ((const ctype *) p)[i];                                          \
    if (kind == TN_KIND_BOOL)                                                  \
      return x != 0;                                                           \
    if (kind == TN_KIND_INT)                                                   \
      return (uint64_t) (int64_t) x;                                           \
    if (kind == TN_KIND_UINT)                                                  \
      return (uint64_t) x;                                                     \
    return 0;                                                                  \
  }
    TN_FOREACH_DTYPE (RK_LD_U)
#undef RK_LD_U
  default:
    return 0;
  }
}

RK_INLINE __int128
rk_ld_q (tn_dtype t, const void *p, int64_t i)
{
  if (rk_is_unsigned (t))
    return (__int128) rk_ld_u (t, p, i);
  return (__int128) (int64_t) rk_ld_u (t, p, i);
}

/* An int64 in the order of the items: unsigned values shifted down by
 * 2^63 (a flip of the top bit). */
RK_INLINE int64_t
rk_key (tn_dtype t, const void *p, int64_t i)
{
  uint64_t u = rk_ld_u (t, p, i);

  return (int64_t) (rk_is_unsigned (t) ? u ^ (UINT64_C (1) << 63) : u);
}

RK_INLINE double
rk_identity (tn_rk_kind kind)
{
  return kind == TN_RK_DMUL ? 1.0 : -0.0;
}

RK_INLINE double
rk_dop (tn_rk_kind kind, double acc, double x, double m)
{
  double d;

  switch (kind) {
  case TN_RK_DMUL:
    return acc * x;
  case TN_RK_DSQ:
    return acc + x * x;
  case TN_RK_DDEV:
    d = x - m;
    return acc + d * d;
  default:
    return acc + x;
  }
}

RK_INLINE double
rk_dfold (tn_rk_kind kind, double s, double lane)
{
  return kind == TN_RK_DMUL ? s * lane : s + lane;
}

/* Column arrays in scratch start at multiples of 64 bytes. */
RK_INLINE int64_t
rk_pad (int64_t nc)
{
  return (nc + 7) & ~(int64_t) 7;
}

/* IEEE 754-2019 minimum/maximum for numbers (NaN is flagged apart):
 * -0.0 is below +0.0. */
RK_INLINE double
rk_fmin (double a, double x)
{
  return (x < a || (x == a && signbit (x))) ? x : a;
}

RK_INLINE double
rk_fmax (double a, double x)
{
  return (x > a || (x == a && !signbit (x))) ? x : a;
}

#define KSUF portable
#include "reduce-tmpl.h"
#undef KSUF

#ifdef TN_RK_X86
#if defined(__clang__)
#pragma clang attribute push(                                                  \
    __attribute__((target("avx2,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,f16c")
#endif

#define KSUF avx2
#include "reduce-tmpl.h"
#undef KSUF

/* Hand-vectorised AVX2 kernels.  Each keeps the template's association:
 * vector lane k of accumulator j is lane 8j + k (floats) or 4j + k
 * (doubles) of reduce.h, and tails go through the same scalar steps. */

#define RK_V static inline __attribute__ ((always_inline))

/* 8 items at p + i as float32 (exact): float16, bfloat16, float32. */
RK_V __m256
rk8_f (tn_dtype t, const void *p, int64_t i)
{
  const uint16_t *h = (const uint16_t *) p + i;

  switch (t) {
  case TN_FLOAT16:
    return _mm256_cvtph_ps (_mm_loadu_si128 ((const __m128i *) h));
  case TN_BFLOAT16:
    return _mm256_castsi256_ps (_mm256_slli_epi32 (
        _mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const __m128i *) h)), 16));
  default:
    return _mm256_loadu_ps ((const float *) p + i);
  }
}

/* 4 items at p + i as float64 (exact), for the dtypes rk_has4_d names. */
RK_V __m256d
rk4_d (tn_dtype t, const void *p, int64_t i)
{
  const uint8_t *b = (const uint8_t *) p + i;
  const uint16_t *h = (const uint16_t *) p + i;
  int32_t w;

  switch (t) {
  case TN_FLOAT64:
    return _mm256_loadu_pd ((const double *) p + i);
  case TN_FLOAT32:
    return _mm256_cvtps_pd (_mm_loadu_ps ((const float *) p + i));
  case TN_FLOAT16:
    return _mm256_cvtps_pd (
        _mm_cvtph_ps (_mm_loadl_epi64 ((const __m128i *) h)));
  case TN_BFLOAT16:
    return _mm256_cvtps_pd (_mm_castsi128_ps (_mm_slli_epi32 (
        _mm_cvtepu16_epi32 (_mm_loadl_epi64 ((const __m128i *) h)), 16)));
  case TN_INT32:
    return _mm256_cvtepi32_pd (
        _mm_loadu_si128 ((const __m128i *) ((const int32_t *) p + i)));
  case TN_INT16:
    return _mm256_cvtepi32_pd (
        _mm_cvtepi16_epi32 (_mm_loadl_epi64 ((const __m128i *) h)));
  case TN_UINT16:
    return _mm256_cvtepi32_pd (
        _mm_cvtepu16_epi32 (_mm_loadl_epi64 ((const __m128i *) h)));
  case TN_INT8:
    memcpy (&w, b, 4);
    return _mm256_cvtepi32_pd (_mm_cvtepi8_epi32 (_mm_cvtsi32_si128 (w)));
  case TN_UINT8:
    memcpy (&w, b, 4);
    return _mm256_cvtepi32_pd (_mm_cvtepu8_epi32 (_mm_cvtsi32_si128 (w)));
  default: /* bool: nonzero is 1 */
    memcpy (&w, b, 4);
    return _mm256_cvtepi32_pd (_mm_min_epu32 (
        _mm_cvtepu8_epi32 (_mm_cvtsi32_si128 (w)), _mm_set1_epi32 (1)));
  }
}

static int
rk_has4_d (tn_dtype t)
{
  return t != TN_UINT32 && t != TN_INT64 && t != TN_UINT64;
}

RK_V __m256d
rk4_op (tn_rk_kind kind, __m256d a, __m256d x, __m256d m)
{
  __m256d d;

  switch (kind) {
  case TN_RK_DMUL:
    return _mm256_mul_pd (a, x);
  case TN_RK_DSQ:
    return _mm256_add_pd (a, _mm256_mul_pd (x, x));
  case TN_RK_DDEV:
    d = _mm256_sub_pd (x, m);
    return _mm256_add_pd (a, _mm256_mul_pd (d, d));
  default:
    return _mm256_add_pd (a, x);
  }
}

RK_V __m256d
rk4_fold (tn_rk_kind kind, __m256d s, __m256d lane)
{
  return kind == TN_RK_DMUL ? _mm256_mul_pd (s, lane) : _mm256_add_pd (s, lane);
}

/* Float64 lanes, rows: 8 accumulators of 4 lanes; the folds of the
 * lanes of up to 8 blocks run side by side (see rk_fsum_inner_v). */
#define RK_GROUP 8

RK_V void
rk_dacc_inner_v (tn_dtype t, tn_rk_kind kind, const void *p, int64_t n,
    double m, tn_rpart *out)
{
  const double id = rk_identity (kind);
  const __m256d vid = _mm256_set1_pd (id), vm = _mm256_set1_pd (m);
  double lanes[RK_GROUP][TN_RK_LANES];

  for (int64_t g0 = 0; g0 < n; g0 += RK_GROUP * TN_RK_BLOCK) {
    int nbl = 0;
    double s[RK_GROUP];

    for (int64_t b = g0; b < n && nbl < RK_GROUP; b += TN_RK_BLOCK, nbl++) {
      int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n, i = b;
      double *lane = lanes[nbl];
      __m256d a[8];

      for (int j = 0; j < 8; j++)
        a[j] = vid;
      for (; i + TN_RK_LANES <= e; i += TN_RK_LANES) {
        a[0] = rk4_op (kind, a[0], rk4_d (t, p, i), vm);
        a[1] = rk4_op (kind, a[1], rk4_d (t, p, i + 4), vm);
        a[2] = rk4_op (kind, a[2], rk4_d (t, p, i + 8), vm);
        a[3] = rk4_op (kind, a[3], rk4_d (t, p, i + 12), vm);
        a[4] = rk4_op (kind, a[4], rk4_d (t, p, i + 16), vm);
        a[5] = rk4_op (kind, a[5], rk4_d (t, p, i + 20), vm);
        a[6] = rk4_op (kind, a[6], rk4_d (t, p, i + 24), vm);
        a[7] = rk4_op (kind, a[7], rk4_d (t, p, i + 28), vm);
      }
      for (int j = 0; j < 8; j++)
        _mm256_storeu_pd (lane + 4 * j, a[j]);
      for (int l = 0; i < e; i++, l++)
        lane[l] = rk_dop (kind, lane[l], rk_ld_d (t, p, i), m);
    }
    for (int k = 0; k < nbl; k++)
      s[k] = id;
    for (int l = 0; l < TN_RK_LANES; l++)
      for (int k = 0; k < nbl; k++)
        s[k] = rk_dfold (kind, s[k], lanes[k][l]);
    for (int k = 0; k < nbl; k++)
      out[k].v.d = s[k];
    out += nbl;
  }
}

/* Float64 lanes, columns: the rows of lane l folded four at a time into
 * the lane's accumulator of every column. */
RK_V void
rk_dacc_cols_v (tn_dtype t, tn_rk_kind kind, const char *base,
    const int64_t *roff, int64_t nrows, int64_t nc, const double *m,
    tn_rpart *out, void *scratch)
{
  const double id = rk_identity (kind);
  const size_t isz = tn_dtype_size (t);
  const __m256d zero = _mm256_setzero_pd ();
  double *lane = scratch, *bs = lane + rk_pad (nc);
  int64_t c;

  for (c = 0; c < nc; c++)
    bs[c] = id;
  for (int64_t l = 0; l < TN_RK_LANES && l < nrows; l++) {
    int64_t r = l;

    for (c = 0; c < nc; c++)
      lane[c] = id;
    for (; r < nrows; r += 4 * TN_RK_LANES) {
      const char *row[4];
      int k, nr = 0;

      for (k = 0; k < 4 && r + k * TN_RK_LANES < nrows; k++, nr++)
        row[k] = base + roff[r + k * TN_RK_LANES] * isz;
      for (c = 0; c + 4 <= nc; c += 4) {
        __m256d a = _mm256_loadu_pd (lane + c);
        __m256d mv = m ? _mm256_loadu_pd (m + c) : zero;

        for (k = 0; k < nr; k++)
          a = rk4_op (kind, a, rk4_d (t, row[k], c), mv);
        _mm256_storeu_pd (lane + c, a);
      }
      for (; c < nc; c++)
        for (k = 0; k < nr; k++)
          lane[c]
              = rk_dop (kind, lane[c], rk_ld_d (t, row[k], c), m ? m[c] : 0.0);
    }
    for (c = 0; c + 4 <= nc; c += 4)
      _mm256_storeu_pd (bs + c, rk4_fold (kind, _mm256_loadu_pd (bs + c),
                                    _mm256_loadu_pd (lane + c)));
    for (; c < nc; c++)
      bs[c] = rk_dfold (kind, bs[c], lane[c]);
  }
  for (c = 0; c < nc; c++)
    out[c].v.d = bs[c];
}

/* Float sums, rows: 4 float32 accumulators per half, then float64.  The
 * left-to-right fold of a block's 32 lanes is one chain of 31 dependent
 * additions; the lanes of up to 8 blocks are kept and their 8 chains run
 * side by side, off the streaming loop. */

RK_V void
rk_fsum_inner_v (tn_dtype t, const void *p, int64_t n, tn_rpart *out)
{
  double lanes[RK_GROUP][TN_RK_LANES];

  for (int64_t g0 = 0; g0 < n; g0 += RK_GROUP * TN_RK_BLOCK) {
    int nbl = 0;
    double s[RK_GROUP];

    for (int64_t b = g0; b < n && nbl < RK_GROUP; b += TN_RK_BLOCK, nbl++) {
      int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n;
      __m256d d[8];

      for (int j = 0; j < 8; j++)
        d[j] = _mm256_set1_pd (-0.0);
      for (int64_t h = b; h < e; h += TN_RK_HALF) {
        int64_t he = h + TN_RK_HALF < e ? h + TN_RK_HALF : e, i = h;
        __m256 f0 = _mm256_set1_ps (-0.0f), f1 = f0, f2 = f0, f3 = f0;

        for (; i + TN_RK_LANES <= he; i += TN_RK_LANES) {
          f0 = _mm256_add_ps (f0, rk8_f (t, p, i));
          f1 = _mm256_add_ps (f1, rk8_f (t, p, i + 8));
          f2 = _mm256_add_ps (f2, rk8_f (t, p, i + 16));
          f3 = _mm256_add_ps (f3, rk8_f (t, p, i + 24));
        }
        if (i < he) {
          float f[TN_RK_LANES];

          _mm256_storeu_ps (f, f0);
          _mm256_storeu_ps (f + 8, f1);
          _mm256_storeu_ps (f + 16, f2);
          _mm256_storeu_ps (f + 24, f3);
          for (int l = 0; i < he; i++, l++)
            f[l] += rk_ld_f (t, p, i);
          f0 = _mm256_loadu_ps (f);
          f1 = _mm256_loadu_ps (f + 8);
          f2 = _mm256_loadu_ps (f + 16);
          f3 = _mm256_loadu_ps (f + 24);
        }
        d[0] = _mm256_add_pd (
            d[0], _mm256_cvtps_pd (_mm256_castps256_ps128 (f0)));
        d[1] = _mm256_add_pd (
            d[1], _mm256_cvtps_pd (_mm256_extractf128_ps (f0, 1)));
        d[2] = _mm256_add_pd (
            d[2], _mm256_cvtps_pd (_mm256_castps256_ps128 (f1)));
        d[3] = _mm256_add_pd (
            d[3], _mm256_cvtps_pd (_mm256_extractf128_ps (f1, 1)));
        d[4] = _mm256_add_pd (
            d[4], _mm256_cvtps_pd (_mm256_castps256_ps128 (f2)));
        d[5] = _mm256_add_pd (
            d[5], _mm256_cvtps_pd (_mm256_extractf128_ps (f2, 1)));
        d[6] = _mm256_add_pd (
            d[6], _mm256_cvtps_pd (_mm256_castps256_ps128 (f3)));
        d[7] = _mm256_add_pd (
            d[7], _mm256_cvtps_pd (_mm256_extractf128_ps (f3, 1)));
      }
      for (int j = 0; j < 8; j++)
        _mm256_storeu_pd (lanes[nbl] + 4 * j, d[j]);
    }
    for (int k = 0; k < nbl; k++)
      s[k] = -0.0;
    for (int l = 0; l < TN_RK_LANES; l++)
      for (int k = 0; k < nbl; k++)
        s[k] += lanes[k][l];
    for (int k = 0; k < nbl; k++)
      out[k].v.d = s[k];
    out += nbl;
  }
}

/* Float sums, columns: for lane l and each half, its 16 rows fold into a
 * float32 accumulator per column, four rows per pass over the columns. */
RK_V void
rk_fsum_cols_v (tn_dtype t, const char *base, const int64_t *roff,
    int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)
{
  const size_t isz = tn_dtype_size (t);
  double *lane = scratch, *bs = lane + rk_pad (nc);
  float *f = (float *) (bs + rk_pad (nc));
  int64_t c;

  for (c = 0; c < nc; c++)
    bs[c] = -0.0;
  for (int64_t l = 0; l < TN_RK_LANES && l < nrows; l++) {
    for (c = 0; c < nc; c++)
      lane[c] = -0.0;
    for (int64_t h = 0; h + l < nrows; h += TN_RK_HALF) {
      int64_t he = h + TN_RK_HALF < nrows ? h + TN_RK_HALF : nrows;

      for (c = 0; c < nc; c++)
        f[c] = -0.0f;
      for (int64_t r = h + l; r < he; r += 4 * TN_RK_LANES) {
        const char *row[4];
        int k, nr = 0;

        for (k = 0; k < 4 && r + k * TN_RK_LANES < he; k++, nr++)
          row[k] = base + roff[r + k * TN_RK_LANES] * isz;
        c = 0;
        if (nr == 4) {
          for (; c + 8 <= nc; c += 8) {
            __m256 a = _mm256_loadu_ps (f + c);

            a = _mm256_add_ps (a, rk8_f (t, row[0], c));
            a = _mm256_add_ps (a, rk8_f (t, row[1], c));
            a = _mm256_add_ps (a, rk8_f (t, row[2], c));
            a = _mm256_add_ps (a, rk8_f (t, row[3], c));
            _mm256_storeu_ps (f + c, a);
          }
        } else {
          for (; c + 8 <= nc; c += 8) {
            __m256 a = _mm256_loadu_ps (f + c);

            for (k = 0; k < nr; k++)
              a = _mm256_add_ps (a, rk8_f (t, row[k], c));
            _mm256_storeu_ps (f + c, a);
          }
        }
        for (; c < nc; c++)
          for (k = 0; k < nr; k++)
            f[c] += rk_ld_f (t, row[k], c);
      }
      for (c = 0; c + 4 <= nc; c += 4)
        _mm256_storeu_pd (
            lane + c, _mm256_add_pd (_mm256_loadu_pd (lane + c),
                          _mm256_cvtps_pd (_mm_loadu_ps (f + c))));
      for (; c < nc; c++)
        lane[c] += (double) f[c];
    }
    for (c = 0; c + 4 <= nc; c += 4)
      _mm256_storeu_pd (bs + c,
          _mm256_add_pd (_mm256_loadu_pd (bs + c), _mm256_loadu_pd (lane + c)));
    for (; c < nc; c++)
      bs[c] += lane[c];
  }
  for (c = 0; c < nc; c++)
    out[c].v.d = bs[c];
}

/* Integer sums, rows: exact, so any grouping will do. */
RK_V uint64_t
rk_hsum64 (__m256i a)
{
  uint64_t v[4];

  _mm256_storeu_si256 ((__m256i *) v, a);
  return v[0] + v[1] + v[2] + v[3];
}

RK_V void
rk_uadd_inner_v (tn_dtype t, const void *p, int64_t n, tn_rpart *out)
{
  const size_t isz = tn_dtype_size (t);
  const __m256i zero = _mm256_setzero_si256 ();

  for (int64_t b = 0; b < n; b += TN_RK_BLOCK, out++) {
    int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n, i = b;
    const char *q = (const char *) p;
    __m256i a0 = zero, a1 = zero;
    uint64_t s = 0;

    if (isz == 1) {
      /* Sums of 8 bytes land in 64-bit lanes (psadbw); int8 is biased to
       * unsigned by 128 and the bias taken off after; bool clamps to 1. */
      const __m256i bias = _mm256_set1_epi8 ((char) 0x80);
      const __m256i one = _mm256_set1_epi8 (1);

      for (; i + 32 <= e; i += 32) {
        __m256i x = _mm256_loadu_si256 ((const __m256i *) (q + i));

        if (t == TN_INT8)
          x = _mm256_xor_si256 (x, bias);
        else if (t == TN_BOOL)
          x = _mm256_min_epu8 (x, one);
        a0 = _mm256_add_epi64 (a0, _mm256_sad_epu8 (x, zero));
      }
      s = rk_hsum64 (a0);
      if (t == TN_INT8)
        s -= (uint64_t) (i - b) * 128;
    } else if (isz == 2) {
      /* Pairs of 16-bit items in 32-bit lanes (pmaddwd), at most 2^21 in a
       * block; uint16 is biased to signed by 32768. */
      const __m256i ones = _mm256_set1_epi16 (1);
      const __m256i bias = _mm256_set1_epi16 ((short) 0x8000);

      for (; i + 16 <= e; i += 16) {
        __m256i x = _mm256_loadu_si256 ((const __m256i *) (q + 2 * i));

        if (t == TN_UINT16)
          x = _mm256_xor_si256 (x, bias);
        a0 = _mm256_add_epi32 (a0, _mm256_madd_epi16 (x, ones));
      }
      a1 = _mm256_add_epi64 (
          _mm256_cvtepi32_epi64 (_mm256_castsi256_si128 (a0)),
          _mm256_cvtepi32_epi64 (_mm256_extracti128_si256 (a0, 1)));
      s = rk_hsum64 (a1);
      if (t == TN_UINT16)
        s += (uint64_t) (i - b) * 32768;
    } else if (isz == 4) {
      for (; i + 8 <= e; i += 8) {
        __m128i lo = _mm_loadu_si128 ((const __m128i *) (q + 4 * i));
        __m128i hi = _mm_loadu_si128 ((const __m128i *) (q + 4 * i + 16));

        if (t == TN_INT32) {
          a0 = _mm256_add_epi64 (a0, _mm256_cvtepi32_epi64 (lo));
          a1 = _mm256_add_epi64 (a1, _mm256_cvtepi32_epi64 (hi));
        } else {
          a0 = _mm256_add_epi64 (a0, _mm256_cvtepu32_epi64 (lo));
          a1 = _mm256_add_epi64 (a1, _mm256_cvtepu32_epi64 (hi));
        }
      }
      s = rk_hsum64 (_mm256_add_epi64 (a0, a1));
    } else {
      for (; i + 8 <= e; i += 8) {
        a0 = _mm256_add_epi64 (
            a0, _mm256_loadu_si256 ((const __m256i *) (q + 8 * i)));
        a1 = _mm256_add_epi64 (
            a1, _mm256_loadu_si256 ((const __m256i *) (q + 8 * i + 32)));
      }
      s = rk_hsum64 (_mm256_add_epi64 (a0, a1));
    }
    for (; i < e; i++)
      s += rk_ld_u (t, p, i);
    out->v.u = s;
  }
}

/* min/max of float dtypes, rows: IEEE 754-2019 minimum/maximum of the
 * numbers (min(x, a) | min(a, x) takes -0.0 from either side; max ands
 * the sign away), NaN flagged apart; both order-free, so lanes are free. */
RK_V __m256
rk8_ext (int is_max, __m256 a, __m256 x)
{
  if (is_max)
    return _mm256_and_ps (_mm256_max_ps (x, a), _mm256_max_ps (a, x));
  return _mm256_or_ps (_mm256_min_ps (x, a), _mm256_min_ps (a, x));
}

RK_V __m256d
rk4_ext (int is_max, __m256d a, __m256d x)
{
  if (is_max)
    return _mm256_and_pd (_mm256_max_pd (x, a), _mm256_max_pd (a, x));
  return _mm256_or_pd (_mm256_min_pd (x, a), _mm256_min_pd (a, x));
}

RK_V void
rk_fext_inner_v (
    tn_dtype t, int is_max, const void *p, int64_t n, tn_rpart *out)
{
  for (int64_t b = 0; b < n; b += TN_RK_BLOCK, out++) {
    int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n, i = b;
    double best = is_max ? -INFINITY : INFINITY;
    int nan = 0;

    if (t == TN_FLOAT64) {
      __m256d a0 = _mm256_set1_pd (best), a1 = a0, nn = _mm256_setzero_pd ();
      double v[4];

      for (; i + 8 <= e; i += 8) {
        __m256d x0 = _mm256_loadu_pd ((const double *) p + i);
        __m256d x1 = _mm256_loadu_pd ((const double *) p + i + 4);

        nn = _mm256_or_pd (nn, _mm256_cmp_pd (x0, x1, _CMP_UNORD_Q));
        a0 = rk4_ext (is_max, a0, x0);
        a1 = rk4_ext (is_max, a1, x1);
      }
      nan = _mm256_movemask_pd (nn) != 0;
      _mm256_storeu_pd (v, rk4_ext (is_max, a0, a1));
      for (int k = 0; k < 4; k++)
        best = is_max ? rk_fmax (best, v[k]) : rk_fmin (best, v[k]);
    } else {
      __m256 a0 = _mm256_set1_ps ((float) best), a1 = a0,
             nn = _mm256_setzero_ps ();
      float v[8];

      for (; i + 16 <= e; i += 16) {
        __m256 x0 = rk8_f (t, p, i), x1 = rk8_f (t, p, i + 8);

        nn = _mm256_or_ps (nn, _mm256_cmp_ps (x0, x1, _CMP_UNORD_Q));
        a0 = rk8_ext (is_max, a0, x0);
        a1 = rk8_ext (is_max, a1, x1);
      }
      nan = _mm256_movemask_ps (nn) != 0;
      _mm256_storeu_ps (v, rk8_ext (is_max, a0, a1));
      for (int k = 0; k < 8; k++)
        best = is_max ? rk_fmax (best, v[k]) : rk_fmin (best, v[k]);
    }
    for (; i < e; i++) {
      double x = rk_ld_d (t, p, i);

      nan |= x != x;
      best = is_max ? rk_fmax (best, x) : rk_fmin (best, x);
    }
    out->v.d = best;
    out->nan = nan;
    out->idx = -1;
  }
}

/* argmin/argmax of float16/bfloat16/float32, rows: per lane the first
 * strict extreme and its index; a block with a NaN is scanned again for
 * its first NaN.  The lane with the extreme and the lowest index wins, so
 * the result is the first extreme whatever the lanes. */
RK_V void
rk_farg_inner_v (tn_dtype t, int is_max, const void *p, int64_t n,
    int64_t first, tn_rpart *out)
{
  for (int64_t b = 0; b < n; b += TN_RK_BLOCK, out++) {
    int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n, i = b, bi = b;
    double best;
    int nan = 0;

    if (e - b >= 16) {
      __m256 v0 = rk8_f (t, p, b), v1 = rk8_f (t, p, b + 8);
      __m256i i0 = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7);
      __m256i i1 = _mm256_add_epi32 (i0, _mm256_set1_epi32 (8));
      __m256i cur0 = _mm256_add_epi32 (i0, _mm256_set1_epi32 (16));
      __m256i cur1 = _mm256_add_epi32 (i1, _mm256_set1_epi32 (16));
      const __m256i step = _mm256_set1_epi32 (16);
      __m256 nn = _mm256_cmp_ps (v0, v1, _CMP_UNORD_Q);
      float bv[16];
      int32_t bx[16];

      for (i = b + 16; i + 16 <= e; i += 16) {
        __m256 x0 = rk8_f (t, p, i), x1 = rk8_f (t, p, i + 8);
        /* x < v is v > x: the predicate must be a constant. */
        __m256 g0 = is_max ? _mm256_cmp_ps (x0, v0, _CMP_GT_OQ)
                           : _mm256_cmp_ps (v0, x0, _CMP_GT_OQ);
        __m256 g1 = is_max ? _mm256_cmp_ps (x1, v1, _CMP_GT_OQ)
                           : _mm256_cmp_ps (v1, x1, _CMP_GT_OQ);

        nn = _mm256_or_ps (nn, _mm256_cmp_ps (x0, x1, _CMP_UNORD_Q));
        v0 = _mm256_blendv_ps (v0, x0, g0);
        v1 = _mm256_blendv_ps (v1, x1, g1);
        i0 = _mm256_blendv_epi8 (i0, cur0, _mm256_castps_si256 (g0));
        i1 = _mm256_blendv_epi8 (i1, cur1, _mm256_castps_si256 (g1));
        cur0 = _mm256_add_epi32 (cur0, step);
        cur1 = _mm256_add_epi32 (cur1, step);
      }
      nan = _mm256_movemask_ps (nn) != 0;
      _mm256_storeu_ps (bv, v0);
      _mm256_storeu_ps (bv + 8, v1);
      _mm256_storeu_si256 ((__m256i *) bx, i0);
      _mm256_storeu_si256 ((__m256i *) (bx + 8), i1);
      best = bv[0];
      bi = b + bx[0];
      for (int k = 1; k < 16; k++) {
        if ((is_max ? bv[k] > best : bv[k] < best)
            || (bv[k] == best && b + bx[k] < bi)) {
          best = bv[k];
          bi = b + bx[k];
        }
      }
    } else {
      best = rk_ld_d (t, p, b);
      nan = best != best;
      i = b + 1;
    }
    for (; i < e && !nan; i++) {
      double x = rk_ld_d (t, p, i);

      if (x != x)
        nan = 1;
      else if (is_max ? x > best : x < best) {
        best = x;
        bi = i;
      }
    }
    if (nan) {
      for (bi = b; bi < e; bi++) {
        double x = rk_ld_d (t, p, bi);

        if (x != x)
          break;
      }
    }
    out->v.d = nan ? NAN : best;
    out->nan = nan;
    out->idx = first + bi;
  }
}

#define RK_AVX2_D(E, name)                                                     \
  static void rk_dadd_inner_v_##name (                                         \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) first;                                                              \
    rk_dacc_inner_v (E, TN_RK_DADD, p, n, m, out);                             \
  }                                                                            \
  static void rk_dmul_inner_v_##name (                                         \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) first;                                                              \
    rk_dacc_inner_v (E, TN_RK_DMUL, p, n, m, out);                             \
  }                                                                            \
  static void rk_dsq_inner_v_##name (                                          \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) first;                                                              \
    rk_dacc_inner_v (E, TN_RK_DSQ, p, n, m, out);                              \
  }                                                                            \
  static void rk_ddev_inner_v_##name (                                         \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) first;                                                              \
    rk_dacc_inner_v (E, TN_RK_DDEV, p, n, m, out);                             \
  }                                                                            \
  static void rk_dadd_cols_v_##name (const char *base, const int64_t *roff,    \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) row0;                                                               \
    rk_dacc_cols_v (E, TN_RK_DADD, base, roff, nrows, nc, m, out, scratch);    \
  }                                                                            \
  static void rk_dmul_cols_v_##name (const char *base, const int64_t *roff,    \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) row0;                                                               \
    rk_dacc_cols_v (E, TN_RK_DMUL, base, roff, nrows, nc, m, out, scratch);    \
  }                                                                            \
  static void rk_dsq_cols_v_##name (const char *base, const int64_t *roff,     \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) row0;                                                               \
    rk_dacc_cols_v (E, TN_RK_DSQ, base, roff, nrows, nc, m, out, scratch);     \
  }                                                                            \
  static void rk_ddev_cols_v_##name (const char *base, const int64_t *roff,    \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) row0;                                                               \
    rk_dacc_cols_v (E, TN_RK_DDEV, base, roff, nrows, nc, m, out, scratch);    \
  }
#define RK_AVX2_D_ALL(E, name, ctype, kind) RK_AVX2_D (E, name)
TN_FOREACH_DTYPE (RK_AVX2_D_ALL)

#define RK_AVX2_F(E, name)                                                     \
  static void rk_fsum_inner_v_##name (                                         \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) first;                                                              \
    (void) m;                                                                  \
    rk_fsum_inner_v (E, p, n, out);                                            \
  }                                                                            \
  static void rk_fsum_cols_v_##name (const char *base, const int64_t *roff,    \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) row0;                                                               \
    (void) m;                                                                  \
    rk_fsum_cols_v (E, base, roff, nrows, nc, out, scratch);                   \
  }                                                                            \
  static void rk_min_inner_v_##name (                                          \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) first;                                                              \
    (void) m;                                                                  \
    rk_fext_inner_v (E, 0, p, n, out);                                         \
  }                                                                            \
  static void rk_max_inner_v_##name (                                          \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) first;                                                              \
    (void) m;                                                                  \
    rk_fext_inner_v (E, 1, p, n, out);                                         \
  }                                                                            \
  static void rk_argmin_inner_v_##name (                                       \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) m;                                                                  \
    rk_farg_inner_v (E, 0, p, n, first, out);                                  \
  }                                                                            \
  static void rk_argmax_inner_v_##name (                                       \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) m;                                                                  \
    rk_farg_inner_v (E, 1, p, n, first, out);                                  \
  }
RK_AVX2_F (TN_FLOAT16, float16)
RK_AVX2_F (TN_BFLOAT16, bfloat16)
RK_AVX2_F (TN_FLOAT32, float32)

static void
rk_min_inner_v_float64 (
    const void *p, int64_t n, int64_t first, double m, tn_rpart *out)
{
  (void) first;
  (void) m;
  rk_fext_inner_v (TN_FLOAT64, 0, p, n, out);
}

static void
rk_max_inner_v_float64 (
    const void *p, int64_t n, int64_t first, double m, tn_rpart *out)
{
  (void) first;
  (void) m;
  rk_fext_inner_v (TN_FLOAT64, 1, p, n, out);
}

#define RK_AVX2_U(E, name, ctype, kind)                                        \
  static void rk_uadd_inner_v_##name (                                         \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) first;                                                              \
    (void) m;                                                                  \
    rk_uadd_inner_v (E, p, n, out);                                            \
  }
TN_FOREACH_DTYPE (RK_AVX2_U)

/* Narrow columns (strips), floats: slot j of the wide rows keeps its
 * float32 half-sum (or float64 fold) in a register while the rows of the
 * block stream past, 32 P items apart; slots past the last, partial row's
 * end take it item by item. */
RK_V void
rk_fsum_strip_v (tn_dtype t, const char *p, int64_t nrows, int64_t P,
    tn_rpart *out, void *scratch)
{
  const int64_t W = TN_RK_LANES * P, full = nrows / TN_RK_LANES;
  const int64_t rem = (nrows % TN_RK_LANES) * P, nr = full + (rem > 0);
  double *lane = scratch;

  for (int64_t j = 0; j < W; j++)
    lane[j] = -0.0;
  for (int64_t h = 0; h * 16 < nr; h++) {
    int64_t r0 = h * 16, r1 = r0 + 16 < nr ? r0 + 16 : nr;
    /* Rows of this half that are whole; the partial one comes last. */
    int64_t rf = r1 < full ? r1 : full;

    for (int64_t j = 0; j < W; j += 8) {
      __m256 a = _mm256_set1_ps (-0.0f);
      float f[8];

      for (int64_t r = r0; r < rf; r++)
        a = _mm256_add_ps (a, rk8_f (t, p, r * W + j));
      if (rf < r1) {
        if (j + 8 <= rem) {
          a = _mm256_add_ps (a, rk8_f (t, p, rf * W + j));
        } else {
          _mm256_storeu_ps (f, a);
          for (int64_t k = 0; k < 8 && j + k < rem; k++)
            f[k] += rk_ld_f (t, p, rf * W + j + k);
          a = _mm256_loadu_ps (f);
        }
      }
      _mm256_storeu_pd (
          lane + j, _mm256_add_pd (_mm256_loadu_pd (lane + j),
                        _mm256_cvtps_pd (_mm256_castps256_ps128 (a))));
      _mm256_storeu_pd (
          lane + j + 4, _mm256_add_pd (_mm256_loadu_pd (lane + j + 4),
                            _mm256_cvtps_pd (_mm256_extractf128_ps (a, 1))));
    }
  }
  for (int64_t c = 0; c < P; c++) {
    double s = -0.0;

    for (int l = 0; l < TN_RK_LANES; l++)
      s += lane[l * P + c];
    out[c].v.d = s;
  }
}

RK_V void
rk_dacc_strip_v (tn_dtype t, tn_rk_kind kind, const char *p, int64_t nrows,
    int64_t P, const double *m, tn_rpart *out, void *scratch)
{
  const int64_t W = TN_RK_LANES * P, full = nrows / TN_RK_LANES;
  const int64_t rem = (nrows % TN_RK_LANES) * P;
  const double id = rk_identity (kind);
  double *lane = scratch, *mw = lane + rk_pad (W);

  for (int64_t j = 0; j < W; j++)
    mw[j] = m ? m[j % P] : 0.0;
  for (int64_t j = 0; j < W; j += 4) {
    __m256d a = _mm256_set1_pd (id), mv = _mm256_loadu_pd (mw + j);

    for (int64_t r = 0; r < full; r++)
      a = rk4_op (kind, a, rk4_d (t, p, r * W + j), mv);
    if (j + 4 <= rem) {
      a = rk4_op (kind, a, rk4_d (t, p, full * W + j), mv);
      _mm256_storeu_pd (lane + j, a);
    } else {
      _mm256_storeu_pd (lane + j, a);
      for (int64_t k = j; k < j + 4 && k < rem; k++)
        lane[k] = rk_dop (kind, lane[k], rk_ld_d (t, p, full * W + k), mw[k]);
    }
  }
  for (int64_t c = 0; c < P; c++) {
    double s = id;

    for (int l = 0; l < TN_RK_LANES; l++)
      s = rk_dfold (kind, s, lane[l * P + c]);
    out[c].v.d = s;
  }
}

/* Narrow columns, integer sums of 8- and 16-bit items: exact, so each slot
 * adds its (at most 32) items in 16-bit (bytes) or 32-bit lanes. */
RK_V void
rk_uadd_strip_v (tn_dtype t, const char *p, int64_t nrows, int64_t P,
    tn_rpart *out, void *scratch)
{
  const int64_t W = TN_RK_LANES * P, full = nrows / TN_RK_LANES;
  const int64_t rem = (nrows % TN_RK_LANES) * P;
  const size_t isz = tn_dtype_size (t);
  uint64_t *acc = scratch;

  for (int64_t j = 0; j < W; j += 16) {
    uint16_t h[16];
    uint32_t w[16];
    int64_t nj = W - j < 16 ? W - j : 16;

    if (isz == 1) {
      __m256i a = _mm256_setzero_si256 ();

      for (int64_t r = 0; r < full; r++) {
        __m128i x = _mm_loadu_si128 ((const __m128i *) (p + r * W + j));

        if (t == TN_BOOL)
          x = _mm_min_epu8 (x, _mm_set1_epi8 (1));
        a = _mm256_add_epi16 (a,
            t == TN_INT8 ? _mm256_cvtepi8_epi16 (x) : _mm256_cvtepu8_epi16 (x));
      }
      _mm256_storeu_si256 ((__m256i *) h, a);
      for (int64_t k = 0; k < nj; k++)
        acc[j + k] = t == TN_INT8 ? (uint64_t) (int64_t) (int16_t) h[k]
                                  : (uint64_t) h[k];
    } else {
      __m256i a0 = _mm256_setzero_si256 (), a1 = a0;

      for (int64_t r = 0; r < full; r++) {
        const char *q = p + 2 * (r * W + j);
        __m128i x0 = _mm_loadu_si128 ((const __m128i *) q);
        __m128i x1 = _mm_loadu_si128 ((const __m128i *) (q + 16));

        if (t == TN_INT16) {
          a0 = _mm256_add_epi32 (a0, _mm256_cvtepi16_epi32 (x0));
          a1 = _mm256_add_epi32 (a1, _mm256_cvtepi16_epi32 (x1));
        } else {
          a0 = _mm256_add_epi32 (a0, _mm256_cvtepu16_epi32 (x0));
          a1 = _mm256_add_epi32 (a1, _mm256_cvtepu16_epi32 (x1));
        }
      }
      _mm256_storeu_si256 ((__m256i *) w, a0);
      _mm256_storeu_si256 ((__m256i *) (w + 8), a1);
      for (int64_t k = 0; k < nj; k++)
        acc[j + k] = t == TN_INT16 ? (uint64_t) (int64_t) (int32_t) w[k]
                                   : (uint64_t) w[k];
    }
  }
  for (int64_t k = 0; k < rem; k++)
    acc[k] += rk_ld_u (t, p, full * W + k);
  (void) isz;
  for (int64_t c = 0; c < P; c++) {
    uint64_t s = 0;

    for (int l = 0; l < TN_RK_LANES; l++)
      s += acc[l * P + c];
    out[c].v.u = s;
  }
}

#define RK_AVX2_S(E, name, ctype, kind)                                        \
  static void rk_dadd_strip_v_##name (const char *p, int64_t nrows, int64_t P, \
      const double *m, tn_rpart *out, void *scratch)                           \
  {                                                                            \
    rk_dacc_strip_v (E, TN_RK_DADD, p, nrows, P, m, out, scratch);             \
  }                                                                            \
  static void rk_dmul_strip_v_##name (const char *p, int64_t nrows, int64_t P, \
      const double *m, tn_rpart *out, void *scratch)                           \
  {                                                                            \
    rk_dacc_strip_v (E, TN_RK_DMUL, p, nrows, P, m, out, scratch);             \
  }                                                                            \
  static void rk_dsq_strip_v_##name (const char *p, int64_t nrows, int64_t P,  \
      const double *m, tn_rpart *out, void *scratch)                           \
  {                                                                            \
    rk_dacc_strip_v (E, TN_RK_DSQ, p, nrows, P, m, out, scratch);              \
  }                                                                            \
  static void rk_ddev_strip_v_##name (const char *p, int64_t nrows, int64_t P, \
      const double *m, tn_rpart *out, void *scratch)                           \
  {                                                                            \
    rk_dacc_strip_v (E, TN_RK_DDEV, p, nrows, P, m, out, scratch);             \
  }                                                                            \
  static void rk_uadd_strip_v_##name (const char *p, int64_t nrows, int64_t P, \
      const double *m, tn_rpart *out, void *scratch)                           \
  {                                                                            \
    (void) m;                                                                  \
    rk_uadd_strip_v (E, p, nrows, P, out, scratch);                            \
  }
TN_FOREACH_DTYPE (RK_AVX2_S)

#define RK_AVX2_FS(E, name)                                                    \
  static void rk_fsum_strip_v_##name (const char *p, int64_t nrows, int64_t P, \
      const double *m, tn_rpart *out, void *scratch)                           \
  {                                                                            \
    (void) m;                                                                  \
    rk_fsum_strip_v (E, p, nrows, P, out, scratch);                            \
  }
RK_AVX2_FS (TN_FLOAT16, float16)
RK_AVX2_FS (TN_BFLOAT16, bfloat16)
RK_AVX2_FS (TN_FLOAT32, float32)

/* min/max/argmin/argmax of float dtypes, columns: exact, row after row
 * over the columns' state in scratch, eight (float64: four) columns per
 * vector; the last columns one by one. */
RK_V void
rk_fext_cols_v (tn_dtype t, int is_max, int arg, const char *base,
    const int64_t *roff, int64_t nrows, int64_t row0, int64_t nc, tn_rpart *out,
    void *scratch)
{
  const size_t isz = tn_dtype_size (t);
  const int w = t == TN_FLOAT64 ? 4 : 8;
  const int64_t nv = nc / w * w;
  const double init = is_max ? -INFINITY : INFINITY;
  /* Vector part: best, NaN mask, row of the best; tail: the same in
   * float64/int64. */
  char *sc = scratch;
  void *vb = sc, *vn = sc + 8 * rk_pad (nc), *vi = sc + 16 * rk_pad (nc);
  double tb[8];
  int64_t tn[8], ti[8];

  for (int64_t r = 0; r < nrows; r++) {
    const char *row = base + roff[r] * isz;
    int64_t c;

    if (w == 8) {
      float *bb = vb, *nn = vn;
      int32_t *ii = vi;

      for (c = 0; c < nv; c += 8) {
        __m256 x = rk8_f (t, row, c);
        __m256 isn = _mm256_cmp_ps (x, x, _CMP_UNORD_Q), b, n;

        if (r == 0) {
          b = arg ? x
                  : _mm256_blendv_ps (x, _mm256_set1_ps ((float) init), isn);
          n = isn;
          _mm256_storeu_si256 ((__m256i *) (ii + c), _mm256_setzero_si256 ());
        } else {
          b = _mm256_loadu_ps (bb + c);
          n = _mm256_loadu_ps (nn + c);
          if (arg) {
            __m256 g = is_max ? _mm256_cmp_ps (x, b, _CMP_GT_OQ)
                              : _mm256_cmp_ps (b, x, _CMP_GT_OQ);
            __m256 take = _mm256_andnot_ps (n, _mm256_or_ps (g, isn));
            __m256i ix = _mm256_loadu_si256 ((const __m256i *) (ii + c));

            b = _mm256_blendv_ps (b, x, take);
            ix = _mm256_blendv_epi8 (ix, _mm256_set1_epi32 ((int32_t) r),
                _mm256_castps_si256 (take));
            _mm256_storeu_si256 ((__m256i *) (ii + c), ix);
          } else {
            b = rk8_ext (is_max, b, x);
          }
          n = _mm256_or_ps (n, isn);
        }
        _mm256_storeu_ps (bb + c, b);
        _mm256_storeu_ps (nn + c, n);
      }
    } else {
      double *bb = vb, *nn = vn;
      int64_t *ii = vi;

      for (c = 0; c < nv; c += 4) {
        __m256d x = _mm256_loadu_pd ((const double *) row + c);
        __m256d isn = _mm256_cmp_pd (x, x, _CMP_UNORD_Q), b, n;

        if (r == 0) {
          b = arg ? x : _mm256_blendv_pd (x, _mm256_set1_pd (init), isn);
          n = isn;
          _mm256_storeu_si256 ((__m256i *) (ii + c), _mm256_setzero_si256 ());
        } else {
          b = _mm256_loadu_pd (bb + c);
          n = _mm256_loadu_pd (nn + c);
          if (arg) {
            __m256d g = is_max ? _mm256_cmp_pd (x, b, _CMP_GT_OQ)
                               : _mm256_cmp_pd (b, x, _CMP_GT_OQ);
            __m256d take = _mm256_andnot_pd (n, _mm256_or_pd (g, isn));
            __m256d ix = _mm256_loadu_pd ((const double *) (ii + c));

            b = _mm256_blendv_pd (b, x, take);
            ix = _mm256_blendv_pd (
                ix, _mm256_castsi256_pd (_mm256_set1_epi64x (r)), take);
            _mm256_storeu_pd ((double *) (ii + c), ix);
          } else {
            b = rk4_ext (is_max, b, x);
          }
          n = _mm256_or_pd (n, isn);
        }
        _mm256_storeu_pd (bb + c, b);
        _mm256_storeu_pd (nn + c, n);
      }
    }
    for (c = nv; c < nc; c++) {
      double x = rk_ld_d (t, row, c);
      int k = (int) (c - nv);

      if (r == 0) {
        tn[k] = x != x;
        tb[k] = !arg && tn[k] ? init : x;
        ti[k] = 0;
      } else if (arg) {
        if (!tn[k] && (x != x || (is_max ? x > tb[k] : x < tb[k]))) {
          tb[k] = x;
          ti[k] = r;
        }
        tn[k] |= x != x;
      } else {
        if (x == x)
          tb[k] = is_max ? rk_fmax (tb[k], x) : rk_fmin (tb[k], x);
        tn[k] |= x != x;
      }
    }
  }
  for (int64_t c = 0; c < nc; c++) {
    double b;
    int64_t n, ix;

    if (c >= nv) {
      b = tb[c - nv];
      n = tn[c - nv];
      ix = ti[c - nv];
    } else if (w == 8) {
      uint32_t u;

      b = ((float *) vb)[c];
      memcpy (&u, (float *) vn + c, 4);
      n = u != 0;
      ix = ((int32_t *) vi)[c];
    } else {
      uint64_t u;

      b = ((double *) vb)[c];
      memcpy (&u, (double *) vn + c, 8);
      n = u != 0;
      ix = ((int64_t *) vi)[c];
    }
    out[c].v.d = arg && n ? NAN : b;
    out[c].nan = n;
    out[c].idx = arg ? row0 + ix : -1;
  }
}

#define RK_AVX2_X(E, name)                                                     \
  static void rk_min_cols_v_##name (const char *base, const int64_t *roff,     \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) m;                                                                  \
    rk_fext_cols_v (E, 0, 0, base, roff, nrows, row0, nc, out, scratch);       \
  }                                                                            \
  static void rk_max_cols_v_##name (const char *base, const int64_t *roff,     \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) m;                                                                  \
    rk_fext_cols_v (E, 1, 0, base, roff, nrows, row0, nc, out, scratch);       \
  }                                                                            \
  static void rk_argmin_cols_v_##name (const char *base, const int64_t *roff,  \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) m;                                                                  \
    rk_fext_cols_v (E, 0, 1, base, roff, nrows, row0, nc, out, scratch);       \
  }                                                                            \
  static void rk_argmax_cols_v_##name (const char *base, const int64_t *roff,  \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) m;                                                                  \
    rk_fext_cols_v (E, 1, 1, base, roff, nrows, row0, nc, out, scratch);       \
  }
RK_AVX2_X (TN_FLOAT16, float16)
RK_AVX2_X (TN_BFLOAT16, bfloat16)
RK_AVX2_X (TN_FLOAT32, float32)
RK_AVX2_X (TN_FLOAT64, float64)

/* 8 items at p + i of an integer dtype of up to 32 bits as int32 keys in
 * the items' order (uint32 shifted down by 2^31; bool as 0 or 1). */
RK_V __m256i
rk8_key (tn_dtype t, const void *p, int64_t i)
{
  const char *q = p;

  switch (t) {
  case TN_INT8:
    return _mm256_cvtepi8_epi32 (_mm_loadl_epi64 ((const __m128i *) (q + i)));
  case TN_UINT8:
    return _mm256_cvtepu8_epi32 (_mm_loadl_epi64 ((const __m128i *) (q + i)));
  case TN_INT16:
    return _mm256_cvtepi16_epi32 (
        _mm_loadu_si128 ((const __m128i *) (q + 2 * i)));
  case TN_UINT16:
    return _mm256_cvtepu16_epi32 (
        _mm_loadu_si128 ((const __m128i *) (q + 2 * i)));
  case TN_INT32:
    return _mm256_loadu_si256 ((const __m256i *) (q + 4 * i));
  case TN_UINT32:
    return _mm256_xor_si256 (_mm256_loadu_si256 ((const __m256i *) (q + 4 * i)),
        _mm256_set1_epi32 (INT32_MIN));
  default: /* bool */
    return _mm256_min_epu32 (
        _mm256_cvtepu8_epi32 (_mm_loadl_epi64 ((const __m128i *) (q + i))),
        _mm256_set1_epi32 (1));
  }
}

/* argmin/argmax of integers up to 32 bits, rows: as rk_farg_inner_v, with
 * exact keys and no NaN. */
RK_V void
rk_iarg_inner_v (tn_dtype t, int is_max, const void *p, int64_t n,
    int64_t first, tn_rpart *out)
{
  for (int64_t b = 0; b < n; b += TN_RK_BLOCK, out++) {
    int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n, i = b + 1, bi = b;
    int64_t best;

    if (e - b >= 16) {
      __m256i v0 = rk8_key (t, p, b), v1 = rk8_key (t, p, b + 8);
      __m256i i0 = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7);
      __m256i i1 = _mm256_add_epi32 (i0, _mm256_set1_epi32 (8));
      __m256i cur0 = _mm256_add_epi32 (i0, _mm256_set1_epi32 (16));
      __m256i cur1 = _mm256_add_epi32 (i1, _mm256_set1_epi32 (16));
      const __m256i step = _mm256_set1_epi32 (16);
      int32_t bv[16], bx[16];

      for (i = b + 16; i + 16 <= e; i += 16) {
        __m256i x0 = rk8_key (t, p, i), x1 = rk8_key (t, p, i + 8);
        __m256i g0 = is_max ? _mm256_cmpgt_epi32 (x0, v0)
                            : _mm256_cmpgt_epi32 (v0, x0);
        __m256i g1 = is_max ? _mm256_cmpgt_epi32 (x1, v1)
                            : _mm256_cmpgt_epi32 (v1, x1);

        v0 = _mm256_blendv_epi8 (v0, x0, g0);
        v1 = _mm256_blendv_epi8 (v1, x1, g1);
        i0 = _mm256_blendv_epi8 (i0, cur0, g0);
        i1 = _mm256_blendv_epi8 (i1, cur1, g1);
        cur0 = _mm256_add_epi32 (cur0, step);
        cur1 = _mm256_add_epi32 (cur1, step);
      }
      _mm256_storeu_si256 ((__m256i *) bv, v0);
      _mm256_storeu_si256 ((__m256i *) (bv + 8), v1);
      _mm256_storeu_si256 ((__m256i *) bx, i0);
      _mm256_storeu_si256 ((__m256i *) (bx + 8), i1);
      bi = b + bx[0];
      for (int k = 1, bk = bv[0]; k < 16; k++) {
        if ((is_max ? bv[k] > bk : bv[k] < bk)
            || (bv[k] == bk && b + bx[k] < bi)) {
          bk = bv[k];
          bi = b + bx[k];
        }
      }
    }
    best = rk_key (t, p, bi);
    for (; i < e; i++) {
      int64_t x = rk_key (t, p, i);

      if (is_max ? x > best : x < best) {
        best = x;
        bi = i;
      }
    }
    out->v.i = best;
    out->nan = 0;
    out->idx = first + bi;
  }
}

#define RK_AVX2_IA(E, name)                                                    \
  static void rk_argmin_inner_v_##name (                                       \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) m;                                                                  \
    rk_iarg_inner_v (E, 0, p, n, first, out);                                  \
  }                                                                            \
  static void rk_argmax_inner_v_##name (                                       \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) m;                                                                  \
    rk_iarg_inner_v (E, 1, p, n, first, out);                                  \
  }
RK_AVX2_IA (TN_BOOL, bool)
RK_AVX2_IA (TN_INT8, int8)
RK_AVX2_IA (TN_UINT8, uint8)
RK_AVX2_IA (TN_INT16, int16)
RK_AVX2_IA (TN_UINT16, uint16)
RK_AVX2_IA (TN_INT32, int32)
RK_AVX2_IA (TN_UINT32, uint32)

/* The AVX2 table: the template's clone, with these in place. */
static void
rk_fill_avx2_v (tn_rk_table *tb)
{
  rk_fill_avx2 (tb);
#define RK_SET_V(E, name, ctype, kind)                                         \
  if (rk_has4_d (E)) {                                                         \
    if (kind == TN_KIND_FLOAT) {                                               \
      tb->inner[TN_RK_DADD][E] = rk_dadd_inner_v_##name;                       \
      tb->cols[TN_RK_DADD][E] = rk_dadd_cols_v_##name;                         \
      tb->inner[TN_RK_DMUL][E] = rk_dmul_inner_v_##name;                       \
      tb->cols[TN_RK_DMUL][E] = rk_dmul_cols_v_##name;                         \
    }                                                                          \
    tb->inner[TN_RK_DSQ][E] = rk_dsq_inner_v_##name;                           \
    tb->cols[TN_RK_DSQ][E] = rk_dsq_cols_v_##name;                             \
    tb->inner[TN_RK_DDEV][E] = rk_ddev_inner_v_##name;                         \
    tb->cols[TN_RK_DDEV][E] = rk_ddev_cols_v_##name;                           \
  }                                                                            \
  if (rk_has4_d (E)) {                                                         \
    if (kind == TN_KIND_FLOAT) {                                               \
      tb->strip[TN_RK_DADD][E] = rk_dadd_strip_v_##name;                       \
      tb->strip[TN_RK_DMUL][E] = rk_dmul_strip_v_##name;                       \
    }                                                                          \
    tb->strip[TN_RK_DSQ][E] = rk_dsq_strip_v_##name;                           \
    tb->strip[TN_RK_DDEV][E] = rk_ddev_strip_v_##name;                         \
  }                                                                            \
  if (kind != TN_KIND_FLOAT && tn_dtype_size (E) <= 2)                         \
    tb->strip[TN_RK_UADD][E] = rk_uadd_strip_v_##name;                         \
  if (kind != TN_KIND_FLOAT)                                                   \
    tb->inner[TN_RK_UADD][E] = rk_uadd_inner_v_##name;
  TN_FOREACH_DTYPE (RK_SET_V)
#undef RK_SET_V
#define RK_SET_F(E, name)                                                      \
  tb->inner[TN_RK_FSUM][E] = rk_fsum_inner_v_##name;                           \
  tb->cols[TN_RK_FSUM][E] = rk_fsum_cols_v_##name;                             \
  tb->inner[TN_RK_MIN][E] = rk_min_inner_v_##name;                             \
  tb->inner[TN_RK_MAX][E] = rk_max_inner_v_##name;                             \
  tb->inner[TN_RK_ARGMIN][E] = rk_argmin_inner_v_##name;                       \
  tb->inner[TN_RK_ARGMAX][E] = rk_argmax_inner_v_##name;
  RK_SET_F (TN_FLOAT16, float16)
  RK_SET_F (TN_BFLOAT16, bfloat16)
  RK_SET_F (TN_FLOAT32, float32)
#undef RK_SET_F
  tb->strip[TN_RK_FSUM][TN_FLOAT16] = rk_fsum_strip_v_float16;
  tb->strip[TN_RK_FSUM][TN_BFLOAT16] = rk_fsum_strip_v_bfloat16;
  tb->strip[TN_RK_FSUM][TN_FLOAT32] = rk_fsum_strip_v_float32;
#define RK_SET_IA(E, name)                                                     \
  tb->inner[TN_RK_ARGMIN][E] = rk_argmin_inner_v_##name;                       \
  tb->inner[TN_RK_ARGMAX][E] = rk_argmax_inner_v_##name;
  RK_SET_IA (TN_BOOL, bool)
  RK_SET_IA (TN_INT8, int8)
  RK_SET_IA (TN_UINT8, uint8)
  RK_SET_IA (TN_INT16, int16)
  RK_SET_IA (TN_UINT16, uint16)
  RK_SET_IA (TN_INT32, int32)
  RK_SET_IA (TN_UINT32, uint32)
#undef RK_SET_IA
#define RK_SET_X(E, name)                                                      \
  tb->cols[TN_RK_MIN][E] = rk_min_cols_v_##name;                               \
  tb->cols[TN_RK_MAX][E] = rk_max_cols_v_##name;                               \
  tb->cols[TN_RK_ARGMIN][E] = rk_argmin_cols_v_##name;                         \
  tb->cols[TN_RK_ARGMAX][E] = rk_argmax_cols_v_##name;
  RK_SET_X (TN_FLOAT16, float16)
  RK_SET_X (TN_BFLOAT16, bfloat16)
  RK_SET_X (TN_FLOAT32, float32)
  RK_SET_X (TN_FLOAT64, float64)
#undef RK_SET_X
  tb->inner[TN_RK_MIN][TN_FLOAT64] = rk_min_inner_v_float64;
  tb->inner[TN_RK_MAX][TN_FLOAT64] = rk_max_inner_v_float64;
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

int
tn_rk_have_avx2 (void)
{
#ifdef TN_RK_X86
  __builtin_cpu_init ();
  return __builtin_cpu_supports ("avx2") && tn_half_have_f16c ();
#else
  return 0;
#endif
}

static tn_rk_table rk_tables[2]; /* portable, AVX2 */
static pthread_once_t rk_once = PTHREAD_ONCE_INIT;
static atomic_int rk_impl = -1;

static void
rk_init (void)
{
  rk_fill_portable (&rk_tables[0]);
#ifdef TN_RK_X86
  rk_fill_avx2_v (&rk_tables[1]);
#else
  rk_tables[1] = rk_tables[0];
#endif
}

tn_rk_impl
tn_rk_set_impl (tn_rk_impl impl)
{
  tn_rk_impl r = TN_RK_IMPL_PORTABLE;

  pthread_once (&rk_once, rk_init);
  if (impl != TN_RK_IMPL_PORTABLE && tn_rk_have_avx2 ())
    r = TN_RK_IMPL_AVX2;
  atomic_store_explicit (&rk_impl, (int) r, memory_order_relaxed);
  return r;
}

const tn_rk_table *
tn_rk_table_get (void)
{
  int v = atomic_load_explicit (&rk_impl, memory_order_relaxed);

  if (v < 0)
    v = (int) tn_rk_set_impl (TN_RK_IMPL_AUTO);
  return &rk_tables[v == TN_RK_IMPL_AVX2];
}
