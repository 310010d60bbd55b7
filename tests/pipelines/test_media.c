/* The media pipelines of pipelines/ (video_chw.sh, video_png.sh,
 * audio_energy.sh), run in-process and checked value by value against the
 * raw media the same sources produce. */
#include <string.h>

#include <glib/gstdio.h>
#include <gst/app/gstappsink.h>

#include "common/tncheck.h"

/* Runs description (with an appsink named "out") to EOS; returns every
 * buffer (refs) and, in *caps, the caps of the last sample. */
static GPtrArray *
run (const gchar *description, GstCaps **caps, GstElement **keep)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (description, &err);
  GPtrArray *out
      = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);
  GstElement *sink;
  GstSample *sample;
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipe != NULL, "parse failed: %s", err ? err->message : "?");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  fail_unless (sink != NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
               != GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    g_ptr_array_add (out, gst_buffer_ref (gst_sample_get_buffer (sample)));
    if (caps) {
      gst_caps_replace (caps, gst_sample_get_caps (sample));
    }
    gst_sample_unref (sample);
  }
  bus = gst_element_get_bus (pipe);
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
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  if (keep)
    *keep = pipe;
  else
    gst_object_unref (pipe);
  return out;
}

static void
need_element (const gchar *name)
{
  GstElementFactory *f = gst_element_factory_find (name);

  fail_unless (f != NULL,
      "the pipeline needs the element %s, which is not "
      "in this build",
      name);
  gst_object_unref (f);
}

#define SRC_RGB                                                                \
  "videotestsrc num-buffers=1 pattern=smpte ! "                                \
  "video/x-raw,format=RGB,width=320,height=240,framerate=30/1"

/* The raw RGB frame the pipelines start from (320x240: stride 960). */
static GstBuffer *
raw_frame (void)
{
  GPtrArray *b = run (SRC_RGB " ! appsink name=out", NULL, NULL);
  GstBuffer *f;

  fail_unless_equals_int (b->len, 1);
  f = gst_buffer_ref (g_ptr_array_index (b, 0));
  fail_unless_equals_uint64 (gst_buffer_get_size (f), 320 * 240 * 3);
  g_ptr_array_unref (b);
  return f;
}

/* video_chw.sh: HWC uint8 to normalized CHW float32; item [c, y, x] is
 * pixel (y, x) channel c over 255, in float32 arithmetic. */
GST_START_TEST (test_video_chw)
{
  GstBuffer *frame, *t;
  GstCaps *caps = NULL, *want;
  GstMapInfo a;
  GPtrArray *out;
  GstTnInfo info;
  GstTnMap m;

  need_element ("tensorop");
  frame = raw_frame ();
  out = run (SRC_RGB " ! tensorconvert ! tensorview ops=permute:2:0:1 "
                     "! tensorop ops=cast:float32,div:255 ! appsink name=out",
      &caps, NULL);
  fail_unless_equals_int (out->len, 1);
  want = gst_caps_from_string (
      "tensor/x-raw,type=float32,dims=<3,240,320>,framerate=30/1");
  fail_unless (gst_caps_is_subset (caps, want));
  gst_caps_unref (want);
  fail_unless (gst_tn_info_from_caps (&info, caps, NULL));
  t = g_ptr_array_index (out, 0);
  fail_unless (gst_tn_buffer_map (&m, t, &info, GST_MAP_READ, NULL));
  fail_unless (gst_buffer_map (frame, &a, GST_MAP_READ));
  for (gint c = 0; c < 3; c++)
    for (gint y = 0; y < 240; y++)
      for (gint x = 0; x < 320; x++) {
        const float *p = (const float *) m.data;
        float got = p[m.view.offset + c * m.view.strides[0]
                      + y * m.view.strides[1] + x * m.view.strides[2]];
        float exp = (float) a.data[y * 960 + x * 3 + c] / 255.0f;

        fail_unless (memcmp (&got, &exp, 4) == 0, "[%d, %d, %d]: %.9g != %.9g",
            c, y, x, got, exp);
      }
  gst_buffer_unmap (frame, &a);
  gst_tn_buffer_unmap (&m);
  gst_caps_unref (caps);
  g_ptr_array_unref (out);
  gst_buffer_unref (frame);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* video_png.sh: the written picture, decoded, is the transposed crop of
 * the frame, pixel for pixel. */
GST_START_TEST (test_video_png)
{
  gchar *dir = g_dir_make_tmp ("tview-XXXXXX", NULL);
  gchar *png = g_build_filename (dir, "frame.png", NULL);
  gchar *desc;
  GstBuffer *frame, *pic;
  GstCaps *caps = NULL, *want;
  GstMapInfo a, b;
  GPtrArray *out;

  frame = raw_frame ();
  desc = g_strdup_printf (SRC_RGB
      " ! tensorconvert ! tensorview "
      "ops=slice:0:60:180,slice:1:80:240,permute:1:0:2 ! "
      "tensorconvert ! video/x-raw,format=RGB ! pngenc ! "
      "filesink location=\"%s\"",
      png);
  {
    GError *err = NULL;
    GstElement *p = gst_parse_launch (desc, &err);
    GstBus *bus = gst_element_get_bus (p);
    GstMessage *msg;

    gst_element_set_state (p, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (
        bus, 10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
    gst_message_unref (msg);
    gst_object_unref (bus);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
  }
  g_free (desc);

  desc = g_strdup_printf ("filesrc location=\"%s\" ! pngdec ! "
                          "video/x-raw,format=RGB ! appsink name=out",
      png);
  out = run (desc, &caps, NULL);
  g_free (desc);
  fail_unless_equals_int (out->len, 1);
  want = gst_caps_from_string ("video/x-raw,width=120,height=160");
  fail_unless (gst_caps_is_subset (caps, want));
  gst_caps_unref (want);
  pic = g_ptr_array_index (out, 0);
  fail_unless (gst_buffer_map (pic, &b, GST_MAP_READ));
  fail_unless (gst_buffer_map (frame, &a, GST_MAP_READ));
  /* Picture pixel (y, x) is frame pixel (60 + x, 80 + y); RGB rows of 120
   * pixels are 360 bytes, a multiple of 4: no padding. */
  for (gint y = 0; y < 160; y++)
    for (gint x = 0; x < 120; x++)
      fail_unless (memcmp (b.data + y * 360 + x * 3,
                       a.data + (60 + x) * 960 + (80 + y) * 3, 3)
                       == 0,
          "pixel (%d, %d) differs", y, x);
  gst_buffer_unmap (frame, &a);
  gst_buffer_unmap (pic, &b);
  gst_caps_unref (caps);
  g_ptr_array_unref (out);
  gst_buffer_unref (frame);
  g_unlink (png);
  g_rmdir (dir);
  g_free (png);
  g_free (dir);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* audio_energy.sh: every window's energy is NumPy's (0.25), and the
 * windows were cut from the audio buffers without a copy. */
GST_START_TEST (test_audio_energy)
{
  GstElement *pipe, *conv;
  GstCaps *caps = NULL, *want;
  GPtrArray *out;
  guint64 copied;
  gchar *path, *npy;
  gsize len;

  need_element ("tensorop");
  need_element ("tensorreduce");
  path = tn_test_data ("tview_energy.npy");
  fail_unless (g_file_get_contents (path, &npy, &len, NULL));
  out = run ("audiotestsrc num-buffers=4 samplesperbuffer=1024 wave=square "
             "volume=0.5 ! audio/x-raw,format=F32LE,rate=48000,channels=1 ! "
             "tensorconvert name=c frames=1024 ! tensorop ops=pow:2 ! "
             "tensorreduce op=mean axes=0 ! appsink name=out",
      &caps, &pipe);
  fail_unless_equals_int (out->len, 4);
  want = gst_caps_from_string (
      "tensor/x-raw,type=float32,dims=<1>,framerate=375/8");
  fail_unless (gst_caps_is_subset (caps, want));
  gst_caps_unref (want);
  for (guint i = 0; i < out->len; i++) {
    GstMapInfo map;

    fail_unless (
        gst_buffer_map (g_ptr_array_index (out, i), &map, GST_MAP_READ));
    fail_unless_equals_uint64 (map.size, 4);
    fail_unless (memcmp (map.data, npy + len - 4, 4) == 0,
        "window %u: energy %g, not NumPy's %g", i, *(float *) map.data,
        *(float *) (npy + len - 4));
    gst_buffer_unmap (g_ptr_array_index (out, i), &map);
  }
  conv = gst_bin_get_by_name (GST_BIN (pipe), "c");
  g_object_get (conv, "bytes-copied", &copied, NULL);
  fail_unless_equals_uint64 (copied, 0);
  gst_object_unref (conv);
  gst_object_unref (pipe);
  gst_caps_unref (caps);
  g_ptr_array_unref (out);
  g_free (npy);
  g_free (path);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The squared windows before the reduction: every sample 0.25. */
GST_START_TEST (test_audio_squares)
{
  gchar *path = tn_test_data ("tview_energy_sq.npy");
  GPtrArray *out;
  gchar *npy;
  gsize len;

  need_element ("tensorop");
  fail_unless (g_file_get_contents (path, &npy, &len, NULL));
  out = run ("audiotestsrc num-buffers=2 samplesperbuffer=1024 wave=square "
             "volume=0.5 ! audio/x-raw,format=F32LE,rate=48000,channels=1 ! "
             "tensorconvert frames=1024 ! tensorop ops=pow:2 ! "
             "appsink name=out",
      NULL, NULL);
  fail_unless_equals_int (out->len, 2);
  for (guint i = 0; i < out->len; i++) {
    GstMapInfo map;

    fail_unless (
        gst_buffer_map (g_ptr_array_index (out, i), &map, GST_MAP_READ));
    fail_unless_equals_uint64 (map.size, 4096);
    fail_unless (memcmp (map.data, npy + len - 4096, 4096) == 0);
    gst_buffer_unmap (g_ptr_array_index (out, i), &map);
  }
  g_ptr_array_unref (out);
  g_free (npy);
  g_free (path);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static Suite *
media_suite (void)
{
  Suite *s = suite_create ("media");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_video_chw);
  tcase_add_test (tc, test_video_png);
  tcase_add_test (tc, test_audio_energy);
  tcase_add_test (tc, test_audio_squares);
  return s;
}

GST_CHECK_MAIN (media);
