/* Internals of the tensor allocator shared with its tests and benchmark. */
#ifndef GST_TN_ALLOCATOR_PRIVATE_H
#define GST_TN_ALLOCATOR_PRIVATE_H

#include "tensorallocator.h"

/* clang-format off */
G_BEGIN_DECLS

#define GST_TYPE_TN_ALLOCATOR (gst_tn_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstTnAllocator, gst_tn_allocator, GST, TN_ALLOCATOR,
    GstAllocator)

/* Sizes of the classes: powers of two from GST_TN_ALIGN up to
 * GST_TN_SMALL_MAX, then multiples of GST_TN_QUANTUM. */
#define GST_TN_SMALL_MAX ((gsize) 64 * 1024)
#define GST_TN_QUANTUM ((gsize) 64 * 1024)
#define GST_TN_DEFAULT_MAX_CACHED ((gsize) 64 * 1024 * 1024)
#define GST_TN_MAX_CACHED_ENV "GST_TENSOR_MAX_CACHED"
/* Blocks of this many bytes or more are aligned to a huge page and
 * advised as MADV_HUGEPAGE (NumPy's threshold for its arrays). */
#define GST_TN_HUGE_MIN ((gsize) 4 * 1024 * 1024)
#define GST_TN_HUGE_PAGE ((gsize) 2 * 1024 * 1024)

/* A fresh allocator with its own cache and statistics, not registered:
 * the singleton is one of these.  Reads GST_TENSOR_MAX_CACHED like the
 * singleton does. */
GstAllocator *gst_tn_allocator_new (void);

/* Parses a byte count: decimal digits with an optional binary suffix
 * K, M or G (optionally followed by "iB" or "B"), e.g. "1048576", "64M",
 * "512KiB".  FALSE with a GError (GST_LIBRARY_ERROR_SETTINGS) otherwise. */
gboolean gst_tn_allocator_parse_size (const gchar *str, gsize *bytes,
    GError **err);

/* The bound a new allocator starts with: GST_TENSOR_MAX_CACHED when set and
 * valid (a GST_WARNING names a bad value), else 64 MiB. */
gsize gst_tn_allocator_default_max_cached (void);

/* Makes the next n system allocations fail, so that tests can reach the
 * out-of-memory path without exhausting the machine. */
void gst_tn_allocator_fail_system_allocs (GstAllocator *alloc, guint n);

G_END_DECLS
/* clang-format on */

#endif
