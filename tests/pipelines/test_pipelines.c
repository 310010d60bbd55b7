/* Whole pipelines through gst_parse_launch, checked against files NumPy
 * wrote (tests/data/gen/gen_pipelines.py). */
#include <gst/app/gstappsink.h>

#include "common/tncheck.h"

/* Runs description (which must contain an appsink named "out") to EOS and
 * returns every sample's bytes; fails the test on an error message. */
static GPtrArray *
run_pipeline (const gchar *description)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (description, &err);
  GstElement *sink;
  GPtrArray *out
      = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  GstSample *sample;
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipeline != NULL, "parse failed: %s", err ? err->message : "?");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  fail_unless (sink != NULL);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
               != GST_STATE_CHANGE_FAILURE);

  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstMapInfo map;

    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_ptr_array_add (out, g_bytes_new (map.data, map.size));
    gst_buffer_unmap (buf, &map);
    gst_sample_unref (sample);
  }

  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (
      bus, 10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS within 10 s");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e = NULL;

    gst_message_parse_error (msg, &e, NULL);
    fail ("pipeline error: %s", e->message);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return out;
}

static void
assert_equals_file (GBytes *got, const gchar *golden)
{
  gchar *path = tn_test_data (golden), *contents;
  gsize len;
  GBytes *want;

  fail_unless (g_file_get_contents (path, &contents, &len, NULL), "%s", path);
  want = g_bytes_new_take (contents, len);
  fail_unless (g_bytes_equal (got, want),
      "output differs from %s (%" G_GSIZE_FORMAT
      " bytes against %" G_GSIZE_FORMAT ")",
      golden, g_bytes_get_size (got), len);
  g_bytes_unref (want);
  g_free (path);
}

GST_START_TEST (src_debug_enc)
{
  /* Every buffer of an arange source is the same tensor; each .npy must be
   * byte for byte what numpy.save writes for it. */
  GPtrArray *out = run_pipeline (
      "tensorsrc pattern=arange start=0 step=0.5 "
      "num-buffers=3 ! tensor/x-raw,type=float32,dims=<2,3>,framerate=10/1 "
      "! tensordebug output=log ! npyenc ! appsink name=out sync=false");

  fail_unless_equals_int (out->len, 3);
  for (guint i = 0; i < out->len; i++)
    assert_equals_file (g_ptr_array_index (out, i), "pipe_arange_f32_2x3.npy");
  g_ptr_array_unref (out);

  out = run_pipeline (
      "tensorsrc pattern=arange start=-3 step=1 num-buffers=1 "
      "! tensor/x-raw,type=int16,dims=<4> ! npyenc ! appsink name=out "
      "sync=false");
  fail_unless_equals_int (out->len, 1);
  assert_equals_file (g_ptr_array_index (out, 0), "pipe_arange_i16_4.npy");
  g_ptr_array_unref (out);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (file_dec_enc)
{
  gchar *path = tn_test_data ("pipe_split_u8_3x2x2.npy");
  gchar *desc;
  GPtrArray *out;

  /* Decoding and re-encoding a file NumPy wrote gives the same bytes. */
  desc = g_strdup_printf ("filesrc location=%s ! npydec ! tensordebug "
                          "output=log ! npyenc ! appsink name=out sync=false",
      path);
  out = run_pipeline (desc);
  fail_unless_equals_int (out->len, 1);
  assert_equals_file (g_ptr_array_index (out, 0), "pipe_split_u8_3x2x2.npy");
  g_ptr_array_unref (out);
  g_free (desc);

  /* split=true: one tensor per index of axis 0. */
  desc = g_strdup_printf ("filesrc location=%s ! npydec split=true "
                          "! npyenc ! appsink name=out sync=false",
      path);
  out = run_pipeline (desc);
  fail_unless_equals_int (out->len, 3);
  for (guint i = 0; i < 3; i++) {
    gchar *name = g_strdup_printf ("pipe_split_u8_part%u.npy", i);

    assert_equals_file (g_ptr_array_index (out, i), name);
    g_free (name);
  }
  g_ptr_array_unref (out);
  g_free (desc);
  g_free (path);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (bad_caps_fail)
{
  /* A type that does not exist must stop the pipeline with an error. */
  GError *err = NULL;
  GstElement *pipeline
      = gst_parse_launch ("tensorsrc num-buffers=1 ! "
                          "tensor/x-raw,type=float33 ! fakesink",
          &err);
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipeline != NULL);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (
      bus, 10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static Suite *
pipelines_suite (void)
{
  Suite *s = suite_create ("pipelines");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, src_debug_enc);
  tcase_add_test (tc, file_dec_enc);
  tcase_add_test (tc, bad_caps_fail);
  return s;
}

GST_CHECK_MAIN (pipelines);
