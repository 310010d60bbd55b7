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
  MODE_NNS_TO_TENSOR,
  MODE_TENSOR_TO_NNS,
} Mode;

/* NNStreamer's media types, and NNS_TENSOR_MEMORY_MAX: the memories of
 * a buffer, one per tensor, the last holding the rest past it. */
#define GST_TENSOR_CONVERT_NNS_TENSOR "other/tensor"
#define GST_TENSOR_CONVERT_NNS_TENSORS "other/tensors"
#define GST_TENSOR_CONVERT_NNS_MEMORY_MAX 16

struct _GstTensorConvert {
  GstBaseTransform parent;

  /* properties, under the object lock */
  gboolean gray_channel_axis;
  gint frames;
  gint tensor_index;
  guint64 bytes_copied;

  /* streaming thread */
  Mode mode;
  GstVideoInfo vinfo;
  GstAudioInfo ainfo;
  GstTnInfo tinfo;
  gsize tbytes;       /* dense size of tinfo */
  tn_view tview;      /* dense view of tinfo */
  gint tensor_frames; /* frames per tensor in audio-to-tensor mode */
  guint nns_count;    /* NNStreamer's num_tensors, NNS modes */
  gint nns_index;     /* which of them is the tensor */
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
GstFlowReturn gst_tensor_convert_nns_to_tensor (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf);
GstFlowReturn gst_tensor_convert_tensor_to_nns (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf);

/* In tensorconvert-nns.c, NNStreamer's caps.  Whether s is other/tensor
 * or other/tensors. */
gboolean gst_tensor_convert_is_nns (const GstStructure *s);
/* Tensor index (-1: the only one) of fixed NNStreamer caps s as info,
 * count its num_tensors; FALSE with a GST_CORE_ERROR_NEGOTIATION error
 * that names what came and what would do. */
gboolean gst_tensor_convert_nns_info (const GstStructure *s, gint index,
    GstTnInfo *info, guint *count, GError **err);
/* Whether NNStreamer has caps for a tensor of info (its types, no extent
 * of 0); FALSE with an error that says so. */
gboolean gst_tensor_convert_nns_check (const GstTnInfo *info, GError **err);
/* tensor/x-raw for an NNStreamer structure fixed or not, taking tensor
 * index (-1: the only one): each spelling of its dims, its own first. */
GstCaps *gst_tensor_convert_caps_from_nns (const GstStructure *s, gint index);
/* NNStreamer caps for a tensor/x-raw structure fixed or not, upstream of
 * an element taking tensor index (-1: the only one), other/tensors
 * first, each spelling of the dims, its own first. */
GstCaps *gst_tensor_convert_caps_to_nns (const GstStructure *s, gint index);
/* In set_caps: whether the NNStreamer caps nns (on the sink pad when
 * nns_in) hold self->tinfo; sets nns_count and nns_index. */
/* In accept_caps: whether tensor-index picks a tensor of fixed
 * NNStreamer caps; if not, an element error (once for the same caps). */
gboolean gst_tensor_convert_nns_acceptable (
    GstTensorConvert *self, GstCaps *caps);
/* Whether downstream asks for NNStreamer caps of the tensor of fixed caps
 * by name (not ANY): a tensor that fits no media format becomes
 * other/tensors only then, so that before a sink of any caps it stays an
 * error.  When downstream asks for them and the tensor has none (bool,
 * an extent of 0), err says why. */
gboolean gst_tensor_convert_downstream_nns (
    GstTensorConvert *self, GstCaps *caps, GError **err);
gboolean gst_tensor_convert_nns_match (
    GstTensorConvert *self, GstCaps *nns, gboolean nns_in, GError **err);

G_END_DECLS

#endif
