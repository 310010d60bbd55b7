/* checkasm: the reduction kernels (core/reduce-kern.h).  Every entry of
 * the table (rows, columns, strips and short rows of every kind and dtype,
 * the short rows written as float32 sums and means,
 * and the squared deviations) against the portable entry, on checkasm_fill's
 * edge-heavy bits, on finite floats where every addition rounds and on
 * zeros of both signs (ties of -0.0 and +0.0), over
 * lengths across lane, half-block and block borders and unaligned starts.
 *
 * What must match is what reduce.h promises: a partial's bits, its index
 * (argmin/argmax) and its NaN flag.  Two things are free: the value of a
 * min/max partial that saw a NaN (the driver writes NaN for it whatever it
 * holds: the AVX2 kernels leave a blend of the numbers there), and which
 * NaN a float fold gives (which follows the order of the operands in each
 * instruction, the compiler's choice; the driver and the short32 entries
 * write every NaN as the one quiet NaN, reduce.h). */
#include "checkasm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/parallel.h"
#include "core/reduce-kern.h"

static const char *const kind_names[TN_RK_NKINDS] = { "fsum", "dadd", "dmul",
  "dsq", "uadd", "umul", "qadd", "min", "max", "argmin", "argmax", "ddev" };

/* Rows: checkasm_lengths and the borders of the 1024-item blocks and of
 * the AVX2 kernels' groups of 8 blocks. */
static const int64_t row_lengths[]
    = { 511, 512, 513, 1023, 1024, 1025, 2048 + 33, 8 * 1024, 9 * 1024 + 5 };
/* Columns: (rows, columns) of one block, some with rows past the first
 * half for only some lanes (513, 600, 1000); strips: P < 32 columns. */
static const int64_t col_shapes[][2] = { { 1, 1 }, { 7, 3 }, { 8, 8 }, { 9, 9 },
  { 33, 17 }, { 255, 7 }, { 100, 69 }, { 513, 16 }, { 600, 37 }, { 1000, 64 },
  { 1024, 9 }, { 1024, 1 }, { 3, 4095 } };
static const int64_t strip_p[] = { 1, 2, 3, 5, 8, 13, 31 };
static const int64_t strip_rows[] = { 1, 7, 31, 32, 33, 100, 512, 513, 1024 };
/* Items the input starts after an aligned address. */
static const int64_t offsets[] = { 0, 1, 3 };

/* A float of dt with exponent 2^-2 .. 2^1 and random sign and mantissa
 * bits: sums of them round at every step, and products of a few thousand
 * stay inside float64. */
static void
fill_finite (void *dst, tn_dtype dt, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    uint32_t r = checkasm_rand (), e = checkasm_rand () % 4;
    uint64_t s = r >> 31;

    switch (dt) {
    case TN_FLOAT16: {
      uint16_t h
          = (uint16_t) (s << 15 | (uint64_t) (13 + e) << 10 | (r & 0x3ff));

      memcpy ((char *) dst + 2 * i, &h, 2);
      break;
    }
    case TN_BFLOAT16: {
      uint16_t h
          = (uint16_t) (s << 15 | (uint64_t) (125 + e) << 7 | (r & 0x7f));

      memcpy ((char *) dst + 2 * i, &h, 2);
      break;
    }
    case TN_FLOAT32: {
      uint32_t f
          = (uint32_t) (s << 31 | (uint64_t) (125 + e) << 23 | (r & 0x7fffff));

      memcpy ((char *) dst + 4 * i, &f, 4);
      break;
    }
    default: {
      uint64_t mant = ((uint64_t) checkasm_rand () << 20) ^ r;
      uint64_t d = s << 63 | (uint64_t) (1021 + e) << 52
                   | (mant & ((UINT64_C (1) << 52) - 1));

      memcpy ((char *) dst + 8 * i, &d, 8);
      break;
    }
    }
  }
}

/* Zeros of random sign: every extreme is a tie of -0.0 and +0.0, which
 * the edge-heavy set meets only by chance (min/max must order them,
 * argmin/argmax must give the first and its own bits). */
static void
fill_zeros (void *dst, tn_dtype dt, size_t n)
{
  size_t isz = tn_dtype_size (dt);

  memset (dst, 0, n * isz);
  for (size_t i = 0; i < n; i++)
    if (checkasm_rand () & 1)
      ((unsigned char *) dst)[(i + 1) * isz - 1] = 0x80; /* little-endian */
}

static int
is_float (tn_dtype dt)
{
  return tn_dtype_kind (dt) == TN_KIND_FLOAT;
}

/* Data sets of dt: 0 edge-heavy, and for floats 1 finite, 2 signed zeros. */
static int
nsets (tn_dtype dt)
{
  return is_float (dt) ? 3 : 1;
}

static void
fill (void *dst, tn_dtype dt, size_t n, int s)
{
  if (s == 1)
    fill_finite (dst, dt, n);
  else if (s == 2)
    fill_zeros (dst, dt, n);
  else
    checkasm_fill (dst, dt, n);
}

/* Input of n items of dt starting off items after a 64-byte border, in a
 * block of exactly the bytes read, so that the sanitizer build sees a
 * read past the end. */
static void *
input_new (tn_dtype dt, int64_t n, int64_t off, int s, void **base)
{
  size_t isz = tn_dtype_size (dt), bytes = (size_t) (n + off) * isz;
  char *b = aligned_alloc (64, (bytes + 63) & ~(size_t) 63);

  if (!b) {
    fprintf (stderr, "checkasm: out of memory\n");
    exit (2);
  }
  fill (b + off * isz, dt, (size_t) n, s);
  *base = b;
  return b + off * isz;
}

static void *
scratch_new (int64_t nc)
{
  void *p = aligned_alloc (64, (TN_RK_SCRATCH (nc) + 63) & ~(size_t) 63);

  if (!p) {
    fprintf (stderr, "checkasm: out of memory\n");
    exit (2);
  }
  return p;
}

/* Compares the n partials of kind k, after clearing what may differ. */
static int
check_parts (tn_rk_kind k, tn_rpart *want, tn_rpart *got, int64_t n,
    const char *what, tn_dtype dt, int64_t a, int64_t b, int64_t off, int s)
{
  int fv = is_float (dt) || k == TN_RK_DADD || k == TN_RK_DMUL || k == TN_RK_DSQ
           || k == TN_RK_DDEV;

  for (int64_t i = 0; i < n; i++) {
    if (((k == TN_RK_MIN || k == TN_RK_MAX) && want[i].nan && got[i].nan)
        || (fv && isnan (want[i].v.d) && isnan (got[i].v.d))) {
      memset (&want[i].v, 0, sizeof want[i].v);
      memset (&got[i].v, 0, sizeof got[i].v);
    }
    if (memcmp (&want[i], &got[i], sizeof want[i]) != 0) {
      uint64_t wv[2], gv[2];

      memcpy (wv, &want[i].v, sizeof wv);
      memcpy (gv, &got[i].v, sizeof gv);
      return checkasm_fail ("%s, %s %lld x %lld, offset %lld, data %d: part "
                            "%lld: portable v %016llx%016llx idx %lld nan "
                            "%lld, got v %016llx%016llx idx %lld nan %lld",
          tn_dtype_name (dt), what, (long long) a, (long long) b,
          (long long) off, s, (long long) i, (unsigned long long) wv[1],
          (unsigned long long) wv[0], (long long) want[i].idx,
          (long long) want[i].nan, (unsigned long long) gv[1],
          (unsigned long long) gv[0], (long long) got[i].idx,
          (long long) got[i].nan);
    }
  }
  /* Now only the guard zones around got: a write out of its n parts. */
  return checkasm_check_bits (want, got, (size_t) n, sizeof *got,
      "%s, %s %lld x %lld, offset %lld", tn_dtype_name (dt), what,
      (long long) a, (long long) b, (long long) off);
}

/* Means for the deviations: finite, of the size of the data. */
static void
fill_means (double *m, int64_t n)
{
  for (int64_t i = 0; i < n; i++)
    m[i] = ((int32_t) checkasm_rand ()) / 1073741824.0;
}

/* rows (dev: dev_rows) of kind k, dtype dt: fn and ref on the same input;
 * 0 when they agree. */
static int
run_rows (tn_rk_kind k, tn_dtype dt, tn_rk_rows_fn fn, tn_rk_rows_fn ref,
    tn_rk_dev_rows_fn dfn, tn_rk_dev_rows_fn dref)
{
  int64_t lens[64];
  size_t nl = 0;

  for (size_t i = 0; i < checkasm_nlengths; i++)
    lens[nl++] = (int64_t) checkasm_lengths[i];
  for (size_t i = 0; i < sizeof row_lengths / sizeof row_lengths[0]; i++)
    lens[nl++] = row_lengths[i];
  for (int s = 0; s < nsets (dt); s++) {
    for (size_t li = 0; li < nl; li++) {
      for (size_t oi = 0; oi < sizeof offsets / sizeof offsets[0]; oi++) {
        int64_t n = lens[li], np = (n + TN_RK_BLOCK - 1) / TN_RK_BLOCK;
        size_t bytes = (size_t) (np ? np : 1) * sizeof (tn_rpart);
        void *base, *p = input_new (dt, n, offsets[oi], s, &base);
        tn_rpart *want = checkasm_alloc (bytes), *got = checkasm_alloc (bytes);
        double m;
        int bad;

        fill_means (&m, 1);
        if (dfn) {
          dref (p, n, m, want);
          dfn (p, n, m, got);
        } else {
          ref (p, n, want);
          fn (p, n, got);
        }
        bad = check_parts (k, want, got, np, "rows", dt, 1, n, offsets[oi], s);
        checkasm_free (want);
        checkasm_free (got);
        free (base);
        if (bad)
          return 1;
      }
    }
  }
  if (checkasm_benching ()) {
    void *base, *p = input_new (dt, 4 * TN_RK_BLOCK, 0, is_float (dt), &base);
    tn_rpart out[4];

    if (dfn)
      checkasm_bench (dfn (p, 4 * TN_RK_BLOCK, 0.5, out));
    else
      checkasm_bench (fn (p, 4 * TN_RK_BLOCK, out));
    free (base);
  }
  return 0;
}

/* Rows of a block of cols: nrows rows of nc columns, each pitch items
 * after the one before, but the odometer's jumps: every fifth row starts
 * further on (as with two reduced axes). */
static int64_t *
roff_new (int64_t nrows, int64_t nc, int64_t *span)
{
  int64_t *roff = malloc (sizeof *roff * (size_t) nrows), o = 0;

  if (!roff) {
    fprintf (stderr, "checkasm: out of memory\n");
    exit (2);
  }
  for (int64_t t = 0; t < nrows; t++) {
    roff[t] = o;
    o += nc + (t % 5 == 4 ? 7 : 2);
  }
  *span = nrows ? roff[nrows - 1] + nc : 0;
  return roff;
}

static int
run_cols (tn_rk_kind k, tn_dtype dt, tn_rk_cols_fn fn, tn_rk_cols_fn ref,
    tn_rk_dev_cols_fn dfn, tn_rk_dev_cols_fn dref)
{
  for (int s = 0; s < nsets (dt); s++) {
    for (size_t ci = 0; ci < sizeof col_shapes / sizeof col_shapes[0]; ci++) {
      for (size_t oi = 0; oi < sizeof offsets / sizeof offsets[0]; oi++) {
        int64_t nrows = col_shapes[ci][0], nc = col_shapes[ci][1], span;
        int64_t *roff = roff_new (nrows, nc, &span);
        void *base, *p = input_new (dt, span, offsets[oi], s, &base);
        size_t bytes = (size_t) nc * sizeof (tn_rpart);
        tn_rpart *want = checkasm_alloc (bytes), *got = checkasm_alloc (bytes);
        void *scratch = scratch_new (nc);
        double *m = malloc (sizeof *m * (size_t) nc);
        int bad;

        fill_means (m, nc);
        if (dfn) {
          dref (p, roff, nrows, nc, m, want, scratch);
          dfn (p, roff, nrows, nc, m, got, scratch);
        } else {
          ref (p, roff, nrows, nc, want, scratch);
          fn (p, roff, nrows, nc, got, scratch);
        }
        bad = check_parts (
            k, want, got, nc, "cols", dt, nrows, nc, offsets[oi], s);
        checkasm_free (want);
        checkasm_free (got);
        free (scratch);
        free (m);
        free (roff);
        free (base);
        if (bad)
          return 1;
      }
    }
  }
  if (checkasm_benching ()) {
    int64_t span, *roff = roff_new (TN_RK_BLOCK, 64, &span);
    void *base, *p = input_new (dt, span, 0, is_float (dt), &base);
    void *scratch = scratch_new (64);
    tn_rpart out[64];
    double m[64];

    fill_means (m, 64);
    if (dfn)
      checkasm_bench (dfn (p, roff, TN_RK_BLOCK, 64, m, out, scratch));
    else
      checkasm_bench (fn (p, roff, TN_RK_BLOCK, 64, out, scratch));
    free (scratch);
    free (roff);
    free (base);
  }
  return 0;
}

static int
run_strip (tn_rk_kind k, tn_dtype dt, tn_rk_strip_fn fn, tn_rk_strip_fn ref,
    tn_rk_dev_strip_fn dfn, tn_rk_dev_strip_fn dref)
{
  for (int s = 0; s < nsets (dt); s++) {
    for (size_t pi = 0; pi < sizeof strip_p / sizeof strip_p[0]; pi++) {
      for (size_t ri = 0; ri < sizeof strip_rows / sizeof strip_rows[0]; ri++) {
        int64_t P = strip_p[pi], nrows = strip_rows[ri];
        int64_t off = offsets[(pi + ri) % 3];
        void *base, *p = input_new (dt, nrows * P, off, s, &base);
        size_t bytes = (size_t) P * sizeof (tn_rpart);
        tn_rpart *want = checkasm_alloc (bytes), *got = checkasm_alloc (bytes);
        void *scratch = scratch_new (TN_RK_LANES * P);
        double m[32];
        int bad;

        fill_means (m, P);
        if (dfn) {
          dref (p, nrows, P, m, want, scratch);
          dfn (p, nrows, P, m, got, scratch);
        } else {
          ref (p, nrows, P, want, scratch);
          fn (p, nrows, P, got, scratch);
        }
        bad = check_parts (k, want, got, P, "strip", dt, nrows, P, off, s);
        checkasm_free (want);
        checkasm_free (got);
        free (scratch);
        free (base);
        if (bad)
          return 1;
      }
    }
  }
  if (checkasm_benching ()) {
    void *base, *p = input_new (dt, 3 * TN_RK_BLOCK, 0, is_float (dt), &base);
    void *scratch = scratch_new (TN_RK_LANES * 3);
    tn_rpart out[3];
    double m[3] = { 0.5, 0.25, -0.5 };

    if (dfn)
      checkasm_bench (dfn (p, TN_RK_BLOCK, 3, m, out, scratch));
    else
      checkasm_bench (fn (p, TN_RK_BLOCK, 3, out, scratch));
    free (scratch);
    free (base);
  }
  return 0;
}

/* Short rows: k items, row stride rs (dense, sliced, broadcast and
 * backwards), n rows across the vector groups of 8.  fn against ref, and
 * ref (portable) against the portable rows kernel row by row: the short
 * entry promises the bits of rows. */
static const int64_t short_k[] = { 1, 2, 3, 4, 5, 8, 16, 31, 32 };
static const int64_t short_n[] = { 1, 7, 8, 9, 100, 515 };

/* One case of the short rows: k = short_k[ki] items, n = short_n[ni]
 * rows, the stride of how (0 dense, 1 sliced, 2 broadcast, 3 backwards),
 * data set s; first is row 0, base the block to free. */
typedef struct {
  int64_t K, n, rs, off;
  void *base;
  char *first;
} short_case;

static void
short_case_new (
    short_case *c, tn_dtype dt, size_t ki, size_t ni, int how, int s)
{
  int64_t K = short_k[ki], n = short_n[ni];
  int64_t rs = how == 0 ? K : how == 1 ? K + 3 : how == 2 ? 0 : -K;
  int64_t span = (n - 1) * (rs < 0 ? -rs : rs) + K;
  int64_t off = offsets[(ki + ni + how) % 3];
  size_t isz = tn_dtype_size (dt);
  /* exactly the bytes of the rows (not rounded up to 64 as input_new's
   * blocks are), so that the sanitizer build sees any load past the last
   * row; off items after malloc's alignment */
  char *p = malloc ((size_t) (span + off) * isz);

  if (!p) {
    fprintf (stderr, "checkasm: out of memory\n");
    exit (2);
  }
  c->base = p;
  p += off * (int64_t) isz;
  fill (p, dt, (size_t) span, s);
  c->K = K;
  c->n = n;
  c->rs = rs;
  c->off = off;
  c->first = rs < 0 ? p + (span - K) * (int64_t) isz : p;
}

/* got against want (n results of sz bytes: float or double) of case c:
 * the first row that differs beyond which NaN came out (free, see the
 * top), then, the NaNs made alike, the bits and the guards. */
static int
short_check (const char *entry, const short_case *c, tn_dtype dt, int s,
    void *want, void *got, size_t sz)
{
  for (int64_t i = 0; i < c->n; i++) {
    char *pw = (char *) want + i * (int64_t) sz,
         *pg = (char *) got + i * (int64_t) sz;
    double w = sz == 4 ? *(float *) pw : *(double *) pw;
    double g = sz == 4 ? *(float *) pg : *(double *) pg;

    if (isnan (w) && isnan (g)) {
      memset (pw, 0, sz);
      memset (pg, 0, sz);
    } else if (memcmp (pw, pg, sz) != 0) {
      return checkasm_fail ("%s, %s %lld x %lld stride %lld, offset %lld, "
                            "data %d: row %lld: portable %a, got %a",
          tn_dtype_name (dt), entry, (long long) c->n, (long long) c->K,
          (long long) c->rs, (long long) c->off, s, (long long) i, w, g);
    }
  }
  return checkasm_check_bits (want, got, (size_t) c->n, sz,
      "%s, %s %lld x %lld stride %lld", tn_dtype_name (dt), entry,
      (long long) c->n, (long long) c->K, (long long) c->rs);
}

static int
run_short (tn_rk_kind k, tn_dtype dt, tn_rk_short_fn fn, tn_rk_short_fn ref,
    tn_rk_rows_fn rows)
{
  for (int s = 0; s < nsets (dt); s++) {
    for (size_t ki = 0; ki < sizeof short_k / sizeof short_k[0]; ki++) {
      for (size_t ni = 0; ni < sizeof short_n / sizeof short_n[0]; ni++) {
        for (int how = 0; how < 4; how++) {
          short_case c;

          short_case_new (&c, dt, ki, ni, how, s);
          int64_t K = c.K, n = c.n, rs = c.rs, off = c.off;
          size_t isz = tn_dtype_size (dt);
          void *base = c.base;
          char *first = c.first;
          double *want = checkasm_alloc (n * sizeof (double));
          double *got = checkasm_alloc (n * sizeof (double));
          int bad = 0;

          ref (first, K, rs, n, want);
          fn (first, K, rs, n, got);
          for (int64_t i = 0; i < n && !bad; i++) {
            tn_rpart r;

            rows (first + i * rs * (int64_t) isz, K, &r);
            if (memcmp (&r.v.d, &want[i], 8) != 0
                && !(isnan (r.v.d) && isnan (want[i])))
              bad = checkasm_fail ("%s, short %lld x %lld stride %lld, "
                                   "offset %lld, data %d: row %lld: rows "
                                   "gives %a, portable short %a",
                  tn_dtype_name (dt), (long long) n, (long long) K,
                  (long long) rs, (long long) off, s, (long long) i, r.v.d,
                  want[i]);
          }
          if (!bad)
            bad = short_check ("short", &c, dt, s, want, got, sizeof *got);
          checkasm_free (want);
          checkasm_free (got);
          free (base);
          if (bad)
            return 1;
        }
      }
    }
  }
  if (checkasm_benching ()) {
    void *base, *p = input_new (dt, 3 * 4096, 0, is_float (dt), &base);
    double out[4096];

    checkasm_bench (fn (p, 3, 3, 4096, out));
    free (base);
  }
  return 0;
}

/* Means whose float64 quotient lies within a few float64 ulps of a
 * float32 midpoint (or on it), where the rounding to float32 shows
 * whether the quotient is the division's to the last bit: rows of k items
 * m k (its float32 head and tail) and d, j float64 ulps of m k, so that
 * the row's sum is exactly m k + d and sum / k = m + d / k, with m a
 * float32 midpoint (an odd 25-bit significand) and j = -1, 0 or 1.  A
 * quotient off by one float64 ulp (RN(s RN(1 / k)) without a correction,
 * say) rounds to the other float32 in 7-21% of the rows with j = +-1,
 * where random rows show it once in 2^28 or so. */
static int
run_short32_mid (tn_rk_short32_fn fn, tn_rk_short32_fn ref)
{
  static const int64_t ks[] = { 3, 5, 6, 7, 12 };
  const int64_t n = 4099;

  for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
    const int64_t k = ks[ki];
    float *x = checkasm_alloc (n * k * sizeof (float));
    float *want = checkasm_alloc (n * sizeof (float));
    float *got = checkasm_alloc (n * sizeof (float));
    int bad = 0;

    for (int64_t i = 0; i < n; i++) {
      uint32_t r = checkasm_rand ();
      double m = ldexp ((double) ((r & 0xffffff) | 0x1000001),
          (int) (checkasm_rand () % 64) - 56);
      double mk = (r >> 31 ? -m : m) * (double) k, ulp;
      int j = (int) (checkasm_rand () % 3) - 1;
      float *row = x + i * k;
      double sum = -0.0;

      ulp = ldexp (1.0, ilogb (mk) - 52);
      row[0] = (float) mk;
      row[1] = (float) (mk - (double) row[0]);
      row[2] = (float) (j * ulp);
      for (int64_t l = 3; l < k; l++)
        row[l] = 0.0f;
      for (int64_t l = 0; l < k; l++)
        sum += row[l];
      if (sum != mk + j * ulp)
        bad = checkasm_fail ("short32 near midpoints, k %lld: row %lld does "
                             "not sum to m k + d",
            (long long) k, (long long) i);
    }
    ref ((const char *) x, k, k, n, (double) k, want, 0);
    for (int64_t i = 0; i < n && !bad; i++) {
      double sum = -0.0;
      float f;

      for (int64_t l = 0; l < k; l++)
        sum += x[i * k + l];
      f = (float) (sum / (double) k);
      if (memcmp (&f, &want[i], 4) != 0)
        bad = checkasm_fail ("short32 near midpoints, k %lld: row %lld: sum / "
                             "k gives %a, portable %a",
            (long long) k, (long long) i, (double) f, (double) want[i]);
    }
    if (!bad)
      fn ((const char *) x, k, k, n, (double) k, got, 0);
    if (!bad)
      bad = checkasm_check_bits (want, got, (size_t) n, sizeof (float),
          "float32, short32 near midpoints %lld x %lld", (long long) n,
          (long long) k);
    checkasm_free (x);
    checkasm_free (want);
    checkasm_free (got);
    if (bad)
      return 1;
  }
  return 0;
}

/* Short rows to float32 (short32): the shapes of run_short, divided by 1
 * (a sum) and by k (a mean), written by ordinary stores and streamed
 * (how >= 8: in two calls, the second from row 5 to an output off its
 * 64-byte border, as the driver's chunks start anywhere).  fn against
 * ref, and ref (portable) against the portable short entry's fold
 * divided and rounded as the driver does. */
static int
run_short32 (
    tn_dtype dt, tn_rk_short32_fn fn, tn_rk_short32_fn ref, tn_rk_short_fn fold)
{
  for (int s = 0; s < 2; s++) {
    for (size_t ki = 0; ki < sizeof short_k / sizeof short_k[0]; ki++) {
      for (size_t ni = 0; ni < sizeof short_n / sizeof short_n[0]; ni++) {
        for (int how = 0; how < 16; how++) {
          short_case c;

          short_case_new (&c, dt, ki, ni, how % 4, s);
          int64_t K = c.K, n = c.n, rs = c.rs, off = c.off;
          int64_t m = n < 5 ? n : 5;
          double den = how % 8 < 4 ? (double) K : 1.0;
          void *base = c.base;
          char *first = c.first;
          double *v = malloc (sizeof *v * (size_t) n);
          float *want = checkasm_alloc (n * sizeof (float));
          float *got = checkasm_alloc (n * sizeof (float));
          int bad = 0;

          if (!v) {
            fprintf (stderr, "checkasm: out of memory\n");
            exit (2);
          }
          fold (first, K, rs, n, v);
          ref (first, K, rs, n, den, want, 0);
          if (how < 8) {
            fn (first, K, rs, n, den, got, 0);
          } else {
            fn (first, K, rs, m, den, got, 1);
            fn (first + m * rs * (int64_t) tn_dtype_size (dt), K, rs, n - m,
                den, got + m, 1);
            tn_stream_fence ();
          }
          for (int64_t i = 0; i < n && !bad; i++) {
            float f = (float) (v[i] / den);

            if (memcmp (&f, &want[i], 4) != 0
                && !(isnan (f) && isnan (want[i])))
              bad = checkasm_fail ("%s, short32 %lld x %lld stride %lld / %g, "
                                   "offset %lld, data %d: row %lld: fold / den "
                                   "gives %a, portable short32 %a",
                  tn_dtype_name (dt), (long long) n, (long long) K,
                  (long long) rs, den, (long long) off, s, (long long) i,
                  (double) f, (double) want[i]);
          }
          if (!bad)
            bad = short_check (how < 8
                                   ? (how < 4 ? "short32 mean" : "short32 sum")
                                   : (how < 12 ? "short32 mean, streamed"
                                               : "short32 sum, streamed"),
                &c, dt, s, want, got, sizeof *got);
          free (v);
          checkasm_free (want);
          checkasm_free (got);
          free (base);
          if (bad)
            return 1;
        }
      }
    }
  }
  if (dt == TN_FLOAT32 && run_short32_mid (fn, ref))
    return 1;
  if (checkasm_benching ()) {
    void *base, *p = input_new (dt, 3 * 4096, 0, 1, &base);
    float out[4096];

    checkasm_bench (fn (p, 3, 3, 4096, 3.0, out, 0));
    free (base);
  }
  return 0;
}

/* The driver runs every kernel inside the pool's IEEE environment
 * (tn_fpenv_enter, core/parallel.h), whatever the caller's FTZ/DAZ flags
 * (checkasm-ftz sets them); so does this check. */
void
checkasm_check_reduce (void)
{
  const tn_reduce_dsp *d = tn_reduce_dsp_get ();
  tn_fpenv env = tn_fpenv_enter ();
  tn_reduce_dsp c;

  /* Every mask has entries for the same (kind, dtype) pairs as portable:
   * an ISA may only replace kernels. */
  tn_reduce_dsp_init (&c, 0);
  for (int t = 0; t < TN_NDTYPES; t++) {
    for (int k = 0; k < TN_RK_NPLAIN; k++)
      if (!d->rows[k][t] != !c.rows[k][t] || !d->cols[k][t] != !c.cols[k][t]
          || !d->strip[k][t] != !c.strip[k][t]
          || !d->shortr[k][t] != !c.shortr[k][t])
        checkasm_fail ("%s of %s: entries present differ from portable",
            kind_names[k], tn_dtype_name ((tn_dtype) t));
    if (!d->dev_rows[t] != !c.dev_rows[t] || !d->dev_cols[t] != !c.dev_cols[t]
        || !d->dev_strip[t] != !c.dev_strip[t]
        || !d->short32[t] != !c.short32[t])
      checkasm_fail (
          "ddev or short32 of %s: entries present differ from portable",
          tn_dtype_name ((tn_dtype) t));
  }

  for (int t = 0; t < TN_NDTYPES; t++) {
    tn_dtype dt = (tn_dtype) t;
    const char *name = tn_dtype_name (dt);
    tn_rk_dev_rows_fn drows;
    tn_rk_dev_cols_fn dcols;
    tn_rk_dev_strip_fn dstrip;
    tn_rk_short32_fn s32;

    for (int k = 0; k < TN_RK_NPLAIN; k++) {
      const char *kn = kind_names[k];
      tn_rk_rows_fn rows;
      tn_rk_cols_fn cols;
      tn_rk_strip_fn strip;
      tn_rk_short_fn shortr;

      if ((rows = checkasm_check_func (d->rows[k][t], "rows_%s_%s", kn, name)))
        run_rows ((tn_rk_kind) k, dt, d->rows[k][t], rows, NULL, NULL);
      if ((cols = checkasm_check_func (d->cols[k][t], "cols_%s_%s", kn, name)))
        run_cols ((tn_rk_kind) k, dt, d->cols[k][t], cols, NULL, NULL);
      if ((strip
              = checkasm_check_func (d->strip[k][t], "strip_%s_%s", kn, name)))
        run_strip ((tn_rk_kind) k, dt, d->strip[k][t], strip, NULL, NULL);
      if ((shortr
              = checkasm_check_func (d->shortr[k][t], "short_%s_%s", kn, name)))
        run_short ((tn_rk_kind) k, dt, d->shortr[k][t], shortr, c.rows[k][t]);
    }
    if ((s32 = checkasm_check_func (d->short32[t], "short32_fsum_%s", name)))
      run_short32 (dt, d->short32[t], s32, c.shortr[TN_RK_FSUM][t]);
#if TN_ARCH_X86
    /* the AVX-512 version this CPU's vendor does not run (the init picks
     * one of the two) */
    for (int q = 0; q < 2; q++) {
      tn_rk_short32_fn alt = tn_rk_avx512_short32 (q);

      const unsigned need = TN_CPU_AVX2 | TN_CPU_F16C | TN_CPU_AVX512;

      if (dt == TN_FLOAT32 && (checkasm_cpu_flags () & need) == need
          && (s32 = checkasm_check_func (alt, "short32_fsum_%s", name)))
        run_short32 (dt, alt, s32, c.shortr[TN_RK_FSUM][t]);
    }
#endif
    if ((drows = checkasm_check_func (d->dev_rows[t], "rows_ddev_%s", name)))
      run_rows (TN_RK_DDEV, dt, NULL, NULL, d->dev_rows[t], drows);
    if ((dcols = checkasm_check_func (d->dev_cols[t], "cols_ddev_%s", name)))
      run_cols (TN_RK_DDEV, dt, NULL, NULL, d->dev_cols[t], dcols);
    if ((dstrip = checkasm_check_func (d->dev_strip[t], "strip_ddev_%s", name)))
      run_strip (TN_RK_DDEV, dt, NULL, NULL, d->dev_strip[t], dstrip);
  }
  tn_fpenv_leave (env);
}
