/* GstTnAggregator: the base of every element with several tensor sink
 * pads (tensorstack, tensorconcat, tensorcombine); not installed.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What the base owns, so that no subclass does it again:
 *
 * - request sink pads sink_%u (GstTnAggregatorPad) and the src pad, from
 *   the templates gst_tn_aggregator_class_add_pad_templates() adds; at
 *   least klass->min_pads of them linked when the element goes to PAUSED,
 *   else an element error that names the pads there are;
 * - the caps: each sink pad's tensor/x-raw caps read with
 *   gst_tn_info_from_caps (errors name the pad), accept-caps and CAPS
 *   queries through the shared helpers of tnelement.h; the output caps
 *   from the subclass's negotiate(), recomputed whenever caps change on
 *   any pad and when pads come or go;
 * - pairing by running time (the "sync" property, GstTnAggregatorSync),
 *   live sources and latency as GstAggregator does, EOS, flushing seeks;
 * - allocation: the layout meta advertised upstream (inputs may be
 *   strided views), output buffers from the negotiated pool;
 * - the output's timestamps: those of the sink_0 buffer it answers.
 *
 * A subclass fills negotiate() and combine() and nothing else of
 * GstAggregator's (it may chain up start/stop for its own state).
 *
 * Pad order is the order of the pads' numbers (sink_0, sink_1, sink_3
 * after sink_2 was released); "sink_0" below means the first pad in that
 * order, the one whose buffers drive the output.
 */
#ifndef GST_TN_AGG_H
#define GST_TN_AGG_H

#include <gst/base/gstaggregator.h>
#include <gst/gst.h>
#include <gst/tensor/gsttensor.h>

G_BEGIN_DECLS

/* The values of the "sync" property.
 * TIMESTAMP (the default): each output answers one buffer of sink_0,
 *   spanning running time [T, T + duration); every other pad gives the
 *   buffer whose span shares the most time with it (a buffer ends at its
 *   duration, else where its next buffer starts).  Streams of equal rate
 *   pair one to one.  A sink_0 buffer that no buffer of some pad shares
 *   time with (that pad starts later) gives no output.
 * LATEST: one output per buffer of sink_0; every other pad gives its most
 *   recent buffer that starts at or before T, and once it has delivered
 *   one it is never waited on beyond what GstAggregator itself waits
 *   (see the SECTION docs of tnagg.c). */
typedef enum {
  GST_TN_AGGREGATOR_SYNC_TIMESTAMP,
  GST_TN_AGGREGATOR_SYNC_LATEST,
} GstTnAggregatorSync;

#define GST_TYPE_TN_AGGREGATOR_SYNC (gst_tn_aggregator_sync_get_type ())
GType gst_tn_aggregator_sync_get_type (void);

/* The sink pads' type; its state is the base's. */
#define GST_TYPE_TN_AGGREGATOR_PAD (gst_tn_aggregator_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstTnAggregatorPad, gst_tn_aggregator_pad, GST,
    TN_AGGREGATOR_PAD, GstAggregatorPad)

#define GST_TYPE_TN_AGGREGATOR (gst_tn_aggregator_get_type ())
G_DECLARE_DERIVABLE_TYPE (
    GstTnAggregator, gst_tn_aggregator, GST, TN_AGGREGATOR, GstAggregator)

/* One sink pad as the subclass sees it, in pad order.  The base owns every
 * field and keeps them valid for the duration of one vfunc call. */
typedef struct {
  GstTnAggregatorPad *pad; /* the sink pad */
  const gchar *name;       /* its name, "sink_0", for messages */
  guint index;             /* its place in pad order: 0 for sink_0 */
  GstTnInfo info;          /* its tensor as its current caps say */
  /* combine() only (NULL / zero in negotiate()): */
  GstBuffer *buffer; /* the buffer paired for this output; the base holds
                      * the reference (see gst_tn_aggregator_take_in_place) */
  tn_view view;      /* dtype and dims of info; offset and strides (items)
                      * of the buffer's layout meta, dense when it has none;
                      * checked to stay inside the buffer */
} GstTnAggInput;

struct _GstTnAggregatorClass {
  GstAggregatorClass parent_class;

  /* Fewest and most sink pads the element works with (class_init sets
   * them; the defaults are 2 and 0, no limit).  Fewer linked pads than
   * min_pads is an element error when the element goes to PAUSED; a
   * request beyond max_pads is refused with a warning. */
  guint min_pads, max_pads;

  /* Computes the output tensor from the inputs' (n of them, pad order,
   * n >= min_pads; buffer and view are unset).  Fills *out (dtype, rank,
   * dims; the framerate is the base's: sink_0's) and returns TRUE, or
   * returns FALSE with *err set (domain GST_CORE_ERROR,
   * GST_CORE_ERROR_NEGOTIATION) whose message names the pads, their dims
   * and types and the axis, e.g.
   *   "sink_1 has float32 <2, 4> but sink_0 has float32 <2, 3>: tensorstack
   *    needs equal dims (axis=0)".
   * The base posts it as an element error and fails negotiation.  Called
   * on the aggregator's thread, whenever caps changed on any pad or pads
   * came or went; the subclass may keep what it derives (strides, a plan)
   * for combine(), which is called only after a negotiate() that
   * succeeded and with the same infos. */
  gboolean (*negotiate) (GstTnAggregator *self, guint n,
      const GstTnAggInput *in, GstTnInfo *out, GError **err);

  /* Produces the output for one set of paired buffers: in[0..n-1], pad
   * order, each with its buffer and view; out_info is what negotiate()
   * gave.  Sets *out to a buffer holding out_info's tensor, dense: from
   * gst_tn_aggregator_alloc_output() or, when the subclass writes in
   * place, gst_tn_aggregator_take_in_place().  The base then sets its
   * timestamps, offsets and duration (sink_0's) and pushes it.  On
   * failure posts an element error (gst_tn_aggregator_map_input() does
   * for a buffer it cannot map) and returns GST_FLOW_ERROR, or returns
   * the flow of a failed allocation.  Called on the aggregator's thread
   * or on the upstream thread whose buffer completed the set (tnagg.c,
   * "Threads"), with the base's lock held: never two at once, nor beside
   * negotiate(). */
  GstFlowReturn (*combine) (GstTnAggregator *self, guint n, GstTnAggInput *in,
      const GstTnInfo *out_info, GstBuffer **out);

  gpointer _gst_reserved[GST_PADDING];
};

/* For class_init: the request template sink_%u and the always template
 * src, with the given caps (NULL: any tensor, GST_TN_CAPS_ANY).  The caps
 * are not taken. */
void gst_tn_aggregator_class_add_pad_templates (
    GstTnAggregatorClass *klass, GstCaps *sink_caps, GstCaps *src_caps);

/* A dense output buffer of the negotiated output size, from the pool
 * decide_allocation chose (activated on first use) or, without one, from
 * the tensor allocator.  GST_FLOW_OK and *out set, else the pool's flow
 * (flushing while a seek stops the element) and *out NULL. */
GstFlowReturn gst_tn_aggregator_alloc_output (
    GstTnAggregator *self, GstBuffer **out);

/* For combine(): in's buffer itself, to be written in place and given as
 * the output, when that is safe and fits: in is sink_0's (the only
 * buffer the base gives one output only), nobody else holds the buffer or
 * its memory (after a tee another branch sees it: never), its memory is
 * writable and aligned for the dtype, it is dense from byte 0 and its
 * dtype and dims are out_info's.
 * The reference passes to the caller and in->buffer becomes NULL.  NULL
 * when any of that fails; the caller then allocates. */
GstBuffer *gst_tn_aggregator_take_in_place (
    GstTnAggregator *self, GstTnAggInput *in, const GstTnInfo *out_info);

/* Maps in's buffer (gst_tn_buffer_map: the layout meta read, an aligned
 * copy for memory that is not aligned for the dtype).  FALSE after an
 * element error that names the pad and why. */
gboolean gst_tn_aggregator_map_input (GstTnAggregator *self,
    const GstTnAggInput *in, GstTnMap *m, GstMapFlags flags);

/* The "sync" property's value (takes the object lock). */
GstTnAggregatorSync gst_tn_aggregator_get_sync (GstTnAggregator *self);

G_END_DECLS

#endif
