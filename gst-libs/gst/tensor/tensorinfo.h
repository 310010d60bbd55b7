/* tensor/x-raw caps <-> a tensor's dtype, dims and framerate. */
#ifndef GST_TN_INFO_H
#define GST_TN_INFO_H

#include <gst/gst.h>

#include "tensor-prelude.h"

#include "core/dtype.h"

G_BEGIN_DECLS

#define GST_TN_MEDIA_TYPE "tensor/x-raw"

#define GST_TN_TYPES                                                           \
  "{ bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, "         \
  "float16, bfloat16, float32, float64 }"

/* Template caps for any tensor; dims is left out (any rank, any extents). */
#define GST_TN_CAPS_ANY                                                        \
  GST_TN_MEDIA_TYPE                                                            \
  ", type=(string)" GST_TN_TYPES                                               \
  ", dims-order=(string)row-major, framerate=(fraction)[ 0/1, MAX ]"

typedef struct {
  tn_dtype dtype;
  gint rank;
  gint64 dims[TN_MAX_RANK]; /* outermost first */
  gint fps_n, fps_d;        /* 0/1 when the caps carry no framerate */
} GstTnInfo;

/* Reads fixed caps.  On failure returns FALSE with a GError
 * (GST_CORE_ERROR_NEGOTIATION) whose message names the field and the value
 * found, e.g. "type 'float33' is not a tensor type; expected one of ...". */
GST_TENSOR_API
gboolean gst_tn_info_from_caps (
    GstTnInfo *info, const GstCaps *caps, GError **err);
/* Fixed caps for info (framerate only when fps_d > 0). */
GST_TENSOR_API
GstCaps *gst_tn_info_to_caps (const GstTnInfo *info);
/* Items and bytes of a dense tensor of info; FALSE on overflow. */
GST_TENSOR_API
gboolean gst_tn_info_size (const GstTnInfo *info, gsize *nbytes);
GST_TENSOR_API
gboolean gst_tn_info_equal (const GstTnInfo *a, const GstTnInfo *b);
/* "float32 <2, 3>" for messages. */
GST_TENSOR_API
gchar *gst_tn_info_to_string (const GstTnInfo *info);

/* Sets/reads dims as a GstValueArray of int on a structure. */
GST_TENSOR_API
void gst_tn_structure_set_dims (GstStructure *s, const gint64 *dims, gint rank);
GST_TENSOR_API
gboolean gst_tn_structure_get_dims (
    const GstStructure *s, gint64 *dims, gint *rank, GError **err);

/* Checks every field that is present and fixed (type name, dims entries
 * >= 0 and rank <= 8, dims-order); FALSE with a message naming the field. */
GST_TENSOR_API
gboolean gst_tn_caps_validate (const GstCaps *caps, GError **err);

/* Fixates what is left open: type float32, dims <1>, framerate 30/1 when a
 * range allows it.  Takes ownership of caps, returns fixed caps. */
GST_TENSOR_API
GstCaps *gst_tn_caps_fixate (GstCaps *caps);

/* caps filtered by filter (NULL: caps itself), filter's order first.
 * Takes ownership of caps. */
GST_TENSOR_API
GstCaps *gst_tn_caps_filter (GstCaps *caps, GstCaps *filter);

G_END_DECLS

#endif
