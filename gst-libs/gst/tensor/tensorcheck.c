/* Checking tensor buffers against golden .npy files (tensorcheck.h): the
 * comparison of core/compare.c, as tensorcompare runs it. */
#include "tensorcheck.h"

#include <stdlib.h>

#include "core/compare.h"
#include "core/npy.h"
#include "tensorbuffer.h"

gboolean
gst_tn_buffer_compare_npy (GstBuffer *buffer, const GstTnInfo *info,
    const gchar *path, const GstTnTolerance *tol, GError **err)
{
  static const GstTnTolerance defaults = GST_TN_TOLERANCE_INIT;
  tn_array ref = { 0 };
  tn_cmp_result r;
  tn_cmp_tol t;
  GstTnMap m;
  tn_err e;
  tn_view nv;
  const tn_view *ev;
  gconstpointer ebase;
  void *narrowed;
  gboolean ok = FALSE;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (info != NULL && path != NULL, FALSE);
  if (!tol)
    tol = &defaults;
  t.rtol = tol->rtol;
  t.atol = tol->atol;
  t.max_ulp = tol->max_ulp;
  t.exact = tol->exact;
  t.equal_nan = tol->equal_nan;

  if (tn_array_load_npy (path, &ref, &e) < 0) {
    g_set_error (err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ, "%s", e.msg);
    return FALSE;
  }
  if (!gst_tn_buffer_map (&m, buffer, info, GST_MAP_READ, err)) {
    if (err && *err) {
      (*err)->domain = GST_STREAM_ERROR;
      (*err)->code = GST_STREAM_ERROR_FORMAT;
    }
    tn_array_clear (&ref);
    return FALSE;
  }
  ev = &ref.view;
  ebase = ref.data;
  /* a bfloat16 recording: npyenc and record=true write it as float32 */
  if (tn_compare_bf16_ref (&m.view, &ebase, &ev, &nv, &narrowed, &e) < 0) {
    g_set_error (
        err, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, "%s (%s)", e.msg, path);
    gst_tn_buffer_unmap (&m);
    tn_array_clear (&ref);
    return FALSE;
  }
  if (tn_compare_check (&m.view, ev, &e) < 0) {
    g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "%s (actual against %s)", e.msg, path);
  } else {
    tn_compare (m.data, &m.view, ebase, ev, &t, &r);
    if (r.bad) {
      char why[512];

      tn_compare_format (why, sizeof why, &r, &m.view, &t);
      g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, "%s", why);
    } else {
      ok = TRUE;
    }
  }
  free (narrowed);
  gst_tn_buffer_unmap (&m);
  tn_array_clear (&ref);
  return ok;
}
