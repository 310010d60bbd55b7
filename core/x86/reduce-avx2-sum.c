/* Hand-vectorised AVX2 sums: float64 lanes (sums, products, squares,
 * squared deviations), the float32 halves of the narrow float sums, and
 * integer sums; as rows, columns and strips. */
#include "reduce-avx2.h"

/* 4 items at p + i as float64 (exact), for every dtype but uint32, int64
 * and uint64 (no AVX2 conversion of them to float64). */
RK_INLINE __m256d
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

RK_INLINE __m256d
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

RK_INLINE __m256d
rk4_fold (tn_rk_kind kind, __m256d s, __m256d lane)
{
  return kind == TN_RK_DMUL ? _mm256_mul_pd (s, lane) : _mm256_add_pd (s, lane);
}

/* Float64 lanes, rows: 8 accumulators of 4 lanes; the folds of the
 * lanes of up to 8 blocks run side by side (see rk_fsum_rows_v). */
#define RK_GROUP 8

RK_INLINE void
rk_dacc_rows_v (tn_dtype t, tn_rk_kind kind, const void *p, int64_t n, double m,
    tn_rpart *out)
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
RK_INLINE void
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

RK_INLINE void
rk_fsum_rows_v (tn_dtype t, const void *p, int64_t n, tn_rpart *out)
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
 * float32 accumulator per column, four rows per pass over the columns.
 * The arrays of nc columns live in L2 for wide tiles, so each pass that
 * only resets or moves them costs: the first pass of a half starts its
 * accumulators at -0.0 in registers, and as a lane has at most two halves
 * (TN_RK_BLOCK = 2 TN_RK_HALF) its float64 sum -0.0 + f0 + f1 is formed
 * in registers as it is added to the block's, with no array of lanes
 * (nrows is at most TN_RK_BLOCK, as for every columns entry)
 * (the sum along axis 0 of <4096,4096> float32 on the Xeon of session
 * 19: 0.82-0.84 -> 0.90-0.91 of a read pass of the same bytes). */
_Static_assert(TN_RK_BLOCK == 2 * TN_RK_HALF, "a lane has two halves");

RK_INLINE void
rk_fsum_cols_v (tn_dtype t, const char *base, const int64_t *roff,
    int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)
{
  const size_t isz = tn_dtype_size (t);
  double *bs = scratch;
  float *f0 = (float *) (bs + rk_pad (nc)), *f1 = f0 + rk_pad (nc);
  int64_t c;

  for (c = 0; c < nc; c++)
    bs[c] = -0.0;
  for (int64_t l = 0; l < TN_RK_LANES && l < nrows; l++) {
    int two = TN_RK_HALF + l < nrows;

    for (int64_t h = 0; h + l < nrows; h += TN_RK_HALF) {
      int64_t he = h + TN_RK_HALF < nrows ? h + TN_RK_HALF : nrows;
      float *f = h ? f1 : f0;

      for (int64_t r = h + l; r < he; r += 4 * TN_RK_LANES) {
        const char *row[4];
        int k, nr = 0, first = r == h + l;

        for (k = 0; k < 4 && r + k * TN_RK_LANES < he; k++, nr++)
          row[k] = base + roff[r + k * TN_RK_LANES] * isz;
        c = 0;
        /* the half's accumulators start at -0.0, in registers */
        if (nr == 4) {
          for (; c + 8 <= nc; c += 8) {
            __m256 a = first ? _mm256_set1_ps (-0.0f) : _mm256_loadu_ps (f + c);

            a = _mm256_add_ps (a, rk8_f (t, row[0], c));
            a = _mm256_add_ps (a, rk8_f (t, row[1], c));
            a = _mm256_add_ps (a, rk8_f (t, row[2], c));
            a = _mm256_add_ps (a, rk8_f (t, row[3], c));
            _mm256_storeu_ps (f + c, a);
          }
        } else {
          for (; c + 8 <= nc; c += 8) {
            __m256 a = first ? _mm256_set1_ps (-0.0f) : _mm256_loadu_ps (f + c);

            for (k = 0; k < nr; k++)
              a = _mm256_add_ps (a, rk8_f (t, row[k], c));
            _mm256_storeu_ps (f + c, a);
          }
        }
        for (; c < nc; c++) {
          if (first)
            f[c] = -0.0f;
          for (k = 0; k < nr; k++)
            f[c] += rk_ld_f (t, row[k], c);
        }
      }
    }
    /* -0.0 + (double) f0 is (double) f0, bit for bit */
    c = 0;
    if (two)
      for (; c + 4 <= nc; c += 4) {
        __m256d v = _mm256_add_pd (_mm256_cvtps_pd (_mm_loadu_ps (f0 + c)),
            _mm256_cvtps_pd (_mm_loadu_ps (f1 + c)));

        _mm256_storeu_pd (bs + c, _mm256_add_pd (_mm256_loadu_pd (bs + c), v));
      }
    else
      for (; c + 4 <= nc; c += 4)
        _mm256_storeu_pd (bs + c, _mm256_add_pd (_mm256_loadu_pd (bs + c),
                                      _mm256_cvtps_pd (_mm_loadu_ps (f0 + c))));
    for (; c < nc; c++)
      bs[c] += two ? (double) f0[c] + (double) f1[c] : (double) f0[c];
  }
  for (c = 0; c < nc; c++)
    out[c].v.d = bs[c];
}

/* Integer sums, rows: exact, so any grouping will do. */
RK_INLINE uint64_t
rk_hsum64 (__m256i a)
{
  uint64_t v[4];

  _mm256_storeu_si256 ((__m256i *) v, a);
  return v[0] + v[1] + v[2] + v[3];
}

RK_INLINE void
rk_uadd_rows_v (tn_dtype t, const void *p, int64_t n, tn_rpart *out)
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

/* Narrow columns (strips), floats: slot j of the wide rows keeps its
 * float32 half-sum (or float64 fold) in a register while the rows of the
 * block stream past, 32 P items apart; slots past the last, partial row's
 * end take it item by item.  One group of G slots of 8 (j0 .. j0 + 8 G)
 * over rows r0 .. r1 of a half (rf: the whole ones): G independent chains
 * of additions, row after row, so that with every slot of a row in the
 * group (P <= 3) the rows are read in memory order. */
RK_INLINE void
rk_fsum_strip_group (tn_dtype t, const char *p, int64_t r0, int64_t rf,
    int64_t r1, int64_t W, int64_t rem, int64_t j0, int G, double *lane)
{
  __m256 a[12];

  for (int g = 0; g < G; g++)
    a[g] = _mm256_set1_ps (-0.0f);
  for (int64_t r = r0; r < rf; r++)
    for (int g = 0; g < G; g++)
      a[g] = _mm256_add_ps (a[g], rk8_f (t, p, r * W + j0 + 8 * g));
  for (int g = 0; g < G; g++) {
    int64_t j = j0 + 8 * g;
    float f[8];

    if (rf < r1) {
      if (j + 8 <= rem) {
        a[g] = _mm256_add_ps (a[g], rk8_f (t, p, rf * W + j));
      } else {
        _mm256_storeu_ps (f, a[g]);
        for (int64_t k = 0; k < 8 && j + k < rem; k++)
          f[k] += rk_ld_f (t, p, rf * W + j + k);
        a[g] = _mm256_loadu_ps (f);
      }
    }
    _mm256_storeu_pd (
        lane + j, _mm256_add_pd (_mm256_loadu_pd (lane + j),
                      _mm256_cvtps_pd (_mm256_castps256_ps128 (a[g]))));
    _mm256_storeu_pd (
        lane + j + 4, _mm256_add_pd (_mm256_loadu_pd (lane + j + 4),
                          _mm256_cvtps_pd (_mm256_extractf128_ps (a[g], 1))));
  }
}

/* The P columns' folds of their 32 lanes (lane l of column c at lane[l P
 * + c]), left to right: columns c .. c + 3 in one vector, so that the
 * chains of up to 32 columns run side by side in registers (in an array
 * on the stack, each addition waited for a store and a load: a third of
 * the time of the block's loads, during which no load of the next block
 * issued).  Reads lane[W .. W + 3] (set, not used). */
RK_INLINE void
rk_strip_fold (const double *lane, int64_t P, tn_rpart *out)
{
  const int nv = (int) ((P + 3) / 4);
  __m256d s[8];
  double f[32];

  for (int v = 0; v < 8; v++)
    s[v] = _mm256_set1_pd (-0.0);
  for (int l = 0; l < TN_RK_LANES; l++)
    for (int v = 0; v < 8; v++)
      if (v < nv)
        s[v] = _mm256_add_pd (s[v], _mm256_loadu_pd (lane + l * P + 4 * v));
  for (int v = 0; v < 8; v++)
    _mm256_storeu_pd (f + 4 * v, s[v]);
  for (int64_t c = 0; c < P; c++)
    out[c].v.d = f[c];
}

RK_INLINE void
rk_fsum_strip_v (tn_dtype t, const char *p, int64_t nrows, int64_t P,
    tn_rpart *out, void *scratch)
{
  const int64_t W = TN_RK_LANES * P, full = nrows / TN_RK_LANES;
  const int64_t rem = (nrows % TN_RK_LANES) * P, nr = full + (rem > 0);
  double *lane = scratch;

  for (int64_t j = 0; j < W + 4; j++)
    lane[j] = -0.0;
  for (int64_t h = 0; h * 16 < nr; h++) {
    int64_t r0 = h * 16, r1 = r0 + 16 < nr ? r0 + 16 : nr;
    /* Rows of this half that are whole; the partial one comes last. */
    int64_t rf = r1 < full ? r1 : full;

    /* W = 32 P: 4 P slots of 8; all of them at once up to P = 3 (12
     * registers), else four at a time. */
    if (P == 1)
      rk_fsum_strip_group (t, p, r0, rf, r1, W, rem, 0, 4, lane);
    else if (P == 2)
      rk_fsum_strip_group (t, p, r0, rf, r1, W, rem, 0, 8, lane);
    else if (P == 3)
      rk_fsum_strip_group (t, p, r0, rf, r1, W, rem, 0, 12, lane);
    else
      for (int64_t j0 = 0; j0 < W; j0 += 32)
        rk_fsum_strip_group (t, p, r0, rf, r1, W, rem, j0, 4, lane);
  }
  if (P == 3)
    rk_strip_fold (lane, 3, out);
  else
    rk_strip_fold (lane, P, out);
}

RK_INLINE void
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
RK_INLINE void
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
  for (int64_t c = 0; c < P; c++) {
    uint64_t s = 0;

    for (int l = 0; l < TN_RK_LANES; l++)
      s += acc[l * P + c];
    out[c].v.u = s;
  }
}

/* The entries, one per (kind, dtype): float64 lanes for every dtype rk4_d
 * reads, float32 halves for float16, bfloat16 and float32, integer sums
 * of rows of every integer dtype and of strips of 8- and 16-bit items. */
#define RK_V_DACC(K, k, E, name)                                               \
  static void k##_rows_v_##name (const void *p, int64_t n, tn_rpart *out)      \
  {                                                                            \
    rk_dacc_rows_v (E, K, p, n, 0.0, out);                                     \
  }                                                                            \
  static void k##_cols_v_##name (const char *base, const int64_t *roff,        \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    rk_dacc_cols_v (E, K, base, roff, nrows, nc, NULL, out, scratch);          \
  }                                                                            \
  static void k##_strip_v_##name (                                             \
      const char *p, int64_t nrows, int64_t P, tn_rpart *out, void *scratch)   \
  {                                                                            \
    rk_dacc_strip_v (E, K, p, nrows, P, NULL, out, scratch);                   \
  }
#define RK_V_DDEV(E, name)                                                     \
  static void ddev_rows_v_##name (                                             \
      const void *p, int64_t n, double m, tn_rpart *out)                       \
  {                                                                            \
    rk_dacc_rows_v (E, TN_RK_DDEV, p, n, m, out);                              \
  }                                                                            \
  static void ddev_cols_v_##name (const char *base, const int64_t *roff,       \
      int64_t nrows, int64_t nc, const double *m, tn_rpart *out,               \
      void *scratch)                                                           \
  {                                                                            \
    rk_dacc_cols_v (E, TN_RK_DDEV, base, roff, nrows, nc, m, out, scratch);    \
  }                                                                            \
  static void ddev_strip_v_##name (const char *p, int64_t nrows, int64_t P,    \
      const double *m, tn_rpart *out, void *scratch)                           \
  {                                                                            \
    rk_dacc_strip_v (E, TN_RK_DDEV, p, nrows, P, m, out, scratch);             \
  }
RK_V_DACC (TN_RK_DADD, dadd, TN_FLOAT16, float16)
RK_V_DACC (TN_RK_DADD, dadd, TN_BFLOAT16, bfloat16)
RK_V_DACC (TN_RK_DADD, dadd, TN_FLOAT32, float32)
RK_V_DACC (TN_RK_DADD, dadd, TN_FLOAT64, float64)
RK_V_DACC (TN_RK_DMUL, dmul, TN_FLOAT16, float16)
RK_V_DACC (TN_RK_DMUL, dmul, TN_BFLOAT16, bfloat16)
RK_V_DACC (TN_RK_DMUL, dmul, TN_FLOAT32, float32)
RK_V_DACC (TN_RK_DMUL, dmul, TN_FLOAT64, float64)
RK_V_DACC (TN_RK_DSQ, dsq, TN_BOOL, bool)
RK_V_DACC (TN_RK_DSQ, dsq, TN_INT8, int8)
RK_V_DACC (TN_RK_DSQ, dsq, TN_UINT8, uint8)
RK_V_DACC (TN_RK_DSQ, dsq, TN_INT16, int16)
RK_V_DACC (TN_RK_DSQ, dsq, TN_UINT16, uint16)
RK_V_DACC (TN_RK_DSQ, dsq, TN_INT32, int32)
RK_V_DACC (TN_RK_DSQ, dsq, TN_FLOAT16, float16)
RK_V_DACC (TN_RK_DSQ, dsq, TN_BFLOAT16, bfloat16)
RK_V_DACC (TN_RK_DSQ, dsq, TN_FLOAT32, float32)
RK_V_DACC (TN_RK_DSQ, dsq, TN_FLOAT64, float64)
RK_V_DDEV (TN_BOOL, bool)
RK_V_DDEV (TN_INT8, int8)
RK_V_DDEV (TN_UINT8, uint8)
RK_V_DDEV (TN_INT16, int16)
RK_V_DDEV (TN_UINT16, uint16)
RK_V_DDEV (TN_INT32, int32)
RK_V_DDEV (TN_FLOAT16, float16)
RK_V_DDEV (TN_BFLOAT16, bfloat16)
RK_V_DDEV (TN_FLOAT32, float32)
RK_V_DDEV (TN_FLOAT64, float64)

#define RK_V_FSUM(E, name)                                                     \
  static void fsum_rows_v_##name (const void *p, int64_t n, tn_rpart *out)     \
  {                                                                            \
    rk_fsum_rows_v (E, p, n, out);                                             \
  }                                                                            \
  static void fsum_cols_v_##name (const char *base, const int64_t *roff,       \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    rk_fsum_cols_v (E, base, roff, nrows, nc, out, scratch);                   \
  }                                                                            \
  static void fsum_strip_v_##name (                                            \
      const char *p, int64_t nrows, int64_t P, tn_rpart *out, void *scratch)   \
  {                                                                            \
    rk_fsum_strip_v (E, p, nrows, P, out, scratch);                            \
  }
RK_V_FSUM (TN_FLOAT16, float16)
RK_V_FSUM (TN_BFLOAT16, bfloat16)
RK_V_FSUM (TN_FLOAT32, float32)
#define RK_V_UADD(E, name)                                                     \
  static void uadd_rows_v_##name (const void *p, int64_t n, tn_rpart *out)     \
  {                                                                            \
    rk_uadd_rows_v (E, p, n, out);                                             \
  }
#define RK_V_UADD_STRIP(E, name)                                               \
  static void uadd_strip_v_##name (                                            \
      const char *p, int64_t nrows, int64_t P, tn_rpart *out, void *scratch)   \
  {                                                                            \
    rk_uadd_strip_v (E, p, nrows, P, out, scratch);                            \
  }
RK_V_UADD (TN_BOOL, bool)
RK_V_UADD (TN_INT8, int8)
RK_V_UADD (TN_UINT8, uint8)
RK_V_UADD (TN_INT16, int16)
RK_V_UADD (TN_UINT16, uint16)
RK_V_UADD (TN_INT32, int32)
RK_V_UADD (TN_UINT32, uint32)
RK_V_UADD (TN_INT64, int64)
RK_V_UADD (TN_UINT64, uint64)
RK_V_UADD_STRIP (TN_BOOL, bool)
RK_V_UADD_STRIP (TN_INT8, int8)
RK_V_UADD_STRIP (TN_UINT8, uint8)
RK_V_UADD_STRIP (TN_INT16, int16)
RK_V_UADD_STRIP (TN_UINT16, uint16)

#define RK_SET_DDEV(E, name)                                                   \
  dsp->dev_rows[E] = ddev_rows_v_##name;                                       \
  dsp->dev_cols[E] = ddev_cols_v_##name;                                       \
  dsp->dev_strip[E] = ddev_strip_v_##name

/* Over the template's AVX2 table: the products and squares of uint32,
 * int64 and uint64, the products of integers, the exact int128 sums and
 * the integer columns stay the template's. */
void
tn_rk_init_avx2_sum (tn_reduce_dsp *dsp)
{
  RK_SET_ALL (TN_RK_DADD, dadd, TN_FLOAT16, float16);
  RK_SET_ALL (TN_RK_DADD, dadd, TN_BFLOAT16, bfloat16);
  RK_SET_ALL (TN_RK_DADD, dadd, TN_FLOAT32, float32);
  RK_SET_ALL (TN_RK_DADD, dadd, TN_FLOAT64, float64);
  RK_SET_ALL (TN_RK_DMUL, dmul, TN_FLOAT16, float16);
  RK_SET_ALL (TN_RK_DMUL, dmul, TN_BFLOAT16, bfloat16);
  RK_SET_ALL (TN_RK_DMUL, dmul, TN_FLOAT32, float32);
  RK_SET_ALL (TN_RK_DMUL, dmul, TN_FLOAT64, float64);
  RK_SET_ALL (TN_RK_DSQ, dsq, TN_BOOL, bool);
  RK_SET_ALL (TN_RK_DSQ, dsq, TN_INT8, int8);
  RK_SET_ALL (TN_RK_DSQ, dsq, TN_UINT8, uint8);
  RK_SET_ALL (TN_RK_DSQ, dsq, TN_INT16, int16);
  RK_SET_ALL (TN_RK_DSQ, dsq, TN_UINT16, uint16);
  RK_SET_ALL (TN_RK_DSQ, dsq, TN_INT32, int32);
  RK_SET_ALL (TN_RK_DSQ, dsq, TN_FLOAT16, float16);
  RK_SET_ALL (TN_RK_DSQ, dsq, TN_BFLOAT16, bfloat16);
  RK_SET_ALL (TN_RK_DSQ, dsq, TN_FLOAT32, float32);
  RK_SET_ALL (TN_RK_DSQ, dsq, TN_FLOAT64, float64);
  RK_SET_DDEV (TN_BOOL, bool);
  RK_SET_DDEV (TN_INT8, int8);
  RK_SET_DDEV (TN_UINT8, uint8);
  RK_SET_DDEV (TN_INT16, int16);
  RK_SET_DDEV (TN_UINT16, uint16);
  RK_SET_DDEV (TN_INT32, int32);
  RK_SET_DDEV (TN_FLOAT16, float16);
  RK_SET_DDEV (TN_BFLOAT16, bfloat16);
  RK_SET_DDEV (TN_FLOAT32, float32);
  RK_SET_DDEV (TN_FLOAT64, float64);
  RK_SET_ROWS (TN_RK_UADD, uadd, TN_BOOL, bool);
  RK_SET_ROWS (TN_RK_UADD, uadd, TN_INT8, int8);
  RK_SET_ROWS (TN_RK_UADD, uadd, TN_UINT8, uint8);
  RK_SET_ROWS (TN_RK_UADD, uadd, TN_INT16, int16);
  RK_SET_ROWS (TN_RK_UADD, uadd, TN_UINT16, uint16);
  RK_SET_ROWS (TN_RK_UADD, uadd, TN_INT32, int32);
  RK_SET_ROWS (TN_RK_UADD, uadd, TN_UINT32, uint32);
  RK_SET_ROWS (TN_RK_UADD, uadd, TN_INT64, int64);
  RK_SET_ROWS (TN_RK_UADD, uadd, TN_UINT64, uint64);
  RK_SET_STRIP (TN_RK_UADD, uadd, TN_BOOL, bool);
  RK_SET_STRIP (TN_RK_UADD, uadd, TN_INT8, int8);
  RK_SET_STRIP (TN_RK_UADD, uadd, TN_UINT8, uint8);
  RK_SET_STRIP (TN_RK_UADD, uadd, TN_INT16, int16);
  RK_SET_STRIP (TN_RK_UADD, uadd, TN_UINT16, uint16);
  RK_SET_ALL (TN_RK_FSUM, fsum, TN_FLOAT16, float16);
  RK_SET_ALL (TN_RK_FSUM, fsum, TN_BFLOAT16, bfloat16);
  RK_SET_ALL (TN_RK_FSUM, fsum, TN_FLOAT32, float32);
}
