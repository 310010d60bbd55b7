/* Elementwise ops between tensors (core/combine.h): every op on every
 * dtype it takes against golden data from tests/data/gen/gen_combine.py,
 * on the portable and the native kernels, in place and not; the
 * broadcasting cases; strided operands against their dense copies; the
 * same bits on 1, 2 and 4 threads; every error with its message. */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cast.h"
#include "core/combine.h"
#include "core/cpu.h"
#include "ftz.h"
#include "tests/common/npyread.h"

static const unsigned masks[2] = { 0, ~0u };
static const char *const mask_names[2] = { "portable", "native" };

static tn_view
dense_view (tn_dtype t, const gint64 *dims, int rank)
{
  tn_view v;
  tn_err e;

  if (tn_view_init (&v, t, (const int64_t *) dims, rank, &e) != 0)
    g_error ("view: %s", e.msg);
  return v;
}

static tn_combine *
compile_ok (tn_combine_op op, const tn_view *v)
{
  tn_combine *p;
  tn_err e;

  if (tn_combine_compile (op, v, &p, &e) != 0)
    g_error ("compile %s: %s", tn_combine_op_name (op), e.msg);
  return p;
}

/* Order-preserving integer of a float's bits, for ulp distances. */
static gint64
ordered (const guint8 *p, gsize size)
{
  guint64 b = 0, sign;

  memcpy (&b, p, size);
  sign = G_GUINT64_CONSTANT (1) << (8 * size - 1);
  return (b & sign) ? -(gint64) (b & ~sign) : (gint64) b;
}

/* Bits equal, or both NaN, or (ulps > 0) floats within ulps. */
static void
compare (const gchar *what, const guint8 *got, const guint8 *want, gsize n,
    tn_dtype t, int ulps)
{
  const gsize es = tn_dtype_size (t);
  const gboolean flt = tn_dtype_kind (t) == TN_KIND_FLOAT;

  for (gsize i = 0; i < n; i++) {
    const guint8 *g = got + i * es, *w = want + i * es;

    if (memcmp (g, w, es) == 0)
      continue;
    if (flt && isnan (tn_get_f64 (g, t)) && isnan (tn_get_f64 (w, t)))
      continue;
    if (flt && ulps > 0 && llabs (ordered (g, es) - ordered (w, es)) <= ulps)
      continue;
    g_error ("%s: item %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
             ": got %.17g, want %.17g",
        what, i, n, tn_get_f64 (g, t), tn_get_f64 (w, t));
  }
}

/* Runs op on a and b (dense, same dims) under both masks, out of place
 * on one thread and in place on two where the plan allows, against want. */
static void
check_op (tn_combine_op op, const Npy *a, const Npy *b, const guint8 *want,
    tn_dtype wt, int ulps, const gchar *dname)
{
  tn_view v[2] = { dense_view (a->dtype, a->dims, a->rank),
    dense_view (b->dtype, b->dims, b->rank) };
  const gsize osz = (gsize) a->count * tn_dtype_size (wt);

  for (int m = 0; m < 2; m++) {
    unsigned old = tn_cpu_set_mask (masks[m]);
    tn_combine *p = compile_ok (op, v);
    guint8 *got = g_malloc (osz + 1);
    const void *bases[2] = { a->data, b->data };
    gchar *what;

    g_assert_cmpint (tn_combine_out_dtype (p), ==, wt);
    g_assert_cmpint (tn_combine_count (p), ==, a->count);
    tn_combine_run (p, got, bases, 1);
    what = g_strdup_printf (
        "%s on %s (%s)", tn_combine_op_name (op), dname, mask_names[m]);
    compare (what, got, want, (gsize) a->count, wt, ulps);
    g_free (what);
    if (tn_combine_in_place_ok (p)) {
      memcpy (got, a->data, osz);
      bases[0] = got;
      tn_combine_run (p, got, bases, 2);
      what = g_strdup_printf ("%s on %s in place (%s)", tn_combine_op_name (op),
          dname, mask_names[m]);
      compare (what, got, want, (gsize) a->count, wt, ulps);
      g_free (what);
    } else {
      /* Only comparisons of non-bool operands change the dtype. */
      g_assert_true (
          op >= TN_COMBINE_EQ && op <= TN_COMBINE_GE && a->dtype != TN_BOOL);
    }
    g_free (got);
    tn_combine_free (p);
    tn_cpu_set_mask (old);
  }
}

static void
test_ops (void)
{
  for (int t = 0; t < TN_NDTYPES; t++) {
    const gchar *d = tn_dtype_name (t);
    gchar *name;
    Npy x, y, out;

    name = g_strdup_printf ("combine_x_%s.npy", d);
    npy_load (&x, name);
    g_free (name);
    name = g_strdup_printf ("combine_y_%s.npy", d);
    npy_load (&y, name);
    g_free (name);
    g_assert_cmpint (x.dtype, ==, t);

    if (t != TN_BOOL) {
      gchar *path, *text, **lines;

      name = g_strdup_printf ("combine_out_%s.npy", d);
      npy_load (&out, name);
      g_free (name);
      name = g_strdup_printf ("combine_ops_%s.txt", d);
      path = npy_data_path (name);
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      lines = g_strsplit (g_strstrip (text), "\n", -1);
      g_assert_cmpint (g_strv_length (lines), ==, TN_COMBINE_MAX + 1);
      for (int op = 0; op <= TN_COMBINE_MAX; op++) {
        gboolean approx = lines[op][0] == '~';

        g_assert_cmpstr (lines[op] + approx, ==, tn_combine_op_name (op));
        check_op (op, &x, &y, out.data + (gsize) op * x.count * x.itemsize, t,
            approx ? 2 : 0, d);
      }
      g_strfreev (lines);
      g_free (text);
      g_free (path);
      g_free (name);
      npy_clear (&out);
    }

    name = g_strdup_printf ("combine_rel_%s.npy", d);
    npy_load (&out, name);
    g_free (name);
    for (int r = 0; r < 6; r++)
      check_op (TN_COMBINE_EQ + r, &x, &y, out.data + (gsize) r * x.count,
          TN_BOOL, 0, d);
    npy_clear (&out);

    name = g_strdup_printf ("combine_bit_%s.npy", d);
    if (npy_try_load (&out, name)) {
      for (int b = 0; b < 3; b++)
        check_op (TN_COMBINE_AND + b, &x, &y,
            out.data + (gsize) b * x.count * x.itemsize, (tn_dtype) t, 0, d);
      npy_clear (&out);
    } else {
      g_assert_true (tn_dtype_kind (t) == TN_KIND_FLOAT);
    }
    g_free (name);
    npy_clear (&x);
    npy_clear (&y);
  }
}

static tn_combine_op
op_by_name (const gchar *s)
{
  for (int op = 0; op < TN_COMBINE_NOPS; op++)
    if (strcmp (tn_combine_op_name (op), s) == 0)
      return op;
  g_error ("no op %s", s);
}

static void
test_bcast (void)
{
  gchar *path = npy_data_path ("combine_bcast.txt"), *text, **lines;
  int ncases = 0;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (g_strstrip (text), "\n", -1);
  for (int l = 0; lines[l]; l++) {
    gchar **f = g_strsplit (lines[l], " ", -1);
    const int k = atoi (f[0]), nops = atoi (f[2]);
    const tn_combine_op op = op_by_name (f[1]);
    Npy in[3], want;
    tn_view v[3];
    const void *bases[3];
    gchar *name;

    g_assert_cmpint (tn_combine_arity (op), ==, nops);
    for (int j = 0; j < nops; j++) {
      name = g_strdup_printf ("combine_b%d_%d.npy", k, j);
      npy_load (&in[j], name);
      g_free (name);
      v[j] = dense_view (in[j].dtype, in[j].dims, in[j].rank);
      bases[j] = in[j].data;
    }
    name = g_strdup_printf ("combine_b%d_out.npy", k);
    npy_load (&want, name);
    g_free (name);
    for (int m = 0; m < 2; m++) {
      unsigned old = tn_cpu_set_mask (masks[m]);
      tn_combine *p = compile_ok (op, v);
      guint8 *got = g_malloc (want.size + 1);
      gchar *what = g_strdup_printf ("case %s (%s)", lines[l], mask_names[m]);

      g_assert_cmpint (tn_combine_rank (p), ==, want.rank);
      for (int i = 0; i < want.rank; i++)
        g_assert_cmpint (tn_combine_dims (p)[i], ==, want.dims[i]);
      g_assert_cmpint (tn_combine_out_dtype (p), ==, want.dtype);
      tn_combine_run (p, got, bases, 1);
      compare (what, got, want.data, (gsize) want.count, want.dtype, 0);
      if (tn_combine_in_place_ok (p)) {
        /* Into operand 0's storage (rank 0 too: <> + <>). */
        memcpy (got, in[0].data, want.size);
        bases[0] = got;
        tn_combine_run (p, got, bases, 1);
        compare (what, got, want.data, (gsize) want.count, want.dtype, 0);
        bases[0] = in[0].data;
      }
      g_free (what);
      g_free (got);
      tn_combine_free (p);
      tn_cpu_set_mask (old);
    }
    for (int j = 0; j < nops; j++)
      npy_clear (&in[j]);
    npy_clear (&want);
    g_strfreev (f);
    ncases++;
  }
  g_assert_cmpint (ncases, >=, 20);
  g_strfreev (lines);
  g_free (text);
  g_free (path);
}

/* Operands through views (a transpose, a channel of interleaved items, a
 * broadcast view with stride 0) give the bits of their dense copies. */
static void
test_strided (void)
{
  enum { H = 37, W = 53, C = 3 };
  float *hwc = g_new (float, H *W *C), *b = g_new (float, W *H);
  float *dense = g_new (float, W *H), *want = g_new (float, W *H);
  float *got = g_new (float, W *H);
  const gint64 dims_wh[2] = { W, H };
  tn_view v[2], d[2];
  tn_combine *p;

  for (int i = 0; i < H * W * C; i++)
    hwc[i] = (float) (i % 97) * 0.37f - 11.0f;
  for (int i = 0; i < W * H; i++)
    b[i] = (float) (i % 13) - 6.5f;
  /* Channel 1 of <H, W, C>, transposed to <W, H>. */
  v[0] = dense_view (TN_FLOAT32, dims_wh, 2);
  v[0].strides[0] = C;
  v[0].strides[1] = (int64_t) W * C;
  v[0].offset = 1;
  v[1] = dense_view (TN_FLOAT32, dims_wh, 2);
  for (int w = 0; w < W; w++)
    for (int h = 0; h < H; h++)
      dense[w * H + h] = hwc[(h * W + w) * C + 1];
  d[0] = dense_view (TN_FLOAT32, dims_wh, 2);
  d[1] = v[1];
  for (int op = TN_COMBINE_ADD; op <= TN_COMBINE_MAX; op++) {
    const void *sb[2] = { hwc, b }, *db[2] = { dense, b };

    p = compile_ok (op, d);
    tn_combine_run (p, want, db, 1);
    tn_combine_free (p);
    p = compile_ok (op, v);
    g_assert_false (tn_combine_in_place_ok (p));
    tn_combine_run (p, got, sb, 1);
    tn_combine_free (p);
    compare (tn_combine_op_name (op), (guint8 *) got, (guint8 *) want, W * H,
        TN_FLOAT32, 0);
    /* Swapped sides: the strided operand second. */
    sb[0] = b;
    sb[1] = hwc;
    db[0] = b;
    db[1] = dense;
    {
      tn_view vs[2] = { v[1], v[0] }, ds[2] = { d[1], d[0] };

      p = compile_ok (op, ds);
      tn_combine_run (p, want, db, 1);
      tn_combine_free (p);
      p = compile_ok (op, vs);
      tn_combine_run (p, got, sb, 1);
      tn_combine_free (p);
    }
    compare (tn_combine_op_name (op), (guint8 *) got, (guint8 *) want, W * H,
        TN_FLOAT32, 0);
  }
  g_free (hwc);
  g_free (b);
  g_free (dense);
  g_free (want);
  g_free (got);
}

/* 1, 2 and 4 threads on tensors past TN_EWISE_PARALLEL_MIN: each output
 * item against the C expression, for a dense, a tiled and a gathered
 * operand, in place too. */
static void
test_threads (void)
{
  enum { N = 241, M = 1031 };
  const gint64 da[2] = { N, M }, db[2][2] = { { N, M }, { 1, M } };
  const gint64 dc[2] = { N, 1 };
  float *a = g_new (float, N *M), *b = g_new (float, N *M);
  float *want = g_new (float, N *M), *got = g_new (float, N *M);
  const int threads[3] = { 1, 2, 4 };

  for (int i = 0; i < N * M; i++) {
    a[i] = (float) (i % 1009) * 0.125f - 3.0f;
    b[i] = (float) (i % 31) * 0.3f;
  }
  for (int c = 0; c < 3; c++) {
    tn_view v[2] = { dense_view (TN_FLOAT32, da, 2),
      c < 2 ? dense_view (TN_FLOAT32, db[c], 2)
            : dense_view (TN_FLOAT32, dc, 2) };
    const void *bases[2] = { a, b };
    tn_combine *p = compile_ok (TN_COMBINE_SUB, v);

    for (int i = 0; i < N * M; i++)
      want[i] = a[i] - b[c == 0 ? i : c == 1 ? i % M : i / M];
    for (int t = 0; t < 3; t++) {
      memset (got, 0, sizeof (float) * N * M);
      tn_combine_run (p, got, bases, threads[t]);
      compare (
          "threads", (guint8 *) got, (guint8 *) want, N * M, TN_FLOAT32, 0);
      memcpy (got, a, sizeof (float) * N * M);
      bases[0] = got;
      g_assert_true (tn_combine_in_place_ok (p));
      tn_combine_run (p, got, bases, threads[t]);
      compare ("threads in place", (guint8 *) got, (guint8 *) want, N * M,
          TN_FLOAT32, 0);
      bases[0] = a;
    }
    tn_combine_free (p);
  }
  g_free (a);
  g_free (b);
  g_free (want);
  g_free (got);
}

/* Outputs past 16 MiB take the stream kernels (no cache on the way out):
 * float32 and float64, dense and tiled operands, an output that starts
 * off a 32-byte border; in place they are not used, so that runs too. */
static void
test_stream (void)
{
  enum { N = (17 << 20) / 4 + 5 };
  const gint64 dn[2] = { (N - 2) / 3, 3 }, d3 = 3, dn64 = (N - 2) / 2;
  const int cnt = (N - 2) / 3 * 3;
  float *a = g_new (float, N), *b = g_new (float, N), *got = g_new (float, N);
  double *x = g_new (double, N / 2), *y = g_new (double, N / 2);
  double *g64 = g_new (double, N / 2);

  for (int i = 0; i < N; i++) {
    a[i] = (float) (i % 1013) * 0.37f - 5.0f;
    b[i] = (float) (i % 29) * 1.25f + 0.5f;
  }
  for (int i = 0; i < N / 2; i++) {
    x[i] = (double) (i % 997) * 0.1 - 3.0;
    y[i] = (double) (i % 7) + 0.25;
  }
  for (int c = 0; c < 2; c++) {
    for (int op = TN_COMBINE_ADD; op <= TN_COMBINE_DIV; op++) {
      tn_view v[2] = { dense_view (TN_FLOAT32, dn, 2),
        c ? dense_view (TN_FLOAT32, &d3, 1) : dense_view (TN_FLOAT32, dn, 2) };
      const void *bases[2] = { a, b };
      tn_combine *p = compile_ok (op, v);

      for (int t = 1; t <= 2; t++) {
        /* got + 1: the first items before a 32-byte border. */
        tn_combine_run (p, got + 1, bases, t);
        for (int i = 0; i < cnt; i++) {
          float w = b[c ? i % 3 : i], r = op == TN_COMBINE_ADD   ? a[i] + w
                                          : op == TN_COMBINE_SUB ? a[i] - w
                                          : op == TN_COMBINE_MUL ? a[i] * w
                                                                 : a[i] / w;

          if (memcmp (&r, &got[i + 1], 4) != 0)
            g_error ("stream %s, case %d, item %d: got %.9g, want %.9g",
                tn_combine_op_name (op), c, i, got[i + 1], r);
        }
      }
      tn_combine_free (p);
    }
  }
  {
    tn_view v[2] = { dense_view (TN_FLOAT64, &dn64, 1),
      dense_view (TN_FLOAT64, &dn64, 1) };
    const void *bases[2] = { x, y };
    tn_combine *p = compile_ok (TN_COMBINE_DIV, v);

    tn_combine_run (p, g64, bases, 2);
    for (int i = 0; i < (N - 2) / 2; i++) {
      double r = x[i] / y[i];

      g_assert_true (memcmp (&r, &g64[i], 8) == 0);
    }
    tn_combine_free (p);
  }
  g_free (a);
  g_free (b);
  g_free (got);
  g_free (x);
  g_free (y);
  g_free (g64);
}

static void
check_fails (tn_combine_op op, int n, const tn_dtype *dt,
    const int64_t *const *dims, const int *ranks, const gchar *want, int bad)
{
  static const char *const names[3] = { "sink_0", "sink_1", "sink_2" };
  int64_t od[TN_MAX_RANK];
  int orank, b = -1;
  tn_dtype odt;
  tn_err e;

  g_assert_cmpint (tn_combine_check (
                       op, n, dt, dims, ranks, names, od, &orank, &odt, &b, &e),
      ==, -1);
  if (strstr (e.msg, want) == NULL)
    g_error ("message '%s' lacks '%s'", e.msg, want);
  g_assert_cmpint (b, ==, bad);
}

/* Empty outputs: a zero extent on any axis plans, counts no item, may be
 * run in place (nothing is written), and running it touches no memory. */
static void
test_empty (void)
{
  const gint64 d20[2] = { 2, 0 }, d1 = 1, d302[3] = { 3, 0, 2 }, d2 = 2;
  const gint64 d03[2] = { 0, 3 }, d3 = 3;
  const struct {
    const gint64 *a, *b;
    int ra, rb;
  } cases[] = { { d20, &d1, 2, 1 }, { d302, &d2, 3, 1 }, { d03, &d3, 2, 1 } };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    tn_view v[2] = { dense_view (TN_FLOAT32, cases[c].a, cases[c].ra),
      dense_view (TN_FLOAT32, cases[c].b, cases[c].rb) };
    float one = 1.0f, dst = 7.0f;
    const void *bases[2] = { &dst, &one };
    tn_combine *p = compile_ok (TN_COMBINE_ADD, v);

    g_assert_cmpint (tn_combine_count (p), ==, 0);
    g_assert_true (tn_combine_in_place_ok (p));
    tn_combine_run (p, &dst, bases, 2);
    g_assert_cmpfloat (dst, ==, 7.0f);
    tn_combine_free (p);
  }
}

static void
test_errors (void)
{
  const int64_t d23[2] = { 2, 3 }, d2[1] = { 2 }, d3[1] = { 3 };
  const int64_t d45[2] = { 4, 5 }, d41[2] = { 4, 1 };
  const int64_t *bad_dims[2] = { d23, d2 }, *ok_dims[3] = { d23, d3, d3 };
  const int64_t *fold_dims[3] = { d41, d3, d45 };
  const int r2[3] = { 2, 1, 1 }, r3[3] = { 2, 1, 2 };
  const tn_dtype f32[3] = { TN_FLOAT32, TN_FLOAT32, TN_FLOAT32 };
  const tn_dtype mixed[2] = { TN_FLOAT32, TN_UINT8 };
  const tn_dtype bools[2] = { TN_BOOL, TN_BOOL };
  const tn_dtype wh[3] = { TN_BOOL, TN_INT16, TN_INT32 };
  int64_t od[TN_MAX_RANK];
  int orank;
  tn_dtype odt;
  tn_err e;

  check_fails (TN_COMBINE_ADD, 2, f32, bad_dims, r2,
      "sink_1 does not broadcast with sink_0: dims <2, 3> and <2> do not "
      "broadcast: axis 1 has 3 against 2 and neither is 1",
      1);
  /* A fold: <4, 1> + <3> is <4, 3>, which <4, 5> does not fit. */
  check_fails (TN_COMBINE_MUL, 3, f32, fold_dims, r3,
      "sink_2 does not broadcast with the ones before it: dims <4, 3> and "
      "<4, 5> do not broadcast: axis 1 has 3 against 5",
      2);
  check_fails (TN_COMBINE_SUB, 2, mixed, ok_dims, r2,
      "sink_1 is uint8 but sink_0 is float32: sub needs one dtype", 1);
  check_fails (TN_COMBINE_ADD, 2, bools, ok_dims, r2,
      "add does not take bool operands", 0);
  check_fails (TN_COMBINE_XOR, 2, f32, ok_dims, r2,
      "xor needs bool or integer operands, and sink_0 is float32", 0);
  check_fails (TN_COMBINE_WHERE, 3, f32, ok_dims, r2,
      "the condition of where (sink_0) must be bool, not float32", 0);
  check_fails (TN_COMBINE_WHERE, 3, wh, ok_dims, r2,
      "sink_2 is int32 but sink_1 is int16: where needs one dtype", 2);
  check_fails (
      TN_COMBINE_LT, 3, f32, ok_dims, r2, "lt takes 2 operands, not 3", 0);
  check_fails (TN_COMBINE_WHERE, 2, f32, ok_dims, r2,
      "where takes 3 (condition, then, else) operands, not 2", 0);
  check_fails (TN_COMBINE_ADD, 1, f32, ok_dims, r2,
      "add takes 2 or more operands, not 1", 0);

  /* What passes: the fold's dims and the comparisons' bool. */
  fold_dims[2] = d3;
  g_assert_cmpint (tn_combine_check (TN_COMBINE_ADD, 3, f32, fold_dims, r2,
                       NULL, od, &orank, &odt, NULL, &e),
      ==, 0);
  g_assert_cmpint (orank, ==, 2);
  g_assert_cmpint (od[0], ==, 4);
  g_assert_cmpint (od[1], ==, 3);
  g_assert_cmpint (odt, ==, TN_FLOAT32);
  g_assert_cmpint (tn_combine_check (TN_COMBINE_GE, 2, f32, ok_dims, r2, NULL,
                       od, &orank, &odt, NULL, &e),
      ==, 0);
  g_assert_cmpint (odt, ==, TN_BOOL);
  g_assert_true (tn_combine_folds (TN_COMBINE_OR));
  g_assert_false (tn_combine_folds (TN_COMBINE_EQ));
  g_assert_false (tn_combine_folds (TN_COMBINE_WHERE));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/combine/ops", test_ops);
  g_test_add_func ("/combine/bcast", test_bcast);
  g_test_add_func ("/combine/strided", test_strided);
  g_test_add_func ("/combine/threads", test_threads);
  g_test_add_func ("/combine/stream", test_stream);
  g_test_add_func ("/combine/empty", test_empty);
  g_test_add_func ("/combine/errors", test_errors);
  return g_test_run ();
}
