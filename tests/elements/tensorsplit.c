/* tensorsplit in a pipeline appsrc ! tensorsplit ! appsink per src pad:
 * sections and indices on every axis of a <4,6,6> tensor (negative axes
 * too), squeeze, and every part's bytes against the part of np.split (the
 * part shapes of the index lists below are np.split's, as printed by
 * NumPy 1.24; the items are the input's by index), for an appsink that
 * reads only dense tensors and for one that advertises the layout meta (a
 * pad probe, as an application does): the data pointers show the
 * zero-copy promise (sub-ranges along axis 0 always; views otherwise,
 * with the meta), bytes-copied the copies.  Plus caps errors (extent not
 * divided, axis out of range, squeeze of parts longer than 1), property
 * errors, and a caps change in mid-stream. */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>

#include "tests/common/tncheck.h"

#define D0 4
#define D1 6
#define D2 6
#define N (D0 * D1 * D2)

typedef struct {
  GstElement *pipe, *src, *split;
  GPtrArray *sinks;
  gboolean meta;
  GstBus *bus;
} Split;

static GstPadProbeReturn
add_meta (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (q) == GST_QUERY_ALLOCATION)
    gst_query_add_allocation_meta (q, GST_TN_LAYOUT_META_API_TYPE, NULL);
  return GST_PAD_PROBE_OK;
}

static void
pad_added (GstElement *e, GstPad *pad, gpointer data)
{
  Split *s = data;
  GstElement *sink = gst_element_factory_make ("appsink", NULL);
  GstPad *sp = gst_element_get_static_pad (sink, "sink");

  /* no preroll: the parts come one after the other on one thread */
  g_object_set (sink, "sync", FALSE, "async", FALSE, NULL);
  if (s->meta)
    gst_pad_add_probe (sp,
        GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM | GST_PAD_PROBE_TYPE_PUSH, add_meta,
        NULL, NULL);
  gst_bin_add (GST_BIN (s->pipe), sink);
  gst_element_sync_state_with_parent (sink);
  fail_unless_equals_int (gst_pad_link (pad, sp), GST_PAD_LINK_OK);
  gst_object_unref (sp);
  g_ptr_array_add (s->sinks, sink);
}

/* The pipeline with tensorsplit's properties "name", "value", ...;
 * playing. */
static void
split_new (Split *s, gboolean meta, const gchar *caps, ...)
{
  va_list ap;
  const gchar *name;

  memset (s, 0, sizeof *s);
  s->meta = meta;
  s->sinks = g_ptr_array_new ();
  s->pipe = gst_pipeline_new (NULL);
  s->src = gst_element_factory_make ("appsrc", NULL);
  s->split = gst_element_factory_make ("tensorsplit", NULL);
  g_object_set (s->src, "format", GST_FORMAT_TIME, NULL);
  gst_util_set_object_arg (G_OBJECT (s->src), "caps", caps);
  va_start (ap, caps);
  while ((name = va_arg (ap, const gchar *)) != NULL)
    gst_util_set_object_arg (
        G_OBJECT (s->split), name, va_arg (ap, const gchar *));
  va_end (ap);
  gst_bin_add_many (GST_BIN (s->pipe), s->src, s->split, NULL);
  fail_unless (gst_element_link (s->src, s->split));
  g_signal_connect (s->split, "pad-added", G_CALLBACK (pad_added), s);
  s->bus = gst_element_get_bus (s->pipe);
  gst_element_set_state (s->pipe, GST_STATE_PLAYING);
}

static void
split_free (Split *s)
{
  gst_element_set_state (s->pipe, GST_STATE_NULL);
  gst_object_unref (s->bus);
  gst_object_unref (s->pipe);
  g_ptr_array_unref (s->sinks);
}

static GstBuffer *
arange_buffer (void)
{
  float x[N];

  for (int i = 0; i < N; i++)
    x[i] = (float) i;
  return gst_buffer_new_memdup (x, sizeof x);
}

/* Item [i0, i1, i2] of part k (start..start+ext along axis) of the arange
 * input, as np.split gives it: the input item at the shifted index. */
static float
want_item (int axis, int64_t start, int i0, int i1, int i2)
{
  int idx[3] = { i0, i1, i2 };

  idx[axis] += (int) start;
  return (float) ((idx[0] * D1 + idx[1]) * D2 + idx[2]);
}

/* Pushes one arange buffer and checks the parts of extents ext[] along
 * axis: their caps dims, bytes and, where promised, that they share the
 * input's memory. */
static void
check_split (gboolean meta, int axis_prop, const char *prop, const char *val,
    const int *ext, int nparts, gboolean squeeze)
{
  /* the property as given (negative: from the end), the axis it means */
  const int axis = axis_prop < 0 ? axis_prop + 3 : axis_prop;
  Split s;
  GstBuffer *in = arange_buffer ();
  GstMapInfo im;
  int64_t start = 0;
  guint64 copied;
  int dims[3] = { D0, D1, D2 };
  gchar axis_text[8];

  g_snprintf (axis_text, sizeof axis_text, "%d", axis_prop);
  split_new (&s, meta, "tensor/x-raw,type=float32,dims=<4,6,6>,framerate=0/1",
      "axis", axis_text, prop, val, "squeeze", squeeze ? "true" : "false",
      NULL);
  gst_buffer_map (in, &im, GST_MAP_READ);
  fail_unless_equals_int (
      gst_app_src_push_buffer (GST_APP_SRC (s.src), gst_buffer_ref (in)),
      GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (s.src));
  for (int k = 0; k < nparts; k++) {
    GstSample *sample;
    GstBuffer *b;
    GstTnInfo info;
    GstTnMap m;
    GError *err = NULL;
    int pd[3] = { dims[0], dims[1], dims[2] }, c = 0;
    GstTnLayoutMeta *lm;

    /* pads appear when the caps come */
    while (s.sinks->len <= (guint) k)
      g_usleep (1000);
    sample = gst_app_sink_pull_sample (g_ptr_array_index (s.sinks, k));
    fail_unless (sample != NULL, "no part %d", k);
    b = gst_sample_get_buffer (sample);
    fail_unless (
        gst_tn_info_from_caps (&info, gst_sample_get_caps (sample), NULL));
    pd[axis] = ext[k];
    fail_unless_equals_int (info.rank, squeeze ? 2 : 3);
    for (int i = 0, j = 0; i < 3; i++) {
      if (squeeze && i == axis)
        continue;
      fail_unless_equals_int64 (info.dims[j++], pd[i]);
    }
    lm = gst_tn_buffer_get_layout_meta (b);
    fail_unless (gst_tn_buffer_map (&m, b, &info, GST_MAP_READ, &err),
        "part %d: %s", k, err ? err->message : "");
    if (ext[k] > 0) {
      const guint8 *want_ptr = im.data
                               + start
                                     * (axis == 0    ? D1 * D2
                                         : axis == 1 ? D2
                                                     : 1)
                                     * 4;
      gboolean contiguous = axis == 0;

      /* zero-copy: a sub-range always; a view when the sink reads it */
      if (contiguous || meta)
        fail_unless (m.data + m.view.offset * 4 == want_ptr,
            "part %d on axis %d is a copy", k, axis);
      /* dense (no meta): along axis 0, or the whole extent */
      fail_unless (
          (lm != NULL) == (meta && !contiguous && ext[k] != dims[axis]),
          "part %d: layout meta %p", k, (void *) lm);
    }
    for (int i0 = 0; i0 < pd[0]; i0++)
      for (int i1 = 0; i1 < pd[1]; i1++)
        for (int i2 = 0; i2 < pd[2]; i2++, c++) {
          int64_t off = m.view.offset + i0 * m.view.strides[0];
          float got;

          if (squeeze) {
            int r[3] = { i0, i1, i2 }, o[2], j = 0;

            for (int i = 0; i < 3; i++)
              if (i != axis)
                o[j++] = r[i];
            off = m.view.offset + o[0] * m.view.strides[0]
                  + o[1] * m.view.strides[1];
          } else {
            off += i1 * m.view.strides[1] + i2 * m.view.strides[2];
          }
          memcpy (&got, m.data + off * 4, 4);
          fail_unless (got == want_item (axis, start, i0, i1, i2),
              "part %d item %d: %g", k, c, got);
        }
    gst_tn_buffer_unmap (&m);
    gst_sample_unref (sample);
    start += ext[k];
  }
  g_object_get (s.split, "bytes-copied", &copied, NULL);
  {
    guint64 want = 0;

    for (int k = 0; k < nparts; k++)
      if (!meta && axis != 0 && ext[k] != dims[axis])
        want += (guint64) N / dims[axis] * ext[k] * 4;
    fail_unless_equals_uint64 (copied, want);
  }
  gst_buffer_unmap (in, &im);
  gst_buffer_unref (in);
  split_free (&s);
}

GST_START_TEST (test_sections)
{
  static const int s2[] = { 2, 2 }, s3[] = { 2, 2, 2 },
                   s6[] = { 1, 1, 1, 1, 1, 1 };

  for (int meta = 0; meta < 2; meta++) {
    check_split (meta, 0, "sections", "2", s2, 2, FALSE);
    check_split (meta, 1, "sections", "3", s3, 3, FALSE);
    check_split (meta, 2, "sections", "3", s3, 3, FALSE);
    check_split (meta, 2, "sections", "6", s6, 6, TRUE);
    check_split (meta, 1, "sections", "6", s6, 6, TRUE);
    /* negative axes count from the end, as np.split's */
    check_split (meta, -3, "sections", "2", s2, 2, FALSE);
    check_split (meta, -2, "sections", "3", s3, 3, FALSE);
    check_split (meta, -1, "sections", "6", s6, 6, TRUE);
  }
  tn_check_no_outstanding ();
}
GST_END_TEST;

GST_START_TEST (test_indices)
{
  /* np.split's part extents on an axis of 6 (and of 4 for axis 0) */
  static const struct {
    const char *idx;
    int n, ext[4];
  } cases[] = {
    { "1,4", 3, { 1, 3, 2 } },
    { "-2", 2, { 4, 2 } },
    { "2,100", 3, { 2, 4, 0 } },
    { "0,0,6", 4, { 0, 0, 6, 0 } },
    { "3", 2, { 3, 3 } },
  };

  for (int meta = 0; meta < 2; meta++) {
    for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
      check_split (
          meta, 1, "indices", cases[c].idx, cases[c].ext, cases[c].n, FALSE);
      check_split (
          meta, 2, "indices", cases[c].idx, cases[c].ext, cases[c].n, FALSE);
    }
    {
      static const int e0[] = { 1, 3 }, e1[] = { 1, 2, 1 };

      check_split (meta, 0, "indices", "1", e0, 2, FALSE);
      check_split (meta, 0, "indices", "1,-1", e1, 3, FALSE);
      check_split (meta, -3, "indices", "1,-1", e1, 3, FALSE);
      check_split (meta, -1, "indices", "1,4", cases[0].ext, 3, FALSE);
    }
  }
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* Round r's part k of sections=2 along axis 0, item i: the input of round
 * r held r * 1000 + its index. */
static void
check_round (GstBuffer *b, int r, int k)
{
  GstMapInfo m;
  const float *f;

  fail_unless (gst_buffer_map (b, &m, GST_MAP_READ));
  fail_unless_equals_uint64 (m.size, N / 2 * sizeof (float));
  f = (const float *) m.data;
  for (int i = 0; i < N / 2; i++)
    fail_unless (f[i] == (float) (r * 1000 + k * N / 2 + i),
        "round %d part %d item %d: %g", r, k, i, f[i]);
  gst_buffer_unmap (b, &m);
}

/* Pushes in and waits for the pads of a split into two parts. */
static void
push_two_parts (Split *s, GstBuffer *in)
{
  gst_app_src_push_buffer (GST_APP_SRC (s->src), in);
  while (s->sinks->len < 2)
    g_usleep (1000);
}

/* The parts' buffers are recycled once downstream drops them
 * (elements/tnviews.h): every round still gets its own bytes, timestamps
 * and flags, a part kept over later rounds keeps its bytes, and so does a
 * copy of a part (which shares it) after the part is gone. */
GST_START_TEST (test_recycled)
{
  Split s;
  GstBuffer *held = NULL, *copy = NULL;

  split_new (&s, FALSE, "tensor/x-raw,type=float32,dims=<4,6,6>", "sections",
      "2", NULL);
  for (int r = 0; r < 8; r++) {
    float x[N];
    GstBuffer *in;
    GstMapInfo im;

    for (int i = 0; i < N; i++)
      x[i] = (float) (r * 1000 + i);
    in = gst_buffer_new_memdup (x, sizeof x);
    GST_BUFFER_PTS (in) = r * GST_SECOND;
    GST_BUFFER_DURATION (in) = GST_SECOND;
    if (r == 5)
      GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
    fail_unless (gst_buffer_map (in, &im, GST_MAP_READ));
    gst_buffer_unmap (in, &im);
    push_two_parts (&s, in);
    for (int k = 0; k < 2; k++) {
      GstSample *sm = gst_app_sink_pull_sample (g_ptr_array_index (s.sinks, k));
      GstBuffer *b = gst_sample_get_buffer (sm);
      GstMapInfo m;

      fail_unless_equals_uint64 (GST_BUFFER_PTS (b), r * GST_SECOND);
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (b), GST_SECOND);
      /* (appsrc marks its first buffer discont too) */
      if (r > 0)
        fail_unless_equals_int (
            GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_DISCONT), r == 5);
      check_round (b, r, k);
      /* zero-copy: the input's bytes */
      fail_unless (gst_buffer_map (b, &m, GST_MAP_READ));
      fail_unless (m.data == im.data + k * N / 2 * sizeof (float));
      gst_buffer_unmap (b, &m);
      if (r == 2 && k == 1)
        copy = gst_buffer_copy (b);
      if (r == 3 && k == 0)
        held = gst_buffer_ref (b);
      gst_sample_unref (sm);
    }
  }
  check_round (held, 3, 0);
  check_round (copy, 2, 1);
  gst_buffer_unref (held);
  gst_buffer_unref (copy);
  split_free (&s);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* Round r's part k of sections=2 along axis 1 of <d0,6,6>, read through
 * gst_tn_buffer_map (the layout meta when there is one): item [i0,i1,i2]
 * is the input's [i0, 3k + i1, i2], and the input of round r held
 * r * 1000 + its index.  meta: whether the buffer must carry the layout
 * meta (a strided view) or not (dense). */
static void
check_view_round (GstBuffer *b, int d0, int r, int k, gboolean meta)
{
  GstTnInfo info;
  GstTnMap m;
  GError *err = NULL;
  gchar *caps = g_strdup_printf ("tensor/x-raw,type=float32,dims=<%d,3,6>", d0);
  GstCaps *c = gst_caps_from_string (caps);

  fail_unless (gst_tn_info_from_caps (&info, c, NULL));
  fail_unless_equals_int (gst_tn_buffer_get_layout_meta (b) != NULL, meta);
  fail_unless (gst_tn_buffer_map (&m, b, &info, GST_MAP_READ, &err), "%s",
      err ? err->message : "");
  for (int i0 = 0; i0 < d0; i0++)
    for (int i1 = 0; i1 < 3; i1++)
      for (int i2 = 0; i2 < D2; i2++) {
        const float *f = (const float *) m.data;
        float got = f[m.view.offset + i0 * m.view.strides[0]
                      + i1 * m.view.strides[1] + i2 * m.view.strides[2]];
        float want = (float) (r * 1000 + (i0 * D1 + 3 * k + i1) * D2 + i2);

        fail_unless (got == want, "round %d part %d [%d,%d,%d]: %g, not %g", r,
            k, i0, i1, i2, got, want);
      }
  gst_tn_buffer_unmap (&m);
  gst_caps_unref (c);
  g_free (caps);
}

/* Strided parts (axis 1, for sinks that read the meta) come in recycled
 * buffers whose layout meta is kept and rewritten from use to use: a
 * part held over later rounds keeps its bytes and its meta; after a caps
 * change that makes the parts dense (<1,6,6>: a sub-range), the same
 * recycled buffers come without any meta. */
GST_START_TEST (test_recycled_views)
{
  Split s;
  GstBuffer *held[2] = { NULL, NULL };

  split_new (&s, TRUE, "tensor/x-raw,type=float32,dims=<4,6,6>", "axis", "1",
      "sections", "2", NULL);
  for (int r = 0; r < 10; r++) {
    int d0 = r < 5 ? D0 : 1;
    float x[N];
    GstBuffer *in;

    if (r == 5) {
      GstCaps *caps
          = gst_caps_from_string ("tensor/x-raw,type=float32,dims=<1,6,6>");

      gst_app_src_set_caps (GST_APP_SRC (s.src), caps);
      gst_caps_unref (caps);
    }
    for (int i = 0; i < N; i++)
      x[i] = (float) (r * 1000 + i);
    in = gst_buffer_new_memdup (x, d0 * D1 * D2 * sizeof (float));
    push_two_parts (&s, in);
    for (int k = 0; k < 2; k++) {
      GstSample *sm = gst_app_sink_pull_sample (g_ptr_array_index (s.sinks, k));
      GstBuffer *b = gst_sample_get_buffer (sm);

      check_view_round (b, d0, r, k, r < 5);
      if ((r == 1 || r == 6) && k == 1)
        held[r == 6] = gst_buffer_ref (b);
      gst_sample_unref (sm);
    }
    /* the held ones, while their buffers' siblings are reused */
    if (held[0] != NULL)
      check_view_round (held[0], D0, 1, 1, TRUE);
    if (held[1] != NULL)
      check_view_round (held[1], 1, 6, 1, FALSE);
  }
  gst_buffer_unref (held[0]);
  gst_buffer_unref (held[1]);
  split_free (&s);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* A recycled view keeps only its layout meta: the metas a part got from
 * its input (a reference timestamp every other round) are gone from the
 * buffer when it comes back for an input without them
 * (elements/tnviews.c, view_buffer_dispose; enough rounds that the
 * spare buffers are taken again). */
GST_START_TEST (test_recycled_views_metas)
{
  Split s;
  GstCaps *ref = gst_caps_new_empty_simple ("timestamp/x-test");

  split_new (&s, TRUE, "tensor/x-raw,type=float32,dims=<4,6,6>", "axis", "1",
      "sections", "2", NULL);
  for (int r = 0; r < 80; r++) {
    float x[N];
    GstBuffer *in;

    for (int i = 0; i < N; i++)
      x[i] = (float) (r * 1000 + i);
    in = gst_buffer_new_memdup (x, sizeof x);
    if (r % 2 == 0)
      gst_buffer_add_reference_timestamp_meta (in, ref, r, 0);
    push_two_parts (&s, in);
    for (int k = 0; k < 2; k++) {
      GstSample *sm = gst_app_sink_pull_sample (g_ptr_array_index (s.sinks, k));
      GstBuffer *b = gst_sample_get_buffer (sm);
      GstReferenceTimestampMeta *rm
          = gst_buffer_get_reference_timestamp_meta (b, ref);

      check_view_round (b, D0, r, k, TRUE);
      if (r % 2 == 0)
        fail_unless (rm != NULL && rm->timestamp == (GstClockTime) r,
            "round %d part %d: no timestamp meta", r, k);
      else
        fail_unless (rm == NULL, "round %d part %d: a stale meta", r, k);
      gst_sample_unref (sm);
    }
  }
  gst_caps_unref (ref);
  split_free (&s);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* Parts that die on the streaming thread inside the split's chain (a
 * sink in the same thread keeping its last buffer until the next one
 * replaces it, as basesink does) give their references on the input back
 * when the chain ends (elements/tnviews.h, gst_tn_views_leave): the input
 * of round r goes as soon as the push of round r + 1 returns, not before
 * (every kept part still reads its own bytes) and not later (nothing kept
 * mapped).  Part 1's sink drops its parts at once, in the push. */
typedef struct {
  GstBuffer *last[2];
  gint chained[2];
  GstPad *pads[2];
  gboolean keep_both; /* part 1 kept as well */
} Keep;

static GstFlowReturn
keep_chain (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  Keep *kp = g_object_get_data (G_OBJECT (pad), "keep");
  gint k = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (pad), "part"));

  kp->chained[k]++;
  if (k == 1 && !kp->keep_both) {
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  gst_buffer_replace (&kp->last[k], buf);
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

static gboolean
keep_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  gst_event_unref (event);
  return TRUE;
}

static void
keep_pad_added (GstElement *e, GstPad *pad, gpointer data)
{
  Keep *kp = data;
  gchar *name = gst_pad_get_name (pad);
  gint k = name[strlen (name) - 1] - '0';
  GstPad *sp = gst_pad_new (name, GST_PAD_SINK);

  fail_unless (k == 0 || k == 1);
  g_object_set_data (G_OBJECT (sp), "keep", kp);
  g_object_set_data (G_OBJECT (sp), "part", GINT_TO_POINTER (k));
  gst_pad_set_chain_function (sp, keep_chain);
  gst_pad_set_event_function (sp, keep_event);
  gst_pad_set_active (sp, TRUE);
  fail_unless_equals_int (gst_pad_link (pad, sp), GST_PAD_LINK_OK);
  kp->pads[k] = sp;
  g_free (name);
}

/* A PLAYING tensorsplit sections=2 of float32 <4,6,6>, fed from src, its
 * parts kept by kp's pads, the stream started as stream_id. */
static GstElement *
start_keeping_split (GstPad *src, Keep *kp, const gchar *stream_id)
{
  GstElement *split = gst_element_factory_make ("tensorsplit", NULL);
  GstPad *sink = gst_element_get_static_pad (split, "sink");
  GstSegment seg;
  GstCaps *caps;

  g_object_set (split, "sections", 2, NULL);
  g_signal_connect (split, "pad-added", G_CALLBACK (keep_pad_added), kp);
  gst_pad_set_active (src, TRUE);
  fail_unless_equals_int (gst_pad_link (src, sink), GST_PAD_LINK_OK);
  gst_object_unref (sink);
  fail_unless_equals_int (gst_element_set_state (split, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  gst_pad_push_event (src, gst_event_new_stream_start (stream_id));
  caps = gst_caps_from_string ("tensor/x-raw,type=float32,dims=<4,6,6>");
  gst_pad_push_event (src, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_push_event (src, gst_event_new_segment (&seg));
  return split;
}

/* Undoes start_keeping_split: nothing of the split may stay out. */
static void
stop_keeping_split (GstElement *split, GstPad *src, Keep *kp)
{
  gst_element_set_state (split, GST_STATE_NULL);
  gst_pad_set_active (src, FALSE);
  gst_object_unref (src);
  gst_object_unref (split);
  for (int k = 0; k < 2; k++) {
    fail_unless (kp->pads[k] != NULL);
    gst_pad_set_active (kp->pads[k], FALSE);
    gst_object_unref (kp->pads[k]);
  }
  tn_check_no_outstanding ();
}

static void
note_gone (gpointer data, GstMiniObject *obj)
{
  (*(gint *) data)++;
}

GST_START_TEST (test_parts_die_in_chain)
{
  GstPad *src = gst_pad_new ("src", GST_PAD_SRC);
  Keep kp = { { NULL, NULL }, { 0, 0 }, { NULL, NULL } };
  GstElement *split = start_keeping_split (src, &kp, "parts");
  gint gone[8] = { 0 };

  for (int r = 0; r < 8; r++) {
    float x[N];
    GstBuffer *in;

    for (int i = 0; i < N; i++)
      x[i] = (float) (r * 1000 + i);
    in = gst_buffer_new_memdup (x, sizeof x);
    gst_mini_object_weak_ref (GST_MINI_OBJECT (in), note_gone, &gone[r]);
    fail_unless_equals_int (gst_pad_push (src, in), GST_FLOW_OK);
    fail_unless_equals_int (kp.chained[0], r + 1);
    fail_unless_equals_int (kp.chained[1], r + 1);
    /* this round's part 0 is kept: its input lives, mapped */
    fail_unless_equals_int (gone[r], 0);
    check_round (kp.last[0], r, 0);
    /* the last round's part 0 died in this round's chain */
    if (r > 0)
      fail_unless (gone[r - 1] == 1, "input %d kept", r - 1);
  }
  /* the last part dies off the chain (the atomic way) */
  gst_buffer_replace (&kp.last[0], NULL);
  fail_unless_equals_int (gone[7], 1);
  stop_keeping_split (split, src, &kp);
}
GST_END_TEST;

/* A part of an input in system memory maps the input when a reader first
 * maps it, not in the split's chain (elements/tnviews.c,
 * mapped_input_data): two threads read the two parts of each input at
 * once, racing on that first map; each reads its own bytes, and once the
 * parts are gone the input is unmapped (a write map of its memory, which
 * a read map left would refuse, succeeds). */
typedef struct {
  GstBuffer *part;
  gint r, k;
  gboolean ok;
  gint *go;
} Reader;

static gpointer
read_part (gpointer data)
{
  Reader *rd = data;
  GstMapInfo m;

  /* both readers running at once, then both map */
  g_atomic_int_inc (rd->go);
  while (g_atomic_int_get (rd->go) < 2)
    ;
  rd->ok = gst_buffer_map (rd->part, &m, GST_MAP_READ);
  if (!rd->ok)
    return NULL;
  for (int i = 0; i < N / 2 && rd->ok; i++)
    rd->ok = ((const float *) m.data)[i]
             == (float) (rd->r * 1000 + rd->k * N / 2 + i);
  gst_buffer_unmap (rd->part, &m);
  return NULL;
}

GST_START_TEST (test_parts_read_on_threads)
{
  GstPad *src = gst_pad_new ("src", GST_PAD_SRC);
  Keep kp = { { NULL, NULL }, { 0, 0 }, { NULL, NULL }, TRUE };
  GstElement *split = start_keeping_split (src, &kp, "threads");

  for (int r = 0; r < 500; r++) {
    float x[N];
    GstBuffer *in;
    GstMapInfo m;
    Reader rd[2];
    GThread *th[2];
    gint go = 0;

    for (int i = 0; i < N; i++)
      x[i] = (float) (r * 1000 + i);
    in = gst_buffer_new_memdup (x, sizeof x);
    fail_unless_equals_int (
        gst_pad_push (src, gst_buffer_ref (in)), GST_FLOW_OK);
    for (int k = 0; k < 2; k++) {
      rd[k] = (Reader){ g_steal_pointer (&kp.last[k]), r, k, FALSE, &go };
      th[k] = g_thread_new ("reader", read_part, &rd[k]);
    }
    for (int k = 0; k < 2; k++) {
      g_thread_join (th[k]);
      fail_unless (rd[k].ok, "round %d part %d", r, k);
      gst_buffer_unref (rd[k].part);
    }
    /* the parts died off the chain: the input is ours alone, unmapped */
    fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (in), 1);
    fail_unless (gst_buffer_map (in, &m, GST_MAP_WRITE), "round %d", r);
    gst_buffer_unmap (in, &m);
    gst_buffer_unref (in);
  }
  stop_keeping_split (split, src, &kp);
}
GST_END_TEST;

/* Negotiation fails with the reason in words. */
static void
expect_error (const gchar *caps, const gchar *want, ...)
{
  va_list ap;
  const gchar *name;
  GstElement *pipe = gst_pipeline_new (NULL), *src, *split, *sink;
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;
  GError *err = NULL;

  src = gst_element_factory_make ("appsrc", NULL);
  split = gst_element_factory_make ("tensorsplit", "split");
  sink = gst_element_factory_make ("fakesink", NULL);
  gst_util_set_object_arg (G_OBJECT (src), "caps", caps);
  va_start (ap, want);
  while ((name = va_arg (ap, const gchar *)) != NULL)
    gst_util_set_object_arg (
        G_OBJECT (split), name, va_arg (ap, const gchar *));
  va_end (ap);
  gst_bin_add_many (GST_BIN (pipe), src, split, sink, NULL);
  gst_element_link (src, split);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  gst_app_src_push_buffer (GST_APP_SRC (src), arange_buffer ());
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for '%s'", want);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, want) != NULL, "'%s' lacks '%s'",
      err->message, want);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_START_TEST (test_errors)
{
  const gchar *caps = "tensor/x-raw,type=float32,dims=<4,6,6>";

  expect_error (caps,
      "split: sections=4 does not divide axis 1 of float32 <4, 6, 6> "
      "tensors, whose extent is 6.",
      "axis", "1", "sections", "4", NULL);
  expect_error (caps,
      "split: axis=3 is out of range for float32 <4, 6, 6> tensors.", "axis",
      "3", "sections", "2", NULL);
  expect_error (caps,
      "split: squeeze=true drops axis 2 only when every part has extent 1, "
      "and part 0 of float32 <4, 6, 6> tensors has 2.",
      "axis", "-1", "sections", "3", "squeeze", "true", NULL);
  expect_error (caps,
      "split: indices=\"1\" cannot be used: sections=2 is set as well; set "
      "one of sections and indices.",
      "sections", "2", "indices", "1", NULL);
  expect_error (caps,
      "split: sections=\"0\" cannot be used: neither sections nor indices is "
      "set",
      NULL);
  expect_error (caps,
      "split: indices=\"1,x\" cannot be used: entry 2 ('x') is not an "
      "integer",
      "indices", "1,x", NULL);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* New caps: new caps on the same pads (the number of parts is the
 * properties'); caps the sections do not divide: an error. */
GST_START_TEST (test_caps_change)
{
  Split s;
  GstSample *sample;
  GstMessage *msg;
  GError *err = NULL;
  GstCaps *caps;
  GstTnInfo info;

  split_new (&s, FALSE, "tensor/x-raw,type=float32,dims=<4,6,6>", "sections",
      "2", NULL);
  gst_app_src_push_buffer (GST_APP_SRC (s.src), arange_buffer ());
  while (s.sinks->len < 2)
    g_usleep (1000);
  sample = gst_app_sink_pull_sample (g_ptr_array_index (s.sinks, 1));
  gst_sample_unref (sample);
  caps = gst_caps_from_string ("tensor/x-raw,type=float32,dims=<2,72>");
  gst_app_src_set_caps (GST_APP_SRC (s.src), caps);
  gst_caps_unref (caps);
  gst_app_src_push_buffer (GST_APP_SRC (s.src), arange_buffer ());
  sample = gst_app_sink_pull_sample (g_ptr_array_index (s.sinks, 1));
  fail_unless (
      gst_tn_info_from_caps (&info, gst_sample_get_caps (sample), NULL));
  fail_unless_equals_int64 (info.dims[0], 1);
  fail_unless_equals_int64 (info.dims[1], 72);
  gst_sample_unref (sample);
  caps = gst_caps_from_string ("tensor/x-raw,type=float32,dims=<3,48>");
  gst_app_src_set_caps (GST_APP_SRC (s.src), caps);
  gst_caps_unref (caps);
  gst_app_src_push_buffer (GST_APP_SRC (s.src), arange_buffer ());
  msg = gst_bus_timed_pop_filtered (s.bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (
      strstr (err->message, "sections=2 does not divide axis 0") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  split_free (&s);

  tn_check_no_outstanding ();
}
GST_END_TEST;

static Suite *
tensorsplit_suite (void)
{
  Suite *s = suite_create ("tensorsplit");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_sections);
  tcase_add_test (tc, test_indices);
  tcase_add_test (tc, test_errors);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_recycled);
  tcase_add_test (tc, test_recycled_views);
  tcase_add_test (tc, test_recycled_views_metas);
  tcase_add_test (tc, test_parts_die_in_chain);
  tcase_add_test (tc, test_parts_read_on_threads);
  return s;
}

GST_CHECK_MAIN (tensorsplit);
