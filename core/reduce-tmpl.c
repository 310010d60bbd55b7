/* The reduction kernels in plain C, written once: compiled into core as
 * the portable kernels (tn_rk_fill_c) and again per ISA by meson with
 * TN_ISA set and that ISA's flags (tn_rk_fill_avx2: the same loops
 * vectorised by the compiler, for the entries core/x86/ does not write by
 * hand).  The loops keep the association documented in reduce.h item for
 * item: every version of a kernel must (and is tested to) give these
 * bits. */
#include "reduce-item.h"

#include <stddef.h>

#ifndef TN_ISA
#define TN_ISA c
#endif
#define RK_CAT(a, b) a##_##b
#define RK_ISA_NAME(a, isa) RK_CAT (a, isa)

/* Float64 lanes: item t of a block goes to lane t % 32, lanes fold left
 * to right, then the lanes are folded left to right. */
RK_INLINE void
dacc_rows_g (tn_dtype t, tn_rk_kind kind, const void *p, int64_t n, double m,
    tn_rpart *out)
{
  const double id = rk_identity (kind);

  for (int64_t b = 0; b < n; b += TN_RK_BLOCK, out++) {
    int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n, i = b;
    double lane[TN_RK_LANES], s = id;

    for (int l = 0; l < TN_RK_LANES; l++)
      lane[l] = id;
    for (; i + TN_RK_LANES <= e; i += TN_RK_LANES)
      for (int l = 0; l < TN_RK_LANES; l++)
        lane[l] = rk_dop (kind, lane[l], rk_ld_d (t, p, i + l), m);
    for (int l = 0; i < e; i++, l++)
      lane[l] = rk_dop (kind, lane[l], rk_ld_d (t, p, i), m);
    for (int l = 0; l < TN_RK_LANES; l++)
      s = rk_dfold (kind, s, lane[l]);
    out->v.d = s;
  }
}

/* Rows in lane order: lane l of a block takes rows l, l + 32, ...; lanes
 * with no rows would add the identity, which changes no bits. */
RK_INLINE void
dacc_cols_g (tn_dtype t, tn_rk_kind kind, const char *base, const int64_t *roff,
    int64_t nrows, int64_t nc, const double *m, tn_rpart *out, void *scratch)
{
  const double id = rk_identity (kind);
  const size_t isz = tn_dtype_size (t);
  double *lane = scratch, *bs = lane + rk_pad (nc);

  for (int64_t c = 0; c < nc; c++)
    bs[c] = id;
  for (int64_t l = 0; l < TN_RK_LANES && l < nrows; l++) {
    for (int64_t c = 0; c < nc; c++)
      lane[c] = id;
    for (int64_t r = l; r < nrows; r += TN_RK_LANES) {
      const char *row = base + roff[r] * isz;

      for (int64_t c = 0; c < nc; c++)
        lane[c] = rk_dop (kind, lane[c], rk_ld_d (t, row, c), m ? m[c] : 0.0);
    }
    for (int64_t c = 0; c < nc; c++)
      bs[c] = rk_dfold (kind, bs[c], lane[c]);
  }
  for (int64_t c = 0; c < nc; c++)
    out[c].v.d = bs[c];
}

/* Float sums: each lane's two halves of 16 items fold in float32 first. */
RK_INLINE void
fsum_rows_g (tn_dtype t, const void *p, int64_t n, tn_rpart *out)
{
  for (int64_t b = 0; b < n; b += TN_RK_BLOCK, out++) {
    int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n;
    double lane[TN_RK_LANES], s = -0.0;

    for (int l = 0; l < TN_RK_LANES; l++)
      lane[l] = -0.0;
    for (int64_t h = b; h < e; h += TN_RK_HALF) {
      int64_t he = h + TN_RK_HALF < e ? h + TN_RK_HALF : e, i = h;
      float f[TN_RK_LANES];

      for (int l = 0; l < TN_RK_LANES; l++)
        f[l] = -0.0f;
      for (; i + TN_RK_LANES <= he; i += TN_RK_LANES)
        for (int l = 0; l < TN_RK_LANES; l++)
          f[l] += rk_ld_f (t, p, i + l);
      for (int l = 0; i < he; i++, l++)
        f[l] += rk_ld_f (t, p, i);
      for (int l = 0; l < TN_RK_LANES; l++)
        lane[l] += (double) f[l];
    }
    for (int l = 0; l < TN_RK_LANES; l++)
      s += lane[l];
    out->v.d = s;
  }
}

RK_INLINE void
fsum_cols_g (tn_dtype t, const char *base, const int64_t *roff, int64_t nrows,
    int64_t nc, tn_rpart *out, void *scratch)
{
  const size_t isz = tn_dtype_size (t);
  double *lane = scratch, *bs = lane + rk_pad (nc);
  float *f = (float *) (bs + rk_pad (nc));

  for (int64_t c = 0; c < nc; c++)
    bs[c] = -0.0;
  for (int64_t l = 0; l < TN_RK_LANES && l < nrows; l++) {
    for (int64_t c = 0; c < nc; c++)
      lane[c] = -0.0;
    for (int64_t h = 0; h + l < nrows; h += TN_RK_HALF) {
      int64_t he = h + TN_RK_HALF < nrows ? h + TN_RK_HALF : nrows;

      for (int64_t c = 0; c < nc; c++)
        f[c] = -0.0f;
      for (int64_t r = h + l; r < he; r += TN_RK_LANES) {
        const char *row = base + roff[r] * isz;

        for (int64_t c = 0; c < nc; c++)
          f[c] += rk_ld_f (t, row, c);
      }
      for (int64_t c = 0; c < nc; c++)
        lane[c] += (double) f[c];
    }
    for (int64_t c = 0; c < nc; c++)
      bs[c] += lane[c];
  }
  for (int64_t c = 0; c < nc; c++)
    out[c].v.d = bs[c];
}

/* Exact integer folds: any order gives the same bits. */
RK_INLINE void
uacc_rows_g (
    tn_dtype t, tn_rk_kind kind, const void *p, int64_t n, tn_rpart *out)
{
  for (int64_t b = 0; b < n; b += TN_RK_BLOCK, out++) {
    int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n;
    uint64_t s = kind == TN_RK_UMUL ? 1 : 0;

    if (kind == TN_RK_UMUL)
      for (int64_t i = b; i < e; i++)
        s *= rk_ld_u (t, p, i);
    else
      for (int64_t i = b; i < e; i++)
        s += rk_ld_u (t, p, i);
    out->v.u = s;
  }
}

RK_INLINE void
uacc_cols_g (tn_dtype t, tn_rk_kind kind, const char *base, const int64_t *roff,
    int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)
{
  const size_t isz = tn_dtype_size (t);
  uint64_t *s = scratch;

  for (int64_t c = 0; c < nc; c++)
    s[c] = kind == TN_RK_UMUL ? 1 : 0;
  for (int64_t r = 0; r < nrows; r++) {
    const char *row = base + roff[r] * isz;

    if (kind == TN_RK_UMUL)
      for (int64_t c = 0; c < nc; c++)
        s[c] *= rk_ld_u (t, row, c);
    else
      for (int64_t c = 0; c < nc; c++)
        s[c] += rk_ld_u (t, row, c);
  }
  for (int64_t c = 0; c < nc; c++)
    out[c].v.u = s[c];
}

RK_INLINE void
qadd_rows_g (tn_dtype t, const void *p, int64_t n, tn_rpart *out)
{
  for (int64_t b = 0; b < n; b += TN_RK_BLOCK, out++) {
    int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n;
    __int128 s = 0;

    for (int64_t i = b; i < e; i++)
      s += rk_ld_q (t, p, i);
    out->v.q = s;
  }
}

RK_INLINE void
qadd_cols_g (tn_dtype t, const char *base, const int64_t *roff, int64_t nrows,
    int64_t nc, tn_rpart *out, void *scratch)
{
  const size_t isz = tn_dtype_size (t);
  __int128 *s = scratch;

  for (int64_t c = 0; c < nc; c++)
    s[c] = 0;
  for (int64_t r = 0; r < nrows; r++) {
    const char *row = base + roff[r] * isz;

    for (int64_t c = 0; c < nc; c++)
      s[c] += rk_ld_q (t, row, c);
  }
  for (int64_t c = 0; c < nc; c++)
    out[c].v.q = s[c];
}

/* min/max: float dtypes compare as float64 (exact for every one of them)
 * with IEEE 754-2019 minimum/maximum and a NaN flag; integers exactly. */
RK_INLINE void
ext_rows_g (tn_dtype t, int is_max, const void *p, int64_t n, tn_rpart *out)
{
  for (int64_t b = 0; b < n; b += TN_RK_BLOCK, out++) {
    int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n;

    out->nan = 0;
    out->idx = -1;
    if (rk_is_float (t)) {
      double best = is_max ? -INFINITY : INFINITY;
      int nan = 0;

      for (int64_t i = b; i < e; i++) {
        double x = rk_ld_d (t, p, i);

        nan |= x != x;
        best = is_max ? rk_fmax (best, x) : rk_fmin (best, x);
      }
      out->v.d = best;
      out->nan = nan;
    } else if (rk_is_unsigned (t)) {
      uint64_t best = is_max ? 0 : UINT64_MAX;

      for (int64_t i = b; i < e; i++) {
        uint64_t x = rk_ld_u (t, p, i);

        best = (is_max ? x > best : x < best) ? x : best;
      }
      out->v.u = best;
    } else {
      int64_t best = is_max ? INT64_MIN : INT64_MAX;

      for (int64_t i = b; i < e; i++) {
        int64_t x = (int64_t) rk_ld_u (t, p, i);

        best = (is_max ? x > best : x < best) ? x : best;
      }
      out->v.i = best;
    }
  }
}

RK_INLINE void
ext_cols_g (tn_dtype t, int is_max, const char *base, const int64_t *roff,
    int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)
{
  const size_t isz = tn_dtype_size (t);

  if (rk_is_float (t)) {
    double *best = scratch;
    int64_t *nan = (int64_t *) (best + rk_pad (nc));

    for (int64_t c = 0; c < nc; c++) {
      best[c] = is_max ? -INFINITY : INFINITY;
      nan[c] = 0;
    }
    for (int64_t r = 0; r < nrows; r++) {
      const char *row = base + roff[r] * isz;

      for (int64_t c = 0; c < nc; c++) {
        double x = rk_ld_d (t, row, c);

        nan[c] |= x != x;
        best[c] = is_max ? rk_fmax (best[c], x) : rk_fmin (best[c], x);
      }
    }
    for (int64_t c = 0; c < nc; c++) {
      out[c].v.d = best[c];
      out[c].nan = nan[c];
      out[c].idx = -1;
    }
  } else if (rk_is_unsigned (t)) {
    uint64_t *best = scratch;

    for (int64_t c = 0; c < nc; c++)
      best[c] = is_max ? 0 : UINT64_MAX;
    for (int64_t r = 0; r < nrows; r++) {
      const char *row = base + roff[r] * isz;

      for (int64_t c = 0; c < nc; c++) {
        uint64_t x = rk_ld_u (t, row, c);

        best[c] = (is_max ? x > best[c] : x < best[c]) ? x : best[c];
      }
    }
    for (int64_t c = 0; c < nc; c++) {
      out[c].v.u = best[c];
      out[c].nan = 0;
      out[c].idx = -1;
    }
  } else {
    int64_t *best = scratch;

    for (int64_t c = 0; c < nc; c++)
      best[c] = is_max ? INT64_MIN : INT64_MAX;
    for (int64_t r = 0; r < nrows; r++) {
      const char *row = base + roff[r] * isz;

      for (int64_t c = 0; c < nc; c++) {
        int64_t x = (int64_t) rk_ld_u (t, row, c);

        best[c] = (is_max ? x > best[c] : x < best[c]) ? x : best[c];
      }
    }
    for (int64_t c = 0; c < nc; c++) {
      out[c].v.i = best[c];
      out[c].nan = 0;
      out[c].idx = -1;
    }
  }
}

/* argmin/argmax: the first index of the extreme, or of the first NaN.
 * Floats keep their value (as float64), integers an order-preserving
 * int64 key (rk_key). */
RK_INLINE void
arg_rows_g (tn_dtype t, int is_max, const void *p, int64_t n, tn_rpart *out)
{
  for (int64_t b = 0; b < n; b += TN_RK_BLOCK, out++) {
    int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n, bi = b;

    out->nan = 0;
    if (rk_is_float (t)) {
      double best = rk_ld_d (t, p, b);

      if (best != best) {
        out->nan = 1;
      } else {
        for (int64_t i = b + 1; i < e; i++) {
          double x = rk_ld_d (t, p, i);

          if (x != x) {
            out->nan = 1;
            bi = i;
            break;
          }
          if (is_max ? x > best : x < best) {
            best = x;
            bi = i;
          }
        }
      }
      out->v.d = out->nan ? NAN : best;
    } else {
      int64_t best = rk_key (t, p, b);

      for (int64_t i = b + 1; i < e; i++) {
        int64_t x = rk_key (t, p, i);

        if (is_max ? x > best : x < best) {
          best = x;
          bi = i;
        }
      }
      out->v.i = best;
    }
    out->idx = bi;
  }
}

RK_INLINE void
arg_cols_g (tn_dtype t, int is_max, const char *base, const int64_t *roff,
    int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)
{
  const size_t isz = tn_dtype_size (t);
  int64_t *idx = scratch, *nan = idx + rk_pad (nc);

  for (int64_t c = 0; c < nc; c++) {
    idx[c] = 0;
    nan[c] = 0;
  }
  if (rk_is_float (t)) {
    double *best = (double *) (nan + rk_pad (nc));

    for (int64_t c = 0; c < nc; c++) {
      best[c] = rk_ld_d (t, base + roff[0] * isz, c);
      nan[c] = best[c] != best[c];
    }
    for (int64_t r = 1; r < nrows; r++) {
      const char *row = base + roff[r] * isz;

      for (int64_t c = 0; c < nc; c++) {
        double x = rk_ld_d (t, row, c);

        if (nan[c])
          continue;
        if (x != x) {
          nan[c] = 1;
          idx[c] = r;
        } else if (is_max ? x > best[c] : x < best[c]) {
          best[c] = x;
          idx[c] = r;
        }
      }
    }
    for (int64_t c = 0; c < nc; c++)
      out[c].v.d = nan[c] ? NAN : best[c];
  } else {
    int64_t *best = nan + rk_pad (nc);

    for (int64_t c = 0; c < nc; c++)
      best[c] = rk_key (t, base + roff[0] * isz, c);
    for (int64_t r = 1; r < nrows; r++) {
      const char *row = base + roff[r] * isz;

      for (int64_t c = 0; c < nc; c++) {
        int64_t x = rk_key (t, row, c);

        if (is_max ? x > best[c] : x < best[c]) {
          best[c] = x;
          idx[c] = r;
        }
      }
    }
    for (int64_t c = 0; c < nc; c++)
      out[c].v.i = best[c];
  }
  for (int64_t c = 0; c < nc; c++) {
    out[c].idx = idx[c];
    out[c].nan = nan[c];
  }
}

/* Narrow columns: rows of a dense <nrows, P> block read as rows of
 * W = 32 P items; item j of such a row is lane j / P of column j % P, so
 * folding these rows top to bottom is each lane's left-to-right fold. */
RK_INLINE void
strip_g (tn_dtype t, tn_rk_kind kind, const char *p, int64_t nrows, int64_t P,
    const double *m, tn_rpart *out, void *scratch)
{
  const int64_t W = TN_RK_LANES * P, full = nrows / TN_RK_LANES;
  const int64_t rem = (nrows % TN_RK_LANES) * P, nr = full + (rem > 0);

  if (kind == TN_RK_FSUM) {
    double *lane = scratch;
    float *f = (float *) (lane + rk_pad (W));

    for (int64_t j = 0; j < W; j++)
      lane[j] = -0.0;
    for (int64_t h = 0; h * 16 < nr; h++) {
      for (int64_t j = 0; j < W; j++)
        f[j] = -0.0f;
      for (int64_t r = h * 16; r < nr && r < h * 16 + 16; r++) {
        int64_t w = r < full ? W : rem;

        for (int64_t j = 0; j < w; j++)
          f[j] += rk_ld_f (t, p, r * W + j);
      }
      for (int64_t j = 0; j < W; j++)
        lane[j] += (double) f[j];
    }
    for (int64_t c = 0; c < P; c++) {
      double s = -0.0;

      for (int l = 0; l < TN_RK_LANES; l++)
        s += lane[l * P + c];
      out[c].v.d = s;
    }
  } else if (kind == TN_RK_UADD || kind == TN_RK_UMUL) {
    uint64_t *acc = scratch;

    for (int64_t j = 0; j < W; j++)
      acc[j] = kind == TN_RK_UMUL ? 1 : 0;
    for (int64_t r = 0; r < nr; r++) {
      int64_t w = r < full ? W : rem;

      if (kind == TN_RK_UMUL)
        for (int64_t j = 0; j < w; j++)
          acc[j] *= rk_ld_u (t, p, r * W + j);
      else
        for (int64_t j = 0; j < w; j++)
          acc[j] += rk_ld_u (t, p, r * W + j);
    }
    for (int64_t c = 0; c < P; c++) {
      uint64_t s = acc[c];

      for (int l = 1; l < TN_RK_LANES; l++)
        s = kind == TN_RK_UMUL ? s * acc[l * P + c] : s + acc[l * P + c];
      out[c].v.u = s;
    }
  } else if (kind == TN_RK_QADD) {
    __int128 *acc = scratch;

    for (int64_t j = 0; j < W; j++)
      acc[j] = 0;
    for (int64_t r = 0; r < nr; r++) {
      int64_t w = r < full ? W : rem;

      for (int64_t j = 0; j < w; j++)
        acc[j] += rk_ld_q (t, p, r * W + j);
    }
    for (int64_t c = 0; c < P; c++) {
      __int128 s = 0;

      for (int l = 0; l < TN_RK_LANES; l++)
        s += acc[l * P + c];
      out[c].v.q = s;
    }
  } else {
    const double id = rk_identity (kind);
    double *lane = scratch, *mw = lane + rk_pad (W);

    for (int64_t j = 0; j < W; j++) {
      lane[j] = id;
      mw[j] = m ? m[j % P] : 0.0;
    }
    for (int64_t r = 0; r < nr; r++) {
      int64_t w = r < full ? W : rem;

      for (int64_t j = 0; j < w; j++)
        lane[j] = rk_dop (kind, lane[j], rk_ld_d (t, p, r * W + j), mw[j]);
    }
    for (int64_t c = 0; c < P; c++) {
      double s = id;

      for (int l = 0; l < TN_RK_LANES; l++)
        s = rk_dfold (kind, s, lane[l * P + c]);
      out[c].v.d = s;
    }
  }
}

/* Short rows, one after the other (reduce-kern.h). */
RK_INLINE void
short_g (tn_dtype t, tn_rk_kind kind, const char *p, int64_t k, int64_t rs,
    int64_t n, double *out)
{
  const int64_t step = rs * (int64_t) tn_dtype_size (t);

  for (int64_t i = 0; i < n; i++)
    out[i] = rk_short_row (t, kind, p + i * step, k);
}

/* Short rows of a float sum, divided and rounded to float32
 * (reduce-kern.h). */
RK_INLINE void
short32_g (tn_dtype t, const char *p, int64_t k, int64_t rs, int64_t n,
    double den, float *out)
{
  const int64_t step = rs * (int64_t) tn_dtype_size (t);

  for (int64_t i = 0; i < n; i++) {
    double v = rk_short_row (t, TN_RK_FSUM, p + i * step, k);

    /* / 1 changes no bits */
    out[i] = rk_canon_f ((float) (den == 1.0 ? v : v / den));
  }
}

/* One entry per (kind, dtype): the generic kernels above with both
 * constant, so that the item loads and the operation fold into the
 * loops.  First what every dtype has. */
#define RK_EVERY(E, name, ctype, kind)                                         \
  static void dsq_rows_##name (const void *p, int64_t n, tn_rpart *out)        \
  {                                                                            \
    dacc_rows_g (E, TN_RK_DSQ, p, n, 0.0, out);                                \
  }                                                                            \
  static void dsq_cols_##name (const char *base, const int64_t *roff,          \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    dacc_cols_g (E, TN_RK_DSQ, base, roff, nrows, nc, NULL, out, scratch);     \
  }                                                                            \
  static void dsq_strip_##name (                                               \
      const char *p, int64_t nrows, int64_t P, tn_rpart *out, void *scratch)   \
  {                                                                            \
    strip_g (E, TN_RK_DSQ, p, nrows, P, NULL, out, scratch);                   \
  }                                                                            \
  static void dsq_short_##name (                                               \
      const char *p, int64_t k, int64_t rs, int64_t n, double *out)            \
  {                                                                            \
    short_g (E, TN_RK_DSQ, p, k, rs, n, out);                                  \
  }                                                                            \
  static void ddev_rows_##name (                                               \
      const void *p, int64_t n, double m, tn_rpart *out)                       \
  {                                                                            \
    dacc_rows_g (E, TN_RK_DDEV, p, n, m, out);                                 \
  }                                                                            \
  static void ddev_cols_##name (const char *base, const int64_t *roff,         \
      int64_t nrows, int64_t nc, const double *m, tn_rpart *out,               \
      void *scratch)                                                           \
  {                                                                            \
    dacc_cols_g (E, TN_RK_DDEV, base, roff, nrows, nc, m, out, scratch);       \
  }                                                                            \
  static void ddev_strip_##name (const char *p, int64_t nrows, int64_t P,      \
      const double *m, tn_rpart *out, void *scratch)                           \
  {                                                                            \
    strip_g (E, TN_RK_DDEV, p, nrows, P, m, out, scratch);                     \
  }                                                                            \
  static void min_rows_##name (const void *p, int64_t n, tn_rpart *out)        \
  {                                                                            \
    ext_rows_g (E, 0, p, n, out);                                              \
  }                                                                            \
  static void max_rows_##name (const void *p, int64_t n, tn_rpart *out)        \
  {                                                                            \
    ext_rows_g (E, 1, p, n, out);                                              \
  }                                                                            \
  static void min_cols_##name (const char *base, const int64_t *roff,          \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    ext_cols_g (E, 0, base, roff, nrows, nc, out, scratch);                    \
  }                                                                            \
  static void max_cols_##name (const char *base, const int64_t *roff,          \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    ext_cols_g (E, 1, base, roff, nrows, nc, out, scratch);                    \
  }                                                                            \
  static void argmin_rows_##name (const void *p, int64_t n, tn_rpart *out)     \
  {                                                                            \
    arg_rows_g (E, 0, p, n, out);                                              \
  }                                                                            \
  static void argmax_rows_##name (const void *p, int64_t n, tn_rpart *out)     \
  {                                                                            \
    arg_rows_g (E, 1, p, n, out);                                              \
  }                                                                            \
  static void argmin_cols_##name (const char *base, const int64_t *roff,       \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    arg_cols_g (E, 0, base, roff, nrows, nc, out, scratch);                    \
  }                                                                            \
  static void argmax_cols_##name (const char *base, const int64_t *roff,       \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    arg_cols_g (E, 1, base, roff, nrows, nc, out, scratch);                    \
  }
TN_FOREACH_DTYPE (RK_EVERY)

/* Sums and products: float64 lanes for the float dtypes (kind K = DADD
 * or DMUL), wrapping uint64 for bool and the integers (UADD, UMUL), exact
 * int128 for int64 and uint64 (QADD), float32 halves for the narrow
 * floats (FSUM). */
#define RK_DACC(K, k, E, name)                                                 \
  static void k##_rows_##name (const void *p, int64_t n, tn_rpart *out)        \
  {                                                                            \
    dacc_rows_g (E, K, p, n, 0.0, out);                                        \
  }                                                                            \
  static void k##_cols_##name (const char *base, const int64_t *roff,          \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    dacc_cols_g (E, K, base, roff, nrows, nc, NULL, out, scratch);             \
  }                                                                            \
  static void k##_strip_##name (                                               \
      const char *p, int64_t nrows, int64_t P, tn_rpart *out, void *scratch)   \
  {                                                                            \
    strip_g (E, K, p, nrows, P, NULL, out, scratch);                           \
  }                                                                            \
  static void k##_short_##name (                                               \
      const char *p, int64_t k, int64_t rs, int64_t n, double *out)            \
  {                                                                            \
    short_g (E, K, p, k, rs, n, out);                                          \
  }
#define RK_UACC(K, k, E, name)                                                 \
  static void k##_rows_##name (const void *p, int64_t n, tn_rpart *out)        \
  {                                                                            \
    uacc_rows_g (E, K, p, n, out);                                             \
  }                                                                            \
  static void k##_cols_##name (const char *base, const int64_t *roff,          \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    uacc_cols_g (E, K, base, roff, nrows, nc, out, scratch);                   \
  }                                                                            \
  static void k##_strip_##name (                                               \
      const char *p, int64_t nrows, int64_t P, tn_rpart *out, void *scratch)   \
  {                                                                            \
    strip_g (E, K, p, nrows, P, NULL, out, scratch);                           \
  }
#define RK_QADD(E, name)                                                       \
  static void qadd_rows_##name (const void *p, int64_t n, tn_rpart *out)       \
  {                                                                            \
    qadd_rows_g (E, p, n, out);                                                \
  }                                                                            \
  static void qadd_cols_##name (const char *base, const int64_t *roff,         \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    qadd_cols_g (E, base, roff, nrows, nc, out, scratch);                      \
  }                                                                            \
  static void qadd_strip_##name (                                              \
      const char *p, int64_t nrows, int64_t P, tn_rpart *out, void *scratch)   \
  {                                                                            \
    strip_g (E, TN_RK_QADD, p, nrows, P, NULL, out, scratch);                  \
  }
#define RK_FSUM(E, name)                                                       \
  static void fsum_rows_##name (const void *p, int64_t n, tn_rpart *out)       \
  {                                                                            \
    fsum_rows_g (E, p, n, out);                                                \
  }                                                                            \
  static void fsum_cols_##name (const char *base, const int64_t *roff,         \
      int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)                 \
  {                                                                            \
    fsum_cols_g (E, base, roff, nrows, nc, out, scratch);                      \
  }                                                                            \
  static void fsum_strip_##name (                                              \
      const char *p, int64_t nrows, int64_t P, tn_rpart *out, void *scratch)   \
  {                                                                            \
    strip_g (E, TN_RK_FSUM, p, nrows, P, NULL, out, scratch);                  \
  }                                                                            \
  static void fsum_short_##name (                                              \
      const char *p, int64_t k, int64_t rs, int64_t n, double *out)            \
  {                                                                            \
    short_g (E, TN_RK_FSUM, p, k, rs, n, out);                                 \
  }                                                                            \
  static void fsum_short32_##name (const char *p, int64_t k, int64_t rs,       \
      int64_t n, double den, float *out, int stream)                           \
  {                                                                            \
    (void) stream; /* plain C: ordinary stores */                              \
    short32_g (E, p, k, rs, n, den, out);                                      \
  }

RK_DACC (TN_RK_DADD, dadd, TN_FLOAT16, float16)
RK_DACC (TN_RK_DADD, dadd, TN_BFLOAT16, bfloat16)
RK_DACC (TN_RK_DADD, dadd, TN_FLOAT32, float32)
RK_DACC (TN_RK_DADD, dadd, TN_FLOAT64, float64)
RK_DACC (TN_RK_DMUL, dmul, TN_FLOAT16, float16)
RK_DACC (TN_RK_DMUL, dmul, TN_BFLOAT16, bfloat16)
RK_DACC (TN_RK_DMUL, dmul, TN_FLOAT32, float32)
RK_DACC (TN_RK_DMUL, dmul, TN_FLOAT64, float64)
RK_UACC (TN_RK_UADD, uadd, TN_BOOL, bool)
RK_UACC (TN_RK_UADD, uadd, TN_INT8, int8)
RK_UACC (TN_RK_UADD, uadd, TN_UINT8, uint8)
RK_UACC (TN_RK_UADD, uadd, TN_INT16, int16)
RK_UACC (TN_RK_UADD, uadd, TN_UINT16, uint16)
RK_UACC (TN_RK_UADD, uadd, TN_INT32, int32)
RK_UACC (TN_RK_UADD, uadd, TN_UINT32, uint32)
RK_UACC (TN_RK_UADD, uadd, TN_INT64, int64)
RK_UACC (TN_RK_UADD, uadd, TN_UINT64, uint64)
RK_UACC (TN_RK_UMUL, umul, TN_BOOL, bool)
RK_UACC (TN_RK_UMUL, umul, TN_INT8, int8)
RK_UACC (TN_RK_UMUL, umul, TN_UINT8, uint8)
RK_UACC (TN_RK_UMUL, umul, TN_INT16, int16)
RK_UACC (TN_RK_UMUL, umul, TN_UINT16, uint16)
RK_UACC (TN_RK_UMUL, umul, TN_INT32, int32)
RK_UACC (TN_RK_UMUL, umul, TN_UINT32, uint32)
RK_UACC (TN_RK_UMUL, umul, TN_INT64, int64)
RK_UACC (TN_RK_UMUL, umul, TN_UINT64, uint64)
RK_QADD (TN_INT64, int64)
RK_QADD (TN_UINT64, uint64)
RK_FSUM (TN_FLOAT16, float16)
RK_FSUM (TN_BFLOAT16, bfloat16)
RK_FSUM (TN_FLOAT32, float32)

/* Entries K (prefix k) of dtype E: rows, columns and strips. */
#define RK_SET(K, k, E, name)                                                  \
  dsp->rows[K][E] = k##_rows_##name;                                           \
  dsp->cols[K][E] = k##_cols_##name;                                           \
  dsp->strip[K][E] = k##_strip_##name
/* The extremes have no strips (reduce.c reads their narrow columns as
 * columns). */
#define RK_SET_EXT(K, k, E, name)                                              \
  dsp->rows[K][E] = k##_rows_##name;                                           \
  dsp->cols[K][E] = k##_cols_##name
/* The float folds have short rows too. */
#define RK_SET_F(K, k, E, name)                                                \
  RK_SET (K, k, E, name);                                                      \
  dsp->shortr[K][E] = k##_short_##name
#define RK_SET_EVERY(E, name, ctype, kind)                                     \
  RK_SET (TN_RK_DSQ, dsq, E, name);                                            \
  dsp->shortr[TN_RK_DSQ][E] = dsq_short_##name;                                \
  dsp->dev_rows[E] = ddev_rows_##name;                                         \
  dsp->dev_cols[E] = ddev_cols_##name;                                         \
  dsp->dev_strip[E] = ddev_strip_##name;                                       \
  RK_SET_EXT (TN_RK_MIN, min, E, name);                                        \
  RK_SET_EXT (TN_RK_MAX, max, E, name);                                        \
  RK_SET_EXT (TN_RK_ARGMIN, argmin, E, name);                                  \
  RK_SET_EXT (TN_RK_ARGMAX, argmax, E, name);

/* tn_rk_fill_c, tn_rk_fill_avx2, ...: every entry, this build's. */
void
RK_ISA_NAME (tn_rk_fill, TN_ISA) (tn_reduce_dsp *dsp)
{
  TN_FOREACH_DTYPE (RK_SET_EVERY)
  RK_SET_F (TN_RK_DADD, dadd, TN_FLOAT16, float16);
  RK_SET_F (TN_RK_DADD, dadd, TN_BFLOAT16, bfloat16);
  RK_SET_F (TN_RK_DADD, dadd, TN_FLOAT32, float32);
  RK_SET_F (TN_RK_DADD, dadd, TN_FLOAT64, float64);
  RK_SET_F (TN_RK_DMUL, dmul, TN_FLOAT16, float16);
  RK_SET_F (TN_RK_DMUL, dmul, TN_BFLOAT16, bfloat16);
  RK_SET_F (TN_RK_DMUL, dmul, TN_FLOAT32, float32);
  RK_SET_F (TN_RK_DMUL, dmul, TN_FLOAT64, float64);
  RK_SET (TN_RK_UADD, uadd, TN_BOOL, bool);
  RK_SET (TN_RK_UADD, uadd, TN_INT8, int8);
  RK_SET (TN_RK_UADD, uadd, TN_UINT8, uint8);
  RK_SET (TN_RK_UADD, uadd, TN_INT16, int16);
  RK_SET (TN_RK_UADD, uadd, TN_UINT16, uint16);
  RK_SET (TN_RK_UADD, uadd, TN_INT32, int32);
  RK_SET (TN_RK_UADD, uadd, TN_UINT32, uint32);
  RK_SET (TN_RK_UADD, uadd, TN_INT64, int64);
  RK_SET (TN_RK_UADD, uadd, TN_UINT64, uint64);
  RK_SET (TN_RK_UMUL, umul, TN_BOOL, bool);
  RK_SET (TN_RK_UMUL, umul, TN_INT8, int8);
  RK_SET (TN_RK_UMUL, umul, TN_UINT8, uint8);
  RK_SET (TN_RK_UMUL, umul, TN_INT16, int16);
  RK_SET (TN_RK_UMUL, umul, TN_UINT16, uint16);
  RK_SET (TN_RK_UMUL, umul, TN_INT32, int32);
  RK_SET (TN_RK_UMUL, umul, TN_UINT32, uint32);
  RK_SET (TN_RK_UMUL, umul, TN_INT64, int64);
  RK_SET (TN_RK_UMUL, umul, TN_UINT64, uint64);
  RK_SET (TN_RK_QADD, qadd, TN_INT64, int64);
  RK_SET (TN_RK_QADD, qadd, TN_UINT64, uint64);
  RK_SET_F (TN_RK_FSUM, fsum, TN_FLOAT16, float16);
  RK_SET_F (TN_RK_FSUM, fsum, TN_BFLOAT16, bfloat16);
  RK_SET_F (TN_RK_FSUM, fsum, TN_FLOAT32, float32);
  dsp->short32[TN_FLOAT16] = fsum_short32_float16;
  dsp->short32[TN_BFLOAT16] = fsum_short32_bfloat16;
  dsp->short32[TN_FLOAT32] = fsum_short32_float32;
}
