/* GStreamer tensor plugin: np.concatenate of the tensors of several streams.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensorconcat
 * @title: tensorconcat
 * @see_also: tensorstack, tensorcombine, tensorview
 *
 * Joins the tensors of its sink pads along an existing axis, as
 * numpy.concatenate: a <2,3> and a <4,3> stream with
 * #GstTensorConcat:axis=0 give <6,3>; two <2,3> streams with axis=-1 give
 * <2,6>.  The output holds the pads' tensors in pad order (sink_0 first).
 * Every pad must carry the same type and rank, and the same extent on
 * every axis but the joined one; anything else fails negotiation with a
 * message that names the pads, their types and dims and the axis.
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
 *     ! "tensor/x-raw,type=int16,dims=<2,3>" ! c.sink_0 \
 *     tensorsrc pattern=fill value=-1 num-buffers=2 \
 *     ! "tensor/x-raw,type=int16,dims=<4,3>" ! c.sink_1 \
 *     tensorconcat name=c axis=0 ! tensordebug ! fakesink
 * ]|
 * A <2,3> and a <4,3> stream joined along the first axis: int16 <6,3>.
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=float32,dims=<2,3>" ! tee name=t \
 *     t. ! queue ! c.sink_0 t. ! queue ! c.sink_1 \
 *     tensorconcat name=c axis=-1 ! npyenc ! filesink location=c.npy
 * ]|
 * One stream joined with itself along the last axis, written as a .npy
 * file: float32 <2,6>.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "elements.h"
#include "tnconcat.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_concat_debug);
#define GST_CAT_DEFAULT gst_tensor_concat_debug

#define GST_TYPE_TENSOR_CONCAT (gst_tensor_concat_get_type ())
G_DECLARE_FINAL_TYPE (
    GstTensorConcat, gst_tensor_concat, GST, TENSOR_CONCAT, GstTnConcat)

struct _GstTensorConcat {
  GstTnConcat parent;
};

G_DEFINE_TYPE (GstTensorConcat, gst_tensor_concat, GST_TYPE_TN_CONCAT);
GST_ELEMENT_REGISTER_DEFINE (
    tensorconcat, "tensorconcat", GST_RANK_NONE, GST_TYPE_TENSOR_CONCAT);

static void
gst_tensor_concat_class_init (GstTensorConcatClass *klass)
{
  GstTnConcatClass *concat_class = (GstTnConcatClass *) klass;

  GST_DEBUG_CATEGORY_INIT (gst_tensor_concat_debug, "tensorconcat", 0,
      "np.concatenate of several tensor streams");

  concat_class->new_axis = FALSE;
  /**
   * GstTensorConcat:axis:
   *
   * The axis the tensors are joined along (negative counts from the
   * end).  For inputs of rank r it must be in [-r, r-1]; another value
   * fails negotiation with a message that gives the range (one outside
   * [-8, 7], an axis of no tensor, fails when the element starts).
   * Default 0.  Settable in NULL and READY.
   */
  gst_tn_concat_class_install_axis (concat_class,
      "The axis the tensors are joined along, negative from the end (inputs "
      "of rank r: -r .. r-1)");
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "Tensor concat", "Filter/Combiner/Tensor",
      "Joins the tensors of several streams along an existing axis, as "
      "numpy.concatenate",
      "gst-tensor developers");
}

static void
gst_tensor_concat_init (GstTensorConcat *self)
{}
