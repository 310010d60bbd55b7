/* Real pipelines around an element with several sink pads (the
 * GstTnAggregator elements): n appsrc, the element, one appsink.
 * GstHarness cannot drive them: it starts the element as soon as the
 * first pad is linked, and these refuse to start with one pad.  The
 * sources run on their own threads, so pushing never deadlocks on a pad
 * that waits for its partner. */
#ifndef TN_AGGPIPE_H
#define TN_AGGPIPE_H

#include "tncheck.h"

#define AGG_MAX_PADS 8

typedef struct {
  GstElement *pipe, *agg, *sink;
  GstElement *src[AGG_MAX_PADS];
  guint n;
  GstBus *bus;
} AggPipe;

/* agg: the element and its properties, "tensorstack axis=1"; n pads. */
static inline void
aggpipe_new (AggPipe *p, const gchar *agg, guint n)
{
  GString *d = g_string_new (NULL);
  GError *err = NULL;

  memset (p, 0, sizeof *p);
  p->n = n;
  for (guint k = 0; k < n; k++)
    g_string_append_printf (d,
        "appsrc name=src%u format=time emit-signals=false ! agg.sink_%u ", k,
        k);
  g_string_append_printf (
      d, "%s name=agg ! appsink name=out sync=false emit-signals=false", agg);
  p->pipe = gst_parse_launch (d->str, &err);
  fail_unless (p->pipe != NULL, "%s: %s", d->str, err ? err->message : "");
  g_string_free (d, TRUE);
  p->agg = gst_bin_get_by_name (GST_BIN (p->pipe), "agg");
  p->sink = gst_bin_get_by_name (GST_BIN (p->pipe), "out");
  for (guint k = 0; k < n; k++) {
    gchar *name = g_strdup_printf ("src%u", k);

    p->src[k] = gst_bin_get_by_name (GST_BIN (p->pipe), name);
    g_free (name);
  }
  p->bus = gst_element_get_bus (p->pipe);
}

/* Caps of pad k's stream (a string, or from info). */
static inline void
aggpipe_caps (AggPipe *p, guint k, const GstTnInfo *info)
{
  GstCaps *caps = gst_tn_info_to_caps (info);

  g_object_set (p->src[k], "caps", caps, NULL);
  gst_caps_unref (caps);
}

/* Queues buffer (taken) on source k; it flows once the pipeline plays. */
static inline void
aggpipe_push (AggPipe *p, guint k, GstBuffer *buffer)
{
  GstFlowReturn ret;

  g_signal_emit_by_name (p->src[k], "push-buffer", buffer, &ret);
  gst_buffer_unref (buffer);
  fail_unless_equals_int (ret, GST_FLOW_OK);
}

/* Buffer (taken) on source k under caps info, as a sample: a caps change
 * when they differ from the last. */
static inline void
aggpipe_push_with_caps (
    AggPipe *p, guint k, const GstTnInfo *info, GstBuffer *buffer)
{
  GstCaps *caps = gst_tn_info_to_caps (info);
  GstSample *s = gst_sample_new (buffer, caps, NULL, NULL);
  GstFlowReturn ret;

  g_signal_emit_by_name (p->src[k], "push-sample", s, &ret);
  fail_unless_equals_int (ret, GST_FLOW_OK);
  gst_sample_unref (s);
  gst_caps_unref (caps);
  gst_buffer_unref (buffer);
}

static inline void
aggpipe_eos (AggPipe *p, guint k)
{
  GstFlowReturn ret;

  g_signal_emit_by_name (p->src[k], "end-of-stream", &ret);
}

static inline void
aggpipe_play (AggPipe *p)
{
  fail_if (gst_element_set_state (p->pipe, GST_STATE_PLAYING)
           == GST_STATE_CHANGE_FAILURE);
}

/* The next output (its caps in *info when info), or NULL at EOS or after
 * 5 s. */
static inline GstBuffer *
aggpipe_pull (AggPipe *p, GstTnInfo *info)
{
  GstSample *s = NULL;
  GstBuffer *b;

  g_signal_emit_by_name (p->sink, "try-pull-sample", 5 * GST_SECOND, &s);
  if (!s)
    return NULL;
  b = gst_buffer_ref (gst_sample_get_buffer (s));
  if (info)
    fail_unless (gst_tn_info_from_caps (info, gst_sample_get_caps (s), NULL));
  gst_sample_unref (s);
  return b;
}

/* Waits (at most 5 s) for EOS or an error: NULL at EOS, else the
 * error's text (g_free it). */
static inline gchar *
aggpipe_wait (AggPipe *p)
{
  GstMessage *m = gst_bus_timed_pop_filtered (
      p->bus, 5 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gchar *text = NULL;

  fail_unless (m != NULL, "neither EOS nor an error within 5 s");
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gst_message_parse_error (m, &err, NULL);
    text = g_strdup (err->message);
    g_error_free (err);
  }
  gst_message_unref (m);
  return text;
}

static inline void
aggpipe_free (AggPipe *p)
{
  gst_element_set_state (p->pipe, GST_STATE_NULL);
  for (guint k = 0; k < p->n; k++)
    gst_object_unref (p->src[k]);
  gst_object_unref (p->agg);
  gst_object_unref (p->sink);
  gst_object_unref (p->bus);
  gst_object_unref (p->pipe);
  tn_check_no_outstanding ();
}

/* A dense buffer of an .npy file's items, at pts with duration dur. */
static inline GstBuffer *
aggpipe_npy_buffer (const Npy *f, GstClockTime pts, GstClockTime dur)
{
  GstBuffer *b = gst_buffer_new_memdup (f->data, f->size);

  GST_BUFFER_PTS (b) = pts;
  GST_BUFFER_DURATION (b) = dur;
  return b;
}

/* The same tensor as a view: stored with its axes reversed (each item at
 * the place of the transposed index), after pad items of junk, with the
 * layout meta that reads it back. */
static inline GstBuffer *
aggpipe_npy_strided (const Npy *f, GstClockTime pts, GstClockTime dur)
{
  const gsize isz = f->itemsize, pad = 5;
  gint64 strides[TN_MAX_RANK], st = 1;
  GstBuffer *b = gst_buffer_new_allocate (NULL, (f->count + pad) * isz, NULL);
  GstMapInfo m;

  /* reversed storage: axis 0 is innermost */
  for (gint i = 0; i < f->rank; i++) {
    strides[i] = st;
    st *= f->dims[i];
  }
  gst_buffer_map (b, &m, GST_MAP_WRITE);
  memset (m.data, 0xee, m.size);
  for (gint64 j = 0; j < f->count; j++) {
    gint64 rest = j, at = pad;

    for (gint i = f->rank - 1; i >= 0; i--) {
      at += (rest % f->dims[i]) * strides[i];
      rest /= f->dims[i];
    }
    memcpy (m.data + at * isz, f->data + j * isz, isz);
  }
  gst_buffer_unmap (b, &m);
  gst_tn_buffer_add_layout_meta (b, f->rank, pad, strides);
  GST_BUFFER_PTS (b) = pts;
  GST_BUFFER_DURATION (b) = dur;
  return b;
}

/* The GstTnInfo of an .npy file. */
static inline GstTnInfo
aggpipe_npy_info (const Npy *f)
{
  GstTnInfo info = { 0 };

  info.dtype = f->dtype;
  info.rank = f->rank;
  for (gint i = 0; i < f->rank; i++)
    info.dims[i] = f->dims[i];
  info.fps_d = 1;
  return info;
}

/* Checks that out is dense, carries dims/dtype of want, and its bytes. */
static inline void
aggpipe_check_npy (
    GstBuffer *out, const GstTnInfo *info, const Npy *want, const gchar *what)
{
  GstMapInfo m;

  fail_unless (out != NULL, "%s: no output", what);
  fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL, "%s", what);
  fail_unless_equals_int (info->dtype, want->dtype);
  fail_unless_equals_int (info->rank, want->rank);
  for (gint i = 0; i < want->rank; i++)
    fail_unless_equals_int64 (info->dims[i], want->dims[i]);
  fail_unless (gst_buffer_map (out, &m, GST_MAP_READ));
  fail_unless_equals_uint64 (m.size, want->size);
  fail_unless (memcmp (m.data, want->data, want->size) == 0,
      "%s: the bytes differ from NumPy's", what);
  gst_buffer_unmap (out, &m);
}

/* One output of agg (n pads) from the .npy files ins[0..n-1], one buffer
 * each (strided: as views), checked against the .npy file want. */
static inline void
aggpipe_golden (
    const gchar *agg, guint n, gchar **ins, const gchar *want, gboolean strided)
{
  AggPipe p;
  Npy w, f;
  GstTnInfo info;
  GstBuffer *out;
  gchar *what = g_strdup_printf (
      "%s on %s%s", agg, want, strided ? " (strided inputs)" : "");

  aggpipe_new (&p, agg, n);
  for (guint k = 0; k < n; k++) {
    npy_load (&f, ins[k]);
    info = aggpipe_npy_info (&f);
    aggpipe_caps (&p, k, &info);
    aggpipe_push (&p, k,
        strided ? aggpipe_npy_strided (&f, 0, GST_SECOND)
                : aggpipe_npy_buffer (&f, 0, GST_SECOND));
    aggpipe_eos (&p, k);
    npy_clear (&f);
  }
  aggpipe_play (&p);
  out = aggpipe_pull (&p, &info);
  npy_load (&w, want);
  aggpipe_check_npy (out, &info, &w, what);
  gst_buffer_unref (out);
  npy_clear (&w);
  fail_unless (aggpipe_pull (&p, NULL) == NULL, "%s: a second output", what);
  fail_unless (aggpipe_wait (&p) == NULL);
  aggpipe_free (&p);
  g_free (what);
}

/* The sets of golden cases (tests/data/gen/gen_stack.py): a dtype and a
 * number of pads. */
static const struct {
  const gchar *dtype;
  guint n;
} aggpipe_sets[]
    = { { "uint8", 2 }, { "uint8", 3 }, { "uint8", 5 }, { "float32", 3 } };

/* element ("tensorstack", "tensorconcat") with axis=lo .. hi, dense and
 * strided, for set: inputs in_DTYPE_K.npy (stack) or, for concat, pad k's
 * cin_DTYPE_aAXIS_K.npy with extent k + 1 on the (non-negative) axis;
 * outputs stack_... or concat_DTYPE_nN_aAXIS.npy. */
static inline void
aggpipe_golden_axes (const gchar *element, guint set, gint lo, gint hi)
{
  const gchar *dtype = aggpipe_sets[set].dtype;
  guint n = aggpipe_sets[set].n;
  gboolean concat = g_str_equal (element, "tensorconcat");

  for (gint axis = lo; axis <= hi; axis++)
    for (gint strided = 0; strided < 2; strided++) {
      gchar *ins[AGG_MAX_PADS], *agg, *want;

      for (guint k = 0; k < n; k++)
        ins[k] = concat ? g_strdup_printf ("cin_%s_a%d_%u.npy", dtype,
                     axis < 0 ? axis + hi + 1 : axis, k)
                        : g_strdup_printf ("in_%s_%u.npy", dtype, k);
      agg = g_strdup_printf ("%s axis=%d", element, axis);
      want = g_strdup_printf (
          "%s_%s_n%u_a%d.npy", concat ? "concat" : "stack", dtype, n, axis);
      aggpipe_golden (agg, n, ins, want, strided);
      for (guint k = 0; k < n; k++)
        g_free (ins[k]);
      g_free (agg);
      g_free (want);
    }
}

/* The text of the error agg posts with n pads of the given caps (one
 * buffer each), which must name every word of words (NULL-terminated). */
static inline void
aggpipe_expect_error (const gchar *agg, guint n, const gchar *const *caps,
    const gchar *const *words)
{
  AggPipe p;
  gchar *text;

  aggpipe_new (&p, agg, n);
  for (guint k = 0; k < n; k++) {
    GstCaps *c = gst_caps_from_string (caps[k]);
    GstTnInfo info;
    gsize size;

    fail_unless (gst_tn_info_from_caps (&info, c, NULL));
    fail_unless (gst_tn_info_size (&info, &size));
    g_object_set (p.src[k], "caps", c, NULL);
    gst_caps_unref (c);
    aggpipe_push (&p, k, gst_buffer_new_allocate (NULL, size, NULL));
    aggpipe_eos (&p, k);
  }
  aggpipe_play (&p);
  text = aggpipe_wait (&p);
  fail_unless (text != NULL, "%s: no error", agg);
  for (guint i = 0; words[i]; i++)
    fail_unless (strstr (text, words[i]) != NULL, "%s: \"%s\" does not name %s",
        agg, text, words[i]);
  g_free (text);
  aggpipe_free (&p);
}

#endif
