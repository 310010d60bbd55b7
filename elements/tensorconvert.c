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
 * NNStreamer: its `other/tensors,format=static` and `other/tensor` caps
 * (NNStreamer 2.x) become `tensor/x-raw` and back, the buffer passed on by
 * reference.  Its dimension strings list extents innermost first:
 * `dimensions=3:640:480:1` is `dims=<1, 480, 640, 3>`.  Since NNStreamer
 * counts outer extents of 1 as absent, every spelling of the same bytes
 * negotiates (`<480, 640, 3>` too, and `3:640:480` for `<480, 640, 3>`),
 * the tensor's own first.  Of several tensors in a buffer (one memory
 * each), #GstTensorConvert:tensor-index takes one.  Types are the same
 * names (int8 ... float64, float16); bool and bfloat16 tensors, extents
 * of 0, and the flexible and sparse formats (which carry their shapes in
 * each buffer) have no mapping and fail negotiation in words.  A tensor
 * becomes NNStreamer caps when downstream asks for them (a capsfilter
 * `other/tensors`, an NNStreamer element), never by default.  A view is
 * copied once: NNStreamer reads dense tensors only.
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
 * A test frame as NNStreamer's `other/tensors` (dimensions 3:64:48), and
 * back into a tensor <48, 64, 3>, printed:
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 ! video/x-raw,width=64,height=48 \
 *     ! tensorconvert ! tensorconvert ! other/tensors ! tensorconvert \
 *     ! tensordebug ! fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "elements.h"
#include "tensorconvert.h"
#include "tnalloc.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY (gst_tensor_convert_debug);
#define GST_CAT_DEFAULT gst_tensor_convert_debug

/* The formats and dtypes of the library's media mapping, which lists
 * them in the order of preference (gst/tensor/tensormedia.h). */
#define ALL_CAPS                                                               \
  "video/x-raw, format=(string)" GST_TN_MEDIA_VIDEO_FORMATS                    \
  ", width=(int)[ 1, MAX ], height=(int)[ 1, MAX ], "                          \
  "framerate=(fraction)[ 0/1, MAX ]; "                                         \
  "audio/x-raw, format=(string)" GST_TN_MEDIA_AUDIO_FORMATS ", "               \
  "layout=(string)interleaved, rate=(int)[ 1, MAX ], "                         \
  "channels=(int)[ 1, MAX ]; " GST_TN_MEDIA_TYPE                               \
  ", type=(string)" GST_TN_MEDIA_TYPES ", dims-order=(string)row-major, "      \
  "framerate=(fraction)[ 0/1, MAX ]"
/* NNStreamer's, for any tensor: flexible and sparse are there to be
 * refused in words (accept_caps) rather than by a template. */
#define NNS_CAPS                                                               \
  "; " GST_TENSOR_CONVERT_NNS_TENSORS ", format=(string){ static, flexible, "  \
  "sparse }, framerate=(fraction)[ 0/1, MAX ]; " GST_TENSOR_CONVERT_NNS_TENSOR \
  ", framerate=(fraction)[ 0/1, MAX ]; " GST_TN_MEDIA_TYPE                     \
  ", framerate=(fraction)[ 0/1, MAX ]"

enum {
  PROP_0,
  PROP_GRAY_CHANNEL_AXIS,
  PROP_FRAMES,
  PROP_TENSOR_INDEX,
  PROP_BYTES_COPIED,
};

#define DEFAULT_GRAY_CHANNEL_AXIS FALSE
#define DEFAULT_FRAMES 1024
#define DEFAULT_TENSOR_INDEX -1

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (ALL_CAPS NNS_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (ALL_CAPS NNS_CAPS));

G_DEFINE_TYPE (GstTensorConvert, gst_tensor_convert, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (
    tensorconvert, "tensorconvert", GST_RANK_NONE, GST_TYPE_TENSOR_CONVERT);

/* Per buffer, the parent's vfuncs without the checked class cast, and the
 * tags of the metas dropped without a quark lookup. */
static GstFlowReturn (*parent_submit_input_buffer) (
    GstBaseTransform *, gboolean, GstBuffer *);
static GstFlowReturn (*parent_generate_output) (
    GstBaseTransform *, GstBuffer **);
GQuark gst_tensor_convert_video_tag, gst_tensor_convert_tensor_tag,
    gst_tensor_convert_memory_tag;

void
gst_tensor_convert_count_copy (GstTensorConvert *self, gsize bytes)
{
  GST_OBJECT_LOCK (self);
  self->bytes_copied += bytes;
  GST_OBJECT_UNLOCK (self);
}

static GstCaps *
gst_tensor_convert_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstTensorConvert *self = GST_TENSOR_CONVERT (trans);
  GstCaps *out = gst_caps_new_empty ();
  gboolean gray_axis;
  gint frames, index;

  GST_OBJECT_LOCK (self);
  gray_axis = self->gray_channel_axis;
  frames = self->frames;
  index = self->tensor_index;
  GST_OBJECT_UNLOCK (self);

  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCaps *one = gst_caps_copy_nth (caps, i), *part;
    const GstStructure *st = gst_caps_get_structure (one, 0);

    /* tensor-index picks from NNStreamer caps on the sink pad. */
    if (gst_tensor_convert_is_nns (st)) {
      part = gst_tensor_convert_caps_from_nns (
          st, direction == GST_PAD_SINK ? index : -1);
    } else if (!gst_structure_has_name (st, GST_TN_MEDIA_TYPE)) {
      /* Audio caps on the source pad leave the frames open. */
      part = gst_tn_caps_from_media_caps (one,
          gray_axis ? GST_TN_MEDIA_CHANNEL_AXIS : GST_TN_MEDIA_NONE,
          direction == GST_PAD_SINK ? frames : 0);
    } else {
      /* In audio-to-tensor mode the frames property sets the frames. */
      part = gst_tn_media_caps_from_caps (
          one, direction == GST_PAD_SRC ? frames : 0, NULL);
      /* A tensor that fits nothing still links; accept_caps then refuses
       * it with the reason, which an empty result could not give. */
      if (gst_caps_is_empty (part) && direction == GST_PAD_SINK) {
        GstCaps *any = gst_static_pad_template_get_caps (&src_template);

        for (guint k = 0; k < gst_caps_get_size (any); k++) {
          const GstStructure *t = gst_caps_get_structure (any, k);

          /* Media only: NNStreamer's caps follow, for this tensor. */
          if (!gst_structure_has_name (t, GST_TN_MEDIA_TYPE)
              && !gst_tensor_convert_is_nns (t))
            gst_caps_append_structure (part, gst_structure_copy (t));
        }
        gst_caps_unref (any);
      }
      /* After the media formats: they are the default. */
      part = gst_caps_merge (part, gst_tensor_convert_caps_to_nns (st,
                                       direction == GST_PAD_SRC ? index : -1));
    }
    gst_caps_unref (one);
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

/* Tensors to media: the first format in the library's order of
 * preference that downstream takes, whatever order downstream lists them
 * in (smptealpha lists ARGB before RGBA).  A tensor does not say its
 * channel order, and RGB and RGBA are what tensorconvert makes of video
 * by default, so video -> tensor -> video keeps the colours. */
static GstCaps *
gst_tensor_convert_fixate_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *othercaps)
{
  /* Every media format, one per structure, in that order. */
  GstCaps *any = gst_caps_from_string (
      GST_TN_MEDIA_TYPE ", type=(string)" GST_TN_MEDIA_TYPES);
  GstCaps *order = gst_tn_media_caps_from_caps (any, 0, NULL);
  GstCaps *pick = NULL;

  for (guint i = 0; pick == NULL && i < gst_caps_get_size (order); i++) {
    const GstStructure *o = gst_caps_get_structure (order, i);
    const gchar *name = gst_structure_get_string (o, "format");
    GstStructure *want = gst_structure_new (
        gst_structure_get_name (o), "format", G_TYPE_STRING, name, NULL);

    for (guint k = 0; k < gst_caps_get_size (othercaps); k++) {
      GstStructure *st = gst_caps_get_structure (othercaps, k);

      if (!gst_structure_can_intersect (st, want))
        continue;
      st = gst_structure_copy (st);
      gst_structure_set (st, "format", G_TYPE_STRING, name, NULL);
      pick = gst_caps_new_full (st, NULL);
      break;
    }
    gst_structure_free (want);
  }
  gst_caps_unref (order);
  gst_caps_unref (any);
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

/* A fixed tensor that fits no media format is refused in words, once for
 * the same caps: accept-caps is asked more than once for them, and the
 * CAPS event that follows is refused again. */
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

  if (direction == GST_PAD_SINK && gst_caps_is_fixed (caps)
      && gst_tensor_convert_is_nns (gst_caps_get_structure (caps, 0)))
    return gst_tensor_convert_nns_acceptable (self, caps)
           && GST_BASE_TRANSFORM_CLASS (gst_tensor_convert_parent_class)
                  ->accept_caps (trans, direction, caps);
  if (direction != GST_PAD_SINK || !gst_caps_is_fixed (caps)
      || !gst_structure_has_name (
          gst_caps_get_structure (caps, 0), GST_TN_MEDIA_TYPE))
    return GST_BASE_TRANSFORM_CLASS (gst_tensor_convert_parent_class)
        ->accept_caps (trans, direction, caps);

  if (!gst_tn_info_from_caps (&info, caps, &err)) {
    /* Refused here, the CAPS event never reaches us: say why now. */
    if (gst_tn_caps_refusal_is_new (&self->refused, caps)) {
      gchar *str = gst_caps_to_string (caps);

      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("%s: refused the caps %s: %s", GST_OBJECT_NAME (self), str,
              err->message),
          (NULL));
      g_free (str);
    }
    g_error_free (err);
    return FALSE;
  }
  media = gst_tn_media_caps_from_caps (caps, 0, &err);
  desc = gst_tn_info_to_string (&info);
  if (err != NULL) {
    GError *nns_err = NULL;

    if (gst_tensor_convert_downstream_nns (self, caps, &nns_err))
      g_clear_error (&err);
    else if (nns_err != NULL) {
      g_clear_error (&err);
      g_propagate_error (&err, nns_err);
    }
  }
  if (err != NULL) {
    if (gst_tn_caps_refusal_is_new (&self->refused, caps))
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", err->message),
          ("caps %" GST_PTR_FORMAT, caps));
    g_clear_error (&err);
    ok = FALSE;
  } else {
    ok = GST_BASE_TRANSFORM_CLASS (gst_tensor_convert_parent_class)
             ->accept_caps (trans, direction, caps);
    if (!ok && gst_tn_caps_refusal_is_new (&self->refused, caps)) {
      gchar *m = gst_caps_to_string (media);

      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("A tensor %s converts to %s, which downstream does not accept.",
              desc, m),
          ("caps %" GST_PTR_FORMAT, caps));
      g_free (m);
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
  GstTnInfo mapped = { 0 };
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
  /* Both sides must be the same items; the framerates are the caps'. */
  if (gst_tensor_convert_is_nns (gst_caps_get_structure (media, 0))) {
    ok = gst_tensor_convert_nns_match (self, media, media == incaps, &err);
    mapped = self->tinfo;
    self->mode = media == incaps ? MODE_NNS_TO_TENSOR : MODE_TENSOR_TO_NNS;
  } else if (g_str_equal (in, "video/x-raw")
             || g_str_equal (out, "video/x-raw")) {
    ok = gst_video_info_from_caps (&self->vinfo, media)
         && gst_tn_info_from_video_info (&mapped, &self->vinfo, 0,
             self->tinfo.rank == 3 ? GST_TN_MEDIA_CHANNEL_AXIS
                                   : GST_TN_MEDIA_NONE,
             NULL);
    self->mode = media == incaps ? MODE_VIDEO_TO_TENSOR : MODE_TENSOR_TO_VIDEO;
  } else {
    ok = gst_audio_info_from_caps (&self->ainfo, media) && self->tinfo.rank == 2
         && self->tinfo.dims[0] <= G_MAXINT
         && gst_tn_info_from_audio_info (
             &mapped, &self->ainfo, (guint) self->tinfo.dims[0], NULL);
    self->mode = media == incaps ? MODE_AUDIO_TO_TENSOR : MODE_TENSOR_TO_AUDIO;
    self->tensor_frames = (gint) self->tinfo.dims[0];
  }
  mapped.fps_n = self->tinfo.fps_n;
  mapped.fps_d = self->tinfo.fps_d;
  ok = ok && gst_tn_info_equal (&mapped, &self->tinfo);
  if (!ok) {
    gchar *a = gst_caps_to_string (incaps), *b = gst_caps_to_string (outcaps);

    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Caps %s and %s do not describe the same frames%s%s", a, b,
            err ? ": " : ".", err ? err->message : ""),
        (NULL));
    g_clear_error (&err);
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

    if (!gst_meta_api_type_has_tag (t, gst_tensor_convert_video_tag)
        && !gst_meta_api_type_has_tag (t, gst_tensor_convert_tensor_tag)
        && !gst_meta_api_type_has_tag (t, gst_tensor_convert_memory_tag))
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
  if (self->mode == MODE_VIDEO_TO_TENSOR || self->mode == MODE_NNS_TO_TENSOR
      || self->mode == MODE_TENSOR_TO_NNS)
    gst_tn_info_size (&self->tinfo, &size);
  else if (self->mode == MODE_TENSOR_TO_VIDEO)
    size = GST_VIDEO_INFO_SIZE (&self->vinfo);
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps != NULL && size > 0 && size <= G_MAXUINT
      && !gst_tn_decide_allocation (query, caps, size))
    GST_WARNING_OBJECT (self, "no pool for %" G_GSIZE_FORMAT " bytes", size);
  return TRUE;
}

/* A new buffer of size bytes for a copy: from the pool decide_allocation
 * configured when it serves that size, else from the tensor allocator;
 * both give 64-byte aligned memory. */
GstBuffer *
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
  case MODE_NNS_TO_TENSOR:
    return gst_tensor_convert_nns_to_tensor (self, inbuf, outbuf);
  case MODE_TENSOR_TO_NNS:
    return gst_tensor_convert_tensor_to_nns (self, inbuf, outbuf);
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
      || !gst_tensor_convert_aligned_at (
          out, 0, tn_dtype_size (self->tinfo.dtype))) {
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
  if (!ok && gst_tn_caps_refusal_is_new (&self->refused, caps)) {
    gchar *a = gst_caps_to_string (caps), *b;

    media = gst_tensor_convert_transform_caps (trans, GST_PAD_SINK, caps, NULL);
    b = gst_caps_to_string (media);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s converts to %s, which downstream does not accept.", a, b), (NULL));
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
    gst_tn_caps_refusal_clear (&self->refused);
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
  gint frames, index;

  GST_OBJECT_LOCK (self);
  frames = self->frames;
  index = self->tensor_index;
  GST_OBJECT_UNLOCK (self);
  if (index < -1) {
    gchar *text = g_strdup_printf ("%d", index);
    gboolean ok = gst_tn_element_property_error (GST_ELEMENT (self),
        "tensor-index", text,
        "expected -1 (the only tensor) or the index of one, 0 or more");

    g_free (text);
    return ok;
  }
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
  gst_tn_caps_refusal_clear (&self->refused);
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
  case PROP_TENSOR_INDEX:
    self->tensor_index = g_value_get_int (value);
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
  case PROP_TENSOR_INDEX:
    g_value_set_int (value, self->tensor_index);
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
  gst_tn_caps_refusal_clear (&self->refused);
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
   * GstTensorConvert:tensor-index:
   *
   * Which tensor of NNStreamer's `other/tensors` becomes the output when
   * they carry several: 0 to num_tensors - 1 (at most 14 when there are
   * more than 16, NNStreamer packs the rest into one memory).  -1, the
   * default, takes the only one and refuses caps of more.  Below -1 is an
   * error when the element starts; out of range, a negotiation error that
   * names num_tensors.  Unused for other input.
   */
  g_object_class_install_property (gobject_class, PROP_TENSOR_INDEX,
      g_param_spec_int ("tensor-index", "Tensor index",
          "NNStreamer input: which of its tensors to take, 0 or more; -1 "
          "takes the only one",
          G_MININT, G_MAXINT, DEFAULT_TENSOR_INDEX,
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
      "Converts raw video and audio, and NNStreamer's tensors, to tensors "
      "and back, without copying where the layouts allow",
      "gst-tensor developers");

  parent_submit_input_buffer = trans_class->submit_input_buffer;
  parent_generate_output = trans_class->generate_output;
  gst_tensor_convert_video_tag
      = g_quark_from_static_string (GST_META_TAG_VIDEO_STR);
  gst_tensor_convert_tensor_tag = g_quark_from_static_string ("tensor");
  gst_tensor_convert_memory_tag
      = g_quark_from_static_string (GST_META_TAG_MEMORY_STR);

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
  self->tensor_index = DEFAULT_TENSOR_INDEX;
  self->adapter = gst_adapter_new ();
  self->base_pts = GST_CLOCK_TIME_NONE;
}
