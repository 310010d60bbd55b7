/* The layout meta: strides and offset of a tensor that is not dense. */
#ifndef GST_TN_META_H
#define GST_TN_META_H

#include <gst/gst.h>

#include "tensor-prelude.h"

#include "core/dtype.h"

G_BEGIN_DECLS

#define GST_TN_LAYOUT_META_API_TYPE (gst_tn_layout_meta_api_get_type ())
#define GST_TN_LAYOUT_META_INFO (gst_tn_layout_meta_get_info ())

/* Modelled on GstVideoMeta: present only when the strides are not the
 * dense row-major ones of the caps' dims, or the tensor does not start at
 * byte 0 of the buffer.  A consumer that reads it advertises the API in
 * propose_allocation (gst_query_add_allocation_meta); a producer emits it
 * only when the ALLOCATION query had it. */
typedef struct {
  GstMeta meta;
  gint rank;                   /* must equal the caps' rank */
  gint64 offset;               /* items from the start of the buffer */
  gint64 strides[TN_MAX_RANK]; /* items, >= 0 */
} GstTnLayoutMeta;

GST_TENSOR_API
GType gst_tn_layout_meta_api_get_type (void);
GST_TENSOR_API
const GstMetaInfo *gst_tn_layout_meta_get_info (void);

GST_TENSOR_API
GstTnLayoutMeta *gst_tn_buffer_add_layout_meta (
    GstBuffer *buffer, gint rank, gint64 offset, const gint64 *strides);
#define gst_tn_buffer_get_layout_meta(b)                                       \
  ((GstTnLayoutMeta *) gst_buffer_get_meta ((b), GST_TN_LAYOUT_META_API_TYPE))

G_END_DECLS

#endif
