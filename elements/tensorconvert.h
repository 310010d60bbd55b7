/* tensorconvert's state, shared by the element (tensorconvert.c:
 * negotiation, allocation, audio regrouping, properties) and its data
 * path (tensorconvert-buffer.c: each buffer passed on by reference or
 * copied once).  Private to the element. */
#ifndef GST_TENSOR_CONVERT_H
#define GST_TENSOR_CONVERT_H

#include <gst/audio/audio.h>
#include <gst/base/gstadapter.h>
#include <gst/base/gstbasetransform.h>
#include <gst/tensor/gsttensor.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_tensor_convert_debug);

#define GST_TYPE_TENSOR_CONVERT (gst_tensor_convert_get_type ())
G_DECLARE_FINAL_TYPE (
    GstTensorConvert, gst_tensor_convert, GST, TENSOR_CONVERT, GstBaseTransform)

typedef enum {
  MODE_NONE,
  MODE_VIDEO_TO_TENSOR,
  MODE_AUDIO_TO_TENSOR,
  MODE_TENSOR_TO_VIDEO,
  MODE_TENSOR_TO_AUDIO,
} Mode;

struct _GstTensorConvert {
  GstBaseTransform parent;

  /* properties, under the object lock */
  gboolean gray_channel_axis;
  gint frames;
  guint64 bytes_copied;

  /* streaming thread */
  Mode mode;
  GstVideoInfo vinfo;
  GstAudioInfo ainfo;
  GstTnInfo tinfo;
  gsize tbytes;       /* dense size of tinfo */
  tn_view tview;      /* dense view of tinfo */
  gint tensor_frames; /* frames per tensor in audio-to-tensor mode */
  gboolean downstream_layout_meta;
  gboolean downstream_video_meta;
  GstAdapter *adapter;
  gboolean have_base;
  GstClockTime base_pts; /* of the first frame counted by frames_out */
  guint64 frames_out;    /* frames emitted since base_pts */
  GstCaps
      *refused; /* caps last refused in words (gst_tn_caps_refusal_is_new) */
};

/* The tags of the metas dropped per buffer, looked up once in class_init. */
extern GQuark gst_tensor_convert_video_tag, gst_tensor_convert_tensor_tag,
    gst_tensor_convert_memory_tag;

/* In tensorconvert.c: bytes-copied grows by bytes. */
void gst_tensor_convert_count_copy (GstTensorConvert *self, gsize bytes);
/* In tensorconvert.c: a new buffer of size bytes for a copy, from the pool
 * decide_allocation configured when it serves that size, else from the
 * tensor allocator; both give 64-byte aligned memory. */
GstBuffer *gst_tensor_convert_new_buffer (GstTensorConvert *self, gsize size);

/* Whether the byte at offset of buf lies at an address that is a multiple
 * of isz, as loads of items of isz bytes need. */
gboolean gst_tensor_convert_aligned_at (
    GstBuffer *buf, gsize offset, gsize isz);

/* The output buffer for inbuf in each mode but audio to tensors (which
 * regroups frames): inbuf itself or its memory where the layouts allow,
 * else one copy; GST_FLOW_ERROR after posting an element error. */
GstFlowReturn gst_tensor_convert_video_to_tensor (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf);
GstFlowReturn gst_tensor_convert_tensor_to_video (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf);
GstFlowReturn gst_tensor_convert_tensor_to_audio (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf);

G_END_DECLS

#endif
