/* Glue every element of the plugin shares.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tnelement.h"

#include <string.h>

#include <gst/tensor/tensorinfo.h>

#include "core/half.h"

gboolean
gst_tn_element_is_running (GstElement *element)
{
  gboolean running;

  GST_OBJECT_LOCK (element);
  running = GST_TN_ELEMENT_IS_RUNNING (element);
  GST_OBJECT_UNLOCK (element);
  return running;
}

gboolean
gst_tn_element_property_error (GstElement *element, const gchar *property,
    const gchar *text, const gchar *why)
{
  GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
      ("%s: %s=\"%s\" cannot be used: %s", GST_OBJECT_NAME (element), property,
          text ? text : "", why),
      (NULL));
  return FALSE;
}

gchar *
gst_tn_element_axis_problem (gint axis)
{
  if (axis >= -TN_MAX_RANK && axis < TN_MAX_RANK)
    return NULL;
  return g_strdup_printf ("tensors have at most %d axes, so an axis is in "
                          "[%d, %d].",
      TN_MAX_RANK, -TN_MAX_RANK, TN_MAX_RANK - 1);
}

void
gst_tn_element_property_warning (GstElement *element, const gchar *property,
    const gchar *text, const gchar *why, const gchar *kept)
{
  /* why is often a sentence of core's, with its full stop: drop it
   * before the "; keeping" that continues the sentence */
  gsize n = strlen (why);

  if (n > 0 && why[n - 1] == '.')
    n--;
  GST_ELEMENT_WARNING (element, RESOURCE, SETTINGS,
      ("%s: %s=\"%s\" cannot be used: %.*s; keeping %s=\"%s\"",
          GST_OBJECT_NAME (element), property, text ? text : "", (int) n, why,
          property, kept ? kept : ""),
      (NULL));
}

gboolean
gst_tn_element_property_settable (
    GstElement *element, GParamSpec *pspec, const GValue *value)
{
  gchar *str;

  if (!gst_tn_element_is_running (element))
    return TRUE;
  str = g_strdup_value_contents (value);
  g_warning ("%s: property '%s' can only change in the NULL or READY state; "
             "ignoring %s=%s",
      GST_OBJECT_NAME (element), pspec->name, pspec->name, str);
  g_free (str);
  return FALSE;
}

void
gst_tn_pad_accept_intersect (GstPad *pad)
{
  GST_OBJECT_FLAG_SET (pad, GST_PAD_FLAG_ACCEPT_INTERSECT);
}

GParamSpec *
gst_tn_param_spec_n_threads (void)
{
  return g_param_spec_int ("n-threads", "Threads",
      "Threads that share one large tensor, 0 to 64 (0: one per core); "
      "every value gives the same bits",
      G_MININT, G_MAXINT, GST_TN_N_THREADS_DEFAULT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
}

static const GstTnIntRange n_threads_range
    = { "n-threads", 0, GST_TN_N_THREADS_MAX, "one thread per core" };

gboolean
gst_tn_element_check_n_threads (GstElement *element, gint n)
{
  return gst_tn_element_check_int (element, &n_threads_range, n);
}

void
gst_tn_element_set_n_threads (GstElement *element, gint *n, const GValue *value)
{
  gint v = g_value_get_int (value);

  if (gst_tn_element_int_settable (element, &n_threads_range, v))
    g_atomic_int_set (n, v);
}

/* Why v cannot be used ("every is 1 (every buffer) to 2147483647"), or
 * NULL. */
static gchar *
int_problem (const GstTnIntRange *r, gint64 v)
{
  if (v >= r->min && v <= r->max)
    return NULL;
  return g_strdup_printf ("%s is %" G_GINT64_FORMAT
                          "%s%s%s to %" G_GINT64_FORMAT,
      r->property, r->min, r->min_means ? " (" : "",
      r->min_means ? r->min_means : "", r->min_means ? ")" : "", r->max);
}

/* Why v cannot be used ("atol is a number from 0 to inf"), or NULL. */
static gchar *
double_problem (const GstTnDoubleRange *r, gdouble v)
{
  if (v >= r->min && v <= r->max) /* FALSE for NaN */
    return NULL;
  return g_strdup_printf (
      "%s is a number from %g to %g", r->property, r->min, r->max);
}

/* Posts the property error for text when why says it cannot be used:
 * FALSE then.  Takes both strings. */
static gboolean
usable (GstElement *element, const gchar *property, gchar *text, gchar *why)
{
  gboolean ok = why == NULL;

  if (!ok)
    gst_tn_element_property_error (element, property, text, why);
  g_free (text);
  g_free (why);
  return ok;
}

gboolean
gst_tn_element_check_int (
    GstElement *element, const GstTnIntRange *range, gint64 v)
{
  return usable (element, range->property,
      g_strdup_printf ("%" G_GINT64_FORMAT, v), int_problem (range, v));
}

gboolean
gst_tn_element_check_double (
    GstElement *element, const GstTnDoubleRange *range, gdouble v)
{
  return usable (element, range->property, g_strdup_printf ("%g", v),
      double_problem (range, v));
}

/* The value in use of element's property, as text, read through
 * get_property (which takes the object lock). */
static gchar *
kept_text (GstElement *element, const gchar *property)
{
  GParamSpec *ps
      = g_object_class_find_property (G_OBJECT_GET_CLASS (element), property);
  GValue v = G_VALUE_INIT, i = G_VALUE_INIT;
  gchar *text;

  g_value_init (&v, G_PARAM_SPEC_VALUE_TYPE (ps));
  g_object_get_property (G_OBJECT (element), property, &v);
  if (G_VALUE_HOLDS_DOUBLE (&v)) {
    text = g_strdup_printf ("%g", g_value_get_double (&v));
  } else {
    g_value_init (&i, G_TYPE_INT64);
    g_value_transform (&v, &i);
    text = g_strdup_printf ("%" G_GINT64_FORMAT, g_value_get_int64 (&i));
    g_value_unset (&i);
  }
  g_value_unset (&v);
  return text;
}

/* Refuses text (why it cannot be used) while element runs: TRUE when the
 * caller stores the value. */
static gboolean
settable (GstElement *element, const gchar *property, gchar *text, gchar *why)
{
  gboolean store = TRUE;

  if (why != NULL && gst_tn_element_is_running (element)) {
    gchar *kept = kept_text (element, property);

    gst_tn_element_property_warning (element, property, text, why, kept);
    g_free (kept);
    store = FALSE;
  }
  g_free (text);
  g_free (why);
  return store;
}

gboolean
gst_tn_element_int_settable (
    GstElement *element, const GstTnIntRange *range, gint64 v)
{
  return settable (element, range->property,
      g_strdup_printf ("%" G_GINT64_FORMAT, v), int_problem (range, v));
}

gboolean
gst_tn_element_double_settable (
    GstElement *element, const GstTnDoubleRange *range, gdouble v)
{
  return settable (element, range->property, g_strdup_printf ("%g", v),
      double_problem (range, v));
}

/* One lock for every element's last refusal: refusals are rare, and a caller
 * may hold its own object lock. */
static GMutex refusal_lock;

/* Tensor caps that are wrong in a way the element can name: posts that
 * as the element's error, once for the same caps (a source sends its CAPS
 * event again before each buffer it tries), and returns TRUE. */
gboolean
gst_tn_element_explain_caps (GstElement *element, GstCaps *caps)
{
  static GQuark last_quark;
  GstCaps *last;
  GError *err = NULL;
  gboolean is_new;
  gchar *str;

  if (!caps || gst_caps_get_size (caps) != 1
      || !gst_structure_has_name (
          gst_caps_get_structure (caps, 0), GST_TN_MEDIA_TYPE)
      || gst_tn_caps_validate (caps, &err))
    return FALSE;
  if (!last_quark)
    last_quark = g_quark_from_static_string ("gst-tn-refused-caps");
  g_mutex_lock (&refusal_lock);
  last = g_object_get_qdata (G_OBJECT (element), last_quark);
  is_new = !last || !gst_caps_is_equal (last, caps);
  if (is_new)
    g_object_set_qdata_full (G_OBJECT (element), last_quark,
        gst_caps_ref (caps), (GDestroyNotify) gst_caps_unref);
  g_mutex_unlock (&refusal_lock);
  if (is_new) {
    str = gst_caps_to_string (caps);
    GST_ELEMENT_ERROR (element, CORE, NEGOTIATION,
        ("%s: refused the caps %s: %s", GST_OBJECT_NAME (element), str,
            err->message),
        (NULL));
    g_free (str);
  }
  g_error_free (err);
  return TRUE;
}

gboolean
gst_tn_transform_accept_caps (
    GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps)
{
  GstBaseTransformClass *base
      = GST_BASE_TRANSFORM_CLASS (g_type_class_peek (GST_TYPE_BASE_TRANSFORM));

  if (base->accept_caps (trans, direction, caps))
    return TRUE;
  if (direction == GST_PAD_SINK)
    gst_tn_element_explain_caps (GST_ELEMENT (trans), caps);
  return FALSE;
}

gboolean
gst_tn_pad_accept_caps_query (GstPad *pad, GstObject *parent, GstQuery *query)
{
  GstCaps *caps;
  gboolean ok;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ACCEPT_CAPS)
    return FALSE;
  gst_query_parse_accept_caps (query, &caps);
  gst_pad_query_default (pad, parent, query);
  gst_query_parse_accept_caps_result (query, &ok);
  if (!ok)
    gst_tn_element_explain_caps (GST_ELEMENT (parent), caps);
  return TRUE;
}

void
gst_tn_transform_explain_query (
    GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *filter;

    gst_query_parse_caps (query, &filter);
    gst_tn_element_explain_caps (GST_ELEMENT (trans), filter);
  }
}

gboolean
gst_tn_transform_query (
    GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  GstBaseTransformClass *base
      = GST_BASE_TRANSFORM_CLASS (g_type_class_peek (GST_TYPE_BASE_TRANSFORM));

  gst_tn_transform_explain_query (trans, direction, query);
  return base->query (trans, direction, query);
}

gboolean
gst_tn_caps_refusal_is_new (GstCaps **last, GstCaps *caps)
{
  gboolean is_new;

  g_mutex_lock (&refusal_lock);
  is_new = *last == NULL || !gst_caps_is_equal (*last, caps);
  if (is_new)
    gst_caps_replace (last, caps);
  g_mutex_unlock (&refusal_lock);
  return is_new;
}

void
gst_tn_caps_refusal_clear (GstCaps **last)
{
  GstCaps *old;

  g_mutex_lock (&refusal_lock);
  old = *last;
  *last = NULL;
  g_mutex_unlock (&refusal_lock);
  if (old)
    gst_caps_unref (old);
}

gboolean
gst_tn_transform_query_any_tensor (GstBaseTransformClass *parent,
    GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  GstCaps *filter, *caps, *templ, *any;

  if (!parent->query (trans, direction, query))
    return FALSE;
  if (direction != GST_PAD_SINK || GST_QUERY_TYPE (query) != GST_QUERY_CAPS)
    return TRUE;
  gst_query_parse_caps (query, &filter);
  gst_query_parse_caps_result (query, &caps);
  templ = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
  any = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (templ); i++)
    if (gst_structure_has_name (
            gst_caps_get_structure (templ, i), GST_TN_MEDIA_TYPE))
      gst_caps_append_structure_full (any,
          gst_structure_copy (gst_caps_get_structure (templ, i)),
          gst_caps_features_copy (gst_caps_get_features (templ, i)));
  gst_caps_unref (templ);
  caps = gst_caps_merge (gst_caps_ref (caps), gst_tn_caps_filter (any, filter));
  gst_query_set_caps_result (query, caps);
  gst_caps_unref (caps);
  return TRUE;
}

void
gst_tn_negotiation_error (GError **err, const gchar *fmt, ...)
{
  va_list ap;
  gchar *msg;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, msg);
  g_free (msg);
}

/* One item as a GValue of the widest GLib type of its kind. */
static void
tn_item_value (GValue *v, tn_dtype t, const guint8 *p)
{
  switch (tn_dtype_kind (t)) {
  case TN_KIND_BOOL:
    g_value_init (v, G_TYPE_BOOLEAN);
    g_value_set_boolean (v, *p != 0);
    break;
  case TN_KIND_INT: {
    gint64 x = 0;

    if (t == TN_INT8)
      x = *(const gint8 *) p;
    else if (t == TN_INT16)
      x = *(const gint16 *) p;
    else if (t == TN_INT32)
      x = *(const gint32 *) p;
    else
      x = *(const gint64 *) p;
    g_value_init (v, G_TYPE_INT64);
    g_value_set_int64 (v, x);
    break;
  }
  case TN_KIND_UINT: {
    guint64 x = 0;

    if (t == TN_UINT8)
      x = *p;
    else if (t == TN_UINT16)
      x = *(const guint16 *) p;
    else if (t == TN_UINT32)
      x = *(const guint32 *) p;
    else
      x = *(const guint64 *) p;
    g_value_init (v, G_TYPE_UINT64);
    g_value_set_uint64 (v, x);
    break;
  }
  default: {
    double x;

    if (t == TN_FLOAT16)
      x = tn_f16_to_f32 (*(const guint16 *) p);
    else if (t == TN_BFLOAT16)
      x = tn_bf16_to_f32 (*(const guint16 *) p);
    else if (t == TN_FLOAT32)
      x = *(const float *) p;
    else
      x = *(const double *) p;
    g_value_init (v, G_TYPE_DOUBLE);
    g_value_set_double (v, x);
    break;
  }
  }
}

GstStructure *
gst_tn_tensor_structure_new (const gchar *name, const GstTnInfo *info,
    gconstpointer data, guint max_items)
{
  const gsize isz = tn_dtype_size (info->dtype);
  gint64 n = 1;
  GstStructure *s;
  GValue dims = G_VALUE_INIT, v = G_VALUE_INIT;

  g_value_init (&dims, GST_TYPE_ARRAY);
  for (gint i = 0; i < info->rank; i++) {
    g_value_init (&v, G_TYPE_INT);
    g_value_set_int (&v, (gint) info->dims[i]);
    gst_value_array_append_and_take_value (&dims, &v);
    memset (&v, 0, sizeof v);
    n *= info->dims[i];
  }
  s = gst_structure_new (name, "type", G_TYPE_STRING,
      tn_dtype_name (info->dtype), "items", G_TYPE_INT64, n, NULL);
  gst_structure_take_value (s, "dims", &dims);
  if (n <= (gint64) max_items) {
    GValue values = G_VALUE_INIT;

    g_value_init (&values, GST_TYPE_ARRAY);
    for (gint64 i = 0; i < n; i++) {
      tn_item_value (&v, info->dtype, (const guint8 *) data + i * isz);
      gst_value_array_append_and_take_value (&values, &v);
      memset (&v, 0, sizeof v);
    }
    gst_structure_take_value (s, "values", &values);
  }
  return s;
}

void
gst_tn_post_tensor_message (GstElement *element, const gchar *name,
    const GstTnInfo *info, gconstpointer data, guint max_items,
    const GstSegment *seg, GstBuffer *in, const gchar *first_field, ...)
{
  GstStructure *s = gst_tn_tensor_structure_new (name, info, data, max_items);
  GstClockTime ts = GST_BUFFER_PTS (in);
  va_list ap;

  va_start (ap, first_field);
  if (first_field)
    gst_structure_set_valist (s, first_field, ap);
  va_end (ap);
  gst_structure_set (s, "timestamp", G_TYPE_UINT64, (guint64) ts, "stream-time",
      G_TYPE_UINT64,
      (guint64) gst_segment_to_stream_time (seg, GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64,
      (guint64) gst_segment_to_running_time (seg, GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, (guint64) GST_BUFFER_DURATION (in), NULL);
  gst_element_post_message (
      element, gst_message_new_element (GST_OBJECT (element), s));
}

gboolean
gst_tn_element_set_axes (GstElement *element, const gchar *text, tn_axes *axes,
    gchar **axes_text, gchar **axes_error)
{
  tn_axes parsed;
  tn_err e;
  gboolean ok;

  if (text == NULL)
    text = "";
  ok = tn_axes_parse (&parsed, text, &e) == 0;
  if (!ok && gst_tn_element_is_running (element)) {
    gchar *old;

    GST_OBJECT_LOCK (element);
    old = g_strdup (*axes_text);
    GST_OBJECT_UNLOCK (element);
    gst_tn_element_property_warning (element, "axes", text, e.msg, old);
    g_free (old);
    return FALSE;
  }
  GST_OBJECT_LOCK (element);
  g_free (*axes_text);
  *axes_text = g_strdup (text);
  g_free (*axes_error);
  *axes_error = ok ? NULL : g_strdup (e.msg);
  if (ok)
    *axes = parsed;
  GST_OBJECT_UNLOCK (element);
  return ok;
}

void
gst_tn_element_name_as_factory (
    GstElement *element, const gchar *type_prefix, const gchar *factory)
{
  gchar *name = gst_object_get_name (GST_OBJECT (element));

  if (g_str_has_prefix (name, type_prefix)) {
    const gchar *tail = name + strlen (type_prefix);

    if (*tail && strspn (tail, "0123456789") == strlen (tail)) {
      gchar *short_name = g_strconcat (factory, tail, NULL);

      gst_object_set_name (GST_OBJECT (element), short_name);
      g_free (short_name);
    }
  }
  g_free (name);
}

gboolean
gst_tn_transform_read_caps (GstBaseTransform *trans, GstCaps *incaps,
    GstCaps *outcaps, GstTnInfo *in, GstTnInfo *out)
{
  GError *err = NULL;

  if (gst_tn_info_from_caps (in, incaps, &err)
      && gst_tn_info_from_caps (out, outcaps, &err))
    return TRUE;
  GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION,
      ("Cannot read the tensor caps: %s", err->message),
      ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
  g_clear_error (&err);
  return FALSE;
}
