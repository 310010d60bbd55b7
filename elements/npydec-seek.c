/* npydec with split=true: duration, position and seeking queries, and
 * seeks (by buffer index, or by time with a framerate), done by reading
 * the stream again from byte 0 and pushing from the start index on.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "npydec.h"

#define GST_CAT_DEFAULT gst_npy_dec_debug

typedef struct {
  gboolean split;
  gint fps_n, fps_d;
} Props;

static Props
props (GstNpyDec *self)
{
  Props p;

  GST_OBJECT_LOCK (self);
  p.split = self->split;
  p.fps_n = self->fps_n;
  p.fps_d = self->fps_d;
  GST_OBJECT_UNLOCK (self);
  return p;
}

static GstClockTime
index_time (guint64 i, const Props *p)
{
  return gst_util_uint64_scale (i, (guint64) p->fps_d * GST_SECOND, p->fps_n);
}

/* Buffers in the stream: known for a stream of one array, which upstream
 * says holds exactly the bytes of the first array's header and data. */
static gboolean
buffer_count (GstNpyDec *self, guint64 *n)
{
  gint64 bytes = -1;

  if (!self->have_first
      || !gst_pad_peer_query_duration (self->sinkpad, GST_FORMAT_BYTES, &bytes)
      || bytes != (gint64) self->first_bytes)
    return FALSE;
  *n = self->first_n;
  return TRUE;
}

gboolean
gst_npy_dec_src_query (GstPad *pad, GstObject *parent, GstQuery *query)
{
  GstNpyDec *self = GST_NPY_DEC (parent);
  Props p = props (self);
  const gboolean timed = p.fps_n > 0 && p.fps_d > 0;
  GstFormat fmt;
  guint64 n;

  if (!p.split)
    return gst_pad_query_default (pad, parent, query);
  switch (GST_QUERY_TYPE (query)) {
  case GST_QUERY_DURATION:
    gst_query_parse_duration (query, &fmt, NULL);
    if ((fmt != GST_FORMAT_DEFAULT && !(fmt == GST_FORMAT_TIME && timed))
        || !buffer_count (self, &n))
      return FALSE;
    gst_query_set_duration (
        query, fmt, fmt == GST_FORMAT_TIME ? index_time (n, &p) : n);
    return TRUE;
  case GST_QUERY_POSITION:
    /* the index of the next buffer; read without the stream lock, so
     * only as current as a position is */
    gst_query_parse_position (query, &fmt, NULL);
    n = self->index;
    if (fmt == GST_FORMAT_DEFAULT)
      gst_query_set_position (query, fmt, n);
    else if (fmt == GST_FORMAT_TIME && timed)
      gst_query_set_position (query, fmt, index_time (n, &p));
    else
      return FALSE;
    return TRUE;
  case GST_QUERY_SEEKING: {
    GstQuery *up = gst_query_new_seeking (GST_FORMAT_BYTES);
    gboolean seekable = FALSE;

    gst_query_parse_seeking (query, &fmt, NULL, NULL, NULL);
    if (gst_pad_peer_query (self->sinkpad, up))
      gst_query_parse_seeking (up, NULL, &seekable, NULL, NULL);
    gst_query_unref (up);
    if (fmt != GST_FORMAT_DEFAULT && !(fmt == GST_FORMAT_TIME && timed))
      seekable = FALSE;
    if (seekable && buffer_count (self, &n))
      gst_query_set_seeking (query, fmt, TRUE, 0,
          fmt == GST_FORMAT_TIME ? (gint64) index_time (n, &p) : (gint64) n);
    else
      gst_query_set_seeking (query, fmt, seekable, 0, -1);
    return TRUE;
  }
  default:
    return gst_pad_query_default (pad, parent, query);
  }
}

/* The seek's start and stop as buffer indices (stop -1: none); FALSE with
 * a reason in the log for a seek npydec does not do. */
static gboolean
seek_range (GstNpyDec *self, GstEvent *event, const Props *p, guint64 *start,
    gint64 *stop)
{
  const gboolean timed = p->fps_n > 0 && p->fps_d > 0;
  GstSeekType st, et;
  GstSeekFlags flags;
  GstFormat fmt;
  gint64 s, e;
  gdouble rate;

  gst_event_parse_seek (event, &rate, &fmt, &flags, &st, &s, &et, &e);
  if (!p->split || rate != 1.0 || !(flags & GST_SEEK_FLAG_FLUSH)
      || (fmt != GST_FORMAT_DEFAULT && !(fmt == GST_FORMAT_TIME && timed))
      || (st != GST_SEEK_TYPE_SET && st != GST_SEEK_TYPE_NONE)
      || (et != GST_SEEK_TYPE_SET && et != GST_SEEK_TYPE_NONE)) {
    GST_INFO_OBJECT (self,
        "refusing a seek: npydec seeks with split=true only, flushing, at "
        "rate 1, in DEFAULT (buffers) or, with a framerate, TIME");
    return FALSE;
  }
  if (st == GST_SEEK_TYPE_NONE || s < 0)
    s = 0;
  if (et == GST_SEEK_TYPE_NONE)
    e = -1;
  if (fmt == GST_FORMAT_TIME) {
    /* the buffer that holds the time; a stop inside a buffer keeps it */
    const guint64 den = (guint64) p->fps_d * GST_SECOND;

    guint64 i = gst_util_uint64_scale (s, p->fps_n, den);

    /* PTS are rounded down: the last buffer whose PTS is not after s */
    if (index_time (i + 1, p) <= (GstClockTime) s)
      i++;
    s = (gint64) i;
    if (e >= 0) {
      /* the first buffer whose PTS is not before e */
      i = gst_util_uint64_scale_ceil (e, p->fps_n, den);
      if (i > 0 && index_time (i - 1, p) >= (GstClockTime) e)
        i--;
      e = (gint64) i;
    }
  }
  *start = (guint64) s;
  *stop = e;
  return TRUE;
}

gboolean
gst_npy_dec_src_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  GstNpyDec *self = GST_NPY_DEC (parent);
  Props p = props (self);
  GstEvent *up;
  guint64 start;
  gint64 stop;
  gboolean ok;

  if (GST_EVENT_TYPE (event) != GST_EVENT_SEEK)
    return gst_pad_event_default (pad, parent, event);
  if (!seek_range (self, event, &p, &start, &stop)) {
    gst_event_unref (event);
    return FALSE;
  }
  GST_DEBUG_OBJECT (self,
      "seek to buffer %" G_GUINT64_FORMAT ", stop %" G_GINT64_FORMAT, start,
      stop);
  GST_OBJECT_LOCK (self);
  self->pending = TRUE;
  self->pending_start = start;
  self->pending_stop = stop;
  self->pending_seqnum = gst_event_get_seqnum (event);
  GST_OBJECT_UNLOCK (self);
  /* the stream again from its first byte: its FLUSH_STOP applies this */
  up = gst_event_new_seek (1.0, GST_FORMAT_BYTES, GST_SEEK_FLAG_FLUSH,
      GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, -1);
  gst_event_set_seqnum (up, gst_event_get_seqnum (event));
  gst_event_unref (event);
  ok = gst_pad_push_event (self->sinkpad, up);
  if (!ok) {
    GST_INFO_OBJECT (self, "refusing a seek: upstream cannot seek in bytes");
    GST_OBJECT_LOCK (self);
    self->pending = FALSE;
    GST_OBJECT_UNLOCK (self);
  }
  return ok;
}

void
gst_npy_dec_seek_flushed (GstNpyDec *self)
{
  GST_OBJECT_LOCK (self);
  if (self->pending) {
    self->skip_to = self->pending_start;
    self->stop_at = self->pending_stop;
    self->seqnum = self->pending_seqnum;
    self->discont = TRUE;
    self->pending = FALSE;
  }
  GST_OBJECT_UNLOCK (self);
}

void
gst_npy_dec_push_segment (GstNpyDec *self)
{
  Props p = props (self);
  GstSegment seg;
  GstEvent *ev;

  gst_segment_init (&seg, GST_FORMAT_TIME);
  if (p.fps_n > 0 && p.fps_d > 0) {
    /* from the first buffer pushed: running time starts at 0 */
    seg.start = seg.time = seg.position = index_time (self->skip_to, &p);
    if (self->stop_at >= 0)
      seg.stop = index_time ((guint64) self->stop_at, &p);
  }
  ev = gst_event_new_segment (&seg);
  if (self->seqnum)
    gst_event_set_seqnum (ev, self->seqnum);
  gst_pad_push_event (self->srcpad, ev);
}
