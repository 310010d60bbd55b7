/* GStreamer tensor plugin: prints the tensors passing through.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensordebug
 * @title: tensordebug
 * @see_also: tensorsrc, identity
 *
 * Prints every #GstTensorDebugger:every-th tensor that passes, the way
 * NumPy prints an array, and passes every buffer on untouched: the output
 * buffer is the input buffer, never copied, never written.
 *
 * Each printed tensor starts with a header line: the element's name, the
 * buffer's index (counted from 0 since the element started), its PTS, the
 * dtype and dims, the strides and offset when the tensor is not dense,
 * and min, max and mean over the items that are not NaN, with the number
 * of NaN items ("nan=3"). The values follow, as numpy.array2string prints
 * them: nested brackets, items aligned, rows wrapped at 75 characters, and
 * past #GstTensorDebugger:threshold items only #GstTensorDebugger:edgeitems
 * at each end of every axis with "..." between.
 *
 * |[
 * tensordebug0: buffer 0 pts 0:00:00.000000000 float32 <2, 3>: min=0.0
 * max=5.0 mean=2.5 nan=0
 * [[0. 1. 2.]
 *  [3. 4. 5.]]
 * ]|
 *
 * Strided tensors are printed as they are, but tensordebug passes every
 * buffer on, so whatever reads after it reads the same buffer: it answers
 * the ALLOCATION query with downstream's answer, never adding the layout
 * meta itself.  A view reaches tensordebug only when everything after it
 * reads the meta too; before a filesink, appsink or gdppay (which answer
 * nothing, meaning "dense only") upstream makes the tensor dense, exactly
 * as it would without tensordebug in the pipeline.
 *
 * #GstTensorDebugger:every, #GstTensorDebugger:threshold,
 * #GstTensorDebugger:edgeitems and #GstTensorDebugger:linewidth store any
 * value of their type; one they cannot use (every=0, a negative
 * threshold) is an error when the element goes to PAUSED, and set while
 * it runs a warning that keeps the value in use.
 *
 * #GstTensorDebugger:output chooses where the text goes: standard output
 * (g_print), standard error (g_printerr), or the GStreamer log at INFO
 * level in the "tensordebug" category (GST_DEBUG=tensordebug:4 shows it;
 * INFO because the user asked for it, yet it is not a warning).
 *
 * A buffer whose size does not match its caps (and layout meta) is an
 * error: tensordebug posts it with the sizes and returns GST_FLOW_ERROR.
 *
 * The statistics read each distinct item once: a broadcast view (stride
 * 0) of a few items to billions costs a few reads.  A view whose strides
 * overlap can still hold up to 2^63 items over little storage; a flushing
 * seek or a state change below PAUSED stops the work at once, and the
 * buffer it was printing is not printed.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=2 \
 *     ! "tensor/x-raw,type=float32,dims=<2,3>" ! tensordebug ! fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/base/gstbasetransform.h>
#include <gst/tensor/gsttensor.h>

#include "core/print.h"
#include "elements.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_debugger_debug);
#define GST_CAT_DEFAULT gst_tensor_debugger_debug

/* Not GstTensorDebug: NNStreamer's tensor_debug registers that GType and
 * both plugins may be loaded in one process. */
#define GST_TYPE_TENSOR_DEBUGGER (gst_tensor_debugger_get_type ())
G_DECLARE_FINAL_TYPE (GstTensorDebugger, gst_tensor_debugger, GST,
    TENSOR_DEBUGGER, GstBaseTransform)

typedef enum {
  GST_TENSOR_DEBUGGER_OUTPUT_STDOUT,
  GST_TENSOR_DEBUGGER_OUTPUT_STDERR,
  GST_TENSOR_DEBUGGER_OUTPUT_LOG,
} GstTensorDebuggerOutput;

#define GST_TYPE_TENSOR_DEBUGGER_OUTPUT (gst_tensor_debugger_output_get_type ())

#define DEFAULT_EVERY 1
#define DEFAULT_OUTPUT GST_TENSOR_DEBUGGER_OUTPUT_STDOUT
#define DEFAULT_THRESHOLD 1000
#define DEFAULT_EDGEITEMS 3
#define DEFAULT_LINEWIDTH 75

enum {
  PROP_0,
  PROP_EVERY,
  PROP_OUTPUT,
  PROP_THRESHOLD,
  PROP_EDGEITEMS,
  PROP_LINEWIDTH,
};

struct _GstTensorDebugger {
  GstBaseTransform parent;

  /* properties, under the object lock */
  gint every;
  GstTensorDebuggerOutput output;
  gint64 threshold;
  gint edgeitems;
  gint linewidth;

  /* Set (from any thread) when the sink pad starts flushing or the element
   * leaves PAUSED, cleared at FLUSH_STOP and start: the core's statistics
   * and printer look at it every few microseconds, so a long print
   * cannot keep the streaming thread from stopping. */
  atomic_int cancel;

  /* streaming thread only */
  gboolean have_info;
  GstTnInfo info;
  guint64 index;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

G_DEFINE_TYPE (GstTensorDebugger, gst_tensor_debugger, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (
    tensordebug, "tensordebug", GST_RANK_NONE, GST_TYPE_TENSOR_DEBUGGER);

static GType
gst_tensor_debugger_output_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_TENSOR_DEBUGGER_OUTPUT_STDOUT, "Standard output (g_print)",
        "stdout" },
    { GST_TENSOR_DEBUGGER_OUTPUT_STDERR, "Standard error (g_printerr)",
        "stderr" },
    { GST_TENSOR_DEBUGGER_OUTPUT_LOG,
        "The GStreamer log, INFO level, category tensordebug", "log" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTensorDebuggerOutput", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

/* What the print options can be (tnelement.h): any int is stored, and
 * one outside these is an error at start or, set while running, a
 * warning that keeps the old one.  ("every=-1" would be 4294967295 in a
 * uint property: GStreamer's parser wraps it.) */
static const GstTnIntRange every_range
    = { "every", 1, G_MAXINT, "every buffer" };
static const GstTnIntRange threshold_range
    = { "threshold", 0, G_MAXINT64, NULL };
static const GstTnIntRange edgeitems_range = { "edgeitems", 1, G_MAXINT, NULL };
static const GstTnIntRange linewidth_range = { "linewidth", 1, G_MAXINT, NULL };

static gboolean
gst_tensor_debugger_start (GstBaseTransform *trans)
{
  GstTensorDebugger *self = GST_TENSOR_DEBUGGER (trans);
  GstElement *el = GST_ELEMENT (self);
  gint every, edgeitems, linewidth;
  gint64 threshold;

  GST_OBJECT_LOCK (self);
  every = self->every;
  threshold = self->threshold;
  edgeitems = self->edgeitems;
  linewidth = self->linewidth;
  GST_OBJECT_UNLOCK (self);
  if (!gst_tn_element_check_int (el, &every_range, every)
      || !gst_tn_element_check_int (el, &threshold_range, threshold)
      || !gst_tn_element_check_int (el, &edgeitems_range, edgeitems)
      || !gst_tn_element_check_int (el, &linewidth_range, linewidth))
    return FALSE;
  self->index = 0;
  atomic_store (&self->cancel, 0);
  return TRUE;
}

/* FLUSH_START comes from the seeking thread while the streaming thread
 * may be inside transform_ip: it only raises the flag, which that thread
 * polls.  FLUSH_STOP is serialized, so nothing is being printed then. */
static gboolean
gst_tensor_debugger_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstTensorDebugger *self = GST_TENSOR_DEBUGGER (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_START)
    atomic_store (&self->cancel, 1);
  else if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    atomic_store (&self->cancel, 0);
  return GST_BASE_TRANSFORM_CLASS (gst_tensor_debugger_parent_class)
      ->sink_event (trans, event);
}

/* Leaving PAUSED deactivates the pads, which waits for the streaming
 * thread to leave transform_ip; GstBaseTransform's stop runs only after
 * that wait, so the flag is raised here, before it. */
static GstStateChangeReturn
gst_tensor_debugger_change_state (
    GstElement *element, GstStateChange transition)
{
  GstTensorDebugger *self = GST_TENSOR_DEBUGGER (element);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    atomic_store (&self->cancel, 1);
  return GST_ELEMENT_CLASS (gst_tensor_debugger_parent_class)
      ->change_state (element, transition);
}

static gboolean
gst_tensor_debugger_set_caps (
    GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstTensorDebugger *self = GST_TENSOR_DEBUGGER (trans);
  GError *err = NULL;

  if (!gst_tn_info_from_caps (&self->info, incaps, &err)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot read the tensor caps: %s", err->message),
        ("caps %" GST_PTR_FORMAT, incaps));
    g_clear_error (&err);
    self->have_info = FALSE;
    return FALSE;
  }
  self->have_info = TRUE;
  return TRUE;
}

static void
gst_tensor_debugger_emit (
    GstTensorDebugger *self, GstTensorDebuggerOutput output, const gchar *text)
{
  switch (output) {
  case GST_TENSOR_DEBUGGER_OUTPUT_STDERR:
    g_printerr ("%s", text);
    break;
  case GST_TENSOR_DEBUGGER_OUTPUT_LOG:
    GST_INFO_OBJECT (self, "%s", text);
    break;
  default:
    g_print ("%s", text);
    break;
  }
}

/* The header line, then the values; NULL when cancelled (the pad is
 * flushing or the element stopping). */
static gchar *
gst_tensor_debugger_describe (GstTensorDebugger *self, GstBuffer *buf,
    const GstTnMap *m, guint64 index, const tn_print_opts *opts)
{
  const tn_view *v = &m->view;
  GString *s = g_string_new (NULL);
  gchar *info = gst_tn_info_to_string (&self->info);
  char stats[256];
  tn_stats st;
  tn_err e;
  char *values;

  g_string_append_printf (s, "%s: buffer %" G_GUINT64_FORMAT " pts ",
      GST_OBJECT_NAME (self), index);
  if (GST_BUFFER_PTS_IS_VALID (buf))
    g_string_append_printf (
        s, "%" GST_TIME_FORMAT, GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  else
    g_string_append (s, "none");
  g_string_append_printf (s, " %s", info);
  g_free (info);
  if (!tn_view_dense (v) || v->offset != 0) {
    char strides[TN_MAX_RANK * 22 + 8];

    tn_shape_format (strides, sizeof strides, v->strides, v->rank);
    g_string_append_printf (s, " strides %s", strides);
    if (v->offset != 0)
      g_string_append_printf (s, " offset %" G_GINT64_FORMAT, v->offset);
  }
  if (tn_stats_compute_cancellable (&st, m->data, v, &self->cancel, &e) == 0) {
    tn_stats_format (stats, sizeof stats, &st);
    g_string_append_printf (s, ": %s\n", stats);
  } else {
    g_string_append_printf (s, ": %s\n", e.msg);
  }

  if (atomic_load (&self->cancel)) {
    g_string_free (s, TRUE);
    return NULL;
  }
  values = tn_print_array (m->data, v, opts, NULL, &e);
  if (values) {
    g_string_append (s, values);
    g_string_append_c (s, '\n');
    free (values);
  } else {
    g_string_append_printf (s, "(values not printed: %s)\n", e.msg);
  }
  return g_string_free (s, FALSE);
}

static GstFlowReturn
gst_tensor_debugger_transform_ip (GstBaseTransform *trans, GstBuffer *buf)
{
  GstTensorDebugger *self = GST_TENSOR_DEBUGGER (trans);
  GstTensorDebuggerOutput output;
  tn_print_opts opts;
  GError *err = NULL;
  guint64 index = self->index++;
  guint64 every;
  GstTnMap m;
  gchar *text;

  if (!self->have_info) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Buffer %" G_GUINT64_FORMAT " of %" G_GSIZE_FORMAT " bytes came "
         "before any tensor caps.",
            index, gst_buffer_get_size (buf)),
        (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }

  GST_OBJECT_LOCK (self);
  /* >= 1 (start and set_property); MAX for a value stored in the moment
   * the element started, so that no buffer divides by 0 */
  every = MAX (self->every, 1);
  output = self->output;
  opts.threshold = self->threshold;
  opts.edgeitems = self->edgeitems;
  opts.linewidth = self->linewidth;
  opts.cancel = &self->cancel;
  GST_OBJECT_UNLOCK (self);

  /* Every buffer is checked, printed or not: a debugger must not let a
   * malformed one through unnoticed. */
  if (!gst_tn_buffer_map (&m, buf, &self->info, GST_MAP_READ, &err)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Buffer %" G_GUINT64_FORMAT " does not hold the tensor its caps "
         "describe: %s",
            index, err->message),
        (NULL));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
  /* With output=log below INFO nobody would see the text: skip making it */
  if (index % every == 0
      && (output != GST_TENSOR_DEBUGGER_OUTPUT_LOG
          || gst_debug_category_get_threshold (GST_CAT_DEFAULT)
                 >= GST_LEVEL_INFO)) {
    text = gst_tensor_debugger_describe (self, buf, &m, index, &opts);
    /* a print cut short by a flush is dropped, not emitted half-made */
    if (text && atomic_load (&self->cancel)) {
      g_free (text);
      text = NULL;
    }
    if (!text) {
      gst_tn_buffer_unmap (&m);
      GST_DEBUG_OBJECT (self,
          "buffer %" G_GUINT64_FORMAT " not printed: "
          "flushing",
          index);
      return GST_FLOW_FLUSHING;
    }
    gst_tensor_debugger_emit (self, output, text);
    g_free (text);
  }
  gst_tn_buffer_unmap (&m);
  return GST_FLOW_OK;
}

static void
gst_tensor_debugger_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorDebugger *self = GST_TENSOR_DEBUGGER (object);
  GstElement *el = GST_ELEMENT (self);

  /* A value that cannot be used, set while running, keeps the old one. */
  if ((prop_id == PROP_EVERY
          && !gst_tn_element_int_settable (
              el, &every_range, g_value_get_int (value)))
      || (prop_id == PROP_THRESHOLD
          && !gst_tn_element_int_settable (
              el, &threshold_range, g_value_get_int64 (value)))
      || (prop_id == PROP_EDGEITEMS
          && !gst_tn_element_int_settable (
              el, &edgeitems_range, g_value_get_int (value)))
      || (prop_id == PROP_LINEWIDTH
          && !gst_tn_element_int_settable (
              el, &linewidth_range, g_value_get_int (value))))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_EVERY:
    self->every = g_value_get_int (value);
    break;
  case PROP_OUTPUT:
    self->output = g_value_get_enum (value);
    break;
  case PROP_THRESHOLD:
    self->threshold = g_value_get_int64 (value);
    break;
  case PROP_EDGEITEMS:
    self->edgeitems = g_value_get_int (value);
    break;
  case PROP_LINEWIDTH:
    self->linewidth = g_value_get_int (value);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_debugger_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTensorDebugger *self = GST_TENSOR_DEBUGGER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_EVERY:
    g_value_set_int (value, self->every);
    break;
  case PROP_OUTPUT:
    g_value_set_enum (value, self->output);
    break;
  case PROP_THRESHOLD:
    g_value_set_int64 (value, self->threshold);
    break;
  case PROP_EDGEITEMS:
    g_value_set_int (value, self->edgeitems);
    break;
  case PROP_LINEWIDTH:
    g_value_set_int (value, self->linewidth);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The GType is not the factory's name (NNStreamer owns GstTensorDebug):
 * tensordebugger0 becomes tensordebug0. */
static void
gst_tensor_debugger_constructed (GObject *object)
{
  gst_tn_element_name_as_factory (
      GST_ELEMENT (object), "tensordebugger", "tensordebug");
  G_OBJECT_CLASS (gst_tensor_debugger_parent_class)->constructed (object);
}

static void
gst_tensor_debugger_class_init (GstTensorDebuggerClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_tensor_debugger_debug, "tensordebug", 0,
      "Tensor debugger (printed tensors go here with output=log)");

  gobject_class->set_property = gst_tensor_debugger_set_property;
  gobject_class->get_property = gst_tensor_debugger_get_property;
  gobject_class->constructed = gst_tensor_debugger_constructed;

  /**
   * GstTensorDebugger:every:
   *
   * Prints buffers 0, every, 2 * every, ... (counted since the element
   * started); every buffer is still checked against its caps.  1 (every
   * buffer, the default) to G_MAXINT.  An int that stores any value, so
   * that every=0 or every=-1 reaches the element: an error when it
   * starts, a warning that keeps the old value while it runs.
   */
  g_object_class_install_property (gobject_class, PROP_EVERY,
      g_param_spec_int ("every", "Every",
          "Print buffers 0, N, 2N, ... (N is 1 or more: 1 prints all); every "
          "buffer is still checked against its caps",
          G_MININT, G_MAXINT, DEFAULT_EVERY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstTensorDebugger:output:
   *
   * Where the text goes: stdout, stderr, or the GStreamer log (INFO level,
   * category "tensordebug").
   */
  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output",
          "Where the text goes: stdout, stderr, or the GStreamer log (INFO "
          "level, category tensordebug)",
          GST_TYPE_TENSOR_DEBUGGER_OUTPUT, DEFAULT_OUTPUT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstTensorDebugger:threshold:
   *
   * Tensors of more items than this print summarised, as NumPy's
   * threshold print option.  0 to G_MAXINT64; any int64 is stored, and a
   * negative one is an error when the element starts (a warning that
   * keeps the old value while it runs).
   */
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_int64 ("threshold", "Threshold",
          "Summarise tensors of more items than this (NumPy's threshold), 0 "
          "or more",
          G_MININT64, G_MAXINT64, DEFAULT_THRESHOLD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstTensorDebugger:edgeitems:
   *
   * Items shown at each end of a summarised axis, as NumPy's edgeitems.
   * 1 to G_MAXINT (NumPy's 0 shows whole axes by a slicing quirk); any
   * int is stored, and another is an error when the element starts (a
   * warning that keeps the old value while it runs).
   */
  g_object_class_install_property (gobject_class, PROP_EDGEITEMS,
      g_param_spec_int ("edgeitems", "Edge items",
          "Items shown at each end of a summarised axis (NumPy's "
          "edgeitems), 1 or more",
          G_MININT, G_MAXINT, DEFAULT_EDGEITEMS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstTensorDebugger:linewidth:
   *
   * Characters per line before a row wraps, as NumPy's linewidth.  1 to
   * G_MAXINT; any int is stored, and another is an error when the
   * element starts (a warning that keeps the old value while it runs).
   */
  g_object_class_install_property (gobject_class, PROP_LINEWIDTH,
      g_param_spec_int ("linewidth", "Line width",
          "Characters per line before a row wraps (NumPy's linewidth), 1 or "
          "more",
          G_MININT, G_MAXINT, DEFAULT_LINEWIDTH,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Tensor debugger",
      "Filter/Debug/Tensor",
      "Prints the tensors passing through as NumPy does, with min, max, mean "
      "and NaN count, and passes them on untouched",
      "gst-tensor developers");

  gst_type_mark_as_plugin_api (GST_TYPE_TENSOR_DEBUGGER_OUTPUT, 0);

  element_class->change_state
      = GST_DEBUG_FUNCPTR (gst_tensor_debugger_change_state);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_tn_transform_accept_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_tn_transform_query);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_tensor_debugger_start);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_tensor_debugger_sink_event);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_tensor_debugger_set_caps);
  trans_class->transform_ip
      = GST_DEBUG_FUNCPTR (gst_tensor_debugger_transform_ip);
}

static void
gst_tensor_debugger_init (GstTensorDebugger *self)
{
  self->every = DEFAULT_EVERY;
  self->output = DEFAULT_OUTPUT;
  self->threshold = DEFAULT_THRESHOLD;
  self->edgeitems = DEFAULT_EDGEITEMS;
  self->linewidth = DEFAULT_LINEWIDTH;
  atomic_init (&self->cancel, 0);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}
