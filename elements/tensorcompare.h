/* tensorcompare's parts: the element (tensorcompare.c) and where its
 * references come from (tensorcompare-ref.c: files, the expected pad,
 * recording). */
#ifndef GST_TENSOR_COMPARE_H
#define GST_TENSOR_COMPARE_H

#include <gst/gst.h>
#include <gst/tensor/gsttensor.h>

#include "core/array.h"
#include "core/compare.h"
#include "elements.h"
#include "tnelement.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_tensor_compare_debug);

typedef enum {
  GST_TENSOR_COMPARE_ERROR,
  GST_TENSOR_COMPARE_WARNING,
  GST_TENSOR_COMPARE_MESSAGE,
} GstTensorCompareOnMismatch;

typedef enum {
  GST_TENSOR_COMPARE_SYNC_ORDER,
  GST_TENSOR_COMPARE_SYNC_TIMESTAMP,
} GstTensorCompareSync;

GType gst_tensor_compare_on_mismatch_get_type (void);
GType gst_tensor_compare_sync_get_type (void);
#define GST_TYPE_TENSOR_COMPARE_ON_MISMATCH                                    \
  (gst_tensor_compare_on_mismatch_get_type ())
#define GST_TYPE_TENSOR_COMPARE_SYNC (gst_tensor_compare_sync_get_type ())

#define GST_TYPE_TENSOR_COMPARE (gst_tensor_compare_get_type ())
G_DECLARE_FINAL_TYPE (
    GstTensorCompare, gst_tensor_compare, GST, TENSOR_COMPARE, GstElement)

/* What reference= names, decided at start. */
typedef enum {
  REF_NONE,    /* the expected pad */
  REF_PATTERN, /* file i for buffer i */
  REF_FILE,    /* one file: one reference, or one per buffer on axis 0 */
} GstTensorCompareRef;

struct _GstTensorCompare {
  GstElement parent;
  GstPad *sinkpad, *srcpad;
  GstPad *expected_pad; /* the request pad, or NULL; object lock */

  /* properties, under the object lock */
  gchar *reference;
  tn_cmp_tol tol;
  gboolean rtol_set, atol_set;
  GstTensorCompareOnMismatch on_mismatch;
  GstTensorCompareSync sync;
  gboolean record, silent;

  /* sink streaming thread */
  gboolean have_info;
  GstTnInfo info;
  guint64 index;
  guint64 compared, failed;
  gboolean errored;  /* on-mismatch=error failed: an element error */
  gchar *error_text; /* its text, until posted */
  double max_abs, max_rel;
  uint64_t max_ulp;
  GstTensorCompareRef ref;
  tn_array file;    /* REF_FILE: the whole file */
  gboolean stacked; /* REF_FILE: axis 0 counts the buffers */
  GByteArray *rec;  /* record, REF_FILE: the buffers so far */
  tn_view rec_view; /* record: the first buffer's tensor */

  /* the expected pad's queue: lock, cond */
  GMutex lock;
  GCond cond;
  GQueue queue; /* of GstBuffer, each with the GstTnInfo of its caps */
  gboolean expected_eos, flushing;
  GstTnInfo expected_info;
  gboolean have_expected_info;
};

/* tensorcompare.c */
gchar *gst_tensor_compare_buffer_name (guint64 index, GstClockTime pts);
gboolean gst_tensor_compare_fail (GstTensorCompare *self, const gchar *text);
gboolean gst_tensor_compare_report (
    GstTensorCompare *self, guint64 index, GstClockTime pts, const gchar *text);
gboolean gst_tensor_compare_check (GstTensorCompare *self, const GstTnMap *m,
    guint64 index, GstClockTime pts, const tn_view *ev, gconstpointer ebase);

/* tensorcompare-ref.c */
gboolean gst_tensor_compare_start (GstTensorCompare *self);
void gst_tensor_compare_stop (GstTensorCompare *self);
void gst_tensor_compare_set_flushing (GstTensorCompare *self, gboolean on);
void gst_tensor_compare_expected_setup (GstTensorCompare *self, GstPad *pad);
gboolean gst_tensor_compare_with_file (
    GstTensorCompare *self, const GstTnMap *m, guint64 index, GstClockTime pts);
gboolean gst_tensor_compare_with_expected (
    GstTensorCompare *self, const GstTnMap *m, guint64 index, GstClockTime pts);
gboolean gst_tensor_compare_record (
    GstTensorCompare *self, const GstTnMap *m, guint64 index);
gboolean gst_tensor_compare_record_finish (GstTensorCompare *self);
gboolean gst_tensor_compare_expected_leftover (GstTensorCompare *self);
gboolean gst_tensor_compare_file_leftover (GstTensorCompare *self);

G_END_DECLS

#endif
