/* GStreamer tensor plugin: matrix products with NumPy matmul semantics.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensormatmul
 * @title: tensormatmul
 * @see_also: tensorsrc, npydec
 *
 * Multiplies the tensors of sink_0 (A) by B and pushes A·B (+ bias), with
 * the semantics of numpy.matmul: `[m,k] x [k,n] -> [m,n]`; a rank-1 A is a
 * row and a rank-1 B a column, and the axis that exists only for that is
 * dropped from the result; leading (batch) axes broadcast.
 *
 * B comes from exactly one place: #GstTensorMatmul:weights, a .npy file
 * loaded once and packed for the kernel once, or the request pad sink_1,
 * a second stream. The streams are paired by timestamp: each A buffer is
 * multiplied by the newest B whose timestamp is not later than its own
 * (the first B serves the A buffers before it). When sink_1 ends first,
 * its last B serves every remaining A; when sink_0 ends, so does the
 * output. Both, or neither, is an error when the element starts.
 *
 * #GstTensorMatmul:bias (a .npy file) is added as the product is written
 * out; it must broadcast over the product without growing it.
 * #GstTensorMatmul:transpose-a and #GstTensorMatmul:transpose-b read an
 * operand with its last two axes swapped, through strides, without a copy.
 *
 * Types: float32 and float64 give their own type; float16 and bfloat16
 * compute in float32 and give their own type back (rounded once); int8 x
 * int8 accumulates in int32 and gives int32, the quantized-inference case.
 * Both operands have one type. bfloat16 has no NumPy type: a bfloat16
 * stream takes float32 weights and bias files, rounded to bfloat16 when
 * loaded.
 *
 * The output dims are computed while negotiating: operands whose inner
 * extents differ fail there with a message such as "matmul needs the
 * inner extents to agree: [2,3] times [4,2], 3 against 4", after
 * "tensormatmul0: weights="w.npy" does not fit the stream: " when B is
 * the weights file.
 *
 * The product runs on a packed, cache-blocked GEMM split over
 * #GstTensorMatmul:n-threads threads by blocks of the output, never the
 * inner dimension: every thread count gives the same bits.
 *
 * With weights, once the output caps are negotiated, each A buffer is
 * multiplied and pushed by the thread that brings it, as a filter would:
 * a GstAggregator hands every buffer from the upstream thread to its own
 * source-pad task and back, and on a small tensor those two thread
 * wake-ups cost far more than the product. Events and caps changes still
 * pass through the aggregator, in order.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 tensorsrc pattern=normal seed=1 num-buffers=1 \
 *     ! "tensor/x-raw,type=float32,dims=<6,5>" ! npyenc \
 *     ! filesink location=w.npy
 * gst-launch-1.0 tensorsrc pattern=fill value=0.5 num-buffers=1 \
 *     ! "tensor/x-raw,type=float32,dims=<5>" ! npyenc \
 *     ! filesink location=b.npy
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=3 \
 *     ! "tensor/x-raw,type=float32,dims=<4,6>" \
 *     ! tensormatmul weights=w.npy bias=b.npy ! tensordebug ! fakesink
 * ]|
 * The first two lines write random weights W of dims <6,5> and a bias b
 * of dims <5>; the third applies the linear layer y = x·W + b to three
 * <4,6> tensors: float32 <4,5>.
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=2 \
 *     ! "tensor/x-raw,type=float32,dims=<3,4>" ! tee name=t \
 *     t. ! queue ! m.sink_0 \
 *     t. ! queue ! m.sink_1 \
 *     tensormatmul name=m transpose-b=true ! tensordebug ! fakesink
 * ]|
 * B from a second stream: each <3,4> tensor times its own transpose,
 * paired by timestamp: float32 <3,3>.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/base/gstaggregator.h>
#include <string.h>
#include <gst/tensor/gsttensor.h>

#include "core/gemm.h"
#include "core/half.h"
#include "core/npy.h"
#include "core/parallel.h"
#include "elements.h"
#include "tnalloc.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_matmul_debug);
#define GST_CAT_DEFAULT gst_tensor_matmul_debug

#define GST_TYPE_TENSOR_MATMUL (gst_tensor_matmul_get_type ())
G_DECLARE_FINAL_TYPE (
    GstTensorMatmul, gst_tensor_matmul, GST, TENSOR_MATMUL, GstAggregator)

enum {
  PROP_0,
  PROP_WEIGHTS,
  PROP_BIAS,
  PROP_TRANSPOSE_A,
  PROP_TRANSPOSE_B,
  PROP_N_THREADS,
};

struct _GstTensorMatmul {
  GstAggregator parent;

  GstAggregatorPad *pad_a, *pad_b; /* pad_b: the request pad, or NULL */

  /* properties (the object lock) */
  gchar *weights_path, *bias_path;
  gboolean transpose_a, transpose_b;
  gint n_threads;

  /* streaming state (the aggregator's thread) */
  gboolean have_a, have_b;
  GstTnInfo info_a, info_b, info_out;
  tn_array weights, bias;     /* as loaded (data NULL when unset) */
  tn_array weights_t, bias_t; /* converted for a bfloat16 stream */
  tn_gemm_b *packed;          /* the weights, packed once */
  tn_dtype packed_dtype;
  gboolean packed_tb;
  GstBuffer *held_b; /* the B that serves A buffers, stream mode */

  /* Weights mode: sink_0's chain multiplies and pushes itself while
   * direct is set (see chain_a). Only sink_0's streaming thread touches
   * direct, under the pad's stream lock. */
  GstPadChainFunction agg_chain; /* GstAggregatorPad's own */
  gboolean direct;

  /* GstAggregator calls stop before it stops a task that FLUSH_STOPs may
   * have restarted: run_lock keeps stop from freeing the weights under a
   * product the task is computing, and stopped turns the task's later
   * calls away. */
  GMutex run_lock;
  gboolean stopped;
};

#define DRAIN_NAME "GstTensorMatmulDrain" /* our query, see drain_a */

#define SINK_TYPES "{ float32, float64, float16, bfloat16, int8 }"
#define SRC_TYPES "{ float32, float64, float16, bfloat16, int32 }"
#define CAPS_OF(types)                                                         \
  GST_TN_MEDIA_TYPE                                                            \
  ", type=(string)" types                                                      \
  ", dims-order=(string)row-major, framerate=(fraction)[ 0/1, MAX ]"

static GstStaticPadTemplate sink_0_template = GST_STATIC_PAD_TEMPLATE ("sink_0",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (CAPS_OF (SINK_TYPES)));
static GstStaticPadTemplate sink_1_template = GST_STATIC_PAD_TEMPLATE ("sink_1",
    GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS (CAPS_OF (SINK_TYPES)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (CAPS_OF (SRC_TYPES)));

G_DEFINE_TYPE (GstTensorMatmul, gst_tensor_matmul, GST_TYPE_AGGREGATOR);
GST_ELEMENT_REGISTER_DEFINE (
    tensormatmul, "tensormatmul", GST_RANK_NONE, GST_TYPE_TENSOR_MATMUL);

/* Reads a whole .npy file with the core loader; FALSE with an element
 * error naming the property, the file and what is wrong with it. */
static gboolean
load_npy (
    GstTensorMatmul *self, const gchar *what, const gchar *path, tn_array *out)
{
  gchar *buf = NULL, *why = NULL;
  gsize len;
  GError *err = NULL;
  tn_err e;

  /* GLib reads the bytes, so an unreadable file reads as GLib says it. */
  if (!g_file_get_contents (path, &buf, &len, &err)) {
    why = g_strdup (err->message);
    g_error_free (err);
    goto fail;
  }
  if (tn_array_decode_npy (buf, len, out, &e) < 0) {
    why = g_strdup (e.msg);
    goto fail;
  }
  /* Its dims reach the output caps, which hold extents up to G_MAXINT. */
  for (gint i = 0; i < out->view.rank; i++)
    if (out->view.dims[i] > G_MAXINT) {
      why = g_strdup_printf ("axis %d has extent %" G_GINT64_FORMAT "; tensor "
                             "caps hold extents up to %d",
          i, (gint64) out->view.dims[i], G_MAXINT);
      tn_array_clear (out);
      goto fail;
    }
  g_free (buf);
  return TRUE;

fail:
  gst_tn_element_property_error (GST_ELEMENT (self), what, path, why);
  g_free (why);
  g_free (buf);
  return FALSE;
}

/* The array in dtype t: itself, or (float32 file, bfloat16 stream) a
 * rounded copy in conv. */
static const tn_array *
array_as (const tn_array *a, tn_dtype t, tn_array *conv)
{
  int64_t n;

  if (a->view.dtype != TN_FLOAT32 || t != TN_BFLOAT16)
    return a;
  if (!conv->data) {
    tn_err e;

    n = tn_view_count (&a->view);
    /* out of memory only: abort as g_malloc would */
    if (tn_array_init (conv, TN_BFLOAT16, a->view.dims, a->view.rank, &e) < 0)
      g_error ("%s", e.msg);
    for (int64_t i = 0; i < n; i++)
      ((guint16 *) conv->data)[i]
          = tn_f32_to_bf16 (((const float *) a->data)[i]);
  }
  return conv;
}

static gboolean
gst_tensor_matmul_start (GstAggregator *agg)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (agg);
  gchar *weights, *bias;
  gboolean ok = TRUE;

  if (!gst_tn_element_check_n_threads (
          GST_ELEMENT (self), g_atomic_int_get (&self->n_threads)))
    return FALSE;
  g_mutex_lock (&self->run_lock);
  self->stopped = FALSE;
  g_mutex_unlock (&self->run_lock);
  GST_OBJECT_LOCK (self);
  weights = g_strdup (self->weights_path);
  bias = g_strdup (self->bias_path);
  GST_OBJECT_UNLOCK (self);

  if (weights && self->pad_b) {
    GST_ELEMENT_ERROR (self, CORE, FAILED,
        ("tensormatmul takes B from weights='%s' or from the pad sink_1, "
         "not both: unset weights or release sink_1.",
            weights),
        (NULL));
    ok = FALSE;
  } else if (!weights && !self->pad_b) {
    GST_ELEMENT_ERROR (self, CORE, FAILED,
        ("tensormatmul has no B: set weights to a .npy file or request and "
         "link the pad sink_1."),
        (NULL));
    ok = FALSE;
  }
  if (ok && weights)
    ok = load_npy (self, "weights", weights, &self->weights);
  if (ok && bias)
    ok = load_npy (self, "bias", bias, &self->bias);
  g_free (weights);
  g_free (bias);
  return ok;
}

static gboolean
gst_tensor_matmul_stop (GstAggregator *agg)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (agg);

  g_mutex_lock (&self->run_lock);
  self->stopped = TRUE;
  tn_array_clear (&self->weights);
  tn_array_clear (&self->bias);
  tn_array_clear (&self->weights_t);
  tn_array_clear (&self->bias_t);
  g_clear_pointer (&self->packed, tn_gemm_b_free);
  gst_clear_buffer (&self->held_b);
  self->have_a = self->have_b = FALSE;
  self->direct = FALSE;
  g_mutex_unlock (&self->run_lock);
  return TRUE;
}

/* Runs on the upstream thread, before the aggregator queues the event:
 * a serialized event on sink_0 has to reach the output before the next
 * buffer, so that buffer goes through the aggregator again. */
static GstFlowReturn
gst_tensor_matmul_sink_event_pre_queue (
    GstAggregator *agg, GstAggregatorPad *pad, GstEvent *event)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (agg);

  if (pad == self->pad_a && GST_EVENT_IS_SERIALIZED (event))
    self->direct = FALSE;
  return GST_AGGREGATOR_CLASS (gst_tensor_matmul_parent_class)
      ->sink_event_pre_queue (agg, pad, event);
}

static gboolean
gst_tensor_matmul_sink_query (
    GstAggregator *agg, GstAggregatorPad *pad, GstQuery *query)
{
  const GstStructure *s = gst_query_get_structure (query);

  /* Our own drain: reaching here means all before it was handled. It is
   * not for downstream. */
  if (GST_QUERY_TYPE (query) == GST_QUERY_DRAIN && s
      && gst_structure_has_name (s, DRAIN_NAME))
    return TRUE;
  if (gst_tn_pad_accept_caps_query (GST_PAD (pad), GST_OBJECT (agg), query))
    return TRUE;
  return GST_AGGREGATOR_CLASS (gst_tensor_matmul_parent_class)
      ->sink_query (agg, pad, query);
}

static gboolean
gst_tensor_matmul_sink_event (
    GstAggregator *agg, GstAggregatorPad *pad, GstEvent *event)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (agg);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;
    GstTnInfo info;
    GError *err = NULL;
    gboolean is_a = pad == self->pad_a;

    gst_event_parse_caps (event, &caps);
    if (!gst_tn_info_from_caps (&info, caps, &err)) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Caps on %s are not a tensor: %s", GST_PAD_NAME (pad), err->message),
          (NULL));
      g_error_free (err);
      gst_event_unref (event);
      return FALSE;
    }
    if (is_a) {
      self->info_a = info;
      self->have_a = TRUE;
    } else {
      if (self->have_b && !gst_tn_info_equal (&info, &self->info_b))
        gst_clear_buffer (&self->held_b);
      self->info_b = info;
      self->have_b = TRUE;
    }
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (agg));
    /* The output caps are computed in update_src_caps: do not let the
     * default handler forward the input's. */
    gst_event_unref (event);
    return TRUE;
  }
  return GST_AGGREGATOR_CLASS (gst_tensor_matmul_parent_class)
      ->sink_event (agg, pad, event);
}

/* B's dtype and dims as negotiated: the weights file's or sink_1's. */
static gboolean
b_info (GstTensorMatmul *self, tn_dtype *t, const int64_t **dims, int *rank)
{
  if (self->weights.data) {
    *t = self->weights.view.dtype;
    if (*t == TN_FLOAT32 && self->have_a && self->info_a.dtype == TN_BFLOAT16)
      *t = TN_BFLOAT16;
    *dims = self->weights.view.dims;
    *rank = self->weights.view.rank;
    return TRUE;
  }
  if (!self->have_b)
    return FALSE;
  *t = self->info_b.dtype;
  *dims = self->info_b.dims;
  *rank = self->info_b.rank;
  return TRUE;
}

static gint
n_threads (GstTensorMatmul *self)
{
  gint n;

  GST_OBJECT_LOCK (self);
  n = self->n_threads;
  GST_OBJECT_UNLOCK (self);
  return n;
}

/* The weights packed for the kernels of the CPU level that will run: the
 * tile geometry is the level's (AVX-512's is not AVX2's), so a pack made
 * before tn_cpu_set_mask () changed the level is made again. */
static gboolean
pack_weights (GstTensorMatmul *self, tn_dtype bt, gboolean tb)
{
  const tn_array *w = array_as (&self->weights, bt, &self->weights_t);
  tn_err e;

  g_clear_pointer (&self->packed, tn_gemm_b_free);
  self->packed = tn_gemm_b_pack (n_threads (self), &w->view, w->data, tb, &e);
  if (!self->packed) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("%s", e.msg), (NULL));
    return FALSE;
  }
  self->packed_dtype = bt;
  self->packed_tb = tb;
  return TRUE;
}

/* The negotiation error for a file the user set as property prop (at
 * *path) that does not fit what (why: core's sentence). */
static void
refuse_file (GstTensorMatmul *self, const gchar *prop, gchar *const *path,
    const gchar *what, const gchar *why)
{
  gchar *p;

  GST_OBJECT_LOCK (self);
  p = g_strdup (*path);
  GST_OBJECT_UNLOCK (self);
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("%s: %s=\"%s\" does not fit %s: %s", GST_OBJECT_NAME (self), prop, p,
          what, why),
      (NULL));
  g_free (p);
}

/* The product's caps, under run_lock. */
static GstFlowReturn
product_caps (GstTensorMatmul *self, GstCaps *caps, GstCaps **ret)
{
  GstTnInfo out = { 0 };
  const int64_t *bdims;
  int brank;
  tn_dtype bt;
  gboolean ta, tb;
  tn_err e;
  GstCaps *mine;

  if (!self->have_a || !b_info (self, &bt, &bdims, &brank))
    return GST_AGGREGATOR_FLOW_NEED_DATA;
  GST_OBJECT_LOCK (self);
  ta = self->transpose_a;
  tb = self->transpose_b;
  GST_OBJECT_UNLOCK (self);

  if (tn_matmul_dtype (self->info_a.dtype, bt, &out.dtype, &e) < 0
      || tn_matmul_dims (self->info_a.dims, self->info_a.rank, ta, bdims, brank,
             tb, out.dims, &out.rank, &e)
             < 0)
    goto refused;
  if (self->bias.data) {
    const tn_array *bias = array_as (&self->bias, out.dtype, &self->bias_t);

    if (tn_matmul_check_bias (bias->view.dtype, bias->view.dims,
            bias->view.rank, out.dtype, out.dims, out.rank, &e)
        < 0) {
      refuse_file (self, "bias", &self->bias_path, "the product", e.msg);
      return GST_FLOW_NOT_NEGOTIATED;
    }
  }
  if (self->weights.data && (!self->packed || self->packed_dtype != bt)
      && !pack_weights (self, bt, tb))
    return GST_FLOW_ERROR;
  out.fps_n = self->info_a.fps_n;
  out.fps_d = self->info_a.fps_d;
  mine = gst_tn_info_to_caps (&out);
  *ret = gst_caps_intersect (mine, caps);
  if (gst_caps_is_empty (*ret)) {
    gchar *s = gst_tn_info_to_string (&out);

    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream does not accept the product %s (it accepts "
         "%" GST_PTR_FORMAT ").",
            s, caps),
        (NULL));
    g_free (s);
    gst_caps_unref (mine);
    gst_clear_caps (ret);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  gst_caps_unref (mine);
  self->info_out = out;
  return GST_FLOW_OK;

refused:
  /* With constant weights the user wrote one of the operands as a
   * property: name it and its file, as the bias message does. */
  if (self->weights.data) {
    refuse_file (self, "weights", &self->weights_path, "the stream", e.msg);
  } else {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", e.msg), (NULL));
  }
  return GST_FLOW_NOT_NEGOTIATED;
}

static GstFlowReturn
gst_tensor_matmul_update_src_caps (
    GstAggregator *agg, GstCaps *caps, GstCaps **ret)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (agg);
  GstFlowReturn flow = GST_FLOW_FLUSHING;

  g_mutex_lock (&self->run_lock);
  if (!self->stopped)
    flow = product_caps (self, caps, ret);
  g_mutex_unlock (&self->run_lock);
  return flow;
}

static gboolean
gst_tensor_matmul_decide_allocation (GstAggregator *agg, GstQuery *query)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (agg);
  GstCaps *caps;
  gsize size;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_tn_info_size (&self->info_out, &size)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Cannot size the output buffers of the product."), (NULL));
    return FALSE;
  }
  /* The helper posts the error: returning FALSE alone leaves GstAggregator
   * with a warning and no output, and the pipeline waits forever. */
  return gst_tn_element_decide_allocation (
      GST_ELEMENT (self), query, MAX (size, 1));
}

/* We read the layout meta: strided tensors are welcome on both inputs. */
static gboolean
gst_tensor_matmul_propose_allocation (GstAggregator *agg, GstAggregatorPad *pad,
    GstQuery *decide_query, GstQuery *query)
{
  gst_query_add_allocation_meta (query, GST_TN_LAYOUT_META_API_TYPE, NULL);
  return TRUE;
}

static GstAggregatorPad *
gst_tensor_matmul_create_new_pad (GstAggregator *agg, GstPadTemplate *templ,
    const gchar *req_name, const GstCaps *caps)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (agg);
  GstAggregatorPad *pad;

  if (templ->direction != GST_PAD_SINK
      || g_strcmp0 (templ->name_template, "sink_1") != 0)
    return NULL;
  GST_OBJECT_LOCK (self);
  if (self->pad_b) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "sink_1 exists already: B has one pad");
    return NULL;
  }
  pad = g_object_new (GST_TYPE_AGGREGATOR_PAD, "name", "sink_1", "direction",
      GST_PAD_SINK, "template", templ, NULL);
  gst_tn_pad_accept_intersect (GST_PAD (pad));
  self->pad_b = pad;
  GST_OBJECT_UNLOCK (self);
  return pad;
}

static void
gst_tensor_matmul_release_pad (GstElement *element, GstPad *pad)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (element);

  GST_OBJECT_LOCK (self);
  if (GST_PAD_CAST (self->pad_b) == pad)
    self->pad_b = NULL;
  GST_OBJECT_UNLOCK (self);
  GST_ELEMENT_CLASS (gst_tensor_matmul_parent_class)
      ->release_pad (element, pad);
}

static gboolean
map_input (GstTensorMatmul *self, GstTnMap *m, GstBuffer *buf,
    const GstTnInfo *info, const gchar *pad)
{
  GError *err = NULL;

  if (gst_tn_buffer_map (m, buf, info, GST_MAP_READ, &err))
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("The buffer on %s does not hold its tensor: %s", pad, err->message),
      (NULL));
  g_error_free (err);
  return FALSE;
}

static GstFlowReturn
multiply (GstTensorMatmul *self, GstBuffer *a, GstBuffer *b)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstBufferPool *pool = gst_tn_pool_activate (
      GST_OBJECT (self), gst_aggregator_get_buffer_pool (agg));
  GstTnMap ma, mb;
  GstMapInfo mo;
  GstBuffer *out = NULL;
  GstFlowReturn ret;
  tn_matmul_args args = { 0 };
  const tn_array *bias = NULL;
  gsize size;
  tn_err e;
  int rc;

  if (!map_input (self, &ma, a, &self->info_a, "sink_0")) {
    gst_clear_object (&pool);
    return GST_FLOW_ERROR;
  }
  if (b && !map_input (self, &mb, b, &self->info_b, "sink_1")) {
    gst_tn_buffer_unmap (&ma);
    gst_clear_object (&pool);
    return GST_FLOW_ERROR;
  }
  gst_tn_info_size (&self->info_out, &size);
  if (pool) {
    ret = gst_buffer_pool_acquire_buffer (pool, &out, NULL);
    gst_object_unref (pool);
    if (ret != GST_FLOW_OK)
      goto done;
  } else {
    GstAllocator *alloc = gst_tn_allocator_get ();

    out = gst_buffer_new_allocate (alloc, MAX (size, 1), NULL);
    gst_object_unref (alloc);
  }
  gst_buffer_set_size (out, size);
  gst_buffer_map (out, &mo, GST_MAP_WRITE);

  args.a = &ma.view;
  args.a_base = ma.data;
  GST_OBJECT_LOCK (self);
  args.ta = self->transpose_a;
  args.tb = self->transpose_b;
  args.nthreads = self->n_threads;
  GST_OBJECT_UNLOCK (self);
  if (b) {
    args.b = &mb.view;
    args.b_base = mb.data;
  } else {
    if (!tn_gemm_b_current (self->packed)
        && !pack_weights (self, self->packed_dtype, self->packed_tb)) {
      gst_buffer_unmap (out, &mo);
      gst_clear_buffer (&out);
      ret = GST_FLOW_ERROR;
      goto done;
    }
    args.packed_b = self->packed;
  }
  if (self->bias.data) {
    bias = array_as (&self->bias, self->info_out.dtype, &self->bias_t);
    args.bias = &bias->view;
    args.bias_base = bias->data;
  }
  args.out = mo.data;
  rc = tn_matmul (&args, &e);
  gst_buffer_unmap (out, &mo);
  if (rc < 0) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", e.msg), (NULL));
    gst_clear_buffer (&out);
    ret = GST_FLOW_ERROR;
    goto done;
  }
  GST_BUFFER_PTS (out) = GST_BUFFER_PTS (a);
  GST_BUFFER_DTS (out) = GST_BUFFER_DTS (a);
  GST_BUFFER_DURATION (out) = GST_BUFFER_DURATION (a);
  GST_BUFFER_OFFSET (out) = GST_BUFFER_OFFSET (a);
  GST_BUFFER_OFFSET_END (out) = GST_BUFFER_OFFSET_END (a);
  ret = GST_FLOW_OK;

done:
  gst_tn_buffer_unmap (&ma);
  if (b)
    gst_tn_buffer_unmap (&mb);
  if (ret == GST_FLOW_OK) {
    GstSegment *seg = &GST_AGGREGATOR_PAD (agg->srcpad)->segment;

    if (GST_BUFFER_PTS_IS_VALID (out)) {
      /* position queries read it from other threads */
      GST_OBJECT_LOCK (self);
      seg->position
          = GST_BUFFER_PTS (out)
            + (GST_BUFFER_DURATION_IS_VALID (out) ? GST_BUFFER_DURATION (out)
                                                  : 0);
      GST_OBJECT_UNLOCK (self);
    }
    ret = gst_aggregator_finish_buffer (agg, out);
  }
  return ret;
}

/* Waits until the aggregator has handled everything sink_0 handed it
 * (events, buffers): a serialized query queues behind them and the
 * upstream thread waits for it. FALSE when the pad is flushing or failed. */
static gboolean
drain_a (GstTensorMatmul *self)
{
  GstQuery *q = gst_query_new_custom (
      GST_QUERY_DRAIN, gst_structure_new_empty (DRAIN_NAME));
  gboolean ok = gst_pad_query (GST_PAD (self->pad_a), q);

  gst_query_unref (q);
  return ok;
}

/* sink_0's chain. With weights it multiplies on this thread when nothing
 * is queued in the aggregator and the output caps stand; otherwise, and
 * with a second stream, the buffer goes the aggregator's way. */
static GstFlowReturn
gst_tensor_matmul_chain_a (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (parent);
  GstPad *src = GST_AGGREGATOR_SRC_PAD (self);
  GstFlowReturn ret;

  if (!self->weights.data)
    return self->agg_chain (pad, parent, buf);
  if (!self->direct) {
    gboolean signals;

    /* One hand-off to leave the aggregator's path; the buffer that
     * negotiates still takes it (the source-pad task negotiates). */
    g_object_get (pad, "emit-signals", &signals, NULL);
    if (signals || !drain_a (self) || !gst_pad_has_current_caps (src)
        || gst_pad_needs_reconfigure (src))
      return self->agg_chain (pad, parent, buf);
    self->direct = TRUE;
  } else if (gst_pad_needs_reconfigure (src)) {
    self->direct = FALSE;
    return self->agg_chain (pad, parent, buf);
  }
  ret = multiply (self, buf, NULL);
  gst_buffer_unref (buf);
  return ret;
}

static gboolean
is_gap (GstBuffer *buf)
{
  return GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)
         && gst_buffer_get_size (buf) == 0;
}

/* Whether b is not later than a (untimed buffers pair in order). */
static gboolean
not_later (GstBuffer *b, GstBuffer *a)
{
  if (!GST_BUFFER_PTS_IS_VALID (a) || !GST_BUFFER_PTS_IS_VALID (b))
    return TRUE;
  return GST_BUFFER_PTS (b) <= GST_BUFFER_PTS (a);
}

/* One output of the aggregator's task, under run_lock. */
static GstFlowReturn
aggregate_one (GstTensorMatmul *self)
{
  GstAggregatorPad *pad_b;
  GstBuffer *a, *b;
  GstFlowReturn ret;

  a = gst_aggregator_pad_peek_buffer (self->pad_a);
  if (!a)
    return gst_aggregator_pad_is_eos (self->pad_a) ? GST_FLOW_EOS : GST_FLOW_OK;
  /* GstAggregator turns a GAP event into an empty buffer flagged GAP:
   * there is no tensor to multiply, nor one to pair with. */
  if (is_gap (a)) {
    gst_aggregator_pad_drop_buffer (self->pad_a);
    gst_buffer_unref (a);
    return GST_FLOW_OK;
  }
  if (!self->weights.data) {
    /* release_pad clears pad_b on the application's thread and the pad
     * goes with the release: one reference for this call. */
    GST_OBJECT_LOCK (self);
    pad_b = self->pad_b ? gst_object_ref (self->pad_b) : NULL;
    GST_OBJECT_UNLOCK (self);
    b = pad_b ? gst_aggregator_pad_peek_buffer (pad_b) : NULL;
    if (b && is_gap (b)) {
      gst_aggregator_pad_drop_buffer (pad_b);
      gst_clear_buffer (&b);
    }
    if (b && (!self->held_b || not_later (b, a))) {
      /* b is the newest B for a: keep it; when it is strictly earlier a
       * later B may still fit a, so wait for the next one. */
      gboolean wait = self->held_b || GST_BUFFER_PTS_IS_VALID (b);

      wait = wait && GST_BUFFER_PTS_IS_VALID (a) && GST_BUFFER_PTS_IS_VALID (b)
             && GST_BUFFER_PTS (b) < GST_BUFFER_PTS (a);
      gst_clear_buffer (&self->held_b);
      self->held_b = b;
      gst_aggregator_pad_drop_buffer (pad_b);
      if (wait) {
        gst_object_unref (pad_b);
        gst_buffer_unref (a);
        return GST_FLOW_OK;
      }
    } else {
      gst_clear_buffer (&b);
      if (!self->held_b) {
        if (pad_b && !gst_aggregator_pad_is_eos (pad_b)) {
          gst_object_unref (pad_b);
          gst_buffer_unref (a);
          return GST_FLOW_OK; /* live timeout before the first B */
        }
        GST_ELEMENT_ERROR (self, STREAM, FAILED,
            ("sink_1 ended before its first tensor: the buffer at "
             "%" GST_TIME_FORMAT " on sink_0 has no B to be multiplied by.",
                GST_TIME_ARGS (GST_BUFFER_PTS (a))),
            (NULL));
        gst_clear_object (&pad_b);
        gst_buffer_unref (a);
        return GST_FLOW_ERROR;
      }
    }
    gst_clear_object (&pad_b);
  }
  /* Two streams: A leaves the queue before it is multiplied (we hold our
   * reference), so its upstream thread, woken now, makes its next buffer
   * while this one is multiplied and pushed, as audiomixer lets its
   * inputs go before it pushes.  The output is the same.  With weights
   * this path is the exception (see chain_a) and keeps the order drain_a
   * was written against. */
  if (!self->weights.data)
    gst_aggregator_pad_drop_buffer (self->pad_a);
  ret = multiply (self, a, self->weights.data ? NULL : self->held_b);
  if (self->weights.data)
    gst_aggregator_pad_drop_buffer (self->pad_a);
  gst_buffer_unref (a);
  return ret;
}

static GstFlowReturn
gst_tensor_matmul_aggregate (GstAggregator *agg, gboolean timeout)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (agg);
  GstFlowReturn ret = GST_FLOW_FLUSHING;

  g_mutex_lock (&self->run_lock);
  if (!self->stopped)
    ret = aggregate_one (self);
  g_mutex_unlock (&self->run_lock);
  return ret;
}

static GstClockTime
gst_tensor_matmul_get_next_time (GstAggregator *agg)
{
  /* With weights a timeout has nothing to produce: A buffers multiplied
   * on the upstream thread never reach the queue, so a live deadline
   * would wake the task for nothing, and spin it once the position stops
   * advancing (buffers without a duration). */
  if (GST_TENSOR_MATMUL (agg)->weights.data)
    return GST_CLOCK_TIME_NONE;
  return gst_aggregator_simple_get_next_time (agg);
}

static void
gst_tensor_matmul_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (object);

  GST_OBJECT_LOCK (self);
  if (prop_id != PROP_N_THREADS && GST_STATE (self) > GST_STATE_READY) {
    GST_OBJECT_UNLOCK (self);
    g_warning ("tensormatmul: %s can only change in the NULL or READY "
               "state; the element is running, the old value is kept",
        pspec->name);
    return;
  }
  switch (prop_id) {
  case PROP_WEIGHTS:
    g_free (self->weights_path);
    self->weights_path = g_value_dup_string (value);
    break;
  case PROP_BIAS:
    g_free (self->bias_path);
    self->bias_path = g_value_dup_string (value);
    break;
  case PROP_TRANSPOSE_A:
    self->transpose_a = g_value_get_boolean (value);
    break;
  case PROP_TRANSPOSE_B:
    self->transpose_b = g_value_get_boolean (value);
    break;
  case PROP_N_THREADS:
    GST_OBJECT_UNLOCK (self);
    gst_tn_element_set_n_threads (GST_ELEMENT (self), &self->n_threads, value);
    return;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_matmul_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_WEIGHTS:
    g_value_set_string (value, self->weights_path);
    break;
  case PROP_BIAS:
    g_value_set_string (value, self->bias_path);
    break;
  case PROP_TRANSPOSE_A:
    g_value_set_boolean (value, self->transpose_a);
    break;
  case PROP_TRANSPOSE_B:
    g_value_set_boolean (value, self->transpose_b);
    break;
  case PROP_N_THREADS:
    g_value_set_int (value, g_atomic_int_get (&self->n_threads));
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_matmul_finalize (GObject *object)
{
  GstTensorMatmul *self = GST_TENSOR_MATMUL (object);

  g_free (self->weights_path);
  g_free (self->bias_path);
  gst_tensor_matmul_stop (GST_AGGREGATOR (self));
  g_mutex_clear (&self->run_lock);
  G_OBJECT_CLASS (gst_tensor_matmul_parent_class)->finalize (object);
}

static void
gst_tensor_matmul_class_init (GstTensorMatmulClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (
      gst_tensor_matmul_debug, "tensormatmul", 0, "tensor matrix product");

  gobject_class->set_property = gst_tensor_matmul_set_property;
  gobject_class->get_property = gst_tensor_matmul_get_property;
  gobject_class->finalize = gst_tensor_matmul_finalize;

  g_object_class_install_property (gobject_class, PROP_WEIGHTS,
      g_param_spec_string ("weights", "Weights",
          "A .npy file holding B, loaded and packed once when the element "
          "starts (NULL: B comes from the pad sink_1)",
          NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_BIAS,
      g_param_spec_string ("bias", "Bias",
          "A .npy file added to the product, broadcast over it, as it is "
          "written out (NULL: none)",
          NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_TRANSPOSE_A,
      g_param_spec_boolean ("transpose-a", "Transpose A",
          "Read A with its last two axes swapped (no copy)", FALSE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_TRANSPOSE_B,
      g_param_spec_boolean ("transpose-b", "Transpose B",
          "Read B with its last two axes swapped (no copy)", FALSE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (
      gobject_class, PROP_N_THREADS, gst_tn_param_spec_n_threads ());

  gst_element_class_add_static_pad_template_with_gtype (
      element_class, &sink_0_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (
      element_class, &sink_1_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (
      element_class, &src_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_set_static_metadata (element_class, "Tensor matmul",
      "Filter/Converter/Tensor",
      "Matrix product of a tensor stream with NumPy matmul semantics, B from "
      "a .npy file or a second stream",
      "gst-tensor developers");

  element_class->release_pad
      = GST_DEBUG_FUNCPTR (gst_tensor_matmul_release_pad);
  agg_class->start = GST_DEBUG_FUNCPTR (gst_tensor_matmul_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_tensor_matmul_stop);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_tensor_matmul_sink_event);
  agg_class->update_src_caps
      = GST_DEBUG_FUNCPTR (gst_tensor_matmul_update_src_caps);
  agg_class->decide_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_matmul_decide_allocation);
  agg_class->propose_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_matmul_propose_allocation);
  agg_class->create_new_pad
      = GST_DEBUG_FUNCPTR (gst_tensor_matmul_create_new_pad);
  agg_class->aggregate = GST_DEBUG_FUNCPTR (gst_tensor_matmul_aggregate);
  agg_class->get_next_time
      = GST_DEBUG_FUNCPTR (gst_tensor_matmul_get_next_time);
  agg_class->sink_event_pre_queue
      = GST_DEBUG_FUNCPTR (gst_tensor_matmul_sink_event_pre_queue);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_tensor_matmul_sink_query);
}

static void
gst_tensor_matmul_init (GstTensorMatmul *self)
{
  GstPadTemplate *templ = gst_static_pad_template_get (&sink_0_template);

  self->n_threads = GST_TN_N_THREADS_DEFAULT;
  g_mutex_init (&self->run_lock);
  self->stopped = TRUE;
  self->pad_a = g_object_new (GST_TYPE_AGGREGATOR_PAD, "name", "sink_0",
      "direction", GST_PAD_SINK, "template", templ, NULL);
  gst_object_unref (templ);
  gst_tn_pad_accept_intersect (GST_PAD (self->pad_a));
  self->agg_chain = GST_PAD_CHAINFUNC (self->pad_a);
  gst_pad_set_chain_function (
      GST_PAD (self->pad_a), GST_DEBUG_FUNCPTR (gst_tensor_matmul_chain_a));
  gst_element_add_pad (GST_ELEMENT (self), GST_PAD (self->pad_a));
}
