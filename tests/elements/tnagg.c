/* GstTnAggregator, the base of tensorstack, tensorconcat and
 * tensorcombine, through tensorstack on int32 <1> streams whose every
 * buffer carries its own number (1000 * pad + index), so each output
 * says which buffers were paired: equal rates one to one, sync=latest and
 * sync=timestamp with a 30 and a 7 fps stream, either on sink_0 (the
 * partner of every output, computed here from the timestamps), EOS on either
 * pad, live pipelines (numbered buffers; sync=latest with a pad that stalls
 * after its first buffer), a flushing seek (frames of equal noise: a stale
 * buffer pairs two), views read uncopied, one thread feeding every pad
 * (a tee without queues), caps changing mid-stream, pads
 * requested and released while PLAYING, and the direct hand-off (the
 * source threads push the outputs, and the task sleeps meanwhile). */
#include "common/aggpipe.h"

#include <sys/prctl.h>

static const GstTnInfo int32_1 = { TN_INT32, 1, { 1 }, 0, 1 };

static GstClockTime
pts_at (guint j, guint fps)
{
  return gst_util_uint64_scale (j, GST_SECOND, fps);
}

/* Buffer j of pad k at fps: value 1000 k + j, times of frame j. */
static GstBuffer *
numbered (guint k, guint j, guint fps)
{
  gint32 v = 1000 * (gint32) k + (gint32) j;
  GstBuffer *b = gst_buffer_new_memdup (&v, sizeof v);

  GST_BUFFER_PTS (b) = pts_at (j, fps);
  GST_BUFFER_DURATION (b) = pts_at (j + 1, fps) - pts_at (j, fps);
  return b;
}

/* n buffers at fps on pad k, then EOS. */
static void
stream (AggPipe *p, guint k, guint n, guint fps)
{
  aggpipe_caps (p, k, &int32_1);
  for (guint j = 0; j < n; j++)
    aggpipe_push (p, k, numbered (k, j, fps));
  aggpipe_eos (p, k);
}

/* Pulls an output of npads rows and gives its values and PTS. */
static gboolean
pull_values (AggPipe *p, guint npads, gint32 *v, GstClockTime *pts)
{
  GstTnInfo info;
  GstBuffer *b = aggpipe_pull (p, &info);
  GstMapInfo m;

  if (!b)
    return FALSE;
  fail_unless_equals_int (info.rank, 2);
  fail_unless_equals_int64 (info.dims[0], npads);
  fail_unless_equals_int64 (info.dims[1], 1);
  gst_buffer_map (b, &m, GST_MAP_READ);
  memcpy (v, m.data, npads * sizeof *v);
  gst_buffer_unmap (b, &m);
  if (pts)
    *pts = GST_BUFFER_PTS (b);
  gst_buffer_unref (b);
  return TRUE;
}

GST_START_TEST (test_equal_rate_one_to_one)
{
  AggPipe p;
  gint32 v[3];
  GstClockTime pts;

  aggpipe_new (&p, "tensorstack", 3);
  for (guint k = 0; k < 3; k++)
    stream (&p, k, 12, 30);
  aggpipe_play (&p);
  for (guint j = 0; j < 12; j++) {
    fail_unless (pull_values (&p, 3, v, &pts), "output %u missing", j);
    fail_unless_equals_int (v[0], j);
    fail_unless_equals_int (v[1], 1000 + j);
    fail_unless_equals_int (v[2], 2000 + j);
    fail_unless_equals_uint64 (pts, pts_at (j, 30));
  }
  fail_unless (!pull_values (&p, 3, v, NULL));
  fail_unless (aggpipe_wait (&p) == NULL);
  aggpipe_free (&p);
}

GST_END_TEST;

/* Time frame i of a fps0 stream shares with frame j of a fps1 one. */
static GstClockTime
shared (guint i, guint fps0, guint j, guint fps1)
{
  GstClockTime lo = MAX (pts_at (j, fps1), pts_at (i, fps0));
  GstClockTime hi = MIN (pts_at (j + 1, fps1), pts_at (i + 1, fps0));

  return hi > lo ? hi - lo : 0;
}

/* The partner of frame i of a fps0 stream among the n1 buffers of a fps1
 * one: with latest the newest that starts at or before it; with
 * timestamp the one sharing the most time with it, the earlier on a tie.
 * -1 when there is none. */
static gint
partner (guint i, guint fps0, guint n1, guint fps1, gboolean latest)
{
  GstClockTime most = 0;
  gint best = -1;

  for (guint j = 0; j < n1; j++) {
    GstClockTime sh = shared (i, fps0, j, fps1);

    if (latest && pts_at (j, fps1) <= pts_at (i, fps0))
      best = j;
    if (!latest && sh > most) {
      most = sh;
      best = j;
    }
  }
  return best;
}

/* Loop: even sync=latest, odd sync=timestamp.  0, 1: 30 fps on sink_0
 * (30 buffers), 7 fps on sink_1 with 7 buffers (all of the second) or 4
 * (ends at 571 ms).  2, 3: the other way round, 7 fps on sink_0 (7
 * buffers) and 30 fps on sink_1 with 30 buffers or 12 (ends at 400 ms):
 * with latest, sink_1's buffers between two of sink_0's are passed over
 * (the newest at or before each time, not the next in line). */
GST_START_TEST (test_30_and_7_fps)
{
  gboolean latest = __i__ % 2 == 0, swapped = __i__ >= 2;
  const guint fps0 = swapped ? 7 : 30, fps1 = swapped ? 30 : 7;
  const guint n0 = fps0, ns[2] = { swapped ? 12 : 4, fps1 };

  for (guint c = 0; c < 2; c++) {
    const guint n1 = ns[c];
    AggPipe p;
    gint32 v[2];
    GstClockTime pts;
    guint outputs = 0, want_outputs = 0;

    aggpipe_new (&p,
        latest ? "tensorstack sync=latest" : "tensorstack sync=timestamp", 2);
    stream (&p, 0, n0, fps0);
    stream (&p, 1, n1, fps1);
    aggpipe_play (&p);
    for (guint i = 0; i < n0; i++) {
      gint want = partner (i, fps0, n1, fps1, latest);

      if (want < 0) {
        /* timestamp: sink_1 ended and covers nothing more: EOS */
        fail_if (latest);
        break;
      }
      want_outputs++;
      fail_unless (pull_values (&p, 2, v, &pts), "%s, %u buffers: output %u",
          latest ? "latest" : "timestamp", n1, i);
      fail_unless_equals_int (v[0], i);
      /* timestamp: buffers of a faster sink_1 inside sink_0's share the
       * same time but for the rounding of their durations (33333333 or
       * 33333334 ns): any of them */
      fail_unless (
          latest ? v[1] == 1000 + want
                 : v[1] >= 1000 && v[1] < 1000 + (gint) n1
                       && shared (i, fps0, v[1] - 1000, fps1) + GST_USECOND
                              >= shared (i, fps0, want, fps1),
          "%s, %u fps and %u buffers at %u fps: output %u paired %d, not %d",
          latest ? "latest" : "timestamp", fps0, n1, fps1, i, v[1] - 1000,
          want);
      fail_unless_equals_uint64 (pts, pts_at (i, fps0));
      outputs++;
    }
    fail_unless (!pull_values (&p, 2, v, NULL), "an output too many");
    fail_unless (aggpipe_wait (&p) == NULL);
    /* latest: one output per sink_0 buffer; timestamp with 4 buffers at
     * 7 fps: those that start before 571 ms, frames 0 .. 17; with 12 at
     * 30 fps, those before 400 ms, frames 0 .. 2 */
    fail_unless_equals_int (outputs, want_outputs);
    fail_unless_equals_int (outputs, latest || c == 1 ? n0 : swapped ? 3 : 18);
    aggpipe_free (&p);
  }
}

GST_END_TEST;

/* EOS on sink_0 ends the output at once; on sink_1 (timestamp) once its
 * last buffer covers nothing. */
GST_START_TEST (test_eos_either_pad)
{
  for (guint first = 0; first < 2; first++) {
    AggPipe p;
    gint32 v[2];
    guint outputs = 0;

    aggpipe_new (&p, "tensorstack", 2);
    stream (&p, 0, first == 0 ? 5 : 20, 30);
    stream (&p, 1, first == 0 ? 20 : 5, 30);
    aggpipe_play (&p);
    while (pull_values (&p, 2, v, NULL)) {
      fail_unless_equals_int (v[0], outputs);
      fail_unless_equals_int (v[1], 1000 + outputs);
      outputs++;
    }
    fail_unless_equals_int (outputs, 5);
    fail_unless (aggpipe_wait (&p) == NULL);
    aggpipe_free (&p);
  }
}

GST_END_TEST;

/* sync=latest: a pad that ends before its first buffer is an error. */
GST_START_TEST (test_latest_empty_pad)
{
  AggPipe p;
  gchar *text;

  aggpipe_new (&p, "tensorstack sync=latest", 2);
  stream (&p, 0, 3, 30);
  stream (&p, 1, 0, 30);
  aggpipe_play (&p);
  text = aggpipe_wait (&p);
  fail_unless (text != NULL);
  fail_unless (
      strstr (text, "sink_1 ended before its first tensor"), "%s", text);
  g_free (text);
  aggpipe_free (&p);
}

GST_END_TEST;

/* Two live sources: one output per frame, paired, in real time.  They
 * start a little apart and push each frame at its own timestamp: the
 * latency property (one frame) is the time the element waits for a
 * partner, as in every aggregator. */
GST_START_TEST (test_live)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (
      "tensorsrc is-live=true pattern=fill value=1 num-buffers=6 "
      "! tensor/x-raw,type=int32,dims=<1>,framerate=30/1 ! s.sink_0 "
      "tensorsrc is-live=true pattern=fill value=2 num-buffers=6 "
      "! tensor/x-raw,type=int32,dims=<1>,framerate=30/1 ! s.sink_1 "
      "tensorstack name=s latency=33000000 ! appsink name=out sync=false",
      &err);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GstSample *s;
  guint outputs = 0;

  fail_unless (pipe != NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (;;) {
    GstMapInfo m;

    s = NULL;
    g_signal_emit_by_name (sink, "try-pull-sample", 5 * GST_SECOND, &s);
    if (!s)
      break;
    gst_buffer_map (gst_sample_get_buffer (s), &m, GST_MAP_READ);
    fail_unless_equals_uint64 (m.size, 8);
    fail_unless_equals_int (((gint32 *) m.data)[0], 1);
    fail_unless_equals_int (((gint32 *) m.data)[1], 2);
    gst_buffer_unmap (gst_sample_get_buffer (s), &m);
    gst_sample_unref (s);
    outputs++;
  }
  fail_unless_equals_int (outputs, 6);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Live appsrcs fed ahead of time with numbered buffers at 30 fps: pad
 * 0 gives n0 buffers then ends, pad 1 gives n1 and, when stall, then
 * neither sends more nor ends.  Each output is checked against the
 * partner the sync mode names (want1 (j): pad 1's number for output j). */
static void
check_live (const gchar *agg, guint n0, guint n1, gboolean stall,
    gint32 (*want1) (guint j))
{
  AggPipe p;
  gint32 v[2];
  GstClockTime pts;
  guint j = 0;

  aggpipe_new (&p, agg, 2);
  for (guint k = 0; k < 2; k++)
    g_object_set (p.src[k], "is-live", TRUE, NULL);
  aggpipe_caps (&p, 0, &int32_1);
  aggpipe_caps (&p, 1, &int32_1);
  for (guint i = 0; i < n0; i++)
    aggpipe_push (&p, 0, numbered (0, i, 30));
  aggpipe_eos (&p, 0);
  for (guint i = 0; i < n1; i++)
    aggpipe_push (&p, 1, numbered (1, i, 30));
  if (!stall)
    aggpipe_eos (&p, 1);
  aggpipe_play (&p);
  while (pull_values (&p, 2, v, &pts)) {
    fail_unless (j < n0, "output %u: sink_0 had %u buffers", j, n0);
    fail_unless_equals_uint64 (pts, pts_at (j, 30));
    fail_unless_equals_int (v[0], (gint32) j);
    fail_unless_equals_int (v[1], want1 (j));
    j++;
  }
  fail_unless_equals_int (j, n0);
  aggpipe_free (&p);
}

static gint32
same_frame (guint j)
{
  return 1000 + (gint32) j;
}

static gint32
first_frame (guint j)
{
  (void) j;
  return 1000;
}

/* Live, sync=timestamp: frame j with frame j of the other pad. */
GST_START_TEST (test_live_numbered)
{
  check_live ("tensorstack latency=33000000", 6, 6, FALSE, same_frame);
}

GST_END_TEST;

/* Live, sync=latest: a pad that delivered one buffer and then stalls
 * (no buffer, no EOS) is not waited on: every sink_0 buffer comes out,
 * with that one buffer. */
GST_START_TEST (test_live_latest_stalled)
{
  check_live (
      "tensorstack sync=latest latency=33000000", 5, 1, TRUE, first_frame);
}

GST_END_TEST;

/* Live, sync=latest: a pad whose newest buffer at or before sink_0's
 * time arrives after an older one, well before the deadline, gives that
 * newest buffer.  sink_0 has frames at 0 and 100 ms; sink_1 has 1000 at
 * 0, then, once the first output is out, 1001 at 50 ms and 30 ms later
 * 1002 at 100 ms; the latency is 300 ms.  The output at 100 ms is
 * [1, 1002].  (The element took whatever sink_1 held as soon as it had
 * drained the pad's queue, and gave [1, 1001].) */
GST_START_TEST (test_live_latest_newest)
{
  AggPipe p;
  gint32 v[2];
  GstClockTime pts;

  aggpipe_new (&p, "tensorstack sync=latest latency=300000000", 2);
  for (guint k = 0; k < 2; k++) {
    g_object_set (p.src[k], "is-live", TRUE, NULL);
    aggpipe_caps (&p, k, &int32_1);
  }
  aggpipe_push (&p, 0, numbered (0, 0, 10));
  aggpipe_push (&p, 0, numbered (0, 1, 10));
  aggpipe_eos (&p, 0);
  aggpipe_push (&p, 1, numbered (1, 0, 20));
  aggpipe_play (&p);
  fail_unless (pull_values (&p, 2, v, &pts));
  fail_unless_equals_uint64 (pts, 0);
  fail_unless_equals_int (v[0], 0);
  fail_unless_equals_int (v[1], 1000);
  aggpipe_push (&p, 1, numbered (1, 1, 20));
  g_usleep (30 * G_TIME_SPAN_MILLISECOND);
  aggpipe_push (&p, 1, numbered (1, 2, 20));
  aggpipe_eos (&p, 1);
  fail_unless (pull_values (&p, 2, v, &pts));
  fail_unless_equals_uint64 (pts, pts_at (1, 10));
  fail_unless_equals_int (v[0], 1);
  fail_unless_equals_int (v[1], 1002);
  fail_unless (!pull_values (&p, 2, v, NULL));
  fail_unless (aggpipe_wait (&p) == NULL);
  aggpipe_free (&p);
}

GST_END_TEST;

/* The base advertises the layout meta upstream: transposed views reach
 * it uncopied (tensorview's bytes-copied stays 0) and are read through
 * their strides: each output is np.stack of two arange (6).reshape (2, 3).T. */
/* One thread feeding every pad (a tee without queues): the element must
 * pair what the pads hold without waiting for a next buffer that the
 * thread can bring only once the set is taken; with sync=latest as well
 * (a held buffer that lasts beyond sink_0's time is the newest). */
GST_START_TEST (test_one_thread_every_pad)
{
  static const gchar *const syncs[] = { "timestamp", "latest" };

  for (guint i = 0; i < G_N_ELEMENTS (syncs); i++) {
    gchar *d = g_strdup_printf (
        "tensorsrc num-buffers=5 ! tensor/x-raw,type=int32,dims=<1> "
        "! tee name=t t. ! s.sink_0 t. ! s.sink_1 "
        "tensorstack name=s sync=%s ! fakesink",
        syncs[i]);
    GError *err = NULL;
    GstElement *pipe = gst_parse_launch (d, &err);

    fail_unless (pipe != NULL, "%s", err ? err->message : "");
    tn_play_to_eos (pipe, d, 10);
    g_free (d);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_views_uncopied)
{
  static const float want[] = { 0, 3, 1, 4, 2, 5 };
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (
      "tensorsrc pattern=arange num-buffers=3 "
      "! tensor/x-raw,type=float32,dims=<2,3>,framerate=10/1 "
      "! tensorview name=v0 ops=permute:1:0 ! s.sink_0 "
      "tensorsrc pattern=arange num-buffers=3 "
      "! tensor/x-raw,type=float32,dims=<2,3>,framerate=10/1 "
      "! tensorview name=v1 ops=permute:1:0 ! s.sink_1 "
      "tensorstack name=s ! appsink name=out sync=false",
      &err);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  guint outputs = 0;

  fail_unless (pipe != NULL, "%s", err ? err->message : "");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (;;) {
    GstSample *s = NULL;
    GstTnInfo info;
    GstMapInfo m;

    g_signal_emit_by_name (sink, "try-pull-sample", 5 * GST_SECOND, &s);
    if (!s)
      break;
    fail_unless (gst_tn_info_from_caps (&info, gst_sample_get_caps (s), NULL));
    fail_unless_equals_int (info.rank, 3);
    fail_unless_equals_int64 (info.dims[0], 2);
    fail_unless_equals_int64 (info.dims[1], 3);
    fail_unless_equals_int64 (info.dims[2], 2);
    gst_buffer_map (gst_sample_get_buffer (s), &m, GST_MAP_READ);
    fail_unless_equals_uint64 (m.size, 2 * sizeof want);
    for (guint k = 0; k < 2; k++)
      fail_unless (memcmp (m.data + k * sizeof want, want, sizeof want) == 0,
          "output %u, pad %u", outputs, k);
    gst_buffer_unmap (gst_sample_get_buffer (s), &m);
    gst_sample_unref (s);
    outputs++;
  }
  fail_unless_equals_int (outputs, 3);
  for (guint k = 0; k < 2; k++) {
    gchar *name = g_strdup_printf ("v%u", k);
    GstElement *v = gst_bin_get_by_name (GST_BIN (pipe), name);
    guint64 copied = 1;

    g_object_get (v, "bytes-copied", &copied, NULL);
    fail_unless_equals_uint64 (copied, 0);
    gst_object_unref (v);
    g_free (name);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A flushing seek to [0.5 s, 1 s): the outputs resume there, paired.
 * Both sources draw the same uniform noise (the same seed: buffer n's
 * content is a function of n), so a pair of one frame has two equal rows
 * and each output differs from the one before: a buffer held from
 * before the seek would pair two different frames. */
GST_START_TEST (test_flushing_seek)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (
      "tensorsrc pattern=uniform seed=5 "
      "! tensor/x-raw,type=float32,dims=<4>,framerate=10/1 ! s.sink_0 "
      "tensorsrc pattern=uniform seed=5 "
      "! tensor/x-raw,type=float32,dims=<4>,framerate=10/1 ! s.sink_1 "
      "tensorstack name=s ! appsink name=out sync=false max-buffers=1",
      &err);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GstSample *s = NULL;
  GstClockTime expect = 500 * GST_MSECOND;
  float prev[4] = { 0 };

  fail_unless (pipe != NULL);
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  fail_unless_equals_int (
      gst_element_get_state (pipe, NULL, NULL, 5 * GST_SECOND),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_seek (pipe, 1.0, GST_FORMAT_TIME,
      GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
      500 * GST_MSECOND, GST_SEEK_TYPE_SET, GST_SECOND - 1));
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (;;) {
    GstMapInfo m;
    GstBuffer *b;

    s = NULL;
    g_signal_emit_by_name (sink, "try-pull-sample", 5 * GST_SECOND, &s);
    if (!s)
      break;
    b = gst_sample_get_buffer (s);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), expect);
    gst_buffer_map (b, &m, GST_MAP_READ);
    fail_unless_equals_uint64 (m.size, 2 * sizeof prev);
    fail_unless (memcmp (m.data, m.data + sizeof prev, sizeof prev) == 0,
        "output at %" GST_TIME_FORMAT " pairs two frames",
        GST_TIME_ARGS (expect));
    fail_if (memcmp (m.data, prev, sizeof prev) == 0,
        "output at %" GST_TIME_FORMAT " repeats the frame before",
        GST_TIME_ARGS (expect));
    memcpy (prev, m.data, sizeof prev);
    gst_buffer_unmap (b, &m);
    gst_sample_unref (s);
    expect += 100 * GST_MSECOND;
  }
  fail_unless_equals_uint64 (expect, GST_SECOND);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Both pads switch from <1> to <2> at buffer 3: the output caps follow. */
GST_START_TEST (test_caps_change)
{
  AggPipe p;
  GstTnInfo two = int32_1, info;

  two.dims[0] = 2;
  aggpipe_new (&p, "tensorstack", 2);
  for (guint k = 0; k < 2; k++) {
    aggpipe_caps (&p, k, &int32_1);
    for (guint j = 0; j < 6; j++) {
      GstBuffer *b = numbered (k, j, 30);

      if (j >= 3) {
        GstCaps *caps = gst_tn_info_to_caps (&two);
        gint32 vv[2] = { 1000 * (gint32) k + (gint32) j, -1 };
        GstSample *s;
        GstFlowReturn ret;
        GstBuffer *b2 = gst_buffer_new_memdup (vv, sizeof vv);

        gst_buffer_copy_into (b2, b, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
        s = gst_sample_new (b2, caps, NULL, NULL);
        g_signal_emit_by_name (p.src[k], "push-sample", s, &ret);
        fail_unless_equals_int (ret, GST_FLOW_OK);
        gst_sample_unref (s);
        gst_buffer_unref (b2);
        gst_caps_unref (caps);
        gst_buffer_unref (b);
      } else {
        aggpipe_push (&p, k, b);
      }
    }
    aggpipe_eos (&p, k);
  }
  aggpipe_play (&p);
  for (guint j = 0; j < 6; j++) {
    GstBuffer *b = aggpipe_pull (&p, &info);
    GstMapInfo m;
    gint w = j >= 3 ? 2 : 1;

    fail_unless (b != NULL, "output %u", j);
    fail_unless_equals_int (info.rank, 2);
    fail_unless_equals_int64 (info.dims[0], 2);
    fail_unless_equals_int64 (info.dims[1], w);
    gst_buffer_map (b, &m, GST_MAP_READ);
    fail_unless_equals_int (((gint32 *) m.data)[0], j);
    fail_unless_equals_int (((gint32 *) m.data)[w], 1000 + j);
    gst_buffer_unmap (b, &m);
    gst_buffer_unref (b);
  }
  fail_unless (aggpipe_wait (&p) == NULL);
  aggpipe_free (&p);
}

GST_END_TEST;

/* The caps of a slower pad change while its previous buffer still serves
 * sink_0: a 30 fps <1> stream joined (tensorconcat) with a 10 fps stream
 * whose frame 0 is <1> and frames 1 and 2 are <2>.  Each sink_0 frame j
 * takes the 10 fps frame j / 3 under that frame's own caps: <2> outputs
 * [j, 1000] for j < 3, then <3> outputs [j, 1000 + j / 3, -1].  (The
 * buffer held under the old caps was dropped when the new caps came,
 * one frame ahead of its use, and sink_0's frames 1 and 2 gave no
 * output.) */
GST_START_TEST (test_caps_change_slow_pad)
{
  static const gchar *const syncs[]
      = { "tensorconcat sync=timestamp", "tensorconcat sync=latest" };
  GstTnInfo two = int32_1, info;

  two.dims[0] = 2;
  for (guint s = 0; s < G_N_ELEMENTS (syncs); s++) {
    AggPipe p;

    aggpipe_new (&p, syncs[s], 2);
    stream (&p, 0, 9, 30);
    for (guint j = 0; j < 3; j++) {
      gint32 vv[2] = { 1000 + (gint32) j, -1 };
      GstBuffer *b = gst_buffer_new_memdup (vv, j ? sizeof vv : sizeof vv[0]);

      GST_BUFFER_PTS (b) = pts_at (j, 10);
      GST_BUFFER_DURATION (b) = pts_at (j + 1, 10) - pts_at (j, 10);
      aggpipe_push_with_caps (&p, 1, j ? &two : &int32_1, b);
    }
    aggpipe_eos (&p, 1);
    aggpipe_play (&p);
    for (guint j = 0; j < 9; j++) {
      GstBuffer *b = aggpipe_pull (&p, &info);
      gint32 *v;
      GstMapInfo m;

      fail_unless (b != NULL, "%s: output %u missing", syncs[s], j);
      fail_unless_equals_int (info.rank, 1);
      fail_unless_equals_int64 (info.dims[0], j < 3 ? 2 : 3);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (b), pts_at (j, 30));
      gst_buffer_map (b, &m, GST_MAP_READ);
      v = (gint32 *) m.data;
      fail_unless_equals_int (v[0], j);
      fail_unless_equals_int (v[1], 1000 + j / 3);
      if (j >= 3)
        fail_unless_equals_int (v[2], -1);
      gst_buffer_unmap (b, &m);
      gst_buffer_unref (b);
    }
    fail_unless (aggpipe_pull (&p, NULL) == NULL);
    fail_unless (aggpipe_wait (&p) == NULL);
    aggpipe_free (&p);
  }
}

GST_END_TEST;

/* A third pad requested and linked while PLAYING joins from its first
 * buffer; released again, the output has two rows again. */
GST_START_TEST (test_pads_while_playing)
{
  AggPipe p;
  GstElement *src2;
  GstPad *req, *srcpad;
  gint32 v[3];

  aggpipe_new (&p, "tensorstack", 2);
  for (guint k = 0; k < 2; k++) {
    aggpipe_caps (&p, k, &int32_1);
    for (guint j = 0; j < 3; j++)
      aggpipe_push (&p, k, numbered (k, j, 30));
  }
  aggpipe_play (&p);
  for (guint j = 0; j < 3; j++) {
    fail_unless (pull_values (&p, 2, v, NULL));
    fail_unless_equals_int (v[1], 1000 + j);
  }

  /* request sink_2 and feed it frames 3 .. 5 */
  src2 = gst_element_factory_make ("appsrc", "src2");
  g_object_set (src2, "format", GST_FORMAT_TIME, NULL);
  {
    GstCaps *caps = gst_tn_info_to_caps (&int32_1);

    g_object_set (src2, "caps", caps, NULL);
    gst_caps_unref (caps);
  }
  gst_bin_add (GST_BIN (p.pipe), src2);
  req = gst_element_request_pad_simple (p.agg, "sink_%u");
  fail_unless_equals_string (GST_PAD_NAME (req), "sink_2");
  srcpad = gst_element_get_static_pad (src2, "src");
  fail_unless_equals_int (gst_pad_link (srcpad, req), GST_PAD_LINK_OK);
  gst_object_unref (srcpad);
  fail_unless (gst_element_sync_state_with_parent (src2));
  for (guint j = 3; j < 6; j++) {
    GstFlowReturn ret;
    GstBuffer *b = numbered (2, j, 30);

    g_signal_emit_by_name (src2, "push-buffer", b, &ret);
    gst_buffer_unref (b);
    for (guint k = 0; k < 2; k++)
      aggpipe_push (&p, k, numbered (k, j, 30));
  }
  for (guint j = 3; j < 6; j++) {
    fail_unless (pull_values (&p, 3, v, NULL), "3-pad output %u", j);
    fail_unless_equals_int (v[0], j);
    fail_unless_equals_int (v[1], 1000 + j);
    fail_unless_equals_int (v[2], 2000 + j);
  }

  /* release it: two rows again */
  srcpad = gst_element_get_static_pad (src2, "src");
  gst_pad_unlink (srcpad, req);
  gst_object_unref (srcpad);
  gst_element_release_request_pad (p.agg, req);
  gst_object_unref (req);
  gst_element_set_state (src2, GST_STATE_NULL);
  gst_bin_remove (GST_BIN (p.pipe), src2);
  for (guint k = 0; k < 2; k++) {
    for (guint j = 6; j < 8; j++)
      aggpipe_push (&p, k, numbered (k, j, 30));
    aggpipe_eos (&p, k);
  }
  for (guint j = 6; j < 8; j++) {
    fail_unless (pull_values (&p, 2, v, NULL), "2-pad output %u", j);
    fail_unless_equals_int (v[0], j);
    fail_unless_equals_int (v[1], 1000 + j);
  }
  fail_unless (aggpipe_wait (&p) == NULL);
  aggpipe_free (&p);
}

GST_END_TEST;

/* Outputs pushed by the aggregator's own task ("agg:src") and by the
 * threads of the sources. */
typedef struct {
  gint task, upstream;
} PushThreads;

static GstPadProbeReturn
count_thread (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  PushThreads *t = data;
  char name[16] = "";

  prctl (PR_GET_NAME, name); /* GstTask names its thread ELEMENT:PAD */
  if (g_str_has_prefix (name, "agg:"))
    g_atomic_int_inc (&t->task);
  else
    g_atomic_int_inc (&t->upstream);
  return GST_PAD_PROBE_OK;
}

/* The direct hand-off (tnagg-direct.c): once the task has pushed an
 * output, the source thread whose buffer completes a set aggregates it,
 * with the same pairing.  The task pushes the first output, a set or
 * two queued before the hand-off starts (more while a source's
 * ALLOCATION query is still returning), and the last ones once an EOS
 * is queued. */
GST_START_TEST (test_direct_hand_off)
{
  AggPipe p;
  PushThreads t = { 0, 0 };
  GstPad *src;
  gint32 v[2];

  aggpipe_new (&p, "tensorstack", 2);
  src = gst_element_get_static_pad (p.agg, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, count_thread, &t, NULL);
  for (guint k = 0; k < 2; k++)
    stream (&p, k, 40, 30);
  aggpipe_play (&p);
  for (guint j = 0; j < 40; j++) {
    fail_unless (pull_values (&p, 2, v, NULL), "output %u missing", j);
    fail_unless_equals_int (v[0], j);
    fail_unless_equals_int (v[1], 1000 + j);
  }
  fail_unless (!pull_values (&p, 2, v, NULL));
  fail_unless (aggpipe_wait (&p) == NULL);
  /* How many outputs each side pushes depends on scheduling, so only
   * that both did is asserted: without the hand-off, every output
   * comes from the task. */
  fail_unless (t.task >= 1 && t.upstream >= 1,
      "%d outputs from the task, %d from the sources", t.task, t.upstream);
  fail_unless_equals_int (t.upstream, 40 - t.task);
  gst_object_unref (src);
  aggpipe_free (&p);
}

GST_END_TEST;

/* The source pads of test_task_sleeps_while_direct answer no latency
 * query, so GstAggregator asks again each time its task waits for a whole
 * set: counted.  The 1 ms each takes lets the feeding thread take every
 * set before the task looks. */
static gint latency_queries;

static gboolean
count_latency (GstPad *pad, GstObject *parent, GstQuery *query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_LATENCY)
    return gst_pad_query_default (pad, parent, query);
  g_atomic_int_inc (&latency_queries);
  g_usleep (1000);
  return FALSE;
}

/* ALLOCATION queries reaching the sink pad: one each negotiation. */
static gint allocation_queries;

static gboolean
count_allocation (GstPad *pad, GstObject *parent, GstQuery *query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION)
    g_atomic_int_inc (&allocation_queries);
  return gst_pad_query_default (pad, parent, query);
}

static GstFlowReturn
keep_last (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  gpointer *last = g_object_get_data (G_OBJECT (pad), "last");
  GstBuffer *old = g_atomic_pointer_exchange (last, buf);

  if (old)
    gst_buffer_unref (old);
  return GST_FLOW_OK;
}

/* tensorstack "agg" between two pads of the test, fed from the test's
 * thread one set at a time, as an application feeding appsrcs and
 * reading an appsink may. */
typedef struct {
  GstElement *e;
  GstPad *src[2], *sink;
  gpointer last;
} DirectRig;

static void
direct_rig_start (DirectRig *r)
{
  GstCaps *caps = gst_tn_info_to_caps (&int32_1);
  GstSegment seg;
  GstPad *esrc;

  r->e = gst_element_factory_make ("tensorstack", "agg");
  r->sink = gst_pad_new ("sink", GST_PAD_SINK);
  r->last = NULL;
  g_object_set_data (G_OBJECT (r->sink), "last", &r->last);
  gst_pad_set_chain_function (r->sink, keep_last);
  gst_pad_set_query_function (r->sink, count_allocation);
  esrc = gst_element_get_static_pad (r->e, "src");
  fail_unless_equals_int (gst_pad_link (esrc, r->sink), GST_PAD_LINK_OK);
  gst_object_unref (esrc);
  gst_pad_set_active (r->sink, TRUE);
  for (guint k = 0; k < 2; k++) {
    GstPad *esink = gst_element_request_pad_simple (r->e, "sink_%u");

    r->src[k] = gst_pad_new (k ? "src1" : "src0", GST_PAD_SRC);
    gst_pad_set_query_function (r->src[k], count_latency);
    fail_unless_equals_int (gst_pad_link (r->src[k], esink), GST_PAD_LINK_OK);
    gst_object_unref (esink);
    gst_pad_set_active (r->src[k], TRUE);
  }
  fail_unless (gst_element_set_state (r->e, GST_STATE_PLAYING)
               == GST_STATE_CHANGE_SUCCESS);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  for (guint k = 0; k < 2; k++) {
    gchar *id = g_strdup_printf ("direct%u", k);

    fail_unless (
        gst_pad_push_event (r->src[k], gst_event_new_stream_start (id)));
    fail_unless (gst_pad_push_event (r->src[k], gst_event_new_caps (caps)));
    fail_unless (gst_pad_push_event (r->src[k], gst_event_new_segment (&seg)));
    g_free (id);
  }
  gst_caps_unref (caps);
}

/* Pushes set j, checks its output, and waits 2 ms: sets at a rate, so
 * the task has long gone to wait before the next. */
static void
direct_rig_set (DirectRig *r, guint j)
{
  GstBuffer *out = NULL;
  gint32 v[2];
  GstMapInfo m;

  for (guint k = 0; k < 2; k++)
    fail_unless_equals_int (
        gst_pad_push (r->src[k], numbered (k, j, 30)), GST_FLOW_OK);
  /* the first outputs come from the task: wait for each */
  for (gint spin = 0; spin < 5000; spin++) {
    if ((out = g_atomic_pointer_exchange (&r->last, NULL)))
      break;
    g_usleep (1000);
  }
  fail_unless (out != NULL, "no output for set %u", j);
  gst_buffer_map (out, &m, GST_MAP_READ);
  memcpy (v, m.data, sizeof v);
  gst_buffer_unmap (out, &m);
  gst_buffer_unref (out);
  fail_unless_equals_int (v[0], j);
  fail_unless_equals_int (v[1], 1000 + j);
  g_usleep (2000);
}

static void
direct_rig_stop (DirectRig *r)
{
  gst_element_set_state (r->e, GST_STATE_NULL);
  for (guint k = 0; k < 2; k++)
    gst_object_unref (r->src[k]);
  gst_object_unref (r->sink);
  gst_object_unref (r->e);
}

/* Once the hand-off is on, the task must sleep where no queued buffer
 * wakes it (tnagg-direct.c).  It used to go back to GstAggregator's wait
 * for a whole set, which every queued buffer wakes, and never saw a whole
 * set (the feeding thread takes it first), so it woke for every set:
 * 40-50 us a push on a 2-core VM.  Counted: how often the task waited
 * there over 50 sets (count_latency; one a set before the fix). */
GST_START_TEST (test_task_sleeps_while_direct)
{
  DirectRig r;
  gint before = 0, waits;

  direct_rig_start (&r);
  for (guint j = 0; j < 60; j++) {
    direct_rig_set (&r, j);
    if (j == 9)
      before = g_atomic_int_get (&latency_queries);
  }
  waits = g_atomic_int_get (&latency_queries) - before;
  fail_unless (waits < 10,
      "the task waited for a whole set %d times over 50 sets", waits);
  direct_rig_stop (&r);
}

GST_END_TEST;

/* The src pad marked for a new negotiation while the hand-off is on (as
 * a RECONFIGURE that comes while the task is at work leaves it): the
 * next set's thread stops the hand-off and the task must return to
 * GstAggregator, which negotiates (a new ALLOCATION query downstream),
 * instead of aggregating the set and starting the hand-off again, set
 * after set. */
GST_START_TEST (test_reconfigure_while_direct)
{
  DirectRig r;
  GstPad *esrc;
  gint before;

  direct_rig_start (&r);
  for (guint j = 0; j < 20; j++)
    direct_rig_set (&r, j);
  before = g_atomic_int_get (&allocation_queries);
  esrc = gst_element_get_static_pad (r.e, "src");
  gst_pad_mark_reconfigure (esrc);
  for (guint j = 20; j < 30; j++)
    direct_rig_set (&r, j);
  fail_unless (g_atomic_int_get (&allocation_queries) > before,
      "no negotiation over 10 sets after the mark");
  fail_unless (!gst_pad_needs_reconfigure (esrc));
  gst_object_unref (esrc);
  direct_rig_stop (&r);
}

GST_END_TEST;

static Suite *
tnagg_suite (void)
{
  Suite *s = suite_create ("tnagg");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_equal_rate_one_to_one);
  tcase_add_loop_test (tc, test_30_and_7_fps, 0, 4);
  tcase_add_test (tc, test_eos_either_pad);
  tcase_add_test (tc, test_latest_empty_pad);
  tcase_add_test (tc, test_live);
  tcase_add_test (tc, test_live_numbered);
  tcase_add_test (tc, test_live_latest_stalled);
  tcase_add_test (tc, test_live_latest_newest);
  tcase_add_test (tc, test_flushing_seek);
  tcase_add_test (tc, test_views_uncopied);
  tcase_add_test (tc, test_one_thread_every_pad);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_caps_change_slow_pad);
  tcase_add_test (tc, test_pads_while_playing);
  tcase_add_test (tc, test_direct_hand_off);
  tcase_add_test (tc, test_task_sleeps_while_direct);
  tcase_add_test (tc, test_reconfigure_while_direct);
  return s;
}

GST_CHECK_MAIN (tnagg);
