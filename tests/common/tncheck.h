/* Helpers shared by the GstCheck suites. */
#ifndef TN_CHECK_H
#define TN_CHECK_H

#include <gst/check/gstcheck.h>

#include "plugin/gsttensor.h"

/* The allocator doubles as a leak detector: after a test has dropped every
 * buffer and pool, no block may still be handed out.  Streaming threads drop
 * their last references (a pad, and through it what it held) just after a
 * state change to NULL returns, so join them first. */
static inline void
tn_check_no_outstanding (void)
{
  GstAllocator *alloc = gst_tn_allocator_get ();
  GstTnAllocatorStats s;

  gst_task_cleanup_all ();

  gst_tn_allocator_get_stats (alloc, &s);
  gst_object_unref (alloc);
  fail_unless_equals_int64 (s.outstanding, 0);
}

/* Path of a file in tests/data (g_free it). */
static inline gchar *
tn_test_data (const gchar *name)
{
  const gchar *dir = g_getenv ("GST_TENSOR_TESTDATA");

  fail_unless (dir != NULL, "GST_TENSOR_TESTDATA is not set");
  return g_build_filename (dir, name, NULL);
}

#endif
