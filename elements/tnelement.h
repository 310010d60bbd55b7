/* Glue every element of the plugin shares; not installed. */
#ifndef GST_TN_ELEMENT_H
#define GST_TN_ELEMENT_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* Whether element is in PAUSED or PLAYING, or on its way there: a property
 * value that cannot be used then must not replace the one in use. */
gboolean gst_tn_element_is_running (GstElement *element);

/* For a stored property value that cannot be used, from the state change
 * to PAUSED (start): posts GST_RESOURCE_ERROR_SETTINGS with the text
 * "tensorop0: ops=\"mull:2\" cannot be used: WHY" and returns FALSE, so
 * the state change fails and gst-launch-1.0 exits non-zero. */
gboolean gst_tn_element_property_error (GstElement *element,
    const gchar *property, const gchar *text, const gchar *why);

/* For a value set while running that cannot be used: posts a warning that
 * names it and the value kept ("...; keeping ops=\"add:1\""). */
void gst_tn_element_property_warning (GstElement *element,
    const gchar *property, const gchar *text, const gchar *why,
    const gchar *kept);

/* GStreamer's convention for a property that cannot change once the
 * element runs: TRUE (set it) in NULL and READY; otherwise a g_warning
 * naming the element, the property and the refused value, and FALSE. */
gboolean gst_tn_element_property_settable (
    GstElement *element, GParamSpec *pspec, const GValue *value);

G_END_DECLS

#endif
