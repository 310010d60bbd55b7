/* The layout meta: strides and offset of a tensor that is not dense. */
#ifndef GST_TN_META_H
#define GST_TN_META_H

#include <gst/gst.h>

#include "tensor-prelude.h"

#include "core/dtype.h"

G_BEGIN_DECLS

#define GST_TN_LAYOUT_META_API_TYPE (gst_tn_layout_meta_api_get_type ())
#define GST_TN_LAYOUT_META_INFO (gst_tn_layout_meta_get_info ())

/**
 * GstTnLayoutMeta:
 * @meta: the parent
 * @rank: the number of axes; must equal the caps' rank
 * @offset: items from the start of the buffer to the first item
 * @strides: (array fixed-size=8): items between neighbours along each
 *   axis, >= 0; the first @rank count
 *
 * The layout of a tensor that is not dense, modelled on GstVideoMeta:
 * present only when the strides are not the dense row-major ones of the
 * caps' dims, or the tensor does not start at byte 0 of the buffer.  A
 * consumer that reads it advertises the API in propose_allocation
 * (gst_query_add_allocation_meta()); a producer emits it only when the
 * ALLOCATION query had it.  Its API type is registered by gst_tn_init().
 */
typedef struct {
  GstMeta meta;
  gint rank;
  gint64 offset;
  gint64 strides[TN_MAX_RANK];
} GstTnLayoutMeta;

/**
 * gst_tn_layout_meta_api_get_type:
 *
 * Returns: the API type of #GstTnLayoutMeta ("GstTnLayoutMetaAPI")
 */
GST_TENSOR_API
GType gst_tn_layout_meta_api_get_type (void);
/**
 * gst_tn_layout_meta_get_info:
 *
 * Returns: (transfer none): the registered #GstMetaInfo
 */
GST_TENSOR_API
const GstMetaInfo *gst_tn_layout_meta_get_info (void);

/**
 * gst_tn_buffer_add_layout_meta:
 * @buffer: a writable buffer
 * @rank: the number of axes, 0 to 8
 * @offset: items from the start of the buffer, >= 0
 * @strides: (array length=rank): items, each >= 0
 *
 * Sets the layout of @buffer (a second call replaces the first).
 *
 * Returns: (transfer none) (nullable): the meta, or %NULL (with a
 * critical) for a rank, offset or stride out of range
 */
GST_TENSOR_API
GstTnLayoutMeta *gst_tn_buffer_add_layout_meta (
    GstBuffer *buffer, gint rank, gint64 offset, const gint64 *strides);
/**
 * gst_tn_buffer_get_layout_meta:
 * @buffer: a buffer
 *
 * Returns: (transfer none) (nullable): the layout meta of @buffer, or
 * %NULL when @buffer is dense
 */
GST_TENSOR_API
GstTnLayoutMeta *gst_tn_buffer_get_layout_meta (GstBuffer *buffer);

/**
 * gst_tn_pad_accept_views:
 * @pad: the sink pad of an application sink (appsink, or a fakesink
 *   whose handoff reads the meta)
 *
 * Says, for an application that reads the layout meta (the Python
 * package's to_numpy does), that @pad takes strided views: adds a probe
 * that answers every ALLOCATION query reaching @pad with the meta's API,
 * as an element that reads the meta does in propose_allocation.  A
 * probe in C, because a binding's own probe holds a second reference to
 * the query, which leaves it not writable.
 *
 * Returns: the probe id, for gst_pad_remove_probe(); 0 if none was added
 */
GST_TENSOR_API
gulong gst_tn_pad_accept_views (GstPad *pad);

G_END_DECLS

#endif
