/* An application built against the installed gst-tensor-1.0 (pkg-config),
 * using only the public API: wrap our own memory as a tensor without a
 * copy, describe it in caps, and read it back dense and as a transposed
 * view; and map a video frame's format to its tensor. */
#include <gst/tensor/gsttensor.h>

#include <stdio.h>

static int failures;

#define CHECK(cond)                                         \
  do {                                                      \
    if (!(cond)) {                                          \
      fprintf (stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                           \
    }                                                       \
  } while (0)

static void
count_free (gpointer data)
{
  (*(int *) data)++;
}

int
main (int argc, char **argv)
{
  static float values[6] = { 0, 1, 2, 3, 4, 5 };
  GstTnInfo info = { TN_FLOAT32, 2, { 2, 3 }, 30, 1 }, back;
  gint64 tstrides[2] = { 1, 3 };
  GstTnMap map;
  GstBuffer *buf, *dense;
  GstCaps *caps;
  GError *err = NULL;
  int freed = 0;

  gst_init (&argc, &argv);

  caps = gst_tn_info_to_caps (&info);
  CHECK (gst_tn_info_from_caps (&back, caps, &err));
  CHECK (gst_tn_info_equal (&info, &back));
  gst_caps_unref (caps);

  /* Zero-copy: the buffer's data is our array. */
  buf = gst_tn_buffer_wrap (&info, values, sizeof values, &freed, count_free);
  CHECK (buf != NULL);
  CHECK (gst_tn_buffer_map (&map, buf, &info, GST_MAP_READ, &err));
  CHECK (map.data == (guint8 *) values);
  CHECK (tn_view_dense (&map.view));
  gst_tn_buffer_unmap (&map);

  /* The same memory read as its transpose <3, 2> through the layout meta;
   * dense() materializes it once: [[0, 3], [1, 4], [2, 5]]. */
  GstTnInfo tinfo = { TN_FLOAT32, 2, { 3, 2 }, 30, 1 };
  buf = gst_buffer_make_writable (buf);
  CHECK (gst_tn_buffer_add_layout_meta (buf, 2, 0, tstrides) != NULL);
  dense = gst_tn_buffer_dense (buf, &tinfo, NULL, &err);
  CHECK (dense != NULL && dense != buf);
  if (dense) {
    static const float want[6] = { 0, 3, 1, 4, 2, 5 };
    GstMapInfo m;

    CHECK (gst_buffer_map (dense, &m, GST_MAP_READ));
    CHECK (m.size == sizeof want && memcmp (m.data, want, sizeof want) == 0);
    gst_buffer_unmap (dense, &m);
    gst_buffer_unref (dense);
  }
  gst_buffer_unref (buf);
  CHECK (freed == 1);

  /* A video frame as a tensor: RGB 4x2 is uint8 <2, 4, 3>. */
  GstVideoInfo vinfo;
  GstTnInfo vtensor;

  CHECK (gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGB, 4, 2));
  CHECK (gst_tn_info_from_video_info (&vtensor, &vinfo, 0, 0, &err));
  CHECK (vtensor.dtype == TN_UINT8 && vtensor.rank == 3
         && vtensor.dims[0] == 2 && vtensor.dims[1] == 4
         && vtensor.dims[2] == 3);

  if (err)
    fprintf (stderr, "error: %s\n", err->message);
  g_clear_error (&err);
  printf ("%s\n", failures ? "FAIL" : "ok");
  return failures != 0;
}
