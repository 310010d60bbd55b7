/* Allocation glue every element of the plugin shares; not installed. */
#ifndef GST_TN_ALLOC_H
#define GST_TN_ALLOC_H

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

/* For element's decide_allocation: gst_tn_decide_allocation() with the
 * caps read from query; on failure posts an element error naming the size
 * (a pool holds at most G_MAXUINT bytes per buffer) and returns FALSE. */
gboolean gst_tn_element_decide_allocation (
    GstElement *element, GstQuery *query, gsize size);

/* pool (a reference the caller gives away), activated on first use:
 * GstBaseTransform and GstAggregator store the pool decide_allocation chose
 * but activate it only for buffers they allocate themselves.  NULL when
 * pool is NULL or cannot be activated (with a warning on owner); the
 * caller then allocates from the tensor allocator. */
GstBufferPool *gst_tn_pool_activate (GstObject *owner, GstBufferPool *pool);

/* A GstBaseTransform propose_allocation for an element that reads any
 * layout and gives a reader of dense tensors only dense buffers (it copies
 * a view for it itself): parent's answer, with the layout meta added. */
gboolean gst_tn_transform_propose_layout_meta (GstBaseTransformClass *parent,
    GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query);

/* A GstBaseTransform transform_size function for elements whose buffers
 * are dense tensors: othersize is the bytes of othercaps' tensor. */
gboolean gst_tn_transform_size (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, gsize size, GstCaps *othercaps,
    gsize *othersize);

G_END_DECLS

#endif
