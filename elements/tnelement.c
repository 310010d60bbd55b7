/* Glue every element of the plugin shares.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tnelement.h"

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

void
gst_tn_element_property_warning (GstElement *element, const gchar *property,
    const gchar *text, const gchar *why, const gchar *kept)
{
  GST_ELEMENT_WARNING (element, RESOURCE, SETTINGS,
      ("%s: %s=\"%s\" cannot be used: %s; keeping %s=\"%s\"",
          GST_OBJECT_NAME (element), property, text ? text : "", why, property,
          kept ? kept : ""),
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
  return g_param_spec_uint ("n-threads", "Threads",
      "Threads that share one large tensor (0: one per core); every value "
      "gives the same bits",
      0, GST_TN_N_THREADS_MAX, GST_TN_N_THREADS_DEFAULT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
}
