/* Raw video and audio <-> tensors: the mapping tensorconvert applies,
 * as library functions.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "tensormedia.h"

#include <string.h>

#include "core/shape.h"

/* The samples of one plane of a video format as items: their dtype, the
 * items of a pixel and the first component in the plane (whose width and
 * height are the plane's), or FALSE with the reason.  Derived from the
 * format's description rather than listed per format, so that every
 * plane GStreamer describes as whole samples at one pixel stride maps,
 * with one rule. */
static gboolean
video_plane_items (const GstVideoFormatInfo *finfo, guint plane,
    tn_dtype *dtype, gint *channels, guint *comp, GError **err)
{
  const gchar *name = finfo ? GST_VIDEO_FORMAT_INFO_NAME (finfo) : "UNKNOWN";
  guint bits, c, first = G_MAXUINT;
  gint pstride = 0;

  if (finfo == NULL
      || GST_VIDEO_FORMAT_INFO_FORMAT (finfo) == GST_VIDEO_FORMAT_UNKNOWN) {
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "The video info has no format.");
    return FALSE;
  }
  if (plane >= GST_VIDEO_FORMAT_INFO_N_PLANES (finfo)) {
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "Video format %s has %u planes; there is no plane %u.", name,
        GST_VIDEO_FORMAT_INFO_N_PLANES (finfo), plane);
    return FALSE;
  }
  bits = GST_VIDEO_FORMAT_INFO_BITS (finfo);
  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) != plane)
      continue;
    if (first == G_MAXUINT) {
      first = c;
      pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
    } else if (GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c) != pstride
               || finfo->w_sub[c] != finfo->w_sub[first]
               || finfo->h_sub[c] != finfo->h_sub[first]) {
      g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "Video format %s has no tensor form: plane %u holds samples %d "
          "and %d bytes apart, and a tensor needs one pixel stride per "
          "plane.",
          name, plane, pstride, GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c));
      return FALSE;
    }
    if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) != bits
        || GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c) != 0
        || (bits != 8 && bits != 16)) {
      g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "Video format %s has no tensor form: its samples are %u bits, "
          "and a tensor needs whole samples of 8 or 16 bits.",
          name, GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c));
      return FALSE;
    }
  }
  if (first == G_MAXUINT || pstride <= 0 || pstride % (bits / 8) != 0
      || GST_VIDEO_FORMAT_INFO_IS_COMPLEX (finfo)
      || GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)
      || GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo)) {
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "Video format %s has no tensor form: its samples are packed (tiles, "
        "a palette or several per word) in a way items cannot address.",
        name);
    return FALSE;
  }
  if (bits == 16
      && !(GST_VIDEO_FORMAT_INFO_IS_LE (finfo)
           && G_BYTE_ORDER == G_LITTLE_ENDIAN)) {
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "Video format %s has no tensor form: its 16-bit samples are not in "
        "the machine's byte order.",
        name);
    return FALSE;
  }
  *dtype = bits == 8 ? TN_UINT8 : TN_UINT16;
  *channels = pstride / (gint) (bits / 8);
  *comp = first;
  return TRUE;
}

/* The dtype of an audio format's samples, or FALSE with the reason. */
static gboolean
audio_format_dtype (
    const GstAudioFormatInfo *finfo, tn_dtype *dtype, GError **err)
{
  static const tn_dtype sints[] = { TN_INT8, TN_INT16, TN_INT32, TN_INT64 };
  static const tn_dtype uints[] = { TN_UINT8, TN_UINT16, TN_UINT32, TN_UINT64 };
  gint width, depth, k;

  if (finfo == NULL || !GST_AUDIO_FORMAT_INFO_IS_VALID_RAW (finfo)) {
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "The audio info has no raw sample format.");
    return FALSE;
  }
  width = GST_AUDIO_FORMAT_INFO_WIDTH (finfo);
  depth = GST_AUDIO_FORMAT_INFO_DEPTH (finfo);
  k = width == 8 ? 0 : width == 16 ? 1 : width == 32 ? 2 : width == 64 ? 3 : -1;
  if (depth != width || k < 0) {
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "Audio format %s has no tensor form: its samples are %d bits in "
        "%d, and a tensor needs samples of 8, 16, 32 or 64 bits.",
        GST_AUDIO_FORMAT_INFO_NAME (finfo), depth, width);
    return FALSE;
  }
  if (width > 8 && GST_AUDIO_FORMAT_INFO_ENDIANNESS (finfo) != G_BYTE_ORDER) {
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "Audio format %s has no tensor form: its samples are not in the "
        "machine's byte order.",
        GST_AUDIO_FORMAT_INFO_NAME (finfo));
    return FALSE;
  }
  if (GST_AUDIO_FORMAT_INFO_IS_FLOAT (finfo))
    *dtype = width == 32 ? TN_FLOAT32 : TN_FLOAT64;
  else
    *dtype = GST_AUDIO_FORMAT_INFO_IS_SIGNED (finfo) ? sints[k] : uints[k];
  return TRUE;
}

gboolean
gst_tn_info_from_video_info (GstTnInfo *info, const GstVideoInfo *vinfo,
    guint plane, GstTnMediaFlags flags, GError **err)
{
  tn_dtype dtype;
  gint channels;
  guint comp;

  g_return_val_if_fail (info != NULL && vinfo != NULL, FALSE);

  if (!video_plane_items (vinfo->finfo, plane, &dtype, &channels, &comp, err))
    return FALSE;
  memset (info, 0, sizeof *info);
  info->dtype = dtype;
  info->dims[0] = GST_VIDEO_INFO_COMP_HEIGHT (vinfo, comp);
  info->dims[1] = GST_VIDEO_INFO_COMP_WIDTH (vinfo, comp);
  info->rank = channels == 1 && !(flags & GST_TN_MEDIA_CHANNEL_AXIS) ? 2 : 3;
  if (info->rank == 3)
    info->dims[2] = channels;
  info->fps_n = GST_VIDEO_INFO_FPS_N (vinfo);
  info->fps_d = GST_VIDEO_INFO_FPS_D (vinfo);
  return TRUE;
}

static guint
gcd (guint a, guint b)
{
  while (b != 0) {
    guint r = a % b;

    a = b;
    b = r;
  }
  return a;
}

gboolean
gst_tn_info_from_audio_info (
    GstTnInfo *info, const GstAudioInfo *ainfo, guint frames, GError **err)
{
  gint channels, rate;
  tn_dtype dtype;
  guint g;

  g_return_val_if_fail (info != NULL && ainfo != NULL, FALSE);

  if (!audio_format_dtype (ainfo->finfo, &dtype, err))
    return FALSE;
  if (frames < 1 || frames > G_MAXINT) {
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "A tensor of audio needs 1 to %d frames, not %u.", G_MAXINT, frames);
    return FALSE;
  }
  channels = GST_AUDIO_INFO_CHANNELS (ainfo);
  rate = GST_AUDIO_INFO_RATE (ainfo);
  memset (info, 0, sizeof *info);
  info->dtype = dtype;
  info->rank = 2;
  if (GST_AUDIO_INFO_LAYOUT (ainfo) == GST_AUDIO_LAYOUT_NON_INTERLEAVED) {
    info->dims[0] = channels;
    info->dims[1] = frames;
  } else {
    info->dims[0] = frames;
    info->dims[1] = channels;
  }
  g = gcd ((guint) MAX (rate, 0), frames);
  info->fps_n = (gint) ((guint) MAX (rate, 0) / g);
  info->fps_d = (gint) (frames / g);
  return TRUE;
}

/* The formats of GST_TN_MEDIA_*_FORMATS, in their order, with the items
 * of their tensors: read once from the strings the pad templates use, so
 * that the lists exist once. */
typedef struct {
  GstVideoFormat format;
  const gchar *name;
  tn_dtype dtype;
  gint channels;
} VideoFormat;

typedef struct {
  GstAudioFormat format;
  const gchar *name;
  tn_dtype dtype;
} AudioFormat;

#define MAX_FORMATS 16

static VideoFormat video_formats[MAX_FORMATS];
static AudioFormat audio_formats[MAX_FORMATS];
static guint n_video_formats, n_audio_formats;

static gpointer
formats_init (gpointer data)
{
  gchar **v = g_strsplit_set (GST_TN_MEDIA_VIDEO_FORMATS, "{}, ", -1);
  gchar **a = g_strsplit_set (GST_TN_MEDIA_AUDIO_FORMATS, "{}, ", -1);

  for (guint i = 0; v[i] != NULL; i++) {
    VideoFormat *f = &video_formats[n_video_formats];
    guint comp;

    if (*v[i] == '\0')
      continue;
    g_assert (n_video_formats < MAX_FORMATS);
    f->format = gst_video_format_from_string (v[i]);
    f->name = gst_video_format_to_string (f->format);
    if (!video_plane_items (gst_video_format_get_info (f->format), 0, &f->dtype,
            &f->channels, &comp, NULL))
      g_assert_not_reached ();
    n_video_formats++;
  }
  for (guint i = 0; a[i] != NULL; i++) {
    AudioFormat *f = &audio_formats[n_audio_formats];

    if (*a[i] == '\0')
      continue;
    g_assert (n_audio_formats < MAX_FORMATS);
    f->format = gst_audio_format_from_string (a[i]);
    f->name = gst_audio_format_to_string (f->format);
    if (!audio_format_dtype (
            gst_audio_format_get_info (f->format), &f->dtype, NULL))
      g_assert_not_reached ();
    n_audio_formats++;
  }
  g_strfreev (v);
  g_strfreev (a);
  return NULL;
}

static void
formats_ensure (void)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, formats_init, NULL);
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

/* Whether field of s, absent or a string or list of them, allows value. */
static gboolean
allows (const GstStructure *s, const gchar *field, const gchar *value)
{
  GPtrArray *values = string_values (s, field);
  gboolean found = values == NULL;

  for (guint k = 0; values && k < values->len; k++)
    found |= g_strcmp0 (g_ptr_array_index (values, k), value) == 0;
  if (values)
    g_ptr_array_free (values, TRUE);
  return found;
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

static GstStructure *
tensor_structure (tn_dtype dtype)
{
  return gst_structure_new (GST_TN_MEDIA_TYPE, "type", G_TYPE_STRING,
      tn_dtype_name (dtype), "dims-order", G_TYPE_STRING, "row-major", NULL);
}

/* Tensor structures for video structure s. */
static void
video_to_tensor_caps (
    const GstStructure *s, GstCaps *out, GstTnMediaFlags flags)
{
  gint w, h;
  gboolean sized = fixed_int (s, "width", &w) && fixed_int (s, "height", &h);

  for (guint i = 0; i < n_video_formats; i++) {
    const VideoFormat *vf = &video_formats[i];
    GstStructure *t;

    if (!allows (s, "format", vf->name))
      continue;
    t = tensor_structure (vf->dtype);
    if (sized) {
      gint64 dims[3] = { h, w, vf->channels };

      gst_tn_structure_set_dims (t, dims,
          vf->channels == 1 && !(flags & GST_TN_MEDIA_CHANNEL_AXIS) ? 2 : 3);
    }
    copy_framerate (t, s);
    gst_caps_append_structure (out, t);
  }
}

static void
audio_to_tensor_caps (const GstStructure *s, GstCaps *out, gint frames)
{
  gint channels, rate;

  if (!allows (s, "layout", "interleaved"))
    return;
  for (guint i = 0; i < n_audio_formats; i++) {
    const AudioFormat *af = &audio_formats[i];
    GstStructure *t;

    if (!allows (s, "format", af->name))
      continue;
    t = tensor_structure (af->dtype);
    /* Frames known only in this direction: the caller sets them. */
    if (frames > 0 && fixed_int (s, "channels", &channels)) {
      gint64 dims[2] = { frames, channels };

      gst_tn_structure_set_dims (t, dims, 2);
    }
    if (frames > 0 && fixed_int (s, "rate", &rate) && rate > 0) {
      guint g = gcd ((guint) rate, (guint) frames);

      gst_structure_set (t, "framerate", GST_TYPE_FRACTION,
          (gint) ((guint) rate / g), (gint) ((guint) frames / g), NULL);
    } else {
      gst_structure_set (
          t, "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT, 1, NULL);
    }
    gst_caps_append_structure (out, t);
  }
}

GstCaps *
gst_tn_caps_from_media_caps (
    const GstCaps *caps, GstTnMediaFlags flags, gint frames)
{
  GstCaps *out;

  g_return_val_if_fail (GST_IS_CAPS (caps), NULL);

  formats_ensure ();
  out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);

    if (gst_structure_has_name (s, "video/x-raw"))
      video_to_tensor_caps (s, out, flags);
    else if (gst_structure_has_name (s, "audio/x-raw"))
      audio_to_tensor_caps (s, out, frames);
  }
  return out;
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
  v = gst_structure_new (
      "video/x-raw", "format", G_TYPE_STRING, vf->name, NULL);
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
 * requires dims[0] == frames. */
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

  a = gst_structure_new ("audio/x-raw", "format", G_TYPE_STRING, af->name,
      "layout", G_TYPE_STRING, "interleaved", NULL);
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

/* Media structures for tensor structure s: every video format in the
 * order of preference, then every audio format, whatever order the dtypes
 * are listed in (which, for the template, would put int8 audio first). */
static void
tensor_to_media_caps (const GstStructure *s, GstCaps *out, gint frames)
{
  gint64 dims[TN_MAX_RANK];
  gint rank = -1;

  if (!gst_tn_structure_get_dims (s, dims, &rank, NULL))
    rank = -1;
  for (guint i = 0; i < n_video_formats; i++)
    if (allows (s, "type", tn_dtype_name (video_formats[i].dtype)))
      tensor_to_video_caps (&video_formats[i], dims, rank, s, out);
  for (guint i = 0; i < n_audio_formats; i++)
    if (allows (s, "type", tn_dtype_name (audio_formats[i].dtype)))
      tensor_to_audio_caps (&audio_formats[i], dims, rank, s, out, frames);
}

GstCaps *
gst_tn_media_caps_from_caps (const GstCaps *caps, gint frames, GError **err)
{
  GstTnInfo info;
  GstCaps *out;

  g_return_val_if_fail (GST_IS_CAPS (caps), NULL);

  formats_ensure ();
  out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);

    if (gst_structure_has_name (s, GST_TN_MEDIA_TYPE))
      tensor_to_media_caps (s, out, frames);
  }
  if (gst_caps_is_empty (out) && err != NULL && gst_caps_is_fixed (caps)
      && gst_tn_info_from_caps (&info, caps, NULL)) {
    gchar *desc = gst_tn_info_to_string (&info);

    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "A tensor %s at framerate %d/%d fits no media format: video needs "
        "uint8 <h, w>, <h, w, 1>, <h, w, 3> or <h, w, 4>, or uint16 <h, w> "
        "or <h, w, 1> (every extent 1 or more); audio needs int8, uint8, "
        "int16, int32, float32 or float64 <frames, channels> at a framerate "
        "that makes frames x framerate a whole number of Hz.",
        desc, info.fps_n, info.fps_d);
    g_free (desc);
  }
  return out;
}

gboolean
gst_tn_video_plane_view (tn_view *view, const GstVideoInfo *vinfo,
    const GstVideoMeta *meta, guint plane, GstTnMediaFlags flags, gsize size,
    GError **err)
{
  GstTnInfo info;
  gsize isz, offset, need, pixel, span = 0;
  gint64 h, w, ch;
  gint stride;

  g_return_val_if_fail (view != NULL && vinfo != NULL, FALSE);

  if (!gst_tn_info_from_video_info (&info, vinfo, plane, flags, err))
    return FALSE;
  isz = tn_dtype_size (info.dtype);
  h = info.dims[0];
  w = info.dims[1];
  ch = info.rank == 3 ? info.dims[2] : 1;
  pixel = (gsize) ch * isz;
  offset
      = meta ? meta->offset[plane] : GST_VIDEO_INFO_PLANE_OFFSET (vinfo, plane);
  stride
      = meta ? meta->stride[plane] : GST_VIDEO_INFO_PLANE_STRIDE (vinfo, plane);
  if (stride < 0 || (gsize) stride < (gsize) w * pixel) {
    g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "Video rows of %d bytes are shorter than %" G_GINT64_FORMAT
        " pixels of %" G_GSIZE_FORMAT " bytes.",
        stride, w, pixel);
    return FALSE;
  }
  if (h > 0 && w > 0)
    span = (gsize) stride * (gsize) (h - 1) + (gsize) w * pixel;
  /* A meta's offset is the buffer's word: it must not wrap the sum. */
  need = offset > G_MAXSIZE - span ? G_MAXSIZE : offset + span;
  /* Without a meta the frame is in the default layout, padding of the
   * last row included. */
  if (meta == NULL)
    need = MAX (need, GST_VIDEO_INFO_SIZE (vinfo));
  if (size < need) {
    g_set_error (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "Video buffer holds %" G_GSIZE_FORMAT " bytes; %s %dx%d with "
        "stride %d from byte %" G_GSIZE_FORMAT " needs %" G_GSIZE_FORMAT ".",
        size, GST_VIDEO_INFO_NAME (vinfo), GST_VIDEO_INFO_WIDTH (vinfo),
        GST_VIDEO_INFO_HEIGHT (vinfo), stride, offset, need);
    return FALSE;
  }

  /* One row: its pitch is never stepped over. */
  if (h <= 1)
    stride = (gint) ((gsize) w * pixel);
  memset (view, 0, sizeof *view);
  if (offset % isz == 0 && (gsize) stride % isz == 0) {
    /* Items where they lie: <h, w, ch> or <h, w>. */
    view->dtype = info.dtype;
    view->rank = info.rank;
    view->offset = (int64_t) (offset / isz);
    view->strides[0] = stride / (gint64) isz;
    view->strides[1] = info.rank == 3 ? ch : 1;
    view->strides[2] = 1;
  } else {
    /* Their bytes: one more axis, of isz bytes. */
    view->dtype = TN_UINT8;
    view->rank = info.rank + 1;
    view->offset = (int64_t) offset;
    view->strides[0] = stride;
    view->strides[1] = (gint64) pixel;
    view->strides[2] = info.rank == 3 ? (gint64) isz : 1;
    view->strides[3] = 1;
    info.dims[info.rank] = (gint64) isz;
  }
  memcpy (view->dims, info.dims, sizeof view->dims);
  return TRUE;
}
