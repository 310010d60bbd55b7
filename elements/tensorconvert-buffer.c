/* tensorconvert's data path: each buffer becomes its output by reference
 * (the input itself, cut to its range, or a new buffer over its memory)
 * where the layouts allow, and by one copy otherwise.  Where a frame's
 * items lie comes from the library (gst_tn_video_plane_view).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "tensorconvert.h"

#define GST_CAT_DEFAULT gst_tensor_convert_debug

static GstFlowReturn
gst_tensor_convert_error (GstTensorConvert *self, gchar *msg)
{
  GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", msg), (NULL));
  g_free (msg);
  return GST_FLOW_ERROR;
}

/* Memory, flags and timestamps of buf from byte offset on, no metas: the
 * input's metas describe media the output no longer is. */
static GstBuffer *
share (GstBuffer *buf, gsize offset, gsize size)
{
  GstBuffer *out;

  /* The whole buffer: one copy_into takes the timestamps too (a region
   * would only get those of its first byte). */
  if (offset == 0 && size == gst_buffer_get_size (buf)) {
    out = gst_buffer_new ();
    if (!gst_buffer_copy_into (out, buf,
            GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS
                | GST_BUFFER_COPY_MEMORY,
            0, size))
      gst_clear_buffer (&out);
    return out;
  }
  out = gst_buffer_copy_region (
      buf, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_MEMORY, offset, size);
  if (out != NULL)
    gst_buffer_copy_into (out, buf, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  return out;
}

static gboolean
tagged (GstMeta *meta, GQuark tag)
{
  return gst_meta_api_type_has_tag (meta->info->api, tag);
}

static gboolean
drop_tagged (GstBuffer *buf, GstMeta **meta, gpointer tag)
{
  if (tagged (*meta, GPOINTER_TO_UINT (tag)))
    *meta = NULL;
  return TRUE;
}

/* A pool's own metas (a GstVideoMeta of videotestsrc's pool) are locked:
 * such a buffer cannot be passed on without them. */
static gboolean
has_locked_tagged (GstBuffer *buf, GQuark tag)
{
  gpointer state = NULL;
  GstMeta *m;

  while ((m = gst_buffer_iterate_meta (buf, &state)) != NULL)
    if (GST_META_FLAG_IS_SET (m, GST_META_FLAG_LOCKED) && tagged (m, tag))
      return TRUE;
  return FALSE;
}

/* The output holding bytes [offset, offset + size) of buf.  When buf is
 * the input and writable it is passed on itself, cut to the range, without
 * its metas tagged drop_tag: nothing is allocated, and an upstream pool
 * gets its buffer back whole (a shared sub-memory would make the pool
 * discard it).  So is a shared input that holds just these bytes and no
 * metas, unless the caller adds a meta (as_is FALSE): a new buffer would
 * be the same, as GstBaseTransform's passthrough knows.  Otherwise a new
 * buffer shares buf's memory. */
static GstBuffer *
pass_on (GstBuffer *inbuf, GstBuffer *buf, gsize offset, gsize size,
    GQuark drop_tag, gboolean as_is)
{
  gpointer state = NULL;

  if (buf != inbuf)
    return share (buf, offset, size);
  if (as_is && offset == 0 && size == gst_buffer_get_size (inbuf)
      && gst_buffer_iterate_meta (inbuf, &state) == NULL)
    return inbuf;
  if (!gst_buffer_is_writable (inbuf) || has_locked_tagged (inbuf, drop_tag))
    return share (buf, offset, size);
  if (offset != 0 || size != gst_buffer_get_size (inbuf))
    gst_buffer_resize (inbuf, offset, size);
  gst_buffer_foreach_meta (inbuf, drop_tagged, GUINT_TO_POINTER (drop_tag));
  return inbuf;
}

/* Whether the byte at offset of buf lies at an address that is a multiple
 * of isz, as loads of items of isz bytes need (C requires it, UBSan
 * checks it, and kernels may use aligned vector loads).  Memory made by
 * others can start anywhere, and a tensor cut from inside a buffer starts
 * wherever the cut falls; finding out costs a map of one memory, which
 * items of one byte never need. */
gboolean
gst_tensor_convert_aligned_at (GstBuffer *buf, gsize offset, gsize isz)
{
  GstMemory *mem;
  GstMapInfo map;
  guint idx, len;
  gsize skip;
  gboolean ok;

  if (isz <= 1)
    return TRUE;
  /* Nothing at offset: an empty tensor, which no item is loaded from. */
  if (!gst_buffer_find_memory (buf, offset, 1, &idx, &len, &skip))
    return TRUE;
  mem = gst_buffer_peek_memory (buf, idx);
  if (!gst_memory_map (mem, &map, GST_MAP_READ))
    return FALSE;
  ok = (guintptr) (map.data + skip) % isz == 0;
  gst_memory_unmap (mem, &map);
  return ok;
}

/* One dense copy of view v of inbuf into tensor memory.  The core copy
 * loads whole items, so from a misaligned address it reads v as bytes
 * instead: the same view with one more axis, of the item's bytes. */
static GstBuffer *
gst_tensor_convert_copy_view (GstTensorConvert *self, GstBuffer *inbuf,
    const tn_view *v, gboolean aligned)
{
  gsize isz = tn_dtype_size (v->dtype), nbytes = self->tbytes;
  GstBuffer *out;
  GstMapInfo sm, dm;
  tn_view b = *v;

  if (!aligned && isz > 1) {
    /* Media tensors have rank 2 or 3: there is room for the axis. */
    g_assert (v->rank < TN_MAX_RANK);
    b.dtype = TN_UINT8;
    b.rank = v->rank + 1;
    for (gint i = 0; i < v->rank; i++)
      b.strides[i] = v->strides[i] * (gint64) isz;
    b.dims[v->rank] = (gint64) isz;
    b.strides[v->rank] = 1;
    b.offset = v->offset * (gint64) isz;
  }
  out = gst_tensor_convert_new_buffer (self, nbytes);
  if (out == NULL)
    return NULL;
  if (!gst_buffer_map (inbuf, &sm, GST_MAP_READ)) {
    gst_buffer_unref (out);
    return NULL;
  }
  gst_buffer_map (out, &dm, GST_MAP_WRITE);
  tn_view_materialize (dm.data, sm.data, &b);
  gst_buffer_unmap (out, &dm);
  gst_buffer_unmap (inbuf, &sm);
  gst_buffer_copy_into (
      out, inbuf, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  gst_tensor_convert_count_copy (self, nbytes);
  return out;
}

GstFlowReturn
gst_tensor_convert_video_to_tensor (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf)
{
  gsize isz = tn_dtype_size (self->tinfo.dtype), vsz, offset;
  gsize size = gst_buffer_get_size (inbuf);
  GError *err = NULL;
  gboolean whole_items;
  GstBuffer *tmp;
  tn_view v;

  /* The frame's items where they lie: a view of the tensor's dtype, or of
   * its bytes when rows are not a whole number of items apart. */
  if (!gst_tn_video_plane_view (&v, &self->vinfo,
          gst_buffer_get_video_meta (inbuf), 0,
          self->tinfo.rank == 3 ? GST_TN_MEDIA_CHANNEL_AXIS : GST_TN_MEDIA_NONE,
          size, &err)) {
    gchar *msg = g_strdup (err->message);

    g_clear_error (&err);
    return gst_tensor_convert_error (self, msg);
  }
  vsz = tn_dtype_size (v.dtype);
  offset = (gsize) v.offset * vsz;

  /* By reference only where every item can be loaded where it is: the
   * first at an aligned address, every row a whole number of items on. */
  whole_items = gst_tensor_convert_aligned_at (inbuf, offset, isz)
                && (gsize) v.strides[0] * vsz % isz == 0;
  if (tn_view_dense (&v) && whole_items) {
    *outbuf = pass_on (
        inbuf, inbuf, offset, self->tbytes, gst_tensor_convert_video_tag, TRUE);
    return *outbuf ? GST_FLOW_OK : GST_FLOW_ERROR;
  }

  /* Padded rows: the same memory with strides, for a reader of them. */
  if (self->downstream_layout_meta && whole_items
      && v.dtype == self->tinfo.dtype) {
    tmp = pass_on (inbuf, inbuf, 0, size, gst_tensor_convert_video_tag, FALSE);
    if (tmp == NULL)
      return GST_FLOW_ERROR;
    gst_tn_buffer_add_layout_meta (tmp, v.rank, v.offset, v.strides);
    *outbuf = tmp;
    return GST_FLOW_OK;
  }
  GST_LOG_OBJECT (self,
      "one copy: rows at a pitch of %" G_GINT64_FORMAT " bytes from byte "
      "%" G_GSIZE_FORMAT ", items %s",
      v.strides[0] * (gint64) vsz, offset,
      whole_items ? "whole" : "misaligned");
  *outbuf = gst_tensor_convert_copy_view (
      self, inbuf, &v, whole_items && v.dtype == self->tinfo.dtype);
  return *outbuf ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* The view of buf its caps and layout meta describe, FALSE when it does
 * not fit in buf. */
static gboolean
tensor_view_of (GstTensorConvert *self, GstBuffer *buf, tn_view *v)
{
  return self->tbytes != G_MAXSIZE
         && gst_tn_buffer_view (buf, &self->tview, self->tbytes, v);
}

/* The view of inbuf, or an error that says in words what does not fit. */
static GstFlowReturn
gst_tensor_convert_view (GstTensorConvert *self, GstBuffer *inbuf, tn_view *v)
{
  GError *err = NULL;
  GstTnMap m;

  if (tensor_view_of (self, inbuf, v))
    return GST_FLOW_OK;
  if (!gst_tn_buffer_map (&m, inbuf, &self->tinfo, GST_MAP_READ, &err)) {
    gchar *msg = g_strdup (err->message);

    g_clear_error (&err);
    return gst_tensor_convert_error (self, msg);
  }
  *v = m.view;
  gst_tn_buffer_unmap (&m);
  return GST_FLOW_OK;
}

GstFlowReturn
gst_tensor_convert_tensor_to_video (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf)
{
  GstVideoInfo *vi = &self->vinfo;
  gsize isz = tn_dtype_size (self->tinfo.dtype), offset;
  gint w = GST_VIDEO_INFO_WIDTH (vi), h = GST_VIDEO_INFO_HEIGHT (vi);
  gint pstride = GST_VIDEO_INFO_COMP_PSTRIDE (vi, 0);
  gsize row = (gsize) w * pstride, stride, vstride;
  GstBuffer *src, *out;
  GstMapInfo dst;
  GstFlowReturn ret;
  tn_view v;
  gboolean rows_whole, aligned;

  if ((ret = gst_tensor_convert_view (self, inbuf, &v)) != GST_FLOW_OK)
    return ret;
  /* Items are whole items of the view's strides; only the first address
   * can be off. */
  aligned = gst_tensor_convert_aligned_at (inbuf, (gsize) v.offset * isz, isz);

  /* Pixels and channels dense; rows at any pitch. */
  rows_whole = (w == 1 || v.strides[1] * (gint64) isz == pstride)
               && (v.rank == 2 || v.dims[2] == 1 || v.strides[2] == 1)
               && (h == 1 || v.strides[0] * (gint64) isz >= (gint64) row);
  src = inbuf; /* borrowed, or a dense copy we own */
  if (!rows_whole) {
    src = gst_tensor_convert_copy_view (self, inbuf, &v, aligned);
    if (src == NULL)
      return gst_tensor_convert_error (
          self, g_strdup_printf ("Could not copy a tensor of %" G_GSIZE_FORMAT
                                 " bytes.",
                    self->tbytes));
    tn_view_init (
        &v, self->tinfo.dtype, self->tinfo.dims, self->tinfo.rank, NULL);
    aligned = TRUE;
  }
  offset = (gsize) v.offset * isz;
  stride = h == 1 ? row : (gsize) v.strides[0] * isz;
  vstride = GST_VIDEO_INFO_PLANE_STRIDE (vi, 0);

  if (aligned && offset == 0 && stride == vstride
      && gst_buffer_get_size (src) >= GST_VIDEO_INFO_SIZE (vi)) {
    out = pass_on (inbuf, src, 0, GST_VIDEO_INFO_SIZE (vi),
        gst_tensor_convert_tensor_tag, TRUE);
  } else if (aligned && self->downstream_video_meta) {
    gsize offsets[GST_VIDEO_MAX_PLANES] = { offset };
    gint strides[GST_VIDEO_MAX_PLANES] = { (gint) stride };

    out = pass_on (inbuf, src, 0, gst_buffer_get_size (src),
        gst_tensor_convert_tensor_tag, FALSE);
    gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (vi), w, h, 1, offsets, strides);
  } else {
    /* One copy into the default layout, row by row (memcpy: any address
     * will do). */
    GstMapInfo sm;

    out = gst_tensor_convert_new_buffer (self, GST_VIDEO_INFO_SIZE (vi));
    gst_buffer_map (out, &dst, GST_MAP_WRITE);
    gst_buffer_map (src, &sm, GST_MAP_READ);
    for (gint y = 0; y < h; y++) {
      guint8 *d = dst.data + y * vstride;

      memcpy (d, sm.data + offset + y * stride, row);
      memset (d + row, 0, vstride - row);
    }
    gst_buffer_unmap (src, &sm);
    gst_buffer_unmap (out, &dst);
    gst_buffer_copy_into (
        out, src, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
    gst_tensor_convert_count_copy (self, row * h);
  }
  if (src != inbuf)
    gst_buffer_unref (src);
  *outbuf = out;
  return out ? GST_FLOW_OK : GST_FLOW_ERROR;
}

GstFlowReturn
gst_tensor_convert_tensor_to_audio (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf)
{
  gsize isz = tn_dtype_size (self->tinfo.dtype);
  GstFlowReturn ret;
  gboolean aligned;
  tn_view v;

  if ((ret = gst_tensor_convert_view (self, inbuf, &v)) != GST_FLOW_OK)
    return ret;
  aligned = gst_tensor_convert_aligned_at (inbuf, (gsize) v.offset * isz, isz);
  /* A dense run at an aligned address is the audio as it is: shared, not
   * copied, wherever in the buffer it starts. */
  if (tn_view_dense (&v) && aligned)
    *outbuf = pass_on (inbuf, inbuf, (gsize) v.offset * isz, self->tbytes,
        gst_tensor_convert_tensor_tag, TRUE);
  else
    *outbuf = gst_tensor_convert_copy_view (self, inbuf, &v, aligned);
  return *outbuf ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* NNStreamer's static tensors: each in a memory of its own, the buffer
 * itself when there is one.  The tensor is passed on by reference unless
 * its first item lies at an address its items cannot be loaded from. */
GstFlowReturn
gst_tensor_convert_nns_to_tensor (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf)
{
  gsize isz = tn_dtype_size (self->tinfo.dtype), size;
  guint n = gst_buffer_n_memory (inbuf);
  GstBuffer *one;

  if (self->nns_count == 1) {
    size = gst_buffer_get_size (inbuf);
    if (size != self->tbytes)
      return gst_tensor_convert_error (self,
          g_strdup_printf ("A buffer of %" G_GSIZE_FORMAT " bytes came; "
                           "NNStreamer's single tensor needs %" G_GSIZE_FORMAT
                           ".",
              size, self->tbytes));
    one = inbuf;
  } else {
    GstMemory *mem;

    if (n != MIN (self->nns_count, GST_TENSOR_CONVERT_NNS_MEMORY_MAX))
      return gst_tensor_convert_error (
          self, g_strdup_printf ("A buffer of %u memories came with caps of %u "
                                 "tensors; NNStreamer puts each tensor in a "
                                 "memory of its own.",
                    n, self->nns_count));
    mem = gst_buffer_peek_memory (inbuf, (guint) self->nns_index);
    size = gst_memory_get_sizes (mem, NULL, NULL);
    if (size != self->tbytes)
      return gst_tensor_convert_error (self,
          g_strdup_printf ("Tensor %d of the buffer holds %" G_GSIZE_FORMAT
                           " bytes; its caps need %" G_GSIZE_FORMAT ".",
              self->nns_index, size, self->tbytes));
    one = gst_buffer_new ();
    gst_buffer_append_memory (one, gst_memory_ref (mem));
    gst_buffer_copy_into (
        one, inbuf, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  }
  if (gst_tensor_convert_aligned_at (one, 0, isz))
    *outbuf = pass_on (
        inbuf, one, 0, self->tbytes, gst_tensor_convert_tensor_tag, TRUE);
  else
    *outbuf = gst_tensor_convert_copy_view (self, one, &self->tview, FALSE);
  if (one != inbuf)
    gst_buffer_unref (one);
  return *outbuf ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* NNStreamer reads a tensor from memory 0 of its buffer, densely: a view,
 * or a tensor over more than one memory, is copied once. */
GstFlowReturn
gst_tensor_convert_tensor_to_nns (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf)
{
  gsize isz = tn_dtype_size (self->tinfo.dtype), offset, skip;
  GstFlowReturn ret;
  guint idx, len;
  tn_view v;

  if ((ret = gst_tensor_convert_view (self, inbuf, &v)) != GST_FLOW_OK)
    return ret;
  offset = (gsize) v.offset * isz;
  if (tn_view_dense (&v)
      && gst_buffer_find_memory (inbuf, offset, self->tbytes, &idx, &len, &skip)
      && len == 1)
    *outbuf = pass_on (inbuf, inbuf, offset, self->tbytes,
        gst_tensor_convert_tensor_tag, TRUE);
  else
    *outbuf = gst_tensor_convert_copy_view (
        self, inbuf, &v, gst_tensor_convert_aligned_at (inbuf, offset, isz));
  return *outbuf ? GST_FLOW_OK : GST_FLOW_ERROR;
}
