/* Allocation glue every element of the plugin shares.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tnalloc.h"

#include <gst/tensor/tensorinfo.h>
#include <gst/tensor/tensormeta.h>
#include <gst/tensor/tensorpool.h>

gboolean
gst_tn_element_decide_allocation (
    GstElement *element, GstQuery *query, gsize size)
{
  GstCaps *caps;

  if (size > G_MAXUINT) {
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
        ("Output tensors of %" G_GSIZE_FORMAT " bytes are too large: a "
         "buffer pool holds at most %u bytes per buffer.",
            size, G_MAXUINT),
        (NULL));
    return FALSE;
  }
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || !gst_tn_decide_allocation (query, caps, size)) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("Could not set up a buffer pool for output tensors of %" G_GSIZE_FORMAT
         " bytes.",
            size),
        ("allocation query %" GST_PTR_FORMAT, query));
    return FALSE;
  }
  return TRUE;
}

GstBufferPool *
gst_tn_pool_activate (GstObject *owner, GstBufferPool *pool)
{
  if (pool != NULL && !gst_buffer_pool_is_active (pool)
      && !gst_buffer_pool_set_active (pool, TRUE)) {
    GST_WARNING_OBJECT (owner, "could not activate %s", GST_OBJECT_NAME (pool));
    gst_object_unref (pool);
    pool = NULL;
  }
  return pool;
}

gboolean
gst_tn_transform_size (GstBaseTransform *trans, GstPadDirection direction,
    GstCaps *caps, gsize size, GstCaps *othercaps, gsize *othersize)
{
  GstTnInfo info;

  return gst_tn_info_from_caps (&info, othercaps, NULL)
         && gst_tn_info_size (&info, othersize);
}

gboolean
gst_tn_transform_propose_layout_meta (GstBaseTransformClass *parent,
    GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
  GType api = GST_TN_LAYOUT_META_API_TYPE;

  if (!parent->propose_allocation (trans, decide_query, query))
    return FALSE;
  if (!gst_query_find_allocation_meta (query, api, NULL))
    gst_query_add_allocation_meta (query, api, NULL);
  return TRUE;
}
