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
 * an axis of extent 1, reshape a dense tensor, broadcast; and reverses
 * axes (RGB to BGR, mirror and upside-down images) with one copy.  The
 * output caps carry the new dims; the output buffer shares the input's
 * memory wherever the result is a view.
 *
 * #GstTensorView:ops is a list of steps separated by `,`, each with its
 * arguments separated by `:` (the grammar of tensorop); a negative axis
 * counts from the end:
 *
 * * `permute:A0:A1:...` puts input axis Ai at position i
 * * `transpose` swaps the last two axes
 * * `slice:AXIS:START:STOP[:STEP]` is Python's `a[..., START:STOP:STEP]`
 *   along AXIS: START, STOP and STEP may be left empty (`slice:1::2`
 *   keeps the first two, `slice:0:1::2` every second from 1,
 *   `slice:0::-1` all but the last), negative bounds count from the end,
 *   out-of-range bounds clamp, STEP is 1 or more
 * * `select:AXIS:INDEX` keeps one index and drops the axis
 * * `reshape:D0:D1:...` relabels a dense tensor (one extent may be -1);
 *   a strided tensor is first copied once
 * * `expand:AXIS` inserts an axis of extent 1, `squeeze:AXIS` drops one
 * * `broadcast:D0:D1:...` stretches to these dims by NumPy's rule
 * * `flip:AXIS` reverses an axis, as NumPy's flip: `flip:-1` of an HWC
 *   image swaps RGB and BGR, `flip:0` turns it upside down, `flip:1`
 *   mirrors it
 *
 * A result that is dense (a slice along the first axis of a dense tensor,
 * a reshape, an expand...) is a sub-range of the input memory and needs no
 * meta.  Any other result carries the layout meta when downstream
 * advertised it in the ALLOCATION query, and is copied once, into a buffer
 * of a tensor pool, when it did not; so does an input's own layout meta
 * when the list leaves the tensor as it is.  Strides are never negative,
 * so a list with a flip is always copied once, whatever downstream reads:
 * the steps around the flip are folded into that one copy.
 * #GstTensorView:bytes-copied counts the copies.
 *
 * A writable input buffer is passed on itself, its range cut with
 * gst_buffer_resize() and its layout meta changed in place, so that
 * nothing is allocated and an upstream pool gets its buffer back whole; a
 * shared one gets a new buffer over the same memory, except when the steps
 * leave a dense tensor as it is: then it goes on untouched.  The view is
 * worked out once per input layout, not per buffer.
 *
 * A list that does not parse (`flip:0:1`, `slice:0:1`, `permute:0:0`) is
 * an element error when the element starts, naming the property, the
 * text and the step.  A step that does not fit the tensor fails
 * negotiation with an element error that names the step, the axis and
 * the extents, e.g. "axis 3 is out of range for a tensor of rank 3"; a
 * slice that leaves no items is a warning.
 *
 * ## Example launch lines
 * HWC frames to CHW, as a network wants them:
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 pattern=red \
 *     ! video/x-raw,format=RGB,width=4,height=2 ! tensorconvert \
 *     ! tensorview ops=permute:2:0:1 ! tensordebug ! fakesink
 * ]|
 * RGB to BGR:
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 pattern=red \
 *     ! video/x-raw,format=RGB,width=4,height=2 ! tensorconvert \
 *     ! tensorview ops=flip:-1 ! tensordebug ! fakesink
 * ]|
 * Rows 1, 3, ... without the last column (NumPy's `a[1::2, :-1]`):
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=int32,dims=<4,6>" \
 *     ! tensorview ops=slice:0:1::2,slice:1::-1 ! tensordebug ! fakesink
 * ]|
 * Upside down, every second column (`a[::-1, ::2]`):
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=uint8,dims=<3,4>" \
 *     ! tensorview ops=flip:0,slice:1:::2 ! tensordebug ! fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/base/gstbasetransform.h>
#include <gst/tensor/gsttensor.h>

#include "core/view-parse.h"
#include "elements.h"
#include "tnalloc.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_view_debug);
#define GST_CAT_DEFAULT gst_tensor_view_debug

#define GST_TYPE_TENSOR_VIEW (gst_tensor_view_get_type ())
G_DECLARE_FINAL_TYPE (
    GstTensorView, gst_tensor_view, GST, TENSOR_VIEW, GstBaseTransform)

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
  /* the result, at byte 0 of bytes [off, off + len) of the input; with
   * axes reversed (flip != 0), out keeps its offset into the input and
   * is copied */
  tn_view out;
  guint32 flip;
  gsize off, len;
  gboolean dense;
  gboolean same; /* dense in, the same view out: the input as it is */
} ViewMemo;

struct _GstTensorView {
  GstBaseTransform parent;

  /* under the object lock */
  gchar *ops;
  tn_vsteps steps;
  gchar *ops_error; /* why ops cannot be used, or NULL */
  guint64 bytes_copied;

  /* streaming thread */
  GstTnInfo in_info, out_info;
  tn_view in_view; /* dense view of in_info */
  gsize in_nbytes;
  gboolean in_ok; /* in_info describes a tensor that fits in memory */
  tn_vsteps run;  /* ops as of set_caps, for the streaming thread */
  gboolean downstream_meta;
  GstCaps *refused; /* the caps last refused (one message each) */
  GstCaps *warned;  /* the caps last warned about */
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

/* A copy of the steps in use and why they cannot be used (NULL: they
 * can), for a thread that must not hold the lock while it works. */
static void
gst_tensor_view_get_steps (GstTensorView *self, tn_vsteps *steps, gchar **error)
{
  GST_OBJECT_LOCK (self);
  if (tn_vsteps_copy (steps, &self->steps, NULL) < 0)
    g_error ("tensorview: out of memory copying %d steps", self->steps.n);
  if (error)
    *error = g_strdup (self->ops_error);
  GST_OBJECT_UNLOCK (self);
}

/* Output dims for input info; FALSE with a message naming the step. */
static gboolean
gst_tensor_view_out_info (
    const tn_vsteps *steps, const GstTnInfo *in, GstTnInfo *out, gchar **error)
{
  tn_err e = { { 0 } };
  tn_fview f = { .flip = 0 };
  gint stop;

  if (tn_view_init (&f.v, in->dtype, in->dims, in->rank, &e) != 0
      || tn_vsteps_apply (steps, 0, &f, TRUE, &stop, &e) != 0) {
    *error = g_strdup_printf ("%s.", e.msg);
    return FALSE;
  }
  *out = *in;
  out->rank = f.v.rank;
  memcpy (out->dims, f.v.dims, sizeof out->dims);
  return TRUE;
}

static GstCaps *
gst_tensor_view_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstTensorView *self = GST_TENSOR_VIEW (trans);
  GstCaps *out;
  tn_vsteps steps;
  gchar *ops_error;
  guint i;

  gst_tensor_view_get_steps (self, &steps, &ops_error);
  if (ops_error != NULL) {
    /* ops cannot be used: linking goes through, and start() says why
     * (an empty answer would fail the link with "can't handle caps"). */
    out = gst_caps_ref (caps);
    goto done;
  }

  out = gst_caps_new_empty ();
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
      if (gst_tensor_view_out_info (&steps, &in, &o, &err)) {
        gst_tn_structure_set_dims (s, o.dims, o.rank);
      } else {
        /* Left open so that linking works: accept_caps refuses these
         * caps with the reason, which an empty result could not give. */
        GST_DEBUG_OBJECT (self, "%s", err);
        g_free (err);
        gst_structure_remove_field (s, "dims");
      }
    } else if (tn_vsteps_invert (&steps, dims, &rank)) {
      gst_tn_structure_set_dims (s, dims, rank);
    } else {
      gst_structure_remove_field (s, "dims");
    }
    out = gst_caps_merge_structure (out, s);
  }

done:
  tn_vsteps_clear (&steps);
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

/* The first step after which a tensor of in has no items, or -1: a slice
 * past the end is Python's empty result, not an error, but in a stream it
 * is most likely a mistake worth a warning. */
static gint
gst_tensor_view_empties (const tn_vsteps *steps, const GstTnInfo *in)
{
  tn_fview f = { .flip = 0 };
  tn_vsteps head = *steps;
  gint stop;

  if (tn_view_init (&f.v, in->dtype, in->dims, in->rank, NULL) != 0
      || tn_view_count (&f.v) == 0)
    return -1;
  for (head.n = 1; head.n <= steps->n; head.n++) {
    if (tn_vsteps_apply (&head, head.n - 1, &f, TRUE, &stop, NULL) != 0)
      return -1;
    if (tn_view_count (&f.v) == 0)
      return head.n - 1;
  }
  return -1;
}

/* Upstream's fixed caps are where a step that does not fit shows: say so
 * in words before negotiation fails. */
static gboolean
gst_tensor_view_accept_caps (
    GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps)
{
  GstTensorView *self = GST_TENSOR_VIEW (trans);
  GstTnInfo in, o;
  tn_vsteps steps;
  gchar *err = NULL, *desc, *ops, *ops_error;
  gboolean ok = TRUE;
  gint empty;

  if (direction != GST_PAD_SINK || !gst_caps_is_fixed (caps)
      || !gst_tn_info_from_caps (&in, caps, NULL))
    goto parent;
  gst_tensor_view_get_steps (self, &steps, &ops_error);
  if (ops_error != NULL) {
    /* start() has said why. */
    g_free (ops_error);
    tn_vsteps_clear (&steps);
    goto parent;
  }
  GST_OBJECT_LOCK (self);
  ops = g_strdup (self->ops);
  GST_OBJECT_UNLOCK (self);
  desc = gst_tn_info_to_string (&in);
  if (!gst_tensor_view_out_info (&steps, &in, &o, &err)) {
    if (gst_tn_caps_refusal_is_new (&self->refused, caps))
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("%s: ops=\"%s\" cannot view %s: %s", GST_OBJECT_NAME (self), ops,
              desc, err),
          ("caps %" GST_PTR_FORMAT, caps));
    ok = FALSE;
  } else if ((empty = gst_tensor_view_empties (&steps, &in)) >= 0
             && gst_tn_caps_refusal_is_new (&self->warned, caps)) {
    gchar *odesc = gst_tn_info_to_string (&o);

    GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
        ("%s: ops=\"%s\" leaves no items of %s: after step %d of %d ('%s') "
         "the tensor is empty, and the output is %s.",
            GST_OBJECT_NAME (self), ops, desc, empty + 1, steps.n,
            steps.steps[empty].text, odesc),
        (NULL));
    g_free (odesc);
  }
  g_free (err);
  g_free (desc);
  g_free (ops);
  tn_vsteps_clear (&steps);
  if (!ok)
    return FALSE;
  gst_tn_caps_refusal_clear (&self->refused);

parent:
  return gst_tn_transform_accept_caps (trans, direction, caps);
}

static gboolean
gst_tensor_view_set_caps (
    GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstTensorView *self = GST_TENSOR_VIEW (trans);

  if (!gst_tn_transform_read_caps (
          trans, incaps, outcaps, &self->in_info, &self->out_info))
    return FALSE;
  self->in_ok = tn_view_init (&self->in_view, self->in_info.dtype,
                    self->in_info.dims, self->in_info.rank, NULL)
                    == 0
                && gst_tn_info_size (&self->in_info, &self->in_nbytes);
  tn_vsteps_clear (&self->run);
  gst_tensor_view_get_steps (self, &self->run, NULL);
  /* Never passthrough, not even for the empty list: an input with its
   * own layout meta must be copied for a reader of dense tensors, and
   * only decide_allocation (which passthrough skips) says whether
   * downstream reads the meta.  A dense input still goes on untouched. */
  self->downstream_meta = FALSE;
  self->memo.valid = FALSE;
  return TRUE;
}

/* This element reads any layout (a view of a view is one view), and every
 * buffer it gives a reader of dense tensors only is dense: advertising
 * the meta upstream cannot let a view through to such a reader. */
static gboolean
gst_tensor_view_propose_allocation (
    GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
  return gst_tn_transform_propose_layout_meta (
      GST_BASE_TRANSFORM_CLASS (gst_tensor_view_parent_class), trans,
      decide_query, query);
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

  /* The pool serves the copies: views for a reader of dense tensors only,
   * and flips. */
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
  GstBuffer *out;
  gint k;

  if (tn_view_count (v) == 0) {
    out = gst_buffer_new ();
    gst_buffer_copy_into (out, buf,
        GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS
            | GST_BUFFER_COPY_META,
        0, -1);
    tn_view_init (v, v->dtype, v->dims, v->rank, NULL);
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

static GstFlowReturn
gst_tensor_view_error (GstTensorView *self, const gchar *msg)
{
  GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", msg), (NULL));
  return GST_FLOW_ERROR;
}

/* One copy of f (over buf's memory) into a new dense buffer, its axes in
 * f->flip reversed: from the negotiated pool when the result is the
 * output tensor, else from the tensor allocator.  The copy keeps buf's
 * flags, timestamps and metas other than the layout meta.  NULL with
 * *msg when it cannot be made. */
static GstBuffer *
gst_tensor_view_copy (
    GstTensorView *self, GstBuffer *buf, const tn_fview *f, gchar **msg)
{
  gsize nbytes = (gsize) tn_view_count (&f->v) * tn_dtype_size (f->v.dtype);
  gsize out_size = 0;
  GstBufferPool *pool = NULL;
  GstBuffer *out = NULL;
  GstMapInfo src, dst;

  if (gst_tn_info_size (&self->out_info, &out_size) && out_size == nbytes)
    pool = gst_tn_pool_activate (GST_OBJECT (self),
        gst_base_transform_get_buffer_pool (GST_BASE_TRANSFORM (self)));
  if (pool != NULL) {
    if (gst_buffer_pool_acquire_buffer (pool, &out, NULL) != GST_FLOW_OK
        || gst_buffer_get_size (out) < nbytes)
      gst_clear_buffer (&out);
    gst_object_unref (pool);
  }
  if (out == NULL) {
    GstAllocator *alloc = gst_tn_allocator_get ();

    out = gst_buffer_new_allocate (alloc, nbytes, NULL);
    gst_object_unref (alloc);
  }
  if (out == NULL) {
    *msg = g_strdup_printf ("Could not allocate %" G_GSIZE_FORMAT
                            " bytes to copy the view.",
        nbytes);
    return NULL;
  }
  if (!gst_buffer_map (buf, &src, GST_MAP_READ)) {
    gst_buffer_unref (out);
    *msg = g_strdup ("Could not map the input buffer for reading.");
    return NULL;
  }
  if (!gst_buffer_map (out, &dst, GST_MAP_WRITE)) {
    gst_buffer_unmap (buf, &src);
    gst_buffer_unref (out);
    *msg = g_strdup_printf ("Could not map a buffer of %" G_GSIZE_FORMAT
                            " bytes for writing.",
        nbytes);
    return NULL;
  }
  tn_view_materialize_flip (dst.data, src.data, &f->v, f->flip);
  gst_buffer_unmap (out, &dst);
  gst_buffer_unmap (buf, &src);
  /* Without GST_BUFFER_COPY_MEMORY, memory-tagged metas (the layout meta
   * among them) describe memory out does not have and are not copied. */
  gst_buffer_copy_into (out, buf,
      GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS | GST_BUFFER_COPY_META,
      0, -1);
  gst_tensor_view_count_copy (self, nbytes);
  return out;
}

/* The memo for buf's layout, worked out when buf's layout is not the last
 * one's.  NULL for what only the general path handles: a buffer that does
 * not fit, a reshape of a strided or reversed view (a copy) and an empty
 * result. */
static const ViewMemo *
gst_tensor_view_lookup (GstTensorView *self, GstBuffer *buf)
{
  GstTnLayoutMeta *meta = gst_tn_buffer_get_layout_meta (buf);
  gsize size = gst_buffer_get_size (buf), isz;
  ViewMemo *r = &self->memo;
  tn_fview f = { .flip = 0 };
  tn_view in;
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
  f.v = in;
  if (tn_vsteps_apply (&self->run, 0, &f, FALSE, &stop, NULL) != 0
      || stop != self->run.n || tn_view_count (&f.v) == 0)
    return NULL;

  r->in_size = size;
  r->in_meta = meta != NULL;
  r->in_rank = meta ? meta->rank : 0;
  r->in_offset = meta ? meta->offset : 0;
  if (meta)
    memcpy (r->in_strides, meta->strides, sizeof r->in_strides);
  else
    memset (r->in_strides, 0, sizeof r->in_strides);
  r->flip = f.flip;
  r->same
      = meta == NULL && f.flip == 0 && f.v.rank == in.rank
        && f.v.offset == in.offset
        && memcmp (f.v.dims, in.dims, f.v.rank * sizeof f.v.dims[0]) == 0
        && memcmp (f.v.strides, in.strides, f.v.rank * sizeof f.v.strides[0])
               == 0;
  isz = tn_dtype_size (f.v.dtype);
  for (k = 0; k < f.v.rank; k++)
    span += (f.v.dims[k] - 1) * f.v.strides[k];
  r->off = (gsize) f.v.offset * isz;
  r->len = (gsize) span * isz;
  if (f.flip == 0)
    f.v.offset = 0;
  r->out = f.v;
  r->dense = f.flip == 0 && tn_view_dense (&f.v);
  r->valid = TRUE;
  return r;
}

static GstFlowReturn gst_tensor_view_general (
    GstTensorView *self, GstBuffer *inbuf, GstBuffer **outbuf);

/* Passes the memory on without a copy: the input itself when it is
 * writable (cut, its meta set in place) or the view leaves it as it is,
 * else a new buffer over the same memory.  A reversed axis, and a view
 * that downstream could not read, are copied here straight from the
 * input: the general path would first wrap the view in a buffer and a
 * layout meta of its own and check it again (0.5 of the 1.6 us a small
 * tensor took, about 7 of the 68 us of a 640x480 frame on the Xeon,
 * docs/perf-notes.md session 18 H2).  The memo checked the view against
 * this input's size and layout. */
static GstFlowReturn
gst_tensor_view_prepare_output_buffer (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer **outbuf)
{
  /* Not GST_TENSOR_VIEW (): its type check is a tenth of this path. */
  GstTensorView *self = (GstTensorView *) trans;
  const ViewMemo *r;
  GstBuffer *out;

  r = gst_tensor_view_lookup (self, inbuf);
  if (r == NULL)
    return gst_tensor_view_general (self, inbuf, outbuf);
  if (r->same) {
    *outbuf = inbuf;
    return GST_FLOW_OK;
  }
  if (r->flip != 0 || (!r->dense && !self->downstream_meta)) {
    tn_fview f = { r->out, r->flip };
    gchar *msg = NULL;

    /* Without a flip, out is at byte 0 of [off, off + len). */
    if (r->flip == 0)
      f.v.offset = (gint64) (r->off / tn_dtype_size (r->out.dtype));
    *outbuf = gst_tensor_view_copy (self, inbuf, &f, &msg);
    if (*outbuf == NULL) {
      gst_tensor_view_error (self, msg);
      g_free (msg);
      return GST_FLOW_ERROR;
    }
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
 * strided or reversed views (one copy), empty results, flips and
 * materialized views. */
static GstFlowReturn
gst_tensor_view_general (
    GstTensorView *self, GstBuffer *inbuf, GstBuffer **outbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstBufferPool *pool;
  GstBuffer *cur, *next;
  GstTnMap m;
  GError *err = NULL;
  gchar *msg = NULL;
  tn_err e = { { 0 } };
  gint from = 0, stop;
  gsize nbytes;
  tn_fview f = { .flip = 0 };

  if (!gst_tensor_view_in_view (self, inbuf, &f.v)) {
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

  cur = gst_buffer_ref (inbuf);
  for (;;) {
    if (tn_vsteps_apply (&self->run, from, &f, FALSE, &stop, &e) != 0) {
      gst_buffer_unref (cur);
      msg = g_strdup_printf ("%s: %s.", GST_OBJECT_NAME (self), e.msg);
      gst_tensor_view_error (self, msg);
      g_free (msg);
      return GST_FLOW_ERROR;
    }
    if (stop == self->run.n)
      break;
    /* A reshape of a strided or reversed view: one copy, then on from
     * there. */
    next = gst_tensor_view_copy (self, cur, &f, &msg);
    gst_buffer_unref (cur);
    if (next == NULL)
      goto copy_failed;
    cur = next;
    tn_view_init (&f.v, f.v.dtype, f.v.dims, f.v.rank, NULL);
    f.flip = 0;
    from = stop;
  }

  if (f.flip != 0 && tn_view_count (&f.v) > 0) {
    /* Reversed axes: the one copy, whoever reads. */
    next = gst_tensor_view_copy (self, cur, &f, &msg);
    gst_buffer_unref (cur);
    if (next == NULL)
      goto copy_failed;
    *outbuf = next;
    return GST_FLOW_OK;
  }

  /* The memoized path passed on every other view of the input's memory:
   * here are empty views, views of a reshape's copy and views to copy. */
  next = gst_tensor_view_region (cur, &f.v);
  gst_buffer_unref (cur);
  if (next == NULL)
    return gst_tensor_view_error (self, "Could not share the input memory.");
  if (tn_view_dense (&f.v) || self->downstream_meta) {
    *outbuf = next;
    return GST_FLOW_OK;
  }

  pool = gst_tn_pool_activate (
      GST_OBJECT (trans), gst_base_transform_get_buffer_pool (trans));
  cur = gst_tn_buffer_dense (next, &self->out_info, pool, &err);
  if (pool)
    gst_object_unref (pool);
  gst_buffer_unref (next);
  if (cur == NULL) {
    msg = g_strdup (err->message);
    g_clear_error (&err);
    goto copy_failed;
  }
  gst_tn_info_size (&self->out_info, &nbytes);
  gst_tensor_view_count_copy (self, nbytes);
  *outbuf = cur;
  return GST_FLOW_OK;

copy_failed : {
  gchar *text = g_strdup_printf ("Could not copy the view: %s", msg);

  gst_tensor_view_error (self, text);
  g_free (text);
  g_free (msg);
}
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_tensor_view_transform (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  /* prepare_output_buffer did all the work. */
  return GST_FLOW_OK;
}

/* A stored ops that cannot be used stops the element here, on its way to
 * PAUSED: the pipeline fails with the reason instead of running without
 * the view. */
static gboolean
gst_tensor_view_start (GstBaseTransform *trans)
{
  GstTensorView *self = GST_TENSOR_VIEW (trans);
  gchar *err, *ops;
  gboolean ok = TRUE;

  gst_tn_caps_refusal_clear (&self->refused);
  gst_tn_caps_refusal_clear (&self->warned);
  GST_OBJECT_LOCK (self);
  err = g_strdup (self->ops_error);
  ops = g_strdup (self->ops);
  GST_OBJECT_UNLOCK (self);
  if (err != NULL)
    ok = gst_tn_element_property_error (GST_ELEMENT (self), "ops", ops, err);
  g_free (err);
  g_free (ops);
  return ok;
}

static gboolean
gst_tensor_view_stop (GstBaseTransform *trans)
{
  GstTensorView *self = GST_TENSOR_VIEW (trans);

  gst_tn_caps_refusal_clear (&self->refused);
  gst_tn_caps_refusal_clear (&self->warned);
  tn_vsteps_clear (&self->run);
  self->memo.valid = FALSE;
  return TRUE;
}

static void
gst_tensor_view_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorView *self = GST_TENSOR_VIEW (object);
  const gchar *ops;
  tn_vsteps steps;
  tn_err e = { { 0 } };
  gchar *error = NULL;

  switch (prop_id) {
  case PROP_OPS:
    if (!gst_tn_element_property_settable (GST_ELEMENT (self), pspec, value))
      return;
    ops = g_value_get_string (value);
    if (ops == NULL)
      ops = "";
    /* Checked now, as far as no tensor is needed; a list that cannot be
     * used is kept, so that get returns what was set, and refused when
     * the element starts (it may have no bus yet to tell). */
    if (tn_vsteps_parse (ops, &steps, &e) != 0) {
      error = g_strdup_printf ("%s.", e.msg);
      GST_WARNING_OBJECT (self, "ops=\"%s\": %s", ops, error);
    }
    GST_OBJECT_LOCK (self);
    g_free (self->ops);
    g_free (self->ops_error);
    tn_vsteps_clear (&self->steps);
    self->ops = g_strdup (ops);
    self->steps = steps;
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
  g_free (self->ops_error);
  tn_vsteps_clear (&self->steps);
  tn_vsteps_clear (&self->run);
  gst_tn_caps_refusal_clear (&self->refused);
  gst_tn_caps_refusal_clear (&self->warned);
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
   * The view steps, applied left to right; the empty list passes buffers
   * on as they are (an input with a layout meta is copied for a reader
   * of dense tensors).  A list that does not parse is an error when the
   * element starts; it can only change in the NULL and READY states.
   */
  g_object_class_install_property (gobject_class, PROP_OPS,
      g_param_spec_string ("ops", "Ops",
          "View steps separated by ',' with arguments separated by ':': "
          "permute:A:B..., transpose, slice:AXIS:START:STOP[:STEP] (Python's "
          "a[..., START:STOP:STEP]; bounds may be empty), select:AXIS:INDEX, "
          "reshape:D:D..., expand:AXIS, squeeze:AXIS, broadcast:D:D..., "
          "flip:AXIS (one copy); empty: buffers pass on as they are",
          DEFAULT_OPS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));

  /**
   * GstTensorView:bytes-copied:
   *
   * Bytes copied so far: views materialized for a reader of dense tensors
   * only, flips, and reshapes of strided views.
   */
  g_object_class_install_property (gobject_class, PROP_BYTES_COPIED,
      g_param_spec_uint64 ("bytes-copied", "Bytes copied",
          "Bytes copied so far: views materialized for a reader of dense "
          "tensors, flips, reshapes of strided views",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Tensor view",
      "Filter/Converter/Tensor",
      "Permutes, slices, selects, reshapes, expands, squeezes, broadcasts "
      "or flips tensors, sharing the input memory wherever the result is a "
      "view",
      "gst-tensor developers");

  trans_class->transform_caps
      = GST_DEBUG_FUNCPTR (gst_tensor_view_transform_caps);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_tensor_view_accept_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_tn_transform_query);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_tensor_view_set_caps);
  trans_class->propose_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_view_propose_allocation);
  trans_class->decide_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_view_decide_allocation);
  trans_class->prepare_output_buffer
      = GST_DEBUG_FUNCPTR (gst_tensor_view_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_tensor_view_transform);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_tensor_view_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_tensor_view_stop);
  trans_class->passthrough_on_same_caps = FALSE;
}

static void
gst_tensor_view_init (GstTensorView *self)
{
  self->ops = g_strdup (DEFAULT_OPS);
}
