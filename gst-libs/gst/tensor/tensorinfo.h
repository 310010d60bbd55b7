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

/**
 * GstTnInfo:
 * @dtype: (type gint): the item type (a tn_dtype: 0 bool ... 12
 *   float64, in the order of GST_TN_TYPES)
 * @rank: the number of axes, 0 to 8
 * @dims: (array fixed-size=8): the extents, outermost first; the first
 *   @rank count
 * @fps_n: framerate numerator
 * @fps_d: framerate denominator; 0/1 when the caps carry no framerate
 *
 * What tensor/x-raw caps describe: one dense row-major tensor per buffer.
 */
typedef struct {
  tn_dtype dtype;
  gint rank;
  gint64 dims[TN_MAX_RANK];
  gint fps_n, fps_d;
} GstTnInfo;

#define GST_TYPE_TN_INFO (gst_tn_info_get_type ())
GST_TENSOR_API
GType gst_tn_info_get_type (void);

/**
 * gst_tn_info_from_caps:
 * @info: (out caller-allocates): the tensor
 * @caps: fixed tensor/x-raw caps
 * @err: the reason for a failure
 *
 * Reads fixed caps.  On failure returns %FALSE with a GError
 * (GST_CORE_ERROR_NEGOTIATION) whose message names the field and the value
 * found, e.g. "type 'float33' is not a tensor type; expected one of ...".
 *
 * Returns: (skip): %TRUE when @caps describe a tensor (bindings raise
 * the error instead)
 */
GST_TENSOR_API
gboolean gst_tn_info_from_caps (
    GstTnInfo *info, const GstCaps *caps, GError **err);
/**
 * gst_tn_info_to_caps:
 * @info: a tensor
 *
 * Returns: (transfer full): fixed caps for @info (framerate only when
 * fps_d > 0)
 */
GST_TENSOR_API
GstCaps *gst_tn_info_to_caps (const GstTnInfo *info);
/**
 * gst_tn_info_size:
 * @info: a tensor
 * @nbytes: (out): the bytes of a dense tensor of @info
 *
 * Returns: %FALSE when the size overflows
 */
GST_TENSOR_API
gboolean gst_tn_info_size (const GstTnInfo *info, gsize *nbytes);
/**
 * gst_tn_info_equal:
 * @a: a tensor
 * @b: another
 *
 * Returns: whether @a and @b have the same dtype, dims and framerate
 */
GST_TENSOR_API
gboolean gst_tn_info_equal (const GstTnInfo *a, const GstTnInfo *b);
/**
 * gst_tn_info_to_string:
 * @info: a tensor
 *
 * Returns: (transfer full): "float32 <2, 3>", for messages
 */
GST_TENSOR_API
gchar *gst_tn_info_to_string (const GstTnInfo *info);

/**
 * gst_tn_structure_set_dims:
 * @s: a structure
 * @dims: (array length=rank): the extents, outermost first
 * @rank: how many
 *
 * Sets the field dims of @s to a GstValueArray of int.
 */
GST_TENSOR_API
void gst_tn_structure_set_dims (GstStructure *s, const gint64 *dims, gint rank);
/**
 * gst_tn_structure_get_dims:
 * @s: a structure
 * @dims: (out caller-allocates) (array fixed-size=8): the extents,
 *   outermost first
 * @rank: (out): how many of @dims count
 * @err: the reason for a failure
 *
 * Reads the field dims of @s, a GstValueArray of int.
 *
 * Returns: (skip): %FALSE when dims is missing, not fixed or out of
 * range (bindings raise the error instead)
 */
GST_TENSOR_API
gboolean gst_tn_structure_get_dims (
    const GstStructure *s, gint64 *dims, gint *rank, GError **err);

/**
 * gst_tn_caps_validate:
 * @caps: tensor caps, fixed or not
 * @err: the reason for a failure
 *
 * Checks every field that is present and fixed (type name, dims entries
 * >= 0 and rank <= 8, dims-order).
 *
 * Returns: (skip): %FALSE with a message naming the field (bindings
 * raise the error instead)
 */
GST_TENSOR_API
gboolean gst_tn_caps_validate (const GstCaps *caps, GError **err);

/**
 * gst_tn_caps_fixate:
 * @caps: (transfer full): tensor caps
 *
 * Fixates what is left open: type float32, dims <1>, framerate 30/1 when a
 * range allows it.
 *
 * Returns: (transfer full): fixed caps
 */
GST_TENSOR_API
GstCaps *gst_tn_caps_fixate (GstCaps *caps);

/**
 * gst_tn_caps_filter:
 * @caps: (transfer full): caps
 * @filter: (nullable): a filter
 *
 * Returns: (transfer full): @caps filtered by @filter (%NULL: @caps
 * itself), @filter's order first
 */
GST_TENSOR_API
GstCaps *gst_tn_caps_filter (GstCaps *caps, GstCaps *filter);

G_END_DECLS

#endif
