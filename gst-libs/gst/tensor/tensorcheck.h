/* Checking tensor buffers against golden .npy files, for tests. */
#ifndef GST_TN_CHECK_H
#define GST_TN_CHECK_H

#include <gst/gst.h>

#include "tensor-prelude.h"

#include "tensorinfo.h"

G_BEGIN_DECLS

/**
 * GstTnTolerance:
 * @rtol: relative tolerance (NumPy's default 1e-7)
 * @atol: absolute tolerance (default 0)
 * @max_ulp: for float dtypes, a bound in units in the last place that
 *   replaces @rtol and @atol; -1 (the default) uses them
 * @exact: integers and bool compare exactly, ignoring @rtol and @atol
 *   (the default, as tensorcompare does while neither is set)
 * @equal_nan: NaN against NaN passes (default %TRUE)
 *
 * The tolerances of the tensorcompare element: an item passes when
 * |actual - expected| <= atol + rtol * |expected|
 * (numpy.testing.assert_allclose); equal items pass, inf against inf too.
 * GST_TN_TOLERANCE_INIT gives the defaults.
 */
typedef struct {
  gdouble rtol;
  gdouble atol;
  gint64 max_ulp;
  gboolean exact;
  gboolean equal_nan;
} GstTnTolerance;

#define GST_TN_TOLERANCE_INIT                                                  \
  {                                                                            \
    1e-7, 0.0, -1, TRUE, TRUE                                                  \
  }

/**
 * gst_tn_buffer_compare_npy: (skip)
 * @buffer: a tensor buffer (strided ones are read in place)
 * @info: the tensor of its caps
 * @path: a .npy file: the reference
 * @tol: (nullable): the tolerances; %NULL for GST_TN_TOLERANCE_INIT
 * @err: the reason for a failure
 *
 * Compares @buffer with the array in @path the way tensorcompare does,
 * for a GstHarness test: `fail_unless (gst_tn_buffer_compare_npy (buf,
 * &info, "golden.npy", NULL, &err), "%s", err->message)`.  A mismatch is
 * a GST_STREAM_ERROR_FAILED whose message is tensorcompare's sentence
 * ("12 of 1000 items differ beyond rtol=1e-07, atol=0; first at [1, 4]:
 * 0.5 against 0.50001 (abs 1e-05, rel 2e-05); worst abs 3e-05 at
 * [9, 2]", or "dtype float32 against float64"); a file that cannot be
 * read is a GST_RESOURCE_ERROR_READ, a buffer that does not hold its
 * caps' tensor a GST_STREAM_ERROR_FORMAT.
 *
 * Returns: %TRUE when every item passes
 */
GST_TENSOR_API
gboolean gst_tn_buffer_compare_npy (GstBuffer *buffer, const GstTnInfo *info,
    const gchar *path, const GstTnTolerance *tol, GError **err);

G_END_DECLS

#endif
