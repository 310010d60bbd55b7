/* tn_normalize against golden data from tests/data/gen/gen_normalize.py
 * (float64 references by the definitions of core/normalize.h, checked
 * there against NumPy and SciPy): every op over six axis sets of a
 * <3,4,5,6> tensor in float32 and float64, two in float16 and bfloat16;
 * rows of -inf, NaN, all-equal, +inf, zeros, a range whose exponentials
 * are subnormal, ties; 1000-item rows across [-110, 10].  Bounds (the
 * ones core/normalize.h states): float32 softmax within 4 ulp of the
 * reference rounded to float32, the other ops within 4 ulp or 1e-15
 * absolute (results that cancel to near 0); float64 within 1e-13
 * relative or 1e-15 absolute; float16 and bfloat16 within 1 ulp of the
 * reference rounded to them (computed in float32, rounded once).  Every
 * case is also run on 1..4 threads with the portable and the AVX2 kernels
 * and must give the same bits; so must a tensor large enough to be split
 * and to span several 1024-item blocks, and standardized HWC images
 * (one of 16 MiB, whose scaling is streamed past the caches, at unaligned
 * input and output items).  Plus the float32 exp on every 64th float of
 * [-104, 0], errors, and in-place use. */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cast.h"
#include "core/cpu.h"
#include "core/normalize-kern.h"
#include "core/normalize.h"
#include "core/reduce.h"
#include "ftz.h"
#include "tests/common/npyread.h"

static const char *const ops[]
    = { "softmax", "log_softmax", "standardize", "l2", "minmax" };
static const char *const axes_main[] = { "-1", "0", "1,2", "", "0,2", "-1,-2" };
static const char *const axes_half[] = { "-1", "1,2" };

static gboolean
have_isa_kernels (void)
{
  tn_norm_dsp c, all;

  tn_norm_dsp_init (&c, 0);
  tn_norm_dsp_init (&all, tn_cpu_detect ());
  return memcmp (&c, &all, sizeof c) != 0;
}

static const char *
axes_file (const char *axes, char *buf, size_t cap)
{
  size_t j = 0;

  if (*axes == '\0')
    return "all";
  for (const char *p = axes; *p && j + 1 < cap; p++)
    buf[j++] = *p == '-' ? 'm' : *p == ',' ? '_' : *p;
  buf[j] = '\0';
  return buf;
}

/* Items of the float dtype t in integer order (signed zeros one point). */
static int64_t
ordered (tn_dtype t, const guint8 *p)
{
  size_t sz = tn_dtype_size (t);
  uint64_t u = 0, sign = UINT64_C (1) << (8 * sz - 1);

  memcpy (&u, p, sz);
  return (u & sign) ? -(int64_t) (u & (sign - 1)) : (int64_t) (u & (sign - 1));
}

static gboolean
item_nan (tn_dtype t, const guint8 *p)
{
  return isnan (tn_get_f64 (p, t));
}

/* got (n items of t) against ref (float64): NaN where ref is NaN, else
 * within ulp units of ref rounded once to t, or within abs of ref. */
static void
compare (const char *what, tn_dtype t, const guint8 *got, const double *ref,
    int64_t n, int64_t ulp, double abs, int64_t *worst)
{
  size_t sz = tn_dtype_size (t);

  for (int64_t i = 0; i < n; i++) {
    guint8 r[8];
    const guint8 *g = got + i * sz;
    double gv = tn_get_f64 (g, t);
    int64_t d;

    if (isnan (ref[i])) {
      if (!item_nan (t, g))
        g_error (
            "%s: item %lld is %.9g, expected NaN", what, (long long) i, gv);
      continue;
    }
    tn_set_f64 (r, t, ref[i]);
    if (item_nan (t, g))
      g_error (
          "%s: item %lld is NaN, expected %.17g", what, (long long) i, ref[i]);
    d = llabs (ordered (t, g) - ordered (t, r));
    if (d > *worst && !(fabs (gv - ref[i]) <= abs))
      *worst = d;
    if (d > ulp && !(fabs (gv - ref[i]) <= abs))
      g_error ("%s: item %lld is %.9g, expected %.17g (%lld ulp, bound %lld)",
          what, (long long) i, gv, ref[i], (long long) d, (long long) ulp);
  }
}

static tn_norm_op
op_of (const char *name)
{
  for (int i = 0; i < TN_NORM_NOPS; i++)
    if (strcmp (ops[i], name) == 0)
      return (tn_norm_op) i;
  g_assert_not_reached ();
}

static guint8 *
run (const void *src, const tn_view *v, tn_norm_op op, const char *axes,
    int nthreads)
{
  tn_axes ax;
  uint32_t mask;
  tn_err e;
  guint8 *out = g_malloc0 (tn_view_count (v) * tn_dtype_size (v->dtype) + 1);

  if (tn_axes_parse (&ax, axes, &e) < 0
      || tn_axes_mask (&ax, v->rank, &mask, &e) < 0)
    g_error ("axes '%s': %s", axes, e.msg);
  if (tn_normalize (
          out, src, v, op, mask, tn_norm_default_eps (op), nthreads, &e)
      < 0)
    g_error ("%s axes '%s': %s", tn_norm_op_name (op), axes, e.msg);
  return out;
}

static void
bounds (tn_dtype t, tn_norm_op op, int64_t *ulp, double *abs, double *rel)
{
  *rel = 0;
  if (t == TN_FLOAT64) {
    *ulp = 0;
    *abs = 1e-15;
    *rel = 1e-13;
  } else if (t == TN_FLOAT32) {
    *ulp = 4;
    *abs = op == TN_NORM_SOFTMAX ? 0 : 1e-15;
  } else {
    *ulp = 1;
    *abs = 0;
  }
}

/* One golden case: the bound, then the same bits on every thread count
 * and kernel set. */
static void
check_case (const char *what, const Npy *in, tn_dtype t, tn_norm_op op,
    const char *axes, const Npy *want, int64_t *worst)
{
  tn_view v;
  int64_t n, ulp;
  double abs, rel;
  unsigned mask = tn_cpu_set_mask (0);
  int impls = have_isa_kernels () ? 2 : 1;
  guint8 *ref;
  char msg[256];

  g_assert_cmpint (tn_view_init (&v, t, in->dims, in->rank, NULL), ==, 0);
  n = tn_view_count (&v);
  g_assert_cmpint (want->count, ==, n);
  ref = run (in->data, &v, op, axes, 1);
  bounds (t, op, &ulp, &abs, &rel);
  if (t == TN_FLOAT64) {
    const double *w = (const double *) want->data, *g = (const double *) ref;

    for (int64_t i = 0; i < n; i++) {
      if (isnan (w[i]) ? !isnan (g[i])
                       : !(g[i] == w[i]
                           || fabs (g[i] - w[i]) <= abs + rel * fabs (w[i])))
        g_error ("%s: item %lld is %.17g, expected %.17g", what, (long long) i,
            g[i], w[i]);
    }
  } else {
    compare (what, t, ref, (const double *) want->data, n, ulp, abs, worst);
  }
  for (int impl = 0; impl < impls; impl++) {
    tn_cpu_set_mask (impl ? mask : 0);
    for (int th = 1; th <= 4; th++) {
      guint8 *got = run (in->data, &v, op, axes, th);

      g_snprintf (msg, sizeof msg, "%s on %d threads, %s kernels", what, th,
          impl ? "ISA" : "portable");
      if (memcmp (got, ref, n * tn_dtype_size (t)) != 0)
        g_error ("%s: bits differ from 1 thread, portable", msg);
      g_free (got);
    }
  }
  tn_cpu_set_mask (mask);
  g_free (ref);
}

static void
test_golden (gconstpointer data)
{
  const char *dt = data;
  tn_dtype t;
  gboolean half;
  const char *const *axes;
  int naxes;
  char name[128], ab[32];
  Npy in;

  g_assert_cmpint (tn_dtype_from_name (dt, &t, NULL), ==, 0);
  half = t == TN_FLOAT16 || t == TN_BFLOAT16;
  axes = half ? axes_half : axes_main;
  naxes = half ? G_N_ELEMENTS (axes_half) : G_N_ELEMENTS (axes_main);
  g_snprintf (name, sizeof name, "norm_in_%s.npy", dt);
  npy_load (&in, name);
  for (int o = 0; o < TN_NORM_NOPS; o++) {
    int64_t worst = 0;

    for (int k = 0; k < naxes; k++) {
      Npy want;

      g_snprintf (name, sizeof name, "norm_%s_%s_%s.npy", dt, ops[o],
          axes_file (axes[k], ab, sizeof ab));
      npy_load_descr (&want, name, "<f8");
      check_case (name, &in, t, op_of (ops[o]), axes[k], &want, &worst);
      npy_clear (&want);
    }
    if (t != TN_FLOAT64)
      g_test_message ("%s %s: worst %lld ulp", dt, ops[o], (long long) worst);
  }
  npy_clear (&in);
}

/* The special rows and the wide ones, in float32 and (widened) float64. */
static void
test_rows (gconstpointer data)
{
  const char *set = data;
  gboolean wide = strcmp (set, "wide") == 0;
  int nops = wide ? 2 : TN_NORM_NOPS;
  char name[128];
  Npy in;

  g_snprintf (name, sizeof name, "norm_%s_in.npy", set);
  npy_load (&in, name);
  for (int o = 0; o < nops; o++) {
    Npy want, in64 = in;
    int64_t worst = 0;
    double *d = g_new (double, in.count);

    g_snprintf (name, sizeof name, "norm_%s_%s.npy", set, ops[o]);
    npy_load_descr (&want, name, "<f8");
    check_case (name, &in, TN_FLOAT32, op_of (ops[o]), "-1", &want, &worst);
    g_test_message ("%s float32: worst %lld ulp", name, (long long) worst);
    tn_cast (d, TN_FLOAT64, in.data, TN_FLOAT32, in.count);
    in64.data = (const guint8 *) d;
    check_case (name, &in64, TN_FLOAT64, op_of (ops[o]), "-1", &want, &worst);
    g_free (d);
    npy_clear (&want);
  }
  npy_clear (&in);
}

/* The float32 exp of the softmax pass on every 64th float of [-104, 0]
 * and with a low part, against exp in float64 rounded once: within 1 ulp
 * (the 4-ulp softmax bound spends at most 1.5 on it). */
static void
test_exp (void)
{
  int64_t worst = 0;
  uint32_t lo = 0x80000000u, hi;
  float top = -104.0f;
  /* the kernel runs inside tn_normalize's IEEE bracket; so does this */
  tn_fpenv env = tn_fpenv_enter ();

  memcpy (&hi, &top, 4);
  for (uint32_t u = lo; u <= hi; u += 64) {
    float x, lx, got, want;
    double ref;
    int64_t d;

    memcpy (&x, &u, 4);
    lx = x * 0x1p-25f;
    for (int k = 0; k < 2; k++) {
      got = tn_nk_expf2 (x, k ? lx : 0.0f);
      ref = exp ((double) x + (k ? (double) lx : 0.0));
      want = (float) ref;
      d = llabs (ordered (TN_FLOAT32, (const guint8 *) &got)
                 - ordered (TN_FLOAT32, (const guint8 *) &want));
      if (d > worst)
        worst = d;
      if (d > 1)
        g_error ("exp (%a + %a) = %a, expected %a (%lld ulp)", x, k ? lx : 0.0f,
            got, want, (long long) d);
    }
  }
  g_assert_cmpfloat (tn_nk_expf2 (-INFINITY, 0), ==, 0.0f);
  g_assert_cmpfloat (tn_nk_expf2 (-200.0f, 0), ==, 0.0f);
  g_assert_true (isnan (tn_nk_expf2 (NAN, 0)));
  g_assert_cmpfloat (tn_nk_expf2 (0.0f, 0), ==, 1.0f);
  tn_fpenv_leave (env);
  g_test_message ("exp: worst %lld ulp", (long long) worst);
}

/* A tensor split across threads, with rows of several 1024-item blocks:
 * every op along the last and the first axis, the same bits everywhere. */
static void
test_threads (void)
{
  const int64_t dims[2] = { 70, 2100 };
  int64_t n = dims[0] * dims[1];
  float *x = g_new (float, n);
  unsigned mask = tn_cpu_set_mask (0);
  int impls = have_isa_kernels () ? 2 : 1;
  const char *axes[] = { "-1", "0", "" };
  tn_view v;

  for (int64_t i = 0; i < n; i++)
    x[i] = (float) (sin ((double) i * 0.37) * 20.0 + (double) (i % 7));
  tn_view_init (&v, TN_FLOAT32, dims, 2, NULL);
  for (int o = 0; o < TN_NORM_NOPS; o++) {
    for (int a = 0; a < 3; a++) {
      guint8 *ref;

      tn_cpu_set_mask (0);
      ref = run (x, &v, (tn_norm_op) o, axes[a], 1);
      for (int impl = 0; impl < impls; impl++) {
        tn_cpu_set_mask (impl ? mask : 0);
        for (int th = 1; th <= 4; th++) {
          guint8 *got = run (x, &v, (tn_norm_op) o, axes[a], th);

          if (memcmp (got, ref, n * 4) != 0)
            g_error ("%s axes '%s' on %d threads, %s kernels: bits differ",
                tn_norm_op_name (o), axes[a], th, impl ? "ISA" : "portable");
          g_free (got);
        }
      }
      g_free (ref);
    }
  }
  tn_cpu_set_mask (mask);
  g_free (x);
}

/* standardize over axes 0,1 of an HWC image (one pass of per-channel
 * moments, several units per channel), the input at item xoff of its
 * buffer (a view's offset) and the output at item yoff of its: against a
 * two-pass float64 reference computed here, on channels far from 0
 * beside their spread (means 0, 1000 and -1e5, spreads 1, 2 and 0.01:
 * sums of squares about 0 instead of about each run's first items give
 * 1.46 for 1.05 at item 2), within 4 ulp or 2^-40 (1 + |mean| / sigma)
 * absolute (x - mean cancels); and the same bits on 1..maxth threads and
 * every kernel set. */
static void
hwc_case (const int64_t *dims, int64_t xoff, int64_t yoff, int maxth)
{
  const int64_t n = dims[0] * dims[1] * dims[2], per = n / 3;
  const double mean0[3] = { 0.0, 1000.0, -1e5 }, sd0[3] = { 1, 2, 0.01 };
  float *buf = g_new (float, n + xoff), *x = buf + xoff;
  float *out = g_new (float, n + yoff), *ref = NULL;
  double m[3], d[3];
  unsigned mask = tn_cpu_set_mask (0);
  int impls = have_isa_kernels () ? 2 : 1;
  tn_view v;
  tn_err e;

  for (int64_t i = 0; i < n; i++)
    x[i] = (float) (mean0[i % 3] + sd0[i % 3] * sin ((double) i * 0.731));
  for (int c = 0; c < 3; c++) {
    double q = 0;

    m[c] = 0;
    for (int64_t i = c; i < n; i += 3)
      m[c] += x[i];
    m[c] /= (double) per;
    for (int64_t i = c; i < n; i += 3)
      q += (x[i] - m[c]) * (x[i] - m[c]);
    d[c] = sqrt (q / (double) per + 1e-5);
  }
  tn_view_init (&v, TN_FLOAT32, dims, 3, NULL);
  v.offset = xoff;
  for (int impl = 0; impl < impls; impl++) {
    tn_cpu_set_mask (impl ? mask : 0);
    for (int th = 1; th <= maxth; th++) {
      const float *got = out + yoff;

      memset (out, 0, sizeof (float) * (size_t) (n + yoff));
      if (tn_normalize (
              out + yoff, buf, &v, TN_NORM_STANDARDIZE, 3, 1e-5, th, &e)
          < 0)
        g_error ("standardize: %s", e.msg);
      if (ref) {
        if (memcmp (got, ref, sizeof (float) * (size_t) n) != 0)
          g_error ("standardize <%lld,%lld,3> on %d threads, %s kernels: "
                   "bits differ",
              (long long) dims[0], (long long) dims[1], th,
              impl ? "ISA" : "portable");
        continue;
      }
      for (int64_t i = 0; i < n; i++) {
        const double w = (x[i] - m[i % 3]) / d[i % 3];
        const float g = got[i], r = (float) w;
        const double slack = 0x1p-40 * (1.0 + fabs (mean0[i % 3]) / sd0[i % 3]);

        if (!(fabs (g - w) <= slack
                || fabsf (g - r)
                       <= 4 * (nextafterf (fabsf (r), INFINITY) - fabsf (r))))
          g_error ("item %lld is %.9g, expected %.17g", (long long) i, g, w);
      }
      ref = g_memdup2 (got, sizeof (float) * (size_t) n);
    }
  }
  tn_cpu_set_mask (mask);
  g_free (ref);
  g_free (out);
  g_free (buf);
}

static void
test_hwc (void)
{
  const int64_t dims[3] = { 257, 190, 3 };

  hwc_case (dims, 0, 0, 4);
}

/* An output of 16 MiB or more is written past the caches by the ISA
 * kernels (non-temporal stores, fenced per thread's range): input and
 * output at unaligned items, an item count no vector width divides. */
static void
test_hwc_stream (void)
{
  const int64_t dims[3] = { 1001, 1399, 3 };

  g_assert_cmpint (dims[0] * dims[1] * dims[2] * 4, >=, 16 << 20);
  hwc_case (dims, 3, 1, 2);
}

/* softmax of [0, ln 3] is [1/4, 3/4]; in place gives the same; ints,
 * strided views and a bad mask are errors that say so. */
static void
test_misc (void)
{
  const int64_t d2[1] = { 2 };
  float x[2] = { 0.0f, (float) log (3.0) }, y[2];
  int32_t ix[2] = { 1, 2 };
  tn_view v;
  tn_err e;

  tn_view_init (&v, TN_FLOAT32, d2, 1, NULL);
  g_assert_cmpint (
      tn_normalize (y, x, &v, TN_NORM_SOFTMAX, 1, 0, 1, &e), ==, 0);
  g_assert_cmpfloat (fabs (y[0] - 0.25), <=, 1e-7);
  g_assert_cmpfloat (fabs (y[1] - 0.75), <=, 1e-7);
  g_assert_cmpint (
      tn_normalize (x, x, &v, TN_NORM_SOFTMAX, 1, 0, 1, &e), ==, 0);
  g_assert_cmpmem (x, sizeof x, y, sizeof y);
  /* log-softmax in place reads x after the exponentials: [log 1/4, log 3/4] */
  x[0] = 0.0f;
  x[1] = (float) log (3.0);
  g_assert_cmpint (
      tn_normalize (x, x, &v, TN_NORM_LOG_SOFTMAX, 1, 0, 1, &e), ==, 0);
  g_assert_cmpfloat (fabs (x[0] - log (0.25)), <=, 2e-7);
  g_assert_cmpfloat (fabs (x[1] - log (0.75)), <=, 2e-7);
  /* l2 of [3, 4] is [0.6, 0.8]; minmax of [3, 4] is [0, 1] exactly */
  x[0] = 3;
  x[1] = 4;
  g_assert_cmpint (tn_normalize (y, x, &v, TN_NORM_L2, 1, 1e-12, 1, &e), ==, 0);
  g_assert_cmpfloat (y[0], ==, 0.6f);
  g_assert_cmpfloat (y[1], ==, 0.8f);
  g_assert_cmpint (tn_normalize (y, x, &v, TN_NORM_MINMAX, 1, 0, 1, &e), ==, 0);
  g_assert_cmpfloat (y[0], ==, 0.0f);
  g_assert_cmpfloat (y[1], ==, 1.0f);
  /* standardize with eps 0 gives [-1, 1]; a user eps applies as given */
  g_assert_cmpint (
      tn_normalize (y, x, &v, TN_NORM_STANDARDIZE, 1, 0.0, 1, &e), ==, 0);
  g_assert_cmpfloat (y[0], ==, -1.0f);
  g_assert_cmpfloat (y[1], ==, 1.0f);
  g_assert_cmpint (
      tn_normalize (y, x, &v, TN_NORM_STANDARDIZE, 1, 0.75, 1, &e), ==, 0);
  g_assert_cmpfloat (y[0], ==, -0.5f); /* 0.5 / sqrt (0.25 + 0.75) */
  /* rank 0: its own group */
  tn_view_init (&v, TN_FLOAT32, d2, 0, NULL);
  g_assert_cmpint (
      tn_normalize (y, x, &v, TN_NORM_SOFTMAX, 0, 0, 1, &e), ==, 0);
  g_assert_cmpfloat (y[0], ==, 1.0f);

  tn_view_init (&v, TN_INT32, d2, 1, NULL);
  g_assert_cmpint (
      tn_normalize (y, ix, &v, TN_NORM_SOFTMAX, 1, 0, 1, &e), ==, -1);
  g_assert_nonnull (strstr (e.msg, "not int32"));
  tn_view_init (&v, TN_FLOAT32, d2, 1, NULL);
  v.strides[0] = 2;
  g_assert_cmpint (
      tn_normalize (y, x, &v, TN_NORM_SOFTMAX, 1, 0, 1, &e), ==, -1);
  g_assert_nonnull (strstr (e.msg, "dense"));
  v.strides[0] = 1;
  g_assert_cmpint (
      tn_normalize (y, x, &v, TN_NORM_SOFTMAX, 2, 0, 1, &e), ==, -1);
  g_assert_nonnull (strstr (e.msg, "beyond rank 1"));
  g_assert_cmpstr (tn_norm_op_name (TN_NORM_LOG_SOFTMAX), ==, "log-softmax");
  g_assert_cmpfloat (tn_norm_default_eps (TN_NORM_STANDARDIZE), ==, 1e-5);
  g_assert_cmpfloat (tn_norm_default_eps (TN_NORM_L2), ==, 1e-12);
  g_assert_false (tn_norm_uses_eps (TN_NORM_SOFTMAX));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/normalize/golden/float32", "float32", test_golden);
  g_test_add_data_func ("/normalize/golden/float64", "float64", test_golden);
  g_test_add_data_func ("/normalize/golden/float16", "float16", test_golden);
  g_test_add_data_func ("/normalize/golden/bfloat16", "bfloat16", test_golden);
  g_test_add_data_func ("/normalize/special", "special", test_rows);
  g_test_add_data_func ("/normalize/wide", "wide", test_rows);
  g_test_add_func ("/normalize/exp", test_exp);
  g_test_add_func ("/normalize/threads", test_threads);
  g_test_add_func ("/normalize/hwc", test_hwc);
  g_test_add_func ("/normalize/hwc-stream", test_hwc_stream);
  g_test_add_func ("/normalize/misc", test_misc);
  return g_test_run ();
}
