/* tensornormalize against the golden data of tests/data/gen/gen_normalize.py
 * (float64 references by the definitions, checked there against NumPy and
 * SciPy): every op over every axis set of the float32 and float64 inputs
 * and two of float16 and bfloat16, within the bounds tests/core/
 * test_normalize.c states (float32: 4 ulp of the reference rounded to
 * float32, or 1e-15 absolute for the ops that may cancel; float64: 1e-13
 * relative; float16/bfloat16: 1 ulp); the output the same bits on 1, 2 and
 * 4 threads; eps as the user sets it; integer input refused with the
 * tensorop hint; property values that cannot be used refused at start. */
#include <math.h>

#include <gst/check/gstharness.h>

#include "core/cast.h"
#include "tests/common/tncheck.h"

static const char *const ops[]
    = { "softmax", "log-softmax", "standardize", "l2", "minmax" };
static const char *const axes_main[] = { "-1", "0", "1,2", "", "0,2", "-1,-2" };

static GstHarness *
norm_new (
    const gchar *caps, const gchar *op, const gchar *axes, const gchar *threads)
{
  GstElement *e = gst_element_factory_make ("tensornormalize", NULL);
  GstHarness *h;

  gst_util_set_object_arg (G_OBJECT (e), "op", op);
  gst_util_set_object_arg (G_OBJECT (e), "axes", axes);
  gst_util_set_object_arg (G_OBJECT (e), "n-threads", threads);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, caps);
  return h;
}

/* Units in the last place between two items of the float dtype t. */
static gint64
ulp_distance (tn_dtype t, double a, double b)
{
  guint8 x[8] = { 0 }, y[8] = { 0 };
  gint64 u = 0, v = 0;
  gsize sz = tn_dtype_size (t);
  guint64 sign = G_GUINT64_CONSTANT (1) << (8 * sz - 1);

  tn_set_f64 (x, t, a);
  tn_set_f64 (y, t, b);
  memcpy (&u, x, sz);
  memcpy (&v, y, sz);
  u = ((guint64) u & sign) ? -(gint64) ((guint64) u & (sign - 1)) : u;
  v = ((guint64) v & sign) ? -(gint64) ((guint64) v & (sign - 1)) : v;
  return u > v ? u - v : v - u;
}

static void
check_golden (const gchar *dt, const gchar *op, const gchar *axes)
{
  gchar name[128], ab[16], *caps, dims[64];
  const gchar *opf = g_str_equal (op, "log-softmax") ? "log_softmax" : op;
  GstBuffer *out[3];
  GstHarness *h;
  GstMapInfo m;
  tn_dtype t;
  Npy in, want;
  gsize j = 0;
  const gchar *threads[] = { "1", "2", "4" };

  tn_dtype_from_name (dt, &t, NULL);
  g_snprintf (name, sizeof name, "norm_in_%s.npy", dt);
  npy_load (&in, name);
  for (const char *p = axes; *p; p++)
    ab[j++] = *p == '-' ? 'm' : *p == ',' ? '_' : *p;
  ab[j] = '\0';
  g_snprintf (
      name, sizeof name, "norm_%s_%s_%s.npy", dt, opf, *axes ? ab : "all");
  npy_load (&want, name);
  g_snprintf (dims, sizeof dims, "<%d,%d,%d,%d>", (int) in.dims[0],
      (int) in.dims[1], (int) in.dims[2], (int) in.dims[3]);
  caps = tn_tensor_caps (dt, dims);
  for (int k = 0; k < 3; k++) {
    h = norm_new (caps, op, axes, threads[k]);
    out[k] = gst_harness_push_and_pull (
        h, gst_buffer_new_memdup (in.data, in.size));
    fail_unless (out[k] != NULL, "%s: no output", name);
    gst_harness_teardown (h);
  }
  fail_unless (gst_buffer_map (out[0], &m, GST_MAP_READ));
  fail_unless_equals_uint64 (m.size, in.size);
  for (gint64 i = 0; i < in.count; i++) {
    double r = ((const double *) want.data)[i];
    double g = tn_get_f64 (m.data + i * in.itemsize, t);

    if (isnan (r)) {
      fail_unless (isnan (g), "%s item %" G_GINT64_FORMAT, name, i);
    } else if (t == TN_FLOAT64) {
      fail_unless (g == r || fabs (g - r) <= 1e-15 + 1e-13 * fabs (r),
          "%s item %" G_GINT64_FORMAT ": %.17g, expected %.17g", name, i, g, r);
    } else {
      gint64 bound = t == TN_FLOAT32 ? 4 : 1;
      double abs = t == TN_FLOAT32 && !g_str_equal (op, "softmax") ? 1e-15 : 0;

      fail_unless (ulp_distance (t, g, r) <= bound || fabs (g - r) <= abs,
          "%s item %" G_GINT64_FORMAT ": %.9g, expected %.17g", name, i, g, r);
    }
  }
  gst_buffer_unmap (out[0], &m);
  for (int k = 1; k < 3; k++) {
    GstMapInfo a;

    gst_buffer_map (out[0], &m, GST_MAP_READ);
    gst_buffer_map (out[k], &a, GST_MAP_READ);
    fail_unless (memcmp (m.data, a.data, m.size) == 0,
        "%s: %s threads differ from 1", name, threads[k]);
    gst_buffer_unmap (out[k], &a);
    gst_buffer_unmap (out[0], &m);
  }
  for (int k = 0; k < 3; k++)
    gst_buffer_unref (out[k]);
  g_free (caps);
  npy_clear (&in);
  npy_clear (&want);
}

GST_START_TEST (test_golden)
{
  for (guint o = 0; o < G_N_ELEMENTS (ops); o++) {
    for (guint a = 0; a < G_N_ELEMENTS (axes_main); a++) {
      check_golden ("float32", ops[o], axes_main[a]);
      check_golden ("float64", ops[o], axes_main[a]);
    }
    check_golden ("float16", ops[o], "-1");
    check_golden ("bfloat16", ops[o], "1,2");
  }
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* l2 of [3, 4] is [0.6, 0.8]; with eps=10, [0.3, 0.4]; standardize of
 * [1, 3] with eps=0 is [-1, 1], with the default 1e-5 slightly less. */
GST_START_TEST (test_eps)
{
  const float x[2] = { 3.0f, 4.0f }, y[2] = { 1.0f, 3.0f };
  const struct {
    const float *in;
    const gchar *op, *eps;
    float w0, w1;
  } cases[] = {
    { x, "l2", "-1", 0.6f, 0.8f },
    { x, "l2", "10", 0.3f, 0.4f },
    { y, "standardize", "0", -1.0f, 1.0f },
    { y, "standardize", "-1", (float) (-1 / sqrt (1 + 1e-5)),
        (float) (1 / sqrt (1 + 1e-5)) },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    GstElement *e = gst_element_factory_make ("tensornormalize", NULL);
    GstHarness *h;
    GstBuffer *b;
    GstMapInfo m;

    gst_util_set_object_arg (G_OBJECT (e), "op", cases[c].op);
    gst_util_set_object_arg (G_OBJECT (e), "eps", cases[c].eps);
    h = gst_harness_new_with_element (e, "sink", "src");
    gst_object_unref (e);
    gst_harness_set_src_caps_str (h, "tensor/x-raw,type=float32,dims=<2>");
    b = gst_harness_push_and_pull (h, gst_buffer_new_memdup (cases[c].in, 8));
    fail_unless (b != NULL);
    gst_buffer_map (b, &m, GST_MAP_READ);
    fail_unless_equals_float (((float *) m.data)[0], cases[c].w0);
    fail_unless_equals_float (((float *) m.data)[1], cases[c].w1);
    gst_buffer_unmap (b, &m);
    gst_buffer_unref (b);
    gst_harness_teardown (h);
  }
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* The first error message of a pipeline that cannot run. */
static gchar *
run_error (const gchar *line)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (line, &err);
  GstBus *bus;
  GstMessage *msg;
  gchar *text;

  fail_unless (p != NULL, "%s: %s", line, err ? err->message : "");
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no error", line);
  gst_message_parse_error (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  return text;
}

GST_START_TEST (test_errors)
{
  static const struct {
    const gchar *line, *want;
  } cases[] = {
    { "tensorsrc num-buffers=1 ! tensor/x-raw,type=int32,dims=<4> "
      "! tensornormalize name=n ! fakesink",
        "n: op=softmax normalises float32, float64, float16 and bfloat16 "
        "tensors, and int32 <4> came; cast them first, e.g. with \"tensorop "
        "ops=cast:float32\" before n." },
    { "tensorsrc num-buffers=1 ! tensornormalize name=n eps=0.5 ! fakesink",
        "n: eps=\"0.5\" cannot be used: op=softmax takes no eps (standardize "
        "and l2 do); leave eps at -1." },
    { "tensorsrc num-buffers=1 ! tensornormalize name=n op=l2 eps=-2 "
      "! fakesink",
        "n: eps=\"-2\" cannot be used: eps must be >= 0, or -1 for the op's "
        "default." },
    { "tensorsrc num-buffers=1 ! tensornormalize name=n axes=0,x ! fakesink",
        "n: axes=\"0,x\" cannot be used" },
    { "tensorsrc num-buffers=1 ! tensor/x-raw,dims=<2,3> "
      "! tensornormalize name=n axes=2 ! fakesink",
        "n: axes=\"2\" cannot be used on float32 <2, 3> tensors: axis 2 is "
        "out of range for rank 2" },
    /* a rank-0 tensor is its own group (axes -1, 0, empty), no more */
    { "tensorsrc num-buffers=1 ! tensor/x-raw,dims=<> "
      "! tensornormalize name=n axes=1 ! fakesink",
        "n: axes=\"1\" cannot be used on float32 <> tensors: a rank-0 "
        "tensor has no axes." },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *text = run_error (cases[c].line);

    fail_unless (strstr (text, cases[c].want) != NULL, "'%s' lacks '%s'", text,
        cases[c].want);
    g_free (text);
  }
  tn_check_no_outstanding ();
}
GST_END_TEST;

static Suite *
tensornormalize_suite (void)
{
  Suite *s = suite_create ("tensornormalize");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_golden);
  tcase_add_test (tc, test_eps);
  tcase_add_test (tc, test_errors);
  return s;
}

GST_CHECK_MAIN (tensornormalize);
