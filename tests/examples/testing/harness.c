/* docs/testing.md, way 2: a regression test in C, an element in a
 * GstHarness and its output checked against a golden .npy with
 * gst_tn_buffer_compare_npy, tensorcompare's check (same tolerances,
 * same sentence).  The golden, doc_double.npy, is NumPy's
 * np.arange(6, dtype=np.float32).reshape(2, 3) * 2
 * (tests/data/gen/gen_compare.py). */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/tensor/gsttensor.h>

static gchar *
golden (const gchar *name)
{
  return g_build_filename (g_getenv ("GST_TENSOR_TESTDATA"), name, NULL);
}

/* The output buffer of tensorop ops=mul:2 for 0..5 as float32 <2, 3>,
 * with the tensor its caps describe. */
static GstBuffer *
double_it (GstTnInfo *info)
{
  static const float in[6] = { 0, 1, 2, 3, 4, 5 };
  GstHarness *h = gst_harness_new_parse ("tensorop ops=mul:2");
  GstBuffer *out;
  GstCaps *caps;

  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=float32,dims=<2,3>");
  out = gst_harness_push_and_pull (h, gst_buffer_new_memdup (in, sizeof in));
  fail_unless (out != NULL);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_tn_info_from_caps (info, caps, NULL));
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  return out;
}

GST_START_TEST (test_against_golden)
{
  gchar *path = golden ("doc_double.npy");
  GError *err = NULL;
  GstTnInfo info;
  GstBuffer *out = double_it (&info);

  /* NumPy's defaults: rtol 1e-7, atol 0, NaN equal to NaN */
  fail_unless (gst_tn_buffer_compare_npy (out, &info, path, NULL, &err), "%s",
      err ? err->message : "");
  gst_buffer_unref (out);
  g_free (path);
}

GST_END_TEST;

/* What a failure says: the golden of the input, not of the output. */
GST_START_TEST (test_failure_text)
{
  GstTnTolerance tol = GST_TN_TOLERANCE_INIT;
  gchar *path = golden ("seq_00000.npy");
  GError *err = NULL;
  GstTnInfo info;
  GstBuffer *out = double_it (&info);

  fail_if (gst_tn_buffer_compare_npy (out, &info, path, &tol, &err));
  fail_unless (
      g_error_matches (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED));
  fail_unless_equals_string (err->message,
      "5 of 6 items differ beyond rtol=1e-07, atol=0; first at [0, 1]: 2 "
      "against 1 (abs 1, rel 1); worst abs 5 at [1, 2]");
  g_clear_error (&err);
  /* with a tolerance wide enough, it passes */
  tol.atol = 5;
  fail_unless (gst_tn_buffer_compare_npy (out, &info, path, &tol, &err));
  gst_buffer_unref (out);
  g_free (path);
}

GST_END_TEST;

static Suite *
harness_suite (void)
{
  Suite *s = suite_create ("testing-harness");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_against_golden);
  tcase_add_test (tc, test_failure_text);
  return s;
}

GST_CHECK_MAIN (harness);
