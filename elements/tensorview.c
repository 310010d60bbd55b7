/* GStreamer tensor plugin: zero-copy views (permute, slice, reshape...).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensorview
 * @title: tensorview
 * @see_also: tensorconvert, tensordebug
 *
 * Changes how a tensor is laid out without touching its bytes: permute
 * the axes (HWC to CHW), crop with a slice, pick one index, add or drop
 * an axis of extent 1, reshape a dense tensor, broadcast.  The output caps
 * carry the new dims; the output buffer shares the input's memory.
 *
 * #GstTensorView:ops is a list of steps separated by `,`, each with its
 * arguments separated by `:` (the grammar of tensorop):
 *
 * * `permute:A0:A1:...` puts input axis Ai at position i
 * * `transpose` swaps the last two axes
 * * `slice:AXIS:START:STOP[:STEP]` keeps START <= i < STOP (Python rules:
 *   negative values count from the end, out-of-range values clamp)
 * * `select:AXIS:INDEX` keeps one index and drops the axis
 * * `reshape:D0:D1:...` relabels a dense tensor (one extent may be -1);
 *   a strided tensor is first copied once
 * * `expand:AXIS` inserts an axis of extent 1, `squeeze:AXIS` drops one
 * * `broadcast:D0:D1:...` stretches to these dims by NumPy's rule
 *
 * A result that is dense (a slice along the first axis of a dense tensor,
 * a reshape, an expand...) is a sub-range of the input memory and needs no
 * meta.  Any other result carries the layout meta when downstream
 * advertised it in the ALLOCATION query, and is copied once, into a buffer
 * of a tensor pool, when it did not.  #GstTensorView:bytes-copied counts
 * the copies.
 *
 * A writable input buffer is passed on itself, its range cut with
 * gst_buffer_resize() and its layout meta changed in place, so that
 * nothing is allocated and an upstream pool gets its buffer back whole; a
 * shared one gets a new buffer over the same memory, except when the steps
 * leave a dense tensor as it is: then it goes on untouched.  The view is
 * worked out once per input layout, not per buffer.
 *
 * A step that does not fit the tensor fails negotiation with an element
 * error that names the step, the axis and the extents, e.g. "axis 3 is
 * out of range for a tensor of rank 3".
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=3 ! tensorconvert \
 *     ! tensorview ops=permute:2:0:1,slice:1:0:240 ! tensordebug ! fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/base/gstbasetransform.h>

#include "core/steps.h"
#include "elements.h"
#include "plugin/gsttensor.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_view_debug);
#define GST_CAT_DEFAULT gst_tensor_view_debug

#define GST_TYPE_TENSOR_VIEW (gst_tensor_view_get_type ())
G_DECLARE_FINAL_TYPE (
    GstTensorView, gst_tensor_view, GST, TENSOR_VIEW, GstBaseTransform)

typedef enum {
  VIEW_PERMUTE,
  VIEW_TRANSPOSE,
  VIEW_SLICE,
  VIEW_SELECT,
  VIEW_RESHAPE,
  VIEW_EXPAND,
  VIEW_SQUEEZE,
  VIEW_BROADCAST,
} ViewKind;

typedef struct {
  ViewKind kind;
  gint nargs;
  gint64 args[TN_MAX_RANK];
  gchar text[96]; /* the step as written, for messages */
} ViewStep;

static const struct {
  const gchar *name;
  gint min_args, max_args;
  const gchar *usage;
} view_kinds[] = {
  [VIEW_PERMUTE] = { "permute", 1, TN_MAX_RANK, "permute:AXIS:AXIS..." },
  [VIEW_TRANSPOSE] = { "transpose", 0, 0, "transpose" },
  [VIEW_SLICE] = { "slice", 3, 4, "slice:AXIS:START:STOP[:STEP]" },
  [VIEW_SELECT] = { "select", 2, 2, "select:AXIS:INDEX" },
  [VIEW_RESHAPE] = { "reshape", 0, TN_MAX_RANK, "reshape:DIM:DIM..." },
  [VIEW_EXPAND] = { "expand", 1, 1, "expand:AXIS" },
  [VIEW_SQUEEZE] = { "squeeze", 1, 1, "squeeze:AXIS" },
  [VIEW_BROADCAST] = { "broadcast", 0, TN_MAX_RANK, "broadcast:DIM:DIM..." },
};

/* The view the steps make of one input layout.  Buffers of a stream keep
 * their layout, so it is worked out for the first and looked up for the
 * rest: the per-buffer cost is then that of the buffer and meta calls. */
typedef struct {
  gboolean valid;
  /* the key: the input's size and layout meta (none: dense) */
  gsize in_size;
  gboolean in_meta;
  gint in_rank;
  gint64 in_offset;
  gint64 in_strides[TN_MAX_RANK];
  /* the result, at byte 0 of bytes [off, off + len) of the input */
  tn_view out;
  gsize off, len;
  gboolean dense;
  gboolean same; /* dense in, the same view out: the input as it is */
} ViewMemo;

#define VIEW_STEP_NAMES                                                        \
  "permute, transpose, slice, select, reshape, expand, squeeze, broadcast"

struct _GstTensorView {
  GstBaseTransform parent;

  /* under the object lock */
  gchar *ops;
  ViewStep *steps;
  gint nsteps;
  gchar *ops_error; /* why ops does not parse, or NULL */
  guint64 bytes_copied;

  /* streaming thread */
  GstTnInfo in_info, out_info;
  tn_view in_view; /* dense view of in_info */
  gsize in_nbytes;
  gboolean in_ok;      /* in_info describes a tensor that fits in memory */
  ViewStep *run_steps; /* ops as of set_caps, for the streaming thread */
  gint run_n;
  gboolean downstream_meta;
  gboolean caps_error_posted; /* accept-caps is asked more than once */
  ViewMemo memo;
};

enum {
  PROP_0,
  PROP_OPS,
  PROP_BYTES_COPIED,
};

#define DEFAULT_OPS ""

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

G_DEFINE_TYPE (GstTensorView, gst_tensor_view, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (
    tensorview, "tensorview", GST_RANK_NONE, GST_TYPE_TENSOR_VIEW);

/* Parses ops into steps with whole-number arguments; the meaning of the
 * numbers is checked against a tensor later. */
static gboolean
gst_tensor_view_parse (
    const gchar *ops, ViewStep **out, gint *nout, gchar **error)
{
  tn_steps s;
  tn_err e = { { 0 } };
  ViewStep *steps = NULL;
  gint i, j, k;

  *out = NULL;
  *nout = 0;
  if (tn_steps_parse (ops, &s, &e) != 0) {
    *error = g_strdup_printf ("ops '%s': %s.", ops, e.msg);
    tn_steps_clear (&s);
    return FALSE;
  }
  steps = g_new0 (ViewStep, MAX (s.n, 1));
  for (i = 0; i < s.n; i++) {
    const tn_step *st = &s.steps[i];
    ViewStep *vs = &steps[i];
    GString *text = g_string_new (st->name);

    for (k = 0; k < (gint) G_N_ELEMENTS (view_kinds); k++)
      if (g_strcmp0 (st->name, view_kinds[k].name) == 0)
        break;
    if (k == G_N_ELEMENTS (view_kinds)) {
      *error = g_strdup_printf ("ops '%s': step %d of %d ('%s') is not a view "
                                "step; expected one of " VIEW_STEP_NAMES ".",
          ops, i + 1, s.n, st->name);
      g_string_free (text, TRUE);
      goto fail;
    }
    if (st->nargs < view_kinds[k].min_args
        || st->nargs > view_kinds[k].max_args) {
      *error = g_strdup_printf ("ops '%s': step %d of %d ('%s') has %d "
                                "argument%s; expected %s (%d to %d "
                                "arguments).",
          ops, i + 1, s.n, st->name, st->nargs, st->nargs == 1 ? "" : "s",
          view_kinds[k].usage, view_kinds[k].min_args, view_kinds[k].max_args);
      g_string_free (text, TRUE);
      goto fail;
    }
    vs->kind = (ViewKind) k;
    vs->nargs = st->nargs;
    for (j = 0; j < st->nargs; j++) {
      g_string_append_printf (text, ":%s", st->args[j]);
      if (tn_steps_arg_int64 (&s, i, j, &vs->args[j], &e) != 0) {
        *error = g_strdup_printf ("ops '%s': %s.", ops, e.msg);
        g_string_free (text, TRUE);
        goto fail;
      }
    }
    g_strlcpy (vs->text, text->str, sizeof vs->text);
    g_string_free (text, TRUE);
  }
  *nout = s.n;
  *out = steps;
  tn_steps_clear (&s);
  return TRUE;

fail:
  g_free (steps);
  tn_steps_clear (&s);
  return FALSE;
}

/* An axis or index argument as an int, saturated so that a huge value
 * still reaches core's range check (and its message) as out of range. */
static gint
clamp_axis (gint64 a)
{
  return (gint) CLAMP (a, -1000, 1000);
}

static int
gst_tensor_view_step (const ViewStep *s, tn_view *v, tn_err *e)
{
  int axes[TN_MAX_RANK];
  gint i;

  switch (s->kind) {
  case VIEW_PERMUTE:
    for (i = 0; i < s->nargs; i++)
      axes[i] = clamp_axis (s->args[i]);
    return tn_view_permute (v, axes, s->nargs, e);
  case VIEW_TRANSPOSE:
    return tn_view_transpose (v, e);
  case VIEW_SLICE:
    return tn_view_slice (v, clamp_axis (s->args[0]), s->args[1], s->args[2],
        s->nargs > 3 ? s->args[3] : 1, e);
  case VIEW_SELECT:
    return tn_view_select (v, clamp_axis (s->args[0]), s->args[1], e);
  case VIEW_RESHAPE:
    return tn_view_reshape (v, s->args, s->nargs, e);
  case VIEW_EXPAND:
    return tn_view_expand (v, clamp_axis (s->args[0]), e);
  case VIEW_SQUEEZE:
    return tn_view_squeeze (v, clamp_axis (s->args[0]), e);
  case VIEW_BROADCAST:
    return tn_view_broadcast (v, s->args, s->nargs, e);
  }
  g_assert_not_reached ();
  return -1;
}

static gchar *
step_error (const ViewStep *steps, gint n, gint i, const tn_err *e)
{
  return g_strdup_printf (
      "step %d of %d ('%s'): %s.", i + 1, n, steps[i].text, e->msg);
}

/* Applies steps [from, n) to v.  Stops at a reshape of a view that is not
 * dense (*stop is its index, n when every step ran): the caller copies
 * first.  With dims_only a strided view is treated as dense there, which
 * is all the caps need.  FALSE with *error on a step that does not fit. */
/* tn_view_init writes the view it reads dims from. */
static const int64_t *
dims_copy (const tn_view *v, int64_t *dims)
{
  memcpy (dims, v->dims, sizeof v->dims);
  return dims;
}

static gboolean
gst_tensor_view_apply (const ViewStep *steps, gint n, tn_view *v, gint from,
    gboolean dims_only, gint *stop, gchar **error)
{
  int64_t dims[TN_MAX_RANK];
  tn_err e = { { 0 } };
  gint i;

  for (i = from; i < n; i++) {
    if (steps[i].kind == VIEW_RESHAPE && !tn_view_dense (v)) {
      if (!dims_only) {
        *stop = i;
        return TRUE;
      }
      tn_view_init (v, v->dtype, dims_copy (v, dims), v->rank, NULL);
    }
    if (gst_tensor_view_step (&steps[i], v, &e) != 0) {
      *error = step_error (steps, n, i, &e);
      return FALSE;
    }
  }
  *stop = n;
  return TRUE;
}

/* Output dims for input info; FALSE with a message naming the step. */
static gboolean
gst_tensor_view_out_info (const ViewStep *steps, gint n, const GstTnInfo *in,
    GstTnInfo *out, gchar **error)
{
  tn_err e = { { 0 } };
  tn_view v;
  gint stop;

  if (tn_view_init (&v, in->dtype, in->dims, in->rank, &e) != 0) {
    *error = g_strdup_printf ("%s.", e.msg);
    return FALSE;
  }
  if (!gst_tensor_view_apply (steps, n, &v, 0, TRUE, &stop, error))
    return FALSE;
  *out = *in;
  out->rank = v.rank;
  memcpy (out->dims, v.dims, sizeof out->dims);
  return TRUE;
}

/* The input dims that give dims, for chains of steps that can be undone
 * (permute, transpose, expand, squeeze); FALSE otherwise. */
static gboolean
gst_tensor_view_invert (const ViewStep *steps, gint n, gint64 *dims, gint *rank)
{
  gint i, k;

  for (i = n - 1; i >= 0; i--) {
    const ViewStep *s = &steps[i];
    gint64 d[TN_MAX_RANK];
    gint r = *rank, a;

    switch (s->kind) {
    case VIEW_PERMUTE:
      if (s->nargs != r)
        return FALSE;
      for (k = 0; k < r; k++) {
        a = clamp_axis (s->args[k]);
        a = a < 0 ? a + r : a;
        if (a < 0 || a >= r)
          return FALSE;
        d[a] = dims[k];
      }
      memcpy (dims, d, r * sizeof (gint64));
      break;
    case VIEW_TRANSPOSE:
      if (r < 2)
        return FALSE;
      d[0] = dims[r - 1];
      dims[r - 1] = dims[r - 2];
      dims[r - 2] = d[0];
      break;
    case VIEW_EXPAND:
      /* The axis counts in the output's rank. */
      a = clamp_axis (s->args[0]);
      a = a < 0 ? a + r : a;
      if (a < 0 || a >= r || dims[a] != 1)
        return FALSE;
      memmove (dims + a, dims + a + 1, (r - a - 1) * sizeof (gint64));
      (*rank)--;
      break;
    case VIEW_SQUEEZE:
      /* The axis counts in the input's rank. */
      a = clamp_axis (s->args[0]);
      a = a < 0 ? a + r + 1 : a;
      if (a < 0 || a > r || r + 1 > TN_MAX_RANK)
        return FALSE;
      memmove (dims + a + 1, dims + a, (r - a) * sizeof (gint64));
      dims[a] = 1;
      (*rank)++;
      break;
    default:
      return FALSE;
    }
  }
  return TRUE;
}

static void
gst_tensor_view_get_steps (
    GstTensorView *self, ViewStep **steps, gint *n, gchar **error)
{
  GST_OBJECT_LOCK (self);
  *steps = self->steps ? g_memdup2 (
               self->steps, sizeof (ViewStep) * MAX (self->nsteps, 1))
                       : NULL;
  *n = self->nsteps;
  if (error)
    *error = g_strdup (self->ops_error);
  GST_OBJECT_UNLOCK (self);
}

static GstCaps *
gst_tensor_view_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstTensorView *self = GST_TENSOR_VIEW (trans);
  GstCaps *out = gst_caps_new_empty ();
  ViewStep *steps;
  gchar *ops_error;
  gint n;
  guint i;

  gst_tensor_view_get_steps (self, &steps, &n, &ops_error);
  if (ops_error != NULL)
    goto done;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
    gint64 dims[TN_MAX_RANK];
    gint rank;

    if (!gst_tn_structure_get_dims (s, dims, &rank, NULL)) {
      /* Dims unknown or not fixed: any dims on the other side. */
      gst_structure_remove_field (s, "dims");
    } else if (direction == GST_PAD_SINK) {
      GstTnInfo in = { 0 }, o;
      gchar *err = NULL;

      in.rank = rank;
      memcpy (in.dims, dims, sizeof dims);
      if (gst_tensor_view_out_info (steps, n, &in, &o, &err)) {
        gst_tn_structure_set_dims (s, o.dims, o.rank);
      } else {
        /* Left open so that linking works: accept_caps refuses these
         * caps with the reason, which an empty result could not give. */
        GST_DEBUG_OBJECT (self, "%s", err);
        g_free (err);
        gst_structure_remove_field (s, "dims");
      }
    } else if (gst_tensor_view_invert (steps, n, dims, &rank)) {
      gst_tn_structure_set_dims (s, dims, rank);
    } else {
      gst_structure_remove_field (s, "dims");
    }
    out = gst_caps_merge_structure (out, s);
  }

done:
  g_free (steps);
  g_free (ops_error);
  if (filter) {
    GstCaps *t
        = gst_caps_intersect_full (filter, out, GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (out);
    out = t;
  }
  GST_LOG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, out);
  return out;
}

/* Upstream's fixed caps are where a step that does not fit shows: say so
 * in words before negotiation fails. */
static gboolean
gst_tensor_view_accept_caps (
    GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps)
{
  GstTensorView *self = GST_TENSOR_VIEW (trans);
  GstTnInfo in, o;
  ViewStep *steps;
  gchar *err = NULL, *desc, *ops;
  gint n;

  if (direction == GST_PAD_SINK && gst_caps_is_fixed (caps)
      && gst_tn_info_from_caps (&in, caps, NULL)) {
    gst_tensor_view_get_steps (self, &steps, &n, NULL);
    if (!gst_tensor_view_out_info (steps, n, &in, &o, &err)) {
      desc = gst_tn_info_to_string (&in);
      GST_OBJECT_LOCK (self);
      ops = g_strdup (self->ops);
      GST_OBJECT_UNLOCK (self);
      if (!self->caps_error_posted)
        GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
            ("ops '%s' cannot view a tensor %s: %s", ops, desc, err),
            ("caps %" GST_PTR_FORMAT, caps));
      self->caps_error_posted = TRUE;
      g_free (ops);
      g_free (desc);
      g_free (err);
      g_free (steps);
      return FALSE;
    }
    g_free (steps);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_tensor_view_parent_class)
      ->accept_caps (trans, direction, caps);
}

static gboolean
gst_tensor_view_set_caps (
    GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstTensorView *self = GST_TENSOR_VIEW (trans);
  GError *err = NULL;
  gint n;

  if (!gst_tn_info_from_caps (&self->in_info, incaps, &err)
      || !gst_tn_info_from_caps (&self->out_info, outcaps, &err)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot read the tensor caps: %s", err->message),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    g_clear_error (&err);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  n = self->nsteps;
  GST_OBJECT_UNLOCK (self);
  /* Only the empty list is the identity: permute:1:0 of a square tensor
   * keeps the caps but not the layout. */
  self->in_ok = tn_view_init (&self->in_view, self->in_info.dtype,
                    self->in_info.dims, self->in_info.rank, NULL)
                    == 0
                && gst_tn_info_size (&self->in_info, &self->in_nbytes);
  g_free (self->run_steps);
  gst_tensor_view_get_steps (self, &self->run_steps, &self->run_n, NULL);
  gst_base_transform_set_passthrough (trans, n == 0);
  self->downstream_meta = FALSE;
  self->memo.valid = FALSE;
  return TRUE;
}

/* This element reads any layout: a view of a view is one view. */
static gboolean
gst_tensor_view_propose_allocation (
    GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
  GType api = GST_TN_LAYOUT_META_API_TYPE;

  if (!GST_BASE_TRANSFORM_CLASS (gst_tensor_view_parent_class)
           ->propose_allocation (trans, decide_query, query))
    return FALSE;
  if (!gst_base_transform_is_passthrough (trans)
      && !gst_query_find_allocation_meta (query, api, NULL))
    gst_query_add_allocation_meta (query, api, NULL);
  return TRUE;
}

static gboolean
gst_tensor_view_decide_allocation (GstBaseTransform *trans, GstQuery *query)
{
  GstTensorView *self = GST_TENSOR_VIEW (trans);
  GstCaps *caps;
  gsize size;

  self->downstream_meta = gst_query_find_allocation_meta (
      query, GST_TN_LAYOUT_META_API_TYPE, NULL);
  GST_DEBUG_OBJECT (
      self, "downstream reads the layout meta: %d", self->downstream_meta);

  /* The pool only serves the copies made when downstream reads dense
   * tensors only. */
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || !gst_tn_info_size (&self->out_info, &size) || size == 0
      || size > G_MAXUINT)
    return TRUE;
  if (!gst_tn_decide_allocation (query, caps, size))
    GST_WARNING_OBJECT (self,
        "no tensor pool for %" G_GSIZE_FORMAT " bytes; "
        "copies will use the allocator",
        size);
  return TRUE;
}

static void
gst_tensor_view_count_copy (GstTensorView *self, gsize bytes)
{
  GST_OBJECT_LOCK (self);
  self->bytes_copied += bytes;
  GST_OBJECT_UNLOCK (self);
}

/* The view of buf its caps and layout meta describe; FALSE when it does
 * not fit in buf. */
static gboolean
gst_tensor_view_in_view (GstTensorView *self, GstBuffer *buf, tn_view *v)
{
  return self->in_ok
         && gst_tn_buffer_view (buf, &self->in_view, self->in_nbytes, v);
}

/* Puts v's layout (v at byte 0 of buf) on writable buf: the meta when v
 * is not dense, none when it is.  An existing meta is changed in place. */
static void
gst_tensor_view_set_layout (GstBuffer *buf, const tn_view *v, gboolean dense)
{
  GstTnLayoutMeta *meta;

  if (!dense) {
    gst_tn_buffer_add_layout_meta (buf, v->rank, v->offset, v->strides);
    return;
  }
  meta = gst_tn_buffer_get_layout_meta (buf);
  if (meta != NULL)
    gst_buffer_remove_meta (buf, &meta->meta);
}

/* A buffer sharing buf's memory that holds v: the smallest range of buf
 * that covers every item v reaches, the layout meta when v is not dense
 * from byte 0 of that range.  v's offset becomes 0. */
static GstBuffer *
gst_tensor_view_region (GstBuffer *buf, tn_view *v)
{
  gsize isz = tn_dtype_size (v->dtype);
  gint64 span = 1;
  int64_t dims[TN_MAX_RANK];
  GstBuffer *out;
  gint k;

  if (tn_view_count (v) == 0) {
    out = gst_buffer_new ();
    gst_buffer_copy_into (out, buf,
        GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS
            | GST_BUFFER_COPY_META,
        0, -1);
    tn_view_init (v, v->dtype, dims_copy (v, dims), v->rank, NULL);
    return out;
  }
  for (k = 0; k < v->rank; k++)
    span += (v->dims[k] - 1) * v->strides[k];
  /* A region drops memory-tagged metas such as buf's own layout meta, and
   * keeps timestamps only from byte 0: copy them whole. */
  if (v->offset == 0 && (gsize) span * isz == gst_buffer_get_size (buf)) {
    /* The whole buffer: its memory by reference, no new memory object. */
    out = gst_buffer_copy (buf);
  } else {
    out = gst_buffer_copy_region (
        buf, GST_BUFFER_COPY_ALL, v->offset * isz, (gsize) span * isz);
    if (out == NULL)
      return NULL;
    gst_buffer_copy_into (out, buf, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  }
  v->offset = 0;
  gst_tensor_view_set_layout (out, v, tn_view_dense (v));
  return out;
}

/* The pool decide_allocation configured, activated on first use as the
 * base class does with its own; NULL means the allocator. */
static GstBufferPool *
gst_tensor_view_pool (GstBaseTransform *trans)
{
  GstBufferPool *pool = gst_base_transform_get_buffer_pool (trans);

  if (pool != NULL && !gst_buffer_pool_is_active (pool)
      && !gst_buffer_pool_set_active (pool, TRUE)) {
    GST_WARNING_OBJECT (trans, "could not activate %s", GST_OBJECT_NAME (pool));
    gst_object_unref (pool);
    pool = NULL;
  }
  return pool;
}

static GstFlowReturn
gst_tensor_view_error (GstTensorView *self, const gchar *msg)
{
  GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", msg), (NULL));
  return GST_FLOW_ERROR;
}

/* The memo for buf's layout, worked out when buf's layout is not the last
 * one's.  NULL for what only the general path handles: a buffer that does
 * not fit, a reshape of a strided view (a copy) and an empty result. */
static const ViewMemo *
gst_tensor_view_lookup (GstTensorView *self, GstBuffer *buf)
{
  GstTnLayoutMeta *meta = gst_tn_buffer_get_layout_meta (buf);
  gsize size = gst_buffer_get_size (buf), isz;
  ViewMemo *r = &self->memo;
  gchar *msg = NULL;
  tn_view in, v;
  gint64 span = 1;
  gint k, stop;

  if (r->valid && r->in_size == size && r->in_meta == (meta != NULL)
      && (meta == NULL
          || (meta->rank == r->in_rank && meta->offset == r->in_offset
              && memcmp (meta->strides, r->in_strides, sizeof r->in_strides)
                     == 0)))
    return r;

  r->valid = FALSE;
  if (!gst_tensor_view_in_view (self, buf, &in))
    return NULL;
  v = in;
  if (!gst_tensor_view_apply (
          self->run_steps, self->run_n, &v, 0, FALSE, &stop, &msg)) {
    g_free (msg);
    return NULL;
  }
  if (stop != self->run_n || tn_view_count (&v) == 0)
    return NULL;

  r->in_size = size;
  r->in_meta = meta != NULL;
  r->in_rank = meta ? meta->rank : 0;
  r->in_offset = meta ? meta->offset : 0;
  if (meta)
    memcpy (r->in_strides, meta->strides, sizeof r->in_strides);
  else
    memset (r->in_strides, 0, sizeof r->in_strides);
  r->same
      = meta == NULL && v.rank == in.rank && v.offset == in.offset
        && memcmp (v.dims, in.dims, v.rank * sizeof v.dims[0]) == 0
        && memcmp (v.strides, in.strides, v.rank * sizeof v.strides[0]) == 0;
  isz = tn_dtype_size (v.dtype);
  for (k = 0; k < v.rank; k++)
    span += (v.dims[k] - 1) * v.strides[k];
  r->off = (gsize) v.offset * isz;
  r->len = (gsize) span * isz;
  v.offset = 0;
  r->out = v;
  r->dense = tn_view_dense (&v);
  r->valid = TRUE;
  return r;
}

static GstFlowReturn gst_tensor_view_general (
    GstTensorView *self, GstBuffer *inbuf, GstBuffer **outbuf);

/* Passes the memory on without a copy: the input itself when it is
 * writable (cut, its meta set in place) or the view leaves it as it is,
 * else a new buffer over the same memory.  Anything else, and a view that
 * downstream could not read, takes the general path. */
static GstFlowReturn
gst_tensor_view_prepare_output_buffer (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer **outbuf)
{
  /* Not GST_TENSOR_VIEW (): its type check is a tenth of this path. */
  GstTensorView *self = (GstTensorView *) trans;
  const ViewMemo *r;
  GstBuffer *out;

  /* The empty list, as set_caps set passthrough. */
  if (self->run_n == 0) {
    *outbuf = inbuf;
    return GST_FLOW_OK;
  }
  r = gst_tensor_view_lookup (self, inbuf);
  if (r == NULL || (!r->dense && !self->downstream_meta))
    return gst_tensor_view_general (self, inbuf, outbuf);
  if (r->same) {
    *outbuf = inbuf;
    return GST_FLOW_OK;
  }
  if (gst_buffer_is_writable (inbuf)) {
    out = inbuf;
    if (r->off != 0 || r->len != r->in_size)
      gst_buffer_resize (out, r->off, r->len);
  } else if (r->off == 0 && r->len == r->in_size) {
    /* The whole buffer: its memory by reference, no new memory object. */
    out = gst_buffer_copy (inbuf);
  } else {
    /* A region drops memory-tagged metas such as inbuf's own layout meta,
     * and keeps timestamps only from byte 0: copy them whole. */
    out = gst_buffer_copy_region (inbuf, GST_BUFFER_COPY_ALL, r->off, r->len);
    if (out == NULL)
      return gst_tensor_view_error (self, "Could not share the input memory.");
    gst_buffer_copy_into (out, inbuf, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  }
  gst_tensor_view_set_layout (out, &r->out, r->dense);
  *outbuf = out;
  return GST_FLOW_OK;
}

/* Every case: an input that does not fit (an error in words), reshapes of
 * strided views (one copy), empty results, and materialized views. */
static GstFlowReturn
gst_tensor_view_general (
    GstTensorView *self, GstBuffer *inbuf, GstBuffer **outbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstTnInfo info = self->in_info;
  GstBufferPool *pool;
  GstBuffer *cur, *next;
  GstTnMap m;
  GError *err = NULL;
  ViewStep *steps;
  gchar *msg = NULL;
  gint n, from = 0, stop;
  gsize nbytes;
  int64_t dims[TN_MAX_RANK];
  tn_view v;

  if (!gst_tensor_view_in_view (self, inbuf, &v)) {
    /* Mapping says in words what does not fit. */
    if (!gst_tn_buffer_map (&m, inbuf, &self->in_info, GST_MAP_READ, &err)) {
      GST_ELEMENT_ERROR (
          self, STREAM, FORMAT, ("%s", err->message), ("input buffer"));
    } else {
      gchar *desc = gst_tn_info_to_string (&self->in_info);

      gst_tn_buffer_unmap (&m);
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("A buffer of %" G_GSIZE_FORMAT " bytes does not hold the "
           "tensor %s.",
              gst_buffer_get_size (inbuf), desc),
          (NULL));
      g_free (desc);
    }
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }

  steps = self->run_steps;
  n = self->run_n;
  cur = gst_buffer_ref (inbuf);
  for (;;) {
    if (!gst_tensor_view_apply (steps, n, &v, from, FALSE, &stop, &msg)) {
      gst_buffer_unref (cur);
      gst_tensor_view_error (self, msg);
      g_free (msg);
      return GST_FLOW_ERROR;
    }
    if (stop == n)
      break;
    /* A reshape of a strided view: one copy, then on from there. */
    info.rank = v.rank;
    memcpy (info.dims, v.dims, sizeof info.dims);
    next = gst_tensor_view_region (cur, &v);
    gst_buffer_unref (cur);
    cur = gst_tn_buffer_dense (next, &info, NULL, &err);
    gst_buffer_unref (next);
    if (cur == NULL)
      goto copy_failed;
    gst_tn_info_size (&info, &nbytes);
    gst_tensor_view_count_copy (self, nbytes);
    tn_view_init (&v, v.dtype, dims_copy (&v, dims), v.rank, NULL);
    from = stop;
  }

  /* The memoized path passed on every other view of the input's memory:
   * here are empty views, views of a reshape's copy and views to copy. */
  next = gst_tensor_view_region (cur, &v);
  gst_buffer_unref (cur);
  if (next == NULL)
    return gst_tensor_view_error (self, "Could not share the input memory.");
  if (tn_view_dense (&v) || self->downstream_meta) {
    *outbuf = next;
    return GST_FLOW_OK;
  }

  pool = gst_tensor_view_pool (trans);
  cur = gst_tn_buffer_dense (next, &self->out_info, pool, &err);
  if (pool)
    gst_object_unref (pool);
  gst_buffer_unref (next);
  if (cur == NULL)
    goto copy_failed;
  gst_tn_info_size (&self->out_info, &nbytes);
  gst_tensor_view_count_copy (self, nbytes);
  *outbuf = cur;
  return GST_FLOW_OK;

copy_failed:
  msg = g_strdup_printf ("Could not copy the view: %s", err->message);
  g_clear_error (&err);
  gst_tensor_view_error (self, msg);
  g_free (msg);
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_tensor_view_transform (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  /* prepare_output_buffer did all the work. */
  return GST_FLOW_OK;
}

static gboolean
gst_tensor_view_start (GstBaseTransform *trans)
{
  GstTensorView *self = GST_TENSOR_VIEW (trans);
  gchar *err;

  self->caps_error_posted = FALSE;
  GST_OBJECT_LOCK (self);
  err = g_strdup (self->ops_error);
  GST_OBJECT_UNLOCK (self);
  if (err != NULL) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err), (NULL));
    g_free (err);
    return FALSE;
  }
  return TRUE;
}

static void
gst_tensor_view_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorView *self = GST_TENSOR_VIEW (object);
  const gchar *ops;
  ViewStep *steps;
  gchar *error = NULL;
  gint n;

  switch (prop_id) {
  case PROP_OPS:
    ops = g_value_get_string (value);
    if (ops == NULL)
      ops = "";
    /* A list that does not parse is kept, so that get returns what was
     * set, and reported when the element starts. */
    if (!gst_tensor_view_parse (ops, &steps, &n, &error))
      GST_WARNING_OBJECT (self, "%s", error);
    GST_OBJECT_LOCK (self);
    g_free (self->ops);
    g_free (self->steps);
    g_free (self->ops_error);
    self->ops = g_strdup (ops);
    self->steps = steps;
    self->nsteps = n;
    self->ops_error = error;
    GST_OBJECT_UNLOCK (self);
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
}

static void
gst_tensor_view_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTensorView *self = GST_TENSOR_VIEW (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_OPS:
    g_value_set_string (value, self->ops);
    break;
  case PROP_BYTES_COPIED:
    g_value_set_uint64 (value, self->bytes_copied);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_view_finalize (GObject *object)
{
  GstTensorView *self = GST_TENSOR_VIEW (object);

  g_free (self->ops);
  g_free (self->steps);
  g_free (self->ops_error);
  g_free (self->run_steps);
  G_OBJECT_CLASS (gst_tensor_view_parent_class)->finalize (object);
}

static void
gst_tensor_view_class_init (GstTensorViewClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (
      gst_tensor_view_debug, "tensorview", 0, "zero-copy tensor views");

  gobject_class->set_property = gst_tensor_view_set_property;
  gobject_class->get_property = gst_tensor_view_get_property;
  gobject_class->finalize = gst_tensor_view_finalize;

  /**
   * GstTensorView:ops:
   *
   * The view steps, applied left to right; empty: pass buffers through.
   */
  g_object_class_install_property (gobject_class, PROP_OPS,
      g_param_spec_string ("ops", "Ops",
          "View steps separated by ',' with arguments separated by ':': "
          "permute:A:B..., transpose, slice:AXIS:START:STOP[:STEP], "
          "select:AXIS:INDEX, reshape:D:D..., expand:AXIS, squeeze:AXIS, "
          "broadcast:D:D.... Default: empty (buffers pass through)",
          DEFAULT_OPS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));

  /**
   * GstTensorView:bytes-copied:
   *
   * Bytes copied so far: materialized views (downstream reads dense
   * tensors only) and reshapes of strided views.
   */
  g_object_class_install_property (gobject_class, PROP_BYTES_COPIED,
      g_param_spec_uint64 ("bytes-copied", "Bytes copied",
          "Bytes copied so far to materialize views (read-only; 0 to "
          "2^64-1, starts at 0)",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Tensor view",
      "Filter/Converter/Tensor",
      "Permutes, slices, selects, reshapes, expands, squeezes or "
      "broadcasts a tensor without copying it. Example (HWC frames to "
      "normalized CHW): gst-launch-1.0 videotestsrc num-buffers=2 ! "
      "video/x-raw,format=RGB,width=4,height=2 ! tensorconvert ! "
      "tensorview ops=permute:2:0:1 ! tensorop "
      "ops=\"cast:float32,div:255\" ! tensordebug ! fakesink",
      "gst-tensor developers");

  trans_class->transform_caps
      = GST_DEBUG_FUNCPTR (gst_tensor_view_transform_caps);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_tensor_view_accept_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_tensor_view_set_caps);
  trans_class->propose_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_view_propose_allocation);
  trans_class->decide_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_view_decide_allocation);
  trans_class->prepare_output_buffer
      = GST_DEBUG_FUNCPTR (gst_tensor_view_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_tensor_view_transform);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_tensor_view_start);
  trans_class->passthrough_on_same_caps = FALSE;
}

static void
gst_tensor_view_init (GstTensorView *self)
{
  self->ops = g_strdup (DEFAULT_OPS);
}
