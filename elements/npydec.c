/* GStreamer tensor plugin: .npy stream decoder.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-npydec
 * @title: npydec
 * @see_also: npyenc, tensordebug, multifilesrc
 *
 * Reads NumPy .npy data (format 1.0, 2.0 or 3.0, either byte order, C or
 * Fortran order) and emits each array as a tensor/x-raw buffer whose caps
 * carry the dtype and dims of its header.
 *
 * ## A stream of arrays
 *
 * The input is a stream of arrays: a header, then exactly the data bytes
 * that header promises, then the next header.  One file gives one tensor.
 * Files concatenated into one byte stream (`cat a.npy b.npy`, or several
 * `numpy.save` calls on one open file, which `numpy.load` reads back one
 * call at a time from the same open file) give one tensor each, and so
 * does `multifilesrc`, which sends each file as one buffer.  Every array
 * may have its own dtype and dims: a new CAPS event precedes the first
 * buffer of an array whose dtype or dims differ from the array before;
 * arrays alike share one CAPS event.  Buffer n of the stream, counted from
 * 0 across arrays and sub-tensors, has offset n and, when
 * #GstNpyDec:framerate is not 0/1, the PTS of frame n.
 *
 * ## Memory
 *
 * The data of an array that lies inside one input buffer, at an address
 * aligned for its dtype, is passed on without a copy: the output is a
 * region of that buffer's memory.  Data that spans input buffers, or that
 * is misaligned (an int16 array after an odd-sized int8 array in a
 * concatenation, say), is copied once into 64-byte aligned memory.
 * Big-endian data is byte-swapped once: in place when the input memory is
 * writable and nobody else holds it, otherwise in that one copy.  An array
 * stored in Fortran order is emitted as a strided view (with the layout
 * meta) when downstream advertises the meta in the ALLOCATION query, and
 * as one dense copy otherwise.
 *
 * ## split=true
 *
 * Every array is emitted as the stream of its sub-tensors along axis 0
 * (dims without the first), each a region of the array's one data block.
 * A rank-0 array cannot be split.  An array without items (an extent of 0)
 * splits into as many empty tensors as axis 0 says, but at most 65536:
 * more is an error, so that a 128-byte header cannot ask for billions of
 * buffers.
 *
 * ## Errors
 *
 * Each is an element error that stops the pipeline, with the numbers:
 *
 * - A malformed header, or a dtype that is not a tensor dtype (complex,
 *   string, object...): the byte of the header and what was expected
 *   there.  Bytes after an array that do not start a header are such an
 *   error: nothing is skipped silently.
 * - An extent that tensor caps cannot hold: caps hold extents up to
 *   2147483647, so shape (3000000000, 0) is refused with "axis 0 has
 *   extent 3000000000; tensor caps hold extents up to 2147483647".  With
 *   split=true axis 0 does not go in the caps and may be larger.
 * - The stream ends (EOS, or a new stream-start) inside an array: "npy
 *   data ends after 88 of 96 bytes" or "npy header ends after 20 of 128
 *   bytes", with which array of the stream it was and the byte where it
 *   starts.  A stream without a single byte is an error too; a stream
 *   that ends right after an array's data is a clean end.
 *
 * ## Seeking
 *
 * With split=true npydec answers the DURATION query (in buffers, the
 * DEFAULT format, and in TIME when #GstNpyDec:framerate is set) for a
 * stream of one array whose upstream says how many bytes it has (filesrc),
 * the POSITION query (the next buffer's index or PTS), the SEEKING query,
 * and flushing seeks at rate 1 in DEFAULT (buffer index along axis 0) or,
 * with a framerate, TIME (the buffer that holds the time): it seeks
 * upstream to byte 0, reads the stream again and pushes from the start
 * index on, the first buffer flagged DISCONT after a segment that starts
 * at its PTS; a stop position ends the stream there.  Buffers keep their
 * index and PTS.  Any other seek (split=false, another rate or format, no
 * FLUSH flag, or an upstream that cannot seek in bytes, such as
 * multifilesrc) is refused: the seek returns FALSE and the stream goes on.
 *
 * ## Example launch lines
 *
 * Make a file, a float32 array of dims 2x3 holding 0..5, then read it:
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=float32,dims=<2,3>" ! npyenc \
 *     ! filesink location=a.npy
 * ]|
 * |[
 * gst-launch-1.0 filesrc location=a.npy ! npydec ! tensordebug ! fakesink
 * ]|
 * Four 2x2 frames of uint8 in one array, emitted one by one at 30 per
 * second:
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=1 \
 *     ! "tensor/x-raw,type=uint8,dims=<4,2,2>" ! npyenc \
 *     ! filesink location=frames.npy
 * ]|
 * |[
 * gst-launch-1.0 filesrc location=frames.npy \
 *     ! npydec split=true framerate=30/1 ! tensordebug ! fakesink
 * ]|
 * One file per tensor, and back, one tensor per file:
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange num-buffers=3 \
 *     ! "tensor/x-raw,type=int16,dims=<3>" ! npyenc \
 *     ! multifilesink location=out-%05d.npy
 * ]|
 * |[
 * gst-launch-1.0 multifilesrc location=out-%05d.npy ! npydec \
 *     ! tensordebug ! fakesink
 * ]|
 * Three files of three shapes and dtypes in one byte stream, three
 * tensors:
 * |[
 * cat a.npy frames.npy out-00000.npy > all.npy
 * ]|
 * |[
 * gst-launch-1.0 filesrc location=all.npy ! npydec ! tensordebug ! fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/base/gstadapter.h>
#include <gst/tensor/gsttensor.h>

#include "npydec.h"

GST_DEBUG_CATEGORY (gst_npy_dec_debug);
#define GST_CAT_DEFAULT gst_npy_dec_debug

/* The header is at most a few hundred bytes in practice; mapping this much
 * of the adapter at a time lets the parser see a whole header in one go
 * without merging the data that follows. */
#define NPY_DEC_PEEK 4096

/* With split=true, an array without items may still claim any extent of
 * axis 0 in a few header bytes; each would be one pushed buffer.  This
 * bounds the empty buffers one array can ask for.  An array with items
 * needs no bound: its sub-tensors are bounded by the data bytes that came. */
#define NPY_DEC_MAX_EMPTY_SPLIT 65536

/* Every message starts with the element's name, so that an application
 * that shows only the text still says who is speaking. */
#define NPY_DEC_ERROR(self, domain, code, fmt, ...)                            \
  GST_ELEMENT_ERROR (self, domain, code,                                       \
      ("%s: " fmt, GST_OBJECT_NAME (self), __VA_ARGS__), (NULL))

enum {
  PROP_0,
  PROP_FRAMERATE,
  PROP_SPLIT,
};

#define DEFAULT_SPLIT FALSE

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-npy"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

G_DEFINE_TYPE (GstNpyDec, gst_npy_dec, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (
    npydec, "npydec", GST_RANK_PRIMARY, GST_TYPE_NPY_DEC);

static void
gst_npy_dec_reset (GstNpyDec *self)
{
  gst_adapter_clear (self->adapter);
  self->need = 1;
  self->have_header = FALSE;
  self->failed = FALSE;
  self->need_segment = TRUE;
  self->arrays = 0;
  self->index = 0;
  self->array_start = 0;
  self->meta_known = FALSE;
  memset (&self->hdr, 0, sizeof self->hdr);
  self->have_first = FALSE;
  self->skip_to = 0;
  self->stop_at = -1;
  self->stopped = FALSE;
  self->discont = FALSE;
  self->seqnum = 0;
}

/* Makes buf one memory whose data is aligned for its items and, when swap
 * is set, byte-swapped.  Copies only when it has to: the buffer spans
 * several memories (every map would merge them again), the data is
 * misaligned, or a swap is needed and the memory is shared. */
static GstBuffer *
gst_npy_dec_normalize (GstNpyDec *self, GstBuffer *buf, gsize itemsize,
    gboolean swap, GError **err)
{
  GstMemory *mem;
  GstMapInfo map;
  GstAllocator *alloc;
  GstBuffer *out;
  gsize size = gst_buffer_get_size (buf);
  gboolean copy;

  if (size == 0)
    return buf;

  copy = gst_buffer_n_memory (buf) != 1;
  if (!copy) {
    mem = gst_buffer_peek_memory (buf, 0);
    if (!gst_memory_map (mem, &map, GST_MAP_READ)) {
      g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
          "could not map the %" G_GSIZE_FORMAT " bytes of npy data", size);
      gst_buffer_unref (buf);
      return NULL;
    }
    copy = ((guintptr) map.data) % itemsize != 0;
    gst_memory_unmap (mem, &map);
    if (swap && !copy)
      copy = !gst_buffer_is_writable (buf) || !gst_memory_is_writable (mem);
  }

  if (!copy) {
    if (swap) {
      gst_buffer_map (buf, &map, GST_MAP_WRITE);
      tn_npy_swap (map.data, itemsize, map.size / itemsize);
      gst_buffer_unmap (buf, &map);
    }
    return buf;
  }

  GST_DEBUG_OBJECT (self,
      "copying %" G_GSIZE_FORMAT " bytes from %u memories (swap %d)", size,
      gst_buffer_n_memory (buf), swap);
  alloc = gst_tn_allocator_get ();
  mem = gst_allocator_alloc (alloc, size, NULL);
  gst_object_unref (alloc);
  if (mem == NULL) {
    g_set_error (err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "could not allocate %" G_GSIZE_FORMAT " bytes for the npy data", size);
    gst_buffer_unref (buf);
    return NULL;
  }
  gst_memory_map (mem, &map, GST_MAP_WRITE);
  gst_buffer_extract (buf, 0, map.data, size);
  if (swap)
    tn_npy_swap (map.data, itemsize, size / itemsize);
  gst_memory_unmap (mem, &map);

  out = gst_buffer_new ();
  gst_buffer_append_memory (out, mem);
  gst_buffer_unref (buf);
  return out;
}

/* Whether downstream reads the layout meta, asked once per caps (and again
 * when downstream asks for a reconfiguration). */
static gboolean
gst_npy_dec_downstream_has_meta (GstNpyDec *self, GstCaps *caps)
{
  GstQuery *query;

  if (gst_pad_check_reconfigure (self->srcpad))
    self->meta_known = FALSE;
  if (self->meta_known)
    return self->meta;
  query = gst_query_new_allocation (caps, FALSE);
  self->meta = FALSE;
  if (gst_pad_peer_query (self->srcpad, query))
    self->meta = gst_query_find_allocation_meta (
        query, GST_TN_LAYOUT_META_API_TYPE, NULL);
  gst_query_unref (query);
  self->meta_known = TRUE;
  GST_DEBUG_OBJECT (self, "downstream reads the layout meta: %d", self->meta);
  return self->meta;
}

void
gst_npy_dec_stamp (GstBuffer *buf, guint64 index, gint fps_n, gint fps_d)
{
  GST_BUFFER_OFFSET (buf) = index;
  GST_BUFFER_OFFSET_END (buf) = index + 1;
  if (fps_n > 0 && fps_d > 0) {
    GstClockTime t0 = gst_util_uint64_scale (index, fps_d * GST_SECOND, fps_n);
    GstClockTime t1
        = gst_util_uint64_scale (index + 1, fps_d * GST_SECOND, fps_n);

    GST_BUFFER_PTS (buf) = t0;
    GST_BUFFER_DURATION (buf) = t1 - t0;
  } else {
    GST_BUFFER_PTS (buf) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION (buf) = GST_CLOCK_TIME_NONE;
  }
}

static gboolean
gst_npy_dec_is_dense (tn_view v)
{
  v.offset = 0;
  return tn_view_dense (&v);
}

/* Sub-tensor i along axis 0 of data viewed as v: a region of the same
 * memory, with the layout meta when its strides are not dense. */
static GstBuffer *
gst_npy_dec_sub_buffer (GstBuffer *data, const tn_view *v, gint64 i)
{
  tn_view sv = *v;
  gsize isz = tn_dtype_size (v->dtype);
  gint64 span = 1;
  GstBuffer *sub;
  gint k;

  tn_view_select (&sv, 0, i, NULL);
  if (tn_view_count (&sv) == 0)
    return gst_buffer_new ();
  for (k = 0; k < sv.rank; k++)
    span += (sv.dims[k] - 1) * sv.strides[k];
  sub = gst_buffer_copy_region (
      data, GST_BUFFER_COPY_MEMORY, sv.offset * isz, span * isz);
  if (!gst_npy_dec_is_dense (sv))
    gst_tn_buffer_add_layout_meta (sub, sv.rank, 0, sv.strides);
  return sub;
}

/* "(3000000000, 0)", as NumPy prints a shape (g_free it). */
static gchar *
gst_npy_dec_shape_string (const tn_npy *h)
{
  GString *s = g_string_new ("(");
  gint i;

  for (i = 0; i < h->rank; i++)
    g_string_append_printf (
        s, "%s%" G_GINT64_FORMAT, i ? ", " : "", h->dims[i]);
  g_string_append (s, h->rank == 1 ? ",)" : ")");
  return g_string_free (s, FALSE);
}

/* Which array of the stream the current one is, for messages about it:
 * "array 2 of the stream, from byte 224". */
static gchar *
gst_npy_dec_where (GstNpyDec *self)
{
  return g_strdup_printf ("array %" G_GUINT64_FORMAT
                          " of the stream, from byte %" G_GUINT64_FORMAT,
      self->arrays + 1, self->array_start);
}

/* Sets the caps of info on the source pad unless they are already set: a
 * stream of arrays alike has one CAPS event. */
static gboolean
gst_npy_dec_set_caps (GstNpyDec *self, GstCaps *caps)
{
  GstCaps *cur = gst_pad_get_current_caps (self->srcpad);
  gboolean same = cur != NULL && gst_caps_is_equal (cur, caps);

  if (cur)
    gst_caps_unref (cur);
  if (same)
    return TRUE;
  GST_DEBUG_OBJECT (self, "new caps %" GST_PTR_FORMAT, caps);
  self->meta_known = FALSE;
  /* A refused sticky caps event only shows as not-negotiated on the next
   * push; asking first lets the error say which caps. */
  if (!gst_pad_peer_query_accept_caps (self->srcpad, caps)
      || !gst_pad_set_caps (self->srcpad, caps)) {
    GstCaps *peer = gst_pad_peer_query_caps (self->srcpad, NULL);
    gchar *s = gst_caps_to_string (caps);
    gchar *p = gst_caps_to_string (peer);
    gchar *where = gst_npy_dec_where (self);

    NPY_DEC_ERROR (self, CORE, NEGOTIATION,
        "downstream refused the caps %s read from the npy header (%s); it "
        "accepts %s.",
        s, where, p);
    g_free (where);
    g_free (p);
    g_free (s);
    gst_caps_unref (peer);
    return FALSE;
  }
  return TRUE;
}

/* Takes the data of the current array from the adapter and pushes it, as
 * one buffer or, with split, as its sub-tensors; then the adapter starts
 * at the next array's header. */
static GstFlowReturn
gst_npy_dec_emit (GstNpyDec *self)
{
  const tn_npy h = self->hdr;
  gsize isz = tn_dtype_size (h.dtype);
  GstTnInfo info;
  GstBuffer *buf;
  GstCaps *caps;
  GError *err = NULL;
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean split, use_meta = FALSE, ok;
  gint fps_n, fps_d;
  tn_view v;
  gint64 i;

  GST_OBJECT_LOCK (self);
  split = self->split;
  fps_n = self->fps_n;
  fps_d = self->fps_d;
  GST_OBJECT_UNLOCK (self);

  /* Within one input buffer this is a region of its memory, no copy. */
  if (h.data_size == 0)
    buf = gst_buffer_new ();
  else
    buf = gst_adapter_take_buffer_fast (self->adapter, h.data_size);

  buf = gst_npy_dec_normalize (self, buf, isz, h.big_endian, &err);
  if (buf == NULL)
    goto error;

  tn_npy_view (&h, &v);
  info.dtype = h.dtype;
  info.fps_n = fps_n;
  info.fps_d = fps_d;
  if (split) {
    info.rank = h.rank - 1;
    memcpy (info.dims, h.dims + 1, info.rank * sizeof (gint64));
  } else {
    info.rank = h.rank;
    memcpy (info.dims, h.dims, info.rank * sizeof (gint64));
  }

  /* Every extent in info was checked against the caps' bound with the
   * header. */
  caps = gst_tn_info_to_caps (&info);
  ok = gst_npy_dec_set_caps (self, caps);
  if (ok && !gst_npy_dec_is_dense (v))
    use_meta = gst_npy_dec_downstream_has_meta (self, caps);
  gst_caps_unref (caps);
  if (!ok) {
    gst_buffer_unref (buf);
    return GST_FLOW_NOT_NEGOTIATED;
  }

  /* The array is consumed: what follows in the adapter is the next one. */
  self->array_start += h.data_offset + h.data_size;
  self->arrays++;
  self->have_header = FALSE;
  self->need = 1;

  if (self->need_segment) {
    gst_npy_dec_push_segment (self);
    self->need_segment = FALSE;
  }

  if (!gst_npy_dec_is_dense (v) && !use_meta) {
    GstTnInfo full = info;
    GstBuffer *dense;

    full.rank = h.rank;
    memcpy (full.dims, h.dims, h.rank * sizeof (gint64));
    gst_tn_buffer_add_layout_meta (buf, v.rank, v.offset, v.strides);
    dense = gst_tn_buffer_dense (buf, &full, NULL, &err);
    gst_buffer_unref (buf);
    if (dense == NULL)
      goto error;
    buf = dense;
    tn_view_init (&v, h.dtype, h.dims, h.rank, NULL);
  } else if (!gst_npy_dec_is_dense (v) && !split) {
    /* With split each sub-buffer carries its own meta instead. */
    gst_tn_buffer_add_layout_meta (buf, v.rank, v.offset, v.strides);
  }

  if (!split) {
    gst_npy_dec_stamp (buf, self->index++, fps_n, fps_d);
    return gst_pad_push (self->srcpad, buf);
  }

  /* A flush or an error downstream stops the loop at the next push. */
  for (i = 0; i < h.dims[0] && ret == GST_FLOW_OK; i++) {
    GstBuffer *sub;

    /* a seek: what lies before its start is not pushed, and its stop
     * ends the stream */
    if (self->index < self->skip_to) {
      self->index++;
      continue;
    }
    if (self->stop_at >= 0 && self->index >= (guint64) self->stop_at) {
      self->stopped = TRUE;
      ret = GST_FLOW_EOS;
      break;
    }
    sub = gst_npy_dec_sub_buffer (buf, &v, i);
    gst_npy_dec_stamp (sub, self->index++, fps_n, fps_d);
    if (self->discont) {
      GST_BUFFER_FLAG_SET (sub, GST_BUFFER_FLAG_DISCONT);
      self->discont = FALSE;
    }
    ret = gst_pad_push (self->srcpad, sub);
  }
  gst_buffer_unref (buf);
  return ret;

error:
  NPY_DEC_ERROR (self, STREAM, DECODE, "%s", err->message);
  g_clear_error (&err);
  return GST_FLOW_ERROR;
}

/* What the header promises must fit what caps can say and what a split can
 * reasonably emit; checked before waiting for the data, so a 9 GB promise
 * is refused at once. */
static gboolean
gst_npy_dec_check_header (GstNpyDec *self, gboolean split)
{
  const tn_npy *h = &self->hdr;
  gchar *shape, *where;
  gboolean empty = FALSE;
  gint i;

  if (split && h->rank == 0) {
    where = gst_npy_dec_where (self);
    NPY_DEC_ERROR (self, STREAM, FORMAT,
        "split=true needs an array of rank 1 or more; the npy data holds a "
        "rank-0 %s array (%s).",
        tn_dtype_name (h->dtype), where);
    g_free (where);
    return FALSE;
  }
  for (i = split ? 1 : 0; i < h->rank; i++) {
    if (h->dims[i] <= G_MAXINT)
      continue;
    shape = gst_npy_dec_shape_string (h);
    where = gst_npy_dec_where (self);
    NPY_DEC_ERROR (self, STREAM, FORMAT,
        "axis %d has extent %" G_GINT64_FORMAT
        "; tensor caps hold extents up to %d (the %s array of shape %s, %s%s).",
        i, h->dims[i], G_MAXINT, tn_dtype_name (h->dtype), shape, where,
        split ? "; with split=true axis 0 is not in the caps, the others are"
              : "");
    g_free (where);
    g_free (shape);
    return FALSE;
  }
  for (i = 0; i < h->rank; i++)
    empty = empty || h->dims[i] == 0;
  if (split && empty && h->dims[0] > NPY_DEC_MAX_EMPTY_SPLIT) {
    shape = gst_npy_dec_shape_string (h);
    where = gst_npy_dec_where (self);
    NPY_DEC_ERROR (self, STREAM, FORMAT,
        "split=true would emit %" G_GINT64_FORMAT
        " empty tensors for the %s array of shape %s, which holds no items "
        "(%s); npydec splits an array without items into at most %d.",
        h->dims[0], tn_dtype_name (h->dtype), shape, where,
        NPY_DEC_MAX_EMPTY_SPLIT);
    g_free (where);
    g_free (shape);
    return FALSE;
  }
  return TRUE;
}

/* Parses the header once enough bytes are queued; drops it from the
 * adapter so that only the data is left. */
static GstFlowReturn
gst_npy_dec_parse_header (GstNpyDec *self)
{
  gsize avail = gst_adapter_available (self->adapter);
  gsize len;
  const guint8 *data;
  size_t need = 0;
  gboolean split;
  tn_err e;
  int r;

  if (avail < self->need)
    return GST_FLOW_OK;

  len = MIN (avail, MAX (self->need, NPY_DEC_PEEK));
  data = gst_adapter_map (self->adapter, len);
  e.msg[0] = '\0';
  r = tn_npy_parse (&self->hdr, data, len, &need, &e);
  gst_adapter_unmap (self->adapter);

  if (r < 0) {
    /* The parser counts bytes from the array's start; after the first
     * array, say where that is. */
    if (self->arrays == 0) {
      NPY_DEC_ERROR (self, STREAM, DECODE, "%s", e.msg);
    } else {
      gchar *where = gst_npy_dec_where (self);

      NPY_DEC_ERROR (self, STREAM, DECODE,
          "%s (%s, right after the %" G_GUINT64_FORMAT
          " bytes of the arrays before: a stream holds only whole npy "
          "arrays, header then data).",
          e.msg, where, self->array_start);
      g_free (where);
    }
    return GST_FLOW_ERROR;
  }
  if (r > 0) {
    /* Never ask for less than we already had: that would spin. */
    self->need = MAX (need, len + 1);
    GST_LOG_OBJECT (self, "header needs %" G_GSIZE_FORMAT " bytes", self->need);
    return GST_FLOW_OK;
  }

  GST_OBJECT_LOCK (self);
  split = self->split;
  GST_OBJECT_UNLOCK (self);
  if (!gst_npy_dec_check_header (self, split))
    return GST_FLOW_ERROR;

  GST_DEBUG_OBJECT (self,
      "array %" G_GUINT64_FORMAT ": npy %d.%d %s rank %d, %" G_GSIZE_FORMAT
      " data bytes at offset %" G_GSIZE_FORMAT "%s%s",
      self->arrays + 1, self->hdr.major, self->hdr.minor,
      tn_dtype_name (self->hdr.dtype), self->hdr.rank, self->hdr.data_size,
      self->hdr.data_offset, self->hdr.big_endian ? ", big-endian" : "",
      self->hdr.fortran ? ", Fortran order" : "");
  self->have_header = TRUE;
  if (self->arrays == 0 && self->hdr.rank > 0) {
    self->first_n = (guint64) self->hdr.dims[0];
    self->first_bytes = self->hdr.data_offset + self->hdr.data_size;
    self->have_first = TRUE;
  }
  gst_adapter_flush (self->adapter, self->hdr.data_offset);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_npy_dec_chain (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  GstNpyDec *self = GST_NPY_DEC (parent);
  GstFlowReturn ret = GST_FLOW_OK;

  if (self->failed) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }

  /* One input buffer may hold the end of an array, several whole ones and
   * the start of the next. */
  gst_adapter_push (self->adapter, buf);
  while (ret == GST_FLOW_OK) {
    if (!self->have_header) {
      ret = gst_npy_dec_parse_header (self);
      if (ret != GST_FLOW_OK || !self->have_header)
        break;
    }
    if (gst_adapter_available (self->adapter) < self->hdr.data_size)
      break;
    ret = gst_npy_dec_emit (self);
  }

  if (ret == GST_FLOW_ERROR || ret == GST_FLOW_NOT_NEGOTIATED)
    self->failed = TRUE;
  return ret;
}

/* Where a stream ends (EOS or the next stream-start): inside an array is
 * an error; right after an array's data is a clean end; at_eos, a stream
 * without a single byte is an error too. */
static void
gst_npy_dec_finish (GstNpyDec *self, gboolean at_eos)
{
  gsize avail = gst_adapter_available (self->adapter);
  gchar *where;

  if (self->failed || self->stopped)
    return;
  if (self->have_header) {
    where = gst_npy_dec_where (self);
    NPY_DEC_ERROR (self, STREAM, DECODE,
        "npy data ends after %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
        " bytes (%s; its data starts at byte %" G_GUINT64_FORMAT ").",
        avail, self->hdr.data_size, where,
        self->array_start + self->hdr.data_offset);
    g_free (where);
  } else if (avail > 0) {
    where = gst_npy_dec_where (self);
    NPY_DEC_ERROR (self, STREAM, DECODE,
        "npy header ends after %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
        " bytes (%s).",
        avail, self->need, where);
    g_free (where);
  } else if (self->arrays == 0 && at_eos) {
    NPY_DEC_ERROR (self, STREAM, DECODE, "%s",
        "the npy stream ended before its first byte; expected at least "
        "10 bytes of header.");
  } else {
    return;
  }
  self->failed = TRUE;
}

static gboolean
gst_npy_dec_sink_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  GstNpyDec *self = GST_NPY_DEC (parent);

  switch (GST_EVENT_TYPE (event)) {
  case GST_EVENT_CAPS:
  case GST_EVENT_SEGMENT:
    /* Ours are made when the header is known: tensor caps and a time
     * segment replace upstream's bytes. */
    gst_event_unref (event);
    return TRUE;
  case GST_EVENT_STREAM_START:
    /* A new stream: whatever the old one left unfinished is lost, so say
     * so, then start from scratch. */
    gst_npy_dec_finish (self, FALSE);
    gst_npy_dec_reset (self);
    break;
  case GST_EVENT_FLUSH_STOP:
    /* A flush discards on purpose: no error. */
    gst_npy_dec_reset (self);
    gst_npy_dec_seek_flushed (self);
    break;
  case GST_EVENT_EOS:
    gst_npy_dec_finish (self, TRUE);
    if (self->failed) {
      /* The error ends the stream.  An EOS behind it would let a sink
       * that has not prerolled yet preroll on it, and gst-launch-1.0 of
       * GStreamer 1.22 then waits forever, about one run in three. */
      gst_event_unref (event);
      return TRUE;
    }
    break;
  default:
    break;
  }
  return gst_pad_event_default (pad, parent, event);
}

/* The property stores any fraction (a spec range would make GLib warn and
 * go on with 0/1): a negative one is the element's error here. */
static gboolean
gst_npy_dec_check_framerate (GstNpyDec *self)
{
  gint fps_n, fps_d;
  gchar *text;

  GST_OBJECT_LOCK (self);
  fps_n = self->fps_n;
  fps_d = self->fps_d;
  GST_OBJECT_UNLOCK (self);
  if (fps_n >= 0)
    return TRUE;
  text = g_strdup_printf ("%d/%d", fps_n, fps_d);
  gst_tn_element_property_error (GST_ELEMENT (self), "framerate", text,
      "framerate is 0/1 (untimed) to 2147483647/1");
  g_free (text);
  return FALSE;
}

static GstStateChangeReturn
gst_npy_dec_change_state (GstElement *element, GstStateChange transition)
{
  GstNpyDec *self = GST_NPY_DEC (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    if (!gst_npy_dec_check_framerate (self))
      return GST_STATE_CHANGE_FAILURE;
    gst_npy_dec_reset (self);
  }

  ret = GST_ELEMENT_CLASS (gst_npy_dec_parent_class)
            ->change_state (element, transition);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    gst_npy_dec_reset (self);
  return ret;
}

static void
gst_npy_dec_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstNpyDec *self = GST_NPY_DEC (object);

  /* Both shape the caps and the timestamps of a whole stream: changing
   * them halfway would mix two streams in one. */
  if (!gst_tn_element_property_settable (GST_ELEMENT (self), pspec, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_FRAMERATE:
    self->fps_n = gst_value_get_fraction_numerator (value);
    self->fps_d = gst_value_get_fraction_denominator (value);
    break;
  case PROP_SPLIT:
    self->split = g_value_get_boolean (value);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_npy_dec_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstNpyDec *self = GST_NPY_DEC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_FRAMERATE:
    gst_value_set_fraction (value, self->fps_n, self->fps_d);
    break;
  case PROP_SPLIT:
    g_value_set_boolean (value, self->split);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_npy_dec_finalize (GObject *object)
{
  GstNpyDec *self = GST_NPY_DEC (object);

  g_object_unref (self->adapter);
  G_OBJECT_CLASS (gst_npy_dec_parent_class)->finalize (object);
}

static void
gst_npy_dec_class_init (GstNpyDecClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (
      gst_npy_dec_debug, "npydec", 0, "NumPy .npy decoder");

  gobject_class->set_property = gst_npy_dec_set_property;
  gobject_class->get_property = gst_npy_dec_get_property;
  gobject_class->finalize = gst_npy_dec_finalize;

  /**
   * GstNpyDec:framerate:
   *
   * Framerate put in the caps; when it is not 0/1 it also timestamps the
   * buffers: buffer n of the stream (arrays, or with #GstNpyDec:split
   * sub-tensors) has PTS n / framerate.  0/1 means the tensors are not a
   * timed stream.  0/1 to G_MAXINT/1: any fraction is stored, and a
   * negative one is an error when the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_FRAMERATE,
      gst_param_spec_fraction ("framerate", "Framerate",
          "Framerate put in the caps, 0/1 or more; unless it is 0/1 "
          "(untimed), buffer n of the stream also gets PTS n / framerate",
          -G_MAXINT, 1, G_MAXINT, 1, 0, 1,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));

  /**
   * GstNpyDec:split:
   *
   * Emit each array as the stream of its sub-tensors along axis 0 (dims
   * without the first) instead of one buffer; each shares the memory of
   * the array's data, no copy.  Needs rank 1 or more.
   */
  g_object_class_install_property (gobject_class, PROP_SPLIT,
      g_param_spec_boolean ("split", "Split",
          "Emit each array as one zero-copy sub-tensor per index of its "
          "first axis instead of one buffer",
          DEFAULT_SPLIT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));

  element_class->change_state = gst_npy_dec_change_state;

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "NumPy .npy decoder",
      "Codec/Decoder/Tensor",
      "Decodes NumPy .npy arrays (one file, files concatenated, or one "
      "file per buffer) into one tensor each, or with split=true into "
      "their sub-tensors along the first axis",
      "gst-tensor developers");
}

static void
gst_npy_dec_init (GstNpyDec *self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (
      self->sinkpad, GST_DEBUG_FUNCPTR (gst_npy_dec_chain));
  gst_pad_set_event_function (
      self->sinkpad, GST_DEBUG_FUNCPTR (gst_npy_dec_sink_event));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_use_fixed_caps (self->srcpad);
  gst_pad_set_event_function (
      self->srcpad, GST_DEBUG_FUNCPTR (gst_npy_dec_src_event));
  gst_pad_set_query_function (
      self->srcpad, GST_DEBUG_FUNCPTR (gst_npy_dec_src_query));
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  self->adapter = gst_adapter_new ();
  self->fps_n = 0;
  self->fps_d = 1;
  self->split = DEFAULT_SPLIT;
  gst_npy_dec_reset (self);
}
