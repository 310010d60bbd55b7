/* GStreamer tensor plugin: np.stack of the tensors of several streams.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensorstack
 * @title: tensorstack
 * @see_also: tensorconcat, tensorcombine, tensorview
 *
 * Stacks the tensors of its sink pads along a new axis, as numpy.stack:
 * four <480,640,3> streams with #GstTensorStack:axis=0 give <4,480,640,3>,
 * with axis=-1 <480,640,3,4>.  The output holds the pads' tensors in pad
 * order (sink_0 first).  Every pad must carry the same type and dims;
 * anything else fails negotiation with a message that names the pads,
 * their types and dims and the axis.
 *
 * Request as many pads sink_\%u as there are streams (at least two).
 * Streams are paired by running time (#GstTnAggregator:sync): with the
 * default sync=timestamp each output takes from every pad the buffer that
 * shares the most time with sink_0's buffer, so streams of equal rate pair
 * one to one; sync=latest takes the newest buffer of every other pad that
 * starts at or before it.  One output per buffer of sink_0, with its
 * timestamps; the output ends when sink_0 ends, and with sync=timestamp
 * also when another pad has ended and its last buffer shares no time with
 * the next one (see GstTnAggregator for the whole rule, live sources,
 * latency and seeking).
 *
 * The output is one dense tensor from a buffer pool, written by one copy
 * of each input: memcpy runs for axis=0, the input's strides read where
 * it is a view (the element advertises the layout meta upstream).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=2 \
 *     ! "tensor/x-raw,type=uint8,dims=<2,3>" ! s.sink_0 \
 *     tensorsrc pattern=fill value=7 num-buffers=2 \
 *     ! "tensor/x-raw,type=uint8,dims=<2,3>" ! s.sink_1 \
 *     tensorstack name=s axis=0 ! tensordebug ! fakesink
 * ]|
 * Two <2,3> streams stacked: uint8 <2,2,3>, the arange then the sevens.
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=float32,dims=<4>" ! tee name=t \
 *     t. ! queue ! s.sink_0 t. ! queue ! s.sink_1 t. ! queue ! s.sink_2 \
 *     tensorstack name=s axis=-1 ! tensordebug ! fakesink
 * ]|
 * Three copies of one stream stacked along a new last axis: float32 <4,3>.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "elements.h"
#include "tnconcat.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_stack_debug);
#define GST_CAT_DEFAULT gst_tensor_stack_debug

#define GST_TYPE_TENSOR_STACK (gst_tensor_stack_get_type ())
G_DECLARE_FINAL_TYPE (
    GstTensorStack, gst_tensor_stack, GST, TENSOR_STACK, GstTnConcat)

struct _GstTensorStack {
  GstTnConcat parent;
};

G_DEFINE_TYPE (GstTensorStack, gst_tensor_stack, GST_TYPE_TN_CONCAT);
GST_ELEMENT_REGISTER_DEFINE (
    tensorstack, "tensorstack", GST_RANK_NONE, GST_TYPE_TENSOR_STACK);

static void
gst_tensor_stack_class_init (GstTensorStackClass *klass)
{
  GstTnConcatClass *concat_class = (GstTnConcatClass *) klass;

  GST_DEBUG_CATEGORY_INIT (gst_tensor_stack_debug, "tensorstack", 0,
      "np.stack of several tensor streams");

  concat_class->new_axis = TRUE;
  /**
   * GstTensorStack:axis:
   *
   * The new axis, in the output: 0 puts the pads outermost, -1 innermost
   * (negative counts from the end of the output's axes).  For inputs of
   * rank r it must be in [-(r+1), r]; another value fails negotiation
   * with a message that gives the range (one outside [-8, 7], an axis of
   * no tensor, fails when the element starts).  Default 0.  Settable in
   * NULL and READY.
   */
  gst_tn_concat_class_install_axis (concat_class,
      "The new axis in the output, negative from the end (inputs of rank "
      "r: -(r+1) .. r)");
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "Tensor stack", "Filter/Combiner/Tensor",
      "Stacks the tensors of several streams along a new axis, as "
      "numpy.stack",
      "gst-tensor developers");
}

static void
gst_tensor_stack_init (GstTensorStack *self)
{}
