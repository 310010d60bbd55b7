/* The library's initialisation. */
#ifndef GST_TN_INIT_H
#define GST_TN_INIT_H

#include <gst/gst.h>

#include "tensor-prelude.h"

G_BEGIN_DECLS

/**
 * gst_tn_init:
 *
 * Registers the library's types: the layout meta's API type and
 * #GstMetaInfo, so that gst_buffer_get_meta() and bindings find
 * "GstTnLayoutMetaAPI" before any element has used it, the boxed
 * #GstTnInfo and #GstTnAllocatorStats and #GstTnBufferPool.  Call it
 * after gst_init(); the plugin calls it when it loads, the Python
 * package when it is imported.  Idempotent and thread-safe.
 */
GST_TENSOR_API
void gst_tn_init (void);

G_END_DECLS

#endif
