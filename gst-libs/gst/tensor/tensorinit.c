/* The library's initialisation. */
#include "tensorinit.h"

#include "tensorallocator.h"
#include "tensorinfo.h"
#include "tensormeta.h"
#include "tensorpool.h"

void
gst_tn_init (void)
{
  static gsize done;

  if (g_once_init_enter (&done)) {
    /* The meta info registers the API type as well. */
    gst_tn_layout_meta_get_info ();
    g_type_ensure (GST_TYPE_TN_INFO);
    g_type_ensure (GST_TYPE_TN_ALLOCATOR_STATS);
    g_type_ensure (GST_TYPE_TN_BUFFER_POOL);
    g_once_init_leave (&done, 1);
  }
}
