/* GstTnAggregator: pairing the buffers of the pads by running time.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tnagg-private.h"

void
gst_tn_agg_pad_clear_held (GstTnAggregatorPad *pad)
{
  gst_clear_buffer (&pad->held);
  pad->held_start = pad->held_end = GST_CLOCK_TIME_NONE;
}

gboolean
gst_tn_agg_is_gap (GstBuffer *buf)
{
  return GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)
         && gst_buffer_get_size (buf) == 0;
}

GstClockTime
gst_tn_agg_running_time (GstAggregatorPad *pad, GstBuffer *buf)
{
  if (!GST_BUFFER_PTS_IS_VALID (buf))
    return GST_CLOCK_TIME_NONE;
  return gst_segment_to_running_time (
      &pad->segment, GST_FORMAT_TIME, GST_BUFFER_PTS (buf));
}

static void
hold (GstTnAggregatorPad *pad, GstBuffer *buf)
{
  GstAggregatorPad *ap = GST_AGGREGATOR_PAD (pad);

  gst_buffer_replace (&pad->held, NULL);
  pad->held = buf;
  pad->held_start = gst_tn_agg_running_time (ap, buf);
  pad->held_end = GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (pad->held_start)
      && GST_BUFFER_DURATION_IS_VALID (buf))
    pad->held_end = gst_segment_to_running_time (&ap->segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buf) + GST_BUFFER_DURATION (buf));
}

/* sync=timestamp: makes pad->held the buffer that covers t. */
static GstTnAggPartner
partner_timestamp (GstTnAggregatorPad *pad, GstClockTime t, gboolean timeout)
{
  GstAggregatorPad *ap = GST_AGGREGATOR_PAD (pad);
  GstBuffer *h;

  while ((h = gst_aggregator_pad_peek_buffer (ap))) {
    GstClockTime start = gst_tn_agg_running_time (ap, h);

    if (gst_tn_agg_is_gap (h)) {
      gst_aggregator_pad_drop_buffer (ap);
      gst_buffer_unref (h);
      continue;
    }
    if (!GST_CLOCK_TIME_IS_VALID (t) || !GST_CLOCK_TIME_IS_VALID (start)) {
      /* untimed: in order, one to one */
      gst_buffer_unref (h);
      hold (pad, gst_aggregator_pad_pop_buffer (ap));
      return PARTNER_OK;
    }
    if (start > t) {
      gst_buffer_unref (h);
      /* held ends at its end or at h, whichever comes first */
      if (pad->held && GST_CLOCK_TIME_IS_VALID (pad->held_start)
          && (!GST_CLOCK_TIME_IS_VALID (pad->held_end) || pad->held_end > t))
        return PARTNER_OK;
      return PARTNER_NONE;
    }
    gst_buffer_unref (h);
    hold (pad, gst_aggregator_pad_pop_buffer (ap));
  }
  /* Nothing queued: held serves t if it is known to last past t. */
  if (pad->held && GST_CLOCK_TIME_IS_VALID (pad->held_start)
      && GST_CLOCK_TIME_IS_VALID (t) && pad->held_start <= t) {
    if (GST_CLOCK_TIME_IS_VALID (pad->held_end) && pad->held_end > t)
      return PARTNER_OK;
    if (!GST_CLOCK_TIME_IS_VALID (pad->held_end)
        && (pad->held_start == t || timeout))
      return PARTNER_OK;
  }
  if (gst_aggregator_pad_is_eos (ap))
    return PARTNER_EOS;
  return timeout ? PARTNER_NONE : PARTNER_WAIT;
}

/* sync=latest: makes pad->held the newest buffer at or before t. */
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
    if (!GST_CLOCK_TIME_IS_VALID (t) || !GST_CLOCK_TIME_IS_VALID (start)) {
      hold (pad, gst_aggregator_pad_pop_buffer (ap));
      return PARTNER_OK;
    }
    if (start > t)
      return pad->held ? PARTNER_OK : PARTNER_NONE;
    hold (pad, gst_aggregator_pad_pop_buffer (ap));
  }
  if (pad->held)
    return PARTNER_OK;
  if (gst_aggregator_pad_is_eos (ap))
    return PARTNER_EOS;
  return timeout ? PARTNER_NONE : PARTNER_WAIT;
}

GstTnAggPartner
gst_tn_agg_partner (GstTnAggregatorPad *pad, GstTnAggregatorSync sync,
    GstClockTime t, gboolean timeout)
{
  return sync == GST_TN_AGGREGATOR_SYNC_TIMESTAMP
             ? partner_timestamp (pad, t, timeout)
             : partner_latest (pad, t, timeout);
}
