/* GStreamer tensor plugin: split a tensor along an axis into several.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensorsplit
 * @title: tensorsplit
 * @see_also: tensorview, tensorstack, tensorconcat
 *
 * Splits every tensor along #GstTensorSplitter:axis into parts, one src pad
 * per part, as NumPy's `np.split`: #GstTensorSplitter:sections`=N` cuts N
 * equal parts (an extent N does not divide is an error naming both), and
 * #GstTensorSplitter:indices`=i,j,...` cuts at those points, each part being
 * Python's slice between two of them (`indices=2,5` on an extent of 8
 * gives `[0:2]`, `[2:5]`, `[5:8]`; negative points count from the end, and
 * points past the end clamp, as in `np.split`).  Exactly one of the two
 * must be set.  #GstTensorSplitter:squeeze`=true` drops the split axis when
 * every part has extent 1: splitting `<H,W,3>` on axis 2 into 3 sections
 * gives three `<H,W>` planes.
 *
 * The src pads `src_0`, `src_1`, ... are sometimes pads, created when the
 * first caps arrive, followed by no-more-pads.  Their number is the
 * properties' (N sections, or one more than the split points), never the
 * caps', so a caps change in the middle of the stream keeps the pads and
 * sends each its new caps (a part of `indices` may become empty); caps
 * whose extent the sections do not divide are refused with an error.
 *
 * ## Copies
 *
 * Every part is a view of the input, never a copy when it can be avoided.
 * A part along axis 0 (or along any axis whose outer axes all have extent
 * 1) is a contiguous sub-range: a buffer sharing the input's memory, dense,
 * without a meta.  Any other part is the same memory read with the input's
 * strides: it carries the layout meta when the element downstream of its
 * pad advertised the meta in the ALLOCATION query, and is copied once, into
 * a dense buffer, when it did not (docs/caps.md).  tensorsplit itself
 * reads dense tensors only (its input is copied once upstream when it is a
 * view).  #GstTensorSplitter:bytes-copied counts the copies.
 *
 * Flow returns are combined over the src pads (GstFlowCombiner): the
 * stream stops when a pad errors, or when every pad is not linked or
 * flushing.  A pad that is not linked gets no copy (a view is made and
 * gst_pad_push tells it is not linked: cheaper than asking first).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=float32,dims=<6,4>" \
 *     ! tensorsplit name=s sections=3 \
 *     s.src_0 ! queue ! tensordebug ! fakesink \
 *     s.src_1 ! queue ! tensordebug ! fakesink \
 *     s.src_2 ! queue ! tensordebug ! fakesink
 * ]| Three <2,4> tensors, rows 0-1, 2-3 and 4-5, sharing the input memory.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 \
 *     ! video/x-raw,format=RGB,width=4,height=2 ! tensorconvert \
 *     ! tensorsplit name=s axis=-1 sections=3 squeeze=true \
 *     s.src_0 ! queue ! tensordebug ! fakesink \
 *     s.src_1 ! queue ! tensordebug ! fakesink \
 *     s.src_2 ! queue ! tensordebug ! fakesink
 * ]| The R, G and B planes of a frame, each uint8 <2,4>.
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=int32,dims=<10>" ! tensorsplit name=s indices=3,7 \
 *     s.src_0 ! queue ! tensordebug ! fakesink \
 *     s.src_1 ! queue ! tensordebug ! fakesink \
 *     s.src_2 ! queue ! tensordebug ! fakesink
 * ]| `np.split(a, [3, 7])`: <3>, <4> and <3>.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gst/base/gstflowcombiner.h>
#include <gst/tensor/gsttensor.h>

#include "elements.h"
#include "tnelement.h"
#include "tnviews.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_splitter_debug);
#define GST_CAT_DEFAULT gst_tensor_splitter_debug

#define GST_TYPE_TENSOR_SPLITTER (gst_tensor_splitter_get_type ())
G_DECLARE_FINAL_TYPE (
    GstTensorSplitter, gst_tensor_splitter, GST, TENSOR_SPLITTER, GstElement)

#define DEFAULT_AXIS 0
#define DEFAULT_SECTIONS 0
#define DEFAULT_INDICES ""
#define DEFAULT_SQUEEZE FALSE
/* parts at most: pads are cheap, but a typo (sections=1000000) is not */
#define MAX_PARTS 1024

enum {
  PROP_0,
  PROP_AXIS,
  PROP_SECTIONS,
  PROP_INDICES,
  PROP_SQUEEZE,
  PROP_BYTES_COPIED,
};

/* One part as the streaming thread emits it. */
typedef struct {
  GstPad *pad;
  GstTnInfo info;   /* its caps */
  gsize off, len;   /* bytes of the input the part spans */
  tn_view view;     /* at byte off, offset 0: the input's strides */
  gboolean dense;   /* view is dense: a sub-range, no meta */
  gboolean meta_ok; /* downstream of pad reads the layout meta */
  gsize nbytes;     /* of the dense part */
} Part;

struct _GstTensorSplitter {
  GstElement parent;
  GstPad *sinkpad;

  /* properties, under the object lock */
  gint axis;
  guint sections;
  gchar *indices;
  gboolean squeeze;
  guint64 bytes_copied;

  /* streaming thread (pads: also under the object lock) */
  GstTnInfo in_info;
  gsize in_size;
  gboolean configured;
  GArray *parts; /* of Part */
  GstFlowCombiner *combiner;
  /* what the combiner last returned (its own last flow, which changes
   * only through our calls and a reset to OK) */
  GstFlowReturn combined;
  GstCaps *refused;
  GstTnViews *views; /* the parts' buffers, recycled */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src_%u",
    GST_PAD_SRC, GST_PAD_SOMETIMES, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

G_DEFINE_TYPE (GstTensorSplitter, gst_tensor_splitter, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (
    tensorsplit, "tensorsplit", GST_RANK_NONE, GST_TYPE_TENSOR_SPLITTER);

/* The split points of text ("3,7", " -2 , 5"), at most MAX_PARTS - 1;
 * FALSE with why. */
static gboolean
gst_tensor_splitter_parse_indices (
    const gchar *text, gint64 *pts, gint *n, gchar **why)
{
  gchar **items;
  gint i;

  *n = 0;
  items = g_strsplit (text ? text : "", ",", -1);
  for (i = 0; items[i] != NULL; i++) {
    gchar *s = g_strstrip (items[i]), *end;
    gint64 v;

    if (*s == '\0' && items[1] == NULL)
      break; /* the empty list */
    errno = 0;
    v = g_ascii_strtoll (s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno == ERANGE) {
      *why = g_strdup_printf (
          "entry %d ('%s') is not an integer%s; expected split points such "
          "as \"2,5\".",
          i + 1, s, errno == ERANGE ? " of 64 bits" : "");
      g_strfreev (items);
      return FALSE;
    }
    if (*n >= MAX_PARTS - 1) {
      *why = g_strdup_printf ("more than %d split points.", MAX_PARTS - 1);
      g_strfreev (items);
      return FALSE;
    }
    pts[(*n)++] = v;
  }
  g_strfreev (items);
  return TRUE;
}

/* Why the stored properties cannot be used, with the property's name and
 * text, or NULL.  Under the object lock. */
static gchar *
gst_tensor_splitter_property_problem (
    GstTensorSplitter *self, const gchar **prop, gchar **text)
{
  gint64 pts[MAX_PARTS];
  gint n;
  gchar *why = NULL;

  if (!gst_tensor_splitter_parse_indices (self->indices, pts, &n, &why)) {
    *prop = "indices";
    *text = g_strdup (self->indices);
    return why;
  }
  if (self->sections > 0 && n > 0) {
    *prop = "indices";
    *text = g_strdup (self->indices);
    return g_strdup_printf ("sections=%u is set as well; set one of "
                            "sections and indices.",
        self->sections);
  }
  if (self->sections == 0 && n == 0) {
    *prop = "sections";
    *text = g_strdup ("0");
    return g_strdup ("neither sections nor indices is set; set "
                     "sections=N (N equal parts) or indices=i,j,... "
                     "(np.split's split points).");
  }
  if ((why = gst_tn_element_axis_problem (self->axis)) != NULL) {
    *prop = "axis";
    *text = g_strdup_printf ("%d", self->axis);
    return why;
  }
  if (self->sections > MAX_PARTS) {
    *prop = "sections";
    *text = g_strdup_printf ("%u", self->sections);
    return g_strdup_printf ("at most %d parts are supported.", MAX_PARTS);
  }
  return NULL;
}

/* The parts of in: their [start, stop) along the axis, the axis itself;
 * -1 with a sentence naming the numbers.  Under the object lock. */
static gint
gst_tensor_splitter_plan (GstTensorSplitter *self, const GstTnInfo *in,
    gint64 *start, gint64 *stop, gint *axis, gchar **why)
{
  gchar *desc = gst_tn_info_to_string (in);
  gint64 pts[MAX_PARTS + 1], ext;
  gint n = 0, a = self->axis, k;

  if (in->rank == 0 || a < -in->rank || a >= in->rank) {
    *why = g_strdup_printf ("%s: axis=%d is out of range for %s tensors%s.",
        GST_OBJECT_NAME (self), self->axis, desc,
        in->rank == 0 ? " (rank 0 has no axis to split)" : "");
    g_free (desc);
    return -1;
  }
  if (a < 0)
    a += in->rank;
  ext = in->dims[a];
  if (self->sections > 0) {
    if (ext % self->sections != 0) {
      *why = g_strdup_printf ("%s: sections=%u does not divide axis %d of "
                              "%s tensors, whose extent is %" G_GINT64_FORMAT
                              ".",
          GST_OBJECT_NAME (self), self->sections, a, desc, ext);
      g_free (desc);
      return -1;
    }
    n = (gint) self->sections;
    for (k = 0; k < n; k++) {
      start[k] = ext / n * k;
      stop[k] = ext / n * (k + 1);
    }
  } else {
    gst_tensor_splitter_parse_indices (self->indices, pts + 1, &n, why);
    pts[0] = 0;
    pts[n + 1] = ext;
    for (k = 0; k <= n; k++) {
      /* Python's slice pts[k]:pts[k + 1], as np.split takes it */
      gint64 b = pts[k], e = pts[k + 1];

      if (b < 0)
        b = MAX (b + ext, 0);
      if (e < 0)
        e = MAX (e + ext, 0);
      b = MIN (b, ext);
      e = MIN (e, ext);
      start[k] = b;
      stop[k] = MAX (e, b);
    }
    n++;
  }
  if (self->squeeze) {
    for (k = 0; k < n; k++) {
      if (stop[k] - start[k] != 1) {
        *why = g_strdup_printf ("%s: squeeze=true drops axis %d only when "
                                "every part has extent 1, and part %d of "
                                "%s tensors has %" G_GINT64_FORMAT ".",
            GST_OBJECT_NAME (self), a, k, desc, stop[k] - start[k]);
        g_free (desc);
        return -1;
      }
    }
  }
  g_free (desc);
  *axis = a;
  return n;
}

/* Pads. */

static void
gst_tensor_splitter_query_meta (GstTensorSplitter *self, Part *p)
{
  GstCaps *caps = gst_tn_info_to_caps (&p->info);
  GstQuery *q = gst_query_new_allocation (caps, FALSE);

  /* as GstBaseTransform reads it: what the query holds afterwards */
  gst_pad_peer_query (p->pad, q);
  p->meta_ok
      = gst_query_find_allocation_meta (q, GST_TN_LAYOUT_META_API_TYPE, NULL);
  GST_DEBUG_OBJECT (p->pad, "downstream reads the layout meta: %d", p->meta_ok);
  gst_query_unref (q);
  gst_caps_unref (caps);
}

typedef struct {
  GstTensorSplitter *self;
  GstPad *pad;
  guint index;
} StickyCtx;

/* The sink pad's sticky events onto a new src pad: its own stream-id,
 * its own caps (pushed later), the rest as they are. */
static gboolean
gst_tensor_splitter_copy_sticky (GstPad *pad, GstEvent **event, gpointer data)
{
  StickyCtx *c = data;
  GstEvent *ev = *event;

  if (GST_EVENT_TYPE (ev) == GST_EVENT_STREAM_START) {
    gchar *id = gst_pad_create_stream_id_printf (
        c->pad, GST_ELEMENT (c->self), "%u", c->index);
    GstEvent *s = gst_event_new_stream_start (id);
    guint group;

    if (gst_event_parse_group_id (ev, &group))
      gst_event_set_group_id (s, group);
    gst_pad_store_sticky_event (c->pad, s);
    gst_event_unref (s);
    g_free (id);
  } else if (GST_EVENT_TYPE (ev) != GST_EVENT_CAPS) {
    gst_pad_store_sticky_event (c->pad, ev);
  }
  return TRUE;
}

static gboolean gst_tensor_splitter_src_query (
    GstPad *pad, GstObject *parent, GstQuery *query);

/* The src pads for n parts, added to the element, then no-more-pads. */
static void
gst_tensor_splitter_add_pads (GstTensorSplitter *self, gint n)
{
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (self);
  GstPadTemplate *tmpl = gst_element_class_get_pad_template (klass, "src_%u");
  gint k;

  for (k = 0; k < n; k++) {
    gchar *name = g_strdup_printf ("src_%d", k);
    GstPad *pad = gst_pad_new_from_template (tmpl, name);
    StickyCtx c = { self, pad, (guint) k };

    g_free (name);
    gst_pad_set_query_function (pad, gst_tensor_splitter_src_query);
    gst_pad_use_fixed_caps (pad);
    gst_pad_set_active (pad, TRUE);
    gst_pad_sticky_events_foreach (
        self->sinkpad, gst_tensor_splitter_copy_sticky, &c);
    g_array_index (self->parts, Part, k).pad = pad;
    gst_flow_combiner_add_pad (self->combiner, pad);
    gst_element_add_pad (GST_ELEMENT (self), pad);
  }
  gst_element_no_more_pads (GST_ELEMENT (self));
}

static void
gst_tensor_splitter_remove_pads (GstTensorSplitter *self)
{
  guint k;

  if (self->parts == NULL)
    return;
  for (k = 0; k < self->parts->len; k++) {
    GstPad *pad = g_array_index (self->parts, Part, k).pad;

    if (pad == NULL)
      continue;
    gst_flow_combiner_remove_pad (self->combiner, pad);
    gst_pad_set_active (pad, FALSE);
    gst_element_remove_pad (GST_ELEMENT (self), pad);
  }
  g_array_set_size (self->parts, 0);
}

/* Caps. */

static gboolean
gst_tensor_splitter_set_caps (GstTensorSplitter *self, GstCaps *caps)
{
  gint64 start[MAX_PARTS], stop[MAX_PARTS];
  gint64 strides[TN_MAX_RANK];
  GstTnInfo in;
  GError *err = NULL;
  gchar *why = NULL;
  gboolean fresh;
  gsize isz;
  gint n, axis, k;

  if (!gst_tn_info_from_caps (&in, caps, &err)) {
    if (gst_tn_caps_refusal_is_new (&self->refused, caps))
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("%s: cannot read the tensor caps: %s", GST_OBJECT_NAME (self),
              err->message),
          ("caps %" GST_PTR_FORMAT, caps));
    g_clear_error (&err);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  n = gst_tensor_splitter_plan (self, &in, start, stop, &axis, &why);
  GST_OBJECT_UNLOCK (self);
  if (n < 0) {
    if (gst_tn_caps_refusal_is_new (&self->refused, caps))
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", why),
          ("caps %" GST_PTR_FORMAT, caps));
    g_free (why);
    return FALSE;
  }
  /* the properties fix the number of parts, and they cannot change
   * while the element runs */
  g_assert (self->parts->len == 0 || (gint) self->parts->len == n);
  if (!gst_tn_info_size (&in, &self->in_size)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Tensors of %" GST_PTR_FORMAT " do not fit in memory.", caps), (NULL));
    return FALSE;
  }
  gst_tn_caps_refusal_clear (&self->refused);
  self->in_info = in;
  isz = tn_dtype_size (in.dtype);
  strides[in.rank - 1] = 1;
  for (k = in.rank - 2; k >= 0; k--)
    strides[k] = strides[k + 1] * in.dims[k + 1];
  fresh = self->parts->len == 0;
  if (fresh)
    g_array_set_size (self->parts, n);
  for (k = 0; k < n; k++) {
    Part *p = &g_array_index (self->parts, Part, k);
    gint64 dims[TN_MAX_RANK], str[TN_MAX_RANK], span = 1;
    gint i, j = 0, rank = in.rank;

    for (i = 0; i < in.rank; i++) {
      if (i == axis && self->squeeze) {
        rank--;
        continue;
      }
      dims[j] = i == axis ? stop[k] - start[k] : in.dims[i];
      str[j++] = strides[i];
    }
    p->info = in;
    p->info.rank = rank;
    memcpy (p->info.dims, dims, sizeof (gint64) * rank);
    tn_view_init (&p->view, in.dtype, dims, rank, NULL);
    memcpy (p->view.strides, str, sizeof (gint64) * rank);
    p->dense = tn_view_dense (&p->view);
    p->nbytes = (gsize) tn_view_count (&p->view) * isz;
    for (i = 0; i < rank; i++)
      span += (dims[i] - 1) * str[i];
    p->off = (gsize) (start[k] * strides[axis]) * isz;
    p->len = tn_view_count (&p->view) == 0 ? 0 : (gsize) span * isz;
  }
  if (fresh)
    gst_tensor_splitter_add_pads (self, n);
  for (k = 0; k < n; k++) {
    Part *p = &g_array_index (self->parts, Part, k);
    GstCaps *pc = gst_tn_info_to_caps (&p->info);

    gst_pad_push_event (p->pad, gst_event_new_caps (pc));
    gst_caps_unref (pc);
    if (!p->dense)
      gst_tensor_splitter_query_meta (self, p);
  }
  self->configured = TRUE;
  return TRUE;
}

/* Buffers. */

/* What a part keeps of its input: flags (but the memory tag),
 * timestamps and offsets, and the metas when there are any (as
 * gst_buffer_copy_into, which costs more than the rest of a small part's
 * path when there is nothing to copy). */
/* in_meta: in has metas (asked once per input, not per part) */
static void
gst_tensor_splitter_stamp (GstBuffer *out, GstBuffer *in, gboolean in_meta)
{
  GST_BUFFER_FLAGS (out) = GST_BUFFER_FLAGS (in) & ~GST_BUFFER_FLAG_TAG_MEMORY;
  GST_BUFFER_PTS (out) = GST_BUFFER_PTS (in);
  GST_BUFFER_DTS (out) = GST_BUFFER_DTS (in);
  GST_BUFFER_DURATION (out) = GST_BUFFER_DURATION (in);
  GST_BUFFER_OFFSET (out) = GST_BUFFER_OFFSET (in);
  GST_BUFFER_OFFSET_END (out) = GST_BUFFER_OFFSET_END (in);
  if (in_meta)
    gst_buffer_copy_into (out, in, GST_BUFFER_COPY_META, 0, -1);
}

/* Part p of the dense input buf (mapped as *mi once a part needs it,
 * which then holds the chain's reference to buf): a sub-range or a view
 * of buf's memory, or one dense copy of the view. */
static GstBuffer *
gst_tensor_splitter_part (GstTensorSplitter *self, GstBuffer *buf,
    gboolean in_meta, GstTnMappedInput **mi, Part *p)
{
  GstBuffer *out, *dense;
  GError *err = NULL;

  if (p->len == 0) {
    out = gst_buffer_new ();
    gst_buffer_copy_into (out, buf,
        GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS
            | GST_BUFFER_COPY_META,
        0, -1);
    return out;
  }
  if (p->off == 0 && p->len == self->in_size) {
    out = gst_buffer_copy (buf);
    if (!p->dense)
      gst_tn_buffer_add_layout_meta (out, p->view.rank, 0, p->view.strides);
  } else if (gst_buffer_n_memory (buf) == 1
             && (*mi != NULL
                 || (*mi = gst_tn_mapped_input_new (self->views, buf)))) {
    /* the common case: a recycled view buffer over the mapped input (no
     * allocation, no gst_memory_share; its layout meta kept from its
     * last use), with the flags, timestamps and metas of the input */
    out = gst_tn_mapped_input_view (*mi, self->views, p->off, p->len,
        p->dense ? 0 : p->view.rank, p->view.strides);
    gst_tensor_splitter_stamp (out, buf, in_meta);
  } else {
    /* A region keeps timestamps only from byte 0: copy them whole. */
    out = gst_buffer_copy_region (buf, GST_BUFFER_COPY_ALL, p->off, p->len);
    if (out == NULL)
      return NULL;
    gst_buffer_copy_into (out, buf, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
    if (!p->dense)
      gst_tn_buffer_add_layout_meta (out, p->view.rank, 0, p->view.strides);
  }
  if (p->dense || p->meta_ok)
    return out;
  dense = gst_tn_buffer_dense (out, &p->info, NULL, &err);
  gst_buffer_unref (out);
  if (dense == NULL) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("%s: cannot copy a part: %s", GST_OBJECT_NAME (self), err->message),
        (NULL));
    g_error_free (err);
    return NULL;
  }
  GST_OBJECT_LOCK (self);
  self->bytes_copied += p->nbytes;
  GST_OBJECT_UNLOCK (self);
  return dense;
}

static GstFlowReturn
gst_tensor_splitter_chain (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  /* a plain cast: the checked one costs a type lookup per buffer */
  GstTensorSplitter *self = (GstTensorSplitter *) parent;
  GstFlowReturn ret = GST_FLOW_OK;
  GstBuffer *in = buf;
  GstTnMappedInput *mi = NULL;
  GError *err = NULL;
  gpointer state = NULL;
  gboolean in_meta;
  guint k;

  if (!self->configured) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s: a buffer came before any tensor caps.", GST_OBJECT_NAME (self)),
        (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  /* a buffer without metas has no layout meta: one walk, not two */
  in_meta = gst_buffer_iterate_meta (buf, &state) != NULL;
  if (gst_buffer_get_size (buf) != self->in_size
      || (in_meta && gst_tn_buffer_get_layout_meta (buf) != NULL)) {
    /* a view, or a size that the copy names in words */
    in = gst_tn_buffer_dense (buf, &self->in_info, NULL, &err);
    gst_buffer_unref (buf);
    if (in == NULL) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("%s: the input buffer does not hold the tensor its caps "
           "describe: %s",
              GST_OBJECT_NAME (self), err->message),
          (NULL));
      g_error_free (err);
      return GST_FLOW_ERROR;
    }
    state = NULL;
    in_meta = gst_buffer_iterate_meta (in, &state) != NULL;
  }
  gst_tn_views_enter (self->views);
  for (k = 0; k < self->parts->len; k++) {
    Part *p = &g_array_index (self->parts, Part, k);
    GstBuffer *out;
    GstFlowReturn r;

    /* A dense part's buffer is the same for every reader.  The flag is
     * read without the pad's lock first (one lock pair less per part);
     * gst_pad_check_reconfigure takes it when the flag is set. */
    if (!p->dense && GST_PAD_NEEDS_RECONFIGURE (p->pad)
        && gst_pad_check_reconfigure (p->pad))
      gst_tensor_splitter_query_meta (self, p);
    /* Only a part that costs a copy asks whether anybody reads it: a
     * view is cheaper to make than the pad's lock, and gst_pad_push
     * says NOT_LINKED itself. */
    if (!p->dense && !p->meta_ok && !gst_pad_is_linked (p->pad)) {
      /* nothing to make, nothing to copy, for a part nobody reads */
      ret = self->combined = gst_flow_combiner_update_pad_flow (
          self->combiner, p->pad, GST_FLOW_NOT_LINKED);
      continue;
    }
    out = gst_tensor_splitter_part (self, in, in_meta, &mi, p);
    if (out == NULL) {
      ret = GST_FLOW_ERROR;
      break;
    }
    /* gst_pad_push keeps the pad's last flow for the combiner, which
     * returns OK for OK after OK without a change: no call then */
    r = gst_pad_push (p->pad, out);
    if (r == GST_FLOW_OK && self->combined == GST_FLOW_OK)
      ret = GST_FLOW_OK;
    else
      ret = self->combined = gst_flow_combiner_update_flow (self->combiner, r);
    if (ret != GST_FLOW_OK && ret != GST_FLOW_NOT_LINKED)
      break;
  }
  /* the mapped input holds our reference to in when there is one */
  if (mi != NULL)
    gst_tn_mapped_input_unref (mi);
  else
    gst_buffer_unref (in);
  gst_tn_views_leave (self->views);
  return ret;
}

static gboolean
gst_tensor_splitter_sink_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  GstTensorSplitter *self = GST_TENSOR_SPLITTER (parent);
  GstCaps *caps;
  gboolean ok;

  switch (GST_EVENT_TYPE (event)) {
  case GST_EVENT_CAPS:
    gst_event_parse_caps (event, &caps);
    ok = gst_tensor_splitter_set_caps (self, caps);
    gst_event_unref (event);
    return ok;
  case GST_EVENT_FLUSH_STOP:
    gst_flow_combiner_reset (self->combiner);
    self->combined = GST_FLOW_OK;
    return gst_pad_event_default (pad, parent, event);
  case GST_EVENT_STREAM_START:
    /* the src pads have stream-ids of their own */
    if (self->parts->len > 0) {
      guint k;

      for (k = 0; k < self->parts->len; k++) {
        StickyCtx c = { self, g_array_index (self->parts, Part, k).pad, k };
        GstEvent *e = event;

        gst_tensor_splitter_copy_sticky (pad, &e, &c);
      }
    }
    gst_event_unref (event);
    return TRUE;
  default:
    return gst_pad_event_default (pad, parent, event);
  }
}

static gboolean
gst_tensor_splitter_sink_query (GstPad *pad, GstObject *parent, GstQuery *query)
{
  switch (GST_QUERY_TYPE (query)) {
  case GST_QUERY_ALLOCATION:
    /* dense input only, from upstream's own memory: no pool, no meta */
    return TRUE;
  case GST_QUERY_CAPS: {
    GstCaps *filter, *caps = gst_pad_get_pad_template_caps (pad);

    gst_query_parse_caps (query, &filter);
    caps = gst_tn_caps_filter (caps, filter);
    gst_query_set_caps_result (query, caps);
    gst_caps_unref (caps);
    return TRUE;
  }
  default:
    if (gst_tn_pad_accept_caps_query (pad, parent, query))
      return TRUE;
    return gst_pad_query_default (pad, parent, query);
  }
}

static gboolean
gst_tensor_splitter_src_query (GstPad *pad, GstObject *parent, GstQuery *query)
{
  return gst_pad_query_default (pad, parent, query);
}

/* State and properties. */

static GstStateChangeReturn
gst_tensor_splitter_change_state (
    GstElement *element, GstStateChange transition)
{
  GstTensorSplitter *self = GST_TENSOR_SPLITTER (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    const gchar *prop = NULL;
    gchar *text = NULL, *why;

    GST_OBJECT_LOCK (self);
    why = gst_tensor_splitter_property_problem (self, &prop, &text);
    GST_OBJECT_UNLOCK (self);
    if (why != NULL) {
      gst_tn_element_property_error (element, prop, text, why);
      g_free (text);
      g_free (why);
      return GST_STATE_CHANGE_FAILURE;
    }
    gst_flow_combiner_reset (self->combiner);
    self->combined = GST_FLOW_OK;
    self->configured = FALSE;
  }
  ret = GST_ELEMENT_CLASS (gst_tensor_splitter_parent_class)
            ->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    gst_tensor_splitter_remove_pads (self);
    self->configured = FALSE;
    gst_tn_caps_refusal_clear (&self->refused);
  }
  return ret;
}

static void
gst_tensor_splitter_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorSplitter *self = GST_TENSOR_SPLITTER (object);

  if (!gst_tn_element_property_settable (GST_ELEMENT (self), pspec, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_AXIS:
    self->axis = g_value_get_int (value);
    break;
  case PROP_SECTIONS:
    self->sections = g_value_get_uint (value);
    break;
  case PROP_INDICES:
    g_free (self->indices);
    self->indices = g_value_dup_string (value);
    if (self->indices == NULL)
      self->indices = g_strdup ("");
    break;
  case PROP_SQUEEZE:
    self->squeeze = g_value_get_boolean (value);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_splitter_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTensorSplitter *self = GST_TENSOR_SPLITTER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_AXIS:
    g_value_set_int (value, self->axis);
    break;
  case PROP_SECTIONS:
    g_value_set_uint (value, self->sections);
    break;
  case PROP_INDICES:
    g_value_set_string (value, self->indices);
    break;
  case PROP_SQUEEZE:
    g_value_set_boolean (value, self->squeeze);
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
gst_tensor_splitter_finalize (GObject *object)
{
  GstTensorSplitter *self = GST_TENSOR_SPLITTER (object);

  g_free (self->indices);
  g_array_unref (self->parts);
  gst_flow_combiner_free (self->combiner);
  gst_tn_caps_refusal_clear (&self->refused);
  gst_tn_views_close (self->views);
  G_OBJECT_CLASS (gst_tensor_splitter_parent_class)->finalize (object);
}

/* The GType is not the factory's name (NNStreamer owns GstTensorSplit):
 * tensorsplitter0 becomes tensorsplit0. */
static void
gst_tensor_splitter_constructed (GObject *object)
{
  gst_tn_element_name_as_factory (
      GST_ELEMENT (object), "tensorsplitter", "tensorsplit");
  G_OBJECT_CLASS (gst_tensor_splitter_parent_class)->constructed (object);
}

static void
gst_tensor_splitter_class_init (GstTensorSplitterClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;

  GST_DEBUG_CATEGORY_INIT (gst_tensor_splitter_debug, "tensorsplit", 0,
      "Tensors split along an axis");

  gobject_class->set_property = gst_tensor_splitter_set_property;
  gobject_class->get_property = gst_tensor_splitter_get_property;
  gobject_class->finalize = gst_tensor_splitter_finalize;
  gobject_class->constructed = gst_tensor_splitter_constructed;

  /**
   * GstTensorSplitter:axis:
   *
   * The axis to split; a negative axis counts from the end.  -8 to 7
   * (else the element fails to start with a message: the range is not the
   * GParamSpec's, whose violation GLib only warns about and ignores), and
   * once the rank r is known -r to r-1 (else negotiation fails with a
   * message).  Default: 0.
   */
  g_object_class_install_property (gobject_class, PROP_AXIS,
      g_param_spec_int ("axis", "Axis",
          "The axis to split, negative from the end (-8 .. 7)", G_MININT,
          G_MAXINT, DEFAULT_AXIS, flags));

  /**
   * GstTensorSplitter:sections:
   *
   * Split into this many equal parts; the axis's extent must be a
   * multiple of it.  1 to 1024; 0 (the default) leaves it unset.
   * Exactly one of sections and indices must be set when the element
   * starts.
   */
  g_object_class_install_property (gobject_class, PROP_SECTIONS,
      g_param_spec_uint ("sections", "Sections",
          "Equal parts to split into (0: unset; set this or indices)", 0,
          G_MAXUINT, DEFAULT_SECTIONS, flags));

  /**
   * GstTensorSplitter:indices:
   *
   * Split points along the axis, comma-separated, as np.split's
   * indices: "2,5" gives [0:2], [2:5] and [5:], Python slices (negative
   * points count from the end, points past the end clamp, a part may be
   * empty).  At most 1023 points.  Empty (the default) leaves it unset;
   * a list that does not parse is an error when the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_INDICES,
      g_param_spec_string ("indices", "Indices",
          "Comma-separated split points, as np.split's (empty: unset; set "
          "this or sections)",
          DEFAULT_INDICES, flags));

  /**
   * GstTensorSplitter:squeeze:
   *
   * Drop the split axis from the parts; every part must then have
   * extent 1 on it (else negotiation fails with a message).  Default:
   * false.
   */
  g_object_class_install_property (gobject_class, PROP_SQUEEZE,
      g_param_spec_boolean ("squeeze", "Squeeze",
          "Drop the split axis (every part must have extent 1 on it)",
          DEFAULT_SQUEEZE, flags));

  /**
   * GstTensorSplitter:bytes-copied:
   *
   * Bytes copied so far: parts that are not a contiguous range of the
   * input, made dense for a downstream that does not read the layout
   * meta.
   */
  g_object_class_install_property (gobject_class, PROP_BYTES_COPIED,
      g_param_spec_uint64 ("bytes-copied", "Bytes copied",
          "Bytes copied so far: strided parts made dense for a downstream "
          "that does not read the layout meta",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Tensor split",
      "Demuxer/Tensor",
      "Splits tensors along an axis into parts, one src pad each, as "
      "np.split, sharing the input memory",
      "gst-tensor developers");

  element_class->change_state
      = GST_DEBUG_FUNCPTR (gst_tensor_splitter_change_state);
}

static void
gst_tensor_splitter_init (GstTensorSplitter *self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (
      self->sinkpad, GST_DEBUG_FUNCPTR (gst_tensor_splitter_chain));
  gst_pad_set_event_function (
      self->sinkpad, GST_DEBUG_FUNCPTR (gst_tensor_splitter_sink_event));
  gst_pad_set_query_function (
      self->sinkpad, GST_DEBUG_FUNCPTR (gst_tensor_splitter_sink_query));
  gst_tn_pad_accept_intersect (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->axis = DEFAULT_AXIS;
  self->sections = DEFAULT_SECTIONS;
  self->indices = g_strdup (DEFAULT_INDICES);
  self->squeeze = DEFAULT_SQUEEZE;
  self->parts = g_array_new (FALSE, TRUE, sizeof (Part));
  self->combiner = gst_flow_combiner_new ();
  self->combined = GST_FLOW_OK;
  self->views = gst_tn_views_new ();
}
