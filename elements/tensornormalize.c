/* GStreamer tensor plugin: softmax-style normalisations along axes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensornormalize
 * @title: tensornormalize
 * @see_also: tensorreduce, tensorop
 *
 * Normalises every tensor along some of its axes, keeping its shape:
 * the softmax of a classifier's scores, its logarithm, standardisation to
 * zero mean and unit variance, division by the L2 norm, or scaling to
 * [0, 1].
 *
 * #GstTensorNormalize:op is one of
 *
 * * `softmax`: `exp(x - max) / sum(exp(x - max))`
 * * `log-softmax`: `(x - max) - log(sum(exp(x - max)))`, stable for
 *   scores of any size since the maximum is subtracted first
 * * `standardize`: `(x - mean) / sqrt(var + eps)`, var the population
 *   variance (NumPy's `var()`)
 * * `l2`: `x / max(sqrt(sum(x * x)), eps)`
 * * `minmax`: `(x - min) / (max - min)`, and 0 where max equals min and
 *   is finite (a group of -inf or of +inf is NaN, as the formula gives)
 *
 * taken over #GstTensorNormalize:axes (default `-1`, the last axis): the
 * items that share their indices on the other axes form one group.
 * A rank-0 tensor is one group of its one item under axes `-1`, `0` or
 * empty (where NumPy's `axis=-1` would raise); any other axis is an error.
 * #GstTensorNormalize:eps is read by `standardize` (default 1e-5, as the
 * batch-normalisation layers of the ML frameworks) and `l2` (default
 * 1e-12, as torch.nn.functional.normalize); the default is the op's, and
 * a value set by the user applies as given, 0 included (zero variance
 * then gives NaN).  The other ops take no eps, and setting one for them is
 * an error when the element starts.
 *
 * float32, float64, float16 and bfloat16 tensors; the half types are
 * computed in float32 and rounded once.  Integer tensors fail negotiation
 * with a message that suggests `tensorop ops=cast:float32` first.
 *
 * ## Numbers
 *
 * The statistics are tensorreduce's reductions with their fixed
 * association (core/reduce.h): the maximum and minimum, and sums folded in
 * float64 lanes, so the output has the same bits for every
 * #GstTensorNormalize:n-threads and on every CPU.  float32 softmax is
 * within 4 ulp of the float64 result rounded to float32 (its exp is a
 * vectorised polynomial within 1 ulp; the sum and the scaling are
 * float64); the other float32 ops are computed in float64 from float64
 * statistics and rounded once.  NaN spreads along its group, and so does
 * a group of -inf under softmax (-inf - -inf is NaN, as in NumPy's
 * formula).
 *
 * Output tensors come from a tensor buffer pool; input is read dense
 * (tensornormalize does not advertise the layout meta, so a view upstream
 * is copied once before it).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 tensorsrc pattern=normal num-buffers=1 \
 *     ! "tensor/x-raw,type=float32,dims=<4,10>" \
 *     ! tensornormalize op=softmax ! tensordebug ! fakesink
 * ]| The softmax of 4 rows of 10 scores: every row sums to 1.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 \
 *     ! video/x-raw,format=RGB,width=64,height=48 ! tensorconvert \
 *     ! tensorop ops=cast:float32 ! tensornormalize op=standardize axes=0,1 \
 *     ! tensordebug ! fakesink
 * ]| Each colour channel of an image to zero mean and unit variance;
 * the uint8 frame is cast to float32 first.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/base/gstbasetransform.h>
#include <gst/tensor/gsttensor.h>

#include "core/normalize.h"
#include "core/reduce.h"
#include "elements.h"
#include "tnalloc.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_normalize_debug);
#define GST_CAT_DEFAULT gst_tensor_normalize_debug

#define GST_TYPE_TENSOR_NORMALIZE (gst_tensor_normalize_get_type ())
G_DECLARE_FINAL_TYPE (GstTensorNormalize, gst_tensor_normalize, GST,
    TENSOR_NORMALIZE, GstBaseTransform)

#define GST_TYPE_TENSOR_NORMALIZE_OP (gst_tensor_normalize_op_get_type ())

#define DEFAULT_OP TN_NORM_SOFTMAX
#define DEFAULT_AXES "-1"
#define DEFAULT_EPS (-1.0)
#define FLOAT_TYPES "{ float32, float64, float16, bfloat16 }"

enum {
  PROP_0,
  PROP_OP,
  PROP_AXES,
  PROP_EPS,
  PROP_N_THREADS,
};

struct _GstTensorNormalize {
  GstBaseTransform parent;

  /* properties, under the object lock */
  tn_norm_op op;
  tn_axes axes;
  gchar *axes_text;
  gchar *axes_error; /* why axes_text cannot be used, or NULL */
  gdouble eps;       /* -1: the op's default */
  gint n_threads;

  /* streaming thread: what set_caps settled */
  gboolean configured;
  GstTnInfo info;
  uint32_t mask;
  gsize size;
  GstCaps *refused; /* input caps of the last error posted */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

G_DEFINE_TYPE (
    GstTensorNormalize, gst_tensor_normalize, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (tensornormalize, "tensornormalize", GST_RANK_NONE,
    GST_TYPE_TENSOR_NORMALIZE);

static GType
gst_tensor_normalize_op_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { TN_NORM_SOFTMAX, "exp(x - max) / sum(exp(x - max))", "softmax" },
    { TN_NORM_LOG_SOFTMAX, "(x - max) - log(sum(exp(x - max)))",
        "log-softmax" },
    { TN_NORM_STANDARDIZE, "(x - mean) / sqrt(var + eps)", "standardize" },
    { TN_NORM_L2, "x / max(sqrt(sum(x * x)), eps)", "l2" },
    { TN_NORM_MINMAX, "(x - min) / (max - min), 0 where max == min is finite",
        "minmax" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTensorNormalizeOp", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

/* Negotiation: the same caps on both sides, float types only. */
static GstCaps *
gst_tensor_normalize_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstCaps *floats, *res;

  floats = gst_caps_from_string ("tensor/x-raw, type=(string)" FLOAT_TYPES);
  res = gst_caps_intersect_full (caps, floats, GST_CAPS_INTERSECT_FIRST);
  if (direction == GST_PAD_SINK && !gst_caps_is_any (caps)) {
    /* Integer input still links, as float output after the rest: the
     * CAPS event then refuses it with the reason (an empty answer would
     * fail the link with a bare "could not link"). */
    GstCaps *other = gst_caps_copy (caps);

    for (guint i = 0; i < gst_caps_get_size (other); i++)
      gst_structure_remove_field (gst_caps_get_structure (other, i), "type");
    gst_caps_set_value (other, "type",
        gst_structure_get_value (gst_caps_get_structure (floats, 0), "type"));
    res = gst_caps_merge (res, other);
  }
  gst_caps_unref (floats);
  res = gst_tn_caps_filter (res, filter);
  GST_DEBUG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

/* Upstream held to integer caps still links (any tensor comes last in
 * the answer), and the CAPS event then says why it is refused. */
static gboolean
gst_tensor_normalize_query (
    GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  gst_tn_transform_explain_query (trans, direction, query);
  return gst_tn_transform_query_any_tensor (
      GST_BASE_TRANSFORM_CLASS (gst_tensor_normalize_parent_class), trans,
      direction, query);
}

static GstCaps *
gst_tensor_normalize_fixate_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *othercaps)
{
  return gst_tn_caps_fixate (othercaps);
}

/* Whether in can be normalised: 0 with the axes' mask, or -1 with the
 * reason in e.  Under the object lock. */
static int
gst_tensor_normalize_plan (
    GstTensorNormalize *self, const GstTnInfo *in, uint32_t *mask, tn_err *e)
{
  const char *name = GST_OBJECT_NAME (self);
  gchar *desc = gst_tn_info_to_string (in);
  tn_err why;
  int r = 0;

  if (in->dtype != TN_FLOAT32 && in->dtype != TN_FLOAT64
      && in->dtype != TN_FLOAT16 && in->dtype != TN_BFLOAT16) {
    tn_err_set (e,
        "%s: op=%s normalises float32, float64, float16 and bfloat16 "
        "tensors, and %s came; cast them first, e.g. with "
        "\"tensorop ops=cast:float32\" before %s.",
        name, tn_norm_op_name (self->op), desc, name);
    r = -1;
  } else if (tn_axes_mask (&self->axes, in->rank ? in->rank : 1, mask, &why) < 0
             || (in->rank == 0 && *mask != 1)) {
    tn_err_set (e, "%s: axes=\"%s\" cannot be used on %s tensors: %s", name,
        self->axes_text, desc,
        in->rank == 0 ? "a rank-0 tensor has no axes." : why.msg);
    r = -1;
  } else if (in->rank == 0) {
    *mask = 0;
  }
  g_free (desc);
  return r;
}

static gboolean
gst_tensor_normalize_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstTensorNormalize *self = GST_TENSOR_NORMALIZE (trans);
  GstCaps *caps;
  GstTnInfo in;
  uint32_t mask;
  tn_err e;
  int r;

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    gst_event_parse_caps (event, &caps);
    if (gst_tn_info_from_caps (&in, caps, NULL)) {
      GST_OBJECT_LOCK (self);
      r = gst_tensor_normalize_plan (self, &in, &mask, &e);
      GST_OBJECT_UNLOCK (self);
      if (r < 0) {
        if (gst_tn_caps_refusal_is_new (&self->refused, caps))
          GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", e.msg),
              ("input caps %" GST_PTR_FORMAT, caps));
        gst_event_unref (event);
        return FALSE;
      }
      gst_tn_caps_refusal_clear (&self->refused);
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_tensor_normalize_parent_class)
      ->sink_event (trans, event);
}

static gboolean
gst_tensor_normalize_set_caps (
    GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstTensorNormalize *self = GST_TENSOR_NORMALIZE (trans);
  GstTnInfo in, out;
  tn_err e;
  int r;

  self->configured = FALSE;
  if (!gst_tn_transform_read_caps (trans, incaps, outcaps, &in, &out))
    return FALSE;
  GST_OBJECT_LOCK (self);
  r = gst_tensor_normalize_plan (self, &in, &self->mask, &e);
  GST_OBJECT_UNLOCK (self);
  if (r < 0) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", e.msg),
        ("caps %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  if (!gst_tn_info_size (&in, &self->size)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Tensors of %" GST_PTR_FORMAT " do not fit in memory.", incaps),
        (NULL));
    return FALSE;
  }
  self->info = in;
  self->configured = TRUE;
  return TRUE;
}

static gboolean
gst_tensor_normalize_decide_allocation (
    GstBaseTransform *trans, GstQuery *query)
{
  GstTensorNormalize *self = GST_TENSOR_NORMALIZE (trans);

  if (self->size == 0)
    return TRUE;
  return gst_tn_element_decide_allocation (
      GST_ELEMENT (self), query, self->size);
}

static GstFlowReturn
gst_tensor_normalize_prepare_output_buffer (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer **outbuf)
{
  GstTensorNormalize *self = GST_TENSOR_NORMALIZE (trans);

  if (self->configured && self->size == 0) {
    *outbuf = gst_buffer_ref (inbuf); /* no items: nothing to change */
    return GST_FLOW_OK;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_tensor_normalize_parent_class)
      ->prepare_output_buffer (trans, inbuf, outbuf);
}

static GstFlowReturn
gst_tensor_normalize_transform (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  GstTensorNormalize *self = GST_TENSOR_NORMALIZE (trans);
  GstMapInfo dst = GST_MAP_INFO_INIT;
  GstBuffer *dense;
  GError *err = NULL;
  GstTnMap src;
  tn_norm_op op;
  gdouble eps;
  gint nthreads;
  tn_err e;
  int r;

  if (!self->configured) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("A buffer of %" G_GSIZE_FORMAT " bytes came before any tensor caps.",
            gst_buffer_get_size (inbuf)),
        (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (outbuf == inbuf)
    return GST_FLOW_OK; /* empty tensors */
  dense = gst_tn_buffer_dense (inbuf, &self->info, NULL, &err);
  if (dense == NULL
      || !gst_tn_buffer_map (&src, dense, &self->info, GST_MAP_READ, &err)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The input buffer does not hold the tensor its caps describe: %s",
            err->message),
        (NULL));
    g_error_free (err);
    if (dense)
      gst_buffer_unref (dense);
    return GST_FLOW_ERROR;
  }
  if (!gst_buffer_map (outbuf, &dst, GST_MAP_WRITE) || dst.size != self->size) {
    gsize got = dst.data ? dst.size : gst_buffer_get_size (outbuf);

    if (dst.data)
      gst_buffer_unmap (outbuf, &dst);
    gst_tn_buffer_unmap (&src);
    gst_buffer_unref (dense);
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("The output buffer holds %" G_GSIZE_FORMAT " bytes; the tensor "
         "needs %" G_GSIZE_FORMAT ".",
            got, self->size),
        (NULL));
    return GST_FLOW_ERROR;
  }
  GST_OBJECT_LOCK (self);
  op = self->op;
  eps = self->eps < 0 ? tn_norm_default_eps (op) : self->eps;
  nthreads = g_atomic_int_get (&self->n_threads);
  GST_OBJECT_UNLOCK (self);
  r = tn_normalize (
      dst.data, src.data, &src.view, op, self->mask, eps, nthreads, &e);
  gst_buffer_unmap (outbuf, &dst);
  gst_tn_buffer_unmap (&src);
  gst_buffer_unref (dense);
  if (r < 0) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot normalise the tensor: %s", e.msg), (NULL));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* Stored values that cannot be used stop the element here. */
static gboolean
gst_tensor_normalize_start (GstBaseTransform *trans)
{
  GstTensorNormalize *self = GST_TENSOR_NORMALIZE (trans);
  gchar *prop = NULL, *text = NULL, *why = NULL;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  if (self->axes_error) {
    prop = g_strdup ("axes");
    text = g_strdup (self->axes_text);
    why = g_strdup (self->axes_error);
  } else if (!isfinite (self->eps)) {
    /* Not a GstTnDoubleRange: -1 (the op's default) sits outside the
     * usable values, and whether eps may be set depends on the op. */
    prop = g_strdup ("eps");
    text = g_strdup_printf ("%g", self->eps);
    why = g_strdup ("eps must be finite and >= 0, or -1 for the op's "
                    "default.");
  } else if (self->eps >= 0 && !tn_norm_uses_eps (self->op)) {
    prop = g_strdup ("eps");
    text = g_strdup_printf ("%g", self->eps);
    why = g_strdup_printf ("op=%s takes no eps (standardize and l2 do); "
                           "leave eps at -1.",
        tn_norm_op_name (self->op));
  } else if (self->eps < 0 && self->eps != DEFAULT_EPS) {
    prop = g_strdup ("eps");
    text = g_strdup_printf ("%g", self->eps);
    why = g_strdup ("eps must be >= 0, or -1 for the op's default.");
  }
  GST_OBJECT_UNLOCK (self);
  if (prop)
    ok = gst_tn_element_property_error (GST_ELEMENT (self), prop, text, why);
  else
    ok = gst_tn_element_check_n_threads (
        GST_ELEMENT (self), g_atomic_int_get (&self->n_threads));
  g_free (prop);
  g_free (text);
  g_free (why);
  return ok;
}

static gboolean
gst_tensor_normalize_stop (GstBaseTransform *trans)
{
  GstTensorNormalize *self = GST_TENSOR_NORMALIZE (trans);

  self->configured = FALSE;
  gst_tn_caps_refusal_clear (&self->refused);
  return TRUE;
}

static void
gst_tensor_normalize_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorNormalize *self = GST_TENSOR_NORMALIZE (object);

  switch (prop_id) {
  case PROP_OP:
    if (!gst_tn_element_property_settable (GST_ELEMENT (self), pspec, value))
      return;
    GST_OBJECT_LOCK (self);
    self->op = g_value_get_enum (value);
    GST_OBJECT_UNLOCK (self);
    break;
  case PROP_AXES:
    if (!gst_tn_element_property_settable (GST_ELEMENT (self), pspec, value))
      return;
    gst_tn_element_set_axes (GST_ELEMENT (self), g_value_get_string (value),
        &self->axes, &self->axes_text, &self->axes_error);
    break;
  case PROP_EPS:
    if (!gst_tn_element_property_settable (GST_ELEMENT (self), pspec, value))
      return;
    GST_OBJECT_LOCK (self);
    self->eps = g_value_get_double (value);
    GST_OBJECT_UNLOCK (self);
    break;
  case PROP_N_THREADS:
    gst_tn_element_set_n_threads (GST_ELEMENT (self), &self->n_threads, value);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
}

static void
gst_tensor_normalize_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTensorNormalize *self = GST_TENSOR_NORMALIZE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_OP:
    g_value_set_enum (value, self->op);
    break;
  case PROP_AXES:
    g_value_set_string (value, self->axes_text);
    break;
  case PROP_EPS:
    g_value_set_double (value, self->eps);
    break;
  case PROP_N_THREADS:
    g_value_set_int (value, g_atomic_int_get (&self->n_threads));
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_normalize_finalize (GObject *object)
{
  GstTensorNormalize *self = GST_TENSOR_NORMALIZE (object);

  g_free (self->axes_text);
  g_free (self->axes_error);
  gst_tn_caps_refusal_clear (&self->refused);
  G_OBJECT_CLASS (gst_tensor_normalize_parent_class)->finalize (object);
}

static void
gst_tensor_normalize_class_init (GstTensorNormalizeClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;

  GST_DEBUG_CATEGORY_INIT (gst_tensor_normalize_debug, "tensornormalize", 0,
      "Tensor normalisations along axes");

  gobject_class->set_property = gst_tensor_normalize_set_property;
  gobject_class->get_property = gst_tensor_normalize_get_property;
  gobject_class->finalize = gst_tensor_normalize_finalize;

  /**
   * GstTensorNormalize:op:
   *
   * The normalisation: softmax, log-softmax, standardize, l2 or minmax.
   * Default: softmax.  Changes in the NULL and READY states only.
   */
  g_object_class_install_property (gobject_class, PROP_OP,
      g_param_spec_enum ("op", "Op",
          "The normalisation along the axes: softmax, log-softmax, "
          "standardize ((x - mean) / sqrt(var + eps)), l2 (x / max(norm, "
          "eps)) or minmax ((x - min) / (max - min))",
          GST_TYPE_TENSOR_NORMALIZE_OP, DEFAULT_OP, flags));

  /**
   * GstTensorNormalize:axes:
   *
   * The axes each group spans, comma-separated; a negative axis counts
   * from the end.  Default: "-1" (the last axis); empty: every axis, the
   * whole tensor one group.  Each entry must lie in -8..7 and, once the
   * rank r is known, in -r..r-1, and no axis may be named twice; a list
   * that does not parse is an error when the element starts, one that
   * does not fit the tensor fails negotiation with a message.
   */
  g_object_class_install_property (gobject_class, PROP_AXES,
      g_param_spec_string ("axes", "Axes",
          "Comma-separated axes a group spans, negative from the end; empty "
          "for every axis",
          DEFAULT_AXES, flags));

  /**
   * GstTensorNormalize:eps:
   *
   * The guard of standardize (added to the variance) and l2 (the least
   * norm divided by).  -1 (the default) takes the op's: 1e-5 for
   * standardize, 1e-12 for l2; a finite value >= 0 applies as given.  The
   * other ops take none: a value >= 0 with them, one below 0 other than
   * -1, infinity or NaN is an error when the element starts.  (Any double
   * is stored, NaN too: GLib's range check would warn and go on with the
   * default.)
   */
  g_object_class_install_property (gobject_class, PROP_EPS,
      g_param_spec_double ("eps", "Epsilon",
          "Guard of standardize (added to var) and l2 (least norm), finite "
          "and >= 0; -1 takes 1e-5 for standardize, 1e-12 for l2",
          -INFINITY, INFINITY, DEFAULT_EPS, flags | G_PARAM_LAX_VALIDATION));

  /**
   * GstTensorNormalize:n-threads:
   *
   * Threads of the shared worker pool one tensor is split across; 0 uses
   * every core (the default).  The result has the same bits whatever the
   * count.
   */
  g_object_class_install_property (
      gobject_class, PROP_N_THREADS, gst_tn_param_spec_n_threads ());

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Tensor normalize",
      "Filter/Tensor",
      "Normalises tensors along axes (softmax, log-softmax, standardize, l2, "
      "minmax), the same bits on any thread count",
      "gst-tensor developers");

  gst_type_mark_as_plugin_api (GST_TYPE_TENSOR_NORMALIZE_OP, 0);

  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_tn_transform_accept_caps);
  trans_class->transform_caps
      = GST_DEBUG_FUNCPTR (gst_tensor_normalize_transform_caps);
  trans_class->fixate_caps
      = GST_DEBUG_FUNCPTR (gst_tensor_normalize_fixate_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_tensor_normalize_query);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_tensor_normalize_sink_event);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_tensor_normalize_set_caps);
  trans_class->transform_size = GST_DEBUG_FUNCPTR (gst_tn_transform_size);
  trans_class->decide_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_normalize_decide_allocation);
  trans_class->prepare_output_buffer
      = GST_DEBUG_FUNCPTR (gst_tensor_normalize_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_tensor_normalize_transform);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_tensor_normalize_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_tensor_normalize_stop);
  trans_class->passthrough_on_same_caps = FALSE;
}

static void
gst_tensor_normalize_init (GstTensorNormalize *self)
{
  self->op = DEFAULT_OP;
  self->axes.n = 1;
  self->axes.axes[0] = -1;
  self->axes_text = g_strdup (DEFAULT_AXES);
  self->eps = DEFAULT_EPS;
  self->n_threads = GST_TN_N_THREADS_DEFAULT;
}
