/* tensorwindow's data path: windows as shares of the input, views into
 * the ring, or copies (elements/tensorwindow.c documents which).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "tensorwindow.h"
#include "tnalloc.h"

#define GST_CAT_DEFAULT gst_tensor_window_debug

void
gst_tensor_window_count_copy (GstTensorWindow *self, gsize bytes)
{
  self->uncounted += bytes;
}

static void
gst_tensor_window_flush_count (GstTensorWindow *self)
{
  /* not the object lock (one lock less per input), nor an atomic add
   * (a locked instruction): the streaming thread is the only writer
   * (take and drain, under the stream lock), readers load it whole */
  if (self->uncounted == 0)
    return;
  __atomic_store_n (&self->bytes_copied,
      __atomic_load_n (&self->bytes_copied, __ATOMIC_RELAXED) + self->uncounted,
      __ATOMIC_RELAXED);
  self->uncounted = 0;
}

static void
gst_tensor_window_error (GstTensorWindow *self, const gchar *what)
{
  GST_ELEMENT_ERROR (
      self, RESOURCE, FAILED, ("%s: %s", GST_OBJECT_NAME (self), what), (NULL));
}

/* The pending windows' ring (tensorwindow.h): the head (the oldest),
 * NULL when none is pending, a push at the tail and a pop of the head. */
static inline Pending *
gst_tensor_window_pending_head (GstTensorWindow *self)
{
  return self->n_pending > 0 ? &self->pend[self->pend_head] : NULL;
}

static void
gst_tensor_window_pending_grow (GstTensorWindow *self)
{
  guint cap = self->pend_cap, first = cap - self->pend_head;
  Pending *more = g_new (Pending, 2 * cap);

  /* the ring is full: from the head to the array's end, then the rest */
  memcpy (more, self->pend + self->pend_head, first * sizeof *more);
  memcpy (more + first, self->pend, self->pend_head * sizeof *more);
  g_free (self->pend);
  self->pend = more;
  self->pend_cap = 2 * cap;
  self->pend_head = 0;
}

/* A new window at the tail, for the caller to fill in place. */
static inline Pending *
gst_tensor_window_pending_push (GstTensorWindow *self)
{
  if (G_UNLIKELY (self->n_pending == self->pend_cap))
    gst_tensor_window_pending_grow (self);
  return &self->pend[(self->pend_head + self->n_pending++)
                     & (self->pend_cap - 1)];
}

static inline void
gst_tensor_window_pending_pop (GstTensorWindow *self)
{
  self->pend_head = (self->pend_head + 1) & (self->pend_cap - 1);
  self->n_pending--;
}

static void
gst_tensor_window_push_out (GstTensorWindow *self, GstBuffer *buf)
{
  if (G_UNLIKELY (self->n_out == self->out_cap)) {
    self->out_cap *= 2;
    self->out = g_renew (GstBuffer *, self->out, self->out_cap);
  }
  self->out[self->n_out++] = buf;
}

/* A dense buffer of the output size for a copy. */
static GstBuffer *
gst_tensor_window_new_buffer (GstTensorWindow *self)
{
  GstBuffer *buf = NULL;

  if (self->pool == NULL)
    self->pool = gst_tn_pool_activate (GST_OBJECT (self),
        gst_base_transform_get_buffer_pool (GST_BASE_TRANSFORM (self)));
  if (self->pool == NULL
      || gst_buffer_pool_acquire_buffer (self->pool, &buf, NULL) != GST_FLOW_OK
      || gst_buffer_get_size (buf) != self->out_nbytes) {
    GstAllocator *alloc = gst_tn_allocator_get ();

    if (buf)
      gst_buffer_unref (buf);
    buf = gst_buffer_new_allocate (alloc, self->out_nbytes, NULL);
    gst_object_unref (alloc);
  }
  return buf;
}

/* Window v (output dims) over data, copied densely into a new buffer. */
static GstBuffer *
gst_tensor_window_copy_out (
    GstTensorWindow *self, const guint8 *data, const tn_view *v)
{
  GstBuffer *buf = gst_tensor_window_new_buffer (self);
  GstMapInfo map;

  if (buf == NULL || !gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
    if (buf)
      gst_buffer_unref (buf);
    return NULL;
  }
  tn_view_materialize (map.data, data, v);
  gst_buffer_unmap (buf, &map);
  gst_tensor_window_count_copy (self, self->out_nbytes);
  return buf;
}

/* The output view of a window held item after item (axis k outermost,
 * dense) from item 0 on: the window axis moved to k, squeezed. */
void
gst_tensor_window_items_view (GstTensorWindow *self, gint64 n, tn_view *v)
{
  gint64 dims[TN_MAX_RANK];
  gint axes[TN_MAX_RANK], r = self->item.rank + 1, i;

  dims[0] = n;
  memcpy (dims + 1, self->item.dims, self->item.rank * sizeof dims[0]);
  tn_view_init (v, self->item.dtype, dims, r, NULL);
  for (i = 0; i < r; i++)
    axes[i] = i < self->k ? i + 1 : i == self->k ? 0 : i;
  tn_view_permute (v, axes, r, NULL);
  if (self->run.squeeze)
    tn_view_squeeze (v, self->k, NULL);
}

/* buf holds a window item after item; buf itself, a view with the meta,
 * or a copy for a reader of dense tensors.  Takes buf. */
static GstBuffer *
gst_tensor_window_from_items (GstTensorWindow *self, GstBuffer *buf)
{
  const tn_view *v = &self->win_view;
  GstBuffer *copy;
  GstMapInfo map;

  if (buf == NULL || self->win_dense)
    return buf;
  if (self->downstream_meta) {
    /* a ring window has it already (gst_tn_ring_window) */
    if (gst_tn_buffer_get_layout_meta (buf) == NULL)
      gst_tn_buffer_add_layout_meta (buf, v->rank, 0, v->strides);
    return buf;
  }
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    gst_buffer_unref (buf);
    return NULL;
  }
  copy = gst_tensor_window_copy_out (self, map.data, v);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  return copy;
}

/* The input view of input items [from, to) (relative to the buffer),
 * axis k outermost; stack: the one item. */
static void
gst_tensor_window_in_items (GstTensorWindow *self, const tn_view *iv,
    gint64 from, gint64 to, tn_view *v)
{
  gint axes[TN_MAX_RANK], i;

  *v = *iv;
  if (self->run.stack)
    return;
  tn_view_slice (v, self->k, from, to, 1, NULL);
  axes[0] = self->k;
  for (i = 1; i < v->rank; i++)
    axes[i] = i <= self->k ? i - 1 : i;
  tn_view_permute (v, axes, v->rank, NULL);
}

/* A new ring, larger than the current one (if any), that holds items
 * [from, to) of the stream, the held items copied over.  FALSE (an
 * element error) when no ring can be mapped. */
static G_GNUC_NO_INLINE gboolean
gst_tensor_window_ring_renew (GstTensorWindow *self, guint64 from, guint64 to)
{
  gsize ib = self->item_bytes, need = (gsize) (to - from) * ib;
  GstTnRing *ring = self->ring, *fresh;
  gsize want;
  gchar *why = NULL;

  /* A window at first: a downstream done with each window before the
   * next is complete (an element that reads it in the push, the common
   * case) needs no more, and the hops' copies then go round a window's
   * bytes only (32 KiB windows of <1024,2> float32 and the input fit in
   * L1; a window and a hop did not, and every hop's copy ran at L2's
   * speed: docs/perf-notes.md, "Session 10 H5").  A window and a hop
   * when downstream held the last window while the next filled (a sink
   * keeping its last sample: once, the copy of the window in progress);
   * no larger at first because a ring of two windows of 512 KiB, with
   * the input, no longer fit in a 1 MiB L2 ("Session 9 H5"); twice the
   * last size when downstream holds on to more. */
  want = (gsize) self->run.size * ib;
  if (ring != NULL) {
    gsize held = ((gsize) self->run.size + self->run.hop) * ib;

    want = gst_tn_ring_size (ring) < held ? held : 2 * gst_tn_ring_size (ring);
  }
  want = MAX (want, need);
  fresh = gst_tn_ring_new (want, &why);
  if (fresh == NULL) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("%s: cannot make a ring of %" G_GSIZE_FORMAT " bytes for windows "
         "that span input buffers: %s",
            GST_OBJECT_NAME (self), want, why),
        (NULL));
    g_free (why);
    return FALSE;
  }
  GST_DEBUG_OBJECT (self,
      "new ring of %" G_GSIZE_FORMAT " bytes (%u windows live in the last)",
      gst_tn_ring_size (fresh), ring ? gst_tn_ring_n_live (ring) : 0);
  if (ring != NULL && self->ring_to > from) {
    gsize held = (gsize) (self->ring_to - from) * ib;

    memcpy (gst_tn_ring_at (fresh, from * ib), gst_tn_ring_at (ring, from * ib),
        held);
    gst_tensor_window_count_copy (self, held);
  } else {
    self->ring_to = from;
  }
  if (ring != NULL)
    gst_tn_ring_unref (ring);
  self->ring = fresh;
  self->ring_from = from;
  return TRUE;
}

/* A ring that holds items [from, to) of the stream and room for more:
 * the current one when it can take stream items up to `to` without
 * overwriting what a live window holds (inline: every window across
 * inputs asks), else a new one (gst_tensor_window_ring_renew).  FALSE
 * (an element error) when no ring can be mapped. */
static inline gboolean
gst_tensor_window_ring_make_room (
    GstTensorWindow *self, guint64 from, guint64 to)
{
  gsize ib = self->item_bytes;
  GstTnRing *ring = self->ring;

  if (G_LIKELY (ring != NULL
                && (gsize) (to - from) * ib <= gst_tn_ring_size (ring)
                && gst_tn_ring_can_write (ring, self->ring_to * ib, to * ib)))
    return TRUE;
  return gst_tensor_window_ring_renew (self, from, to);
}

/* Copies input items [MAX (ring_to, from), to) of the stream from the
 * buffer that holds items [b0, ...) as view iv over data into the ring,
 * which from then on holds [from, to); from is the first item any window
 * still to come needs. */
static inline gboolean
gst_tensor_window_ring_copy_in (GstTensorWindow *self, const guint8 *data,
    const tn_view *iv, gboolean iv_dense, guint64 b0, guint64 from, guint64 to)
{
  guint64 x;
  tn_view v;

  if (self->ring == NULL || self->ring_to < from) {
    self->ring_from = self->ring_to = from;
  }
  from = MAX (from, self->ring_from);
  if (to <= self->ring_to) {
    self->ring_from = from;
    return TRUE;
  }
  if (!gst_tensor_window_ring_make_room (self, from, to))
    return FALSE;
  x = self->ring_to;
  if (x < b0) {
    /* Items between the ring and this buffer are gone: a bug, never
     * silently wrong windows. */
    gst_tensor_window_error (self, "the ring lost items (internal error)");
    return FALSE;
  }
  if (self->items_contig && iv_dense) {
    /* the items are one run of the input: no view to build (and none
     * to copy where items have no bytes: the data of an empty buffer
     * may be NULL, which memcpy may not get even for 0 bytes) */
    if (self->item_bytes > 0)
      memcpy (gst_tn_ring_at (self->ring, x * self->item_bytes),
          data + (gsize) iv->offset * self->isz
              + (gsize) (x - b0) * self->item_bytes,
          (gsize) (to - x) * self->item_bytes);
  } else {
    gst_tensor_window_in_items (self, iv, x - b0, to - b0, &v);
    tn_view_materialize (
        gst_tn_ring_at (self->ring, x * self->item_bytes), data, &v);
  }
  gst_tensor_window_count_copy (self, (gsize) (to - x) * self->item_bytes);
  self->ring_from = from;
  self->ring_to = to;
  return TRUE;
}

/* gst_tensor_window_ring_copy_in, at once when the ring holds [from, to)
 * already: in steady streams the last call of each input, after the
 * window it completes took its items.  Both are inline (the call's
 * frame of seven arguments cost as much as the rest of it); only a new
 * ring is a call. */
static inline gboolean
gst_tensor_window_ring_append (GstTensorWindow *self, const guint8 *data,
    const tn_view *iv, gboolean iv_dense, guint64 b0, guint64 from, guint64 to)
{
  if (self->ring != NULL && self->ring_to >= from && to <= self->ring_to) {
    self->ring_from = MAX (from, self->ring_from);
    return TRUE;
  }
  return gst_tensor_window_ring_copy_in (
      self, data, iv, iv_dense, b0, from, to);
}

static void
gst_tensor_window_stamp (
    GstTensorWindow *self, GstBuffer *buf, const Pending *p)
{
  GST_BUFFER_PTS (buf) = p->pts;
  GST_BUFFER_DURATION (buf) = p->duration;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_OFFSET (buf) = p->start;
  GST_BUFFER_OFFSET_END (buf) = p->start + self->run.size;
  if (self->discont) {
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    self->discont = FALSE;
  }
}

/* A window inside the input buffer in (items [b0, ...), view iv, mapped
 * at data, whose items start at an address aligned for them) as that
 * buffer's memory, or a copy for a reader of dense tensors; NULL when it
 * cannot be had that way. */
static GstBuffer *
gst_tensor_window_share (GstTensorWindow *self, GstBuffer *in,
    GstTnMappedInput **mi, const guint8 *data, const tn_view *iv, gint64 rel)
{
  gint64 span = 1;
  gboolean dense;
  GstBuffer *buf;
  tn_view v = *iv;
  gint i;

  if (self->run.stack)
    tn_view_expand (&v, self->k, NULL);
  else
    tn_view_slice (&v, self->k, rel, rel + self->run.size, 1, NULL);
  if (self->run.squeeze)
    tn_view_squeeze (&v, self->k, NULL);
  dense = tn_view_dense (&v);
  if (!dense && !self->downstream_meta)
    return gst_tensor_window_copy_out (self, data, &v);
  for (i = 0; i < v.rank; i++)
    span += (v.dims[i] - 1) * v.strides[i];
  if (tn_view_count (&v) == 0) {
    /* no item (a zero extent on another axis): no byte, wherever the
     * offset would point (past the end of the input's none) */
    span = 0;
    v.offset = 0;
  }
  /* (the record takes a reference of its own to in: in is the base
   * class's) */
  if (gst_buffer_n_memory (in) == 1 && *mi == NULL
      && (*mi = gst_tn_mapped_input_new (self->views, gst_buffer_ref (in)))
             == NULL)
    gst_buffer_unref (in);
  if (*mi != NULL)
    /* a recycled view of the input mapped once (tnviews.h) */
    buf = gst_tn_mapped_input_view (*mi, self->views,
        (gsize) v.offset * self->isz, (gsize) span * self->isz,
        dense ? 0 : v.rank, v.strides);
  else if ((buf = gst_buffer_copy_region (in, GST_BUFFER_COPY_MEMORY,
                (gsize) v.offset * self->isz, (gsize) span * self->isz))
               != NULL
           && !dense)
    gst_tn_buffer_add_layout_meta (buf, v.rank, 0, v.strides);
  return buf;
}

/* rel items at num / den ns an item: a window's start from its input's
 * PTS and its duration.  The first item of a buffer needs no scaling
 * (windows every hop items of inputs of hop items all start there), and
 * a window's duration is the last one's while num / den are (a steady
 * stream: one gst_util_uint64_scale call a window, not two). */
static inline GstClockTime
gst_tensor_window_scale (guint64 rel, guint64 num, guint64 den)
{
  return rel == 0 ? 0 : gst_util_uint64_scale (rel, num, den);
}

static inline GstClockTime
gst_tensor_window_span (GstTensorWindow *self, guint64 num, guint64 den)
{
  if (num != self->span_num || den != self->span_den) {
    self->span_num = num;
    self->span_den = den;
    self->span = gst_util_uint64_scale (self->run.size, num, den);
  }
  return self->span;
}

/* Every item is what timestamps it: item rel of a buffer of n items. */
static void
gst_tensor_window_time (
    GstTensorWindow *self, GstBuffer *in, gint64 n, gint64 rel, Pending *p)
{
  GstClockTime pts = GST_BUFFER_PTS (in), dur = GST_BUFFER_DURATION (in);
  gint fn = self->in_info.fps_n, fd = self->in_info.fps_d;

  p->pts = p->duration = GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (dur) && n > 0) {
    if (GST_CLOCK_TIME_IS_VALID (pts))
      p->pts = pts + gst_tensor_window_scale (rel, dur, n);
    p->duration = gst_tensor_window_span (self, dur, n);
  } else if (fn > 0 && fd > 0) {
    /* items per second: framerate x items per buffer */
    guint64 num = (guint64) fd * GST_SECOND, den = (guint64) fn * n;

    if (GST_CLOCK_TIME_IS_VALID (pts))
      p->pts = pts + gst_tensor_window_scale (rel, num, den);
    p->duration = gst_tensor_window_span (self, num, den);
  } else if (rel == 0) {
    p->pts = pts;
  }
}

/* How gst_tensor_window_in_map read the input, for
 * gst_tensor_window_in_unmap. */
typedef enum {
  IN_PEEKED, /* its one memory's data pointer: nothing to unmap */
  IN_MEMORY, /* its one memory, mapped */
  IN_BUFFER, /* gst_buffer_map */
} InMap;

/* The input's bytes for reading: its one memory's data pointer when
 * that memory's map is the pointer (gst_tn_memory_peek_read: no lock
 * and unlock), else gst_memory_map of that memory (without
 * gst_buffer_map's reference on it and its merge check), else
 * gst_buffer_map. */
static gboolean
gst_tensor_window_in_map (
    GstBuffer *in, GstMemory *mem, GstMapInfo *map, InMap *how)
{
  if (mem != NULL
      && (map->data = (guint8 *) gst_tn_memory_peek_read (mem)) != NULL) {
    *how = IN_PEEKED;
    return TRUE;
  }
  *how = mem != NULL ? IN_MEMORY : IN_BUFFER;
  if (mem != NULL)
    return gst_memory_map (mem, map, GST_MAP_READ);
  return gst_buffer_map (in, map, GST_MAP_READ);
}

static void
gst_tensor_window_in_unmap (GstBuffer *in, GstMapInfo *map, InMap how)
{
  if (how == IN_MEMORY)
    gst_memory_unmap (map->memory, map);
  else if (how == IN_BUFFER)
    gst_buffer_unmap (in, map);
}

/* One input buffer: the windows it completes go into self->out, and
 * what later windows need of it into the ring. */
GstFlowReturn
gst_tensor_window_take (GstTensorWindow *self, GstBuffer *in)
{
  const Settings *s = &self->run;
  GstMapInfo map;
  GstTnMap m;
  gboolean tnmap = FALSE;
  const guint8 *data;
  GstTnMappedInput *mi = NULL;
  const Pending *head;
  /* the input's view: in_view itself for a plain input (no copy of the
   * struct per input), else ivs */
  const tn_view *iv = &self->in_view;
  tn_view ivs;
  gint64 n;
  guint64 b0 = self->total, b1;
  gboolean aligned, iv_dense, plain;
  InMap how = IN_PEEKED;
  /* the input's one memory (most inputs), else NULL */
  GstMemory *mem
      = gst_buffer_n_memory (in) == 1 ? gst_buffer_peek_memory (in, 0) : NULL;
  gpointer state = NULL;

  /* The view without gst_tn_buffer_map, which costs more than the rest
   * of a small window's path; it says in words what does not fit.  An
   * input without metas (most) is the dense view of the caps: no layout
   * meta to look for, no strides to compare. */
  plain = gst_buffer_iterate_meta (in, &state) == NULL;
  if (!plain)
    iv = &ivs;
  if ((plain ? (mem != NULL ? mem->size : gst_buffer_get_size (in))
                   != self->in_nbytes
             : !gst_tn_buffer_view (in, &self->in_view, self->in_nbytes, &ivs))
      || !gst_tensor_window_in_map (in, mem, &map, &how)) {
    GError *err = NULL;

    if (gst_tn_buffer_map (&m, in, &self->in_info, GST_MAP_READ, &err))
      gst_tn_buffer_unmap (&m);
    else
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("%s: %s", GST_OBJECT_NAME (self), err->message), (NULL));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
  /* Items at an address not aligned for them are read from an aligned
   * copy (gst_tn_buffer_map's) and never shared. */
  /* (dtype sizes are powers of two: a mask, not a division) */
  aligned = ((guintptr) map.data & (self->isz - 1)) == 0;
  data = map.data;
  if (!aligned) {
    gst_tensor_window_in_unmap (in, &map, how);
    if (!gst_tn_buffer_map (&m, in, &self->in_info, GST_MAP_READ, NULL)) {
      gst_tensor_window_error (self, "could not map an input buffer");
      return GST_FLOW_ERROR;
    }
    tnmap = TRUE;
    data = m.data;
    ivs = m.view;
    iv = &ivs;
    plain = FALSE;
  }
  /* without a meta the view is in_view, dense: no walk over the shape */
  iv_dense = plain
             || (iv->offset == 0
                 && memcmp (iv->strides, self->in_view.strides,
                        sizeof (gint64) * (gsize) iv->rank)
                        == 0);
  n = s->stack ? 1 : self->in_info.dims[self->k];
  b1 = b0 + n;

  /* The windows that start in this buffer. */
  while (self->next_start < b1) {
    Pending *p = gst_tensor_window_pending_push (self);

    p->start = self->next_start;
    gst_tensor_window_time (self, in, n, self->next_start - b0, p);
    self->next_start += s->hop;
  }
  /* The windows this buffer completes (the head is NULL once none is
   * pending: no separate emptiness call). */
  while ((head = gst_tensor_window_pending_head (self)) != NULL) {
    /* read in place: nothing changes the pending windows before the
     * pop (a copy of the struct per look cost more than the rest) */
    const Pending *p = head;
    guint64 end = p->start + s->size;
    GstBuffer *buf = NULL;

    if (end > b1)
      break;
    if (p->start >= b0 && aligned)
      buf = gst_tensor_window_share (self, in, &mi, data, iv, p->start - b0);
    if (buf == NULL) {
      if (!gst_tensor_window_ring_append (
              self, data, iv, iv_dense, b0, p->start, end))
        goto failed;
      /* with the layout meta when the window is a view for downstream */
      buf = gst_tn_ring_window (self->ring, self->views,
          p->start * self->item_bytes, (gsize) s->size * self->item_bytes,
          self->win_dense || !self->downstream_meta ? 0 : self->win_view.rank,
          self->win_view.strides);
      /* (a dense window is the ring's: no call to say so) */
      if (!self->win_dense)
        buf = gst_tensor_window_from_items (self, buf);
    }
    if (buf == NULL) {
      gst_tensor_window_error (self, "could not make a window buffer");
      goto failed;
    }
    gst_tensor_window_stamp (self, buf, p);
    gst_tensor_window_push_out (self, buf);
    gst_tensor_window_pending_pop (self);
  }
  /* What the windows still to come need of this buffer. */
  if (head != NULL) {
    if (!gst_tensor_window_ring_append (
            self, data, iv, iv_dense, b0, head->start, b1))
      goto failed;
  }
  self->total = b1;
  if (mi != NULL)
    gst_tn_mapped_input_unref (mi);
  if (tnmap)
    gst_tn_buffer_unmap (&m);
  else
    gst_tensor_window_in_unmap (in, &map, how);
  gst_tensor_window_flush_count (self);
  return GST_FLOW_OK;

failed:
  if (mi != NULL)
    gst_tn_mapped_input_unref (mi);
  if (tnmap)
    gst_tn_buffer_unmap (&m);
  else
    gst_tensor_window_in_unmap (in, &map, how);
  gst_tensor_window_flush_count (self);
  return GST_FLOW_ERROR;
}

/* The windows that have started and are not full, at the end of the
 * stream or before caps that change the output: padded with zeros and
 * pushed (pad-end), or dropped with a warning. */
void
gst_tensor_window_drain (GstTensorWindow *self, const gchar *why)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  gsize ib = self->item_bytes, wbytes = (gsize) self->run.size * ib;
  guint64 first;

  if (self->n_pending == 0)
    goto done;
  first = gst_tensor_window_pending_head (self)->start;
  if (!self->run.pad_end) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("%s: dropped a partial window at %s: %" G_GUINT64_FORMAT
         " item(s) left of the %d a window needs (size); pad-end=true "
         "pads it with zeros.",
            GST_OBJECT_NAME (self), why, self->total - first, self->run.size),
        (NULL));
    goto done;
  }
  while (self->n_pending > 0) {
    Pending p = *gst_tensor_window_pending_head (self);
    GstAllocator *alloc = gst_tn_allocator_get ();
    GstMemory *mem = gst_allocator_alloc (alloc, MAX (wbytes, 1), NULL);
    gsize have = (gsize) (self->total - p.start) * ib;
    GstMapInfo map;
    GstBuffer *buf;

    gst_tensor_window_pending_pop (self);
    gst_object_unref (alloc);
    if (mem == NULL || !gst_memory_map (mem, &map, GST_MAP_WRITE)) {
      if (mem)
        gst_memory_unref (mem);
      gst_tensor_window_error (self, "could not allocate a padded window");
      break;
    }
    /* the ring holds every item from the first pending window on */
    if (have > 0 && (self->ring == NULL || p.start < self->ring_from)) {
      gst_memory_unmap (mem, &map);
      gst_memory_unref (mem);
      gst_tensor_window_error (self, "the ring lost items (internal error)");
      break;
    }
    if (have > 0)
      memcpy (map.data, gst_tn_ring_at (self->ring, p.start * ib), have);
    memset (map.data + have, 0, wbytes - have);
    gst_memory_unmap (mem, &map);
    gst_memory_resize (mem, 0, wbytes);
    gst_tensor_window_count_copy (self, have);
    buf = gst_buffer_new ();
    gst_buffer_append_memory (buf, mem);
    buf = gst_tensor_window_from_items (self, buf);
    if (buf == NULL)
      break;
    gst_tensor_window_stamp (self, buf, &p);
    if (gst_pad_push (trans->srcpad, buf) != GST_FLOW_OK)
      break;
  }

done:
  gst_tensor_window_flush_count (self);
  self->n_pending = 0;
  self->next_start = self->total;
  if (self->ring)
    gst_tn_ring_unref (self->ring);
  self->ring = NULL;
}

/* A flush, a new stream or a stop: nothing held, counts from 0. */
void
gst_tensor_window_reset (GstTensorWindow *self)
{
  GstBuffer *b;

  self->n_pending = 0;
  while ((b = gst_tensor_window_pop_out (self)) != NULL)
    gst_buffer_unref (b);
  if (self->ring)
    gst_tn_ring_unref (self->ring);
  self->ring = NULL;
  self->ring_from = self->ring_to = 0;
  self->total = self->next_start = 0;
  self->discont = TRUE;
}
