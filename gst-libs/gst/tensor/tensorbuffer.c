/* Building and reading tensor buffers, whatever their layout. */
#include "tensorbuffer.h"

#include <string.h>

#include "core/shape.h"
#include "tensorallocator.h"
#include "tensormeta.h"

GST_DEBUG_CATEGORY_STATIC (tn_buffer_debug);
#define GST_CAT_DEFAULT tn_buffer_debug

static void
ensure_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (
        tn_buffer_debug, "tensorbuffer", 0, "gst-tensor buffer API");
    g_once_init_leave (&once, 1);
  }
}

/* The view the caps and the layout meta describe, not yet checked against
 * the buffer's size. */
static gboolean
view_for_buffer (tn_view *v, GstBuffer *buffer, const GstTnInfo *info,
    gboolean *has_meta, gsize *nbytes, GError **err)
{
  GstTnLayoutMeta *meta;
  tn_err e = { { 0 } };
  gchar *desc;

  if (tn_shape_nbytes (
          info->dtype, (const int64_t *) info->dims, info->rank, nbytes, &e)
          != 0
      || tn_view_init (
             v, info->dtype, (const int64_t *) info->dims, info->rank, &e)
             != 0) {
    desc = gst_tn_info_to_string (info);
    g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps %s do not describe a tensor that fits in memory: %s.", desc,
        e.msg);
    g_free (desc);
    return FALSE;
  }

  meta = gst_tn_buffer_get_layout_meta (buffer);
  *has_meta = meta != NULL;
  if (meta == NULL)
    return TRUE;
  if (meta->rank != info->rank) {
    desc = gst_tn_info_to_string (info);
    g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "layout meta has rank %d but caps %s have rank %d.", meta->rank, desc,
        info->rank);
    g_free (desc);
    return FALSE;
  }
  v->offset = meta->offset;
  memcpy (v->strides, meta->strides, sizeof (int64_t) * info->rank);
  return TRUE;
}

/* Without a meta the buffer must be exactly dense; with one, every item the
 * view reaches must lie inside it. */
static gboolean
check_size (const tn_view *v, gboolean has_meta, gsize size, gsize nbytes,
    const GstTnInfo *info, GError **err)
{
  gsize itemsize = tn_dtype_size (info->dtype);
  tn_err e = { { 0 } };
  gchar *desc;

  if (!has_meta) {
    if (size == nbytes)
      return TRUE;
    desc = gst_tn_info_to_string (info);
    g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "buffer holds %" G_GSIZE_FORMAT " bytes; caps %s need %" G_GSIZE_FORMAT
        "%s",
        size, desc, nbytes,
        size > nbytes ? " (padding or an offset needs a layout meta)." : ".");
    g_free (desc);
    return FALSE;
  }
  if (tn_view_check (v, (int64_t) (size / itemsize), &e) == 0)
    return TRUE;
  desc = gst_tn_info_to_string (info);
  g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "buffer of %" G_GSIZE_FORMAT " bytes does not hold caps %s as its "
      "layout meta lays it out: %s.",
      size, desc, e.msg);
  g_free (desc);
  return FALSE;
}

gboolean
gst_tn_buffer_map (GstTnMap *m, GstBuffer *buffer, const GstTnInfo *info,
    GstMapFlags flags, GError **err)
{
  gboolean has_meta;
  gsize nbytes;
  tn_view v;

  g_return_val_if_fail (m != NULL, FALSE);
  memset (m, 0, sizeof *m);
  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (info != NULL, FALSE);

  if (!view_for_buffer (&v, buffer, info, &has_meta, &nbytes, err))
    return FALSE;
  /* gst_buffer_map would only print a critical. */
  if ((flags & GST_MAP_WRITE) && !gst_buffer_is_writable (buffer)) {
    g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "buffer is not writable (it has %d references); make it writable "
        "before mapping it for writing.",
        GST_MINI_OBJECT_REFCOUNT_VALUE (buffer));
    return FALSE;
  }
  if (!gst_buffer_map (buffer, &m->map, flags)) {
    g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "could not map the buffer of %" G_GSIZE_FORMAT " bytes for %s.",
        gst_buffer_get_size (buffer),
        (flags & GST_MAP_WRITE) ? "writing" : "reading");
    return FALSE;
  }
  if (!check_size (&v, has_meta, m->map.size, nbytes, info, err)) {
    gst_buffer_unmap (buffer, &m->map);
    memset (&m->map, 0, sizeof m->map);
    return FALSE;
  }
  m->buffer = buffer;
  m->view = v;
  m->data = m->map.data;
  if (m->map.size > 0
      && (guintptr) m->map.data % tn_dtype_size (info->dtype) != 0) {
    /* g_malloc's blocks are aligned for any scalar type. */
    m->aligned = g_memdup2 (m->map.data, m->map.size);
    m->data = m->aligned;
  }
  return TRUE;
}

void
gst_tn_buffer_unmap (GstTnMap *m)
{
  g_return_if_fail (m != NULL);

  if (m->buffer == NULL)
    return;
  if (m->aligned) {
    if (m->map.flags & GST_MAP_WRITE)
      memcpy (m->map.data, m->aligned, m->map.size);
    g_clear_pointer (&m->aligned, g_free);
  }
  gst_buffer_unmap (m->buffer, &m->map);
  m->buffer = NULL;
  m->data = NULL;
}

static GQuark
empty_notify_quark (void)
{
  return g_quark_from_static_string ("gst-tn-wrap-notify");
}

gboolean
gst_tn_buffer_is_writable (GstBuffer *buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  return gst_buffer_is_writable (buffer);
}

GstBuffer *
gst_tn_buffer_wrap (const GstTnInfo *info, gpointer data, gsize size,
    gpointer notify_arg, GDestroyNotify notify)
{
  return gst_tn_buffer_wrap_full (info, 0, data, size, notify_arg, notify);
}

GstBuffer *
gst_tn_buffer_wrap_full (const GstTnInfo *info, GstMemoryFlags flags,
    gpointer data, gsize size, gpointer notify_arg, GDestroyNotify notify)
{
  GstBuffer *buf;
  gsize nbytes;
  gchar *desc;

  g_return_val_if_fail (info != NULL, NULL);
  ensure_debug ();

  desc = gst_tn_info_to_string (info);
  if (!gst_tn_info_size (info, &nbytes)) {
    GST_WARNING ("cannot wrap %" G_GSIZE_FORMAT " bytes as %s: no buffer "
                 "can hold that tensor.",
        size, desc);
    g_free (desc);
    return NULL;
  }
  if (size < nbytes) {
    GST_WARNING ("cannot wrap %" G_GSIZE_FORMAT
                 " bytes as %s, which needs %" G_GSIZE_FORMAT ".",
        size, desc, nbytes);
    g_free (desc);
    return NULL;
  }
  g_free (desc);
  if (data == NULL) {
    /* GstMemory cannot wrap NULL; an empty tensor needs no memory, and
     * the notify still runs once, when the buffer goes. */
    g_return_val_if_fail (nbytes == 0, NULL);
    buf = gst_buffer_new ();
    if (notify)
      gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (buf),
          empty_notify_quark (), notify_arg, notify);
    return buf;
  }
  return gst_buffer_new_wrapped_full (
      flags, data, size, 0, nbytes, notify_arg, notify);
}

static GstBuffer *
acquire (GstBufferPool *pool, gsize nbytes, const GstTnInfo *info, GError **err)
{
  GstBuffer *out = NULL;
  GstFlowReturn ret;
  gchar *desc;
  gsize size;

  if (nbytes == 0)
    return gst_buffer_new ();
  if (pool == NULL) {
    GstAllocator *alloc = gst_tn_allocator_get ();

    out = gst_buffer_new_allocate (alloc, nbytes, NULL);
    gst_object_unref (alloc);
    if (out == NULL) {
      desc = gst_tn_info_to_string (info);
      g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "could not allocate %" G_GSIZE_FORMAT " bytes for %s.", nbytes, desc);
      g_free (desc);
    }
    return out;
  }

  ret = gst_buffer_pool_acquire_buffer (pool, &out, NULL);
  if (ret != GST_FLOW_OK) {
    g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "pool %s gave no buffer (flow %s); it may not be active.",
        GST_OBJECT_NAME (pool), gst_flow_get_name (ret));
    return NULL;
  }
  size = gst_buffer_get_size (out);
  if (size < nbytes) {
    desc = gst_tn_info_to_string (info);
    g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "pool %s gives buffers of %" G_GSIZE_FORMAT
        " bytes; %s needs %" G_GSIZE_FORMAT ".",
        GST_OBJECT_NAME (pool), size, desc, nbytes);
    g_free (desc);
    gst_buffer_unref (out);
    return NULL;
  }
  if (size > nbytes)
    gst_buffer_resize (out, 0, nbytes);
  return out;
}

GstBuffer *
gst_tn_buffer_dense (
    GstBuffer *buffer, const GstTnInfo *info, GstBufferPool *pool, GError **err)
{
  GstTnMap src;
  GstMapInfo dst;
  GstBuffer *out;
  gboolean has_meta;
  gsize nbytes, size;
  tn_view v;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (info != NULL, NULL);
  g_return_val_if_fail (pool == NULL || GST_IS_BUFFER_POOL (pool), NULL);

  if (!view_for_buffer (&v, buffer, info, &has_meta, &nbytes, err))
    return NULL;
  size = gst_buffer_get_size (buffer);
  if (!check_size (&v, has_meta, size, nbytes, info, err))
    return NULL;
  if (!has_meta || (tn_view_dense (&v) && v.offset == 0 && size == nbytes))
    return gst_buffer_ref (buffer);

  /* A dense run inside the buffer is shared, not copied.  Being a region,
   * the copy drops the layout meta, and keeps timestamps only when it
   * starts at byte 0: they are the same tensor's, so copy them whole. */
  if (tn_view_dense (&v) && nbytes > 0) {
    out = gst_buffer_copy_region (buffer, GST_BUFFER_COPY_ALL,
        (gsize) v.offset * tn_dtype_size (info->dtype), nbytes);
    if (out == NULL) {
      g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "could not share %" G_GSIZE_FORMAT " bytes at byte %" G_GSIZE_FORMAT
          " of a buffer of %" G_GSIZE_FORMAT " bytes.",
          nbytes, (gsize) v.offset * tn_dtype_size (info->dtype), size);
      return NULL;
    }
    gst_buffer_copy_into (out, buffer, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
    return out;
  }

  if (!gst_tn_buffer_map (&src, buffer, info, GST_MAP_READ, err))
    return NULL;
  out = acquire (pool, nbytes, info, err);
  if (out == NULL) {
    gst_tn_buffer_unmap (&src);
    return NULL;
  }
  if (nbytes > 0) {
    if (!gst_buffer_map (out, &dst, GST_MAP_WRITE)) {
      g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "could not map the new buffer of %" G_GSIZE_FORMAT
          " bytes for writing.",
          nbytes);
      gst_tn_buffer_unmap (&src);
      gst_buffer_unref (out);
      return NULL;
    }
    tn_view_materialize (dst.data, src.data, &src.view);
    gst_buffer_unmap (out, &dst);
  }
  gst_tn_buffer_unmap (&src);

  /* Without GST_BUFFER_COPY_MEMORY, memory-tagged metas (the layout meta
   * among them) describe memory out does not have and are not copied. */
  gst_buffer_copy_into (out, buffer,
      GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS | GST_BUFFER_COPY_META,
      0, -1);
  return out;
}

gboolean
gst_tn_buffer_view (
    GstBuffer *buffer, const tn_view *dense, gsize nbytes, tn_view *v)
{
  GstTnLayoutMeta *meta = gst_tn_buffer_get_layout_meta (buffer);
  gsize size = gst_buffer_get_size (buffer);

  *v = *dense;
  if (meta == NULL)
    return size == nbytes;
  if (meta->rank != v->rank)
    return FALSE;
  v->offset = meta->offset;
  memcpy (v->strides, meta->strides, sizeof v->strides);
  return tn_view_check (v, (int64_t) (size / tn_dtype_size (v->dtype)), NULL)
         == 0;
}
