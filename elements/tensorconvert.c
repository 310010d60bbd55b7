/* GStreamer tensor plugin: video and audio to tensors and back.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensorconvert
 * @title: tensorconvert
 * @see_also: tensorview, tensordebug
 *
 * Turns raw video and audio into tensors, and tensors back into raw video
 * and audio, without copying the bytes whenever the layouts allow it.
 *
 * Video: GRAY8, GRAY16_LE, RGB, BGR, RGBA, BGRA, RGBx, BGRx, xRGB, xBGR,
 * ARGB and ABGR frames become uint8 tensors (uint16 for GRAY16_LE) of dims
 * `<height, width, channels>`, where channels counts every byte of a pixel
 * (4 for RGBx), or `<height, width>` for the gray formats unless
 * #GstTensorConvert:gray-channel-axis is set.  A frame whose rows are
 * padded (a stride larger than width x pixel size, as RGB of width 321
 * has by default, or a #GstVideoMeta) is passed on with the layout meta
 * when downstream advertised it, and copied once otherwise.
 *
 * Audio: interleaved S8, U8, S16LE, S32LE, F32LE and F64LE become int8,
 * uint8, int16, int32, float32 and float64 tensors of dims `<frames,
 * channels>`, #GstTensorConvert:frames frames each, at a framerate of
 * rate / frames.  A tensor that lies inside one input buffer shares its
 * memory; one that spans buffers is copied once.  Frames left over at the
 * end of the stream are dropped with a warning.
 *
 * The way back: uint8 tensors `<h, w>` and `<h, w, 1>` become GRAY8,
 * `<h, w, 3>` RGB or BGR, `<h, w, 4>` any of the 4-byte formats; uint16
 * `<h, w>` becomes GRAY16_LE; `<frames, channels>` tensors of the audio
 * dtypes become audio at rate frames x framerate.  A strided tensor whose
 * rows are whole (pixels and channels dense) is passed on with a
 * #GstVideoMeta when downstream accepts that; otherwise it is copied once
 * into the default video layout.  A tensor that fits no media format fails
 * negotiation with a message that says what would fit.
 *
 * ## Defaults
 *
 * Where the caps on both sides leave the format open, tensorconvert picks:
 *
 * - video to tensors: RGB, so `videotestsrc ! tensorconvert` gives uint8
 *   `<240, 320, 3>`; then BGR, the 4-byte formats (RGBA first), GRAY8
 *   and GRAY16_LE, in this order, among what upstream can produce;
 * - audio to tensors: F32LE (float32, the dtype of tensor arithmetic),
 *   then S16LE, S32LE, F64LE, S8 and U8;
 * - tensors to video: RGB for `<h, w, 3>` and RGBA for `<h, w, 4>`
 *   whatever order downstream lists its formats in, since a tensor does
 *   not say its channel order and these are the ones tensorconvert itself
 *   makes from video by default.  A capsfilter (or a downstream element
 *   that takes only BGR, as avimux) chooses otherwise.
 *
 * Caps asked for downstream are followed: `type=uint8,dims=<h, w, 3>`
 * gives RGB, `type=int16` S16LE, `dims=<h, w>` GRAY8.
 *
 * ## Copies
 *
 * #GstTensorConvert:bytes-copied counts every byte copied.  A writable
 * input buffer is passed on itself (its range cut, its video or layout
 * metas dropped) unless a pool locked such a meta on it, and so is a
 * shared one that holds exactly the output's bytes and no metas; any other
 * shared one gets a new buffer over the same memory.  Every buffer passed
 * on by reference starts at an address aligned for its items: a tensor
 * that would not (audio buffers that are not a whole number of frames, a
 * frame of 2-byte pixels at an odd address or pitch) is copied once into
 * aligned memory instead.
 *
 * A view (padded rows with the layout meta) is emitted only when the
 * ALLOCATION query downstream had the meta; a sink that does not answer
 * it (filesink, appsink, fakesink) gets the dense array.  Upstream,
 * tensorconvert advertises only the meta it reads itself: the
 * #GstVideoMeta of video input, the layout meta of tensor input.
 *
 * ## Example launch lines
 *
 * A test frame (RGB by default) as a tensor, printed, and back into a PNG
 * picture:
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 ! tensorconvert ! tensordebug \
 *     ! tensorconvert ! pngenc ! filesink location=f.png
 * ]|
 * The negative of a picture by tensor arithmetic:
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 \
 *     ! video/x-raw,width=64,height=48 ! tensorconvert \
 *     ! tensorop ops=cast:int16,sub:255,abs,cast:uint8 ! tensorconvert \
 *     ! pngenc ! filesink location=negative.png
 * ]|
 * Stereo audio (F32LE by default) as tensors of 1024 frames, printed:
 * |[
 * gst-launch-1.0 audiotestsrc num-buffers=4 ! audio/x-raw,channels=2 \
 *     ! tensorconvert frames=1024 ! tensordebug ! fakesink
 * ]|
 * Audio at half the volume, through tensors and back, into a WAV file:
 * |[
 * gst-launch-1.0 audiotestsrc num-buffers=4 ! tensorconvert \
 *     ! tensorop ops=mul:0.5 ! tensorconvert ! wavenc \
 *     ! filesink location=half.wav
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/audio/audio.h>
#include <gst/base/gstadapter.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/tensor/gsttensor.h>

#include "elements.h"
#include "tnalloc.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_convert_debug);
#define GST_CAT_DEFAULT gst_tensor_convert_debug

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

typedef struct {
  GstVideoFormat format;
  tn_dtype dtype;
  gint channels;
} VideoFormat;

/* In the order of preference: where both sides of a negotiation leave the
 * format open, caps list the formats in this order and fixation takes the
 * first one that fits.  RGB first because it is what a user (and NumPy,
 * PIL, torchvision) expects of an image tensor; then the 4-byte formats,
 * RGBA first; gray last, since it throws the colours away. */
static const VideoFormat video_formats[] = {
  { GST_VIDEO_FORMAT_RGB, TN_UINT8, 3 },
  { GST_VIDEO_FORMAT_BGR, TN_UINT8, 3 },
  { GST_VIDEO_FORMAT_RGBA, TN_UINT8, 4 },
  { GST_VIDEO_FORMAT_BGRA, TN_UINT8, 4 },
  { GST_VIDEO_FORMAT_ARGB, TN_UINT8, 4 },
  { GST_VIDEO_FORMAT_ABGR, TN_UINT8, 4 },
  { GST_VIDEO_FORMAT_RGBx, TN_UINT8, 4 },
  { GST_VIDEO_FORMAT_BGRx, TN_UINT8, 4 },
  { GST_VIDEO_FORMAT_xRGB, TN_UINT8, 4 },
  { GST_VIDEO_FORMAT_xBGR, TN_UINT8, 4 },
  { GST_VIDEO_FORMAT_GRAY8, TN_UINT8, 1 },
  { GST_VIDEO_FORMAT_GRAY16_LE, TN_UINT16, 1 },
};

typedef struct {
  GstAudioFormat format;
  tn_dtype dtype;
} AudioFormat;

/* In the order of preference, as video_formats: float32 is the dtype tensor
 * arithmetic works in; S16LE the native format of most devices and files,
 * so the next best when upstream cannot give float; then by width. */
static const AudioFormat audio_formats[] = {
  { GST_AUDIO_FORMAT_F32LE, TN_FLOAT32 },
  { GST_AUDIO_FORMAT_S16LE, TN_INT16 },
  { GST_AUDIO_FORMAT_S32LE, TN_INT32 },
  { GST_AUDIO_FORMAT_F64LE, TN_FLOAT64 },
  { GST_AUDIO_FORMAT_S8, TN_INT8 },
  { GST_AUDIO_FORMAT_U8, TN_UINT8 },
};

/* The templates list the formats in the tables' order of preference. */
#define VIDEO_FORMATS                                                          \
  "{ RGB, BGR, RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, GRAY8, "        \
  "GRAY16_LE }"
#define AUDIO_FORMATS "{ F32LE, S16LE, S32LE, F64LE, S8, U8 }"
#define TENSOR_TYPES "{ uint8, float32, int16, int32, float64, int8, uint16 }"

#define ALL_CAPS                                                               \
  "video/x-raw, format=(string)" VIDEO_FORMATS ", width=(int)[ 1, MAX ], "     \
  "height=(int)[ 1, MAX ], framerate=(fraction)[ 0/1, MAX ]; "                 \
  "audio/x-raw, format=(string)" AUDIO_FORMATS ", "                            \
  "layout=(string)interleaved, rate=(int)[ 1, MAX ], "                         \
  "channels=(int)[ 1, MAX ]; " GST_TN_MEDIA_TYPE                               \
  ", type=(string)" TENSOR_TYPES ", dims-order=(string)row-major, "            \
  "framerate=(fraction)[ 0/1, MAX ]"

#define WHAT_FITS                                                              \
  "video needs uint8 <h, w>, <h, w, 1>, <h, w, 3> or <h, w, 4>, or "           \
  "uint16 <h, w> or <h, w, 1> (every extent 1 or more); audio needs "          \
  "int8, uint8, int16, int32, float32 or float64 <frames, channels> at "       \
  "a framerate that makes frames x framerate a whole number of Hz"

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
  gboolean caps_error_posted;
};

enum {
  PROP_0,
  PROP_GRAY_CHANNEL_AXIS,
  PROP_FRAMES,
  PROP_BYTES_COPIED,
};

#define DEFAULT_GRAY_CHANNEL_AXIS FALSE
#define DEFAULT_FRAMES 1024

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (ALL_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (ALL_CAPS));

G_DEFINE_TYPE (GstTensorConvert, gst_tensor_convert, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (
    tensorconvert, "tensorconvert", GST_RANK_NONE, GST_TYPE_TENSOR_CONVERT);

/* Per buffer, the parent's vfuncs without the checked class cast, and the
 * tags of the metas dropped without a quark lookup. */
static GstFlowReturn (*parent_submit_input_buffer) (
    GstBaseTransform *, gboolean, GstBuffer *);
static GstFlowReturn (*parent_generate_output) (
    GstBaseTransform *, GstBuffer **);
static GQuark video_tag, tensor_tag, memory_tag;

static const VideoFormat *
video_format_lookup (GstVideoFormat f)
{
  for (guint i = 0; i < G_N_ELEMENTS (video_formats); i++)
    if (video_formats[i].format == f)
      return &video_formats[i];
  return NULL;
}

static const AudioFormat *
audio_format_lookup (GstAudioFormat f)
{
  for (guint i = 0; i < G_N_ELEMENTS (audio_formats); i++)
    if (audio_formats[i].format == f)
      return &audio_formats[i];
  return NULL;
}

static void
gst_tensor_convert_count_copy (GstTensorConvert *self, gsize bytes)
{
  GST_OBJECT_LOCK (self);
  self->bytes_copied += bytes;
  GST_OBJECT_UNLOCK (self);
}

/* The strings of a string or list-of-strings field, or NULL when absent. */
static GPtrArray *
string_values (const GstStructure *s, const gchar *field)
{
  const GValue *v = gst_structure_get_value (s, field);
  GPtrArray *out;

  if (v == NULL)
    return NULL;
  out = g_ptr_array_new ();
  if (G_VALUE_HOLDS_STRING (v)) {
    g_ptr_array_add (out, (gpointer) g_value_get_string (v));
  } else if (GST_VALUE_HOLDS_LIST (v)) {
    for (guint i = 0; i < gst_value_list_get_size (v); i++) {
      const GValue *e = gst_value_list_get_value (v, i);

      if (G_VALUE_HOLDS_STRING (e))
        g_ptr_array_add (out, (gpointer) g_value_get_string (e));
    }
  }
  return out;
}

static gboolean
fixed_int (const GstStructure *s, const gchar *field, gint *out)
{
  const GValue *v = gst_structure_get_value (s, field);

  if (v == NULL || !G_VALUE_HOLDS_INT (v))
    return FALSE;
  *out = g_value_get_int (v);
  return TRUE;
}

static void
copy_framerate (GstStructure *to, const GstStructure *from)
{
  const GValue *fr = gst_structure_get_value (from, "framerate");

  if (fr != NULL)
    gst_structure_set_value (to, "framerate", fr);
  else
    gst_structure_set (
        to, "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT, 1, NULL);
}

/* Tensor structures for video structure s. */
static void
video_to_tensor_caps (GstTensorConvert *self, const GstStructure *s,
    GstCaps *out, gboolean gray_axis)
{
  GPtrArray *formats = string_values (s, "format");
  gint w, h;
  gboolean sized = fixed_int (s, "width", &w) && fixed_int (s, "height", &h);

  for (guint i = 0; i < G_N_ELEMENTS (video_formats); i++) {
    const VideoFormat *vf = &video_formats[i];
    const gchar *name = gst_video_format_to_string (vf->format);
    GstStructure *t;
    gboolean found = formats == NULL;

    for (guint k = 0; formats && k < formats->len; k++)
      found |= g_strcmp0 (g_ptr_array_index (formats, k), name) == 0;
    if (!found)
      continue;
    t = gst_structure_new (GST_TN_MEDIA_TYPE, "type", G_TYPE_STRING,
        tn_dtype_name (vf->dtype), "dims-order", G_TYPE_STRING, "row-major",
        NULL);
    if (sized) {
      gint64 dims[3] = { h, w, vf->channels };

      gst_tn_structure_set_dims (
          t, dims, vf->channels == 1 && !gray_axis ? 2 : 3);
    }
    copy_framerate (t, s);
    gst_caps_append_structure (out, t);
  }
  if (formats)
    g_ptr_array_free (formats, TRUE);
}

static void
audio_to_tensor_caps (
    GstTensorConvert *self, const GstStructure *s, GstCaps *out, gint frames)
{
  GPtrArray *formats = string_values (s, "format");
  gint channels, rate;

  for (guint i = 0; i < G_N_ELEMENTS (audio_formats); i++) {
    const AudioFormat *af = &audio_formats[i];
    const gchar *name = gst_audio_format_to_string (af->format);
    GstStructure *t;
    gboolean found = formats == NULL;

    for (guint k = 0; formats && k < formats->len; k++)
      found |= g_strcmp0 (g_ptr_array_index (formats, k), name) == 0;
    if (!found)
      continue;
    t = gst_structure_new (GST_TN_MEDIA_TYPE, "type", G_TYPE_STRING,
        tn_dtype_name (af->dtype), "dims-order", G_TYPE_STRING, "row-major",
        NULL);
    /* Frames known only in this direction: the property sets them. */
    if (frames > 0 && fixed_int (s, "channels", &channels)) {
      gint64 dims[2] = { frames, channels };

      gst_tn_structure_set_dims (t, dims, 2);
    }
    if (frames > 0 && fixed_int (s, "rate", &rate)) {
      gint64 g = 0, a = rate, b = frames;

      while (b != 0) {
        g = a % b;
        a = b;
        b = g;
      }
      gst_structure_set (t, "framerate", GST_TYPE_FRACTION, (gint) (rate / a),
          (gint) (frames / a), NULL);
    } else {
      gst_structure_set (
          t, "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT, 1, NULL);
    }
    gst_caps_append_structure (out, t);
  }
  if (formats)
    g_ptr_array_free (formats, TRUE);
}

/* The video structure of format vf for a tensor of (when rank >= 0) dims,
 * if the tensor fits it. */
static void
tensor_to_video_caps (const VideoFormat *vf, const gint64 *dims, gint rank,
    const GstStructure *s, GstCaps *out)
{
  gint channels = 0;
  GstStructure *v;

  if (rank >= 0) {
    if (rank == 2)
      channels = 1;
    else if (rank == 3)
      channels = (gint) dims[2];
    else
      return;
    if (dims[0] < 1 || dims[1] < 1 || dims[0] > G_MAXINT || dims[1] > G_MAXINT)
      return;
  }
  if (channels > 0 && vf->channels != channels)
    return;
  v = gst_structure_new ("video/x-raw", "format", G_TYPE_STRING,
      gst_video_format_to_string (vf->format), NULL);
  if (rank >= 0)
    gst_structure_set (v, "width", G_TYPE_INT, (gint) dims[1], "height",
        G_TYPE_INT, (gint) dims[0], NULL);
  else
    gst_structure_set (v, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT, "height",
        GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
  copy_framerate (v, s);
  gst_caps_append_structure (out, v);
}

/* The audio structure of format af for a tensor, if it fits; frames > 0
 * requires dims[0] == frames (audio-to-tensor mode, where the property
 * sets the frames). */
static void
tensor_to_audio_caps (const AudioFormat *af, const gint64 *dims, gint rank,
    const GstStructure *s, GstCaps *out, gint frames)
{
  GstStructure *a;
  gint fps_n, fps_d;

  if (rank >= 0
      && (rank != 2 || dims[0] < 1 || dims[1] < 1 || dims[1] > G_MAXINT
          || (frames > 0 && dims[0] != frames)))
    return;

  a = gst_structure_new ("audio/x-raw", "format", G_TYPE_STRING,
      gst_audio_format_to_string (af->format), "layout", G_TYPE_STRING,
      "interleaved", NULL);
  if (rank >= 0) {
    gint ch = (gint) dims[1];

    gst_structure_set (a, "channels", G_TYPE_INT, ch, NULL);
    if (ch > 2)
      gst_structure_set (a, "channel-mask", GST_TYPE_BITMASK,
          ch <= 8 ? gst_audio_channel_get_fallback_mask (ch) : (guint64) 0,
          NULL);
  } else {
    gst_structure_set (a, "channels", GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
  }
  if (rank >= 0 && gst_structure_get_fraction (s, "framerate", &fps_n, &fps_d)
      && fps_d > 0) {
    guint64 num = (guint64) dims[0] * (guint64) fps_n;

    if (fps_n == 0 || num % (guint64) fps_d != 0 || num / fps_d > G_MAXINT) {
      gst_structure_free (a);
      return;
    }
    gst_structure_set (a, "rate", G_TYPE_INT, (gint) (num / fps_d), NULL);
  } else {
    gst_structure_set (a, "rate", GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
  }
  gst_caps_append_structure (out, a);
}

static gboolean
has_type (GPtrArray *types, tn_dtype t)
{
  for (guint k = 0; types && k < types->len; k++)
    if (g_strcmp0 (g_ptr_array_index (types, k), tn_dtype_name (t)) == 0)
      return TRUE;
  return types == NULL;
}

/* Media structures for tensor structure s: every video format in the
 * order of preference, then every audio format, whatever order the dtypes
 * are listed in (which, for the template, would put int8 audio first). */
static void
tensor_caps (const GstStructure *s, GstCaps *out, gint frames)
{
  GPtrArray *types = string_values (s, "type");
  gint64 dims[TN_MAX_RANK];
  gint rank = -1;

  if (!gst_tn_structure_get_dims (s, dims, &rank, NULL))
    rank = -1;
  for (guint i = 0; i < G_N_ELEMENTS (video_formats); i++)
    if (has_type (types, video_formats[i].dtype))
      tensor_to_video_caps (&video_formats[i], dims, rank, s, out);
  for (guint i = 0; i < G_N_ELEMENTS (audio_formats); i++)
    if (has_type (types, audio_formats[i].dtype))
      tensor_to_audio_caps (&audio_formats[i], dims, rank, s, out, frames);
  if (types)
    g_ptr_array_free (types, TRUE);
}

static GstCaps *
gst_tensor_convert_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstTensorConvert *self = GST_TENSOR_CONVERT (trans);
  GstCaps *out = gst_caps_new_empty ();
  gboolean gray_axis;
  gint frames;

  GST_OBJECT_LOCK (self);
  gray_axis = self->gray_channel_axis;
  frames = self->frames;
  GST_OBJECT_UNLOCK (self);

  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    GstCaps *part = gst_caps_new_empty ();

    if (gst_structure_has_name (s, "video/x-raw"))
      video_to_tensor_caps (self, s, part, gray_axis);
    else if (gst_structure_has_name (s, "audio/x-raw"))
      /* Audio caps on the source pad leave the frames open. */
      audio_to_tensor_caps (
          self, s, part, direction == GST_PAD_SINK ? frames : 0);
    else if (gst_structure_has_name (s, GST_TN_MEDIA_TYPE)) {
      tensor_caps (s, part, direction == GST_PAD_SRC ? frames : 0);
      /* A tensor that fits nothing still links; accept_caps then refuses
       * it with the reason, which an empty result could not give. */
      if (gst_caps_is_empty (part) && direction == GST_PAD_SINK) {
        GstCaps *any = gst_static_pad_template_get_caps (&src_template);

        for (guint k = 0; k < gst_caps_get_size (any); k++)
          if (!gst_structure_has_name (
                  gst_caps_get_structure (any, k), GST_TN_MEDIA_TYPE))
            gst_caps_append_structure (
                part, gst_structure_copy (gst_caps_get_structure (any, k)));
        gst_caps_unref (any);
      }
    }
    out = gst_caps_merge (out, part);
  }
  if (filter) {
    GstCaps *t
        = gst_caps_intersect_full (filter, out, GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (out);
    out = t;
  }
  GST_LOG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, out);
  return out;
}

/* Whether the format field of st allows format name. */
static gboolean
allows_format (const GstStructure *st, const gchar *name)
{
  GPtrArray *formats = string_values (st, "format");
  gboolean found = formats == NULL;

  for (guint k = 0; formats && k < formats->len; k++)
    found |= g_strcmp0 (g_ptr_array_index (formats, k), name) == 0;
  if (formats)
    g_ptr_array_free (formats, TRUE);
  return found;
}

/* Tensors to media: the first format in the tables' order of preference
 * that downstream takes, whatever order downstream lists them in
 * (smptealpha lists ARGB before RGBA).  A tensor does not say its channel
 * order, and RGB and RGBA are what tensorconvert makes of video by
 * default, so video -> tensor -> video keeps the colours. */
static GstCaps *
gst_tensor_convert_fixate_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *othercaps)
{
  const guint nv = G_N_ELEMENTS (video_formats);
  GstCaps *pick = NULL;

  for (guint i = 0; pick == NULL && i < nv + G_N_ELEMENTS (audio_formats);
       i++) {
    const gchar *media = i < nv ? "video/x-raw" : "audio/x-raw";
    const gchar *name
        = i < nv ? gst_video_format_to_string (video_formats[i].format)
                 : gst_audio_format_to_string (audio_formats[i - nv].format);

    for (guint k = 0; k < gst_caps_get_size (othercaps); k++) {
      GstStructure *st = gst_caps_get_structure (othercaps, k);

      if (!gst_structure_has_name (st, media) || !allows_format (st, name))
        continue;
      st = gst_structure_copy (st);
      gst_structure_set (st, "format", G_TYPE_STRING, name, NULL);
      pick = gst_caps_new_full (st, NULL);
      break;
    }
  }
  if (pick != NULL) {
    GST_DEBUG_OBJECT (trans, "preferring %" GST_PTR_FORMAT, pick);
    gst_caps_unref (othercaps);
    othercaps = pick;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_tensor_convert_parent_class)
      ->fixate_caps (trans, direction, caps, othercaps);
}

/* A tensor that fits nothing downstream takes still reaches accept_caps,
 * which says why. */
static gboolean
gst_tensor_convert_query (
    GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  gst_tn_transform_explain_query (trans, direction, query);
  return gst_tn_transform_query_any_tensor (
      GST_BASE_TRANSFORM_CLASS (gst_tensor_convert_parent_class), trans,
      direction, query);
}

/* A fixed tensor that fits no media format is refused in words, once per
 * stream: accept-caps is asked more than once for the same caps. */
static gboolean
gst_tensor_convert_accept_caps (
    GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps)
{
  GstTensorConvert *self = GST_TENSOR_CONVERT (trans);
  GstTnInfo info;
  GstCaps *media;
  GError *err = NULL;
  gchar *desc;
  gboolean ok;

  if (direction != GST_PAD_SINK || !gst_caps_is_fixed (caps)
      || !gst_structure_has_name (
          gst_caps_get_structure (caps, 0), GST_TN_MEDIA_TYPE))
    return GST_BASE_TRANSFORM_CLASS (gst_tensor_convert_parent_class)
        ->accept_caps (trans, direction, caps);

  if (!gst_tn_info_from_caps (&info, caps, &err)) {
    /* Refused here, the CAPS event never reaches us: say why now. */
    if (!self->caps_error_posted) {
      gchar *str = gst_caps_to_string (caps);

      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("%s: refused the caps %s: %s", GST_OBJECT_NAME (self), str,
              err->message),
          (NULL));
      g_free (str);
    }
    self->caps_error_posted = TRUE;
    g_error_free (err);
    return FALSE;
  }
  media = gst_caps_new_empty ();
  tensor_caps (gst_caps_get_structure (caps, 0), media, 0);
  desc = gst_tn_info_to_string (&info);
  if (gst_caps_is_empty (media)) {
    if (!self->caps_error_posted)
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("A tensor %s at framerate %d/%d fits no media format: " WHAT_FITS
           ".",
              desc, info.fps_n, info.fps_d),
          ("caps %" GST_PTR_FORMAT, caps));
    self->caps_error_posted = TRUE;
    ok = FALSE;
  } else {
    ok = GST_BASE_TRANSFORM_CLASS (gst_tensor_convert_parent_class)
             ->accept_caps (trans, direction, caps);
    if (!ok && !self->caps_error_posted) {
      gchar *m = gst_caps_to_string (media);

      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("A tensor %s converts to %s, which downstream does not accept.",
              desc, m),
          ("caps %" GST_PTR_FORMAT, caps));
      g_free (m);
      self->caps_error_posted = TRUE;
    }
  }
  g_free (desc);
  gst_caps_unref (media);
  return ok;
}

static gboolean
gst_tensor_convert_set_caps (
    GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstTensorConvert *self = GST_TENSOR_CONVERT (trans);
  const gchar *in = gst_structure_get_name (gst_caps_get_structure (incaps, 0));
  const gchar *out
      = gst_structure_get_name (gst_caps_get_structure (outcaps, 0));
  GstCaps *media = g_str_equal (in, GST_TN_MEDIA_TYPE) ? outcaps : incaps;
  GstCaps *tensor = media == incaps ? outcaps : incaps;
  GError *err = NULL;
  gboolean ok = TRUE;

  gst_adapter_clear (self->adapter);
  self->mode = MODE_NONE;
  if (!gst_tn_info_from_caps (&self->tinfo, tensor, &err)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot read the tensor caps: %s", err->message), (NULL));
    g_clear_error (&err);
    return FALSE;
  }
  /* A tensor too large for memory: buffers take the mapping path, which
   * says so in words. */
  if (!gst_tn_info_size (&self->tinfo, &self->tbytes)
      || tn_view_init (&self->tview, self->tinfo.dtype, self->tinfo.dims,
             self->tinfo.rank, NULL)
             != 0)
    self->tbytes = G_MAXSIZE;
  if (g_str_equal (in, "video/x-raw") || g_str_equal (out, "video/x-raw")) {
    const VideoFormat *vf;

    ok = gst_video_info_from_caps (&self->vinfo, media);
    vf = ok ? video_format_lookup (GST_VIDEO_INFO_FORMAT (&self->vinfo)) : NULL;
    ok = vf != NULL && vf->dtype == self->tinfo.dtype
         && self->tinfo.dims[0] == GST_VIDEO_INFO_HEIGHT (&self->vinfo)
         && self->tinfo.dims[1] == GST_VIDEO_INFO_WIDTH (&self->vinfo)
         && (self->tinfo.rank == 2
                 ? vf->channels == 1
                 : self->tinfo.rank == 3
                       && self->tinfo.dims[2] == vf->channels);
    self->mode = media == incaps ? MODE_VIDEO_TO_TENSOR : MODE_TENSOR_TO_VIDEO;
  } else {
    const AudioFormat *af;

    ok = gst_audio_info_from_caps (&self->ainfo, media);
    af = ok ? audio_format_lookup (GST_AUDIO_INFO_FORMAT (&self->ainfo)) : NULL;
    ok = af != NULL && af->dtype == self->tinfo.dtype && self->tinfo.rank == 2
         && self->tinfo.dims[1] == GST_AUDIO_INFO_CHANNELS (&self->ainfo);
    self->mode = media == incaps ? MODE_AUDIO_TO_TENSOR : MODE_TENSOR_TO_AUDIO;
    self->tensor_frames = (gint) self->tinfo.dims[0];
  }
  if (!ok) {
    gchar *a = gst_caps_to_string (incaps), *b = gst_caps_to_string (outcaps);

    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Caps %s and %s do not describe the same frames.", a, b), (NULL));
    g_free (a);
    g_free (b);
    self->mode = MODE_NONE;
    return FALSE;
  }
  self->have_base = FALSE;
  self->frames_out = 0;
  GST_DEBUG_OBJECT (self, "mode %d: %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      self->mode, incaps, outcaps);
  return TRUE;
}

/* Upstream is told of the metas tensorconvert acts on itself: the
 * GstVideoMeta of video input, the layout meta of tensor input, each
 * turned into the output's own layout (or one copy) whatever downstream
 * reads.  Of downstream's metas, only those that outlive the conversion
 * unchanged: not a video or layout meta (tensor input has no video
 * layout, video input no tensor one), nor any other video- or
 * memory-tagged one (a GstVideoCropMeta would have upstream leave the
 * crop to tensorconvert, which drops it: the tensor would hold the whole
 * frame).  GstBaseTransform would forward all of downstream's. */
static gboolean
gst_tensor_convert_propose_allocation (
    GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
  GstTensorConvert *self = GST_TENSOR_CONVERT (trans);
  GType api = 0;

  for (guint i = 0;
       decide_query && i < gst_query_get_n_allocation_metas (decide_query);
       i++) {
    const GstStructure *params;
    GType t = gst_query_parse_nth_allocation_meta (decide_query, i, &params);

    if (!gst_meta_api_type_has_tag (t, video_tag)
        && !gst_meta_api_type_has_tag (t, tensor_tag)
        && !gst_meta_api_type_has_tag (t, memory_tag))
      gst_query_add_allocation_meta (query, t, params);
  }
  if (self->mode == MODE_VIDEO_TO_TENSOR)
    api = GST_VIDEO_META_API_TYPE;
  else if (self->mode == MODE_TENSOR_TO_VIDEO
           || self->mode == MODE_TENSOR_TO_AUDIO)
    api = GST_TN_LAYOUT_META_API_TYPE;
  if (api != 0 && !gst_query_find_allocation_meta (query, api, NULL))
    gst_query_add_allocation_meta (query, api, NULL);
  return TRUE;
}

static gboolean
gst_tensor_convert_decide_allocation (GstBaseTransform *trans, GstQuery *query)
{
  GstTensorConvert *self = GST_TENSOR_CONVERT (trans);
  GstCaps *caps;
  gsize size = 0;

  self->downstream_layout_meta = gst_query_find_allocation_meta (
      query, GST_TN_LAYOUT_META_API_TYPE, NULL);
  self->downstream_video_meta
      = gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  GST_DEBUG_OBJECT (self, "downstream reads the layout meta %d, video meta %d",
      self->downstream_layout_meta, self->downstream_video_meta);

  /* The pool serves only the copies of padded or strided frames. */
  if (self->mode == MODE_VIDEO_TO_TENSOR)
    gst_tn_info_size (&self->tinfo, &size);
  else if (self->mode == MODE_TENSOR_TO_VIDEO)
    size = GST_VIDEO_INFO_SIZE (&self->vinfo);
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps != NULL && size > 0 && size <= G_MAXUINT
      && !gst_tn_decide_allocation (query, caps, size))
    GST_WARNING_OBJECT (self, "no pool for %" G_GSIZE_FORMAT " bytes", size);
  return TRUE;
}

static GstFlowReturn
gst_tensor_convert_error (GstTensorConvert *self, gchar *msg)
{
  GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", msg), (NULL));
  g_free (msg);
  return GST_FLOW_ERROR;
}

/* Memory, flags and timestamps of buf from byte offset on, no metas: the
 * input's metas describe media the output no longer is. */
static GstBuffer *
share (GstBuffer *buf, gsize offset, gsize size)
{
  GstBuffer *out;

  /* The whole buffer: one copy_into takes the timestamps too (a region
   * would only get those of its first byte). */
  if (offset == 0 && size == gst_buffer_get_size (buf)) {
    out = gst_buffer_new ();
    if (!gst_buffer_copy_into (out, buf,
            GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS
                | GST_BUFFER_COPY_MEMORY,
            0, size))
      gst_clear_buffer (&out);
    return out;
  }
  out = gst_buffer_copy_region (
      buf, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_MEMORY, offset, size);
  if (out != NULL)
    gst_buffer_copy_into (out, buf, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  return out;
}

static gboolean
tagged (GstMeta *meta, GQuark tag)
{
  return gst_meta_api_type_has_tag (meta->info->api, tag);
}

static gboolean
drop_tagged (GstBuffer *buf, GstMeta **meta, gpointer tag)
{
  if (tagged (*meta, GPOINTER_TO_UINT (tag)))
    *meta = NULL;
  return TRUE;
}

/* A pool's own metas (a GstVideoMeta of videotestsrc's pool) are locked:
 * such a buffer cannot be passed on without them. */
static gboolean
has_locked_tagged (GstBuffer *buf, GQuark tag)
{
  gpointer state = NULL;
  GstMeta *m;

  while ((m = gst_buffer_iterate_meta (buf, &state)) != NULL)
    if (GST_META_FLAG_IS_SET (m, GST_META_FLAG_LOCKED) && tagged (m, tag))
      return TRUE;
  return FALSE;
}

/* The output holding bytes [offset, offset + size) of buf.  When buf is
 * the input and writable it is passed on itself, cut to the range, without
 * its metas tagged drop_tag: nothing is allocated, and an upstream pool
 * gets its buffer back whole (a shared sub-memory would make the pool
 * discard it).  So is a shared input that holds just these bytes and no
 * metas, unless the caller adds a meta (as_is FALSE): a new buffer would
 * be the same, as GstBaseTransform's passthrough knows.  Otherwise a new
 * buffer shares buf's memory. */
static GstBuffer *
pass_on (GstBuffer *inbuf, GstBuffer *buf, gsize offset, gsize size,
    GQuark drop_tag, gboolean as_is)
{
  gpointer state = NULL;

  if (buf != inbuf)
    return share (buf, offset, size);
  if (as_is && offset == 0 && size == gst_buffer_get_size (inbuf)
      && gst_buffer_iterate_meta (inbuf, &state) == NULL)
    return inbuf;
  if (!gst_buffer_is_writable (inbuf) || has_locked_tagged (inbuf, drop_tag))
    return share (buf, offset, size);
  if (offset != 0 || size != gst_buffer_get_size (inbuf))
    gst_buffer_resize (inbuf, offset, size);
  gst_buffer_foreach_meta (inbuf, drop_tagged, GUINT_TO_POINTER (drop_tag));
  return inbuf;
}

/* Whether the byte at offset of buf lies at an address that is a multiple
 * of isz, as loads of items of isz bytes need (C requires it, UBSan
 * checks it, and kernels may use aligned vector loads).  Memory made by
 * others can start anywhere, and a tensor cut from inside a buffer starts
 * wherever the cut falls; finding out costs a map of one memory, which
 * items of one byte never need. */
static gboolean
aligned_at (GstBuffer *buf, gsize offset, gsize isz)
{
  GstMemory *mem;
  GstMapInfo map;
  guint idx, len;
  gsize skip;
  gboolean ok;

  if (isz <= 1)
    return TRUE;
  /* Nothing at offset: an empty tensor, which no item is loaded from. */
  if (!gst_buffer_find_memory (buf, offset, 1, &idx, &len, &skip))
    return TRUE;
  mem = gst_buffer_peek_memory (buf, idx);
  if (!gst_memory_map (mem, &map, GST_MAP_READ))
    return FALSE;
  ok = (guintptr) (map.data + skip) % isz == 0;
  gst_memory_unmap (mem, &map);
  return ok;
}

/* A new buffer of size bytes for a copy: from the pool decide_allocation
 * configured when it serves that size, else from the tensor allocator;
 * both give 64-byte aligned memory. */
static GstBuffer *
gst_tensor_convert_new_buffer (GstTensorConvert *self, gsize size)
{
  GstBufferPool *pool = gst_tn_pool_activate (GST_OBJECT (self),
      gst_base_transform_get_buffer_pool (GST_BASE_TRANSFORM (self)));
  GstBuffer *out = NULL;

  if (pool) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    guint psize = 0;

    gst_buffer_pool_config_get_params (config, NULL, &psize, NULL, NULL);
    gst_structure_free (config);
    if (psize == size
        && gst_buffer_pool_acquire_buffer (pool, &out, NULL) != GST_FLOW_OK)
      out = NULL;
    gst_object_unref (pool);
  }
  if (out == NULL) {
    GstAllocator *alloc = gst_tn_allocator_get ();

    out = gst_buffer_new_allocate (alloc, size, NULL);
    gst_object_unref (alloc);
  }
  return out;
}

/* One dense copy of h rows of row bytes, stride bytes apart from byte
 * offset of inbuf: memcpy, so any address and pitch will do. */
static GstBuffer *
gst_tensor_convert_copy_rows (GstTensorConvert *self, GstBuffer *inbuf,
    gsize offset, gsize stride, gsize row, gint h)
{
  GstBuffer *out = gst_tensor_convert_new_buffer (self, row * h);
  GstMapInfo sm, dm;

  if (out == NULL)
    return NULL;
  if (!gst_buffer_map (inbuf, &sm, GST_MAP_READ)) {
    gst_buffer_unref (out);
    return NULL;
  }
  gst_buffer_map (out, &dm, GST_MAP_WRITE);
  if (stride == row)
    memcpy (dm.data, sm.data + offset, row * h);
  else
    for (gint y = 0; y < h; y++)
      memcpy (dm.data + y * row, sm.data + offset + y * stride, row);
  gst_buffer_unmap (out, &dm);
  gst_buffer_unmap (inbuf, &sm);
  gst_buffer_copy_into (
      out, inbuf, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  gst_tensor_convert_count_copy (self, row * h);
  return out;
}

/* One dense copy of view v of inbuf into tensor memory.  The core copy
 * loads whole items, so from a misaligned address it reads v as bytes
 * instead: the same view with one more axis, of the item's bytes. */
static GstBuffer *
gst_tensor_convert_copy_view (GstTensorConvert *self, GstBuffer *inbuf,
    const tn_view *v, gboolean aligned)
{
  gsize isz = tn_dtype_size (v->dtype), nbytes = self->tbytes;
  GstBuffer *out;
  GstMapInfo sm, dm;
  tn_view b = *v;

  if (!aligned && isz > 1) {
    /* Media tensors have rank 2 or 3: there is room for the axis. */
    g_assert (v->rank < TN_MAX_RANK);
    b.dtype = TN_UINT8;
    b.rank = v->rank + 1;
    for (gint i = 0; i < v->rank; i++)
      b.strides[i] = v->strides[i] * (gint64) isz;
    b.dims[v->rank] = (gint64) isz;
    b.strides[v->rank] = 1;
    b.offset = v->offset * (gint64) isz;
  }
  out = gst_tensor_convert_new_buffer (self, nbytes);
  if (out == NULL)
    return NULL;
  if (!gst_buffer_map (inbuf, &sm, GST_MAP_READ)) {
    gst_buffer_unref (out);
    return NULL;
  }
  gst_buffer_map (out, &dm, GST_MAP_WRITE);
  tn_view_materialize (dm.data, sm.data, &b);
  gst_buffer_unmap (out, &dm);
  gst_buffer_unmap (inbuf, &sm);
  gst_buffer_copy_into (
      out, inbuf, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  gst_tensor_convert_count_copy (self, nbytes);
  return out;
}

static GstFlowReturn
gst_tensor_convert_video_to_tensor (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf)
{
  GstVideoInfo *vi = &self->vinfo;
  GstVideoMeta *vm = gst_buffer_get_video_meta (inbuf);
  gsize isz = tn_dtype_size (self->tinfo.dtype), nbytes, offset, need;
  gsize size = gst_buffer_get_size (inbuf);
  gint w = GST_VIDEO_INFO_WIDTH (vi), h = GST_VIDEO_INFO_HEIGHT (vi);
  gint pstride = GST_VIDEO_INFO_COMP_PSTRIDE (vi, 0), stride;
  gint64 strides[3];
  gboolean whole_items;
  GstBuffer *tmp;

  offset = vm ? vm->offset[0] : GST_VIDEO_INFO_PLANE_OFFSET (vi, 0);
  stride = vm ? vm->stride[0] : GST_VIDEO_INFO_PLANE_STRIDE (vi, 0);
  nbytes = self->tbytes;
  if (stride < w * pstride)
    return gst_tensor_convert_error (self,
        g_strdup_printf ("Video rows of %d bytes are shorter than %d pixels "
                         "of %d bytes.",
            stride, w, pstride));
  need = offset + (gsize) stride * (h - 1) + (gsize) w * pstride;
  /* Without a meta the frame is in the default layout, padding of the last
   * row included, as gst_video_frame_map requires. */
  if (vm == NULL)
    need = MAX (need, GST_VIDEO_INFO_SIZE (vi));
  if (size < need)
    return gst_tensor_convert_error (self,
        g_strdup_printf ("Video buffer holds %" G_GSIZE_FORMAT " bytes; %s "
                         "%dx%d with stride %d from byte %" G_GSIZE_FORMAT
                         " needs %" G_GSIZE_FORMAT ".",
            size, GST_VIDEO_INFO_NAME (vi), w, h, stride, offset, need));

  /* By reference only where every item can be loaded where it is: the
   * first at an aligned address, every row a whole number of items on. */
  whole_items = aligned_at (inbuf, offset, isz)
                && (h == 1 || (gsize) stride % isz == 0);
  if (stride == w * pstride && whole_items) {
    *outbuf = pass_on (inbuf, inbuf, offset, nbytes, video_tag, TRUE);
    return *outbuf ? GST_FLOW_OK : GST_FLOW_ERROR;
  }

  /* Padded rows: the same memory with strides, for a reader of them. */
  if (self->downstream_layout_meta && whole_items) {
    strides[0] = stride / isz;
    strides[1] = self->tinfo.rank == 3 ? pstride / isz : 1;
    strides[2] = 1;
    tmp = pass_on (inbuf, inbuf, 0, size, video_tag, FALSE);
    if (tmp == NULL)
      return GST_FLOW_ERROR;
    gst_tn_buffer_add_layout_meta (
        tmp, self->tinfo.rank, offset / isz, strides);
    *outbuf = tmp;
    return GST_FLOW_OK;
  }
  GST_LOG_OBJECT (self,
      "one copy: rows of %d bytes at a pitch of %d from "
      "byte %" G_GSIZE_FORMAT ", items %s",
      w * pstride, stride, offset, whole_items ? "whole" : "misaligned");
  *outbuf = gst_tensor_convert_copy_rows (
      self, inbuf, offset, stride, (gsize) w * pstride, h);
  return *outbuf ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* The view of buf its caps and layout meta describe, FALSE when it does
 * not fit in buf. */
static gboolean
tensor_view_of (GstTensorConvert *self, GstBuffer *buf, tn_view *v)
{
  return self->tbytes != G_MAXSIZE
         && gst_tn_buffer_view (buf, &self->tview, self->tbytes, v);
}

/* The view of inbuf, or an error that says in words what does not fit. */
static GstFlowReturn
gst_tensor_convert_view (GstTensorConvert *self, GstBuffer *inbuf, tn_view *v)
{
  GError *err = NULL;
  GstTnMap m;

  if (tensor_view_of (self, inbuf, v))
    return GST_FLOW_OK;
  if (!gst_tn_buffer_map (&m, inbuf, &self->tinfo, GST_MAP_READ, &err)) {
    gchar *msg = g_strdup (err->message);

    g_clear_error (&err);
    return gst_tensor_convert_error (self, msg);
  }
  *v = m.view;
  gst_tn_buffer_unmap (&m);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_tensor_convert_tensor_to_video (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf)
{
  GstVideoInfo *vi = &self->vinfo;
  gsize isz = tn_dtype_size (self->tinfo.dtype), offset;
  gint w = GST_VIDEO_INFO_WIDTH (vi), h = GST_VIDEO_INFO_HEIGHT (vi);
  gint pstride = GST_VIDEO_INFO_COMP_PSTRIDE (vi, 0);
  gsize row = (gsize) w * pstride, stride, vstride;
  GstBuffer *src, *out;
  GstMapInfo dst;
  GstFlowReturn ret;
  tn_view v;
  gboolean rows_whole, aligned;

  if ((ret = gst_tensor_convert_view (self, inbuf, &v)) != GST_FLOW_OK)
    return ret;
  /* Items are whole items of the view's strides; only the first address
   * can be off. */
  aligned = aligned_at (inbuf, (gsize) v.offset * isz, isz);

  /* Pixels and channels dense; rows at any pitch. */
  rows_whole = (w == 1 || v.strides[1] * (gint64) isz == pstride)
               && (v.rank == 2 || v.dims[2] == 1 || v.strides[2] == 1)
               && (h == 1 || v.strides[0] * (gint64) isz >= (gint64) row);
  src = inbuf; /* borrowed, or a dense copy we own */
  if (!rows_whole) {
    src = gst_tensor_convert_copy_view (self, inbuf, &v, aligned);
    if (src == NULL)
      return gst_tensor_convert_error (
          self, g_strdup_printf ("Could not copy a tensor of %" G_GSIZE_FORMAT
                                 " bytes.",
                    self->tbytes));
    tn_view_init (
        &v, self->tinfo.dtype, self->tinfo.dims, self->tinfo.rank, NULL);
    aligned = TRUE;
  }
  offset = (gsize) v.offset * isz;
  stride = h == 1 ? row : (gsize) v.strides[0] * isz;
  vstride = GST_VIDEO_INFO_PLANE_STRIDE (vi, 0);

  if (aligned && offset == 0 && stride == vstride
      && gst_buffer_get_size (src) >= GST_VIDEO_INFO_SIZE (vi)) {
    out = pass_on (inbuf, src, 0, GST_VIDEO_INFO_SIZE (vi), tensor_tag, TRUE);
  } else if (aligned && self->downstream_video_meta) {
    gsize offsets[GST_VIDEO_MAX_PLANES] = { offset };
    gint strides[GST_VIDEO_MAX_PLANES] = { (gint) stride };

    out = pass_on (inbuf, src, 0, gst_buffer_get_size (src), tensor_tag, FALSE);
    gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (vi), w, h, 1, offsets, strides);
  } else {
    /* One copy into the default layout, row by row (memcpy: any address
     * will do). */
    GstMapInfo sm;

    out = gst_tensor_convert_new_buffer (self, GST_VIDEO_INFO_SIZE (vi));
    gst_buffer_map (out, &dst, GST_MAP_WRITE);
    gst_buffer_map (src, &sm, GST_MAP_READ);
    for (gint y = 0; y < h; y++) {
      guint8 *d = dst.data + y * vstride;

      memcpy (d, sm.data + offset + y * stride, row);
      memset (d + row, 0, vstride - row);
    }
    gst_buffer_unmap (src, &sm);
    gst_buffer_unmap (out, &dst);
    gst_buffer_copy_into (
        out, src, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
    gst_tensor_convert_count_copy (self, row * h);
  }
  if (src != inbuf)
    gst_buffer_unref (src);
  *outbuf = out;
  return out ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static GstFlowReturn
gst_tensor_convert_tensor_to_audio (
    GstTensorConvert *self, GstBuffer *inbuf, GstBuffer **outbuf)
{
  gsize isz = tn_dtype_size (self->tinfo.dtype);
  GstFlowReturn ret;
  gboolean aligned;
  tn_view v;

  if ((ret = gst_tensor_convert_view (self, inbuf, &v)) != GST_FLOW_OK)
    return ret;
  aligned = aligned_at (inbuf, (gsize) v.offset * isz, isz);
  /* A dense run at an aligned address is the audio as it is: shared, not
   * copied, wherever in the buffer it starts. */
  if (tn_view_dense (&v) && aligned)
    *outbuf = pass_on (
        inbuf, inbuf, (gsize) v.offset * isz, self->tbytes, tensor_tag, TRUE);
  else
    *outbuf = gst_tensor_convert_copy_view (self, inbuf, &v, aligned);
  return *outbuf ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static GstFlowReturn
gst_tensor_convert_prepare_output_buffer (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer **outbuf)
{
  /* Plain casts on the per-buffer path: the checked ones cost a tenth. */
  GstTensorConvert *self = (GstTensorConvert *) trans;

  switch (self->mode) {
  case MODE_VIDEO_TO_TENSOR:
    return gst_tensor_convert_video_to_tensor (self, inbuf, outbuf);
  case MODE_TENSOR_TO_VIDEO:
    return gst_tensor_convert_tensor_to_video (self, inbuf, outbuf);
  case MODE_TENSOR_TO_AUDIO:
    return gst_tensor_convert_tensor_to_audio (self, inbuf, outbuf);
  default:
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("A buffer came before the caps were negotiated."), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
}

static GstFlowReturn
gst_tensor_convert_transform (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  /* prepare_output_buffer did all the work. */
  return GST_FLOW_OK;
}

/* Audio is regrouped into tensors of a fixed number of frames. */
static GstFlowReturn
gst_tensor_convert_submit_input_buffer (
    GstBaseTransform *trans, gboolean is_discont, GstBuffer *input)
{
  GstTensorConvert *self = (GstTensorConvert *) trans;

  if (self->mode != MODE_AUDIO_TO_TENSOR)
    return parent_submit_input_buffer (trans, is_discont, input);
  /* Timestamps count frames from the start of the stream, or of the last
   * discontinuity met at a tensor border. */
  if (!self->have_base
      || (is_discont && gst_adapter_available (self->adapter) == 0)) {
    self->have_base = TRUE;
    self->base_pts = GST_BUFFER_PTS (input);
    self->frames_out = 0;
  }
  gst_adapter_push (self->adapter, input);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_tensor_convert_generate_output (GstBaseTransform *trans, GstBuffer **outbuf)
{
  GstTensorConvert *self = (GstTensorConvert *) trans;
  gint rate = GST_AUDIO_INFO_RATE (&self->ainfo);
  gsize nbytes;
  GstBuffer *out;

  if (self->mode != MODE_AUDIO_TO_TENSOR)
    return parent_generate_output (trans, outbuf);
  *outbuf = NULL;
  nbytes = (gsize) self->tensor_frames * GST_AUDIO_INFO_BPF (&self->ainfo);
  if (gst_adapter_available (self->adapter) < nbytes)
    return GST_FLOW_OK;

  out = gst_adapter_take_buffer_fast (self->adapter, nbytes);
  if (gst_buffer_n_memory (out) > 1
      || !aligned_at (out, 0, tn_dtype_size (self->tinfo.dtype))) {
    /* A tensor across input buffers, or one whose first item is not at an
     * address its items can be loaded from (input buffers that are not a
     * whole number of frames shift every tensor after them): one copy,
     * into tensor memory, which is aligned. */
    GstAllocator *alloc = gst_tn_allocator_get ();
    GstBuffer *one = gst_buffer_new_allocate (alloc, nbytes, NULL);
    GstMapInfo map;

    gst_object_unref (alloc);
    gst_buffer_map (one, &map, GST_MAP_WRITE);
    gst_buffer_extract (out, 0, map.data, nbytes);
    gst_buffer_unmap (one, &map);
    gst_buffer_unref (out);
    out = one;
    gst_tensor_convert_count_copy (self, nbytes);
  } else {
    out = gst_buffer_make_writable (out);
  }
  if (GST_CLOCK_TIME_IS_VALID (self->base_pts)) {
    GstClockTime t0
        = self->base_pts
          + gst_util_uint64_scale_int (self->frames_out, GST_SECOND, rate);
    GstClockTime t1
        = self->base_pts
          + gst_util_uint64_scale_int (
              self->frames_out + self->tensor_frames, GST_SECOND, rate);

    GST_BUFFER_PTS (out) = t0;
    GST_BUFFER_DURATION (out) = t1 - t0;
  }
  GST_BUFFER_DTS (out) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_OFFSET (out) = self->frames_out;
  GST_BUFFER_OFFSET_END (out) = self->frames_out + self->tensor_frames;
  self->frames_out += self->tensor_frames;
  *outbuf = out;
  return GST_FLOW_OK;
}

/* Caps the base class could not transform into caps downstream takes:
 * say which, rather than only not-negotiated. */
static gboolean
gst_tensor_convert_sink_caps (GstTensorConvert *self, GstEvent *event)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstCaps *caps, *media;
  gboolean ok;

  gst_event_parse_caps (event, &caps);
  caps = gst_caps_ref (caps);
  ok = GST_BASE_TRANSFORM_CLASS (gst_tensor_convert_parent_class)
           ->sink_event (trans, event);
  if (!ok && !self->caps_error_posted) {
    gchar *a = gst_caps_to_string (caps), *b;

    media = gst_tensor_convert_transform_caps (trans, GST_PAD_SINK, caps, NULL);
    b = gst_caps_to_string (media);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s converts to %s, which downstream does not accept.", a, b), (NULL));
    self->caps_error_posted = TRUE;
    g_free (a);
    g_free (b);
    gst_caps_unref (media);
  }
  gst_caps_unref (caps);
  return ok;
}

static gboolean
gst_tensor_convert_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstTensorConvert *self = GST_TENSOR_CONVERT (trans);

  switch (GST_EVENT_TYPE (event)) {
  case GST_EVENT_CAPS:
    return gst_tensor_convert_sink_caps (self, event);
  case GST_EVENT_EOS:
    if (self->mode == MODE_AUDIO_TO_TENSOR) {
      gsize left = gst_adapter_available (self->adapter);

      if (left > 0)
        GST_ELEMENT_WARNING (self, STREAM, FORMAT,
            ("Dropped the last %" G_GSIZE_FORMAT " audio frames: a tensor "
             "needs %d (the frames property).",
                left / GST_AUDIO_INFO_BPF (&self->ainfo), self->tensor_frames),
            (NULL));
      gst_adapter_clear (self->adapter);
    }
    break;
  case GST_EVENT_FLUSH_STOP:
  case GST_EVENT_STREAM_START:
    gst_adapter_clear (self->adapter);
    self->have_base = FALSE;
    self->caps_error_posted = FALSE;
    break;
  default:
    break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_tensor_convert_parent_class)
      ->sink_event (trans, event);
}

/* A frames value below 1 is stored as given (the property's range is
 * every int, so that GLib does not refuse it with a warning and leave the
 * default in its place, which would run a pipeline the user did not ask
 * for) and refused here, before any data flows. */
static gboolean
gst_tensor_convert_start (GstBaseTransform *trans)
{
  GstTensorConvert *self = GST_TENSOR_CONVERT (trans);
  gint frames;

  GST_OBJECT_LOCK (self);
  frames = self->frames;
  GST_OBJECT_UNLOCK (self);
  if (frames < 1) {
    gchar *text = g_strdup_printf ("%d", frames);
    gboolean ok = gst_tn_element_property_error (GST_ELEMENT (self), "frames",
        text, "a tensor needs 1 or more audio frames");

    g_free (text);
    return ok;
  }
  return TRUE;
}

static gboolean
gst_tensor_convert_stop (GstBaseTransform *trans)
{
  GstTensorConvert *self = GST_TENSOR_CONVERT (trans);

  gst_adapter_clear (self->adapter);
  self->mode = MODE_NONE;
  self->caps_error_posted = FALSE;
  return TRUE;
}

/* Caps and tensor sizes follow from both, so neither may change while a
 * stream runs (GST_PARAM_MUTABLE_READY): refused with a warning there. */
static void
gst_tensor_convert_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorConvert *self = GST_TENSOR_CONVERT (object);

  if (!gst_tn_element_property_settable (GST_ELEMENT (self), pspec, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_GRAY_CHANNEL_AXIS:
    self->gray_channel_axis = g_value_get_boolean (value);
    break;
  case PROP_FRAMES:
    self->frames = g_value_get_int (value);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_convert_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTensorConvert *self = GST_TENSOR_CONVERT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_GRAY_CHANNEL_AXIS:
    g_value_set_boolean (value, self->gray_channel_axis);
    break;
  case PROP_FRAMES:
    g_value_set_int (value, self->frames);
    break;
  case PROP_BYTES_COPIED:
    g_value_set_uint64 (value, self->bytes_copied);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_convert_finalize (GObject *object)
{
  GstTensorConvert *self = GST_TENSOR_CONVERT (object);

  g_object_unref (self->adapter);
  G_OBJECT_CLASS (gst_tensor_convert_parent_class)->finalize (object);
}

static void
gst_tensor_convert_class_init (GstTensorConvertClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_tensor_convert_debug, "tensorconvert", 0,
      "video and audio to tensors and back");

  gobject_class->set_property = gst_tensor_convert_set_property;
  gobject_class->get_property = gst_tensor_convert_get_property;
  gobject_class->finalize = gst_tensor_convert_finalize;

  /**
   * GstTensorConvert:gray-channel-axis:
   *
   * Gray frames become `<height, width, 1>` instead of `<height, width>`.
   */
  g_object_class_install_property (gobject_class, PROP_GRAY_CHANNEL_AXIS,
      g_param_spec_boolean ("gray-channel-axis", "Gray channel axis",
          "Give GRAY8 and GRAY16_LE frames a channel axis: dims <height, "
          "width, 1> instead of <height, width>",
          DEFAULT_GRAY_CHANNEL_AXIS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));

  /**
   * GstTensorConvert:frames:
   *
   * Audio frames per tensor when converting audio to tensors: dims
   * `<frames, channels>`.  1 or more; any other value is an error when the
   * element starts (the range is every int so that the value reaches the
   * element, which can say so).
   */
  g_object_class_install_property (gobject_class, PROP_FRAMES,
      g_param_spec_int ("frames", "Frames",
          "Audio to tensors: frames per tensor, dims <frames, channels>; "
          "1 or more, anything else is an error at start",
          G_MININT, G_MAXINT, DEFAULT_FRAMES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));

  /**
   * GstTensorConvert:bytes-copied:
   *
   * Bytes copied so far (padded rows for a dense-only reader, strided
   * tensors, audio tensors across input buffers, tensors at misaligned
   * addresses); 0 when everything went through by reference.
   */
  g_object_class_install_property (gobject_class, PROP_BYTES_COPIED,
      g_param_spec_uint64 ("bytes-copied", "Bytes copied",
          "Bytes copied so far; 0 while every buffer is passed on by "
          "reference",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Tensor media converter", "Filter/Converter/Video/Audio/Tensor",
      "Converts raw video and audio to tensors and back, without copying "
      "where the layouts allow",
      "gst-tensor developers");

  parent_submit_input_buffer = trans_class->submit_input_buffer;
  parent_generate_output = trans_class->generate_output;
  video_tag = g_quark_from_static_string (GST_META_TAG_VIDEO_STR);
  tensor_tag = g_quark_from_static_string ("tensor");
  memory_tag = g_quark_from_static_string (GST_META_TAG_MEMORY_STR);

  trans_class->transform_caps
      = GST_DEBUG_FUNCPTR (gst_tensor_convert_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_tensor_convert_fixate_caps);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_tensor_convert_accept_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_tensor_convert_query);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_tensor_convert_set_caps);
  trans_class->propose_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_convert_propose_allocation);
  trans_class->decide_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_convert_decide_allocation);
  trans_class->prepare_output_buffer
      = GST_DEBUG_FUNCPTR (gst_tensor_convert_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_tensor_convert_transform);
  trans_class->submit_input_buffer
      = GST_DEBUG_FUNCPTR (gst_tensor_convert_submit_input_buffer);
  trans_class->generate_output
      = GST_DEBUG_FUNCPTR (gst_tensor_convert_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_tensor_convert_sink_event);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_tensor_convert_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_tensor_convert_stop);
  trans_class->passthrough_on_same_caps = FALSE;
}

static void
gst_tensor_convert_init (GstTensorConvert *self)
{
  self->gray_channel_axis = DEFAULT_GRAY_CHANNEL_AXIS;
  self->frames = DEFAULT_FRAMES;
  self->adapter = gst_adapter_new ();
  self->base_pts = GST_CLOCK_TIME_NONE;
}
