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
  /* Caps that came after held (pending): they are the next buffer's,
   * and become info, dense and nbytes when held is replaced or dropped. */
  gboolean pending;
  GstTnInfo pending_info;
  tn_view pending_dense;
  gsize pending_nbytes;
  /* Atomic: flushed while the lock was held; held is stale. */
  gint flushed;
  /* Atomic (tnagg-direct.c): serialized events queued and not handled
   * yet, those a FLUSH_START drops (EOS, SEGMENT, not sticky) and those
   * it keeps. */
  gint queued_drop, queued_keep;
  /* GstAggregatorPad's chain function, which queues (tnagg-direct.c). */
  GstPadChainFunction queue_chain;
};

typedef struct {
  /* properties (the object lock) */
  GstTnAggregatorSync sync;

  /* lock: held while aggregating, negotiating and handling the events
   * GstAggregator queued, on its thread or, for the direct hand-off, on
   * the thread of the pad whose buffer completed a set
   * (tnagg-direct.c).  Everything below is the holder's. */
  GMutex lock;
  gboolean negotiated; /* out_info stands for the pads of pads_cookie */
  guint32 pads_cookie;
  /* The pads' infos out_info was negotiated from, pad order (a pad's
   * pending caps when its current ones did not combine); neg_current:
   * the buffers to combine have other infos, the next negotiation takes
   * the pads' current ones. */
  GstTnInfo *neg_info;
  guint n_neg_alloc;
  gboolean neg_current;
  GstTnInfo out_info;
  gsize out_size;
  GstTnAggregatorPad *driver; /* the pad whose segment the output has */
  GstTnAggInput *inputs;      /* scratch for n_alloc inputs */
  guint n_alloc;
  GstTnAggregatorPad **pads; /* scratch: the pads, pad order */
  guint n_pads_alloc;
  /* Atomic (tnagg-direct.c).  direct: an upstream thread may aggregate;
   * direct_flow: a flow other than OK and FLUSHING it met, for the
   * aggregator's thread to return; flushes: FLUSH_STARTs seen;
   * queries: serialized queries queued and not answered yet. */
  gint direct, direct_flow, flushes, queries;
  GMutex wait_lock; /* for resume */
  GCond resume;     /* the direct hand-off stopped: the task resumes */
} GstTnAggregatorPrivate;

GstTnAggregatorPrivate *gst_tn_agg_priv (GstTnAggregator *self);
#define PRIV(self) gst_tn_agg_priv (GST_TN_AGGREGATOR (self))

typedef enum {
  PARTNER_OK,   /* pad->held serves t */
  PARTNER_WAIT, /* nothing known yet: wait for the pad */
  PARTNER_NONE, /* nothing serves t: drop sink_0's buffer */
  PARTNER_EOS,  /* the pad has ended and serves nothing any more */
} GstTnAggPartner;

/* An empty buffer flagged GAP: GstAggregator's form of a GAP event. */
gboolean gst_tn_agg_is_gap (GstBuffer *buf);
/* ts in running time of pad's segment, read under the pad's object lock;
 * NONE for ts NONE and while the segment is not TIME (from a flush or stop
 * until the next segment event). */
GstClockTime gst_tn_agg_pad_running_time (
    GstAggregatorPad *pad, GstClockTime ts);
/* buf's start (its PTS) and end (PTS + duration) so; NONE without them. */
GstClockTime gst_tn_agg_running_time (GstAggregatorPad *pad, GstBuffer *buf);
GstClockTime gst_tn_agg_running_end (GstAggregatorPad *pad, GstBuffer *buf);
/* The negotiated output's size in bytes. */
gsize gst_tn_agg_out_size (GstTnAggregator *self);
/* Drops pad->held (its pending caps, if any, become the pad's). */
void gst_tn_agg_pad_clear_held (GstTnAggregatorPad *pad);
/* info, its dense view and size become pad's: at once when no buffer is
 * held, else pending until the held buffer is replaced or dropped (the
 * aggregate then finds the pad's info is not the negotiated one).
 * TRUE when the pad's info changed now (the output caps must follow). */
gboolean gst_tn_agg_pad_set_info (GstTnAggregatorPad *pad,
    const GstTnInfo *info, const tn_view *dense, gsize nbytes);
/* Makes pad->held the buffer that serves the sink_0 buffer spanning
 * running time [t, t_end) (t NONE: untimed; t_end is t + 1 without a
 * duration) by the rule of sync (see the SECTION of tnagg.c), consuming
 * the pad's buffers before it; timeout: a live deadline passed, nothing
 * more is waited for. */
GstTnAggPartner gst_tn_agg_partner (GstTnAggregatorPad *pad,
    GstTnAggregatorSync sync, GstClockTime t, GstClockTime t_end,
    gboolean timeout);

/* The aggregate vfunc's work with lock held; direct: only when every
 * pad has a buffer, as GstAggregator asks before it calls aggregate
 * (not live).  *progress: 0 nothing done, 1 sink_0's buffer dropped
 * (no output for it), 2 an output pushed. */
GstFlowReturn gst_tn_agg_aggregate_locked (
    GstTnAggregator *self, gboolean timeout, gboolean direct, gint *progress);

/* tnagg-direct.c: the sink pads' chain function, which queues the
 * buffer and, when that completes a set, aggregates on this thread. */
GstFlowReturn gst_tn_agg_pad_chain (
    GstPad *pad, GstObject *parent, GstBuffer *buffer);
/* Sets aggregate (gst_tn_agg_aggregate_locked on the task, which also
 * starts the direct hand-off) and the vfuncs that stop it. */
void gst_tn_agg_direct_class_init (GstTnAggregatorClass *klass);
/* For sink_event: a serialized event (not FLUSH_STOP) GstAggregator
 * queued is handled now; NULL: a FLUSH_START emptied pad's queue of
 * what it drops. */
void gst_tn_agg_direct_event_done (GstAggregatorPad *pad, GstEvent *event);
/* The sink pads' flush vfunc. */
GstFlowReturn gst_tn_agg_pad_flush (GstAggregatorPad *pad, GstAggregator *agg);
/* Stops the direct hand-off until the aggregator's thread has pushed an
 * output again (events, negotiation, flushes, pads that come or go). */
void gst_tn_agg_direct_stop (GstTnAggregator *self);

G_END_DECLS

#endif
