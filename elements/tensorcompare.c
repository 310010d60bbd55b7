/* GStreamer tensor plugin: compares tensors with references.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensorcompare
 * @title: tensorcompare
 * @see_also: npydec, npyenc, tensordebug
 *
 * Compares every tensor of its sink pad with a reference under NumPy's
 * tolerances and passes the sink buffer on unchanged on src (the very
 * buffer: zero-copy), so it can stand anywhere in a pipeline.  It is the
 * pipeline-level numpy.testing.assert_allclose: with the default
 * #GstTensorCompare:on-mismatch=error a mismatch stops the pipeline with
 * an element error, and gst-launch-1.0 exits non-zero.  The failing
 * buffer itself still goes on first, so that a sink waiting to preroll
 * does, and the error arrives in PLAYING (gst-launch-1.0 of GStreamer
 * 1.22 does not always exit after an error while prerolling).
 *
 * The reference is either the #GstTensorCompare:reference property or a
 * second stream on the request pad `expected` (paired with the sink
 * buffers by order, or by PTS with #GstTensorCompare:sync=timestamp).
 * #GstTensorCompare:reference is
 * - a pattern with one printf-style integer (`golden-%05d.npy`, as
 *   multifilesink names files): buffer i is compared with file i;
 * - or one `.npy` path: a file whose dims are the tensor's is the
 *   reference of every buffer; a file of dims <N, ...the tensor's dims>
 *   holds one reference per buffer along axis 0 (what np.save of a
 *   stacked recording, or npyenc stack=true, writes).
 *
 * An item passes when `|actual - expected| <= atol + rtol * |expected|`,
 * or with #GstTensorCompare:max-ulp set on a float dtype when the two are
 * at most that many units in the last place apart; equal items pass
 * (inf against inf too); NaN against NaN passes with
 * #GstTensorCompare:equal-nan.  Integers and bool compare exactly unless
 * rtol or atol is set.  A difference in dtype or dims is a mismatch
 * whose text names both, but for a bfloat16 stream against a float32
 * reference of its dims: NumPy has no bfloat16, and npyenc and
 * record=true store it as float32 widened exactly, so such a reference
 * is read back as bfloat16 (max-ulp counts bfloat16 ulps), and one that
 * holds a value no bfloat16 has is a mismatch naming that item.  rtol and atol
 * are 0 to +inf and max-ulp -1 or more: another value (a negative tolerance,
 * NaN) is an error when the element goes to PAUSED, never the default.
 *
 * Every buffer posts an element message "tensorcompare" with the fields
 * index (guint64), pts (guint64, GST_CLOCK_TIME_NONE when unset), passed
 * (boolean), items (gint64), mismatches (gint64), max-abs, max-rel
 * (double), max-ulp (guint64), and on a failure text (the sentence of the
 * error), first-mismatch (GstValueArray of int, the index; empty when the
 * shapes differ), actual and expected (double, the values there).  At
 * EOS it posts "tensorcompare-summary" with buffers, failed (guint64),
 * max-abs, max-rel (double) and max-ulp (guint64), and prints one line
 * unless #GstTensorCompare:silent.  A buffer without a reference, or
 * references left over at EOS, are reported the same way ("buffer 7 has
 * no reference: golden-00007.npy does not exist").
 *
 * With #GstTensorCompare:record=true it writes the references instead of
 * comparing, under the same names (one file per buffer for a pattern,
 * all buffers stacked along a new axis 0 at EOS for one path): how the
 * goldens are made again after an intended change.
 *
 * tensorcompare reads strided tensors in place.  Since it passes each
 * buffer on, whatever follows reads the same buffer: it answers the
 * ALLOCATION query on sink with downstream's answer (the layout meta only
 * when downstream reads it), and on expected, whose buffers go no
 * further, with the meta.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=3 \
 *     ! "tensor/x-raw,type=float32,dims=<2,3>" \
 *     ! tensorcompare reference=golden-%05d.npy record=true ! fakesink
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=3 \
 *     ! "tensor/x-raw,type=float32,dims=<2,3>" \
 *     ! tensorcompare reference=golden-%05d.npy ! fakesink
 * ]| records three goldens, then compares a second run with them.
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=2 \
 *     ! "tensor/x-raw,type=float32,dims=<4>" ! tee name=t \
 *     t. ! queue ! tensorop ops=add:1e-6 ! tensorcompare name=c atol=1e-5 \
 *     ! fakesink  t. ! queue ! c.expected
 * ]| compares a stream with another one, buffer by buffer (the queues
 * keep the branches apart: tensorcompare waits on sink for the reference).
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>

#include "tensorcompare.h"

GST_DEBUG_CATEGORY (gst_tensor_compare_debug);
#define GST_CAT_DEFAULT gst_tensor_compare_debug

G_DEFINE_TYPE (GstTensorCompare, gst_tensor_compare, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (
    tensorcompare, "tensorcompare", GST_RANK_NONE, GST_TYPE_TENSOR_COMPARE);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));
static GstStaticPadTemplate expected_template
    = GST_STATIC_PAD_TEMPLATE ("expected", GST_PAD_SINK, GST_PAD_REQUEST,
        GST_STATIC_CAPS (GST_TN_CAPS_ANY));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

GType
gst_tensor_compare_on_mismatch_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_TENSOR_COMPARE_ERROR, "Post an element error and stop", "error" },
    { GST_TENSOR_COMPARE_WARNING, "Post a warning and carry on", "warning" },
    { GST_TENSOR_COMPARE_MESSAGE, "Only the element message, carry on",
        "message" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("GstTensorCompareOnMismatch", values));
  return type;
}

GType
gst_tensor_compare_sync_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_TENSOR_COMPARE_SYNC_ORDER, "Pair buffers in the order they come",
        "order" },
    { GST_TENSOR_COMPARE_SYNC_TIMESTAMP, "Pair buffers of equal PTS",
        "timestamp" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("GstTensorCompareSync", values));
  return type;
}

/* "buffer 3 (pts 0:00:00.100000000)" */
gchar *
gst_tensor_compare_buffer_name (guint64 index, GstClockTime pts)
{
  if (GST_CLOCK_TIME_IS_VALID (pts))
    return g_strdup_printf ("buffer %" G_GUINT64_FORMAT
                            " (pts %" GST_TIME_FORMAT ")",
        index, GST_TIME_ARGS (pts));
  return g_strdup_printf ("buffer %" G_GUINT64_FORMAT " (pts none)", index);
}

/* Reports one failure as on-mismatch says; FALSE when it is an error. */
gboolean
gst_tensor_compare_fail (GstTensorCompare *self, const gchar *text)
{
  GstTensorCompareOnMismatch mode;

  GST_OBJECT_LOCK (self);
  mode = self->on_mismatch;
  GST_OBJECT_UNLOCK (self);
  switch (mode) {
  case GST_TENSOR_COMPARE_ERROR:
    /* one error per run: the pipeline stops at the first, and what EOS
     * finds after it (references left over) would be a second.  It is
     * posted by post_error, once the buffer went on. */
    if (!self->errored)
      self->error_text = g_strdup (text);
    self->errored = TRUE;
    return FALSE;
  case GST_TENSOR_COMPARE_WARNING:
    GST_ELEMENT_WARNING (self, STREAM, FAILED, ("%s", text), (NULL));
    return TRUE;
  default:
    GST_INFO_OBJECT (self, "%s", text);
    return TRUE;
  }
}

/* The error of on-mismatch=error, if one is pending. */
static void
post_error (GstTensorCompare *self)
{
  if (self->error_text) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", self->error_text), (NULL));
    g_clear_pointer (&self->error_text, g_free);
  }
}

/* The per-buffer message.  r NULL: no comparison happened (no
 * reference, dtype or dims differ), text says why. */
static void
post_result (GstTensorCompare *self, guint64 index, GstClockTime pts,
    const tn_cmp_result *r, const tn_view *v, const gchar *text)
{
  GstStructure *s;
  GValue arr = G_VALUE_INIT, item = G_VALUE_INIT;

  s = gst_structure_new ("tensorcompare", "index", G_TYPE_UINT64, index, "pts",
      G_TYPE_UINT64, (guint64) pts, "passed", G_TYPE_BOOLEAN, text == NULL,
      "items", G_TYPE_INT64, r ? r->items : (gint64) 0, "mismatches",
      G_TYPE_INT64, r ? r->bad : (gint64) 0, "max-abs", G_TYPE_DOUBLE,
      r ? r->max_abs : 0.0, "max-rel", G_TYPE_DOUBLE, r ? r->max_rel : 0.0,
      "max-ulp", G_TYPE_UINT64, r ? (guint64) r->max_ulp : (guint64) 0, NULL);
  if (text) {
    g_value_init (&arr, GST_TYPE_ARRAY);
    if (r && r->first >= 0) {
      gint64 i = r->first;
      gint idx[TN_MAX_RANK];

      for (gint ax = v->rank - 1; ax >= 0; ax--) {
        idx[ax] = (gint) (i % v->dims[ax]);
        i /= v->dims[ax];
      }
      for (gint ax = 0; ax < v->rank; ax++) {
        g_value_init (&item, G_TYPE_INT);
        g_value_set_int (&item, idx[ax]);
        gst_value_array_append_and_take_value (&arr, &item);
      }
    }
    gst_structure_set (s, "text", G_TYPE_STRING, text, "actual", G_TYPE_DOUBLE,
        r && r->first >= 0 ? r->first_actual : 0.0, "expected", G_TYPE_DOUBLE,
        r && r->first >= 0 ? r->first_expected : 0.0, NULL);
    gst_structure_take_value (s, "first-mismatch", &arr);
  }
  gst_element_post_message (
      GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self), s));
}

/* Posts text as buffer index's result and reports it as on-mismatch
 * says; FALSE to stop the stream. */
gboolean
gst_tensor_compare_report (
    GstTensorCompare *self, guint64 index, GstClockTime pts, const gchar *text)
{
  self->failed++;
  post_result (self, index, pts, NULL, NULL, text);
  return gst_tensor_compare_fail (self, text);
}

/* Compares one buffer (mapped as m) with the reference ev over ebase;
 * FALSE when the stream must stop. */
gboolean
gst_tensor_compare_check (GstTensorCompare *self, const GstTnMap *m,
    guint64 index, GstClockTime pts, const tn_view *ev, gconstpointer ebase)
{
  gchar *name, *text = NULL;
  tn_cmp_result r;
  tn_cmp_tol tol;
  tn_err e;
  tn_view nv;
  void *narrowed;
  gboolean bad_ref, go = TRUE;

  GST_OBJECT_LOCK (self);
  tol = self->tol;
  tol.exact = !self->rtol_set && !self->atol_set;
  GST_OBJECT_UNLOCK (self);

  /* a bfloat16 recording: npyenc and record=true write it as float32 */
  bad_ref = tn_compare_bf16_ref (&m->view, &ebase, &ev, &nv, &narrowed, &e) < 0;
  if (bad_ref || tn_compare_check (&m->view, ev, &e) < 0) {
    free (narrowed);
    name = gst_tensor_compare_buffer_name (index, pts);
    text = g_strdup_printf (
        "%s: %s%s", name, e.msg, bad_ref ? "" : " (actual against expected)");
    self->failed++;
    post_result (self, index, pts, NULL, NULL, text);
    go = gst_tensor_compare_fail (self, text);
    g_free (name);
    g_free (text);
    return go;
  }
  tn_compare (m->data, &m->view, ebase, ev, &tol, &r);
  free (narrowed);
  self->compared++;
  self->max_abs = MAX (self->max_abs, r.max_abs);
  self->max_rel = MAX (self->max_rel, r.max_rel);
  self->max_ulp = MAX (self->max_ulp, r.max_ulp);
  if (r.bad) {
    char why[512];

    tn_compare_format (why, sizeof why, &r, &m->view, &tol);
    name = gst_tensor_compare_buffer_name (index, pts);
    text = g_strdup_printf ("%s: %s", name, why);
    g_free (name);
    self->failed++;
  }
  post_result (self, index, pts, &r, &m->view, text);
  if (text) {
    go = gst_tensor_compare_fail (self, text);
    g_free (text);
  }
  return go;
}

/* ---- pads ---- */

static GstFlowReturn
gst_tensor_compare_chain (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  GstTensorCompare *self = GST_TENSOR_COMPARE (parent);
  guint64 index = self->index++;
  GstClockTime pts = GST_BUFFER_PTS (buf);
  GError *err = NULL;
  GstTnMap m;
  gboolean go;

  if (!self->have_info) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Buffer %" G_GUINT64_FORMAT " came before any tensor caps.", index),
        (NULL));
    gst_buffer_unref (buf);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!gst_tn_buffer_map (&m, buf, &self->info, GST_MAP_READ, &err)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Buffer %" G_GUINT64_FORMAT " does not hold the tensor its caps "
         "describe: %s",
            index, err->message),
        (NULL));
    g_clear_error (&err);
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  if (self->record)
    go = gst_tensor_compare_record (self, &m, index);
  else if (self->expected_pad)
    go = gst_tensor_compare_with_expected (self, &m, index, pts);
  else
    go = gst_tensor_compare_with_file (self, &m, index, pts);
  gst_tn_buffer_unmap (&m);
  if (!go && self->error_text) {
    /* The failing buffer still goes on, then the error stops the stream:
     * a sink waiting for its first buffer prerolls on it, and
     * gst-launch-1.0 of GStreamer 1.22, which does not always exit after
     * an error while prerolling, gets it in PLAYING and exits non-zero. */
    gst_pad_push (self->srcpad, buf);
    post_error (self);
    return GST_FLOW_ERROR;
  }
  if (!go) {
    gst_buffer_unref (buf);
    return self->flushing ? GST_FLOW_FLUSHING : GST_FLOW_ERROR;
  }
  return gst_pad_push (self->srcpad, buf);
}

/* At EOS: references left over, the recording written, the summary. */
static gboolean
gst_tensor_compare_finish (GstTensorCompare *self)
{
  gboolean go = TRUE, silent;
  GstStructure *s;

  if (self->errored)
    go = FALSE;
  else if (self->record)
    go = gst_tensor_compare_record_finish (self);
  else if (self->expected_pad)
    go = gst_tensor_compare_expected_leftover (self);
  else
    go = gst_tensor_compare_file_leftover (self);

  s = gst_structure_new ("tensorcompare-summary", "buffers", G_TYPE_UINT64,
      self->compared, "failed", G_TYPE_UINT64, self->failed, "max-abs",
      G_TYPE_DOUBLE, self->max_abs, "max-rel", G_TYPE_DOUBLE, self->max_rel,
      "max-ulp", G_TYPE_UINT64, (guint64) self->max_ulp, NULL);
  gst_element_post_message (
      GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self), s));
  GST_OBJECT_LOCK (self);
  silent = self->silent;
  GST_OBJECT_UNLOCK (self);
  if (!silent && self->record)
    g_print ("%s: %" G_GUINT64_FORMAT " references recorded\n",
        GST_OBJECT_NAME (self), self->index);
  else if (!silent)
    g_print ("%s: %" G_GUINT64_FORMAT " buffers compared, %" G_GUINT64_FORMAT
             " failed; worst abs %g, rel %g, ulp %" G_GUINT64_FORMAT "\n",
        GST_OBJECT_NAME (self), self->compared, self->failed, self->max_abs,
        self->max_rel, (guint64) self->max_ulp);
  return go;
}

static gboolean
gst_tensor_compare_sink_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  GstTensorCompare *self = GST_TENSOR_COMPARE (parent);

  switch (GST_EVENT_TYPE (event)) {
  case GST_EVENT_CAPS: {
    GstCaps *caps;
    GError *err = NULL;

    gst_event_parse_caps (event, &caps);
    if (!gst_tn_info_from_caps (&self->info, caps, &err)) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Cannot read the tensor caps: %s", err->message),
          ("caps %" GST_PTR_FORMAT, caps));
      g_clear_error (&err);
      self->have_info = FALSE;
      gst_event_unref (event);
      return FALSE;
    }
    self->have_info = TRUE;
    break;
  }
  case GST_EVENT_FLUSH_START:
    gst_tensor_compare_set_flushing (self, TRUE);
    break;
  case GST_EVENT_FLUSH_STOP:
    gst_tensor_compare_set_flushing (self, FALSE);
    break;
  case GST_EVENT_EOS:
    if (!gst_tensor_compare_finish (self)) {
      post_error (self);
      gst_event_unref (event);
      return FALSE;
    }
    break;
  default:
    break;
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
gst_tensor_compare_sink_query (GstPad *pad, GstObject *parent, GstQuery *query)
{
  if (gst_tn_pad_accept_caps_query (pad, parent, query))
    return TRUE;
  /* ALLOCATION goes downstream (GST_PAD_FLAG_PROXY_ALLOCATION): the
   * buffer is passed on, so downstream's answer is the one that counts */
  return gst_pad_query_default (pad, parent, query);
}

static GstPad *
gst_tensor_compare_request_new_pad (GstElement *element, GstPadTemplate *templ,
    const gchar *name, const GstCaps *caps)
{
  GstTensorCompare *self = GST_TENSOR_COMPARE (element);
  GstPad *pad;

  GST_OBJECT_LOCK (self);
  if (self->expected_pad) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "it has an expected pad already");
    return NULL;
  }
  GST_OBJECT_UNLOCK (self);
  pad = gst_pad_new_from_template (templ, "expected");
  gst_tensor_compare_expected_setup (self, pad);
  GST_OBJECT_LOCK (self);
  self->expected_pad = pad;
  GST_OBJECT_UNLOCK (self);
  gst_element_add_pad (element, pad);
  return pad;
}

static void
gst_tensor_compare_release_pad (GstElement *element, GstPad *pad)
{
  GstTensorCompare *self = GST_TENSOR_COMPARE (element);

  GST_OBJECT_LOCK (self);
  if (self->expected_pad == pad)
    self->expected_pad = NULL;
  GST_OBJECT_UNLOCK (self);
  gst_element_remove_pad (element, pad);
}

static gboolean gst_tensor_compare_check_tolerances (GstTensorCompare *self);

static GstStateChangeReturn
gst_tensor_compare_change_state (GstElement *element, GstStateChange transition)
{
  GstTensorCompare *self = GST_TENSOR_COMPARE (element);
  GstStateChangeReturn ret;

  switch (transition) {
  case GST_STATE_CHANGE_READY_TO_PAUSED:
    if (!gst_tensor_compare_check_tolerances (self)
        || !gst_tensor_compare_start (self))
      return GST_STATE_CHANGE_FAILURE;
    break;
  case GST_STATE_CHANGE_PAUSED_TO_READY:
    gst_tensor_compare_set_flushing (self, TRUE);
    break;
  default:
    break;
  }
  ret = GST_ELEMENT_CLASS (gst_tensor_compare_parent_class)
            ->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    gst_tensor_compare_stop (self);
  return ret;
}

/* ---- properties ---- */

/* What the tolerances can be (tnelement.h): any value is stored, and
 * one outside these is an error at start or, set while running, a
 * warning that keeps the old one.  +inf is usable, as in NumPy: atol=inf
 * passes every two finite items, so only where the infinities and NaNs
 * are is compared. */
static const GstTnDoubleRange rtol_range = { "rtol", 0.0, INFINITY };
static const GstTnDoubleRange atol_range = { "atol", 0.0, INFINITY };
static const GstTnIntRange max_ulp_range
    = { "max-ulp", -1, G_MAXINT64, "rtol and atol" };

/* From the state change to PAUSED: the tolerances stored are usable. */
static gboolean
gst_tensor_compare_check_tolerances (GstTensorCompare *self)
{
  GstElement *el = GST_ELEMENT (self);
  tn_cmp_tol tol;

  GST_OBJECT_LOCK (self);
  tol = self->tol;
  GST_OBJECT_UNLOCK (self);
  return gst_tn_element_check_double (el, &rtol_range, tol.rtol)
         && gst_tn_element_check_double (el, &atol_range, tol.atol)
         && gst_tn_element_check_int (el, &max_ulp_range, tol.max_ulp);
}

enum {
  PROP_0,
  PROP_REFERENCE,
  PROP_RTOL,
  PROP_ATOL,
  PROP_MAX_ULP,
  PROP_EQUAL_NAN,
  PROP_ON_MISMATCH,
  PROP_SYNC,
  PROP_RECORD,
  PROP_SILENT,
};

static void
gst_tensor_compare_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorCompare *self = GST_TENSOR_COMPARE (object);

  if ((prop_id == PROP_REFERENCE || prop_id == PROP_RECORD
          || prop_id == PROP_SYNC)
      && !gst_tn_element_property_settable (GST_ELEMENT (self), pspec, value))
    return;
  if ((prop_id == PROP_RTOL
          && !gst_tn_element_double_settable (
              GST_ELEMENT (self), &rtol_range, g_value_get_double (value)))
      || (prop_id == PROP_ATOL
          && !gst_tn_element_double_settable (
              GST_ELEMENT (self), &atol_range, g_value_get_double (value)))
      || (prop_id == PROP_MAX_ULP
          && !gst_tn_element_int_settable (
              GST_ELEMENT (self), &max_ulp_range, g_value_get_int64 (value))))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_REFERENCE:
    g_free (self->reference);
    self->reference = g_value_dup_string (value);
    break;
  case PROP_RTOL:
    self->tol.rtol = g_value_get_double (value);
    self->rtol_set = TRUE;
    break;
  case PROP_ATOL:
    self->tol.atol = g_value_get_double (value);
    self->atol_set = TRUE;
    break;
  case PROP_MAX_ULP:
    self->tol.max_ulp = g_value_get_int64 (value);
    break;
  case PROP_EQUAL_NAN:
    self->tol.equal_nan = g_value_get_boolean (value);
    break;
  case PROP_ON_MISMATCH:
    self->on_mismatch = g_value_get_enum (value);
    break;
  case PROP_SYNC:
    self->sync = g_value_get_enum (value);
    break;
  case PROP_RECORD:
    self->record = g_value_get_boolean (value);
    break;
  case PROP_SILENT:
    self->silent = g_value_get_boolean (value);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_compare_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTensorCompare *self = GST_TENSOR_COMPARE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_REFERENCE:
    g_value_set_string (value, self->reference);
    break;
  case PROP_RTOL:
    g_value_set_double (value, self->tol.rtol);
    break;
  case PROP_ATOL:
    g_value_set_double (value, self->tol.atol);
    break;
  case PROP_MAX_ULP:
    g_value_set_int64 (value, self->tol.max_ulp);
    break;
  case PROP_EQUAL_NAN:
    g_value_set_boolean (value, self->tol.equal_nan);
    break;
  case PROP_ON_MISMATCH:
    g_value_set_enum (value, self->on_mismatch);
    break;
  case PROP_SYNC:
    g_value_set_enum (value, self->sync);
    break;
  case PROP_RECORD:
    g_value_set_boolean (value, self->record);
    break;
  case PROP_SILENT:
    g_value_set_boolean (value, self->silent);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_compare_finalize (GObject *object)
{
  GstTensorCompare *self = GST_TENSOR_COMPARE (object);

  gst_tensor_compare_stop (self);
  g_free (self->error_text);
  g_free (self->reference);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (gst_tensor_compare_parent_class)->finalize (object);
}

#define PARAM_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)

static void
gst_tensor_compare_class_init (GstTensorCompareClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_tensor_compare_debug, "tensorcompare", 0,
      "Tensor comparison with references");

  gobject_class->set_property = gst_tensor_compare_set_property;
  gobject_class->get_property = gst_tensor_compare_get_property;
  gobject_class->finalize = gst_tensor_compare_finalize;

  /**
   * GstTensorCompare:reference:
   *
   * The references: a .npy path (the reference of every buffer, or with
   * one more axis in front, one per buffer along axis 0), or a pattern
   * with one printf-style integer conversion (`golden-%05d.npy`), file i
   * for buffer i.  NULL (the default) when the references come on the
   * expected pad.  Set in NULL or READY only.
   */
  g_object_class_install_property (gobject_class, PROP_REFERENCE,
      g_param_spec_string ("reference", "Reference",
          "A .npy path (one reference, or one per buffer along axis 0), or "
          "a pattern such as golden-%05d.npy (file i for buffer i)",
          NULL, PARAM_FLAGS));
  /**
   * GstTensorCompare:rtol:
   *
   * Relative tolerance, as numpy.testing.assert_allclose's: an item
   * passes when |actual - expected| <= atol + rtol * |expected|.  0 to
   * +inf (not NaN); default 1e-7.  +inf is allowed, as in NumPy: an item
   * whose expected value is not 0 then passes when both are finite (inf
   * times 0 is NaN, so against 0 atol still applies).  Setting it (or
   * atol) makes integers compare under the tolerance instead of exactly.
   * Any double is stored: one below 0, or NaN, is an error when the
   * element starts, and set while it runs a warning that keeps the old
   * value.
   */
  g_object_class_install_property (gobject_class, PROP_RTOL,
      g_param_spec_double ("rtol", "Relative tolerance",
          "Items pass when |actual - expected| <= atol + rtol * |expected|; "
          "0 to inf (setting it makes integers compare under the tolerance)",
          -INFINITY, INFINITY, 1e-7,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING | G_PARAM_LAX_VALIDATION));
  /**
   * GstTensorCompare:atol:
   *
   * Absolute tolerance (see rtol).  0 to +inf (not NaN); default 0.
   * atol=inf is allowed, as in NumPy: every two finite items pass, so only
   * where the infinities and NaNs are is compared.  Any double is stored:
   * one below 0, or NaN, is an error when the element starts, and set
   * while it runs a warning that keeps the old value.
   */
  g_object_class_install_property (gobject_class, PROP_ATOL,
      g_param_spec_double ("atol", "Absolute tolerance",
          "Items pass when |actual - expected| <= atol + rtol * |expected|; "
          "0 to inf (setting it makes integers compare under the tolerance)",
          -INFINITY, INFINITY, 0.0,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING | G_PARAM_LAX_VALIDATION));
  /**
   * GstTensorCompare:max-ulp:
   *
   * For float dtypes, the bound in units in the last place that replaces
   * rtol and atol (numpy.testing.assert_array_max_ulp), 0 to G_MAXINT64;
   * -1 (the default) uses rtol and atol.  Integers ignore it.  Any int64
   * is stored: one below -1 is an error when the element starts, and set
   * while it runs a warning that keeps the old value.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_ULP,
      g_param_spec_int64 ("max-ulp", "Max ULP",
          "For floats: items pass when at most this many units in the last "
          "place apart, instead of rtol/atol; -1 (rtol/atol) or more",
          G_MININT64, G_MAXINT64, -1, PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstTensorCompare:equal-nan:
   *
   * Whether NaN against NaN passes (NumPy's equal_nan); default TRUE.
   */
  g_object_class_install_property (gobject_class, PROP_EQUAL_NAN,
      g_param_spec_boolean ("equal-nan", "Equal NaN", "NaN against NaN passes",
          TRUE, PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstTensorCompare:on-mismatch:
   *
   * What a failing buffer does besides its element message: error (the
   * default: an element error, the pipeline stops and gst-launch-1.0
   * exits non-zero), warning, or message (carry on).
   */
  g_object_class_install_property (gobject_class, PROP_ON_MISMATCH,
      g_param_spec_enum ("on-mismatch", "On mismatch",
          "What a failing buffer does: error (stop), warning, or message "
          "(carry on)",
          GST_TYPE_TENSOR_COMPARE_ON_MISMATCH, GST_TENSOR_COMPARE_ERROR,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstTensorCompare:sync:
   *
   * How sink buffers pair with expected buffers: order (the default: the
   * i-th with the i-th) or timestamp (equal PTS; expected buffers of an
   * earlier PTS have no partner and are reported).  Set in NULL or READY.
   */
  g_object_class_install_property (gobject_class, PROP_SYNC,
      g_param_spec_enum ("sync", "Sync",
          "Pairing with the expected pad: order or timestamp (equal PTS)",
          GST_TYPE_TENSOR_COMPARE_SYNC, GST_TENSOR_COMPARE_SYNC_ORDER,
          PARAM_FLAGS));
  /**
   * GstTensorCompare:record:
   *
   * Writes the references named by reference instead of comparing: one
   * file per buffer for a pattern, or at EOS one file with the buffers
   * stacked along a new axis 0.  Default FALSE.  Set in NULL or READY.
   */
  g_object_class_install_property (gobject_class, PROP_RECORD,
      g_param_spec_boolean ("record", "Record",
          "Write the references (reference=) instead of comparing", FALSE,
          PARAM_FLAGS));
  /**
   * GstTensorCompare:silent:
   *
   * Leaves out the summary line printed on stdout at EOS (the summary
   * message is posted either way).  Default FALSE.
   */
  g_object_class_install_property (gobject_class, PROP_SILENT,
      g_param_spec_boolean ("silent", "Silent",
          "No summary line on stdout at EOS", FALSE,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &expected_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Tensor compare",
      "Filter/Debug/Tensor",
      "Compares tensors with references under NumPy's tolerances and "
      "passes them on untouched",
      "gst-tensor developers");
  gst_type_mark_as_plugin_api (GST_TYPE_TENSOR_COMPARE_ON_MISMATCH, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_TENSOR_COMPARE_SYNC, 0);

  element_class->change_state
      = GST_DEBUG_FUNCPTR (gst_tensor_compare_change_state);
  element_class->request_new_pad
      = GST_DEBUG_FUNCPTR (gst_tensor_compare_request_new_pad);
  element_class->release_pad
      = GST_DEBUG_FUNCPTR (gst_tensor_compare_release_pad);
}

static void
gst_tensor_compare_init (GstTensorCompare *self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (
      self->sinkpad, GST_DEBUG_FUNCPTR (gst_tensor_compare_chain));
  gst_pad_set_event_function (
      self->sinkpad, GST_DEBUG_FUNCPTR (gst_tensor_compare_sink_event));
  gst_pad_set_query_function (
      self->sinkpad, GST_DEBUG_FUNCPTR (gst_tensor_compare_sink_query));
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_tn_pad_accept_intersect (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  tn_cmp_tol_init (&self->tol);
  self->on_mismatch = GST_TENSOR_COMPARE_ERROR;
  self->sync = GST_TENSOR_COMPARE_SYNC_ORDER;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->queue);
}
