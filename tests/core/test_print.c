/* tn_print_array against numpy.array2string (print_golden.h, made by
 * tests/data/gen/gen_print.py), hand-computed bfloat16 and statistics cases,
 * and every error path. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "core/half.h"
#include "core/print.h"
#include "ftz.h"
#include "print_golden.h"

static void
golden_view (tn_view *v, const PrintGolden *g)
{
  int i;

  memset (v, 0, sizeof *v);
  v->dtype = g->dtype;
  v->rank = g->rank;
  v->offset = g->offset;
  for (i = 0; i < g->rank; i++) {
    v->dims[i] = g->dims[i];
    v->strides[i] = g->strides[i];
  }
}

/* The printed text equals NumPy's, and the statistics NumPy's nan*
 * reductions (min/max exactly, the mean up to summation order). */
static void
test_golden (gconstpointer data)
{
  const PrintGolden *g = data;
  tn_print_opts o = { g->threshold, g->edgeitems, g->linewidth };
  tn_view v;
  tn_stats s;
  tn_err e = { "" };
  size_t len = 12345;
  char *text;

  golden_view (&v, g);
  g_assert_cmpint (tn_view_check (&v, (int64_t) g->nitems, &e), ==, 0);
  text = tn_print_array (g->data, &v, &o, &len, &e);
  g_assert_nonnull (text);
  g_assert_cmpstr (text, ==, g->expected);
  g_assert_cmpuint (len, ==, strlen (g->expected));
  free (text);

  g_assert_cmpint (tn_stats_compute (&s, g->data, &v, &e), ==, 0);
  g_assert_cmpint (s.dtype, ==, g->dtype);
  g_assert_cmpint (s.count, ==, g->count);
  g_assert_cmpint (s.nan_count, ==, g->nan_count);
  g_assert_cmpint (s.valid, ==, g->count - g->nan_count);
  if (g->count == 0 || g->count == g->nan_count) {
    g_assert_true (isnan (s.mean));
  } else {
    g_assert_cmpfloat (s.min, ==, g->min);
    g_assert_cmpfloat (s.max, ==, g->max);
    if (!isfinite (g->mean)) /* inf, or nan from inf - inf */
      g_assert_true (isnan (g->mean) ? isnan (s.mean) : s.mean == g->mean);
    else
      g_assert_cmpfloat_with_epsilon (
          s.mean, g->mean, 1e-12 * fmax (1.0, fabs (g->mean)));
  }
}

static char *
print_items (const void *data, tn_dtype t, const int64_t *dims, int rank,
    const tn_print_opts *o)
{
  tn_view v;
  tn_err e = { "" };
  char *text;

  g_assert_cmpint (tn_view_init (&v, t, dims, rank, &e), ==, 0);
  text = tn_print_array (data, &v, o, NULL, &e);
  g_assert_nonnull (text);
  return text;
}

/* NumPy has no bfloat16: these are worked by hand.  0x3dcd is 0.10009765625
 * and the bfloat16 nearest 0.1, so "0.1" reads back; 0x4049 is 3.140625,
 * whose neighbours 3.125 and 3.15625 leave "3.14" as its shortest form. */
static void
test_bfloat16 (void)
{
  const uint16_t a[] = { 0x3dcd, 0x3f80, 0x4049 };
  /* 1/3 rounds to 0x3eab = 0.333984375; "0.33" would read back as
   * 0.330078125, so three digits are needed */
  const uint16_t third = 0x3eab;
  /* 1e10 rounds to 0x5015 = 9999220736; 0.5 = 0x3f00; ratio > 1000 */
  const uint16_t sci[] = { 0x5015, 0x3f00, 0x7fc0 };
  const int64_t d3[] = { 3 };
  char *t;

  t = print_items (a, TN_BFLOAT16, d3, 1, NULL);
  g_assert_cmpstr (t, ==, "[0.1  1.   3.14]");
  free (t);
  t = print_items (&third, TN_BFLOAT16, NULL, 0, NULL);
  g_assert_cmpstr (t, ==, "0.334");
  free (t);
  /* 9999220736 is "1e+10" in bfloat16 (9.99e9 would read back as 0x5015
   * too, but one digit already does); nan takes the width of the numbers */
  t = print_items (sci, TN_BFLOAT16, d3, 1, NULL);
  g_assert_cmpstr (t, ==, "[1.e+10 5.e-01    nan]");
  free (t);
}

/* A transposed view prints what NumPy's .T prints, and printing reads no
 * item outside the view: the storage around it is poisoned with NaN. */
static void
test_strided_poisoned (void)
{
  /* storage: NaN, then a 2x3 block in rows of stride 4, NaN padding */
  const float s[] = { NAN, 0, 1, 2, NAN, 3, 4, 5, NAN };
  tn_view v = { TN_FLOAT32, 2, { 3, 2 }, { 1, 4 }, 1 };
  tn_err e = { "" };
  tn_stats st;
  char *t;

  g_assert_cmpint (tn_view_check (&v, 9, &e), ==, 0);
  t = tn_print_array (s, &v, NULL, NULL, &e);
  g_assert_cmpstr (t, ==, "[[0. 3.]\n [1. 4.]\n [2. 5.]]");
  free (t);
  g_assert_cmpint (tn_stats_compute (&st, s, &v, &e), ==, 0);
  g_assert_cmpint (st.count, ==, 6);
  g_assert_cmpint (st.nan_count, ==, 0);
  g_assert_cmpfloat (st.min, ==, 0.0);
  g_assert_cmpfloat (st.max, ==, 5.0);
  g_assert_cmpfloat (st.mean, ==, 2.5);
}

static void
stats_text (char *buf, size_t cap, const void *data, tn_dtype t,
    const int64_t *dims, int rank)
{
  tn_view v;
  tn_stats s;
  tn_err e = { "" };

  g_assert_cmpint (tn_view_init (&v, t, dims, rank, &e), ==, 0);
  g_assert_cmpint (tn_stats_compute (&s, data, &v, &e), ==, 0);
  g_assert_cmpint (tn_stats_format (buf, cap, &s), ==, (int) strlen (buf));
}

static void
test_stats_text (void)
{
  const float f[] = { 0, 1, 2, 3, 4, 5 };
  const float fn[] = { 1, NAN, 3, NAN, NAN, 5 };
  const double dn[] = { NAN, NAN };
  const int64_t i64[] = { INT64_MIN, INT64_MAX, -3 };
  const uint64_t u64[] = { UINT64_MAX, 7 };
  const uint8_t b[] = { 1, 0, 2, 1 }; /* any non-zero byte is True */
  const uint16_t h[] = { 0x3800, 0xc000, 0x7e00 }; /* 0.5, -2, nan */
  const int8_t i8[] = { -128, 127, 1 };
  const int64_t d23[] = { 2, 3 }, d6[] = { 6 }, d2[] = { 2 }, d3[] = { 3 };
  const int64_t d4[] = { 4 }, d0[] = { 4, 0 };
  char buf[160];

  stats_text (buf, sizeof buf, f, TN_FLOAT32, d23, 2);
  g_assert_cmpstr (buf, ==, "min=0.0 max=5.0 mean=2.5 nan=0");
  stats_text (buf, sizeof buf, fn, TN_FLOAT32, d6, 1);
  g_assert_cmpstr (buf, ==, "min=1.0 max=5.0 mean=3.0 nan=3");
  stats_text (buf, sizeof buf, dn, TN_FLOAT64, d2, 1);
  g_assert_cmpstr (buf, ==, "min=nan max=nan mean=nan nan=2");
  /* the extremes stay exact; the mean is summed in double, where
   * INT64_MAX rounds to 2^63 and cancels INT64_MIN */
  stats_text (buf, sizeof buf, i64, TN_INT64, d3, 1);
  g_assert_cmpstr (buf, ==,
      "min=-9223372036854775808 "
      "max=9223372036854775807 mean=-1.0 nan=0");
  stats_text (buf, sizeof buf, u64, TN_UINT64, d2, 1);
  g_assert_cmpstr (buf, ==,
      "min=7 max=18446744073709551615 "
      "mean=9.223372036854776e+18 nan=0");
  stats_text (buf, sizeof buf, b, TN_BOOL, d4, 1);
  g_assert_cmpstr (buf, ==, "min=False max=True mean=0.75 nan=0");
  stats_text (buf, sizeof buf, h, TN_FLOAT16, d3, 1);
  g_assert_cmpstr (buf, ==, "min=-2.0 max=0.5 mean=-0.75 nan=1");
  stats_text (buf, sizeof buf, i8, TN_INT8, d3, 1);
  g_assert_cmpstr (buf, ==, "min=-128 max=127 mean=0.0 nan=0");
  stats_text (buf, sizeof buf, f, TN_FLOAT32, d0, 2);
  g_assert_cmpstr (buf, ==, "no items");
  stats_text (buf, sizeof buf, f + 4, TN_FLOAT32, NULL, 0);
  g_assert_cmpstr (buf, ==, "min=4.0 max=4.0 mean=4.0 nan=0");
  /* truncation reports the length it needed, as snprintf */
  {
    tn_view v;
    tn_stats s;

    g_assert_cmpint (tn_view_init (&v, TN_FLOAT32, d23, 2, NULL), ==, 0);
    g_assert_cmpint (tn_stats_compute (&s, f, &v, NULL), ==, 0);
    g_assert_cmpint (tn_stats_format (buf, 5, &s), ==, 30);
    g_assert_cmpstr (buf, ==, "min=");
    g_assert_cmpint (tn_stats_format (NULL, 0, &s), ==, 30);
  }
}

/* +inf and -inf are values, not NaN: they bound min and max. */
static void
test_stats_infinite (void)
{
  const double a[] = { INFINITY, INFINITY };
  const double b[] = { 1.0, -INFINITY, NAN };
  const int64_t d2[] = { 2 }, d3[] = { 3 };
  char buf[128];

  stats_text (buf, sizeof buf, a, TN_FLOAT64, d2, 1);
  g_assert_cmpstr (buf, ==, "min=inf max=inf mean=inf nan=0");
  stats_text (buf, sizeof buf, b, TN_FLOAT64, d3, 1);
  g_assert_cmpstr (buf, ==, "min=-inf max=1.0 mean=-inf nan=1");
}

/* Every (rank <= 3) box of a strided int view: the odometer visits each
 * item once.  The sum of a 3x4x5 transposed arange is sum(0..59). */
static void
test_stats_odometer (void)
{
  int32_t s[60];
  tn_view v = { TN_INT32, 3, { 5, 4, 3 }, { 1, 5, 20 }, 0 };
  tn_view b = { TN_INT32, 3, { 2, 3, 4 }, { 0, 0, 1 }, 7 };
  tn_stats st;
  int i;

  for (i = 0; i < 60; i++)
    s[i] = i;
  g_assert_cmpint (tn_stats_compute (&st, s, &v, NULL), ==, 0);
  g_assert_cmpint (st.count, ==, 60);
  g_assert_cmpfloat (st.mean, ==, 29.5);
  g_assert_cmpfloat (st.min, ==, 0);
  g_assert_cmpfloat (st.max, ==, 59);
  /* broadcast: stride 0 repeats items 7..10 six times */
  g_assert_cmpint (tn_stats_compute (&st, s, &b, NULL), ==, 0);
  g_assert_cmpint (st.count, ==, 24);
  g_assert_cmpfloat (st.mean, ==, 8.5);
  g_assert_cmpfloat (st.min, ==, 7);
  g_assert_cmpfloat (st.max, ==, 10);
}

/* Threshold is "more items than": exactly threshold items print whole. */
static void
test_threshold_boundary (void)
{
  const int32_t a[] = { 0, 1, 2, 3, 4, 5, 6 };
  const int64_t d7[] = { 7 };
  tn_print_opts o = { 7, 3, 75 };
  char *t;

  t = print_items (a, TN_INT32, d7, 1, &o);
  g_assert_cmpstr (t, ==, "[0 1 2 3 4 5 6]");
  free (t);
  o.threshold = 6;
  t = print_items (a, TN_INT32, d7, 1, &o);
  g_assert_cmpstr (t, ==, "[0 1 2 ... 4 5 6]");
  free (t);
  /* an axis of exactly 2 * edgeitems is shown whole even then */
  o.edgeitems = 4;
  t = print_items (a, TN_INT32, d7, 1, &o);
  g_assert_cmpstr (t, ==, "[0 1 2 3 4 5 6]");
  free (t);
  /* edgeitems far beyond the extent must not overflow 2 * edgeitems */
  o.edgeitems = INT64_MAX;
  t = print_items (a, TN_INT32, d7, 1, &o);
  g_assert_cmpstr (t, ==, "[0 1 2 3 4 5 6]");
  free (t);
}

/* A line width of 1 still puts one item on each line and never loops. */
static void
test_narrow_lines (void)
{
  const int32_t a[] = { 10, 20, 30 };
  const int64_t d3[] = { 3 };
  tn_print_opts o = { 1000, 3, 1 };
  char *t;

  t = print_items (a, TN_INT32, d3, 1, &o);
  g_assert_cmpstr (t, ==, "[10\n 20\n 30]");
  free (t);
}

/* 70000 float16 items printed whole (past the 65536 whose digits the
 * first pass keeps): every token must read back as the item at its place.
 * The values cycle through every float16 in [1, 1000), so neighbouring
 * items have different digits and a misaligned reuse would show. */
static void
test_long_unsummarised (void)
{
  enum { N = 70000 };
  uint16_t *a = g_new (uint16_t, N);
  const uint16_t first = 0x3c00, last = 0x63d0; /* 1.0 and 1000.0 */
  int64_t dims[1] = { N };
  tn_print_opts o = { INT64_MAX, 3, 75 };
  char *t, *p, *end;
  int i;

  for (i = 0; i < N; i++)
    a[i] = (uint16_t) (first + i % (last - first));
  t = print_items (a, TN_FLOAT16, dims, 1, &o);
  g_assert_true (t[0] == '[');
  p = t + 1;
  for (i = 0; i < N; i++) {
    double x;

    while (*p == ' ' || *p == '\n')
      p++;
    x = g_ascii_strtod (p, &end);
    g_assert_true (end > p);
    g_assert_cmphex (tn_f64_to_f16 (x), ==, a[i]);
    p = end;
  }
  while (*p == ' ')
    p++;
  g_assert_cmpstr (p, ==, "]");
  g_free (a);
  free (t);
}

static void
expect_print_error (const void *base, const tn_view *v, const tn_print_opts *o,
    const char *const *parts)
{
  tn_err e = { "" };
  size_t len = 99;
  tn_stats s;

  g_assert_null (tn_print_array (base, v, o, &len, &e));
  g_assert_cmpuint (len, ==, 0);
  for (; *parts; parts++) {
    if (!strstr (e.msg, *parts))
      g_error ("message \"%s\" lacks \"%s\"", e.msg, *parts);
  }
  /* the same view (when the options were not the problem) fails the
   * statistics too, and a NULL tn_err is allowed */
  if (o == NULL) {
    e.msg[0] = '\0';
    g_assert_cmpint (tn_stats_compute (&s, base, v, &e), ==, -1);
    g_assert_cmpstr (e.msg, !=, "");
    g_assert_null (tn_print_array (base, v, NULL, NULL, NULL));
    g_assert_cmpint (tn_stats_compute (&s, base, v, NULL), ==, -1);
  }
}

static void
test_errors (void)
{
  const float f[6] = { 0 };
  tn_view v = { TN_FLOAT32, 2, { 2, 3 }, { 3, 1 }, 0 };
  tn_view bad;
  tn_print_opts o = { 1000, 3, 75 };
  tn_err e = { "" };
  tn_stats s;

  bad = v;
  bad.dtype = (tn_dtype) 99;
  expect_print_error (f, &bad, NULL, (const char *const[]){ "99", "13", NULL });
  bad = v;
  bad.rank = 9;
  expect_print_error (f, &bad, NULL, (const char *const[]){ "9", NULL });
  bad = v;
  bad.dims[1] = -2;
  expect_print_error (
      f, &bad, NULL, (const char *const[]){ "axis 1", "-2", NULL });
  bad = v;
  bad.strides[0] = -3;
  expect_print_error (
      f, &bad, NULL, (const char *const[]){ "Axis 0", "stride -3", NULL });
  bad = v;
  bad.offset = -1;
  expect_print_error (
      f, &bad, NULL, (const char *const[]){ "offset is -1", NULL });

  o.edgeitems = 0;
  expect_print_error (f, &v, &o,
      (const char *const[]){
          "edgeitems=0", "threshold=1000", "linewidth=75", NULL });
  o.edgeitems = 3;
  o.threshold = -1;
  expect_print_error (f, &v, &o, (const char *const[]){ "threshold=-1", NULL });
  o.threshold = 1000;
  o.linewidth = 0;
  expect_print_error (f, &v, &o, (const char *const[]){ "linewidth=0", NULL });

  /* no storage for a view with items; an empty view needs none */
  g_assert_null (tn_print_array (NULL, &v, NULL, NULL, &e));
  g_assert_nonnull (strstr (e.msg, "6 items"));
  bad = v;
  bad.dims[0] = 0;
  {
    char *t = tn_print_array (NULL, &bad, NULL, NULL, &e);

    g_assert_cmpstr (t, ==, "[]");
    free (t);
  }
  g_assert_null (tn_print_array (f, NULL, NULL, NULL, &e));
  g_assert_nonnull (strstr (e.msg, "No view"));
  g_assert_cmpint (tn_stats_compute (NULL, f, &v, &e), ==, -1);
  g_assert_nonnull (strstr (e.msg, "No statistics"));
  g_assert_cmpint (tn_stats_compute (&s, f, NULL, &e), ==, -1);
  g_assert_nonnull (strstr (e.msg, "No view"));
}

/* Under flush-to-zero and denormals-are-zero (set here, as GStreamer's
 * pitch element leaves them) subnormals print and summarise as NumPy 1.24
 * shows them without those flags. */
static void
test_ftz (void)
{
  const guint64 d[] = { 0x3c521103, 0x3ff0000000000000 }; /* 5e-315, 1 */
  const guint64 d2[] = { 0x16b9f4d3cd47, 0x80000000000017b8 };
  const guint32 f[] = { 0x1, 0x3f800000 }; /* 2^-149, 1 */
  const int64_t n2[] = { 2 };
  unsigned int old = tn_test_ftz_on ();
  char buf[160], *t;

  t = print_items (d, TN_FLOAT64, n2, 1, NULL);
  g_assert_cmpstr (t, ==, "[5.e-315 1.e+000]");
  free (t);
  t = print_items (d2, TN_FLOAT64, n2, 1, NULL);
  g_assert_cmpstr (t, ==, "[ 1.23456789e-310 -2.99996660e-320]");
  free (t);
  t = print_items (f, TN_FLOAT32, n2, 1, NULL);
  g_assert_cmpstr (t, ==, "[1.e-45 1.e+00]");
  free (t);
  /* tensordebug's line, where 5e-315 once overflowed the stack */
  stats_text (buf, sizeof buf, d, TN_FLOAT64, n2, 1);
  g_assert_cmpstr (buf, ==, "min=5e-315 max=1.0 mean=0.5 nan=0");
  stats_text (buf, sizeof buf, f, TN_FLOAT32, n2, 1);
  g_assert_cmpstr (buf, ==, "min=1e-45 max=1.0 mean=0.5 nan=0");
  g_assert_cmphex (tn_mxcsr_get () & ~TN_MXCSR_FLAGS, ==,
      (old | TN_TEST_FTZ_DAZ) & ~TN_MXCSR_FLAGS);
  tn_test_ftz_restore (old);
}

/* A broadcast to 6.4e18 items reads its 3 items once: count is the
 * view's, min/max/mean the items', the NaN count the items' times the
 * 2147483647000000000 repeats; along the inner axis too.  (The walk over
 * every repeat never finished.) */
static void
test_stats_broadcast_huge (void)
{
  const float s[] = { 1, NAN, 4 };
  const double m[] = { 0.1, 0.2, 0.4 };
  tn_view outer
      = { TN_FLOAT32, 3, { 2147483647, 1000000000, 3 }, { 0, 0, 1 }, 0 };
  tn_view inner
      = { TN_FLOAT32, 3, { 3, 2147483647, 1000000000 }, { 1, 0, 0 }, 0 };
  tn_view mv = { TN_FLOAT64, 2, { 1000, 3 }, { 0, 1 }, 0 };
  const int64_t reps = INT64_C (2147483647000000000);
  tn_err e = { "" };
  tn_stats st;
  char buf[160];
  gint64 t0 = g_get_monotonic_time ();

  for (int k = 0; k < 2; k++) {
    tn_view *v = k ? &inner : &outer;

    g_assert_cmpint (tn_view_check (v, 3, &e), ==, 0);
    g_assert_cmpint (tn_stats_compute (&st, s, v, &e), ==, 0);
    g_assert_cmpint (st.count, ==, 3 * reps);
    g_assert_cmpint (st.nan_count, ==, reps);
    g_assert_cmpint (st.valid, ==, 2 * reps);
    g_assert_cmpfloat (st.min, ==, 1.0);
    g_assert_cmpfloat (st.max, ==, 4.0);
    g_assert_cmpfloat (st.mean, ==, 2.5);
    tn_stats_format (buf, sizeof buf, &st);
    g_assert_cmpstr (
        buf, ==, "min=1.0 max=4.0 mean=2.5 nan=2147483647000000000");
  }
  /* well under the 300 s the old walk needed for ~1e11 of its 6.4e18 */
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 2 * G_USEC_PER_SEC);
  /* the mean of the distinct items, in their order: 1000 repeats change
   * no bit of it */
  g_assert_cmpint (tn_stats_compute (&st, m, &mv, &e), ==, 0);
  g_assert_cmpfloat (st.mean, ==, ((m[0] + m[1]) + m[2]) / 3);
}

/* A row longer than the 4096-item blocks between cancel checks is still
 * summed left to right in one running sum: the mean has the bits of the
 * plain loop (restarting per block would round differently). */
static void
test_stats_long_row (void)
{
  enum { N = 3 * 4096 + 7 };
  double *a = g_new (double, N), sum = 0;
  int64_t dims[1] = { N };
  tn_view v;
  tn_stats st;

  for (int i = 0; i < N; i++) {
    a[i] = 1.0 / (i + 3) + (i % 7) * 1e6;
    sum += a[i];
  }
  g_assert_cmpint (tn_view_init (&v, TN_FLOAT64, dims, 1, NULL), ==, 0);
  g_assert_cmpint (tn_stats_compute (&st, a, &v, NULL), ==, 0);
  g_assert_cmpfloat (st.mean, ==, sum / N);
  g_free (a);
}

typedef struct {
  atomic_int *flag;
  gulong after_us;
} canceller;

static gpointer
cancel_later (gpointer data)
{
  canceller *c = data;

  g_usleep (c->after_us);
  atomic_store (c->flag, 1);
  return NULL;
}

/* Overlapping strides make 2^60 items of 3 MiB: nothing but the cancel
 * flag bounds the statistics or a print of every item.  Set before the
 * call, it stops at once; set 50 ms into it, the call returns -1/NULL
 * with a message within a second. */
static void
test_cancel (void)
{
  const int64_t n = INT64_C (1) << 20;
  int8_t *s = g_malloc0 (3 * n);
  tn_view v = { TN_INT8, 3, { n, n, n }, { 1, 1, 1 }, 0 };
  tn_print_opts o = { INT64_MAX, 3, 75, NULL };
  canceller c;
  atomic_int flag;
  tn_err e = { "" };
  tn_stats st;
  GThread *th;
  gint64 t0;
  char *t;

  s[3 * n - 3] = 9; /* the last item, at 3(n-1) */
  g_assert_cmpint (tn_view_check (&v, 3 * n, &e), ==, 0);
  /* the default summary prints 6 items per axis whatever the count */
  t = tn_print_array (s, &v, NULL, NULL, &e);
  g_assert_nonnull (t);
  g_assert_true (g_str_has_suffix (t, "0 0 0 ... 0 0 9]]]"));
  free (t);

  atomic_init (&flag, 1);
  g_assert_cmpint (
      tn_stats_compute_cancellable (&st, s, &v, &flag, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "Statistics cancelled after 0 of the 1152921504606846976 distinct "
      "items of a view of 1152921504606846976.");
  g_assert_cmpint (st.count, ==, INT64_C (1) << 60);
  g_assert_true (isnan (st.mean));
  o.cancel = &flag;
  g_assert_null (tn_print_array (s, &v, &o, NULL, &e));
  g_assert_cmpstr (e.msg, ==,
      "Printing cancelled after 0 bytes of the text of a tensor of "
      "1152921504606846976 items.");

  for (int k = 0; k < 2; k++) {
    atomic_store (&flag, 0);
    c.flag = &flag;
    c.after_us = 50000;
    th = g_thread_new ("canceller", cancel_later, &c);
    t0 = g_get_monotonic_time ();
    if (k == 0) {
      g_assert_cmpint (
          tn_stats_compute_cancellable (&st, s, &v, &flag, &e), ==, -1);
      g_assert_true (g_str_has_prefix (e.msg, "Statistics cancelled after "));
    } else {
      g_assert_null (tn_print_array (s, &v, &o, NULL, &e));
      g_assert_true (g_str_has_prefix (e.msg, "Printing cancelled after "));
    }
    g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC);
    g_thread_join (th);
  }
  g_free (s);
}

int
main (int argc, char **argv)
{
  size_t i;

  g_test_init (&argc, &argv, NULL);
  for (i = 0; i < G_N_ELEMENTS (print_goldens); i++) {
    char *path = g_strdup_printf ("/print/numpy/%s", print_goldens[i].name);

    g_test_add_data_func (path, &print_goldens[i], test_golden);
    g_free (path);
  }
  g_test_add_func ("/print/bfloat16", test_bfloat16);
  g_test_add_func ("/print/strided-poisoned", test_strided_poisoned);
  g_test_add_func ("/print/threshold-boundary", test_threshold_boundary);
  g_test_add_func ("/print/narrow-lines", test_narrow_lines);
  g_test_add_func ("/print/long-unsummarised", test_long_unsummarised);
  g_test_add_func ("/print/errors", test_errors);
  g_test_add_func ("/stats/text", test_stats_text);
  g_test_add_func ("/stats/infinite", test_stats_infinite);
  g_test_add_func ("/stats/odometer", test_stats_odometer);
  g_test_add_func ("/print/ftz", test_ftz);
  g_test_add_func ("/stats/broadcast-huge", test_stats_broadcast_huge);
  g_test_add_func ("/stats/long-row", test_stats_long_row);
  g_test_add_func ("/print/cancel", test_cancel);
  return g_test_run ();
}
