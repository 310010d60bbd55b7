/* A twice-mapped ring of bytes as GStreamer memory (tnring.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tnring.h"

#include "core/ring.h"

/* A window handed downstream: its run of the ring, in the ring's list of
 * live windows until its memory is freed. */
typedef struct {
  GstTnRing *ring;
  guint64 from, to;
  GList link;
} Window;

struct _GstTnRing {
  tn_ring map;
  GstMemory *mem; /* owns the mapping: the ring's reference count */
  GMutex lock;    /* live, spare: windows are freed on any thread */
  GQueue live;
  GQueue spare; /* Windows to reuse: no allocation per window */
};

static void
gst_tn_ring_free (gpointer data)
{
  GstTnRing *ring = data;

  GList *l;

  while ((l = g_queue_pop_head_link (&ring->spare)) != NULL)
    g_free (l->data);
  tn_ring_unmap (&ring->map);
  g_mutex_clear (&ring->lock);
  g_free (ring);
}

GstTnRing *
gst_tn_ring_new (gsize min_bytes, gchar **why)
{
  GstTnRing *ring = g_new0 (GstTnRing, 1);
  tn_err e = { { 0 } };

  if (tn_ring_map (&ring->map, min_bytes, &e) != 0) {
    *why = g_strdup (e.msg);
    g_free (ring);
    return NULL;
  }
  g_mutex_init (&ring->lock);
  g_queue_init (&ring->live);
  g_queue_init (&ring->spare);
  /* Both halves, so that a map of the memory covers every run; nobody
   * writes through it but the element that made it. */
  ring->mem = gst_memory_new_wrapped (GST_MEMORY_FLAG_NO_SHARE, ring->map.base,
      2 * ring->map.size, 0, 2 * ring->map.size, ring, gst_tn_ring_free);
  return ring;
}

GstTnRing *
gst_tn_ring_ref (GstTnRing *ring)
{
  gst_memory_ref (ring->mem);
  return ring;
}

void
gst_tn_ring_unref (GstTnRing *ring)
{
  gst_memory_unref (ring->mem);
}

GstMemory *
gst_tn_ring_memory (GstTnRing *ring)
{
  return ring->mem;
}

gsize
gst_tn_ring_size (GstTnRing *ring)
{
  return ring->map.size;
}

guint8 *
gst_tn_ring_at (GstTnRing *ring, guint64 pos)
{
  return tn_ring_at (&ring->map, pos);
}

gboolean
gst_tn_ring_can_write (GstTnRing *ring, guint64 from, guint64 to)
{
  guint64 size = ring->map.size;
  gboolean ok = TRUE;
  GList *l;

  if (to <= from || to <= size)
    return TRUE;
  from = from > size ? from - size : 0;
  to -= size;
  g_mutex_lock (&ring->lock);
  for (l = ring->live.head; l != NULL && ok; l = l->next) {
    Window *w = l->data;

    ok = w->to <= from || w->from >= to;
  }
  g_mutex_unlock (&ring->lock);
  return ok;
}

static void
gst_tn_ring_window_free (gpointer data)
{
  Window *w = data;
  GstTnRing *ring = w->ring;

  g_mutex_lock (&ring->lock);
  g_queue_unlink (&ring->live, &w->link);
  g_queue_push_head_link (&ring->spare, &w->link);
  g_mutex_unlock (&ring->lock);
  gst_tn_ring_unref (ring);
}

GstBuffer *
gst_tn_ring_window (GstTnRing *ring, GstTnViews *views, guint64 pos, gsize len)
{
  GList *l;
  Window *w;

  g_return_val_if_fail (len <= ring->map.size, NULL);
  g_mutex_lock (&ring->lock);
  l = g_queue_pop_head_link (&ring->spare);
  w = l != NULL ? l->data : g_new0 (Window, 1);
  w->ring = gst_tn_ring_ref (ring);
  w->from = pos;
  w->to = pos + len;
  w->link.data = w;
  g_queue_push_tail_link (&ring->live, &w->link);
  g_mutex_unlock (&ring->lock);
  /* A view of its own, not a share of the ring's memory: a share of a
   * share is parented to the root, so a share would not tell when the
   * last reader of this run is gone; and a recycled view costs no
   * allocation (tnviews.h). */
  return gst_tn_views_buffer (
      views, gst_tn_ring_at (ring, pos), len, w, gst_tn_ring_window_free);
}

guint
gst_tn_ring_n_live (GstTnRing *ring)
{
  guint n;

  g_mutex_lock (&ring->lock);
  n = ring->live.length;
  g_mutex_unlock (&ring->lock);
  return n;
}
