/* Hand-vectorised AVX2 extremes: min, max, argmin and argmax of the float
 * dtypes as rows and columns, argmin and argmax of the narrow integers as
 * rows. */
#include "reduce-avx2.h"

#include <math.h>

/* min/max of float dtypes, rows: IEEE 754-2019 minimum/maximum of the
 * numbers (min(x, a) | min(a, x) takes -0.0 from either side; max ands
 * the sign away), NaN flagged apart; both order-free, so lanes are free. */
RK_INLINE __m256
rk8_ext (int is_max, __m256 a, __m256 x)
{
  if (is_max)
    return _mm256_and_ps (_mm256_max_ps (x, a), _mm256_max_ps (a, x));
  return _mm256_or_ps (_mm256_min_ps (x, a), _mm256_min_ps (a, x));
}

RK_INLINE __m256d
rk4_ext (int is_max, __m256d a, __m256d x)
{
  if (is_max)
    return _mm256_and_pd (_mm256_max_pd (x, a), _mm256_max_pd (a, x));
  return _mm256_or_pd (_mm256_min_pd (x, a), _mm256_min_pd (a, x));
}

RK_INLINE void
rk_fext_rows_v (tn_dtype t, int is_max, const void *p, int64_t n, tn_rpart *out)
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

/* The first of items p[i0..e) (a multiple of 8 from i0 on, then the last
 * 8 of them) equal to m (-0.0 and +0.0 alike); one is. */
RK_INLINE int64_t
rk_farg_find (tn_dtype t, const void *p, int64_t i0, int64_t e, __m256 m)
{
  int64_t i = i0;

  for (; i + 32 <= e; i += 32) {
    __m256 q0 = _mm256_cmp_ps (rk8_f (t, p, i), m, _CMP_EQ_OQ);
    __m256 q1 = _mm256_cmp_ps (rk8_f (t, p, i + 8), m, _CMP_EQ_OQ);
    __m256 q2 = _mm256_cmp_ps (rk8_f (t, p, i + 16), m, _CMP_EQ_OQ);
    __m256 q3 = _mm256_cmp_ps (rk8_f (t, p, i + 24), m, _CMP_EQ_OQ);

    if (!_mm256_testz_ps (
            _mm256_or_ps (_mm256_or_ps (q0, q1), _mm256_or_ps (q2, q3)),
            _mm256_castsi256_ps (_mm256_set1_epi32 (-1))))
      break;
  }
  for (; i < e; i = i + 8 <= e ? i + 8 : e) {
    int64_t at = i + 8 <= e ? i : e - 8;
    int hit
        = _mm256_movemask_ps (_mm256_cmp_ps (rk8_f (t, p, at), m, _CMP_EQ_OQ));

    if (hit)
      return at + __builtin_ctz ((unsigned) hit);
  }
  return e - 1; /* not reached: m is one of the items */
}

/* argmin/argmax of float16/bfloat16/float32, rows: the first index of
 * the extreme, or of the first NaN.  A block of 8 items or more in two
 * passes: its extreme m, by max (min) alone in 32 lanes (four chains of
 * 8, so a chain waits on one max a step), then the first item equal to
 * m, from the start (the block is in L1 by then).  Each lane's max is
 * its greatest item whatever the order (NaN aside: a block with a NaN
 * is scanned again for its first NaN), and -0.0 and +0.0 compare equal
 * in the search, as in the scalar steps: the same index as a scan for
 * the first strict extreme, in fewer operations (before: a compare, a
 * max or blend and an index blend per 8 items, where Golden Cove's
 * vpblendvb is 3 micro-ops; now a max per 8 items, and about half the
 * block compared once more). */
RK_INLINE void
rk_farg_rows_v (tn_dtype t, int is_max, const void *p, int64_t n, tn_rpart *out)
{
  for (int64_t b = 0; b < n; b += TN_RK_BLOCK, out++) {
    int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n, i = b, bi = b;
    double best = NAN;
    int nan = 0;

    if (e - b >= 8) {
      /* chain j holds items 8 j .. 8 j + 7 of each step of 32; a block
       * of fewer than 32 starts the chains it cannot fill with chain 0's
       * items */
      const int64_t nl = (e - b) / 8 < 4 ? (e - b) / 8 : 4;
      const int64_t sz = (int64_t) tn_dtype_size (t);
      __m256 v[4], nn, m;

      for (int j = 0; j < 4; j++)
        v[j] = rk8_f (t, p, b + (j < nl ? 8 * j : 0));
      nn = _mm256_or_ps (_mm256_cmp_ps (v[0], v[1], _CMP_UNORD_Q),
          _mm256_cmp_ps (v[2], v[3], _CMP_UNORD_Q));
      for (i = b + 8 * nl; i + 32 <= e; i += 32) {
        __m256 x[4];

        rk_prefetch_ahead ((const char *) p + i * sz, 32 * sz);
        for (int j = 0; j < 4; j++) {
          x[j] = rk8_f (t, p, i + 8 * j);
          v[j] = is_max ? _mm256_max_ps (x[j], v[j])
                        : _mm256_min_ps (x[j], v[j]);
        }
        nn = _mm256_or_ps (
            nn, _mm256_or_ps (_mm256_cmp_ps (x[0], x[1], _CMP_UNORD_Q),
                    _mm256_cmp_ps (x[2], x[3], _CMP_UNORD_Q)));
      }
      /* the last whole groups of 8, then the last 8 items (again some
       * seen already, which changes no extreme) */
      for (; i < e; i = i + 8 <= e ? i + 8 : e) {
        __m256 x = rk8_f (t, p, i + 8 <= e ? i : e - 8);

        v[0] = is_max ? _mm256_max_ps (x, v[0]) : _mm256_min_ps (x, v[0]);
        nn = _mm256_or_ps (nn, _mm256_cmp_ps (x, x, _CMP_UNORD_Q));
      }
      nan = _mm256_movemask_ps (nn) != 0;
      if (!nan) {
        m = is_max ? _mm256_max_ps (
                _mm256_max_ps (v[0], v[1]), _mm256_max_ps (v[2], v[3]))
                   : _mm256_min_ps (
                       _mm256_min_ps (v[0], v[1]), _mm256_min_ps (v[2], v[3]));
        for (int sh = 0; sh < 3; sh++) {
          __m256 o = sh == 0   ? _mm256_permute2f128_ps (m, m, 1)
                     : sh == 1 ? _mm256_permute_ps (m, 0x4e)
                               : _mm256_permute_ps (m, 0xb1);

          m = is_max ? _mm256_max_ps (m, o) : _mm256_min_ps (m, o);
        }
        bi = rk_farg_find (t, p, b, e, m);
        /* the item itself, not m: where -0.0 and +0.0 tie, m may be
         * the other zero than the one at bi */
        best = rk_ld_d (t, p, bi);
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
    out->idx = bi;
  }
}

/* min/max/argmin/argmax of float dtypes, columns: exact, row after row
 * over the columns' state in scratch, eight (float64: four) columns per
 * vector; the last columns one by one. */
RK_INLINE void
rk_fext_cols_v (tn_dtype t, int is_max, int arg, const char *base,
    const int64_t *roff, int64_t nrows, int64_t nc, tn_rpart *out,
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
    out[c].idx = arg ? ix : -1;
  }
}

/* 8 items at p + i of an integer dtype of up to 32 bits as int32 keys in
 * the items' order (uint32 shifted down by 2^31; bool as 0 or 1). */
RK_INLINE __m256i
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

/* argmin/argmax of integers up to 32 bits, rows: as rk_farg_rows_v, with
 * exact keys and no NaN. */
RK_INLINE void
rk_iarg_rows_v (tn_dtype t, int is_max, const void *p, int64_t n, tn_rpart *out)
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
    out->idx = bi;
  }
}

/* The entries, one per (kind, dtype). */
#define RK_V_FARG(E, name)                                                     \
  static void argmin_rows_v_##name (const void *p, int64_t n, tn_rpart *out)   \
  {                                                                            \
    rk_farg_rows_v (E, 0, p, n, out);                                          \
  }                                                                            \
  static void argmax_rows_v_##name (const void *p, int64_t n, tn_rpart *out)   \
  {                                                                            \
    rk_farg_rows_v (E, 1, p, n, out);                                          \
  }
RK_V_FARG (TN_FLOAT16, float16)
RK_V_FARG (TN_BFLOAT16, bfloat16)
RK_V_FARG (TN_FLOAT32, float32)

/* min/max rows and the four extremes' columns of every float dtype. */
#define RK_V_FEXT(E, name)                                                     \
  static void min_rows_v_##name (const void *p, int64_t n, tn_rpart *out)      \
  {                                                                            \
    rk_fext_rows_v (E, 0, p, n, out);                                          \
  }                                                                            \
  static void max_rows_v_##name (const void *p, int64_t n, tn_rpart *out)      \
  {                                                                            \
    rk_fext_rows_v (E, 1, p, n, out);                                          \
  }                                                                            \
  static void min_cols_v_##name (const char *base, const int64_t *roff,        \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    rk_fext_cols_v (E, 0, 0, base, roff, nrows, nc, out, scratch);             \
  }                                                                            \
  static void max_cols_v_##name (const char *base, const int64_t *roff,        \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    rk_fext_cols_v (E, 1, 0, base, roff, nrows, nc, out, scratch);             \
  }                                                                            \
  static void argmin_cols_v_##name (const char *base, const int64_t *roff,     \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    rk_fext_cols_v (E, 0, 1, base, roff, nrows, nc, out, scratch);             \
  }                                                                            \
  static void argmax_cols_v_##name (const char *base, const int64_t *roff,     \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    rk_fext_cols_v (E, 1, 1, base, roff, nrows, nc, out, scratch);             \
  }
RK_V_FEXT (TN_FLOAT16, float16)
RK_V_FEXT (TN_BFLOAT16, bfloat16)
RK_V_FEXT (TN_FLOAT32, float32)
RK_V_FEXT (TN_FLOAT64, float64)

/* argmin/argmax rows of bool and the integers up to 32 bits. */
#define RK_V_IARG(E, name)                                                     \
  static void argmin_rows_v_##name (const void *p, int64_t n, tn_rpart *out)   \
  {                                                                            \
    rk_iarg_rows_v (E, 0, p, n, out);                                          \
  }                                                                            \
  static void argmax_rows_v_##name (const void *p, int64_t n, tn_rpart *out)   \
  {                                                                            \
    rk_iarg_rows_v (E, 1, p, n, out);                                          \
  }
RK_V_IARG (TN_BOOL, bool)
RK_V_IARG (TN_INT8, int8)
RK_V_IARG (TN_UINT8, uint8)
RK_V_IARG (TN_INT16, int16)
RK_V_IARG (TN_UINT16, uint16)
RK_V_IARG (TN_INT32, int32)
RK_V_IARG (TN_UINT32, uint32)

#define RK_SET_FARG(E, name)                                                   \
  RK_SET_ROWS (TN_RK_ARGMIN, argmin, E, name);                                 \
  RK_SET_ROWS (TN_RK_ARGMAX, argmax, E, name)
#define RK_SET_FEXT(E, name)                                                   \
  RK_SET_ROWS (TN_RK_MIN, min, E, name);                                       \
  RK_SET_ROWS (TN_RK_MAX, max, E, name);                                       \
  RK_SET_COLS (TN_RK_MIN, min, E, name);                                       \
  RK_SET_COLS (TN_RK_MAX, max, E, name);                                       \
  RK_SET_COLS (TN_RK_ARGMIN, argmin, E, name);                                 \
  RK_SET_COLS (TN_RK_ARGMAX, argmax, E, name)
#define RK_SET_IARG(E, name)                                                   \
  RK_SET_ROWS (TN_RK_ARGMIN, argmin, E, name);                                 \
  RK_SET_ROWS (TN_RK_ARGMAX, argmax, E, name)

/* Over the template's AVX2 table: the extremes of integers (but the rows
 * of argmin and argmax up to 32 bits) stay the template's. */
void
tn_rk_init_avx2_ext (tn_reduce_dsp *dsp)
{
  RK_SET_FARG (TN_FLOAT16, float16);
  RK_SET_FARG (TN_BFLOAT16, bfloat16);
  RK_SET_FARG (TN_FLOAT32, float32);
  RK_SET_FEXT (TN_FLOAT16, float16);
  RK_SET_FEXT (TN_BFLOAT16, bfloat16);
  RK_SET_FEXT (TN_FLOAT32, float32);
  RK_SET_FEXT (TN_FLOAT64, float64);
  RK_SET_IARG (TN_BOOL, bool);
  RK_SET_IARG (TN_INT8, int8);
  RK_SET_IARG (TN_UINT8, uint8);
  RK_SET_IARG (TN_INT16, int16);
  RK_SET_IARG (TN_UINT16, uint16);
  RK_SET_IARG (TN_INT32, int32);
  RK_SET_IARG (TN_UINT32, uint32);
}
