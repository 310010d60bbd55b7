/* tn_cast / tn_get_f64 / tn_set_f64 for every pair of dtypes against golden
 * data from tests/data/gen/gen_cast.py, and tn_format_item against NumPy's text
 * worked out by hand. */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cast.h"
#include "core/cpu.h"
#include "core/half.h"
#include "ftz.h"
#include "tests/common/npyread.h"

/* The golden files' element types (bool sources are bytes, bfloat16 is its
 * bits). */
static const gchar *const src_descr[TN_NDTYPES] = { "|u1", "|i1", "|u1", "<i2",
  "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<u2", "<f4", "<f8" };
static const gchar *const dst_descr[TN_NDTYPES] = { "|b1", "|i1", "|u1", "<i2",
  "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<u2", "<f4", "<f8" };

typedef struct {
  Npy src[TN_NDTYPES];
  Npy dst[TN_NDTYPES];
  gsize n; /* items per source */
} Golden;

static void
golden_load (Golden *g)
{
  int t;

  for (t = 0; t < TN_NDTYPES; t++) {
    gchar *name = g_strdup_printf ("cast_src_%s.npy", tn_dtype_name (t));
    npy_load_descr (&g->src[t], name, src_descr[t]);
    g_free (name);
    name = g_strdup_printf ("cast_to_%s.npy", tn_dtype_name (t));
    npy_load_descr (&g->dst[t], name, dst_descr[t]);
    g_free (name);
  }
  g->n = g->src[0].count;
  g_assert_cmpuint (g->n, >=, 100);
  for (t = 0; t < TN_NDTYPES; t++) {
    g_assert_cmpuint (g->src[t].count, ==, g->n);
    g_assert_cmpuint (g->dst[t].count, ==, TN_NDTYPES * g->n);
  }
}

static void
golden_clear (Golden *g)
{
  int t;

  for (t = 0; t < TN_NDTYPES; t++) {
    npy_clear (&g->src[t]);
    npy_clear (&g->dst[t]);
  }
}

/* Item i of row st in the expected output of dt. */
static const guint8 *
expected (const Golden *g, tn_dtype st, tn_dtype dt, gsize i)
{
  return g->dst[dt].data + (st * g->n + i) * tn_dtype_size (dt);
}

static gboolean
item_is_nan (const void *p, tn_dtype t)
{
  return tn_dtype_kind (t) == TN_KIND_FLOAT && isnan (tn_get_f64 (p, t));
}

/* Equal bits, or both NaN (NaN-ness is all the rules promise). */
static void
check_item (const gchar *what, const void *got, const void *want, tn_dtype st,
    tn_dtype dt, const void *src, gsize i)
{
  gsize sz = tn_dtype_size (dt);
  char gs[64], ws[64], ss[64];

  if (item_is_nan (want, dt) ? item_is_nan (got, dt)
                             : memcmp (got, want, sz) == 0)
    return;
  tn_format_item (gs, sizeof gs, got, dt);
  tn_format_item (ws, sizeof ws, want, dt);
  tn_format_item (ss, sizeof ss, src, st);
  g_error ("%s: %s -> %s, item %" G_GSIZE_FORMAT ": %s gave %s, expected %s",
      what, tn_dtype_name (st), tn_dtype_name (dt), i, ss, gs, ws);
}

static void
check_matrix (const gchar *what)
{
  Golden g;
  guint8 *out;
  int st, dt;
  gsize i;

  golden_load (&g);
  out = g_malloc (g.n * 8 + 8);
  for (st = 0; st < TN_NDTYPES; st++) {
    for (dt = 0; dt < TN_NDTYPES; dt++) {
      gsize dsz = tn_dtype_size (dt), ssz = tn_dtype_size (st);
      /* All at once (the vector bodies of the fast paths), then item by
       * item (their scalar tails) at an odd element offset. */
      memset (out, 0xa5, g.n * 8 + 8);
      tn_cast (out, dt, g.src[st].data, st, g.n);
      for (i = 0; i < g.n; i++)
        check_item (what, out + i * dsz, expected (&g, st, dt, i), st, dt,
            g.src[st].data + i * ssz, i);
      g_assert_cmphex (out[g.n * dsz], ==, 0xa5);
      for (i = 0; i < g.n; i++)
        tn_cast (out + (i + 1) * dsz, dt, g.src[st].data + i * ssz, st, 1);
      for (i = 0; i < g.n; i++)
        check_item (what, out + (i + 1) * dsz, expected (&g, st, dt, i), st, dt,
            g.src[st].data + i * ssz, i);
    }
  }
  g_free (out);
  golden_clear (&g);
}

/* Portable kernels (CPU mask 0), then all this CPU has. */
static void
test_matrix (void)
{
  unsigned old = tn_cpu_set_mask (0);
  char what[48];

  check_matrix ("portable");
  tn_cpu_set_mask (~0u);
  check_matrix (tn_cpu_names (tn_cpu_flags (), what, sizeof what));
  tn_cpu_set_mask (old);
}

/* Every run length 0..n at every start offset 0..3 for the hot pairs: the
 * vector body and the tail must agree with the golden row, and nothing
 * outside [start, start + len) may be written. */
static void
test_hot_lengths (void)
{
  static const tn_dtype pairs[][2] = {
    { TN_UINT8, TN_FLOAT32 },
    { TN_FLOAT32, TN_UINT8 },
    { TN_FLOAT32, TN_FLOAT64 },
    { TN_FLOAT64, TN_FLOAT32 },
    { TN_FLOAT16, TN_FLOAT32 },
    { TN_FLOAT32, TN_FLOAT16 },
    { TN_BFLOAT16, TN_FLOAT32 },
    { TN_FLOAT32, TN_BFLOAT16 },
  };
  Golden g;
  guint8 *out;
  gsize k, len, off, i;

  golden_load (&g);
  out = g_malloc (g.n * 8 + 64);
  for (k = 0; k < G_N_ELEMENTS (pairs); k++) {
    tn_dtype st = pairs[k][0], dt = pairs[k][1];
    gsize dsz = tn_dtype_size (dt), ssz = tn_dtype_size (st);
    for (off = 0; off < 4; off++) {
      for (len = 0; len + off <= 40; len++) {
        memset (out, 0x5a, g.n * 8 + 64);
        tn_cast (out + off * dsz, dt, g.src[st].data + off * ssz, st, len);
        for (i = 0; i < off * dsz; i++)
          g_assert_cmphex (out[i], ==, 0x5a);
        for (i = off; i < off + len; i++)
          check_item ("lengths", out + i * dsz, expected (&g, st, dt, i), st,
              dt, g.src[st].data + i * ssz, i);
        for (i = (off + len) * dsz; i < (off + len + 8) * dsz; i++)
          g_assert_cmphex (out[i], ==, 0x5a);
      }
    }
  }
  g_free (out);
  golden_clear (&g);
}

/* tn_get_f64 is the cast to float64; tn_set_f64 is the cast from it. */
static void
test_get_set (void)
{
  Golden g;
  guint8 item[8];
  int t;
  gsize i;

  golden_load (&g);
  for (t = 0; t < TN_NDTYPES; t++) {
    for (i = 0; i < g.n; i++) {
      const guint8 *p = g.src[t].data + i * tn_dtype_size (t);
      double got = tn_get_f64 (p, t), want;
      memcpy (&want, expected (&g, t, TN_FLOAT64, i), 8);
      if (isnan (want))
        g_assert_true (isnan (got));
      else
        g_assert_cmpmem (&got, 8, &want, 8);
    }
  }
  for (t = 0; t < TN_NDTYPES; t++) {
    for (i = 0; i < g.n; i++) {
      double v;
      memcpy (&v, g.src[TN_FLOAT64].data + i * 8, 8);
      memset (item, 0xa5, sizeof item);
      tn_set_f64 (item, t, v);
      check_item ("set_f64", item, expected (&g, TN_FLOAT64, t, i), TN_FLOAT64,
          t, &v, i);
      if (tn_dtype_size (t) < 8)
        g_assert_cmphex (item[tn_dtype_size (t)], ==, 0xa5);
    }
  }
  golden_clear (&g);
  /* Hand-checked anchors. */
  {
    guint8 b = 7;
    gint64 i64 = G_MININT64;
    guint16 h;
    g_assert_cmpfloat (tn_get_f64 (&b, TN_BOOL), ==, 1.0);
    g_assert_cmpfloat (tn_get_f64 (&i64, TN_INT64), ==, -0x1p63);
    tn_set_f64 (&i64, TN_INT64, -1e300);
    g_assert_cmpint (i64, ==, G_MININT64);
    tn_set_f64 (&i64, TN_INT64, -2.9);
    g_assert_cmpint (i64, ==, -2);
    tn_set_f64 (&b, TN_UINT8, 255.9);
    g_assert_cmpuint (b, ==, 255);
    tn_set_f64 (&b, TN_BOOL, NAN);
    g_assert_cmpuint (b, ==, 1);
    tn_set_f64 (&h, TN_FLOAT16, 1.0 + 0x1p-11 + 0x1p-40);
    g_assert_cmphex (h, ==, 0x3c01);
  }
}

/* dst == src with equal item sizes is allowed. */
static void
test_in_place (void)
{
  static const tn_dtype pairs[][2] = {
    { TN_INT32, TN_FLOAT32 },
    { TN_FLOAT32, TN_INT32 },
    { TN_FLOAT32, TN_UINT32 },
    { TN_UINT8, TN_BOOL },
    { TN_INT8, TN_UINT8 },
    { TN_INT64, TN_FLOAT64 },
    { TN_FLOAT64, TN_UINT64 },
    { TN_FLOAT16, TN_BFLOAT16 },
    { TN_BFLOAT16, TN_INT16 },
    { TN_BOOL, TN_BOOL },
  };
  Golden g;
  guint8 *buf;
  gsize k, i;

  golden_load (&g);
  buf = g_malloc (g.n * 8);
  for (k = 0; k < G_N_ELEMENTS (pairs); k++) {
    tn_dtype st = pairs[k][0], dt = pairs[k][1];
    gsize sz = tn_dtype_size (st);
    g_assert_cmpuint (sz, ==, tn_dtype_size (dt));
    memcpy (buf, g.src[st].data, g.n * sz);
    tn_cast (buf, dt, buf, st, g.n);
    for (i = 0; i < g.n; i++)
      check_item ("in place", buf + i * sz, expected (&g, st, dt, i), st, dt,
          g.src[st].data + i * sz, i);
  }
  g_free (buf);
  golden_clear (&g);
}

/* Same dtype copies bits, so a NaN keeps its payload exactly; bool is the
 * exception that normalizes to 0/1. */
static void
test_same_dtype (void)
{
  const guint32 f[4] = { 0x7f800001, 0xffc12345, 0x80000000, 0x3f800000 };
  const guint16 h[3] = { 0x7c01, 0xfe00, 0x8000 };
  const guint8 b[4] = { 0, 1, 2, 255 };
  const guint8 bw[4] = { 0, 1, 1, 1 };
  guint32 fo[4];
  guint16 ho[3];
  guint8 bo[4];

  tn_cast (fo, TN_FLOAT32, f, TN_FLOAT32, 4);
  g_assert_cmpmem (fo, sizeof fo, f, sizeof f);
  tn_cast (ho, TN_FLOAT16, h, TN_FLOAT16, 3);
  g_assert_cmpmem (ho, sizeof ho, h, sizeof h);
  tn_cast (ho, TN_BFLOAT16, h, TN_BFLOAT16, 3);
  g_assert_cmpmem (ho, sizeof ho, h, sizeof h);
  tn_cast (bo, TN_BOOL, b, TN_BOOL, 4);
  g_assert_cmpmem (bo, sizeof bo, bw, sizeof bw);
  memcpy (bo, b, 4);
  tn_cast (bo, TN_BOOL, bo, TN_BOOL, 4);
  g_assert_cmpmem (bo, sizeof bo, bw, sizeof bw);
}

/* Bad tags never write and never crash. */
static void
test_invalid (void)
{
  guint8 buf[16], before[16];
  char s[8];

  memset (buf, 0x33, sizeof buf);
  memcpy (before, buf, sizeof buf);
  tn_cast (buf, (tn_dtype) 99, buf + 8, TN_INT8, 4);
  tn_cast (buf, TN_INT8, buf + 8, (tn_dtype) -1, 4);
  tn_cast (buf, TN_NDTYPES, buf + 8, TN_INT8, 4);
  tn_set_f64 (buf, (tn_dtype) 13, 1.0);
  g_assert_cmpmem (buf, sizeof buf, before, sizeof before);
  g_assert_true (isnan (tn_get_f64 (buf, (tn_dtype) 13)));
  g_assert_cmpint (tn_format_item (s, sizeof s, buf, (tn_dtype) 42), ==, 1);
  g_assert_cmpstr (s, ==, "?");
  /* n == 0 reads and writes nothing, whatever the pointers. */
  tn_cast (NULL, TN_FLOAT32, NULL, TN_UINT8, 0);
}

/* Hand-written NumPy reprs (checked against numpy 1.24). */
static void
expect_fmt (const void *p, tn_dtype t, const char *want)
{
  char s[64];
  int n = tn_format_item (s, sizeof s, p, t);

  if (strcmp (s, want) != 0)
    g_error ("%s item formatted as \"%s\", expected \"%s\"", tn_dtype_name (t),
        s, want);
  g_assert_cmpint (n, ==, (int) strlen (want));
}

static void
fmt_f32 (float v, const char *want)
{
  expect_fmt (&v, TN_FLOAT32, want);
}

static void
fmt_f64 (double v, const char *want)
{
  expect_fmt (&v, TN_FLOAT64, want);
}

static void
fmt_bits16 (guint16 b, tn_dtype t, const char *want)
{
  expect_fmt (&b, t, want);
}

static void
test_format (void)
{
  guint8 b;
  gint8 i8 = -128;
  guint64 u64 = G_MAXUINT64;
  gint64 i64 = G_MININT64;
  gint32 i32 = 0;
  guint16 u16 = 65535;

  b = 1;
  expect_fmt (&b, TN_BOOL, "True");
  b = 0;
  expect_fmt (&b, TN_BOOL, "False");
  b = 2;
  expect_fmt (&b, TN_BOOL, "True");
  expect_fmt (&i8, TN_INT8, "-128");
  expect_fmt (&i8, TN_UINT8, "128");
  expect_fmt (&u64, TN_UINT64, "18446744073709551615");
  expect_fmt (&i64, TN_INT64, "-9223372036854775808");
  expect_fmt (&i32, TN_INT32, "0");
  expect_fmt (&u16, TN_UINT16, "65535");

  fmt_f32 (0.1f, "0.1");
  fmt_f32 (3.0f, "3.0");
  fmt_f32 (1.5f, "1.5");
  fmt_f32 (-0.0f, "-0.0");
  fmt_f32 (0.0f, "0.0");
  fmt_f32 (NAN, "nan");
  fmt_f32 (-NAN, "nan");
  fmt_f32 (INFINITY, "inf");
  fmt_f32 (-INFINITY, "-inf");
  fmt_f32 (1.0f / 3, "0.33333334");
  fmt_f32 (123456789.0f, "123456790.0");
  fmt_f32 (1e16f, "1e+16");
  fmt_f32 (1e15f, "1000000000000000.0");
  fmt_f32 (1e-4f, "1e-04"); /* 1e-4f is just below 1e-4 */
  fmt_f32 (1.2345678e-4f, "0.00012345678");
  fmt_f32 (1e-5f, "1e-05");
  fmt_f32 (16777216.0f, "16777216.0");
  fmt_f32 (3.4028235e38f, "3.4028235e+38");
  fmt_f32 (0x1p-149f, "1e-45");
  fmt_f32 (-2.5e-8f, "-2.5e-08");

  fmt_f64 (0.1, "0.1");
  fmt_f64 (0.3, "0.3");
  fmt_f64 (1.0 / 3, "0.3333333333333333");
  fmt_f64 (2.0 / 3, "0.6666666666666666");
  fmt_f64 (100.0, "100.0");
  fmt_f64 (12345.678, "12345.678");
  fmt_f64 (1e16, "1e+16");
  fmt_f64 (9999999999999998.0, "9999999999999998.0");
  fmt_f64 (1e-4, "0.0001");
  fmt_f64 (1.5e-5, "1.5e-05");
  fmt_f64 (1e-7, "1e-07");
  fmt_f64 (5e-324, "5e-324");
  fmt_f64 (1e300, "1e+300");
  fmt_f64 (-1e300, "-1e+300");
  fmt_f64 (123456789.0, "123456789.0");
  fmt_f64 (0x1p53, "9007199254740992.0");
  fmt_f64 (1.7976931348623157e308, "1.7976931348623157e+308");

  fmt_bits16 (0x3c00, TN_FLOAT16, "1.0");
  fmt_bits16 (0x7bff, TN_FLOAT16, "65500.0");
  fmt_bits16 (0x2e66, TN_FLOAT16, "0.1");
  fmt_bits16 (0x3555, TN_FLOAT16, "0.3333");
  fmt_bits16 (0x0001, TN_FLOAT16, "6e-08");
  fmt_bits16 (0x0002, TN_FLOAT16, "1e-07");
  fmt_bits16 (0x0400, TN_FLOAT16, "6.104e-05");
  fmt_bits16 (0x03ff, TN_FLOAT16, "6.1e-05");
  fmt_bits16 (0x5640, TN_FLOAT16, "100.0");
  fmt_bits16 (0x8000, TN_FLOAT16, "-0.0");
  fmt_bits16 (0xfc00, TN_FLOAT16, "-inf");
  fmt_bits16 (0x7e00, TN_FLOAT16, "nan");

  fmt_bits16 (0x3f80, TN_BFLOAT16, "1.0");
  fmt_bits16 (0x3dcd, TN_BFLOAT16, "0.1");
  fmt_bits16 (0x4049, TN_BFLOAT16, "3.14");
  fmt_bits16 (0x3eab, TN_BFLOAT16, "0.334");
  fmt_bits16 (0x7f7f, TN_BFLOAT16, "3.39e+38");
  fmt_bits16 (0x0001, TN_BFLOAT16, "9e-41");
  fmt_bits16 (0xff80, TN_BFLOAT16, "-inf");
  fmt_bits16 (0x7fc0, TN_BFLOAT16, "nan");
}

/* Like snprintf: cut to cap - 1 bytes, NUL-terminated, full length back. */
static void
test_format_truncated (void)
{
  char s[8];
  double v = 1.0 / 3;
  gint64 i = -1234567890123LL;

  memset (s, 'x', sizeof s);
  g_assert_cmpint (tn_format_item (s, 5, &v, TN_FLOAT64), ==, 18);
  g_assert_cmpstr (s, ==, "0.33");
  g_assert_cmpint (s[5], ==, 'x');
  g_assert_cmpint (tn_format_item (s, 4, &i, TN_INT64), ==, 14);
  g_assert_cmpstr (s, ==, "-12");
  g_assert_cmpint (tn_format_item (NULL, 0, &i, TN_INT64), ==, 14);
}

/* Significant digits in a decimal text ("0.00120e-5" has 3). */
static int
sig_digits (const char *s)
{
  int n = 0, trail = 0;
  gboolean started = FALSE;

  for (; *s && *s != 'e'; s++) {
    if (*s < '0' || *s > '9')
      continue;
    if (*s != '0')
      started = TRUE;
    if (started) {
      n++;
      trail = *s == '0' ? trail + 1 : 0;
    }
  }
  return n - trail;
}

/* Identity: every float16 and bfloat16 reads back from its text, and no
 * shorter text would (dropping the last significant digit breaks it). */
static void
test_format_roundtrip (void)
{
  char s[64];
  guint i;

  for (i = 0; i < 65536; i++) {
    guint16 h = i;
    int t;
    for (t = TN_FLOAT16; t <= TN_BFLOAT16; t++) {
      double v = tn_get_f64 (&h, t);
      guint16 back;
      if (isnan (v) || isinf (v))
        continue;
      tn_format_item (s, sizeof s, &h, t);
      tn_set_f64 (&back, t, g_ascii_strtod (s, NULL));
      if (back != h)
        g_error ("%s 0x%04x printed as %s reads back as 0x%04x",
            tn_dtype_name (t), h, s, back);
      if (sig_digits (s) > 1) {
        char shorter[64];
        g_snprintf (shorter, sizeof shorter, "%.*e", sig_digits (s) - 2, v);
        tn_set_f64 (&back, t, g_ascii_strtod (shorter, NULL));
        if (back == h)
          g_error ("%s 0x%04x printed as %s, but %s reads back too",
              tn_dtype_name (t), h, s, shorter);
      }
    }
  }
  /* A float32 sweep over every exponent. */
  for (i = 0; i < 0x7f800000u; i += 0x7f801) {
    float f, back;
    memcpy (&f, &i, 4);
    tn_format_item (s, sizeof s, &f, TN_FLOAT32);
    back = strtof (s, NULL);
    g_assert_cmpmem (&back, 4, &f, 4);
  }
}

/* With flush-to-zero and denormals-are-zero set on the calling thread (as
 * GStreamer's pitch element leaves them), every subnormal still formats
 * as NumPy's repr writes it (values from numpy 1.24), a 64-byte buffer
 * holds it (5e-315 once wrote 314 zeros into the formatter's out[64]),
 * and the caller's MXCSR comes back unchanged. */
static void
test_format_ftz (void)
{
  static const struct {
    tn_dtype t;
    guint64 bits;
    const char *want;
  } c[] = {
    { TN_FLOAT64, 0x3c521103, "5e-315" },
    { TN_FLOAT64, 0x16b9f4d3cd47, "1.2345678901234e-310" },
    { TN_FLOAT64, 0x8000000000000001, "-5e-324" },
    { TN_FLOAT64, 0xfffffffffffff, "2.225073858507201e-308" },
    { TN_FLOAT32, 0x1, "1e-45" },
    { TN_FLOAT32, 0x7fffff, "1.1754942e-38" },
    { TN_FLOAT32, 0x116c2, "1e-40" },
    /* 2^-133: one digit reads back as it in bfloat16 */
    { TN_BFLOAT16, 0x1, "9e-41" },
  };
  unsigned int old = tn_test_ftz_on ();
  char buf[64];
  gsize k;

  for (k = 0; k < G_N_ELEMENTS (c); k++) {
    int n;

    memset (buf, 'x', sizeof buf);
    n = tn_format_item (buf, sizeof buf, &c[k].bits, c[k].t);
    if (strcmp (buf, c[k].want) != 0 || n != (int) strlen (c[k].want))
      g_error ("%s 0x%" G_GINT64_MODIFIER "x under FTZ/DAZ formatted as "
               "\"%s\" (%d), expected \"%s\"",
          tn_dtype_name (c[k].t), c[k].bits, buf, n, c[k].want);
    g_assert_cmphex (tn_mxcsr_get () & ~TN_MXCSR_FLAGS, ==,
        (old | TN_TEST_FTZ_DAZ) & ~TN_MXCSR_FLAGS);
  }
  /* A cut buffer still returns the full length, as snprintf does. */
  g_assert_cmpint (tn_format_item (buf, 4, &c[0].bits, TN_FLOAT64), ==, 6);
  g_assert_cmpstr (buf, ==, "5e-");
  tn_test_ftz_restore (old);
}

/* The same flags must not change a cast, tn_get_f64 or tn_set_f64: DAZ
 * would read the float32 subnormal 2^-149 as 0 (to bool: False), FTZ
 * would flush 1e-40 narrowed to float32 (bits 0x116c2, numpy's). */
static void
test_cast_ftz (void)
{
  const guint32 tiny = 0x1, f1e40 = 0x116c2;
  const guint64 d1e40 = 0x37a16c262777579c;   /* 1e-40 */
  const guint64 d_f1e40 = 0x37a16c2000000000; /* float32 1e-40 widened */
  const guint64 d_tiny = 0x36a0000000000000;  /* 2^-149 */
  unsigned int old = tn_test_ftz_on ();
  guint32 f[2];
  guint64 d[2];
  guint8 b[2];
  double got;

  f[0] = f[1] = tiny;
  tn_cast (b, TN_BOOL, f, TN_FLOAT32, 2);
  g_assert_cmpuint (b[0], ==, 1);
  g_assert_cmpuint (b[1], ==, 1);
  tn_cast (d, TN_FLOAT64, f, TN_FLOAT32, 2); /* the SSE2 pair path */
  g_assert_cmphex (d[0], ==, d_tiny);
  d[0] = d[1] = d1e40;
  tn_cast (f, TN_FLOAT32, d, TN_FLOAT64, 2);
  g_assert_cmphex (f[0], ==, f1e40);
  g_assert_cmphex (f[1], ==, f1e40);
  tn_cast (d, TN_FLOAT64, &f1e40, TN_FLOAT32, 1);
  g_assert_cmphex (d[0], ==, d_f1e40);

  got = tn_get_f64 (&f1e40, TN_FLOAT32);
  g_assert_cmpmem (&got, 8, &d_f1e40, 8);
  memcpy (&got, &d1e40, 8);
  f[0] = 0;
  tn_set_f64 (f, TN_FLOAT32, got);
  g_assert_cmphex (f[0], ==, f1e40);
  g_assert_cmphex (tn_mxcsr_get () & ~TN_MXCSR_FLAGS, ==,
      (old | TN_TEST_FTZ_DAZ) & ~TN_MXCSR_FLAGS);
  tn_test_ftz_restore (old);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cast/matrix", test_matrix);
  g_test_add_func ("/cast/hot-lengths", test_hot_lengths);
  g_test_add_func ("/cast/get-set-f64", test_get_set);
  g_test_add_func ("/cast/in-place", test_in_place);
  g_test_add_func ("/cast/same-dtype", test_same_dtype);
  g_test_add_func ("/cast/invalid", test_invalid);
  g_test_add_func ("/format/hand", test_format);
  g_test_add_func ("/format/truncated", test_format_truncated);
  g_test_add_func ("/format/roundtrip", test_format_roundtrip);
  g_test_add_func ("/format/ftz", test_format_ftz);
  g_test_add_func ("/cast/ftz", test_cast_ftz);
  return g_test_run ();
}
