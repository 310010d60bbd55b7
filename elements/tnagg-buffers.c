/* GstTnAggregator: the helpers its subclasses call for buffers (pad
 * templates, output from the pool, in place, mapping inputs).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tnagg-private.h"

#include <string.h>

#include "tnalloc.h"

void
gst_tn_aggregator_class_add_pad_templates (
    GstTnAggregatorClass *klass, GstCaps *sink_caps, GstCaps *src_caps)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCaps *any = gst_caps_from_string (GST_TN_CAPS_ANY);

  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new_with_gtype ("sink_%u", GST_PAD_SINK, GST_PAD_REQUEST,
          sink_caps ? sink_caps : any, GST_TYPE_TN_AGGREGATOR_PAD));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new_with_gtype ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
          src_caps ? src_caps : any, GST_TYPE_AGGREGATOR_PAD));
  gst_caps_unref (any);
}

GstFlowReturn
gst_tn_aggregator_alloc_output (GstTnAggregator *self, GstBuffer **out)
{
  gsize size = gst_tn_agg_out_size (self);
  GstBufferPool *pool = gst_tn_pool_activate (GST_OBJECT (self),
      gst_aggregator_get_buffer_pool (GST_AGGREGATOR (self)));
  GstFlowReturn ret = GST_FLOW_OK;

  *out = NULL;
  if (pool) {
    ret = gst_buffer_pool_acquire_buffer (pool, out, NULL);
    gst_object_unref (pool);
    if (ret != GST_FLOW_OK)
      return ret;
  } else {
    GstAllocator *alloc = gst_tn_allocator_get ();

    *out = gst_buffer_new_allocate (alloc, MAX (size, 1), NULL);
    gst_object_unref (alloc);
  }
  gst_buffer_set_size (*out, size);
  return ret;
}

GstBuffer *
gst_tn_aggregator_take_in_place (
    GstTnAggregator *self, GstTnAggInput *in, const GstTnInfo *out_info)
{
  GstBuffer *buf = in->buffer;
  gboolean aligned;
  GstMapInfo m;
  gsize size;

  if (in->index != 0 || !buf || !gst_buffer_is_writable (buf)
      || gst_tn_buffer_get_layout_meta (buf)
      || in->info.dtype != out_info->dtype || in->info.rank != out_info->rank
      || memcmp (
          in->info.dims, out_info->dims, sizeof (gint64) * out_info->rank)
      || !gst_tn_info_size (out_info, &size)
      || gst_buffer_get_size (buf) != size)
    return NULL;
  for (guint i = 0; i < gst_buffer_n_memory (buf); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);

    if (!gst_memory_is_writable (mem)
        || GST_MEMORY_FLAG_IS_SET (mem, GST_MEMORY_FLAG_READONLY))
      return NULL;
  }
  /* Aligned for the dtype, read with a plain map: the tensor map of a
   * misaligned buffer would copy all of it only to say so, and writing
   * through such a copy would not write the buffer. */
  if (!gst_buffer_map (buf, &m, GST_MAP_READ))
    return NULL;
  aligned = (guintptr) m.data % tn_dtype_size (out_info->dtype) == 0;
  gst_buffer_unmap (buf, &m);
  if (!aligned)
    return NULL;
  in->buffer = NULL;
  return buf;
}

gboolean
gst_tn_aggregator_map_input (GstTnAggregator *self, const GstTnAggInput *in,
    GstTnMap *m, GstMapFlags flags)
{
  GError *err = NULL;

  if (gst_tn_buffer_map (m, in->buffer, &in->info, flags, &err))
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("%s: the buffer on %s does not hold its tensor: %s",
          GST_OBJECT_NAME (self), in->name, err->message),
      (NULL));
  g_error_free (err);
  return FALSE;
}
