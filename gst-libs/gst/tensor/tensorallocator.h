/* The tensor allocator: 64-byte aligned GstMemory that recycles. */
#ifndef GST_TN_ALLOCATOR_H
#define GST_TN_ALLOCATOR_H

#include <gst/gst.h>

#include "tensor-prelude.h"

G_BEGIN_DECLS

#define GST_TN_ALLOCATOR_NAME "GstTnAllocator"
#define GST_TN_ALIGN 64

/**
 * GstTnAllocatorStats:
 * @hits: allocations served from the cache
 * @misses: allocations that went to the system
 * @trims: blocks freed to respect max-cached
 * @bytes_cached: bytes held in the free lists
 * @blocks_cached: blocks held in the free lists
 * @outstanding: blocks handed out and not yet returned
 * @outstanding_bytes: bytes of those blocks
 *
 * The counters of a tensor allocator (gst_tn_allocator_get_stats()).
 */
typedef struct {
  guint64 hits;
  guint64 misses;
  guint64 trims;
  gsize bytes_cached;
  gsize blocks_cached;
  gint64 outstanding;
  gsize outstanding_bytes;
} GstTnAllocatorStats;

#define GST_TYPE_TN_ALLOCATOR_STATS (gst_tn_allocator_stats_get_type ())
GST_TENSOR_API
GType gst_tn_allocator_stats_get_type (void);

/**
 * gst_tn_allocator_get:
 *
 * The process-wide tensor allocator: 64-byte aligned memory that is
 * recycled by size class.  Also registered with gst_allocator_register()
 * under GST_TN_ALLOCATOR_NAME.
 *
 * Returns: (transfer full): the allocator
 */
GST_TENSOR_API
GstAllocator *gst_tn_allocator_get (void);
/**
 * gst_is_tn_memory:
 * @mem: (nullable): a memory
 *
 * Returns: whether @mem comes from the tensor allocator
 */
GST_TENSOR_API
gboolean gst_is_tn_memory (GstMemory *mem);

/**
 * gst_tn_allocator_get_stats:
 * @alloc: the tensor allocator
 * @s: (out caller-allocates): the counters
 *
 * Reads the allocator's counters at once (under its lock).
 */
GST_TENSOR_API
void gst_tn_allocator_get_stats (GstAllocator *alloc, GstTnAllocatorStats *s);
/**
 * gst_tn_allocator_set_max_cached:
 * @alloc: the tensor allocator
 * @bytes: bound on the bytes the free lists hold
 *
 * Bounds the cached bytes (default 64 MiB; environment variable
 * GST_TENSOR_MAX_CACHED).  Lowering it trims at once.
 */
GST_TENSOR_API
void gst_tn_allocator_set_max_cached (GstAllocator *alloc, gsize bytes);
/**
 * gst_tn_allocator_get_max_cached:
 * @alloc: the tensor allocator
 *
 * Returns: the bound on cached bytes
 */
GST_TENSOR_API
gsize gst_tn_allocator_get_max_cached (GstAllocator *alloc);
/**
 * gst_tn_allocator_trim:
 * @alloc: the tensor allocator
 *
 * Frees every cached block.
 */
GST_TENSOR_API
void gst_tn_allocator_trim (GstAllocator *alloc);
/**
 * gst_tn_allocator_round:
 * @size: a request in bytes
 *
 * Returns: the size class a request of @size bytes is served from
 */
GST_TENSOR_API
gsize gst_tn_allocator_round (gsize size);

G_END_DECLS

#endif
