/* GStreamer tensor plugin: batches and sliding windows along an axis.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensorwindow
 * @title: tensorwindow
 * @see_also: tensorconvert, tensorview, tensorreduce
 *
 * Reads the input stream as one long tensor joined along
 * #GstTensorWindow:axis and cuts it into windows of
 * #GstTensorWindow:size items that start #GstTensorWindow:hop items
 * apart: `hop` less than `size` overlaps the windows (4096-sample
 * analysis windows every 1024 samples), `hop` equal to `size` (the
 * default) cuts the stream into batches, `hop` greater than `size` skips
 * the items between windows.  Every other axis (and the dtype) must stay
 * the same across the stream.
 *
 * With #GstTensorWindow:stack every input tensor is first given a new
 * axis at `axis`, so frames `<3, 224, 224>` with `size=8` become batches
 * `<8, 3, 224, 224>`.  The other way, `<8, 3, 224, 224>` with `size=1`
 * gives `<1, 3, 224, 224>`, and #GstTensorWindow:squeeze drops that axis
 * of extent 1: `<3, 224, 224>`.
 *
 * ## Timestamps and offsets
 *
 * A window's PTS is the time of its first item, interpolated inside the
 * input buffer that holds it from that buffer's duration (or, without
 * one, from the framerate); its duration covers `size` items.  The output
 * framerate is the input's item rate divided by `hop` (input framerate x
 * extent along `axis` / `hop`; with `stack=true`, framerate / `hop`).
 * Without timestamps on the input the windows have none either.  OFFSET
 * and OFFSET_END count items of the joined stream: a window holds items
 * [OFFSET, OFFSET_END).  A flush (a flushing seek) empties the window and
 * starts the count again.
 *
 * ## Caps changes and the end of the stream
 *
 * The extent along `axis` may change from buffer to buffer (new caps);
 * windows go on across the change, since the joined stream is the same
 * tensor.  A change of the dtype or of any other axis is an error that
 * names both dims.  A change that is compatible but changes the output
 * caps (another framerate) first drains the current window, as the end
 * of the stream does, so no window mixes two item rates.  At the end of
 * the stream (and at such a drain), a window that has started but is not
 * full is dropped with a warning saying how many items were left;
 * with #GstTensorWindow:pad-end every window that has started is emitted,
 * its missing items zero (TensorFlow's `tf.signal.frame (pad_end=True)`).
 *
 * ## Copies
 *
 * A window that lies inside one input buffer is that buffer's memory: a
 * shared sub-range when the window is dense (`axis` 0, or all axes before
 * it of extent 1), else a view with the layout meta when downstream reads
 * it, else copied once.  A window that spans input buffers is a view into
 * one ring of memory of the element's own, which every input byte some
 * such window needs is copied into exactly once, however much the windows
 * overlap; the ring is mapped twice back to back, so every window in it is
 * contiguous.  The ring holds items in stream order with the window axis
 * outermost, so for `axis` 0 its windows are dense; for another axis
 * they are strided views (the layout meta), and a reader of dense
 * tensors only gets each window copied once more out of the ring.  Input
 * buffers are never kept: what later windows need is in the ring when the
 * chain function returns.  A window downstream still holds is never
 * overwritten: when the ring would have to, a larger ring is started (a
 * window and a hop after the first ring of one window, twice as large
 * after that; the items of the window in progress are then copied
 * again).
 * #GstTensorWindow:bytes-copied counts every byte copied.
 *
 * ## Example launch lines
 * Overlapping windows of stereo audio, 4096 frames every 1024, printed
 * as summaries:
 * |[
 * gst-launch-1.0 audiotestsrc num-buffers=8 samplesperbuffer=1024 \
 *     ! audio/x-raw,channels=2 ! tensorconvert frames=1024 \
 *     ! tensorwindow size=4096 hop=1024 ! tensordebug ! fakesink
 * ]|
 * Batches of 8 CHW frames for a model, `<8, 3, 48, 64>`:
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=16 \
 *     ! video/x-raw,format=RGB,width=64,height=48 ! tensorconvert \
 *     ! tensorview ops=permute:2:0:1 ! tensorwindow stack=true size=8 \
 *     ! tensordebug ! fakesink
 * ]|
 * A batch back into its items (`np.arange (24).reshape (4, 6)` into four
 * rows of 6), then windows of 3 along the last axis every 2 items:
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=int32,dims=<4,6>" \
 *     ! tensorwindow size=1 squeeze=true ! tensordebug ! fakesink
 * ]|
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=2 \
 *     ! "tensor/x-raw,type=int32,dims=<2,3>" \
 *     ! tensorwindow axis=1 size=3 hop=2 pad-end=true ! tensordebug \
 *     ! fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/base/gstbasetransform.h>
#include <gst/tensor/gsttensor.h>

#include "elements.h"
#include "tnalloc.h"
#include "tensorwindow.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY (gst_tensor_window_debug);
#define GST_CAT_DEFAULT gst_tensor_window_debug

enum {
  PROP_0,
  PROP_AXIS,
  PROP_SIZE,
  PROP_HOP,
  PROP_STACK,
  PROP_SQUEEZE,
  PROP_PAD_END,
  PROP_BYTES_COPIED,
};

#define DEFAULT_AXIS 0
#define DEFAULT_SIZE 1
#define DEFAULT_HOP 0

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

G_DEFINE_TYPE (GstTensorWindow, gst_tensor_window, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (
    tensorwindow, "tensorwindow", GST_RANK_NONE, GST_TYPE_TENSOR_WINDOW);

static Settings
gst_tensor_window_settings (GstTensorWindow *self)
{
  Settings s;

  GST_OBJECT_LOCK (self);
  s = self->props;
  GST_OBJECT_UNLOCK (self);
  if (s.hop == 0)
    s.hop = s.size;
  return s;
}

/* The window axis for an input of rank rank: 0..rank-1, or 0..rank with
 * stack (a new axis); a negative axis counts from the end.  -1 when it
 * is out of range, with the reason in *why. */
static gint
gst_tensor_window_axis (const Settings *s, gint rank, gchar **why)
{
  gint n = s->stack ? rank + 1 : rank;
  gint k = s->axis < 0 ? s->axis + n : s->axis;

  if (k < 0 || k >= n) {
    if (why)
      *why = g_strdup_printf (
          "axis %d is out of range for %s of rank %d (%s%d..%d)", s->axis,
          s->stack ? "stacking tensors" : "a tensor", rank, n > 0 ? "-" : "", n,
          n - 1);
    return -1;
  }
  return k;
}

/* Output dims for input dims: FALSE with the reason when they do not
 * fit the settings. */
static gboolean
gst_tensor_window_out_dims (const Settings *s, const gint64 *dims, gint rank,
    gint64 *out, gint *out_rank, gchar **why)
{
  gint k = gst_tensor_window_axis (s, rank, why), i, j = 0;

  if (k < 0)
    return FALSE;
  if (s->stack && rank + 1 > TN_MAX_RANK) {
    if (why)
      *why = g_strdup_printf ("stacking tensors of rank %d gives rank %d; at "
                              "most %d axes are supported",
          rank, rank + 1, TN_MAX_RANK);
    return FALSE;
  }
  for (i = 0; i < rank + (s->stack ? 1 : 0); i++) {
    if (i == k) {
      if (!s->squeeze)
        out[j++] = s->size;
    } else {
      out[j++] = dims[s->stack && i > k ? i - 1 : i];
    }
  }
  *out_rank = j;
  return TRUE;
}

static GstCaps *
gst_tensor_window_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstTensorWindow *self = GST_TENSOR_WINDOW (trans);
  Settings s = gst_tensor_window_settings (self);
  GstCaps *out = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *st = gst_structure_copy (gst_caps_get_structure (caps, i));
    gint64 dims[TN_MAX_RANK], od[TN_MAX_RANK];
    gint rank, orank, fn, fd;
    gboolean fixed = gst_tn_structure_get_dims (st, dims, &rank, NULL);

    if (direction == GST_PAD_SINK) {
      if (fixed && s.size >= 1
          && gst_tensor_window_out_dims (&s, dims, rank, od, &orank, NULL)) {
        gint k = gst_tensor_window_axis (&s, rank, NULL);
        gint per = s.stack ? 1 : (gint) MIN (dims[k], G_MAXINT);

        gst_tn_structure_set_dims (st, od, orank);
        /* item rate / hop */
        if (gst_structure_get_fraction (st, "framerate", &fn, &fd)) {
          if (fn == 0 || per == 0 || s.hop < 1
              || !gst_util_fraction_multiply (fn, fd, per, s.hop, &fn, &fd))
            fn = 0, fd = 1;
          gst_structure_set (st, "framerate", GST_TYPE_FRACTION, fn, fd, NULL);
        } else if (gst_structure_has_field (st, "framerate")) {
          gst_structure_remove_field (st, "framerate");
        }
      } else {
        /* Open, or not fitting: accept_caps says why. */
        gst_structure_remove_field (st, "dims");
        gst_structure_remove_field (st, "framerate");
      }
    } else {
      gint k = fixed ? gst_tensor_window_axis (
                   &s, rank - (s.stack ? 1 : 0) + (s.squeeze ? 1 : 0), NULL)
                     : -1;

      gst_structure_remove_field (st, "framerate");
      if (k < 0) {
        gst_structure_remove_field (st, "dims");
      } else {
        /* Undo the squeeze, then the stack (drop the axis) or open the
         * extent along the axis. */
        GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
        gint r = rank + (s.squeeze ? 1 : 0), a;

        gst_value_array_init (&arr, r);
        for (a = 0; a < r; a++) {
          gint64 d = a == k ? s.size : dims[a > k && s.squeeze ? a - 1 : a];

          if (a == k && s.stack)
            continue;
          if (a == k) {
            g_value_init (&v, GST_TYPE_INT_RANGE);
            gst_value_set_int_range (&v, 1, G_MAXINT);
          } else {
            g_value_init (&v, G_TYPE_INT);
            g_value_set_int (&v, (gint) d);
          }
          gst_value_array_append_and_take_value (&arr, &v);
          memset (&v, 0, sizeof v);
        }
        gst_structure_take_value (st, "dims", &arr);
      }
    }
    out = gst_caps_merge_structure (out, st);
  }
  if (filter) {
    GstCaps *t
        = gst_caps_intersect_full (filter, out, GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (out);
    out = t;
  }
  GST_LOG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, out);
  return out;
}

/* Caps whose dims do not fit the settings: say why before negotiation
 * fails. */
static gboolean
gst_tensor_window_accept_caps (
    GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps)
{
  GstTensorWindow *self = GST_TENSOR_WINDOW (trans);
  Settings s = gst_tensor_window_settings (self);
  gint64 od[TN_MAX_RANK];
  gint orank;
  GstTnInfo in;
  gchar *why = NULL;

  if (direction == GST_PAD_SINK && gst_caps_is_fixed (caps) && s.size >= 1
      && gst_tn_info_from_caps (&in, caps, NULL)
      && !gst_tensor_window_out_dims (&s, in.dims, in.rank, od, &orank, &why)) {
    gchar *desc = gst_tn_info_to_string (&in);

    if (gst_tn_caps_refusal_is_new (&self->refused, caps))
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("%s: cannot cut windows of %s: %s.", GST_OBJECT_NAME (self), desc,
              why),
          ("caps %" GST_PTR_FORMAT, caps));
    g_free (desc);
    g_free (why);
    return FALSE;
  }
  return gst_tn_transform_accept_caps (trans, direction, caps);
}

/* What one item is, and the output, for the caps in in_info. */
static gboolean
gst_tensor_window_setup (GstTensorWindow *self, gchar **why)
{
  GstTnInfo *in = &self->in_info;
  gint64 idims[TN_MAX_RANK];
  gint i, j = 0;

  self->k = gst_tensor_window_axis (&self->run, in->rank, why);
  if (self->k < 0)
    return FALSE;
  for (i = 0; i < in->rank; i++)
    if (self->run.stack || i != self->k)
      idims[j++] = in->dims[i];
  if (tn_view_init (&self->item, in->dtype, idims, j, NULL) != 0
      || !gst_tn_info_size (&self->out_info, &self->out_nbytes)) {
    *why = g_strdup ("the windows do not fit in memory");
    return FALSE;
  }
  /* (run.size may be new: no duration from the last stream) */
  self->span_den = 0;
  self->isz = tn_dtype_size (in->dtype);
  /* the data path masks addresses with isz - 1 */
  g_assert (self->isz > 0 && (self->isz & (self->isz - 1)) == 0);
  self->item_bytes = (gsize) tn_view_count (&self->item) * self->isz;
  if (tn_view_init (&self->in_view, in->dtype, in->dims, in->rank, NULL) != 0
      || !gst_tn_info_size (in, &self->in_nbytes)) {
    *why = g_strdup ("the input tensors do not fit in memory");
    return FALSE;
  }
  gst_tensor_window_items_view (self, self->run.size, &self->win_view);
  self->win_dense = tn_view_dense (&self->win_view);
  /* stack: an item is a whole input; else items along k are one run when
   * every axis outside k has extent 1 */
  self->items_contig = TRUE;
  for (i = 0; !self->run.stack && i < self->k; i++)
    self->items_contig = self->items_contig && in->dims[i] == 1;
  return TRUE;
}

static gboolean
gst_tensor_window_set_caps (
    GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstTensorWindow *self = GST_TENSOR_WINDOW (trans);
  GstTnInfo in, out;
  gchar *why = NULL;

  if (!gst_tn_transform_read_caps (trans, incaps, outcaps, &in, &out))
    return FALSE;
  if (self->have_info) {
    gboolean same_out = gst_tn_info_equal (&out, &self->out_info);
    gboolean ok
        = in.dtype == self->in_info.dtype && in.rank == self->in_info.rank;
    gint i;

    for (i = 0; ok && i < in.rank; i++)
      ok = in.dims[i] == self->in_info.dims[i]
           || (!self->run.stack && i == self->k);
    /* GstPad sends a refused sticky caps event again before the next
     * buffer: that is the same refusal, posted once */
    if (!ok && !gst_tn_caps_refusal_is_new (&self->refused, incaps))
      return FALSE;
    if (!ok) {
      gchar *a = gst_tn_info_to_string (&self->in_info);
      gchar *b = gst_tn_info_to_string (&in);

      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("%s: the caps changed from %s to %s, which breaks the window: "
           "%s must stay the same across the stream.",
              GST_OBJECT_NAME (self), a, b,
              self->run.stack ? "the dtype and every axis"
                              : "the dtype, the rank and every axis but "
                                "the window axis"),
          (NULL));
      g_free (a);
      g_free (b);
      return FALSE;
    }
    if (!same_out)
      gst_tensor_window_drain (self, "the output caps change");
  } else {
    self->run = gst_tensor_window_settings (self);
  }
  self->in_info = in;
  self->out_info = out;
  if (!gst_tensor_window_setup (self, &why)) {
    if (gst_tn_caps_refusal_is_new (&self->refused, incaps))
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("%s: %s.", GST_OBJECT_NAME (self), why), (NULL));
    g_free (why);
    return FALSE;
  }
  self->have_info = TRUE;
  return TRUE;
}

/* Reads any layout: a view is copied into the ring, or passed on as a
 * view only to a downstream that reads the meta, else copied once. */
static gboolean
gst_tensor_window_propose_allocation (
    GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
  return gst_tn_transform_propose_layout_meta (
      GST_BASE_TRANSFORM_CLASS (gst_tensor_window_parent_class), trans,
      decide_query, query);
}

static gboolean
gst_tensor_window_decide_allocation (GstBaseTransform *trans, GstQuery *query)
{
  GstTensorWindow *self = GST_TENSOR_WINDOW (trans);
  GstCaps *caps;

  self->downstream_meta = gst_query_find_allocation_meta (
      query, GST_TN_LAYOUT_META_API_TYPE, NULL);
  GST_DEBUG_OBJECT (
      self, "downstream reads the layout meta: %d", self->downstream_meta);
  /* The pool serves the copies: windows for a reader of dense tensors
   * only and padded windows. */
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps != NULL && self->out_nbytes > 0 && self->out_nbytes <= G_MAXUINT
      && !gst_tn_decide_allocation (query, caps, self->out_nbytes))
    GST_WARNING_OBJECT (self, "no tensor pool; copies will use the allocator");
  if (self->pool) {
    gst_object_unref (self->pool);
    self->pool = NULL;
  }
  return TRUE;
}

static GstFlowReturn
gst_tensor_window_submit_input_buffer (
    GstBaseTransform *trans, gboolean is_discont, GstBuffer *input)
{
  GstTensorWindow *self = (GstTensorWindow *) trans;
  GstFlowReturn ret;
  GstBuffer *in;

  /* The base class's QoS and renegotiation; it leaves the buffer in
   * queued_buf. */
  /* a plain cast: the checked one costs a type lookup per buffer */
  ret = ((GstBaseTransformClass *) gst_tensor_window_parent_class)
            ->submit_input_buffer (trans, is_discont, input);
  if (ret != GST_FLOW_OK || trans->queued_buf == NULL)
    return ret;
  in = trans->queued_buf;
  trans->queued_buf = NULL;
  if (!self->have_info) {
    gst_buffer_unref (in);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  ret = gst_tensor_window_take (self, in);
  gst_buffer_unref (in);
  return ret;
}

/* The base class's chain (submit_input_buffer, then generate_output and
 * a push per window) as the taker's thread of views: a window that dies
 * downstream in this thread meanwhile goes back without an atomic
 * (tnviews.h). */
static GstFlowReturn
gst_tensor_window_chain (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  GstTensorWindow *self = (GstTensorWindow *) parent;
  GstFlowReturn ret;

  gst_tn_views_enter (self->views);
  ret = self->parent_chain (pad, parent, buf);
  gst_tn_views_leave (self->views);
  return ret;
}

/* Never called (generate_output makes every buffer); having it keeps the
 * base class from taking the element for a passthrough, which would skip
 * decide_allocation. */
static GstFlowReturn
gst_tensor_window_transform (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_tensor_window_generate_output (GstBaseTransform *trans, GstBuffer **outbuf)
{
  GstTensorWindow *self = (GstTensorWindow *) trans;

  *outbuf = gst_tensor_window_pop_out (self);
  return GST_FLOW_OK;
}

static gboolean
gst_tensor_window_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstTensorWindow *self = GST_TENSOR_WINDOW (trans);

  switch (GST_EVENT_TYPE (event)) {
  case GST_EVENT_EOS:
    if (self->have_info)
      gst_tensor_window_drain (self, "the end of the stream");
    break;
  case GST_EVENT_FLUSH_STOP:
  case GST_EVENT_STREAM_START:
    gst_tensor_window_reset (self);
    break;
  default:
    break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_tensor_window_parent_class)
      ->sink_event (trans, event);
}

/* Values the property ranges let through but a window cannot use stop
 * the element here, on its way to PAUSED. */
static gboolean
gst_tensor_window_start (GstBaseTransform *trans)
{
  GstTensorWindow *self = GST_TENSOR_WINDOW (trans);
  Settings s;
  gchar *text;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  s = self->props;
  GST_OBJECT_UNLOCK (self);
  gst_tn_caps_refusal_clear (&self->refused);
  self->have_info = FALSE;
  gst_tensor_window_reset (self);
  if (s.size < 1) {
    text = g_strdup_printf ("%d", s.size);
    ok = gst_tn_element_property_error (
        GST_ELEMENT (self), "size", text, "a window holds 1 or more items");
  } else if (s.hop < 0) {
    text = g_strdup_printf ("%d", s.hop);
    ok = gst_tn_element_property_error (GST_ELEMENT (self), "hop", text,
        "windows start 1 or more items apart (0: hop = size)");
  } else if (s.squeeze && s.size != 1) {
    text = g_strdup_printf ("%d", s.size);
    ok = gst_tn_element_property_error (GST_ELEMENT (self), "size", text,
        "squeeze=true drops the window axis, which needs size=1");
  } else {
    text = NULL;
  }
  g_free (text);
  return ok;
}

static gboolean
gst_tensor_window_stop (GstBaseTransform *trans)
{
  GstTensorWindow *self = GST_TENSOR_WINDOW (trans);

  gst_tensor_window_reset (self);
  self->have_info = FALSE;
  gst_tn_caps_refusal_clear (&self->refused);
  if (self->pool) {
    gst_buffer_pool_set_active (self->pool, FALSE);
    gst_object_unref (self->pool);
    self->pool = NULL;
  }
  return TRUE;
}

static void
gst_tensor_window_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorWindow *self = GST_TENSOR_WINDOW (object);

  if (!gst_tn_element_property_settable (GST_ELEMENT (self), pspec, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_AXIS:
    self->props.axis = g_value_get_int (value);
    break;
  case PROP_SIZE:
    self->props.size = g_value_get_int (value);
    break;
  case PROP_HOP:
    self->props.hop = g_value_get_int (value);
    break;
  case PROP_STACK:
    self->props.stack = g_value_get_boolean (value);
    break;
  case PROP_SQUEEZE:
    self->props.squeeze = g_value_get_boolean (value);
    break;
  case PROP_PAD_END:
    self->props.pad_end = g_value_get_boolean (value);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_tensor_window_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTensorWindow *self = GST_TENSOR_WINDOW (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_AXIS:
    g_value_set_int (value, self->props.axis);
    break;
  case PROP_SIZE:
    g_value_set_int (value, self->props.size);
    break;
  case PROP_HOP:
    g_value_set_int (value, self->props.hop);
    break;
  case PROP_STACK:
    g_value_set_boolean (value, self->props.stack);
    break;
  case PROP_SQUEEZE:
    g_value_set_boolean (value, self->props.squeeze);
    break;
  case PROP_PAD_END:
    g_value_set_boolean (value, self->props.pad_end);
    break;
  case PROP_BYTES_COPIED:
    g_value_set_uint64 (
        value, __atomic_load_n (&self->bytes_copied, __ATOMIC_RELAXED));
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_window_finalize (GObject *object)
{
  GstTensorWindow *self = GST_TENSOR_WINDOW (object);

  gst_tensor_window_reset (self);
  g_free (self->pend);
  gst_tn_caps_refusal_clear (&self->refused);
  gst_tn_views_close (self->views);
  g_free (self->out);
  if (self->pool)
    gst_object_unref (self->pool);
  G_OBJECT_CLASS (gst_tensor_window_parent_class)->finalize (object);
}

static void
gst_tensor_window_class_init (GstTensorWindowClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw
      = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;

  GST_DEBUG_CATEGORY_INIT (gst_tensor_window_debug, "tensorwindow", 0,
      "batches and sliding windows");

  gobject_class->set_property = gst_tensor_window_set_property;
  gobject_class->get_property = gst_tensor_window_get_property;
  gobject_class->finalize = gst_tensor_window_finalize;

  /* Ranges are every int, so that GLib does not refuse a value with a
   * warning and keep the default in its place; start() refuses what a
   * window cannot use, and the caps an axis out of range. */

  /**
   * GstTensorWindow:axis:
   *
   * The axis the stream is joined and cut along; a negative axis counts
   * from the end.  Without stack it is an axis of the input (0..rank-1);
   * with stack, the position of the new axis in the output (0..rank).
   * Default 0.
   */
  g_object_class_install_property (gobject_class, PROP_AXIS,
      g_param_spec_int ("axis", "Axis",
          "Axis to join the stream along and cut the windows from (negative: "
          "from the end); with stack, where the new axis goes",
          G_MININT, G_MAXINT, DEFAULT_AXIS, rw));
  /**
   * GstTensorWindow:size:
   *
   * Items along the axis in one window, 1 or more (default 1).
   */
  g_object_class_install_property (gobject_class, PROP_SIZE,
      g_param_spec_int ("size", "Size",
          "Items along the axis per window (>= 1)", G_MININT, G_MAXINT,
          DEFAULT_SIZE, rw));
  /**
   * GstTensorWindow:hop:
   *
   * Items from the start of one window to the start of the next, 1 or
   * more; 0 (the default) means size.  Less than size overlaps windows,
   * more skips items.
   */
  g_object_class_install_property (gobject_class, PROP_HOP,
      g_param_spec_int ("hop", "Hop",
          "Items from one window's start to the next (>= 1; 0: size)", G_MININT,
          G_MAXINT, DEFAULT_HOP, rw));
  /**
   * GstTensorWindow:stack:
   *
   * Gives every input tensor a new axis at axis first, so that a window
   * of size tensors is a batch of them.  Default false.
   */
  g_object_class_install_property (gobject_class, PROP_STACK,
      g_param_spec_boolean ("stack", "Stack",
          "Give every input tensor a new axis at axis (batch tensors)", FALSE,
          rw));
  /**
   * GstTensorWindow:squeeze:
   *
   * Drops the window axis from the output; needs size=1 (unbatching).
   * Default false.
   */
  g_object_class_install_property (gobject_class, PROP_SQUEEZE,
      g_param_spec_boolean ("squeeze", "Squeeze",
          "Drop the window axis of extent 1 (needs size=1)", FALSE, rw));
  /**
   * GstTensorWindow:pad-end:
   *
   * At the end of the stream, emits every window that has started, its
   * missing items zero, instead of dropping a partial window with a
   * warning.  Default false.
   */
  g_object_class_install_property (gobject_class, PROP_PAD_END,
      g_param_spec_boolean ("pad-end", "Pad end",
          "Emit partial windows at the end of the stream, padded with zeros",
          FALSE, rw));
  /**
   * GstTensorWindow:bytes-copied:
   *
   * Bytes copied so far: input items copied into the ring, windows copied
   * for a reader of dense tensors, padded windows, and items moved into a
   * new ring.
   */
  g_object_class_install_property (gobject_class, PROP_BYTES_COPIED,
      g_param_spec_uint64 ("bytes-copied", "Bytes copied",
          "Bytes copied so far: items into the ring, windows for a reader of "
          "dense tensors, padded windows",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Tensor window",
      "Filter/Converter/Tensor",
      "Cuts a stream of tensors joined along an axis into batches or "
      "overlapping windows, sharing memory instead of copying overlaps",
      "gst-tensor developers");

  trans_class->transform_caps
      = GST_DEBUG_FUNCPTR (gst_tensor_window_transform_caps);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_tensor_window_accept_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_tn_transform_query);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_tensor_window_set_caps);
  trans_class->propose_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_window_propose_allocation);
  trans_class->decide_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_window_decide_allocation);
  trans_class->submit_input_buffer
      = GST_DEBUG_FUNCPTR (gst_tensor_window_submit_input_buffer);
  trans_class->generate_output
      = GST_DEBUG_FUNCPTR (gst_tensor_window_generate_output);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_tensor_window_transform);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_tensor_window_sink_event);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_tensor_window_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_tensor_window_stop);
  trans_class->passthrough_on_same_caps = FALSE;
}

static void
gst_tensor_window_init (GstTensorWindow *self)
{
  self->props.axis = DEFAULT_AXIS;
  self->props.size = DEFAULT_SIZE;
  self->props.hop = DEFAULT_HOP;
  self->pend_cap = 8;
  self->pend = g_new (Pending, self->pend_cap);
  self->out_cap = 4;
  self->out = g_new (GstBuffer *, self->out_cap);
  self->discont = TRUE;
  self->views = gst_tn_views_new ();
  /* the base class set its chain function in its init, before this */
  self->parent_chain = GST_PAD_CHAINFUNC (GST_BASE_TRANSFORM_SINK_PAD (self));
  gst_pad_set_chain_function (
      GST_BASE_TRANSFORM_SINK_PAD (self), gst_tensor_window_chain);
}
