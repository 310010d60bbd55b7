/* A buffer pool whose buffers always hold 64-byte aligned tensor-allocator
 * memory, whatever allocator the configuration names, and which hands out
 * the buffer released last first.
 *
 * Why the order: GstBufferPool keeps its free buffers in a GstAtomicQueue,
 * first in first out, so once a pool holds more buffers than are in flight
 * (min-buffers preallocated, or a burst while a queue filled) every buffer
 * stays in the rotation and the one just released, whose lines are still in
 * the cache, is the last to be written again.  A stack hands that one back
 * and lets the others go cold.
 *
 * How: acquire_buffer and release_buffer keep the free buffers in a stack of
 * our own under a mutex.  The base class still allocates (its acquire, told
 * not to wait, finds its queue empty and allocates while max-buffers allows),
 * counts the buffers in use and those allocated, and frees (stop() hands the
 * stack to its queue first); only the waiting for a release at max-buffers
 * is ours, on a condition variable that releases, discards and flush_start
 * wake. */
#include "tensorpool.h"

#include "tensorallocator.h"

GST_DEBUG_CATEGORY_STATIC (gst_tn_buffer_pool_debug);
#define GST_CAT_DEFAULT gst_tn_buffer_pool_debug

struct _GstTnBufferPool {
  GstBufferPool parent;

  GMutex lock;
  GCond released;
  GPtrArray *stack; /* the free GstBuffers, the last released on top */
  guint discards;   /* buffers freed on release: a slot to allocate in */
  guint waiters;    /* acquires waiting on released */
  guint size;       /* the configured size, for release's checks */
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

  if (!GST_BUFFER_POOL_CLASS (gst_tn_buffer_pool_parent_class)
           ->set_config (pool, config))
    return FALSE;
  GST_TN_BUFFER_POOL (pool)->size = size;
  return TRUE;
}

static GstFlowReturn
gst_tn_buffer_pool_acquire_buffer (
    GstBufferPool *pool, GstBuffer **buffer, GstBufferPoolAcquireParams *params)
{
  GstTnBufferPool *self = GST_TN_BUFFER_POOL (pool);
  GstBufferPoolAcquireParams nowait = { 0 };
  gboolean wait
      = !params || !(params->flags & GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT);

  if (params)
    nowait = *params;
  nowait.flags |= GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;

  for (;;) {
    GstFlowReturn ret;
    guint discards;

    if (G_UNLIKELY (GST_BUFFER_POOL_IS_FLUSHING (pool)))
      return GST_FLOW_FLUSHING;

    g_mutex_lock (&self->lock);
    if (self->stack->len > 0) {
      *buffer
          = g_ptr_array_steal_index_fast (self->stack, self->stack->len - 1);
      g_mutex_unlock (&self->lock);
      GST_LOG_OBJECT (pool, "acquired buffer %p", *buffer);
      return GST_FLOW_OK;
    }
    discards = self->discards;
    g_mutex_unlock (&self->lock);

    /* Its queue is empty: this allocates a buffer, or says EOS at
     * max-buffers (FLUSHING when flushing). */
    ret = GST_BUFFER_POOL_CLASS (gst_tn_buffer_pool_parent_class)
              ->acquire_buffer (pool, buffer, &nowait);
    if (ret != GST_FLOW_EOS || !wait)
      return ret;

    /* At max-buffers: wait for a release, a discard (which makes room for
     * another allocation) or flushing, checked under the lock that
     * flush_start takes to wake us, so no wake-up is missed. */
    GST_LOG_OBJECT (pool, "waiting for a free buffer or flushing");
    g_mutex_lock (&self->lock);
    self->waiters++;
    while (self->stack->len == 0 && self->discards == discards
           && !GST_BUFFER_POOL_IS_FLUSHING (pool))
      g_cond_wait (&self->released, &self->lock);
    self->waiters--;
    g_mutex_unlock (&self->lock);
  }
}

static void
gst_tn_buffer_pool_release_buffer (GstBufferPool *pool, GstBuffer *buffer)
{
  GstTnBufferPool *self = GST_TN_BUFFER_POOL (pool);

  /* What the base class's release_buffer refuses to keep (memory tagged as
   * changed, a size not the configured one, memory shared with another
   * buffer) it frees, counting the buffer out: give it such ones. */
  if (G_UNLIKELY (GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_TAG_MEMORY)
                  || gst_buffer_get_size (buffer) != self->size
                  || !gst_buffer_is_all_memory_writable (buffer))) {
    GST_BUFFER_POOL_CLASS (gst_tn_buffer_pool_parent_class)
        ->release_buffer (pool, buffer);
    g_mutex_lock (&self->lock);
    self->discards++;
    if (self->waiters > 0)
      g_cond_broadcast (&self->released);
    g_mutex_unlock (&self->lock);
    return;
  }

  /* GLib's GCond makes a futex call on every signal, waiter or not: a
   * system call per buffer, about a microsecond once a frame's copy has
   * left the kernel's paths out of the caches (docs/perf-notes.md, session
   * 18 H2).  Waiters count themselves under the lock. */
  GST_LOG_OBJECT (pool, "released buffer %p", buffer);
  g_mutex_lock (&self->lock);
  g_ptr_array_add (self->stack, buffer);
  if (self->waiters > 0)
    g_cond_signal (&self->released);
  g_mutex_unlock (&self->lock);
}

static void
gst_tn_buffer_pool_flush_start (GstBufferPool *pool)
{
  GstTnBufferPool *self = GST_TN_BUFFER_POOL (pool);
  GstBufferPoolClass *parent_class
      = GST_BUFFER_POOL_CLASS (gst_tn_buffer_pool_parent_class);

  /* The flushing flag is already set: wake the waiters to see it. */
  g_mutex_lock (&self->lock);
  g_cond_broadcast (&self->released);
  g_mutex_unlock (&self->lock);
  if (parent_class->flush_start)
    parent_class->flush_start (pool);
}

static gboolean
gst_tn_buffer_pool_stop (GstBufferPool *pool)
{
  GstTnBufferPool *self = GST_TN_BUFFER_POOL (pool);
  GstBufferPoolClass *parent_class
      = GST_BUFFER_POOL_CLASS (gst_tn_buffer_pool_parent_class);
  GPtrArray *stack;

  /* The base class frees what its queue holds, and only it can count the
   * buffers out (max-buffers, and a stop that finds none left): move the
   * stack there.  Each passes its release checks, as when it was kept. */
  g_mutex_lock (&self->lock);
  stack = self->stack;
  self->stack = g_ptr_array_new ();
  g_mutex_unlock (&self->lock);
  for (guint i = 0; i < stack->len; i++)
    parent_class->release_buffer (pool, g_ptr_array_index (stack, i));
  g_ptr_array_unref (stack);
  return parent_class->stop (pool);
}

static void
gst_tn_buffer_pool_finalize (GObject *object)
{
  GstTnBufferPool *self = GST_TN_BUFFER_POOL (object);

  /* dispose deactivated the pool: stop() emptied the stack. */
  g_ptr_array_unref (self->stack);
  g_cond_clear (&self->released);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_tn_buffer_pool_parent_class)->finalize (object);
}

static void
gst_tn_buffer_pool_class_init (GstTnBufferPoolClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->finalize = gst_tn_buffer_pool_finalize;

  /* The base class's reset_buffer already does what a tensor needs: it
   * restores the configured size and drops every meta not flagged POOLED,
   * the layout meta among them, so a recycled buffer never carries the
   * strides of the tensor it held before. */
  pool_class->set_config = gst_tn_buffer_pool_set_config;
  pool_class->acquire_buffer = gst_tn_buffer_pool_acquire_buffer;
  pool_class->release_buffer = gst_tn_buffer_pool_release_buffer;
  pool_class->flush_start = gst_tn_buffer_pool_flush_start;
  pool_class->stop = gst_tn_buffer_pool_stop;
}

static void
gst_tn_buffer_pool_init (GstTnBufferPool *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->released);
  self->stack = g_ptr_array_new ();
}

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
