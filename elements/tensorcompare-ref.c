/* tensorcompare: where the references come from (reference= files, the
 * expected pad) and where record=true writes them.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "core/npy.h"
#include "tensorcompare.h"

#define GST_CAT_DEFAULT gst_tensor_compare_debug

/* Expected buffers waiting for their partner: enough for a queue's
 * worth of jitter between the two branches, bounded memory. */
#define EXPECTED_QUEUE_MAX 4

typedef struct {
  GstBuffer *buf;
  GstTnInfo info;
} Expected;

static void
expected_free (gpointer p)
{
  Expected *x = p;

  gst_buffer_unref (x->buf);
  g_free (x);
}

/* NULL when pattern holds exactly one integer conversion (flags, width
 * and d, i, u, x or X; "%%" is a percent sign); else why not. */
static gchar *
pattern_problem (const gchar *pattern, gboolean *is_pattern)
{
  gint conversions = 0;

  for (const gchar *p = pattern; *p; p++) {
    if (*p != '%')
      continue;
    if (p[1] == '%') {
      p++;
      continue;
    }
    p++;
    p += strspn (p, "-+ 0#");
    p += strspn (p, "0123456789");
    if (!*p || !strchr ("diuxX", *p))
      return g_strdup_printf ("the conversion at byte %d is not an integer "
                              "one such as %%05d",
          (gint) (p - pattern));
    conversions++;
  }
  *is_pattern = conversions > 0;
  if (conversions > 1)
    return g_strdup_printf ("a pattern holds one integer conversion such as "
                            "%%05d; this one has %d",
        conversions);
  return NULL;
}

/* File index of the pattern (g_free it). */
static gchar *
pattern_path (const gchar *pattern, guint64 index)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  /* checked by pattern_problem: one int conversion */
  return g_strdup_printf (pattern, (gint) index);
#pragma GCC diagnostic pop
}

gboolean
gst_tensor_compare_start (GstTensorCompare *self)
{
  GstElement *el = GST_ELEMENT (self);
  gchar *ref, *why;
  gboolean record, has_pad, is_pattern = FALSE;
  tn_err e;

  GST_OBJECT_LOCK (self);
  ref = g_strdup (self->reference);
  record = self->record;
  has_pad = self->expected_pad != NULL;
  GST_OBJECT_UNLOCK (self);

  self->index = self->compared = self->failed = 0;
  self->max_abs = self->max_rel = 0.0;
  self->max_ulp = 0;
  self->stacked = self->errored = FALSE;
  g_clear_pointer (&self->error_text, g_free);
  self->ref = REF_NONE;
  g_mutex_lock (&self->lock);
  self->flushing = self->expected_eos = FALSE;
  g_mutex_unlock (&self->lock);

  if (has_pad && ref) {
    gst_tn_element_property_error (el, "reference", ref,
        "the expected pad is linked too; references come from one of them");
    goto fail;
  }
  if (has_pad && record) {
    gst_tn_element_property_error (el, "record", "true",
        "record writes the files reference= names, and the references "
        "come on the expected pad");
    goto fail;
  }
  if (!has_pad && !ref) {
    gst_tn_element_property_error (el, "reference", "(null)",
        "no reference: set reference= to a .npy path or a pattern such as "
        "golden-%05d.npy, or link the expected pad");
    goto fail;
  }
  if (has_pad)
    return TRUE;
  if ((why = pattern_problem (ref, &is_pattern))) {
    gst_tn_element_property_error (el, "reference", ref, why);
    g_free (why);
    goto fail;
  }
  self->ref = is_pattern ? REF_PATTERN : REF_FILE;
  if (self->ref == REF_FILE && !record
      && tn_array_load_npy (ref, &self->file, &e) < 0) {
    gst_tn_element_property_error (el, "reference", ref, e.msg);
    goto fail;
  }
  if (record && self->ref == REF_FILE)
    self->rec = g_byte_array_new ();
  g_free (ref);
  return TRUE;

fail:
  g_free (ref);
  return FALSE;
}

void
gst_tensor_compare_stop (GstTensorCompare *self)
{
  tn_array_clear (&self->file);
  if (self->rec)
    g_byte_array_unref (self->rec);
  self->rec = NULL;
  g_mutex_lock (&self->lock);
  g_queue_clear_full (&self->queue, expected_free);
  g_mutex_unlock (&self->lock);
}

void
gst_tensor_compare_set_flushing (GstTensorCompare *self, gboolean on)
{
  g_mutex_lock (&self->lock);
  self->flushing = on;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* Posts and reports text for buffer index; FALSE when that is an error. */
static gboolean
report (GstTensorCompare *self, guint64 index, GstClockTime pts, gchar *text)
{
  gboolean go = gst_tensor_compare_report (self, index, pts, text);

  g_free (text);
  return go;
}

/* ---- reference= ---- */

gboolean
gst_tensor_compare_with_file (
    GstTensorCompare *self, const GstTnMap *m, guint64 index, GstClockTime pts)
{
  gchar *ref;
  gboolean go;
  tn_err e;

  GST_OBJECT_LOCK (self);
  ref = g_strdup (self->reference);
  GST_OBJECT_UNLOCK (self);

  if (self->ref == REF_PATTERN) {
    gchar *path = pattern_path (ref, index);
    tn_array a = { 0 };

    g_free (ref);
    if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
      go = report (self, index, pts,
          g_strdup_printf ("buffer %" G_GUINT64_FORMAT
                           " has no reference: %s does not exist",
              index, path));
    } else if (tn_array_load_npy (path, &a, &e) < 0) {
      go = report (self, index, pts,
          g_strdup_printf ("buffer %" G_GUINT64_FORMAT " has no reference: %s",
              index, e.msg));
    } else {
      go = gst_tensor_compare_check (self, m, index, pts, &a.view, a.data);
      tn_array_clear (&a);
    }
    g_free (path);
    return go;
  } else {
    const tn_view *f = &self->file.view;
    tn_view v = *f;

    /* one more axis in front than the tensor, the rest equal: axis 0
     * counts the buffers */
    self->stacked = f->rank == m->view.rank + 1
                    && !memcmp (f->dims + 1, m->view.dims,
                        sizeof (int64_t) * (size_t) m->view.rank);
    if (self->stacked && (int64_t) index >= f->dims[0]) {
      go = report (self, index, pts,
          g_strdup_printf ("buffer %" G_GUINT64_FORMAT
                           " has no reference: %s holds %" G_GINT64_FORMAT
                           " along axis 0",
              index, ref, (gint64) f->dims[0]));
      g_free (ref);
      return go;
    }
    g_free (ref);
    if (self->stacked)
      tn_view_select (&v, 0, (int64_t) index, NULL);
    return gst_tensor_compare_check (self, m, index, pts, &v, self->file.data);
  }
}

gboolean
gst_tensor_compare_file_leftover (GstTensorCompare *self)
{
  gchar *ref, *path;
  gboolean go = TRUE;

  GST_OBJECT_LOCK (self);
  ref = g_strdup (self->reference);
  GST_OBJECT_UNLOCK (self);
  if (self->ref == REF_PATTERN) {
    path = pattern_path (ref, self->index);
    if (g_file_test (path, G_FILE_TEST_EXISTS))
      go = report (self, self->index, GST_CLOCK_TIME_NONE,
          g_strdup_printf ("%" G_GUINT64_FORMAT " buffers came, yet "
                           "reference %s exists: more references than "
                           "buffers",
              self->index, path));
    g_free (path);
  } else if (self->ref == REF_FILE && self->stacked
             && self->file.view.dims[0] > (int64_t) self->index) {
    go = report (self, self->index, GST_CLOCK_TIME_NONE,
        g_strdup_printf ("%" G_GUINT64_FORMAT " buffers came, yet %s "
                         "holds %" G_GINT64_FORMAT " references along axis 0",
            self->index, ref, (gint64) self->file.view.dims[0]));
  }
  g_free (ref);
  return go;
}

/* ---- the expected pad ---- */

static GstFlowReturn
expected_chain (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  GstTensorCompare *self = GST_TENSOR_COMPARE (parent);
  Expected *x;

  g_mutex_lock (&self->lock);
  while (self->queue.length >= EXPECTED_QUEUE_MAX && !self->flushing)
    g_cond_wait (&self->cond, &self->lock);
  if (self->flushing || !self->have_expected_info) {
    GstFlowReturn ret
        = self->flushing ? GST_FLOW_FLUSHING : GST_FLOW_NOT_NEGOTIATED;

    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buf);
    return ret;
  }
  x = g_new (Expected, 1);
  x->buf = buf;
  x->info = self->expected_info;
  g_queue_push_tail (&self->queue, x);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return GST_FLOW_OK;
}

static gboolean
expected_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  GstTensorCompare *self = GST_TENSOR_COMPARE (parent);
  gboolean ok = TRUE;

  switch (GST_EVENT_TYPE (event)) {
  case GST_EVENT_CAPS: {
    GstCaps *caps;
    GError *err = NULL;
    GstTnInfo info;

    gst_event_parse_caps (event, &caps);
    if (!gst_tn_info_from_caps (&info, caps, &err)) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Cannot read the tensor caps of pad expected: %s", err->message),
          ("caps %" GST_PTR_FORMAT, caps));
      g_clear_error (&err);
      ok = FALSE;
      break;
    }
    g_mutex_lock (&self->lock);
    self->expected_info = info;
    self->have_expected_info = TRUE;
    g_mutex_unlock (&self->lock);
    break;
  }
  case GST_EVENT_EOS:
    g_mutex_lock (&self->lock);
    self->expected_eos = TRUE;
    g_cond_broadcast (&self->cond);
    g_mutex_unlock (&self->lock);
    break;
  case GST_EVENT_FLUSH_STOP:
    g_mutex_lock (&self->lock);
    g_queue_clear_full (&self->queue, expected_free);
    self->expected_eos = FALSE;
    g_cond_broadcast (&self->cond);
    g_mutex_unlock (&self->lock);
    break;
  default:
    break;
  }
  /* the expected stream ends here: none of its events go on */
  gst_event_unref (event);
  return ok;
}

static gboolean
expected_query (GstPad *pad, GstObject *parent, GstQuery *query)
{
  if (gst_tn_pad_accept_caps_query (pad, parent, query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION) {
    /* these buffers go no further than the comparison, which reads
     * views in place */
    gst_query_add_allocation_meta (query, GST_TN_LAYOUT_META_API_TYPE, NULL);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

void
gst_tensor_compare_expected_setup (GstTensorCompare *self, GstPad *pad)
{
  gst_pad_set_chain_function (pad, GST_DEBUG_FUNCPTR (expected_chain));
  gst_pad_set_event_function (pad, GST_DEBUG_FUNCPTR (expected_event));
  gst_pad_set_query_function (pad, GST_DEBUG_FUNCPTR (expected_query));
  gst_tn_pad_accept_intersect (pad);
}

/* The next expected buffer, or NULL (*why says why, or nothing when
 * flushing). */
static Expected *
expected_pop (
    GstTensorCompare *self, guint64 index, GstClockTime pts, gchar **why)
{
  GstTensorCompareSync sync;
  Expected *x;

  GST_OBJECT_LOCK (self);
  sync = self->sync;
  GST_OBJECT_UNLOCK (self);
  *why = NULL;
  g_mutex_lock (&self->lock);
  for (;;) {
    while (!self->queue.length && !self->expected_eos && !self->flushing)
      g_cond_wait (&self->cond, &self->lock);
    if (self->flushing) {
      x = NULL;
      break;
    }
    x = g_queue_peek_head (&self->queue);
    if (!x) {
      *why = g_strdup_printf ("buffer %" G_GUINT64_FORMAT " has no "
                              "reference: the expected stream has ended",
          index);
      break;
    }
    if (sync == GST_TENSOR_COMPARE_SYNC_TIMESTAMP
        && GST_BUFFER_PTS (x->buf) != pts) {
      if (GST_BUFFER_PTS_IS_VALID (x->buf) && GST_CLOCK_TIME_IS_VALID (pts)
          && GST_BUFFER_PTS (x->buf) < pts) {
        /* a reference whose buffer never came: reported, then the next */
        gchar *text = g_strdup_printf (
            "the expected buffer of pts %" GST_TIME_FORMAT " has no buffer of "
            "that pts to compare with",
            GST_TIME_ARGS (GST_BUFFER_PTS (x->buf)));

        GstClockTime xpts = GST_BUFFER_PTS (x->buf);

        g_queue_pop_head (&self->queue);
        g_cond_broadcast (&self->cond);
        g_mutex_unlock (&self->lock);
        expected_free (x);
        if (!report (self, index, xpts, text)) {
          *why = NULL;
          return NULL;
        }
        g_mutex_lock (&self->lock);
        continue;
      }
      *why = g_strdup_printf (
          "buffer %" G_GUINT64_FORMAT " has no "
          "reference: no expected buffer has pts %" GST_TIME_FORMAT,
          index, GST_TIME_ARGS (pts));
      x = NULL;
      break;
    }
    g_queue_pop_head (&self->queue);
    g_cond_broadcast (&self->cond);
    break;
  }
  g_mutex_unlock (&self->lock);
  return x;
}

gboolean
gst_tensor_compare_with_expected (
    GstTensorCompare *self, const GstTnMap *m, guint64 index, GstClockTime pts)
{
  GError *err = NULL;
  gchar *why;
  Expected *x = expected_pop (self, index, pts, &why);
  GstTnMap em;
  gboolean go;

  if (!x)
    return why ? report (self, index, pts, why) : FALSE;
  if (!gst_tn_buffer_map (&em, x->buf, &x->info, GST_MAP_READ, &err)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Buffer %" G_GUINT64_FORMAT " of pad expected does not hold the "
         "tensor its caps describe: %s",
            index, err->message),
        (NULL));
    g_clear_error (&err);
    expected_free (x);
    return FALSE;
  }
  go = gst_tensor_compare_check (self, m, index, pts, &em.view, em.data);
  gst_tn_buffer_unmap (&em);
  expected_free (x);
  return go;
}

gboolean
gst_tensor_compare_expected_leftover (GstTensorCompare *self)
{
  guint left;

  g_mutex_lock (&self->lock);
  while (!self->queue.length && !self->expected_eos && !self->flushing)
    g_cond_wait (&self->cond, &self->lock);
  left = self->queue.length;
  g_mutex_unlock (&self->lock);
  if (left)
    return report (self, self->index, GST_CLOCK_TIME_NONE,
        g_strdup_printf ("%" G_GUINT64_FORMAT " buffers came, yet the "
                         "expected stream has more",
            self->index));
  return TRUE;
}

/* ---- record=true ---- */

gboolean
gst_tensor_compare_record (
    GstTensorCompare *self, const GstTnMap *m, guint64 index)
{
  const tn_view *v = &m->view;
  const size_t nbytes = (size_t) tn_view_count (v) * tn_dtype_size (v->dtype);
  gchar *ref;
  tn_err e;

  GST_OBJECT_LOCK (self);
  ref = g_strdup (self->reference);
  GST_OBJECT_UNLOCK (self);
  if (self->ref == REF_FILE) {
    guint len = self->rec->len;

    if (index == 0) {
      tn_view_init (&self->rec_view, v->dtype, v->dims, v->rank, NULL);
    } else if (tn_compare_check (v, &self->rec_view, &e) < 0) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("record=true into %s stacks the buffers along a new axis 0, "
           "which needs one shape; buffer %" G_GUINT64_FORMAT
           " differs from buffer 0: %s",
              ref, index, e.msg),
          (NULL));
      g_free (ref);
      return FALSE;
    }
    g_byte_array_set_size (self->rec, len + (guint) nbytes);
    tn_view_materialize (self->rec->data + len, m->data, v);
  } else {
    gchar *path = pattern_path (ref, index);
    tn_array a = { 0 };
    int ok;

    if (tn_view_dense (v) && v->offset == 0 && nbytes > 0) {
      a.view = *v;
      a.data = m->data; /* written, not owned: not cleared */
      ok = tn_array_save_npy (path, &a, &e);
    } else if (tn_array_init (&a, v->dtype, v->dims, v->rank, &e) == 0) {
      tn_view_materialize (a.data, m->data, v);
      ok = tn_array_save_npy (path, &a, &e);
      tn_array_clear (&a);
    } else {
      ok = -1;
    }
    g_free (path);
    if (ok < 0) {
      GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
          ("record=true cannot write the reference of buffer %" G_GUINT64_FORMAT
           ": %s",
              index, e.msg),
          (NULL));
      g_free (ref);
      return FALSE;
    }
  }
  g_free (ref);
  return TRUE;
}

gboolean
gst_tensor_compare_record_finish (GstTensorCompare *self)
{
  tn_array a = { 0 };
  gchar *ref;
  tn_err e;
  int64_t dims[TN_MAX_RANK];
  gboolean ok = TRUE;
  guint8 one = 0;

  if (self->ref != REF_FILE)
    return TRUE;
  if (self->index == 0 || self->rec_view.rank >= TN_MAX_RANK) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("record=true wrote nothing: %s",
            self->index == 0 ? "no buffer came"
                             : "a stacked reference holds tensors of rank "
                               "up to 7"),
        (NULL));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  ref = g_strdup (self->reference);
  GST_OBJECT_UNLOCK (self);
  dims[0] = (int64_t) self->index;
  memcpy (dims + 1, self->rec_view.dims,
      sizeof (int64_t) * (size_t) self->rec_view.rank);
  tn_view_init (
      &a.view, self->rec_view.dtype, dims, self->rec_view.rank + 1, NULL);
  /* written, not owned; a recording of empty tensors still has a data
   * pointer */
  a.data = self->rec->len ? (void *) self->rec->data : (void *) &one;
  if (tn_array_save_npy (ref, &a, &e) < 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("record=true cannot write %s: %s", ref, e.msg), (NULL));
    ok = FALSE;
  }
  g_free (ref);
  return ok;
}
