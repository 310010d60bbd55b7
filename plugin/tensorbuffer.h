/* Building and reading tensor buffers, whatever their layout. */
#ifndef GST_TN_BUFFER_H
#define GST_TN_BUFFER_H

#include <gst/gst.h>

#include "core/view.h"
#include "tensorinfo.h"

G_BEGIN_DECLS

typedef struct {
  GstBuffer *buffer;
  GstMapInfo map;
  tn_view view; /* dtype and dims of the caps; strides/offset of the meta */
  guint8 *data; /* map.data: item at (view.offset + sum idx*stride)*size */
} GstTnMap;

/* Maps buffer as a tensor of info, reading the layout meta if present.
 * Checks once that every reachable item lies inside the buffer; a buffer
 * whose size disagrees with the caps fails with a message such as
 * "buffer holds 20 bytes; caps float32 <2, 3> need 24". */
gboolean gst_tn_buffer_map (GstTnMap *m, GstBuffer *buffer,
    const GstTnInfo *info, GstMapFlags flags, GError **err);
void gst_tn_buffer_unmap (GstTnMap *m);

/* Wraps memory the application owns as a dense tensor buffer, no copy;
 * notify(user_data) runs when the last reference goes.  NULL (and notify
 * is not called) if size is less than info needs. */
GstBuffer *gst_tn_buffer_wrap (const GstTnInfo *info, gpointer data, gsize size,
    gpointer user_data, GDestroyNotify notify);

/* A dense tensor buffer with the same content: buffer itself (a new ref)
 * when it already is dense and starts at byte 0, otherwise one
 * materialized copy from pool (or the tensor allocator when pool is NULL),
 * with buffer's timestamps and flags. */
GstBuffer *gst_tn_buffer_dense (GstBuffer *buffer, const GstTnInfo *info,
    GstBufferPool *pool, GError **err);

G_END_DECLS

#endif
