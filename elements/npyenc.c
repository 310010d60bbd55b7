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
 * ## stack=true
 *
 * The whole stream becomes one .npy of dims <n, dims...>, n the count of
 * buffers, as `numpy.save ("x.npy", numpy.stack (frames))` writes it.
 * The data goes out as it comes and the header is written again at EOS
 * at byte 0, which needs a sink that seeks (filesink); anything else is
 * an element error at the first buffer (last example below).
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
 * Five frames of float32 2x3 holding 0..5, as one array of dims 5x2x3:
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=5 \
 *     ! "tensor/x-raw,type=float32,dims=<2,3>" ! npyenc stack=true \
 *     ! filesink location=stack.npy
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

  /* stack=true (property under the object lock): the stream so far */
  gboolean stack;
  gboolean stacking;    /* the placeholder header went out */
  GstTnInfo stack_info; /* the tensor of every buffer */
  guint64 stacked;      /* buffers written */
  gsize header_len;     /* of the placeholder, which the final one fills */
};

enum {
  PROP_0,
  PROP_STACK,
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

/* Same dtype and dims (the framerate does not reach the file). */
static gboolean
gst_npy_enc_same_tensor (const GstTnInfo *a, const GstTnInfo *b)
{
  return a->dtype == b->dtype && a->rank == b->rank
         && memcmp (a->dims, b->dims, sizeof (gint64) * (gsize) a->rank) == 0;
}

/* stack=true: the header of the whole recording, <n, dims...>, padded
 * to exactly len bytes (0 for the length it has without padding; a
 * header rewritten at byte 0 must keep the placeholder's length).  NULL
 * when it does not fit. */
static GstMemory *
gst_npy_enc_stack_header (const GstTnInfo *info, gint64 n, gsize len)
{
  char buf[NPY_ENC_HEADER_CAP];
  int64_t dims[TN_MAX_RANK];
  tn_dtype t = info->dtype == TN_BFLOAT16 ? TN_FLOAT32 : info->dtype;
  size_t got;
  GstMemory *mem;
  GstMapInfo map;

  if (info->rank >= TN_MAX_RANK)
    return NULL;
  dims[0] = n;
  memcpy (dims + 1, info->dims, sizeof (int64_t) * (size_t) info->rank);
  got = tn_npy_header (buf, sizeof buf, t, dims, info->rank + 1);
  /* format 1.0: magic (6), version (2), header length (2, LE), the
   * dict, spaces, a newline; more spaces read the same */
  if (got == 0 || buf[6] != 1 || (len && (got > len || len > 65535 + 10)))
    return NULL;
  if (len > got) {
    gsize end = got - 1;

    while (end > 10 && buf[end - 1] == ' ')
      end--;
    memset (buf + end, ' ', len - 1 - end);
    buf[len - 1] = '\n';
    buf[8] = (char) ((len - 10) & 0xff);
    buf[9] = (char) ((len - 10) >> 8);
    got = len;
  }
  mem = gst_npy_enc_alloc (got);
  gst_memory_map (mem, &map, GST_MAP_WRITE);
  memcpy (map.data, buf, got);
  gst_memory_unmap (mem, &map);
  return mem;
}

/* The first buffer of a stack: downstream must be able to seek back to
 * byte 0 at EOS; then the placeholder header, sized for the largest
 * count of buffers whose data could be written at all (half of what
 * fits in 2^63 bytes, which tn_npy_header accepts with room). */
static gboolean
gst_npy_enc_stack_start (GstNpyEnc *self)
{
  GstQuery *q = gst_query_new_seeking (GST_FORMAT_BYTES);
  gboolean seekable = FALSE;
  guint64 row;
  GstMemory *hdr;
  GstBuffer *b;

  if (gst_pad_peer_query (self->srcpad, q))
    gst_query_parse_seeking (q, NULL, &seekable, NULL, NULL);
  gst_query_unref (q);
  if (!seekable) {
    GstPad *peer = gst_pad_get_peer (self->srcpad);

    NPY_ENC_ERROR (self, RESOURCE, SEEK,
        "stack=true writes one .npy whose header, written last, gives the "
        "count of buffers at byte 0, and downstream (%s) cannot seek back "
        "there; write to filesink, or use stack=false (one array per "
        "buffer).",
        peer ? GST_OBJECT_NAME (GST_OBJECT_PARENT (peer)) : "nothing");
    if (peer)
      gst_object_unref (peer);
    return FALSE;
  }
  /* The bytes of one buffer as the header's bound counts them (an axis of
   * extent 0 as 1), so that a stack of empty tensors gets a count the
   * header takes too. */
  row = tn_npy_bytes (
      self->info.dtype == TN_BFLOAT16 ? TN_FLOAT32 : self->info.dtype,
      self->info.dims, self->info.rank);
  hdr = gst_npy_enc_stack_header (&self->info,
      row > (guint64) G_MAXINT64 ? 0 : G_MAXINT64 / (gint64) row / 2, 0);
  if (hdr == NULL) {
    NPY_ENC_ERROR (self, STREAM, ENCODE,
        "stack=true cannot write a header for tensors of rank %d: a .npy "
        "holds up to %d axes, and the stack adds one.",
        self->info.rank, TN_MAX_RANK);
    return FALSE;
  }
  self->header_len = hdr->size;
  self->stack_info = self->info;
  self->stacking = TRUE;
  self->stacked = 0;
  b = gst_buffer_new ();
  gst_buffer_append_memory (b, hdr);
  return gst_pad_push (self->srcpad, b) == GST_FLOW_OK;
}

/* At EOS: the real header over the placeholder, through a BYTES segment
 * from 0 (filesink seeks there). */
static gboolean
gst_npy_enc_stack_finish (GstNpyEnc *self)
{
  GstMemory *hdr = gst_npy_enc_stack_header (
      &self->stack_info, (gint64) self->stacked, self->header_len);
  GstSegment seg;
  GstBuffer *b;

  self->stacking = FALSE;
  if (hdr == NULL) {
    NPY_ENC_ERROR (self, STREAM, ENCODE,
        "the header of %" G_GUINT64_FORMAT " stacked buffers does not fit "
        "the %" G_GSIZE_FORMAT " bytes kept for it.",
        self->stacked, self->header_len);
    return FALSE;
  }
  gst_segment_init (&seg, GST_FORMAT_BYTES);
  gst_pad_push_event (self->srcpad, gst_event_new_segment (&seg));
  b = gst_buffer_new ();
  gst_buffer_append_memory (b, hdr);
  return gst_pad_push (self->srcpad, b) == GST_FLOW_OK;
}

static GstFlowReturn
gst_npy_enc_chain (GstPad *pad, GstObject *parent, GstBuffer *in)
{
  GstNpyEnc *self = GST_NPY_ENC (parent);
  const GstTnInfo *info = &self->info;
  GError *err = NULL;
  GstBuffer *dense, *out;
  gsize need = 0, size;
  gboolean stack;
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

  GST_OBJECT_LOCK (self);
  stack = self->stack;
  GST_OBJECT_UNLOCK (self);
  if (stack && !self->stacking && !gst_npy_enc_stack_start (self)) {
    gst_buffer_unref (dense);
    gst_buffer_unref (in);
    return GST_FLOW_ERROR;
  }
  if (stack && !gst_npy_enc_same_tensor (&self->info, &self->stack_info)) {
    gchar *a = gst_tn_info_to_string (&self->stack_info);
    gchar *b = gst_tn_info_to_string (&self->info);

    NPY_ENC_ERROR (self, STREAM, FORMAT,
        "stack=true stacks tensors of one dtype and dims: buffer "
        "%" G_GUINT64_FORMAT " is %s, the ones before were %s.",
        self->stacked, b, a);
    g_free (a);
    g_free (b);
    gst_buffer_unref (dense);
    gst_buffer_unref (in);
    return GST_FLOW_ERROR;
  }
  out = gst_buffer_new ();
  if (stack)
    self->stacked++;
  else
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
  gst_tn_caps_refusal_clear (&self->refused);
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

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->stacking
      && !gst_npy_enc_stack_finish (self)) {
    gst_event_unref (event);
    return FALSE;
  }
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
    self->stacking = FALSE;
    gst_npy_enc_clear (self);
    gst_tn_caps_refusal_clear (&self->refused);
  }
  return ret;
}

static void
gst_npy_enc_finalize (GObject *object)
{
  gst_npy_enc_clear (GST_NPY_ENC (object));
  gst_tn_caps_refusal_clear (&GST_NPY_ENC (object)->refused);
  G_OBJECT_CLASS (gst_npy_enc_parent_class)->finalize (object);
}

static void
gst_npy_enc_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstNpyEnc *self = GST_NPY_ENC (object);

  if (prop_id != PROP_STACK) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  /* one file or a file per buffer: a whole stream's choice */
  if (!gst_tn_element_property_settable (GST_ELEMENT (self), pspec, value))
    return;
  GST_OBJECT_LOCK (self);
  self->stack = g_value_get_boolean (value);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_npy_enc_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstNpyEnc *self = GST_NPY_ENC (object);

  if (prop_id != PROP_STACK) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  GST_OBJECT_LOCK (self);
  g_value_set_boolean (value, self->stack);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_npy_enc_class_init (GstNpyEncClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (
      gst_npy_enc_debug, "npyenc", 0, "NumPy .npy encoder");

  gobject_class->finalize = gst_npy_enc_finalize;
  gobject_class->set_property = gst_npy_enc_set_property;
  gobject_class->get_property = gst_npy_enc_get_property;

  /**
   * GstNpyEnc:stack:
   *
   * Writes the whole stream as one .npy whose axis 0 counts the buffers
   * (what numpy.save of np.stack of them gives), instead of one array per
   * buffer.  Each buffer's data goes out as it comes; the header goes
   * first as a placeholder and again at EOS, at byte 0 (a BYTES segment),
   * so the stream is never held in memory: downstream must seek
   * (filesink), else an element error at the first buffer.  Every buffer
   * must have the same dtype and dims.  Default FALSE; set in NULL or
   * READY.
   */
  g_object_class_install_property (gobject_class, PROP_STACK,
      g_param_spec_boolean ("stack", "Stack",
          "Write the stream as one .npy whose axis 0 counts the buffers "
          "(needs a sink that seeks, such as filesink)",
          FALSE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
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
