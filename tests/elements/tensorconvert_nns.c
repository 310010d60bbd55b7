/* tensorconvert and NNStreamer's caps: other/tensor and
 * other/tensors,format=static to tensor/x-raw and back, by reference.
 *
 * The NNStreamer caps strings below are the ones NNStreamer 2.7.0 (commit
 * 5b13ea6) printed with gst-launch-1.0 -v (docs/caps.md, "NNStreamer
 * caps"):
 *   videotestsrc ! video/x-raw,format=RGB,width=640,height=480,
 *     framerate=30/1 ! tensor_converter ! fakesink
 *   ... ! tensor_converter ! other/tensor ! fakesink
 *   ... format=GRAY8,width=64,height=48 ! tensor_converter ! fakesink
 *   audiotestsrc ! audio/x-raw,format=S16LE,channels=2,rate=16000
 *     ! tensor_converter frames-per-tensor=160 ! fakesink
 *   ... ! tensor_converter ! tensor_transform mode=typecast option=float32
 *   ... ! tensor_converter ! tee, one branch cast to float32, ! tensor_mux
 * Expectations are the rule of docs/caps.md applied by hand: the extents
 * of the dimension string reversed, the type name kept. */
#include <string.h>

#include <glib/gstdio.h>

#include <gst/app/app.h>
#include <gst/check/gstharness.h>

#include "common/tncheck.h"

static const gchar *const nns_rgb
    = "other/tensors, format=(string)static, num_tensors=(int)1, "
      "framerate=(fraction)30/1, dimensions=(string)3:640:480:1, "
      "types=(string)uint8";
static const gchar *const nns_rgb_single
    = "other/tensor, framerate=(fraction)30/1, dimension=(string)3:640:480:1, "
      "type=(string)uint8";
static const gchar *const nns_gray
    = "other/tensors, format=(string)static, num_tensors=(int)1, "
      "framerate=(fraction)30/1, dimensions=(string)1:64:48:1, "
      "types=(string)uint8";
static const gchar *const nns_audio
    = "other/tensors, format=(string)static, num_tensors=(int)1, "
      "framerate=(fraction)16000/1, dimensions=(string)2:160, "
      "types=(string)int16";
static const gchar *const nns_cast
    = "other/tensor, framerate=(fraction)30/1, dimension=(string)3:64:48:1, "
      "type=(string)float32";
static const gchar *const nns_mux
    = "other/tensors, format=(string)static, num_tensors=(int)2, "
      "framerate=(fraction)30/1, dimensions=(string)\"3:64:48:1\\,3:64:48:1\", "
      "types=(string)\"uint8\\,float32\"";

static GstMemory *
pattern_memory (gsize size, guint seed)
{
  GstAllocator *alloc = gst_tn_allocator_get ();
  GstMemory *m = gst_allocator_alloc (alloc, size, NULL);
  GstMapInfo map;

  gst_object_unref (alloc);
  gst_memory_map (m, &map, GST_MAP_WRITE);
  for (gsize i = 0; i < size; i++)
    map.data[i] = (guint8) (i * 37 + 11 + seed);
  gst_memory_unmap (m, &map);
  return m;
}

static GstHarness *
conv_harness (gint index)
{
  GstElement *e = gst_element_factory_make ("tensorconvert", NULL);
  GstHarness *h;

  g_object_set (e, "tensor-index", index, NULL);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  return h;
}

static guint64
bytes_copied (GstElement *e)
{
  guint64 v;

  g_object_get (e, "bytes-copied", &v, NULL);
  return v;
}

static void
assert_caps (GstHarness *h, const gchar *want)
{
  GstCaps *got = gst_pad_get_current_caps (h->sinkpad);
  GstCaps *w = gst_caps_from_string (want);

  fail_unless (got != NULL, "no caps, expected %s", want);
  fail_unless (gst_caps_is_equal (got, w), "caps %s, expected %s",
      gst_caps_to_string (got), want);
  gst_caps_unref (got);
  gst_caps_unref (w);
}

/* Each caps string NNStreamer writes becomes the tensor the rule says,
 * the memory passed on as it is: the same address, the same bytes. */
GST_START_TEST (test_from_nnstreamer)
{
  static const struct {
    const gchar *nns;
    gint index;
    guint ntensors;
    gsize sizes[2];
    const gchar *want;
  } cases[] = {
    { nns_rgb, -1, 1, { 640 * 480 * 3 },
        "tensor/x-raw, type=uint8, dims=<1, 480, 640, 3>, "
        "dims-order=row-major, framerate=30/1" },
    { nns_rgb_single, -1, 1, { 640 * 480 * 3 },
        "tensor/x-raw, type=uint8, dims=<1, 480, 640, 3>, "
        "dims-order=row-major, framerate=30/1" },
    { nns_gray, -1, 1, { 64 * 48 },
        "tensor/x-raw, type=uint8, dims=<1, 48, 64, 1>, dims-order=row-major, "
        "framerate=30/1" },
    { nns_audio, -1, 1, { 160 * 2 * 2 },
        "tensor/x-raw, type=int16, dims=<160, 2>, dims-order=row-major, "
        "framerate=16000/1" },
    { nns_cast, -1, 1, { 64 * 48 * 3 * 4 },
        "tensor/x-raw, type=float32, dims=<1, 48, 64, 3>, "
        "dims-order=row-major, framerate=30/1" },
    { nns_mux, 0, 2, { 64 * 48 * 3, 64 * 48 * 3 * 4 },
        "tensor/x-raw, type=uint8, dims=<1, 48, 64, 3>, dims-order=row-major, "
        "framerate=30/1" },
    { nns_mux, 1, 2, { 64 * 48 * 3, 64 * 48 * 3 * 4 },
        "tensor/x-raw, type=float32, dims=<1, 48, 64, 3>, "
        "dims-order=row-major, framerate=30/1" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstHarness *h = conv_harness (cases[i].index);
    GstBuffer *in = gst_buffer_new (), *out;
    GstMemory *mems[2];
    gint pick = MAX (cases[i].index, 0);
    GstMapInfo a, b;

    for (guint k = 0; k < cases[i].ntensors; k++) {
      mems[k] = pattern_memory (cases[i].sizes[k], k);
      gst_buffer_append_memory (in, gst_memory_ref (mems[k]));
    }
    GST_BUFFER_PTS (in) = 5 * GST_SECOND;
    gst_harness_set_src_caps_str (h, cases[i].nns);
    out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL, "case %u", i);
    assert_caps (h, cases[i].want);
    fail_unless_equals_int (gst_buffer_n_memory (out), 1);
    fail_unless (tn_memory_address (gst_buffer_peek_memory (out, 0))
                     == tn_memory_address (mems[pick]),
        "case %u: tensor %d was copied", i, pick);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 5 * GST_SECOND);
    gst_buffer_map (out, &a, GST_MAP_READ);
    gst_memory_map (mems[pick], &b, GST_MAP_READ);
    fail_unless_equals_uint64 (a.size, cases[i].sizes[pick]);
    fail_unless (memcmp (a.data, b.data, a.size) == 0);
    gst_memory_unmap (mems[pick], &b);
    gst_buffer_unmap (out, &a);
    fail_unless_equals_uint64 (bytes_copied (h->element), 0);
    gst_buffer_unref (out);
    for (guint k = 0; k < cases[i].ntensors; k++)
      gst_memory_unref (mems[k]);
    gst_harness_teardown (h);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A tensor becomes the caps NNStreamer would write for it, in the
 * spelling downstream asks for, its memory passed on as it is. */
GST_START_TEST (test_to_nnstreamer)
{
  static const struct {
    const gchar *tensor, *downstream, *want;
    gsize size;
  } cases[] = {
    { "tensor/x-raw,type=uint8,dims=<480,640,3>,framerate=30/1",
        "other/tensors",
        "other/tensors, format=static, num_tensors=1, types=uint8, "
        "dimensions=3:640:480, framerate=30/1",
        640 * 480 * 3 },
    { "tensor/x-raw,type=uint8,dims=<480,640,3>,framerate=30/1", "other/tensor",
        "other/tensor, type=uint8, dimension=3:640:480, framerate=30/1",
        640 * 480 * 3 },
    /* NNStreamer's own spelling of a video frame, asked for by name. */
    { "tensor/x-raw,type=uint8,dims=<480,640,3>,framerate=30/1",
        "other/tensors,dimensions=3:640:480:1",
        "other/tensors, format=static, num_tensors=1, types=uint8, "
        "dimensions=3:640:480:1, framerate=30/1",
        640 * 480 * 3 },
    { "tensor/x-raw,type=uint8,dims=<1,480,640,3>,framerate=30/1",
        "other/tensors,dimensions=3:640:480",
        "other/tensors, format=static, num_tensors=1, types=uint8, "
        "dimensions=3:640:480, framerate=30/1",
        640 * 480 * 3 },
    /* Types no media format has; a rank-0 tensor is one item, "1". */
    { "tensor/x-raw,type=float16,dims=<2,3,5>", "other/tensors",
        "other/tensors, format=static, num_tensors=1, types=float16, "
        "dimensions=5:3:2, framerate=0/1",
        2 * 3 * 5 * 2 },
    { "tensor/x-raw,type=uint64,dims=<>", "other/tensor",
        "other/tensor, type=uint64, dimension=(string)1, framerate=0/1", 8 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstHarness *h = gst_harness_new ("tensorconvert");
    GstMemory *m = pattern_memory (cases[i].size, i);
    GstBuffer *in = gst_buffer_new (), *out;

    gst_buffer_append_memory (in, gst_memory_ref (m));
    gst_harness_set_sink_caps_str (h, cases[i].downstream);
    gst_harness_set_src_caps_str (h, cases[i].tensor);
    out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL, "case %u", i);
    assert_caps (h, cases[i].want);
    fail_unless_equals_int (gst_buffer_n_memory (out), 1);
    fail_unless (tn_memory_address (gst_buffer_peek_memory (out, 0))
                     == tn_memory_address (m),
        "case %u: copied", i);
    fail_unless_equals_uint64 (gst_buffer_get_size (out), cases[i].size);
    fail_unless_equals_uint64 (bytes_copied (h->element), 0);
    gst_buffer_unref (out);
    gst_memory_unref (m);
    gst_harness_teardown (h);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Runs launch (an appsrc "in", an appsink "out") with one buffer of n
 * pattern bytes; returns what out received, its caps in *caps, and the
 * address of the buffer pushed in *addr. */
static GstBuffer *
run_one (const gchar *launch, gsize n, GstCaps **caps, const guint8 **addr)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (launch, &err);
  GstElement *src, *sink;
  GstMemory *m = pattern_memory (n, 3);
  GstBuffer *in = gst_buffer_new (), *out;
  GstSample *s;

  fail_unless (
      p != NULL && err == NULL, "%s: %s", launch, err ? err->message : "?");
  src = gst_bin_get_by_name (GST_BIN (p), "in");
  sink = gst_bin_get_by_name (GST_BIN (p), "out");
  *addr = tn_memory_address (m);
  gst_buffer_append_memory (in, m);
  gst_element_set_state (p, GST_STATE_PLAYING);
  fail_unless_equals_int (
      gst_app_src_push_buffer (GST_APP_SRC (src), in), GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 10 * GST_SECOND);
  fail_unless (s != NULL, "%s gave nothing", launch);
  out = gst_buffer_ref (gst_sample_get_buffer (s));
  *caps = gst_caps_ref (gst_sample_get_caps (s));
  gst_sample_unref (s);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (p);
  return out;
}

/* Capsfilters on either side, minimal or full, through appsrc and appsink:
 * what they ask for is what comes, in either spelling of the dims. */
GST_START_TEST (test_capsfilters)
{
  static const struct {
    const gchar *launch, *want;
    gsize n;
  } cases[] = {
    { "appsrc name=in caps=\"%s\" ! tensorconvert ! appsink name=out",
        "tensor/x-raw, type=uint8, dims=<1, 480, 640, 3>, "
        "dims-order=row-major, framerate=30/1",
        640 * 480 * 3 },
    { "appsrc name=in caps=\"%s\" ! tensorconvert "
      "! tensor/x-raw,dims=<480,640,3> ! appsink name=out",
        "tensor/x-raw, type=uint8, dims=<480, 640, 3>, "
        "dims-order=row-major, framerate=30/1",
        640 * 480 * 3 },
    { "appsrc name=in caps=\"%s\" ! tensorconvert "
      "! tensor/x-raw,type=uint8,dims=<480,640,3>,dims-order=row-major,"
      "framerate=30/1 ! appsink name=out",
        "tensor/x-raw, type=uint8, dims=<480, 640, 3>, "
        "dims-order=row-major, framerate=30/1",
        640 * 480 * 3 },
    { "appsrc name=in caps=tensor/x-raw,type=uint8,dims=<480,640,3>,"
      "framerate=30/1 ! tensorconvert ! other/tensors ! appsink name=out",
        "other/tensors, format=static, num_tensors=1, types=uint8, "
        "dimensions=3:640:480, framerate=30/1",
        640 * 480 * 3 },
    { "appsrc name=in caps=tensor/x-raw,type=uint8,dims=<480,640,3>,"
      "framerate=30/1 ! tensorconvert ! capsfilter caps=\"%s\" "
      "! appsink name=out",
        nns_rgb, 640 * 480 * 3 },
    { "appsrc name=in caps=tensor/x-raw,type=uint8,dims=<480,640,3> "
      "! tensorconvert ! other/tensor ! tensorconvert "
      "! tensor/x-raw,dims=<1,480,640,3> ! appsink name=out",
        "tensor/x-raw, type=uint8, dims=<1, 480, 640, 3>, "
        "dims-order=row-major, framerate=0/1",
        640 * 480 * 3 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *launch = g_strdup_printf (cases[i].launch, nns_rgb);
    const guint8 *addr;
    GstCaps *caps, *want = gst_caps_from_string (cases[i].want);
    GstBuffer *out = run_one (launch, cases[i].n, &caps, &addr);

    fail_unless (gst_caps_is_equal (caps, want), "%s: caps %s, expected %s",
        launch, gst_caps_to_string (caps), cases[i].want);
    fail_unless_equals_int (gst_buffer_n_memory (out), 1);
    fail_unless (tn_memory_address (gst_buffer_peek_memory (out, 0)) == addr,
        "%s copied", launch);
    fail_unless_equals_uint64 (gst_buffer_get_size (out), cases[i].n);
    gst_buffer_unref (out);
    gst_caps_unref (caps);
    gst_caps_unref (want);
    g_free (launch);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Caps queries see through tensorconvert both ways: what a tensor
 * capsfilter downstream allows is the NNStreamer caps upstream can send,
 * and the other way round. */
GST_START_TEST (test_caps_queries)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  GstCaps *caps, *want;

  gst_harness_set_sink_caps_str (h, "tensor/x-raw,type=uint8,dims=<48,64,3>");
  caps = gst_pad_peer_query_caps (h->srcpad, NULL);
  for (guint i = 0; i < 4; i++) {
    static const gchar *ok[] = {
      "other/tensors,format=static,num_tensors=1,types=uint8,"
      "dimensions=3:64:48:1",
      "other/tensors,format=static,num_tensors=1,types=uint8,"
      "dimensions=3:64:48",
      "other/tensor,type=uint8,dimension=3:64:48:1",
      "video/x-raw,format=RGB,width=64,height=48",
    };

    want = gst_caps_from_string (ok[i]);
    fail_unless (gst_caps_can_intersect (caps, want), "%s lacks %s",
        gst_caps_to_string (caps), ok[i]);
    gst_caps_unref (want);
  }
  want = gst_caps_from_string ("other/tensors,format=static,num_tensors=1,"
                               "types=uint8,dimensions=64:48:3");
  fail_if (gst_caps_can_intersect (caps, want));
  gst_caps_unref (want);
  gst_caps_unref (caps);
  gst_harness_teardown (h);

  h = gst_harness_new ("tensorconvert");
  gst_harness_set_sink_caps_str (h,
      "other/tensors,format=static,num_tensors=1,types=float32,"
      "dimensions=(string)10:1");
  caps = gst_pad_peer_query_caps (h->srcpad, NULL);
  want = gst_caps_from_string ("tensor/x-raw,type=float32,dims=<10>");
  fail_unless (
      gst_caps_can_intersect (caps, want), "%s", gst_caps_to_string (caps));
  gst_caps_unref (want);
  want = gst_caps_from_string ("tensor/x-raw,type=float32,dims=<1,1,10>");
  fail_unless (gst_caps_can_intersect (caps, want));
  gst_caps_unref (want);
  /* NNStreamer's own spelling first. */
  want = gst_caps_from_string ("tensor/x-raw,type=float32,dims=<1,10>");
  fail_unless (gst_structure_can_intersect (gst_caps_get_structure (caps, 0),
                   gst_caps_get_structure (want, 0)),
      "%s", gst_caps_to_string (caps));
  gst_caps_unref (want);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Caps that cannot be mapped: refused, naming what came and what would
 * do. */
static gchar *
caps_error (gint index, const gchar *caps, const gchar *downstream)
{
  GstHarness *h = conv_harness (index);
  GstBus *bus = tn_bus_watch (h->element);
  GstCaps *c = gst_caps_from_string (caps);
  GstSegment seg;
  gchar *text;

  fail_unless (c != NULL && gst_caps_is_fixed (c), "%s", caps);
  if (downstream)
    gst_harness_set_sink_caps_str (h, downstream);
  gst_harness_push_event (h, gst_event_new_stream_start ("s"));
  gst_harness_push_event (h, gst_event_new_caps (c));
  gst_caps_unref (c);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new ()), GST_FLOW_NOT_NEGOTIATED);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  fail_unless (text != NULL, "no error for %s", caps);
  tn_bus_unwatch (h->element, bus);
  gst_harness_teardown (h);
  return text;
}

GST_START_TEST (test_errors)
{
  static const struct {
    gint index;
    const gchar *caps, *downstream, *want[3];
  } errs[] = {
    { -1, "other/tensors,format=flexible,framerate=30/1", NULL,
        { "format=flexible", "format=static" } },
    { -1, "other/tensors,format=sparse,framerate=30/1", NULL,
        { "format=sparse", "format=static" } },
    { -1, nns_mux, NULL,
        { "carries 2 tensors", "3:64:48:1,3:64:48:1",
            "tensor-index to 0 to 1" } },
    { 2, nns_mux, NULL,
        { "tensor-index 2 is out of range", "2 tensors", "0 to 1" } },
    { -1,
        "other/tensors,format=static,num_tensors=1,types=complex64,"
        "dimensions=(string)3:4",
        NULL, { "type 'complex64'", "float16" } },
    { -1, "other/tensor,type=uint8,dimension=3:0:4", NULL,
        { "dimension \"3:0:4\"", "from 1 to" } },
    { -1, "other/tensor,type=uint8,dimension=(string)3:a", NULL,
        { "dimension \"3:a\"", "innermost first" } },
    { -1, "other/tensor,type=uint8,dimension=2:2:2:2:2:2:2:2:2", NULL,
        { "9 axes", "at most 8" } },
    { -1,
        "other/tensors,format=static,num_tensors=2,types=uint8,"
        "dimensions=(string)3:4",
        NULL, { "num_tensors=2", "(1)", "one of each per tensor" } },
    /* No NNStreamer type: named when downstream asks for NNStreamer. */
    { -1, "tensor/x-raw,type=bool,dims=<2,3>", "other/tensors",
        { "bool <2, 3>", "has no NNStreamer caps", "float16" } },
    { -1, "tensor/x-raw,type=uint8,dims=<0,3>", "other/tensor",
        { "uint8 <0, 3>", "an extent of 0" } },
    /* Before a sink of any caps a tensor of no media format stays an
     * error: NNStreamer's caps are made only when asked for. */
    { -1, "tensor/x-raw,type=float32,dims=<2,3,5>", NULL,
        { "fits no media format" } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (errs); i++) {
    gchar *text = caps_error (errs[i].index, errs[i].caps, errs[i].downstream);

    for (guint k = 0; k < G_N_ELEMENTS (errs[i].want) && errs[i].want[k]; k++)
      tn_assert_contains (text, errs[i].want[k]);
    g_free (text);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Ten extents whose outer two are 1 fit in eight axes: the same bytes. */
GST_START_TEST (test_outer_ones_past_rank_8)
{
  GstHarness *h = conv_harness (-1);
  GstBuffer *out;

  gst_harness_set_src_caps_str (
      h, "other/tensor,type=uint8,dimension=3:2:1:1:1:1:1:1:1:1");
  out = gst_harness_push_and_pull (h, gst_buffer_new_allocate (NULL, 6, NULL));
  assert_caps (h, "tensor/x-raw,type=uint8,dims=<1,1,1,1,1,1,2,3>,"
                  "dims-order=row-major,framerate=0/1");
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* tensor-index below -1 is an error when the element starts. */
GST_START_TEST (test_tensor_index_property)
{
  GstElement *e = gst_element_factory_make ("tensorconvert", NULL);
  GstBus *bus = tn_bus_watch (e);
  gchar *text;
  gint v;

  g_object_get (e, "tensor-index", &v, NULL);
  fail_unless_equals_int (v, -1);
  g_object_set (e, "tensor-index", -2, NULL);
  fail_unless_equals_int (
      gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  tn_assert_contains (text, "tensor-index");
  tn_assert_contains (text, "-2");
  tn_assert_contains (text, "0 or more");
  g_free (text);
  gst_element_set_state (e, GST_STATE_NULL);
  tn_bus_unwatch (e, bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* A buffer that does not hold what the caps say: an error with sizes. */
GST_START_TEST (test_buffer_mismatch)
{
  GstHarness *h = conv_harness (1);
  GstBus *bus = tn_bus_watch (h->element);
  GstBuffer *in = gst_buffer_new ();
  gchar *text;

  gst_buffer_append_memory (in, pattern_memory (64 * 48 * 3, 0));
  gst_buffer_append_memory (in, pattern_memory (100, 1));
  gst_harness_set_src_caps_str (h, nns_mux);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  tn_assert_contains (text, "Tensor 1 of the buffer holds 100 bytes");
  tn_assert_contains (text, "36864");
  g_free (text);
  in = gst_buffer_new ();
  gst_buffer_append_memory (in, pattern_memory (64 * 48 * 3, 0));
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  tn_assert_contains (text, "1 memories came with caps of 2 tensors");
  g_free (text);
  tn_bus_unwatch (h->element, bus);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A view (tensorview permute) before NNStreamer is materialised once:
 * NNStreamer reads dense tensors.  The bytes are the transpose, computed
 * here by hand. */
GST_START_TEST (test_view_materialised)
{
  const gchar *launch
      = "appsrc name=in caps=tensor/x-raw,type=uint8,dims=<3,4> "
        "! tensorview ops=permute:1:0 ! tensorconvert name=c "
        "! other/tensors ! appsink name=out";
  const guint8 *addr;
  GstCaps *caps, *want = gst_caps_from_string (
                     "other/tensors,format=static,num_tensors=1,types=uint8,"
                     "dimensions=(string)3:4,framerate=0/1");
  GstBuffer *out = run_one (launch, 12, &caps, &addr);
  GstMapInfo map;

  fail_unless (gst_caps_is_equal (caps, want), "%s", gst_caps_to_string (caps));
  gst_buffer_map (out, &map, GST_MAP_READ);
  fail_unless_equals_uint64 (map.size, 12);
  /* in[r][c] = (4r + c) * 37 + 11 + 3; out[c][r] = in[r][c] */
  for (guint c = 0; c < 4; c++)
    for (guint r = 0; r < 3; r++)
      fail_unless_equals_int (
          map.data[c * 3 + r], (guint8) ((4 * r + c) * 37 + 14));
  fail_if (map.data == addr);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_caps_unref (caps);
  gst_caps_unref (want);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* NNStreamer reads a tensor from one memory: a tensor over two is copied
 * once into one; NNStreamer memory at an address float32 items cannot be
 * loaded from is copied once into aligned memory.  Bytes as they came. */
GST_START_TEST (test_copies)
{
  GstHarness *h = gst_harness_new ("tensorconvert");
  GstMemory *a = pattern_memory (4, 0), *b = pattern_memory (8, 4);
  GstBuffer *in = gst_buffer_new (), *out;
  GstMapInfo ma, mb, mo;
  guint8 *raw;

  gst_buffer_append_memory (in, gst_memory_ref (a));
  gst_buffer_append_memory (in, gst_memory_ref (b));
  gst_harness_set_sink_caps_str (h, "other/tensors");
  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=uint8,dims=<3,4>");
  out = gst_harness_push_and_pull (h, in);
  fail_unless_equals_int (gst_buffer_n_memory (out), 1);
  fail_unless_equals_uint64 (bytes_copied (h->element), 12);
  gst_buffer_map (out, &mo, GST_MAP_READ);
  gst_memory_map (a, &ma, GST_MAP_READ);
  gst_memory_map (b, &mb, GST_MAP_READ);
  fail_unless (memcmp (mo.data, ma.data, 4) == 0);
  fail_unless (memcmp (mo.data + 4, mb.data, 8) == 0);
  gst_memory_unmap (a, &ma);
  gst_memory_unmap (b, &mb);
  gst_buffer_unmap (out, &mo);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* float32 <2, 3> starting one byte into its memory. */
  h = gst_harness_new ("tensorconvert");
  raw = g_malloc (25);
  for (guint i = 0; i < 25; i++)
    raw[i] = (guint8) (i * 5 + 1);
  in = gst_buffer_new_wrapped_full (0, raw, 25, 1, 24, raw, g_free);
  gst_harness_set_src_caps_str (h, "other/tensor,type=float32,"
                                   "dimension=(string)3:2,framerate=0/1");
  out = gst_harness_push_and_pull (h, in);
  assert_caps (h, "tensor/x-raw,type=float32,dims=<2,3>,"
                  "dims-order=row-major,framerate=0/1");
  fail_unless_equals_uint64 (bytes_copied (h->element), 24);
  gst_buffer_map (out, &mo, GST_MAP_READ);
  fail_unless ((guintptr) mo.data % 4 == 0);
  /* raw went with the input buffer: its bytes by their formula. */
  for (guint i = 0; i < 24; i++)
    fail_unless_equals_int (mo.data[i], (guint8) ((i + 1) * 5 + 1));
  gst_buffer_unmap (out, &mo);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  gst_memory_unref (a);
  gst_memory_unref (b);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static GstPadProbeReturn
record_bytes (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMapInfo map;

  gst_buffer_map (b, &map, GST_MAP_READ);
  g_byte_array_append (data, map.data, map.size);
  gst_buffer_unmap (b, &map);
  return GST_PAD_PROBE_OK;
}

/* The NNStreamer launch line of the SECTION block (the fifth) runs as
 * printed: its fakesink gets the 64x48 RGB test frame. */
GST_START_TEST (test_doc_launch_line)
{
  gchar **cmds = tn_doc_commands ("tensorconvert.c");
  gchar **argv = NULL, *cwd = g_get_current_dir ();
  gchar *dir = g_dir_make_tmp ("tconv-nns-XXXXXX", NULL);
  GByteArray *sunk = g_byte_array_new ();
  GError *err = NULL;
  GstElement *p, *ref, *fs;
  GstBuffer *frame;
  GstSample *s;
  GstPad *pad;
  GstMapInfo map;

  fail_unless_equals_int (g_strv_length (cmds), 5);
  tn_assert_contains (cmds[4], "other/tensors");
  fail_unless (g_chdir (dir) == 0);
  fail_unless (g_shell_parse_argv (cmds[4], NULL, &argv, NULL));
  fail_unless_equals_string (argv[0], "gst-launch-1.0");
  p = gst_parse_launchv ((const gchar **) argv + 1, &err);
  fail_unless (p != NULL, "%s", err ? err->message : "?");
  fs = gst_bin_get_by_name (GST_BIN (p), "fakesink0");
  fail_unless (fs != NULL);
  pad = gst_element_get_static_pad (fs, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, record_bytes, sunk, NULL);
  gst_object_unref (pad);
  gst_object_unref (fs);
  tn_play_to_eos (p, cmds[4], 30);

  ref = gst_parse_launch ("videotestsrc num-buffers=1 ! video/x-raw,"
                          "format=RGB,width=64,height=48 ! appsink name=out",
      NULL);
  fs = gst_bin_get_by_name (GST_BIN (ref), "out");
  gst_element_set_state (ref, GST_STATE_PLAYING);
  s = gst_app_sink_try_pull_sample (GST_APP_SINK (fs), 10 * GST_SECOND);
  fail_unless (s != NULL);
  frame = gst_sample_get_buffer (s);
  gst_buffer_map (frame, &map, GST_MAP_READ);
  fail_unless_equals_uint64 (sunk->len, 64 * 48 * 3);
  fail_unless_equals_uint64 (map.size, 64 * 48 * 3);
  fail_unless (memcmp (sunk->data, map.data, map.size) == 0);
  gst_buffer_unmap (frame, &map);
  gst_sample_unref (s);
  gst_element_set_state (ref, GST_STATE_NULL);
  gst_object_unref (fs);
  gst_object_unref (ref);

  tn_tmp_dir_leave (dir, cwd);
  g_byte_array_unref (sunk);
  g_strfreev (argv);
  g_strfreev (cmds);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static Suite *
tensorconvert_nns_suite (void)
{
  Suite *s = suite_create ("tensorconvert_nns");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_from_nnstreamer);
  tcase_add_test (tc, test_to_nnstreamer);
  tcase_add_test (tc, test_capsfilters);
  tcase_add_test (tc, test_caps_queries);
  tcase_add_test (tc, test_errors);
  tcase_add_test (tc, test_outer_ones_past_rank_8);
  tcase_add_test (tc, test_tensor_index_property);
  tcase_add_test (tc, test_buffer_mismatch);
  tcase_add_test (tc, test_view_materialised);
  tcase_add_test (tc, test_copies);
  tcase_add_test (tc, test_doc_launch_line);
  return s;
}

GST_CHECK_MAIN (tensorconvert_nns);
