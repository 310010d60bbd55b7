/* GStreamer tensor plugin: .npy file encoder.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-npyenc
 * @title: npyenc
 * @see_also: npydec, multifilesink, filesink
 *
 * Turns each tensor buffer into one complete NumPy .npy file (format 1.0,
 * little-endian, C order, the bytes `numpy.save` writes): a header
 * followed by the tensor's own memory, appended to the output buffer
 * without a copy.  One output buffer per input, so `multifilesink` writes
 * one file per tensor, which `numpy.load` reads as it is, and which
 * `multifilesrc ! npydec` reads back one tensor per file.  With `filesink`
 * the files are concatenated: npydec reads such a stream back one tensor
 * per array, and so does `numpy.load` called once per array on one open
 * file.
 *
 * The header is made once per caps, and shared by every output buffer.
 * Caps need only `type` and `dims` (`tensor/x-raw,type=float32,dims=<3,4>`);
 * `dims-order` defaults to row-major and `framerate` to none.  A strided
 * tensor (one with the layout meta) is made dense once; npyenc advertises
 * the meta so upstream need not copy it first.
 *
 * NumPy has no bfloat16 type: a bfloat16 tensor is written as a float32
 * file, each value widened exactly.  Reading such a file back gives
 * float32.
 *
 * A buffer whose size is not what its caps say, caps that describe more
 * than 2^63 bytes, or a buffer before any caps is an element error with the
 * numbers.
 *
 * ## Example launch lines
 *
 * Three files out-00000.npy..out-00002.npy, each a float32 array of dims
 * 2x3 holding 0..5:
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=3 \
 *     ! "tensor/x-raw,type=float32,dims=<2,3>" ! npyenc \
 *     ! multifilesink location=out-%05d.npy
 * ]|
 * A bfloat16 tensor, stored as float32 [0, 1, 2, 3]:
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=bfloat16,dims=<4>" ! npyenc \
 *     ! filesink location=bf16.npy
 * ]|
 * One file of four 2x2 frames, then one file per frame:
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=uint8,dims=<4,2,2>" ! npyenc \
 *     ! filesink location=frames.npy
 * ]|
 * |[
 * gst-launch-1.0 filesrc location=frames.npy ! npydec split=true \
 *     ! npyenc ! multifilesink location=frame-%05d.npy
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/tensor/gsttensor.h>

#include "elements.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY_STATIC (gst_npy_enc_debug);
#define GST_CAT_DEFAULT gst_npy_enc_debug

#define GST_TYPE_NPY_ENC (gst_npy_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstNpyEnc, gst_npy_enc, GST, NPY_ENC, GstElement)

/* A rank-8 header of 20-digit extents is about 300 bytes, padded to 64. */
#define NPY_ENC_HEADER_CAP 1024

/* Every message starts with the element's name, so that an application
 * that shows only the text still says who is speaking. */
#define NPY_ENC_ERROR(self, domain, code, fmt, ...)                            \
  GST_ELEMENT_ERROR (self, domain, code,                                       \
      ("%s: " fmt, GST_OBJECT_NAME (self), __VA_ARGS__), (NULL))

struct _GstNpyEnc {
  GstElement parent;

  GstPad *sinkpad;
  GstPad *srcpad;

  gboolean have_info;
  GstTnInfo info;
  /* The header for the negotiated caps, shared by every output buffer. */
  GstMemory *header;
  /* The caps refused last: a source sends them again before every buffer
   * it tries, and one refusal is one error. */
  GstCaps *refused;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-npy"));

G_DEFINE_TYPE (GstNpyEnc, gst_npy_enc, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (
    npyenc, "npyenc", GST_RANK_PRIMARY, GST_TYPE_NPY_ENC);

static GstMemory *
gst_npy_enc_alloc (gsize size)
{
  GstAllocator *alloc = gst_tn_allocator_get ();
  GstMemory *mem = gst_allocator_alloc (alloc, size, NULL);

  gst_object_unref (alloc);
  return mem;
}

/* The header for info as its own memory, sized exactly; NULL if it does
 * not fit in NPY_ENC_HEADER_CAP bytes. */
static GstMemory *
gst_npy_enc_make_header (const GstTnInfo *info)
{
  char buf[NPY_ENC_HEADER_CAP];
  /* NumPy has no bfloat16: such tensors are written widened. */
  tn_dtype t = info->dtype == TN_BFLOAT16 ? TN_FLOAT32 : info->dtype;
  size_t len = tn_npy_header (buf, sizeof buf, t, info->dims, info->rank);
  GstMemory *mem;
  GstMapInfo map;

  if (len == 0)
    return NULL;
  mem = gst_npy_enc_alloc (len);
  gst_memory_map (mem, &map, GST_MAP_WRITE);
  memcpy (map.data, buf, len);
  gst_memory_unmap (mem, &map);
  return mem;
}

static void
gst_npy_enc_clear (GstNpyEnc *self)
{
  self->have_info = FALSE;
  if (self->header) {
    gst_memory_unref (self->header);
    self->header = NULL;
  }
}

static GstFlowReturn
gst_npy_enc_chain (GstPad *pad, GstObject *parent, GstBuffer *in)
{
  GstNpyEnc *self = GST_NPY_ENC (parent);
  const GstTnInfo *info = &self->info;
  GError *err = NULL;
  GstBuffer *dense, *out;
  gsize need = 0, size;
  guint i, n;

  if (!self->have_info) {
    NPY_ENC_ERROR (self, CORE, NEGOTIATION,
        "received a buffer of %" G_GSIZE_FORMAT
        " bytes before any caps (or after caps it refused).",
        gst_buffer_get_size (in));
    gst_buffer_unref (in);
    return GST_FLOW_NOT_NEGOTIATED;
  }

  size = gst_buffer_get_size (in);
  if (!gst_tn_info_size (info, &need)) {
    gchar *s = gst_tn_info_to_string (info);

    NPY_ENC_ERROR (self, STREAM, FORMAT,
        "caps %s describe more bytes than fit in memory; the buffer "
        "holds %" G_GSIZE_FORMAT ".",
        s, size);
    g_free (s);
    gst_buffer_unref (in);
    return GST_FLOW_ERROR;
  }
  if (gst_tn_buffer_get_layout_meta (in) == NULL && size != need) {
    gchar *s = gst_tn_info_to_string (info);

    NPY_ENC_ERROR (self, STREAM, FORMAT,
        "buffer holds %" G_GSIZE_FORMAT " bytes; caps %s need %" G_GSIZE_FORMAT
        ".",
        size, s, need);
    g_free (s);
    gst_buffer_unref (in);
    return GST_FLOW_ERROR;
  }

  /* A dense buffer comes back as itself; a strided one is copied once. */
  dense = gst_tn_buffer_dense (in, info, NULL, &err);
  if (dense == NULL) {
    NPY_ENC_ERROR (self, STREAM, FORMAT, "%s", err->message);
    g_clear_error (&err);
    gst_buffer_unref (in);
    return GST_FLOW_ERROR;
  }

  out = gst_buffer_new ();
  gst_buffer_append_memory (out, gst_memory_ref (self->header));
  if (info->dtype == TN_BFLOAT16) {
    gsize count = need / 2;

    if (count > 0) {
      /* NumPy has no bfloat16: widen, which is exact. */
      GstMemory *mem = gst_npy_enc_alloc (count * 4);
      GstMapInfo src, dst;

      gst_buffer_map (dense, &src, GST_MAP_READ);
      gst_memory_map (mem, &dst, GST_MAP_WRITE);
      tn_cast (dst.data, TN_FLOAT32, src.data, TN_BFLOAT16, count);
      gst_memory_unmap (mem, &dst);
      gst_buffer_unmap (dense, &src);
      gst_buffer_append_memory (out, mem);
    }
  } else {
    n = gst_buffer_n_memory (dense);
    for (i = 0; i < n; i++)
      gst_buffer_append_memory (
          out, gst_memory_ref (gst_buffer_peek_memory (dense, i)));
  }
  gst_buffer_copy_into (out, in, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  gst_buffer_unref (dense);
  gst_buffer_unref (in);
  return gst_pad_push (self->srcpad, out);
}

static gboolean
gst_npy_enc_set_caps (GstNpyEnc *self, GstCaps *caps)
{
  GError *err = NULL;
  GstCaps *out;
  gboolean ok;
  gchar *s;

  gst_npy_enc_clear (self);
  if (!gst_tn_info_from_caps (&self->info, caps, &err)) {
    if (gst_tn_caps_refusal_is_new (&self->refused, caps))
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("%s: %s", GST_OBJECT_NAME (self), err->message),
          ("caps: %" GST_PTR_FORMAT, caps));
    g_clear_error (&err);
    return FALSE;
  }
  self->header = gst_npy_enc_make_header (&self->info);
  if (self->header == NULL) {
    if (gst_tn_caps_refusal_is_new (&self->refused, caps)) {
      s = gst_tn_info_to_string (&self->info);
      NPY_ENC_ERROR (self, STREAM, ENCODE,
          "cannot write an npy header for %s: its data would not fit in "
          "2^63 bytes, or the header in %d.",
          s, NPY_ENC_HEADER_CAP);
      g_free (s);
    }
    return FALSE;
  }
  gst_caps_replace (&self->refused, NULL);
  self->have_info = TRUE;
  GST_DEBUG_OBJECT (self,
      "header of %" G_GSIZE_FORMAT " bytes for %" GST_PTR_FORMAT,
      self->header->size, caps);

  out = gst_static_pad_template_get_caps (&src_template);
  ok = gst_pad_set_caps (self->srcpad, out);
  gst_caps_unref (out);
  return ok;
}

static gboolean
gst_npy_enc_sink_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  GstNpyEnc *self = GST_NPY_ENC (parent);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;
    gboolean ok;

    gst_event_parse_caps (event, &caps);
    ok = gst_npy_enc_set_caps (self, caps);
    gst_event_unref (event);
    return ok;
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
gst_npy_enc_sink_query (GstPad *pad, GstObject *parent, GstQuery *query)
{
  if (gst_tn_pad_accept_caps_query (pad, parent, query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION) {
    /* We read strides, so a strided view upstream costs us one copy at
     * most instead of one upstream plus ours. */
    gst_query_add_allocation_meta (query, GST_TN_LAYOUT_META_API_TYPE, NULL);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

static GstStateChangeReturn
gst_npy_enc_change_state (GstElement *element, GstStateChange transition)
{
  GstNpyEnc *self = GST_NPY_ENC (element);
  GstStateChangeReturn ret;

  ret = GST_ELEMENT_CLASS (gst_npy_enc_parent_class)
            ->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    gst_npy_enc_clear (self);
    gst_caps_replace (&self->refused, NULL);
  }
  return ret;
}

static void
gst_npy_enc_finalize (GObject *object)
{
  gst_npy_enc_clear (GST_NPY_ENC (object));
  gst_caps_replace (&GST_NPY_ENC (object)->refused, NULL);
  G_OBJECT_CLASS (gst_npy_enc_parent_class)->finalize (object);
}

static void
gst_npy_enc_class_init (GstNpyEncClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (
      gst_npy_enc_debug, "npyenc", 0, "NumPy .npy encoder");

  gobject_class->finalize = gst_npy_enc_finalize;
  element_class->change_state = gst_npy_enc_change_state;

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "NumPy .npy encoder",
      "Codec/Encoder/Tensor",
      "Writes each tensor buffer as one complete NumPy .npy file, as "
      "numpy.save does (bfloat16 widened to float32)",
      "gst-tensor developers");
}

static void
gst_npy_enc_init (GstNpyEnc *self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_tn_pad_accept_intersect (self->sinkpad);
  gst_pad_set_chain_function (
      self->sinkpad, GST_DEBUG_FUNCPTR (gst_npy_enc_chain));
  gst_pad_set_event_function (
      self->sinkpad, GST_DEBUG_FUNCPTR (gst_npy_enc_sink_event));
  gst_pad_set_query_function (
      self->sinkpad, GST_DEBUG_FUNCPTR (gst_npy_enc_sink_query));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
