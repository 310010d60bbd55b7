/* GStreamer tensor plugin: elementwise math in one pass, in place.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensorop
 * @title: tensorop
 * @see_also: tensorsrc, tensorview, tensordebug
 *
 * Applies a chain of elementwise steps to every tensor, in one pass over
 * memory: the tensor is cut into blocks of 256 items that stay in the L1
 * cache while every step runs over them, so a chain of three steps reads
 * and writes the tensor once, not three times.  Common runs of steps
 * (two of add/sub/mul/div with numbers, a relu after them, a cast from a
 * small integer type before them) are fused into one loop, so
 * `cast:float32,sub:127.5,div:127.5` on uint8 frames is a single
 * vectorised loop from bytes to floats.
 *
 * #GstTensorOp:ops is the chain: steps separated by `,`, a step's
 * arguments by `:`, blanks ignored.
 *
 * * `add`, `sub`, `mul`, `div`, `pow`, `min`, `max`, `mod` take one
 *   operand: a number, or the path of a `.npy` file holding a constant
 *   tensor (read once, when the property is set) that broadcasts against
 *   the input by NumPy's rule.  An operand may stretch its own axes of
 *   extent 1, never the tensor's: the output keeps the input's dims.
 * * `neg`, `abs`, `sqrt`, `exp`, `log`, `relu`, `sigmoid`, `tanh`,
 *   `floor`, `ceil`, `round` (half to even) take none.
 * * `clamp:LO:HI` keeps items in [LO, HI].
 * * `cast:TYPE` converts to any of the 13 tensor types.
 *
 * #GstTensorOp:op and #GstTensorOp:value are a shorthand for a chain of
 * one step: `op=mul value=2` is `ops=mul:2`.  Use one way or the other:
 * setting #GstTensorOp:ops and the shorthand together is an error.
 *
 * ## Mistakes stop the pipeline
 *
 * A chain that does not parse (`ops=mull:2`), an unknown type in a cast,
 * a `.npy` operand that is missing, a directory, not a `.npy` file or of a
 * dtype that is not a tensor type, an op without its operand, or ops set
 * together with op/value: the value is kept as set, and the element posts
 * an error that names itself, the property, the text and the reason when
 * it goes to PAUSED, so `gst-launch-1.0` stops and exits non-zero.  While
 * the element runs, a new chain takes effect with the next buffer; a
 * value that cannot be used then is refused with a warning on the bus,
 * and the chain in use goes on.
 *
 * ## Types: nothing promotes silently
 *
 * The output has the input's dims, and its type changes only through
 * `cast` steps; caps negotiate both ways, so tensorop also fits between
 * two capsfilters.  A step computes in the type the tensor has at that
 * point.  sqrt, exp, log, sigmoid and tanh need a float tensor: on an
 * integer one negotiation fails with a message that suggests a
 * `cast:float32` step first.  bool tensors take `cast` steps only.
 *
 * A number is converted to the tensor's type at its step: on an integer
 * tensor it must be a whole number inside the type's range (`add:2.5` or
 * `add:300` on uint8 fail negotiation, naming the number and the range;
 * nothing is truncated); on a float tensor it is rounded to nearest even.
 * A `.npy` operand is converted item by item by the same rule, and its
 * dims must broadcast: a mismatch fails negotiation with a message naming
 * both dims and the axis.
 *
 * ## Arithmetic
 *
 * The same on every code path (the portable one and AVX2):
 *
 * * integers wrap (two's complement) in add, sub, mul, neg, abs and pow:
 *   abs and neg of INT_MIN give INT_MIN;
 * * integer `div` is floor division and `mod` takes the divisor's sign
 *   (NumPy's `//` and `%`); a zero divisor gives 0 (never SIGFPE), INT_MIN
 *   div -1 gives INT_MIN and INT_MIN mod -1 gives 0;
 * * integer `pow` needs a non-negative exponent; 0 pow 0 is 1;
 * * floats follow IEEE 754 (x/0 is ±inf or NaN; `mod` is NumPy's
 *   remainder, so mod 0 is NaN); `min`, `max` and `clamp` keep NaN
 *   (either side NaN gives NaN); `relu` is `x < 0 ? 0 : x`;
 * * float16 and bfloat16 compute each step in float32 and round to
 *   nearest even once per step (as NumPy's float16 does), not once per
 *   chain;
 * * `cast` truncates floats toward zero and saturates at the target's
 *   bounds, NaN becoming 0; integer to integer keeps the low bits.
 *
 * ## Memory
 *
 * The chain runs in place when the input buffer is writable and the
 * output items have the input's size (no `cast` to a wider type): the
 * output buffer is the input buffer.  Otherwise, or when another branch
 * holds the buffer (after a `tee`), the output comes from a tensor buffer
 * pool and the input is left as it was.  A strided input (with the layout
 * meta) is made dense once before the chain runs; tensorop does not
 * advertise the meta.  A chain that leaves the tensor as it is (`floor`
 * on integers, `cast` to the same type, the empty chain) makes the
 * element pass buffers through untouched.
 *
 * A buffer whose size does not match its caps is an element error that
 * gives both sizes.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 tensorsrc pattern=uniform low=0 high=256 num-buffers=10 \
 *     ! "tensor/x-raw,type=uint8,dims=<480,640,3>" \
 *     ! tensorop ops="cast:float32,sub:127.5,div:127.5" ! fakesink
 * ]| Normalises camera-like frames to [-1, 1] in one pass.
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=float32,dims=<2,3>" \
 *     ! tensorop op=mul value=2 ! tensordebug ! fakesink
 * ]| Doubles every item.
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange start=100 step=10 num-buffers=1 \
 *     ! "tensor/x-raw,type=float32,dims=<3>" ! npyenc \
 *     ! filesink location=mean.npy
 * gst-launch-1.0 tensorsrc pattern=uniform low=0 high=256 num-buffers=10 \
 *     ! "tensor/x-raw,type=uint8,dims=<480,640,3>" \
 *     ! tensorop ops="cast:float32,sub:mean.npy,div:64,relu" n-threads=0 \
 *     ! fakesink
 * ]| The first line writes per-channel constants (100, 110, 120) to a
 * `.npy` file; the second subtracts them from every pixel (dims <3>
 * against <480, 640, 3>), scales and clips, on every core.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/base/gstbasetransform.h>
#include <gst/tensor/gsttensor.h>

#include "core/ewise.h"
#include "elements.h"
#include "tensorop-chain.h"
#include "tnalloc.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_op_debug);
#define GST_CAT_DEFAULT gst_tensor_op_debug

#define GST_TYPE_TENSOR_OP (gst_tensor_op_get_type ())
G_DECLARE_FINAL_TYPE (
    GstTensorOp, gst_tensor_op, GST, TENSOR_OP, GstBaseTransform)

enum {
  PROP_0,
  PROP_OPS,
  PROP_OP,
  PROP_VALUE,
  PROP_N_THREADS,
};

struct _GstTensorOp {
  GstBaseTransform parent;

  /* properties and the chain they make, under the object lock */
  gchar *ops_set;        /* ops as set (NULL: not set) */
  gchar *op, *value;     /* the shorthand, as set */
  gchar *ops;            /* the effective chain as text */
  gint n_threads;        /* atomic: read for every buffer */
  tn_ewise_chain *chain; /* NULL when the settings make no chain */
  const gchar *bad_prop; /* then, the property to blame ("ops", "op") */
  gchar *bad_text;       /* its text */
  gchar *chain_error;    /* and why */
  gint dirty;            /* atomic: the chain changed since set_caps */

  /* streaming thread */
  GstTnInfo in_info, out_info;
  tn_ewise *prog;
  gboolean in_place_ok;
  gsize in_size, out_size;
  GstCaps *refused; /* input caps of the last error posted */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

G_DEFINE_TYPE (GstTensorOp, gst_tensor_op, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (
    tensorop, "tensorop", GST_RANK_NONE, GST_TYPE_TENSOR_OP);

/* Chain handling, under the object lock. */

/* Swaps c's settings with the element's, under the object lock, and the
 * chain in use unless keep_chain; c then holds the old ones, to be
 * cleared. */
static void
gst_tensor_op_chain_swap (
    GstTensorOp *self, GstTensorOpChain *c, gboolean keep_chain)
{
  GstTensorOpChain old = { self->ops_set, self->op, self->value, NULL, NULL,
    self->bad_prop, self->bad_text, self->chain_error };

  self->ops_set = c->ops_set;
  self->op = c->op;
  self->value = c->value;
  if (keep_chain) {
    old.ops = c->ops;
    old.chain = c->chain;
  } else {
    old.ops = self->ops;
    old.chain = self->chain;
    self->ops = c->ops;
    self->chain = c->chain;
  }
  self->bad_prop = c->bad_prop;
  self->bad_text = c->bad_text;
  self->chain_error = c->error;
  *c = old;
}

/* Why the chain cannot take a tensor of info (NULL if it can); with
 * out set, the dtype it gives. */
static gchar *
gst_tensor_op_explain (
    GstTensorOp *self, const GstTnInfo *info, gboolean with_dims, tn_dtype *out)
{
  gchar *desc, *msg;
  tn_err e;
  tn_dtype o;

  if (self->chain == NULL)
    return g_strdup (self->chain_error);
  if (tn_ewise_chain_check (self->chain, info->dtype,
          (const int64_t *) info->dims, with_dims ? info->rank : -1, &o, &e)
      == 0) {
    if (out)
      *out = o;
    return NULL;
  }
  desc = gst_tn_info_to_string (info);
  msg = g_strdup_printf (
      "ops=\"%s\" cannot take %s tensors: %s", self->ops, desc, e.msg);
  g_free (desc);
  return msg;
}

/* Negotiation. */

static gboolean
gst_tensor_op_type_mask (const GstStructure *s, guint *mask)
{
  const GValue *v = gst_structure_get_value (s, "type");
  tn_dtype t;
  guint i;

  *mask = 0;
  if (v == NULL) {
    *mask = (1u << TN_NDTYPES) - 1;
    return TRUE;
  }
  if (G_VALUE_HOLDS_STRING (v)) {
    if (tn_dtype_from_name (g_value_get_string (v), &t, NULL) == 0)
      *mask = 1u << t;
    return TRUE;
  }
  if (GST_VALUE_HOLDS_LIST (v)) {
    for (i = 0; i < gst_value_list_get_size (v); i++) {
      const GValue *x = gst_value_list_get_value (v, i);

      if (G_VALUE_HOLDS_STRING (x)
          && tn_dtype_from_name (g_value_get_string (x), &t, NULL) == 0)
        *mask |= 1u << t;
    }
    return TRUE;
  }
  return FALSE;
}

static void
gst_tensor_op_set_type_mask (GstStructure *s, guint mask)
{
  GValue list = G_VALUE_INIT, item = G_VALUE_INIT;
  int t, n = 0;

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
  for (t = 0; t < TN_NDTYPES; t++) {
    if (!((mask >> t) & 1))
      continue;
    g_value_set_static_string (&item, tn_dtype_name (t));
    gst_value_list_append_value (&list, &item);
  }
  gst_structure_take_value (s, "type", &list);
  g_value_unset (&item);
}

/* Input types map to output types through the chain's casts; dims are
 * the same on both sides.  Types the chain refuses (sqrt on int32, an
 * operand that does not broadcast against these dims) must not win a
 * choice, yet a peer that can only send such a type should get an error
 * that says why, not a bare "could not link" or "not-negotiated".  So
 * towards upstream (direction SRC) the refused input types come after the
 * good ones, in a structure of their own that fixation never prefers; and
 * caps that nothing maps to or from map to themselves.  Either way the
 * CAPS event then fails in sink_event with the reason. */
static GstCaps *
gst_tensor_op_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstTensorOp *self = GST_TENSOR_OP (trans);
  GstCaps *res, *refused;
  guint i, n;

  GST_OBJECT_LOCK (self);
  /* No chain (op and value do not make one): linking goes through, and
   * start() says what is wrong. */
  if (gst_caps_is_any (caps) || self->chain == NULL) {
    GST_OBJECT_UNLOCK (self);
    return gst_tn_caps_filter (gst_caps_ref (caps), filter);
  }
  res = gst_caps_new_empty ();
  refused = gst_caps_new_empty ();
  n = gst_caps_get_size (caps);
  for (i = 0; i < n; i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    gint64 dims[TN_MAX_RANK];
    guint have, want = 0, bad = 0;
    gint rank;
    int t;
    GstStructure *ns;

    if (!gst_tensor_op_type_mask (s, &have))
      continue;
    if (!gst_tn_structure_get_dims (s, dims, &rank, NULL))
      rank = -1;
    for (t = 0; t < TN_NDTYPES; t++) {
      tn_dtype out;

      if (direction == GST_PAD_SINK && !((have >> t) & 1))
        continue;
      if (tn_ewise_chain_check (self->chain, (tn_dtype) t,
              (const int64_t *) dims, rank, &out, NULL)
          != 0)
        bad |= 1u << t;
      else if (direction == GST_PAD_SINK)
        want |= 1u << out;
      else if ((have >> out) & 1)
        want |= 1u << t;
    }
    if (want) {
      ns = gst_structure_copy (s);
      gst_tensor_op_set_type_mask (ns, want);
      res = gst_caps_merge_structure_full (
          res, ns, f ? gst_caps_features_copy (f) : NULL);
    }
    if (direction == GST_PAD_SRC && bad) {
      ns = gst_structure_copy (s);
      gst_tensor_op_set_type_mask (ns, bad);
      refused = gst_caps_merge_structure_full (
          refused, ns, f ? gst_caps_features_copy (f) : NULL);
    } else if (!want) {
      refused = gst_caps_merge_structure_full (refused, gst_structure_copy (s),
          f ? gst_caps_features_copy (f) : NULL);
    }
  }
  GST_OBJECT_UNLOCK (self);
  res = gst_tn_caps_filter (gst_caps_merge (res, refused), filter);
  GST_DEBUG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

/* A fixed tensor caps the chain refuses: the reason, or NULL. */
static gchar *
gst_tensor_op_refusal (GstTensorOp *self, GstCaps *caps)
{
  GstTnInfo info;
  gchar *msg;

  if (caps == NULL || !gst_caps_is_fixed (caps)
      || !gst_tn_info_from_caps (&info, caps, NULL))
    return NULL;
  GST_OBJECT_LOCK (self);
  msg = gst_tensor_op_explain (self, &info, TRUE, NULL);
  GST_OBJECT_UNLOCK (self);
  return msg;
}

/* Caps the chain refuses fail negotiation with an element error that
 * says why, instead of a bare not-negotiated. */
static gboolean
gst_tensor_op_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstTensorOp *self = GST_TENSOR_OP (trans);
  GstCaps *caps, *peer;
  GstTnInfo info;
  gchar *msg, *desc;
  tn_dtype out = TN_FLOAT32;

  if (GST_EVENT_TYPE (event) != GST_EVENT_CAPS)
    return GST_BASE_TRANSFORM_CLASS (gst_tensor_op_parent_class)
        ->sink_event (trans, event);

  gst_event_parse_caps (event, &caps);
  msg = gst_tensor_op_refusal (self, caps);
  if (msg) {
    if (gst_tn_caps_refusal_is_new (&self->refused, caps))
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", msg),
          ("input caps %" GST_PTR_FORMAT, caps));
    g_free (msg);
    gst_event_unref (event);
    return FALSE;
  }
  gst_caps_ref (caps);
  if (GST_BASE_TRANSFORM_CLASS (gst_tensor_op_parent_class)
          ->sink_event (trans, event)) {
    gst_tn_caps_refusal_clear (&self->refused);
    gst_caps_unref (caps);
    return TRUE;
  }
  /* The chain took the input; downstream refused what it makes. */
  if (gst_tn_info_from_caps (&info, caps, NULL)
      && gst_tn_caps_refusal_is_new (&self->refused, caps)) {
    GST_OBJECT_LOCK (self);
    msg = gst_tensor_op_explain (self, &info, TRUE, &out);
    GST_OBJECT_UNLOCK (self);
    if (msg == NULL) {
      info.dtype = out;
      desc = gst_tn_info_to_string (&info);
      peer = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (trans), NULL);
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("The chain makes %s tensors, which downstream does not accept.",
              desc),
          ("downstream accepts %" GST_PTR_FORMAT, peer));
      gst_caps_unref (peer);
      g_free (desc);
    }
    g_free (msg);
  }
  gst_caps_unref (caps);
  return FALSE;
}

/* Compiles the chain for in -> out and installs it; FALSE after posting
 * an error that says why. */
static gboolean
gst_tensor_op_compile (
    GstTensorOp *self, const GstTnInfo *in, const GstTnInfo *out)
{
  tn_ewise *prog = NULL;
  gsize in_size, out_size;
  gchar *desc;
  tn_err e;
  int r;

  /* Cleared before the chain is read: a change after that is seen. */
  g_atomic_int_set (&self->dirty, 0);
  GST_OBJECT_LOCK (self);
  if (self->chain == NULL) {
    tn_err_set (&e, "%s", self->chain_error);
    r = -1;
  } else {
    r = tn_ewise_compile (self->chain, in->dtype, (const int64_t *) in->dims,
        in->rank, &prog, &e);
  }
  GST_OBJECT_UNLOCK (self);
  desc = gst_tn_info_to_string (in);
  if (r < 0) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot apply the chain to %s tensors: %s", desc, e.msg), (NULL));
  } else if (tn_ewise_out_dtype (prog) != out->dtype) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The chain turns %s tensors into %s, not into the %s of the "
         "output caps.",
            desc, tn_dtype_name (tn_ewise_out_dtype (prog)),
            tn_dtype_name (out->dtype)),
        (NULL));
    r = -1;
  } else if (!gst_tn_info_size (in, &in_size)
             || !gst_tn_info_size (out, &out_size)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Tensors of %s do not fit in memory.", desc), (NULL));
    r = -1;
  }
  g_free (desc);
  if (r < 0) {
    tn_ewise_free (prog);
    return FALSE;
  }
  tn_ewise_free (self->prog);
  self->prog = prog;
  self->in_info = *in;
  self->out_info = *out;
  self->in_size = in_size;
  self->out_size = out_size;
  self->in_place_ok = tn_ewise_in_place_ok (prog);
  gst_base_transform_set_passthrough (
      GST_BASE_TRANSFORM (self), tn_ewise_is_identity (prog));
  GST_DEBUG_OBJECT (self, "compiled; in place %s, identity %s",
      self->in_place_ok ? "possible" : "impossible",
      tn_ewise_is_identity (prog) ? "yes" : "no");
  return TRUE;
}

static gboolean
gst_tensor_op_set_caps (
    GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstTensorOp *self = GST_TENSOR_OP (trans);
  GstTnInfo in, out;

  if (!gst_tn_transform_read_caps (trans, incaps, outcaps, &in, &out))
    return FALSE;
  return gst_tensor_op_compile (self, &in, &out);
}

static gboolean
gst_tensor_op_decide_allocation (GstBaseTransform *trans, GstQuery *query)
{
  GstTensorOp *self = GST_TENSOR_OP (trans);

  return gst_tn_element_decide_allocation (
      GST_ELEMENT (self), query, self->out_size);
}

/* tensorop reads dense tensors only, so of downstream's metas it passes
 * on all but the layout meta: upstream then sends dense tensors. */
static gboolean
gst_tensor_op_propose_allocation (
    GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
  guint i, n;

  if (decide_query == NULL) /* passthrough: downstream reads the buffers */
    return GST_BASE_TRANSFORM_CLASS (gst_tensor_op_parent_class)
        ->propose_allocation (trans, decide_query, query);
  n = gst_query_get_n_allocation_metas (decide_query);
  for (i = 0; i < n; i++) {
    const GstStructure *params;
    GType api = gst_query_parse_nth_allocation_meta (decide_query, i, &params);

    if (api != GST_TN_LAYOUT_META_API_TYPE)
      gst_query_add_allocation_meta (query, api, params);
  }
  return TRUE;
}

/* In place when the input is ours alone and the item size stays; a new
 * buffer from the pool otherwise. */
static GstFlowReturn
gst_tensor_op_prepare_output_buffer (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer **outbuf)
{
  GstTensorOp *self = GST_TENSOR_OP (trans);

  if (!gst_base_transform_is_passthrough (trans) && self->in_place_ok
      && gst_tn_buffer_get_layout_meta (inbuf) == NULL
      && gst_buffer_is_writable (inbuf)
      && gst_buffer_is_all_memory_writable (inbuf)) {
    *outbuf = inbuf;
    return GST_FLOW_OK;
  }
  if (!gst_base_transform_is_passthrough (trans) && self->out_size == 0) {
    *outbuf = gst_buffer_new ();
    gst_buffer_copy_into (*outbuf, inbuf,
        GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
    return GST_FLOW_OK;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_tensor_op_parent_class)
      ->prepare_output_buffer (trans, inbuf, outbuf);
}

static gint
gst_tensor_op_threads (GstTensorOp *self)
{
  return g_atomic_int_get (&self->n_threads);
}

static GstFlowReturn
gst_tensor_op_bad_input (GstTensorOp *self, GError *err)
{
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("The input buffer does not hold the tensor its caps describe: %s",
          err->message),
      (NULL));
  g_error_free (err);
  return GST_FLOW_ERROR;
}

/* A chain set while the caps stay the same: set_caps does not run again
 * (passthrough or not), so the chain is compiled again here, before the
 * next buffer, and passthrough decided anew.  A chain that changes the
 * output type is left to the renegotiation it asked for. */
static void
gst_tensor_op_before_transform (GstBaseTransform *trans, GstBuffer *buffer)
{
  GstTensorOp *self = GST_TENSOR_OP (trans);
  GstTnInfo in, out;
  tn_dtype dtype = TN_FLOAT32;
  gchar *msg;

  if (self->prog == NULL || !g_atomic_int_get (&self->dirty))
    return;
  in = self->in_info;
  out = self->out_info;
  GST_OBJECT_LOCK (self);
  msg = gst_tensor_op_explain (self, &in, TRUE, &dtype);
  GST_OBJECT_UNLOCK (self);
  if (msg) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", msg), (NULL));
    g_free (msg);
    tn_ewise_free (self->prog);
    self->prog = NULL;
    return;
  }
  if (dtype == out.dtype)
    gst_tensor_op_compile (self, &in, &out);
}

/* Runs the chain from the dense tensor at src into outbuf. */
static GstFlowReturn
gst_tensor_op_write (GstTensorOp *self, GstBuffer *outbuf, const void *src)
{
  GstMapInfo dst = GST_MAP_INFO_INIT;
  gboolean mapped = gst_buffer_map (outbuf, &dst, GST_MAP_WRITE);

  if (!mapped || dst.size != self->out_size) {
    gsize got = mapped ? dst.size : gst_buffer_get_size (outbuf);

    if (mapped)
      gst_buffer_unmap (outbuf, &dst);
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("The output buffer holds %" G_GSIZE_FORMAT " bytes; the output "
         "tensor needs %" G_GSIZE_FORMAT ".",
            got, self->out_size),
        (NULL));
    return GST_FLOW_ERROR;
  }
  tn_ewise_run (self->prog, dst.data, src, gst_tensor_op_threads (self));
  gst_buffer_unmap (outbuf, &dst);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_tensor_op_transform (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  GstTensorOp *self = GST_TENSOR_OP (trans);
  GstTnMap src;
  GstMapInfo map;
  GError *err = NULL;
  GstBuffer *dense;
  GstFlowReturn ret;
  gint nthreads = gst_tensor_op_threads (self);

  if (self->prog == NULL) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("A buffer of %" G_GSIZE_FORMAT " bytes came before any tensor caps.",
            gst_buffer_get_size (inbuf)),
        (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }

  /* The common case, a dense buffer of the right size, maps it directly;
   * the rest goes through the tensor-buffer API, which explains what is
   * wrong or makes the tensor dense. */
  if (gst_tn_buffer_get_layout_meta (inbuf) == NULL
      && gst_buffer_get_size (inbuf) == self->in_size) {
    if (inbuf == outbuf) {
      if (gst_buffer_map (inbuf, &map, GST_MAP_READWRITE)) {
        tn_ewise_run (self->prog, map.data, map.data, nthreads);
        gst_buffer_unmap (inbuf, &map);
        return GST_FLOW_OK;
      }
    } else if (gst_buffer_map (inbuf, &map, GST_MAP_READ)) {
      ret = gst_tensor_op_write (self, outbuf, map.data);
      gst_buffer_unmap (inbuf, &map);
      return ret;
    }
  }
  if (inbuf == outbuf) {
    if (!gst_tn_buffer_map (
            &src, inbuf, &self->in_info, GST_MAP_READWRITE, &err))
      return gst_tensor_op_bad_input (self, err);
    tn_ewise_run (self->prog, src.data, src.data, nthreads);
    gst_tn_buffer_unmap (&src);
    return GST_FLOW_OK;
  }

  dense = gst_tn_buffer_dense (inbuf, &self->in_info, NULL, &err);
  if (dense == NULL)
    return gst_tensor_op_bad_input (self, err);
  if (!gst_tn_buffer_map (&src, dense, &self->in_info, GST_MAP_READ, &err)) {
    gst_buffer_unref (dense);
    return gst_tensor_op_bad_input (self, err);
  }
  ret = gst_tensor_op_write (self, outbuf, src.data);
  gst_tn_buffer_unmap (&src);
  gst_buffer_unref (dense);
  return ret;
}

static gboolean
gst_tensor_op_start (GstBaseTransform *trans)
{
  GstTensorOp *self = GST_TENSOR_OP (trans);
  gchar *error = NULL, *text = NULL;
  const gchar *prop = NULL;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  if (self->chain == NULL) {
    prop = self->bad_prop;
    text = g_strdup (self->bad_text);
    error = g_strdup (self->chain_error);
  }
  GST_OBJECT_UNLOCK (self);
  if (error)
    ok = gst_tn_element_property_error (GST_ELEMENT (self), prop, text, error);
  else
    ok = gst_tn_element_check_n_threads (
        GST_ELEMENT (self), g_atomic_int_get (&self->n_threads));
  g_free (text);
  g_free (error);
  return ok;
}

static gboolean
gst_tensor_op_stop (GstBaseTransform *trans)
{
  GstTensorOp *self = GST_TENSOR_OP (trans);

  tn_ewise_free (self->prog);
  self->prog = NULL;
  gst_tn_caps_refusal_clear (&self->refused);
  return TRUE;
}

static void
gst_tensor_op_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorOp *self = GST_TENSOR_OP (object);

  switch (prop_id) {
  case PROP_OPS:
  case PROP_OP:
  case PROP_VALUE: {
    GstTensorOpChain c = { 0 };
    gboolean running;
    gchar *kept;

    GST_OBJECT_LOCK (self);
    c.ops_set = g_strdup (self->ops_set);
    c.op = g_strdup (self->op);
    c.value = g_strdup (self->value);
    GST_OBJECT_UNLOCK (self);
    if (prop_id == PROP_OPS) {
      const gchar *text = g_value_get_string (value);

      g_free (c.ops_set);
      /* "" is the empty chain, as not setting ops at all */
      c.ops_set = text && *text ? g_strdup (text) : NULL;
    } else {
      gchar **field = prop_id == PROP_OP ? &c.op : &c.value;

      g_free (*field);
      *field = g_value_dup_string (value);
    }
    gst_tensor_op_chain_build (&c);
    /* Stopped, what cannot be used is stored and start() reports it.  A
     * running element keeps the chain it has: a bad value is refused with
     * a warning, and a shorthand half set (op, then value) waits for the
     * other half. */
    running = gst_tn_element_is_running (GST_ELEMENT (self));
    if (c.chain == NULL && running && !c.incomplete) {
      GST_OBJECT_LOCK (self);
      kept = g_strdup (self->ops);
      GST_OBJECT_UNLOCK (self);
      gst_tn_element_property_warning (
          GST_ELEMENT (self), c.bad_prop, c.bad_text, c.error, kept);
      g_free (kept);
      gst_tensor_op_chain_clear (&c);
      return;
    }
    GST_OBJECT_LOCK (self);
    gst_tensor_op_chain_swap (self, &c, c.chain == NULL && running);
    GST_OBJECT_UNLOCK (self);
    gst_tensor_op_chain_clear (&c);
    break;
  }
  case PROP_N_THREADS:
    gst_tn_element_set_n_threads (GST_ELEMENT (self), &self->n_threads, value);
    return;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  /* A new chain may change the output caps, or only the arithmetic
   * (then set_caps does not run again: transform recompiles). */
  g_atomic_int_set (&self->dirty, 1);
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_tensor_op_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTensorOp *self = GST_TENSOR_OP (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_OPS:
    g_value_set_string (value, self->ops);
    break;
  case PROP_OP:
    g_value_set_string (value, self->op);
    break;
  case PROP_VALUE:
    g_value_set_string (value, self->value);
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
gst_tensor_op_finalize (GObject *object)
{
  GstTensorOp *self = GST_TENSOR_OP (object);
  GstTensorOpChain c = { 0 };

  gst_tensor_op_chain_swap (self, &c, FALSE);
  gst_tensor_op_chain_clear (&c);
  tn_ewise_free (self->prog);
  gst_tn_caps_refusal_clear (&self->refused);
  G_OBJECT_CLASS (gst_tensor_op_parent_class)->finalize (object);
}

static void
gst_tensor_op_init (GstTensorOp *self)
{
  tn_ewise_chain *chain = NULL;

  tn_ewise_chain_parse (GST_TENSOR_OP_DEFAULT_OPS, &chain, NULL);
  self->ops = g_strdup (GST_TENSOR_OP_DEFAULT_OPS);
  self->chain = chain;
  self->n_threads = GST_TN_N_THREADS_DEFAULT;
}

static void
gst_tensor_op_class_init (GstTensorOpClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (
      gst_tensor_op_debug, "tensorop", 0, "Tensor elementwise math");

  gobject_class->set_property = gst_tensor_op_set_property;
  gobject_class->get_property = gst_tensor_op_get_property;
  gobject_class->finalize = gst_tensor_op_finalize;

  /**
   * GstTensorOp:ops:
   *
   * The chain of steps, applied in order in one pass, e.g.
   * "cast:float32,sub:127.5,div:127.5".  The empty chain (the default)
   * passes buffers through.  A chain that cannot be used is an error when
   * the element starts (a warning, keeping the chain in use, while it
   * runs).  Reading it gives the chain in effect, also when
   * #GstTensorOp:op and #GstTensorOp:value set it.
   */
  g_object_class_install_property (gobject_class, PROP_OPS,
      g_param_spec_string ("ops", "Ops",
          "Steps separated by ',', arguments by ':' (add sub mul div pow min "
          "max mod take a number or a .npy path, converted to the tensor's "
          "type at that step; clamp:LO:HI; cast:TYPE; neg abs sqrt exp log "
          "relu sigmoid tanh floor ceil round). Empty: pass buffers through",
          GST_TENSOR_OP_DEFAULT_OPS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstTensorOp:op:
   *
   * With #GstTensorOp:value, a one-step chain: op=mul value=2 is
   * ops=mul:2; an error together with #GstTensorOp:ops.  A name that is
   * not a step is an error when the element starts.  Default: not set.
   */
  g_object_class_install_property (gobject_class, PROP_OP,
      g_param_spec_string ("op", "Op",
          "Name of the one step to apply (shorthand for ops=OP:VALUE; not "
          "together with ops)",
          NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstTensorOp:value:
   *
   * The operand of #GstTensorOp:op: a number, the path of a .npy file, or
   * LO:HI for clamp.  Checked with op when the element starts: an op that
   * needs an operand and has none fails then.  Default: not set.
   */
  g_object_class_install_property (gobject_class, PROP_VALUE,
      g_param_spec_string ("value", "Value",
          "Operand of op: a number, a .npy path, or LO:HI for clamp", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstTensorOp:n-threads:
   *
   * Threads that share a tensor of 65536 items or more, from a worker
   * pool shared by the whole process; 0 uses every core.  The split
   * depends on the tensor's length alone, so every value gives the same
   * bits.
   */
  g_object_class_install_property (
      gobject_class, PROP_N_THREADS, gst_tn_param_spec_n_threads ());

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Tensor elementwise math", "Filter/Converter/Tensor",
      "Applies a chain of elementwise steps in one pass, in place when it "
      "can",
      "gst-tensor developers");

  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_tn_transform_accept_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_tn_transform_query);
  trans_class->transform_caps
      = GST_DEBUG_FUNCPTR (gst_tensor_op_transform_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_tensor_op_sink_event);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_tensor_op_set_caps);
  trans_class->transform_size = GST_DEBUG_FUNCPTR (gst_tn_transform_size);
  trans_class->decide_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_op_decide_allocation);
  trans_class->propose_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_op_propose_allocation);
  trans_class->prepare_output_buffer
      = GST_DEBUG_FUNCPTR (gst_tensor_op_prepare_output_buffer);
  trans_class->before_transform
      = GST_DEBUG_FUNCPTR (gst_tensor_op_before_transform);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_tensor_op_transform);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_tensor_op_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_tensor_op_stop);
}
