/* float16 / bfloat16 conversions against golden data from
 * tests/data/gen_half.py, plus identities that must hold for every input. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "core/cpu.h"
#include "core/half.h"
#include "ftz.h"
#include "tests/common/npyread.h"

static guint32
f32_bits (float f)
{
  guint32 u;
  memcpy (&u, &f, sizeof u);
  return u;
}

static float
bits_f32 (guint32 u)
{
  float f;
  memcpy (&f, &u, sizeof f);
  return f;
}

static gboolean
f16_is_nan (guint16 h)
{
  return (h & 0x7fff) > 0x7c00;
}

static gboolean
bf16_is_nan (guint16 b)
{
  return (b & 0x7fff) > 0x7f80;
}

/* Runs fn once per CPU mask: portable (0), then all this CPU has (F16C
 * where it is there); checkasm compares the bulk kernels themselves. */
static void
for_each_impl (void (*fn) (const gchar *what))
{
  unsigned old = tn_cpu_set_mask (0);
  char what[48];

  fn ("portable");
  tn_cpu_set_mask (~0u);
  fn (tn_cpu_names (tn_cpu_flags (), what, sizeof what));
  tn_cpu_set_mask (old);
}

/* Widened float16 must equal NumPy's, NaN aside: NaN keeps sign and
 * payload and comes out quiet. */
static void
check_widened (const gchar *what, const guint32 *want, const float *got,
    const guint16 *src, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++) {
    guint32 g = f32_bits (got[i]);
    if (f16_is_nan (src[i])) {
      if (g != (want[i] | 0x400000))
        g_error ("%s: float16 0x%04x widened to 0x%08x, expected quiet NaN "
                 "0x%08x",
            what, src[i], g, want[i] | 0x400000);
    } else if (g != want[i]) {
      g_error ("%s: float16 0x%04x widened to 0x%08x (%g), expected 0x%08x "
               "(%g)",
          what, src[i], g, got[i], want[i], bits_f32 (want[i]));
    }
  }
}

static void
test_f16_to_f32_scalar (void)
{
  Npy g;
  float got[65536];
  guint16 src[65536];
  guint i;

  npy_load_descr (&g, "half_f16_to_f32.npy", "<f4");
  g_assert_cmpint (g.rank, ==, 1);
  g_assert_cmpuint ((gsize) g.count, ==, 65536);
  for (i = 0; i < 65536; i++) {
    src[i] = i;
    got[i] = tn_f16_to_f32 (i);
  }
  check_widened ("scalar", (gconstpointer) g.data, got, src, 65536);
  /* Hand-checked anchors. */
  g_assert_cmpfloat (tn_f16_to_f32 (0x3c00), ==, 1.0f);
  g_assert_cmpfloat (tn_f16_to_f32 (0xc000), ==, -2.0f);
  g_assert_cmpfloat (tn_f16_to_f32 (0x7bff), ==, 65504.0f);
  g_assert_cmpfloat (tn_f16_to_f32 (0x0001), ==, 0x1p-24f);
  g_assert_cmpfloat (tn_f16_to_f32 (0x0400), ==, 0x1p-14f);
  g_assert_cmphex (f32_bits (tn_f16_to_f32 (0x8000)), ==, 0x80000000);
  g_assert_true (isinf (tn_f16_to_f32 (0xfc00)));
  g_assert_true (isnan (tn_f16_to_f32 (0x7c01)));
  npy_clear (&g);
}

static void
bulk_widen (const gchar *what)
{
  Npy g;
  guint16 *src = g_new (guint16, 65536 + 1);
  float *got = g_new (float, 65536 + 1);
  const gsize lens[] = { 0, 1, 7, 8, 9, 15, 17, 100 };
  guint i, k;

  npy_load_descr (&g, "half_f16_to_f32.npy", "<f4");
  g_assert_cmpint (g.rank, ==, 1);
  for (i = 0; i < 65536; i++)
    src[i + 1] = i;
  /* Unaligned start (src + 1) on purpose. */
  tn_f16_to_f32_n (got + 1, src + 1, 65536);
  check_widened (what, (gconstpointer) g.data, got + 1, src + 1, 65536);
  /* Short runs end in the tail code; it must not write past n. */
  for (k = 0; k < G_N_ELEMENTS (lens); k++) {
    for (i = 0; i <= lens[k]; i++)
      got[i] = -7.0f;
    tn_f16_to_f32_n (got, src + 0x3c00 + 1, lens[k]);
    for (i = 0; i < lens[k]; i++)
      g_assert_cmpfloat (got[i], ==, tn_f16_to_f32 (0x3c00 + i));
    g_assert_cmpfloat (got[lens[k]], ==, -7.0f);
  }
  npy_clear (&g);
  g_free (src);
  g_free (got);
}

static void
test_f16_to_f32_bulk (void)
{
  for_each_impl (bulk_widen);
}

/* got against NumPy's bits for float16 narrowing; NaN must stay a quiet NaN
 * of the same sign. */
static void
check_narrowed (const gchar *what, const guint16 *want, const guint16 *got,
    const double *in, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++) {
    if (isnan (in[i])) {
      if (!f16_is_nan (got[i]) || !(got[i] & 0x200)
          || (got[i] >> 15) != (guint) (signbit (in[i]) != 0))
        g_error ("%s: item %" G_GSIZE_FORMAT ": NaN %a narrowed to 0x%04x, "
                 "expected a quiet NaN of the same sign",
            what, i, in[i], got[i]);
    } else if (got[i] != want[i]) {
      g_error ("%s: item %" G_GSIZE_FORMAT ": %a narrowed to 0x%04x, "
               "expected 0x%04x",
          what, i, in[i], got[i], want[i]);
    }
  }
}

static void
narrow_f32 (const gchar *what)
{
  Npy x, y;
  const float *in;
  double *ind;
  guint16 *got;
  gsize i;

  npy_load_descr (&x, "half_f32_in.npy", "<f4");
  g_assert_cmpint (x.rank, ==, 1);
  npy_load_descr (&y, "half_f32_to_f16.npy", "<u2");
  g_assert_cmpint (y.rank, ==, 1);
  g_assert_cmpuint ((gsize) x.count, ==, (gsize) y.count);
  g_assert_cmpuint ((gsize) x.count, >, 3 * 31744);
  in = (gconstpointer) x.data;
  ind = g_new (double, (gsize) x.count);
  got = g_new (guint16, (gsize) x.count);
  for (i = 0; i < (gsize) x.count; i++)
    ind[i] = in[i];
  tn_f32_to_f16_n (got, in, (gsize) x.count);
  check_narrowed (what, (gconstpointer) y.data, got, ind, (gsize) x.count);
  /* Scalar form, and sign symmetry over the same set. */
  for (i = 0; i < (gsize) x.count; i++) {
    got[i] = tn_f32_to_f16 (in[i]);
    if (!isnan (in[i]))
      g_assert_cmphex (tn_f32_to_f16 (-in[i]), ==, got[i] ^ 0x8000);
  }
  check_narrowed ("scalar", (gconstpointer) y.data, got, ind, (gsize) x.count);
  npy_clear (&x);
  npy_clear (&y);
  g_free (ind);
  g_free (got);
}

static void
test_f32_to_f16 (void)
{
  for_each_impl (narrow_f32);
  /* Hand-checked: ties go to even, overflow threshold is 65520. */
  g_assert_cmphex (tn_f32_to_f16 (1.0f), ==, 0x3c00);
  g_assert_cmphex (tn_f32_to_f16 (1.0f + 0x1p-11f), ==, 0x3c00);
  g_assert_cmphex (tn_f32_to_f16 (1.0f + 0x1p-11f + 0x1p-23f), ==, 0x3c01);
  g_assert_cmphex (tn_f32_to_f16 (1.0f + 3 * 0x1p-11f), ==, 0x3c02);
  g_assert_cmphex (tn_f32_to_f16 (65504.0f), ==, 0x7bff);
  g_assert_cmphex (tn_f32_to_f16 (65519.99f), ==, 0x7bff);
  g_assert_cmphex (tn_f32_to_f16 (65520.0f), ==, 0x7c00);
  g_assert_cmphex (tn_f32_to_f16 (-1e10f), ==, 0xfc00);
  g_assert_cmphex (tn_f32_to_f16 (0x1p-25f), ==, 0x0000);
  g_assert_cmphex (tn_f32_to_f16 (0x1p-25f + 0x1p-40f), ==, 0x0001);
  g_assert_cmphex (tn_f32_to_f16 (3 * 0x1p-25f), ==, 0x0002);
  g_assert_cmphex (tn_f32_to_f16 (-0.0f), ==, 0x8000);
  g_assert_cmphex (tn_f32_to_f16 (0x1p-14f - 0x1p-25f), ==, 0x0400);
  /* A NaN whose payload sits only in bits float16 drops stays NaN. */
  g_assert_true (f16_is_nan (tn_f32_to_f16 (bits_f32 (0x7f800001))));
  g_assert_true (f16_is_nan (tn_f32_to_f16 (bits_f32 (0xff801fff))));
}

static void
test_f64_to_f16 (void)
{
  Npy x, y;
  const double *in;
  guint16 *got;
  gsize i;

  npy_load_descr (&x, "half_f64_in.npy", "<f8");
  g_assert_cmpint (x.rank, ==, 1);
  npy_load_descr (&y, "half_f64_to_f16.npy", "<u2");
  g_assert_cmpint (y.rank, ==, 1);
  g_assert_cmpuint ((gsize) x.count, ==, (gsize) y.count);
  in = (gconstpointer) x.data;
  got = g_new (guint16, (gsize) x.count);
  for (i = 0; i < (gsize) x.count; i++) {
    got[i] = tn_f64_to_f16 (in[i]);
    if (!isnan (in[i]))
      g_assert_cmphex (tn_f64_to_f16 (-in[i]), ==, got[i] ^ 0x8000);
  }
  check_narrowed ("f64", (gconstpointer) y.data, got, in, (gsize) x.count);
  /* Just above a tie: through float32 it would round to the tie and then
   * to even (down); from double it rounds up. */
  g_assert_cmphex (tn_f64_to_f16 (1.0 + 0x1p-11 + 0x1p-40), ==, 0x3c01);
  g_assert_cmphex (
      tn_f32_to_f16 ((float) (1.0 + 0x1p-11 + 0x1p-40)), ==, 0x3c00);
  g_assert_cmphex (tn_f64_to_f16 (0x1p-25 + 0x1p-70), ==, 0x0001);
  g_assert_cmphex (tn_f64_to_f16 (1e300), ==, 0x7c00);
  g_assert_cmphex (tn_f64_to_f16 (-1e-300), ==, 0x8000);
  npy_clear (&x);
  npy_clear (&y);
  g_free (got);
}

/* Identities over every float16: narrowing a widened value gives it back,
 * through float32 and float64 alike. */
static void
test_f16_roundtrip (void)
{
  guint i;

  for (i = 0; i < 65536; i++) {
    float f = tn_f16_to_f32 (i);
    if (f16_is_nan (i)) {
      g_assert_true (f16_is_nan (tn_f32_to_f16 (f)));
      g_assert_true (f16_is_nan (tn_f64_to_f16 (f)));
      continue;
    }
    g_assert_cmphex (tn_f32_to_f16 (f), ==, i);
    g_assert_cmphex (tn_f64_to_f16 (f), ==, i);
  }
}

/* Over a sweep of float32 bit patterns (every 251st, so every exponent and
 * many significands): scalar float32, float64 and the bulk path agree.
 * The bulk path is the best this CPU has (F16C where it is there); the
 * portable one is the scalar loop, and checkasm compares the two on
 * random and edge values. */
static void
test_f32_sweep (void)
{
  const gsize chunk = 4096;
  float *in = g_new (float, chunk);
  guint16 *b = g_new (guint16, chunk);
  char what[48];
  guint64 u = 0;
  gsize i, n;

  tn_cpu_names (tn_cpu_flags (), what, sizeof what);
  while (u <= G_MAXUINT32) {
    for (n = 0; n < chunk && u <= G_MAXUINT32; n++, u += 251)
      in[n] = bits_f32 ((guint32) u);
    tn_f32_to_f16_n (b, in, n);
    for (i = 0; i < n; i++) {
      double wide = tn_test_widen (in[i]);
      guint16 s = tn_f32_to_f16 (in[i]);
      guint16 d = tn_f64_to_f16 (wide);
      if (isnan (in[i])) {
        g_assert_true (f16_is_nan (b[i]));
        g_assert_true (f16_is_nan (s) && f16_is_nan (d));
      } else if (b[i] != s || d != s) {
        g_error ("0x%08x: bulk (%s) 0x%04x, scalar 0x%04x, from double "
                 "0x%04x",
            f32_bits (in[i]), what, b[i], s, d);
      }
      g_assert_cmphex (tn_f32_to_bf16 (in[i]), ==, tn_f64_to_bf16 (wide));
    }
  }
  g_free (in);
  g_free (b);
}

static void
test_bf16_to_f32 (void)
{
  Npy g;
  const guint32 *want;
  guint i;

  npy_load_descr (&g, "half_bf16_to_f32.npy", "<u4");
  g_assert_cmpint (g.rank, ==, 1);
  g_assert_cmpuint ((gsize) g.count, ==, 65536);
  want = (gconstpointer) g.data;
  for (i = 0; i < 65536; i++) {
    guint32 got = f32_bits (tn_bf16_to_f32 (i));
    if (got != want[i])
      g_error ("bfloat16 0x%04x widened to 0x%08x, expected 0x%08x", i, got,
          want[i]);
    /* Widen then narrow gives the pattern back, NaN included. */
    g_assert_cmphex (tn_f32_to_bf16 (tn_bf16_to_f32 (i)), ==,
        bf16_is_nan (i) ? i | 0x40 : i);
  }
  g_assert_cmpfloat (tn_bf16_to_f32 (0x3f80), ==, 1.0f);
  g_assert_cmpfloat (tn_bf16_to_f32 (0xc040), ==, -3.0f);
  npy_clear (&g);
}

static void
check_bf16 (const gchar *what, const guint16 *want, const guint16 *got,
    const double *in, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++) {
    if (isnan (in[i])) {
      if (!bf16_is_nan (got[i]) || !(got[i] & 0x40)
          || (got[i] >> 15) != (guint) (signbit (in[i]) != 0))
        g_error ("%s: item %" G_GSIZE_FORMAT ": NaN narrowed to 0x%04x, "
                 "expected a quiet NaN of the same sign",
            what, i, got[i]);
    } else if (got[i] != want[i]) {
      g_error ("%s: item %" G_GSIZE_FORMAT ": %a narrowed to 0x%04x, "
               "expected 0x%04x",
          what, i, in[i], got[i], want[i]);
    }
  }
}

static void
test_f32_to_bf16 (void)
{
  Npy x, y;
  const float *in;
  double *ind;
  guint16 *got;
  gsize i;

  npy_load_descr (&x, "half_bf16_f32_in.npy", "<f4");
  g_assert_cmpint (x.rank, ==, 1);
  npy_load_descr (&y, "half_f32_to_bf16.npy", "<u2");
  g_assert_cmpint (y.rank, ==, 1);
  g_assert_cmpuint ((gsize) x.count, ==, (gsize) y.count);
  in = (gconstpointer) x.data;
  ind = g_new (double, (gsize) x.count);
  got = g_new (guint16, (gsize) x.count);
  for (i = 0; i < (gsize) x.count; i++) {
    ind[i] = in[i];
    got[i] = tn_f32_to_bf16 (in[i]);
  }
  check_bf16 ("f32", (gconstpointer) y.data, got, ind, (gsize) x.count);
  /* Hand-checked. */
  g_assert_cmphex (tn_f32_to_bf16 (1.0f), ==, 0x3f80);
  g_assert_cmphex (tn_f32_to_bf16 (bits_f32 (0x3f808000)), ==, 0x3f80);
  g_assert_cmphex (tn_f32_to_bf16 (bits_f32 (0x3f818000)), ==, 0x3f82);
  g_assert_cmphex (tn_f32_to_bf16 (bits_f32 (0x3f808001)), ==, 0x3f81);
  g_assert_cmphex (tn_f32_to_bf16 (bits_f32 (0x7f7fffff)), ==, 0x7f80);
  g_assert_cmphex (tn_f32_to_bf16 (bits_f32 (0x7f800001)), ==, 0x7fc0);
  g_assert_cmphex (tn_f32_to_bf16 (bits_f32 (0xffffffff)), ==, 0xffff);
  g_assert_cmphex (tn_f32_to_bf16 (bits_f32 (0x00008000)), ==, 0x0000);
  g_assert_cmphex (tn_f32_to_bf16 (bits_f32 (0x00018000)), ==, 0x0002);
  npy_clear (&x);
  npy_clear (&y);
  g_free (ind);
  g_free (got);
}

static void
test_f64_to_bf16 (void)
{
  Npy x, y;
  const double *in;
  guint16 *got;
  gsize i;

  npy_load_descr (&x, "half_bf16_f64_in.npy", "<f8");
  g_assert_cmpint (x.rank, ==, 1);
  npy_load_descr (&y, "half_f64_to_bf16.npy", "<u2");
  g_assert_cmpint (y.rank, ==, 1);
  g_assert_cmpuint ((gsize) x.count, ==, (gsize) y.count);
  in = (gconstpointer) x.data;
  got = g_new (guint16, (gsize) x.count);
  for (i = 0; i < (gsize) x.count; i++)
    got[i] = tn_f64_to_bf16 (in[i]);
  check_bf16 ("f64", (gconstpointer) y.data, got, in, (gsize) x.count);
  /* Just above a tie rounds up; through float32 it would not. */
  g_assert_cmphex (tn_f64_to_bf16 (1.0 + 0x1p-8 + 0x1p-40), ==, 0x3f81);
  g_assert_cmphex (
      tn_f32_to_bf16 ((float) (1.0 + 0x1p-8 + 0x1p-40)), ==, 0x3f80);
  g_assert_cmphex (tn_f64_to_bf16 (1e39), ==, 0x7f80);
  g_assert_cmphex (tn_f64_to_bf16 (-0x1p-133), ==, 0x8001);
  g_assert_cmphex (tn_f64_to_bf16 (0x1p-134), ==, 0x0000);
  npy_clear (&x);
  npy_clear (&y);
  g_free (got);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/half/f16-to-f32/scalar", test_f16_to_f32_scalar);
  g_test_add_func ("/half/f16-to-f32/bulk", test_f16_to_f32_bulk);
  g_test_add_func ("/half/f32-to-f16/golden", test_f32_to_f16);
  g_test_add_func ("/half/f64-to-f16/golden", test_f64_to_f16);
  g_test_add_func ("/half/f16/roundtrip", test_f16_roundtrip);
  g_test_add_func ("/half/f32/sweep", test_f32_sweep);
  g_test_add_func ("/half/bf16-to-f32/all", test_bf16_to_f32);
  g_test_add_func ("/half/f32-to-bf16/golden", test_f32_to_bf16);
  g_test_add_func ("/half/f64-to-bf16/golden", test_f64_to_bf16);
  return g_test_run ();
}
