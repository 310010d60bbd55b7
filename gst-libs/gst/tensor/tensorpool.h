/* A GstBufferPool whose buffers hold tensor-allocator memory. */
#ifndef GST_TN_POOL_H
#define GST_TN_POOL_H

#include <gst/gst.h>

#include "tensor-prelude.h"

G_BEGIN_DECLS

/**
 * GstTnBufferPool:
 *
 * A #GstBufferPool whose buffers hold tensor-allocator memory.
 */
#define GST_TYPE_TN_BUFFER_POOL (gst_tn_buffer_pool_get_type ())
GST_TENSOR_API
G_DECLARE_FINAL_TYPE (
    GstTnBufferPool, gst_tn_buffer_pool, GST, TN_BUFFER_POOL, GstBufferPool)

/**
 * gst_tn_buffer_pool_new:
 *
 * Returns: (transfer full): a pool whose buffers hold tensor-allocator
 * memory
 */
GST_TENSOR_API
GstBufferPool *gst_tn_buffer_pool_new (void);

/**
 * gst_tn_decide_allocation:
 * @query: an ALLOCATION query
 * @caps: the caps of the tensors
 * @size: the bytes of one
 *
 * For decide_allocation of an element that emits fixed-size tensors of
 * @size bytes described by @caps: puts a configured #GstTnBufferPool (and
 * the tensor allocator) first in @query, whatever downstream proposed,
 * keeping downstream's min/max buffer counts.
 *
 * Returns: %FALSE when the pool cannot be configured
 */
GST_TENSOR_API
gboolean gst_tn_decide_allocation (GstQuery *query, GstCaps *caps, gsize size);

G_END_DECLS

#endif
