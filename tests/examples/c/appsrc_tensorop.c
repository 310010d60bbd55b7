/* Arrays in, arrays out, in C: appsrc ! tensorop ! appsink.
 *
 * The first Python example (tests/examples/python/appsrc_numpy.py) in C,
 * against the installed library:
 *
 *   cc -o appsrc_tensorop appsrc_tensorop.c \
 *       $(pkg-config --cflags --libs gst-tensor-1.0 gstreamer-app-1.0)
 *
 * Wraps ten float32 <4, 3> arrays of the application as tensor buffers
 * (no copy), lets tensorop compute clamp(x * 0.5 + 1, 0, 10), and checks
 * every result against the same arithmetic done here. */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/tensor/gsttensor.h>

#include <stdio.h>

#define FRAMES 10
#define ITEMS 12

static float frames[FRAMES][ITEMS];

int
main (int argc, char **argv)
{
  GstTnInfo info = { TN_FLOAT32, 2, { 4, 3 }, 30, 1 };
  GstElement *pipe, *src, *sink;
  GstCaps *caps;
  GError *err = NULL;
  int k, i, wrong = 0;

  gst_init (&argc, &argv);
  gst_tn_init ();

  pipe = gst_parse_launch ("appsrc name=src format=time "
                           "! tensorop ops=mul:0.5,add:1,clamp:0:10 "
                           "! appsink name=sink sync=false",
      &err);
  if (pipe == NULL) {
    fprintf (stderr, "pipeline: %s\n", err->message);
    return 1;
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  caps = gst_tn_info_to_caps (&info);
  gst_app_src_set_caps (GST_APP_SRC (src), caps);
  gst_caps_unref (caps);
  gst_element_set_state (pipe, GST_STATE_PLAYING);

  for (k = 0; k < FRAMES; k++) {
    GstBuffer *buf;

    for (i = 0; i < ITEMS; i++)
      frames[k][i] = (float) (k * 3 + i) - 6.0f; /* -6 .. 32 */
    /* Read-only: tensorop writes in place, and must copy ours first. */
    buf = gst_tn_buffer_wrap_full (&info, GST_MEMORY_FLAG_READONLY, frames[k],
        sizeof frames[k], NULL, NULL);
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale (k, GST_SECOND, 30);
    gst_app_src_push_buffer (GST_APP_SRC (src), buf);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  for (k = 0; k < FRAMES; k++) {
    GstSample *s
        = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 5 * GST_SECOND);
    GstTnInfo out;
    GstMapInfo m;

    if (s == NULL) {
      fprintf (stderr, "frame %d: no sample\n", k);
      return 1;
    }
    if (!gst_tn_info_from_caps (&out, gst_sample_get_caps (s), &err)
        || !gst_tn_info_equal (&out, &info)) {
      fprintf (stderr, "frame %d: caps %s\n", k, err ? err->message : "differ");
      return 1;
    }
    gst_buffer_map (gst_sample_get_buffer (s), &m, GST_MAP_READ);
    for (i = 0; i < ITEMS; i++) {
      float want = CLAMP (frames[k][i] * 0.5f + 1.0f, 0.0f, 10.0f);

      if (((const float *) m.data)[i] != want) {
        fprintf (stderr, "frame %d item %d: %g, want %g\n", k, i,
            ((const float *) m.data)[i], want);
        wrong++;
      }
    }
    gst_buffer_unmap (gst_sample_get_buffer (s), &m);
    gst_sample_unref (s);
  }
  /* The pipeline never wrote our arrays (the first item of frame 0). */
  if (frames[0][0] != -6.0f)
    wrong++;

  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  printf ("%d frames, %d wrong\n", FRAMES, wrong);
  gst_deinit ();
  return wrong != 0;
}
