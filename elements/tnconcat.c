/* np.stack and np.concatenate over the pads of a GstTnAggregator.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tnconcat.h"

#include <string.h>

#include "tnelement.h"

enum {
  PROP_0,
  PROP_AXIS,
};

typedef struct {
  gint axis;      /* the object lock */
  gint axis_used; /* under the base's lock: what negotiate accepted */
} GstTnConcatPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (
    GstTnConcat, gst_tn_concat, GST_TYPE_TN_AGGREGATOR);

#define PRIV(self)                                                             \
  ((GstTnConcatPrivate *) gst_tn_concat_get_instance_private (                 \
      GST_TN_CONCAT (self)))

static const gchar *
what (gboolean new_axis)
{
  return new_axis ? "tensorstack" : "tensorconcat";
}

/* axis in [0, rank) of the output, or -1 (after an error); first is
 * sink_0's tensor, for the message. */
static gint
resolve_axis (
    gboolean new_axis, gint axis, const GstTnAggInput *first, GError **err)
{
  gint in_rank = first->info.rank, r = new_axis ? in_rank + 1 : in_rank;
  gchar *s = gst_tn_info_to_string (&first->info);

  if (new_axis && r > TN_MAX_RANK) {
    gst_tn_negotiation_error (err,
        "tensorstack of %s (%s) would give rank %d; at most %d axes are "
        "supported",
        s, first->name, r, TN_MAX_RANK);
    r = -1;
  } else if (r == 0) {
    gst_tn_negotiation_error (err,
        "tensorconcat joins along an axis, and %s has %s, rank 0 (tensorstack "
        "gives such tensors a new axis)",
        first->name, s);
    r = -1;
  } else if (axis < -r || axis >= r) {
    gst_tn_negotiation_error (err,
        "axis=%d does not fit: %s has %s, so %s axis must be in [%d, %d]", axis,
        first->name, s, what (new_axis), -r, r - 1);
    r = -1;
  } else {
    r = axis < 0 ? axis + r : axis;
  }
  g_free (s);
  return r;
}

static gboolean
gst_tn_concat_negotiate (GstTnAggregator *self, guint n,
    const GstTnAggInput *in, GstTnInfo *out, GError **err)
{
  gboolean new_axis = GST_TN_CONCAT_GET_CLASS (self)->new_axis;
  const GstTnInfo *first = &in[0].info;
  gint64 total = 0;
  gint axis, a;

  GST_OBJECT_LOCK (self);
  axis = PRIV (self)->axis_used = PRIV (self)->axis;
  GST_OBJECT_UNLOCK (self);
  a = resolve_axis (new_axis, axis, &in[0], err);

  if (a < 0)
    return FALSE;
  for (guint i = 1; i < n; i++) {
    const GstTnInfo *x = &in[i].info;
    gboolean fits = x->dtype == first->dtype && x->rank == first->rank;

    for (gint d = 0; fits && d < x->rank; d++)
      fits = x->dims[d] == first->dims[d] || (!new_axis && d == a);
    if (!fits) {
      gchar *s0 = gst_tn_info_to_string (first);
      gchar *si = gst_tn_info_to_string (x);

      if (x->dtype != first->dtype)
        gst_tn_negotiation_error (err,
            "%s has %s but %s has %s: %s needs one type on every pad "
            "(convert one with tensorop ops=cast:TYPE)",
            in[i].name, si, in[0].name, s0, what (new_axis));
      else if (new_axis)
        gst_tn_negotiation_error (err,
            "%s has %s but %s has %s: tensorstack needs equal dims on every "
            "pad (axis=%d)",
            in[i].name, si, in[0].name, s0, axis);
      else
        gst_tn_negotiation_error (err,
            "%s has %s but %s has %s: tensorconcat needs equal dims on every "
            "axis but axis=%d (axis %d of the output)",
            in[i].name, si, in[0].name, s0, axis, a);
      g_free (s0);
      g_free (si);
      return FALSE;
    }
  }
  out->dtype = first->dtype;
  out->rank = new_axis ? first->rank + 1 : first->rank;
  for (gint d = 0, s = 0; d < out->rank; d++)
    out->dims[d] = new_axis && d == a ? (gint64) n : first->dims[s++];
  if (!new_axis) {
    for (guint i = 0; i < n; i++)
      total += in[i].info.dims[a];
    if (total > G_MAXINT) {
      gst_tn_negotiation_error (err,
          "tensorconcat along axis=%d gives an extent of %" G_GINT64_FORMAT
          "; tensor caps hold extents up to %d",
          axis, total, G_MAXINT);
      return FALSE;
    }
    out->dims[a] = total;
  }
  return TRUE;
}

/* One dense output from the pool, each input copied once: memcpy runs
 * where its slab is contiguous, its strides read where it is a view. */
static GstFlowReturn
gst_tn_concat_combine (GstTnAggregator *self, guint n, GstTnAggInput *in,
    const GstTnInfo *out_info, GstBuffer **out)
{
  gboolean new_axis = GST_TN_CONCAT_GET_CLASS (self)->new_axis;
  gint axis = PRIV (self)->axis_used;
  gint r = out_info->rank, a = axis < 0 ? axis + r : axis;
  gsize isz = tn_dtype_size (out_info->dtype);
  gint64 strides[TN_MAX_RANK], st = 1, start = 0;
  GstFlowReturn ret;
  GstMapInfo mo;

  ret = gst_tn_aggregator_alloc_output (self, out);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_buffer_map (*out, &mo, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("%s: cannot map the output buffer.", GST_OBJECT_NAME (self)), (NULL));
    return GST_FLOW_ERROR;
  }
  for (gint d = r - 1; d >= 0; d--) {
    strides[d] = st;
    st *= out_info->dims[d];
  }
  for (guint i = 0; i < n; i++) {
    tn_view v = in[i].view;
    GstMapInfo mi;
    tn_err e;

    /* The map takes no copy: a copy reads any alignment. */
    if (!gst_buffer_map (in[i].buffer, &mi, GST_MAP_READ)) {
      GST_ELEMENT_ERROR (self, RESOURCE, READ,
          ("%s: cannot map the buffer on %s.", GST_OBJECT_NAME (self),
              in[i].name),
          (NULL));
      gst_buffer_unmap (*out, &mo);
      return GST_FLOW_ERROR;
    }
    /* np.stack is np.concatenate of the inputs with an axis of 1 at a. */
    if (new_axis && tn_view_expand (&v, a, &e) < 0)
      g_assert_not_reached (); /* negotiate checked the rank */
    tn_view_copy_to (mo.data + start * strides[a] * isz, strides, mi.data, &v);
    start += v.dims[a];
    gst_buffer_unmap (in[i].buffer, &mi);
  }
  gst_buffer_unmap (*out, &mo);
  return GST_FLOW_OK;
}

static void
gst_tn_concat_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id) {
  case PROP_AXIS:
    if (!gst_tn_element_property_settable (GST_ELEMENT (object), pspec, value))
      return;
    GST_OBJECT_LOCK (object);
    PRIV (object)->axis = g_value_get_int (value);
    GST_OBJECT_UNLOCK (object);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
}

static void
gst_tn_concat_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id) {
  case PROP_AXIS:
    GST_OBJECT_LOCK (object);
    g_value_set_int (value, PRIV (object)->axis);
    GST_OBJECT_UNLOCK (object);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
}

void
gst_tn_concat_class_install_axis (GstTnConcatClass *klass, const gchar *blurb)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  /* GObject does not let a subclass inherit set_property: the class that
   * installs a property handles it. */
  gobject_class->set_property = gst_tn_concat_set_property;
  gobject_class->get_property = gst_tn_concat_get_property;
  g_object_class_install_property (gobject_class, PROP_AXIS,
      g_param_spec_int ("axis", "Axis", blurb, G_MININT, G_MAXINT, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
}

/* Any int is stored (a pspec range would make gst-launch-1.0 warn and go
 * on with the default); one that is no axis of any tensor is an error
 * here, and one that does not fit the inputs' rank in negotiate. */
static gboolean
gst_tn_concat_start (GstAggregator *agg)
{
  gchar *why;
  gint axis;

  GST_OBJECT_LOCK (agg);
  axis = PRIV (agg)->axis;
  GST_OBJECT_UNLOCK (agg);
  why = gst_tn_element_axis_problem (axis);
  if (why != NULL) {
    gchar *text = g_strdup_printf ("%d", axis);

    gst_tn_element_property_error (GST_ELEMENT (agg), "axis", text, why);
    g_free (text);
    g_free (why);
    return FALSE;
  }
  return GST_AGGREGATOR_CLASS (gst_tn_concat_parent_class)->start (agg);
}

static void
gst_tn_concat_class_init (GstTnConcatClass *klass)
{
  GstTnAggregatorClass *tn_class = GST_TN_AGGREGATOR_CLASS (klass);

  GST_AGGREGATOR_CLASS (klass)->start = GST_DEBUG_FUNCPTR (gst_tn_concat_start);

  tn_class->negotiate = GST_DEBUG_FUNCPTR (gst_tn_concat_negotiate);
  tn_class->combine = GST_DEBUG_FUNCPTR (gst_tn_concat_combine);
  gst_tn_aggregator_class_add_pad_templates (tn_class, NULL, NULL);
  gst_type_mark_as_plugin_api (GST_TYPE_TN_CONCAT, 0);
}

static void
gst_tn_concat_init (GstTnConcat *self)
{}
