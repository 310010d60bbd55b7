/* Building and reading tensor buffers, whatever their layout. */
#ifndef GST_TN_BUFFER_H
#define GST_TN_BUFFER_H

#include <gst/gst.h>

#include "tensor-prelude.h"

#include "core/view.h"
#include "tensorinfo.h"

G_BEGIN_DECLS

typedef struct {
  GstBuffer *buffer;
  GstMapInfo map;
  tn_view view;     /* dtype and dims of the caps; strides/offset of the meta */
  guint8 *data;     /* item at (view.offset + sum idx*stride)*size: map.data,
                     * or an aligned copy of it when map.data is not aligned
                     * for the dtype (written back by unmap for a write map) */
  gpointer aligned; /* that copy, or NULL */
} GstTnMap;

/* Maps buffer as a tensor of info, reading the layout meta if present.
 * Memory whose address is not a multiple of the item size (a buffer that
 * starts at an odd byte of a stream) is given as an aligned copy, so that
 * typed loads are defined: one copy in, and for a write map one copy
 * back at unmap.
 * Checks once that every reachable item lies inside the buffer; a buffer
 * whose size disagrees with the caps fails with a message such as
 * "buffer holds 20 bytes; caps float32 <2, 3> need 24". */
GST_TENSOR_API
gboolean gst_tn_buffer_map (GstTnMap *m, GstBuffer *buffer,
    const GstTnInfo *info, GstMapFlags flags, GError **err);
GST_TENSOR_API
void gst_tn_buffer_unmap (GstTnMap *m);

/* Wraps memory the application owns as a dense tensor buffer, no copy;
 * notify(user_data) runs when the last reference goes.  NULL (and notify
 * is not called) if size is less than info needs. */
GST_TENSOR_API
GstBuffer *gst_tn_buffer_wrap (const GstTnInfo *info, gpointer data, gsize size,
    gpointer user_data, GDestroyNotify notify);

/* A dense tensor buffer with the same content: buffer itself (a new ref)
 * when it already is dense and starts at byte 0, otherwise one
 * materialized copy from pool (or the tensor allocator when pool is NULL),
 * with buffer's timestamps and flags. */
GST_TENSOR_API
GstBuffer *gst_tn_buffer_dense (GstBuffer *buffer, const GstTnInfo *info,
    GstBufferPool *pool, GError **err);

/* The view of buffer without mapping it (a map costs more than the rest
 * of a per-buffer path): dense, the view of its caps, when buffer has no
 * layout meta (FALSE unless buffer holds exactly nbytes), else dense with
 * the meta's offset and strides, checked to stay inside the buffer. */
GST_TENSOR_API
gboolean gst_tn_buffer_view (
    GstBuffer *buffer, const tn_view *dense, gsize nbytes, tn_view *v);

G_END_DECLS

#endif
