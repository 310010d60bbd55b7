/* Per-buffer cost of tensorview and tensorconvert against their peers:
 *
 * - tensorview ops=permute:2:0:1, downstream reading strides (the layout
 *   meta is advertised): against identity passing the same buffer (goal:
 *   equal);
 * - the same view with downstream reading dense tensors only, so each
 *   buffer is materialized once: against a memcpy of the same bytes (goal:
 *   at most 2x);
 * - tensorview flip (always one copy, strides being non-negative) of a
 *   1080p RGB frame upside down (whole rows by memcpy), mirrored (pixels
 *   in reverse order), RGB <-> BGR (each pixel's channels reversed), of
 *   float32 planes mirrored, and BGR planes for a network (flip:-1 then
 *   permute:2:0:1, one copy): against a memcpy of the same bytes (goal:
 *   at most 2x, the materialized views' bar);
 * - tensorconvert from 1080p RGB video (zero-copy): against identity on
 *   the same video buffer (goal: equal), with the bytes it copied per
 *   buffer; and width 1921 (padded rows) for a dense-only reader, one copy,
 *   against memcpy.
 *
 * Each element is driven directly from a pad of our own, pushing one input
 * buffer again and again into a sink pad that drops what it gets, so the
 * figure is the element's own cost per buffer.  Each figure is the median
 * of RUNS runs, the element and its peer interleaved run by run.  The
 * plugin comes from ../elements next to this executable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>

#include "bench.h"
#include "rig.h"
#include <gst/tensor/gsttensor.h>

#define RUNS 7

/* bench_view [FILTER [N]]: only the rows whose label holds FILTER (or is
 * FILTER without its leading '='); with N,
 * no timing: N buffers through the element in count_element and N through
 * its peer in count_peer, for instruction counts per buffer under
 * valgrind --tool=callgrind (callgrind_annotate --inclusive=yes). */
static const gchar *filter;
static int count_n;
/* Written by count_element and count_peer so that the compiler cannot fold
 * the two into one function. */
static volatile int count_who;

/* The element with one property set, fed from a pad of ours (rig.h);
 * meta: our sink pad reads the layout meta. */
static void
rig_new (BenchRig *r, const gchar *factory, const gchar *prop,
    const gchar *value, const gchar *caps, gboolean meta)
{
  gchar *desc = prop ? g_strdup_printf ("%s %s=\"%s\"", factory, prop, value)
                     : g_strdup (factory);

  bench_rig_start (r, desc, caps, meta ? BENCH_RIG_META : 0);
  g_free (desc);
}

/* Seconds per buffer over n pushes. */
static double
push_n (BenchRig *r, GstBuffer *buf, int n)
{
  double t0 = bench_now ();

  for (int i = 0; i < n; i++)
    if (gst_pad_push (r->src, gst_buffer_ref (buf)) != GST_FLOW_OK) {
      fprintf (stderr, "push failed\n");
      exit (1);
    }
  return (bench_now () - t0) / n;
}

/* Seconds per buffer over n pushes of writable buffers from pool, as a
 * source hands them on: the element may pass its input on itself. */
static double
push_pool_n (BenchRig *r, GstBufferPool *pool, int n)
{
  double t0 = bench_now ();

  for (int i = 0; i < n; i++) {
    GstBuffer *b;

    if (gst_buffer_pool_acquire_buffer (pool, &b, NULL) != GST_FLOW_OK
        || gst_pad_push (r->src, b) != GST_FLOW_OK) {
      fprintf (stderr, "pool push failed\n");
      exit (1);
    }
  }
  return (bench_now () - t0) / n;
}

static GstBufferPool *
pool_new (gsize size)
{
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, NULL, size, 4, 0);
  gst_buffer_pool_set_config (pool, config);
  gst_buffer_pool_set_active (pool, TRUE);
  return pool;
}

static double
memcpy_n (void *dst, const void *src, size_t size, int n)
{
  double t0 = bench_now ();

  for (int i = 0; i < n; i++) {
    memcpy (dst, src, size);
    bench_sink (dst);
  }
  return (bench_now () - t0) / n;
}

static GstBuffer *
filled (gsize size)
{
  GstAllocator *alloc = gst_tn_allocator_get ();
  GstBuffer *b = gst_buffer_new_allocate (alloc, size, NULL);
  GstMapInfo map;

  gst_object_unref (alloc);
  gst_buffer_map (b, &map, GST_MAP_WRITE);
  for (gsize i = 0; i < size; i++)
    map.data[i] = (guint8) (i * 7);
  gst_buffer_unmap (b, &map);
  return b;
}

static guint64
copied (BenchRig *r)
{
  guint64 v;

  g_object_get (r->e, "bytes-copied", &v, NULL);
  return v;
}

/* FILTER "=LABEL" picks one row by its whole label. */
static gboolean
selected (const gchar *label)
{
  if (filter != NULL && filter[0] == '=')
    return strcmp (label, filter + 1) == 0;
  return filter == NULL || strstr (label, filter) != NULL;
}

G_NO_INLINE static void
count_element (BenchRig *r, GstBuffer *buf, GstBufferPool *pool, int n)
{
  count_who = 1;
  if (pool)
    push_pool_n (r, pool, n);
  else
    push_n (r, buf, n);
}

G_NO_INLINE static void
count_peer (BenchRig *r, GstBuffer *buf, GstBufferPool *pool, int n)
{
  count_who = 2;
  if (pool)
    push_pool_n (r, pool, n);
  else
    push_n (r, buf, n);
}

/* element against identity on the same caps and buffer. */
static void
against_identity (const gchar *label, const gchar *factory, const gchar *prop,
    const gchar *value, const gchar *caps, gsize size, gboolean meta, int n)
{
  GstBuffer *buf;
  BenchRig a, b;
  double ta[RUNS], tb[RUNS], ma, mb;
  guint64 c0;

  if (!selected (label))
    return;
  buf = filled (size);
  rig_new (&a, factory, prop, value, caps, meta);
  rig_new (&b, "identity", NULL, NULL, caps, meta);
  push_n (&a, buf, n / 10 + 1);
  push_n (&b, buf, n / 10 + 1);
  c0 = copied (&a);
  if (count_n > 0) {
    count_element (&a, buf, NULL, count_n);
    count_peer (&b, buf, NULL, count_n);
    printf ("%s: %d buffers each\n", label, count_n);
    goto done;
  }
  for (int i = 0; i < RUNS; i++) {
    ta[i] = push_n (&a, buf, n);
    tb[i] = push_n (&b, buf, n);
  }
  ma = bench_median (ta, RUNS);
  mb = bench_median (tb, RUNS);
  printf ("%-48s %9.2f us  identity %9.2f us  ratio %5.2f  copied "
          "%" G_GUINT64_FORMAT " B/buffer\n",
      label, ma * 1e6, mb * 1e6, ma / mb,
      (copied (&a) - c0) / ((guint64) n * RUNS));
done:
  bench_rig_stop (&a);
  bench_rig_stop (&b);
  gst_buffer_unref (buf);
}

/* As against_identity, the input buffers writable, from a pool. */
static void
against_identity_pool (const gchar *label, const gchar *factory,
    const gchar *prop, const gchar *value, const gchar *caps, gsize size,
    gboolean meta, int n)
{
  GstBufferPool *pool;
  BenchRig a, b;
  double ta[RUNS], tb[RUNS], ma, mb;
  guint64 c0;

  if (!selected (label))
    return;
  pool = pool_new (size);
  rig_new (&a, factory, prop, value, caps, meta);
  rig_new (&b, "identity", NULL, NULL, caps, meta);
  push_pool_n (&a, pool, n / 10 + 1);
  push_pool_n (&b, pool, n / 10 + 1);
  c0 = copied (&a);
  if (count_n > 0) {
    count_element (&a, NULL, pool, count_n);
    count_peer (&b, NULL, pool, count_n);
    printf ("%s: %d buffers each\n", label, count_n);
    goto done;
  }
  for (int i = 0; i < RUNS; i++) {
    ta[i] = push_pool_n (&a, pool, n);
    tb[i] = push_pool_n (&b, pool, n);
  }
  ma = bench_median (ta, RUNS);
  mb = bench_median (tb, RUNS);
  printf ("%-48s %9.2f us  identity %9.2f us  ratio %5.2f  copied "
          "%" G_GUINT64_FORMAT " B/buffer\n",
      label, ma * 1e6, mb * 1e6, ma / mb,
      (copied (&a) - c0) / ((guint64) n * RUNS));
done:
  bench_rig_stop (&a);
  bench_rig_stop (&b);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

/* element (one copy a buffer) against memcpy of out_size bytes. */
static void
against_memcpy (const gchar *label, const gchar *factory, const gchar *prop,
    const gchar *value, const gchar *caps, gsize size, gsize out_size, int n)
{
  GstBuffer *buf;
  BenchRig a;
  double ta[RUNS], tb[RUNS], ma, mb;
  guint8 *src, *dst;
  guint64 c0;

  if (!selected (label) || count_n > 0)
    return;
  buf = filled (size);
  rig_new (&a, factory, prop, value, caps, FALSE);
  src = bench_alloc (out_size);
  dst = bench_alloc (out_size);
  memset (src, 1, out_size);
  memset (dst, 2, out_size);
  push_n (&a, buf, 2);
  memcpy_n (dst, src, out_size, 2);
  c0 = copied (&a);
  for (int i = 0; i < RUNS; i++) {
    ta[i] = push_n (&a, buf, n);
    tb[i] = memcpy_n (dst, src, out_size, n);
  }
  ma = bench_median (ta, RUNS);
  mb = bench_median (tb, RUNS);
  printf ("%-48s %9.2f us  memcpy   %9.2f us  ratio %5.2f  copied "
          "%" G_GUINT64_FORMAT " B/buffer\n",
      label, ma * 1e6, mb * 1e6, ma / mb,
      (copied (&a) - c0) / ((guint64) n * RUNS));
  bench_rig_stop (&a);
  free (src);
  free (dst);
  gst_buffer_unref (buf);
}

static void
use_build_tree_plugin (void)
{
  gchar *exe = g_file_read_link ("/proc/self/exe", NULL);
  gchar *bench_dir, *build_dir, *dir, *path;
  const gchar *old = g_getenv ("GST_PLUGIN_PATH");

  if (!exe)
    return;
  bench_dir = g_path_get_dirname (exe);
  build_dir = g_path_get_dirname (bench_dir);
  dir = g_build_filename (build_dir, "elements", NULL);
  path = old && *old ? g_strconcat (dir, G_SEARCHPATH_SEPARATOR_S, old, NULL)
                     : g_strdup (dir);
  g_setenv ("GST_PLUGIN_PATH", path, TRUE);
  g_free (path);
  g_free (dir);
  g_free (build_dir);
  g_free (bench_dir);
  g_free (exe);
}

#define HWC_U8                                                                 \
  "tensor/x-raw,type=uint8,dims=<1080,1920,3>,dims-order=row-major,"           \
  "framerate=30/1"
#define CHW_F32                                                                \
  "tensor/x-raw,type=float32,dims=<3,1080,1920>,dims-order=row-major,"         \
  "framerate=30/1"
#define VGA(t, d)                                                              \
  "tensor/x-raw,type=" t ",dims=<" d ">,dims-order=row-major,framerate=30/1"
#define RGB_1080 "video/x-raw,format=RGB,width=1920,height=1080,framerate=30/1"
#define RGB_1921 "video/x-raw,format=RGB,width=1921,height=1080,framerate=30/1"

int
main (int argc, char **argv)
{
  const gsize hwc = 1080 * 1920 * 3, chw = 3 * 1080 * 1920 * 4;
  const gsize vga = 480 * 640 * 3;
  const gsize stride1921 = (1921 * 3 + 3) / 4 * 4;

  use_build_tree_plugin ();
  gst_init (&argc, &argv);
  if (argc > 1)
    filter = argv[1];
  if (argc > 2)
    count_n = atoi (argv[2]);

  if (count_n == 0)
    printf ("# per buffer; median of %d interleaved runs\n", RUNS);
  against_identity ("tensorview permute:2:0:1 u8 <1080,1920,3> meta",
      "tensorview", "ops", "permute:2:0:1", HWC_U8, hwc, TRUE, 20000);
  against_identity ("tensorview permute:2:0:1 f32 <3,1080,1920> meta",
      "tensorview", "ops", "permute:2:0:1", CHW_F32, chw, TRUE, 20000);
  against_identity_pool ("tensorview permute:2:0:1 u8 meta, writable in",
      "tensorview", "ops", "permute:2:0:1", HWC_U8, hwc, TRUE, 20000);
  against_identity_pool ("tensorview permute:2:0:1 f32 meta, writable in",
      "tensorview", "ops", "permute:2:0:1", CHW_F32, chw, TRUE, 20000);
  against_identity ("tensorview slice:0:0:540 u8 <1080,1920,3>", "tensorview",
      "ops", "slice:0:0:540", HWC_U8, hwc, FALSE, 20000);
  against_memcpy ("tensorview permute:2:0:1 u8 materialized", "tensorview",
      "ops", "permute:2:0:1", HWC_U8, hwc, hwc, 20);
  against_memcpy ("tensorview permute:2:0:1 f32 materialized", "tensorview",
      "ops", "permute:2:0:1", CHW_F32, chw, chw, 10);
  /* 640x480: everything stays in L2/L3, against a cache-hot memcpy
   * (goal: at least 0.6 of its speed, a ratio of at most 1.67). */
  against_memcpy ("tensorview permute:2:0:1 u8 <480,640,3> (HWC->CHW)",
      "tensorview", "ops", "permute:2:0:1", VGA ("uint8", "480,640,3"), vga,
      vga, 100);
  against_memcpy ("tensorview permute:1:2:0 u8 <3,480,640> (CHW->HWC)",
      "tensorview", "ops", "permute:1:2:0", VGA ("uint8", "3,480,640"), vga,
      vga, 100);
  against_memcpy ("tensorview permute:2:0:1 f32 <480,640,3> (HWC->CHW)",
      "tensorview", "ops", "permute:2:0:1", VGA ("float32", "480,640,3"),
      4 * vga, 4 * vga, 50);
  against_memcpy ("tensorview permute:1:2:0 f32 <3,480,640> (CHW->HWC)",
      "tensorview", "ops", "permute:1:2:0", VGA ("float32", "3,480,640"),
      4 * vga, 4 * vga, 50);
  against_memcpy ("tensorview flip:0 u8 <1080,1920,3> (upside down)",
      "tensorview", "ops", "flip:0", HWC_U8, hwc, hwc, 20);
  against_memcpy ("tensorview flip:1 u8 <1080,1920,3> (mirror)", "tensorview",
      "ops", "flip:1", HWC_U8, hwc, hwc, 20);
  against_memcpy ("tensorview flip:-1 u8 <1080,1920,3> (RGB<->BGR)",
      "tensorview", "ops", "flip:-1", HWC_U8, hwc, hwc, 20);
  against_memcpy ("tensorview flip:-1 f32 <3,1080,1920> (mirror)", "tensorview",
      "ops", "flip:-1", CHW_F32, chw, chw, 10);
  against_memcpy ("tensorview flip:-1,permute:2:0:1 u8 (BGR planes)",
      "tensorview", "ops", "flip:-1,permute:2:0:1", HWC_U8, hwc, hwc, 20);
  against_identity ("tensorconvert RGB 1920x1080 -> tensor", "tensorconvert",
      NULL, NULL, RGB_1080, hwc, FALSE, 20000);
  against_identity_pool ("tensorconvert RGB 1920x1080 -> tensor, writable",
      "tensorconvert", NULL, NULL, RGB_1080, hwc, FALSE, 20000);
  against_identity ("tensorconvert RGB 1921x1080 -> tensor, meta",
      "tensorconvert", NULL, NULL, RGB_1921, stride1921 * 1080, TRUE, 20000);
  against_memcpy ("tensorconvert RGB 1921x1080 -> tensor, dense",
      "tensorconvert", NULL, NULL, RGB_1921, stride1921 * 1080, 1921 * 3 * 1080,
      20);
  return 0;
}
