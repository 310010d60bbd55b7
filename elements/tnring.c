/* A twice-mapped ring of bytes as GStreamer memory (tnring.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tnring.h"

#include "core/ring.h"

/* A window handed downstream: its run of the ring.  The writer (one
 * thread at a time: the element's streaming thread) keeps every window
 * it made in the list `made`, oldest first; a window dies on any thread
 * by clearing `live` (an atomic store, no lock), and the writer moves
 * dead ones to the stack `spare` when it next looks
 * (gst_tn_ring_can_write), so neither a window's birth nor its death
 * takes a lock.  Both lists are the writer's own, linked through the
 * records (no list node, no call per window). */
typedef struct _Window Window;
struct _Window {
  GstTnRing *ring;
  GstTnViews *views; /* its buffer's (alive while the buffer releases w) */
  guint64 from, to;
  gint live; /* atomic */
  Window *next;
};

/* References the writer takes ahead in the ring's count (see
 * gst_tn_ring_window). */
#define RING_PREPAID (1 << 20)

struct _GstTnRing {
  tn_ring map;       /* first: gst_tn_ring_size and _at read it inline */
  gint ref;          /* atomic: the writer's and one per live window */
  gint prepaid;      /* the writer's: references in ref no window holds */
  gboolean unreffed; /* the writer's: its reference (and prepaid) went */
  Window *made;      /* live or dead, oldest first */
  Window **made_end; /* where the next made window is linked */
  Window *spare;
};

G_STATIC_ASSERT (G_STRUCT_OFFSET (struct _GstTnRing, map) == 0);

static void
gst_tn_ring_free (GstTnRing *ring)
{
  /* every window held a reference: all are dead now */
  Window *lists[2] = { ring->made, ring->spare };

  for (int i = 0; i < 2; i++)
    while (lists[i] != NULL) {
      Window *next = lists[i]->next;

      g_free (lists[i]);
      lists[i] = next;
    }
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
  ring->made_end = &ring->made;
  ring->ref = 1 + RING_PREPAID;
  ring->prepaid = RING_PREPAID;
  return ring;
}

/* A count of its own, not a GstMemory's: an inline atomic per window
 * instead of gst_mini_object_ref/unref calls, and none at a window's
 * birth (RING_PREPAID). */
static void
gst_tn_ring_drop (GstTnRing *ring, gint n)
{
  if (__atomic_sub_fetch (&ring->ref, n, __ATOMIC_ACQ_REL) == 0)
    gst_tn_ring_free (ring);
}

/* The writer's unref also gives back what it prepaid. */
void
gst_tn_ring_unref (GstTnRing *ring)
{
  gint prepaid = ring->prepaid;

  ring->prepaid = 0;
  ring->unreffed = TRUE;
  gst_tn_ring_drop (ring, 1 + prepaid);
}

/* The dead windows of made go to spare. */
static void
gst_tn_ring_collect (GstTnRing *ring)
{
  Window **at = &ring->made;

  while (*at != NULL) {
    Window *w = *at;

    if (__atomic_load_n (&w->live, __ATOMIC_ACQUIRE)) {
      at = &w->next;
      continue;
    }
    *at = w->next;
    w->next = ring->spare;
    ring->spare = w;
  }
  ring->made_end = at;
}

gboolean
gst_tn_ring_can_write (GstTnRing *ring, guint64 from, guint64 to)
{
  guint64 size = ring->map.size;
  Window *w;

  if (to <= from || to <= size)
    return TRUE;
  from = from > size ? from - size : 0;
  to -= size;
  gst_tn_ring_collect (ring);
  for (w = ring->made; w != NULL; w = w->next)
    if (w->to > from && w->from < to)
      return FALSE;
  return TRUE;
}

static void
gst_tn_ring_window_free (gpointer data)
{
  Window *w = data;
  GstTnRing *ring = w->ring;
  /* On the writer's own thread, inside its chain (views' taker between
   * enter and leave: a sink in the same thread dropping the window, the
   * common case), the reference goes back to the writer's prepaid ones
   * while the writer still holds the ring: no locked subtraction. */
  gboolean writer = gst_tn_views_here (w->views) && !ring->unreffed;

  /* the reader is done with the bytes; from this store on the writer
   * may reuse w, so ring and views were read before.  A release store
   * (a plain mov, not g_atomic_int_set's locked exchange): the writer's
   * load of live is the acquire that pairs with it. */
  __atomic_store_n (&w->live, 0, __ATOMIC_RELEASE);
  if (writer)
    ring->prepaid++;
  else
    gst_tn_ring_drop (ring, 1);
}

GstBuffer *
gst_tn_ring_window (GstTnRing *ring, GstTnViews *views, guint64 pos, gsize len,
    gint rank, const gint64 *strides)
{
  Window *w = ring->spare;

  g_return_val_if_fail (len <= ring->map.size, NULL);
  if (w != NULL)
    ring->spare = w->next;
  else
    w = g_new0 (Window, 1);
  /* one of the references the writer took ahead (no locked add per
   * window; another RING_PREPAID in one add when they are spent) */
  if (ring->prepaid == 0) {
    __atomic_add_fetch (&ring->ref, RING_PREPAID, __ATOMIC_RELAXED);
    ring->prepaid = RING_PREPAID;
  }
  ring->prepaid--;
  w->ring = ring;
  w->views = views;
  w->from = pos;
  w->to = pos + len;
  w->next = NULL;
  /* a plain store (g_atomic_int_set is a locked exchange): the window
   * reaches its reader through the push, which orders it */
  __atomic_store_n (&w->live, 1, __ATOMIC_RELEASE);
  *ring->made_end = w;
  ring->made_end = &w->next;
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
  guint n = 0;
  Window *w;

  gst_tn_ring_collect (ring);
  for (w = ring->made; w != NULL; w = w->next)
    n++;
  return n;
}
