/* Philox4x32-10 against Random123's published answers, the block/lane
 * mapping against that single-block reference, statistics of the
 * distributions, and determinism under any split of the item range. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "core/cast.h"
#include "core/cpu.h"
#include "core/half.h"
#include "core/random.h"

#define N_STAT (1 << 20)

/* Random123 tests/kat_vectors, philox4x32 with 10 rounds. */
static void
test_kat (void)
{
  static const struct {
    uint32_t ctr[4], key[2], out[4];
  } kat[] = {
    { { 0, 0, 0, 0 }, { 0, 0 },
        { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 } },
    { { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff },
        { 0xffffffff, 0xffffffff },
        { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd } },
    { { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 },
        { 0xa4093822, 0x299f31d0 },
        { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } },
  };

  for (guint k = 0; k < G_N_ELEMENTS (kat); k++) {
    uint32_t out[4];

    tn_philox4x32_10 (kat[k].ctr, kat[k].key, out);
    for (int w = 0; w < 4; w++)
      g_assert_cmphex (out[w], ==, kat[k].out[w]);
  }
}

static void
block (uint64_t seed, uint64_t stream, uint64_t b, uint32_t out[4])
{
  uint32_t ctr[4] = { (uint32_t) b, (uint32_t) (b >> 32), (uint32_t) stream,
    (uint32_t) (stream >> 32) };
  uint32_t key[2] = { (uint32_t) seed, (uint32_t) (seed >> 32) };

  tn_philox4x32_10 (ctr, key, out);
}

/* The batched generators follow the documented layout exactly, including
 * a stream and seed with both halves non-zero and a first item far out. */
static void
check_layout (void)
{
  const uint64_t seed = 0x0123456789abcdefull, stream = 0xfedcba9876543210ull;
  const uint64_t first = 0x100000001ull * 4 + 3;
  float f[37];
  double d[37], z[37];

  tn_random_uniform_f32 (f, 37, seed, stream, first);
  tn_random_uniform_f64 (d, 37, seed, stream, first);
  tn_random_normal_f64 (z, 37, seed, stream, first);
  for (int i = 0; i < 37; i++) {
    uint64_t item = first + i;
    uint32_t o[4];
    double u1, u2, want;

    block (seed, stream, item / 4, o);
    g_assert_cmpfloat (f[i], ==, (o[item % 4] >> 8) / 16777216.0);

    block (seed, stream, item / 2, o);
    u1 = (double) ((uint64_t) o[0] << 21 | o[1] >> 11) / 9007199254740992.0;
    u2 = (double) ((uint64_t) o[2] << 21 | o[3] >> 11) / 9007199254740992.0;
    g_assert_cmpfloat (d[i], ==, item % 2 ? u2 : u1);
    /* Box-Muller, written out independently. */
    u1 += 1.0 / 9007199254740992.0;
    want = sqrt (-2 * log (u1))
           * (item % 2 ? sin (2 * G_PI * u2) : cos (2 * G_PI * u2));
    g_assert_cmpfloat_with_epsilon (z[i], want, 1e-12);
  }
}

/* Portable (mask 0), then whatever this CPU has; checkasm compares the
 * batch kernels themselves. */
static void
test_layout (void)
{
  unsigned old = tn_cpu_set_mask (0);

  check_layout ();
  tn_cpu_set_mask (~0u);
  check_layout ();
  tn_cpu_set_mask (old);
}

static void
test_uniform_range_and_moments (void)
{
  float *f = g_new (float, N_STAT);
  double *d = g_new (double, N_STAT);
  double sf = 0, sd = 0, qf = 0, qd = 0;
  /* 6 sigma of the sample mean and variance of U(0,1). */
  const double tol_mean = 6 * sqrt (1.0 / 12 / N_STAT);
  const double tol_var = 6 * sqrt ((1.0 / 80 - 1.0 / 144) / N_STAT);

  tn_random_uniform_f32 (f, N_STAT, 42, 7, 0);
  tn_random_uniform_f64 (d, N_STAT, 42, 7, 0);
  for (int i = 0; i < N_STAT; i++) {
    g_assert_cmpfloat (f[i], >=, 0.0f);
    g_assert_cmpfloat (f[i], <, 1.0f);
    g_assert_cmpfloat (d[i], >=, 0.0);
    g_assert_cmpfloat (d[i], <, 1.0);
    sf += f[i];
    sd += d[i];
  }
  sf /= N_STAT;
  sd /= N_STAT;
  for (int i = 0; i < N_STAT; i++) {
    qf += (f[i] - sf) * (f[i] - sf);
    qd += (d[i] - sd) * (d[i] - sd);
  }
  qf /= N_STAT;
  qd /= N_STAT;
  g_assert_cmpfloat (fabs (sf - 0.5), <, tol_mean);
  g_assert_cmpfloat (fabs (sd - 0.5), <, tol_mean);
  g_assert_cmpfloat (fabs (qf - 1.0 / 12), <, tol_var);
  g_assert_cmpfloat (fabs (qd - 1.0 / 12), <, tol_var);
  g_free (f);
  g_free (d);
}

static void
test_normal_moments (void)
{
  double *z = g_new (double, N_STAT);
  double s = 0, q = 0, within1 = 0;
  const double p1 = 0.682689492137086;

  tn_random_normal_f64 (z, N_STAT, 1, 0, 0);
  for (int i = 0; i < N_STAT; i++) {
    g_assert_cmpfloat (fabs (z[i]), <=, 8.58);
    s += z[i];
  }
  s /= N_STAT;
  for (int i = 0; i < N_STAT; i++) {
    q += (z[i] - s) * (z[i] - s);
    within1 += fabs (z[i]) < 1;
  }
  q /= N_STAT;
  within1 /= N_STAT;
  g_assert_cmpfloat (fabs (s), <, 6 / sqrt (N_STAT));
  g_assert_cmpfloat (fabs (q - 1), <, 6 * sqrt (2.0 / N_STAT));
  g_assert_cmpfloat (fabs (within1 - p1), <, 6 * sqrt (p1 * (1 - p1) / N_STAT));
  g_free (z);
}

/* Same (seed, stream, item) -> same bits, and each of the three inputs
 * changes them. */
static void
test_determinism (void)
{
  float a[64], b[64];

  tn_random_uniform_f32 (a, 64, 5, 9, 0);
  tn_random_uniform_f32 (b, 64, 5, 9, 0);
  g_assert_cmpmem (a, sizeof a, b, sizeof b);
  tn_random_uniform_f32 (b, 64, 6, 9, 0);
  g_assert_true (memcmp (a, b, sizeof a) != 0);
  tn_random_uniform_f32 (b, 64, 5, 10, 0);
  g_assert_true (memcmp (a, b, sizeof a) != 0);
  tn_random_uniform_f32 (b, 64, 5, 9, 64);
  g_assert_true (memcmp (a, b, sizeof a) != 0);
  /* Seeds that differ only in the upper 32 bits differ too. */
  tn_random_uniform_f32 (b, 64, 5 | (1ull << 32), 9, 0);
  g_assert_true (memcmp (a, b, sizeof a) != 0);
}

/* A range split at borders that cut blocks and batches in the middle gives
 * the bytes of one call: this is what lets threads or seeks share work. */
static void
test_split (void)
{
  enum { N = 3000 };
  static const size_t cuts[] = { 0, 1, 7, 65, 1024, 1025, 2999, N };
  static const tn_dtype dts[]
      = { TN_FLOAT32, TN_FLOAT64, TN_FLOAT16, TN_INT16, TN_UINT64 };
  float f1[N], f2[N];
  double d1[N], d2[N], z1[N], z2[N];

  tn_random_uniform_f32 (f1, N, 3, 4, 0);
  tn_random_uniform_f64 (d1, N, 3, 4, 0);
  tn_random_normal_f64 (z1, N, 3, 4, 0);
  for (guint c = 0; c + 1 < G_N_ELEMENTS (cuts); c++) {
    size_t a = cuts[c], n = cuts[c + 1] - cuts[c];

    tn_random_uniform_f32 (f2 + a, n, 3, 4, a);
    tn_random_uniform_f64 (d2 + a, n, 3, 4, a);
    tn_random_normal_f64 (z2 + a, n, 3, 4, a);
  }
  g_assert_cmpmem (f1, sizeof f1, f2, sizeof f2);
  g_assert_cmpmem (d1, sizeof d1, d2, sizeof d2);
  g_assert_cmpmem (z1, sizeof z1, z2, sizeof z2);

  for (guint t = 0; t < G_N_ELEMENTS (dts); t++) {
    size_t isz = tn_dtype_size (dts[t]);
    guint8 *w1 = g_malloc (N * isz), *w2 = g_malloc (N * isz);
    guint8 *n1 = g_malloc (N * isz), *n2 = g_malloc (N * isz);

    g_assert_cmpint (
        tn_random_fill_uniform (w1, dts[t], 0, N, -5, 5, 11, 2, NULL), ==, 0);
    g_assert_cmpint (
        tn_random_fill_normal (n1, dts[t], 0, N, 1, 3, 11, 2, NULL), ==, 0);
    for (guint c = 0; c + 1 < G_N_ELEMENTS (cuts); c++) {
      size_t a = cuts[c], n = cuts[c + 1] - cuts[c];

      g_assert_cmpint (tn_random_fill_uniform (
                           w2 + a * isz, dts[t], a, n, -5, 5, 11, 2, NULL),
          ==, 0);
      g_assert_cmpint (
          tn_random_fill_normal (n2 + a * isz, dts[t], a, n, 1, 3, 11, 2, NULL),
          ==, 0);
    }
    g_assert_cmpmem (w1, N * isz, w2, N * isz);
    g_assert_cmpmem (n1, N * isz, n2, N * isz);
    g_free (w1);
    g_free (w2);
    g_free (n1);
    g_free (n2);
  }
}

/* float64 and float32 in [0, 1) are the raw uniforms themselves. */
static void
test_fill_uniform_identity (void)
{
  enum { N = 2500 };
  double d[N], u[N];
  float f[N], uf[N];

  g_assert_cmpint (
      tn_random_fill_uniform (d, TN_FLOAT64, 10, N, 0, 1, 8, 1, NULL), ==, 0);
  tn_random_uniform_f64 (u, N, 8, 1, 10);
  g_assert_cmpmem (d, sizeof d, u, sizeof u);
  g_assert_cmpint (
      tn_random_fill_uniform (f, TN_FLOAT32, 10, N, 0, 1, 8, 1, NULL), ==, 0);
  tn_random_uniform_f32 (uf, N, 8, 1, 10);
  g_assert_cmpmem (f, sizeof f, uf, sizeof uf);
  /* [2, 6): 2 + 4u, exact in binary. */
  g_assert_cmpint (
      tn_random_fill_uniform (d, TN_FLOAT64, 10, N, 2, 6, 8, 1, NULL), ==, 0);
  for (int i = 0; i < N; i++)
    g_assert_cmpfloat (d[i], ==, 2 + 4 * u[i]);
}

/* Every float dtype stays inside [low, high) even where rounding to the
 * dtype would reach high or fall below low. */
static void
test_fill_uniform_float_bounds (void)
{
  static const struct {
    tn_dtype dt;
    double low, high;
  } c[] = {
    { TN_FLOAT16, 0, 1 }, /* 1 - 2^-24 rounds to 1 in float16 */
    { TN_BFLOAT16, 0, 1 },
    { TN_FLOAT16, 100, 100.1 }, /* only 100 and 100.0625 lie inside */
    { TN_BFLOAT16, -1, -0.99 },
    { TN_FLOAT32, 0.1, 0.2 }, /* 0.1 is not a float32 */
    { TN_FLOAT32, 100, 101 },
    { TN_FLOAT64, -1e300, 1e300 }, /* high - low overflows */
    { TN_FLOAT16, -1e6, 1e6 },     /* beyond float16's range: +-65504 */
    { TN_FLOAT32, -1e-40, 0 },     /* high 0: largest float below is -2^-149 */
  };
  enum { N = 200000 };
  guint8 *buf = g_malloc (N * 8);

  for (guint k = 0; k < G_N_ELEMENTS (c); k++) {
    size_t isz = tn_dtype_size (c[k].dt);
    double cap = c[k].dt == TN_FLOAT16 ? 65504 : INFINITY;
    double mn = INFINITY, mx = -INFINITY;

    g_assert_cmpint (tn_random_fill_uniform (
                         buf, c[k].dt, 0, N, c[k].low, c[k].high, k, 0, NULL),
        ==, 0);
    for (int i = 0; i < N; i++) {
      double v = tn_get_f64 (buf + i * isz, c[k].dt);

      g_assert_cmpfloat (v, >=, c[k].low);
      g_assert_cmpfloat (v, <, c[k].high);
      mn = MIN (mn, v);
      mx = MAX (mx, v);
    }
    /* The draws spread over the interval, not onto one clamped value. */
    g_assert_cmpfloat (
        mx - mn, >=, 0.5 * (MIN (c[k].high, cap) - MAX (c[k].low, -cap)));
  }
  /* float16 [100, 100.1): the two values inside, about equally often. */
  {
    int n100 = 0;

    tn_random_fill_uniform (buf, TN_FLOAT16, 0, N, 100, 100.1, 1, 0, NULL);
    for (int i = 0; i < N; i++) {
      double v = tn_get_f64 (buf + 2 * i, TN_FLOAT16);

      g_assert_true (v == 100 || v == 100.0625);
      n100 += v == 100;
    }
    /* 100 takes draws below 100.03125 (half an ulp): 0.3125 of them. */
    g_assert_cmpfloat (
        fabs (n100 / (double) N - 0.3125), <, 6 * sqrt (0.3125 * 0.6875 / N));
  }
  g_free (buf);
}

/* Integers: every value of [ceil(low), ceil(high)) equally often. */
static void
test_fill_uniform_int (void)
{
  enum { N = 600000 };
  gint8 *i8 = g_new (gint8, N);
  guint8 *u8 = g_new (guint8, N);
  gint64 *i64 = g_new (gint64, N);
  int count[256] = { 0 };

  /* int8 [-3, 3): six values. */
  tn_random_fill_uniform (i8, TN_INT8, 0, N, -3, 3, 1, 2, NULL);
  for (int i = 0; i < N; i++) {
    g_assert_cmpint (i8[i], >=, -3);
    g_assert_cmpint (i8[i], <=, 2);
    count[i8[i] + 3]++;
  }
  for (int v = 0; v < 6; v++)
    g_assert_cmpfloat (
        fabs (count[v] - N / 6.0), <, 6 * sqrt (N * (1 / 6.0) * (5 / 6.0)));

  /* [0.5, 3.5) holds 1, 2 and 3. */
  memset (count, 0, sizeof count);
  tn_random_fill_uniform (u8, TN_UINT8, 0, N, 0.5, 3.5, 1, 2, NULL);
  for (int i = 0; i < N; i++)
    count[u8[i]]++;
  g_assert_cmpint (count[0], ==, 0);
  g_assert_cmpint (count[1] + count[2] + count[3], ==, N);
  for (int v = 1; v <= 3; v++)
    g_assert_cmpfloat (
        fabs (count[v] - N / 3.0), <, 6 * sqrt (N * (1 / 3.0) * (2 / 3.0)));

  /* uint8 [-10, 300) saturates: 0 takes 11 of 310 integers, 255 takes 45. */
  memset (count, 0, sizeof count);
  tn_random_fill_uniform (u8, TN_UINT8, 0, N, -10, 300, 1, 2, NULL);
  for (int i = 0; i < N; i++)
    count[u8[i]]++;
  g_assert_cmpfloat (
      fabs (count[0] - N * 11 / 310.0), <, 6 * sqrt (N * (11 / 310.0)));
  g_assert_cmpfloat (
      fabs (count[255] - N * 45 / 310.0), <, 6 * sqrt (N * (45 / 310.0)));
  g_assert_cmpfloat (fabs (count[100] - N / 310.0), <, 6 * sqrt (N / 310.0));

  /* No integer in [0.2, 0.8): ceil(low) everywhere. */
  tn_random_fill_uniform (i8, TN_INT8, 0, 1000, 0.2, 0.8, 1, 2, NULL);
  for (int i = 0; i < 1000; i++)
    g_assert_cmpint (i8[i], ==, 1);

  /* Bounds whose distance overflows: int8 saturates at both ends about
   * equally often. */
  {
    int lo = 0, hi = 0;

    tn_random_fill_uniform (i8, TN_INT8, 0, N, -1e308, 1e308, 5, 0, NULL);
    for (int i = 0; i < N; i++) {
      lo += i8[i] == -128;
      hi += i8[i] == 127;
    }
    g_assert_cmpint (lo + hi, ==, N);
    g_assert_cmpfloat (fabs (lo - N / 2.0), <, 6 * sqrt (N / 4.0));
  }

  /* A wide int64 range: mean near the middle, inside the bounds. */
  {
    double s = 0;
    const double lo = -1e15, hi = 3e15;

    tn_random_fill_uniform (i64, TN_INT64, 0, N, lo, hi, 4, 0, NULL);
    for (int i = 0; i < N; i++) {
      g_assert_cmpint (i64[i], >=, (gint64) lo);
      g_assert_cmpint (i64[i], <, (gint64) hi);
      s += (double) i64[i];
    }
    s /= N;
    g_assert_cmpfloat (fabs (s - 1e15), <, 6 * 4e15 / sqrt (12.0 * N));
  }

  /* bool [0, 2): a fair coin. */
  {
    guint8 *b = u8;
    int ones = 0;

    tn_random_fill_uniform (b, TN_BOOL, 0, N, 0, 2, 9, 9, NULL);
    for (int i = 0; i < N; i++) {
      g_assert_cmpint (b[i], <=, 1);
      ones += b[i];
    }
    g_assert_cmpfloat (fabs (ones - N / 2.0), <, 6 * sqrt (N / 4.0));
  }
  g_free (i8);
  g_free (u8);
  g_free (i64);
}

static void
test_fill_normal (void)
{
  enum { N = 1 << 20 };
  float *f = g_new (float, N);
  gint16 *s16 = g_new (gint16, N);
  double *z = g_new (double, N);
  double s = 0, q = 0;

  g_assert_cmpint (
      tn_random_fill_normal (f, TN_FLOAT32, 0, N, 10, 2, 77, 3, NULL), ==, 0);
  for (int i = 0; i < N; i++)
    s += f[i];
  s /= N;
  for (int i = 0; i < N; i++)
    q += (f[i] - s) * (f[i] - s);
  q /= N;
  g_assert_cmpfloat (fabs (s - 10), <, 6 * 2 / sqrt (N));
  g_assert_cmpfloat (fabs (q - 4), <, 6 * 4 * sqrt (2.0 / N));

  /* Integers are the float64 values truncated toward zero. */
  tn_random_fill_normal (s16, TN_INT16, 0, N, -3, 100, 77, 3, NULL);
  tn_random_normal_f64 (z, N, 77, 3, 0);
  for (int i = 0; i < N; i++)
    g_assert_cmpint (s16[i], ==, (gint16) trunc (-3 + 100 * z[i]));

  /* stddev 0 gives the mean exactly. */
  tn_random_fill_normal (f, TN_FLOAT32, 0, 100, 1.5, 0, 1, 1, NULL);
  for (int i = 0; i < 100; i++)
    g_assert_cmpfloat (f[i], ==, 1.5f);

  /* Saturation: int8 with a huge mean is 127 everywhere. */
  tn_random_fill_normal (s16, TN_INT8, 0, 100, 1e9, 1, 1, 1, NULL);
  for (int i = 0; i < 100; i++)
    g_assert_cmpint (((gint8 *) s16)[i], ==, 127);
  g_free (f);
  g_free (s16);
  g_free (z);
}

static void
expect_error (int rc, const tn_err *e, const char *const *words)
{
  g_assert_cmpint (rc, ==, -1);
  for (; *words; words++) {
    if (!strstr (e->msg, *words))
      g_error ("message \"%s\" lacks \"%s\"", e->msg, *words);
  }
  g_assert_cmpint (e->msg[strlen (e->msg) - 1], ==, '.');
}

static void
test_errors (void)
{
  tn_err e;
  float f[4] = { 7, 7, 7, 7 };

  expect_error (tn_random_fill_uniform (f, TN_FLOAT32, 0, 4, 3, 1, 0, 0, &e),
      &e, (const char *[]){ "low 3", "high 1", "low < high", NULL });
  expect_error (tn_random_fill_uniform (f, TN_FLOAT32, 0, 4, 2, 2, 0, 0, &e),
      &e, (const char *[]){ "low 2", "high 2", NULL });
  expect_error (tn_random_fill_uniform (f, TN_FLOAT32, 0, 4, NAN, 1, 0, 0, &e),
      &e, (const char *[]){ "low nan", "high 1", NULL });
  expect_error (
      tn_random_fill_uniform (f, TN_FLOAT32, 0, 4, 0, INFINITY, 0, 0, &e), &e,
      (const char *[]){ "low 0", "high inf", NULL });
  expect_error (tn_random_fill_uniform (f, (tn_dtype) 13, 0, 4, 0, 1, 0, 0, &e),
      &e, (const char *[]){ "tag 13", "13 dtypes", NULL });
  expect_error (tn_random_fill_normal (f, TN_FLOAT32, 0, 4, 0, -0.5, 0, 0, &e),
      &e, (const char *[]){ "stddev -0.5", "mean 0", NULL });
  expect_error (tn_random_fill_normal (f, TN_FLOAT32, 0, 4, 0, NAN, 0, 0, &e),
      &e, (const char *[]){ "stddev nan", NULL });
  expect_error (
      tn_random_fill_normal (f, TN_FLOAT32, 0, 4, INFINITY, 1, 0, 0, &e), &e,
      (const char *[]){ "mean inf", "stddev 1", NULL });
  expect_error (tn_random_fill_normal (f, (tn_dtype) -1, 0, 4, 0, 1, 0, 0, &e),
      &e, (const char *[]){ "tag -1", NULL });
  /* A failed call writes nothing; a NULL tn_err is allowed. */
  g_assert_cmpint (
      tn_random_fill_uniform (f, TN_FLOAT32, 0, 4, 1, 0, 0, 0, NULL), ==, -1);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (f[i], ==, 7);
  /* n = 0 touches nothing. */
  g_assert_cmpint (
      tn_random_fill_uniform (NULL, TN_FLOAT32, 0, 0, 0, 1, 0, 0, &e), ==, 0);
  g_assert_cmpint (
      tn_random_fill_normal (NULL, TN_INT8, 0, 0, 0, 1, 0, 0, &e), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/random/kat", test_kat);
  g_test_add_func ("/random/layout", test_layout);
  g_test_add_func ("/random/uniform-moments", test_uniform_range_and_moments);
  g_test_add_func ("/random/normal-moments", test_normal_moments);
  g_test_add_func ("/random/determinism", test_determinism);
  g_test_add_func ("/random/split", test_split);
  g_test_add_func ("/random/fill-uniform-identity", test_fill_uniform_identity);
  g_test_add_func (
      "/random/fill-uniform-float-bounds", test_fill_uniform_float_bounds);
  g_test_add_func ("/random/fill-uniform-int", test_fill_uniform_int);
  g_test_add_func ("/random/fill-normal", test_fill_normal);
  g_test_add_func ("/random/errors", test_errors);
  return g_test_run ();
}
