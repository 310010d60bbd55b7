/* Raw video and audio <-> tensors: which dtype and dims a frame or a run
 * of audio frames has as a tensor, the caps of either side for the other,
 * and where a frame's items lie in its buffer.  What tensorconvert does,
 * for applications that do it without the element. */
#ifndef GST_TN_MEDIA_H
#define GST_TN_MEDIA_H

#include <gst/audio/audio.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "core/view.h"
#include "tensor-prelude.h"
#include "tensorinfo.h"

G_BEGIN_DECLS

/* The formats whose frames map to one tensor and back, in the order of
 * preference that the caps functions below list them in (RGB first, as
 * NumPy, PIL and torchvision expect of an image; gray last, since it
 * drops the colours; float32 audio first, the dtype of tensor arithmetic,
 * then S16LE, the native format of most devices), and the dtypes of those
 * tensors.  For pad templates. */
#define GST_TN_MEDIA_VIDEO_FORMATS                                             \
  "{ RGB, BGR, RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, GRAY8, "        \
  "GRAY16_LE }"
#define GST_TN_MEDIA_AUDIO_FORMATS "{ F32LE, S16LE, S32LE, F64LE, S8, U8 }"
#define GST_TN_MEDIA_TYPES                                                     \
  "{ uint8, float32, int16, int32, float64, int8, uint16 }"

/**
 * GstTnMediaFlags:
 * @GST_TN_MEDIA_NONE: no flag
 * @GST_TN_MEDIA_CHANNEL_AXIS: a plane of one channel (GRAY8, each plane
 *   of I420) becomes <h, w, 1> instead of <h, w>
 *
 * How frames map to tensors.
 */
typedef enum {
  GST_TN_MEDIA_NONE = 0,
  GST_TN_MEDIA_CHANNEL_AXIS = 1 << 0,
} GstTnMediaFlags;

/**
 * gst_tn_info_from_video_info:
 * @info: (out caller-allocates): the tensor
 * @vinfo: a video format
 * @plane: which plane
 * @flags: how the frame maps
 * @err: the reason for a failure
 *
 * The tensor of one plane of a frame of vinfo: dims <h, w, c> of the
 * plane (subsampled planes are smaller), where c counts the items of a
 * pixel (4 for RGBx: padding bytes count), or <h, w> when c is 1 and
 * flags lacks GST_TN_MEDIA_CHANNEL_AXIS; uint8 for 8-bit samples,
 * uint16 for 16-bit little-endian ones; the frame's framerate.  A plane
 * whose samples are not whole bytes of 8 or 16 bits, or lie at different
 * pixel strides (UYVY), has no tensor: %FALSE with a
 * GST_CORE_ERROR_NEGOTIATION GError that says why.
 *
 * Returns: (skip): whether the plane has a tensor (bindings raise the
 * error instead)
 */
GST_TENSOR_API gboolean gst_tn_info_from_video_info (GstTnInfo *info,
    const GstVideoInfo *vinfo, guint plane, GstTnMediaFlags flags,
    GError **err);

/**
 * gst_tn_info_from_audio_info:
 * @info: (out caller-allocates): the tensor
 * @ainfo: an audio format
 * @frames: audio frames per tensor
 * @err: the reason for a failure
 *
 * The tensor of @frames audio frames of @ainfo: dims <frames, channels>
 * for interleaved audio, <channels, frames> for planar (non-interleaved)
 * audio; the dtype of the samples (S16LE int16, F32LE float32, ...);
 * framerate rate / frames in lowest terms.  Samples narrower than their
 * width (S24_32LE), of the other byte order, or frames of 0 or more than
 * G_MAXINT: %FALSE with a GST_CORE_ERROR_NEGOTIATION GError.
 *
 * Returns: (skip): whether such audio has a tensor (bindings raise the
 * error instead)
 */
GST_TENSOR_API gboolean gst_tn_info_from_audio_info (
    GstTnInfo *info, const GstAudioInfo *ainfo, guint frames, GError **err);

/**
 * gst_tn_caps_from_media_caps:
 * @caps: video/x-raw or audio/x-raw caps
 * @flags: how frames map
 * @frames: audio frames per tensor; <= 0 leaves them open
 *
 * Tensor caps for media caps, fixed or not: each video/x-raw structure
 * gives one tensor structure per format of GST_TN_MEDIA_VIDEO_FORMATS it
 * allows, in that order, with dims when width and height are fixed (see
 * gst_tn_info_from_video_info); each interleaved audio/x-raw structure
 * one per format of GST_TN_MEDIA_AUDIO_FORMATS, with dims <frames,
 * channels> and framerate rate / frames when frames > 0 and those are
 * fixed (frames <= 0 leaves them open).  Other structures give nothing.
 *
 * Returns: (transfer full): the tensor caps, perhaps empty
 */
GST_TENSOR_API GstCaps *gst_tn_caps_from_media_caps (
    const GstCaps *caps, GstTnMediaFlags flags, gint frames);

/**
 * gst_tn_media_caps_from_caps:
 * @caps: tensor caps
 * @frames: audio frames per tensor; <= 0: any
 * @err: why fixed caps fit no format
 *
 * Media caps for tensor caps, fixed or not: for each tensor structure,
 * every video format then every audio format (in the order of the
 * format lists) whose tensor it can be.  uint8 <h, w>, <h, w, 1>, <h, w,
 * 3> or <h, w, 4> and uint16 <h, w> or <h, w, 1> are frames of the
 * framerate; <frames, channels> is interleaved audio at rate frames x
 * framerate, when that is a whole number; frames > 0 admits only tensors
 * of that many frames.  When caps are fixed and fit no format, the caps
 * are empty and err (if not NULL) is set to a GST_CORE_ERROR_NEGOTIATION
 * error that says what would fit.
 *
 * Returns: (transfer full): the media caps, perhaps empty
 */
GST_TENSOR_API GstCaps *gst_tn_media_caps_from_caps (
    const GstCaps *caps, gint frames, GError **err);

/**
 * gst_tn_video_plane_view: (skip)
 * @view: (out caller-allocates): where the items lie
 * @vinfo: the video format
 * @meta: (nullable): the buffer's GstVideoMeta
 * @plane: which plane
 * @flags: how the frame maps
 * @size: the buffer's size in bytes
 * @err: the reason for a failure
 *
 * Where the items of plane of a frame of vinfo lie in a buffer of size
 * bytes: with meta (the buffer's GstVideoMeta) its offset and stride,
 * else vinfo's, in which case the buffer must hold all of vinfo->size,
 * as gst_video_frame_map() requires.  view gets dims as
 * gst_tn_info_from_video_info() gives them, and strides and offset in
 * items from the start of the buffer; when the offset or the row stride
 * is not a whole number of items (GRAY16_LE rows of an odd pitch), the
 * items cannot be addressed where they are and view reads them as bytes:
 * dtype uint8 with one more, innermost, axis of the item's bytes.  FALSE
 * with the error of gst_tn_info_from_video_info(), or a
 * GST_STREAM_ERROR_FORMAT one when rows are shorter than their pixels or
 * the buffer is too small for the plane.
 *
 * Returns: whether @view is set
 */
GST_TENSOR_API gboolean gst_tn_video_plane_view (tn_view *view,
    const GstVideoInfo *vinfo, const GstVideoMeta *meta, guint plane,
    GstTnMediaFlags flags, gsize size, GError **err);

G_END_DECLS

#endif
