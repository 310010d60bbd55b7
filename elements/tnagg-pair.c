/* GstTnAggregator: pairing the buffers of the pads by running time.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tnagg-private.h"

#define GST_CAT_DEFAULT gst_tn_aggregator_debug

/* The caps that came after the held buffer are the pad's from now on. */
static void
apply_pending (GstTnAggregatorPad *pad)
{
  if (!pad->pending)
    return;
  pad->pending = FALSE;
  pad->info = pad->pending_info;
  pad->dense = pad->pending_dense;
  pad->nbytes = pad->pending_nbytes;
}

void
gst_tn_agg_pad_clear_held (GstTnAggregatorPad *pad)
{
  gst_clear_buffer (&pad->held);
  pad->held_start = pad->held_end = GST_CLOCK_TIME_NONE;
  apply_pending (pad);
}

gboolean
gst_tn_agg_pad_set_info (GstTnAggregatorPad *pad, const GstTnInfo *info,
    const tn_view *dense, gsize nbytes)
{
  gboolean changed = !pad->have_info || !gst_tn_info_equal (info, &pad->info);

  /* A held buffer may still serve sink_0 buffers: it keeps the caps it
   * came with, the new ones are its successor's. */
  if (pad->held && pad->have_info) {
    pad->pending = changed;
    pad->pending_info = *info;
    pad->pending_dense = *dense;
    pad->pending_nbytes = nbytes;
    return FALSE;
  }
  pad->pending = FALSE;
  pad->info = *info;
  pad->dense = *dense;
  pad->nbytes = nbytes;
  pad->have_info = TRUE;
  return changed;
}

gboolean
gst_tn_agg_is_gap (GstBuffer *buf)
{
  return GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)
         && gst_buffer_get_size (buf) == 0;
}

GstClockTime
gst_tn_agg_pad_running_time (GstAggregatorPad *pad, GstClockTime ts)
{
  GstClockTime t = GST_CLOCK_TIME_NONE;

  if (!GST_CLOCK_TIME_IS_VALID (ts))
    return t;
  /* GstAggregator resets the segment (UNDEFINED until the next segment
   * event) or replaces it under the pad's object lock, on the thread of a
   * flush or state change, while the task may be looking at a buffer:
   * its get_next_time runs before every wait. */
  GST_OBJECT_LOCK (pad);
  if (pad->segment.format == GST_FORMAT_TIME)
    t = gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME, ts);
  GST_OBJECT_UNLOCK (pad);
  return t;
}

GstClockTime
gst_tn_agg_running_time (GstAggregatorPad *pad, GstBuffer *buf)
{
  return gst_tn_agg_pad_running_time (pad, GST_BUFFER_PTS (buf));
}

GstClockTime
gst_tn_agg_running_end (GstAggregatorPad *pad, GstBuffer *buf)
{
  if (!GST_BUFFER_PTS_IS_VALID (buf) || !GST_BUFFER_DURATION_IS_VALID (buf))
    return GST_CLOCK_TIME_NONE;
  return gst_tn_agg_pad_running_time (
      pad, GST_BUFFER_PTS (buf) + GST_BUFFER_DURATION (buf));
}

static void
hold (GstTnAggregatorPad *pad, GstBuffer *buf)
{
  GstAggregatorPad *ap = GST_AGGREGATOR_PAD (pad);

  gst_buffer_replace (&pad->held, NULL);
  apply_pending (pad); /* buf came after the caps */
  pad->held = buf;
  pad->held_start = gst_tn_agg_running_time (ap, buf);
  pad->held_end = GST_CLOCK_TIME_IS_VALID (pad->held_start)
                      ? gst_tn_agg_running_end (ap, buf)
                      : GST_CLOCK_TIME_NONE;
}

/* Pops pad's next buffer into held; FALSE when a flush took it between
 * the peek and now (the direct hand-off runs beside flushes). */
static gboolean
take (GstTnAggregatorPad *pad)
{
  GstBuffer *buf = gst_aggregator_pad_pop_buffer (GST_AGGREGATOR_PAD (pad));

  if (buf)
    hold (pad, buf);
  return buf != NULL;
}

/* Time [a0, a1) shares with [t0, t1); a1 NONE: open-ended. */
static GstClockTime
overlap (GstClockTime a0, GstClockTime a1, GstClockTime t0, GstClockTime t1)
{
  GstClockTime lo = MAX (a0, t0),
               hi = GST_CLOCK_TIME_IS_VALID (a1) ? MIN (a1, t1) : t1;

  return hi > lo ? hi - lo : 0;
}

/* sync=timestamp: makes pad->held the buffer whose span shares the most
 * time with [t, t_end), sink_0's buffer (the earlier one on a tie).  A
 * buffer without a duration ends where the next one starts.  Equal
 * rates pair one to one even when the streams are out of phase by up to
 * half a period (two live sources started apart), which "the buffer
 * that covers t" would pair off by one. */
static GstTnAggPartner
partner_timestamp (GstTnAggregatorPad *pad, GstClockTime t, GstClockTime t_end,
    gboolean timeout)
{
  GstAggregatorPad *ap = GST_AGGREGATOR_PAD (pad);
  GstClockTime next = GST_CLOCK_TIME_NONE, end, ov;
  GstBuffer *h;

  while ((h = gst_aggregator_pad_peek_buffer (ap))) {
    GstClockTime start = gst_tn_agg_running_time (ap, h), held_ov, h_end;

    if (gst_tn_agg_is_gap (h)) {
      gst_aggregator_pad_drop_buffer (ap);
      gst_buffer_unref (h);
      continue;
    }
    if (!GST_CLOCK_TIME_IS_VALID (t) || !GST_CLOCK_TIME_IS_VALID (start)) {
      /* untimed: in order, one to one */
      gst_buffer_unref (h);
      return take (pad) ? PARTNER_OK : PARTNER_WAIT;
    }
    h_end = gst_tn_agg_running_end (ap, h);
    gst_buffer_unref (h);
    if (start >= t_end) {
      next = start; /* h is for a later output */
      break;
    }
    held_ov = 0;
    if (pad->held && GST_CLOCK_TIME_IS_VALID (pad->held_start))
      held_ov = overlap (pad->held_start,
          GST_CLOCK_TIME_IS_VALID (pad->held_end) ? MIN (pad->held_end, start)
                                                  : start,
          t, t_end);
    if (pad->held && held_ov > 0
        && overlap (start, h_end, t, t_end) <= held_ov) {
      next = start; /* held shares more: h waits for a later output */
      break;
    }
    if (!take (pad))
      return PARTNER_WAIT;
  }
  if (pad->held && GST_CLOCK_TIME_IS_VALID (pad->held_start)) {
    end = pad->held_end;
    if (GST_CLOCK_TIME_IS_VALID (next)
        && (!GST_CLOCK_TIME_IS_VALID (end) || next < end))
      end = next;
    /* The last buffer of an ended pad without a duration is an instant. */
    if (!GST_CLOCK_TIME_IS_VALID (end) && gst_aggregator_pad_is_eos (ap))
      end = pad->held_start + 1;
    ov = overlap (pad->held_start, end, t, t_end);
    if (ov > 0) {
      /* Settled when a later buffer is known, when held lasts to t_end,
       * or when no later one could share more (it would start at held's
       * end); otherwise that buffer is waited for. */
      if (GST_CLOCK_TIME_IS_VALID (next) || timeout
          || gst_aggregator_pad_is_eos (ap)
          || (GST_CLOCK_TIME_IS_VALID (end)
              && (end >= t_end || t_end - end <= ov)))
        return PARTNER_OK;
      return PARTNER_WAIT;
    }
  }
  if (GST_CLOCK_TIME_IS_VALID (next) || timeout)
    return PARTNER_NONE;
  if (gst_aggregator_pad_is_eos (ap))
    return PARTNER_EOS;
  return PARTNER_WAIT;
}

/* sync=latest: makes pad->held the newest buffer at or before t.  held
 * is known to be the newest when it starts at t or lasts beyond t (the
 * next buffer starts at its end or later), else once a later buffer (or
 * EOS) is; a pad drained here short of that is waited for (not live,
 * GstAggregator queues one buffer per pad at a time) until, live, the
 * deadline: then what the pad holds serves.  (Waiting on a held buffer
 * that covers t would deadlock one thread feeding every pad, a tee
 * without queues.) */
static GstTnAggPartner
partner_latest (GstTnAggregatorPad *pad, GstClockTime t, gboolean timeout)
{
  GstAggregatorPad *ap = GST_AGGREGATOR_PAD (pad);
  GstBuffer *h;

  while ((h = gst_aggregator_pad_peek_buffer (ap))) {
    GstClockTime start = gst_tn_agg_running_time (ap, h);
    gboolean gap = gst_tn_agg_is_gap (h);

    gst_buffer_unref (h);
    if (gap) {
      gst_aggregator_pad_drop_buffer (ap);
      continue;
    }
    if (!GST_CLOCK_TIME_IS_VALID (t) || !GST_CLOCK_TIME_IS_VALID (start))
      return take (pad) ? PARTNER_OK : PARTNER_WAIT;
    if (start > t)
      return pad->held ? PARTNER_OK : PARTNER_NONE;
    if (!take (pad))
      return PARTNER_WAIT;
  }
  if (pad->held)
    return timeout || gst_aggregator_pad_is_eos (ap) || pad->held_start == t
                   || (GST_CLOCK_TIME_IS_VALID (pad->held_end)
                       && pad->held_end > t)
               ? PARTNER_OK
               : PARTNER_WAIT;
  if (gst_aggregator_pad_is_eos (ap))
    return PARTNER_EOS;
  return timeout ? PARTNER_NONE : PARTNER_WAIT;
}

GstTnAggPartner
gst_tn_agg_partner (GstTnAggregatorPad *pad, GstTnAggregatorSync sync,
    GstClockTime t, GstClockTime t_end, gboolean timeout)
{
  return sync == GST_TN_AGGREGATOR_SYNC_TIMESTAMP
             ? partner_timestamp (pad, t, t_end, timeout)
             : partner_latest (pad, t, timeout);
}
