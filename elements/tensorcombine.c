/* GStreamer tensor plugin: elementwise arithmetic between the tensors of
 * several streams, with NumPy's broadcasting.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensorcombine
 * @title: tensorcombine
 * @see_also: tensorop, tensorstack, tensorconcat
 *
 * Computes one tensor from the tensors of its sink pads, item by item:
 * #GstTensorCombine:op=sub of two video frames is their difference,
 * op=div of a tensor by its row sums is a normalisation.
 *
 * - add, sub, mul, div, pow, mod, min, max fold left to right over the
 *   pads in pad order: (sink_0 op sink_1) op sink_2 ...;
 * - eq, ne, lt, le, gt, ge compare two pads and give bool;
 * - and, or, xor fold like add, on bool or integer tensors;
 * - where takes three pads, condition (bool), then and else, as
 *   numpy.where.
 *
 * The pads' dims broadcast by NumPy's rule: <N,3> with <N,1>, <480,640,3>
 * with <3>, <1,640,3> with <480,1,3>; the output has the broadcast dims.
 * Dims that do not broadcast fail negotiation with a message that names
 * the pads, both shapes and the axis.  Every pad must carry the same type
 * (where: then and else; the condition is bool): nothing converts
 * silently, and a mismatch fails negotiation with a message that names
 * the tensorop ops=cast:TYPE to put before the pad with the narrower
 * type.
 *
 * The arithmetic is tensorop's, from the same kernels: integers wrap, div
 * is floor division and mod takes the divisor's sign (as NumPy's // and
 * %), x/0 and x%0 give 0 on integers, float16 and bfloat16 are computed in
 * float32 and rounded once per op; an integer raised to a negative power
 * gives 1/x^-k truncated toward 0 (NumPy refuses it).  Comparisons with
 * NaN are false, but for ne.
 *
 * The output is written in place into sink_0's buffer when that buffer
 * is writable (nobody else holds it: never after a tee), dense, and has
 * the output's type and dims; otherwise it comes from a buffer pool.
 * Inputs may be strided views (the layout meta is advertised upstream).
 *
 * Streams are paired by running time (#GstTnAggregator:sync): with the
 * default sync=timestamp each output takes from every pad the buffer that
 * covers the time of sink_0's buffer, so streams of equal rate pair one
 * to one; sync=latest takes the newest buffer of every other pad at or
 * before it (a bias or a threshold that changes rarely).  One output per
 * buffer of sink_0, with its timestamps; the output ends when sink_0
 * ends, and with sync=timestamp also when another pad has ended and its
 * last buffer does not cover the next time.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=2 \
 *     ! "tensor/x-raw,type=float32,dims=<2,3>" ! c.sink_0 \
 *     tensorsrc pattern=fill value=10 num-buffers=2 \
 *     ! "tensor/x-raw,type=float32,dims=<3>" ! c.sink_1 \
 *     tensorcombine name=c op=add ! tensordebug ! fakesink
 * ]|
 * A <2,3> stream plus a <3> stream: float32 <2,3>, 10 to 15.
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=int32,dims=<4,1>" ! c.sink_0 \
 *     tensorsrc pattern=fill value=2 num-buffers=1 \
 *     ! "tensor/x-raw,type=int32,dims=<1,3>" ! c.sink_1 \
 *     tensorcombine name=c op=gt ! tensordebug ! fakesink
 * ]|
 * Each of 0..3 compared with 2, broadcast to bool <4,3>.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=3 pattern=smpte \
 *     ! video/x-raw,format=GRAY8,width=64,height=48 ! tensorconvert \
 *     ! tensorop ops=cast:int16 ! c.sink_0 \
 *     videotestsrc num-buffers=3 pattern=ball \
 *     ! video/x-raw,format=GRAY8,width=64,height=48 ! tensorconvert \
 *     ! tensorop ops=cast:int16 ! c.sink_1 \
 *     tensorcombine name=c op=sub ! tensorop ops=abs ! tensordebug \
 *     ! fakesink
 * ]|
 * The absolute difference of two video streams, in int16.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "core/combine.h"
#include "elements.h"
#include "tnagg.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_combine_debug);
#define GST_CAT_DEFAULT gst_tensor_combine_debug

#define GST_TYPE_TENSOR_COMBINE (gst_tensor_combine_get_type ())
G_DECLARE_FINAL_TYPE (
    GstTensorCombine, gst_tensor_combine, GST, TENSOR_COMBINE, GstTnAggregator)

#define GST_TYPE_TENSOR_COMBINE_OP (gst_tensor_combine_op_get_type ())

enum {
  PROP_0,
  PROP_OP,
  PROP_N_THREADS,
};

#define DEFAULT_OP TN_COMBINE_ADD

/* A plan and the operand views it was compiled for. */
typedef struct {
  tn_view v[3];
  tn_combine *plan;
} CombineStep;

struct _GstTensorCombine {
  GstTnAggregator parent;

  /* The object lock: */
  tn_combine_op op;
  gint n_threads;
  /* Under the base's lock (negotiate, combine): what negotiate accepted,
   * and the plan of each step of the last buffer (steps[k - 1] combines
   * pad k in; one step when the op does not fold), reused while the next
   * buffer's views are the same (a compile is a calloc and a walk of each
   * operand, about 0.5 us: what tensorop's add:1 costs on 16 items).
   * Emptied when the caps change. */
  tn_combine_op op_used;
  CombineStep *steps;
  guint n_steps;
};

G_DEFINE_TYPE (GstTensorCombine, gst_tensor_combine, GST_TYPE_TN_AGGREGATOR);
GST_ELEMENT_REGISTER_DEFINE (
    tensorcombine, "tensorcombine", GST_RANK_NONE, GST_TYPE_TENSOR_COMBINE);

static GType
gst_tensor_combine_op_get_type (void)
{
  static GType type;
  static const GEnumValue values[] = {
    { TN_COMBINE_ADD, "a + b", "add" },
    { TN_COMBINE_SUB, "a - b", "sub" },
    { TN_COMBINE_MUL, "a * b", "mul" },
    { TN_COMBINE_DIV, "a / b (floor division on integers)", "div" },
    { TN_COMBINE_POW, "a ** b", "pow" },
    { TN_COMBINE_MOD, "a % b (the divisor's sign)", "mod" },
    { TN_COMBINE_MIN, "minimum (NaN if either is NaN)", "min" },
    { TN_COMBINE_MAX, "maximum (NaN if either is NaN)", "max" },
    { TN_COMBINE_EQ, "a == b (bool)", "eq" },
    { TN_COMBINE_NE, "a != b (bool)", "ne" },
    { TN_COMBINE_LT, "a < b (bool)", "lt" },
    { TN_COMBINE_LE, "a <= b (bool)", "le" },
    { TN_COMBINE_GT, "a > b (bool)", "gt" },
    { TN_COMBINE_GE, "a >= b (bool)", "ge" },
    { TN_COMBINE_AND, "a & b (bool, integers)", "and" },
    { TN_COMBINE_OR, "a | b (bool, integers)", "or" },
    { TN_COMBINE_XOR, "a ^ b (bool, integers)", "xor" },
    { TN_COMBINE_WHERE, "numpy.where (condition, then, else)", "where" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("GstTensorCombineOp", values));
  return type;
}

/* How wide a type is for the cast suggestion: item size first, then
 * float over signed over unsigned over bool at one size. */
static gint
width_rank (tn_dtype t)
{
  static const gint kind_rank[] = { [TN_KIND_BOOL] = 0,
    [TN_KIND_UINT] = 1,
    [TN_KIND_INT] = 2,
    [TN_KIND_FLOAT] = 3 };

  return (gint) tn_dtype_size (t) * 4 + kind_rank[tn_dtype_kind (t)];
}

/* A pad whose type differs from its reference pad's: the message names
 * both tensors and the cast to put before the narrower one. */
static gboolean
check_types (tn_combine_op op, guint n, const GstTnAggInput *in, GError **err)
{
  for (guint k = op == TN_COMBINE_WHERE ? 2 : 1; k < n; k++) {
    const GstTnAggInput *a = &in[op == TN_COMBINE_WHERE ? 1 : 0], *b = &in[k];
    const GstTnAggInput *narrow, *wide;
    gchar *sa, *sb;

    if (b->info.dtype == a->info.dtype)
      continue;
    narrow = width_rank (b->info.dtype) < width_rank (a->info.dtype) ? b : a;
    wide = narrow == a ? b : a;
    sa = gst_tn_info_to_string (&a->info);
    sb = gst_tn_info_to_string (&b->info);
    gst_tn_negotiation_error (err,
        "%s has %s but %s has %s: tensorcombine op=%s needs one type on "
        "those pads and converts nothing; put tensorop ops=cast:%s before "
        "%s (the narrower type)",
        b->name, sb, a->name, sa, tn_combine_op_name (op),
        tn_dtype_name (wide->info.dtype), narrow->name);
    g_free (sa);
    g_free (sb);
    return FALSE;
  }
  return TRUE;
}

static gboolean
views_equal (const tn_view *a, const tn_view *b, int n)
{
  for (int k = 0; k < n; k++) {
    const gsize dims = sizeof a[k].dims[0] * (gsize) a[k].rank;

    if (a[k].dtype != b[k].dtype || a[k].rank != b[k].rank
        || a[k].offset != b[k].offset || memcmp (a[k].dims, b[k].dims, dims)
        || memcmp (a[k].strides, b[k].strides, dims))
      return FALSE;
  }
  return TRUE;
}

static void
clear_plans (GstTensorCombine *self)
{
  for (guint k = 0; k < self->n_steps; k++)
    g_clear_pointer (&self->steps[k].plan, tn_combine_free);
  g_clear_pointer (&self->steps, g_free);
  self->n_steps = 0;
}

static gboolean
gst_tensor_combine_negotiate (GstTnAggregator *agg, guint n,
    const GstTnAggInput *in, GstTnInfo *out, GError **err)
{
  GstTensorCombine *self = GST_TENSOR_COMBINE (agg);
  const gchar *names[TN_COMBINE_MAX_INPUTS];
  const int64_t *dims[TN_COMBINE_MAX_INPUTS];
  int ranks[TN_COMBINE_MAX_INPUTS], rank;
  tn_dtype dt[TN_COMBINE_MAX_INPUTS];
  tn_combine_op op;
  tn_err e;

  GST_OBJECT_LOCK (self);
  op = self->op_used = self->op;
  GST_OBJECT_UNLOCK (self);
  if (n > TN_COMBINE_MAX_INPUTS) {
    gst_tn_negotiation_error (err,
        "tensorcombine takes at most %d pads, not %u", TN_COMBINE_MAX_INPUTS,
        n);
    return FALSE;
  }
  if (!tn_combine_folds (op) && n != (guint) tn_combine_arity (op)) {
    gst_tn_negotiation_error (err,
        "tensorcombine op=%s takes exactly %d pads (%s), and %u are "
        "linked",
        tn_combine_op_name (op), tn_combine_arity (op),
        op == TN_COMBINE_WHERE ? "condition, then, else" : "sink_0, sink_1", n);
    return FALSE;
  }
  if (!check_types (op, n, in, err))
    return FALSE;
  for (guint k = 0; k < n; k++) {
    names[k] = in[k].name;
    dims[k] = in[k].info.dims;
    ranks[k] = in[k].info.rank;
    dt[k] = in[k].info.dtype;
  }
  if (tn_combine_check (op, (int) n, dt, dims, ranks, names, out->dims, &rank,
          &out->dtype, NULL, &e)
      < 0) {
    GString *s = g_string_new (NULL);

    for (guint k = 0; k < n; k++) {
      gchar *t = gst_tn_info_to_string (&in[k].info);

      g_string_append_printf (s, "%s%s %s", k ? ", " : "", in[k].name, t);
      g_free (t);
    }
    gst_tn_negotiation_error (err, "tensorcombine op=%s cannot combine %s: %s",
        tn_combine_op_name (op), s->str, e.msg);
    g_string_free (s, TRUE);
    return FALSE;
  }
  out->rank = rank;
  /* New caps: every step planned again on its first buffer. */
  clear_plans (self);
  self->n_steps = tn_combine_folds (op) ? n - 1 : 1;
  self->steps = g_new0 (CombineStep, self->n_steps);
  return TRUE;
}

/* Step k's plan, run: compiled when the views differ from the last
 * buffer's.  On failure (which negotiate rules out) an element error. */
static gboolean
run_plan (GstTensorCombine *self, guint k, tn_combine_op op, const tn_view *v,
    void *dst, const void *const *bases, gint nthreads)
{
  const int nops = tn_combine_arity (op);
  CombineStep *s;
  tn_err e;

  g_assert (k < self->n_steps);
  s = &self->steps[k];
  if (s->plan == NULL || !views_equal (s->v, v, nops)) {
    g_clear_pointer (&s->plan, tn_combine_free);
    if (tn_combine_compile (op, v, &s->plan, &e) < 0) {
      GST_ELEMENT_ERROR (self, CORE, FAILED,
          ("%s: cannot plan op=%s: %s", GST_OBJECT_NAME (self),
              tn_combine_op_name (op), e.msg),
          (NULL));
      return FALSE;
    }
    memcpy (s->v, v, sizeof v[0] * (gsize) nops);
  }
  g_assert (dst != bases[0] || tn_combine_in_place_ok (s->plan));
  tn_combine_run (s->plan, dst, bases, nthreads);
  return TRUE;
}

/* Whether sink_0's buffer may become the output: the plan would write it
 * in place (dense, the output's dims and type) and the base allows it
 * (gst_tn_aggregator_take_in_place). */
static GstBuffer *
take_sink0 (GstTensorCombine *self, GstTnAggInput *in0, const GstTnInfo *oi)
{
  if (self->op_used == TN_COMBINE_WHERE || !tn_view_dense (&in0->view)
      || in0->view.offset != 0 || in0->buffer == NULL)
    return NULL;
  return gst_tn_aggregator_take_in_place (GST_TN_AGGREGATOR (self), in0, oi);
}

static GstFlowReturn
gst_tensor_combine_combine (GstTnAggregator *agg, guint n, GstTnAggInput *in,
    const GstTnInfo *out_info, GstBuffer **out)
{
  GstTensorCombine *self = GST_TENSOR_COMBINE (agg);
  const tn_combine_op op = self->op_used;
  GstTnMap maps[TN_COMBINE_MAX_INPUTS];
  guint mapped = 0, first = 0;
  GstFlowReturn ret = GST_FLOW_OK;
  GstMapInfo mo;
  tn_view ov, v[3];
  const void *bases[3];
  gint nthreads;
  tn_err e;

  GST_OBJECT_LOCK (self);
  nthreads = g_atomic_int_get (&self->n_threads);
  GST_OBJECT_UNLOCK (self);

  *out = take_sink0 (self, &in[0], out_info);
  if (*out == NULL) {
    ret = gst_tn_aggregator_alloc_output (agg, out);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  if (!gst_buffer_map (*out, &mo, GST_MAP_READWRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("%s: cannot map the output buffer.", GST_OBJECT_NAME (self)), (NULL));
    gst_clear_buffer (out);
    return GST_FLOW_ERROR;
  }
  if (in[0].buffer == NULL) /* taken: sink_0 is read where it is written */
    first = 1;
  for (guint k = first; k < n; k++, mapped++) {
    if (!gst_tn_aggregator_map_input (agg, &in[k], &maps[k], GST_MAP_READ)) {
      ret = GST_FLOW_ERROR;
      goto done;
    }
  }
  if (tn_view_init (&ov, out_info->dtype, out_info->dims, out_info->rank, &e)
      < 0)
    g_assert_not_reached (); /* negotiate made these dims */

  if (!tn_combine_folds (op)) {
    for (guint k = 0; k < n; k++) {
      v[k] = in[k].view;
      bases[k] = first && k == 0 ? (const void *) mo.data : maps[k].data;
    }
    if (!run_plan (self, 0, op, v, mo.data, bases, nthreads))
      ret = GST_FLOW_ERROR;
    goto done;
  }
  /* A fold: sink_0 broadcast to the output's dims, so that every step
   * writes the whole output, the steps after the first in place. */
  for (guint k = 1; k < n && ret == GST_FLOW_OK; k++) {
    if (k == 1) {
      v[0] = in[0].view;
      if (tn_view_broadcast (&v[0], out_info->dims, out_info->rank, &e) < 0)
        g_assert_not_reached ();
      bases[0] = first ? (const void *) mo.data : maps[0].data;
    } else {
      v[0] = ov;
      bases[0] = mo.data;
    }
    v[1] = in[k].view;
    bases[1] = maps[k].data;
    if (!run_plan (self, k - 1, op, v, mo.data, bases, nthreads))
      ret = GST_FLOW_ERROR;
  }
done:
  for (guint k = first; k < first + mapped; k++)
    gst_tn_buffer_unmap (&maps[k]);
  gst_buffer_unmap (*out, &mo);
  if (ret != GST_FLOW_OK)
    gst_clear_buffer (out);
  return ret;
}

static void
gst_tensor_combine_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorCombine *self = GST_TENSOR_COMBINE (object);

  switch (prop_id) {
  case PROP_OP:
    if (!gst_tn_element_property_settable (GST_ELEMENT (object), pspec, value))
      return;
    GST_OBJECT_LOCK (self);
    self->op = g_value_get_enum (value);
    GST_OBJECT_UNLOCK (self);
    break;
  case PROP_N_THREADS:
    gst_tn_element_set_n_threads (GST_ELEMENT (self), &self->n_threads, value);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
}

static void
gst_tensor_combine_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTensorCombine *self = GST_TENSOR_COMBINE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_OP:
    g_value_set_enum (value, self->op);
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

static gboolean
gst_tensor_combine_start (GstAggregator *agg)
{
  GstTensorCombine *self = GST_TENSOR_COMBINE (agg);

  if (!gst_tn_element_check_n_threads (
          GST_ELEMENT (self), g_atomic_int_get (&self->n_threads)))
    return FALSE;
  return GST_AGGREGATOR_CLASS (gst_tensor_combine_parent_class)->start (agg);
}

/* The plans go after the base's stop: GstAggregator may have restarted
 * its task (a flushing seek during the state change) and calls stop
 * before it stops the task again, so a combine may still run.  The
 * base's stop waits for it under the base's lock, and leaves nothing
 * negotiated for another. */
static gboolean
gst_tensor_combine_stop (GstAggregator *agg)
{
  gboolean ok
      = GST_AGGREGATOR_CLASS (gst_tensor_combine_parent_class)->stop (agg);

  clear_plans (GST_TENSOR_COMBINE (agg));
  return ok;
}

static void
gst_tensor_combine_finalize (GObject *object)
{
  clear_plans (GST_TENSOR_COMBINE (object));
  G_OBJECT_CLASS (gst_tensor_combine_parent_class)->finalize (object);
}

static void
gst_tensor_combine_class_init (GstTensorCombineClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstTnAggregatorClass *tn_class = GST_TN_AGGREGATOR_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_tensor_combine_debug, "tensorcombine", 0,
      "elementwise ops between tensor streams");

  gobject_class->set_property = gst_tensor_combine_set_property;
  gobject_class->get_property = gst_tensor_combine_get_property;
  gobject_class->finalize = gst_tensor_combine_finalize;
  GST_AGGREGATOR_CLASS (klass)->start
      = GST_DEBUG_FUNCPTR (gst_tensor_combine_start);
  GST_AGGREGATOR_CLASS (klass)->stop
      = GST_DEBUG_FUNCPTR (gst_tensor_combine_stop);

  /**
   * GstTensorCombine:op:
   *
   * The op: add, sub, mul, div, pow, mod, min, max, and, or, xor fold over
   * every pad in pad order (two or more); eq, ne, lt, le, gt, ge take two
   * pads and give bool; where takes three (condition, then, else).  A
   * name that is none of these is refused when the pipeline is built.
   * Default add.  Settable in NULL and READY.
   */
  g_object_class_install_property (gobject_class, PROP_OP,
      g_param_spec_enum ("op", "Op",
          "The elementwise op between the pads' tensors",
          GST_TYPE_TENSOR_COMBINE_OP, DEFAULT_OP,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
  /**
   * GstTensorCombine:n-threads:
   *
   * Threads of the process-wide worker pool that share one large output
   * (tensors from 65536 items), 0 for one per core.  Every value gives the
   * same bits: the work is split at borders that depend on the output's
   * item count alone.  0 to 64, default 0.
   */
  g_object_class_install_property (
      gobject_class, PROP_N_THREADS, gst_tn_param_spec_n_threads ());

  tn_class->negotiate = gst_tensor_combine_negotiate;
  tn_class->combine = gst_tensor_combine_combine;
  tn_class->min_pads = 2;
  gst_tn_aggregator_class_add_pad_templates (tn_class, NULL, NULL);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "Tensor combine", "Filter/Combiner/Tensor",
      "Computes a tensor from the tensors of several streams, item by item "
      "with NumPy's broadcasting",
      "gst-tensor developers");
  gst_type_mark_as_plugin_api (GST_TYPE_TENSOR_COMBINE_OP, 0);
}

static void
gst_tensor_combine_init (GstTensorCombine *self)
{
  self->op = self->op_used = DEFAULT_OP;
  self->n_threads = GST_TN_N_THREADS_DEFAULT;
}
