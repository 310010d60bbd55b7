/* The tensor buffer pool and gst_tn_decide_allocation. */
#include <string.h>

#include "common/tncheck.h"

/* ---- helpers ---------------------------------------------------------- */

static GstTnAllocatorStats
stats (void)
{
  GstAllocator *a = gst_tn_allocator_get ();
  GstTnAllocatorStats s;

  gst_tn_allocator_get_stats (a, &s);
  gst_object_unref (a);
  return s;
}

static GstCaps *
tensor_caps (void)
{
  return gst_caps_from_string (
      "tensor/x-raw, type=(string)float32, "
      "dims=(int)<2, 3>, dims-order=(string)row-major");
}

static guint8 *
buf_data (GstBuffer *buf)
{
  GstMapInfo map;
  guint8 *p;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  p = map.data;
  gst_buffer_unmap (buf, &map);
  return p;
}

/* A started pool of size-byte buffers with the given allocation params. */
static GstBufferPool *
started_pool (
    guint size, guint min, guint max, const GstAllocationParams *params)
{
  GstBufferPool *pool = gst_tn_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = tensor_caps ();

  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (params)
    gst_buffer_pool_config_set_allocator (config, NULL, params);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_caps_unref (caps);
  return pool;
}

static void
stop_pool (GstBufferPool *pool)
{
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
}

/* ---- the pool --------------------------------------------------------- */

GST_START_TEST (test_config_forces_allocator)
{
  GstBufferPool *pool = gst_tn_buffer_pool_new ();
  GstAllocator *sys = gst_allocator_find (NULL), *tn = gst_tn_allocator_get ();
  GstStructure *config;
  GstAllocator *got = NULL;
  GstAllocationParams params;
  GstCaps *caps = tensor_caps ();

  fail_unless (GST_IS_TN_BUFFER_POOL (pool));
  fail_if (g_object_is_floating (pool));

  /* Whatever allocator the configuration names, ours is used, 64-aligned. */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, 24, 0, 0);
  gst_allocation_params_init (&params);
  gst_buffer_pool_config_set_allocator (config, sys, &params);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_buffer_pool_config_get_allocator (config, &got, &params));
  fail_unless (got == tn);
  fail_unless_equals_uint64 (params.align, 63);
  gst_structure_free (config);

  /* A larger alignment is honoured, the prefix too. */
  config = gst_buffer_pool_get_config (pool);
  gst_allocation_params_init (&params);
  params.align = 4095;
  params.prefix = 32;
  gst_buffer_pool_config_set_allocator (config, NULL, &params);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_buffer_pool_config_get_allocator (config, &got, &params));
  fail_unless (got == tn);
  fail_unless_equals_uint64 (params.align, 4095);
  fail_unless_equals_uint64 (params.prefix, 32);
  gst_structure_free (config);

  gst_caps_unref (caps);
  gst_object_unref (sys);
  gst_object_unref (tn);
  gst_object_unref (pool);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_config_errors)
{
  GstBufferPool *pool = gst_tn_buffer_pool_new ();
  GstStructure *config;
  GstAllocationParams params;
  GstAllocator *got, *tn;
  GstCaps *caps = tensor_caps ();
  gchar *log;

  tn_capture_warnings_start ("tensorpool");
  config = gst_buffer_pool_get_config (pool);
  /* set_params refuses such values, a hand-written config does not */
  gst_structure_set (config, "caps", GST_TYPE_CAPS, caps, "size", G_TYPE_UINT,
      24, "min-buffers", G_TYPE_UINT, 5, "max-buffers", G_TYPE_UINT, 2, NULL);
  fail_if (gst_buffer_pool_set_config (pool, config));
  fail_if (gst_buffer_pool_set_config (
      pool, gst_structure_new_empty ("GstBufferPoolConfig")));
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, 24, 0, 0);
  gst_allocation_params_init (&params);
  params.align = 100;
  gst_buffer_pool_config_set_allocator (config, NULL, &params);
  fail_if (gst_buffer_pool_set_config (pool, config));
  /* A config without allocation params is fine: defaults, 64-aligned. */
  config = gst_structure_new ("GstBufferPoolConfig", "caps", GST_TYPE_CAPS,
      caps, "size", G_TYPE_UINT, 24, "min-buffers", G_TYPE_UINT, 0,
      "max-buffers", G_TYPE_UINT, 0, NULL);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_buffer_pool_config_get_allocator (config, &got, &params));
  tn = gst_tn_allocator_get ();
  fail_unless (got == tn);
  gst_object_unref (tn);
  fail_unless_equals_uint64 (params.align, 63);
  gst_structure_free (config);
  log = tn_capture_warnings_stop ();
  tn_assert_contains (log, "The configuration asks for alignment mask 100, "
                           "which is not a power of two minus one.");
  tn_assert_contains (log, "The configuration asks for at most 2 buffers but "
                           "at least 5.");
  tn_assert_contains (log, "lacks caps, size, min-buffers or max-buffers.");
  g_free (log);

  gst_caps_unref (caps);
  gst_object_unref (pool);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_steady_state)
{
  GstBufferPool *pool = started_pool (3000, 2, 4, NULL);
  GstBuffer *bufs[3];
  guint8 *seen[3];
  GstTnAllocatorStats warm;
  gint round, i, j;

  /* Warm-up: the pool allocates its buffers once... */
  for (i = 0; i < 3; i++) {
    fail_unless_equals_int (
        gst_buffer_pool_acquire_buffer (pool, &bufs[i], NULL), GST_FLOW_OK);
    seen[i] = buf_data (bufs[i]);
    fail_unless (gst_is_tn_memory (gst_buffer_peek_memory (bufs[i], 0)));
  }
  for (i = 0; i < 3; i++)
    gst_buffer_unref (bufs[i]);
  warm = stats ();
  fail_unless_equals_int64 (warm.outstanding, 3);

  /* ...then hands the same memory round and round, allocating nothing. */
  for (round = 0; round < 100; round++) {
    for (i = 0; i < 3; i++) {
      guint8 *p;
      gboolean known = FALSE;

      fail_unless_equals_int (
          gst_buffer_pool_acquire_buffer (pool, &bufs[i], NULL), GST_FLOW_OK);
      fail_unless_equals_uint64 (gst_buffer_get_size (bufs[i]), 3000);
      p = buf_data (bufs[i]);
      fail_unless_equals_uint64 ((guintptr) p % GST_TN_ALIGN, 0);
      for (j = 0; j < 3; j++)
        known |= p == seen[j];
      fail_unless (known, "round %d handed out new memory %p", round, p);
    }
    for (i = 0; i < 3; i++)
      gst_buffer_unref (bufs[i]);
  }
  fail_unless_equals_uint64 (stats ().misses, warm.misses);
  fail_unless_equals_uint64 (stats ().hits, warm.hits);

  stop_pool (pool);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_alignment)
{
  static const guint sizes[] = { 1, 63, 65, 1000, 4097, 100000 };
  static const gsize aligns[] = { 0, 63, 4095 };
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    for (j = 0; j < G_N_ELEMENTS (aligns); j++) {
      GstAllocationParams params;
      GstBufferPool *pool;
      GstBuffer *buf;
      gsize want = MAX (aligns[j] + 1, GST_TN_ALIGN);

      gst_allocation_params_init (&params);
      params.align = aligns[j];
      params.prefix = 10;
      pool = started_pool (sizes[i], 0, 0, &params);
      fail_unless_equals_int (
          gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
      fail_unless_equals_uint64 ((guintptr) buf_data (buf) % want, 0);
      fail_unless_equals_uint64 (gst_buffer_get_size (buf), sizes[i]);
      gst_buffer_unref (buf);
      stop_pool (pool);
    }
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_reset_strips_metas)
{
  GstBufferPool *pool = started_pool (24, 1, 1, NULL);
  GstBuffer *buf, *again;
  GstCaps *ref = gst_caps_from_string ("timestamp/x-test");
  const gint64 strides[2] = { 1, 2 };
  guint8 *data;
  gpointer state = NULL;

  fail_unless_equals_int (
      gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
  data = buf_data (buf);
  fail_unless (gst_tn_buffer_add_layout_meta (buf, 2, 0, strides) != NULL);
  gst_buffer_add_reference_timestamp_meta (buf, ref, 5, 6);
  GST_BUFFER_PTS (buf) = 42 * GST_SECOND;
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  gst_buffer_resize (buf, 4, 8);
  gst_buffer_unref (buf);

  /* The only buffer of the pool comes back as it was first handed out. */
  fail_unless_equals_int (
      gst_buffer_pool_acquire_buffer (pool, &again, NULL), GST_FLOW_OK);
  fail_unless (again == buf);
  fail_unless (buf_data (again) == data);
  fail_unless (gst_tn_buffer_get_layout_meta (again) == NULL);
  fail_unless (gst_buffer_iterate_meta (again, &state) == NULL);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (again), GST_CLOCK_TIME_NONE);
  fail_if (GST_BUFFER_FLAG_IS_SET (again, GST_BUFFER_FLAG_DISCONT));
  fail_unless_equals_uint64 (gst_buffer_get_size (again), 24);
  gst_buffer_unref (again);

  gst_caps_unref (ref);
  stop_pool (pool);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The buffer released last is handed out first: its lines are the ones
 * still in the cache.  (GstBufferPool's own queue hands out the one
 * released first.) */
GST_START_TEST (test_last_released_first)
{
  GstBufferPool *pool = started_pool (3000, 0, 0, NULL);
  GstBuffer *bufs[3], *got;
  gint i;

  for (i = 0; i < 3; i++)
    fail_unless_equals_int (
        gst_buffer_pool_acquire_buffer (pool, &bufs[i], NULL), GST_FLOW_OK);
  for (i = 0; i < 3; i++)
    gst_buffer_unref (bufs[i]);
  for (i = 2; i >= 0; i--) {
    fail_unless_equals_int (
        gst_buffer_pool_acquire_buffer (pool, &got, NULL), GST_FLOW_OK);
    fail_unless (got == bufs[i], "got buffer %p, not %p, released after %d",
        got, bufs[i], i);
  }
  /* Back in another order, out in its reverse. */
  gst_buffer_unref (bufs[1]);
  gst_buffer_unref (bufs[2]);
  gst_buffer_unref (bufs[0]);
  fail_unless_equals_int (
      gst_buffer_pool_acquire_buffer (pool, &got, NULL), GST_FLOW_OK);
  fail_unless (got == bufs[0]);
  gst_buffer_unref (got);

  stop_pool (pool);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A sink that keeps the last buffer (a GstBaseSink's last-sample) needs two
 * in rotation, however many min-buffers preallocated: the other two stay
 * unused, so cold in the cache matters to nobody. */
GST_START_TEST (test_rotation_uses_two)
{
  GstBufferPool *pool = started_pool (3000, 4, 0, NULL);
  GstBuffer *held = NULL, *buf;
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  gint frame;

  for (frame = 0; frame < 20; frame++) {
    fail_unless_equals_int (
        gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
    fail_if (buf == held);
    g_hash_table_add (seen, buf);
    gst_buffer_replace (&held, NULL);
    held = buf;
  }
  fail_unless_equals_int (g_hash_table_size (seen), 2);
  gst_buffer_unref (held);
  g_hash_table_unref (seen);

  stop_pool (pool);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* An acquire on another thread, and what it returned. */
typedef struct {
  GstBufferPool *pool;
  GstBuffer *buf;
  GstFlowReturn ret;
  gint done;
} Acquirer;

static gpointer
acquire_thread (gpointer data)
{
  Acquirer *a = data;

  a->ret = gst_buffer_pool_acquire_buffer (a->pool, &a->buf, NULL);
  g_atomic_int_set (&a->done, 1);
  return NULL;
}

/* Starts an acquire that must block: it has not returned 20 ms later (a
 * slow machine only lets it block later, not return). */
static GThread *
blocked_acquire (Acquirer *a, GstBufferPool *pool)
{
  GThread *t;

  memset (a, 0, sizeof *a);
  a->pool = pool;
  t = g_thread_new ("acquire", acquire_thread, a);
  g_usleep (20000);
  fail_if (g_atomic_int_get (&a->done), "acquire did not wait");
  return t;
}

/* At max-buffers an acquire waits for a release, a discard (room for a new
 * buffer) or flushing, unless told not to. */
GST_START_TEST (test_max_buffers_waits)
{
  GstBufferPool *pool = started_pool (3000, 0, 1, NULL);
  GstBufferPoolAcquireParams nowait
      = { .flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT };
  GstBuffer *buf, *other;
  GstStructure *config;
  Acquirer a;
  GThread *t;

  fail_unless_equals_int (
      gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
  fail_unless_equals_int (
      gst_buffer_pool_acquire_buffer (pool, &other, &nowait), GST_FLOW_EOS);

  /* A release wakes it with that buffer. */
  t = blocked_acquire (&a, pool);
  gst_buffer_unref (buf);
  g_thread_join (t);
  fail_unless_equals_int (a.ret, GST_FLOW_OK);
  fail_unless (a.buf == buf);

  /* Flushing wakes it empty-handed; after it, acquires work again. */
  t = blocked_acquire (&a, pool);
  gst_buffer_pool_set_flushing (pool, TRUE);
  g_thread_join (t);
  fail_unless_equals_int (a.ret, GST_FLOW_FLUSHING);
  fail_unless (a.buf == NULL);
  gst_buffer_pool_set_flushing (pool, FALSE);

  /* A buffer whose memory changed is freed on release, not kept: that
   * makes room for a new one, which the waiter gets. */
  t = blocked_acquire (&a, pool);
  gst_buffer_append_memory (buf, gst_allocator_alloc (NULL, 16, NULL));
  gst_buffer_unref (buf);
  g_thread_join (t);
  fail_unless_equals_int (a.ret, GST_FLOW_OK);
  fail_unless_equals_uint64 (gst_buffer_get_size (a.buf), 3000);
  fail_unless_equals_int (gst_buffer_n_memory (a.buf), 1);
  buf = a.buf;

  /* Deactivating wakes it too; the pool is freed once the buffer out is
   * back, and nothing is counted out then (a new config is accepted only
   * with no buffer outstanding). */
  t = blocked_acquire (&a, pool);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  g_thread_join (t);
  fail_unless_equals_int (a.ret, GST_FLOW_FLUSHING);
  gst_buffer_unref (buf);
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  gst_object_unref (pool);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- gst_tn_decide_allocation ----------------------------------------- */

static void
check_tn_pool (GstQuery *query, guint size, guint min, guint max)
{
  GstBufferPool *pool = NULL;
  GstAllocator *alloc = NULL, *tn = gst_tn_allocator_get ();
  GstAllocationParams params;
  GstStructure *config;
  GstCaps *caps, *want = tensor_caps ();
  guint qsize, qmin, qmax;

  gst_query_parse_nth_allocation_pool (query, 0, &pool, &qsize, &qmin, &qmax);
  fail_unless (pool != NULL && GST_IS_TN_BUFFER_POOL (pool));
  fail_unless_equals_int (qsize, size);
  fail_unless_equals_int (qmin, min);
  fail_unless_equals_int (qmax, max);

  config = gst_buffer_pool_get_config (pool);
  fail_unless (
      gst_buffer_pool_config_get_params (config, &caps, &qsize, &qmin, &qmax));
  fail_unless (gst_caps_is_equal (caps, want));
  fail_unless_equals_int (qsize, size);
  fail_unless_equals_int (qmin, min);
  fail_unless_equals_int (qmax, max);
  gst_buffer_pool_config_get_allocator (config, &alloc, &params);
  fail_unless (alloc == tn);
  fail_unless_equals_uint64 (params.align, 63);
  gst_structure_free (config);

  gst_query_parse_nth_allocation_param (query, 0, &alloc, &params);
  fail_unless (alloc == tn);
  fail_unless_equals_uint64 (params.align, 63);
  gst_object_unref (alloc);

  gst_caps_unref (want);
  gst_object_unref (pool);
  gst_object_unref (tn);
}

GST_START_TEST (test_decide_without_downstream_pool)
{
  GstCaps *caps = tensor_caps ();
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool;
  GstBuffer *buf;

  fail_unless (gst_tn_decide_allocation (query, caps, 24));
  fail_unless_equals_int (gst_query_get_n_allocation_pools (query), 1);
  fail_unless_equals_int (gst_query_get_n_allocation_params (query), 1);
  check_tn_pool (query, 24, 0, 0);

  /* The decided pool works as configured. */
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (
      gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), 24);
  fail_unless_equals_uint64 ((guintptr) buf_data (buf) % GST_TN_ALIGN, 0);
  fail_unless (gst_is_tn_memory (gst_buffer_peek_memory (buf, 0)));
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);

  gst_query_unref (query);
  gst_caps_unref (caps);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_decide_with_downstream_pool)
{
  GstCaps *caps = tensor_caps ();
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *theirs = gst_buffer_pool_new (),
                *second = gst_buffer_pool_new ();
  GstBufferPool *pool;
  GstAllocator *sys = gst_allocator_find (NULL), *alloc;
  GstAllocationParams params;
  guint size, min, max;
  GstTnAllocatorStats before;

  gst_allocation_params_init (&params);
  params.align = 15;
  gst_query_add_allocation_pool (query, theirs, 500, 3, 7);
  gst_query_add_allocation_pool (query, second, 100, 1, 2);
  gst_query_add_allocation_param (query, sys, &params);

  fail_unless (gst_tn_decide_allocation (query, caps, 24));
  /* Ours replaces the first proposal, with downstream's min and max. */
  fail_unless_equals_int (gst_query_get_n_allocation_pools (query), 2);
  fail_unless_equals_int (gst_query_get_n_allocation_params (query), 1);
  check_tn_pool (query, 24, 3, 7);
  gst_query_parse_nth_allocation_pool (query, 1, &pool, &size, &min, &max);
  fail_unless (pool == second);
  fail_unless_equals_int (size, 100);
  gst_object_unref (pool);

  /* min buffers are made when the pool starts: 3 blocks handed out. */
  before = stats ();
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int64 (stats ().outstanding, before.outstanding + 3);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  fail_unless_equals_int64 (stats ().outstanding, before.outstanding);
  gst_object_unref (pool);

  gst_query_parse_nth_allocation_param (query, 0, &alloc, NULL);
  fail_if (alloc == sys);
  gst_object_unref (alloc);

  gst_object_unref (sys);
  gst_object_unref (theirs);
  gst_object_unref (second);
  gst_query_unref (query);
  gst_caps_unref (caps);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_decide_errors)
{
  GstCaps *caps = tensor_caps ();
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *theirs = gst_buffer_pool_new (), *pool;
  gchar *log;
  guint min, max;

  /* Downstream proposes a minimum above its maximum: cannot configure. */
  gst_query_add_allocation_pool (query, theirs, 500, 5, 2);
  tn_capture_warnings_start ("tensorpool");
  fail_if (gst_tn_decide_allocation (query, caps, 24));
#if GLIB_SIZEOF_SIZE_T > 4
  fail_if (gst_tn_decide_allocation (query, caps, (gsize) G_MAXUINT + 1));
#endif
  log = tn_capture_warnings_stop ();
  tn_assert_contains (log,
      "Cannot configure a tensor pool of 24-byte buffers: "
      "downstream proposed at least 5 buffers but at most 2.");
#if GLIB_SIZEOF_SIZE_T > 4
  tn_assert_contains (log, "Cannot pool tensors of 4294967296 bytes: a buffer "
                           "pool holds at most 4294967295 bytes per buffer.");
#endif
  g_free (log);

  /* The query is left as it was. */
  fail_unless_equals_int (gst_query_get_n_allocation_pools (query), 1);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, &min, &max);
  fail_unless (pool == theirs);
  fail_unless_equals_int (min, 5);
  fail_unless_equals_int (max, 2);
  fail_unless_equals_int (gst_query_get_n_allocation_params (query), 0);
  gst_object_unref (pool);

  gst_object_unref (theirs);
  gst_query_unref (query);
  gst_caps_unref (caps);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static Suite *
pool_suite (void)
{
  Suite *s = suite_create ("tensorpool");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_config_forces_allocator);
  tcase_add_test (tc, test_config_errors);
  tcase_add_test (tc, test_steady_state);
  tcase_add_test (tc, test_alignment);
  tcase_add_test (tc, test_reset_strips_metas);
  tcase_add_test (tc, test_last_released_first);
  tcase_add_test (tc, test_rotation_uses_two);
  tcase_add_test (tc, test_max_buffers_waits);
  tcase_add_test (tc, test_decide_without_downstream_pool);
  tcase_add_test (tc, test_decide_with_downstream_pool);
  tcase_add_test (tc, test_decide_errors);
  return s;
}

GST_CHECK_MAIN (pool);
