/* Acquire + release of one block: the tensor allocator (gst_allocator_alloc
 * + gst_memory_unref), a GstTnBufferPool (acquire + unref), malloc + free,
 * and GStreamer's default allocator for reference, from 64 B to 16 MiB.  Every
 * path writes the first byte of its block, so each measures a block that is
 * ready to use (and malloc cannot be optimised away); for GstMemory that
 * includes a map. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"
#include <gst/tensor/gsttensor.h>

#define RUNS 15

typedef enum { M_MALLOC, M_ALLOC, M_POOL, M_SYSMEM, N_METHODS } Method;

static const char *method_names[N_METHODS] = { "malloc+free", "tnalloc+unref",
  "pool acquire+release", "sysmem+unref" };

static void
run_malloc (size_t size, int n)
{
  int i;

  for (i = 0; i < n; i++) {
    unsigned char *p = malloc (size);

    if (p == NULL)
      abort ();
    p[0] = (unsigned char) i;
    bench_sink (p);
    free (p);
  }
}

static void
touch_memory (GstMemory *mem, int i)
{
  GstMapInfo map;

  if (!gst_memory_map (mem, &map, GST_MAP_WRITE))
    abort ();
  map.data[0] = (guint8) i;
  bench_sink (map.data);
  gst_memory_unmap (mem, &map);
}

static void
run_alloc_params (
    GstAllocator *alloc, size_t size, int n, GstAllocationParams *params)
{
  int i;

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_allocator_alloc (alloc, size, params);

    if (mem == NULL)
      abort ();
    touch_memory (mem, i);
    gst_memory_unref (mem);
  }
}

static void
run_pool (GstBufferPool *pool, int n)
{
  int i;

  for (i = 0; i < n; i++) {
    GstBuffer *buf;

    if (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) != GST_FLOW_OK)
      abort ();
    touch_memory (gst_buffer_peek_memory (buf, 0), i);
    gst_buffer_unref (buf);
  }
}

static GstBufferPool *
make_pool (size_t size)
{
  GstBufferPool *pool = gst_tn_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, NULL, (guint) size, 0, 0);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE))
    abort ();
  return pool;
}

/* This thread's CPU seconds: time the scheduler gives to other processes on
 * a busy machine does not count, so runs stay comparable. */
static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ns per operation of one timed run. */
static double
timed (Method m, GstAllocator *alloc, GstBufferPool *pool, size_t size, int n)
{
  GstAllocationParams params;
  double t0;

  gst_allocation_params_init (&params);
  params.align = GST_TN_ALIGN - 1;
  t0 = cpu_now ();

  switch (m) {
  case M_MALLOC:
    run_malloc (size, n);
    break;
  case M_ALLOC:
    run_alloc_params (alloc, size, n, NULL);
    break;
  case M_POOL:
    run_pool (pool, n);
    break;
  default:
    /* GStreamer's default allocator, same alignment: what an element would
     * use without ours. */
    run_alloc_params (NULL, size, n, &params);
    break;
  }
  return (cpu_now () - t0) * 1e9 / n;
}

int
main (int argc, char **argv)
{
  static const size_t sizes[] = { 64, 4096, 65536, 1 << 20, 16 << 20 };
  GstAllocator *alloc;
  GstTnAllocatorStats s0, s1;
  size_t k;

  gst_init (&argc, &argv);
  alloc = gst_tn_allocator_get ();

  printf ("acquire+release of one block, thread CPU ns per op, median of %d "
          "interleaved runs\n",
      RUNS);
  printf ("%10s %12s %14s %21s %13s %10s %11s %10s\n", "size", method_names[0],
      method_names[1], method_names[2], method_names[3], "malloc/tn",
      "malloc/pool", "sysmem/tn");
  gst_tn_allocator_get_stats (alloc, &s0);
  for (k = 0; k < G_N_ELEMENTS (sizes); k++) {
    size_t size = sizes[k];
    int n = size >= (1 << 20) ? 20000 : 200000;
    GstBufferPool *pool = make_pool (size);
    double t[N_METHODS][RUNS], med[N_METHODS];
    int r, j;

    /* Warm every path once: the first allocation of a size is a miss. */
    for (j = 0; j < N_METHODS; j++)
      timed ((Method) j, alloc, pool, size, 16);
    /* Rotate the order each run so drift hits all methods alike. */
    for (r = 0; r < RUNS; r++)
      for (j = 0; j < N_METHODS; j++) {
        Method m = (Method) ((r + j) % N_METHODS);

        t[m][r] = timed (m, alloc, pool, size, n);
      }
    for (j = 0; j < N_METHODS; j++)
      med[j] = bench_median (t[j], RUNS);
    printf ("%10zu %12.1f %14.1f %21.1f %13.1f %10.2f %11.2f %10.2f\n", size,
        med[M_MALLOC], med[M_ALLOC], med[M_POOL], med[M_SYSMEM],
        med[M_MALLOC] / med[M_ALLOC], med[M_MALLOC] / med[M_POOL],
        med[M_SYSMEM] / med[M_ALLOC]);
    fflush (stdout);
    if (!gst_buffer_pool_set_active (pool, FALSE))
      abort ();
    gst_object_unref (pool);
  }
  gst_tn_allocator_get_stats (alloc, &s1);
  printf ("allocator: %" G_GUINT64_FORMAT " hits, %" G_GUINT64_FORMAT
          " misses, %" G_GUINT64_FORMAT " trims during the runs\n",
      s1.hits - s0.hits, s1.misses - s0.misses, s1.trims - s0.trims);

  gst_object_unref (alloc);
  gst_deinit ();
  return 0;
}
