/* Internal to core/reduce-kern.c, included once per clone: the kernels of
 * core/reduce-kern.h in plain C, written once for every dtype and folded
 * to one function per (kind, dtype) by the X-macro at the end.  KSUF names
 * the clone.  The loops keep the association documented in reduce.h item
 * for item: the AVX2 kernels must (and are tested to) give these bits. */

#define KCAT2(a, b) a##_##b
#define KCAT(a, b) KCAT2 (a, b)
#define KF(name) KCAT (name, KSUF)

/* Float64 lanes: item t of a block goes to lane t % 32, lanes fold left
 * to right, then the lanes are folded left to right. */
static inline __attribute__ ((always_inline)) void
KF (dacc_inner_g) (tn_dtype t, tn_rk_kind kind, const void *p, int64_t n,
    double m, tn_rpart *out)
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
static inline __attribute__ ((always_inline)) void
KF (dacc_cols_g) (tn_dtype t, tn_rk_kind kind, const char *base,
    const int64_t *roff, int64_t nrows, int64_t nc, const double *m,
    tn_rpart *out, void *scratch)
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
static inline __attribute__ ((always_inline)) void
KF (fsum_inner_g) (tn_dtype t, const void *p, int64_t n, tn_rpart *out)
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

static inline __attribute__ ((always_inline)) void
KF (fsum_cols_g) (tn_dtype t, const char *base, const int64_t *roff,
    int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)
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
static inline __attribute__ ((always_inline)) void
KF (uacc_inner_g) (
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

static inline __attribute__ ((always_inline)) void
KF (uacc_cols_g) (tn_dtype t, tn_rk_kind kind, const char *base,
    const int64_t *roff, int64_t nrows, int64_t nc, tn_rpart *out,
    void *scratch)
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

static inline __attribute__ ((always_inline)) void
KF (qadd_inner_g) (tn_dtype t, const void *p, int64_t n, tn_rpart *out)
{
  for (int64_t b = 0; b < n; b += TN_RK_BLOCK, out++) {
    int64_t e = b + TN_RK_BLOCK < n ? b + TN_RK_BLOCK : n;
    __int128 s = 0;

    for (int64_t i = b; i < e; i++)
      s += rk_ld_q (t, p, i);
    out->v.q = s;
  }
}

static inline __attribute__ ((always_inline)) void
KF (qadd_cols_g) (tn_dtype t, const char *base, const int64_t *roff,
    int64_t nrows, int64_t nc, tn_rpart *out, void *scratch)
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
static inline __attribute__ ((always_inline)) void
KF (ext_inner_g) (
    tn_dtype t, int is_max, const void *p, int64_t n, tn_rpart *out)
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

static inline __attribute__ ((always_inline)) void
KF (ext_cols_g) (tn_dtype t, int is_max, const char *base, const int64_t *roff,
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
static inline __attribute__ ((always_inline)) void
KF (arg_inner_g) (tn_dtype t, int is_max, const void *p, int64_t n,
    int64_t first, tn_rpart *out)
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
    out->idx = first + bi;
  }
}

static inline __attribute__ ((always_inline)) void
KF (arg_cols_g) (tn_dtype t, int is_max, const char *base, const int64_t *roff,
    int64_t nrows, int64_t row0, int64_t nc, tn_rpart *out, void *scratch)
{
  const size_t isz = tn_dtype_size (t);
  int64_t *idx = scratch, *nan = idx + rk_pad (nc);

  for (int64_t c = 0; c < nc; c++) {
    idx[c] = row0;
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
          idx[c] = row0 + r;
        } else if (is_max ? x > best[c] : x < best[c]) {
          best[c] = x;
          idx[c] = row0 + r;
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
          idx[c] = row0 + r;
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
static inline __attribute__ ((always_inline)) void
KF (strip_g) (tn_dtype t, tn_rk_kind kind, const char *p, int64_t nrows,
    int64_t P, const double *m, tn_rpart *out, void *scratch)
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

#define RK_DEF_S(E, name, K, k)                                                \
  static void KF (k##_strip_##name) (const char *p, int64_t nrows, int64_t P,  \
      const double *m, tn_rpart *out, void *scratch)                           \
  {                                                                            \
    KF (strip_g) (E, K, p, nrows, P, m, out, scratch);                         \
  }

/* One function per (kind, dtype). */
#define RK_DEF_D(E, name, K, k)                                                \
  static void KF (k##_inner_##name) (                                          \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) first;                                                              \
    KF (dacc_inner_g) (E, K, p, n, m, out);                                    \
  }                                                                            \
  static void KF (k##_cols_##name) (const char *base, const int64_t *roff,     \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) row0;                                                               \
    KF (dacc_cols_g) (E, K, base, roff, nrows, nc, m, out, scratch);           \
  }

#define RK_DEF_U(E, name, K, k)                                                \
  static void KF (k##_inner_##name) (                                          \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) first;                                                              \
    (void) m;                                                                  \
    KF (uacc_inner_g) (E, K, p, n, out);                                       \
  }                                                                            \
  static void KF (k##_cols_##name) (const char *base, const int64_t *roff,     \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) row0;                                                               \
    (void) m;                                                                  \
    KF (uacc_cols_g) (E, K, base, roff, nrows, nc, out, scratch);              \
  }

#define RK_DEF_X(E, name, IS_MAX, k, g)                                        \
  static void KF (k##_inner_##name) (                                          \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) m;                                                                  \
    (void) first;                                                              \
    KF (ext_inner_g) (E, IS_MAX, p, n, out);                                   \
  }                                                                            \
  static void KF (k##_cols_##name) (const char *base, const int64_t *roff,     \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) m;                                                                  \
    (void) row0;                                                               \
    KF (ext_cols_g) (E, IS_MAX, base, roff, nrows, nc, out, scratch);          \
  }

#define RK_DEF_A(E, name, IS_MAX, k)                                           \
  static void KF (k##_inner_##name) (                                          \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) m;                                                                  \
    KF (arg_inner_g) (E, IS_MAX, p, n, first, out);                            \
  }                                                                            \
  static void KF (k##_cols_##name) (const char *base, const int64_t *roff,     \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) m;                                                                  \
    KF (arg_cols_g) (E, IS_MAX, base, roff, nrows, row0, nc, out, scratch);    \
  }

/* Per dtype kind: float64 sums and products for floats, wrapping integer
 * sums and products for the rest (and their narrow-column forms). */
#define RK_DEF_BY_TN_KIND_FLOAT(E, name)                                       \
  RK_DEF_D (E, name, TN_RK_DADD, dadd)                                         \
  RK_DEF_D (E, name, TN_RK_DMUL, dmul)                                         \
  RK_DEF_S (E, name, TN_RK_DADD, dadd)                                         \
  RK_DEF_S (E, name, TN_RK_DMUL, dmul)
#define RK_DEF_BY_TN_KIND_INT(E, name)                                         \
  RK_DEF_U (E, name, TN_RK_UADD, uadd)                                         \
  RK_DEF_U (E, name, TN_RK_UMUL, umul)                                         \
  RK_DEF_S (E, name, TN_RK_UADD, uadd)                                         \
  RK_DEF_S (E, name, TN_RK_UMUL, umul)
#define RK_DEF_BY_TN_KIND_UINT RK_DEF_BY_TN_KIND_INT
#define RK_DEF_BY_TN_KIND_BOOL RK_DEF_BY_TN_KIND_INT
/* clang-format off */
#define RK_DEF_ALL(E, name, ctype, kind)                                       \
  RK_DEF_BY_##kind (E, name)                                                   \
  RK_DEF_D (E, name, TN_RK_DSQ, dsq)                                           \
  RK_DEF_D (E, name, TN_RK_DDEV, ddev)                                         \
  RK_DEF_S (E, name, TN_RK_DSQ, dsq)                                           \
  RK_DEF_S (E, name, TN_RK_DDEV, ddev)                                         \
  RK_DEF_X (E, name, 0, min, ext)                                              \
  RK_DEF_X (E, name, 1, max, ext)                                              \
  RK_DEF_A (E, name, 0, argmin)                                                \
  RK_DEF_A (E, name, 1, argmax)
/* clang-format on */
TN_FOREACH_DTYPE (RK_DEF_ALL)

/* The float sums and the exact int128 sums exist for a few dtypes only. */
#define RK_DEF_FSUM(E, name)                                                   \
  static void KF (fsum_inner_##name) (                                         \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) first;                                                              \
    (void) m;                                                                  \
    KF (fsum_inner_g) (E, p, n, out);                                          \
  }                                                                            \
  static void KF (fsum_cols_##name) (const char *base, const int64_t *roff,    \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) row0;                                                               \
    (void) m;                                                                  \
    KF (fsum_cols_g) (E, base, roff, nrows, nc, out, scratch);                 \
  }
RK_DEF_FSUM (TN_FLOAT16, float16)
RK_DEF_FSUM (TN_BFLOAT16, bfloat16)
RK_DEF_FSUM (TN_FLOAT32, float32)
RK_DEF_S (TN_FLOAT16, float16, TN_RK_FSUM, fsum)
RK_DEF_S (TN_BFLOAT16, bfloat16, TN_RK_FSUM, fsum)
RK_DEF_S (TN_FLOAT32, float32, TN_RK_FSUM, fsum)

#define RK_DEF_Q(E, name)                                                      \
  static void KF (qadd_inner_##name) (                                         \
      const void *p, int64_t n, int64_t first, double m, tn_rpart *out)        \
  {                                                                            \
    (void) first;                                                              \
    (void) m;                                                                  \
    KF (qadd_inner_g) (E, p, n, out);                                          \
  }                                                                            \
  static void KF (qadd_cols_##name) (const char *base, const int64_t *roff,    \
      int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out, \
      void *scratch)                                                           \
  {                                                                            \
    (void) row0;                                                               \
    (void) m;                                                                  \
    KF (qadd_cols_g) (E, base, roff, nrows, nc, out, scratch);                 \
  }
RK_DEF_Q (TN_INT64, int64)
RK_DEF_Q (TN_UINT64, uint64)
RK_DEF_S (TN_INT64, int64, TN_RK_QADD, qadd)
RK_DEF_S (TN_UINT64, uint64, TN_RK_QADD, qadd)

/* Fills a table with this clone's kernels. */
static void
KF (rk_fill) (tn_rk_table *tb)
{
#define RK_SET1(K, k, E, name)                                                 \
  tb->inner[K][E] = KF (k##_inner_##name);                                     \
  tb->cols[K][E] = KF (k##_cols_##name);
#define RK_SETS(K, k, E, name) tb->strip[K][E] = KF (k##_strip_##name);
#define RK_SET_BY_TN_KIND_FLOAT(E, name)                                       \
  RK_SET1 (TN_RK_DADD, dadd, E, name)                                          \
  RK_SET1 (TN_RK_DMUL, dmul, E, name)                                          \
  RK_SETS (TN_RK_DADD, dadd, E, name) RK_SETS (TN_RK_DMUL, dmul, E, name)
#define RK_SET_BY_TN_KIND_INT(E, name)                                         \
  RK_SET1 (TN_RK_UADD, uadd, E, name)                                          \
  RK_SET1 (TN_RK_UMUL, umul, E, name)                                          \
  RK_SETS (TN_RK_UADD, uadd, E, name) RK_SETS (TN_RK_UMUL, umul, E, name)
#define RK_SET_BY_TN_KIND_UINT RK_SET_BY_TN_KIND_INT
#define RK_SET_BY_TN_KIND_BOOL RK_SET_BY_TN_KIND_INT
/* clang-format off */
#define RK_SET(E, name, ctype, kind)                                           \
  RK_SET_BY_##kind (E, name)                                                   \
  RK_SET1 (TN_RK_DSQ, dsq, E, name)                                            \
  RK_SET1 (TN_RK_DDEV, ddev, E, name)                                          \
  RK_SETS (TN_RK_DSQ, dsq, E, name)                                            \
  RK_SETS (TN_RK_DDEV, ddev, E, name)                                          \
  RK_SET1 (TN_RK_MIN, min, E, name)                                            \
  RK_SET1 (TN_RK_MAX, max, E, name)                                            \
  RK_SET1 (TN_RK_ARGMIN, argmin, E, name)                                      \
  RK_SET1 (TN_RK_ARGMAX, argmax, E, name)
  /* clang-format on */
  TN_FOREACH_DTYPE (RK_SET)
#undef RK_SET1
#undef RK_SETS
#undef RK_SET_BY_TN_KIND_FLOAT
#undef RK_SET_BY_TN_KIND_INT
#undef RK_SET_BY_TN_KIND_UINT
#undef RK_SET_BY_TN_KIND_BOOL
#undef RK_SET
  tb->inner[TN_RK_FSUM][TN_FLOAT16] = KF (fsum_inner_float16);
  tb->cols[TN_RK_FSUM][TN_FLOAT16] = KF (fsum_cols_float16);
  tb->inner[TN_RK_FSUM][TN_BFLOAT16] = KF (fsum_inner_bfloat16);
  tb->cols[TN_RK_FSUM][TN_BFLOAT16] = KF (fsum_cols_bfloat16);
  tb->inner[TN_RK_FSUM][TN_FLOAT32] = KF (fsum_inner_float32);
  tb->cols[TN_RK_FSUM][TN_FLOAT32] = KF (fsum_cols_float32);
  tb->strip[TN_RK_FSUM][TN_FLOAT16] = KF (fsum_strip_float16);
  tb->strip[TN_RK_FSUM][TN_BFLOAT16] = KF (fsum_strip_bfloat16);
  tb->strip[TN_RK_FSUM][TN_FLOAT32] = KF (fsum_strip_float32);
  tb->strip[TN_RK_QADD][TN_INT64] = KF (qadd_strip_int64);
  tb->strip[TN_RK_QADD][TN_UINT64] = KF (qadd_strip_uint64);
  tb->inner[TN_RK_QADD][TN_INT64] = KF (qadd_inner_int64);
  tb->cols[TN_RK_QADD][TN_INT64] = KF (qadd_cols_int64);
  tb->inner[TN_RK_QADD][TN_UINT64] = KF (qadd_inner_uint64);
  tb->cols[TN_RK_QADD][TN_UINT64] = KF (qadd_cols_uint64);
}

#undef RK_DEF_D
#undef RK_DEF_U
#undef RK_DEF_X
#undef RK_DEF_A
#undef RK_DEF_ALL
#undef RK_DEF_BY_TN_KIND_FLOAT
#undef RK_DEF_BY_TN_KIND_INT
#undef RK_DEF_BY_TN_KIND_UINT
#undef RK_DEF_BY_TN_KIND_BOOL
#undef RK_DEF_FSUM
#undef RK_DEF_Q
#undef RK_DEF_S
