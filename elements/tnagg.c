/* GstTnAggregator: the base of the elements with several tensor sink pads.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gsttnaggregator
 * @title: GstTnAggregator
 * @see_also: tensorstack, tensorconcat, tensorcombine
 *
 * The base class (not installed) of tensorstack, tensorconcat and
 * tensorcombine: request sink pads sink_\%u, one src pad, and one output
 * tensor for every buffer of sink_0 (the first pad in pad order, the
 * order of the pads' numbers), combined from one buffer of every pad.
 *
 * ## Pads
 *
 * At least two sink pads (an element may ask for more) must be linked
 * when the element goes to PAUSED; fewer is an element error that names
 * the pads there are.  Pads may be requested and released while PLAYING:
 * the output caps are negotiated again, and a new pad takes part from its
 * first buffer on (until then the output waits for it, as GstAggregator
 * waits for every pad).
 *
 * ## Caps
 *
 * Every sink pad takes tensor/x-raw caps (minimal caps such as
 * `tensor/x-raw,type=uint8,dims=<2,3>` are enough); the element computes
 * the output tensor from all of them, and again whenever caps change on
 * any pad.  New caps on a pad are those of its next buffer: a buffer of
 * a slower pad that still serves sink_0's buffers keeps the caps it came
 * with.  Impossible combinations fail negotiation with an element
 * error that names the pads, their dims and types (and the axis).  The
 * output's framerate is sink_0's.  Inputs may be strided views (the
 * element advertises the layout meta upstream); the output is a dense
 * tensor from the negotiated pool.
 *
 * ## Pairing (the sync property)
 *
 * Times are running times, so streams with different segments pair by
 * when they play.  With sync=timestamp (the default) the output for the
 * sink_0 buffer spanning [T, T + duration) takes from every other pad
 * the buffer whose span shares the most time with it (the earlier one on
 * a tie; a buffer without a duration lasts until the next one starts; a
 * sink_0 buffer without a duration spans the instant T).  Streams of
 * equal rate pair one to one, as compositor pairs frames, even when they
 * are out of phase by up to half a frame (two live sources started
 * apart); a slower stream's buffer serves every sink_0 buffer it
 * overlaps most, and a faster stream's buffers that serve no sink_0 buffer are
 * dropped.  A sink_0 buffer that some pad shares no time with (that pad
 * starts later, or has a hole) gives no output.
 *
 * With sync=latest each sink_0 buffer at T takes from every other pad the
 * newest buffer that starts at or before T (sensor fusion of streams at
 * different rates).  A pad is waited on only until it has delivered its
 * first buffer: after that, in a live pipeline, a pad that has nothing
 * new by the deadline (T plus the latency) contributes its latest buffer
 * again.  Without a live source T is served only once every pad that
 * has not ended is known to hold its newest buffer at or before T (one
 * that starts at T or lasts beyond it, or whose next buffer starts after
 * T; the older ones of a faster stream are passed over), so the result
 * does not depend on thread timing.  A sink_0 buffer earlier than every
 * buffer of some pad gives no output.
 *
 * Buffers without a timestamp pair in order, one of each pad per output.
 *
 * ## Live sources and latency
 *
 * As in every GstAggregator: with a live source the element waits for
 * each sink_0 buffer until its running time plus the latency (the
 * upstream latency plus the latency property), then produces what it can;
 * a sink_0 buffer that then still has no partner on some pad (that pad has
 * never delivered, or with sync=timestamp nothing shares its time) is
 * dropped.  Live sources that push each buffer at its own timestamp and
 * report no latency (tensorsrc is-live=true) need the latency property
 * set to the time a partner may arrive late, a frame for instance.
 *
 * ## End of stream
 *
 * The output ends when sink_0 ends.  With sync=timestamp it ends also
 * when another pad has ended and holds nothing for the next output: its
 * last buffer shares no time with the next sink_0 buffer (a last buffer
 * without a duration serves only the sink_0 buffers that span its start).
 * With sync=latest a pad that has ended keeps contributing its last
 * buffer; one that ended before delivering any buffer is an element
 * error.
 *
 * ## Threads
 *
 * Without a live source, once the element has pushed its first output,
 * the streaming thread whose buffer completes a set (every pad has one)
 * combines it and pushes the output itself, while the aggregator's task
 * waits: two thread wake-ups fewer per output, and no wake-up of the
 * task for every buffer queued.  Serialized events and queries, seeks,
 * renegotiation, pads that come or go, an ended pad and state changes
 * hand the work back to the task until it has pushed again.  Outputs
 * and their pairing are the same on either thread.
 *
 * ## Seeking
 *
 * A flushing seek goes upstream on every sink pad, as GstAggregator does;
 * the buffers the element held for pairing are dropped with the flush.
 * The output segment is sink_0's, and the output buffers carry the
 * timestamps, duration and offsets of the sink_0 buffer they answer.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "tnagg.h"

#include <stdlib.h>
#include <string.h>

#include "tnagg-private.h"
#include "tnalloc.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY (gst_tn_aggregator_debug);
#define GST_CAT_DEFAULT gst_tn_aggregator_debug

#define DEFAULT_SYNC GST_TN_AGGREGATOR_SYNC_TIMESTAMP

enum {
  PROP_0,
  PROP_SYNC,
};

G_DEFINE_TYPE (
    GstTnAggregatorPad, gst_tn_aggregator_pad, GST_TYPE_AGGREGATOR_PAD);

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (
    GstTnAggregator, gst_tn_aggregator, GST_TYPE_AGGREGATOR);

GstTnAggregatorPrivate *
gst_tn_agg_priv (GstTnAggregator *self)
{
  return gst_tn_aggregator_get_instance_private (self);
}

GType
gst_tn_aggregator_sync_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_TN_AGGREGATOR_SYNC_TIMESTAMP,
        "Each output takes from every pad the buffer that shares the most "
        "time with sink_0's buffer; equal rates pair one to one",
        "timestamp" },
    { GST_TN_AGGREGATOR_SYNC_LATEST,
        "One output per sink_0 buffer; every other pad gives its newest "
        "buffer at or before that time; live, a pad that has delivered is "
        "waited on only until the deadline (that time plus the latency), "
        "then its latest buffer serves (not live, its next buffer or EOS "
        "is waited for, so that the pairing never depends on thread "
        "timing)",
        "latest" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTnAggregatorSync", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

/* ---- pads ---- */

static void
gst_tn_aggregator_pad_finalize (GObject *object)
{
  gst_tn_agg_pad_clear_held (GST_TN_AGGREGATOR_PAD (object));
  G_OBJECT_CLASS (gst_tn_aggregator_pad_parent_class)->finalize (object);
}

static void
gst_tn_aggregator_pad_constructed (GObject *object)
{
  GstTnAggregatorPad *pad = GST_TN_AGGREGATOR_PAD (object);
  const gchar *name = GST_OBJECT_NAME (object);

  G_OBJECT_CLASS (gst_tn_aggregator_pad_parent_class)->constructed (object);
  /* GstAggregator names request pads sink_N. */
  if (name && g_str_has_prefix (name, "sink_"))
    pad->number = (guint) strtoul (name + 5, NULL, 10);
  gst_tn_pad_accept_intersect (GST_PAD (pad));
  /* GstAggregatorPad set its queueing chain function; ours calls it. */
  pad->queue_chain = GST_PAD_CHAINFUNC (pad);
  gst_pad_set_chain_function (
      GST_PAD (pad), GST_DEBUG_FUNCPTR (gst_tn_agg_pad_chain));
}

static void
gst_tn_aggregator_pad_class_init (GstTnAggregatorPadClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAggregatorPadClass *pad_class = GST_AGGREGATOR_PAD_CLASS (klass);

  gobject_class->constructed = gst_tn_aggregator_pad_constructed;
  gobject_class->finalize = gst_tn_aggregator_pad_finalize;
  pad_class->flush = GST_DEBUG_FUNCPTR (gst_tn_agg_pad_flush);
}

static void
gst_tn_aggregator_pad_init (GstTnAggregatorPad *pad)
{
  pad->held_start = pad->held_end = GST_CLOCK_TIME_NONE;
}

/* ---- the pads in pad order ---- */

static gint
pad_cmp (gconstpointer a, gconstpointer b)
{
  const GstTnAggregatorPad *pa = *(GstTnAggregatorPad *const *) a;
  const GstTnAggregatorPad *pb = *(GstTnAggregatorPad *const *) b;

  return pa->number < pb->number ? -1 : pa->number > pb->number;
}

/* The sink pads, pad order, with a reference each (release with
 * pads_unref), in priv->pads; *cookie is the element's pads cookie. */
static guint
pads_get (GstTnAggregator *self, guint32 *cookie)
{
  GstTnAggregatorPrivate *priv = PRIV (self);
  GstElement *element = GST_ELEMENT (self);
  guint n = 0;

  GST_OBJECT_LOCK (self);
  if (element->numsinkpads > priv->n_pads_alloc) {
    priv->n_pads_alloc = element->numsinkpads;
    priv->pads = g_renew (GstTnAggregatorPad *, priv->pads, priv->n_pads_alloc);
  }
  for (GList *l = element->sinkpads; l; l = l->next)
    priv->pads[n++] = gst_object_ref (l->data);
  *cookie = element->pads_cookie;
  GST_OBJECT_UNLOCK (self);
  /* Almost always in order already: insertion order is request order. */
  for (guint i = 1; i < n; i++)
    if (priv->pads[i - 1]->number > priv->pads[i]->number) {
      qsort (priv->pads, n, sizeof *priv->pads, pad_cmp);
      break;
    }
  return n;
}

static void
pads_unref (GstTnAggregator *self, guint n)
{
  GstTnAggregatorPrivate *priv = PRIV (self);

  for (guint i = 0; i < n; i++)
    gst_object_unref (priv->pads[i]);
}

static GstTnAggInput *
inputs_get (GstTnAggregator *self, guint n)
{
  GstTnAggregatorPrivate *priv = PRIV (self);

  if (n > priv->n_alloc) {
    priv->n_alloc = n;
    priv->inputs = g_renew (GstTnAggInput, priv->inputs, n);
  }
  memset (priv->inputs, 0, n * sizeof *priv->inputs);
  for (guint i = 0; i < n; i++) {
    priv->inputs[i].pad = priv->pads[i];
    priv->inputs[i].name = GST_PAD_NAME (priv->pads[i]);
    priv->inputs[i].index = i;
    priv->inputs[i].info = priv->pads[i]->info;
  }
  return priv->inputs;
}

/* A comma-separated list of the pads' names, for messages. */
static gchar *
pad_names (GstTnAggregator *self)
{
  GString *s = g_string_new (NULL);

  GST_OBJECT_LOCK (self);
  for (GList *l = GST_ELEMENT (self)->sinkpads; l; l = l->next) {
    GstPad *p = l->data;

    g_string_append_printf (s, "%s%s%s", s->len ? ", " : "", GST_PAD_NAME (p),
        gst_pad_is_linked (p) ? "" : " (not linked)");
  }
  GST_OBJECT_UNLOCK (self);
  if (!s->len)
    g_string_append (s, "none");
  return g_string_free (s, FALSE);
}

/* The output's size, for gst_tn_aggregator_alloc_output (tnagg-buffers.c). */
gsize
gst_tn_agg_out_size (GstTnAggregator *self)
{
  return PRIV (self)->out_size;
}

GstTnAggregatorSync
gst_tn_aggregator_get_sync (GstTnAggregator *self)
{
  GstTnAggregatorSync s;

  GST_OBJECT_LOCK (self);
  s = PRIV (self)->sync;
  GST_OBJECT_UNLOCK (self);
  return s;
}

/* ---- GstAggregator vfuncs ---- */

static gboolean
gst_tn_aggregator_start (GstAggregator *agg)
{
  GstTnAggregator *self = GST_TN_AGGREGATOR (agg);
  GstTnAggregatorClass *klass = GST_TN_AGGREGATOR_GET_CLASS (self);
  guint linked = 0;

  GST_OBJECT_LOCK (self);
  for (GList *l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    linked += gst_pad_is_linked (l->data);
  GST_OBJECT_UNLOCK (self);
  if (linked < klass->min_pads) {
    gchar *names = pad_names (self);

    GST_ELEMENT_ERROR (self, CORE, PAD,
        ("%s needs at least %u linked sink pads (request sink_%%u), it has "
         "%u: %s.",
            GST_OBJECT_NAME (self), klass->min_pads, linked, names),
        (NULL));
    g_free (names);
    return FALSE;
  }
  gst_tn_agg_direct_stop (self);
  g_atomic_int_set (&PRIV (self)->direct_flow, GST_FLOW_OK);
  return TRUE;
}

static gboolean
gst_tn_aggregator_stop (GstAggregator *agg)
{
  GstTnAggregator *self = GST_TN_AGGREGATOR (agg);
  GstTnAggregatorPrivate *priv = PRIV (self);
  guint32 cookie;
  guint n;

  g_mutex_lock (&priv->lock);
  gst_tn_agg_direct_stop (self);
  g_atomic_int_set (&priv->direct_flow, GST_FLOW_OK);
  n = pads_get (self, &cookie);
  for (guint i = 0; i < n; i++) {
    gst_tn_agg_pad_clear_held (priv->pads[i]);
    priv->pads[i]->have_info = FALSE;
    /* GstAggregator emptied the queues */
    g_atomic_int_set (&priv->pads[i]->queued_drop, 0);
    g_atomic_int_set (&priv->pads[i]->queued_keep, 0);
  }
  pads_unref (self, n);
  priv->negotiated = FALSE;
  priv->neg_current = FALSE;
  priv->driver = NULL;
  g_mutex_unlock (&priv->lock);
  return TRUE;
}

/* An event GstAggregator queued, on its thread, with the lock held. */
static gboolean
sink_event_queued (
    GstAggregator *agg, GstAggregatorPad *aggpad, GstEvent *event)
{
  GstTnAggregator *self = GST_TN_AGGREGATOR (agg);
  GstTnAggregatorPad *pad = GST_TN_AGGREGATOR_PAD (aggpad);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;
    GstTnInfo info;
    GError *err = NULL;
    tn_view dense;
    gsize nbytes;
    tn_err e;

    gst_event_parse_caps (event, &caps);
    if (!gst_tn_info_from_caps (&info, caps, &err)) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("%s: the caps on %s are not a tensor: %s", GST_OBJECT_NAME (self),
              GST_PAD_NAME (pad), err->message),
          (NULL));
      g_error_free (err);
      gst_event_unref (event);
      return FALSE;
    }
    if (!gst_tn_info_size (&info, &nbytes)
        || tn_view_init (&dense, info.dtype, info.dims, info.rank, &e) < 0) {
      gchar *s = gst_tn_info_to_string (&info);

      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("%s: the tensor on %s, %s, is too large.", GST_OBJECT_NAME (self),
              GST_PAD_NAME (pad), s),
          (NULL));
      g_free (s);
      gst_event_unref (event);
      return FALSE;
    }
    /* A buffer held under the old caps keeps them while it serves. */
    if (gst_tn_agg_pad_set_info (pad, &info, &dense, nbytes)) {
      PRIV (self)->negotiated = FALSE;
      gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (agg));
    }
    /* The output caps are computed in update_src_caps: the input's must
     * not be forwarded. */
    gst_event_unref (event);
    return TRUE;
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT
      && pad == PRIV (self)->driver) {
    const GstSegment *seg;

    gst_event_parse_segment (event, &seg);
    gst_aggregator_update_segment (agg, seg);
  }
  return GST_AGGREGATOR_CLASS (gst_tn_aggregator_parent_class)
      ->sink_event (agg, aggpad, event);
}

static gboolean
gst_tn_aggregator_sink_event (
    GstAggregator *agg, GstAggregatorPad *aggpad, GstEvent *event)
{
  GstTnAggregator *self = GST_TN_AGGREGATOR (agg);
  GstTnAggregatorPrivate *priv = PRIV (self);
  GstEventType type = GST_EVENT_TYPE (event);
  gboolean ret;

  /* GstAggregator queues the serialized events but FLUSH_STOP and hands
   * them over on its thread, in order with the buffers; the direct
   * hand-off waits until the task has pushed again (tnagg-direct.c). */
  if (GST_EVENT_IS_SERIALIZED (event) && type != GST_EVENT_FLUSH_STOP) {
    g_mutex_lock (&priv->lock);
    gst_tn_agg_direct_stop (self);
    gst_tn_agg_direct_event_done (aggpad, event);
    ret = sink_event_queued (agg, aggpad, event);
    g_mutex_unlock (&priv->lock);
    return ret;
  }
  /* Flushes come on any thread, and the lock may be held by a push that
   * only the flush ends: they do not take it. */
  if (type == GST_EVENT_FLUSH_START) {
    g_atomic_int_inc (&priv->flushes);
    gst_tn_agg_direct_stop (self);
  }
  ret = GST_AGGREGATOR_CLASS (gst_tn_aggregator_parent_class)
            ->sink_event (agg, aggpad, event);
  if (type == GST_EVENT_FLUSH_START) /* the flush dropped some */
    gst_tn_agg_direct_event_done (aggpad, NULL);
  if (type == GST_EVENT_FLUSH_STOP)
    g_atomic_int_set (&priv->direct_flow, GST_FLOW_OK);
  return ret;
}

static gboolean
gst_tn_aggregator_sink_query (
    GstAggregator *agg, GstAggregatorPad *pad, GstQuery *query)
{
  if (gst_tn_pad_accept_caps_query (GST_PAD (pad), GST_OBJECT (agg), query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *filter;

    gst_query_parse_caps (query, &filter);
    if (filter)
      gst_tn_element_explain_caps (GST_ELEMENT (agg), filter);
  }
  return GST_AGGREGATOR_CLASS (gst_tn_aggregator_parent_class)
      ->sink_query (agg, pad, query);
}

static GstFlowReturn
gst_tn_aggregator_update_src_caps (
    GstAggregator *agg, GstCaps *caps, GstCaps **ret)
{
  GstTnAggregator *self = GST_TN_AGGREGATOR (agg);
  GstTnAggregatorClass *klass = GST_TN_AGGREGATOR_GET_CLASS (self);
  GstTnAggregatorPrivate *priv = PRIV (self);
  GstFlowReturn flow = GST_FLOW_OK;
  GstTnInfo out = { 0 };
  GError *err = NULL;
  GstTnAggInput *in;
  GstCaps *mine;
  gboolean ok;
  guint32 cookie;
  guint n;

  g_mutex_lock (&priv->lock);
  gst_tn_agg_direct_stop (self);
  n = pads_get (self, &cookie);
  priv->negotiated = FALSE;
  if (n < klass->min_pads) {
    gchar *names = pad_names (self);

    GST_ELEMENT_ERROR (self, CORE, PAD,
        ("%s needs at least %u sink pads, it has %u: %s.",
            GST_OBJECT_NAME (self), klass->min_pads, n, names),
        (NULL));
    g_free (names);
    flow = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }
  for (guint i = 0; i < n; i++)
    if (!priv->pads[i]->have_info) {
      flow = GST_AGGREGATOR_FLOW_NEED_DATA;
      goto done;
    }
  in = inputs_get (self, n);
  ok = klass->negotiate (self, n, in, &out, &err);
  if (!ok && !priv->neg_current) {
    /* Caps pending behind a held buffer are those of the pad's next
     * buffer: two streams switching together combine so (aggregate
     * checks which buffers serve before it combines any). */
    GError *err2 = NULL;
    gboolean pending = FALSE;

    for (guint i = 0; i < n; i++)
      if (priv->pads[i]->pending) {
        in[i].info = priv->pads[i]->pending_info;
        pending = TRUE;
      }
    if (pending && klass->negotiate (self, n, in, &out, &err2)) {
      ok = TRUE;
      g_clear_error (&err);
    }
    g_clear_error (&err2);
    if (!ok)
      for (guint i = 0; i < n; i++)
        in[i].info = priv->pads[i]->info;
  }
  if (!ok) {
    /* A pad with nothing queued may be about to change its caps too (two
     * streams switching together, one of them late: live): its next
     * buffer decides.  Without a live source GstAggregator negotiates
     * only once every pad has a buffer or has ended. */
    for (guint i = 0; i < n; i++) {
      GstAggregatorPad *ap = GST_AGGREGATOR_PAD (priv->pads[i]);

      if (!gst_aggregator_pad_has_buffer (ap)
          && !gst_aggregator_pad_is_eos (ap)) {
        GST_DEBUG_OBJECT (self, "%s; waiting for %s's next buffer",
            err ? err->message : "", GST_PAD_NAME (ap));
        g_clear_error (&err);
        flow = GST_AGGREGATOR_FLOW_NEED_DATA;
        goto done;
      }
    }
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s: %s", GST_OBJECT_NAME (self),
            err ? err->message : "the inputs do not combine"),
        (NULL));
    g_clear_error (&err);
    flow = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }
  out.fps_n = in[0].info.fps_n;
  out.fps_d = in[0].info.fps_d;
  if (!gst_tn_info_size (&out, &priv->out_size)) {
    gchar *s = gst_tn_info_to_string (&out);

    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s: the output tensor %s is too large.", GST_OBJECT_NAME (self), s),
        (NULL));
    g_free (s);
    flow = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }
  mine = gst_tn_info_to_caps (&out);
  *ret = gst_caps_intersect (mine, caps);
  gst_caps_unref (mine);
  if (gst_caps_is_empty (*ret)) {
    gchar *s = gst_tn_info_to_string (&out);

    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s: downstream does not accept the output %s (it accepts "
         "%" GST_PTR_FORMAT ").",
            GST_OBJECT_NAME (self), s, caps),
        (NULL));
    g_free (s);
    gst_clear_caps (ret);
    flow = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }
  priv->out_info = out;
  priv->pads_cookie = cookie;
  priv->negotiated = TRUE;
  priv->neg_current = FALSE;
  if (n > priv->n_neg_alloc) {
    priv->n_neg_alloc = n;
    priv->neg_info = g_renew (GstTnInfo, priv->neg_info, n);
  }
  for (guint i = 0; i < n; i++)
    priv->neg_info[i] = in[i].info;
  if (priv->driver != priv->pads[0]) {
    priv->driver = priv->pads[0];
    gst_aggregator_update_segment (
        agg, &GST_AGGREGATOR_PAD (priv->driver)->segment);
  }

done:
  pads_unref (self, n);
  g_mutex_unlock (&priv->lock);
  return flow;
}

static gboolean
gst_tn_aggregator_decide_allocation (GstAggregator *agg, GstQuery *query)
{
  /* The helper posts the error: FALSE alone leaves GstAggregator with a
   * warning and no output, and the pipeline waits forever. */
  return gst_tn_element_decide_allocation (
      GST_ELEMENT (agg), query, MAX (PRIV (agg)->out_size, 1));
}

/* We read the layout meta, and never pass a strided buffer on (in place
 * needs a dense one): views are welcome on every input. */
static gboolean
gst_tn_aggregator_propose_allocation (GstAggregator *agg, GstAggregatorPad *pad,
    GstQuery *decide_query, GstQuery *query)
{
  gst_query_add_allocation_meta (query, GST_TN_LAYOUT_META_API_TYPE, NULL);
  return TRUE;
}

static GstAggregatorPad *
gst_tn_aggregator_create_new_pad (GstAggregator *agg, GstPadTemplate *templ,
    const gchar *req_name, const GstCaps *caps)
{
  GstTnAggregatorClass *klass = GST_TN_AGGREGATOR_GET_CLASS (agg);
  GstAggregatorPad *pad;
  guint n;

  GST_OBJECT_LOCK (agg);
  n = GST_ELEMENT (agg)->numsinkpads;
  GST_OBJECT_UNLOCK (agg);
  if (klass->max_pads && n >= klass->max_pads) {
    GST_WARNING_OBJECT (agg, "%s takes at most %u sink pads",
        GST_OBJECT_NAME (agg), klass->max_pads);
    return NULL;
  }
  pad = GST_AGGREGATOR_CLASS (gst_tn_aggregator_parent_class)
            ->create_new_pad (agg, templ, req_name, caps);
  /* The pads cookie tells aggregate that the output caps are stale. */
  if (pad) {
    gst_tn_agg_direct_stop (GST_TN_AGGREGATOR (agg));
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (agg));
  }
  return pad;
}

static void
gst_tn_aggregator_release_pad (GstElement *element, GstPad *pad)
{
  GST_ELEMENT_CLASS (gst_tn_aggregator_parent_class)
      ->release_pad (element, pad);
  gst_tn_agg_direct_stop (GST_TN_AGGREGATOR (element));
  gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (element));
}

/* Fills in[i].view for buffer; FALSE after an element error. */
static gboolean
input_view (GstTnAggregator *self, GstTnAggInput *in, GstBuffer *buffer)
{
  GstTnAggregatorPad *pad = in->pad;

  in->buffer = buffer;
  if (gst_tn_buffer_view (buffer, &pad->dense, pad->nbytes, &in->view))
    return TRUE;
  {
    gchar *s = gst_tn_info_to_string (&in->info);

    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("%s: the buffer on %s does not hold its tensor %s: it holds "
         "%" G_GSIZE_FORMAT " bytes, %s%" G_GSIZE_FORMAT ".",
            GST_OBJECT_NAME (self), in->name, s, gst_buffer_get_size (buffer),
            gst_tn_buffer_get_layout_meta (buffer)
                ? "and its layout meta reaches past them; dense it needs "
                : "the caps need ",
            pad->nbytes),
        (NULL));
    g_free (s);
  }
  return FALSE;
}

static GstFlowReturn
produce (GstTnAggregator *self, guint n, GstBuffer *b0)
{
  GstTnAggregatorClass *klass = GST_TN_AGGREGATOR_GET_CLASS (self);
  GstTnAggregatorPrivate *priv = PRIV (self);
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstTnAggInput *in = inputs_get (self, n);
  GstBuffer *out = NULL;
  GstFlowReturn ret;

  if (!input_view (self, &in[0], b0)) {
    gst_buffer_unref (b0);
    return GST_FLOW_ERROR;
  }
  for (guint i = 1; i < n; i++)
    if (!input_view (self, &in[i], priv->pads[i]->held)) {
      gst_buffer_unref (b0);
      return GST_FLOW_ERROR;
    }
  ret = klass->combine (self, n, in, &priv->out_info, &out);
  if (in[0].buffer == NULL) /* taken for in place: out is b0 */
    b0 = NULL;
  if (ret != GST_FLOW_OK) {
    gst_clear_buffer (&out);
    gst_clear_buffer (&b0);
    return ret;
  }
  g_assert (out != NULL);
  if (b0) {
    GST_BUFFER_PTS (out) = GST_BUFFER_PTS (b0);
    GST_BUFFER_DTS (out) = GST_BUFFER_DTS (b0);
    GST_BUFFER_DURATION (out) = GST_BUFFER_DURATION (b0);
    GST_BUFFER_OFFSET (out) = GST_BUFFER_OFFSET (b0);
    GST_BUFFER_OFFSET_END (out) = GST_BUFFER_OFFSET_END (b0);
    gst_buffer_unref (b0);
  }
  if (GST_BUFFER_PTS_IS_VALID (out)) {
    GstSegment *seg = &GST_AGGREGATOR_PAD (agg->srcpad)->segment;

    /* position queries read it from other threads */
    GST_OBJECT_LOCK (self);
    seg->position
        = GST_BUFFER_PTS (out)
          + (GST_BUFFER_DURATION_IS_VALID (out) ? GST_BUFFER_DURATION (out)
                                                : 0);
    GST_OBJECT_UNLOCK (self);
  }
  return gst_aggregator_finish_buffer (agg, out);
}

GstFlowReturn
gst_tn_agg_aggregate_locked (
    GstTnAggregator *self, gboolean timeout, gboolean direct, gint *progress)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstTnAggregatorPrivate *priv = PRIV (self);
  GstTnAggregatorSync sync = gst_tn_aggregator_get_sync (self);
  GstFlowReturn ret = GST_FLOW_OK;
  GstAggregatorPad *pad0;
  GstBuffer *b0;
  GstClockTime t, t_end;
  guint32 cookie;
  guint n = pads_get (self, &cookie);

  *progress = 0;
  for (guint i = 0; i < n; i++)
    if (g_atomic_int_compare_and_exchange (
            &priv->pads[i]->flushed, TRUE, FALSE))
      gst_tn_agg_pad_clear_held (priv->pads[i]);
  if (n == 0) {
    pads_unref (self, n);
    return GST_FLOW_OK;
  }
  /* sink_0's buffers are read with its caps: nothing of it is held (it
   * may have been another pad's before a pad was released). */
  if (priv->pads[0]->held)
    gst_tn_agg_pad_clear_held (priv->pads[0]);
  /* GstAggregator calls aggregate (but on a live timeout) when every pad
   * has a buffer or has ended; a direct hand-off may have taken them
   * since, and a partial set must not be started (its pads' buffers would
   * be held, and GstAggregator would wait for them again).  direct: the
   * hand-off runs only on a whole set of buffers. */
  for (guint i = 0; i < n && !timeout; i++) {
    GstAggregatorPad *ap = GST_AGGREGATOR_PAD (priv->pads[i]);

    if (!gst_aggregator_pad_has_buffer (ap)
        && (direct || !gst_aggregator_pad_is_eos (ap))) {
      pads_unref (self, n);
      return GST_FLOW_OK;
    }
  }
  pad0 = GST_AGGREGATOR_PAD (priv->pads[0]);
  b0 = gst_aggregator_pad_peek_buffer (pad0);
  if (!b0) {
    ret = gst_aggregator_pad_is_eos (pad0) ? GST_FLOW_EOS : GST_FLOW_OK;
    goto done;
  }
  if (gst_tn_agg_is_gap (b0)) {
    *progress = gst_aggregator_pad_drop_buffer (pad0);
    goto done;
  }
  if (!priv->negotiated || priv->pads_cookie != cookie) {
    /* A pad that ended without caps never gives a tensor. */
    for (guint i = 1; i < n; i++)
      if (!priv->pads[i]->have_info
          && gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (priv->pads[i]))) {
        if (sync == GST_TN_AGGREGATOR_SYNC_TIMESTAMP) {
          ret = GST_FLOW_EOS;
        } else {
          GST_ELEMENT_ERROR (self, STREAM, FAILED,
              ("%s: %s ended before its first tensor: sink_0 has nothing to "
               "be combined with.",
                  GST_OBJECT_NAME (self), GST_PAD_NAME (priv->pads[i])),
              (NULL));
          ret = GST_FLOW_ERROR;
        }
        goto done;
      }
    if (timeout) /* live: the deadline passed without caps on every pad */
      *progress = gst_aggregator_pad_drop_buffer (pad0);
    /* Otherwise renegotiation is pending and runs before the next call. */
    gst_pad_mark_reconfigure (agg->srcpad);
    goto done;
  }

  t = gst_tn_agg_running_time (pad0, b0);
  t_end = GST_CLOCK_TIME_IS_VALID (t) ? gst_tn_agg_running_end (pad0, b0)
                                      : GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (t)
      && (!GST_CLOCK_TIME_IS_VALID (t_end) || t_end <= t))
    t_end = t + 1;
  for (guint i = 1; i < n; i++) {
    GstTnAggPartner p
        = gst_tn_agg_partner (priv->pads[i], sync, t, t_end, timeout);

    switch (p) {
    case PARTNER_OK:
      break;
    case PARTNER_WAIT:
      goto done;
    case PARTNER_NONE:
      GST_LOG_OBJECT (self,
          "nothing on %s for %" GST_TIME_FORMAT ": no output for it",
          GST_PAD_NAME (priv->pads[i]), GST_TIME_ARGS (t));
      *progress = gst_aggregator_pad_drop_buffer (pad0);
      goto done;
    case PARTNER_EOS:
      if (sync == GST_TN_AGGREGATOR_SYNC_TIMESTAMP) {
        GST_DEBUG_OBJECT (self,
            "%s ended and shares nothing with %" GST_TIME_FORMAT
            " with nothing: the output ends",
            GST_PAD_NAME (priv->pads[i]), GST_TIME_ARGS (t));
        ret = GST_FLOW_EOS;
      } else {
        GST_ELEMENT_ERROR (self, STREAM, FAILED,
            ("%s: %s ended before its first tensor: the buffer at "
             "%" GST_TIME_FORMAT " on %s has nothing to be combined with.",
                GST_OBJECT_NAME (self), GST_PAD_NAME (priv->pads[i]),
                GST_TIME_ARGS (GST_BUFFER_PTS (b0)), GST_PAD_NAME (pad0)),
            (NULL));
        ret = GST_FLOW_ERROR;
      }
      goto done;
    }
  }
  /* A partner under other caps than the output's were negotiated from
   * (it came after new caps, or the negotiation took pending caps and
   * an older buffer serves): negotiated again from the pads' current
   * caps, then paired again (the partners keep what they hold). */
  for (guint i = 0; i < n; i++)
    if (!gst_tn_info_equal (&priv->pads[i]->info, &priv->neg_info[i])) {
      GST_DEBUG_OBJECT (self, "%s: the buffer to combine has other caps",
          GST_PAD_NAME (priv->pads[i]));
      priv->negotiated = FALSE;
      priv->neg_current = TRUE;
      gst_tn_agg_direct_stop (self); /* the task negotiates */
      gst_pad_mark_reconfigure (agg->srcpad);
      goto done;
    }
  gst_buffer_unref (b0);
  /* NULL only when a flush came between (the direct hand-off) */
  b0 = gst_aggregator_pad_pop_buffer (pad0);
  if (b0) {
    ret = produce (self, n, b0);
    *progress = ret == GST_FLOW_OK ? 2 : 1;
  }
  b0 = NULL;

done:
  gst_clear_buffer (&b0);
  pads_unref (self, n);
  return ret;
}

/* Live: sink_0's next buffer is due at its running time (plus latency,
 * which GstAggregator adds); without one there is nothing to produce. */
static GstClockTime
gst_tn_aggregator_get_next_time (GstAggregator *agg)
{
  GstAggregatorPad *pad0 = NULL;
  GstClockTime t = GST_CLOCK_TIME_NONE;
  GstElement *element = GST_ELEMENT (agg);
  guint best = G_MAXUINT;

  GST_OBJECT_LOCK (agg);
  for (GList *l = element->sinkpads; l; l = l->next) {
    GstTnAggregatorPad *p = l->data;

    if (p->number < best) {
      best = p->number;
      pad0 = l->data;
    }
  }
  if (pad0)
    gst_object_ref (pad0);
  GST_OBJECT_UNLOCK (agg);
  if (pad0) {
    GstBuffer *b = gst_aggregator_pad_peek_buffer (pad0);

    if (b) {
      t = gst_tn_agg_running_time (pad0, b);
      gst_buffer_unref (b);
    }
    gst_object_unref (pad0);
  }
  return t;
}

/* ---- GObject ---- */

static void
gst_tn_aggregator_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTnAggregator *self = GST_TN_AGGREGATOR (object);

  switch (prop_id) {
  case PROP_SYNC:
    if (!gst_tn_element_property_settable (GST_ELEMENT (self), pspec, value))
      return;
    GST_OBJECT_LOCK (self);
    PRIV (self)->sync = g_value_get_enum (value);
    GST_OBJECT_UNLOCK (self);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
}

static void
gst_tn_aggregator_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTnAggregator *self = GST_TN_AGGREGATOR (object);

  switch (prop_id) {
  case PROP_SYNC:
    g_value_set_enum (value, gst_tn_aggregator_get_sync (self));
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
}

static void
gst_tn_aggregator_finalize (GObject *object)
{
  GstTnAggregatorPrivate *priv = PRIV (object);

  g_free (priv->inputs);
  g_free (priv->pads);
  g_free (priv->neg_info);
  g_mutex_clear (&priv->lock);
  g_cond_clear (&priv->resume);
  g_mutex_clear (&priv->wait_lock);
  G_OBJECT_CLASS (gst_tn_aggregator_parent_class)->finalize (object);
}

static void
gst_tn_aggregator_class_init (GstTnAggregatorClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_tn_aggregator_debug, "tnaggregator", 0,
      "base of the tensor elements with several sink pads");

  gobject_class->set_property = gst_tn_aggregator_set_property;
  gobject_class->get_property = gst_tn_aggregator_get_property;
  gobject_class->finalize = gst_tn_aggregator_finalize;

  /**
   * GstTnAggregator:sync:
   *
   * How buffers of the pads are paired: timestamp (each output takes from
   * every pad the buffer that shares the most running time with sink_0's
   * buffer; equal rates pair one to one) or latest (every other pad gives
   * its newest buffer that starts at or before sink_0's).  Default:
   * timestamp.
   * Settable in NULL and READY.
   */
  g_object_class_install_property (gobject_class, PROP_SYNC,
      g_param_spec_enum ("sync", "Sync",
          "How the pads' buffers are paired for an output: timestamp (the "
          "buffer of every pad sharing the most running time with sink_0's) "
          "or latest (the newest that starts at or before sink_0's)",
          GST_TYPE_TN_AGGREGATOR_SYNC, DEFAULT_SYNC,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));

  element_class->release_pad
      = GST_DEBUG_FUNCPTR (gst_tn_aggregator_release_pad);
  agg_class->start = GST_DEBUG_FUNCPTR (gst_tn_aggregator_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_tn_aggregator_stop);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_tn_aggregator_sink_event);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_tn_aggregator_sink_query);
  agg_class->update_src_caps
      = GST_DEBUG_FUNCPTR (gst_tn_aggregator_update_src_caps);
  agg_class->decide_allocation
      = GST_DEBUG_FUNCPTR (gst_tn_aggregator_decide_allocation);
  agg_class->propose_allocation
      = GST_DEBUG_FUNCPTR (gst_tn_aggregator_propose_allocation);
  agg_class->create_new_pad
      = GST_DEBUG_FUNCPTR (gst_tn_aggregator_create_new_pad);
  gst_tn_agg_direct_class_init (klass);
  agg_class->get_next_time
      = GST_DEBUG_FUNCPTR (gst_tn_aggregator_get_next_time);

  klass->min_pads = 2;
  klass->max_pads = 0;

  gst_type_mark_as_plugin_api (GST_TYPE_TN_AGGREGATOR, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_TN_AGGREGATOR_PAD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_TN_AGGREGATOR_SYNC, 0);
}

static void
gst_tn_aggregator_init (GstTnAggregator *self)
{
  PRIV (self)->sync = DEFAULT_SYNC;
  g_mutex_init (&PRIV (self)->lock);
  g_cond_init (&PRIV (self)->resume);
  g_mutex_init (&PRIV (self)->wait_lock);
}
