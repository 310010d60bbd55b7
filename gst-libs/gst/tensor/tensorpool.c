/* A buffer pool whose buffers always hold 64-byte aligned tensor-allocator
 * memory, whatever allocator the configuration names. */
#include "tensorpool.h"

#include "tensorallocator.h"

GST_DEBUG_CATEGORY_STATIC (gst_tn_buffer_pool_debug);
#define GST_CAT_DEFAULT gst_tn_buffer_pool_debug

struct _GstTnBufferPool {
  GstBufferPool parent;
};

G_DEFINE_TYPE_WITH_CODE (GstTnBufferPool, gst_tn_buffer_pool,
    GST_TYPE_BUFFER_POOL,
    GST_DEBUG_CATEGORY_INIT (
        gst_tn_buffer_pool_debug, "tensorpool", 0, "tensor buffer pool"));

static gboolean
gst_tn_buffer_pool_set_config (GstBufferPool *pool, GstStructure *config)
{
  GstCaps *caps;
  guint size, min, max;
  GstAllocator *alloc;
  GstAllocationParams params;

  /* get_params reads the caps field unchecked */
  if (!gst_structure_has_field (config, "caps")
      || !gst_buffer_pool_config_get_params (
          config, &caps, &size, &min, &max)) {
    GST_WARNING_OBJECT (pool,
        "The configuration %" GST_PTR_FORMAT
        " lacks caps, size, min-buffers or max-buffers.",
        config);
    return FALSE;
  }
  if (max != 0 && max < min) {
    GST_WARNING_OBJECT (pool,
        "The configuration asks for at most %u buffers "
        "but at least %u.",
        max, min);
    return FALSE;
  }

  /* get_allocator, too, reads its field unchecked */
  if (gst_structure_has_field (config, "params"))
    gst_buffer_pool_config_get_allocator (config, NULL, &params);
  else
    gst_allocation_params_init (&params);
  if ((params.align + 1) & params.align) {
    GST_WARNING_OBJECT (pool,
        "The configuration asks for alignment mask %" G_GSIZE_FORMAT
        ", which is not a power of two minus one.",
        params.align);
    return FALSE;
  }
  params.align |= GST_TN_ALIGN - 1;
  alloc = gst_tn_allocator_get ();
  gst_buffer_pool_config_set_allocator (config, alloc, &params);
  gst_object_unref (alloc);

  return GST_BUFFER_POOL_CLASS (gst_tn_buffer_pool_parent_class)
      ->set_config (pool, config);
}

static void
gst_tn_buffer_pool_class_init (GstTnBufferPoolClass *klass)
{
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  /* The base class's reset_buffer already does what a tensor needs: it
   * restores the configured size and drops every meta not flagged POOLED,
   * the layout meta among them, so a recycled buffer never carries the
   * strides of the tensor it held before. */
  pool_class->set_config = gst_tn_buffer_pool_set_config;
}

static void
gst_tn_buffer_pool_init (GstTnBufferPool *self)
{}

GstBufferPool *
gst_tn_buffer_pool_new (void)
{
  return gst_object_ref_sink (g_object_new (GST_TYPE_TN_BUFFER_POOL, NULL));
}

gboolean
gst_tn_decide_allocation (GstQuery *query, GstCaps *caps, gsize size)
{
  GstBufferPool *pool;
  GstStructure *config;
  GstAllocator *alloc;
  GstAllocationParams params;
  guint min = 0, max = 0;
  gboolean have_pool;

  g_return_val_if_fail (GST_IS_QUERY (query), FALSE);
  g_return_val_if_fail (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION, FALSE);

  /* The debug category is set up with the type. */
  g_type_ensure (GST_TYPE_TN_BUFFER_POOL);

  if (size > G_MAXUINT) {
    GST_WARNING ("Cannot pool tensors of %" G_GSIZE_FORMAT " bytes: a buffer "
                 "pool holds at most %u bytes per buffer.",
        size, G_MAXUINT);
    return FALSE;
  }

  have_pool = gst_query_get_n_allocation_pools (query) > 0;
  if (have_pool)
    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &min, &max);

  if (max != 0 && max < min) {
    GST_WARNING (
        "Cannot configure a tensor pool of %" G_GSIZE_FORMAT
        "-byte buffers: downstream proposed at least %u buffers but at most "
        "%u.",
        size, min, max);
    return FALSE;
  }

  gst_allocation_params_init (&params);
  params.align = GST_TN_ALIGN - 1;
  alloc = gst_tn_allocator_get ();
  pool = gst_tn_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, (guint) size, min, max);
  gst_buffer_pool_config_set_allocator (config, alloc, &params);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING_OBJECT (pool,
        "Cannot configure a tensor pool of %" G_GSIZE_FORMAT
        "-byte buffers with min %u and max %u buffers "
        "for caps %" GST_PTR_FORMAT ".",
        size, min, max, caps);
    gst_object_unref (pool);
    gst_object_unref (alloc);
    return FALSE;
  }

  if (have_pool)
    gst_query_set_nth_allocation_pool (query, 0, pool, (guint) size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, (guint) size, min, max);

  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_set_nth_allocation_param (query, 0, alloc, &params);
  else
    gst_query_add_allocation_param (query, alloc, &params);

  GST_DEBUG_OBJECT (pool,
      "decided %" G_GSIZE_FORMAT "-byte buffers, min %u, "
      "max %u",
      size, min, max);
  gst_object_unref (pool);
  gst_object_unref (alloc);
  return TRUE;
}
