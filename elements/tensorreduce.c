/* GStreamer tensor plugin: reductions along axes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensorreduce
 * @title: tensorreduce
 * @see_also: tensorop, tensorsrc, tensordebug
 *
 * Reduces every tensor along some of its axes: sum, mean, product,
 * minimum, maximum, the index of the minimum or maximum, the L2 norm, the
 * variance or the standard deviation, as NumPy's `a.sum(axis=...)` and
 * friends do.
 *
 * #GstTensorReduce:axes lists the axes, comma-separated, negative ones
 * counting from the end (`axes="0,1"`, `axes="-1"`); empty (the default)
 * reduces every axis.  #GstTensorReduce:keepdims keeps the reduced axes
 * with extent 1.  The output caps carry the reduced dims and the result
 * type, and negotiation works both ways, so capsfilters fit on either
 * side: upstream is offered first the input dims and types that make the
 * dims and type downstream asks for (then any tensor, so that an
 * impossible combination fails here, with the reason).
 *
 * ## Result types
 *
 * `sum` and `prod` of float16/bfloat16 give float32, of bool and signed
 * integers int64, of unsigned integers uint64 (integer sums and products
 * wrap modulo 2^64, as NumPy's); of float32/float64 their own type.
 * `mean`, `l2`, `var` and `std` of bool and integers give float64 and
 * keep a float type.  `min` and `max` keep the type; `argmin` and
 * `argmax` give int64: the index in row-major order of the reduced axes
 * of the first extreme, or of the first NaN if there is one, as NumPy.
 *
 * ## Deterministic to the bit
 *
 * Floating-point reductions add in a fixed order that depends on the
 * number of reduced items alone (blocks of 1024 items, 32 interleaved
 * lanes per block, everything left to right, in float64; see
 * core/reduce.h), never on #GstTensorReduce:n-threads, on the CPU's vector
 * unit or on the input's strides: every run gives the same bits.  A float32
 * sum is within 9.6e-7 (relative) of the exact sum for items of one sign.
 *
 * NaN propagates through every reduction, and every NaN result is the
 * one quiet NaN (+, payload 0) whatever NaN came in, so that a view and
 * its dense copy agree to the bit; `min` and `max` order -0.0 below
 * +0.0.  Over an axis of extent 0, `sum` gives 0, `prod` 1 and `l2`
 * 0; the other reductions have no value there and negotiation fails with
 * a message naming the axis.  `var` and `std` divide by
 * max(n - #GstTensorReduce:ddof, 0), as NumPy: inf (or NaN) when ddof
 * leaves no degrees of freedom.  A negative ddof, or a
 * #GstTensorReduce:max-message-items outside 0..65536, is an error when
 * the element goes to PAUSED (set while it runs, a warning that keeps the
 * value in use).
 *
 * ## Memory
 *
 * Strided input (with the layout meta) is read where it is: tensorreduce
 * advertises the meta, and a permuted view (the CHW view of an HWC frame)
 * is reduced in its memory order.  A dense copy is made first only when
 * no output's reduced items are one contiguous run and the last kept axis
 * is not contiguous in memory, or is narrower than 16 items over reduced
 * rows that are not dense (a slice reduced over its height and width).
 * Output tensors come from a tensor buffer pool.  A buffer whose size does
 * not match its caps is an element error that gives both sizes.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 tensorsrc pattern=uniform low=0 high=256 num-buffers=10 \
 *     ! "tensor/x-raw,type=uint8,dims=<480,640,3>" \
 *     ! tensorreduce op=mean axes=0,1 ! tensordebug ! fakesink
 * ]| The mean of each colour channel of every frame: float64 <3>.
 * |[
 * gst-launch-1.0 tensorsrc pattern=normal num-buffers=1 \
 *     ! "tensor/x-raw,type=float32,dims=<8,1000>" \
 *     ! tensorreduce op=argmax axes=-1 ! tensordebug ! fakesink
 * ]| The class with the highest score in each of 8 rows: int64 <8>.
 * |[
 * gst-launch-1.0 tensorsrc pattern=normal num-buffers=1 \
 *     ! "tensor/x-raw,dims=<4,100>" ! tensorreduce op=std axes=-1 ddof=1 \
 *     ! "tensor/x-raw,type=float16" ! tensordebug ! fakesink
 * ]| Capsfilters on both sides: the dims come from upstream's, the type
 * from downstream's (std keeps a float type, so tensorsrc is asked for
 * float16): the sample standard deviation of each row, float16 <4>.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/base/gstbasetransform.h>
#include <gst/tensor/gsttensor.h>

#include "core/reduce.h"
#include "elements.h"
#include "tnalloc.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_reduce_debug);
#define GST_CAT_DEFAULT gst_tensor_reduce_debug

#define GST_TYPE_TENSOR_REDUCE (gst_tensor_reduce_get_type ())
G_DECLARE_FINAL_TYPE (
    GstTensorReduce, gst_tensor_reduce, GST, TENSOR_REDUCE, GstBaseTransform)

#define GST_TYPE_TENSOR_REDUCE_OP (gst_tensor_reduce_op_get_type ())

#define DEFAULT_OP TN_REDUCE_SUM
#define DEFAULT_AXES ""
#define DEFAULT_KEEPDIMS FALSE
#define DEFAULT_DDOF 0
/* max-message-items is 0 to this */
#define MAX_MESSAGE_ITEMS 65536

enum {
  PROP_0,
  PROP_OP,
  PROP_AXES,
  PROP_KEEPDIMS,
  PROP_DDOF,
  PROP_N_THREADS,
  PROP_POST_MESSAGES,
  PROP_MAX_MESSAGE_ITEMS,
};

struct _GstTensorReduce {
  GstBaseTransform parent;

  /* properties, under the object lock */
  tn_reduce_op op;
  tn_axes axes;
  gchar *axes_text;
  gchar *axes_error; /* why axes_text cannot be used, or NULL */
  gboolean keepdims;
  gint ddof;
  gint n_threads;
  gboolean post_messages;
  gint max_message_items;

  /* streaming thread: what set_caps settled */
  gboolean configured;
  gboolean caps_error; /* set_caps posted why it failed */
  GstTnInfo in_info, out_info;
  tn_reduce_op cur_op;
  uint32_t mask;
  gsize out_size;
  GstCaps *refused; /* input caps of the last error posted */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

G_DEFINE_TYPE (GstTensorReduce, gst_tensor_reduce, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (
    tensorreduce, "tensorreduce", GST_RANK_NONE, GST_TYPE_TENSOR_REDUCE);

static GType
gst_tensor_reduce_op_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { TN_REDUCE_SUM, "Sum", "sum" },
    { TN_REDUCE_MEAN, "Arithmetic mean", "mean" },
    { TN_REDUCE_PROD, "Product", "prod" },
    { TN_REDUCE_MIN, "Minimum", "min" },
    { TN_REDUCE_MAX, "Maximum", "max" },
    { TN_REDUCE_ARGMIN, "Index of the first minimum (int64)", "argmin" },
    { TN_REDUCE_ARGMAX, "Index of the first maximum (int64)", "argmax" },
    { TN_REDUCE_L2, "Square root of the sum of squares", "l2" },
    { TN_REDUCE_VAR, "Variance (divided by n - ddof)", "var" },
    { TN_REDUCE_STD, "Standard deviation (square root of var)", "std" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTensorReduceOp", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

/* Negotiation. */

/* The types a structure allows, as a mask over tn_dtype. */
static guint
gst_tensor_reduce_type_mask (const GstStructure *s)
{
  const GValue *v = gst_structure_get_value (s, "type");
  guint mask = 0, i;
  tn_dtype t;

  if (v == NULL)
    return (1u << TN_NDTYPES) - 1;
  if (G_VALUE_HOLDS_STRING (v)) {
    if (tn_dtype_from_name (g_value_get_string (v), &t, NULL) == 0)
      mask = 1u << t;
  } else if (GST_VALUE_HOLDS_LIST (v)) {
    for (i = 0; i < gst_value_list_get_size (v); i++) {
      const GValue *x = gst_value_list_get_value (v, i);

      if (G_VALUE_HOLDS_STRING (x)
          && tn_dtype_from_name (g_value_get_string (x), &t, NULL) == 0)
        mask |= 1u << t;
    }
  }
  return mask;
}

/* Sets the types of mask, those of first (a subset) leading the list:
 * fixation takes the first. */
static void
gst_tensor_reduce_set_type_mask (GstStructure *s, guint mask, guint first)
{
  GValue list = G_VALUE_INIT, item = G_VALUE_INIT;
  gint t, n = 0, pass;

  for (t = 0; t < TN_NDTYPES; t++)
    n += (mask >> t) & 1;
  if (n == 1) {
    for (t = 0; !((mask >> t) & 1); t++)
      ;
    gst_structure_set (s, "type", G_TYPE_STRING, tn_dtype_name (t), NULL);
    return;
  }
  g_value_init (&list, GST_TYPE_LIST);
  g_value_init (&item, G_TYPE_STRING);
  for (pass = 0; pass < 2; pass++) {
    for (t = 0; t < TN_NDTYPES; t++) {
      if (!((mask >> t) & 1) || ((first >> t) & 1) != (guint) (pass == 0))
        continue;
      g_value_set_static_string (&item, tn_dtype_name (t));
      gst_value_list_append_value (&list, &item);
    }
  }
  gst_structure_take_value (s, "type", &list);
  g_value_unset (&item);
}

static void
gst_tensor_reduce_append_int (GValue *arr, gint v)
{
  GValue x = G_VALUE_INIT;

  g_value_init (&x, G_TYPE_INT);
  g_value_set_int (&x, v);
  gst_value_array_append_and_take_value (arr, &x);
}

/* Output dims of a structure's input dims (entries may be ranges); FALSE
 * when the axes or the extents refuse them.  *out is left unset when the
 * output dims cannot be told (input dims unknown). */
static gboolean
gst_tensor_reduce_dims_forward (
    GstTensorReduce *self, const GstStructure *s, GValue *out)
{
  const GValue *dv = gst_structure_get_value (s, "dims");
  gint64 dims[TN_MAX_RANK], odims[TN_MAX_RANK];
  gint rank, orank;
  uint32_t mask;
  guint i;

  if (dv == NULL || !GST_VALUE_HOLDS_ARRAY (dv)) {
    if (self->axes.n == 0 && !self->keepdims)
      g_value_init (out, GST_TYPE_ARRAY); /* every axis: a scalar */
    return TRUE;
  }
  rank = (gint) gst_value_array_get_size (dv);
  if (rank > TN_MAX_RANK || tn_axes_mask (&self->axes, rank, &mask, NULL) < 0)
    return FALSE;
  if (gst_tn_structure_get_dims (s, dims, &rank, NULL)
      && tn_reduce_shape (self->op, (const int64_t *) dims, rank, mask,
             self->keepdims, (int64_t *) odims, &orank, NULL)
             < 0)
    return FALSE;
  g_value_init (out, GST_TYPE_ARRAY);
  for (i = 0; i < (guint) rank; i++) {
    if (!(mask & (1u << i)))
      gst_value_array_append_value (out, gst_value_array_get_value (dv, i));
    else if (self->keepdims)
      gst_tensor_reduce_append_int (out, 1);
  }
  return TRUE;
}

/* Input dims that give a structure's output dims; FALSE when none can. */
static gboolean
gst_tensor_reduce_dims_backward (
    GstTensorReduce *self, const GstStructure *s, GValue *in)
{
  const GValue *dv = gst_structure_get_value (s, "dims");
  gint orank, irank, i, j = 0;
  gint min_extent = tn_reduce_has_identity (self->op) ? 0 : 1;
  uint32_t mask;

  if (dv == NULL || !GST_VALUE_HOLDS_ARRAY (dv))
    return TRUE;
  orank = (gint) gst_value_array_get_size (dv);
  if (self->keepdims)
    irank = orank;
  else if (self->axes.n == 0)
    return orank == 0; /* any input reduces to a scalar */
  else
    irank = orank + self->axes.n;
  if (irank > TN_MAX_RANK || tn_axes_mask (&self->axes, irank, &mask, NULL) < 0)
    return FALSE;

  g_value_init (in, GST_TYPE_ARRAY);
  for (i = 0; i < irank; i++) {
    if (mask & (1u << i)) {
      GValue range = G_VALUE_INIT;

      if (self->keepdims) {
        GValue one = G_VALUE_INIT, tmp = G_VALUE_INIT;
        gboolean ok;

        g_value_init (&one, G_TYPE_INT);
        g_value_set_int (&one, 1);
        ok = gst_value_intersect (
            &tmp, &one, gst_value_array_get_value (dv, j++));
        if (ok)
          g_value_unset (&tmp);
        if (!ok) {
          g_value_unset (in);
          return FALSE;
        }
      }
      g_value_init (&range, GST_TYPE_INT_RANGE);
      gst_value_set_int_range (&range, min_extent, G_MAXINT);
      gst_value_array_append_and_take_value (in, &range);
    } else {
      gst_value_array_append_value (in, gst_value_array_get_value (dv, j++));
    }
  }
  return TRUE;
}

/* Sink to src: the reduced dims and the result types.  Input the axes
 * refuse (an axis beyond the rank, an empty axis for min) maps to the
 * result types without dims, after the rest: a bare "could not link"
 * would hide the reason, which sink_event then gives.
 *
 * Src to sink: every input type whose result downstream takes, the type
 * itself leading, with input dims of any extent (>= 1 where the op needs
 * items) on the reduced axes; nothing for output no input makes. */
static GstCaps *
gst_tensor_reduce_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstTensorReduce *self = GST_TENSOR_REDUCE (trans);
  GstCaps *res, *refused;
  guint i, n;

  if (gst_caps_is_any (caps))
    return filter ? gst_caps_ref (filter) : gst_caps_new_any ();
  res = gst_caps_new_empty ();
  refused = gst_caps_new_empty ();
  n = gst_caps_get_size (caps);
  GST_OBJECT_LOCK (self);
  for (i = 0; i < n; i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    guint have = gst_tensor_reduce_type_mask (s), want = 0;
    GValue dims = G_VALUE_INIT;
    GstStructure *ns;
    gboolean ok;
    gint t;

    for (t = 0; t < TN_NDTYPES; t++) {
      tn_dtype r = tn_reduce_dtype (self->op, (tn_dtype) t);

      if (direction == GST_PAD_SINK && ((have >> t) & 1))
        want |= 1u << r;
      else if (direction == GST_PAD_SRC && ((have >> r) & 1))
        want |= 1u << t;
    }
    if (want == 0)
      continue;
    if (direction == GST_PAD_SINK)
      ok = gst_tensor_reduce_dims_forward (self, s, &dims);
    else
      ok = gst_tensor_reduce_dims_backward (self, s, &dims);
    if (!ok && direction == GST_PAD_SRC)
      continue;
    ns = gst_structure_copy (s);
    /* Upstream: an input of the very type asked for leads. */
    gst_tensor_reduce_set_type_mask (
        ns, want, direction == GST_PAD_SRC ? want & have : 0);
    if (ok && G_IS_VALUE (&dims))
      gst_structure_take_value (ns, "dims", &dims);
    else
      gst_structure_remove_field (ns, "dims");
    if (ok)
      res = gst_caps_merge_structure_full (
          res, ns, f ? gst_caps_features_copy (f) : NULL);
    else
      refused = gst_caps_merge_structure_full (
          refused, ns, f ? gst_caps_features_copy (f) : NULL);
  }
  GST_OBJECT_UNLOCK (self);
  res = gst_tn_caps_filter (gst_caps_merge (res, refused), filter);
  GST_DEBUG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

/* Upstream's caps query gets what makes downstream's caps first, then,
 * last, any tensor: fixation takes the first, so a free upstream sends
 * what works, while one held to something else (a capsfilter) still
 * negotiates and the CAPS event fails here with the reason, not with a
 * source's "downstream accepts no caps".  (Added after the base class's
 * answer: inside transform_caps it would intersect downstream's own caps,
 * which the base class then puts first.) */
static gboolean
gst_tensor_reduce_query (
    GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  gst_tn_transform_explain_query (trans, direction, query);
  return gst_tn_transform_query_any_tensor (
      GST_BASE_TRANSFORM_CLASS (gst_tensor_reduce_parent_class), trans,
      direction, query);
}

static GstCaps *
gst_tensor_reduce_fixate_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *othercaps)
{
  return gst_tn_caps_fixate (othercaps);
}

/* What the reduction makes of input info: 0 with *out, or -1 with a
 * sentence in e. */
static int
gst_tensor_reduce_plan (GstTensorReduce *self, const GstTnInfo *in,
    GstTnInfo *out, uint32_t *mask, tn_err *e)
{
  gint64 odims[TN_MAX_RANK];
  gint orank;
  tn_err why;
  gchar *desc;

  if (tn_axes_mask (&self->axes, in->rank, mask, &why) < 0
      || tn_reduce_shape (self->op, (const int64_t *) in->dims, in->rank, *mask,
             self->keepdims, (int64_t *) odims, &orank, &why)
             < 0) {
    desc = gst_tn_info_to_string (in);
    tn_err_set (e, "op=%s axes=\"%s\" cannot reduce %s tensors: %s",
        tn_reduce_op_name (self->op), self->axes_text, desc, why.msg);
    g_free (desc);
    return -1;
  }
  *out = *in;
  out->dtype = tn_reduce_dtype (self->op, in->dtype);
  out->rank = orank;
  memcpy (out->dims, odims, sizeof (gint64) * orank);
  return 0;
}

/* Fixed input caps the reduction refuses fail with an element error that
 * says why, not a bare not-negotiated; so does output downstream
 * refuses. */
static gboolean
gst_tensor_reduce_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstTensorReduce *self = GST_TENSOR_REDUCE (trans);
  GstCaps *caps, *peer;
  GstTnInfo in, out;
  uint32_t mask;
  gchar *desc;
  tn_err e;
  int r;

  if (GST_EVENT_TYPE (event) != GST_EVENT_CAPS)
    return GST_BASE_TRANSFORM_CLASS (gst_tensor_reduce_parent_class)
        ->sink_event (trans, event);

  gst_event_parse_caps (event, &caps);
  if (!gst_tn_info_from_caps (&in, caps, NULL))
    return GST_BASE_TRANSFORM_CLASS (gst_tensor_reduce_parent_class)
        ->sink_event (trans, event);
  GST_OBJECT_LOCK (self);
  r = gst_tensor_reduce_plan (self, &in, &out, &mask, &e);
  GST_OBJECT_UNLOCK (self);
  if (r < 0) {
    if (gst_tn_caps_refusal_is_new (&self->refused, caps))
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", e.msg),
          ("input caps %" GST_PTR_FORMAT, caps));
    gst_event_unref (event);
    return FALSE;
  }
  gst_caps_ref (caps);
  self->caps_error = FALSE;
  if (GST_BASE_TRANSFORM_CLASS (gst_tensor_reduce_parent_class)
          ->sink_event (trans, event)) {
    gst_tn_caps_refusal_clear (&self->refused);
    gst_caps_unref (caps);
    return TRUE;
  }
  if (!self->caps_error && gst_tn_caps_refusal_is_new (&self->refused, caps)) {
    desc = gst_tn_info_to_string (&out);
    peer = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (trans), NULL);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The reduction makes %s tensors, which downstream does not accept.",
            desc),
        ("input caps %" GST_PTR_FORMAT ", downstream accepts %" GST_PTR_FORMAT,
            caps, peer));
    gst_caps_unref (peer);
    g_free (desc);
  }
  gst_caps_unref (caps);
  return FALSE;
}

static gboolean
gst_tensor_reduce_set_caps (
    GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstTensorReduce *self = GST_TENSOR_REDUCE (trans);
  GstTnInfo in, out, want;
  uint32_t mask;
  tn_reduce_op op;
  tn_err e;
  int r;

  self->configured = FALSE;
  self->caps_error = TRUE; /* until it succeeds */
  if (!gst_tn_transform_read_caps (trans, incaps, outcaps, &in, &out))
    return FALSE;
  GST_OBJECT_LOCK (self);
  r = gst_tensor_reduce_plan (self, &in, &want, &mask, &e);
  op = self->op;
  GST_OBJECT_UNLOCK (self);
  if (r < 0) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", e.msg),
        ("caps %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  want.fps_n = out.fps_n;
  want.fps_d = out.fps_d;
  if (!gst_tn_info_equal (&want, &out)) {
    gchar *wd = gst_tn_info_to_string (&want),
          *od = gst_tn_info_to_string (&out);

    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The reduction makes %s tensors, not the %s of the output caps.", wd,
            od),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    g_free (wd);
    g_free (od);
    return FALSE;
  }
  if (!gst_tn_info_size (&out, &self->out_size)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Output tensors of %" GST_PTR_FORMAT " do not fit in memory.",
            outcaps),
        (NULL));
    return FALSE;
  }
  self->in_info = in;
  self->out_info = out;
  self->mask = mask;
  self->cur_op = op;
  self->configured = TRUE;
  self->caps_error = FALSE;
  GST_DEBUG_OBJECT (self,
      "%s over mask 0x%x: %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      tn_reduce_op_name (op), mask, incaps, outcaps);
  return TRUE;
}

static gboolean
gst_tensor_reduce_decide_allocation (GstBaseTransform *trans, GstQuery *query)
{
  GstTensorReduce *self = GST_TENSOR_REDUCE (trans);

  if (self->out_size == 0)
    return TRUE; /* empty outputs need no memory */
  return gst_tn_element_decide_allocation (
      GST_ELEMENT (self), query, self->out_size);
}

/* tensorreduce reads strides, so upstream may send views. */
static gboolean
gst_tensor_reduce_propose_allocation (
    GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
  return gst_tn_transform_propose_layout_meta (
      GST_BASE_TRANSFORM_CLASS (gst_tensor_reduce_parent_class), trans,
      decide_query, query);
}

static GstFlowReturn
gst_tensor_reduce_prepare_output_buffer (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer **outbuf)
{
  GstTensorReduce *self = GST_TENSOR_REDUCE (trans);

  if (self->configured && self->out_size == 0) {
    *outbuf = gst_buffer_new ();
    gst_buffer_copy_into (*outbuf, inbuf,
        GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
    return GST_FLOW_OK;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_tensor_reduce_parent_class)
      ->prepare_output_buffer (trans, inbuf, outbuf);
}

/* post-messages: the result on the bus, timed as level's messages. */
static void
gst_tensor_reduce_post (
    GstTensorReduce *self, GstBuffer *in, gconstpointer out, guint max_items)
{
  GEnumValue *op = g_enum_get_value (
      g_type_class_peek (GST_TYPE_TENSOR_REDUCE_OP), self->cur_op);

  gst_tn_post_tensor_message (GST_ELEMENT (self), "tensorreduce",
      &self->out_info, out, max_items, &GST_BASE_TRANSFORM (self)->segment, in,
      "op", G_TYPE_STRING, op ? op->value_nick : "", NULL);
}

static GstFlowReturn
gst_tensor_reduce_transform (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  GstTensorReduce *self = GST_TENSOR_REDUCE (trans);
  GstMapInfo dst = GST_MAP_INFO_INIT;
  GError *err = NULL;
  GstTnMap src;
  gint64 ddof, post;
  gint nthreads;
  tn_err e;
  int r;

  if (!self->configured) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("A buffer of %" G_GSIZE_FORMAT " bytes came before any tensor caps.",
            gst_buffer_get_size (inbuf)),
        (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!gst_tn_buffer_map (&src, inbuf, &self->in_info, GST_MAP_READ, &err)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The input buffer does not hold the tensor its caps describe: %s",
            err->message),
        (NULL));
    g_error_free (err);
    return GST_FLOW_ERROR;
  }
  if (!gst_buffer_map (outbuf, &dst, GST_MAP_WRITE)
      || dst.size != self->out_size) {
    gsize got = dst.data ? dst.size : gst_buffer_get_size (outbuf);

    if (dst.data)
      gst_buffer_unmap (outbuf, &dst);
    gst_tn_buffer_unmap (&src);
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("The output buffer holds %" G_GSIZE_FORMAT " bytes; the output "
         "tensor needs %" G_GSIZE_FORMAT ".",
            got, self->out_size),
        (NULL));
    return GST_FLOW_ERROR;
  }
  GST_OBJECT_LOCK (self);
  ddof = self->ddof;
  nthreads = g_atomic_int_get (&self->n_threads);
  post = self->post_messages ? (gint64) self->max_message_items : -1;
  GST_OBJECT_UNLOCK (self);
  r = tn_reduce (dst.data, src.data, &src.view, self->cur_op, self->mask, ddof,
      nthreads, &e);
  if (r == 0 && post >= 0)
    gst_tensor_reduce_post (self, inbuf, dst.data, (guint) post);
  gst_buffer_unmap (outbuf, &dst);
  gst_tn_buffer_unmap (&src);
  if (r < 0) {
    GST_ELEMENT_ERROR (
        self, STREAM, FAILED, ("Cannot reduce the tensor: %s", e.msg), (NULL));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static gboolean
gst_tensor_reduce_stop (GstBaseTransform *trans)
{
  GstTensorReduce *self = GST_TENSOR_REDUCE (trans);

  self->configured = FALSE;
  gst_tn_caps_refusal_clear (&self->refused);
  return TRUE;
}

/* Properties. */

/* A new op, axes or keepdims changes the output caps: renegotiate. */
static void
gst_tensor_reduce_changed (GstTensorReduce *self)
{
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

/* What ddof and max-message-items can be (tnelement.h): any int is
 * stored, and one outside these is an error at start or, set while
 * running, a warning that keeps the old one.  ("max-message-items=-1"
 * would be 4294967295 in a uint property: GStreamer's parser wraps it.) */
static const GstTnIntRange ddof_range = { "ddof", 0, G_MAXINT, "population" };
static const GstTnIntRange max_message_items_range
    = { "max-message-items", 0, MAX_MESSAGE_ITEMS, NULL };

static gboolean
gst_tensor_reduce_start (GstBaseTransform *trans)
{
  GstTensorReduce *self = GST_TENSOR_REDUCE (trans);
  GstElement *el = GST_ELEMENT (self);
  gchar *text = NULL, *error = NULL;
  gint ddof, max_items;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  if (self->axes_error) {
    text = g_strdup (self->axes_text);
    error = g_strdup (self->axes_error);
  }
  ddof = self->ddof;
  max_items = self->max_message_items;
  GST_OBJECT_UNLOCK (self);
  if (error)
    ok = gst_tn_element_property_error (el, "axes", text, error);
  else
    ok = gst_tn_element_check_int (el, &ddof_range, ddof)
         && gst_tn_element_check_int (el, &max_message_items_range, max_items)
         && gst_tn_element_check_n_threads (
             el, g_atomic_int_get (&self->n_threads));
  g_free (text);
  g_free (error);
  return ok;
}

static void
gst_tensor_reduce_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorReduce *self = GST_TENSOR_REDUCE (object);

  switch (prop_id) {
  case PROP_OP:
    GST_OBJECT_LOCK (self);
    self->op = g_value_get_enum (value);
    GST_OBJECT_UNLOCK (self);
    gst_tensor_reduce_changed (self);
    break;
  case PROP_AXES:
    /* A list that does not parse is reported when the element starts
     * (tnelement.h); the axes in use stay while it runs. */
    if (gst_tn_element_set_axes (GST_ELEMENT (self), g_value_get_string (value),
            &self->axes, &self->axes_text, &self->axes_error))
      gst_tensor_reduce_changed (self);
    break;
  case PROP_KEEPDIMS:
    GST_OBJECT_LOCK (self);
    self->keepdims = g_value_get_boolean (value);
    GST_OBJECT_UNLOCK (self);
    gst_tensor_reduce_changed (self);
    break;
  case PROP_DDOF:
    if (!gst_tn_element_int_settable (
            GST_ELEMENT (self), &ddof_range, g_value_get_int (value)))
      break;
    GST_OBJECT_LOCK (self);
    self->ddof = g_value_get_int (value);
    GST_OBJECT_UNLOCK (self);
    break;
  case PROP_N_THREADS:
    gst_tn_element_set_n_threads (GST_ELEMENT (self), &self->n_threads, value);
    break;
  case PROP_POST_MESSAGES:
    GST_OBJECT_LOCK (self);
    self->post_messages = g_value_get_boolean (value);
    GST_OBJECT_UNLOCK (self);
    break;
  case PROP_MAX_MESSAGE_ITEMS:
    if (!gst_tn_element_int_settable (GST_ELEMENT (self),
            &max_message_items_range, g_value_get_int (value)))
      break;
    GST_OBJECT_LOCK (self);
    self->max_message_items = g_value_get_int (value);
    GST_OBJECT_UNLOCK (self);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
}

static void
gst_tensor_reduce_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTensorReduce *self = GST_TENSOR_REDUCE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_OP:
    g_value_set_enum (value, self->op);
    break;
  case PROP_AXES:
    g_value_set_string (value, self->axes_text);
    break;
  case PROP_KEEPDIMS:
    g_value_set_boolean (value, self->keepdims);
    break;
  case PROP_DDOF:
    g_value_set_int (value, self->ddof);
    break;
  case PROP_N_THREADS:
    g_value_set_int (value, g_atomic_int_get (&self->n_threads));
    break;
  case PROP_POST_MESSAGES:
    g_value_set_boolean (value, self->post_messages);
    break;
  case PROP_MAX_MESSAGE_ITEMS:
    g_value_set_int (value, self->max_message_items);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_reduce_finalize (GObject *object)
{
  GstTensorReduce *self = GST_TENSOR_REDUCE (object);

  g_free (self->axes_text);
  g_free (self->axes_error);
  gst_tn_caps_refusal_clear (&self->refused);
  G_OBJECT_CLASS (gst_tensor_reduce_parent_class)->finalize (object);
}

static void
gst_tensor_reduce_class_init (GstTensorReduceClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_tensor_reduce_debug, "tensorreduce", 0,
      "Tensor reductions along axes");

  gobject_class->set_property = gst_tensor_reduce_set_property;
  gobject_class->get_property = gst_tensor_reduce_get_property;
  gobject_class->finalize = gst_tensor_reduce_finalize;

  /**
   * GstTensorReduce:op:
   *
   * The reduction: sum, mean, prod, min, max, argmin, argmax, l2, var or
   * std.  Default: sum.  Changing it while playing renegotiates.
   */
  g_object_class_install_property (gobject_class, PROP_OP,
      g_param_spec_enum ("op", "Op",
          "The reduction. Result types: sum and prod of float16/bfloat16 "
          "give float32, of bool and signed ints int64, of unsigned ints "
          "uint64; mean, l2, var and std of bool and ints give float64; min "
          "and max keep the type; argmin and argmax give int64",
          GST_TYPE_TENSOR_REDUCE_OP, DEFAULT_OP, flags));

  /**
   * GstTensorReduce:axes:
   *
   * The axes to reduce, comma-separated; a negative axis counts from the
   * end (-1 is the last).  Empty (the default) reduces every axis.  Each
   * entry must lie in -8..7 and, once the input rank r is known, in
   * -r..r-1, and no axis may be named twice.  A list that does not parse
   * is an error when the element starts (while it runs: a warning, and
   * the axes in use stay).
   */
  g_object_class_install_property (gobject_class, PROP_AXES,
      g_param_spec_string ("axes", "Axes",
          "Comma-separated axes to reduce, negative from the end; empty for "
          "every axis",
          DEFAULT_AXES, flags));

  /**
   * GstTensorReduce:keepdims:
   *
   * Keep the reduced axes with extent 1, as NumPy's keepdims.  Default:
   * false.
   */
  g_object_class_install_property (gobject_class, PROP_KEEPDIMS,
      g_param_spec_boolean ("keepdims", "Keep dims",
          "Keep the reduced axes with extent 1", DEFAULT_KEEPDIMS, flags));

  /**
   * GstTensorReduce:ddof:
   *
   * Delta degrees of freedom of var and std: they divide by n - ddof, as
   * NumPy's ddof (0, the default: population; 1: sample).  0 to G_MAXINT;
   * any int is stored, and a negative one is an error when the element
   * starts (a warning that keeps the old value while it runs).
   */
  g_object_class_install_property (gobject_class, PROP_DDOF,
      g_param_spec_int ("ddof", "Delta degrees of freedom",
          "var and std divide by n - ddof, ddof 0 or more", G_MININT, G_MAXINT,
          DEFAULT_DDOF, flags));

  /**
   * GstTensorReduce:n-threads:
   *
   * Threads of the shared worker pool one tensor is split across; 0 uses
   * every core (the default).  The result has the same bits
   * whatever the count.
   */
  g_object_class_install_property (
      gobject_class, PROP_N_THREADS, gst_tn_param_spec_n_threads ());

  /**
   * GstTensorReduce:post-messages:
   *
   * Posts every result as an element message "tensorreduce", as level
   * posts RMS: op, type, dims, items, values (GstValueArray, row-major;
   * up to max-message-items items), timestamp, stream-time, running-time,
   * duration.  Default FALSE.
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post every result as an element message \"tensorreduce\"", FALSE,
          flags));
  /**
   * GstTensorReduce:max-message-items:
   *
   * The largest result whose values the message carries (larger ones
   * carry type and dims only).  0 to 65536; default 64.  Any int is
   * stored, and another is an error when the element starts (a warning
   * that keeps the old value while it runs).
   */
  g_object_class_install_property (gobject_class, PROP_MAX_MESSAGE_ITEMS,
      g_param_spec_int ("max-message-items", "Max message items",
          "The largest result whose values the message carries, 0 to 65536",
          G_MININT, G_MAXINT, 64, flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Tensor reduce",
      "Filter/Tensor",
      "Reduces tensors along axes (sum, mean, prod, min, max, argmin, argmax, "
      "l2, var, std), the same bits on any thread count",
      "gst-tensor developers");

  gst_type_mark_as_plugin_api (GST_TYPE_TENSOR_REDUCE_OP, 0);

  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_tn_transform_accept_caps);
  trans_class->transform_caps
      = GST_DEBUG_FUNCPTR (gst_tensor_reduce_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_tensor_reduce_fixate_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_tensor_reduce_query);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_tensor_reduce_sink_event);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_tensor_reduce_set_caps);
  trans_class->transform_size = GST_DEBUG_FUNCPTR (gst_tn_transform_size);
  trans_class->decide_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_reduce_decide_allocation);
  trans_class->propose_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_reduce_propose_allocation);
  trans_class->prepare_output_buffer
      = GST_DEBUG_FUNCPTR (gst_tensor_reduce_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_tensor_reduce_transform);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_tensor_reduce_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_tensor_reduce_stop);
}

static void
gst_tensor_reduce_init (GstTensorReduce *self)
{
  self->op = DEFAULT_OP;
  self->axes.n = 0;
  self->axes_text = g_strdup (DEFAULT_AXES);
  self->keepdims = DEFAULT_KEEPDIMS;
  self->ddof = DEFAULT_DDOF;
  self->n_threads = GST_TN_N_THREADS_DEFAULT;
  self->max_message_items = 64;
}
