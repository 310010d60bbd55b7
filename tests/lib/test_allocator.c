/* The tensor allocator: alignment, zero-copy shares, deep copies, size
 * classes, the recycling policy (LIFO, first fit, the 2x rule, the cached
 * bytes bound and its trimming order), statistics, threads, errors. */
#include <stdio.h>
#include <string.h>

#include "common/tncheck.h"
#include <gst/tensor/tensorallocator-private.h>

#define KiB ((gsize) 1024)
#define MiB (1024 * KiB)

/* ---- helpers ---------------------------------------------------------- */

/* A fresh allocator with the default bound, whatever the environment says. */
static GstAllocator *
new_alloc (void)
{
  GstAllocator *a = gst_tn_allocator_new ();

  gst_tn_allocator_set_max_cached (a, GST_TN_DEFAULT_MAX_CACHED);
  return a;
}

static GstTnAllocatorStats
stats (GstAllocator *a)
{
  GstTnAllocatorStats s;

  gst_tn_allocator_get_stats (a, &s);
  return s;
}

static GstMemory *
alloc_n (GstAllocator *a, gsize n)
{
  GstMemory *m = gst_allocator_alloc (a, n, NULL);

  fail_unless (m != NULL, "allocating %" G_GSIZE_FORMAT " bytes failed", n);
  return m;
}

/* Where mem's bytes start (data + offset), as a reader sees them. */
static guint8 *
mem_data (GstMemory *mem)
{
  GstMapInfo map;
  guint8 *p;

  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  p = map.data;
  gst_memory_unmap (mem, &map);
  return p;
}

static void
fill (GstMemory *mem, guint8 seed)
{
  GstMapInfo map;
  gsize i;

  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  for (i = 0; i < map.size; i++)
    map.data[i] = (guint8) (seed + i * 7);
  gst_memory_unmap (mem, &map);
}

/* ---- size classes ----------------------------------------------------- */

GST_START_TEST (test_round)
{
  static const struct {
    gsize in, out;
  } cases[] = {
    { 0, 64 },
    { 1, 64 },
    { 63, 64 },
    { 64, 64 },
    { 65, 128 },
    { 100, 128 },
    { 128, 128 },
    { 129, 256 },
    { 1000, 1024 },
    { 4096, 4096 },
    { 4097, 8192 },
    { 40000, 65536 },
    { 65535, 65536 },
    { 65536, 65536 },
    /* beyond 64 KiB: multiples of 64 KiB, not powers of two */
    { 65537, 131072 },
    { 100000, 131072 },
    { 131072, 131072 },
    { 131073, 196608 },
    { 1000000, 1048576 },
    { 1048577, 1114112 },
    { 16 * 1024 * 1024 + 1, 16 * 1024 * 1024 + 65536 },
    { G_MAXSIZE - 65535, G_MAXSIZE - 65535 },
    /* cannot be rounded up without wrapping */
    { G_MAXSIZE - 65534, 0 },
    { G_MAXSIZE, 0 },
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    fail_unless_equals_uint64 (
        gst_tn_allocator_round (cases[i].in), cases[i].out);
}

GST_END_TEST;

/* ---- layout of one memory --------------------------------------------- */

GST_START_TEST (test_alignment)
{
  GstAllocator *a = new_alloc ();
  static const gsize sizes[] = { 0, 1, 3, 63, 64, 65, 127, 129, 1000, 4095,
    4097, 65535, 65537, 100003, 1 * MiB + 1 };
  static const gsize aligns[] = { 0, 7, 63, 127, 4095 };
  static const gsize prefixes[] = { 0, 1, 64, 100 };
  guint i, j, k;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    for (j = 0; j < G_N_ELEMENTS (aligns); j++) {
      for (k = 0; k < G_N_ELEMENTS (prefixes); k++) {
        GstAllocationParams params;
        GstMemory *m;
        GstMapInfo map;
        gsize offset, maxsize, want = MAX (aligns[j] + 1, GST_TN_ALIGN);

        gst_allocation_params_init (&params);
        params.align = aligns[j];
        params.prefix = prefixes[k];
        params.padding = 2 * k + 1;
        m = gst_allocator_alloc (a, sizes[i], &params);
        fail_unless (m != NULL);
        fail_unless (gst_is_tn_memory (m));
        fail_unless (gst_memory_is_type (m, "TnMemory"));
        fail_unless_equals_uint64 (
            gst_memory_get_sizes (m, &offset, &maxsize), sizes[i]);
        fail_unless_equals_uint64 (offset, prefixes[k]);
        fail_unless_equals_uint64 (
            maxsize, prefixes[k] + sizes[i] + params.padding);

        fail_unless (gst_memory_map (m, &map, GST_MAP_WRITE));
        fail_unless_equals_uint64 ((guintptr) map.data % want, 0);
        fail_unless_equals_uint64 (map.size, sizes[i]);
        fail_unless_equals_uint64 (map.maxsize, sizes[i] + params.padding);
        /* The whole block, prefix to padding, is ours to write (ASan
         * checks that it lies inside the system allocation). */
        memset (map.data - prefixes[k], 0x5a, maxsize);
        gst_memory_unmap (m, &map);
        gst_memory_unref (m);
      }
    }
  }
  fail_unless_equals_int64 (stats (a).outstanding, 0);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_zero_prefix_padding)
{
  GstAllocator *a = new_alloc ();
  GstAllocationParams params;
  GstMemory *m;
  GstMapInfo map;
  guint8 *block;
  gsize i;

  gst_allocation_params_init (&params);
  params.prefix = 16;
  params.padding = 48;
  /* Dirty a block, then get it back from the cache with the zero flags. */
  m = gst_allocator_alloc (a, 100, &params);
  fail_unless (gst_memory_map (m, &map, GST_MAP_WRITE));
  memset (map.data - 16, 0xff, 16 + 100 + 48);
  gst_memory_unmap (m, &map);
  gst_memory_unref (m);

  params.flags = GST_MEMORY_FLAG_ZERO_PREFIXED | GST_MEMORY_FLAG_ZERO_PADDED;
  m = gst_allocator_alloc (a, 100, &params);
  fail_unless_equals_uint64 (stats (a).hits, 1);
  fail_unless (GST_MEMORY_FLAG_IS_SET (m, GST_MEMORY_FLAG_ZERO_PREFIXED));
  fail_unless (gst_memory_map (m, &map, GST_MAP_READ));
  block = map.data - 16;
  for (i = 0; i < 16; i++)
    fail_unless_equals_int (block[i], 0);
  for (i = 16; i < 116; i++)
    fail_unless_equals_int (block[i], 0xff); /* the payload is not cleared */
  for (i = 116; i < 164; i++)
    fail_unless_equals_int (block[i], 0);
  gst_memory_unmap (m, &map);
  gst_memory_unref (m);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- share, copy, span ------------------------------------------------ */

GST_START_TEST (test_share)
{
  GstAllocator *a = new_alloc ();
  GstMemory *m = alloc_n (a, 1000), *sub, *subsub, *tail;
  guint8 *base = mem_data (m);
  GstMapInfo map;
  gsize offset, maxsize;

  fill (m, 3);
  sub = gst_memory_share (m, 100, 200);
  fail_unless (sub != NULL);
  fail_unless (gst_is_tn_memory (sub));
  fail_unless (sub->parent == m);
  fail_unless (mem_data (sub) == base + 100);
  fail_unless_equals_uint64 (
      gst_memory_get_sizes (sub, &offset, &maxsize), 200);
  fail_unless_equals_uint64 (offset, 100);
  fail_unless_equals_uint64 (maxsize, 1000);
  /* One block handed out, whatever the number of views of it. */
  fail_unless_equals_int64 (stats (a).outstanding, 1);

  /* A share of a share hangs off the root, offsets adding up. */
  subsub = gst_memory_share (sub, 10, 20);
  fail_unless (subsub->parent == m);
  fail_unless (mem_data (subsub) == base + 110);
  tail = gst_memory_share (m, 900, -1);
  fail_unless_equals_uint64 (tail->size, 100);
  fail_unless (mem_data (tail) == base + 900);

  /* A view is read-only: a writer must copy. */
  fail_if (gst_memory_map (sub, &map, GST_MAP_WRITE));

  /* The share keeps the block alive after the root's owner lets go. */
  gst_memory_unref (m);
  fail_unless_equals_int64 (stats (a).outstanding, 1);
  fail_unless_equals_uint64 (stats (a).blocks_cached, 0);
  fail_unless (gst_memory_map (sub, &map, GST_MAP_READ));
  fail_unless_equals_int (map.data[0], (guint8) (3 + 100 * 7));
  fail_unless_equals_int (map.data[199], (guint8) (3 + 299 * 7));
  gst_memory_unmap (sub, &map);

  gst_memory_unref (sub);
  gst_memory_unref (tail);
  fail_unless_equals_int64 (stats (a).outstanding, 1);
  gst_memory_unref (subsub);
  fail_unless_equals_int64 (stats (a).outstanding, 0);
  fail_unless_equals_uint64 (stats (a).blocks_cached, 1);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_share_prefix)
{
  GstAllocator *a = new_alloc ();
  GstAllocationParams params;
  GstMemory *m, *head;

  gst_allocation_params_init (&params);
  params.prefix = 32;
  m = gst_allocator_alloc (a, 64, &params);
  /* A negative offset reaches back into the prefix. */
  head = gst_memory_share (m, -32, 40);
  fail_unless (head != NULL);
  fail_unless (mem_data (head) == mem_data (m) - 32);
  fail_unless_equals_uint64 (head->size, 40);
  gst_memory_unref (head);
  gst_memory_unref (m);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_share_errors)
{
  GstAllocator *a = new_alloc ();
  GstMemory *m = alloc_n (a, 1000);
  gchar *log;

  tn_capture_warnings_start ("tensorallocator");
  fail_unless (gst_memory_share (m, 900, 200) == NULL);
  fail_unless (gst_memory_share (m, -1, 10) == NULL);
  fail_unless (gst_memory_share (m, 1001, -1) == NULL);
  fail_unless (gst_memory_share (m, 0, 1001) == NULL);
  fail_unless (gst_memory_share (m, G_MINSSIZE, 1) == NULL);
  log = tn_capture_warnings_stop ();
  tn_assert_contains (log,
      "Cannot share 200 bytes at offset 900 of a memory "
      "of 1000 bytes (at offset 0 in a block of 1000 bytes): the range "
      "leaves the block.");
  tn_assert_contains (log, "Cannot share 10 bytes at offset -1 ");
  tn_assert_contains (log, "Cannot share -1 bytes at offset 1001 ");
  tn_assert_contains (log, "Cannot share 1001 bytes at offset 0 ");
  g_free (log);
  /* The edges themselves are fine. */
  gst_memory_unref (gst_memory_share (m, 1000, -1));
  gst_memory_unref (gst_memory_share (m, 0, 1000));
  gst_memory_unref (m);
  fail_unless_equals_int64 (stats (a).outstanding, 0);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_copy)
{
  GstAllocator *a = new_alloc ();
  GstMemory *m = alloc_n (a, 1000), *c, *part, *sub, *subc;
  GstMapInfo mm, cm;
  gchar *log;
  gsize i;

  fill (m, 11);
  c = gst_memory_copy (m, 0, -1);
  fail_unless (gst_is_tn_memory (c));
  fail_unless (c->allocator == a);
  fail_unless (c->parent == NULL);
  fail_unless_equals_uint64 (c->size, 1000);
  fail_unless (mem_data (c) != mem_data (m));
  fail_unless_equals_uint64 ((guintptr) mem_data (c) % GST_TN_ALIGN, 0);
  fail_unless_equals_int64 (stats (a).outstanding, 2);

  /* Deep: writing the original leaves the copy as it was. */
  fill (m, 99);
  fail_unless (gst_memory_map (c, &cm, GST_MAP_READ));
  for (i = 0; i < 1000; i++)
    fail_unless_equals_int (cm.data[i], (guint8) (11 + i * 7));
  gst_memory_unmap (c, &cm);

  part = gst_memory_copy (m, 10, 20);
  fail_unless_equals_uint64 (part->size, 20);
  fail_unless (gst_memory_map (part, &cm, GST_MAP_READ));
  fail_unless (gst_memory_map (m, &mm, GST_MAP_READ));
  fail_unless (memcmp (cm.data, mm.data + 10, 20) == 0);
  gst_memory_unmap (m, &mm);
  gst_memory_unmap (part, &cm);

  /* A copy of a view copies what the view sees. */
  sub = gst_memory_share (m, 500, 100);
  subc = gst_memory_copy (sub, 0, -1);
  fail_unless (subc->parent == NULL);
  fail_unless_equals_uint64 (subc->size, 100);
  fail_unless (gst_memory_map (subc, &cm, GST_MAP_READ));
  fail_unless_equals_int (cm.data[0], (guint8) (99 + 500 * 7));
  gst_memory_unmap (subc, &cm);

  tn_capture_warnings_start ("tensorallocator");
  fail_unless (gst_memory_copy (m, 990, 20) == NULL);
  fail_unless (gst_memory_copy (m, 1200, -1) == NULL);
  log = tn_capture_warnings_stop ();
  tn_assert_contains (log, "Cannot copy 20 bytes at offset 990 of a memory of "
                           "1000 bytes (at offset 0 in a block of 1000 bytes)");
  tn_assert_contains (log, "Cannot copy -1 bytes at offset 1200 ");
  g_free (log);

  gst_memory_unref (subc);
  gst_memory_unref (sub);
  gst_memory_unref (part);
  gst_memory_unref (c);
  gst_memory_unref (m);
  fail_unless_equals_int64 (stats (a).outstanding, 0);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_is_span)
{
  GstAllocator *a = new_alloc ();
  GstMemory *m = alloc_n (a, 1000), *x, *y, *z, *other;
  GstBuffer *buf;
  GstMapInfo map;
  guint8 *base = mem_data (m);
  gsize off = 12345;

  x = gst_memory_share (m, 100, 100);
  y = gst_memory_share (m, 200, 300);
  z = gst_memory_share (m, 600, 10);
  other = alloc_n (a, 1000);
  fail_unless (gst_memory_is_span (x, y, &off));
  fail_unless_equals_uint64 (off, 100);
  fail_if (gst_memory_is_span (y, x, NULL));
  fail_if (gst_memory_is_span (y, z, NULL));
  fail_if (gst_memory_is_span (m, other, NULL));

  /* A buffer of two adjacent views maps without a copy. */
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, x);
  gst_buffer_append_memory (buf, y);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless (map.data == base + 100);
  fail_unless_equals_uint64 (map.size, 400);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);

  gst_memory_unref (z);
  gst_memory_unref (other);
  gst_memory_unref (m);
  fail_unless_equals_int64 (stats (a).outstanding, 0);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- recycling policy ------------------------------------------------- */

GST_START_TEST (test_lifo)
{
  GstAllocator *a = new_alloc ();
  GstMemory *ma = alloc_n (a, 1000), *mb = alloc_n (a, 900), *x, *y;
  guint8 *pa = mem_data (ma), *pb = mem_data (mb);
  GstTnAllocatorStats s;

  fail_if (pa == pb);
  gst_memory_unref (ma);
  gst_memory_unref (mb);
  /* Both are in class 1024: B went back last, so it comes out first. */
  x = alloc_n (a, 1024);
  y = alloc_n (a, 513);
  fail_unless (mem_data (x) == pb);
  fail_unless (mem_data (y) == pa);
  s = stats (a);
  fail_unless_equals_uint64 (s.misses, 2);
  fail_unless_equals_uint64 (s.hits, 2);
  fail_unless_equals_uint64 (s.blocks_cached, 0);
  gst_memory_unref (x);
  gst_memory_unref (y);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_first_fit)
{
  GstAllocator *a = new_alloc ();
  GstMemory *m256 = alloc_n (a, 256), *m1k = alloc_n (a, 1024);
  GstMemory *m4k = alloc_n (a, 4096), *big = alloc_n (a, MiB);
  guint8 *p256 = mem_data (m256), *p1k = mem_data (m1k);
  guint8 *p4k = mem_data (m4k), *pbig = mem_data (big);
  GstMemory *x, *y, *z;
  GstTnAllocatorStats s;

  gst_memory_unref (m256);
  gst_memory_unref (m1k);
  gst_memory_unref (m4k);
  gst_memory_unref (big);
  s = stats (a);
  fail_unless_equals_uint64 (s.blocks_cached, 4);
  fail_unless_equals_uint64 (s.bytes_cached, 256 + 1024 + 4096 + MiB);

  /* class 512: no 512 block, the first one above is 1024 = 2x: taken */
  x = alloc_n (a, 300);
  fail_unless (mem_data (x) == p1k);
  /* class 256 takes its own block even though 4096 would also fit */
  y = alloc_n (a, 200);
  fail_unless (mem_data (y) == p256);
  /* class 2048: 4096 is 2x, taken */
  z = alloc_n (a, 1500);
  fail_unless (mem_data (z) == p4k);
  s = stats (a);
  fail_unless_equals_uint64 (s.hits, 3);
  fail_unless_equals_uint64 (s.misses, 4);
  /* The block keeps its own class: 1024 bytes outstanding for a 300-byte
   * request. */
  fail_unless_equals_uint64 (s.outstanding_bytes, 1024 + 256 + 4096);
  gst_memory_unref (x);
  gst_memory_unref (y);
  gst_memory_unref (z);

  /* class 64: the smallest cached block is 256, more than 2x: a miss. */
  x = alloc_n (a, 64);
  fail_unless_equals_uint64 (stats (a).misses, 5);
  fail_unless_equals_uint64 (stats (a).blocks_cached, 4);
  /* class 128: 256 is exactly 2x: a hit. */
  y = alloc_n (a, 100);
  fail_unless (mem_data (y) == p256);
  gst_memory_unref (x);
  gst_memory_unref (y);

  /* Quantum classes: 1 MiB is more than twice 320 KiB, not twice 640 KiB */
  x = alloc_n (a, 300000);
  fail_if (mem_data (x) == pbig);
  fail_unless_equals_uint64 (stats (a).misses, 6);
  y = alloc_n (a, 600000);
  fail_unless (mem_data (y) == pbig);
  fail_unless_equals_uint64 (stats (a).misses, 6);
  gst_memory_unref (x);
  gst_memory_unref (y);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_hits_misses)
{
  GstAllocator *a = new_alloc ();
  GstTnAllocatorStats s;
  guint8 *first = NULL;
  gint i;

  for (i = 0; i < 100; i++) {
    GstMemory *m = alloc_n (a, 5000 + i); /* all in class 8192 */

    if (i == 0)
      first = mem_data (m);
    fail_unless (mem_data (m) == first);
    gst_memory_unref (m);
  }
  s = stats (a);
  fail_unless_equals_uint64 (s.misses, 1);
  fail_unless_equals_uint64 (s.hits, 99);
  fail_unless_equals_uint64 (s.trims, 0);
  fail_unless_equals_uint64 (s.blocks_cached, 1);
  fail_unless_equals_uint64 (s.bytes_cached, 8192);
  fail_unless_equals_int64 (s.outstanding, 0);
  fail_unless_equals_uint64 (s.outstanding_bytes, 0);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_bound_trims_oldest)
{
  GstAllocator *a = new_alloc ();
  GstMemory *m[4], *x;
  guint8 *p[4];
  GstTnAllocatorStats s;
  gint i;

  gst_tn_allocator_set_max_cached (a, 192 * KiB);
  fail_unless_equals_uint64 (gst_tn_allocator_get_max_cached (a), 192 * KiB);
  for (i = 0; i < 4; i++) {
    m[i] = alloc_n (a, 64 * KiB);
    p[i] = mem_data (m[i]);
  }
  for (i = 0; i < 4; i++)
    gst_memory_unref (m[i]);
  /* The fourth return overflows the bound: the first one returned goes. */
  s = stats (a);
  fail_unless_equals_uint64 (s.trims, 1);
  fail_unless_equals_uint64 (s.blocks_cached, 3);
  fail_unless_equals_uint64 (s.bytes_cached, 192 * KiB);
  /* What is left is exactly the three younger blocks, newest first. */
  for (i = 3; i >= 1; i--) {
    m[i] = alloc_n (a, 64 * KiB);
    fail_unless (mem_data (m[i]) == p[i], "block %d", i);
  }
  fail_unless_equals_uint64 (stats (a).hits, 3);
  m[0] = alloc_n (a, 64 * KiB);
  fail_unless_equals_uint64 (stats (a).misses, 5);
  for (i = 0; i < 4; i++)
    gst_memory_unref (m[i]);

  /* A block larger than the whole bound is freed at once and evicts
   * nothing. */
  s = stats (a);
  x = alloc_n (a, 256 * KiB);
  gst_memory_unref (x);
  fail_unless_equals_uint64 (stats (a).trims, s.trims + 1);
  fail_unless_equals_uint64 (stats (a).blocks_cached, s.blocks_cached);
  fail_unless_equals_uint64 (stats (a).bytes_cached, s.bytes_cached);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_lower_bound_trims_in_age_order)
{
  GstAllocator *a = new_alloc ();
  GstMemory *mx = alloc_n (a, 64 * KiB), *my = alloc_n (a, 128 * KiB);
  GstMemory *mz = alloc_n (a, 64), *w;
  guint8 *pz = mem_data (mz);
  GstTnAllocatorStats s;

  /* Returned oldest first: X (64 KiB), Y (128 KiB), Z (64 B). */
  gst_memory_unref (mx);
  gst_memory_unref (my);
  gst_memory_unref (mz);
  fail_unless_equals_uint64 (stats (a).bytes_cached, 192 * KiB + 64);

  /* Age, not size, decides: X goes although Y is larger. */
  gst_tn_allocator_set_max_cached (a, 128 * KiB + 64);
  s = stats (a);
  fail_unless_equals_uint64 (s.trims, 1);
  fail_unless_equals_uint64 (s.blocks_cached, 2);
  fail_unless_equals_uint64 (s.bytes_cached, 128 * KiB + 64);

  gst_tn_allocator_set_max_cached (a, 100);
  s = stats (a);
  fail_unless_equals_uint64 (s.trims, 2);
  fail_unless_equals_uint64 (s.blocks_cached, 1);
  fail_unless_equals_uint64 (s.bytes_cached, 64);
  w = alloc_n (a, 10);
  fail_unless (mem_data (w) == pz);
  gst_memory_unref (w);

  gst_tn_allocator_trim (a);
  s = stats (a);
  fail_unless_equals_uint64 (s.trims, 3);
  fail_unless_equals_uint64 (s.blocks_cached, 0);
  fail_unless_equals_uint64 (s.bytes_cached, 0);

  /* A bound of 0 turns the cache off. */
  gst_tn_allocator_set_max_cached (a, 0);
  gst_memory_unref (alloc_n (a, 10));
  gst_memory_unref (alloc_n (a, 10));
  s = stats (a);
  fail_unless_equals_uint64 (s.hits, 1);
  fail_unless_equals_uint64 (s.misses, 5);
  fail_unless_equals_uint64 (s.trims, 5);
  fail_unless_equals_uint64 (s.blocks_cached, 0);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- statistics ------------------------------------------------------- */

GST_START_TEST (test_stats_teardown)
{
  GstAllocator *a = new_alloc ();
  GstMemory *m1 = alloc_n (a, 1000), *m2 = alloc_n (a, 100000), *sh, *cp;
  GstBuffer *buf, *buf2;
  GstTnAllocatorStats s;

  s = stats (a);
  fail_unless_equals_int64 (s.outstanding, 2);
  fail_unless_equals_uint64 (s.outstanding_bytes, 1024 + 131072);
  fail_unless_equals_uint64 (s.misses, 2);

  sh = gst_memory_share (m2, 10, 10);
  cp = gst_memory_copy (m1, 0, 100);
  buf = gst_buffer_new_allocate (a, 3000, NULL);
  buf2 = gst_buffer_copy_deep (buf);
  s = stats (a);
  fail_unless_equals_int64 (s.outstanding, 5);
  fail_unless_equals_uint64 (
      s.outstanding_bytes, 1024 + 131072 + 128 + 4096 + 4096);

  gst_memory_unref (m1);
  gst_memory_unref (m2);
  gst_memory_unref (cp);
  gst_buffer_unref (buf);
  gst_buffer_unref (buf2);
  fail_unless_equals_int64 (stats (a).outstanding, 1); /* sh holds m2 */
  gst_memory_unref (sh);

  s = stats (a);
  fail_unless_equals_int64 (s.outstanding, 0);
  fail_unless_equals_uint64 (s.outstanding_bytes, 0);
  /* Every block made is cached, trimmed or outstanding. */
  fail_unless_equals_uint64 (s.misses, s.blocks_cached + s.trims);
  fail_unless_equals_uint64 (s.bytes_cached, 1024 + 131072 + 128 + 4096 * 2);
  /* Finalizing with blocks still cached frees them (ASan's leak check). */
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- threads ---------------------------------------------------------- */

#define N_THREADS 4
#define N_ITERS 20000
#define N_LIVE 8

typedef struct {
  GstAllocator *alloc;
  guint idx;
  gint allocs;
  gint errors;
} Hammer;

static gpointer
hammer (gpointer data)
{
  Hammer *h = data;
  GRand *rand = g_rand_new_with_seed (h->idx + 1);
  GstMemory *live[N_LIVE];
  guint64 tags[N_LIVE];
  gint n = 0, i;

  for (i = 0; i < N_ITERS; i++) {
    GstMapInfo map;

    if (n == 0 || (n < N_LIVE && g_rand_boolean (rand))) {
      gsize size = g_rand_int_range (rand, 16, 300000);
      GstMemory *m = gst_allocator_alloc (h->alloc, size, NULL);

      if (m == NULL || !gst_memory_map (m, &map, GST_MAP_WRITE)) {
        h->errors++;
        break;
      }
      tags[n] = ((guint64) h->idx << 40) + i;
      memcpy (map.data, &tags[n], 8);
      memcpy (map.data + map.size - 8, &tags[n], 8);
      gst_memory_unmap (m, &map);
      live[n++] = m;
      h->allocs++;
    } else {
      gint k = g_rand_int_range (rand, 0, n);
      guint64 head = 0, tail = 0;

      /* A block handed to two owners at once would show another tag. */
      if (gst_memory_map (live[k], &map, GST_MAP_READ)) {
        memcpy (&head, map.data, 8);
        memcpy (&tail, map.data + map.size - 8, 8);
        gst_memory_unmap (live[k], &map);
      }
      if (head != tags[k] || tail != tags[k])
        h->errors++;
      gst_memory_unref (live[k]);
      live[k] = live[--n];
      tags[k] = tags[n];
    }
  }
  while (n > 0)
    gst_memory_unref (live[--n]);
  g_rand_free (rand);
  return NULL;
}

GST_START_TEST (test_threads)
{
  GstAllocator *a = new_alloc ();
  GThread *threads[N_THREADS];
  Hammer h[N_THREADS];
  GstTnAllocatorStats s;
  gint i, total_allocs = 0;

  /* A bound small enough that trimming runs concurrently too. */
  gst_tn_allocator_set_max_cached (a, 2 * MiB);
  for (i = 0; i < N_THREADS; i++) {
    h[i].alloc = a;
    h[i].idx = i;
    h[i].allocs = h[i].errors = 0;
    threads[i] = g_thread_new ("hammer", hammer, &h[i]);
  }
  for (i = 0; i < N_THREADS; i++) {
    g_thread_join (threads[i]);
    fail_unless_equals_int (h[i].errors, 0);
    total_allocs += h[i].allocs;
  }

  s = stats (a);
  fail_unless_equals_int64 (s.outstanding, 0);
  fail_unless_equals_uint64 (s.outstanding_bytes, 0);
  fail_unless_equals_uint64 (s.hits + s.misses, (guint64) total_allocs);
  fail_unless_equals_uint64 (s.misses, s.blocks_cached + s.trims);
  fail_unless (s.bytes_cached <= 2 * MiB);
  fail_unless (s.hits > 0 && s.trims > 0,
      "hits %" G_GUINT64_FORMAT " trims %" G_GUINT64_FORMAT, s.hits, s.trims);
  fail_unless (s.bytes_cached >= s.blocks_cached * GST_TN_ALIGN);
  gst_tn_allocator_trim (a);
  s = stats (a);
  fail_unless_equals_uint64 (s.bytes_cached, 0);
  fail_unless_equals_uint64 (s.misses, s.trims);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- the singleton and its configuration ------------------------------ */

GST_START_TEST (test_singleton)
{
  GstAllocator *a = gst_tn_allocator_get (), *b = gst_tn_allocator_get ();
  GstAllocator *found = gst_allocator_find (GST_TN_ALLOCATOR_NAME);
  GstAllocator *sys = gst_allocator_find (NULL);
  GstMemory *m, *sm;

  fail_unless (a == b);
  fail_unless (found == a);
  fail_unless (GST_IS_TN_ALLOCATOR (a));
  fail_unless_equals_uint64 (gst_tn_allocator_get_max_cached (a),
      gst_tn_allocator_default_max_cached ());

  m = gst_allocator_alloc (a, 10, NULL);
  sm = gst_allocator_alloc (sys, 10, NULL);
  fail_unless (gst_is_tn_memory (m));
  fail_if (gst_is_tn_memory (sm));
  fail_if (gst_is_tn_memory (NULL));
  gst_memory_unref (sm);

  /* The outstanding count is what tn_check_no_outstanding relies on. */
  fail_unless_equals_int64 (stats (a).outstanding, 1);
  gst_memory_unref (m);
  fail_unless_equals_int64 (stats (a).outstanding, 0);

  gst_object_unref (sys);
  gst_object_unref (found);
  gst_object_unref (b);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_parse_size)
{
  static const struct {
    const gchar *in;
    gsize out;
  } good[] = {
    { "0", 0 },
    { "1048576", 1048576 },
    { "64M", 64 * MiB },
    { "512K", 512 * KiB },
    { "7k", 7 * KiB },
    { "1G", 1024 * MiB },
    { "2KiB", 2 * KiB },
    { "3MB", 3 * MiB },
    { "5mib", 5 * MiB },
  };
  static const gchar *bad[]
      = { "", "abc", "12X", "-5", " 5", "5 ", "64MiBs", "M", "1.5M" };
  guint i;
  GError *err = NULL;
  gsize v;

  for (i = 0; i < G_N_ELEMENTS (good); i++) {
    v = 1;
    fail_unless (
        gst_tn_allocator_parse_size (good[i].in, &v, NULL), "%s", good[i].in);
    fail_unless_equals_uint64 (v, good[i].out);
  }
  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    gchar *want = g_strdup_printf (
        "'%s' is not a byte count: expected "
        "decimal digits with an optional K, M or G suffix, such as 67108864 "
        "or 64M.",
        bad[i]);

    v = 1;
    fail_if (gst_tn_allocator_parse_size (bad[i], &v, &err), "%s", bad[i]);
    fail_unless (
        g_error_matches (err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS));
    fail_unless_equals_string (err->message, want);
    fail_unless_equals_uint64 (v, 1);
    g_clear_error (&err);
    g_free (want);
  }
  fail_if (gst_tn_allocator_parse_size ("18446744073709551616", &v, &err));
  fail_unless_equals_string (err->message,
      "'18446744073709551616' is more "
      "bytes than a 64-bit size can hold (at most 18446744073709551615).");
  g_clear_error (&err);
  /* 2^34 GiB is 2^64 bytes */
  fail_if (gst_tn_allocator_parse_size ("17179869184G", &v, &err));
  tn_assert_contains (err->message, "'17179869184G' is more bytes than");
  g_clear_error (&err);
  fail_unless (gst_tn_allocator_parse_size ("17179869183G", &v, NULL));
  fail_unless_equals_uint64 (v, ((gsize) 17179869183) << 30);
}

GST_END_TEST;

GST_START_TEST (test_env_max_cached)
{
  gchar *saved = g_strdup (g_getenv (GST_TN_MAX_CACHED_ENV));
  GstAllocator *a;
  gchar *log;

  g_unsetenv (GST_TN_MAX_CACHED_ENV);
  fail_unless_equals_uint64 (gst_tn_allocator_default_max_cached (), 64 * MiB);

  g_setenv (GST_TN_MAX_CACHED_ENV, "3M", TRUE);
  fail_unless_equals_uint64 (gst_tn_allocator_default_max_cached (), 3 * MiB);
  a = gst_tn_allocator_new ();
  fail_unless_equals_uint64 (gst_tn_allocator_get_max_cached (a), 3 * MiB);
  gst_object_unref (a);

  tn_capture_warnings_start ("tensorallocator");
  g_setenv (GST_TN_MAX_CACHED_ENV, "lots", TRUE);
  fail_unless_equals_uint64 (gst_tn_allocator_default_max_cached (), 64 * MiB);
  log = tn_capture_warnings_stop ();
  tn_assert_contains (log, "Ignoring GST_TENSOR_MAX_CACHED: 'lots' is not a "
                           "byte count");
  tn_assert_contains (log, "Keeping the default of 67108864 bytes.");
  g_free (log);

  if (saved)
    g_setenv (GST_TN_MAX_CACHED_ENV, saved, TRUE);
  else
    g_unsetenv (GST_TN_MAX_CACHED_ENV);
  g_free (saved);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- errors ----------------------------------------------------------- */

GST_START_TEST (test_alloc_errors)
{
  GstAllocator *a = new_alloc ();
  GstAllocationParams params;
  GstTnAllocatorStats s;
  GstMemory *m;
  gchar *log, *want;

  gst_allocation_params_init (&params);
  params.prefix = 100;
  params.padding = 28;
  tn_capture_warnings_start ("tensorallocator");
  fail_unless (gst_allocator_alloc (a, G_MAXSIZE - 100, &params) == NULL);
  fail_unless (gst_allocator_alloc (a, G_MAXSIZE - 1000, NULL) == NULL);
  log = tn_capture_warnings_stop ();
  want = g_strdup_printf (
      "Cannot allocate %" G_GSIZE_FORMAT " bytes with "
      "prefix 100, padding 28 and alignment 64: the block size overflows "
      "%u bits.",
      G_MAXSIZE - 100, (guint) (8 * sizeof (gsize)));
  tn_assert_contains (log, want);
  g_free (want);
  want = g_strdup_printf ("Cannot allocate %" G_GSIZE_FORMAT " bytes with "
                          "prefix 0, padding 0 and alignment 64",
      G_MAXSIZE - 1000);
  tn_assert_contains (log, want);
  g_free (want);
  g_free (log);

  /* The system running out of memory: NULL and a sentence, no stats. */
  gst_tn_allocator_fail_system_allocs (a, 1);
  tn_capture_warnings_start ("tensorallocator");
  fail_unless (gst_allocator_alloc (a, 5000, &params) == NULL);
  log = tn_capture_warnings_stop ();
  /* 5000 + 100 + 28, plus up to 63 bytes to align the payload, in 8 KiB */
  tn_assert_contains (log,
      "The system could not allocate a 8192-byte block "
      "for a request of 5000 bytes (prefix 100, padding 28).");
  g_free (log);
  s = stats (a);
  fail_unless_equals_uint64 (s.misses, 0);
  fail_unless_equals_int64 (s.outstanding, 0);
  /* The failure was one-off. */
  m = gst_allocator_alloc (a, 5000, &params);
  fail_unless (m != NULL);
  fail_unless_equals_uint64 (stats (a).misses, 1);

  /* A copy needs a new block; when there is none it fails cleanly. */
  gst_tn_allocator_fail_system_allocs (a, 1);
  tn_capture_warnings_start ("tensorallocator");
  fail_unless (gst_memory_copy (m, 0, -1) == NULL);
  log = tn_capture_warnings_stop ();
  tn_assert_contains (log,
      "The system could not allocate a 8192-byte block "
      "for a request of 5000 bytes (prefix 0, padding 0).");
  g_free (log);
  fail_unless_equals_int64 (stats (a).outstanding, 1);
  gst_memory_unref (m);
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- huge pages ------------------------------------------------------- */

/* The VmFlags line of the mapping of /proc/self/smaps that holds addr.
 * Read a line at a time, stopping at it: with every plugin loaded the file
 * is megabytes long, and splitting it whole is quadratic under ASan, whose
 * strstr interceptor measures the rest of the string on every call. */
static gchar *
vm_flags_at (gconstpointer addr)
{
  FILE *f = fopen ("/proc/self/smaps", "r");
  gchar line[4096], *flags = NULL;
  gboolean inside = FALSE;

  fail_unless (f != NULL);
  while (flags == NULL && fgets (line, sizeof line, f) != NULL) {
    guint64 lo, hi;

    /* A mapping starts with "lo-hi perms ...", in lowercase hex; the
     * names of its fields are capitalised. */
    if (!g_ascii_isupper (line[0])
        && sscanf (line, "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x", &lo,
               &hi)
               == 2)
      inside = lo <= (guintptr) addr && (guintptr) addr < hi;
    else if (inside && g_str_has_prefix (line, "VmFlags:"))
      flags = g_strchomp (g_strdup (line + strlen ("VmFlags:")));
  }
  fclose (f);
  fail_unless (flags != NULL, "no mapping in /proc/self/smaps holds %p", addr);
  return flags;
}

/* Blocks from GST_TN_HUGE_MIN up start on a huge page and carry the
 * kernel's "hg" flag (MADV_HUGEPAGE); smaller ones do not. */
GST_START_TEST (test_huge_pages)
{
  GstAllocator *a = new_alloc ();
  static const gsize sizes[] = { 1 * MiB, GST_TN_HUGE_MIN, 24 * MiB + 5 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    GstMemory *m = alloc_n (a, sizes[i]);
    guint8 *p = mem_data (m);
    gchar *flags = vm_flags_at (p + sizes[i] - 1);
    gboolean huge = strstr (flags, " hg") != NULL;

    if (sizes[i] >= GST_TN_HUGE_MIN) {
      fail_unless (huge,
          "a block of %" G_GSIZE_FORMAT
          " bytes is not advised for huge pages: VmFlags%s",
          sizes[i], flags);
      /* The block, a small header and then the data, starts on a huge
       * page boundary. */
      fail_unless ((guintptr) p % GST_TN_HUGE_PAGE < 4096, "data at %p", p);
    } else {
      fail_if (huge,
          "a block of %" G_GSIZE_FORMAT " bytes is advised for huge pages",
          sizes[i]);
    }
    g_free (flags);
    fill (m, 3);
    gst_memory_unref (m);
  }
  gst_object_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static Suite *
allocator_suite (void)
{
  Suite *s = suite_create ("tensorallocator");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_round);
  tcase_add_test (tc, test_alignment);
  tcase_add_test (tc, test_zero_prefix_padding);
  tcase_add_test (tc, test_share);
  tcase_add_test (tc, test_share_prefix);
  tcase_add_test (tc, test_share_errors);
  tcase_add_test (tc, test_copy);
  tcase_add_test (tc, test_is_span);
  tcase_add_test (tc, test_lifo);
  tcase_add_test (tc, test_first_fit);
  tcase_add_test (tc, test_hits_misses);
  tcase_add_test (tc, test_bound_trims_oldest);
  tcase_add_test (tc, test_lower_bound_trims_in_age_order);
  tcase_add_test (tc, test_stats_teardown);
  tcase_add_test (tc, test_threads);
  tcase_add_test (tc, test_singleton);
  tcase_add_test (tc, test_parse_size);
  tcase_add_test (tc, test_env_max_cached);
  tcase_add_test (tc, test_alloc_errors);
  tcase_add_test (tc, test_huge_pages);
  return s;
}

GST_CHECK_MAIN (allocator);
