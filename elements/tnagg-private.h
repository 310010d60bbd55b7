/* Inside GstTnAggregator: the sink pads' state and the pairing of
 * their buffers (tnagg-pair.c).  Not installed; for tnagg*.c only. */
#ifndef GST_TN_AGG_PRIVATE_H
#define GST_TN_AGG_PRIVATE_H

#include "tnagg.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_tn_aggregator_debug);

struct _GstTnAggregatorPad {
  GstAggregatorPad parent;

  /* The aggregator's thread only (events and buffers arrive there). */
  guint number; /* N of sink_N: the pad order */
  gboolean have_info;
  GstTnInfo info;
  tn_view dense; /* the dense view of info */
  gsize nbytes;  /* and its size */
  /* The buffer of this pad that serves the outputs (not sink_0's): its
   * running-time start and end (end NONE: until the next buffer). */
  GstBuffer *held;
  GstClockTime held_start, held_end;
};

typedef enum {
  PARTNER_OK,   /* pad->held serves t */
  PARTNER_WAIT, /* nothing known yet: wait for the pad */
  PARTNER_NONE, /* nothing serves t: drop sink_0's buffer */
  PARTNER_EOS,  /* the pad has ended and serves nothing any more */
} GstTnAggPartner;

/* An empty buffer flagged GAP: GstAggregator's form of a GAP event. */
gboolean gst_tn_agg_is_gap (GstBuffer *buf);
/* buf's start in running time of pad's segment (NONE without a PTS). */
GstClockTime gst_tn_agg_running_time (GstAggregatorPad *pad, GstBuffer *buf);
/* The negotiated output's size in bytes. */
gsize gst_tn_agg_out_size (GstTnAggregator *self);
/* Drops pad->held. */
void gst_tn_agg_pad_clear_held (GstTnAggregatorPad *pad);
/* Makes pad->held the buffer that serves the sink_0 buffer spanning
 * running time [t, t_end) (t NONE: untimed; t_end is t + 1 without a
 * duration) by the rule of sync (see the SECTION of tnagg.c), consuming
 * the pad's buffers before it; timeout: a live deadline passed, nothing
 * more is waited for. */
GstTnAggPartner gst_tn_agg_partner (GstTnAggregatorPad *pad,
    GstTnAggregatorSync sync, GstClockTime t, GstClockTime t_end,
    gboolean timeout);

G_END_DECLS

#endif
