/* Building and reading tensor buffers, whatever their layout. */
#ifndef GST_TN_BUFFER_H
#define GST_TN_BUFFER_H

#include <gst/gst.h>

#include "tensor-prelude.h"

#include "core/view.h"
#include "tensorinfo.h"

G_BEGIN_DECLS

/**
 * GstTnMap:
 * @buffer: the mapped buffer
 * @map: its GstMapInfo
 * @view: dtype and dims of the caps; strides and offset of the layout meta
 * @data: the item at (view.offset + sum idx*stride) * item size lies here:
 *   map.data, or an aligned copy of it when map.data is not aligned for
 *   the dtype (written back by gst_tn_buffer_unmap() for a write map)
 * @aligned: that copy, or %NULL
 *
 * A tensor buffer mapped for reading or writing (gst_tn_buffer_map()).
 * From C only: bindings map the buffer with gst_buffer_map() and read
 * the layout with gst_tn_buffer_get_layout_meta().
 */
typedef struct {
  GstBuffer *buffer;
  GstMapInfo map;
  tn_view view;
  guint8 *data;
  gpointer aligned;
} GstTnMap;

/**
 * gst_tn_buffer_map: (skip)
 * @m: (out caller-allocates): the mapping
 * @buffer: a tensor buffer
 * @info: the tensor of its caps
 * @flags: GST_MAP_READ and/or GST_MAP_WRITE
 * @err: the reason for a failure
 *
 * Maps @buffer as a tensor of @info, reading the layout meta if present.
 * Memory whose address is not a multiple of the item size (a buffer that
 * starts at an odd byte of a stream) is given as an aligned copy, so that
 * typed loads are defined: one copy in, and for a write map one copy
 * back at unmap.
 * Checks once that every reachable item lies inside the buffer; a buffer
 * whose size disagrees with the caps fails with a message such as
 * "buffer holds 20 bytes; caps float32 <2, 3> need 24".
 *
 * Returns: %TRUE when mapped; then gst_tn_buffer_unmap() must follow
 */
GST_TENSOR_API
gboolean gst_tn_buffer_map (GstTnMap *m, GstBuffer *buffer,
    const GstTnInfo *info, GstMapFlags flags, GError **err);
/**
 * gst_tn_buffer_unmap: (skip)
 * @m: a mapping of gst_tn_buffer_map()
 *
 * Unmaps, writing an aligned copy back first for a write map.
 */
GST_TENSOR_API
void gst_tn_buffer_unmap (GstTnMap *m);

/**
 * gst_tn_buffer_wrap:
 * @info: the tensor the memory holds
 * @data: (type gpointer): the first byte of the tensor
 * @size: bytes at @data
 * @notify_arg: (nullable): for @notify
 * @notify: (nullable) (scope async): called with @notify_arg when the
 *   last reference to the memory goes
 *
 * Wraps memory the application owns as a dense tensor buffer, no copy.
 * The buffer holds the bytes @info needs, from @data: a @size beyond them
 * is not part of it (to pass a strided view, wrap the bytes its strides
 * reach as a uint8 tensor of that many items, then add the layout meta,
 * as the Python package does).
 * The memory is writable: an element that writes in place writes into
 * it (gst_tn_buffer_wrap_full() with %GST_MEMORY_FLAG_READONLY prevents
 * that).  (@notify_arg is not a closure argument: a binding passes a callable
 * that holds what it keeps alive, and %NULL.)
 *
 * Returns: (transfer full) (nullable): the buffer, or %NULL (and @notify
 * is not called) if @size is less than @info needs
 */
GST_TENSOR_API
GstBuffer *gst_tn_buffer_wrap (const GstTnInfo *info, gpointer data, gsize size,
    gpointer notify_arg, GDestroyNotify notify);
/**
 * gst_tn_buffer_wrap_full:
 * @info: the tensor the memory holds
 * @flags: of the memory: %GST_MEMORY_FLAG_READONLY lets no element write
 *   into it (one that writes in place copies first)
 * @data: (type gpointer): the first byte of the tensor
 * @size: bytes at @data
 * @notify_arg: (nullable): for @notify
 * @notify: (nullable) (scope async): called with @notify_arg when the
 *   last reference to the memory goes
 *
 * gst_tn_buffer_wrap() with memory @flags.  The Python package wraps
 * arrays read-only, so that a pipeline never changes the application's
 * array.
 *
 * Returns: (transfer full) (nullable): the buffer, or %NULL (and @notify
 * is not called) if @size is less than @info needs
 */
GST_TENSOR_API
GstBuffer *gst_tn_buffer_wrap_full (const GstTnInfo *info, GstMemoryFlags flags,
    gpointer data, gsize size, gpointer notify_arg, GDestroyNotify notify);

/**
 * gst_tn_buffer_is_writable:
 * @buffer: a buffer
 *
 * gst_buffer_is_writable() for bindings, which do not see that macro:
 * whether @buffer may be mapped for writing (one reference).
 *
 * Returns: whether @buffer is writable
 */
GST_TENSOR_API
gboolean gst_tn_buffer_is_writable (GstBuffer *buffer);

/**
 * gst_tn_buffer_dense:
 * @buffer: a tensor buffer, dense or a view (layout meta)
 * @info: the tensor of its caps
 * @pool: (nullable): where the copy comes from; %NULL: the tensor allocator
 * @err: the reason for a failure
 *
 * A dense tensor buffer with the same content: @buffer itself (a new ref)
 * when it already is dense and starts at byte 0, otherwise one
 * materialized copy from @pool, with @buffer's timestamps and flags.
 *
 * Returns: (transfer full) (nullable): the dense buffer, or %NULL with
 * @err set when @buffer does not hold the tensor of @info
 */
GST_TENSOR_API
GstBuffer *gst_tn_buffer_dense (GstBuffer *buffer, const GstTnInfo *info,
    GstBufferPool *pool, GError **err);

/**
 * gst_tn_buffer_view: (skip)
 * @buffer: a tensor buffer
 * @dense: the dense view of its caps
 * @nbytes: the bytes of that dense tensor
 * @v: (out caller-allocates): the buffer's view
 *
 * The view of @buffer without mapping it (a map costs more than the rest
 * of a per-buffer path): @dense when @buffer has no layout meta (%FALSE
 * unless @buffer holds exactly @nbytes), else @dense with the meta's
 * offset and strides, checked to stay inside the buffer.
 *
 * Returns: whether @v is a view that stays inside @buffer
 */
GST_TENSOR_API
gboolean gst_tn_buffer_view (
    GstBuffer *buffer, const tn_view *dense, gsize nbytes, tn_view *v);

G_END_DECLS

#endif
