/* A twice-mapped ring of bytes as GStreamer memory, for elements that
 * keep a sliding part of a stream (tensorwindow); not installed.
 *
 * The ring is a reference-counted object that owns the mapping of
 * core/ring.h; every window handed downstream is a read-only buffer of
 * views (tnviews.h) over a run of the ring that holds a reference on it,
 * so the mapping lives until the element and every window are gone.  The ring
 * knows which runs live windows still hold: the writer asks
 * gst_tn_ring_can_write before it overwrites a run, and takes a new ring
 * when the answer is no, so that a downstream element that keeps buffers
 * never sees their bytes change. */
#ifndef GST_TN_RING_H
#define GST_TN_RING_H

#include <gst/gst.h>

#include "core/ring.h"
#include "tnviews.h"

G_BEGIN_DECLS

typedef struct _GstTnRing GstTnRing;

/* A ring of at least min_bytes (whole pages); NULL with a message in *why
 * (g_free it) when the system cannot map it. */
GstTnRing *gst_tn_ring_new (gsize min_bytes, gchar **why);
/* The writer's reference (gst_tn_ring_new's) goes; windows hold their
 * own.  Called by the writer. */
void gst_tn_ring_unref (GstTnRing *ring);
/* (inline: the ring's mapping is the first member of GstTnRing, so that
 * the writer's look-ups per window are no calls) */
static inline gsize
gst_tn_ring_size (GstTnRing *ring)
{
  return ((const tn_ring *) ring)->size;
}

/* Where stream byte pos lives; the run [pos, pos + size) is contiguous
 * from there. */
static inline guint8 *
gst_tn_ring_at (GstTnRing *ring, guint64 pos)
{
  return tn_ring_at ((const tn_ring *) ring, pos);
}
/* Whether stream bytes [from, to) may be written: no live window holds
 * the bytes they overwrite (stream bytes [from - size, to - size)). */
gboolean gst_tn_ring_can_write (GstTnRing *ring, guint64 from, guint64 to);
/* A read-only buffer of views over stream bytes [pos, pos + len), len <=
 * size, with the layout of gst_tn_views_buffer; live (protected from
 * gst_tn_ring_can_write) until it and every memory shared from it are
 * freed (then it goes back to views).  views' taker is the writer: a
 * window that dies on its thread between gst_tn_views_enter and leave
 * gives its reference back to the writer without an atomic. */
GstBuffer *gst_tn_ring_window (GstTnRing *ring, GstTnViews *views, guint64 pos,
    gsize len, gint rank, const gint64 *strides);
/* Windows alive now.  The ring's writer calls gst_tn_ring_can_write,
 * gst_tn_ring_window and this from one thread at a time (the element's
 * streaming thread); windows die on any thread. */
guint gst_tn_ring_n_live (GstTnRing *ring);

G_END_DECLS

#endif
