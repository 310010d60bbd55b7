/* tensorconvert: video and audio to tensors and back, bit-exact, by
 * reference where the layouts allow it.  Frames are filled with a known
 * pattern, so every expectation is computed from the bytes pushed. */
#include <string.h>

#include <glib/gstdio.h>

#include <gst/audio/audio.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "common/npyread.h"
#include "common/tncheck.h"

static GstBus *
watch (GstElement *e)
{
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (e, bus);
  return bus;
}

static void
unwatch (GstElement *e, GstBus *bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
}

static guint64
bytes_copied (GstElement *e)
{
  guint64 v;

  g_object_get (e, "bytes-copied", &v, NULL);
  return v;
}

/* A harness around a tensorconvert whose property prop (if any) was set
 * before it started: a harness plays its element at once, and neither
 * property may change while it runs. */
static GstHarness *
conv_harness (const gchar *prop, gint value)
{
  GstElement *e = gst_element_factory_make ("tensorconvert", NULL);
  GstHarness *h;

  if (prop)
    g_object_set (e, prop, value, NULL);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  return h;
}

static GstBuffer *
pattern_buffer (gsize size, guint seed)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo map;

  gst_buffer_map (b, &map, GST_MAP_WRITE);
  for (gsize i = 0; i < size; i++)
    map.data[i] = (guint8) (i * 37 + 11 + seed);
  gst_buffer_unmap (b, &map);
  return b;
}

/* Address of the first byte of a buffer (single memory). */
static const guint8 *
address (GstBuffer *b)
{
  GstMapInfo map;
  const guint8 *p;

  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  p = map.data;
  gst_buffer_unmap (b, &map);
  return p;
}

static GstCaps *
current_caps (GstHarness *h)
{
  return gst_pad_get_current_caps (h->sinkpad);
}

static const gchar *video_formats[] = { "GRAY8", "GRAY16_LE", "RGB", "BGR",
  "RGBA", "BGRA", "RGBx", "BGRx", "xRGB", "xBGR", "ARGB", "ABGR" };

/* One frame through video -> tensor -> video. */
static void
video_round_trip (const gchar *format, gint w, gint h, gboolean meta)
{
  GstVideoFormat vf = gst_video_format_from_string (format);
  GstHarness *h1 = gst_harness_new ("tensorconvert");
  GstHarness *h2 = gst_harness_new ("tensorconvert");
  gboolean gray16 = vf == GST_VIDEO_FORMAT_GRAY16_LE;
  gsize isz = gray16 ? 2 : 1, row, stride;
  GstVideoInfo vi;
  GstBuffer *frame, *tensor, *back;
  GstCaps *caps;
  GstTnInfo info;
  GstTnLayoutMeta *lm;
  GstTnMap m;
  GstMapInfo a, b;
  gint pstride, channels;
  gboolean padded;

  gst_video_info_set_format (&vi, vf, w, h);
  GST_VIDEO_INFO_FPS_N (&vi) = 30;
  pstride = GST_VIDEO_INFO_COMP_PSTRIDE (&vi, 0);
  channels = pstride / (gint) isz;
  row = (gsize) w * pstride;
  stride = GST_VIDEO_INFO_PLANE_STRIDE (&vi, 0);
  padded = stride != row;

  if (meta)
    gst_harness_add_propose_allocation_meta (
        h1, GST_TN_LAYOUT_META_API_TYPE, NULL);
  gst_harness_set_src_caps (h1, gst_video_info_to_caps (&vi));
  frame = pattern_buffer (GST_VIDEO_INFO_SIZE (&vi), w);
  GST_BUFFER_PTS (frame) = 7;
  fail_unless_equals_int (
      gst_harness_push (h1, gst_buffer_ref (frame)), GST_FLOW_OK);
  tensor = gst_harness_pull (h1);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (tensor), 7);

  /* Caps: <h, w, c>, or <h, w> for gray. */
  caps = current_caps (h1);
  fail_unless (gst_tn_info_from_caps (&info, caps, NULL));
  fail_unless_equals_string (
      tn_dtype_name (info.dtype), gray16 ? "uint16" : "uint8");
  fail_unless_equals_int (info.rank, channels == 1 ? 2 : 3);
  fail_unless_equals_int64 (info.dims[0], h);
  fail_unless_equals_int64 (info.dims[1], w);
  if (channels > 1)
    fail_unless_equals_int64 (info.dims[2], channels);
  fail_unless_equals_int (info.fps_n, 30);

  /* Values: every pixel row, without the padding. */
  fail_unless (gst_tn_buffer_map (&m, tensor, &info, GST_MAP_READ, NULL));
  fail_unless (gst_buffer_map (frame, &a, GST_MAP_READ));
  for (gint y = 0; y < h; y++)
    fail_unless (memcmp (m.data + (m.view.offset + y * m.view.strides[0]) * isz,
                     a.data + y * stride, row)
                     == 0,
        "%s %dx%d: row %d differs", format, w, h, y);
  gst_buffer_unmap (frame, &a);
  gst_tn_buffer_unmap (&m);

  /* Memory: the frame's own, unless padded rows met a dense-only reader. */
  lm = gst_tn_buffer_get_layout_meta (tensor);
  if (!padded || meta) {
    fail_unless (
        address (tensor) == address (frame), "%s %dx%d copied", format, w, h);
    fail_unless_equals_uint64 (bytes_copied (h1->element), 0);
    fail_unless ((lm != NULL) == padded);
    if (lm) {
      fail_unless_equals_int64 (lm->strides[0], stride / isz);
      fail_unless_equals_int64 (lm->strides[1], channels == 1 ? 1 : channels);
    }
  } else {
    fail_unless (lm == NULL);
    fail_if (address (tensor) == address (frame));
    fail_unless_equals_uint64 (bytes_copied (h1->element), row * h);
  }

  /* And back: a capsfilter picks the format among those of the tensor's
   * channel count. */
  {
    gchar *str = g_strdup_printf ("video/x-raw,format=%s", format);

    gst_harness_set_sink_caps_str (h2, str);
    g_free (str);
  }
  gst_harness_set_src_caps (h2, caps);
  fail_unless_equals_int (
      gst_harness_push (h2, gst_buffer_ref (tensor)), GST_FLOW_OK);
  back = gst_harness_pull (h2);
  caps = current_caps (h2);
  {
    GstVideoInfo bi;

    fail_unless (gst_video_info_from_caps (&bi, caps));
    fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&bi), vf);
    fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&bi), w);
    fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&bi), h);
  }
  gst_caps_unref (caps);
  fail_unless (gst_buffer_get_video_meta (back) == NULL);
  fail_unless_equals_uint64 (
      gst_buffer_get_size (back), GST_VIDEO_INFO_SIZE (&vi));
  fail_unless (gst_buffer_map (back, &b, GST_MAP_READ));
  fail_unless (gst_buffer_map (frame, &a, GST_MAP_READ));
  for (gint y = 0; y < h; y++)
    fail_unless (memcmp (b.data + y * stride, a.data + y * stride, row) == 0,
        "%s %dx%d: row %d differs after the round trip", format, w, h, y);
  gst_buffer_unmap (frame, &a);
  gst_buffer_unmap (back, &b);
  /* Full circle by reference whenever the tensor still had the frame's
   * rows; a dense copy of padded rows is padded again, once. */
  if (!padded || meta) {
    fail_unless (address (back) == address (frame));
    fail_unless_equals_uint64 (bytes_copied (h2->element), 0);
  } else {
    fail_unless_equals_uint64 (bytes_copied (h2->element), row * h);
  }

  gst_buffer_unref (back);
  gst_buffer_unref (tensor);
  gst_buffer_unref (frame);
  gst_harness_teardown (h1);
  gst_harness_teardown (h2);
}

GST_START_TEST (test_video_round_trip)
{
  for (guint i = 0; i < G_N_ELEMENTS (video_formats); i++)
    for (gint w = 4; w <= 5; w++)
      for (gint meta = 0; meta < 2; meta++)
        video_round_trip (video_formats[i], w, 3, meta);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A GstVideoMeta with its own offset and stride becomes the layout meta. */
GST_START_TEST (test_video_meta_input)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 8 };
  gint strides[GST_VIDEO_MAX_PLANES] = { 20 };
  GstBuffer *frame, *tensor;
  GstTnLayoutMeta *lm;
  GstCaps *caps;
  GstTnInfo info;
  GstTnMap m;
  const guint8 *base;

  gst_harness_add_propose_allocation_meta (
      h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  gst_harness_set_src_caps_str (
      h, "video/x-raw,format=RGB,width=4,height=3,framerate=0/1");
  frame = pattern_buffer (8 + 20 * 3, 0);
  gst_buffer_add_video_meta_full (frame, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_RGB, 4, 3, 1, offsets, strides);
  base = address (frame);
  gst_harness_push (h, gst_buffer_ref (frame));
  tensor = gst_harness_pull (h);
  fail_unless (address (tensor) == base);
  fail_unless (gst_buffer_get_video_meta (tensor) == NULL);
  lm = gst_tn_buffer_get_layout_meta (tensor);
  fail_unless (lm != NULL);
  fail_unless_equals_int64 (lm->offset, 8);
  fail_unless_equals_int64 (lm->strides[0], 20);
  fail_unless_equals_int64 (lm->strides[1], 3);
  fail_unless_equals_int64 (lm->strides[2], 1);
  caps = current_caps (h);
  fail_unless (gst_tn_info_from_caps (&info, caps, NULL));
  fail_unless (gst_tn_buffer_map (&m, tensor, &info, GST_MAP_READ, NULL));
  /* Pixel (y=2, x=3), channel 1: byte 8 + 2*20 + 3*3 + 1 = 58. */
  fail_unless_equals_int (
      m.data[m.view.offset + 2 * m.view.strides[0] + 3 * m.view.strides[1] + 1],
      (guint8) (58 * 37 + 11));
  gst_tn_buffer_unmap (&m);
  gst_caps_unref (caps);
  gst_buffer_unref (tensor);
  gst_buffer_unref (frame);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A writable frame is passed on itself: no buffer or memory allocated,
 * its GstVideoMeta (which no longer describes it) dropped. */
GST_START_TEST (test_writable_frame_passed_on)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  GstBuffer *frame, *tensor;
  const guint8 *p;

  gst_harness_set_src_caps_str (
      h, "video/x-raw,format=RGBA,width=4,height=3,framerate=0/1");
  frame = pattern_buffer (48, 0);
  gst_buffer_add_video_meta (
      frame, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_RGBA, 4, 3);
  p = address (frame);
  gst_harness_push (h, frame);
  tensor = gst_harness_pull (h);
  fail_unless (tensor == frame);
  fail_unless (address (tensor) == p);
  fail_unless (gst_buffer_get_video_meta (tensor) == NULL);
  fail_unless (gst_tn_buffer_get_layout_meta (tensor) == NULL);
  gst_buffer_unref (tensor);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A strided tensor with whole rows becomes a frame with a GstVideoMeta
 * when downstream reads one: no copy. */
GST_START_TEST (test_tensor_to_video_meta)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  static const gint64 strides[3] = { 16, 3, 1 };
  GstBuffer *in, *out;
  GstVideoMeta *vm;

  gst_harness_add_propose_allocation_meta (h, GST_VIDEO_META_API_TYPE, NULL);
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=BGR");
  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=uint8,dims=<2,3,3>,"
                                   "dims-order=row-major,framerate=0/1");
  in = pattern_buffer (2 + 16 + 9, 0);
  gst_tn_buffer_add_layout_meta (in, 3, 2, strides);
  gst_harness_push (h, gst_buffer_ref (in));
  out = gst_harness_pull (h);
  fail_unless (address (out) == address (in));
  vm = gst_buffer_get_video_meta (out);
  fail_unless (vm != NULL);
  fail_unless_equals_int (vm->format, GST_VIDEO_FORMAT_BGR);
  fail_unless_equals_uint64 (vm->offset[0], 2);
  fail_unless_equals_int (vm->stride[0], 16);
  fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL);
  fail_unless_equals_uint64 (bytes_copied (h->element), 0);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A tensor whose pixels are not dense (a permuted view) is copied once. */
GST_START_TEST (test_tensor_to_video_strided)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  /* <2, 4> gray from a <4, 2> storage read transposed. */
  static const gint64 strides[2] = { 1, 2 };
  GstBuffer *in, *out;
  GstMapInfo map;

  gst_harness_set_sink_caps_str (h, "video/x-raw,format=GRAY8");
  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=uint8,dims=<2,4>,"
                                   "dims-order=row-major,framerate=0/1");
  in = pattern_buffer (8, 0);
  gst_tn_buffer_add_layout_meta (in, 2, 0, strides);
  gst_harness_push (h, gst_buffer_ref (in));
  out = gst_harness_pull (h);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  /* GRAY8 width 4 has stride 4: pixel (y, x) is storage item x*2 + y. */
  for (gint y = 0; y < 2; y++)
    for (gint x = 0; x < 4; x++)
      fail_unless_equals_int (
          map.data[y * 4 + x], (guint8) ((x * 2 + y) * 37 + 11));
  gst_buffer_unmap (out, &map);
  fail_unless_equals_uint64 (bytes_copied (h->element), 8);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static const gchar *audio_formats[]
    = { "S8", "U8", "S16LE", "S32LE", "F32LE", "F64LE" };
static const gchar *audio_types[]
    = { "int8", "uint8", "int16", "int32", "float32", "float64" };

/* Two 8-frame buffers in, four 4-frame tensors out, each inside an input
 * buffer; and back to the same audio. */
GST_START_TEST (test_audio_round_trip)
{
  for (guint f = 0; f < G_N_ELEMENTS (audio_formats); f++) {
    GstHarness *h1 = conv_harness ("frames", 4);
    GstHarness *h2 = gst_harness_new ("tensorconvert");
    GstAudioInfo ai;
    GstBuffer *in[2], *t[4];
    GstCaps *caps, *want;
    gsize bpf;
    gint fps_n, fps_d;

    gst_audio_info_set_format (
        &ai, gst_audio_format_from_string (audio_formats[f]), 48000, 2, NULL);
    bpf = GST_AUDIO_INFO_BPF (&ai);
    gst_harness_set_src_caps (h1, gst_audio_info_to_caps (&ai));
    for (gint i = 0; i < 2; i++) {
      in[i] = pattern_buffer (8 * bpf, i);
      GST_BUFFER_PTS (in[i]) = gst_util_uint64_scale (i * 8, GST_SECOND, 48000);
      fail_unless_equals_int (
          gst_harness_push (h1, gst_buffer_ref (in[i])), GST_FLOW_OK);
    }
    fail_unless_equals_int (gst_harness_buffers_in_queue (h1), 4);
    caps = current_caps (h1);
    {
      gchar *str = g_strdup_printf (
          "tensor/x-raw,type=%s,dims=<4,2>,framerate=12000/1", audio_types[f]);

      want = gst_caps_from_string (str);
      g_free (str);
    }
    fail_unless (gst_caps_is_subset (caps, want), "%s", audio_formats[f]);
    gst_caps_unref (want);
    for (gint k = 0; k < 4; k++) {
      t[k] = gst_harness_pull (h1);
      fail_unless_equals_uint64 (gst_buffer_get_size (t[k]), 4 * bpf);
      fail_unless (address (t[k]) == address (in[k / 2]) + (k % 2) * 4 * bpf,
          "%s tensor %d is not inside its input", audio_formats[f], k);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (t[k]),
          gst_util_uint64_scale (k * 4, GST_SECOND, 48000));
    }
    fail_unless_equals_uint64 (bytes_copied (h1->element), 0);
    fail_unless (gst_structure_get_fraction (
        gst_caps_get_structure (caps, 0), "framerate", &fps_n, &fps_d));

    /* Back: rate = frames x framerate = 48000. */
    gst_harness_set_sink_caps_str (h2, "audio/x-raw");
    gst_harness_set_src_caps (h2, caps);
    for (gint k = 0; k < 4; k++) {
      GstBuffer *a;
      GstMapInfo x, y;

      gst_harness_push (h2, gst_buffer_ref (t[k]));
      a = gst_harness_pull (h2);
      fail_unless (address (a) == address (t[k]));
      fail_unless (gst_buffer_map (a, &x, GST_MAP_READ));
      fail_unless (gst_buffer_map (in[k / 2], &y, GST_MAP_READ));
      fail_unless_equals_uint64 (x.size, 4 * bpf);
      fail_unless (memcmp (x.data, y.data + (k % 2) * 4 * bpf, x.size) == 0);
      gst_buffer_unmap (in[k / 2], &y);
      gst_buffer_unmap (a, &x);
      gst_buffer_unref (a);
      gst_buffer_unref (t[k]);
    }
    caps = current_caps (h2);
    {
      GstAudioInfo bi;

      fail_unless (gst_audio_info_from_caps (&bi, caps));
      fail_unless_equals_int (
          GST_AUDIO_INFO_FORMAT (&bi), GST_AUDIO_INFO_FORMAT (&ai));
      fail_unless_equals_int (GST_AUDIO_INFO_RATE (&bi), 48000);
      fail_unless_equals_int (GST_AUDIO_INFO_CHANNELS (&bi), 2);
    }
    gst_caps_unref (caps);
    fail_unless_equals_uint64 (bytes_copied (h2->element), 0);
    gst_buffer_unref (in[0]);
    gst_buffer_unref (in[1]);
    gst_harness_teardown (h1);
    gst_harness_teardown (h2);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A tensor across two input buffers is copied once; frames left at EOS
 * are dropped with a warning that counts them. */
GST_START_TEST (test_audio_across_buffers)
{
  GstHarness *h = conv_harness ("frames", 4);
  GstBus *bus = watch (h->element);
  GstBuffer *in[2], *t;
  GstMapInfo map;
  gchar *text;

  gst_harness_set_src_caps_str (h, "audio/x-raw,format=S16LE,rate=8000,"
                                   "channels=1,layout=interleaved");
  for (gint i = 0; i < 2; i++) {
    in[i] = pattern_buffer (6 * 2, 0);
    gst_harness_push (h, gst_buffer_ref (in[i]));
  }
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 3);
  gst_buffer_unref (gst_harness_pull (h));
  t = gst_harness_pull (h);
  /* Frames 4..7: the last two of the first buffer, two of the second. */
  fail_unless (gst_buffer_map (t, &map, GST_MAP_READ));
  for (gint i = 0; i < 8; i++)
    fail_unless_equals_int (
        map.data[i], (guint8) (((i < 4 ? 8 : -4) + i) * 37 + 11));
  gst_buffer_unmap (t, &map);
  gst_buffer_unref (t);
  fail_unless_equals_uint64 (bytes_copied (h->element), 8);
  gst_buffer_unref (gst_harness_pull (h));

  gst_harness_push (h, pattern_buffer (2 * 2, 0));
  gst_harness_push_event (h, gst_event_new_eos ());
  text = tn_pop_text (bus, GST_MESSAGE_WARNING);
  tn_assert_contains (
      text, "Dropped the last 2 audio frames: a tensor needs 4 (the frames");
  g_free (text);
  gst_buffer_unref (in[0]);
  gst_buffer_unref (in[1]);
  unwatch (h->element, bus);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_gray_channel_axis)
{
  GstHarness *h = conv_harness ("gray-channel-axis", TRUE);
  GstCaps *caps, *want;

  gst_harness_set_src_caps_str (
      h, "video/x-raw,format=GRAY8,width=4,height=2,framerate=0/1");
  gst_harness_push (h, pattern_buffer (8, 0));
  gst_buffer_unref (gst_harness_pull (h));
  caps = current_caps (h);
  want = gst_caps_from_string ("tensor/x-raw,type=uint8,dims=<2,4,1>");
  fail_unless (gst_caps_is_subset (caps, want));
  gst_caps_unref (want);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Tensors that fit no media format, and one that fits only what
 * downstream refuses: refused, with what would fit. */
static gchar *
caps_error (const gchar *caps, const gchar *downstream)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  GstBus *bus = watch (h->element);
  GstSegment seg;
  gchar *text;

  if (downstream)
    gst_harness_set_sink_caps_str (h, downstream);
  gst_harness_push_event (h, gst_event_new_stream_start ("s"));
  {
    GstCaps *c = gst_caps_from_string (caps);

    gst_harness_push_event (h, gst_event_new_caps (c));
    gst_caps_unref (c);
  }
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new ()), GST_FLOW_NOT_NEGOTIATED);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  fail_unless (text != NULL, "no error for %s", caps);
  fail_unless (tn_pop_text (bus, GST_MESSAGE_ERROR) == NULL);
  unwatch (h->element, bus);
  gst_harness_teardown (h);
  return text;
}

GST_START_TEST (test_negotiation_errors)
{
  static const struct {
    const gchar *caps, *want;
  } errs[] = {
    { "tensor/x-raw,type=uint8,dims=<2,3,5>,framerate=30/1",
        "A tensor uint8 <2, 3, 5> at framerate 30/1 fits no media format: "
        "video needs uint8 <h, w>, <h, w, 1>, <h, w, 3> or <h, w, 4>, or "
        "uint16 <h, w> or <h, w, 1> (every extent 1 or more); audio needs "
        "int8, uint8, int16, int32, float32 or float64 <frames, channels> "
        "at a framerate that makes frames x framerate a whole number of "
        "Hz." },
    { "tensor/x-raw,type=float32,dims=<2,3,5>,framerate=30/1",
        "A tensor float32 <2, 3, 5> at framerate 30/1 fits no media" },
    { "tensor/x-raw,type=float32,dims=<1024,2>,framerate=1/3",
        "A tensor float32 <1024, 2> at framerate 1/3 fits no media" },
    { "tensor/x-raw,type=uint16,dims=<4,4,3>,framerate=0/1",
        "A tensor uint16 <4, 4, 3> at framerate 0/1 fits no media" },
    { "tensor/x-raw,type=uint8,dims=<0,4,3>,framerate=0/1",
        "A tensor uint8 <0, 4, 3> at framerate 0/1 fits no media" },
    { "tensor/x-raw,type=float32,dims=<4>,framerate=0/1",
        "A tensor float32 <4> at framerate 0/1 fits no media" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (errs); i++) {
    gchar *text = caps_error (errs[i].caps, NULL);

    tn_assert_contains (text, errs[i].want);
    g_free (text);
  }
  {
    gchar *text
        = caps_error ("tensor/x-raw,type=float32,dims=<1024,2>,framerate=375/8",
            "video/x-raw");

    tn_assert_contains (text, "tensor/x-raw, type=(string)float32, "
                              "dims=(int)< 1024, 2 >");
    tn_assert_contains (text, "framerate=(fraction)375/8 converts to "
                              "audio/x-raw, format=(string)F32LE");
    tn_assert_contains (text, "rate=(int)48000");
    tn_assert_contains (text, "which downstream does not accept.");
    g_free (text);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Dims asked for downstream pick the video size and the pixel size
 * upstream; a format asked for downstream picks among equal pixel
 * sizes. */
GST_START_TEST (test_caps_both_directions)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  GstCaps *caps, *want;

  gst_harness_set_sink_caps_str (h, "tensor/x-raw,type=uint8,dims=<48,64,4>");
  caps = gst_pad_peer_query_caps (h->srcpad, NULL);
  want = gst_caps_from_string (
      "video/x-raw,format=BGRx,width=64,height=48,framerate=30/1");
  fail_unless (gst_caps_can_intersect (caps, want));
  gst_caps_unref (want);
  want = gst_caps_from_string ("video/x-raw,format=RGB,width=64,height=48");
  fail_if (gst_caps_can_intersect (caps, want));
  gst_caps_unref (want);
  want = gst_caps_from_string ("video/x-raw,format=RGBA,width=64,height=32");
  fail_if (gst_caps_can_intersect (caps, want));
  gst_caps_unref (want);
  gst_caps_unref (caps);
  gst_harness_teardown (h);

  /* With audio, the frames property sets the tensor's first extent. */
  h = conv_harness ("frames", 256);
  gst_harness_set_sink_caps_str (h, "tensor/x-raw,type=int16,dims=<256,2>");
  caps = gst_pad_peer_query_caps (h->srcpad, NULL);
  want = gst_caps_from_string (
      "audio/x-raw,format=S16LE,channels=2,layout=interleaved,rate=44100");
  fail_unless (gst_caps_can_intersect (caps, want));
  gst_caps_unref (want);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static GstElement *
run (const gchar *launch)
{
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipe != NULL, "%s", launch);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipe);
  msg = gst_bus_timed_pop_filtered (
      bus, 10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s", launch);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  return pipe;
}

static guint64
copied_in (GstElement *pipe, const gchar *name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  guint64 v = bytes_copied (e);

  gst_object_unref (e);
  return v;
}

/* The first error of a pipeline that must fail; NULL if it ends. */
static gchar *
run_error (const gchar *launch, gchar **from)
{
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;
  gchar *text = NULL;

  fail_unless (pipe != NULL, "%s", launch);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipe);
  msg = gst_bus_timed_pop_filtered (
      bus, 10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s", launch);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    *from = gst_object_get_name (GST_MESSAGE_SRC (msg));
    g_error_free (err);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return text;
}

/* A source held to tensor caps that fit no media format still links to
 * a video sink; the first error is tensorconvert's reason, not the
 * source's "downstream accepts no caps". */
GST_START_TEST (test_refusal_behind_capsfilter)
{
  gchar *from = NULL;
  gchar *text = run_error (
      "tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3,3> ! "
      "tensorconvert name=c ! videoconvert ! fakesink",
      &from);

  tn_assert_contains (text, "A tensor float32 <2, 3, 3> at framerate 30/1 fits "
                            "no media format: video needs uint8");
  fail_unless_equals_string (from, "c");
  g_free (text);
  g_free (from);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* videotestsrc at width 321 has padded RGB rows (964 bytes for 963): one
 * copy for a reader of dense tensors, none for one that reads strides
 * (tensorreduce);
 * width 320 is never copied.  A capsfilter of tensor dims downstream sets
 * the video size upstream. */
GST_START_TEST (test_videotestsrc)
{
  GstElement *p;

  p = run ("videotestsrc num-buffers=3 ! video/x-raw,format=RGB,width=321,"
           "height=10 ! tensorconvert name=c ! fakesink");
  fail_unless_equals_uint64 (copied_in (p, "c"), 3 * 10 * 321 * 3);
  gst_object_unref (p);
  /* tensordebug passes buffers on: it asks what follows it, here a
   * reader of strides. */
  p = run ("videotestsrc num-buffers=3 ! video/x-raw,format=RGB,width=321,"
           "height=10 ! tensorconvert name=c ! tensordebug output=log ! "
           "tensorreduce ! fakesink");
  fail_unless_equals_uint64 (copied_in (p, "c"), 0);
  gst_object_unref (p);
  p = run ("videotestsrc num-buffers=3 ! video/x-raw,format=RGB,width=320,"
           "height=10 ! tensorconvert name=c ! fakesink");
  fail_unless_equals_uint64 (copied_in (p, "c"), 0);
  gst_object_unref (p);
  /* Reaching EOS (run fails on not-negotiated) is the check. */
  p = run ("videotestsrc num-buffers=1 ! tensorconvert name=c ! "
           "tensor/x-raw,type=uint8,dims=<24,40,3> ! fakesink");
  fail_unless_equals_uint64 (copied_in (p, "c"), 0);
  gst_object_unref (p);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_short_frame)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  GstBus *bus = watch (h->element);
  gchar *text;

  gst_harness_set_src_caps_str (
      h, "video/x-raw,format=RGB,width=4,height=3,framerate=0/1");
  fail_unless_equals_int (
      gst_harness_push (h, pattern_buffer (10, 0)), GST_FLOW_ERROR);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  tn_assert_contains (text, "Video buffer holds 10 bytes; RGB 4x3 with stride "
                            "12 from byte 0 needs 36.");
  g_free (text);
  /* RGB 5x3: rows of 15 bytes at a pitch of 16.  47 bytes hold every
   * pixel but not the padding of the last row, which the default layout
   * (gst_video_frame_map) has. */
  gst_harness_set_src_caps_str (
      h, "video/x-raw,format=RGB,width=5,height=3,framerate=0/1");
  fail_unless_equals_int (
      gst_harness_push (h, pattern_buffer (47, 0)), GST_FLOW_ERROR);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  tn_assert_contains (text, "Video buffer holds 47 bytes; RGB 5x3 with stride "
                            "16 from byte 0 needs 48.");
  g_free (text);
  unwatch (h->element, bus);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Buffers that do not fit their caps: an error with the numbers. */
static gchar *
push_error (const gchar *caps, const gchar *downstream, GstBuffer *buf)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  GstBus *bus = watch (h->element);
  gchar *text;

  if (downstream)
    gst_harness_set_sink_caps_str (h, downstream);
  gst_harness_set_src_caps_str (h, caps);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  unwatch (h->element, bus);
  gst_harness_teardown (h);
  return text;
}

GST_START_TEST (test_stream_errors)
{
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0 };
  gint strides[GST_VIDEO_MAX_PLANES] = { 5 };
  GstBuffer *b;
  gchar *text;

  b = pattern_buffer (64, 0);
  gst_buffer_add_video_meta_full (b, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_RGB, 4, 3, 1, offsets, strides);
  text = push_error (
      "video/x-raw,format=RGB,width=4,height=3,framerate=0/1", NULL, b);
  tn_assert_contains (
      text, "Video rows of 5 bytes are shorter than 4 pixels of 3 bytes.");
  g_free (text);

  text = push_error ("tensor/x-raw,type=uint8,dims=<2,3,3>,"
                     "dims-order=row-major,framerate=0/1",
      "video/x-raw,format=RGB", pattern_buffer (5, 0));
  tn_assert_contains (
      text, "buffer holds 5 bytes; caps uint8 <2, 3, 3> need 18");
  g_free (text);

  text = push_error ("tensor/x-raw,type=int16,dims=<4,2>,"
                     "dims-order=row-major,framerate=12000/1",
      "audio/x-raw", pattern_buffer (20, 0));
  tn_assert_contains (text, "buffer holds 20 bytes; caps int16 <4, 2> need 16");
  g_free (text);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("tensorconvert", NULL);
  GParamSpecInt *fr = G_PARAM_SPEC_INT (
      g_object_class_find_property (G_OBJECT_GET_CLASS (e), "frames"));
  GParamSpec *bc
      = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "bytes-copied");
  gboolean gray;
  gint frames;

  g_object_get (e, "gray-channel-axis", &gray, "frames", &frames, NULL);
  fail_unless (!gray);
  fail_unless_equals_int (frames, 1024);
  /* Every int reaches the element, which refuses those below 1 at start
   * (test_frames_refused): GLib would refuse them with only a warning. */
  fail_unless_equals_int (fr->minimum, G_MININT);
  fail_unless_equals_int (fr->maximum, G_MAXINT);
  fail_unless (!(bc->flags & G_PARAM_WRITABLE));
  fail_unless_equals_uint64 (bytes_copied (e), 0);
  g_object_set (e, "frames", 7, NULL);
  g_object_get (e, "frames", &frames, NULL);
  fail_unless_equals_int (frames, 7);
  gst_object_unref (e);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A shared frame that is just the tensor's bytes, with no metas, goes on
 * as it is (nothing to change, as passthrough would); with a GstVideoMeta
 * a new buffer over the same memory drops it, and the frame keeps it. */
GST_START_TEST (test_shared_frame)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  GstBuffer *frame, *tensor;

  gst_harness_set_src_caps_str (
      h, "video/x-raw,format=RGBA,width=4,height=3,framerate=0/1");
  frame = pattern_buffer (48, 0);
  gst_harness_push (h, gst_buffer_ref (frame));
  tensor = gst_harness_pull (h);
  fail_unless (tensor == frame);
  fail_unless (gst_tn_buffer_get_layout_meta (tensor) == NULL);
  gst_buffer_unref (tensor);
  gst_buffer_unref (frame);

  frame = pattern_buffer (48, 0);
  gst_buffer_add_video_meta (
      frame, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_RGBA, 4, 3);
  GST_BUFFER_PTS (frame) = 5;
  GST_BUFFER_DURATION (frame) = 6;
  gst_harness_push (h, gst_buffer_ref (frame));
  tensor = gst_harness_pull (h);
  fail_unless (tensor != frame);
  fail_unless (address (tensor) == address (frame));
  fail_unless_equals_uint64 (gst_buffer_get_size (tensor), 48);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (tensor), 5);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (tensor), 6);
  fail_unless (gst_buffer_get_video_meta (tensor) == NULL);
  fail_unless (gst_buffer_get_video_meta (frame) != NULL);
  fail_unless_equals_uint64 (bytes_copied (h->element), 0);
  gst_buffer_unref (tensor);
  gst_buffer_unref (frame);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A shared frame with padded rows, for a reader of strides: a new buffer
 * over the whole memory with every timestamp, the layout meta on it and
 * none on the frame. */
GST_START_TEST (test_shared_padded_frame)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  GstBuffer *frame, *tensor;
  GstTnLayoutMeta *lm;

  gst_harness_add_propose_allocation_meta (
      h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  /* RGB of width 5: rows of 15 bytes at a pitch of 16. */
  gst_harness_set_src_caps_str (
      h, "video/x-raw,format=RGB,width=5,height=2,framerate=0/1");
  frame = pattern_buffer (32, 0);
  GST_BUFFER_PTS (frame) = 5;
  GST_BUFFER_DTS (frame) = 4;
  GST_BUFFER_DURATION (frame) = 6;
  GST_BUFFER_OFFSET (frame) = 7;
  GST_BUFFER_OFFSET_END (frame) = 8;
  for (gint round = 0; round < 2; round++) {
    gst_harness_push (h, gst_buffer_ref (frame));
    tensor = gst_harness_pull (h);
    fail_unless (tensor != frame);
    fail_unless (address (tensor) == address (frame));
    fail_unless_equals_uint64 (gst_buffer_get_size (tensor), 32);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (tensor), 5);
    fail_unless_equals_uint64 (GST_BUFFER_DTS (tensor), 4);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (tensor), 6);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (tensor), 7);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (tensor), 8);
    lm = gst_tn_buffer_get_layout_meta (tensor);
    fail_unless (lm != NULL);
    fail_unless_equals_int64 (lm->offset, 0);
    fail_unless_equals_int64 (lm->strides[0], 16);
    fail_unless_equals_int64 (lm->strides[1], 3);
    fail_unless_equals_int64 (lm->strides[2], 1);
    fail_unless (gst_tn_buffer_get_layout_meta (frame) == NULL);
    gst_buffer_unref (tensor);
  }
  fail_unless_equals_uint64 (bytes_copied (h->element), 0);
  gst_buffer_unref (frame);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A tensor whose layout meta reaches past its buffer is refused in words,
 * not read. */
GST_START_TEST (test_tensor_meta_out_of_range)
{
  static const gint64 strides[3] = { 16, 3, 1 };
  GstBuffer *b = pattern_buffer (20, 0);
  gchar *text;

  gst_tn_buffer_add_layout_meta (b, 3, 0, strides);
  text = push_error ("tensor/x-raw,type=uint8,dims=<2,5,3>,"
                     "dims-order=row-major,framerate=0/1",
      "video/x-raw,format=RGB", b);
  /* The last item is 16 + 4 x 3 + 2. */
  tn_assert_contains (text, "reaches item 30, but the storage holds 20 items");
  g_free (text);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- Collecting what reaches a sink ------------------------------------ */

typedef struct {
  GPtrArray *bufs; /* every buffer at the sink pad of "out", in order */
  gchar *sink_caps, *src_caps; /* of the element named "c", if any */
} Got;

static GstPadProbeReturn
record (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  g_ptr_array_add (data, gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info)));
  return GST_PAD_PROBE_OK;
}

static gchar *
pad_caps (GstElement *e, const gchar *pad)
{
  GstPad *p = gst_element_get_static_pad (e, pad);
  GstCaps *caps = gst_pad_get_current_caps (p);
  gchar *str = caps ? gst_caps_to_string (caps) : NULL;

  if (caps)
    gst_caps_unref (caps);
  gst_object_unref (p);
  return str;
}

/* Runs launch to EOS, recording the buffers that reach the sink pad of the
 * element named "out" (an appsink is drained as an application would:
 * it posts EOS only once emptied).  Returns the pipeline, stopped, for
 * its properties. */
static GstElement *
run_got (const gchar *launch, Got *got)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (launch, &err);
  GstElement *out, *c;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg = NULL;
  gboolean app;

  fail_unless (pipe != NULL, "%s: %s", launch, err ? err->message : "?");
  got->bufs
      = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);
  got->sink_caps = got->src_caps = NULL;
  out = gst_bin_get_by_name (GST_BIN (pipe), "out");
  fail_unless (out != NULL, "%s has no element named out", launch);
  pad = gst_element_get_static_pad (out, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, record, got->bufs, NULL);
  gst_object_unref (pad);
  app = g_str_equal (
      GST_OBJECT_NAME (gst_element_get_factory (out)), "appsink");
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
                   != GST_STATE_CHANGE_FAILURE,
      "%s", launch);
  for (gint i = 0; i < 200 && msg == NULL; i++) {
    if (app) {
      GstSample *smp = NULL;

      do {
        g_signal_emit_by_name (out, "try-pull-sample", (guint64) 0, &smp);
        if (smp)
          gst_sample_unref (smp);
      } while (smp != NULL);
    }
    msg = gst_bus_timed_pop_filtered (
        bus, 50 * GST_MSECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  }
  fail_unless (msg != NULL, "%s: no EOS within 10 s", launch);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    fail ("%s: %s", launch, err->message);
  }
  gst_message_unref (msg);
  c = gst_bin_get_by_name (GST_BIN (pipe), "c");
  if (c) {
    got->sink_caps = pad_caps (c, "sink");
    got->src_caps = pad_caps (c, "src");
    gst_object_unref (c);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (out);
  return pipe;
}

static void
got_clear (Got *got)
{
  g_ptr_array_unref (got->bufs);
  g_free (got->sink_caps);
  g_free (got->src_caps);
}

/* The bytes of every buffer of launch's sink, one after the other. */
static GBytes *
sink_bytes (const gchar *launch)
{
  GByteArray *all = g_byte_array_new ();
  GstElement *p;
  Got got;

  p = run_got (launch, &got);
  for (guint i = 0; i < got.bufs->len; i++) {
    GstMapInfo map;

    fail_unless (
        gst_buffer_map (g_ptr_array_index (got.bufs, i), &map, GST_MAP_READ));
    g_byte_array_append (all, map.data, map.size);
    gst_buffer_unmap (g_ptr_array_index (got.bufs, i), &map);
  }
  got_clear (&got);
  gst_object_unref (p);
  return g_byte_array_free_to_bytes (all);
}

static void
assert_bytes_equal (GBytes *got, const guint8 *want, gsize n, const gchar *what)
{
  gsize len;
  const guint8 *g = g_bytes_get_data (got, &len);

  fail_unless_equals_uint64 (len, n);
  for (gsize i = 0; i < n; i++)
    fail_unless (g[i] == want[i], "%s: byte %" G_GSIZE_FORMAT " is %u, not %u",
        what, i, g[i], want[i]);
}

static void
assert_caps_in (const gchar *caps, const gchar *want)
{
  GstCaps *a, *b;

  fail_unless (caps != NULL, "no caps where %s was expected", want);
  a = gst_caps_from_string (caps);
  b = gst_caps_from_string (want);
  fail_unless (gst_caps_is_subset (a, b), "%s is not %s", caps, want);
  gst_caps_unref (a);
  gst_caps_unref (b);
}

/* ---- Defaults (issue 11, point 5) -------------------------------------- */

/* Nothing between videotestsrc and tensorconvert: RGB, the frame as it
 * is, not GRAY8 (which the first format of the old table gave). */
GST_START_TEST (test_default_video)
{
  GBytes *raw = sink_bytes ("videotestsrc num-buffers=1 ! "
                            "video/x-raw,format=RGB ! appsink name=out");
  GstElement *p;
  GstMapInfo map;
  Got got;

  p = run_got ("videotestsrc num-buffers=1 ! tensorconvert name=c ! "
               "appsink name=out",
      &got);
  assert_caps_in (got.sink_caps, "video/x-raw,format=RGB,width=320,height=240");
  assert_caps_in (got.src_caps, "tensor/x-raw,type=uint8,dims=<240,320,3>,"
                                "framerate=30/1");
  fail_unless_equals_int (got.bufs->len, 1);
  /* 320 x 3 is a multiple of 4: RGB rows carry no padding. */
  fail_unless (
      gst_buffer_map (g_ptr_array_index (got.bufs, 0), &map, GST_MAP_READ));
  assert_bytes_equal (raw, map.data, map.size, "default video tensor");
  gst_buffer_unmap (g_ptr_array_index (got.bufs, 0), &map);
  fail_unless_equals_uint64 (copied_in (p, "c"), 0);
  got_clear (&got);
  gst_object_unref (p);
  g_bytes_unref (raw);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Nothing between audiotestsrc and tensorconvert: float32, the samples as
 * audiotestsrc makes them in F32LE, not int8. */
GST_START_TEST (test_default_audio)
{
  GBytes *raw = sink_bytes ("audiotestsrc num-buffers=2 ! "
                            "audio/x-raw,format=F32LE ! appsink name=out");
  GstElement *p;
  GByteArray *all = g_byte_array_new ();
  Got got;

  p = run_got ("audiotestsrc num-buffers=2 ! tensorconvert name=c ! "
               "appsink name=out",
      &got);
  assert_caps_in (got.sink_caps, "audio/x-raw,format=F32LE,rate=44100,"
                                 "channels=1");
  assert_caps_in (got.src_caps, "tensor/x-raw,type=float32,dims=<1024,1>,"
                                "framerate=11025/256");
  fail_unless_equals_int (got.bufs->len, 2);
  for (guint i = 0; i < got.bufs->len; i++) {
    GstMapInfo map;

    fail_unless (
        gst_buffer_map (g_ptr_array_index (got.bufs, i), &map, GST_MAP_READ));
    g_byte_array_append (all, map.data, map.size);
    gst_buffer_unmap (g_ptr_array_index (got.bufs, i), &map);
  }
  assert_bytes_equal (raw, all->data, all->len, "default audio tensors");
  fail_unless_equals_uint64 (copied_in (p, "c"), 0);
  g_byte_array_unref (all);
  got_clear (&got);
  gst_object_unref (p);
  g_bytes_unref (raw);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* What downstream asks of the tensor picks the media format upstream;
 * and the way back, the tables' preference over downstream's order. */
GST_START_TEST (test_defaults_follow_downstream)
{
  static const struct {
    const gchar *launch, *sink, *src;
  } cases[] = {
    { "videotestsrc num-buffers=1 ! tensorconvert name=c ! "
      "tensor/x-raw,type=uint8,dims=<240,320,3> ! fakesink name=out",
        "video/x-raw,format=RGB", NULL },
    { "videotestsrc num-buffers=1 ! tensorconvert name=c ! "
      "tensor/x-raw,dims=<240,320,4> ! fakesink name=out",
        "video/x-raw,format=RGBA", NULL },
    { "videotestsrc num-buffers=1 ! tensorconvert name=c ! "
      "tensor/x-raw,dims=<240,320> ! fakesink name=out",
        "video/x-raw,format=GRAY8", NULL },
    { "videotestsrc num-buffers=1 ! tensorconvert name=c ! "
      "tensor/x-raw,type=uint16 ! fakesink name=out",
        "video/x-raw,format=GRAY16_LE", NULL },
    { "audiotestsrc num-buffers=1 ! tensorconvert name=c ! "
      "tensor/x-raw,type=float32 ! fakesink name=out",
        "audio/x-raw,format=F32LE", NULL },
    { "audiotestsrc num-buffers=1 ! tensorconvert name=c ! "
      "tensor/x-raw,type=int16 ! fakesink name=out",
        "audio/x-raw,format=S16LE", NULL },
    { "audiotestsrc num-buffers=1 ! tensorconvert name=c ! "
      "tensor/x-raw,type=float64 ! fakesink name=out",
        "audio/x-raw,format=F64LE", NULL },
    /* smptealpha lists ARGB before RGBA: a tensor does not say its
     * channel order, and labelling RGBA bytes ARGB would swap them. */
    { "tensorsrc num-buffers=1 ! tensor/x-raw,type=uint8,dims=<48,64,4> ! "
      "tensorconvert name=c ! smptealpha ! fakesink name=out",
        NULL, "video/x-raw,format=RGBA,width=64,height=48" },
    { "tensorsrc num-buffers=1 ! tensor/x-raw,type=uint8,dims=<48,64,3> ! "
      "tensorconvert name=c ! video/x-raw,format={BGR,RGB} ! "
      "fakesink name=out",
        NULL, "video/x-raw,format=RGB" },
    /* Followed when downstream takes only another format. */
    { "tensorsrc num-buffers=1 ! tensor/x-raw,type=uint8,dims=<48,64,3> ! "
      "tensorconvert name=c ! avimux ! fakesink name=out",
        NULL, "video/x-raw,format=BGR" },
    { "tensorsrc num-buffers=1 ! tensor/x-raw,type=uint8,dims=<48,64> ! "
      "tensorconvert name=c ! videoconvert ! fakesink name=out",
        NULL, "video/x-raw,format=GRAY8" },
    { "tensorsrc num-buffers=1 ! tensor/x-raw,type=int16,dims=<1024,2> ! "
      "tensorconvert name=c ! audioconvert ! fakesink name=out",
        NULL, "audio/x-raw,format=S16LE,channels=2,rate=30720" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    Got got;
    GstElement *p = run_got (cases[i].launch, &got);

    if (cases[i].sink)
      assert_caps_in (got.sink_caps, cases[i].sink);
    if (cases[i].src)
      assert_caps_in (got.src_caps, cases[i].src);
    got_clear (&got);
    gst_object_unref (p);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- Alignment (issue 12, point 7) ------------------------------------- */

/* Audio in buffers of 63 bytes, F32LE stereo (8-byte frames), 4 frames a
 * tensor: tensor k starts at stream byte 32k, inside buffer 32k / 63 at
 * byte 32k % 63.  By reference exactly when it lies inside that buffer
 * at a multiple of 4 bytes; otherwise one copy.  Every tensor, copied or
 * not, at an address a float can be loaded from, with the stream's bytes. */
GST_START_TEST (test_audio_misaligned)
{
  GstHarness *h = conv_harness ("frames", 4);
  GByteArray *stream = g_byte_array_new ();
  GstBuffer *in[20];
  guint64 want_copied = 0;
  gint k;

  gst_harness_set_src_caps_str (h, "audio/x-raw,format=F32LE,rate=8000,"
                                   "channels=2,layout=interleaved");
  for (gint i = 0; i < 20; i++) {
    GstMapInfo map;

    in[i] = pattern_buffer (63, i);
    /* The test relies on the input itself starting aligned. */
    fail_unless ((guintptr) address (in[i]) % 4 == 0);
    gst_buffer_map (in[i], &map, GST_MAP_READ);
    g_byte_array_append (stream, map.data, 63);
    gst_buffer_unmap (in[i], &map);
    fail_unless_equals_int (
        gst_harness_push (h, gst_buffer_ref (in[i])), GST_FLOW_OK);
  }
  /* 20 x 63 = 1260 bytes: 39 whole tensors of 32. */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 39);
  for (k = 0; k < 39; k++) {
    GstBuffer *t = gst_harness_pull (h);
    gsize start = 32 * (gsize) k, b = start / 63, off = start % 63;
    gboolean shared = off + 32 <= 63 && off % 4 == 0;
    GstMapInfo map;

    fail_unless (gst_buffer_map (t, &map, GST_MAP_READ));
    fail_unless ((guintptr) map.data % 4 == 0,
        "tensor %d (stream byte %" G_GSIZE_FORMAT ") at address %p", k, start,
        map.data);
    fail_unless_equals_uint64 (map.size, 32);
    fail_unless (memcmp (map.data, stream->data + start, 32) == 0,
        "tensor %d differs from stream bytes %" G_GSIZE_FORMAT "..", k, start);
    gst_buffer_unmap (t, &map);
    if (shared)
      fail_unless (address (t) == address (in[b]) + off,
          "tensor %d was copied although it lies aligned in buffer "
          "%" G_GSIZE_FORMAT,
          k, b);
    else
      want_copied += 32;
    gst_buffer_unref (t);
  }
  fail_unless_equals_uint64 (bytes_copied (h->element), want_copied);
  /* 5 of the 39 lie aligned inside one buffer. */
  fail_unless_equals_uint64 (want_copied, (39 - 5) * 32);
  for (gint i = 0; i < 20; i++)
    gst_buffer_unref (in[i]);
  g_byte_array_unref (stream);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The reproduction, as a pipeline: tensorop loads floats from
 * every tensor (UBSan reported each misaligned load before). */
GST_START_TEST (test_audio_misaligned_pipeline)
{
  GstElement *p;
  Got got;

  p = run_got ("fakesrc sizetype=fixed sizemax=63 filltype=zero "
               "num-buffers=20 ! capsfilter caps=\"audio/x-raw,format=F32LE,"
               "layout=interleaved,rate=8000,channels=2\" ! tensorconvert "
               "name=c frames=4 ! tensorop ops=mul:2 ! appsink name=out",
      &got);
  fail_unless_equals_int (got.bufs->len, 39);
  for (guint k = 0; k < got.bufs->len; k++) {
    GstMapInfo map;

    fail_unless (
        gst_buffer_map (g_ptr_array_index (got.bufs, k), &map, GST_MAP_READ));
    fail_unless ((guintptr) map.data % 4 == 0, "tensor %u at %p", k, map.data);
    fail_unless_equals_uint64 (map.size, 32);
    for (gsize i = 0; i < 8; i++)
      fail_unless (((const gfloat *) map.data)[i] == 0.0f);
    gst_buffer_unmap (g_ptr_array_index (got.bufs, k), &map);
  }
  /* Copied: the 34 tensors that are not aligned inside one buffer (as in
   * test_audio_misaligned; fakesrc's memory starts aligned). */
  fail_unless_equals_uint64 (copied_in (p, "c"), 34 * 32);
  got_clear (&got);
  gst_object_unref (p);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A sub-buffer starting at byte 1 of a fresh (aligned) buffer: its data
 * lies at an odd address. */
static GstBuffer *
odd_buffer (gsize size, guint seed)
{
  GstBuffer *big = pattern_buffer (size + 1, seed);
  GstBuffer *b = gst_buffer_copy_region (big, GST_BUFFER_COPY_MEMORY, 1, size);

  gst_buffer_unref (big);
  fail_unless ((guintptr) address (b) % 2 == 1);
  return b;
}

/* GRAY16_LE frames at an odd address (dense rows, and padded rows for a
 * reader of strides) or at an odd pitch: one dense copy, at an even
 * address, with the frame's rows. */
GST_START_TEST (test_video_misaligned)
{
  static const struct {
    gint w, h, stride; /* stride 0: the default one */
    gboolean odd, meta;
  } cases[] = {
    { 4, 3, 0, TRUE, FALSE }, { 4, 3, 0, TRUE, TRUE },
    { 3, 2, 0, TRUE, TRUE },  /* rows of 6 bytes at a pitch of 8 */
    { 3, 2, 7, FALSE, TRUE }, /* pitch 7: every other row odd */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstHarness *h = gst_harness_new ("tensorconvert");
    gint w = cases[i].w, hh = cases[i].h;
    gsize row = (gsize) w * 2, stride, size;
    GstBuffer *frame, *t;
    GstMapInfo a, b;
    gchar *caps;
    GstVideoInfo vi;

    gst_video_info_set_format (&vi, GST_VIDEO_FORMAT_GRAY16_LE, w, hh);
    stride = cases[i].stride ? (gsize) cases[i].stride
                             : (gsize) GST_VIDEO_INFO_PLANE_STRIDE (&vi, 0);
    size = stride * (hh - 1) + row;
    if (cases[i].meta)
      gst_harness_add_propose_allocation_meta (
          h, GST_TN_LAYOUT_META_API_TYPE, NULL);
    caps = g_strdup_printf ("video/x-raw,format=GRAY16_LE,width=%d,height=%d,"
                            "framerate=0/1",
        w, hh);
    gst_harness_set_src_caps_str (h, caps);
    g_free (caps);
    frame = cases[i].odd ? odd_buffer (GST_VIDEO_INFO_SIZE (&vi), i)
                         : pattern_buffer (size, i);
    if (cases[i].stride) {
      gsize offsets[GST_VIDEO_MAX_PLANES] = { 0 };
      gint strides[GST_VIDEO_MAX_PLANES] = { cases[i].stride };

      gst_buffer_add_video_meta_full (frame, GST_VIDEO_FRAME_FLAG_NONE,
          GST_VIDEO_FORMAT_GRAY16_LE, w, hh, 1, offsets, strides);
    }
    fail_unless_equals_int (
        gst_harness_push (h, gst_buffer_ref (frame)), GST_FLOW_OK);
    t = gst_harness_pull (h);
    fail_unless (gst_tn_buffer_get_layout_meta (t) == NULL, "case %u", i);
    fail_unless (gst_buffer_map (t, &b, GST_MAP_READ));
    fail_unless ((guintptr) b.data % 2 == 0, "case %u: at %p", i, b.data);
    fail_unless_equals_uint64 (b.size, row * hh);
    fail_unless (gst_buffer_map (frame, &a, GST_MAP_READ));
    for (gint y = 0; y < hh; y++)
      fail_unless (memcmp (b.data + y * row, a.data + y * stride, row) == 0,
          "case %u: row %d differs", i, y);
    gst_buffer_unmap (frame, &a);
    gst_buffer_unmap (t, &b);
    fail_unless_equals_uint64 (bytes_copied (h->element), row * hh);
    gst_buffer_unref (t);
    gst_buffer_unref (frame);
    gst_harness_teardown (h);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Tensors to media from an odd address: one copy, at an even one; a dense
 * run at an aligned offset inside its buffer is shared, and not counted
 * as copied (it was before, though no byte moved). */
GST_START_TEST (test_tensor_to_media_misaligned)
{
  GstHarness *h;
  GstBuffer *in, *out;
  GstMapInfo a, b;

  /* int16 <4, 2> to audio, at an odd address. */
  h = gst_harness_new ("tensorconvert");
  gst_harness_set_sink_caps_str (h, "audio/x-raw");
  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=int16,dims=<4,2>,"
                                   "dims-order=row-major,framerate=2000/1");
  in = odd_buffer (16, 1);
  gst_harness_push (h, gst_buffer_ref (in));
  out = gst_harness_pull (h);
  fail_unless (gst_buffer_map (out, &b, GST_MAP_READ));
  fail_unless (gst_buffer_map (in, &a, GST_MAP_READ));
  fail_unless ((guintptr) b.data % 2 == 0, "audio at %p", b.data);
  fail_unless_equals_uint64 (b.size, 16);
  fail_unless (memcmp (a.data, b.data, 16) == 0);
  gst_buffer_unmap (in, &a);
  gst_buffer_unmap (out, &b);
  fail_unless_equals_uint64 (bytes_copied (h->element), 16);
  gst_buffer_unref (out);
  gst_buffer_unref (in);

  /* The same tensor 4 items into a 24-byte buffer: shared. */
  {
    static const gint64 strides[2] = { 2, 1 };

    in = pattern_buffer (24, 2);
    gst_tn_buffer_add_layout_meta (in, 2, 4, strides);
    gst_harness_push (h, gst_buffer_ref (in));
    out = gst_harness_pull (h);
    fail_unless (address (out) == address (in) + 8);
    fail_unless_equals_uint64 (gst_buffer_get_size (out), 16);
    fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL);
    fail_unless_equals_uint64 (bytes_copied (h->element), 16);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (h);

  /* uint16 <2, 2> to GRAY16_LE (rows of 4 bytes, the default pitch), at an
   * odd address: it would have been passed on as it is. */
  h = gst_harness_new ("tensorconvert");
  gst_harness_set_sink_caps_str (h, "video/x-raw");
  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=uint16,dims=<2,2>,"
                                   "dims-order=row-major,framerate=0/1");
  in = odd_buffer (8, 3);
  gst_harness_push (h, gst_buffer_ref (in));
  out = gst_harness_pull (h);
  fail_unless (gst_buffer_map (out, &b, GST_MAP_READ));
  fail_unless (gst_buffer_map (in, &a, GST_MAP_READ));
  fail_unless ((guintptr) b.data % 2 == 0, "video at %p", b.data);
  fail_unless_equals_uint64 (b.size, 8);
  fail_unless (memcmp (a.data, b.data, 8) == 0);
  gst_buffer_unmap (in, &a);
  gst_buffer_unmap (out, &b);
  fail_unless_equals_uint64 (bytes_copied (h->element), 8);
  gst_buffer_unref (out);
  gst_buffer_unref (in);

  /* Transposed (pixels not dense) at an odd address: read as bytes.
   * Pixel (y, x) is storage item x * 2 + y, bytes 2(2x + y) and one on. */
  {
    static const gint64 strides[2] = { 1, 2 };

    in = odd_buffer (8, 4);
    gst_tn_buffer_add_layout_meta (in, 2, 0, strides);
    gst_harness_push (h, gst_buffer_ref (in));
    out = gst_harness_pull (h);
    fail_unless (gst_buffer_map (out, &b, GST_MAP_READ));
    fail_unless (gst_buffer_map (in, &a, GST_MAP_READ));
    for (gint y = 0; y < 2; y++)
      for (gint x = 0; x < 2; x++)
        fail_unless (
            memcmp (b.data + y * 4 + x * 2, a.data + 2 * (2 * x + y), 2) == 0,
            "pixel (%d, %d) differs", y, x);
    gst_buffer_unmap (in, &a);
    gst_buffer_unmap (out, &b);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- Properties (issue 11, point 2) ------------------------------------ */

/* frames below 1 stops the pipeline at the state change, naming the
 * element, the property and the value; GLib's range used to refuse it
 * with a warning and run with 1024. */
GST_START_TEST (test_frames_refused)
{
  static const gchar *values[] = { "0", "-3", "-2147483648" };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++) {
    gchar *launch = g_strdup_printf (
        "audiotestsrc num-buffers=1 ! tensorconvert name=c frames=%s ! "
        "fakesink",
        values[i]);
    gchar *from = NULL, *text = run_error (launch, &from);
    gchar *want = g_strdup_printf ("c: frames=\"%s\" cannot be used: a tensor "
                                   "needs 1 or more audio frames",
        values[i]);

    tn_assert_contains (text, want);
    fail_unless_equals_string (from, "c");
    g_free (want);
    g_free (text);
    g_free (from);
    g_free (launch);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Both properties shape the caps of a running stream: set while running
 * they warn and keep the value in use. */
GST_START_TEST (test_properties_while_running)
{
  GstHarness *h = conv_harness ("frames", 4);
  gboolean gray = TRUE;
  gint frames = 0;

  gst_harness_set_src_caps_str (h, "audio/x-raw,format=S16LE,rate=8000,"
                                   "channels=1,layout=interleaved");
  gst_harness_push (h, pattern_buffer (8, 0));
  gst_buffer_unref (gst_harness_pull (h));
  ASSERT_WARNING (g_object_set (h->element, "frames", 7, NULL));
  ASSERT_WARNING (g_object_set (h->element, "gray-channel-axis", TRUE, NULL));
  g_object_get (
      h->element, "frames", &frames, "gray-channel-axis", &gray, NULL);
  fail_unless_equals_int (frames, 4);
  fail_unless (!gray);
  /* Still tensors of 4 frames. */
  gst_harness_push (h, pattern_buffer (8, 0));
  {
    GstBuffer *t = gst_harness_pull (h);

    fail_unless_equals_uint64 (gst_buffer_get_size (t), 8);
    gst_buffer_unref (t);
  }
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- Views only for readers of them (issue 11, point 1) ---------------- */

/* Padded rows (RGB of width 321: 963 bytes at a pitch of 964) through
 * each sink that reads dense tensors only, directly or behind an element
 * that passes buffers on: the bytes the sink gets are the dense array,
 * copied once by tensorconvert.  Behind a reader of the layout meta
 * (npyenc, tensorreduce, and tensordebug before one): nothing copied, and
 * the result still that of the dense array. */
GST_START_TEST (test_views_only_for_meta_readers)
{
  static const gchar *dense_only[] = {
    "filesink location=%s",
    "tensordebug output=log ! filesink location=%s",
    "appsink name=out",
    "fakesink name=out",
    "tensordebug output=log ! appsink name=out",
    "identity ! appsink name=out",
    "queue ! appsink name=out",
    "tee ! appsink name=out",
    "capsfilter caps=tensor/x-raw ! appsink name=out",
    "tensordebug output=log ! queue ! fakesink name=out",
  };
  const gsize w = 321, hh = 10, row = w * 3, pitch = 964;
  GBytes *raw
      = sink_bytes ("videotestsrc num-buffers=1 ! video/x-raw,"
                    "format=RGB,width=321,height=10 ! appsink name=out");
  const guint8 *r = g_bytes_get_data (raw, NULL);
  guint8 *dense = g_malloc (row * hh);
  gchar *dir = g_dir_make_tmp ("tconv-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "out.bin", NULL);
  guint64 sums[3] = { 0, 0, 0 };

  fail_unless_equals_uint64 (g_bytes_get_size (raw), pitch * hh);
  for (gsize y = 0; y < hh; y++)
    memcpy (dense + y * row, r + y * pitch, row);
  for (gsize i = 0; i < row * hh; i++)
    sums[i % 3] += dense[i];

  for (guint i = 0; i < G_N_ELEMENTS (dense_only); i++) {
    gchar *tail = g_strdup_printf (dense_only[i], file);
    gchar *launch = g_strdup_printf (
        "videotestsrc num-buffers=1 ! video/x-raw,format=RGB,width=321,"
        "height=10 ! tensorconvert name=c ! %s",
        tail);
    GByteArray *bytes = g_byte_array_new ();
    GstElement *p;
    GBytes *got;

    if (strstr (tail, "name=out")) {
      Got g;

      p = run_got (launch, &g);
      for (guint k = 0; k < g.bufs->len; k++) {
        GstBuffer *buf = g_ptr_array_index (g.bufs, k);
        GstMapInfo map;

        fail_unless (gst_tn_buffer_get_layout_meta (buf) == NULL, "%s", launch);
        fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
        g_byte_array_append (bytes, map.data, map.size);
        gst_buffer_unmap (buf, &map);
      }
      got_clear (&g);
    } else {
      gchar *data;
      gsize len;

      p = run (launch);
      fail_unless (g_file_get_contents (file, &data, &len, NULL));
      g_byte_array_append (bytes, (const guint8 *) data, len);
      g_free (data);
    }
    got = g_byte_array_free_to_bytes (bytes);
    assert_bytes_equal (got, dense, row * hh, launch);
    g_bytes_unref (got);
    fail_unless_equals_uint64 (copied_in (p, "c"), row * hh);
    gst_object_unref (p);
    g_free (launch);
    g_free (tail);
  }

  /* npyenc reads strides and writes the dense array after its header. */
  for (gint debug = 0; debug < 2; debug++) {
    gchar *launch = g_strdup_printf (
        "videotestsrc num-buffers=1 ! video/x-raw,format=RGB,width=321,"
        "height=10 ! tensorconvert name=c ! %snpyenc ! filesink location=%s",
        debug ? "tensordebug output=log ! " : "", file);
    GstElement *p = run (launch);
    GBytes *body;
    Npy got;

    fail_unless_equals_uint64 (copied_in (p, "c"), 0);
    gst_object_unref (p);
    npy_read (&got, file);
    fail_unless_equals_int (got.major, 1);
    body = g_bytes_new (got.data, got.size);
    assert_bytes_equal (body, dense, row * hh, launch);
    g_bytes_unref (body);
    npy_clear (&got);
    g_free (launch);
  }

  /* tensorreduce sums the channels over the strided view itself. */
  {
    GstElement *p;
    GstMapInfo map;
    Got got;

    p = run_got ("videotestsrc num-buffers=1 ! video/x-raw,format=RGB,"
                 "width=321,height=10 ! tensorconvert name=c ! tensordebug "
                 "output=log ! tensorreduce op=sum axes=0,1 ! appsink name=out",
        &got);
    fail_unless_equals_uint64 (copied_in (p, "c"), 0);
    fail_unless_equals_int (got.bufs->len, 1);
    fail_unless (
        gst_buffer_map (g_ptr_array_index (got.bufs, 0), &map, GST_MAP_READ));
    fail_unless_equals_uint64 (map.size, 3 * 8);
    for (gint c = 0; c < 3; c++)
      fail_unless_equals_uint64 (((const guint64 *) map.data)[c], sums[c]);
    gst_buffer_unmap (g_ptr_array_index (got.bufs, 0), &map);
    got_clear (&got);
    gst_object_unref (p);
  }

  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (dir);
  g_free (dense);
  g_bytes_unref (raw);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static gboolean
proposes (GstQuery *q, GType api)
{
  return gst_query_find_allocation_meta (q, api, NULL);
}

/* The ALLOCATION query upstream of a harnessed tensorconvert whose
 * downstream offers every meta of apis. */
static GstQuery *
proposal (const gchar *in_caps, const GType *apis, guint n)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  GstCaps *caps = gst_caps_from_string (in_caps);
  GstQuery *q;

  for (guint i = 0; i < n; i++)
    gst_harness_add_propose_allocation_meta (h, apis[i], NULL);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  q = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  return q;
}

/* Upstream is offered the metas tensorconvert reads itself, and of
 * downstream's only those that survive the conversion: a crop meta would
 * have upstream leave a crop that tensorconvert drops, and GstBaseTransform
 * forwarded it (with the layout meta, to a video source). */
GST_START_TEST (test_proposal_own_metas_only)
{
  const GType apis[] = { GST_TN_LAYOUT_META_API_TYPE, GST_VIDEO_META_API_TYPE,
    GST_VIDEO_CROP_META_API_TYPE, GST_REFERENCE_TIMESTAMP_META_API_TYPE };
  GstQuery *q;

  q = proposal ("video/x-raw,format=RGB,width=5,height=2,framerate=0/1", apis,
      G_N_ELEMENTS (apis));
  fail_unless (proposes (q, GST_VIDEO_META_API_TYPE));
  fail_if (proposes (q, GST_TN_LAYOUT_META_API_TYPE));
  fail_if (proposes (q, GST_VIDEO_CROP_META_API_TYPE));
  fail_unless (proposes (q, GST_REFERENCE_TIMESTAMP_META_API_TYPE));
  gst_query_unref (q);

  /* Without anything downstream: the video meta still, since
   * tensorconvert reads it. */
  q = proposal (
      "video/x-raw,format=RGB,width=5,height=2,framerate=0/1", NULL, 0);
  fail_unless (proposes (q, GST_VIDEO_META_API_TYPE));
  fail_if (proposes (q, GST_TN_LAYOUT_META_API_TYPE));
  gst_query_unref (q);

  /* Tensors to video: the layout meta, read and turned into a video meta
   * or a copy; not downstream's video meta. */
  q = proposal ("tensor/x-raw,type=uint8,dims=<2,5,3>,dims-order=row-major,"
                "framerate=0/1",
      apis + 1, 3);
  fail_unless (proposes (q, GST_TN_LAYOUT_META_API_TYPE));
  fail_if (proposes (q, GST_VIDEO_META_API_TYPE));
  fail_if (proposes (q, GST_VIDEO_CROP_META_API_TYPE));
  gst_query_unref (q);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- Documentation (issue 11, point 6) --------------------------------- */

/* The example launch lines of the SECTION block of elements/<file>, as a
 * shell would see them: " * " dropped, backslash-newlines joined. */

static GstPadProbeReturn
record_bytes (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  GstMapInfo map;

  gst_buffer_map (GST_PAD_PROBE_INFO_BUFFER (info), &map, GST_MAP_READ);
  g_byte_array_append (data, map.data, map.size);
  gst_buffer_unmap (GST_PAD_PROBE_INFO_BUFFER (info), &map);
  return GST_PAD_PROBE_OK;
}

/* Runs one documented command in the current directory as gst-launch-1.0
 * would (gst_parse_launchv of its arguments), to EOS; the bytes reaching
 * its fakesink, if it has one, go to sunk. */
static void
doc_run (const gchar *cmd, GByteArray *sunk)
{
  gchar **argv = NULL;
  GError *err = NULL;
  GstElement *p;
  GstIterator *it;
  GValue v = G_VALUE_INIT;

  fail_unless (g_shell_parse_argv (cmd, NULL, &argv, &err), "%s: %s", cmd,
      err ? err->message : "?");
  fail_unless_equals_string (argv[0], "gst-launch-1.0");
  p = gst_parse_launchv ((const gchar **) argv + 1, &err);
  fail_unless (
      p != NULL && err == NULL, "%s: %s", cmd, err ? err->message : "?");
  it = gst_bin_iterate_all_by_element_factory_name (GST_BIN (p), "fakesink");
  if (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstPad *pad = gst_element_get_static_pad (g_value_get_object (&v), "sink");

    fail_unless (sunk != NULL, "%s has a fakesink", cmd);
    gst_pad_add_probe (
        pad, GST_PAD_PROBE_TYPE_BUFFER, record_bytes, sunk, NULL);
    gst_object_unref (pad);
    g_value_unset (&v);
  }
  gst_iterator_free (it);
  tn_play_to_eos (p, cmd, 30);
  g_strfreev (argv);
}

/* Every example launch line of the SECTION block, run as printed in a
 * fresh directory, each checked against what its text says, with
 * expectations from the sources alone (no tensorconvert in them). */
GST_START_TEST (test_doc_launch_lines)
{
  gchar **cmds = tn_doc_commands ("tensorconvert.c");
  gchar *dir = g_dir_make_tmp ("tconv-doc-XXXXXX", NULL);
  gchar *cwd = g_get_current_dir ();
  GByteArray *sunk = g_byte_array_new ();
  GBytes *raw, *got;
  const guint8 *r;
  guint8 *want;
  gsize n;

  /* The fifth, NNStreamer's, is run by tensorconvert_nns.c. */
  fail_unless_equals_int (g_strv_length (cmds), 5);
  fail_unless (g_chdir (dir) == 0);

  /* 0: f.png is the test frame, RGB 320x240 (rows of 960 bytes, not
   * padded), through a tensor unchanged. */
  doc_run (cmds[0], NULL);
  raw = sink_bytes ("videotestsrc num-buffers=1 ! video/x-raw,format=RGB ! "
                    "appsink name=out");
  got = sink_bytes ("filesrc location=f.png ! pngdec ! "
                    "video/x-raw,format=RGB,width=320,height=240 ! "
                    "appsink name=out");
  r = g_bytes_get_data (raw, &n);
  assert_bytes_equal (got, r, n, "f.png");
  g_bytes_unref (got);
  g_bytes_unref (raw);

  /* 1: negative.png is 255 minus each byte of the 64x48 frame. */
  doc_run (cmds[1], NULL);
  raw = sink_bytes ("videotestsrc num-buffers=1 ! video/x-raw,format=RGB,"
                    "width=64,height=48 ! appsink name=out");
  got = sink_bytes ("filesrc location=negative.png ! pngdec ! "
                    "video/x-raw,format=RGB,width=64,height=48 ! "
                    "appsink name=out");
  r = g_bytes_get_data (raw, &n);
  want = g_malloc (n);
  for (gsize i = 0; i < n; i++)
    want[i] = 255 - r[i];
  assert_bytes_equal (got, want, n, "negative.png");
  g_free (want);
  g_bytes_unref (got);
  g_bytes_unref (raw);

  /* 2: the fakesink gets the F32LE stereo samples, 4 x 1024 frames. */
  doc_run (cmds[2], sunk);
  raw = sink_bytes ("audiotestsrc num-buffers=4 ! audio/x-raw,format=F32LE,"
                    "channels=2 ! appsink name=out");
  fail_unless_equals_uint64 (g_bytes_get_size (raw), 4 * 1024 * 2 * 4);
  got = g_bytes_new (sunk->data, sunk->len);
  r = g_bytes_get_data (raw, &n);
  assert_bytes_equal (got, r, n, "stereo tensors");
  g_bytes_unref (got);
  g_bytes_unref (raw);

  /* 3: half.wav holds every F32LE sample of audiotestsrc halved (exact in
   * float32). */
  doc_run (cmds[3], NULL);
  raw = sink_bytes ("audiotestsrc num-buffers=4 ! audio/x-raw,format=F32LE ! "
                    "appsink name=out");
  got = sink_bytes ("filesrc location=half.wav ! wavparse ! "
                    "audio/x-raw,format=F32LE,channels=1,rate=44100 ! "
                    "appsink name=out");
  {
    const gfloat *a = g_bytes_get_data (raw, &n);
    gsize m;
    const gfloat *b = g_bytes_get_data (got, &m);

    fail_unless_equals_uint64 (n, 4 * 1024 * 4);
    fail_unless_equals_uint64 (m, n);
    for (gsize i = 0; i < n / 4; i++)
      fail_unless (b[i] == a[i] * 0.5f,
          "sample %" G_GSIZE_FORMAT ": %.9g, "
          "not %.9g",
          i, b[i], a[i] * 0.5f);
  }
  g_bytes_unref (got);
  g_bytes_unref (raw);

  fail_unless (g_chdir (cwd) == 0);
  {
    static const gchar *files[] = { "f.png", "negative.png", "half.wav" };

    for (guint i = 0; i < G_N_ELEMENTS (files); i++) {
      gchar *f = g_build_filename (dir, files[i], NULL);

      fail_unless (g_unlink (f) == 0, "%s was not written", files[i]);
      g_free (f);
    }
  }
  fail_unless (g_rmdir (dir) == 0, "%s holds files no line documents", dir);
  g_byte_array_unref (sunk);
  g_free (dir);
  g_free (cwd);
  g_strfreev (cmds);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* gst-inspect prints the description (one sentence, no launch line) and,
 * beside each blurb, the range and default: a blurb does not repeat them. */
GST_START_TEST (test_inspect_text)
{
  GstElementFactory *f = gst_element_factory_find ("tensorconvert");
  GstElement *e = gst_element_factory_make ("tensorconvert", NULL);
  const gchar *desc;
  GParamSpec **props;
  guint n;

  desc = gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_DESCRIPTION);
  fail_unless (strstr (desc, "gst-launch") == NULL, "%s", desc);
  fail_unless (strchr (desc, '!') == NULL, "%s", desc);
  fail_unless (strchr (desc, '.') == NULL, "%s: more than one sentence", desc);
  fail_unless (strlen (desc) < 120, "%s", desc);
  props = g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);
  for (guint i = 0; i < n; i++) {
    const gchar *blurb = g_param_spec_get_blurb (props[i]);
    gchar *low;

    if (props[i]->owner_type != G_OBJECT_TYPE (e))
      continue;
    low = g_ascii_strdown (blurb, -1);
    fail_unless (
        strstr (low, "default") == NULL, "%s: %s", props[i]->name, blurb);
    fail_unless (strstr (low, "2147483647") == NULL
                     && strstr (low, "2^64") == NULL
                     && strstr (low, "read-only") == NULL,
        "%s: %s", props[i]->name, blurb);
    g_free (low);
  }
  g_free (props);
  gst_object_unref (e);
  gst_object_unref (f);
}

GST_END_TEST;

static Suite *
tensorconvert_suite (void)
{
  Suite *s = suite_create ("tensorconvert");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_video_round_trip);
  tcase_add_test (tc, test_video_meta_input);
  tcase_add_test (tc, test_writable_frame_passed_on);
  tcase_add_test (tc, test_shared_frame);
  tcase_add_test (tc, test_shared_padded_frame);
  tcase_add_test (tc, test_tensor_meta_out_of_range);
  tcase_add_test (tc, test_tensor_to_video_meta);
  tcase_add_test (tc, test_tensor_to_video_strided);
  tcase_add_test (tc, test_audio_round_trip);
  tcase_add_test (tc, test_audio_across_buffers);
  tcase_add_test (tc, test_gray_channel_axis);
  tcase_add_test (tc, test_negotiation_errors);
  tcase_add_test (tc, test_caps_both_directions);
  tcase_add_test (tc, test_videotestsrc);
  tcase_add_test (tc, test_refusal_behind_capsfilter);
  tcase_add_test (tc, test_short_frame);
  tcase_add_test (tc, test_stream_errors);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_default_video);
  tcase_add_test (tc, test_default_audio);
  tcase_add_test (tc, test_defaults_follow_downstream);
  tcase_add_test (tc, test_audio_misaligned);
  tcase_add_test (tc, test_audio_misaligned_pipeline);
  tcase_add_test (tc, test_video_misaligned);
  tcase_add_test (tc, test_tensor_to_media_misaligned);
  tcase_add_test (tc, test_frames_refused);
  tcase_add_test (tc, test_properties_while_running);
  tcase_add_test (tc, test_views_only_for_meta_readers);
  tcase_add_test (tc, test_proposal_own_metas_only);
  tcase_add_test (tc, test_doc_launch_lines);
  tcase_add_test (tc, test_inspect_text);
  return s;
}

GST_CHECK_MAIN (tensorconvert);
