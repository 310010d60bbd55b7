/* The layout meta: strides and offset of a tensor that is not dense. */
#include "tensormeta.h"

#include <string.h>

GType
gst_tn_layout_meta_api_get_type (void)
{
  static GType type = 0;
  /* "memory": the strides and offset describe this buffer's bytes, so
   * GStreamer drops the meta whenever the memory changes (region copies,
   * copies without memory, merges), and GstBaseTransform's default
   * transform_meta drops tagged metas when an element writes a new
   * buffer.  A stale layout would make a consumer misread a dense buffer. */
  static const gchar *tags[] = { GST_META_TAG_MEMORY_STR, "tensor", NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstTnLayoutMetaAPI", tags);

    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
gst_tn_layout_meta_init (GstMeta *meta, gpointer params, GstBuffer *buffer)
{
  GstTnLayoutMeta *m = (GstTnLayoutMeta *) meta;

  m->rank = 0;
  m->offset = 0;
  memset (m->strides, 0, sizeof m->strides);
  return TRUE;
}

static void
gst_tn_layout_meta_free (GstMeta *meta, GstBuffer *buffer)
{
  /* Nothing is owned. */
}

static gboolean
gst_tn_layout_meta_transform (GstBuffer *dest, GstMeta *meta, GstBuffer *buffer,
    GQuark type, gpointer data)
{
  GstTnLayoutMeta *m = (GstTnLayoutMeta *) meta;
  GstMetaTransformCopy *copy = data;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  /* The offset counts from the start of the whole buffer: a region no
   * longer starts there.  GStreamer already skips memory-tagged metas for
   * regions; this keeps the rule should a caller transform by hand. */
  if (copy->region)
    return TRUE;
  return gst_tn_buffer_add_layout_meta (dest, m->rank, m->offset, m->strides)
         != NULL;
}

const GstMetaInfo *
gst_tn_layout_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) &info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_TN_LAYOUT_META_API_TYPE,
        "GstTnLayoutMeta", sizeof (GstTnLayoutMeta), gst_tn_layout_meta_init,
        gst_tn_layout_meta_free, gst_tn_layout_meta_transform);

    g_once_init_leave ((GstMetaInfo **) &info, (GstMetaInfo *) mi);
  }
  return info;
}

GstTnLayoutMeta *
gst_tn_buffer_get_layout_meta (GstBuffer *buffer)
{
  /* A function, not a macro, so that bindings can call it. */
  return (GstTnLayoutMeta *) gst_buffer_get_meta (
      buffer, GST_TN_LAYOUT_META_API_TYPE);
}

GstTnLayoutMeta *
gst_tn_buffer_add_layout_meta (
    GstBuffer *buffer, gint rank, gint64 offset, const gint64 *strides)
{
  GstTnLayoutMeta *m;
  gint i;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (gst_buffer_is_writable (buffer), NULL);

  if (rank < 0 || rank > TN_MAX_RANK) {
    g_critical ("layout meta rank %d is outside 0..%d.", rank, TN_MAX_RANK);
    return NULL;
  }
  if (rank > 0 && strides == NULL) {
    g_critical (
        "layout meta of rank %d needs %d strides, got none.", rank, rank);
    return NULL;
  }
  if (offset < 0) {
    g_critical ("layout meta offset %" G_GINT64_FORMAT " is negative; it "
                "counts items from the start of the buffer and must be >= 0.",
        offset);
    return NULL;
  }
  for (i = 0; i < rank; i++) {
    if (strides[i] < 0) {
      g_critical ("layout meta stride %d is %" G_GINT64_FORMAT "; strides "
                  "count items and must be >= 0.",
          i, strides[i]);
      return NULL;
    }
  }

  /* One layout per buffer: a second call replaces the first. */
  m = gst_tn_buffer_get_layout_meta (buffer);
  if (m == NULL)
    m = (GstTnLayoutMeta *) gst_buffer_add_meta (
        buffer, GST_TN_LAYOUT_META_INFO, NULL);
  if (m == NULL)
    return NULL;
  m->rank = rank;
  m->offset = offset;
  for (i = 0; i < TN_MAX_RANK; i++)
    m->strides[i] = i < rank ? strides[i] : 0;
  return m;
}

static GstPadProbeReturn
accept_views_probe (GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (q) == GST_QUERY_ALLOCATION
      && !gst_query_find_allocation_meta (q, GST_TN_LAYOUT_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (q, GST_TN_LAYOUT_META_API_TYPE, NULL);
  return GST_PAD_PROBE_OK;
}

gulong
gst_tn_pad_accept_views (GstPad *pad)
{
  g_return_val_if_fail (GST_IS_PAD (pad), 0);
  g_return_val_if_fail (GST_PAD_IS_SINK (pad), 0);
  return gst_pad_add_probe (
      pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, accept_views_probe, NULL, NULL);
}
