/* tn_reduce against golden data from tests/data/gen/gen_reduce.py (every op on
 * every dtype over eight axis sets, a multi-block set, NaN/inf/ties), in
 * three memory layouts, on 1..4 threads, with the portable and the AVX2
 * kernels; plus hand-worked cases: names, result dtypes, axes parsing and
 * its errors, shapes, empty axes, rank 0, wrapping sums, bool bytes, signed
 * zeros, ddof, the 16M-item float32 accuracy bound, and bit-identical
 * results across thread counts and repeated runs. */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cast.h"
#include "core/cpu.h"
#include "core/half.h"
#include "core/npy.h"
#include "core/random.h"
#include "core/reduce-kern.h"
#include "core/reduce.h"
#include "ftz.h"
#include "tests/common/npyread.h"

static const char *const axes_main[]
    = { "", "0", "-1", "1", "2", "0,2", "1,3", "-1,-2" };
static const char *const axes_big[] = { "", "0", "1" };

/* Whether the machine runs kernels beyond the portable ones: the tests
 * run each case under CPU mask 0 (portable) and, when it does, under the
 * mask they started with (AVX2). */
static gboolean
have_isa_kernels (void)
{
  tn_reduce_dsp c, all;

  tn_reduce_dsp_init (&c, 0);
  tn_reduce_dsp_init (&all, tn_cpu_detect ());
  return memcmp (&c, &all, sizeof c) != 0;
}

/* Runs one reduction; returns the malloc'd result and its item count. */
static guint8 *
run (const void *base, const tn_view *v, tn_reduce_op op, const char *axes,
    int64_t ddof, int nthreads, int64_t *count)
{
  int64_t odims[TN_MAX_RANK], n = 1;
  int orank;
  uint32_t mask;
  tn_axes ax;
  tn_err e;
  guint8 *out;
  size_t osz = tn_dtype_size (tn_reduce_dtype (op, v->dtype));

  if (tn_axes_parse (&ax, axes, &e) < 0
      || tn_axes_mask (&ax, v->rank, &mask, &e) < 0
      || tn_reduce_shape (op, v->dims, v->rank, mask, false, odims, &orank, &e)
             < 0)
    g_error ("%s axes '%s': %s", tn_reduce_op_name (op), axes, e.msg);
  for (int i = 0; i < orank; i++)
    n *= odims[i];
  out = g_malloc0 (n * osz + 1);
  if (tn_reduce (out, base, v, op, mask, ddof, nthreads, &e) < 0)
    g_error ("%s axes '%s': %s", tn_reduce_op_name (op), axes, e.msg);
  *count = n;
  return out;
}

/* Distance in units in the last place between two float items (signed
 * zeros are one point). */
static int64_t
ulps (tn_dtype t, const guint8 *a, const guint8 *b)
{
  int64_t oa, ob;
  uint64_t ua = 0, ub = 0, sign, mag;
  size_t sz = tn_dtype_size (t);

  memcpy (&ua, a, sz);
  memcpy (&ub, b, sz);
  sign = UINT64_C (1) << (8 * sz - 1);
  mag = sign - 1;
  oa = (ua & sign) ? -(int64_t) (ua & mag) : (int64_t) (ua & mag);
  ob = (ub & sign) ? -(int64_t) (ub & mag) : (int64_t) (ub & mag);
  return oa > ob ? oa - ob : ob - oa;
}

static gboolean
is_nan_item (tn_dtype t, const guint8 *p)
{
  return tn_dtype_kind (t) == TN_KIND_FLOAT && isnan (tn_get_f64 (p, t));
}

/* Compares n result items of dtype t: bit for bit (any NaN matching any
 * NaN), or within max_ulps. */
static void
compare (const char *what, tn_dtype t, const guint8 *got, const guint8 *want,
    int64_t n, int64_t max_ulps)
{
  size_t sz = tn_dtype_size (t);

  for (int64_t i = 0; i < n; i++) {
    const guint8 *g = got + i * sz, *w = want + i * sz;
    gboolean ok;
    char gs[64], ws[64];

    if (is_nan_item (t, w))
      ok = is_nan_item (t, g);
    else if (max_ulps > 0 && tn_dtype_kind (t) == TN_KIND_FLOAT)
      ok = !is_nan_item (t, g) && ulps (t, g, w) <= max_ulps;
    else
      ok = memcmp (g, w, sz) == 0;
    if (!ok) {
      tn_format_item (gs, sizeof gs, g, t);
      tn_format_item (ws, sizeof ws, w, t);
      g_error ("%s: item %" G_GINT64_FORMAT " is %s, expected %s (%s)", what, i,
          gs, ws, tn_dtype_name (t));
    }
  }
}

/* The ulps a result may be off by: 0 where core/reduce.h makes it exact
 * for the golden inputs (see gen_reduce.py), else the float64 error bound
 * (in ulps of float64) or one ulp of a narrower result. */
static int64_t
tolerance (tn_reduce_op op, tn_dtype in)
{
  tn_dtype out = tn_reduce_dtype (op, in);
  bool fin = tn_dtype_kind (in) == TN_KIND_FLOAT;
  bool exact;

  switch (op) {
  case TN_REDUCE_PROD:
    exact = !fin;
    break;
  case TN_REDUCE_L2:
    exact = in == TN_FLOAT16 || in == TN_BFLOAT16 || in == TN_FLOAT32;
    break;
  case TN_REDUCE_VAR:
  case TN_REDUCE_STD:
    exact = false;
    break;
  default:
    exact = true;
  }
  if (exact)
    return 0;
  return out == TN_FLOAT64 ? 4096 : 1;
}

/* The same tensor in three layouts: dense; reversed (Fortran order); and
 * padded, every other index of one axis and an offset inside a larger
 * buffer whose other items are NaN bits. */
typedef struct {
  guint8 *buf[3];
  tn_view v[3];
} Layouts;

static void
layouts_make (Layouts *L, const Npy *a)
{
  const tn_view *d = &L->v[0];
  size_t isz = tn_dtype_size (a->dtype);
  int r = a->rank;
  tn_view rv;
  int perm[TN_MAX_RANK];
  int64_t pdims[TN_MAX_RANK], pstr[TN_MAX_RANK], total = 1, offset = 1;
  int dbl = r >= 3 ? 1 : 0;
  tn_err e;

  g_assert_cmpint (tn_view_init (&L->v[0], a->dtype, a->dims, r, &e), ==, 0);
  L->buf[0] = g_memdup2 (a->data, a->count * isz);

  /* Reversed: materialize the transposed view, then describe it with
   * reversed strides. */
  rv = *d;
  for (int i = 0; i < r; i++)
    perm[i] = r - 1 - i;
  g_assert_cmpint (tn_view_permute (&rv, perm, r, &e), ==, 0);
  L->buf[1] = g_malloc (a->count * isz + 1);
  tn_view_materialize (L->buf[1], L->buf[0], &rv);
  L->v[1] = *d;
  for (int i = 0; i < r; i++) {
    int64_t s = 1;

    for (int k = 0; k < i; k++)
      s *= d->dims[k];
    L->v[1].strides[i] = s;
  }

  /* Padded: one axis doubled (every other index; axis 1, or 0 for rank
   * 2), the last axis one longer with the tensor starting at index 1 of
   * it. */
  for (int i = 0; i < r; i++)
    pdims[i] = d->dims[i] * (i == dbl ? 2 : 1) + (i == r - 1 ? 1 : 0);
  for (int i = r - 1; i >= 0; i--) {
    pstr[i] = total;
    total *= pdims[i];
  }
  L->buf[2] = g_malloc (total * isz);
  memset (L->buf[2], 0xff, total * isz);
  L->v[2] = *d;
  for (int i = 0; i < r; i++)
    L->v[2].strides[i] = pstr[i] * (i == dbl ? 2 : 1);
  offset = r > 0 ? 1 : 0;
  L->v[2].offset = offset;
  {
    tn_view dst = L->v[2];
    int64_t idx[TN_MAX_RANK] = { 0 };

    for (int64_t k = 0; k < a->count; k++) {
      int64_t o = dst.offset;

      for (int i = 0; i < r; i++)
        o += idx[i] * dst.strides[i];
      memcpy (L->buf[2] + o * isz, a->data + k * isz, isz);
      for (int i = r - 1; i >= 0; i--) {
        if (++idx[i] < d->dims[i])
          break;
        idx[i] = 0;
      }
    }
  }
  for (int l = 0; l < 3; l++)
    g_assert_cmpint (
        tn_view_check (&L->v[l], l == 2 ? total : a->count, &e), ==, 0);
}

static void
layouts_clear (Layouts *L)
{
  for (int l = 0; l < 3; l++)
    g_free (L->buf[l]);
}

/* Every (dtype, axes) of one golden set for op: the dense portable result
 * on one thread against the golden file within tolerance; every other
 * (layout, thread count, kernel set) against that result bit for bit. */
static void
check_set (const char *set, const char *const *axes, int naxes, tn_reduce_op op,
    tn_dtype dt, int64_t ddof)
{
  char iname[96], oname[96], what[256];
  Npy in, want;
  Layouts L;
  int64_t off = 0;
  tn_dtype rdt = tn_reduce_dtype (op, dt);
  size_t osz = tn_dtype_size (rdt);
  int impls = have_isa_kernels () ? 2 : 1;
  unsigned mask = tn_cpu_set_mask (0);

  g_snprintf (
      iname, sizeof iname, "reduce_%sin_%s.npy", set, tn_dtype_name (dt));
  if (ddof)
    g_snprintf (oname, sizeof oname, "reduce_ddof%d_%s_%s.npy", (int) ddof,
        tn_reduce_op_name (op), tn_dtype_name (dt));
  else
    g_snprintf (oname, sizeof oname, "reduce_%s%s_%s.npy", set,
        tn_reduce_op_name (op), tn_dtype_name (dt));
  npy_load (&in, iname);
  npy_load (&want, oname);
  g_assert_cmpint (want.dtype, ==, rdt);
  layouts_make (&L, &in);

  for (int k = 0; k < naxes; k++) {
    int64_t n, n2;
    guint8 *ref;

    tn_cpu_set_mask (0);
    ref = run (L.buf[0], &L.v[0], op, axes[k], ddof, 1, &n);
    g_assert_cmpint (off + n, <=, want.count);
    g_snprintf (what, sizeof what, "%s of %s %s axes '%s' ddof %d",
        tn_reduce_op_name (op), set, tn_dtype_name (dt), axes[k], (int) ddof);
    compare (what, rdt, ref, want.data + off * osz, n, tolerance (op, dt));
    off += n;

    for (int impl = 0; impl < impls; impl++) {
      tn_cpu_set_mask (impl ? mask : 0);
      for (int l = 0; l < 3; l++) {
        for (int th = 1; th <= 4; th += (l == 0 ? 1 : 3)) {
          guint8 *got = run (L.buf[l], &L.v[l], op, axes[k], ddof, th, &n2);

          g_assert_cmpint (n2, ==, n);
          if (memcmp (got, ref, n * osz) != 0) {
            g_snprintf (what, sizeof what,
                "%s of %s %s axes '%s', layout %d, %d threads, %s kernels "
                "against dense portable on 1 thread",
                tn_reduce_op_name (op), set, tn_dtype_name (dt), axes[k], l, th,
                impl ? "AVX2" : "portable");
            compare (what, rdt, got, ref, n, 0);
            g_error ("%s: NaN bits differ", what);
          }
          g_free (got);
        }
      }
    }
    g_free (ref);
  }
  g_assert_cmpint (off, ==, want.count);
  tn_cpu_set_mask (mask);
  layouts_clear (&L);
  npy_clear (&in);
  npy_clear (&want);
}

static void
test_golden (gconstpointer data)
{
  tn_reduce_op op = GPOINTER_TO_INT (data);

  for (int t = 0; t < TN_NDTYPES; t++)
    check_set ("", axes_main, G_N_ELEMENTS (axes_main), op, (tn_dtype) t, 0);
}

static void
test_golden_big (gconstpointer data)
{
  tn_reduce_op op = GPOINTER_TO_INT (data);
  static const tn_dtype dts[]
      = { TN_FLOAT16, TN_FLOAT32, TN_FLOAT64, TN_INT32 };

  for (guint i = 0; i < G_N_ELEMENTS (dts); i++) {
    if (op == TN_REDUCE_PROD && dts[i] != TN_INT32)
      continue;
    check_set ("big_", axes_big, G_N_ELEMENTS (axes_big), op, dts[i], 0);
  }
}

static void
test_golden_special (void)
{
  static const tn_reduce_op ops[]
      = { TN_REDUCE_SUM, TN_REDUCE_MEAN, TN_REDUCE_PROD, TN_REDUCE_MIN,
          TN_REDUCE_MAX, TN_REDUCE_ARGMIN, TN_REDUCE_ARGMAX };

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++) {
    check_set (
        "special_", axes_big, G_N_ELEMENTS (axes_big), ops[i], TN_FLOAT32, 0);
    check_set (
        "special_", axes_big, G_N_ELEMENTS (axes_big), ops[i], TN_FLOAT64, 0);
  }
}

static void
test_golden_ddof (void)
{
  check_set (
      "", axes_main, G_N_ELEMENTS (axes_main), TN_REDUCE_VAR, TN_FLOAT32, 1);
  check_set (
      "", axes_main, G_N_ELEMENTS (axes_main), TN_REDUCE_STD, TN_FLOAT32, 1);
  check_set (
      "", axes_main, G_N_ELEMENTS (axes_main), TN_REDUCE_VAR, TN_INT16, 1);
  check_set (
      "", axes_main, G_N_ELEMENTS (axes_main), TN_REDUCE_STD, TN_INT16, 1);
}

static void
test_names (void)
{
  static const char *const names[] = { "sum", "mean", "prod", "min", "max",
    "argmin", "argmax", "l2", "var", "std" };
  tn_reduce_op op;
  tn_err e;

  for (int i = 0; i < TN_REDUCE_NOPS; i++) {
    g_assert_cmpstr (tn_reduce_op_name ((tn_reduce_op) i), ==, names[i]);
    g_assert_cmpint (tn_reduce_op_from_name (names[i], &op, &e), ==, 0);
    g_assert_cmpint (op, ==, i);
  }
  g_assert_null (tn_reduce_op_name (TN_REDUCE_NOPS));
  g_assert_cmpint (tn_reduce_op_from_name ("average", &op, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "'average' is not a reduction; expected one of sum, mean, prod, min, "
      "max, argmin, argmax, l2, var, std.");
  g_assert_true (tn_reduce_has_identity (TN_REDUCE_SUM));
  g_assert_true (tn_reduce_has_identity (TN_REDUCE_PROD));
  g_assert_true (tn_reduce_has_identity (TN_REDUCE_L2));
  g_assert_false (tn_reduce_has_identity (TN_REDUCE_MEAN));
  g_assert_false (tn_reduce_has_identity (TN_REDUCE_MIN));
  g_assert_false (tn_reduce_has_identity (TN_REDUCE_ARGMAX));
  g_assert_false (tn_reduce_has_identity (TN_REDUCE_VAR));
}

/* ARCHITECTURE.md section 2 and NumPy, written out for every pair. */
static void
test_dtypes (void)
{
  /* Columns: sum, mean, prod, min, max, argmin, argmax, l2, var, std. */
  static const tn_dtype want[TN_NDTYPES][TN_REDUCE_NOPS] = {
#define I64 TN_INT64
#define U64 TN_UINT64
#define F64 TN_FLOAT64
#define F32 TN_FLOAT32
    /* bool */ { I64, F64, I64, TN_BOOL, TN_BOOL, I64, I64, F64, F64, F64 },
    /* int8 */ { I64, F64, I64, TN_INT8, TN_INT8, I64, I64, F64, F64, F64 },
    /* uint8 */ { U64, F64, U64, TN_UINT8, TN_UINT8, I64, I64, F64, F64, F64 },
    /* int16 */ { I64, F64, I64, TN_INT16, TN_INT16, I64, I64, F64, F64, F64 },
    /* uint16 */
    { U64, F64, U64, TN_UINT16, TN_UINT16, I64, I64, F64, F64, F64 },
    /* int32 */ { I64, F64, I64, TN_INT32, TN_INT32, I64, I64, F64, F64, F64 },
    /* uint32 */
    { U64, F64, U64, TN_UINT32, TN_UINT32, I64, I64, F64, F64, F64 },
    /* int64 */ { I64, F64, I64, I64, I64, I64, I64, F64, F64, F64 },
    /* uint64 */ { U64, F64, U64, U64, U64, I64, I64, F64, F64, F64 },
    /* float16 */
    { F32, TN_FLOAT16, F32, TN_FLOAT16, TN_FLOAT16, I64, I64, TN_FLOAT16,
        TN_FLOAT16, TN_FLOAT16 },
    /* bfloat16 */
    { F32, TN_BFLOAT16, F32, TN_BFLOAT16, TN_BFLOAT16, I64, I64, TN_BFLOAT16,
        TN_BFLOAT16, TN_BFLOAT16 },
    /* float32 */ { F32, F32, F32, F32, F32, I64, I64, F32, F32, F32 },
    /* float64 */ { F64, F64, F64, F64, F64, I64, I64, F64, F64, F64 },
#undef I64
#undef U64
#undef F64
#undef F32
  };

  for (int t = 0; t < TN_NDTYPES; t++)
    for (int op = 0; op < TN_REDUCE_NOPS; op++)
      g_assert_cmpint (
          tn_reduce_dtype ((tn_reduce_op) op, (tn_dtype) t), ==, want[t][op]);
}

static void
expect_parse_error (const char *s, const char *msg)
{
  tn_axes a;
  tn_err e;

  g_assert_cmpint (tn_axes_parse (&a, s, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, msg);
}

static void
test_axes (void)
{
  tn_axes a;
  tn_err e;
  uint32_t mask;
  char buf[64];

  g_assert_cmpint (tn_axes_parse (&a, "", &e), ==, 0);
  g_assert_cmpint (a.n, ==, 0);
  g_assert_cmpint (tn_axes_parse (&a, "   ", &e), ==, 0);
  g_assert_cmpint (a.n, ==, 0);
  g_assert_cmpint (tn_axes_parse (&a, NULL, &e), ==, 0);
  g_assert_cmpint (a.n, ==, 0);
  g_assert_cmpint (tn_axes_parse (&a, " 1 , -2,0", &e), ==, 0);
  g_assert_cmpint (a.n, ==, 3);
  g_assert_cmpint (a.axes[0], ==, 1);
  g_assert_cmpint (a.axes[1], ==, -2);
  g_assert_cmpint (a.axes[2], ==, 0);
  g_assert_cmpint (tn_axes_format (buf, sizeof buf, &a), ==, 6);
  g_assert_cmpstr (buf, ==, "1,-2,0");
  g_assert_cmpint (tn_axes_parse (&a, "-8,7", &e), ==, 0);

  expect_parse_error ("0,x", "axes '0,x' is not a comma-separated list of "
                             "integers: entry 2 is 'x'.");
  expect_parse_error ("1 2", "axes '1 2' is not a comma-separated list of "
                             "integers: entry 1 is '1 2'.");
  expect_parse_error ("0,,1", "axes '0,,1' is not a comma-separated list of "
                              "integers: entry 2 is ''.");
  expect_parse_error ("1,", "axes '1,' is not a comma-separated list of "
                            "integers: entry 2 is ''.");
  expect_parse_error ("1.5", "axes '1.5' is not a comma-separated list of "
                             "integers: entry 1 is '1.5'.");
  expect_parse_error ("8", "axes '8': entry 1 is axis 8, outside -8..7 (a "
                           "tensor has at most 8 axes).");
  expect_parse_error ("0,-9", "axes '0,-9': entry 2 is axis -9, outside "
                              "-8..7 (a tensor has at most 8 axes).");
  expect_parse_error ("99999999999999999999", "axes '99999999999999999999' "
                                              "is not a comma-separated list "
                                              "of integers: entry 1 is "
                                              "'99999999999999999999'.");
  expect_parse_error ("0,1,2,3,4,5,6,7,0",
      "axes '0,1,2,3,4,5,6,7,0' has more than 8 entries; a tensor has at "
      "most 8 axes.");

  /* Resolving against a rank. */
  g_assert_cmpint (tn_axes_parse (&a, "", &e), ==, 0);
  g_assert_cmpint (tn_axes_mask (&a, 3, &mask, &e), ==, 0);
  g_assert_cmpuint (mask, ==, 7);
  g_assert_cmpint (tn_axes_mask (&a, 0, &mask, &e), ==, 0);
  g_assert_cmpuint (mask, ==, 0);
  g_assert_cmpint (tn_axes_parse (&a, "-1,0", &e), ==, 0);
  g_assert_cmpint (tn_axes_mask (&a, 4, &mask, &e), ==, 0);
  g_assert_cmpuint (mask, ==, 9);
  g_assert_cmpint (tn_axes_parse (&a, "2", &e), ==, 0);
  g_assert_cmpint (tn_axes_mask (&a, 2, &mask, &e), ==, -1);
  g_assert_cmpstr (
      e.msg, ==, "axis 2 is out of range for rank 2: valid axes are -2..1.");
  g_assert_cmpint (tn_axes_parse (&a, "-3", &e), ==, 0);
  g_assert_cmpint (tn_axes_mask (&a, 2, &mask, &e), ==, -1);
  g_assert_cmpstr (
      e.msg, ==, "axis -3 is out of range for rank 2: valid axes are -2..1.");
  g_assert_cmpint (tn_axes_parse (&a, "0", &e), ==, 0);
  g_assert_cmpint (tn_axes_mask (&a, 0, &mask, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "axis 0 is out of range for rank 0: a scalar has no axes (leave axes "
      "empty to reduce it).");
  g_assert_cmpint (tn_axes_parse (&a, "1,-1", &e), ==, 0);
  g_assert_cmpint (tn_axes_mask (&a, 2, &mask, &e), ==, -1);
  g_assert_cmpstr (
      e.msg, ==, "axis 1 is given twice for rank 2 (as 1 and -1).");
  g_assert_cmpint (tn_axes_parse (&a, "0,0", &e), ==, 0);
  g_assert_cmpint (tn_axes_mask (&a, 3, &mask, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, "axis 0 is given twice for rank 3 (as 0 and 0).");
  g_assert_cmpint (tn_axes_mask (&a, 9, &mask, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, "rank 9 is outside 0..8.");
}

static void
test_shape (void)
{
  const int64_t dims[] = { 2, 3, 4 }, empty[] = { 3, 0 };
  int64_t out[TN_MAX_RANK];
  int r;
  tn_err e;

  g_assert_cmpint (
      tn_reduce_shape (TN_REDUCE_SUM, dims, 3, 5, false, out, &r, &e), ==, 0);
  g_assert_cmpint (r, ==, 1);
  g_assert_cmpint (out[0], ==, 3);
  g_assert_cmpint (
      tn_reduce_shape (TN_REDUCE_SUM, dims, 3, 5, true, out, &r, &e), ==, 0);
  g_assert_cmpint (r, ==, 3);
  g_assert_cmpint (out[0], ==, 1);
  g_assert_cmpint (out[1], ==, 3);
  g_assert_cmpint (out[2], ==, 1);
  g_assert_cmpint (
      tn_reduce_shape (TN_REDUCE_MAX, dims, 3, 7, false, out, &r, &e), ==, 0);
  g_assert_cmpint (r, ==, 0);
  g_assert_cmpint (
      tn_reduce_shape (TN_REDUCE_MAX, dims, 3, 0, true, out, &r, &e), ==, 0);
  g_assert_cmpint (r, ==, 3);
  g_assert_cmpint (out[2], ==, 4);
  g_assert_cmpint (
      tn_reduce_shape (TN_REDUCE_MAX, dims, 0, 0, true, out, &r, &e), ==, 0);
  g_assert_cmpint (r, ==, 0);

  /* Empty axes: only the ops with an identity. */
  g_assert_cmpint (
      tn_reduce_shape (TN_REDUCE_SUM, empty, 2, 2, false, out, &r, &e), ==, 0);
  g_assert_cmpint (r, ==, 1);
  g_assert_cmpint (out[0], ==, 3);
  g_assert_cmpint (
      tn_reduce_shape (TN_REDUCE_PROD, empty, 2, 3, false, out, &r, &e), ==, 0);
  g_assert_cmpint (
      tn_reduce_shape (TN_REDUCE_L2, empty, 2, 2, true, out, &r, &e), ==, 0);
  for (int op = 0; op < TN_REDUCE_NOPS; op++) {
    char msg[256];

    if (tn_reduce_has_identity ((tn_reduce_op) op))
      continue;
    g_assert_cmpint (
        tn_reduce_shape ((tn_reduce_op) op, empty, 2, 2, false, out, &r, &e),
        ==, -1);
    g_snprintf (msg, sizeof msg,
        "%s over axis 1 of extent 0 has no value: the axis holds no items "
        "(dims <3, 0>); only sum, prod and l2 reduce an empty axis.",
        tn_reduce_op_name ((tn_reduce_op) op));
    g_assert_cmpstr (e.msg, ==, msg);
    /* Keeping the empty axis is fine. */
    g_assert_cmpint (
        tn_reduce_shape ((tn_reduce_op) op, empty, 2, 1, false, out, &r, &e),
        ==, 0);
    g_assert_cmpint (out[0], ==, 0);
  }

  g_assert_cmpint (
      tn_reduce_shape (TN_REDUCE_SUM, dims, 3, 8, false, out, &r, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, "the axes mask 0x8 names axes beyond rank 3.");
  g_assert_cmpint (
      tn_reduce_shape (TN_REDUCE_NOPS, dims, 3, 1, false, out, &r, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, "reduction 10 is not one of the 10 reductions.");
  g_assert_cmpint (
      tn_reduce_shape (TN_REDUCE_SUM, dims, 9, 1, false, out, &r, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, "rank 9 is outside 0..8.");
}

/* vals as a column repeated 16 times: dims <len, 16>. */
static double *
columns16 (const double *vals, int len)
{
  double *c = g_new (double, (gsize) len * 16);

  for (int i = 0; i < len; i++)
    for (int k = 0; k < 16; k++)
      c[i * 16 + k] = vals[i];
  return c;
}

/* Reduces a small dense tensor of dtype t built from doubles. */
static guint8 *
reduce_values (tn_dtype t, const int64_t *dims, int rank, const double *vals,
    tn_reduce_op op, const char *axes, int64_t ddof, int64_t *n)
{
  tn_view v;
  tn_err e;
  int64_t count = 1;
  guint8 *buf, *out;

  g_assert_cmpint (tn_view_init (&v, t, dims, rank, &e), ==, 0);
  for (int i = 0; i < rank; i++)
    count *= dims[i];
  buf = g_malloc0 (count * tn_dtype_size (t) + 1);
  for (int64_t i = 0; i < count; i++)
    tn_set_f64 (buf + i * tn_dtype_size (t), t, vals[i]);
  out = run (buf, &v, op, axes, ddof, 2, n);
  g_free (buf);
  return out;
}

static double
item_f64 (tn_dtype t, const guint8 *p, int64_t i)
{
  return tn_get_f64 (p + i * tn_dtype_size (t), t);
}

static void
test_empty (void)
{
  const int64_t d30[] = { 3, 0 }, d03[] = { 0, 3 };
  int64_t n;
  guint8 *r;
  tn_view v;
  tn_err e;
  double dummy = 0;
  uint8_t buf[8];

  /* sum over an empty axis: 0 of the result type; prod: 1; l2: 0. */
  r = reduce_values (TN_FLOAT32, d30, 2, &dummy, TN_REDUCE_SUM, "1", 0, &n);
  g_assert_cmpint (n, ==, 3);
  for (int i = 0; i < 3; i++) {
    g_assert_cmpfloat (item_f64 (TN_FLOAT32, r, i), ==, 0.0);
    g_assert_false (signbit (item_f64 (TN_FLOAT32, r, i)));
  }
  g_free (r);
  r = reduce_values (TN_INT8, d30, 2, &dummy, TN_REDUCE_SUM, "-1", 0, &n);
  g_assert_cmpint (((int64_t *) r)[2], ==, 0);
  g_free (r);
  r = reduce_values (TN_UINT16, d03, 2, &dummy, TN_REDUCE_PROD, "0", 0, &n);
  g_assert_cmpint (n, ==, 3);
  for (int i = 0; i < 3; i++)
    g_assert_cmpuint (((uint64_t *) r)[i], ==, 1);
  g_free (r);
  r = reduce_values (TN_FLOAT16, d03, 2, &dummy, TN_REDUCE_PROD, "", 0, &n);
  g_assert_cmpint (n, ==, 1);
  g_assert_cmpfloat (item_f64 (TN_FLOAT32, r, 0), ==, 1.0);
  g_free (r);
  r = reduce_values (TN_FLOAT64, d30, 2, &dummy, TN_REDUCE_L2, "1", 0, &n);
  g_assert_cmpfloat (item_f64 (TN_FLOAT64, r, 1), ==, 0.0);
  g_free (r);
  /* Nothing to write: a kept empty axis. */
  r = reduce_values (TN_FLOAT32, d03, 2, &dummy, TN_REDUCE_MAX, "1", 0, &n);
  g_assert_cmpint (n, ==, 0);
  g_free (r);

  /* tn_reduce itself refuses an empty reduction without identity. */
  g_assert_cmpint (tn_view_init (&v, TN_FLOAT32, d30, 2, &e), ==, 0);
  g_assert_cmpint (
      tn_reduce (buf, buf, &v, TN_REDUCE_ARGMIN, 2, 0, 1, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "argmin over axis 1 of extent 0 has no value: the axis holds no items "
      "(dims <3, 0>); only sum, prod and l2 reduce an empty axis.");
  g_assert_cmpint (
      tn_reduce (buf, buf, &v, TN_REDUCE_VAR, 2, -1, 1, &e), ==, -1);
  g_assert_cmpint (
      tn_reduce (buf, buf, &v, TN_REDUCE_SUM, 2, -1, 1, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, "ddof is -1; it must be >= 0.");
  v.dtype = (tn_dtype) 77;
  g_assert_cmpint (
      tn_reduce (buf, buf, &v, TN_REDUCE_SUM, 2, 0, 1, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, "dtype 77 is not a tensor dtype.");
}

static void
test_rank0 (void)
{
  double x = 3.5, y = -3;
  int64_t n;
  guint8 *r;
  tn_view v;
  tn_err e;
  uint32_t mask;
  tn_axes a;

  r = reduce_values (TN_FLOAT32, NULL, 0, &x, TN_REDUCE_SUM, "", 0, &n);
  g_assert_cmpint (n, ==, 1);
  g_assert_cmpfloat (item_f64 (TN_FLOAT32, r, 0), ==, 3.5);
  g_free (r);
  r = reduce_values (TN_FLOAT32, NULL, 0, &x, TN_REDUCE_ARGMAX, "", 0, &n);
  g_assert_cmpint (((int64_t *) r)[0], ==, 0);
  g_free (r);
  r = reduce_values (TN_FLOAT32, NULL, 0, &x, TN_REDUCE_VAR, "", 0, &n);
  g_assert_cmpfloat (item_f64 (TN_FLOAT32, r, 0), ==, 0.0);
  g_free (r);
  r = reduce_values (TN_INT8, NULL, 0, &y, TN_REDUCE_MEAN, "", 0, &n);
  g_assert_cmpfloat (item_f64 (TN_FLOAT64, r, 0), ==, -3.0);
  g_free (r);
  r = reduce_values (TN_INT8, NULL, 0, &y, TN_REDUCE_L2, "", 0, &n);
  g_assert_cmpfloat (item_f64 (TN_FLOAT64, r, 0), ==, 3.0);
  g_free (r);
  r = reduce_values (TN_INT8, NULL, 0, &y, TN_REDUCE_MIN, "", 0, &n);
  g_assert_cmpint (((int8_t *) r)[0], ==, -3);
  g_free (r);

  g_assert_cmpint (tn_view_init (&v, TN_FLOAT32, NULL, 0, &e), ==, 0);
  g_assert_cmpint (tn_axes_parse (&a, "0", &e), ==, 0);
  g_assert_cmpint (tn_axes_mask (&a, 0, &mask, &e), ==, -1);
}

static void
test_int_overflow (void)
{
  const int64_t d2[] = { 2 }, d1000[] = { 1000 };
  int64_t a64[2] = { INT64_MAX, 1 }, n;
  int32_t a32[2] = { INT32_MAX, INT32_MAX };
  uint8_t *u8 = g_malloc (1000);
  uint64_t u64[2] = { UINT64_MAX, 3 };
  tn_view v;
  tn_err e;
  guint8 *r;

  g_assert_cmpint (tn_view_init (&v, TN_INT64, d2, 1, &e), ==, 0);
  r = run (a64, &v, TN_REDUCE_SUM, "", 0, 1, &n);
  g_assert_cmpint (((int64_t *) r)[0], ==, INT64_MIN);
  g_free (r);
  /* mean sums exactly (int128): (2^63 - 1 + 1) / 2 = 2^62. */
  r = run (a64, &v, TN_REDUCE_MEAN, "", 0, 1, &n);
  g_assert_cmpfloat (((double *) r)[0], ==, 4611686018427387904.0);
  g_free (r);
  r = run (a64, &v, TN_REDUCE_PROD, "", 0, 1, &n);
  g_assert_cmpint (((int64_t *) r)[0], ==, INT64_MAX);
  g_free (r);
  g_assert_cmpint (tn_view_init (&v, TN_INT32, d2, 1, &e), ==, 0);
  r = run (a32, &v, TN_REDUCE_SUM, "", 0, 1, &n);
  g_assert_cmpint (((int64_t *) r)[0], ==, 4294967294LL);
  g_free (r);
  r = run (a32, &v, TN_REDUCE_PROD, "", 0, 1, &n);
  /* (2^31 - 1)^2 = 2^62 - 2^32 + 1 */
  g_assert_cmpint (((int64_t *) r)[0], ==, 4611686014132420609LL);
  g_free (r);
  g_assert_cmpint (tn_view_init (&v, TN_UINT64, d2, 1, &e), ==, 0);
  r = run (u64, &v, TN_REDUCE_SUM, "", 0, 1, &n);
  g_assert_cmpuint (((uint64_t *) r)[0], ==, 2);
  g_free (r);
  r = run (u64, &v, TN_REDUCE_MEAN, "", 0, 1, &n);
  g_assert_cmpfloat (((double *) r)[0], ==, 9223372036854775809.0);
  g_free (r);
  memset (u8, 255, 1000);
  g_assert_cmpint (tn_view_init (&v, TN_UINT8, d1000, 1, &e), ==, 0);
  r = run (u8, &v, TN_REDUCE_SUM, "", 0, 3, &n);
  g_assert_cmpuint (((uint64_t *) r)[0], ==, 255000);
  g_free (r);
  g_free (u8);
}

/* bool items are any byte; nonzero is true. */
static void
test_bool_bytes (void)
{
  const int64_t d4[] = { 4 };
  uint8_t b[4] = { 0, 2, 255, 1 };
  tn_view v;
  tn_err e;
  int64_t n;
  guint8 *r;

  g_assert_cmpint (tn_view_init (&v, TN_BOOL, d4, 1, &e), ==, 0);
  r = run (b, &v, TN_REDUCE_SUM, "", 0, 1, &n);
  g_assert_cmpint (((int64_t *) r)[0], ==, 3);
  g_free (r);
  r = run (b, &v, TN_REDUCE_MAX, "", 0, 1, &n);
  g_assert_cmpuint (r[0], ==, 1);
  g_free (r);
  r = run (b, &v, TN_REDUCE_MIN, "", 0, 1, &n);
  g_assert_cmpuint (r[0], ==, 0);
  g_free (r);
  r = run (b, &v, TN_REDUCE_MEAN, "", 0, 1, &n);
  g_assert_cmpfloat (((double *) r)[0], ==, 0.75);
  g_free (r);
  r = run (b, &v, TN_REDUCE_ARGMAX, "", 0, 1, &n);
  g_assert_cmpint (((int64_t *) r)[0], ==, 1);
  g_free (r);
  r = run (b, &v, TN_REDUCE_PROD, "", 0, 1, &n);
  g_assert_cmpint (((int64_t *) r)[0], ==, 0);
  g_free (r);
  b[0] = 7;
  r = run (b, &v, TN_REDUCE_MIN, "", 0, 1, &n);
  g_assert_cmpuint (r[0], ==, 1);
  g_free (r);
}

/* min/max: -0.0 < +0.0 (IEEE 754-2019); argmin/argmax: they tie, the
 * first wins.  Each at lengths that put the zeros in different lanes and
 * blocks, as rows and as columns. */
static void
test_signed_zero (void)
{
  unsigned mask = tn_cpu_set_mask (0);

  for (int impl = 0; impl < 2; impl++) {
    tn_cpu_set_mask (impl ? mask : 0);
    for (int len = 2; len <= 3000; len = len * 3 + 1) {
      int64_t n;
      double *vals = g_new (double, len), *cols;
      guint8 *r;

      for (int i = 0; i < len; i++)
        vals[i] = 1.0 + i;
      vals[len / 3] = 0.0;
      vals[len - 1] = -0.0;
      cols = columns16 (vals, len);
      for (int t = TN_FLOAT16; t <= TN_FLOAT64; t++) {
        for (int k = 0; k < 2; k++) {
          /* k = 0: one row of len items; k = 1: 16 columns. */
          int64_t d[2] = { k ? len : 1, k ? 16 : len };
          const char *axes = k ? "0" : "1";

          r = reduce_values (
              (tn_dtype) t, d, 2, k ? cols : vals, TN_REDUCE_MIN, axes, 0, &n);
          g_assert_cmpint (n, ==, k ? 16 : 1);
          for (int o = 0; o < n; o++) {
            g_assert_cmpfloat (item_f64 ((tn_dtype) t, r, o), ==, 0.0);
            g_assert_true (signbit (item_f64 ((tn_dtype) t, r, o)));
          }
          g_free (r);
          r = reduce_values ((tn_dtype) t, d, 2, k ? cols : vals,
              TN_REDUCE_ARGMIN, axes, 0, &n);
          for (int o = 0; o < n; o++)
            g_assert_cmpint (((int64_t *) r)[o], ==, len / 3);
          g_free (r);
        }
      }
      g_free (cols);
      for (int i = 0; i < len; i++)
        vals[i] = -1.0 - i;
      vals[len / 3] = -0.0;
      vals[len - 1] = 0.0;
      for (int t = TN_FLOAT16; t <= TN_FLOAT64; t++) {
        int64_t d[2] = { 1, len };

        r = reduce_values ((tn_dtype) t, d, 2, vals, TN_REDUCE_MAX, "1", 0, &n);
        g_assert_cmpfloat (item_f64 ((tn_dtype) t, r, 0), ==, 0.0);
        g_assert_false (signbit (item_f64 ((tn_dtype) t, r, 0)));
        g_free (r);
        r = reduce_values (
            (tn_dtype) t, d, 2, vals, TN_REDUCE_ARGMAX, "1", 0, &n);
        g_assert_cmpint (((int64_t *) r)[0], ==, len / 3);
        g_free (r);
      }
      g_free (vals);
    }
  }
  tn_cpu_set_mask (mask);
}

/* NaN: min/max give NaN, argmin/argmax the first NaN, wherever it lies
 * (every lane and block position of a 2500-item row, and as a column). */
static void
test_nan_positions (void)
{
  const int len = 2500;
  double *vals = g_new (double, len), *cols;
  unsigned mask = tn_cpu_set_mask (0);

  for (int impl = 0; impl < 2; impl++) {
    tn_cpu_set_mask (impl ? mask : 0);
    for (int pos = 0; pos < len; pos += 37) {
      for (int i = 0; i < len; i++)
        vals[i] = (i * 7919) % 1000 - 500.0;
      vals[pos] = NAN;
      vals[(pos + 700) % len] = NAN;
      cols = columns16 (vals, len);
      for (int t = TN_FLOAT16; t <= TN_FLOAT64; t++) {
        for (int k = 0; k < 2; k++) {
          int64_t d[2] = { k ? len : 1, k ? 16 : len }, n;
          const char *axes = k ? "0" : "1";
          int first = pos < (pos + 700) % len ? pos : (pos + 700) % len;
          const double *x = k ? cols : vals;
          tn_dtype st = tn_reduce_dtype (TN_REDUCE_SUM, t);
          guint8 *r;

          r = reduce_values (
              (tn_dtype) t, d, 2, x, TN_REDUCE_ARGMAX, axes, 0, &n);
          for (int o = 0; o < n; o++)
            g_assert_cmpint (((int64_t *) r)[o], ==, first);
          g_free (r);
          r = reduce_values (
              (tn_dtype) t, d, 2, x, TN_REDUCE_ARGMIN, axes, 0, &n);
          for (int o = 0; o < n; o++)
            g_assert_cmpint (((int64_t *) r)[o], ==, first);
          g_free (r);
          r = reduce_values ((tn_dtype) t, d, 2, x, TN_REDUCE_MAX, axes, 0, &n);
          for (int o = 0; o < n; o++)
            g_assert_true (isnan (item_f64 ((tn_dtype) t, r, o)));
          g_free (r);
          r = reduce_values ((tn_dtype) t, d, 2, x, TN_REDUCE_SUM, axes, 0, &n);
          for (int o = 0; o < n; o++)
            g_assert_true (isnan (item_f64 (st, r, o)));
          g_free (r);
        }
      }
      g_free (cols);
    }
  }
  g_free (vals);
  tn_cpu_set_mask (mask);
}

static void
test_ddof (void)
{
  const int64_t d2[] = { 2 }, d22[] = { 2, 2 };
  double a[2] = { 1, 2 }, same[2] = { 4, 4 }, m[4] = { 1, 2, 3, 5 };
  int64_t n;
  guint8 *r;

  /* n - ddof <= 0 divides by 0, as NumPy: inf, or NaN for 0 / 0. */
  r = reduce_values (TN_FLOAT64, d2, 1, a, TN_REDUCE_VAR, "", 2, &n);
  g_assert_true (isinf (item_f64 (TN_FLOAT64, r, 0)));
  g_free (r);
  r = reduce_values (TN_FLOAT32, d2, 1, a, TN_REDUCE_STD, "", 5, &n);
  g_assert_true (isinf (item_f64 (TN_FLOAT32, r, 0)));
  g_free (r);
  r = reduce_values (TN_INT32, d2, 1, same, TN_REDUCE_VAR, "", 2, &n);
  g_assert_true (isnan (item_f64 (TN_FLOAT64, r, 0)));
  g_free (r);
  /* Hand-worked: rows {1, 2} and {3, 5}; means 1.5 and 4. */
  r = reduce_values (TN_INT16, d22, 2, m, TN_REDUCE_VAR, "1", 1, &n);
  g_assert_cmpfloat (item_f64 (TN_FLOAT64, r, 0), ==, 0.5);
  g_assert_cmpfloat (item_f64 (TN_FLOAT64, r, 1), ==, 2.0);
  g_free (r);
  r = reduce_values (TN_FLOAT32, d22, 2, m, TN_REDUCE_STD, "0", 0, &n);
  g_assert_cmpfloat (item_f64 (TN_FLOAT32, r, 0), ==, 1.0);
  g_assert_cmpfloat (item_f64 (TN_FLOAT32, r, 1), ==, 1.5);
  g_free (r);
  r = reduce_values (TN_FLOAT32, d22, 2, m, TN_REDUCE_L2, "", 0, &n);
  g_assert_cmpfloat (item_f64 (TN_FLOAT32, r, 0), ==, sqrtf (39.0f));
  g_free (r);
}

/* A broadcast axis (stride 0) is read in place. */
static void
test_broadcast (void)
{
  const int64_t d3[] = { 3 }, bd[] = { 5, 3 };
  float x[3] = { 1.5f, -2.0f, 4.0f };
  tn_view v;
  tn_err e;
  int64_t n;
  guint8 *r;

  g_assert_cmpint (tn_view_init (&v, TN_FLOAT32, d3, 1, &e), ==, 0);
  g_assert_cmpint (tn_view_broadcast (&v, bd, 2, &e), ==, 0);
  r = run (x, &v, TN_REDUCE_SUM, "0", 0, 2, &n);
  g_assert_cmpint (n, ==, 3);
  g_assert_cmpfloat (((float *) r)[0], ==, 7.5f);
  g_assert_cmpfloat (((float *) r)[1], ==, -10.0f);
  g_assert_cmpfloat (((float *) r)[2], ==, 20.0f);
  g_free (r);
  r = run (x, &v, TN_REDUCE_MAX, "1", 0, 2, &n);
  g_assert_cmpint (n, ==, 5);
  for (int i = 0; i < 5; i++)
    g_assert_cmpfloat (((float *) r)[i], ==, 4.0f);
  g_free (r);
  r = run (x, &v, TN_REDUCE_ARGMIN, "", 0, 2, &n);
  g_assert_cmpint (((int64_t *) r)[0], ==, 1);
  g_free (r);
}

/* The bound: a float32 sum of 16M uniform [0, 1) items within
 * 1e-6 of the float64 sum (core/reduce.h guarantees 2^-24 + 15 * 2^-24 *
 * (1 + tiny) for items of one sign; the float64 lanes make it far better
 * in practice). */
static void
test_accuracy (void)
{
  const int64_t n = 16 << 20;
  float *x = g_malloc (n * sizeof (float));
  long double ref = 0;
  tn_view v;
  tn_err e;
  int64_t cnt;
  guint8 *r;
  double rel;

  tn_random_uniform_f32 (x, n, 42, 0, 0);
  for (int64_t i = 0; i < n; i++)
    ref += x[i];
  g_assert_cmpint (tn_view_init (&v, TN_FLOAT32, &n, 1, &e), ==, 0);
  r = run (x, &v, TN_REDUCE_SUM, "", 0, 0, &cnt);
  rel = fabs (((float *) r)[0] - (double) ref) / (double) ref;
  g_assert_cmpfloat (rel, <=, 1e-6);
  /* In fact one rounding from float64: within half an ulp of float32. */
  g_assert_cmpfloat (rel, <=, ldexp (1.0, -24));
  g_free (r);
  r = run (x, &v, TN_REDUCE_MEAN, "", 0, 0, &cnt);
  g_assert_cmpfloat (fabs (((float *) r)[0] - (double) (ref / n)), <=,
      ldexp ((double) (ref / n), -24));
  g_free (r);
  g_free (x);
}

/* Same bits on any thread count and on every run, for large tensors that
 * span many chunks of the worker pool, rows and columns. */
static void
test_threads (void)
{
  const int64_t dims[2] = { 2048, 2050 };
  const int64_t count = dims[0] * dims[1];
  float *x = g_malloc (count * sizeof (float));
  static const char *const axes[] = { "", "0", "1" };
  static const tn_reduce_op ops[] = { TN_REDUCE_SUM, TN_REDUCE_VAR,
    TN_REDUCE_PROD, TN_REDUCE_ARGMAX, TN_REDUCE_L2 };
  tn_view v;
  tn_err e;

  tn_random_uniform_f32 (x, count, 7, 1, 0);
  for (int64_t i = 0; i < count; i++)
    x[i] = (x[i] - 0.5f) * 3.0f;
  g_assert_cmpint (tn_view_init (&v, TN_FLOAT32, dims, 2, &e), ==, 0);
  for (guint o = 0; o < G_N_ELEMENTS (ops); o++) {
    for (guint k = 0; k < G_N_ELEMENTS (axes); k++) {
      int64_t n, n2;
      guint8 *ref = run (x, &v, ops[o], axes[k], 0, 1, &n);
      size_t osz = tn_dtype_size (tn_reduce_dtype (ops[o], TN_FLOAT32));

      for (int th = 0; th <= 8; th++) {
        for (int rep = 0; rep < (th == 2 ? 3 : 1); rep++) {
          guint8 *got = run (x, &v, ops[o], axes[k], 0, th, &n2);

          g_assert_cmpint (n2, ==, n);
          if (memcmp (got, ref, n * osz) != 0)
            g_error ("%s axes '%s' on %d threads (run %d) differs from 1 "
                     "thread",
                tn_reduce_op_name (ops[o]), axes[k], th, rep);
          g_free (got);
        }
      }
      g_free (ref);
    }
  }
  g_free (x);
}

/* core/reduce.h's association written out plainly, for one output's n
 * items: blocks of 1024, lane t % 32, lanes then blocks left to right.
 * mode 0: sum (float64 lanes), 1: product, 2: sum of squares, 3: sum of
 * squared deviations from m, 4: float32 halves of 16 (xf). */
static double
ref_fold (const double *x, const float *xf, int64_t n, int mode, double m)
{
  const double id = mode == 1 ? 1.0 : -0.0;
  double total = id;

  for (int64_t b = 0; b < n; b += 1024) {
    int64_t e = MIN (n, b + 1024);
    double block = id;

    for (int l = 0; l < 32; l++) {
      double lane = id;

      for (int h = 0; mode == 4 && h < 2; h++) {
        float f = -0.0f;

        for (int64_t t = b + h * 512 + l; t < MIN (e, b + h * 512 + 512);
             t += 32)
          f += xf[t];
        lane += (double) f;
      }
      for (int64_t t = b + l; mode != 4 && t < e; t += 32) {
        double d = x[t] - m;

        if (mode == 0)
          lane += x[t];
        else if (mode == 1)
          lane *= x[t];
        else if (mode == 2)
          lane += x[t] * x[t];
        else
          lane += d * d;
      }
      block = mode == 1 ? block * lane : block + lane;
    }
    total = mode == 1 ? total * block : total + block;
  }
  return total;
}

/* The kernels keep that association bit for bit, as rows, as columns and
 * after the dense copy, on data where every addition rounds. */
static void
test_association (void)
{
  static const int64_t lens[]
      = { 1, 17, 31, 33, 511, 512, 513, 1023, 1024, 1025, 1600, 3000, 3072 };
  unsigned mask = tn_cpu_set_mask (0);

  for (int impl = 0; impl < 2; impl++) {
    tn_cpu_set_mask (impl ? mask : 0);
    for (guint li = 0; li < G_N_ELEMENTS (lens); li++) {
      int64_t n = lens[li];
      /* Layouts, each output with the same items: one row <1, n> (axis
       * 1, rows); 17 equal columns <n, 17> (axis 0, columns); <2, n, 3>
       * (axis 1, strips of 3 columns); <n, 5> (axis 0, strips); and the
       * transpose of <n, 2> as <2, n> (axis 1, the dense copy). */
#define NL 5
      static const int64_t rep[NL] = { 1, 17, 6, 5, 2 };
      static const int64_t per[NL] = { 1, 17, 3, 5, 2 };
      float *xf = g_new (float, n);
      double *xd = g_new (double, n), *xp = g_new (double, n);
      float *bufs[NL];
      double *bufd[NL], *bufp[NL];
      int64_t dims[NL][3] = { { 1, n, 1 }, { n, 17, 1 }, { 2, n, 3 },
        { n, 5, 1 }, { 2, n, 1 } };
      static const char *const axes[NL] = { "1", "0", "1", "0", "1" };

      /* Items 0..31 of every half-block are +-2^24 (float32) or +-2^53
       * (float64), signs alternating by lane and half; the rest are
       * fractions in [0, 1) that those giants absorb when they share a
       * fold.  The giants cancel, so which items share a fold decides the
       * result's leading bits.  Products get factors near 1 instead. */
      for (int64_t i = 0; i < n; i++) {
        uint32_t h = (uint32_t) (i * 2654435761u + (uint32_t) n * 40503u);
        double small = (h >> 8) / 16777216.0;
        bool giant = i % 512 < 32;
        double sign = ((i % 32) + i / 512) % 2 ? 1.0 : -1.0;

        xf[i] = giant ? (float) (sign * 16777216.0) : (float) small;
        xd[i] = giant ? sign * 9007199254740992.0 : small;
        xp[i] = 1.0 + (small - 0.5) / 64;
      }
      for (int k = 0; k < NL; k++) {
        int64_t count = dims[k][0] * dims[k][1] * dims[k][2];

        bufs[k] = g_new (float, count);
        bufd[k] = g_new (double, count);
        bufp[k] = g_new (double, count);
        for (int64_t j = 0; j < count; j++) {
          /* Buffer item j holds item i of the sequence. */
          int64_t i = k == 0 ? j : k == 2 ? (j / 3) % n : j / per[k];

          bufs[k][j] = xf[i];
          bufd[k][j] = xd[i];
          bufp[k][j] = xp[i];
        }
      }
      for (int k = 0; k < NL; k++) {
        tn_view vf, vd;
        tn_err e;
        int64_t cnt;
        double xfd[3072], sumf, sumd;
        guint8 *r;

        for (int64_t i = 0; i < n; i++)
          xfd[i] = xf[i];
        g_assert_cmpint (tn_view_init (&vf, TN_FLOAT32, dims[k], 3, &e), ==, 0);
        g_assert_cmpint (tn_view_init (&vd, TN_FLOAT64, dims[k], 3, &e), ==, 0);
        if (k == 4) {
          /* The buffer is <n, 2>: the view <2, n> is its transpose. */
          vf.strides[0] = vd.strides[0] = 1;
          vf.strides[1] = vd.strides[1] = 2;
        }
        sumf = ref_fold (NULL, xf, n, 4, 0);
        sumd = ref_fold (xd, NULL, n, 0, 0);

#define CHECK_F(op, want)                                                      \
  do {                                                                         \
    r = run (bufs[k], &vf, op, axes[k], 0, 3, &cnt);                           \
    g_assert_cmpint (cnt, ==, rep[k]);                                         \
    for (int64_t o = 0; o < cnt; o++)                                          \
      if (((float *) r)[o] != (float) (want)                                   \
          && !(isnan (((float *) r)[o]) && isnan ((float) (want))))            \
        g_error ("float32 %s of %" G_GINT64_FORMAT " items, layout %d: %a, "   \
                 "expected %a",                                                \
            tn_reduce_op_name (op), n, k, ((float *) r)[o], (float) (want));   \
    g_free (r);                                                                \
  } while (0)
#define CHECK_D(op, buf, want)                                                 \
  do {                                                                         \
    r = run (buf[k], &vd, op, axes[k], 0, 3, &cnt);                            \
    for (int64_t o = 0; o < cnt; o++)                                          \
      if (((double *) r)[o] != (want))                                         \
        g_error ("float64 %s of %" G_GINT64_FORMAT " items, layout %d: %a, "   \
                 "expected %a",                                                \
            tn_reduce_op_name (op), n, k, ((double *) r)[o], (double) (want)); \
    g_free (r);                                                                \
  } while (0)

        CHECK_F (TN_REDUCE_SUM, sumf);
        CHECK_F (TN_REDUCE_MEAN, sumf / n);
        CHECK_F (TN_REDUCE_L2, sqrt (ref_fold (xfd, NULL, n, 2, 0)));
        CHECK_F (TN_REDUCE_VAR, ref_fold (xfd, NULL, n, 3, sumf / n) / n);
        CHECK_F (
            TN_REDUCE_STD, sqrt (ref_fold (xfd, NULL, n, 3, sumf / n) / n));
        CHECK_D (TN_REDUCE_SUM, bufd, sumd);
        CHECK_D (TN_REDUCE_MEAN, bufd, sumd / n);
        CHECK_D (TN_REDUCE_PROD, bufp, ref_fold (xp, NULL, n, 1, 0));
        CHECK_D (TN_REDUCE_L2, bufd, sqrt (ref_fold (xd, NULL, n, 2, 0)));
        CHECK_D (TN_REDUCE_VAR, bufd, ref_fold (xd, NULL, n, 3, sumd / n) / n);
#undef CHECK_F
#undef CHECK_D
      }
      for (int k = 0; k < NL; k++) {
        g_free (bufs[k]);
        g_free (bufd[k]);
        g_free (bufp[k]);
      }
      g_free (xf);
      g_free (xd);
      g_free (xp);
#undef NL
    }
  }
  tn_cpu_set_mask (mask);
}

/* The AVX2 kernels against the portable ones on random data of every
 * dtype: odd lengths, partial lanes and blocks, rows and columns. */
static void
test_impls (void)
{
  static const int64_t shapes[][3]
      = { { 5, 2077, 3 }, { 1, 1, 1029 }, { 2077, 19, 1 }, { 3, 33, 40 },
          { 1, 4097, 17 }, { 2077, 7, 1 }, { 3, 1029, 5 } };
  static const char *const axes[] = { "", "0", "1", "2", "0,1", "1,2" };
  unsigned mask;

  if (!have_isa_kernels ()) {
    g_test_message ("no AVX2 here: the portable kernels run alone");
    return;
  }
  mask = tn_cpu_set_mask (0);
  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++) {
    int64_t count = shapes[s][0] * shapes[s][1] * shapes[s][2];

    for (int t = 0; t < TN_NDTYPES; t++) {
      size_t isz = tn_dtype_size ((tn_dtype) t);
      guint8 *x = g_malloc (count * isz);
      tn_view v;
      tn_err e;

      g_assert_cmpint (tn_random_fill_uniform (x, (tn_dtype) t, 0, count,
                           t == TN_BOOL ? 0 : -100, t == TN_BOOL ? 2 : 100,
                           s * 13 + t, 3, &e),
          ==, 0);
      g_assert_cmpint (
          tn_view_init (&v, (tn_dtype) t, shapes[s], 3, &e), ==, 0);
      for (int op = 0; op < TN_REDUCE_NOPS; op++) {
        for (guint k = 0; k < G_N_ELEMENTS (axes); k++) {
          int64_t n, n2;
          guint8 *a, *b;
          size_t osz = tn_dtype_size (tn_reduce_dtype (op, (tn_dtype) t));

          tn_cpu_set_mask (0);
          a = run (x, &v, op, axes[k], 1, 2, &n);
          tn_cpu_set_mask (mask);
          b = run (x, &v, op, axes[k], 1, 2, &n2);
          if (n != n2 || memcmp (a, b, n * osz) != 0)
            g_error ("%s of %s %s axes '%s': AVX2 and portable differ",
                tn_reduce_op_name (op), tn_dtype_name ((tn_dtype) t), "shape",
                axes[k]);
          g_free (a);
          g_free (b);
        }
      }
      g_free (x);
    }
  }
  tn_cpu_set_mask (mask);
}

/* Under flush-to-zero and denormals-are-zero (set here) subnormal items
 * are still values: float32 items k * 2^-149 (bits k = 1 + i % 5) sum
 * exactly to the sum of their bits, min/max/argmin/argmax find bits 1 and
 * 5 at 0 and 4, on 1 and 2 threads; float64 items 2^-1074 k the same. */
static void
test_ftz (void)
{
  enum { N = 3000 };
  guint32 *f = g_new (guint32, N);
  guint64 *d = g_new (guint64, N), want = 0;
  int64_t dims[1] = { N };
  unsigned int old = tn_test_ftz_on ();
  tn_view vf, vd;

  for (int i = 0; i < N; i++) {
    f[i] = (guint32) (1 + i % 5);
    d[i] = (guint64) (1 + i % 5);
    want += (guint64) (1 + i % 5);
  }
  g_assert_cmpint (tn_view_init (&vf, TN_FLOAT32, dims, 1, NULL), ==, 0);
  g_assert_cmpint (tn_view_init (&vd, TN_FLOAT64, dims, 1, NULL), ==, 0);
  for (int nthreads = 1; nthreads <= 2; nthreads++) {
    for (int k = 0; k < 2; k++) {
      const tn_view *v = k ? &vd : &vf;
      const void *base = k ? (const void *) d : (const void *) f;
      static const tn_reduce_op ops[] = { TN_REDUCE_SUM, TN_REDUCE_MIN,
        TN_REDUCE_MAX, TN_REDUCE_ARGMIN, TN_REDUCE_ARGMAX };
      const guint64 wants[] = { want, 1, 5, 0, 4 };

      for (guint o = 0; o < G_N_ELEMENTS (ops); o++) {
        int64_t count;
        guint8 *out = run (base, v, ops[o], "0", 0, nthreads, &count);
        guint64 got = 0;

        g_assert_cmpint (count, ==, 1);
        memcpy (&got, out,
            ops[o] >= TN_REDUCE_ARGMIN ? 8 : tn_dtype_size (v->dtype));
        if (got != wants[o])
          g_error ("%s of %d %s subnormals on %d threads under FTZ/DAZ: "
                   "bits %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
              tn_reduce_op_name (ops[o]), N, tn_dtype_name (v->dtype), nthreads,
              got, wants[o]);
        g_free (out);
      }
    }
  }
  tn_test_ftz_restore (old);
  g_free (f);
  g_free (d);
}

/* Strided views read in place (gen_reduce_views.py): the CHW view of an
 * HWC frame <37, 41, 3>, a stepped slice of it ([2:35:3, 1:40:2, 1:]) and that
 * slice's CHW view, a broadcast along W and its CHW view, built here from
 * strides as tensorview would.  Each against NumPy's result on the same
 * view, bit for bit (the data make every sum exact), on 1 and 3 threads
 * and every kernel set; then on random floats (every addition rounds)
 * against the reduction of the view's dense copy, bit for bit: the
 * association is the logical order's, whatever the strides. */
typedef struct {
  int64_t dims[3], strides[3], offset;
} ViewSpec;

static const ViewSpec view_specs[] = {
  { { 3, 37, 41 }, { 1, 123, 3 }, 0 },
  { { 11, 20, 2 }, { 369, 6, 1 }, 250 },
  { { 2, 11, 20 }, { 1, 369, 6 }, 250 },
  { { 37, 41, 3 }, { 123, 0, 1 }, 0 },
  { { 3, 37, 41 }, { 1, 123, 0 }, 0 },
};
static const char *const view_axes[]
    = { "", "0", "1", "2", "0,1", "1,2", "0,2" };

static tn_view
view_of (tn_dtype dt, const ViewSpec *s)
{
  tn_view v;
  tn_err e;

  g_assert_cmpint (tn_view_init (&v, dt, s->dims, 3, &e), ==, 0);
  for (int i = 0; i < 3; i++)
    v.strides[i] = s->strides[i];
  v.offset = s->offset;
  if (tn_view_check (&v, 37 * 41 * 3, &e) < 0)
    g_error ("view %lld: %s", (long long) s->offset, e.msg);
  return v;
}

/* The reduction of v over base against that of its dense copy, bit for
 * bit, under both kernel sets and on 1 and 3 threads. */
static void
check_dense_copy (const char *what, const guint8 *base, const tn_view *v,
    tn_reduce_op op, const char *axes)
{
  int impls = have_isa_kernels () ? 2 : 1;
  unsigned mask = tn_cpu_set_mask (0);
  size_t osz = tn_dtype_size (tn_reduce_dtype (op, v->dtype));
  guint8 *dense = g_malloc (tn_view_count (v) * tn_dtype_size (v->dtype) + 1);
  tn_view dv;
  int64_t n, n2;
  guint8 *want;
  tn_err e;

  g_assert_cmpint (tn_view_init (&dv, v->dtype, v->dims, 3, &e), ==, 0);
  tn_view_materialize (dense, base, v);
  want = run (dense, &dv, op, axes, 0, 1, &n);
  for (int impl = 0; impl < impls; impl++) {
    tn_cpu_set_mask (impl ? mask : 0);
    for (int th = 1; th <= 3; th += 2) {
      guint8 *got = run (base, v, op, axes, 0, th, &n2);

      g_assert_cmpint (n2, ==, n);
      if (memcmp (got, want, n * osz) != 0) {
        gchar *w = g_strdup_printf ("%s axes '%s', %s kernels, %d threads, "
                                    "against its dense copy",
            what, axes, impl ? "ISA" : "portable", th);

        compare (w, tn_reduce_dtype (op, v->dtype), got, want, n, 0);
        g_error ("%s: NaN bits differ", w);
      }
      g_free (got);
    }
  }
  tn_cpu_set_mask (mask);
  g_free (want);
  g_free (dense);
}

static void
test_views (void)
{
  static const char *const dts[]
      = { "uint8", "int32", "float16", "float32", "float64" };
  static const tn_reduce_op ops[] = { TN_REDUCE_SUM, TN_REDUCE_MEAN,
    TN_REDUCE_MIN, TN_REDUCE_MAX, TN_REDUCE_ARGMIN, TN_REDUCE_ARGMAX };

  for (guint d = 0; d < G_N_ELEMENTS (dts); d++) {
    char name[96];
    Npy in;

    g_snprintf (name, sizeof name, "reduce_views_in_%s.npy", dts[d]);
    npy_load (&in, name);
    g_assert_cmpint (in.count, ==, 37 * 41 * 3);
    for (guint o = 0; o < G_N_ELEMENTS (ops); o++) {
      tn_dtype rdt = tn_reduce_dtype (ops[o], in.dtype);
      size_t osz = tn_dtype_size (rdt);
      int64_t off = 0;
      Npy want;

      g_snprintf (name, sizeof name, "reduce_views_%s_%s.npy",
          tn_reduce_op_name (ops[o]), dts[d]);
      npy_load (&want, name);
      g_assert_cmpint (want.dtype, ==, rdt);
      for (guint s = 0; s < G_N_ELEMENTS (view_specs); s++) {
        tn_view v = view_of (in.dtype, &view_specs[s]);

        for (guint a = 0; a < G_N_ELEMENTS (view_axes); a++) {
          int64_t n;
          guint8 *got = run (in.data, &v, ops[o], view_axes[a], 0, 1, &n);
          char what[160];

          g_snprintf (what, sizeof what, "%s of %s view %u axes '%s'",
              tn_reduce_op_name (ops[o]), dts[d], s, view_axes[a]);
          g_assert_cmpint (off + n, <=, want.count);
          compare (what, rdt, got, want.data + off * osz, n, 0);
          off += n;
          g_free (got);
          check_dense_copy (what, in.data, &v, ops[o], view_axes[a]);
        }
      }
      g_assert_cmpint (off, ==, want.count);
      npy_clear (&want);
    }
    npy_clear (&in);
  }
}

/* The same views of random floats, where every addition rounds: the
 * float folds (sum, mean, l2, var) against the dense copy's. */
static void
test_views_association (void)
{
  static const tn_dtype dts[] = { TN_FLOAT16, TN_FLOAT32, TN_FLOAT64 };
  static const tn_reduce_op ops[]
      = { TN_REDUCE_SUM, TN_REDUCE_MEAN, TN_REDUCE_L2, TN_REDUCE_VAR };

  for (guint d = 0; d < G_N_ELEMENTS (dts); d++) {
    size_t isz = tn_dtype_size (dts[d]);
    guint8 *x = g_malloc (37 * 41 * 3 * isz);
    tn_err e;

    g_assert_cmpint (tn_random_fill_uniform (
                         x, dts[d], 0, 37 * 41 * 3, -1, 3, 77 + d, 3, &e),
        ==, 0);
    for (guint s = 0; s < G_N_ELEMENTS (view_specs); s++) {
      tn_view v = view_of (dts[d], &view_specs[s]);

      for (guint o = 0; o < G_N_ELEMENTS (ops); o++)
        for (guint a = 0; a < G_N_ELEMENTS (view_axes); a++) {
          char what[160];

          g_snprintf (what, sizeof what, "%s of random %s view %u",
              tn_reduce_op_name (ops[o]), tn_dtype_name (dts[d]), s);
          check_dense_copy (what, x, &v, ops[o], view_axes[a]);
        }
    }
    g_free (x);
  }
}

/* The same views of infinities of both signs (inf + -inf makes x86's
 * negative default NaN) and NaNs of both signs among numbers: every NaN
 * result is the one quiet NaN (core/reduce.h) on every layout, so the
 * dense copy's bits again (before, which NaN came out followed the
 * operand order of each layout's kernels: a sign bit differed). */
static void
test_views_nan (void)
{
  static const tn_dtype dts[]
      = { TN_FLOAT16, TN_BFLOAT16, TN_FLOAT32, TN_FLOAT64 };
  static const tn_reduce_op ops[] = { TN_REDUCE_SUM, TN_REDUCE_MEAN,
    TN_REDUCE_PROD, TN_REDUCE_L2, TN_REDUCE_VAR, TN_REDUCE_STD };
  const int64_t n = 37 * 41 * 3;
  double *vals = g_new (double, n);
  int nan_out = 0;

  for (int64_t i = 0; i < n; i++) {
    guint32 r = (guint32) (i * 2654435761u) >> 7;

    vals[i] = r % 50 == 0  ? (r & 64 ? -NAN : NAN)
              : r % 7 == 0 ? INFINITY
              : r % 7 == 1 ? -INFINITY
                           : (double) (r % 9) - 4.5;
  }
  for (guint d = 0; d < G_N_ELEMENTS (dts); d++) {
    size_t isz = tn_dtype_size (dts[d]);
    guint8 *x = g_malloc (n * isz);

    for (int64_t i = 0; i < n; i++)
      tn_set_f64 (x + i * isz, dts[d], vals[i]);
    for (guint s = 0; s < G_N_ELEMENTS (view_specs); s++) {
      tn_view v = view_of (dts[d], &view_specs[s]);

      for (guint o = 0; o < G_N_ELEMENTS (ops); o++)
        for (guint a = 0; a < G_N_ELEMENTS (view_axes); a++) {
          tn_dtype rdt = tn_reduce_dtype (ops[o], dts[d]);
          int64_t m;
          guint8 *got = run (x, &v, ops[o], view_axes[a], 0, 1, &m);
          char what[160];

          for (int64_t k = 0; k < m; k++) {
            double f = item_f64 (rdt, got, k);
            guint8 canon[8];

            if (!isnan (f))
              continue;
            tn_set_f64 (canon, rdt, NAN);
            nan_out++;
            if (memcmp (
                    got + k * tn_dtype_size (rdt), canon, tn_dtype_size (rdt))
                != 0)
              g_error ("%s of %s view %u axes '%s': output %lld is a NaN "
                       "other than the quiet NaN",
                  tn_reduce_op_name (ops[o]), tn_dtype_name (dts[d]), s,
                  view_axes[a], (long long) k);
          }
          g_free (got);
          g_snprintf (what, sizeof what,
              "%s of infinities and NaNs, %s view %u",
              tn_reduce_op_name (ops[o]), tn_dtype_name (dts[d]), s);
          check_dense_copy (what, x, &v, ops[o], view_axes[a]);
        }
    }
    g_free (x);
  }
  /* the data makes NaNs of most outputs */
  g_assert_cmpint (nan_out, >, 1000);
  g_free (vals);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reduce/names", test_names);
  g_test_add_func ("/reduce/dtypes", test_dtypes);
  g_test_add_func ("/reduce/axes", test_axes);
  g_test_add_func ("/reduce/shape", test_shape);
  for (int op = 0; op < TN_REDUCE_NOPS; op++) {
    gchar *name = g_strdup_printf (
        "/reduce/golden/%s", tn_reduce_op_name ((tn_reduce_op) op));

    g_test_add_data_func (name, GINT_TO_POINTER (op), test_golden);
    g_free (name);
    name = g_strdup_printf (
        "/reduce/golden-big/%s", tn_reduce_op_name ((tn_reduce_op) op));
    g_test_add_data_func (name, GINT_TO_POINTER (op), test_golden_big);
    g_free (name);
  }
  g_test_add_func ("/reduce/golden-special", test_golden_special);
  g_test_add_func ("/reduce/golden-ddof", test_golden_ddof);
  g_test_add_func ("/reduce/empty", test_empty);
  g_test_add_func ("/reduce/rank0", test_rank0);
  g_test_add_func ("/reduce/int-overflow", test_int_overflow);
  g_test_add_func ("/reduce/bool-bytes", test_bool_bytes);
  g_test_add_func ("/reduce/signed-zero", test_signed_zero);
  g_test_add_func ("/reduce/nan-positions", test_nan_positions);
  g_test_add_func ("/reduce/ddof", test_ddof);
  g_test_add_func ("/reduce/broadcast", test_broadcast);
  g_test_add_func ("/reduce/accuracy", test_accuracy);
  g_test_add_func ("/reduce/threads", test_threads);
  g_test_add_func ("/reduce/association", test_association);
  g_test_add_func ("/reduce/impls", test_impls);
  g_test_add_func ("/reduce/views", test_views);
  g_test_add_func ("/reduce/views-association", test_views_association);
  g_test_add_func ("/reduce/views-nan", test_views_nan);
  g_test_add_func ("/reduce/ftz", test_ftz);
  return g_test_run ();
}
