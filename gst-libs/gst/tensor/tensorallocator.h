/* The tensor allocator: 64-byte aligned GstMemory that recycles. */
#ifndef GST_TN_ALLOCATOR_H
#define GST_TN_ALLOCATOR_H

#include <gst/gst.h>

#include "tensor-prelude.h"

G_BEGIN_DECLS

#define GST_TN_ALLOCATOR_NAME "GstTnAllocator"
#define GST_TN_ALIGN 64

typedef struct {
  guint64 hits;       /* allocations served from the cache */
  guint64 misses;     /* allocations that went to the system */
  guint64 trims;      /* blocks freed to respect max-cached */
  gsize bytes_cached; /* bytes held in the free lists */
  gsize blocks_cached;
  gint64 outstanding; /* blocks handed out and not yet returned */
  gsize outstanding_bytes;
} GstTnAllocatorStats;

/* The process-wide allocator (a new reference); also registered with
 * gst_allocator_register under GST_TN_ALLOCATOR_NAME. */
GST_TENSOR_API
GstAllocator *gst_tn_allocator_get (void);
GST_TENSOR_API
gboolean gst_is_tn_memory (GstMemory *mem);

GST_TENSOR_API
void gst_tn_allocator_get_stats (GstAllocator *alloc, GstTnAllocatorStats *s);
/* Bound on cached bytes (default 64 MiB; env GST_TENSOR_MAX_CACHED).
 * Lowering it trims at once. */
GST_TENSOR_API
void gst_tn_allocator_set_max_cached (GstAllocator *alloc, gsize bytes);
GST_TENSOR_API
gsize gst_tn_allocator_get_max_cached (GstAllocator *alloc);
/* Frees every cached block. */
GST_TENSOR_API
void gst_tn_allocator_trim (GstAllocator *alloc);
/* The size class a request of size bytes is served from. */
GST_TENSOR_API
gsize gst_tn_allocator_round (gsize size);

G_END_DECLS

#endif
