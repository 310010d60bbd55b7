/* GstTnAggregator: the direct hand-off.  The buffer that completes a set
 * is aggregated on the thread that brought it, not on the src pad's task.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Why.  Without a live source GstAggregator aggregates once every sink
 * pad has a buffer queued.  Every buffer queued wakes the src pad's task
 * (it checks whether the set is complete), the task aggregates and
 * pushes, and whoever waits for the output (a thread downstream, or the
 * upstream thread that can send its next buffer only once the task took
 * the last) is woken in turn.  On the 2-core VM the project measures on,
 * a wake-up costs 20-60 us and, when the other core is busy, preempts
 * the thread that did the waking: four uint8 <480,640,3> frames stacked
 * took about 184 us per output where their copies take 110-150 us
 * (docs/perf-notes.md, "Session 8 H5").
 *
 * What.  GstAggregatorPad's own chain function queues the buffer first,
 * so GstAggregator's state (queues, time levels, readiness) stays what it
 * keeps.  Then, when every pad has a buffer at the head of its queue,
 * this thread runs the aggregate vfunc's work itself, under the lock the
 * task takes for it, set after set while sets are complete.  The same
 * function decides the same pairing from the same queued buffers, so the
 * outputs are the same; only the thread differs.  Meanwhile the task
 * waits in our aggregate vfunc on a condition of ours, not on
 * GstAggregator's, so queueing wakes nobody.
 *
 * When.  The task starts the hand-off after it pushed an output itself
 * (the src pad then has its stream-start, caps and segment, so
 * gst_aggregator_finish_buffer pushes nothing but the buffer from another
 * thread), not live (a live aggregator waits on the clock and may time
 * out: the task's), no pad ended (a set with an ended pad is never
 * completed by a buffer), no serialized event or query queued for it
 * (counted as they are queued and handled) and no FLUSH_START meanwhile.
 * Everything that needs the task stops the hand-off, which wakes it:
 * a serialized event or query being queued, FLUSH_START, a seek or
 * RECONFIGURE from downstream, a pad requested or released, a state
 * change downwards, a negotiation, a flow other than OK from the push
 * (returned upstream and, unless FLUSHING, left for the task's next
 * aggregate, so that GstAggregator ends the other pads' streams as it
 * would have).  A thread that still finds the src pad marked for
 * reconfiguration stops it too, and while the mark stands the task
 * returns to GstAggregator, which negotiates only between two calls of
 * aggregate, instead of aggregating or starting the hand-off again.
 */
#include "tnagg-private.h"

#define GST_CAT_DEFAULT gst_tn_aggregator_debug

void
gst_tn_agg_direct_stop (GstTnAggregator *self)
{
  GstTnAggregatorPrivate *priv = PRIV (self);

  if (!g_atomic_int_get (&priv->direct))
    return;
  g_mutex_lock (&priv->wait_lock);
  g_atomic_int_set (&priv->direct, FALSE);
  g_cond_broadcast (&priv->resume);
  g_mutex_unlock (&priv->wait_lock);
}

static gboolean nothing_queued (GstTnAggregator *self);

/* eos FALSE: every sink pad has a buffer at the head of its queue (a
 * first look, without the lock: aggregate looks again under it).  eos
 * TRUE: some pad has ended. */
static gboolean
pads_all (GstTnAggregator *self, gboolean eos)
{
  gboolean all = TRUE;

  GST_OBJECT_LOCK (self);
  for (GList *l = GST_ELEMENT (self)->sinkpads; l && all; l = l->next)
    all = eos ? !gst_aggregator_pad_is_eos (l->data)
              : gst_aggregator_pad_has_buffer (l->data);
  GST_OBJECT_UNLOCK (self);
  return eos ? !all : all;
}

/* The task waits until the hand-off stops, then aggregates what is
 * complete; TRUE when it started the hand-off (again). */
static gboolean
task_round (GstTnAggregator *self, gboolean timeout, GstFlowReturn *ret)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstTnAggregatorPrivate *priv = PRIV (self);
  gint flushes = g_atomic_int_get (&priv->flushes);
  gint produced = 0;
  gboolean started = FALSE;

  /* The upstream threads aggregate: the task waits here, not on
   * GstAggregator's condition, so that the queueing of every buffer does
   * not wake it (and, on a busy machine, preempt the thread that queued
   * it).  Whatever needs the task stops the direct hand-off first. */
  g_mutex_lock (&priv->wait_lock);
  while (g_atomic_int_get (&priv->direct)) {
    /* GstAggregator flushes the src pad before it stops the task (a
     * seek, a state change): looked at every 20 ms too, in case a stop
     * came between the look that started the hand-off and its start. */
    if (GST_PAD_IS_FLUSHING (GST_AGGREGATOR_SRC_PAD (agg))) {
      g_atomic_int_set (&priv->direct, FALSE);
      break;
    }
    g_cond_wait_until (&priv->resume, &priv->wait_lock,
        g_get_monotonic_time () + 20 * G_TIME_SPAN_MILLISECOND);
  }
  g_mutex_unlock (&priv->wait_lock);

  g_mutex_lock (&priv->lock);
  *ret = g_atomic_int_get (&priv->direct_flow);
  /* Downstream asked for a new negotiation (the thread that saw the mark
   * stopped the hand-off): GstAggregator negotiates only between two
   * calls of aggregate, so return before aggregating anything. */
  if (*ret == GST_FLOW_OK
      && gst_pad_needs_reconfigure (GST_AGGREGATOR_SRC_PAD (agg))) {
    g_mutex_unlock (&priv->lock);
    return FALSE;
  }
  if (*ret == GST_FLOW_OK)
    *ret = gst_tn_agg_aggregate_locked (self, timeout, FALSE, &produced);
  if (*ret == GST_FLOW_OK
      && produced > 1
      /* NONE: not live, GstAggregator waits for every pad */
      && !GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (agg))) {
    /* On first, then look: a thread that queues an event or query or
     * flushes counts first and then looks at direct, so one of the two
     * sees the other. */
    g_atomic_int_set (&priv->direct, TRUE);
    if (flushes != g_atomic_int_get (&priv->flushes)
        /* an ended pad completes no set any more: the task's */
        || pads_all (self, TRUE)
        /* events and queries behind the buffers are the task's */
        || !nothing_queued (self)
        /* so is a negotiation (marked since the look above) */
        || gst_pad_needs_reconfigure (GST_AGGREGATOR_SRC_PAD (agg))) {
      g_atomic_int_set (&priv->direct, FALSE); /* nobody waits: we run */
    } else {
      GST_DEBUG_OBJECT (self, "the thread that completes a set of inputs "
                              "aggregates it from now on");
      /* A set completed before: its thread saw no hand-off (it queues
       * before it looks), so it is the task's. */
      do
        *ret = gst_tn_agg_aggregate_locked (self, FALSE, TRUE, &produced);
      while (*ret == GST_FLOW_OK && produced > 0);
      if (*ret != GST_FLOW_OK)
        gst_tn_agg_direct_stop (self);
      else
        started = TRUE;
    }
  }
  g_mutex_unlock (&priv->lock);
  return started;
}

static GstFlowReturn
gst_tn_agg_aggregate (GstAggregator *agg, gboolean timeout)
{
  GstFlowReturn ret;

  /* Once the hand-off is on, the task waits in task_round at once.
   * Returned to GstAggregator, it would wait for a whole set on
   * GstAggregator's condition, which every queued buffer wakes: where
   * one thread feeds the pads in turn and waits for each output (an
   * application pushing into appsrcs), the thread that completes the set
   * has taken it before the task looks, so the task never saw a whole
   * set, never came back here, and was woken twice a set: 40-50 us a
   * push on the 2-core VM, a seventh of a 1M-item float32 add
   * (docs/perf-notes.md, "Session 18"). */
  while (task_round (GST_TN_AGGREGATOR (agg), timeout, &ret))
    timeout = FALSE;
  return ret;
}

GstFlowReturn
gst_tn_agg_pad_chain (GstPad *pad, GstObject *parent, GstBuffer *buffer)
{
  GstTnAggregator *self = GST_TN_AGGREGATOR (parent);
  GstTnAggregatorPrivate *priv = PRIV (self);
  GstFlowReturn ret
      = GST_TN_AGGREGATOR_PAD (pad)->queue_chain (pad, parent, buffer);
  gint progress;

  if (ret != GST_FLOW_OK || !g_atomic_int_get (&priv->direct)
      || !pads_all (self, FALSE))
    return ret;
  /* Waits only while another upstream thread aggregates: the task holds
   * the lock only in our vfuncs, and not while the hand-off is on. */
  g_mutex_lock (&priv->lock);
  /* One set at a time, as long as sets are complete (a pad may hold
   * more than one buffer with a latency). */
  do {
    progress = 0;
    if (!g_atomic_int_get (&priv->direct))
      break;
    if (gst_pad_needs_reconfigure (GST_AGGREGATOR_SRC_PAD (self))) {
      gst_tn_agg_direct_stop (self); /* the task negotiates */
      break;
    }
    ret = gst_tn_agg_aggregate_locked (self, FALSE, TRUE, &progress);
    if (ret != GST_FLOW_OK) {
      GST_DEBUG_OBJECT (pad, "direct output: %s", gst_flow_get_name (ret));
      if (ret != GST_FLOW_FLUSHING)
        g_atomic_int_set (&priv->direct_flow, ret);
      gst_tn_agg_direct_stop (self);
    }
  } while (ret == GST_FLOW_OK && progress > 0);
  g_mutex_unlock (&priv->lock);
  return ret;
}

/* On the thread of the pad's FLUSH_STOP.  The lock may be held by a
 * push that only the flush of another pad ends: then the next
 * aggregate drops the buffer. */
GstFlowReturn
gst_tn_agg_pad_flush (GstAggregatorPad *aggpad, GstAggregator *agg)
{
  GstTnAggregatorPad *pad = GST_TN_AGGREGATOR_PAD (aggpad);
  GstTnAggregatorPrivate *priv = PRIV (agg);

  if (g_mutex_trylock (&priv->lock)) {
    gst_tn_agg_pad_clear_held (pad);
    g_mutex_unlock (&priv->lock);
  } else {
    g_atomic_int_set (&pad->flushed, TRUE);
  }
  return GST_FLOW_OK;
}

/* ---- what needs the task stops the hand-off ---- */

static GstAggregatorClass *
agg_class (void)
{
  return g_type_class_peek (GST_TYPE_AGGREGATOR);
}

/* The counter of pad a queued event of this kind counts in: the kind a
 * FLUSH_START drops from the queue (GstAggregator's partial flush) or the
 * kind it keeps. */
static gint *
queued_counter (GstAggregatorPad *pad, GstEvent *event)
{
  GstTnAggregatorPad *p = GST_TN_AGGREGATOR_PAD (pad);
  GstEventType t = GST_EVENT_TYPE (event);

  return t == GST_EVENT_EOS || t == GST_EVENT_SEGMENT
                 || !GST_EVENT_IS_STICKY (event)
             ? &p->queued_drop
             : &p->queued_keep;
}

/* Decrements c, not below 0 (a FLUSH_START may have zeroed it). */
static void
counter_down (gint *c)
{
  gint v;

  do
    v = g_atomic_int_get (c);
  while (v > 0 && !g_atomic_int_compare_and_exchange (c, v, v - 1));
}

void
gst_tn_agg_direct_event_done (GstAggregatorPad *pad, GstEvent *event)
{
  if (event)
    counter_down (queued_counter (pad, event));
  else
    g_atomic_int_set (&GST_TN_AGGREGATOR_PAD (pad)->queued_drop, 0);
}

/* No serialized event or query waits in a queue for the task. */
static gboolean
nothing_queued (GstTnAggregator *self)
{
  gboolean none = g_atomic_int_get (&PRIV (self)->queries) == 0;

  GST_OBJECT_LOCK (self);
  for (GList *l = GST_ELEMENT (self)->sinkpads; l && none; l = l->next) {
    GstTnAggregatorPad *p = l->data;

    none = g_atomic_int_get (&p->queued_drop) == 0
           && g_atomic_int_get (&p->queued_keep) == 0;
  }
  GST_OBJECT_UNLOCK (self);
  return none;
}

/* Serialized events and queries are queued for the task to handle: it
 * resumes, and takes the hand-off up again only once none waits. */
static GstFlowReturn
direct_sink_event_pre_queue (
    GstAggregator *agg, GstAggregatorPad *pad, GstEvent *event)
{
  gint *c = NULL;
  GstFlowReturn ret;

  if (GST_EVENT_IS_SERIALIZED (event)
      && GST_EVENT_TYPE (event) != GST_EVENT_FLUSH_STOP) {
    c = queued_counter (pad, event);
    g_atomic_int_inc (c);
    gst_tn_agg_direct_stop (GST_TN_AGGREGATOR (agg));
  }
  ret = agg_class ()->sink_event_pre_queue (agg, pad, event);
  if (c && ret != GST_FLOW_OK) /* flushing: not queued */
    counter_down (c);
  return ret;
}

static gboolean
direct_sink_query_pre_queue (
    GstAggregator *agg, GstAggregatorPad *pad, GstQuery *query)
{
  GstTnAggregatorPrivate *priv = PRIV (agg);
  gboolean serialized = GST_QUERY_IS_SERIALIZED (query), ret;

  if (serialized) {
    g_atomic_int_inc (&priv->queries);
    gst_tn_agg_direct_stop (GST_TN_AGGREGATOR (agg));
  }
  /* returns once the task answered it (or a flush dropped it) */
  ret = agg_class ()->sink_query_pre_queue (agg, pad, query);
  if (serialized)
    g_atomic_int_add (&priv->queries, -1);
  return ret;
}

/* A seek stops the task; downstream asks for a negotiation. */
static gboolean
direct_src_event (GstAggregator *agg, GstEvent *event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK
      || GST_EVENT_TYPE (event) == GST_EVENT_RECONFIGURE)
    gst_tn_agg_direct_stop (GST_TN_AGGREGATOR (agg));
  return agg_class ()->src_event (agg, event);
}

/* Going down stops the task. */
static GstStateChangeReturn
direct_change_state (GstElement *element, GstStateChange transition)
{
  if (GST_STATE_TRANSITION_NEXT (transition)
      < GST_STATE_TRANSITION_CURRENT (transition))
    gst_tn_agg_direct_stop (GST_TN_AGGREGATOR (element));
  return GST_ELEMENT_CLASS (agg_class ())->change_state (element, transition);
}

void
gst_tn_agg_direct_class_init (GstTnAggregatorClass *klass)
{
  GstAggregatorClass *agg = GST_AGGREGATOR_CLASS (klass);

  agg->aggregate = GST_DEBUG_FUNCPTR (gst_tn_agg_aggregate);
  agg->sink_event_pre_queue = GST_DEBUG_FUNCPTR (direct_sink_event_pre_queue);
  agg->sink_query_pre_queue = GST_DEBUG_FUNCPTR (direct_sink_query_pre_queue);
  agg->src_event = GST_DEBUG_FUNCPTR (direct_src_event);
  GST_ELEMENT_CLASS (klass)->change_state
      = GST_DEBUG_FUNCPTR (direct_change_state);
}
