/* A twice-mapped ring of bytes as GStreamer memory (tnring.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tnring.h"

#include "core/ring.h"

/* A window handed downstream: its run of the ring.  The writer (one
 * thread at a time: the element's streaming thread) keeps every window
 * it made in `made`, oldest first; a window dies on any thread by
 * clearing `live` (an atomic store, no lock), and the writer moves dead
 * ones to `spare` when it next looks (gst_tn_ring_can_write), so
 * neither a window's birth nor its death takes a lock. */
typedef struct {
  GstTnRing *ring;
  guint64 from, to;
  gint live; /* atomic */
  GList link;
} Window;

struct _GstTnRing {
  tn_ring map;
  gint ref;     /* atomic: the writer's and one per live window */
  GQueue made;  /* the writer's: windows live or dead, oldest first */
  GQueue spare; /* the writer's: Windows to reuse */
};

static void
gst_tn_ring_free (GstTnRing *ring)
{
  GList *l;

  /* every window held a reference: all are dead now */
  while ((l = g_queue_pop_head_link (&ring->made)) != NULL)
    g_free (l->data);
  while ((l = g_queue_pop_head_link (&ring->spare)) != NULL)
    g_free (l->data);
  tn_ring_unmap (&ring->map);
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
  g_queue_init (&ring->made);
  g_queue_init (&ring->spare);
  ring->ref = 1;
  return ring;
}

/* A count of its own, not a GstMemory's: an inline atomic per window
 * instead of gst_mini_object_ref/unref calls. */
GstTnRing *
gst_tn_ring_ref (GstTnRing *ring)
{
  g_atomic_int_inc (&ring->ref);
  return ring;
}

void
gst_tn_ring_unref (GstTnRing *ring)
{
  if (g_atomic_int_dec_and_test (&ring->ref))
    gst_tn_ring_free (ring);
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

/* The dead windows of made go to spare. */
static void
gst_tn_ring_collect (GstTnRing *ring)
{
  GList *l = ring->made.head;

  while (l != NULL) {
    GList *next = l->next;

    if (!g_atomic_int_get (&((Window *) l->data)->live)) {
      g_queue_unlink (&ring->made, l);
      g_queue_push_head_link (&ring->spare, l);
    }
    l = next;
  }
}

gboolean
gst_tn_ring_can_write (GstTnRing *ring, guint64 from, guint64 to)
{
  guint64 size = ring->map.size;
  GList *l;

  if (to <= from || to <= size)
    return TRUE;
  from = from > size ? from - size : 0;
  to -= size;
  gst_tn_ring_collect (ring);
  for (l = ring->made.head; l != NULL; l = l->next) {
    Window *w = l->data;

    if (w->to > from && w->from < to)
      return FALSE;
  }
  return TRUE;
}

static void
gst_tn_ring_window_free (gpointer data)
{
  Window *w = data;
  GstTnRing *ring = w->ring;

  /* the reader is done with the bytes; from this store on the writer
   * may reuse w, so ring was read before */
  g_atomic_int_set (&w->live, 0);
  gst_tn_ring_unref (ring);
}

GstBuffer *
gst_tn_ring_window (GstTnRing *ring, GstTnViews *views, guint64 pos, gsize len,
    gint rank, const gint64 *strides)
{
  GList *l;
  Window *w;

  g_return_val_if_fail (len <= ring->map.size, NULL);
  l = g_queue_pop_head_link (&ring->spare);
  w = l != NULL ? l->data : g_new0 (Window, 1);
  w->ring = gst_tn_ring_ref (ring);
  w->from = pos;
  w->to = pos + len;
  g_atomic_int_set (&w->live, 1);
  w->link.data = w;
  g_queue_push_tail_link (&ring->made, &w->link);
  /* A view of its own, not a share of the ring's memory: a share of a
   * share is parented to the root, so a share would not tell when the
   * last reader of this run is gone; and a recycled view costs no
   * allocation (tnviews.h). */
  return gst_tn_views_buffer (views, gst_tn_ring_at (ring, pos), len, w,
      gst_tn_ring_window_free, rank, strides);
}

guint
gst_tn_ring_n_live (GstTnRing *ring)
{
  gst_tn_ring_collect (ring);
  return ring->made.length;
}
