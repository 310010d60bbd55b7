/* gst-libs/gst/tensor/tensormedia.c: raw video and audio <-> tensors.
 * Every expected value is worked out by hand from GStreamer's default
 * layouts (rows padded to 4 bytes, chroma planes after the luma) in the
 * comment beside it. */
#include <string.h>

#include "common/tncheck.h"

/* *errp must be set, of domain/code, with exactly the message want;
 * cleared after. */
static void
check_error (GError **errp, GQuark domain, gint code, const gchar *want)
{
  GError *err = *errp;

  fail_unless (err != NULL, "no error was set, expected '%s'", want);
  fail_unless (err->domain == domain, "error domain %s, expected %s",
      g_quark_to_string (err->domain), g_quark_to_string (domain));
  fail_unless_equals_int (err->code, code);
  fail_unless_equals_string (err->message, want);
  g_clear_error (errp);
}

static void
check_info (const GstTnInfo *info, tn_dtype dtype, gint rank,
    const gint64 *dims, gint fps_n, gint fps_d)
{
  fail_unless_equals_string (
      tn_dtype_name (info->dtype), tn_dtype_name (dtype));
  fail_unless_equals_int (info->rank, rank);
  for (gint i = 0; i < rank; i++)
    fail_unless_equals_int64 (info->dims[i], dims[i]);
  fail_unless_equals_int (info->fps_n, fps_n);
  fail_unless_equals_int (info->fps_d, fps_d);
}

static void
check_view (const tn_view *v, tn_dtype dtype, gint rank, const gint64 *dims,
    const gint64 *strides, gint64 offset)
{
  fail_unless_equals_string (tn_dtype_name (v->dtype), tn_dtype_name (dtype));
  fail_unless_equals_int (v->rank, rank);
  for (gint i = 0; i < rank; i++) {
    fail_unless_equals_int64 (v->dims[i], dims[i]);
    fail_unless_equals_int64 (v->strides[i], strides[i]);
  }
  fail_unless_equals_int64 (v->offset, offset);
}

static void
video_info (GstVideoInfo *vi, GstVideoFormat format, gint w, gint h)
{
  fail_unless (gst_video_info_set_format (vi, format, w, h));
  GST_VIDEO_INFO_FPS_N (vi) = 30;
  GST_VIDEO_INFO_FPS_D (vi) = 1;
}

/* RGB 7x5: a row is 21 bytes, padded to 24; the frame is 5 x 24 = 120. */
GST_START_TEST (test_rgb_padded)
{
  static const gint64 dims[3] = { 5, 7, 3 }, strides[3] = { 24, 3, 1 };
  GstVideoInfo vi;
  GstTnInfo info;
  GError *err = NULL;
  tn_view v;

  video_info (&vi, GST_VIDEO_FORMAT_RGB, 7, 5);
  fail_unless (gst_tn_info_from_video_info (&info, &vi, 0, 0, &err));
  check_info (&info, TN_UINT8, 3, dims, 30, 1);

  fail_unless (gst_tn_video_plane_view (&v, &vi, NULL, 0, 0, 120, &err));
  check_view (&v, TN_UINT8, 3, dims, strides, 0);
  fail_if (tn_view_dense (&v));

  /* Without a meta the buffer holds the whole default frame, the last
   * row's padding too: 4 x 24 + 21 = 117 bytes are read, 120 needed. */
  fail_if (gst_tn_video_plane_view (&v, &vi, NULL, 0, 0, 119, &err));
  check_error (&err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "Video buffer holds 119 bytes; RGB 7x5 with stride 24 from byte 0 "
      "needs 120.");
}

GST_END_TEST;

/* A GstVideoMeta's layout wins over vinfo's: offset 8, rows 22 bytes
 * apart, so 8 + 4 x 22 + 21 = 117 bytes are enough. */
GST_START_TEST (test_rgb_meta)
{
  static const gint64 dims[3] = { 5, 7, 3 }, strides[3] = { 22, 3, 1 };
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 8 };
  gint pitches[GST_VIDEO_MAX_PLANES] = { 22 };
  GstBuffer *buf = gst_buffer_new ();
  GstVideoMeta *meta;
  GstVideoInfo vi;
  GError *err = NULL;
  tn_view v;

  video_info (&vi, GST_VIDEO_FORMAT_RGB, 7, 5);
  meta = gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_RGB, 7, 5, 1, offsets, pitches);
  fail_unless (gst_tn_video_plane_view (&v, &vi, meta, 0, 0, 117, &err));
  check_view (&v, TN_UINT8, 3, dims, strides, 8);

  fail_if (gst_tn_video_plane_view (&v, &vi, meta, 0, 0, 116, &err));
  check_error (&err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "Video buffer holds 116 bytes; RGB 7x5 with stride 22 from byte 8 "
      "needs 117.");

  /* An offset near the top of the address space does not wrap the sum. */
  meta->offset[0] = G_MAXSIZE - 10;
  fail_if (gst_tn_video_plane_view (&v, &vi, meta, 0, 0, 200, &err));
  check_error (&err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "Video buffer holds 200 bytes; RGB 7x5 with stride 22 from byte "
      "18446744073709551605 needs 18446744073709551615.");

  meta->offset[0] = 8;
  meta->stride[0] = 20;
  fail_if (gst_tn_video_plane_view (&v, &vi, meta, 0, 0, 200, &err));
  check_error (&err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "Video rows of 20 bytes are shorter than 7 pixels of 3 bytes.");
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* I420 7x5: Y rows of 7 padded to 8, 5 of them (the chroma offset counts
 * 6, the height rounded up to even): U at 8 x 6 = 48, its planes 4 x 3
 * (7 and 5 halved, rounded up) with rows of 4, V at 48 + 4 x 3 = 60. */
GST_START_TEST (test_i420_planes)
{
  static const gint64 ydims[2] = { 5, 7 }, ystrides[2] = { 8, 1 };
  static const gint64 cdims[3] = { 3, 4, 1 }, cstrides[3] = { 4, 1, 1 };
  GstVideoInfo vi;
  GstTnInfo info;
  GError *err = NULL;
  tn_view v;

  video_info (&vi, GST_VIDEO_FORMAT_I420, 7, 5);
  fail_unless_equals_int ((gint) GST_VIDEO_INFO_SIZE (&vi), 72);
  fail_unless (gst_tn_info_from_video_info (&info, &vi, 0, 0, &err));
  check_info (&info, TN_UINT8, 2, ydims, 30, 1);
  fail_unless (gst_tn_video_plane_view (&v, &vi, NULL, 0, 0, 72, &err));
  check_view (&v, TN_UINT8, 2, ydims, ystrides, 0);

  fail_unless (gst_tn_info_from_video_info (&info, &vi, 1, 0, &err));
  check_info (&info, TN_UINT8, 2, cdims, 30, 1);
  fail_unless (gst_tn_video_plane_view (&v, &vi, NULL, 1, 0, 72, &err));
  check_view (&v, TN_UINT8, 2, cdims, cstrides, 48);
  fail_unless (tn_view_dense (&v));
  /* With a channel axis: <3, 4, 1>. */
  fail_unless (gst_tn_video_plane_view (
      &v, &vi, NULL, 2, GST_TN_MEDIA_CHANNEL_AXIS, 72, &err));
  check_view (&v, TN_UINT8, 3, cdims, cstrides, 60);

  fail_if (gst_tn_info_from_video_info (&info, &vi, 3, 0, &err));
  check_error (&err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "Video format I420 has 3 planes; there is no plane 3.");
}

GST_END_TEST;

/* NV12 6x4: Y rows of 6 padded to 8; the interleaved UV plane at
 * 8 x 4 = 32 is 2 rows of 3 pixels of 2 items, rows 8 bytes apart. */
GST_START_TEST (test_nv12)
{
  static const gint64 dims[3] = { 2, 3, 2 }, strides[3] = { 8, 2, 1 };
  GstVideoInfo vi;
  GError *err = NULL;
  tn_view v;

  video_info (&vi, GST_VIDEO_FORMAT_NV12, 6, 4);
  fail_unless_equals_int ((gint) GST_VIDEO_INFO_SIZE (&vi), 48);
  fail_unless (gst_tn_video_plane_view (&v, &vi, NULL, 1, 0, 48, &err));
  check_view (&v, TN_UINT8, 3, dims, strides, 32);
}

GST_END_TEST;

/* GRAY16_LE 5x3: rows of 10 bytes padded to 12, so 6 items apart; a
 * meta's odd pitch (11) or odd offset cannot be counted in items, and the
 * view reads bytes: <3, 5, 2> with strides <11, 2, 1>. */
GST_START_TEST (test_gray16)
{
  static const gint64 dims[2] = { 3, 5 }, strides[2] = { 6, 1 };
  static const gint64 bdims[3] = { 3, 5, 2 }, bstrides[3] = { 11, 2, 1 };
  static const gint64 odims[3] = { 3, 5, 2 }, ostrides[3] = { 12, 2, 1 };
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0 };
  gint pitches[GST_VIDEO_MAX_PLANES] = { 11 };
  GstBuffer *buf = gst_buffer_new ();
  GstVideoMeta *meta;
  GstVideoInfo vi;
  GstTnInfo info;
  GError *err = NULL;
  tn_view v;

  video_info (&vi, GST_VIDEO_FORMAT_GRAY16_LE, 5, 3);
  fail_unless (gst_tn_info_from_video_info (&info, &vi, 0, 0, &err));
  check_info (&info, TN_UINT16, 2, dims, 30, 1);
  fail_unless (gst_tn_video_plane_view (&v, &vi, NULL, 0, 0, 36, &err));
  check_view (&v, TN_UINT16, 2, dims, strides, 0);

  meta = gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_GRAY16_LE, 5, 3, 1, offsets, pitches);
  /* 2 x 11 + 10 = 32 bytes. */
  fail_unless (gst_tn_video_plane_view (&v, &vi, meta, 0, 0, 32, &err));
  check_view (&v, TN_UINT8, 3, bdims, bstrides, 0);
  meta->offset[0] = 1;
  meta->stride[0] = 12;
  fail_unless (gst_tn_video_plane_view (&v, &vi, meta, 0, 0, 35, &err));
  check_view (&v, TN_UINT8, 3, odims, ostrides, 1);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* Formats with no tensor form say why. */
GST_START_TEST (test_video_unsupported)
{
  GstVideoInfo vi;
  GstTnInfo info;
  GError *err = NULL;

  video_info (&vi, GST_VIDEO_FORMAT_UYVY, 4, 2);
  fail_if (gst_tn_info_from_video_info (&info, &vi, 0, 0, &err));
  check_error (&err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "Video format UYVY has no tensor form: plane 0 holds samples 2 and 4 "
      "bytes apart, and a tensor needs one pixel stride per plane.");

  video_info (&vi, GST_VIDEO_FORMAT_I420_10LE, 4, 2);
  fail_if (gst_tn_info_from_video_info (&info, &vi, 0, 0, &err));
  check_error (&err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "Video format I420_10LE has no tensor form: its samples are 10 bits, "
      "and a tensor needs whole samples of 8 or 16 bits.");

  video_info (&vi, GST_VIDEO_FORMAT_GRAY16_BE, 4, 2);
  fail_if (gst_tn_info_from_video_info (&info, &vi, 0, 0, &err));
  check_error (&err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "Video format GRAY16_BE has no tensor form: its 16-bit samples are "
      "not in the machine's byte order.");
}

GST_END_TEST;

/* F32LE stereo at 48000 Hz, 4 frames a tensor: float32 <4, 2> at
 * 48000 / 4 = 12000 tensors a second.  S16LE planar, 3 channels at
 * 44100 Hz, 1024 frames: int16 <3, 1024> at 44100 / 1024 = 11025 / 256. */
GST_START_TEST (test_audio)
{
  static const gint64 fdims[2] = { 4, 2 }, sdims[2] = { 3, 1024 };
  GstAudioInfo ai;
  GstTnInfo info;
  GError *err = NULL;

  gst_audio_info_set_format (&ai, GST_AUDIO_FORMAT_F32LE, 48000, 2, NULL);
  fail_unless (gst_tn_info_from_audio_info (&info, &ai, 4, &err));
  check_info (&info, TN_FLOAT32, 2, fdims, 12000, 1);

  gst_audio_info_set_format (&ai, GST_AUDIO_FORMAT_S16LE, 44100, 3, NULL);
  GST_AUDIO_INFO_LAYOUT (&ai) = GST_AUDIO_LAYOUT_NON_INTERLEAVED;
  fail_unless (gst_tn_info_from_audio_info (&info, &ai, 1024, &err));
  check_info (&info, TN_INT16, 2, sdims, 11025, 256);

  fail_if (gst_tn_info_from_audio_info (&info, &ai, 0, &err));
  check_error (&err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "A tensor of audio needs 1 to 2147483647 frames, not 0.");

  gst_audio_info_set_format (&ai, GST_AUDIO_FORMAT_S24_32LE, 44100, 2, NULL);
  fail_if (gst_tn_info_from_audio_info (&info, &ai, 16, &err));
  check_error (&err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "Audio format S24_32LE has no tensor form: its samples are 24 bits "
      "in 32, and a tensor needs samples of 8, 16, 32 or 64 bits.");
}

GST_END_TEST;

static void
check_caps (GstCaps *caps, const gchar *want)
{
  GstCaps *w = gst_caps_from_string (want);

  fail_unless (w != NULL, "'%s' does not parse", want);
  fail_unless (gst_caps_is_strictly_equal (caps, w),
      "got %" GST_PTR_FORMAT ", expected %" GST_PTR_FORMAT, caps, w);
  gst_caps_unref (w);
  gst_caps_unref (caps);
}

/* Caps both ways, in the order of the format lists. */
GST_START_TEST (test_caps)
{
  GstCaps *in;
  GError *err = NULL;

  in = gst_caps_from_string (
      "video/x-raw, format=(string){ GRAY8, BGR }, width=7, height=5, "
      "framerate=30/1");
  check_caps (gst_tn_caps_from_media_caps (in, GST_TN_MEDIA_NONE, 0),
      "tensor/x-raw, type=uint8, dims-order=row-major, dims=<5, 7, 3>, "
      "framerate=30/1; tensor/x-raw, type=uint8, dims-order=row-major, "
      "dims=<5, 7>, framerate=30/1");
  gst_caps_unref (in);

  in = gst_caps_from_string ("audio/x-raw, format=F32LE, "
                             "layout=interleaved, rate=48000, channels=2");
  check_caps (gst_tn_caps_from_media_caps (in, GST_TN_MEDIA_NONE, 4),
      "tensor/x-raw, type=float32, dims-order=row-major, dims=<4, 2>, "
      "framerate=12000/1");
  gst_caps_unref (in);

  /* uint8 <5, 7, 3> is RGB or BGR; int16 <1024, 2> at 11025/256 is S16LE
   * at 1024 x 11025 / 256 = 44100 Hz. */
  in = gst_caps_from_string ("tensor/x-raw, type=uint8, dims=<5, 7, 3>, "
                             "framerate=30/1");
  check_caps (gst_tn_media_caps_from_caps (in, 0, &err),
      "video/x-raw, format=RGB, width=7, height=5, framerate=30/1; "
      "video/x-raw, format=BGR, width=7, height=5, framerate=30/1");
  gst_caps_unref (in);
  in = gst_caps_from_string ("tensor/x-raw, type=int16, dims=<1024, 2>, "
                             "framerate=11025/256");
  check_caps (gst_tn_media_caps_from_caps (in, 0, &err),
      "audio/x-raw, format=S16LE, layout=interleaved, channels=2, "
      "rate=44100");
  gst_caps_unref (in);

  in = gst_caps_from_string ("tensor/x-raw, type=float32, dims=<2, 3, 5>");
  check_caps (gst_tn_media_caps_from_caps (in, 0, &err), "EMPTY");
  check_error (&err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "A tensor float32 <2, 3, 5> at framerate 0/1 fits no media format: "
      "video needs uint8 <h, w>, <h, w, 1>, <h, w, 3> or <h, w, 4>, or "
      "uint16 <h, w> or <h, w, 1> (every extent 1 or more); audio needs "
      "int8, uint8, int16, int32, float32 or float64 <frames, channels> at "
      "a framerate that makes frames x framerate a whole number of Hz.");
  gst_caps_unref (in);
}

GST_END_TEST;

static Suite *
media_suite (void)
{
  Suite *s = suite_create ("tensormedia");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rgb_padded);
  tcase_add_test (tc, test_rgb_meta);
  tcase_add_test (tc, test_i420_planes);
  tcase_add_test (tc, test_nv12);
  tcase_add_test (tc, test_gray16);
  tcase_add_test (tc, test_video_unsupported);
  tcase_add_test (tc, test_audio);
  tcase_add_test (tc, test_caps);
  return s;
}

GST_CHECK_MAIN (media);
